//! The install manifests on the real control plane (etcd + kube-apiserver +
//! kube-controller-manager, `scripts/control-plane`, with the OwnerReferencesPermissionEnforcement
//! admission plugin): `deploy/` and the single-namespace overlay apply cleanly, and the operator,
//! started with the Deployment's own arguments and authenticated as its ServiceAccount with
//! exactly the shipped RBAC, runs a scenario that exercises every kind of write it makes with no
//! Forbidden response; the API server's audit log of that run shows that every granted rule was
//! used, except the rules whose comment in the manifest says why no request of ours shows it
//! (a comment line starting with `Not in the audit log:`). And our CRDs install next to
//! Alloy's PodLogs CRD and prometheus-operator's CRDs as docs/getting-started.md says
//! ([`our_crds_install_next_to_alloys_and_prometheus_operators`]).
//!
//! Each test starts its own control plane (not testenv's shared one): a fresh audit log that
//! holds only its scenario, and CRDs no other test installs first.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::Value;

const OPERATOR_USER: &str = "system:serviceaccount:agent-operator:grafana-agent-operator";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch_dir(install: &str) -> PathBuf {
    let name: String = install
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let dir = std::env::temp_dir().join(format!(
        "agent-operator-install-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A control plane of our own, stopped (by closing its standard input) when dropped.
struct ControlPlane {
    child: Child,
    stdin: Option<ChildStdin>,
    kubeconfig: PathBuf,
    audit_log: PathBuf,
}

impl ControlPlane {
    fn start(dir: &Path) -> ControlPlane {
        let kubeconfig = dir.join("kubeconfig");
        let audit_log = dir.join("audit.log");
        let mut child = Command::new(testenv::control_plane_script())
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .arg("--audit-log")
            .arg(&audit_log)
            .arg("--stop-on-eof")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("scripts/control-plane");
        let stdin = child.stdin.take();
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the control plane's first line");
        assert!(
            line.starts_with("control-plane serving at"),
            "scripts/control-plane did not start: {line:?}"
        );
        ControlPlane {
            child,
            stdin,
            kubeconfig,
            audit_log,
        }
    }

    fn operator_kubeconfig(&self) -> PathBuf {
        let mut path = self.kubeconfig.clone().into_os_string();
        path.push(".operator");
        path.into()
    }

    fn kubectl(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let binary = std::env::var_os("KUBECTL").unwrap_or_else(|| "kubectl".into());
        let mut child = Command::new(&binary)
            .args(args)
            .env("KUBECONFIG", &self.kubeconfig)
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("kubectl is required by this test ({binary:?}): {e}"));
        let mut pipe = child.stdin.take().expect("stdin");
        if let Some(text) = stdin {
            pipe.write_all(text.as_bytes())
                .expect("write kubectl stdin");
        }
        drop(pipe);
        child.wait_with_output().expect("kubectl")
    }

    /// kubectl that must succeed without a warning; returns its stdout.
    fn ok(&self, args: &[&str], stdin: Option<&str>) -> String {
        let out = self.kubectl(args, stdin);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "kubectl {args:?} failed:\n{stderr}");
        assert!(
            !stderr.to_lowercase().contains("warning"),
            "kubectl {args:?} warned:\n{stderr}"
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    }

    /// Polls until `kubectl get` of `args` succeeds and its output satisfies `check`.
    fn wait_for(&self, what: &str, args: &[&str], check: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let out = self.kubectl(args, None);
            if out.status.success() && check(&String::from_utf8_lossy(&out.stdout)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}{}",
                self.refusals()
            );
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// The operator's log lines about refused requests, for a timeout's message: a missing rule
    /// shows as an object that never changes.
    fn refusals(&self) -> String {
        let log = self.audit_log.with_file_name("operator.log");
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let refused: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("forbidden") || l.contains("Forbidden"))
            .collect();
        if refused.is_empty() {
            String::new()
        } else {
            format!("; the operator was refused:\n{}", refused.join("\n"))
        }
    }

    fn wait_gone(&self, what: &str, args: &[&str]) {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let out = self.kubectl(args, None);
            if !out.status.success() && String::from_utf8_lossy(&out.stderr).contains("NotFound") {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what} to go{}",
                self.refusals()
            );
            std::thread::sleep(Duration::from_millis(300));
        }
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// The objects of a YAML stream, keyed by kind, namespace and name.
fn objects(stream: &str) -> BTreeMap<String, Value> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(stream).expect("a YAML stream");
    docs.into_iter()
        .filter(|d| !d.is_null())
        .map(|d| {
            let key = format!(
                "{}/{}/{}",
                d["kind"].as_str().unwrap_or_default(),
                d["metadata"]["namespace"].as_str().unwrap_or_default(),
                d["metadata"]["name"].as_str().unwrap_or_default()
            );
            (key, d)
        })
        .collect()
}

