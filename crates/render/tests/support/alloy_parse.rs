//! A reader for the part of Alloy's syntax that configs of metrics and logs use (blocks,
//! attributes, strings, numbers, booleans, null, arrays, objects, references, function calls,
//! `+`), giving a JSON value in which order and layout no longer matter, so that the
//! operator's native config and `alloy convert`'s can be compared component by component.
//!
//! A component or block body is an object: attributes by name; nested blocks by name, each
//! name holding the list of its blocks in order (empty blocks are left out: they set nothing),
//! or, for labelled nested blocks (`walk_param "slow" { }`), an object of their bodies by label.
//! The blocks of Alloy's ordered lists ([`ORDERED_BLOCKS`]: `stage.cri`, `stage.regex`, ...,
//! `metric.counter`) are one list under the list's name, in order, each `{"<kind>": body}`,
//! empty ones included: their order is the pipeline's, and `stage.cri { }` is a stage.
//! References are `{"$ref": "a.b.c"}`; `array.concat(...)` is the concatenated array; other
//! calls are `{"$call": "f", "args": [...]}` and `a + b` is `{"$sum": [a, b]}`.

use serde_json::{Map, Value, json};

/// Alloy's block lists whose items are told apart by the block's second name part
/// (`stage.<kind>` in `loki.process` and `stage.match`, `metric.<kind>` in `stage.metrics`).
pub const ORDERED_BLOCKS: [&str; 2] = ["stage", "metric"];

