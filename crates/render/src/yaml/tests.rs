//! Helpers the parts' tests share, and the tests that cross the parts: what the emitter
//! writes, the full parser and the fast reader read back.

use serde::Serialize;
use serde_json::{Value, json};

use super::*;

pub(super) fn yaml(v: Value) -> String {
    let mut out = String::new();
    write_document(&mut out, &v);
    out
}

pub(super) fn full_parser(text: &str) -> Option<Value> {
    serde_saphyr::from_str::<Value>(text).ok()
}

/// The subset reader either declines or agrees with the full parser.
pub(super) fn agrees(text: &str) -> Option<Value> {
    let simple = read_simple_document(text);
    if let Some(v) = &simple {
        assert_eq!(Some(v), full_parser(text).as_ref(), "{text:?}");
    }
    simple
}

/// The streaming writer gives exactly what the `Value` path gives.
pub(super) fn streams_like_the_tree<T: Serialize>(value: &T) -> String {
    let streamed = to_string(value).expect("streams");
    let mut tree = String::new();
    write_document(&mut tree, &serde_json::to_value(value).expect("to_value"));
    assert_eq!(streamed, tree);
    let mut item = String::new();
    write_sequence_item_of(&mut item, value, 4).expect("item");
    let mut tree_item = String::new();
    write_sequence_item(
        &mut tree_item,
        &serde_json::to_value(value).expect("to_value"),
        4,
    );
    assert_eq!(item, tree_item);
    streamed
}

#[test]
fn simple_reader_reads_what_the_emitter_writes() {
    let v = json!({
        "server": {},
        "list": [],
        "configs": [{"name": "a/b", "scrape_configs": [{"job_name": "x", "static_configs": [{"targets": ["a:1", "b:2"]}]}]}],
        "quoted": ["yes", "0755", "1:20", "", " lead", "a: b", "x #c", "it's", "-1"],
        "numbers": [1, -2, 0],
        "flags": [true, false, null],
        "control": "tab\there",
    });
    let text = yaml(v.clone());
    // The tab (written as an escape) is fine: only raw tabs are declined.
    assert_eq!(read_simple_document(&text), Some(v.clone()), "{text}");
    assert_eq!(full_parser(&text), Some(v));
}

/// Keys around the implicit-key limit, plain, quoted and escaped, in every position a
/// key can take, with every kind of value: the full parser reads back exactly the value,
/// and the fast reader declines or agrees (fuzz finding: keys above 1024 characters were
/// written as implicit keys, which YAML readers refuse).
#[test]
fn keys_too_long_to_be_implicit_are_written_as_explicit_keys() {
    let mut keys = Vec::new();
    for n in [
        IMPLICIT_KEY_LIMIT - 2,
        IMPLICIT_KEY_LIMIT,
        IMPLICIT_KEY_LIMIT + 1,
        1024,
        1025,
        5000,
    ] {
        keys.push("k".repeat(n));
        keys.push(format!("{}'", "q".repeat(n - 1)));
        keys.push(format!("é{}", "x".repeat(n)));
    }
    // Short, but its escapes take it over the limit once written.
    keys.push("\u{1}".repeat(IMPLICIT_KEY_LIMIT / 4));
    for key in &keys {
        for value in [
            json!("v"),
            json!({"inner": 1, "other": [1, 2]}),
            json!(["a", {"b": "c"}]),
            json!({}),
            json!(null),
        ] {
            let documents = [
                json!({ key.as_str(): value.clone(), "after": 1 }),
                json!({"before": 0, key.as_str(): value.clone()}),
                json!([{ key.as_str(): value.clone(), "after": 1 }]),
                json!({"outer": [{"before": 0, key.as_str(): value.clone()}]}),
                json!({"outer": { key.as_str(): value.clone() }}),
            ];
            for document in documents {
                let text = streams_like_the_tree(&document);
                assert_eq!(full_parser(&text).as_ref(), Some(&document), "{text}");
                agrees(&text);
                let written = text.lines().map(str::len).max().unwrap_or(0);
                if text.contains("? ") {
                    assert!(written > IMPLICIT_KEY_LIMIT, "{text}");
                }
            }
        }
    }
}

/// Fuzz finding: a raw DEL (or another character YAML does not allow unescaped) inside
/// a quoted scalar was read as a string where serde-saphyr refuses the document; and the
/// emitter must escape such characters wherever they are.
#[test]
fn characters_yaml_does_not_allow_raw_are_escaped_and_left_to_the_full_parser() {
    for c in [
        '\u{7f}', '\u{1}', '\u{80}', '\u{9f}', '\u{fffe}', '\u{ffff}',
    ] {
        for doc in [
            format!("- \"a{c}\"\n"),
            format!("- 'a{c}'\n"),
            format!("k: a{c}\n"),
        ] {
            assert_eq!(read_simple_document(&doc), None, "{doc:?}");
        }
        let value = json!({ format!("k{c}"): [format!("{c}"), format!("yes{c}")] });
        let text = streams_like_the_tree(&value);
        assert_eq!(full_parser(&text).as_ref(), Some(&value), "{text:?}");
        agrees(&text);
    }
}
