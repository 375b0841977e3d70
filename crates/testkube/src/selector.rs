//! Label selectors (full set-based syntax) and field selectors, parsed from query strings.

use serde_json::Value;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SelectorError {
    #[error("unable to parse requirement: unexpected end of selector {selector:?}")]
    UnexpectedEnd { selector: String },
    #[error(
        "unable to parse requirement: found {found:?} at position {position} of {selector:?}, expected {expected}"
    )]
    Unexpected {
        selector: String,
        found: String,
        position: usize,
        expected: &'static str,
    },
    #[error(
        "unable to parse requirement: values for {key:?} with operator {operator} must be integers"
    )]
    NotAnInteger { key: String, operator: &'static str },
    #[error("invalid field selector {0:?}: expected key=value, key==value or key!=value")]
    BadFieldTerm(String),
    #[error("field label not supported: {0}")]
    UnsupportedField(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Operator {
    Equals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    operator: Operator,
    values: Vec<String>,
}

impl Requirement {
    fn matches(&self, labels: Option<&serde_json::Map<String, Value>>) -> bool {
        let value = labels
            .and_then(|labels| labels.get(&self.key))
            .and_then(Value::as_str);
        match self.operator {
            Operator::Equals | Operator::In => {
                value.is_some_and(|value| self.values.iter().any(|wanted| wanted == value))
            }
            Operator::NotEquals | Operator::NotIn => {
                value.is_none_or(|value| self.values.iter().all(|unwanted| unwanted != value))
            }
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let (Some(actual), Some(bound)) = (
                    value.and_then(|value| value.parse::<i64>().ok()),
                    self.values
                        .first()
                        .and_then(|bound| bound.parse::<i64>().ok()),
                ) else {
                    return false;
                };
                if self.operator == Operator::GreaterThan {
                    actual > bound
                } else {
                    actual < bound
                }
            }
        }
    }
}

/// A parsed label selector; the empty selector matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Equals,
    DoubleEquals,
    NotEquals,
    Bang,
    Greater,
    Less,
    Open,
    Close,
    Comma,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Word(word) => word.clone(),
            Token::Equals => "=".into(),
            Token::DoubleEquals => "==".into(),
            Token::NotEquals => "!=".into(),
            Token::Bang => "!".into(),
            Token::Greater => ">".into(),
            Token::Less => "<".into(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
            Token::Comma => ",".into(),
        }
    }
}

fn is_word_char(character: char) -> bool {
    character.is_ascii_alphanumeric() || matches!(character, '-' | '_' | '.' | '/')
}

fn tokenize(selector: &str) -> Result<Vec<(usize, Token)>, SelectorError> {
    let mut tokens = Vec::new();
    let characters: Vec<char> = selector.chars().collect();
    let mut index = 0;
    while index < characters.len() {
        let character = characters[index];
        let start = index;
        let token = match character {
            ' ' | '\t' => {
                index += 1;
                continue;
            }
            '=' if characters.get(index + 1) == Some(&'=') => {
                index += 2;
                Token::DoubleEquals
            }
            '=' => {
                index += 1;
                Token::Equals
            }
            '!' if characters.get(index + 1) == Some(&'=') => {
                index += 2;
                Token::NotEquals
            }
            '!' => {
                index += 1;
                Token::Bang
            }
            '>' => {
                index += 1;
                Token::Greater
            }
            '<' => {
                index += 1;
                Token::Less
            }
            '(' => {
                index += 1;
                Token::Open
            }
            ')' => {
                index += 1;
                Token::Close
            }
            ',' => {
                index += 1;
                Token::Comma
            }
            other if is_word_char(other) => {
                while index < characters.len() && is_word_char(characters[index]) {
                    index += 1;
                }
                Token::Word(characters[start..index].iter().collect())
            }
            other => {
                return Err(SelectorError::Unexpected {
                    selector: selector.to_string(),
                    found: other.to_string(),
                    position: start,
                    expected: "a label key, value or operator",
                });
            }
        };
        tokens.push((start, token));
    }
    Ok(tokens)
}

