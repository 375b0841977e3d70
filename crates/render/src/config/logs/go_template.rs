//! The Go templates of pipeline stages (`template.template`, `replace.replace`) call only the
//! functions promtail defines, minus the ones that read outside the log entry (issue 38,
//! item 3).
//!
//! Promtail parses a template stage's template when the agent loads its config: a function it
//! does not define makes the agent refuse the whole config, stopping logs for every PodLogs
//! of the agent. And sprig's `env` would copy the logs DaemonSet's environment into log lines.
//!
//! [`check`] reads a template the way Go's `text/template` lexer does (default delimiters,
//! trim markers, comments, strings, raw strings, characters, numbers, variables, fields), so
//! every identifier it finds in an action is a function call (`{{ f }}`, `{{ x | f }}`,
//! `{{ (f x) }}`, a bare `f` as an argument). It also refuses what Go's parser refuses in the
//! same pass: an unclosed action, string or comment, unbalanced parentheses, blocks without
//! `end`, `else` or `end` outside a block, `break` or `continue` outside `range`, and a
//! variable used before it is declared. It never panics and takes time linear in the text.

use std::collections::BTreeSet;

/// Go's `text/template` builtins (`builtins()` in text/template/funcs.go, Go 1.25, the
/// agent's toolchain).
const GO_BUILTINS: &[&str] = &[
    "and", "call", "eq", "ge", "gt", "html", "index", "js", "le", "len", "lt", "ne", "not", "or",
    "print", "printf", "println", "slice", "urlquery",
];

/// `sprig.TxtFuncMap()` of github.com/Masterminds/sprig/v3 v3.2.3, the version grafana/agent
/// v0.44.8 requires (its go.mod), which promtail's stages use: promtail's
/// clients/pkg/logentry/stages/template.go at github.com/grafana/loki
/// v1.6.2-0.20240510183741-cef4c2826b4b (the agent's go.mod, k190 branch) builds its
/// `functionMap` from it. The keys were listed by running `sprig.TxtFuncMap()`; the ones
/// in [`FORBIDDEN`] are left out here too.
const SPRIG: &[&str] = &[
    "abbrev",
    "abbrevboth",
    "add",
    "add1",
    "add1f",
    "addf",
    "adler32sum",
    "ago",
    "all",
    "any",
    "append",
    "atoi",
    "b32dec",
    "b32enc",
    "b64dec",
    "b64enc",
    "base",
    "bcrypt",
    "biggest",
    "buildCustomCert",
    "camelcase",
    "cat",
    "ceil",
    "chunk",
    "clean",
    "coalesce",
    "compact",
    "concat",
    "contains",
    "date",
    "dateInZone",
    "dateModify",
    "date_in_zone",
    "date_modify",
    "decryptAES",
    "deepCopy",
    "deepEqual",
    "default",
    "derivePassword",
    "dict",
    "dig",
    "dir",
    "div",
    "divf",
    "duration",
    "durationRound",
    "empty",
    "encryptAES",
    "ext",
    "fail",
    "first",
    "float64",
    "floor",
    "fromJson",
    "genCA",
    "genCAWithKey",
    "genPrivateKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "get",
    "has",
    "hasKey",
    "hasPrefix",
    "hasSuffix",
    "hello",
    "htmlDate",
    "htmlDateInZone",
    "htpasswd",
    "indent",
    "initial",
    "initials",
    "int",
    "int64",
    "isAbs",
    "join",
    "kebabcase",
    "keys",
    "kindIs",
    "kindOf",
    "last",
    "list",
    "lower",
    "max",
    "maxf",
    "merge",
    "mergeOverwrite",
    "min",
    "minf",
    "mod",
    "mul",
    "mulf",
    "mustAppend",
    "mustChunk",
    "mustCompact",
    "mustDateModify",
    "mustDeepCopy",
    "mustFirst",
    "mustFromJson",
    "mustHas",
    "mustInitial",
    "mustLast",
    "mustMerge",
    "mustMergeOverwrite",
    "mustPrepend",
    "mustPush",
    "mustRegexFind",
    "mustRegexFindAll",
    "mustRegexMatch",
    "mustRegexReplaceAll",
    "mustRegexReplaceAllLiteral",
    "mustRegexSplit",
    "mustRest",
    "mustReverse",
    "mustSlice",
    "mustToDate",
    "mustToJson",
    "mustToPrettyJson",
    "mustToRawJson",
    "mustUniq",
    "mustWithout",
    "must_date_modify",
    "nindent",
    "nospace",
    "now",
    "omit",
    "osBase",
    "osClean",
    "osDir",
    "osExt",
    "osIsAbs",
    "pick",
    "pluck",
    "plural",
    "prepend",
    "push",
    "quote",
    "randAlpha",
    "randAlphaNum",
    "randAscii",
    "randBytes",
    "randInt",
    "randNumeric",
    "regexFind",
    "regexFindAll",
    "regexMatch",
    "regexQuoteMeta",
    "regexReplaceAll",
    "regexReplaceAllLiteral",
    "regexSplit",
    "repeat",
    "replace",
    "rest",
    "reverse",
    "round",
    "semver",
    "semverCompare",
    "seq",
    "set",
    "sha1sum",
    "sha256sum",
    "shuffle",
    "slice",
    "snakecase",
    "sortAlpha",
    "split",
    "splitList",
    "splitn",
    "squote",
    "sub",
    "subf",
    "substr",
    "swapcase",
    "ternary",
    "title",
    "toDate",
    "toDecimal",
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "toString",
    "toStrings",
    "trim",
    "trimAll",
    "trimPrefix",
    "trimSuffix",
    "trimall",
    "trunc",
    "tuple",
    "typeIs",
    "typeIsLike",
    "typeOf",
    "uniq",
    "unixEpoch",
    "unset",
    "until",
    "untilStep",
    "untitle",
    "upper",
    "urlJoin",
    "urlParse",
    "uuidv4",
    "values",
    "without",
    "wrap",
    "wrapWith",
];

