//! `render --export DIR` (docs/alloy.md "Leaving the operator"): what it writes runs in the real
//! Alloy as it is, holds none of the operator's variables, and the Secret it writes is the one
//! the operator creates, holding every key the configs read. Its manifests.yaml runs every file
//! (each pod finds its own in the config Secret, every path a config reads is mounted), carries
//! nothing of the operator's, and the real control plane (`scripts/control-plane`) accepts it
//! and creates the pods.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod support;
use support::root;

// The render tests' helpers for the real Alloy (`alloy fmt`, `alloy run` until ready); they
// find their siblings as `super::`, the crate root here.
#[allow(dead_code)]
#[path = "../../render/tests/support/alloy_parse.rs"]
mod alloy_parse;
#[allow(dead_code)]
#[path = "../../render/tests/support/alloy_run.rs"]
mod alloy_run;

/// What `alloy_run::alloy_binary` asks for: `$ALLOY_BIN`, else the binary `scripts/build-alloy`
/// built (cached by version; `scripts/test.sh` builds it first).
mod configs {
    use std::path::PathBuf;

    pub fn built_binary(env: &str, script: &str, binary: &str) -> PathBuf {
        if let Some(path) = std::env::var_os(env) {
            return PathBuf::from(path);
        }
        let script = crate::support::root().join("scripts").join(script);
        let output = std::process::Command::new(&script)
            .env("GO_BUILD_QUIET", "1")
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
        assert!(
            output.status.success(),
            "{}: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()).join(binary)
    }
}

use alloy_run::{alloy_binary, formatted_as_written, loads};

/// Two teams' agents: `team-a/sharded` (runtime `agent` in its spec, 3 shards of 2 replicas,
/// credentials from two Secrets, one of them read by a ServiceMonitor, logs with a PodLogs) exports; `team-b/legacy` has raw
/// Prometheus jobs, which the native config cannot express.
const TEAMS: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: sharded, namespace: team-a}
spec:
  runtime: agent
  metrics:
    shards: 3
    replicas: 2
    instanceSelector: {matchLabels: {agent: sharded}}
  logs:
    instanceSelector: {matchLabels: {agent: sharded}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: main, namespace: team-a, labels: {agent: sharded}}
spec:
  remoteWrite:
  - url: https://mimir.example.com/api/v1/push
    basicAuth:
      username: {name: remote, key: user}
      password: {name: remote, key: pass}
  serviceMonitorSelector: {matchLabels: {team: a}}
---
apiVersion: v1
kind: Secret
metadata: {name: remote, namespace: team-a}
stringData: {user: team-a, pass: "s3cret$(SHARD)", unused: never-read}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: team-a}
stringData: {value: a-token}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: team-a, labels: {team: a}}
spec:
  selector: {matchLabels: {app: web}}
  endpoints:
  - {port: http, interval: 15s, bearerTokenSecret: {name: token, key: value}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: main, namespace: team-a, labels: {agent: sharded}}
spec:
  clients:
  - url: https://loki.example.com/loki/api/v1/push
    basicAuth:
      username: {name: remote, key: user}
      password: {name: remote, key: pass}
  podLogsSelector: {matchLabels: {team: a}}
---
apiVersion: monitoring.grafana.com/v1alpha2
kind: PodLogs
metadata: {name: web, namespace: team-a, labels: {team: a}}
spec:
  selector: {matchLabels: {app: web}}
  pipelineStages: [{cri: {}}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: legacy, namespace: team-b}
spec:
  metrics:
    instanceSelector: {matchLabels: {agent: legacy}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: raw, namespace: team-b, labels: {agent: legacy}}
spec:
  remoteWrite: [{url: https://mimir.example.com/api/v1/push}]
  additionalScrapeConfigs: {name: extra, key: jobs.yaml}
---
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: team-b}
stringData:
  jobs.yaml: |
    - job_name: raw
      static_configs: [{targets: ["localhost:9090"]}]
    - job_name: containers
      docker_sd_configs: [{host: "unix:///var/run/docker.sock"}]
"#;

fn agent_operator(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("agent-operator runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "agent-operator-export-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Every file under `dir`, by path relative to it.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).expect("list").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path.strip_prefix(dir).expect("under dir");
                let text = std::fs::read_to_string(&path).expect("a text file");
                out.insert(name.display().to_string(), text);
            }
        }
    }
    out
}

/// The YAML documents of `text` as JSON.
fn documents(text: &str) -> Vec<Value> {
    serde_saphyr::from_multiple::<Value>(text).expect("YAML documents")
}