struct Parser<'a> {
    selector: &'a str,
    tokens: Vec<(usize, Token)>,
    position: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.position).map(|(_, token)| token)
    }

    fn next(&mut self, expected: &'static str) -> Result<Token, SelectorError> {
        let _ = expected;
        let token = self
            .tokens
            .get(self.position)
            .map(|(_, token)| token.clone())
            .ok_or_else(|| SelectorError::UnexpectedEnd {
                selector: self.selector.to_string(),
            })?;
        self.position += 1;
        Ok(token)
    }

    fn unexpected(&self, token: &Token, expected: &'static str) -> SelectorError {
        let position = self
            .tokens
            .get(self.position.saturating_sub(1))
            .map(|(position, _)| *position)
            .unwrap_or_default();
        SelectorError::Unexpected {
            selector: self.selector.to_string(),
            found: token.describe(),
            position,
            expected,
        }
    }

    fn word(&mut self, expected: &'static str) -> Result<String, SelectorError> {
        match self.next(expected)? {
            Token::Word(word) => Ok(word),
            other => Err(self.unexpected(&other, expected)),
        }
    }

    /// A value after `=`/`!=` may be empty (`key=`), as in the real parser.
    fn optional_value(&mut self) -> String {
        match self.peek() {
            Some(Token::Word(word)) => {
                let word = word.clone();
                self.position += 1;
                word
            }
            _ => String::new(),
        }
    }

    fn value_set(&mut self) -> Result<Vec<String>, SelectorError> {
        match self.next("(")? {
            Token::Open => {}
            other => return Err(self.unexpected(&other, "(")),
        }
        let mut values = Vec::new();
        loop {
            match self.next("a value or )")? {
                Token::Close => break,
                Token::Comma => {
                    // An empty element, e.g. `in (a,,b)`, is an empty value.
                    if values.is_empty() {
                        values.push(String::new());
                    }
                }
                Token::Word(word) => {
                    values.push(word);
                    match self.next(", or )")? {
                        Token::Comma => {}
                        Token::Close => break,
                        other => return Err(self.unexpected(&other, ", or )")),
                    }
                }
                other => return Err(self.unexpected(&other, "a value or )")),
            }
        }
        Ok(values)
    }

    fn requirement(&mut self) -> Result<Requirement, SelectorError> {
        if self.peek() == Some(&Token::Bang) {
            self.position += 1;
            let key = self.word("a label key")?;
            return Ok(Requirement {
                key,
                operator: Operator::DoesNotExist,
                values: Vec::new(),
            });
        }
        let key = self.word("a label key")?;
        let operator = match self.peek() {
            None | Some(Token::Comma) => {
                return Ok(Requirement {
                    key,
                    operator: Operator::Exists,
                    values: Vec::new(),
                });
            }
            Some(_) => self.next("an operator")?,
        };
        let (operator, values) = match operator {
            Token::Equals | Token::DoubleEquals => (Operator::Equals, vec![self.optional_value()]),
            Token::NotEquals => (Operator::NotEquals, vec![self.optional_value()]),
            Token::Greater | Token::Less => {
                let bound = self.word("an integer")?;
                let (operator, name) = if operator == Token::Greater {
                    (Operator::GreaterThan, "gt")
                } else {
                    (Operator::LessThan, "lt")
                };
                if bound.parse::<i64>().is_err() {
                    return Err(SelectorError::NotAnInteger {
                        key,
                        operator: name,
                    });
                }
                (operator, vec![bound])
            }
            Token::Word(word) if word == "in" => (Operator::In, self.value_set()?),
            Token::Word(word) if word == "notin" => (Operator::NotIn, self.value_set()?),
            other => return Err(self.unexpected(&other, "=, ==, !=, in, notin, > or <")),
        };
        Ok(Requirement {
            key,
            operator,
            values,
        })
    }
}

