//! Writing a `serde_json::Value` as YAML, and the rules for scalars and keys (when a string
//! can stay plain, how it is quoted, when a key must be explicit) that the serializer shares.

use serde_json::Value;

/// Appends `value` as one YAML document to `out`.
pub fn write_document(out: &mut String, value: &Value) {
    match value {
        Value::Object(m) if !m.is_empty() => write_map(out, m, 0),
        Value::Array(a) if !a.is_empty() => write_seq(out, a, 0),
        scalar => {
            write_inline(out, scalar);
            out.push('\n');
        }
    }
}

/// Appends `value` as one item of a block sequence whose dashes are at column `level`,
/// exactly as it would be written inside a whole document.
pub fn write_sequence_item(out: &mut String, value: &Value, level: usize) {
    write_seq(out, std::slice::from_ref(value), level);
}

pub(super) fn indent(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = n;
    while left > 0 {
        let step = left.min(SPACES.len());
        out.push_str(&SPACES[..step]);
        left -= step;
    }
}

fn write_map(out: &mut String, map: &serde_json::Map<String, Value>, level: usize) {
    for (k, v) in map {
        indent(out, level);
        write_key(out, k, level);
        write_nested(out, v, level);
    }
}

fn write_seq(out: &mut String, seq: &[Value], level: usize) {
    for item in seq {
        indent(out, level);
        out.push('-');
        match item {
            Value::Object(m) if !m.is_empty() => {
                // The first key goes on the dash line; the rest align under it.
                out.push(' ');
                let mut first = true;
                for (k, v) in m {
                    if !first {
                        indent(out, level + 2);
                    }
                    first = false;
                    write_key(out, k, level + 2);
                    write_nested(out, v, level + 2);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                out.push('\n');
                write_seq(out, a, level + 2);
            }
            scalar => {
                out.push(' ');
                write_inline(out, scalar);
                out.push('\n');
            }
        }
    }
}

/// Writes the value of a map entry whose `key:` is already written.
fn write_nested(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, level + 2);
        }
        // Sequences in maps are not indented further, as kubectl writes them.
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, a, level);
        }
        scalar => {
            out.push(' ');
            write_inline(out, scalar);
            out.push('\n');
        }
    }
}

pub(super) fn write_inline(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
    }
}

fn write_number(out: &mut String, n: &serde_json::Number) {
    if n.is_f64() {
        let f = n.as_f64().unwrap_or_default();
        if f.is_nan() {
            out.push_str(".nan");
        } else if f.is_infinite() {
            out.push_str(if f > 0.0 { ".inf" } else { "-.inf" });
        } else {
            let text = format!("{f:?}");
            out.push_str(&text);
        }
    } else {
        out.push_str(&n.to_string());
    }
}

/// The longest key, as written (quotes and escapes included, in bytes), that is written as
/// an implicit `key:`. YAML limits implicit keys to 1024 characters and its readers refuse
/// longer ones (yaml.v2: "could not find expected ':'"); they count characters, with or
/// without the quotes, so a byte count with some margin is safe for all of them.
pub const IMPLICIT_KEY_LIMIT: usize = 1000;

/// Writes mapping key `key`, whose first character goes at column `level` (the cursor is
/// there), and its `:`. A key too long to be implicit is written as an explicit one,
/// `? key` with the `:` on the next line at the same column: the value that follows is then
/// laid out exactly as after an implicit key.
pub(super) fn write_key(out: &mut String, key: &str, level: usize) {
    let start = out.len();
    if key.len() <= IMPLICIT_KEY_LIMIT {
        write_string(out, key);
        // Escapes can make the written key longer than the key itself.
        if out.len() - start <= IMPLICIT_KEY_LIMIT {
            out.push(':');
            return;
        }
        out.truncate(start);
    }
    out.push_str("? ");
    write_string(out, key);
    out.push('\n');
    indent(out, level);
    out.push(':');
}

/// Writes `s` plain when no YAML 1.1 or 1.2 reader can take it for anything but this string,
/// single-quoted when it is printable, double-quoted with escapes otherwise.
pub fn write_string(out: &mut String, s: &str) {
    if is_plain_safe(s) {
        out.push_str(s);
    } else if s
        .chars()
        .all(|c| !c.is_control() && is_yaml_printable(c) && !is_yaml_1_1_break(c))
    {
        out.push('\'');
        out.push_str(&s.replace('\'', "''"));
        out.push('\'');
    } else {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() || !is_yaml_printable(c) || is_yaml_1_1_break(c) => {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
}

/// Words YAML 1.1 reads as booleans or null, in any case.
pub(super) const RESERVED_WORDS: &[&str] = &[
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~",
];

fn is_plain_safe(s: &str) -> bool {
    let bytes = s.as_bytes();
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    if first == b' ' || last == b' ' || last == b':' {
        return false;
    }
    if b"-?:,[]{}#&*!|>'\"%@`=<.+~".contains(&first) && !(first == b'-' && is_plain_dash_word(s)) {
        return false;
    }
    if first.is_ascii_digit() {
        // Numbers, octals, sexagesimals, timestamps, versions: quote them all.
        return false;
    }
    // The longest reserved word has five letters.
    if bytes.len() <= 5 && RESERVED_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)) {
        return false;
    }
    // One pass for `: `, ` #`, tabs and ASCII control characters; another over the
    // characters only when there are non-ASCII ones (C1 controls, the byte order mark).
    let mut previous = 0u8;
    let mut ascii = true;
    for &b in bytes {
        if b < 0x20
            || b == 0x7f
            || (previous == b':' && b == b' ')
            || (previous == b' ' && b == b'#')
        {
            return false;
        }
        ascii &= b < 0x80;
        previous = b;
    }
    ascii
        || !s.chars().any(|c| {
            c.is_control() || !is_yaml_printable(c) || c == '\u{feff}' || is_yaml_1_1_break(c)
        })
}