/// The operator's `<agent>-secrets` Secret of `render -f input` (planned as the export plans
/// it: native Alloy).
fn operators_secret(input: &Path, namespace: &str, agent: &str) -> Value {
    let out = agent_operator(
        &[
            "render",
            "--runtime",
            "alloy",
            "-f",
            input.to_str().expect("utf-8"),
            "--agent",
            &format!("{namespace}/{agent}"),
        ],
        input.parent().expect("parent"),
    );
    documents(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .find(|d| {
            d["kind"] == "Secret" && d["metadata"]["name"] == format!("{agent}-secrets").as_str()
        })
        .expect("the operator's assets Secret")
}

/// `text` with an API server address on each Kubernetes discovery without one.
fn with_api_server(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        if line.starts_with("discovery.kubernetes ") {
            let body: Vec<&str> = lines.clone().take_while(|l| !l.starts_with('}')).collect();
            if !body
                .iter()
                .any(|l| l.trim_start().starts_with("api_server"))
            {
                out.push_str("\tapi_server = \"http://127.0.0.1:9\"\n");
            }
        }
    }
    out
}

/// The exported Secret's keys as files under `dir/secrets/` (the pods' mount of every key) and
/// `dir/integrations/secrets/<ns>/<name>/<key>` (the integrations' mount of items, which name
/// the key `_secrets_<ns>_<name>_<key>`): `dir`.
fn mount_secret(secret: &Value, dir: &Path) -> PathBuf {
    use base64::Engine as _;
    let keys = dir.join("secrets");
    std::fs::create_dir_all(&keys).expect("mount dir");
    for (key, value) in secret["data"].as_object().expect("data") {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(value.as_str().expect("base64 text"))
            .expect("base64");
        std::fs::write(keys.join(key), &bytes).expect("write key");
    }
    dir.to_path_buf()
}

/// `text` reading what a pod mounts from this host: the Secret's keys from [`mount_secret`]'s
/// `mounts`, the node's `/proc`, `/sys` and `/` for `/host/...`, and an API server address on
/// each Kubernetes discovery without one (Alloy builds their clients when it loads, and this
/// host has no in-cluster settings).
fn on_this_host(text: &str, mounts: &Path) -> String {
    let mounts = mounts.display().to_string();
    let integrations = |path: &str| -> String {
        // `secrets/<ns>/<name>/<key>` holds the key `_secrets_<ns>_<name>_<key>`, `-` as `_`.
        let key: String = path
            .chars()
            .map(|c| if c == '/' || c == '-' { '_' } else { c })
            .collect();
        format!("{mounts}/secrets/_{key}")
    };
    let mut out = String::new();
    for piece in with_api_server(text).split_inclusive('"') {
        if let Some(key) = piece.strip_prefix("/var/lib/grafana-agent/secrets/") {
            out.push_str(&format!("{mounts}/secrets/{key}"));
        } else if let Some(path) = piece.strip_prefix("/etc/grafana-agent/integrations/") {
            let (path, quote) = path.split_at(path.len() - 1);
            out.push_str(&integrations(path));
            out.push_str(quote);
        } else if let Some(path) = piece.strip_prefix("/host/") {
            let path = path.trim_start_matches("root");
            out.push('/');
            out.push_str(path.trim_start_matches('/'));
        } else {
            out.push_str(piece);
        }
    }
    out
}

/// The files the `.alloy` texts of `files` read under the pods' Secret mounts, as keys of the
/// assets Secret (`/var/lib/grafana-agent/secrets/<key>`, and the integrations' items
/// `/etc/grafana-agent/integrations/secrets/<ns>/<name>/<key>`, stored as
/// `_secrets_<ns>_<name>_<key>` with `-` as `_`).
fn keys_read(files: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    for text in files
        .iter()
        .filter(|(name, _)| name.ends_with(".alloy"))
        .map(|(_, text)| text)
    {
        for piece in text.split('"') {
            if let Some(key) = piece.strip_prefix("/var/lib/grafana-agent/secrets/") {
                keys.insert(key.to_owned());
            } else if let Some(path) = piece.strip_prefix("/etc/grafana-agent/integrations/") {
                let key: String = path
                    .chars()
                    .map(|c| if c == '/' || c == '-' { '_' } else { c })
                    .collect();
                keys.insert(format!("_{key}"));
            }
        }
    }
    keys
}

