//! Parse errors of serde-saphyr in our own words, without a byte of the text that was parsed.
//!
//! serde-saphyr's `Display` quotes the lines around the error (a snippet) and speaks its own
//! API ("budget breached: Depth { depth: 65 }", "set DuplicateKeyPolicy"). The text we parse
//! is often a Secret's value (`additionalScrapeConfigs`), and the message ends up in status,
//! Events and `explain`, which users who cannot read Secrets can read: so a message says where
//! (line and column) and what kind of problem, never what the text holds.

use serde_saphyr::budget::BudgetBreach;
use serde_saphyr::granit_parser::ErrorKind;
use serde_saphyr::{Error, ExternalMessageSource};

/// Where and what: `line 3, column 7: <what>` (or only `<what>` when the parser gave no
/// position). Never quotes the parsed text, not even one character of it.
pub fn describe(e: &Error) -> String {
    let e = innermost(e);
    let what = what(e);
    match e.location() {
        Some(at) if at.line() > 0 => format!("line {}, column {}: {what}", at.line(), at.column()),
        _ => what,
    }
}

fn innermost(e: &Error) -> &Error {
    match e {
        Error::WithSnippet { error, .. } => innermost(error),
        other => other,
    }
}

fn what(e: &Error) -> String {
    match e {
        Error::ExternalMessage { source: boxed, .. } => match boxed.as_ref() {
            ExternalMessageSource::Parser(scan) => syntax(scan.kind()),
            _ => "not valid YAML".to_owned(),
        },
        Error::Eof { .. } => "the text ends in the middle of a value".to_owned(),
        Error::Unexpected { expected, .. } => format!("expected {expected} here"),
        Error::DuplicateMappingKey { .. } => {
            "a key appears twice in the same mapping (only one value per key is allowed)".to_owned()
        }
        Error::UnknownAnchor { .. } => "an alias (*name) refers to an undefined anchor".to_owned(),
        Error::MergeValueNotMapOrSeqOfMaps { .. } => {
            "a merge key (<<) must be given a mapping or a list of mappings".to_owned()
        }
        Error::MultipleDocuments { .. } => {
            "more than one YAML document (---) where one is expected".to_owned()
        }
        Error::Budget { breach, .. } => budget(breach),
        Error::IOError { .. } => "the text could not be read".to_owned(),
        _ => "not valid YAML".to_owned(),
    }
}

/// The scanner's and parser's errors. Their texts are fixed sentences except a few that carry
/// input (a character, a custom message): those get a sentence of ours.
fn syntax(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::UnexpectedCharacter { .. } => {
            "a character that cannot start a value here (quote the value)".to_owned()
        }
        ErrorKind::Custom(_) | ErrorKind::InputDecoding { .. } | ErrorKind::InputIo { .. } => {
            "not valid YAML".to_owned()
        }
        ErrorKind::TabInIndentation
        | ErrorKind::TabInBlockIndentation
        | ErrorKind::TabNotAllowed
        | ErrorKind::TabAtBlockScalarStart => "a tab where YAML allows only spaces".to_owned(),
        ErrorKind::UnclosedQuotedScalar => "a quoted string is not closed".to_owned(),
        ErrorKind::UnclosedFlowCollection { open } => format!("a `{open}` is not closed"),
        ErrorKind::MismatchedFlowCollectionEnd { open, close } => {
            format!("a `{open}` is closed by `{close}`")
        }
        ErrorKind::RecursionLimitExceeded => "nested too deeply".to_owned(),
        ErrorKind::UnexpectedEof
        | ErrorKind::UnexpectedEofBlockMapping
        | ErrorKind::UnexpectedEofBlockSequence
        | ErrorKind::UnexpectedEofFlowMapping
        | ErrorKind::UnexpectedEofFlowSequence
        | ErrorKind::UnexpectedEofImplicitFlowMapping => {
            "the text ends in the middle of a value".to_owned()
        }
        ErrorKind::SimpleKeyExpected | ErrorKind::InvalidSimpleKey => {
            "a key without `:` (or a value that needs quotes)".to_owned()
        }
        ErrorKind::ExpectedBlockMappingKey => {
            "a line that is not a `key: value` of the mapping it is indented in (check the \
             indentation)"
                .to_owned()
        }
        ErrorKind::ExpectedBlockSequenceEntry => {
            "a line that is not a `- ` item of the list it is indented in (check the indentation)"
                .to_owned()
        }
        ErrorKind::InvalidIndentation
        | ErrorKind::InvalidBlockScalarIndent
        | ErrorKind::InvalidQuotedScalarIndent
        | ErrorKind::InvalidFlowScalarIndent => "wrong indentation".to_owned(),
        ErrorKind::UnknownAnchor => "an alias (*name) refers to an undefined anchor".to_owned(),
        // Fixed sentences of the parser, holding nothing of the input.
        other => {
            let text = other.to_string();
            if text.is_empty() {
                "not valid YAML".to_owned()
            } else {
                text
            }
        }
    }
}

fn budget(breach: &BudgetBreach) -> String {
    match breach {
        BudgetBreach::Depth { depth } => {
            format!("nested more than {} levels deep", depth.saturating_sub(1))
        }
        BudgetBreach::Nodes { nodes } => format!(
            "more than {} values in one document",
            nodes.saturating_sub(1)
        ),
        BudgetBreach::Events { .. } => "too many values in one document".to_owned(),
        BudgetBreach::Aliases { .. } | BudgetBreach::AliasAnchorRatio { .. } => {
            "too many aliases (*name)".to_owned()
        }
        BudgetBreach::Anchors { .. } => "too many anchors (&name)".to_owned(),
        BudgetBreach::ScalarBytes { .. } => "too much text in one document".to_owned(),
        BudgetBreach::Documents { .. } => "too many documents".to_owned(),
        BudgetBreach::MergeKeys { .. } => "too many merge keys (<<)".to_owned(),
        _ => "too large to read".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const MARKER: &str = "hunter2-MARKER";

    fn error_of(text: &str) -> String {
        let e = serde_saphyr::from_str::<Value>(text).expect_err(text);
        describe(&e)
    }

    /// Every sort of broken text, the marker next to the fault: our words, a position, and
    /// never the marker (serde-saphyr's own `Display` quotes the surrounding lines).
    #[test]
    fn messages_never_quote_the_text() {
        for text in [
            format!("- job_name: a\n  basic_auth:\n    password: {MARKER}\n   bad: [\n"),
            format!("password: \"{MARKER}\n"),
            format!("a: {MARKER}\n  b: c\n"),
            format!("a: 1\na: {MARKER}\n"),
            format!("{MARKER}: [1, 2\n"),
            format!("x: *{MARKER}\n"),
            format!("- {MARKER}\n\t- b\n"),
            format!("a: {{b: {MARKER}]\n"),
            format!("{MARKER}@: `x`\n"),
        ] {
            let message = error_of(&text);
            let saphyr = serde_saphyr::from_str::<Value>(&text)
                .expect_err(&text)
                .to_string();
            assert!(!message.contains(MARKER), "{text:?}: {message}");
            assert!(!message.contains("hunter2"), "{text:?}: {message}");
            assert!(message.starts_with("line "), "{text:?}: {message}");
            // The library's wording is not ours.
            assert!(!message.contains("DuplicateKeyPolicy"), "{message}");
            assert_ne!(message, saphyr);
        }
    }

    #[test]
    fn budget_breaches_are_in_our_words() {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let message = error_of(&deep);
        assert!(!message.contains("Depth {"), "{message}");
        assert!(message.contains("nested"), "{message}");
    }
}
