//! Alloy's configuration syntax: a typed document and the one writer for it.
//!
//! The writer gives exactly the text `alloy fmt` gives for the same document (a test runs the
//! real binary on it), so what the operator stores is what a user would have written and
//! formatted by hand, and a reformat shows no diff.
//!
//! Safety of tenants' values: a string is always written as one quoted literal with every
//! quote, backslash and control character escaped. Alloy's syntax has no interpolation inside
//! literals (`"${X}"` and `"sys.env(\"X\")"` are plain text), so a value can neither close its
//! literal nor reach the environment; only [`Expr::Reference`], built from validated
//! identifiers, is written unquoted (with [`Expr::Call`] and [`Expr::Sum`], the operator's own
//! expressions over such values). One more pass reads the text before Alloy does: the config
//! loader replaces the operator's `$(SHARD)`-like references (`crate::loader_variables`), so a
//! `(` right after a `$` in a string is written `\u0028`: the loader never sees a reference in
//! a tenant's value, and Alloy reads the same `(`. Only [`Expr::PodVariable`], the operator's
//! own references, keeps its `$(`.
//!
//! Canonical layout (all of it is what `alloy fmt` keeps unchanged):
//! * a body lists its attributes first, then its blocks, each block after a blank line;
//! * attribute names (and object keys) are padded to a common width over each run of
//!   consecutive lines, a run ending after an attribute whose value spans lines, as Alloy's
//!   tab-aligned printer does;
//! * objects span lines, one `key = value,` per line; arrays stay on one line unless an element
//!   spans lines, then objects are chained `[{ ... }, { ... }]`;
//! * an empty block is `name { }`, an empty object `{}`.
//!
//! One exception to "what `alloy fmt` keeps": an object key that needs an escape (a quote, a
//! backslash, a control character, a `(` after a `$`) is written as Alloy's parser reads it,
//! but `alloy fmt` (v1.19.2) escapes such a key's text a second time, changing the key. Label
//! names and the other keys the operator writes need no escapes.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::Arc;

use thiserror::Error;

#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum SyntaxError {
    #[error(
        "{text:?} is not an Alloy identifier (a letter or `_`, then letters, digits or `_`, and \
         not `true`, `false` or `null`)"
    )]
    InvalidIdentifier { text: String },
}

/// A name Alloy accepts bare: an attribute, a block name part, a component label, an
/// object key written without quotes.
#[derive(Clone)]
pub struct Identifier(IdentifierText);

#[derive(Clone)]
enum IdentifierText {
    /// A name written in the code (an attribute or block name): a config of 10k jobs names
    /// hundreds of thousands of attributes, none of them copied.
    Static(&'static str),
    /// A short name made at run time (a part of a component's kind), held without a heap
    /// allocation: each job names its components' kinds again.
    Inline {
        len: u8,
        bytes: [u8; INLINE_IDENTIFIER],
    },
    /// A longer name made at run time (a component label): every reference to the component
    /// and its block share one copy.
    Shared(Arc<str>),
}

/// The longest [`IdentifierText::Inline`] name: as large as the enum is anyway (an
/// `Arc<str>` and the tag).
const INLINE_IDENTIFIER: usize = 22;

impl Identifier {
    /// A name made at run time; a short one (`relabel`) is copied without a heap allocation.
    pub fn new(text: impl AsRef<str> + Into<String>) -> Result<Self, SyntaxError> {
        let checked = text.as_ref();
        if !is_identifier(checked) {
            return Err(SyntaxError::InvalidIdentifier { text: text.into() });
        }
        let mut bytes = [0; INLINE_IDENTIFIER];
        let text = match (bytes.get_mut(..checked.len()), u8::try_from(checked.len())) {
            (Some(inline), Ok(len)) => {
                inline.copy_from_slice(checked.as_bytes());
                IdentifierText::Inline { len, bytes }
            }
            _ => IdentifierText::Shared(text.into().into()),
        };
        Ok(Identifier(text))
    }