/// Promtail's own functions (`extraFunctionMap` in the same template.go).
const PROMTAIL: &[&str] = &[
    "Hash",
    "Replace",
    "Sha2Hash",
    "ToLower",
    "ToUpper",
    "Trim",
    "TrimLeft",
    "TrimPrefix",
    "TrimRight",
    "TrimSpace",
    "TrimSuffix",
    "regexReplaceAll",
    "regexReplaceAllLiteral",
];

/// Functions promtail defines that a PodLogs may not call: they read outside the log entry,
/// from the logs DaemonSet every tenant shares (its environment, the node's DNS).
const FORBIDDEN: &[(&str, &str)] = &[
    ("env", "reads the logs DaemonSet's environment"),
    (
        "expandenv",
        "expands variables from the logs DaemonSet's environment",
    ),
    (
        "getHostByName",
        "resolves names through the node's DNS from the logs DaemonSet",
    ),
];

/// A problem with a template, for a message after the field's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError(pub String);

/// Checks `text`, a Go template promtail will parse: every function it calls must be one
/// promtail defines and a PodLogs may call, and it must parse.
pub fn check(text: &str) -> Result<(), TemplateError> {
    let mut lexer = Lexer {
        chars: text.chars().collect(),
        pos: 0,
        blocks: vec![Block::root()],
    };
    lexer.run()
}

/// Whether promtail's templates define `name` and a PodLogs may call it.
pub fn allowed(name: &str) -> bool {
    GO_BUILTINS.contains(&name) || SPRIG.contains(&name) || PROMTAIL.contains(&name)
}