impl LabelSelector {
    pub fn parse(selector: &str) -> Result<Self, SelectorError> {
        let tokens = tokenize(selector)?;
        let mut parser = Parser {
            selector,
            tokens,
            position: 0,
        };
        let mut requirements = Vec::new();
        while parser.peek().is_some() {
            requirements.push(parser.requirement()?);
            match parser.peek() {
                None => break,
                Some(Token::Comma) => parser.position += 1,
                Some(other) => {
                    let other = other.clone();
                    parser.position += 1;
                    return Err(parser.unexpected(&other, ","));
                }
            }
        }
        Ok(LabelSelector { requirements })
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    pub fn matches(&self, object: &Value) -> bool {
        if self.requirements.is_empty() {
            return true;
        }
        let labels = object["metadata"]["labels"].as_object();
        self.requirements
            .iter()
            .all(|requirement| requirement.matches(labels))
    }
}

/// A parsed field selector: `metadata.name`, `metadata.namespace` everywhere, plus the
/// kind-specific fields real servers index (pod phase and node, secret type, event subject).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<(String, bool, String)>,
}

fn supported_field(resource: &str, field: &str) -> bool {
    if matches!(field, "metadata.name" | "metadata.namespace") {
        return true;
    }
    match resource {
        "pods" => matches!(
            field,
            "spec.nodeName"
                | "spec.restartPolicy"
                | "spec.schedulerName"
                | "spec.serviceAccountName"
                | "status.phase"
                | "status.podIP"
        ),
        "secrets" => field == "type",
        "namespaces" => field == "status.phase",
        "nodes" => field == "spec.unschedulable",
        "events" => {
            field.starts_with("involvedObject.")
                || matches!(
                    field,
                    "reason" | "source" | "type" | "regarding.name" | "reportingController"
                )
        }
        _ => false,
    }
}

impl FieldSelector {
    pub fn parse(selector: &str, resource: &str) -> Result<Self, SelectorError> {
        let mut terms = Vec::new();
        for term in selector
            .split(',')
            .map(str::trim)
            .filter(|term| !term.is_empty())
        {
            let (field, equal, value) = if let Some((field, value)) = term.split_once("!=") {
                (field, false, value)
            } else if let Some((field, value)) = term.split_once("==") {
                (field, true, value)
            } else if let Some((field, value)) = term.split_once('=') {
                (field, true, value)
            } else {
                return Err(SelectorError::BadFieldTerm(term.to_string()));
            };
            let field = field.trim();
            if !supported_field(resource, field) {
                return Err(SelectorError::UnsupportedField(field.to_string()));
            }
            terms.push((field.to_string(), equal, value.trim().to_string()));
        }
        Ok(FieldSelector { terms })
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The name this selector pins, letting a list skip straight to one object.
    pub fn exact_name(&self) -> Option<&str> {
        self.terms
            .iter()
            .find(|(field, equal, _)| field == "metadata.name" && *equal)
            .map(|(_, _, value)| value.as_str())
    }

    pub fn matches(&self, object: &Value) -> bool {
        self.terms.iter().all(|(field, equal, wanted)| {
            let mut current = object;
            for segment in field.split('.') {
                current = &current[segment];
            }
            let actual = match current {
                Value::String(text) => text.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            (actual == *wanted) == *equal
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(labels: Value) -> Value {
        json!({"metadata": {"name": "x", "namespace": "ns", "labels": labels}})
    }

    #[test]
    fn set_based_label_selectors() {
        let labeled = object(json!({"app": "web", "tier": "front", "rank": "5"}));
        let cases = [
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app in (web, db)", true),
            ("app notin (web)", false),
            ("app,tier", true),
            ("!missing", true),
            ("!app", false),
            ("missing!=x", true),
            ("app=web,tier in (back)", false),
            ("rank>3", true),
            ("rank<3", false),
            ("", true),
        ];
        for (selector, expected) in cases {
            let parsed = LabelSelector::parse(selector).unwrap();
            assert_eq!(parsed.matches(&labeled), expected, "{selector}");
        }
    }

    #[test]
    fn malformed_label_selectors_are_rejected() {
        for selector in ["app in web", "app in (web", "=web", "a b", "rank>x"] {
            assert!(LabelSelector::parse(selector).is_err(), "{selector}");
        }
    }

    #[test]
    fn field_selectors() {
        let subject = object(json!({}));
        let selector =
            FieldSelector::parse("metadata.name=x,metadata.namespace!=other", "configmaps")
                .unwrap();
        assert!(selector.matches(&subject));
        assert_eq!(selector.exact_name(), Some("x"));
        assert!(FieldSelector::parse("spec.foo=bar", "configmaps").is_err());
    }
}