    /// A name written in the code, for constants: checked when the constant is evaluated
    /// (a name that is not an identifier fails the build), kept without a copy. Block names
    /// made of these are borrowed by every block that has them ([`Block::name`]).
    pub const fn known(text: &'static str) -> Self {
        assert!(is_identifier(text), "not an Alloy identifier");
        Identifier(IdentifierText::Static(text))
    }

    /// [`Identifier::new`] for a name written in the code, kept without a copy.
    pub fn of_static(text: &'static str) -> Result<Self, SyntaxError> {
        if is_identifier(text) {
            Ok(Identifier(IdentifierText::Static(text)))
        } else {
            Err(SyntaxError::InvalidIdentifier {
                text: text.to_owned(),
            })
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            IdentifierText::Static(text) => text,
            // Checked ASCII when made: always one whole string.
            IdentifierText::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            IdentifierText::Shared(text) => text,
        }
    }
}

impl PartialEq for Identifier {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Identifier {}

impl PartialOrd for Identifier {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Identifier {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for Identifier {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl std::fmt::Debug for Identifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Identifier").field(&self.as_str()).finish()
    }
}

/// ASCII only, so bytes are characters. A `const fn`, for [`Identifier::known`].
const fn is_identifier(text: &str) -> bool {
    let bytes = text.as_bytes();
    let [first, rest @ ..] = bytes else {
        return false;
    };
    if !(first.is_ascii_alphabetic() || *first == b'_') {
        return false;
    }
    let mut i = 0;
    while i < rest.len() {
        if !(rest[i].is_ascii_alphanumeric() || rest[i] == b'_') {
            return false;
        }
        i += 1;
    }
    !matches!(bytes, b"true" | b"false" | b"null")
}

/// A value: literals, arrays, objects and references to other components' exports.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    String(String),
    Int(i64),
    /// A finite number; written with a fraction or exponent only when it has one.
    Float(f64),
    Bool(bool),
    Null,
    Array(Vec<Expr>),
    /// Keys in the order given; a key that is not an identifier is written quoted.
    Object(Vec<(String, Expr)>),
    /// `discovery.relabel.metrics_x.output`: a path of identifiers, written bare.
    Reference(Vec<Identifier>),
    /// A string holding the operator's `$(NAME)` references for the config loader to fill in
    /// (`crate::expansion::ConfigString::PodVariable`); never built from a tenant's text.
    PodVariable(String),
    /// `function(arguments)`, a function of Alloy's standard library named by a path of
    /// identifiers (`sys.env("HOSTNAME")`): the operator's own expressions, such as the logs
    /// pods' node name, which only the pod's environment knows.
    Call(Vec<Identifier>, Vec<Expr>),
    /// `a + b + ...`: Alloy concatenates strings with `+`.
    Sum(Vec<Expr>),
}

impl Expr {
    pub fn string(text: impl Into<String>) -> Self {
        Expr::String(text.into())
    }

    pub fn strings<S: Into<String>>(texts: impl IntoIterator<Item = S>) -> Self {
        Expr::Array(texts.into_iter().map(Expr::string).collect())
    }

    /// Whether the writer puts this value on more than one line.
    fn spans_lines(&self) -> bool {
        match self {
            Expr::Object(entries) => !entries.is_empty(),
            Expr::Array(items) => items.iter().any(Expr::spans_lines),
            Expr::Call(_, args) => args.iter().any(Expr::spans_lines),
            _ => false,
        }
    }
}

/// `name = value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub name: Identifier,
    pub value: Expr,
}

/// `a.b "label" { body }`, the label being optional.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Borrowed when the name is a constant of the code (`rule`, `prometheus.scrape`): a
    /// config of 10k jobs has hundreds of thousands of blocks, and their names cost no
    /// allocation.
    pub name: Cow<'static, [Identifier]>,
    pub label: Option<Identifier>,
    pub body: Body,
}