/// Checks one exported agent directory: README, Secret, and every config in the real Alloy.
fn check_agent(
    alloy: &Path,
    files: &BTreeMap<String, String>,
    operators: &Value,
    scratch: &Path,
) -> Vec<String> {
    let mut problems = Vec::new();
    assert!(files.contains_key("README.txt"), "{:?}", files.keys());
    let secret = documents(&files["secrets.yaml"]);
    assert_eq!(secret.len(), 1, "one Secret");
    let secret = &secret[0];
    assert_eq!(secret["metadata"]["name"], operators["metadata"]["name"]);
    assert_eq!(
        secret["metadata"]["namespace"],
        operators["metadata"]["namespace"]
    );
    assert_eq!(secret["data"], operators["data"], "the operator's values");
    assert!(
        secret["metadata"].get("ownerReferences").is_none(),
        "{secret}"
    );
    let stored: BTreeSet<String> = secret["data"]
        .as_object()
        .expect("data")
        .keys()
        .cloned()
        .collect();
    let read = keys_read(files);
    assert!(!read.is_empty(), "no config reads a credential");
    assert!(read.is_subset(&stored), "read {read:?}, stored {stored:?}");
    problems.extend(check_manifests(files));
    let mounts = mount_secret(secret, &scratch.join("mounts"));
    for (name, text) in files.iter().filter(|(n, _)| n.ends_with(".alloy")) {
        assert!(!text.contains("$("), "{name} holds a loader variable");
        if let Err(e) = formatted_as_written(alloy, text) {
            problems.push(format!("{name}: {e}"));
        }
        let dir = scratch.join(name.replace('/', "_"));
        match loads(alloy, &on_this_host(text, &mounts), &dir) {
            Ok(()) => {}
            Err(e) => problems.push(format!("{name} (files in {}): {e}", dir.display())),
        }
    }
    problems
}

