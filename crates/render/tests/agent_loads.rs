//! Proof against the real grafana-agent (issue 22, item 6): every config the golden cases under
//! `testdata/` and the bundled `examples/` render for runtime agent starts in the agent the
//! operator deploys (v0.44.8, from `scripts/build-grafana-agent`, or `GRAFANA_AGENT_BIN`) with
//! the pods' flags, and none of its parts fails to start. A config the agent refuses stops every
//! tenant of that agent, so what it would refuse must be rejected at plan time, per object.
//!
//! Each config runs as a pod of shard 0 would run it, on the host:
//! * `$(NAME)` references expanded as the config-reloader does;
//! * the pod's `/var/lib/grafana-agent/` is a scratch folder: the WAL and positions go there,
//!   and the assets Secret's keys are files under its `secrets/`, as the Secret's volume mounts
//!   them;
//! * files the user mounts (any other absolute path a `*_file` setting names) are stand-ins
//!   in the scratch folder, and the node's folders the integrations DaemonSet mounts at
//!   `/host/...` are the host's own;
//! * what a file setting holds is the user's data, not the config: a CA or certificate is a
//!   stand-in certificate, a private key its key (the test inputs hold placeholders);
//! * stand-in AWS credentials in the environment, as a pod using SigV4 or EC2 discovery has;
//! * the agent's own flags (`-config.expand-env=true -enable-features=integrations-next`),
//!   listening on free loopback ports.
//!
//! The errors the host causes ([`HOST_ERRORS`]: no in-cluster credentials, no network, no
//! udev) are the only errors allowed.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use api::Runtime;
use render::assets::ASSETS_MOUNT_PATH;
use serde_json::Value;
use support::configs::WrittenConfig;

/// The folder the pod's paths are under.
const POD_ROOT: &str = "/var/lib/grafana-agent/";

/// How long a config must run without the agent exiting or logging a failure. Loading,
/// applying every instance and starting every integration takes well under a second here.
const RUN_FOR: Duration = Duration::from_secs(3);

/// Agents started at once: each needs a core for a fraction of [`RUN_FOR`] and then waits, so
/// the run is bound by RUN_FOR, not the cores (8 halved the test's time against 4 on 2 cores).
const PARALLEL: usize = 8;

/// Log lines at level error that come from running on the host, not from the config: no
/// Kubernetes credentials outside a pod, no network to discover from (Consul's discovery says
/// it its own way), no udev database, no folder a file discovery watches (the user mounts it
/// into the pods).
const HOST_ERRORS: [&str; 6] = [
    "unable to load in-cluster configuration",
    "Unable to refresh target groups",
    "disabling udev device properties",
    "Error refreshing service list",
    "Error retrieving datacenter name",
    "Error adding file watch",
];

/// The integrations DaemonSet's host mounts, and the host's folders they are.
const HOST_MOUNTS: [(&str, &str); 3] = [
    ("/host/proc", "/proc"),
    ("/host/sys", "/sys"),
    ("/host/root", "/"),
];

const STAND_IN_CERT: &str = include_str!("agent_loads/stand-in.crt");
const STAND_IN_KEY: &str = include_str!("agent_loads/stand-in.key");

/// What a file that the settings `keys` name holds: a certificate, a private key, both (one
/// Secret key can hold a certificate and its key), or the user's data as it is.
fn stand_in(keys: &BTreeSet<String>) -> Option<String> {
    let key = keys.iter().any(|k| k.ends_with("key_file"));
    let cert = keys
        .iter()
        .any(|k| k == "ca_file" || k.ends_with("_ca_file") || k.ends_with("cert_file"));
    match (cert, key) {
        (true, true) => Some(format!("{STAND_IN_CERT}{STAND_IN_KEY}")),
        (true, false) => Some(STAND_IN_CERT.to_owned()),
        (false, true) => Some(STAND_IN_KEY.to_owned()),
        (false, false) => None,
    }
}

fn agent_binary() -> PathBuf {
    support::configs::built_binary("GRAFANA_AGENT_BIN", "build-grafana-agent", "grafana-agent")
}

/// Replaces the pod's paths in `value` with the host's (see the module's doc); collects the
/// files that settings name, each with the settings naming it.
fn rebase(value: &mut Value, root: &Path, files: &mut BTreeMap<PathBuf, BTreeSet<String>>) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| rebase(v, root, files)),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if let Value::String(path) = v {
                    if let Some(host) = host_path(key, path, root) {
                        if key.ends_with("_file") {
                            files.entry(host.clone()).or_default().insert(key.clone());
                        }
                        *path = host.display().to_string();
                    }
                } else {
                    rebase(v, root, files);
                }
            }
        }
        _ => {}
    }
}

/// Where the pod's `path` (the value of setting `key`) is on the host, when elsewhere.
fn host_path(key: &str, path: &str, root: &Path) -> Option<PathBuf> {
    if let Some(rest) = path.strip_prefix(POD_ROOT) {
        return Some(root.join(rest));
    }
    if !path.starts_with('/') || !(key.ends_with("_file") || key.ends_with("_path")) {
        return None;
    }
    for (mount, host) in HOST_MOUNTS {
        if let Some(rest) = path.strip_prefix(mount) {
            return Some(Path::new(host).join(rest.trim_start_matches('/')));
        }
    }
    Some(root.join("user-files").join(path.trim_start_matches('/')))
}