impl Block {
    pub fn new(name: impl Into<Cow<'static, [Identifier]>>, label: Option<Identifier>) -> Self {
        Block {
            name: name.into(),
            label,
            body: Body::default(),
        }
    }
}

/// The inside of a block, or a whole file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Body {
    pub attributes: Vec<Attribute>,
    pub blocks: Vec<Block>,
}

impl Body {
    pub fn attribute(&mut self, name: Identifier, value: Expr) -> &mut Self {
        self.attributes.push(Attribute { name, value });
        self
    }

    pub fn block(&mut self, block: Block) -> &mut Self {
        self.blocks.push(block);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.attributes.is_empty() && self.blocks.is_empty()
    }
}

/// The text of a whole file: `body`'s items at the top level, ending with a newline (empty
/// for an empty body). Every `$(` in a string is hidden from the config loader.
pub fn write_file(body: &Body) -> String {
    write_file_keeping(body, &[])
}

/// [`write_file`], but the loader references in `kept` (`$(SHARD)`) are left in every string
/// for the config loader to fill in, as the static-mode configs leave them
/// (`crate::expansion::SHARD_VARIABLES`).
pub fn write_file_keeping(body: &Body, kept: &[&str]) -> String {
    let mut out = String::new();
    write_body(&mut out, kept, body, 0);
    out
}

/// Appends `block` to `out` as a top-level block of a file: the text [`write_file_keeping`]
/// gives it, a blank line apart from what `out` already holds. Files too large to hold twice
/// are written this way, block by block.
pub fn append_top_block(out: &mut String, block: &Block, kept: &[&str]) {
    if !out.is_empty() {
        out.push('\n');
    }
    write_block(out, kept, block, 0);
}

fn write_body(out: &mut String, kept: &[&str], body: &Body, depth: usize) {
    write_aligned(out, kept, &body.attributes, attribute_line, depth, "");
    for (i, block) in body.blocks.iter().enumerate() {
        if i > 0 || !body.attributes.is_empty() {
            out.push('\n');
        }
        write_block(out, kept, block, depth);
    }
}

fn write_block(out: &mut String, kept: &[&str], block: &Block, depth: usize) {
    indent(out, depth);
    for (i, part) in block.name.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(part.as_str());
    }
    if let Some(label) = &block.label {
        out.push(' ');
        write_string(out, label.as_str(), Some(kept));
    }
    if block.body.is_empty() {
        out.push_str(" { }\n");
        return;
    }
    out.push_str(" {\n");
    write_body(out, kept, &block.body, depth + 1);
    indent(out, depth);
    out.push_str("}\n");
}

/// One `key = value` line of [`write_aligned`]; `bare`: the key is an identifier, written
/// without quotes.
struct AlignedLine<'a> {
    key: &'a str,
    bare: bool,
    value: &'a Expr,
}

fn attribute_line(attribute: &Attribute) -> AlignedLine<'_> {
    AlignedLine {
        key: attribute.name.as_str(),
        bare: true,
        value: &attribute.value,
    }
}

/// `key = value` lines, one per item of `items` (with `terminator` after each value: `,`
/// inside objects), keys padded over each run of lines that Alloy's printer aligns.
fn write_aligned<T>(
    out: &mut String,
    kept: &[&str],
    items: &[T],
    line: fn(&T) -> AlignedLine<'_>,
    depth: usize,
    terminator: &str,
) {
    let mut run_start = 0;
    while run_start < items.len() {
        let run_end = items[run_start..]
            .iter()
            .position(|item| line(item).value.spans_lines())
            .map_or(items.len(), |i| run_start + i + 1);
        let run = &items[run_start..run_end];
        let width = run
            .iter()
            .map(|item| key_width(out, kept, &line(item)))
            .max()
            .unwrap_or(0);
        for item in run {
            let AlignedLine { key, bare, value } = line(item);
            indent(out, depth);
            let key_start = out.len();
            if bare {
                out.push_str(key);
            } else {
                write_string(out, key, Some(kept));
            }
            let written = width_of(&out[key_start..], bare);
            out.extend(std::iter::repeat_n(' ', width - written));
            out.push_str(" = ");
            write_expr(out, kept, value, depth);
            out.push_str(terminator);
            out.push('\n');
        }
        run_start = run_end;
    }
}