fn function(name: &str) -> Result<(), TemplateError> {
    if let Some((_, why)) = FORBIDDEN.iter().find(|(f, _)| *f == name) {
        return Err(TemplateError(format!(
            "calls {name:?}, which {why}; a PodLogs may not call it"
        )));
    }
    if allowed(name) {
        Ok(())
    } else {
        Err(TemplateError(format!(
            "calls {name:?}, which promtail's templates do not define; the agent would refuse the whole logs config (\"function {name:?} not defined\")"
        )))
    }
}

fn syntax(what: &str) -> TemplateError {
    TemplateError(format!(
        "is not a Go template promtail can parse: {what}; the agent would refuse the whole logs config"
    ))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum BlockKind {
    Root,
    If,
    Range,
    With,
    Define,
}

/// An open block and the variables declared in it.
struct Block {
    kind: BlockKind,
    vars: BTreeSet<String>,
}

impl Block {
    fn root() -> Self {
        Block {
            kind: BlockKind::Root,
            vars: BTreeSet::new(),
        }
    }
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    blocks: Vec<Block>,
}

/// Go's `isSpace` (inside actions and for trim markers).
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Go's `isAlphaNumeric`.
fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(i, c)| self.peek(i) == Some(c))
    }

    /// Text, then actions, to the end.
    fn run(&mut self) -> Result<(), TemplateError> {
        while self.pos < self.chars.len() {
            if self.starts_with("{{") {
                self.pos += 2;
                if self.peek(0) == Some('-') && self.peek(1).is_some_and(is_space) {
                    self.pos += 2;
                }
                if self.starts_with("/*") {
                    self.comment()?;
                } else {
                    self.action()?;
                }
            } else {
                self.pos += 1;
            }
        }
        match self.blocks.last().map(|b| b.kind) {
            Some(BlockKind::Root) => Ok(()),
            _ => Err(syntax("a block has no {{end}}")),
        }
    }

    /// At a right delimiter (`}}` or ` -}}`): consumes it.
    fn right_delim(&mut self) -> bool {
        if self.starts_with("}}") {
            self.pos += 2;
            true
        } else if self.peek(0).is_some_and(is_space) && self.peek(1) == Some('-') && {
            self.pos += 2;
            let closed = self.starts_with("}}");
            self.pos -= 2;
            closed
        } {
            self.pos += 4;
            true
        } else {
            false
        }
    }

    fn comment(&mut self) -> Result<(), TemplateError> {
        self.pos += 2;
        while !self.starts_with("*/") {
            if self.pos >= self.chars.len() {
                return Err(syntax("unclosed comment"));
            }
            self.pos += 1;
        }
        self.pos += 2;
        if self.right_delim() {
            Ok(())
        } else {
            Err(syntax("comment ends before closing delimiter"))
        }
    }

    /// One action, after `{{`: its tokens to the right delimiter. Each command (between
    /// `{{`, `|`, `(` and `)`, `}}`) needs a value, except after `end`, `else`, `break`,
    /// `continue`.
    fn action(&mut self) -> Result<(), TemplateError> {
        // The operand counts of the enclosing commands, one per open parenthesis.
        let mut outer: Vec<usize> = Vec::new();
        let mut operands = 0usize;
        let mut bare = false;
        // Whether the next token starts a pipeline (where a variable may be declared).
        let mut first = true;
        let mut tokens = 0usize;
        let missing = || syntax("missing value for command");
        loop {
            if self.right_delim() {
                return if !outer.is_empty() {
                    Err(syntax("unclosed left parenthesis"))
                } else if operands == 0 && !bare {
                    Err(missing())
                } else {
                    Ok(())
                };
            }
            let Some(c) = self.peek(0) else {
                return Err(syntax("unclosed action"));
            };
            if is_space(c) {
                self.pos += 1;
                continue;
            }
            tokens += 1;
            let starts_pipeline = std::mem::replace(&mut first, false);
            match c {
                '|' => {
                    if operands == 0 {
                        return Err(missing());
                    }
                    operands = 0;
                    self.pos += 1;
                }
                '=' | ',' => {
                    operands = 0;
                    self.pos += 1;
                }
                ':' if self.peek(1) == Some('=') => {
                    operands = 0;
                    self.pos += 2;
                }
                '(' => {
                    outer.push(operands + 1);
                    operands = 0;
                    first = true;
                    self.pos += 1;
                }
                ')' => {
                    if operands == 0 {
                        return Err(missing());
                    }
                    operands = outer
                        .pop()
                        .ok_or_else(|| syntax("unexpected right parenthesis"))?;
                    self.pos += 1;
                    self.terminated()?;
                }
                '"' => {
                    self.quoted('"', "unterminated quoted string")?;
                    operands += 1;
                }
                '\'' => {
                    self.quoted('\'', "unterminated character constant")?;
                    operands += 1;
                }
                '`' => {
                    self.pos += 1;
                    while self.peek(0) != Some('`') {
                        if self.pos >= self.chars.len() {
                            return Err(syntax("unterminated raw quoted string"));
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                    operands += 1;
                }
                '$' => {
                    self.pos += 1;
                    let name = self.word();
                    self.variable(&name, starts_pipeline)?;
                    self.terminated()?;
                    operands += 1;
                }
                '.' if !self.peek(1).is_some_and(|d| d.is_ascii_digit()) => {
                    // A field (`.Value`, `$x.Field`, `(f).Field`) or the dot.
                    self.pos += 1;
                    self.word();
                    self.terminated()?;
                    operands += 1;
                }
                '.' | '+' | '-' | '0'..='9' => {
                    self.number()?;
                    operands += 1;
                }
                c if is_alphanumeric(c) => {
                    let word = self.word();
                    self.terminated()?;
                    match self.identifier(&word, tokens == 1)? {
                        Word::Value => operands += 1,
                        Word::Pipeline => first = true,
                        Word::Bare => bare = true,
                    }
                }
                other => {
                    return Err(syntax(&format!("unexpected {other:?} in an action")));
                }
            }
        }
    }

    /// Go's `atTerminator` after an identifier, variable or field: what may follow it.
    fn terminated(&mut self) -> Result<(), TemplateError> {
        match self.peek(0) {
            None => Ok(()),
            Some(c) if is_space(c) || matches!(c, '.' | ',' | '|' | ':' | ')' | '(') => Ok(()),
            Some('}') if self.peek(1) == Some('}') => Ok(()),
            Some(c) => Err(syntax(&format!("bad character {c:?} after a name"))),
        }
    }

    /// The run of Go alphanumerics at the position.
    fn word(&mut self) -> String {
        let start = self.pos;
        while self.peek(0).is_some_and(is_alphanumeric) {
            self.pos += 1;
        }
        self.chars
            .get(start..self.pos)
            .unwrap_or_default()
            .iter()
            .collect()
    }

    fn quoted(&mut self, quote: char, unterminated: &str) -> Result<(), TemplateError> {
        self.pos += 1;
        loop {
            match self.peek(0) {
                None | Some('\n') => return Err(syntax(unterminated)),
                Some('\\') => self.pos += 2,
                Some(c) => {
                    self.pos += 1;
                    if c == quote {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// A number: a sign, then digits, letters (hex, exponents, `i`), `_`, `.` and a sign after
    /// an exponent. Go refuses a number without digits.
    fn number(&mut self) -> Result<(), TemplateError> {
        let start = self.pos;
        if matches!(self.peek(0), Some('+' | '-')) {
            self.pos += 1;
        }
        while let Some(c) = self.peek(0) {
            let exponent_sign = matches!(c, '+' | '-')
                && matches!(
                    self.chars.get(self.pos.wrapping_sub(1)),
                    Some('e' | 'E' | 'p' | 'P')
                );
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' || exponent_sign {
                self.pos += 1;
            } else {
                break;
            }
        }
        static NUMBER: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
            regex::Regex::new(
                r"^[+-]?(?:0[xX][0-9a-fA-F_]*\.?[0-9a-fA-F_]*(?:[pP][+-]?[0-9_]+)?|0[bB][01_]+|0[oO][0-7_]+|[0-9_]*\.?[0-9_]*(?:[eE][+-]?[0-9_]+)?)i?$",
            )
            .ok()
        });
        let text: String = self
            .chars
            .get(start..self.pos)
            .unwrap_or_default()
            .iter()
            .collect();
        let valid = text.chars().any(|c| c.is_ascii_digit())
            && NUMBER.as_ref().is_none_or(|re| re.is_match(&text));
        if valid {
            Ok(())
        } else {
            Err(syntax(&format!("bad number syntax: {text:?}")))
        }
    }

    /// A variable `$name` (`$` alone is the data): declared when a pipeline starts with it
    /// and `:=` or `=` follows, otherwise it must have been declared in an open block.
    fn variable(&mut self, name: &str, starts_pipeline: bool) -> Result<(), TemplateError> {
        let name = format!("${name}");
        let mut ahead = self.pos;
        while self.chars.get(ahead).copied().is_some_and(is_space) {
            ahead += 1;
        }
        let declares = match self.chars.get(ahead) {
            Some('=') => true,
            Some(':') => self.chars.get(ahead + 1) == Some(&'='),
            // `range $i, $v :=`
            Some(',') => starts_pipeline,
            _ => false,
        };
        if declares && (starts_pipeline || self.after_comma()) {
            if let Some(block) = self.blocks.last_mut() {
                block.vars.insert(name);
            }
            return Ok(());
        }
        let known = name == "$" || self.scope().any(|b| b.vars.contains(&name));
        if known {
            Ok(())
        } else {
            Err(syntax(&format!("undefined variable {name:?}")))
        }
    }

    /// Whether the variable just read follows `,` (the second variable of `range $i, $v`).
    fn after_comma(&self) -> bool {
        let mut back = self.pos;
        // Skip the variable itself.
        while back > 0 && self.chars[back - 1] != '$' {
            back -= 1;
        }
        back = back.saturating_sub(1);
        while back > 0 && is_space(self.chars[back - 1]) {
            back -= 1;
        }
        back > 0 && self.chars[back - 1] == ','
    }

    /// An identifier: a keyword (its block opened or closed), `true`/`false`/`nil`, or a
    /// function call. `leads` is true for the first token of the action.
    fn identifier(&mut self, word: &str, leads: bool) -> Result<Word, TemplateError> {
        let open = |kind| Block {
            kind,
            vars: BTreeSet::new(),
        };
        match word {
            "true" | "false" | "nil" => Ok(Word::Value),
            "if" | "range" | "with" | "define" | "block" | "else" | "end" | "template"
            | "break" | "continue"
                if !leads =>
            {
                Err(syntax(&format!("unexpected {word:?} inside an action")))
            }
            "if" | "range" | "with" => {
                let kind = match word {
                    "if" => BlockKind::If,
                    "range" => BlockKind::Range,
                    _ => BlockKind::With,
                };
                self.blocks.push(open(kind));
                Ok(Word::Pipeline)
            }
            "define" | "block" => {
                self.blocks.push(open(BlockKind::Define));
                Ok(Word::Pipeline)
            }
            "template" => Ok(Word::Pipeline),
            "else" => {
                let inside = self.blocks.last().map(|b| b.kind);
                if !matches!(
                    inside,
                    Some(BlockKind::If | BlockKind::Range | BlockKind::With)
                ) {
                    return Err(syntax("{{else}} outside if, range or with"));
                }
                Ok(if self.else_chain() {
                    Word::Pipeline
                } else {
                    Word::Bare
                })
            }
            "end" => {
                if self.blocks.len() <= 1 {
                    return Err(syntax("unexpected {{end}}"));
                }
                self.blocks.pop();
                Ok(Word::Bare)
            }
            "break" | "continue" => {
                if self.scope().any(|b| b.kind == BlockKind::Range) {
                    Ok(Word::Bare)
                } else {
                    Err(syntax(&format!("{{{{{word}}}}} outside range")))
                }
            }
            name => function(name).map(|()| Word::Value),
        }
    }

    /// The open blocks whose variables are visible, innermost last: those from the
    /// innermost `define` (a template of its own) on.
    fn scope(&self) -> impl Iterator<Item = &Block> {
        let from = self
            .blocks
            .iter()
            .rposition(|b| b.kind == BlockKind::Define)
            .unwrap_or(0);
        self.blocks.iter().skip(from)
    }

    /// After `else`: `if` or `with` may follow (a chained block closed by the same `end`);
    /// it is consumed here, so it does not open a second block. True when one did.
    fn else_chain(&mut self) -> bool {
        let mut ahead = self.pos;
        while self.chars.get(ahead).copied().is_some_and(is_space) {
            ahead += 1;
        }
        let start = ahead;
        while self.chars.get(ahead).copied().is_some_and(is_alphanumeric) {
            ahead += 1;
        }
        let next: String = self
            .chars
            .get(start..ahead)
            .unwrap_or_default()
            .iter()
            .collect();
        let chained = next == "if" || next == "with";
        if chained {
            self.pos = ahead;
        }
        chained
    }
}

/// What an identifier is to the command it is in.
enum Word {
    /// A value (a function call, `true`, `nil`).
    Value,
    /// A keyword a pipeline follows.
    Pipeline,
    /// A keyword that stands alone.
    Bare,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> String {
        check(text).expect_err(text).0
    }

    #[test]
    fn every_call_is_found_and_unknown_ones_are_named() {
        for text in [
            "{{ nope }}",
            "{{ .Value | nope }}",
            "{{ .Value | ToUpper | nope }}",
            "{{ printf \"%s\" (nope .Value) }}",
            "{{ printf \"%s\" nope }}",
            "{{ if nope }}x{{ end }}",
            "{{ if .A }}x{{ else if nope }}y{{ end }}",
            "{{ range $i, $v := nope }}{{ $v }}{{ end }}",
            "{{- nope -}}",
            "{{ with $x := .Value }}{{ nope $x }}{{ end }}",
            "{{ define \"t\" }}{{ nope }}{{ end }}",
            "a {{/* nope */}} b {{ ToLower (printf \"%s\" (nope)) }}",
            "{{ (nope).Field }}",
        ] {
            let message = refused(text);
            assert!(
                message.starts_with("calls \"nope\", which promtail's templates do not define"),
                "{text}: {message}"
            );
        }
    }

    #[test]
    fn functions_reading_outside_the_entry_are_refused() {
        for (text, name) in [
            ("{{ env \"AWS_SECRET\" }}", "env"),
            ("{{ .Value | expandenv }}", "expandenv"),
            ("{{ getHostByName .Value }}", "getHostByName"),
            ("{{ printf \"%s\" (env `HOME`) }}", "env"),
        ] {
            let message = refused(text);
            assert!(
                message.starts_with(&format!("calls {name:?}, which ")),
                "{message}"
            );
            assert!(message.contains("may not call it"), "{message}");
        }
    }

    #[test]
    fn templates_promtail_runs_pass() {
        for text in [
            "",
            "plain text, no action",
            "{{ .Value }}",
            "{{ ToUpper .Value }}",
            "{{ .Value | ToLower | trim }}",
            "{{ Replace .Value \"loooooooooooog\" \"log\" -1 }}",
            "{{ if eq .Value \"WARN\" }}{{ Replace .Value \"WARN\" \"OK\" -1 }}{{ else }}{{ .Value }}{{ end }}",
            "{{ Hash \"salt\" .Value }} {{ Sha2Hash \"salt\" .Entry }}",
            "{{ regexReplaceAll \"(a+)\" .Value \"${1}b\" }}",
            "{{ $x := .Value }}{{ $x = printf \"%s!\" $x }}{{ $x }}",
            "{{ range $i, $e := splitList \",\" .Value }}{{ if $i }}{{ break }}{{ end }}{{ $e }}{{ end }}",
            "{{ with .app }}{{ . }}{{ else with .pod }}{{ . }}{{ end }}",
            "{{- /* a comment */ -}}{{/* another */}}",
            "{{ printf \"%d %x %.1f %v\" 10 0x1F 1.5e3 'a' }}",
            "{{ add 1 -2 }}{{ sub +3 .5 }}",
            "{{ `raw }} text` }}",
            "{{ \"}}\" }}",
            "{{ (index . \"key\").Field }}",
            "{{ $.Value }}",
            "{{ true }}{{ nil | default \"x\" }}",
            "{{ define \"t\" }}{{ .Value }}{{ end }}{{ template \"t\" . }}",
            "{{\n  .Value\n}}",
            "{{ toJson (dict \"a\" .Value) }}",
            "{{ call .F }}",
        ] {
            assert_eq!(check(text), Ok(()), "{text}");
        }
    }

    #[test]
    fn what_go_cannot_parse_is_refused() {
        for (text, needle) in [
            ("{{ .Value", "unclosed action"),
            ("{{ \"open }}", "unterminated quoted string"),
            ("{{ `open }}", "unterminated raw quoted string"),
            ("{{ 'a }}", "unterminated character constant"),
            ("{{/* open }}", "unclosed comment"),
            ("{{/* x */ x }}", "comment ends before closing delimiter"),
            ("{{ /* x */ }}", "unexpected '/'"),
            ("{{ (ToUpper .Value }}", "unclosed left parenthesis"),
            ("{{ ToUpper .Value) }}", "unexpected right parenthesis"),
            ("{{ ) }}", "missing value"),
            ("{{ }}", "missing value"),
            ("{{ .Value | }}", "missing value"),
            ("{{ if }}x{{ end }}", "missing value"),
            ("{{ if .A }}x", "no {{end}}"),
            ("x{{ end }}", "unexpected {{end}}"),
            ("{{ else }}", "outside if"),
            ("{{ break }}", "outside range"),
            ("{{ $y }}", "undefined variable \"$y\""),
            (
                "{{ if $x := .A }}{{ end }}{{ $x }}",
                "undefined variable \"$x\"",
            ),
            ("{{ 1abc }}", "bad number syntax"),
            ("{{ - }}", "bad number syntax"),
            ("{{ printf\"x\" }}", "bad character"),
            ("{{ .Value if }}", "unexpected \"if\""),
            ("{{ { }}", "unexpected '{'"),
        ] {
            let message = refused(text);
            assert!(
                message.starts_with("is not a Go template promtail can parse"),
                "{text}: {message}"
            );
            assert!(message.contains(needle), "{text}: {message}");
        }
    }

    #[test]
    fn the_lists_hold_what_the_source_says() {
        // Spot checks against promtail's template.go and sprig v3.2.3's function map.
        for name in [
            "ToLower",
            "Sha2Hash",
            "regexReplaceAllLiteral",
            "trim",
            "printf",
            "slice",
        ] {
            assert!(allowed(name), "{name}");
        }
        for (name, _) in FORBIDDEN {
            assert!(!allowed(name), "{name}");
        }
        // Each list sorted and without duplicates, so a diff against the source reads well.
        for list in [GO_BUILTINS, SPRIG, PROMTAIL] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
        assert_eq!(
            SPRIG.len() + FORBIDDEN.len(),
            210,
            "sprig.TxtFuncMap() has 210 keys"
        );
    }
}