type Grant = (String, String, String);

/// (apiGroup, resource[/subresource], verb) for every verb one rule grants.
fn grants(rule: &Value) -> BTreeSet<Grant> {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut granted = BTreeSet::new();
    for group in strings(&rule["apiGroups"]) {
        for resource in strings(&rule["resources"]) {
            for verb in strings(&rule["verbs"]) {
                granted.insert((group.clone(), resource.clone(), verb));
            }
        }
    }
    granted
}

/// Every grant of a Role or ClusterRole.
fn granted(role: &Value) -> BTreeSet<Grant> {
    role["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .flat_map(grants)
        .collect()
}

const NOT_IN_AUDIT_LOG: &str = "# Not in the audit log:";

/// The grants of the rules in a manifest file (its Roles and ClusterRoles) whose comment (the comment lines right above the
/// rule) has a line starting with [`NOT_IN_AUDIT_LOG`]: read from the file, since kustomize
/// drops comments. Rules are `  - apiGroups:` items, in the file's order.
fn explained_as_unused(file: &str) -> BTreeSet<Grant> {
    let text = std::fs::read_to_string(root().join(file)).expect("the manifest");
    let rules: Vec<Value> = serde_saphyr::from_multiple::<Value>(&text)
        .expect("a YAML stream")
        .into_iter()
        .filter_map(|d| d["rules"].as_array().cloned())
        .flatten()
        .collect();
    let mut comment = Vec::new();
    let mut marked = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') {
            comment.push(trimmed);
        } else if trimmed.starts_with("- apiGroups:") {
            marked.push(comment.iter().any(|c| c.starts_with(NOT_IN_AUDIT_LOG)));
            comment.clear();
        } else {
            comment.clear();
        }
    }
    assert_eq!(
        marked.len(),
        rules.len(),
        "{file}: every rule starts with `- apiGroups:`"
    );
    rules
        .iter()
        .zip(marked)
        .filter(|(_, marked)| *marked)
        .flat_map(|(rule, _)| grants(rule))
        .collect()
}

/// The operator's requests in the audit log: (apiGroup, resource[/subresource], verb, code). A
/// server-side apply that created its object (201) needed `create` as well as `patch`.
fn operator_requests(audit_log: &Path) -> Vec<(String, String, String, i64)> {
    let text = std::fs::read_to_string(audit_log).expect("audit log");
    let mut requests = Vec::new();
    for line in text.lines() {
        let event: Value = serde_json::from_str(line).expect("an audit event per line");
        // A watch is complete only when it ends: the operator's last watches end as it stops,
        // and kube-apiserver may write those events after the test has read the log. A watch
        // whose response started was allowed and used.
        let counted = match event["stage"].as_str() {
            Some("ResponseComplete") => true,
            Some("ResponseStarted") => event["verb"] == "watch",
            _ => false,
        };
        if event["user"]["username"] != OPERATOR_USER || !counted {
            continue;
        }
        let object = &event["objectRef"];
        let Some(resource) = object["resource"].as_str() else {
            continue; // discovery and /version: non-resource URLs every user may read
        };
        let resource = match object["subresource"].as_str() {
            Some(sub) => format!("{resource}/{sub}"),
            None => resource.to_owned(),
        };
        let group = object["apiGroup"].as_str().unwrap_or_default().to_owned();
        let code = event["responseStatus"]["code"].as_i64().unwrap_or_default();
        let verb = event["verb"].as_str().unwrap_or_default().to_owned();
        if verb == "patch" && code == 201 {
            requests.push((group.clone(), resource.clone(), "create".to_owned(), code));
        }
        requests.push((group, resource, verb, code));
    }
    requests
}

/// The operator process, with its output in a file; SIGTERM and wait on drop.
struct Operator {
    child: Child,
    log: PathBuf,
}

impl Operator {
    fn start(args: &[String], kubeconfig: &Path, dir: &Path) -> Operator {
        let log = dir.join("operator.log");
        let file = std::fs::File::create(&log).expect("operator log");
        let child = Command::new(env!("CARGO_BIN_EXE_agent-operator"))
            .args(args)
            .env("KUBECONFIG", kubeconfig)
            .stdout(file.try_clone().expect("log file"))
            .stderr(file)
            .spawn()
            .expect("agent-operator run");
        Operator { child, log }
    }