/// The components of `text`, by `"<kind> <label>"` (top-level blocks without a label by kind).
pub fn components(text: &str) -> Result<Map<String, Value>, String> {
    let mut parser = Parser {
        chars: text.chars().collect(),
        at: 0,
    };
    let mut out = Map::new();
    loop {
        parser.skip_space();
        if parser.at >= parser.chars.len() {
            return Ok(out);
        }
        let (name, label, body) = parser.block()?;
        let key = match label {
            Some(label) => format!("{name} {label}"),
            None => name,
        };
        if out.insert(key.clone(), body).is_some() {
            return Err(format!("component {key} twice"));
        }
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn error<T>(&self, what: &str) -> Result<T, String> {
        let line = self.chars[..self.at.min(self.chars.len())]
            .iter()
            .filter(|c| **c == '\n')
            .count()
            + 1;
        Err(format!("line {line}: {what}, found {:?}", self.peek()))
    }

    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.at += 1;
            } else if c == '/' && self.chars.get(self.at + 1) == Some(&'/') {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.at += 1;
                }
            } else {
                return;
            }
        }
    }

    fn expect(&mut self, wanted: char) -> Result<(), String> {
        self.skip_space();
        if self.peek() == Some(wanted) {
            self.at += 1;
            Ok(())
        } else {
            self.error(&format!("expected {wanted:?}"))
        }
    }

    fn identifier(&mut self) -> Result<String, String> {
        self.skip_space();
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.at += 1;
        }
        if start == self.at {
            return self.error("expected an identifier");
        }
        Ok(self.chars[start..self.at].iter().collect())
    }

    /// `a.b.c`.
    fn path(&mut self) -> Result<String, String> {
        let mut path = self.identifier()?;
        while self.peek() == Some('.') {
            self.at += 1;
            path.push('.');
            path.push_str(&self.identifier()?);
        }
        Ok(path)
    }

    /// `name "label"? { body }` (the name already known to start here).
    fn block(&mut self) -> Result<(String, Option<String>, Value), String> {
        let name = self.path()?;
        self.skip_space();
        let label = if self.peek() == Some('"') {
            Some(self.string()?)
        } else {
            None
        };
        self.expect('{')?;
        let body = self.body()?;
        Ok((name, label, body))
    }

    /// Items up to and including the closing `}`.
    fn body(&mut self) -> Result<Value, String> {
        let mut out = Map::new();
        loop {
            self.skip_space();
            if self.peek() == Some('}') {
                self.at += 1;
                return Ok(Value::Object(out));
            }
            let start = self.at;
            let name = self.path()?;
            self.skip_space();
            if self.peek() == Some('=') && !name.contains('.') {
                self.at += 1;
                let value = self.expr()?;
                if out.insert(name.clone(), value).is_some() {
                    return self.error(&format!("attribute {name} twice"));
                }
            } else {
                self.at = start;
                let (name, label, body) = self.block()?;
                if let Some(label) = label {
                    // Labelled blocks (`walk_param "slow"`) are told apart by their labels, in
                    // whatever order written; an empty one still names something.
                    let by_label = out.entry(name).or_insert_with(|| Value::Object(Map::new()));
                    match by_label {
                        Value::Object(by_label) if !by_label.contains_key(&label) => {
                            by_label.insert(label, body);
                        }
                        _ => {
                            return self
                                .error("a labelled block twice, or named like another item");
                        }
                    }
                    continue;
                }
                if let Some((list, kind)) = name.split_once('.')
                    && ORDERED_BLOCKS.contains(&list)
                {
                    let items = out
                        .entry(list.to_owned())
                        .or_insert_with(|| Value::Array(Vec::new()));
                    match items {
                        Value::Array(items) => items.push(json!({ kind: body })),
                        _ => return self.error("a block list named like an attribute"),
                    }
                    continue;
                }
                if body.as_object().is_some_and(Map::is_empty) {
                    continue;
                }
                let list = out.entry(name).or_insert_with(|| Value::Array(Vec::new()));
                match list {
                    Value::Array(items) => items.push(body),
                    _ => return self.error("a block named like an attribute"),
                }
            }
        }
    }

    /// A term, or terms joined by `+`.
    fn expr(&mut self) -> Result<Value, String> {
        let first = self.term()?;
        self.skip_space();
        if self.peek() != Some('+') {
            return Ok(first);
        }
        let mut terms = vec![first];
        while self.peek() == Some('+') {
            self.at += 1;
            terms.push(self.term()?);
            self.skip_space();
        }
        Ok(json!({ "$sum": terms }))
    }

    fn term(&mut self) -> Result<Value, String> {
        self.skip_space();
        match self.peek() {
            Some('"') => Ok(Value::String(self.string()?)),
            Some('[') => {
                self.at += 1;
                Ok(Value::Array(self.list(']')?))
            }
            Some('{') => {
                self.at += 1;
                self.object()
            }
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            Some(_) => {
                let path = self.path()?;
                self.skip_space();
                if self.peek() == Some('(') {
                    self.at += 1;
                    let args = self.list(')')?;
                    return match path.as_str() {
                        "array.concat" => Ok(Value::Array(
                            args.into_iter()
                                .flat_map(|a| match a {
                                    Value::Array(items) => items,
                                    other => vec![other],
                                })
                                .collect(),
                        )),
                        other => Ok(json!({ "$call": other, "args": args })),
                    };
                }
                Ok(match path.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" => Value::Null,
                    _ => json!({ "$ref": path }),
                })
            }
            None => self.error("expected a value"),
        }
    }

    /// Comma-separated values up to `end` (a trailing comma allowed).
    fn list(&mut self, end: char) -> Result<Vec<Value>, String> {
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some(end) {
                self.at += 1;
                return Ok(items);
            }
            items.push(self.expr()?);
            self.skip_space();
            match self.peek() {
                Some(',') => self.at += 1,
                Some(c) if c == end => {}
                _ => return self.error(&format!("expected ',' or {end:?}")),
            }
        }
    }

    fn object(&mut self) -> Result<Value, String> {
        let mut out = Map::new();
        loop {
            self.skip_space();
            if self.peek() == Some('}') {
                self.at += 1;
                return Ok(Value::Object(out));
            }
            let key = if self.peek() == Some('"') {
                self.string()?
            } else {
                self.identifier()?
            };
            self.expect('=')?;
            let value = self.expr()?;
            out.insert(key, value);
            self.skip_space();
            match self.peek() {
                Some(',') => self.at += 1,
                Some('}') => {}
                _ => return self.error("expected ',' or '}'"),
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c == '-' || c == '+' || c == '.' || c == 'e' || c.is_ascii_digit())
        {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        if let Ok(n) = text.parse::<i64>() {
            return Ok(json!(n));
        }
        match text.parse::<f64>() {
            Ok(f) => Ok(json!(f)),
            Err(_) => self.error("expected a number"),
        }
    }

    /// A quoted string, unescaped as Alloy's scanner reads it.
    fn string(&mut self) -> Result<String, String> {
        self.expect('"')?;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return self.error("unterminated string");
            };
            self.at += 1;
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let Some(e) = self.peek() else {
                        return self.error("unterminated escape");
                    };
                    self.at += 1;
                    match e {
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'a' => out.push('\u{7}'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'v' => out.push('\u{b}'),
                        '\\' => out.push('\\'),
                        '"' => out.push('"'),
                        'x' | 'u' | 'U' => {
                            let digits = match e {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let hex: String =
                                self.chars[self.at..self.at + digits].iter().collect();
                            self.at += digits;
                            let code = u32::from_str_radix(&hex, 16)
                                .map_err(|_| format!("bad escape \\{e}{hex}"))?;
                            out.push(char::from_u32(code).ok_or("bad code point")?);
                        }
                        other => return self.error(&format!("unknown escape \\{other}")),
                    }
                }
                c => out.push(c),
            }
        }
    }
}
