//! Proof against the real binaries (issue 38, item 1): strings that objects and Secrets put
//! into a config reach the agent as written, through the config loader's substitution
//! (`render::loader_variables::substitute`, what `agent-operator config-loader` runs; until
//! issue 35 the pods ran prometheus-config-reloader, which replaced every `$(NAME)`) and the
//! real agent (v0.44.8, `scripts/build-grafana-agent`, or `GRAFANA_AGENT_BIN`), run as the pod
//! runs it.
//!
//! The golden case `testdata/render/q38-hostile-dollars` puts `$(NOPE)` (the old reloader
//! wrote no config when a name was unset), `a${b` (the agent exits), `${HOSTNAME}`, `${AGENT_SECRET}`
//! (the pod's environment), `${X:?e}` and `$$` into a ServiceMonitor, a Probe's basic-auth
//! Secret, the agent's external labels, a PodLogs and its pipeline stages. For each config:
//! the loader writes it, the agent loads it and keeps running, its `/-/config` holds every
//! value as the objects wrote it and nothing of the environment, and the Probe's scrape
//! carries the password as the Secret holds it. The same for Alloy (the tested release, from
//! `scripts/build-alloy`, or `ALLOY_BIN`) running the loader's output with the pods'
//! `--config.format=static` and extra args: its components' arguments hold the values as
//! written.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use api::Runtime;
use base64::Engine;
use render::PlanOptions;
use render::manifest::Loader;
use render::output::plan_all;
use serde_json::Value;

/// A variable of the pods' environment no config may read: its value must never show.
const SECRET_ENV: (&str, &str) = ("AGENT_SECRET", "leaked-secret-value");
/// The node name the pods' `HOSTNAME` holds.
const NODE: &str = "node-leaked";
/// The port the case's Probe names, replaced by a listener of the test's own.
const CASE_PROBER_PORT: &str = "19115";
/// How long a binary gets to write, load or scrape.
const PATIENCE: Duration = Duration::from_secs(30);

fn case_dir() -> PathBuf {
    support::repo_root().join("testdata/render/q38-hostile-dollars")
}

/// A free loopback port.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Kills the process when dropped, so that a failing assertion leaves nothing running.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The configs of the case for `runtime`, by config Secret name, with the Probe aimed at
/// `prober_port`.
fn configs(runtime: Runtime, prober_port: u16) -> Vec<(String, String)> {
    let input = std::fs::read_to_string(case_dir().join("input.yaml")).expect("input.yaml");
    assert!(
        input.contains(CASE_PROBER_PORT),
        "the case names its prober port"
    );
    let input = input.replace(CASE_PROBER_PORT, &prober_port.to_string());
    let mut loader = Loader::new();
    loader.add_source("input.yaml", &input);
    let loaded = loader.finish();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let options = PlanOptions {
        runtime,
        ..PlanOptions::default()
    };
    let plans = plan_all(&loaded.store, &options, None);
    let configs: Vec<(String, String)> = plans
        .iter()
        .flat_map(|p| &p.configs)
        .map(|c| (c.secret_name.clone(), c.text.as_str().to_owned()))
        .collect();
    assert_eq!(configs.len(), 2, "a metrics and a logs config");
    configs
}

/// The environment of the agent pods (spec 3.5, 3.7), plus a secret and the node name.
fn pod_env(command: &mut Command, pod_name: &str) {
    command
        .env_clear()
        .env("POD_NAME", pod_name)
        .env("SHARD", "0")
        .env("SHARDS", "1")
        .env("HOSTNAME", NODE)
        .env("USER", "someone")
        .env(SECRET_ENV.0, SECRET_ENV.1);
}

/// Writes the file the agent reads as the pod's config loader does: `text` with the operator's
/// variables substituted from the pod's environment (`render::loader_variables`, the loader's
/// one substitution); that file's path.
fn loader_output(text: &str, root: &Path) -> PathBuf {
    let output = root.join("config/agent.yml");
    std::fs::create_dir_all(output.parent().expect("parent")).expect("config");
    let env = BTreeMap::from(
        [("POD_NAME", "agent-0"), ("SHARD", "0"), ("SHARDS", "1")]
            .map(|(name, value)| (name.to_owned(), value.to_owned())),
    );
    let config = render::loader_variables::substitute(text, &env)
        .unwrap_or_else(|e| panic!("the config loader refuses the config: {e}"));
    std::fs::write(&output, config).expect("config/agent.yml");
    output
}

