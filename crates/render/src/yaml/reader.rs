//! The fast reader of the block-YAML subset manifests use; anything else goes to the full parser.

use serde_json::Value;

use super::emit::{IMPLICIT_KEY_LIMIT, RESERVED_WORDS, is_plain_dash_word, is_yaml_printable};

/// Reads `text` (one YAML document) when it keeps to the block-style subset that generated
/// and hand-written Kubernetes manifests almost always use; `None` for anything else, which
/// the caller then hands to the full parser.
///
/// The full parser reads a few MB/s, and `render` of 10k ServiceMonitors reads about 12 MB;
/// this subset reader is an order of magnitude faster. It only accepts what it can read
/// exactly as the full parser does: block mappings and sequences indented with spaces, plain
/// scalars that are unambiguously strings, decimal integers, `true`, `false` and `null`,
/// one-line quoted scalars, `{}`, `[]` and one-line flow sequences of such scalars. Anchors,
/// tags, block scalars, multi-line scalars, comments after values, duplicate keys, and
/// every scalar another YAML reader could type differently (`yes`, `1.0`, `0x1F`, `2001-12-14`,
/// `1:20`, ...) give `None`, so the full parser decides, and reports errors.
pub fn read_simple_document(text: &str) -> Option<Value> {
    let mut lines = Vec::new();
    for raw in text.lines() {
        let content = raw.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        // Tabs, and line breaks other than \n, are read differently by different YAML
        // versions: leave them to the full parser.
        if raw.contains(['\t', '\r', '\u{85}', '\u{2028}', '\u{2029}', '\u{feff}']) {
            return None;
        }
        lines.push(Line {
            indent: raw.len() - content.len(),
            text: content.trim_end_matches(' '),
        });
    }
    let first = lines.first()?.indent;
    let mut reader = SimpleReader { lines, pos: 0 };
    let value = reader.node(first)?;
    (reader.pos == reader.lines.len()).then_some(value)
}

#[derive(Clone, Copy)]
struct Line<'a> {
    indent: usize,
    /// The line without its indentation and trailing spaces; never empty.
    text: &'a str,
}

struct SimpleReader<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
}

fn is_sequence_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

impl<'a> SimpleReader<'a> {
    fn peek(&self) -> Option<Line<'a>> {
        self.lines.get(self.pos).copied()
    }

    /// The block node whose first line is the current one, at `indent`.
    fn node(&mut self, indent: usize) -> Option<Value> {
        let line = self.peek()?;
        if line.indent != indent {
            return None;
        }
        if is_sequence_item(line.text) {
            self.sequence(indent)
        } else {
            self.mapping(indent)
        }
    }

    /// The value of a `key:` with nothing after the colon: a deeper block, a sequence at the
    /// key's own indentation (as kubectl writes them), or null.
    fn nested_value(&mut self, key_indent: usize) -> Option<Value> {
        match self.peek() {
            Some(next) if next.indent > key_indent => self.node(next.indent),
            Some(next) if next.indent == key_indent && is_sequence_item(next.text) => {
                self.sequence(key_indent)
            }
            _ => Some(Value::Null),
        }
    }

    fn mapping(&mut self, indent: usize) -> Option<Value> {
        let mut map = serde_json::Map::new();
        while let Some(line) = self.peek() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent || is_sequence_item(line.text) {
                return None;
            }
            let (key, rest) = split_mapping_entry(line.text)?;
            if map.contains_key(&key) {
                return None;
            }
            self.pos += 1;
            let value = if rest.is_empty() {
                self.nested_value(indent)?
            } else {
                inline_value(rest)?
            };
            map.insert(key, value);
        }
        Some(Value::Object(map))
    }

    fn sequence(&mut self, indent: usize) -> Option<Value> {
        let mut items = Vec::new();
        while let Some(line) = self.peek() {
            // A line at the sequence's indentation that is no item ends a sequence written
            // at its key's indentation; the mapping holding the key reads it.
            if line.indent < indent || (line.indent == indent && !is_sequence_item(line.text)) {
                break;
            }
            if line.indent > indent {
                return None;
            }
            if line.text == "-" {
                self.pos += 1;
                items.push(match self.peek() {
                    Some(next) if next.indent > indent => self.node(next.indent)?,
                    _ => Value::Null,
                });
                continue;
            }
            let rest = line.text[2..].trim_start_matches(' ');
            let column = indent + (line.text.len() - rest.len());
            if is_sequence_item(rest) || rest.starts_with('#') {
                return None;
            }
            if split_mapping_entry(rest).is_some() {
                // `- key: value`: a mapping whose first entry shares the dash's line.
                self.lines[self.pos] = Line {
                    indent: column,
                    text: rest,
                };
                items.push(self.mapping(column)?);
            } else {
                self.pos += 1;
                items.push(inline_value(rest)?);
            }
        }
        Some(Value::Array(items))
    }
}