/// The width of `line`'s key as Alloy's aligner counts it, in characters. A quoted key is
/// measured by writing its literal at the end of `out`, then taken back: keys that need
/// quotes are few, and this needs no buffer of its own.
fn key_width(out: &mut String, kept: &[&str], line: &AlignedLine<'_>) -> usize {
    if line.bare {
        return line.key.len();
    }
    let start = out.len();
    write_string(out, line.key, Some(kept));
    let width = width_of(&out[start..], false);
    out.truncate(start);
    width
}

/// A written key's width: a bare key is ASCII, as many characters as bytes.
fn width_of(written: &str, bare: bool) -> usize {
    if bare {
        written.len()
    } else {
        written.chars().count()
    }
}

fn write_expr(out: &mut String, kept: &[&str], expr: &Expr, depth: usize) {
    match expr {
        Expr::String(text) => write_string(out, text, Some(kept)),
        Expr::PodVariable(text) => write_string(out, text, None),
        Expr::Int(n) => {
            let _ = write!(out, "{n}");
        }
        // Rust's shortest round-trip form (`1.1`, `2`, `1e-7`), which Alloy reads back;
        // a value that is not finite has no literal, so it is written as null.
        Expr::Float(f) if f.is_finite() => {
            let _ = write!(out, "{f}");
        }
        Expr::Float(_) => out.push_str("null"),
        Expr::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Expr::Null => out.push_str("null"),
        Expr::Reference(path) => write_path(out, path),
        Expr::Call(function, arguments) => {
            write_path(out, function);
            out.push('(');
            for (i, argument) in arguments.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, kept, argument, depth);
            }
            out.push(')');
        }
        Expr::Sum(terms) => {
            for (i, term) in terms.iter().enumerate() {
                if i > 0 {
                    out.push_str(" + ");
                }
                write_expr(out, kept, term, depth);
            }
        }
        Expr::Object(entries) if entries.is_empty() => out.push_str("{}"),
        Expr::Object(entries) => {
            out.push_str("{\n");
            write_object_entries(out, kept, entries, depth + 1);
            indent(out, depth);
            out.push('}');
        }
        Expr::Array(items) if !expr.spans_lines() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, kept, item, depth);
            }
            out.push(']');
        }
        Expr::Array(items) => write_spanning_array(out, kept, items, depth),
    }
}

fn write_path(out: &mut String, path: &[Identifier]) {
    for (i, part) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str(part.as_str());
    }
}

fn write_object_entries(out: &mut String, kept: &[&str], entries: &[(String, Expr)], depth: usize) {
    write_aligned(out, kept, entries, entry_line, depth, ",");
}

fn entry_line((key, value): &(String, Expr)) -> AlignedLine<'_> {
    AlignedLine {
        key,
        bare: is_identifier(key),
        value,
    }
}

/// An array with an element on several lines: objects chained as `[{ ... }, { ... }]`,
/// anything else one element per line.
fn write_spanning_array(out: &mut String, kept: &[&str], items: &[Expr], depth: usize) {
    let all_objects = items
        .iter()
        .all(|item| matches!(item, Expr::Object(entries) if !entries.is_empty()));
    if all_objects {
        out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_expr(out, kept, item, depth);
        }
        out.push(']');
        return;
    }
    out.push_str("[\n");
    for item in items {
        indent(out, depth + 1);
        write_expr(out, kept, item, depth + 1);
        out.push_str(",\n");
    }
    indent(out, depth);
    out.push(']');
}