/// The bundled examples export whole: one file per pod of the 2 x 2 metrics StatefulSets
/// (their shard and replica differ), one per other workload, and they run in Alloy.
#[test]
fn the_examples_export_and_run_in_alloy() {
    let alloy = alloy_binary();
    let dir = scratch("examples");
    let examples = root().join("examples");
    let out = agent_operator(
        &[
            "render",
            "-f",
            examples.to_str().expect("utf-8"),
            "--export",
            "exported",
        ],
        &dir,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = tree(&dir.join("exported/monitoring/agent"));
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "README.txt",
            "agent-0.alloy",
            "agent-1.alloy",
            "agent-integrations-deploy.alloy",
            "agent-integrations-ds.alloy",
            "agent-logs.alloy",
            "agent-shard-1-0.alloy",
            "agent-shard-1-1.alloy",
            "manifests.yaml",
            "secrets.yaml",
        ]
    );
    support::golden(
        "testdata/examples/export/manifests.yaml",
        &files["manifests.yaml"],
    );
    assert!(files["agent-shard-1-1.alloy"].contains("__replica__ = \"replica-1\""));
    assert!(files["agent-shard-1-1.alloy"].contains("regex         = \"1\""));
    assert!(files["agent-0.alloy"].contains("regex         = \"0\""));
    let operators = operators_secret(&examples, "monitoring", "agent");
    let problems = check_agent(&alloy, &files, &operators, &dir.join("runs"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Deterministic: a second export is the same, byte for byte.
    let again = agent_operator(
        &[
            "render",
            "-f",
            examples.to_str().expect("utf-8"),
            "--export",
            "again",
        ],
        &dir,
    );
    assert!(again.status.success());
    assert_eq!(tree(&dir.join("again")), tree(&dir.join("exported")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An agent of runtime `agent` with shards, replicas and two Secrets exports natively; an agent
/// the native config cannot express is not exported, named with its object and field, and the
/// exit code says so while the other agent is still written.
#[test]
fn sharded_agents_export_and_inexpressible_ones_fail_alone() {
    let alloy = alloy_binary();
    let dir = scratch("teams");
    let input = dir.join("teams.yaml");
    std::fs::write(&input, TEAMS).expect("write input");
    let out = agent_operator(
        &["render", "-f", "teams.yaml", "--export", "exported"],
        &dir,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("GrafanaAgent team-b/legacy: not exported")
            && stderr.contains("MetricsInstance team-b/raw")
            && stderr.contains("spec.additionalScrapeConfigs")
            && stderr.contains("item [1]: docker_sd_configs is not translated"),
        "{stderr}"
    );
    assert!(!dir.join("exported/team-b/legacy").exists());
    let files = tree(&dir.join("exported/team-a/sharded"));
    let configs: Vec<&str> = files
        .keys()
        .filter(|n| n.ends_with(".alloy"))
        .map(String::as_str)
        .collect();
    assert_eq!(
        configs,
        [
            "sharded-0.alloy",
            "sharded-1.alloy",
            "sharded-logs.alloy",
            "sharded-shard-1-0.alloy",
            "sharded-shard-1-1.alloy",
            "sharded-shard-2-0.alloy",
            "sharded-shard-2-1.alloy",
        ]
    );
    for (shard, file) in [
        (0, "sharded-1.alloy"),
        (1, "sharded-shard-1-0.alloy"),
        (2, "sharded-shard-2-1.alloy"),
    ] {
        let text = &files[file];
        assert!(text.contains("modulus       = 3"), "{file}");
        assert!(
            text.contains(&format!("regex         = \"{shard}\"")),
            "{file}:\n{text}"
        );
    }
    // A tenant's `$(SHARD)` in a Secret's value is data: the export copies it, as the operator
    // stores it, and no config holds it.
    let operators = operators_secret(&input, "team-a", "sharded");
    let problems = check_agent(&alloy, &files, &operators, &dir.join("runs"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let keys: BTreeSet<&str> = documents(&files["secrets.yaml"])[0]["data"]
        .as_object()
        .expect("data")
        .keys()
        .map(String::as_str)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|k| match k {
            "_secrets_team_a_remote_pass" => "pass",
            "_secrets_team_a_remote_user" => "user",
            "_secrets_team_a_token_value" => "token",
            other => panic!("unexpected key {other}"),
        })
        .collect();
    assert_eq!(keys, BTreeSet::from(["pass", "user", "token"]));
    let readme = &files["README.txt"];
    assert!(
        readme.contains("mount: Secret sharded-secrets at /var/lib/grafana-agent/secrets"),
        "{readme}"
    );
    assert!(
        readme.contains("env: HOSTNAME from the pod's spec.nodeName"),
        "{readme}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A clustered agent's StatefulSet pods run one config per cluster (a cluster shares the
/// targets): one file per replica's cluster, each with its own replica label, and README.txt
/// says the cluster's join address is the operator's Service, to be replaced.
#[test]
fn a_clustered_agent_exports_one_file_per_cluster_and_says_how_it_joins() {
    let alloy = alloy_binary();
    let dir = scratch("clustering");
    let input = root().join("testdata/workloads/alloy-clustering/input.yaml");
    let out = agent_operator(
        &[
            "render",
            "-f",
            input.to_str().expect("utf-8"),
            "--export",
            "exported",
        ],
        &dir,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // Two replicas: two clusters, one config each, told apart by the replica label.
    let ha = tree(&dir.join("exported/monitoring/ha"));
    let names: Vec<&str> = ha.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "README.txt",
            "ha-replica-1.alloy",
            "ha.alloy",
            "manifests.yaml",
            "secrets.yaml"
        ]
    );
    assert!(ha["ha.alloy"].contains(r#"__replica__ = "replica-0""#));
    assert!(ha["ha-replica-1.alloy"].contains(r#"__replica__ = "replica-1""#));
    assert!(
        ha["README.txt"].contains("--cluster.join-addresses=ha-replica-1.monitoring.svc:8080"),
        "{}",
        ha["README.txt"]
    );
    let files = tree(&dir.join("exported/monitoring/clustered"));
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "README.txt",
            "clustered.alloy",
            "manifests.yaml",
            "secrets.yaml"
        ]
    );
    let readme = &files["README.txt"];
    assert!(
        readme.contains("3 Alloy instances (pods), each with clustered.alloy")
            && readme.contains("--cluster.join-addresses=clustered-replica-0.monitoring.svc:8080")
            && readme.contains("the headless Service clustered-replica-0 of manifests.yaml"),
        "{readme}"
    );
    for agent in [&ha, &files] {
        let problems = check_manifests(agent);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
    let text = &files["clustered.alloy"];
    assert!(!text.contains("$("), "{text}");
    formatted_as_written(&alloy, text).expect("alloy fmt leaves it");
    let mounts = mount_secret(
        &documents(&files["secrets.yaml"])[0],
        &dir.join("runs/mounts"),
    );
    loads(
        &alloy,
        &on_this_host(text, &mounts),
        &dir.join("runs/clustered"),
    )
    .expect("the clustered config loads");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The objects of a manifests.yaml by `Kind/name`.
fn by_name(manifests: &str) -> BTreeMap<String, Value> {
    documents(manifests)
        .into_iter()
        .map(|d| {
            let name = format!(
                "{}/{}",
                d["kind"].as_str().unwrap_or_default(),
                d["metadata"]["name"].as_str().unwrap_or_default()
            );
            (name, d)
        })
        .collect()
}

fn decoded(data: &Value, key: &str) -> Option<String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data.get(key)?.as_str()?)
        .ok()?;
    String::from_utf8(bytes).ok()
}

/// The absolute paths a config reads or writes (files, directories, globs): every string
/// that starts with `/`, but for the attributes that hold an HTTP path or a separator.
fn paths_read(text: &str) -> BTreeSet<String> {
    let mut paths = BTreeSet::new();
    for line in text.lines() {
        let Some((attribute, value)) = line.split_once('=') else {
            continue;
        };
        let attribute = attribute.trim().trim_matches('"');
        let value = value.trim().trim_end_matches(',');
        let Some(path) = value.strip_prefix("\"/").and_then(|v| v.strip_suffix('"')) else {
            continue;
        };
        if matches!(attribute, "metrics_path" | "separator" | "regex") {
            continue;
        }
        paths.insert(format!("/{path}"));
    }
    paths
}

/// Checks one agent's manifests.yaml against its files: nothing of the operator's is left
/// (owners, labels, the config loader), each workload's pods run a file its config Secret
/// holds (the pod's own where `$(POD_NAME)` names it, expanded from the container's
/// environment as the kubelet does), every path its files read and its storage path are
/// mounted (a key of the assets Secret or an item of it), selectors select the pods, the
/// Services a StatefulSet and a cluster name exist, and the pods run as the ServiceAccount
/// the ClusterRole (examples/15-agent-rbac.yaml's rules) is bound to.
fn check_manifests(files: &BTreeMap<String, String>) -> Vec<String> {
    let mut problems = Vec::new();
    let text = &files["manifests.yaml"];
    for operators in [
        "ownerReferences",
        "app.kubernetes.io/managed-by",
        "operator.agent.grafana.com/",
        "config-loader",
        "config-reloader",
        "ALLOY_DEPLOY_MODE",
        "/var/lib/grafana-agent/config",
    ] {
        if text.contains(operators) {
            problems.push(format!("manifests.yaml holds {operators}"));
        }
    }
    let objects = by_name(text);
    let assets = documents(&files["secrets.yaml"])
        .into_iter()
        .next()
        .expect("secrets.yaml");
    let assets_name = assets["metadata"]["name"].as_str().unwrap_or_default();
    let namespace = assets["metadata"]["namespace"].as_str().unwrap_or_default();
    // The identity and its grant.
    let rbac = documents(
        &std::fs::read_to_string(root().join("examples/15-agent-rbac.yaml"))
            .expect("examples/15-agent-rbac.yaml"),
    );
    let example_rules = &rbac
        .iter()
        .find(|d| d["kind"] == "ClusterRole")
        .expect("the example's ClusterRole")["rules"];
    let accounts: Vec<&Value> = objects
        .values()
        .filter(|o| o["kind"] == "ServiceAccount")
        .collect();
    let [account] = accounts[..] else {
        problems.push(format!("{} ServiceAccounts", accounts.len()));
        return problems;
    };
    let account = account["metadata"]["name"].as_str().unwrap_or_default();
    let role = objects
        .values()
        .find(|o| o["kind"] == "ClusterRole")
        .expect("a ClusterRole");
    if &role["rules"] != example_rules {
        problems.push(format!(
            "ClusterRole rules {} differ from examples/15-agent-rbac.yaml's {example_rules}",
            role["rules"]
        ));
    }
    let binding = objects
        .values()
        .find(|o| o["kind"] == "ClusterRoleBinding")
        .expect("a ClusterRoleBinding");
    if binding["roleRef"]["name"] != role["metadata"]["name"]
        || binding["subjects"][0]["name"] != account
        || binding["subjects"][0]["namespace"] != namespace
    {
        problems.push(format!(
            "ClusterRoleBinding {binding} does not grant {account}"
        ));
    }
    let services: Vec<&Value> = objects
        .values()
        .filter(|o| o["kind"] == "Service")
        .collect();
    let mut ran = BTreeSet::new();
    for workload in objects.values().filter(|o| {
        matches!(
            o["kind"].as_str(),
            Some("StatefulSet" | "DaemonSet" | "Deployment")
        )
    }) {
        let kind = workload["kind"].as_str().unwrap_or_default();
        let name = workload["metadata"]["name"].as_str().unwrap_or_default();
        let at = format!("{kind} {name}");
        let spec = &workload["spec"];
        let pod = &spec["template"]["spec"];
        let labels = &spec["template"]["metadata"]["labels"];
        let selected = |selector: &Value| {
            selector
                .as_object()
                .is_some_and(|s| s.iter().all(|(k, v)| labels.get(k) == Some(v)))
        };
        if !selected(&spec["selector"]["matchLabels"]) {
            problems.push(format!("{at}: its selector does not select its pods"));
        }
        if pod["serviceAccountName"] != account {
            problems.push(format!("{at}: runs as {}", pod["serviceAccountName"]));
        }
        if kind == "StatefulSet" {
            let governing = spec["serviceName"].as_str().unwrap_or_default();
            if !services
                .iter()
                .any(|s| s["metadata"]["name"] == governing && selected(&s["spec"]["selector"]))
            {
                problems.push(format!("{at}: no Service {governing} selects its pods"));
            }
        }
        let containers = pod["containers"].as_array().cloned().unwrap_or_default();
        let Some(alloy) = containers.iter().find(|c| c["name"] == "grafana-agent") else {
            problems.push(format!("{at}: no Alloy container"));
            continue;
        };
        let args: Vec<&str> = alloy["args"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if let Some(join) = args
            .iter()
            .find_map(|a| a.strip_prefix("--cluster.join-addresses="))
        {
            let peers = join.split('.').next().unwrap_or_default();
            if join != format!("{peers}.{namespace}.svc:8080")
                || !services.iter().any(|s| {
                    s["metadata"]["name"] == peers
                        && s["spec"]["clusterIP"] == "None"
                        && selected(&s["spec"]["selector"])
                })
            {
                problems.push(format!(
                    "{at}: joins {join}, no headless Service of its pods"
                ));
            }
        }
        // What the kubelet expands: `$(NAME)` of a variable of the container's environment.
        let env: BTreeMap<&str, &Value> = alloy["env"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| Some((v["name"].as_str()?, v)))
            .collect();
        let pods: Vec<String> = match kind {
            "StatefulSet" => (0..spec["replicas"].as_i64().unwrap_or(1))
                .map(|i| format!("{name}-{i}"))
                .collect(),
            _ => vec![format!("{name}-any")],
        };
        let volumes: BTreeMap<&str, &Value> = pod["volumes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| Some((v["name"].as_str()?, v)))
            .collect();
        let claims: BTreeSet<&str> = spec["volumeClaimTemplates"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["metadata"]["name"].as_str())
            .collect();
        let mounts: Vec<(&str, &Value)> = alloy["volumeMounts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| Some((m["mountPath"].as_str()?, m)))
            .collect();
        // The mount `path` is under, and the path under it.
        let mount_of = |path: &str| {
            mounts.iter().find_map(|(at, m)| {
                let rest = path.strip_prefix(at)?;
                (rest.is_empty() || rest.starts_with('/'))
                    .then(|| (*m, rest.trim_start_matches('/').to_owned()))
            })
        };
        for pod_name in &pods {
            let Some(file) = args.get(1) else {
                problems.push(format!("{at}: no file in {args:?}"));
                continue;
            };
            let mut file = (*file).to_owned();
            if file.contains("$(POD_NAME)") {
                if env
                    .get("POD_NAME")
                    .map(|v| &v["valueFrom"]["fieldRef"]["fieldPath"])
                    != Some(&Value::from("metadata.name"))
                {
                    problems.push(format!("{at}: $(POD_NAME) is no variable of its container"));
                }
                file = file.replace("$(POD_NAME)", pod_name);
            }
            if args.first() != Some(&"run") || file.contains("$(") {
                problems.push(format!("{at}: runs {args:?}"));
                continue;
            }
            let Some((mount, key)) = mount_of(&file) else {
                problems.push(format!(
                    "{at}: pod {pod_name} runs {file}, which is not mounted"
                ));
                continue;
            };
            let volume = mount["name"].as_str().and_then(|n| volumes.get(n));
            let secret = volume
                .and_then(|v| v["secret"]["secretName"].as_str())
                .and_then(|s| objects.get(&format!("Secret/{s}")));
            let Some(text) = secret.and_then(|s| decoded(&s["data"], &key)) else {
                problems.push(format!(
                    "{at}: pod {pod_name} runs {file}, which no Secret of manifests.yaml holds"
                ));
                continue;
            };
            if files.get(&key) != Some(&text) {
                problems.push(format!("{at}: {key} is not the exported file {key}"));
            }
            ran.insert(key.clone());
            let storage = args
                .iter()
                .find_map(|a| a.strip_prefix("--storage.path="))
                .map(str::to_owned);
            for path in paths_read(&text).into_iter().chain(storage) {
                let Some((mount, rest)) = mount_of(&path) else {
                    problems.push(format!("{at}: {key} reads {path}, which is not mounted"));
                    continue;
                };
                let volume_name = mount["name"].as_str().unwrap_or_default();
                let Some(volume) = volumes.get(volume_name) else {
                    if !claims.contains(volume_name) {
                        problems.push(format!("{at}: {path}: no volume {volume_name}"));
                    }
                    continue;
                };
                // A file of the assets Secret: a key of secrets.yaml, as is or as an item.
                if volume["secret"]["secretName"] == assets_name {
                    let stored = match volume["secret"]["items"].as_array() {
                        None => Some(rest.clone()),
                        Some(items) => items
                            .iter()
                            .find(|i| i["path"] == rest.as_str())
                            .and_then(|i| i["key"].as_str())
                            .map(str::to_owned),
                    };
                    if stored.is_none_or(|k| assets["data"].get(&k).is_none()) {
                        problems.push(format!(
                            "{at}: {key} reads {path}, which {assets_name} does not hold"
                        ));
                    }
                }
            }
        }
    }
    let exported: BTreeSet<String> = files
        .keys()
        .filter(|n| n.ends_with(".alloy"))
        .cloned()
        .collect();
    if ran != exported {
        problems.push(format!("pods run {ran:?}, exported {exported:?}"));
    }
    let readme = &files["README.txt"];
    if !readme.contains("kubectl apply -f manifests.yaml") {
        problems.push(format!(
            "README.txt does not say to apply manifests.yaml:\n{readme}"
        ));
    }
    problems
}

/// kubectl of `env` with `args`; its stdout, or a panic naming its stderr. A warning fails
/// too: what a team applies must go in cleanly.
fn kubectl(env: &testenv::TestEnv, args: &[&str]) -> String {
    let out = env.kubectl().args(args).output().expect("kubectl");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "kubectl {args:?}:\n{stderr}");
    assert!(
        !stderr.contains("Warning"),
        "kubectl {args:?} warned:\n{stderr}"
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The exported manifests of the examples' agent (2 x 2 metrics StatefulSets, logs,
/// integrations DaemonSet and Deployment), the sharded team's (3 x 2 with credentials) and
/// the clustering case's (one cluster of 3, two clusters of one) go into the real control
/// plane with `kubectl apply` as README.txt says, the controllers create every StatefulSet's
/// and the Deployment's pods (the ServiceAccount exists, the templates pass admission), and
/// applied again they would change nothing.
#[test]
fn exported_manifests_apply_on_the_control_plane() {
    let dir = scratch("apply");
    std::fs::write(dir.join("teams.yaml"), TEAMS).expect("write input");
    let inputs = [
        root().join("examples"),
        dir.join("teams.yaml"),
        root().join("testdata/workloads/alloy-clustering/input.yaml"),
    ];
    for input in &inputs {
        // team-b/legacy fails alone (see above); the others are written.
        agent_operator(
            &[
                "render",
                "-f",
                input.to_str().expect("utf-8"),
                "--export",
                "exported",
            ],
            &dir,
        );
    }
    let agents = [
        ("monitoring", "agent"),
        ("team-a", "sharded"),
        ("monitoring", "ha"),
        ("monitoring", "clustered"),
    ];
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let env = runtime
        .block_on(testenv::TestEnv::start(testenv::Backend::ControlPlane))
        .expect("the control plane (scripts/control-plane)");
    for namespace in ["monitoring", "team-a"] {
        kubectl(&env, &["create", "namespace", namespace]);
    }
    let mut pods = BTreeSet::new();
    for (namespace, agent) in agents {
        let at = dir.join("exported").join(namespace).join(agent);
        for file in ["secrets.yaml", "manifests.yaml"] {
            let path = at.join(file);
            kubectl(&env, &["apply", "-f", path.to_str().expect("utf-8")]);
        }
        let objects = by_name(&std::fs::read_to_string(at.join("manifests.yaml")).expect("read"));
        for (name, object) in &objects {
            if let Some(pod) = name.strip_prefix("StatefulSet/") {
                for i in 0..object["spec"]["replicas"].as_i64().unwrap_or(1) {
                    pods.insert(format!("{namespace}/{pod}-{i}"));
                }
            }
        }
        // Applied again, nothing would change (`kubectl diff` is the server's dry run; a
        // second `apply` reports StatefulSets "configured" all the same: their claim templates
        // are a list kubectl replaces whole, and the server defaults fields in them).
        let diff = env
            .kubectl()
            .args(["diff", "-f"])
            .arg(at.join("manifests.yaml"))
            .output()
            .expect("kubectl diff");
        assert!(
            diff.status.success(),
            "{namespace}/{agent}: applied again, it would change ({}):\n{}{}",
            diff.status,
            String::from_utf8_lossy(&diff.stdout),
            String::from_utf8_lossy(&diff.stderr)
        );
    }
    assert!(
        pods.contains("monitoring/agent-shard-1-1") && pods.contains("monitoring/ha-replica-1-0")
    );
    // The Deployment's pod: made by its ReplicaSet, named at random.
    let deployment_pod = "monitoring/agent-integrations-deploy-";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    loop {
        let listed = kubectl(
            &env,
            &[
                "get",
                "pods",
                "-A",
                "-o",
                "jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{\"\\n\"}{end}",
            ],
        );
        let listed: BTreeSet<&str> = listed.lines().collect();
        let missing: Vec<&String> = pods
            .iter()
            .filter(|p| !listed.contains(p.as_str()))
            .collect();
        let deployment = listed.iter().any(|p| p.starts_with(deployment_pod));
        if missing.is_empty() && deployment {
            break;
        }
        if std::time::Instant::now() > deadline {
            let events = kubectl(&env, &["get", "events", "-A"]);
            panic!(
                "pods not created: {missing:?}{}\n{events}",
                if deployment {
                    ""
                } else {
                    " and the Deployment's"
                }
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    // The pods run as exported: Alloy alone, its file named through the pod's own name.
    let args = kubectl(
        &env,
        &[
            "-n",
            "monitoring",
            "get",
            "pod",
            "agent-shard-1-1",
            "-o",
            "jsonpath={.spec.containers[*].name} {.spec.containers[0].args}",
        ],
    );
    assert!(
        args.starts_with("grafana-agent [\"run\",\"/etc/alloy/$(POD_NAME).alloy\""),
        "{args}"
    );
    drop(env);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Agents whose pods the export cannot run as planned: `spec.containers` replacing Alloy's
/// arguments (the config file is no longer among them) and a volume of `spec.volumes` named
/// like the export's config volume. Each fails alone, naming the workload and what is in the
/// way; a third agent with a sidecar and an init container of its own is exported with both
/// kept, only the operator's loader gone.
const OBSTACLES: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: own-args, namespace: ops}
spec:
  containers:
  - name: grafana-agent
    args: [run, /etc/mine.alloy]
  metrics: {instanceSelector: {matchLabels: {agent: ops}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: own-volume, namespace: ops}
spec:
  volumes:
  - {name: alloy-config, emptyDir: {}}
  metrics: {instanceSelector: {matchLabels: {agent: ops}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: extras, namespace: ops}
spec:
  serviceAccountName: ops-agent
  initContainers:
  - {name: warm-up, image: busybox, args: ["true"]}
  containers:
  - {name: proxy, image: busybox}
  metrics: {instanceSelector: {matchLabels: {agent: ops}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: main, namespace: ops, labels: {agent: ops}}
spec:
  remoteWrite: [{url: http://mimir/api/v1/push}]
"#;

#[test]
fn agents_whose_pods_cannot_run_the_export_fail_alone() {
    let dir = scratch("obstacles");
    std::fs::write(dir.join("ops.yaml"), OBSTACLES).expect("write input");
    let out = agent_operator(&["render", "-f", "ops.yaml", "--export", "exported"], &dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "GrafanaAgent ops/own-args: not exported: manifests.yaml: StatefulSet own-args: container grafana-agent does not run /var/lib/grafana-agent/config/agent.yml"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "GrafanaAgent ops/own-volume: not exported: manifests.yaml: StatefulSet own-volume: volume name alloy-config is already used in its pod"
        ),
        "{stderr}"
    );
    assert!(!dir.join("exported/ops/own-args").exists());
    assert!(!dir.join("exported/ops/own-volume").exists());
    let files = tree(&dir.join("exported/ops/extras"));
    let problems = check_manifests(&files);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let objects = by_name(&files["manifests.yaml"]);
    let pod = &objects["StatefulSet/extras"]["spec"]["template"]["spec"];
    let names = |list: &Value| -> Vec<String> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(names(&pod["initContainers"]), ["warm-up"]);
    assert_eq!(names(&pod["containers"]), ["grafana-agent", "proxy"]);
    assert_eq!(pod["serviceAccountName"], "ops-agent");
    assert_eq!(
        objects["ServiceAccount/ops-agent"]["metadata"]["namespace"],
        "ops"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