/// The line breaks of YAML 1.1 beyond `\n` and `\r`: NEL, LINE SEPARATOR and PARAGRAPH
/// SEPARATOR. YAML 1.1 readers (the agent's yaml.v2, PyYAML) break lines at them, in plain
/// and single-quoted scalars alike, so a string holding one is double-quoted and the
/// character escaped; YAML 1.2 readers take them as ordinary characters, which is why no
/// test with our own (1.2) parser saw it.
pub(super) fn is_yaml_1_1_break(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `-foo` (an agent flag) is a plain string; `-`, `- x`, `-1`, `-.5` and `-.inf` are not.
pub(super) fn is_plain_dash_word(s: &str) -> bool {
    let rest = &s[1..];
    rest.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '-')
}

/// Whether YAML allows `c` unescaped in a document (its `c-printable` set).
pub(super) fn is_yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::tests::yaml;
    use serde_json::json;

    #[test]
    fn ambiguous_strings_are_quoted() {
        for s in [
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "n",
            "true",
            "null",
            "~",
            "0755",
            "1e3",
            "1:20",
            "2001-12-14",
            "12",
            "-1",
            ".5",
            "+1",
            ".inf",
            "",
            " lead",
            "a: b",
            "x #c",
            "*a",
            "&a",
            "!t",
            "%d",
            "@x",
            "`x",
            "{a}",
            "[a]",
            "'q'",
            "\"q\"",
            "=",
            "<<",
            "key:",
        ] {
            let out = yaml(json!({ "k": s }));
            assert_ne!(out, format!("k: {s}\n"), "{s:?} must be quoted");
            let back: Value = serde_saphyr::from_str(&out).expect("parses");
            assert_eq!(back, json!({ "k": s }), "{s:?} round-trips");
        }
    }

    #[test]
    fn ordinary_strings_stay_plain() {
        for s in [
            "web",
            "http-metrics",
            "$(SHARD)",
            "Node;(.*)",
            "-config.expand-env=true",
            "a/b",
            "__tmp_hash",
        ] {
            assert_eq!(yaml(json!({ "k": s })), format!("k: {s}\n"));
        }
    }

    #[test]
    fn integers_stay_integers() {
        assert_eq!(
            yaml(json!({"a": 1_048_576u64, "b": 0.5, "c": 2.0})),
            "a: 1048576\nb: 0.5\nc: 2.0\n"
        );
    }

    #[test]
    fn nested_structures_round_trip() {
        let v = json!({
            "server": {},
            "list": [],
            "configs": [{"name": "a/b", "scrape_configs": [{"job_name": "x", "static_configs": [{"targets": ["a:1", "b:2"]}]}]}],
            "nested": [[1, 2], ["x"]],
            "multi": "line one\nline 'two'\n",
            "nothing": null
        });
        let text = yaml(v.clone());
        let back: Value = serde_saphyr::from_str(&text).expect("parses");
        assert_eq!(back, v, "{text}");
    }

    /// The quoting rule as first written (several passes), to check the one-pass version.
    fn is_plain_safe_reference(s: &str) -> bool {
        let Some(first) = s.chars().next() else {
            return false;
        };
        if s.starts_with(' ') || s.ends_with(' ') || s.ends_with(':') {
            return false;
        }
        if "-?:,[]{}#&*!|>'\"%@`=<.+~".contains(first) && !(first == '-' && is_plain_dash_word(s)) {
            return false;
        }
        if first.is_ascii_digit() {
            return false;
        }
        if RESERVED_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)) {
            return false;
        }
        if s.contains(": ") || s.contains(" #") || s.contains('\t') {
            return false;
        }
        !s.chars()
            .any(|c| c.is_control() || !is_yaml_printable(c) || c == '\u{feff}')
    }

    #[test]
    fn the_one_pass_quoting_rule_matches_the_reference() {
        let pieces = [
            "", " ", ":", ": ", " #", "#", "a", "Z", "_", "-", "--", "-x", "-1", "1", ".", "+",
            "~", "yes", "No", "null", "FALSE", "y", "\t", "\n", "\u{7f}", "\u{85}", "\u{feff}",
            "é", "\u{fffe}", "/", "$(SHARD)", "a:b", "'", "\"", "=", "<", "x ", "ü:", "日本",
        ];
        let mut checked = 0;
        for a in pieces {
            for b in pieces {
                for c in ["", "a", " ", ":", "#"] {
                    let s = format!("{a}{b}{c}");
                    assert_eq!(is_plain_safe(&s), is_plain_safe_reference(&s), "{s:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 5000);
    }
}