fn indent(out: &mut String, depth: usize) {
    out.extend(std::iter::repeat_n('\t', depth));
}

/// `text` as one Alloy string literal. Quotes and backslashes are escaped; so is every
/// control character (a raw tab would also be eaten by `alloy fmt`'s aligner), and a `(` after
/// a `$` (module docs) unless the reference starts one of `kept`; everything else, any
/// Unicode text, is written as it is. `kept: None` writes every `$(` as it is.
fn write_string(out: &mut String, text: &str, kept: Option<&[&str]>) {
    out.push('"');
    // Most strings (label names, regexes, addresses, `$1`) need no escape: copied whole.
    if !needs_escape(text) {
        out.push_str(text);
        out.push('"');
        return;
    }
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '$' if chars.peek().is_some_and(|(_, next)| *next == '(') => {
                let reference =
                    kept.and_then(|kept| kept.iter().find(|k| text[at..].starts_with(**k)));
                match (kept, reference) {
                    (None, _) => out.push('$'),
                    (Some(_), Some(reference)) => {
                        out.push_str(reference);
                        // The reference is ASCII: skip its characters after the `$`.
                        for _ in 1..reference.len() {
                            chars.next();
                        }
                    }
                    (Some(_), None) => {
                        out.push_str("$\\u0028");
                        chars.next();
                    }
                }
            }
            c if c.is_control() || is_line_separator(c) => {
                let code = u32::from(c);
                let _ = if code <= 0xFFFF {
                    write!(out, "\\u{code:04x}")
                } else {
                    write!(out, "\\U{code:08x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Whether [`write_string`] writes `text` other than as it is: a byte outside printable ASCII
/// (a control or non-ASCII character, looked at one by one), a quote, a backslash, or a `$(`.
fn needs_escape(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(at, &b)| {
        !(0x20..0x7f).contains(&b)
            || matches!(b, b'"' | b'\\')
            || (b == b'$' && bytes.get(at + 1) == Some(&b'('))
    })
}

/// U+2028 and U+2029 end lines for some readers; escaped so that a literal is one line to all.
fn is_line_separator(c: char) -> bool {
    matches!(c, '\u{2028}' | '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Identifier {
        Identifier::new(text).expect("a test identifier")
    }

    /// The inverse of `write_string`, as Alloy's scanner reads a literal, for the escapes the
    /// writer uses.
    fn read_string(literal: &str) -> String {
        let inner = &literal[1..literal.len() - 1];
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                assert!(c != '"' && !c.is_control(), "unescaped {c:?} in {literal}");
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some('t') => out.push('\t'),
                Some(kind @ ('u' | 'U')) => {
                    let digits: String = chars
                        .by_ref()
                        .take(if kind == 'u' { 4 } else { 8 })
                        .collect();
                    let code = u32::from_str_radix(&digits, 16).expect("hex digits");
                    out.push(char::from_u32(code).expect("a char"));
                }
                other => panic!("unexpected escape {other:?} in {literal}"),
            }
        }
        out
    }

    #[test]
    fn identifiers_are_checked() {
        for good in ["a", "_", "metrics_x_1", "A9"] {
            assert!(Identifier::new(good).is_ok(), "{good}");
        }
        for bad in ["", "1a", "a-b", "a.b", "true", "null", "é"] {
            assert_eq!(
                Identifier::new(bad),
                Err(SyntaxError::InvalidIdentifier { text: bad.into() })
            );
            assert!(
                std::panic::catch_unwind(|| Identifier::known(bad)).is_err(),
                "{bad}"
            );
        }
        const KNOWN: Identifier = Identifier::known("metrics_x_1");
        assert_eq!(KNOWN, id("metrics_x_1"));
    }

    #[test]
    fn every_string_reads_back_as_written_and_stays_one_literal() {
        let hostile = [
            "",
            "plain",
            "a\"b",
            "back\\slash\\",
            "\\\"",
            "line\nbreak\r\n",
            "tab\there",
            "${HOSTNAME} $(SHARD) $$1 sys.env(\"HOME\")",
            "\u{0} \u{1} \u{7f} \u{85} \u{2028} \u{2029}",
            "é 漢字 🙂",
            "\" + sys.env(\"SECRET\") + \"",
            "$(SHARD) $$(SHARDS) $ ( $)",
        ];
        for text in hostile {
            let mut literal = String::new();
            write_string(&mut literal, text, Some(&[]));
            assert!(!literal.contains('\n'), "{literal}");
            assert!(!literal.contains("$("), "{literal}");
            assert_eq!(read_string(&literal), text, "{literal}");
        }
    }

    #[test]
    fn calls_and_sums_are_written_as_alloy_writes_them() {
        let node = Expr::Sum(vec![
            Expr::string("spec.nodeName="),
            Expr::Call(
                vec![id("coalesce")],
                vec![
                    Expr::Call(vec![id("sys"), id("env")], vec![Expr::string("HOSTNAME")]),
                    Expr::Reference(vec![id("constants"), id("hostname")]),
                ],
            ),
        ]);
        let mut body = Body::default();
        body.attribute(id("field"), node);
        assert_eq!(
            write_file(&body),
            "field = \"spec.nodeName=\" + coalesce(sys.env(\"HOSTNAME\"), constants.hostname)\n"
        );
    }

    #[test]
    fn runs_of_names_align_until_a_value_spans_lines() {
        let mut body = Body::default();
        body.attribute(id("targets"), Expr::Array(vec![]))
            .attribute(
                id("forward_to"),
                Expr::Reference(vec![id("prometheus"), id("remote_write"), id("x")]),
            )
            .attribute(
                id("params"),
                Expr::Object(vec![("module".into(), Expr::strings(["a"]))]),
            )
            .attribute(id("scrape_timeout"), Expr::string("10s"))
            .attribute(id("job"), Expr::string("j"));
        assert_eq!(
            write_file(&body),
            "targets    = []\n\
             forward_to = prometheus.remote_write.x\n\
             params     = {\n\
             \tmodule = [\"a\"],\n\
             }\n\
             scrape_timeout = \"10s\"\n\
             job            = \"j\"\n"
        );
    }

    #[test]
    fn blocks_follow_attributes_after_a_blank_line() {
        let mut inner = Block::new(vec![id("rule")], None);
        inner.body.attribute(id("action"), Expr::string("keep"));
        let mut outer = Block::new(vec![id("discovery"), id("relabel")], Some(id("a")));
        outer
            .body
            .attribute(id("targets"), Expr::Array(vec![]))
            .block(inner.clone())
            .block(Block::new(vec![id("empty")], None));
        let mut file = Body::default();
        file.block(outer).block(inner);
        assert_eq!(
            write_file(&file),
            "discovery.relabel \"a\" {\n\
             \ttargets = []\n\
             \n\
             \trule {\n\
             \t\taction = \"keep\"\n\
             \t}\n\
             \n\
             \tempty { }\n\
             }\n\
             \n\
             rule {\n\
             \taction = \"keep\"\n\
             }\n"
        );
    }

    #[test]
    fn arrays_of_objects_chain_and_keys_are_quoted_when_needed() {
        let object = |address: &str| {
            Expr::Object(vec![
                ("__address__".into(), Expr::string(address)),
                ("app.kubernetes.io/name".into(), Expr::string("x")),
            ])
        };
        let mut body = Body::default();
        body.attribute(id("targets"), Expr::Array(vec![object("a"), object("b")]));
        assert_eq!(
            write_file(&body),
            "targets = [{\n\
             \t__address__              = \"a\",\n\
             \t\"app.kubernetes.io/name\" = \"x\",\n\
             }, {\n\
             \t__address__              = \"b\",\n\
             \t\"app.kubernetes.io/name\" = \"x\",\n\
             }]\n"
        );
    }
}
