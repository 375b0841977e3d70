//! Everything our YAML emitter writes reads back, unchanged, with a YAML 1.1 reader: PyYAML's
//! pure-Python `SafeLoader`, which breaks lines where the agent's Go yaml.v2 does (`\n`, `\r`,
//! NEL, U+2028, U+2029) and refuses what it refuses. Our own parser (serde-saphyr) reads YAML
//! 1.2, where U+2028 is an ordinary character, so only a 1.1 reader catches a string written
//! raw that the agent would read as two lines (issue 22, item 5: one tenant's relabel
//! `replacement` stopped every tenant's agent).
//!
//! A property test over every scalar position the emitter has (a map key, a map value, a
//! list item, the first key of a map in a list, nested at any depth), through both writers
//! (`write_document` on a `Value`, `to_string` straight from `Serialize`). One Python process
//! reads every case, so thousands of cases take seconds.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value};

/// Reads documents from stdin (a line with the byte length, then the bytes) and answers each
/// with one line: the document as JSON, or `ERROR <message>`.
const READER: &str = r#"
import json, sys, yaml
stdin = sys.stdin.buffer
while True:
    line = stdin.readline()
    if not line:
        break
    text = stdin.read(int(line)).decode("utf-8")
    try:
        out = json.dumps(yaml.load(text, Loader=yaml.SafeLoader))
    except Exception as e:
        out = "ERROR " + " ".join(str(e).split())
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
"#;

struct Yaml11Reader {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Yaml11Reader {
    fn start() -> Self {
        let mut child = Command::new("python3")
            .args(["-c", READER])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 with PyYAML (scripts/test.sh installs it)");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Yaml11Reader {
            child,
            stdin,
            stdout,
        }
    }

    fn read(&mut self, text: &str) -> Result<Value, String> {
        write!(self.stdin, "{}\n{text}", text.len()).expect("write to python");
        self.stdin.flush().expect("flush");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read from python");
        match line.trim_end().strip_prefix("ERROR ") {
            Some(e) => Err(e.to_owned()),
            None => serde_json::from_str(line.trim_end()).map_err(|e| format!("{e}: {line}")),
        }
    }
}

impl Drop for Yaml11Reader {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Characters YAML readers treat specially, one of each kind, mixed with ordinary ones.
fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        4 => prop::char::range('a', 'z'),
        2 => Just(' '),
        1 => prop::sample::select(vec![
            '\u{85}', '\u{2028}', '\u{2029}', '\n', '\r', '\t', '\u{0}', '\u{1b}', '\u{7f}',
            '\u{a0}', '\u{feff}', '\u{fffe}', '\u{ffff}', '\u{d7ff}', '\u{e000}', '\u{1f600}',
            'é', ':', '#', '-', '?', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'',
            '"', '%', '@', '`', '=', '<', '.', '+', '~', '\\', '0', '1', '9', '_',
        ]),
    ]
}

fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::collection::vec(tricky_char(), 0..12).prop_map(|c| c.into_iter().collect()),
        // Words YAML 1.1 reads as something else, alone or next to a break.
        1 => prop::sample::select(vec![
            "yes", "No", "on", "OFF", "y", "~", "null", "0755", "1e3", "1:20", "2001-12-14",
            ".inf", "-.5", "<<", "=", "- x", "a: b", "x #c", "0x1F", "1_000", "0b101",
        ])
        .prop_flat_map(|w| {
            prop::sample::select(vec!["", "\u{2028}", "\u{85}", " "])
                .prop_map(move |s| format!("{w}{s}"))
        }),
    ]
}

fn tricky_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        6 => tricky_string().prop_map(Value::String),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::Null),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((tricky_string(), inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

#[test]
fn every_scalar_the_emitter_writes_reads_back_unchanged_with_a_yaml_1_1_reader() {
    let reader = std::cell::RefCell::new(Yaml11Reader::start());
    let mut runner = TestRunner::new(Config {
        cases: 3000,
        failure_persistence: None,
        ..Config::default()
    });
    // Every value at the top, as a map value, as a list item and as the first key of a map in
    // a list: each position has its own code path in the emitter.
    let positions = tricky_value().prop_flat_map(|v| {
        let key = tricky_string();
        key.prop_map(move |k| {
            let mut first_in_list = Map::new();
            first_in_list.insert(k.clone(), v.clone());
            first_in_list.insert("after".to_owned(), v.clone());
            let mut as_key = Map::new();
            as_key.insert(k, Value::Null);
            serde_json::json!({
                "top": v.clone(),
                "list": [v.clone(), Value::Object(first_in_list)],
                "keys": Value::Object(as_key),
            })
        })
    });
    let result = runner.run(&positions, |doc| {
        let mut tree = String::new();
        render::yaml::write_document(&mut tree, &doc);
        let streamed =
            render::yaml::to_string(&doc).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for text in [&tree, &streamed] {
            match reader.borrow_mut().read(text) {
                Ok(back) => prop_assert_eq!(&back, &doc, "written as:\n{}", text),
                Err(e) => {
                    return Err(TestCaseError::fail(format!(
                        "a YAML 1.1 reader refuses it: {e}\nwritten as:\n{text}"
                    )));
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The characters of issue 22 item 5 in the fields it names, by hand: a relabel
/// `replacement`, `regex` and `separator` holding U+2028, U+2029 or NEL.
#[test]
fn line_separators_in_relabel_fields_read_back() {
    let mut reader = Yaml11Reader::start();
    for c in ['\u{2028}', '\u{2029}', '\u{85}'] {
        let doc = serde_json::json!({"relabel_configs": [{
            "replacement": format!("a{c}b"),
            "regex": format!("x{c}"),
            "separator": c.to_string(),
        }]});
        let text = render::yaml::to_string(&doc).expect("yaml");
        assert_eq!(reader.read(&text), Ok(doc), "{text}");
    }
}
