//! The real Alloy, for the proofs of the native configurations (`alloy_native.rs` for
//! metrics, `alloy_native_logs.rs` for logs): running its subcommands, reading its values
//! back in a form where spellings of one value agree (durations, sizes, defaults), and loading
//! configs until Alloy reports ready.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use render::alloy_syntax::{Body, Expr, Identifier};
use serde_json::{Map, Value};

use super::alloy_parse::{ORDERED_BLOCKS, components};

/// The `--config.extra-args` of the pods.
pub const EXTRA_ARGS: &str = render::workloads::pod_template::ALLOY_EXTRA_ARGS;

/// `(block, attribute, value)`: an attribute whose value (as [`normalized`] writes it) is
/// Alloy's default in that block.
pub type Defaults<'a> = &'a [(&'a str, &'a str, &'a str)];

/// Attributes holding sizes (compared in bytes).
const SIZES: [&str; 3] = ["body_size_limit", "batch_size", "longer_than"];

pub fn alloy_binary() -> PathBuf {
    super::configs::built_binary("ALLOY_BIN", "build-alloy", "alloy")
}

/// `alloy <args>` with `stdin`: its standard output, or its error.
pub fn run(alloy: &Path, args: &[&str], stdin: &str) -> Result<String, String> {
    let mut child = Command::new(alloy)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", alloy.display()))?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(stdin.as_bytes())
        .map_err(|e| e.to_string())?;
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if output.status.success() {
        String::from_utf8(output.stdout).map_err(|e| e.to_string())
    } else {
        Err(format!(
            "alloy {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// What `alloy convert` makes of a static-mode config, with the pods' extra arguments.
pub fn convert_static(alloy: &Path, static_text: &str) -> Result<String, String> {
    run(
        alloy,
        &[
            "convert",
            "--source-format=static",
            &format!("--extra-args={EXTRA_ARGS}"),
            "--bypass-errors",
        ],
        static_text,
    )
}

/// Whether `alloy fmt` leaves `text` as it is (an empty file, which it ends with a newline,
/// aside: the writer writes nothing for an empty document).
pub fn formatted_as_written(alloy: &Path, text: &str) -> Result<(), String> {
    match run(alloy, &["fmt"], text) {
        Ok(formatted) if formatted == text || (text.is_empty() && formatted == "\n") => Ok(()),
        Ok(_) => Err("alloy fmt changes the native text".into()),
        Err(e) => Err(format!("{e}\n{text}")),
    }
}

/// `text` in milliseconds when it is a duration as Prometheus (`1d`, `90s`) or Go
/// (`2562024h0m0s`) writes one, so that equal lengths compare equal.
pub fn milliseconds(text: &str) -> Option<u64> {
    let units: [(&str, u64); 8] = [
        ("ms", 1),
        ("s", 1_000),
        ("m", 60_000),
        ("h", 3_600_000),
        ("d", 86_400_000),
        ("w", 604_800_000),
        ("y", 31_536_000_000),
        ("ns", 0),
    ];
    let mut rest = text;
    let mut total = 0;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        let number: u64 = rest[..digits].parse().ok()?;
        let after = &rest[digits..];
        let (unit, ms) = units.iter().find(|(unit, _)| after.starts_with(unit))?;
        total = number.checked_mul(*ms)?.checked_add(total)?;
        rest = &after[unit.len()..];
    }
    (!text.is_empty()).then_some(total)
}

/// `text` in bytes when it is a size as Prometheus (`10MB`, `1.5GiB`: both powers of 1024)
/// or Alloy's converter (`1GiB512MiB`) writes one.
pub fn bytes(text: &str) -> Option<u64> {
    const UNITS: [(&str, u32); 13] = [
        ("KiB", 1),
        ("MiB", 2),
        ("GiB", 3),
        ("TiB", 4),
        ("PiB", 5),
        ("EiB", 6),
        ("KB", 1),
        ("MB", 2),
        ("GB", 3),
        ("TB", 4),
        ("PB", 5),
        ("EB", 6),
        ("B", 0),
    ];
    let mut rest = text;
    let mut total = 0.0;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit() && c != '.')?;
        let number: f64 = rest[..digits].parse().ok()?;
        let after = &rest[digits..];
        let (unit, power) = UNITS.iter().find(|(unit, _)| after.starts_with(unit))?;
        total += number * 1024f64.powi(*power as i32);
        rest = &after[unit.len()..];
    }
    // Sizes are whole bytes; the float only carries fractions like 1.5GiB.
    (!text.is_empty()).then_some(total.round() as u64)
}

/// `value` (the body of a `block`) with durations in milliseconds, sizes in bytes, and
/// without the attributes `defaults` names for its block, recursively; the items of Alloy's
/// ordered lists (`stage.<kind>`) are read as blocks named `<list>.<kind>` and kept, empty or
/// not. Endpoints of a remote_write lose the name the converter makes up for unnamed ones
/// (`<instance>-<hash of its settings>`: native leaves them unnamed and Alloy names them).
pub fn normalized(block: &str, value: &Value, defaults: Defaults<'_>) -> Value {
    let Value::Object(items) = value else {
        return value.clone();
    };
    let mut out = Map::new();
    for (name, item) in items {
        let item = &match item {
            Value::String(text) if SIZES.contains(&name.as_str()) => {
                bytes(text).map_or(item.clone(), |b| b.into())
            }
            // A user's `modulus: $(SHARDS)` (additionalScrapeConfigs) is written natively as
            // the string the loader fills in, which Alloy reads as the number the converter
            // writes (docs/alloy.md).
            Value::String(text) if name == "modulus" => {
                text.parse::<u64>().map_or(item.clone(), Value::from)
            }
            Value::String(text) => milliseconds(text).map_or(item.clone(), |ms| ms.into()),
            other => other.clone(),
        };
        let text = item.to_string();
        let default = defaults
            .iter()
            .any(|(b, n, v)| *b == block && n == name && text == *v);
        if default {
            continue;
        }
        let item = match item {
            Value::Array(kinds) if ORDERED_BLOCKS.contains(&name.as_str()) => Value::Array(
                kinds
                    .iter()
                    .map(|entry| match entry {
                        Value::Object(entry) => Value::Object(
                            entry
                                .iter()
                                .map(|(kind, body)| {
                                    let block = format!("{name}.{kind}");
                                    (kind.clone(), normalized(&block, body, defaults))
                                })
                                .collect(),
                        ),
                        other => other.clone(),
                    })
                    .collect(),
            ),
            // Nested blocks: a list of bodies; one left empty sets nothing.
            Value::Array(bodies) if bodies.iter().all(Value::is_object) && !bodies.is_empty() => {
                let bodies: Vec<Value> = bodies
                    .iter()
                    .map(|b| normalized(name, b, defaults))
                    .filter(|b| b.as_object().is_some_and(|o| !o.is_empty()))
                    .collect();
                if bodies.is_empty() {
                    continue;
                }
                Value::Array(bodies)
            }
            other => other.clone(),
        };
        out.insert(name.clone(), item);
    }
    if block == "endpoint"
        && let Some(Value::String(name)) = out.get("name")
        && name
            .rsplit_once('-')
            .is_some_and(|(_, hash)| hash.len() == 6)
    {
        out.remove("name");
    }
    Value::Object(out)
}

/// Every `kind`, `kind/attribute` and `kind/block/.../attribute` path of a native config
/// (an ordered list's items as `kind/stage/<kind>/...`).
pub fn constructs(text: &str) -> BTreeSet<String> {
    fn walk(prefix: &str, items: &Map<String, Value>, out: &mut BTreeSet<String>) {
        for (name, item) in items {
            let path = format!("{prefix}/{name}");
            out.insert(path.clone());
            let Value::Array(bodies) = item else { continue };
            let ordered = ORDERED_BLOCKS.contains(&name.as_str());
            for body in bodies.iter().filter_map(Value::as_object) {
                if !ordered {
                    walk(&path, body, out);
                    continue;
                }
                for (kind, body) in body {
                    let path = format!("{path}/{kind}");
                    out.insert(path.clone());
                    if let Value::Object(body) = body {
                        walk(&path, body, out);
                    }
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    for (component, body) in components(text).unwrap_or_default() {
        let kind = component.split(' ').next().unwrap_or_default().to_owned();
        if let Value::Object(body) = &body {
            walk(&kind, body, &mut out);
        }
        out.insert(kind);
    }
    out
}

/// Indexes of `sets` that together hold every element any of them holds, chosen greedily.
pub fn covering(sets: &[BTreeSet<String>]) -> Vec<usize> {
    let mut left: BTreeSet<&String> = sets.iter().flatten().collect();
    let mut chosen = Vec::new();
    while !left.is_empty() {
        let (best, _) = sets
            .iter()
            .enumerate()
            .max_by_key(|(i, set)| {
                (
                    set.iter().filter(|c| left.contains(c)).count(),
                    usize::MAX - i,
                )
            })
            .expect("a set holds what is left");
        for c in &sets[best] {
            left.remove(c);
        }
        chosen.push(best);
    }
    chosen.sort_unstable();
    chosen
}

/// `body` with an API server address on every Kubernetes discovery without one: Alloy builds
/// their clients at load, and a host has no in-cluster settings (nothing answers there).
pub fn with_api_server(mut body: Body) -> Body {
    let discovery = ["discovery", "kubernetes"];
    for block in &mut body.blocks {
        let is_discovery = block.name.iter().map(Identifier::as_str).eq(discovery);
        let has_address = block
            .body
            .attributes
            .iter()
            .any(|a| a.name.as_str() == "api_server");
        if is_discovery && !has_address {
            block.body.attribute(
                Identifier::new("api_server").expect("an identifier"),
                Expr::string("http://127.0.0.1:9"),
            );
        }
    }
    body
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn ready(port: u16) -> bool {
    use std::io::Read as _;
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let request = format!("GET /-/ready HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    let mut answer = String::new();
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_to_string(&mut answer).is_ok()
        && (answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200"))
}

/// Runs Alloy on `text` until it reports ready; the end of its log when it stops first.
pub fn loads(alloy: &Path, text: &str, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let file = dir.join("config.alloy");
    std::fs::write(&file, text).map_err(|e| e.to_string())?;
    let log = dir.join("alloy.log");
    let port = free_port();
    let mut child = Command::new(alloy)
        .arg("run")
        .arg(&file)
        .arg(format!("--server.http.listen-addr=127.0.0.1:{port}"))
        .arg(format!("--storage.path={}", dir.join("data").display()))
        .arg("--disable-reporting")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| e.to_string())?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let outcome = loop {
        if ready(port) {
            break Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            let errors: Vec<&str> = log
                .lines()
                .filter(|l| l.contains("level=error") || !l.starts_with("ts="))
                .collect();
            break Err(format!("alloy exited ({status}):\n{}", errors.join("\n")));
        }
        if std::time::Instant::now() > deadline {
            break Err("not ready within 60 s".into());
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let _ = child.kill();
    let _ = child.wait();
    outcome
}

/// What stops a component this host lacks and a pod has, once Alloy has decoded its
/// arguments (a config Alloy refuses fails before, on its syntax or arguments): files of the
/// pod's service account or Secrets, and cloud credentials.
const HOST_GAPS: [&str; 3] = [
    "building component: unable to read",
    "building component: could not create new AWS session",
    // loki.write's endpoint reads its TLS files when it starts.
    "error starting endpoint: unable to read",
];

/// Whether every error Alloy logged is one of [`HOST_GAPS`].
pub fn only_host_gaps(log: &str) -> bool {
    let errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("level=error") || l.starts_with("Error:"))
        .filter(|l| !l.contains("could not perform the initial load"))
        .collect();
    !errors.is_empty()
        && errors
            .iter()
            .all(|l| HOST_GAPS.iter().any(|gap| l.contains(gap)))
}