/// Lays out the pod's files for `config` under `root` and returns the config file to load.
fn pod_files(config: &WrittenConfig, root: &Path) -> Result<PathBuf, String> {
    let assets_dir = root.join(
        ASSETS_MOUNT_PATH
            .strip_prefix(POD_ROOT)
            .expect("the assets are mounted under the pod root"),
    );
    std::fs::create_dir_all(&assets_dir).map_err(|e| e.to_string())?;
    for (key, value) in &config.assets {
        std::fs::write(assets_dir.join(key), value).map_err(|e| e.to_string())?;
    }
    let mut parsed = config.parsed.clone();
    let mut files = BTreeMap::new();
    rebase(&mut parsed, root, &mut files);
    for (path, keys) in &files {
        if !path.starts_with(root) {
            continue;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        match stand_in(keys) {
            Some(content) => std::fs::write(path, content),
            None if !path.exists() => std::fs::write(path, "stand-in\n"),
            None => Ok(()),
        }
        .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let path = root.join("agent.yml");
    let yaml = render::yaml::to_string(&parsed).map_err(|e| e.to_string())?;
    std::fs::write(&path, yaml).map_err(|e| e.to_string())?;
    Ok(path)
}

/// The error lines of an agent log that are the config's doing.
fn config_errors(log: &str) -> Vec<String> {
    log.lines()
        .filter(|line| line.contains("level=error"))
        .filter(|line| !HOST_ERRORS.iter().any(|host| line.contains(host)))
        .map(str::to_owned)
        .collect()
}

/// Runs the agent on `file` for [`RUN_FOR`]; `Err` with its log when it exits or logs an error
/// of the config.
fn run_agent(agent: &Path, file: &Path, root: &Path) -> Result<(), String> {
    let log_path = root.join("agent.log");
    let log = std::fs::File::create(&log_path).map_err(|e| e.to_string())?;
    let mut child = Command::new(agent)
        .arg(format!("-config.file={}", file.display()))
        .arg("-config.expand-env=true")
        .arg("-enable-features=integrations-next")
        .arg("-server.http.address=127.0.0.1:0")
        .arg("-server.grpc.address=127.0.0.1:0")
        .arg("-disable-reporting")
        .env("AWS_ACCESS_KEY_ID", "stand-in")
        .env("AWS_SECRET_ACCESS_KEY", "stand-in")
        .env("AWS_REGION", "us-east-1")
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", agent.display()))?;
    let start = Instant::now();
    let exited = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if start.elapsed() >= RUN_FOR {
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if exited.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let text = std::fs::read_to_string(&log_path).unwrap_or_default();
    match exited {
        Some(status) => Err(format!("the agent exited ({status}):\n{text}")),
        None => {
            let errors = config_errors(&text);
            if errors.is_empty() {
                Ok(())
            } else {
                Err(errors.join("\n"))
            }
        }
    }
}

/// Runs every config in `configs`, [`PARALLEL`] at once; the failures, by config.
fn run_all(agent: &Path, configs: &[WrittenConfig], dir: &Path) -> BTreeMap<String, String> {
    let next = Mutex::new(configs.iter().enumerate());
    let failures = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                loop {
                    let Some((i, config)) = next.lock().expect("queue").next() else {
                        return;
                    };
                    let root = dir.join(format!("pod-{i}"));
                    let result = pod_files(config, &root).and_then(|file| {
                        // As a pod restarts: the agent's start has a race of its own (its
                        // autoscraper can look for an instance not yet started, "instance
                        // .. does not exist"); what the config causes fails every time.
                        run_agent(agent, &file, &root).or_else(|_| run_agent(agent, &file, &root))
                    });
                    if let Err(e) = result {
                        let name = format!("{}: {}", config.case, config.path.display());
                        failures.lock().expect("failures").insert(name, e);
                    }
                }
            });
        }
    });
    failures.into_inner().expect("failures")
}

#[test]
fn every_config_rendered_for_the_agent_starts_in_the_real_agent() {
    let agent = agent_binary();
    let dir = support::configs::scratch_dir("agent-loads", "cases");
    let configs = support::configs::every_config(Runtime::Agent, &dir);
    assert!(configs.len() > 100, "only {} configs", configs.len());
    let failures = run_all(&agent, &configs, &dir);
    eprintln!(
        "grafana-agent: {} of {} configs started",
        configs.len() - failures.len(),
        configs.len()
    );
    let report: Vec<String> = failures
        .iter()
        .map(|(config, why)| format!("{config}:\n{why}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} configs (files under {}):\n{}",
        failures.len(),
        configs.len(),
        dir.display(),
        report.join("\n\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The table of each integration's settings that the operator checks Integrations against
/// (`render::config::integration_settings`) is what the agent's own config types accept.
#[test]
fn the_integration_settings_table_is_the_agents() {
    let generated = support::configs::run_script("integration-settings", &["--print"]);
    let committed = std::fs::read_to_string(
        support::repo_root().join("crates/render/src/config/integration_settings.rs"),
    )
    .expect("integration_settings.rs");
    assert!(
        generated == committed,
        "crates/render/src/config/integration_settings.rs is not what the agent accepts: run scripts/integration-settings"
    );
}

/// The check can fail: what the operator now rejects at plan time, written anyway, is refused
/// by the agent (an integration setting it does not know).
#[test]
fn the_agent_refuses_an_integration_setting_it_does_not_know() {
    let agent = agent_binary();
    let dir = support::configs::scratch_dir("agent-loads", "refused");
    let config = WrittenConfig {
        case: "by hand".to_owned(),
        path: dir.join("by-hand.yml"),
        parsed: serde_json::json!({
            "server": {},
            "integrations": {
                "metrics": {"autoscrape": {"enable": false}},
                "statsd_configs": [{"relay_address": "relay:9125"}],
            },
        }),
        assets: BTreeMap::new(),
    };
    let root = dir.join("pod");
    let file = pod_files(&config, &root).expect("pod files");
    let err = run_agent(&agent, &file, &root).expect_err("refused");
    assert!(err.contains("field relay_address not found"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