/// One HTTP GET on loopback; the body when the status is 200.
fn get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200")
        .then(|| body.to_owned())
        .or_else(|| head.starts_with("HTTP/1.0 200").then(|| body.to_owned()))
}

/// Runs the agent with the pods' flags on `file`; its loaded config (`/-/config`) once it
/// serves one. Fails when it exits first.
fn agent_loaded_config(agent: &Path, file: &Path, root: &Path, port: u16) -> (Running, Value) {
    let log = root.join("agent.log");
    let mut command = Command::new(agent);
    command
        .arg(format!("-config.file={}", file.display()))
        .arg("-config.expand-env=true")
        .arg("-config.enable-read-api")
        .arg("-enable-features=integrations-next")
        .arg(format!("-server.http.address=127.0.0.1:{port}"))
        .arg("-server.grpc.address=127.0.0.1:0")
        .arg("-disable-reporting")
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).expect("log"))
        .stderr(std::fs::File::create(root.join("err.log")).expect("log"));
    pod_env(&mut command, "agent-0");
    serving(command, root, "the agent", || {
        let body = get(port, "/-/config")?;
        Some(serde_saphyr::from_str(&body).expect("the agent's config"))
    })
}

/// Runs `command` (whose standard error goes to `<root>/err.log`) until `answer` gives
/// something; that and the running process. Fails when it exits first or answers nothing in
/// [`PATIENCE`].
fn serving<T>(
    mut command: Command,
    root: &Path,
    what: &str,
    mut answer: impl FnMut() -> Option<T>,
) -> (Running, T) {
    let mut running = Running(
        command
            .spawn()
            .unwrap_or_else(|e| panic!("run {what}: {e}")),
    );
    let start = Instant::now();
    loop {
        if let Ok(Some(status)) = running.0.try_wait() {
            panic!(
                "{what} exited ({status}):\n{}",
                std::fs::read_to_string(root.join("err.log")).unwrap_or_default()
            );
        }
        if let Some(answer) = answer() {
            return (running, answer);
        }
        assert!(start.elapsed() < PATIENCE, "{what} answered nothing");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Every string of `value`, keys included.
fn strings(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.insert(k.clone());
                strings(v, out);
            }
        }
        _ => {}
    }
}

/// The first `Authorization: Basic` credentials a scrape brings to `listener`, decoded.
fn scraped_credentials(listener: TcpListener) -> mpsc::Receiver<String> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().expect("stream"));
            let mut credentials = None;
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                if let Some((name, value)) = line.trim_end().split_once(':')
                    && name.eq_ignore_ascii_case("authorization")
                    && let Some(encoded) = value.trim().strip_prefix("Basic ")
                {
                    credentials = base64::engine::general_purpose::STANDARD
                        .decode(encoded)
                        .ok()
                        .and_then(|b| String::from_utf8(b).ok());
                }
                line.clear();
            }
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n");
            if let Some(credentials) = credentials {
                let _ = send.send(credentials);
                return;
            }
        }
    });
    receive
}

/// A config as the case's pods get it: its paths under `root` instead of the pod's
/// `/var/lib/grafana-agent/` (WAL and positions; the case mounts no Secret file).
fn rebased(text: &str, root: &Path) -> String {
    text.replace("/var/lib/grafana-agent/", &format!("{}/", root.display()))
}

/// Every string of the arguments of every component Alloy on `port` runs (its web API).
fn alloy_arguments(port: u16) -> Option<BTreeSet<String>> {
    let list: Value = serde_json::from_str(&get(port, "/api/v0/web/components")?).ok()?;
    let mut out = BTreeSet::new();
    for component in list.as_array()? {
        let id = component["localID"].as_str()?;
        let detail: Value =
            serde_json::from_str(&get(port, &format!("/api/v0/web/components/{id}"))?).ok()?;
        strings(&detail["arguments"], &mut out);
    }
    Some(out)
}