/// `key: rest` or `key:` (rest empty), with the key read as a string. A key longer than an
/// emitted implicit key can be is left to the full parser, which refuses those above YAML's
/// 1024-character limit.
fn split_mapping_entry(text: &str) -> Option<(String, &str)> {
    let (key, rest) = if let Some(quote @ ('\'' | '"')) = text.chars().next() {
        let end = closing_quote(text, quote)?;
        let rest = &text[end + 1..];
        let rest = if rest == ":" {
            ""
        } else {
            rest.strip_prefix(": ")?
        };
        if end + 1 > IMPLICIT_KEY_LIMIT {
            return None;
        }
        (quoted(&text[..=end])?, rest)
    } else {
        let (key, rest) = match text.find(": ") {
            Some(i) => (&text[..i], &text[i + 2..]),
            None => (text.strip_suffix(':')?, ""),
        };
        if key.len() > IMPLICIT_KEY_LIMIT {
            return None;
        }
        match plain_scalar(key.trim_end_matches(' '))? {
            Value::String(s) => (s, rest),
            _ => return None,
        }
    };
    Some((key, rest.trim_start_matches(' ')))
}

/// The byte index of the quote closing the scalar that starts `text`.
fn closing_quote(text: &str, quote: char) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == '"' => i += 2,
            b'\'' if quote == '\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote as u8 => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// A value written on the same line as its key or dash.
fn inline_value(text: &str) -> Option<Value> {
    match text.as_bytes()[0] {
        b'\'' | b'"' => quoted(text).map(Value::String),
        b'{' => (text == "{}").then(|| Value::Object(serde_json::Map::new())),
        b'[' => flow_sequence(text),
        _ => plain_scalar(text),
    }
}

/// `[a, 'b', 3]` on one line, items being scalars.
fn flow_sequence(text: &str) -> Option<Value> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?.trim_matches(' ');
    if inner.is_empty() {
        return Some(Value::Array(Vec::new()));
    }
    if inner.contains(['[', ']', '{', '}', '\'', '"', '#']) {
        return None;
    }
    inner
        .split(',')
        .map(|item| {
            let item = item.trim_matches(' ');
            if item.is_empty() || item.contains(':') {
                return None;
            }
            plain_scalar(item)
        })
        .collect::<Option<Vec<_>>>()
        .map(Value::Array)
}

