//! Proof against the real Alloy: what `render::alloy_syntax` writes is a file `alloy fmt`
//! parses and leaves byte for byte as it is, whatever the strings hold. Alloy comes from
//! `scripts/build-alloy` (cached), or `ALLOY_BIN`.

mod support;

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use render::alloy_syntax::{Block, Body, Expr, Identifier, write_file};

fn alloy_binary() -> PathBuf {
    support::configs::built_binary("ALLOY_BIN", "build-alloy", "alloy")
}

fn id(text: &str) -> Identifier {
    Identifier::new(text).expect("a test identifier")
}

fn path(text: &str) -> Vec<Identifier> {
    text.split('.').map(id).collect()
}

/// Values a tenant could put in a monitor: quotes, escapes, Alloy and shell syntax, control
/// characters, any script.
const HOSTILE: [&str; 8] = [
    "a\"b\\c",
    "\" + sys.env(\"HOME\") + \"",
    "${HOSTNAME} $(SHARD) $$1 {{ .x }}",
    "line\nbreak\r\ttab",
    "\u{0}\u{1b}[31m\u{7f}\u{85}\u{2028}",
    "é 漢字 🙂",
    "}\nlogging {\n\tlevel = \"debug\"\n}",
    "",
];

/// One document using every construct the writer has.
fn document() -> Body {
    let hostile = || Expr::strings(HOSTILE);
    // Keys without escapes: `alloy fmt` escapes an escaped key's text again (module docs).
    let labels = Expr::Object(
        [
            "${HOSTNAME} $ (SHARD)",
            "é 漢字 🙂",
            "a b",
            "7",
            "sys.env(HOME)",
            "",
        ]
        .iter()
        .zip(HOSTILE)
        .map(|(key, value)| (key.to_string(), Expr::string(value)))
        .collect(),
    );
    let target = |address: &str| {
        Expr::Object(vec![
            ("__address__".into(), Expr::string(address)),
            ("namespace".into(), Expr::string("operator")),
            ("app.kubernetes.io/name".into(), Expr::string("x")),
        ])
    };

    let mut rule = Block::new(path("rule"), None);
    rule.body
        .attribute(id("source_labels"), hostile())
        .attribute(id("regex"), Expr::string("(.*)\\.svc"))
        .attribute(id("modulus"), Expr::Int(4))
        .attribute(id("action"), Expr::string("hashmod"));
    let mut relabel = Block::new(path("discovery.relabel"), Some(id("metrics_a_b")));
    relabel
        .body
        .attribute(
            id("targets"),
            Expr::Array(vec![target("a:80"), target("b:80")]),
        )
        .block(rule.clone())
        .block(rule);

    let mut tls = Block::new(path("tls_config"), None);
    tls.body
        .attribute(id("insecure_skip_verify"), Expr::Bool(false))
        .attribute(id("server_name"), Expr::string(HOSTILE[1]));
    let mut scrape = Block::new(path("prometheus.scrape"), Some(id("metrics_a_b")));
    scrape
        .body
        .attribute(
            id("targets"),
            Expr::Reference(path("discovery.relabel.metrics_a_b.output")),
        )
        .attribute(
            id("forward_to"),
            Expr::Array(vec![Expr::Reference(path(
                "prometheus.remote_write.metrics_a.receiver",
            ))]),
        )
        .attribute(id("job_name"), Expr::string(HOSTILE[2]))
        .attribute(
            id("params"),
            Expr::Object(vec![
                ("module".into(), Expr::strings(["http_2xx"])),
                ("weird key".into(), hostile()),
                (
                    "nested".into(),
                    Expr::Object(vec![("x".into(), Expr::Null)]),
                ),
                ("after".into(), Expr::Int(-1)),
            ]),
        )
        .attribute(id("scrape_timeout"), Expr::string("10s"))
        .attribute(id("labels"), labels)
        .attribute(
            id("lists"),
            Expr::Array(vec![
                Expr::strings(["a", "b"]),
                Expr::Array(vec![]),
                Expr::Object(vec![]),
            ]),
        )
        .attribute(
            id("mixed"),
            Expr::Array(vec![Expr::Int(1), target("c:80"), Expr::string("d")]),
        )
        .attribute(id("empty"), Expr::Object(vec![]))
        .block(tls)
        .block(Block::new(path("clustering"), None));

    let mut logging = Block::new(path("logging"), None);
    logging.body.attribute(id("level"), Expr::string("info"));
    let mut file = Body::default();
    file.block(logging).block(relabel).block(scrape);
    file
}

#[test]
fn alloy_fmt_leaves_the_written_syntax_unchanged() {
    let alloy = alloy_binary();
    let text = write_file(&document());
    let mut child = Command::new(&alloy)
        .arg("fmt")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("alloy runs");
    child
        .stdin
        .take()
        .expect("a piped stdin")
        .write_all(text.as_bytes())
        .expect("alloy reads the config");
    let output = child.wait_with_output().expect("alloy ends");
    assert!(
        output.status.success(),
        "alloy fmt refused the written syntax: {}\n{text}",
        String::from_utf8_lossy(&output.stderr)
    );
    let formatted = String::from_utf8(output.stdout).expect("alloy prints UTF-8");
    assert_eq!(
        formatted, text,
        "alloy fmt formats the written syntax differently"
    );
}