/// Runs Alloy as the pods of runtime alloy do on `file`; the strings of its components'
/// arguments once it serves them. Fails when it exits first.
fn alloy_loaded_arguments(
    alloy: &Path,
    file: &Path,
    root: &Path,
    port: u16,
) -> (Running, BTreeSet<String>) {
    let mut command = Command::new(alloy);
    command
        .arg("run")
        .arg(file)
        .arg("--config.format=static")
        .arg(format!(
            "--config.extra-args={}",
            render::workloads::pod_template::ALLOY_EXTRA_ARGS
        ))
        .arg(format!("--server.http.listen-addr=127.0.0.1:{port}"))
        .arg(format!("--storage.path={}", root.join("alloy").display()))
        .arg("--disable-reporting")
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(root.join("alloy.log")).expect("log"))
        .stderr(std::fs::File::create(root.join("err.log")).expect("log"));
    pod_env(&mut command, "agent-0");
    serving(command, root, "alloy", || {
        get(port, "/-/ready")?;
        alloy_arguments(port)
    })
}

/// What no runtime may show, and what every one must: the hostile values as written.
fn check_loaded(seen: &BTreeSet<String>, runtime: &str) {
    // The agent's own node filter for pod discovery (promtail's, from `HOSTNAME`) is the one
    // place the node name may show.
    let own_node_filter = format!("spec.nodeName={NODE}");
    let leaked: Vec<&String> = seen
        .iter()
        .filter(|s| s.contains(SECRET_ENV.1) || (s.contains(NODE) && **s != own_node_filter))
        .collect();
    assert!(
        leaked.is_empty(),
        "{runtime}: the environment reached the config: {leaked:?}"
    );
    for written in [
        // ServiceMonitor relabelings.
        "$(NOPE)",
        "a${b",
        "${HOSTNAME}/${AGENT_SECRET}",
        "${AGENT_SECRET:?e}",
        "pa$$",
        "$1-${1}",
        // The agent's external label.
        "${AGENT_SECRET}",
        // PodLogs relabeling and replace stage.
        "${AGENT_SECRET}a${b",
        "${AGENT_SECRET}$(NOPE)",
    ] {
        assert!(
            seen.contains(written),
            "{runtime}: {written:?} is not in the loaded configs"
        );
    }
    // The documented shard variables are still the loader's.
    assert!(
        !seen.contains("$(SHARD)"),
        "{runtime}: $(SHARD) left unexpanded"
    );
}

/// Runs the case's configs through the config loader's substitution, then `load` (a runtime given
/// the file, the pod root and a port, answering the strings it loaded), and checks what it
/// loaded and what the Probe's scrape sends.
fn through_the_loader_and(
    runtime: Runtime,
    load: impl Fn(&Path, &Path, u16) -> (Running, BTreeSet<String>),
) {
    let prober = TcpListener::bind("127.0.0.1:0").expect("prober listener");
    let prober_port = prober.local_addr().expect("address").port();
    let credentials = scraped_credentials(prober);
    let scratch = support::configs::scratch_dir("hostile-strings", runtime.as_str());

    let mut seen = BTreeSet::new();
    let mut running = Vec::new();
    for (secret, text) in configs(runtime, prober_port) {
        let root = scratch.join(&secret);
        std::fs::create_dir_all(&root).expect("pod root");
        let port = free_port();
        let file = loader_output(&rebased(&text, &root), &root);
        let (process, loaded) = load(&file, &root, port);
        seen.extend(loaded);
        running.push(process);
    }
    check_loaded(&seen, runtime.as_str());
    let scraped = credentials
        .recv_timeout(PATIENCE)
        .expect("the Probe was scraped with basic auth");
    assert_eq!(scraped, "u$(NOPE):pa$$w0rd$USER${AGENT_SECRET}a${b");
    drop(running);
}

#[test]
fn strings_from_objects_and_secrets_reach_the_real_agent_as_written() {
    let agent =
        support::configs::built_binary("GRAFANA_AGENT_BIN", "build-grafana-agent", "grafana-agent");
    through_the_loader_and(Runtime::Agent, |file, root, port| {
        let (running, config) = agent_loaded_config(&agent, file, root, port);
        let mut seen = BTreeSet::new();
        strings(&config, &mut seen);
        (running, seen)
    });
}

#[test]
fn strings_from_objects_and_secrets_reach_the_real_alloy_as_written() {
    let alloy = support::configs::built_binary("ALLOY_BIN", "build-alloy", "alloy");
    through_the_loader_and(Runtime::Alloy, |file, root, port| {
        alloy_loaded_arguments(&alloy, file, root, port)
    });
}