/// A whole one-line quoted scalar (`text` is exactly the quoted token).
fn quoted(text: &str) -> Option<String> {
    let quote = text.chars().next()?;
    if text.len() < 2 || closing_quote(text, quote)? != text.len() - 1 {
        return None;
    }
    let inner = &text[1..text.len() - 1];
    // Characters YAML does not allow unescaped anywhere (DEL, C0 and C1 controls,
    // U+FFFE/U+FFFF): the full parser refuses them, so the fast reader must not accept them
    // (fuzz finding: `"\u{7f}"` read as a string).
    if inner.chars().any(|c| !is_yaml_printable(c)) {
        return None;
    }
    if quote == '\'' {
        return Some(inner.replace("''", "'"));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            '"' => '"',
            '/' => '/',
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

/// A plain scalar, when every YAML reader types it the same way.
fn plain_scalar(s: &str) -> Option<Value> {
    let first = s.chars().next()?;
    if s.contains(" #") || s.contains(": ") || s.ends_with(':') || s.starts_with(' ') {
        return None;
    }
    match s {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" => return Some(Value::Null),
        _ => {}
    }
    let numeric_start = first.is_ascii_digit()
        || first == '.'
        || first == '+'
        || (first == '-' && s[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.'));
    if numeric_start {
        let digits = s.strip_prefix('-').unwrap_or(s);
        let canonical_integer = !digits.is_empty()
            && digits.len() <= 18
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'))
            && s != "-0";
        if canonical_integer {
            return s.parse::<i64>().ok().map(Value::from);
        }
        // `30s`, `5Gi`, `1h30m`: a letter no number, date or time can hold makes it a string.
        let only_number_like = s
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || b"xXoO._+-:tTzZ ".contains(&b));
        let sign_or_dot = first == '.' || first == '+' || s.starts_with("-.");
        return (!only_number_like && !sign_or_dot).then(|| Value::String(s.to_owned()));
    }
    if "-?:,[]{}#&*!|>'\"%@`~=<\\".contains(first) && !(first == '-' && is_plain_dash_word(s)) {
        return None;
    }
    if RESERVED_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)) || is_special_float(s) {
        return None;
    }
    if s.chars().any(|c| !is_yaml_printable(c) || c == '\u{feff}') {
        return None;
    }
    Some(Value::String(s.to_owned()))
}

/// `.inf`, `.NaN` and the like (already excluded by their leading dot), plus the YAML 1.1
/// spellings without one that some readers accept.
fn is_special_float(s: &str) -> bool {
    ["inf", "infinity", "nan"]
        .iter()
        .any(|w| s.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::tests::agrees;
    use serde_json::json;

    #[test]
    fn simple_reader_types_plain_scalars_as_the_full_parser_does() {
        let read: &[&str] = &[
            "web",
            "http-metrics",
            "30s",
            "5Gi",
            "100m",
            "1h30m",
            "-5s",
            "1",
            "0",
            "-3",
            "65535",
            "123456789012345678",
            "true",
            "false",
            "null",
            "$(SHARD)",
            "$1",
            "Node;(.*)",
            "(v\\d+).*",
            "go_gc_.*",
            "a/b",
            "http://a.b:9115/probe",
            "-config.expand-env=true",
            "--flag",
            "__tmp_hash",
            "it's",
            "ünïcode",
            "a b  c",
            "x#y",
            "a:b",
            "ns-00001",
            "app.kubernetes.io/name",
            "10.0.0.1:9100/x",
            "a[a-z]+",
            "a,b",
            "team-{x}",
        ];
        for s in read {
            let doc = format!("k: {s}\n");
            assert!(
                agrees(&doc).is_some(),
                "{s:?} should be read by the subset reader"
            );
        }
        let declined: &[&str] = &[
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "n",
            "True",
            "NULL",
            "~",
            "0755",
            "007",
            "1e3",
            "1.5",
            ".5",
            "+1",
            ".inf",
            "-.inf",
            ".NaN",
            "0x1F",
            "0o17",
            "1:20",
            "2001-12-14",
            "1.2.3",
            "-0",
            "1234567890123456789",
            "&a x",
            "*a",
            "!tag x",
            "%x",
            "@x",
            "`x",
            "|",
            ">",
            "a #c",
            "{a: 1}",
            "[a, [b]]",
            "'unterminated",
            "\"bad \\q escape\"",
            "'a' trailing",
            "=",
            "<<",
            "inf",
            "NaN",
            "1d",
        ];
        for s in declined {
            let doc = format!("k: {s}\n");
            assert!(
                agrees(&doc).is_none(),
                "{s:?} must be left to the full parser"
            );
        }
    }

    #[test]
    fn simple_reader_reads_kubernetes_manifests_exactly() {
        let docs = [
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n  namespace: 'y'\nstringData:\n  ca.crt: \"-----BEGIN-----\\nabc\\n\"\n  'quoted key': 'it''s'\n",
            "spec:\n  endpoints:\n  - port: web\n    relabelings:\n    - sourceLabels: [__name__, job]\n      regex: go_.*\n      action: drop\n    - targetLabel: x\n  - port: admin\n    params: {}\n    list: []\n  selector:\n    matchLabels:\n      app: a\n",
            "# leading comment\nitems:\n  - a\n  -\n    b: 1\n  - c: 2\n    d:\n      - 3\n      - 'x'\nempty:\nlast: ''\n",
            "a:\n- 1\n- - ignored\n",
            "list:\n- name: a\n  value: 1\n-\n- name: b\n",
            "top:\n    deep:\n        deeper: x\n    back: why\n",
        ];
        for (i, doc) in docs.iter().enumerate() {
            let got = agrees(doc);
            // The fourth document nests a sequence on a dash line, which the reader leaves
            // to the full parser.
            assert_eq!(got.is_some(), i != 3, "{doc}");
        }
    }

    #[test]
    fn simple_reader_leaves_everything_else_to_the_full_parser() {
        for doc in [
            "a: &x 1\nb: *x\n",
            "a: |\n  text\n",
            "a: >\n  folded\n",
            "a: one\n  two\n",
            "a: 1 # trailing comment\n",
            "a: 1\na: 2\n",
            "a:\n\t- 1\n",
            "a: !!str 1\n",
            "? complex\n: key\n",
            "- a\nb: 1\n",
            "a:\n  - x\n b: 1\n",
            "a: \"multi\n  line\"\n",
            "%YAML 1.2\n",
            "just a scalar\n",
            "a: 'x'\r\nb: y\r\n",
            "",
        ] {
            assert_eq!(read_simple_document(doc), None, "{doc:?}");
        }
    }

    #[test]
    fn the_fast_reader_leaves_long_implicit_keys_to_the_full_parser() {
        for n in [IMPLICIT_KEY_LIMIT + 1, 1024, 1025, 2000] {
            for doc in [
                format!("{}: v\n", "k".repeat(n)),
                format!("'{}': v\n", "k".repeat(n - 2)),
                format!("- a: 1\n  {}:\n  - x\n", "k".repeat(n)),
            ] {
                assert_eq!(read_simple_document(&doc), None, "{}", n);
            }
        }
        let at_limit = format!("{}: v\n", "k".repeat(IMPLICIT_KEY_LIMIT));
        assert_eq!(
            agrees(&at_limit),
            Some(json!({ "k".repeat(IMPLICIT_KEY_LIMIT): "v" }))
        );
    }
}