    /// Stops it as the kubelet would (SIGTERM) and returns everything it printed.
    fn stop(mut self) -> String {
        let pid = self.child.id().to_string();
        let status = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(status.success());
        let exit = self.child.wait().expect("wait for the operator");
        let output = std::fs::read_to_string(&self.log).expect("operator log");
        assert!(exit.success(), "the operator exited with {exit}:\n{output}");
        output
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A node for the kubelet Service's Endpoints (the control plane has no kubelet to register one).
const NODE: &str = r#"
apiVersion: v1
kind: Node
metadata:
  name: node-a
status:
  addresses:
    - type: InternalIP
      address: 10.1.0.1
  daemonEndpoints:
    kubeletEndpoint:
      Port: 10250
"#;

/// A ServiceMonitor with its CA in a ConfigMap (the operator reads ConfigMap values with get),
/// and one with an invalid regex (rejected: a Warning Event on it).
const MORE_MONITORS: &str = r#"
apiVersion: v1
kind: ConfigMap
metadata:
  name: cart-ca
  namespace: shop
data:
  ca.crt: not-a-real-certificate
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: cart
  namespace: shop
  labels:
    instance: primary
spec:
  selector:
    matchLabels:
      app: cart
  endpoints:
    - port: https-metrics
      scheme: https
      tlsConfig:
        ca:
          configMap:
            name: cart-ca
            key: ca.crt
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: broken
  namespace: shop
  labels:
    instance: primary
spec:
  selector:
    matchLabels:
      app: broken
  endpoints:
    - port: http-metrics
      metricRelabelings:
        - sourceLabels: [__name__]
          regex: "go_(gc"
          action: drop
"#;

/// One way to install the operator, and where its scenario's objects live.
struct Install {
    /// The kustomization, applied with `kubectl apply -k`.
    kustomization: &'static str,
    /// The files holding its Roles and ClusterRoles (for the comments kustomize drops).
    rbac_files: &'static [&'static str],
    /// Where the GrafanaAgent and its instances live.
    agents: &'static str,
    /// Where the monitored applications' monitors, PodLogs and Secrets live.
    apps: &'static str,
    /// The namespace of the kubelet Service (`--kubelet-service`).
    kubelet: &'static str,
}

const CLUSTER_WIDE: Install = Install {
    kustomization: "deploy/",
    rbac_files: &[
        "deploy/rbac/cluster/clusterrole.yaml",
        "deploy/operator/leader-election.yaml",
    ],
    agents: "monitoring",
    apps: "shop",
    kubelet: "default",
};

/// `--namespace=agent-operator`: every input in the operator's own namespace.
const SINGLE_NAMESPACE: Install = Install {
    kustomization: "deploy/overlays/single-namespace",
    rbac_files: &[
        "deploy/overlays/single-namespace/rbac.yaml",
        "deploy/operator/leader-election.yaml",
    ],
    agents: "agent-operator",
    apps: "agent-operator",
    kubelet: "agent-operator",
};

/// The bundled examples and [`MORE_MONITORS`], moved to `install`'s namespaces.
fn inputs(install: &Install) -> String {
    let mut text = String::new();
    for file in [
        "20-metrics.yaml",
        "30-logs.yaml",
        "10-grafana-agent.yaml",
        "40-integrations.yaml",
    ] {
        text.push_str(
            &std::fs::read_to_string(root().join("examples").join(file)).expect("example"),
        );
        text.push_str("\n---\n");
    }
    text.push_str(MORE_MONITORS);
    text.replace(
        "namespace: monitoring",
        &format!("namespace: {}", install.agents),
    )
    .replace("monitoring/primary", &format!("{}/primary", install.agents))
    .replace("namespace: shop", &format!("namespace: {}", install.apps))
    .replace(
        "/shop/redis-auth/",
        &format!("/{}/redis-auth/", install.apps),
    )
}

#[test]
fn the_operator_runs_with_exactly_the_shipped_rbac_and_uses_all_of_it() {
    runs_with_exactly_its_rbac(&CLUSTER_WIDE);
}

#[test]
fn single_namespace_mode_runs_with_exactly_its_rbac_and_uses_all_of_it() {
    runs_with_exactly_its_rbac(&SINGLE_NAMESPACE);
}

fn runs_with_exactly_its_rbac(install: &Install) {
    let Install {
        agents,
        apps,
        kubelet,
        ..
    } = *install;
    let dir = scratch_dir(install.kustomization);
    let cp = ControlPlane::start(&dir);

    // The install, as a user runs it.
    cp.ok(
        &[
            "apply",
            "--server-side",
            "-f",
            "examples/00-namespaces.yaml",
        ],
        None,
    );
    cp.ok(
        &["apply", "--server-side", "-k", install.kustomization],
        None,
    );
    cp.ok(
        &[
            "wait",
            "--for",
            "condition=established",
            "--timeout=60s",
            "crd",
            "--all",
        ],
        None,
    );
    // The instance selects monitors in namespaces labelled team=shop.
    cp.ok(
        &["label", "namespace", apps, "team=shop", "--overwrite"],
        None,
    );
    cp.ok(&["apply", "--server-side", "-f", "-"], Some(NODE));

    // The operator with the Deployment's own arguments (listening on loopback instead of every
    // interface) and the ServiceAccount's identity.
    let manifests = objects(&cp.ok(&["kustomize", install.kustomization], None));
    let deployment = &manifests["Deployment/agent-operator/grafana-agent-operator"];
    let args: Vec<String> = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .map(|a| match a.split_once('=') {
            Some((flag, _)) if flag.ends_with("-listen-address") => format!("{flag}=127.0.0.1:0"),
            _ => a.to_owned(),
        })
        .collect();
    let operator = Operator::start(&args, &cp.operator_kubeconfig(), &dir);

    // Everything the operator writes, created ...
    cp.ok(
        &["apply", "--server-side", "-f", "-"],
        Some(&inputs(install)),
    );
    for object in [
        "secret/agent-config",
        "secret/agent-secrets",
        "service/agent-operated",
        "statefulset/agent-shard-1",
        "daemonset/agent-logs",
        "deployment/agent-integrations-deploy",
        "role/agent-config-loader",
        "rolebinding/agent-config-loader",
    ] {
        cp.wait_for(object, &["-n", agents, "get", object], |_| true);
    }
    cp.wait_for(
        "the kubelet Endpoints",
        &["-n", kubelet, "get", "endpoints", "kubelet", "-o", "json"],
        |out| out.contains("10.1.0.1"),
    );
    cp.wait_for(
        "the kubelet EndpointSlice",
        &["-n", kubelet, "get", "endpointslice", "kubelet-ipv4"],
        |_| true,
    );
    cp.wait_for(
        "the agent's status",
        &[
            "-n",
            agents,
            "get",
            "grafanaagent",
            "agent",
            "-o",
            "jsonpath={.status.conditions}",
        ],
        |out| out.contains("Reconciled"),
    );
    cp.wait_for(
        "a Warning Event on the broken ServiceMonitor",
        &["-n", apps, "get", "events.events.k8s.io", "-o", "json"],
        |out| out.contains("broken") && out.contains("InvalidConfiguration"),
    );

    // ... changed (an edited monitor, a changed referenced Secret) ...
    cp.ok(
        &[
            "-n",
            apps,
            "patch",
            "servicemonitor",
            "checkout",
            "--type=json",
            "-p",
            r#"[{"op": "replace", "path": "/spec/endpoints/0/interval", "value": "45s"}]"#,
        ],
        None,
    );
    cp.ok(
        &[
            "-n",
            agents,
            "patch",
            "secret",
            "mimir-credentials",
            "--type=merge",
            "-p",
            r#"{"stringData": {"username": "654321"}}"#,
        ],
        None,
    );
    let config = |cp: &ControlPlane| {
        let out = cp.ok(
            &[
                "-n",
                agents,
                "get",
                "secret",
                "agent-config",
                "-o",
                "jsonpath={.data.agent\\.yml}",
            ],
            None,
        );
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(out.trim())
            .expect("base64 Secret data");
        String::from_utf8(bytes).unwrap_or_default()
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    while !(config(&cp).contains("45s") && config(&cp).contains("654321")) {
        assert!(
            Instant::now() < deadline,
            "the config did not follow the edits"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    // Edits that each write only the config Secret: `Applied` says so once, not at each edit
    // (the same outcome). After the shards change below (another outcome), one more such edit
    // is announced again with the same note, which continues that Event's series (the `patch`
    // on events the RBAC grants).
    let edit_interval = |cp: &ControlPlane, interval: &str| {
        cp.ok(
            &[
                "-n",
                apps,
                "patch",
                "servicemonitor",
                "checkout",
                "--type=json",
                "-p",
                &format!(
                    r#"[{{"op": "replace", "path": "/spec/endpoints/0/interval", "value": "{interval}"}}]"#
                ),
            ],
            None,
        );
        let deadline = Instant::now() + Duration::from_secs(90);
        while !config(cp).contains(interval) {
            assert!(
                Instant::now() < deadline,
                "the config did not follow the interval edit to {interval}"
            );
            std::thread::sleep(Duration::from_millis(300));
        }
    };
    edit_interval(&cp, "50s");
    edit_interval(&cp, "55s");

    // ... and pruned: one shard fewer, no logs, no integrations Deployment, no metrics at all.
    cp.ok(
        &[
            "-n",
            agents,
            "patch",
            "grafanaagent",
            "agent",
            "--type=merge",
            "-p",
            r#"{"spec": {"metrics": {"shards": 1}}}"#,
        ],
        None,
    );
    cp.wait_gone(
        "statefulset agent-shard-1",
        &["-n", agents, "get", "statefulset", "agent-shard-1"],
    );
    edit_interval(&cp, "60s");
    cp.ok(&["-n", agents, "delete", "logsinstance", "--all"], None);
    cp.wait_gone(
        "daemonset agent-logs",
        &["-n", agents, "get", "daemonset", "agent-logs"],
    );
    cp.wait_gone(
        "secret agent-logs-config",
        &["-n", agents, "get", "secret", "agent-logs-config"],
    );
    cp.ok(&["-n", apps, "delete", "integration", "redis"], None);
    cp.wait_gone(
        "deployment agent-integrations-deploy",
        &[
            "-n",
            agents,
            "get",
            "deployment",
            "agent-integrations-deploy",
        ],
    );
    cp.ok(&["-n", agents, "delete", "metricsinstance", "--all"], None);
    cp.wait_gone(
        "service agent-operated",
        &["-n", agents, "get", "service", "agent-operated"],
    );
    // No config left (the node_exporter DaemonSet was the last): no grant to read one.
    cp.ok(
        &["-n", agents, "delete", "integration", "node-exporter"],
        None,
    );
    for object in ["role", "rolebinding"] {
        cp.wait_gone(
            &format!("{object} agent-config-loader"),
            &["-n", agents, "get", object, "agent-config-loader"],
        );
    }
    // The node goes: the kubelet Service's EndpointSlice for its address family with it.
    cp.ok(&["delete", "node", "node-a"], None);
    cp.wait_gone(
        "the kubelet EndpointSlice",
        &["-n", kubelet, "get", "endpointslice", "kubelet-ipv4"],
    );
    // The agent goes: the garbage collector removes what it owned.
    cp.ok(
        &[
            "-n",
            agents,
            "delete",
            "grafanaagent",
            "agent",
            "--wait=false",
        ],
        None,
    );
    cp.wait_gone(
        "secret agent-config",
        &["-n", agents, "get", "secret", "agent-config"],
    );
    cp.wait_gone(
        "statefulset agent",
        &["-n", agents, "get", "statefulset", "agent"],
    );

    // A clean stop releases the Lease.
    let output = operator.stop();
    for forbidden in ["Forbidden", "forbidden", " 403"] {
        assert!(
            !output.contains(forbidden),
            "the operator was refused something:\n{output}"
        );
    }

    let requests = operator_requests(&cp.audit_log);
    let refused: Vec<_> = requests.iter().filter(|r| r.3 == 403).collect();
    assert!(refused.is_empty(), "Forbidden requests: {refused:?}");
    let used: BTreeSet<Grant> = requests
        .into_iter()
        .map(|(group, resource, verb, _)| (group, resource, verb))
        .collect();
    let granted_rules: BTreeSet<Grant> = manifests
        .values()
        .filter(|o| matches!(o["kind"].as_str(), Some("Role" | "ClusterRole")))
        .flat_map(granted)
        .collect();
    let explained: BTreeSet<Grant> = install
        .rbac_files
        .iter()
        .flat_map(|file| explained_as_unused(file))
        .collect();
    // Printed, so a run's output says which rules it took on trust.
    println!(
        "{}: granted, not in the audit log by their comment: {explained:?}",
        install.kustomization
    );
    let unused: Vec<_> = granted_rules
        .difference(&used)
        .filter(|rule| !explained.contains(*rule))
        .collect();
    assert!(unused.is_empty(), "granted but never used: {unused:?}");
    let ungranted: Vec<_> = used.difference(&granted_rules).collect();
    assert!(ungranted.is_empty(), "used without a rule: {ungranted:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The namespaces and the logs pipeline of [`our_crds_install_next_to_alloys_and_prometheus_operators`]:
/// the PodLogs' Pods live in namespaces labelled `team=apps`.
const LOGS_AGENT: &str = r#"
apiVersion: v1
kind: Namespace
metadata:
  name: monitoring
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels: {team: apps}
---
apiVersion: v1
kind: Namespace
metadata:
  name: ops
  labels: {team: ops}
"#;

/// Written for Alloy's `loki.source.podlogs` (v1alpha2: no stages, a label namespace selector).
const ALLOY_POD_LOGS: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha2
kind: PodLogs
metadata:
  name: alloy-made
  namespace: monitoring
spec:
  selector:
    matchLabels: {app: web}
  namespaceSelector:
    matchLabels: {team: apps}
  relabelings:
  - sourceLabels: [__meta_kubernetes_pod_node_name]
    targetLabel: node
"#;

/// A GrafanaAgent and LogsInstance, a v1alpha1 PodLogs with stages and a second v1alpha2 one.
const LOGS_INPUTS: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata:
  name: agent
  namespace: monitoring
spec:
  logs:
    instanceSelector: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata:
  name: primary
  namespace: monitoring
spec:
  clients:
  - url: http://loki.monitoring.svc:3100/loki/api/v1/push
  podLogsSelector: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata:
  name: staged
  namespace: monitoring
spec:
  selector:
    matchLabels: {app: api}
  jobLabel: app
  namespaceSelector:
    matchNames: [shop]
  pipelineStages:
  - cri: {}
---
apiVersion: monitoring.grafana.com/v1alpha2
kind: PodLogs
metadata:
  name: every-namespace
  namespace: monitoring
spec:
  selector:
    matchLabels: {logs: "on"}
  namespaceSelector:
    matchLabels: {}
"#;

/// `.spec` of PodLogs `monitoring/NAME`, read as `version`: the apiVersion the API server
/// answers with, and the spec.
fn pod_logs_as(cp: &ControlPlane, version: &str, name: &str) -> (String, Value) {
    let resource = format!("podlogs.{version}.monitoring.grafana.com");
    let out = cp.ok(
        &["-n", "monitoring", "get", &resource, name, "-o", "json"],
        None,
    );
    let object: Value = serde_json::from_str(&out).expect("kubectl JSON");
    let api_version = object["apiVersion"].as_str().unwrap_or_default().to_owned();
    (api_version, object["spec"].clone())
}

/// The job of `name` in the logs config `config` (an agent.yml).
fn pod_logs_job<'a>(config: &'a Value, name: &str) -> &'a Value {
    let job_name = format!("podLogs/monitoring/{name}");
    config["logs"]["configs"][0]["scrape_configs"]
        .as_array()
        .and_then(|jobs| jobs.iter().find(|j| j["job_name"] == job_name.as_str()))
        .unwrap_or_else(|| panic!("no job {job_name} in {config}"))
}

/// docs/getting-started.md's install beside Alloy and prometheus-operator, on the real API
/// server: prometheus-operator's CRDs in place, Alloy's PodLogs CRD (v1alpha2 only) created as
/// its chart creates it, with a PodLogs written for Alloy stored as v1alpha2; then our
/// `monitoring.grafana.com` CRDs (`crds --group grafana`) applied server-side, taking the
/// PodLogs CRD over (`--force-conflicts`) and leaving prometheus-operator's alone. Every
/// PodLogs then reads back whole as v1alpha1 and v1alpha2 (one schema, `conversion: None`);
/// a label written through v1alpha2, kubectl's preferred version, keeps a v1alpha1 PodLogs'
/// stages; the operator, which reads PodLogs as v1alpha1, renders the v1alpha2 ones as PodLogs
/// without stages (the label namespace selector resolved to the namespaces it matches) and its
/// status shows through v1alpha2; `explain` from the cluster agrees.
#[test]
fn our_crds_install_next_to_alloys_and_prometheus_operators() {
    let dir = scratch_dir("next-to-alloy-and-prometheus-operator");
    let cp = ControlPlane::start(&dir);

    // prometheus-operator's CRDs, as its own install leaves them.
    let upstream = root().join("../shared/upstream/crds");
    assert!(
        upstream.is_dir(),
        "{} is missing: the upstream CRDs live in ../shared beside the checkout",
        upstream.display()
    );
    let mut coreos: Vec<PathBuf> = std::fs::read_dir(&upstream)
        .expect("upstream CRDs")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("monitoring.coreos.com_"))
        })
        .collect();
    coreos.sort();
    assert_eq!(coreos.len(), 3, "{coreos:?}");
    for file in &coreos {
        let path = file.to_str().expect("UTF-8 path");
        cp.ok(
            &[
                "apply",
                "--server-side",
                "--field-manager=prometheus-operator",
                "-f",
                path,
            ],
            None,
        );
    }
    // Alloy's PodLogs CRD, created as Helm creates a chart's CRDs, and a PodLogs for Alloy.
    cp.ok(
        &[
            "create",
            "-f",
            "crates/api/tests/alloy_crds/monitoring.grafana.com_podlogs.yaml",
        ],
        None,
    );
    let established = [
        "wait",
        "--for",
        "condition=established",
        "--timeout=60s",
        "crd",
        "--all",
    ];
    cp.ok(&established, None);
    cp.ok(&["apply", "--server-side", "-f", "-"], Some(LOGS_AGENT));
    cp.ok(&["apply", "-f", "-"], Some(ALLOY_POD_LOGS));
    let (_, written) = pod_logs_as(&cp, "v1alpha2", "alloy-made");

    // Ours: without --force-conflicts, the apply is refused for the fields Alloy's owns.
    let crds = Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(["crds", "--group", "grafana"])
        .output()
        .expect("agent-operator crds");
    assert!(crds.status.success());
    let crds = String::from_utf8(crds.stdout).expect("UTF-8");
    let refused = cp.kubectl(&["apply", "--server-side", "-f", "-"], Some(&crds));
    assert!(
        !refused.status.success() && String::from_utf8_lossy(&refused.stderr).contains("conflict"),
        "{refused:?}"
    );
    cp.ok(
        &["apply", "--server-side", "--force-conflicts", "-f", "-"],
        Some(&crds),
    );
    cp.ok(&established, None);
    let crd: Value = serde_json::from_str(&cp.ok(
        &["get", "crd", "podlogs.monitoring.grafana.com", "-o", "json"],
        None,
    ))
    .expect("CRD JSON");
    let versions: Vec<(String, bool, bool)> = crd["spec"]["versions"]
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap_or_default().to_owned(),
                v["served"] == true,
                v["storage"] == true,
            )
        })
        .collect();
    assert_eq!(
        versions,
        [
            ("v1alpha1".to_owned(), true, true),
            ("v1alpha2".to_owned(), true, false)
        ]
    );
    assert_eq!(crd["spec"]["conversion"]["strategy"], "None");
    assert_eq!(
        crd["status"]["storedVersions"],
        serde_json::json!(["v1alpha2", "v1alpha1"]),
        "Alloy's object stays stored as v1alpha2"
    );
    // prometheus-operator's CRDs are still theirs alone.
    for file in &coreos {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".yaml"))
            .and_then(|n| n.split_once('_'))
            .map(|(group, plural)| format!("{plural}.{group}"))
            .expect("<group>_<plural>.yaml");
        let theirs: Value = serde_json::from_str(&cp.ok(
            &["get", "crd", &name, "-o", "json", "--show-managed-fields"],
            None,
        ))
        .expect("CRD JSON");
        let managers: BTreeSet<&str> = theirs["metadata"]["managedFields"]
            .as_array()
            .expect("managedFields")
            .iter()
            .filter_map(|m| m["manager"].as_str())
            .filter(|m| *m != "kube-apiserver")
            .collect();
        assert_eq!(managers, BTreeSet::from(["prometheus-operator"]), "{name}");
    }

    // Written before ours, read back whole in both versions.
    for version in ["v1alpha1", "v1alpha2"] {
        let (api_version, spec) = pod_logs_as(&cp, version, "alloy-made");
        assert_eq!(api_version, format!("monitoring.grafana.com/{version}"));
        assert_eq!(spec, written, "alloy-made as {version}");
    }
    assert_eq!(written["namespaceSelector"]["matchLabels"]["team"], "apps");
    assert_eq!(written["relabelings"][0]["targetLabel"], "node");

    cp.ok(&["apply", "-f", "-"], Some(LOGS_INPUTS));
    // kubectl reads and writes PodLogs as v1alpha2, the preferred version: a label written
    // that way keeps what only v1alpha1's users write.
    let preferred = cp.ok(
        &[
            "-n",
            "monitoring",
            "get",
            "podlogs",
            "staged",
            "-o",
            "jsonpath={.apiVersion}",
        ],
        None,
    );
    assert_eq!(preferred, "monitoring.grafana.com/v1alpha2");
    cp.ok(
        &[
            "-n",
            "monitoring",
            "label",
            "podlogs",
            "staged",
            "touched=yes",
        ],
        None,
    );
    for version in ["v1alpha1", "v1alpha2"] {
        let (_, staged) = pod_logs_as(&cp, version, "staged");
        assert_eq!(staged["pipelineStages"][0]["cri"], serde_json::json!({}));
        assert_eq!(staged["jobLabel"], "app");
        assert_eq!(staged["namespaceSelector"]["matchNames"][0], "shop");
    }
    let (_, every) = pod_logs_as(&cp, "v1alpha1", "every-namespace");
    assert_eq!(
        every["namespaceSelector"],
        serde_json::json!({"matchLabels": {}}),
        "an empty matchLabels is kept"
    );

    // The operator reads PodLogs as v1alpha1.
    let args: Vec<String> = [
        "run",
        "--metrics-listen-address=127.0.0.1:0",
        "--health-listen-address=127.0.0.1:0",
    ]
    .map(str::to_owned)
    .to_vec();
    let operator = Operator::start(&args, &cp.kubeconfig, &dir);
    let logs_config = |cp: &ControlPlane| -> Option<Value> {
        let out = cp.kubectl(
            &[
                "-n",
                "monitoring",
                "get",
                "secret",
                "agent-logs-config",
                "-o",
                "jsonpath={.data.agent\\.yml}",
            ],
            None,
        );
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(String::from_utf8_lossy(&out.stdout).trim())
            .ok()?;
        serde_saphyr::from_str(&String::from_utf8(bytes).ok()?).ok()
    };
    cp.wait_for(
        "the logs config with the three PodLogs",
        &["-n", "monitoring", "get", "secret", "agent-logs-config"],
        |_| {
            logs_config(&cp).is_some_and(|c| {
                c["logs"]["configs"][0]["scrape_configs"]
                    .as_array()
                    .is_some_and(|jobs| jobs.len() == 3)
            })
        },
    );
    let config = logs_config(&cp).expect("the logs config");
    let alloy_made = pod_logs_job(&config, "alloy-made");
    assert_eq!(
        alloy_made["kubernetes_sd_configs"][0]["namespaces"]["names"],
        serde_json::json!(["shop"]),
        "team=apps is shop"
    );
    assert!(alloy_made.get("pipeline_stages").is_none(), "{alloy_made}");
    let node_rule = alloy_made["relabel_configs"]
        .as_array()
        .expect("rules")
        .iter()
        .any(|r| r["target_label"] == "node");
    assert!(node_rule, "{alloy_made}");
    let every = pod_logs_job(&config, "every-namespace");
    assert!(
        every["kubernetes_sd_configs"][0]
            .get("namespaces")
            .is_none(),
        "matchLabels: {{}} is every namespace: {every}"
    );
    let staged = pod_logs_job(&config, "staged");
    assert_eq!(staged["pipeline_stages"], serde_json::json!([{"cri": {}}]));
    // The status the operator writes through v1alpha1 shows through v1alpha2 as well.
    cp.wait_for(
        "alloy-made's status entry",
        &[
            "-n",
            "monitoring",
            "get",
            "podlogs.v1alpha2.monitoring.grafana.com",
            "alloy-made",
            "-o",
            "jsonpath={.status.agents[*].agent}",
        ],
        |out| out.trim() == "monitoring/agent",
    );
    // A namespace that starts matching the label selector is added to the job.
    cp.ok(
        &["label", "namespace", "ops", "team=apps", "--overwrite"],
        None,
    );
    cp.wait_for(
        "ops in alloy-made's namespaces",
        &["-n", "monitoring", "get", "secret", "agent-logs-config"],
        |_| {
            logs_config(&cp).is_some_and(|c| {
                pod_logs_job(&c, "alloy-made")["kubernetes_sd_configs"][0]["namespaces"]["names"]
                    == serde_json::json!(["ops", "shop"])
            })
        },
    );

    // explain, which reads the cluster as the operator does (controller::list_inputs).
    let explained = Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(["explain", "podlogs/monitoring/alloy-made", "-o", "json"])
        .env("KUBECONFIG", &cp.kubeconfig)
        .output()
        .expect("agent-operator explain");
    let answer = String::from_utf8_lossy(&explained.stdout);
    assert!(
        explained.status.success(),
        "{}",
        String::from_utf8_lossy(&explained.stderr)
    );
    assert!(
        answer.contains("\"result\": \"rendered\"")
            && answer.contains("podLogs/monitoring/alloy-made"),
        "{answer}"
    );

    let log = operator.stop();
    assert!(
        !log.contains("level=error") && !log.contains("level=warn"),
        "the operator logged errors or warnings:\n{log}"
    );
}
