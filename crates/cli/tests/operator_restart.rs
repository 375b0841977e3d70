//! End to end, on the real control plane (`testenv::backends()`): what a long-running operator
//! must do the same way as a freshly started one, with the operator restarted mid-scenario.
//! Each scenario works in a namespace of its own and runs `agent-operator run --namespace` on
//! it; on the real control plane, which the scenarios of this binary share, they take turns, as
//! its write counts are cluster-wide.

mod support;

use std::time::Duration;

use serde_json::Value;
use support::{Backend, Cluster, OperatorProcess, decode_base64, eventually};

/// One namespace holding a GrafanaAgent and what it selects, watched by one operator.
/// Fields drop in order: the operator stops before its cluster, the turn is given up last.
struct Scenario {
    operator: Option<OperatorProcess>,
    cluster: Cluster,
    ns: String,
    _turn: Option<tokio::sync::MutexGuard<'static, ()>>,
}

/// The control plane's write counts are cluster-wide: its scenarios take turns.
static CONTROL_PLANE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The referenced Secret's values, which the operator copies into the agent's config and
/// assets Secret (and must remove from both when the Secret is deleted).
const USERNAME: &str = "remote-write-user-7f3a";
const PASSWORD: &str = "remote-write-password-9c1e";
const CA: &str = "-----BEGIN CERTIFICATE-----\nMIIB-test-ca-4d2b\n-----END CERTIFICATE-----\n";

fn inputs(ns: &str) -> String {
    format!(
        r#"apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {{name: agent, namespace: {ns}}}
spec:
  metrics:
    instanceSelector: {{matchLabels: {{agent: agent}}}}
  logs:
    instanceSelector: {{matchLabels: {{agent: agent}}}}
  integrations:
    selector: {{matchLabels: {{agent: agent}}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: primary, namespace: {ns}, labels: {{agent: agent}}}}
spec:
  remoteWrite:
  - url: https://mimir.example.com/api/v1/push
    basicAuth:
      username: {{name: credentials, key: username}}
      password: {{name: credentials, key: password}}
  serviceMonitorSelector: {{matchLabels: {{instance: primary}}}}
---
apiVersion: v1
kind: Secret
metadata: {{name: credentials, namespace: {ns}}}
stringData: {{username: {USERNAME}, password: {PASSWORD}}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {{name: web, namespace: {ns}, labels: {{instance: primary}}}}
spec:
  selector: {{matchLabels: {{app: web}}}}
  endpoints:
  - port: https
    scheme: https
    tlsConfig:
      ca: {{configMap: {{name: web-ca, key: ca.crt}}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: web-ca, namespace: {ns}}}
data:
  ca.crt: {ca:?}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {{name: primary, namespace: {ns}, labels: {{agent: agent}}}}
spec:
  clients: [{{url: 'https://loki.example.com/loki/api/v1/push'}}]
  podLogsSelector: {{matchLabels: {{instance: primary}}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {{name: web, namespace: {ns}, labels: {{instance: primary}}}}
spec:
  selector: {{matchLabels: {{app: web}}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {{name: node, namespace: {ns}, labels: {{agent: agent}}}}
spec:
  name: node_exporter
  type: {{allNodes: false, unique: true}}
  config: {{}}
"#,
        ca = CA,
    )
}

impl Scenario {
    async fn start(backend: Backend, name: &str) -> Scenario {
        let turn = match backend {
            Backend::ControlPlane => Some(CONTROL_PLANE.lock().await),
            Backend::TestKube => None,
        };
        let cluster = Cluster::start(backend, name).await;
        let ns = cluster
            .env
            .create_namespace(name)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        cluster.apply(&inputs(&ns));
        let mut scenario = Scenario {
            cluster,
            ns,
            operator: None,
            _turn: turn,
        };
        scenario.start_operator();
        scenario.converge("the inputs are applied");
        scenario
    }

    fn start_operator(&mut self) {
        let namespace = format!("--namespace={}", self.ns);
        self.operator = Some(OperatorProcess::start(
            &self.cluster,
            "debug",
            &[&namespace],
        ));
    }

    /// Stops the operator (SIGTERM) and starts a new process: nothing of the old one's memory
    /// survives. Returns the old one's log.
    fn restart_operator(&mut self) -> String {
        let log = self.operator.take().map(OperatorProcess::stop);
        self.start_operator();
        log.unwrap_or_default()
    }

    fn operator(&self) -> &OperatorProcess {
        self.operator.as_ref().expect("the operator runs")
    }

    fn converge(&self, what: &str) {
        self.cluster.converge_in(Some(&self.ns), what);
    }

    fn kubectl(&self, args: &[&str]) -> String {
        let mut all: Vec<&str> = vec!["-n", &self.ns];
        all.extend_from_slice(args);
        self.cluster.kubectl(&all)
    }

    fn get(&self, kind: &str, name: &str) -> Value {
        self.cluster.get_json(&[kind, "-n", &self.ns, name])
    }

    /// `kubectl patch KIND NAME --type merge -p PATCH`.
    fn patch(&self, kind: &str, name: &str, patch: &str) {
        self.kubectl(&["patch", kind, name, "--type", "merge", "-p", patch]);
    }

    /// A generated Secret, `null` when there is none.
    fn generated_secret(&self, name: &str) -> Value {
        let text = self.kubectl(&["get", "secret", name, "--ignore-not-found", "-o", "json"]);
        if text.trim().is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).expect("kubectl JSON")
        }
    }

    /// The metrics config, assembled from its Secrets (empty when there is none).
    fn config(&self) -> String {
        self.cluster.config_text(&self.ns, "agent-config")
    }

    /// Every value of the assets Secret, decoded.
    fn assets(&self) -> String {
        let secret = self.generated_secret("agent-secrets");
        secret["data"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(key, value)| {
                format!(
                    "{key}: {}\n",
                    decode_base64(value.as_str().unwrap_or_default())
                )
            })
            .collect()
    }

    /// The agent's `Reconciled` condition.
    fn reconciled(&self) -> Value {
        self.reconciled_of("agent")
    }

    /// Waits until the agent's `Reconciled` condition has `status` and a message containing
    /// every one of `words`.
    fn wait_reconciled(&self, what: &str, status: &str, words: &[&str]) -> Value {
        eventually(what, Duration::from_secs(60), || {
            let reconciled = self.reconciled();
            let message = reconciled["message"].as_str().unwrap_or_default();
            if reconciled["status"] == status && words.iter().all(|w| message.contains(w)) {
                Ok(reconciled)
            } else {
                Err(format!("{reconciled}"))
            }
        })
    }
}

/// Issue 22, item 1: deleting a referenced Secret or ConfigMap takes effect at once, as on a
/// fresh start: the object referring to it is rejected naming its field, and the old values
/// leave the config and the assets Secret; recreating it brings them back.
async fn scenario_deleted_references_take_effect(backend: Backend) {
    let mut s = Scenario::start(backend, "deleted-refs").await;
    assert!(s.config().contains(USERNAME), "{}", s.config());
    assert!(s.assets().contains(PASSWORD));
    assert!(s.assets().contains("MIIB-test-ca-4d2b"));
    s.wait_reconciled("reconciled at first", "True", &[]);

    // A long-running operator (one that has read the values, then restarted and read them
    // again) sees the deletions.
    s.restart_operator();
    s.converge("after a restart");

    // A CA file's ConfigMap deleted: its value leaves the assets Secret, and the monitor is
    // rejected for its missing CA (`spec.endpoints[..].tlsConfig.ca`), as on a fresh start.
    s.kubectl(&["delete", "configmap", "web-ca"]);
    eventually(
        "the CA gone from the assets",
        Duration::from_secs(60),
        || match s.assets() {
            assets if assets.contains("MIIB-test-ca-4d2b") => Err(assets),
            _ => Ok(()),
        },
    );
    s.converge("a referenced ConfigMap deleted");

    s.kubectl(&["delete", "secret", "credentials"]);
    s.wait_reconciled(
        "the MetricsInstance rejected for its missing Secret",
        "False",
        &[
            &format!("MetricsInstance {}/primary", s.ns),
            "spec.remoteWrite[0].basicAuth",
        ],
    );
    s.converge("a referenced Secret deleted");
    let config = s.config();
    assert!(!config.contains(USERNAME), "{config}");
    assert!(!s.assets().contains(PASSWORD), "{}", s.assets());

    // Recreated: back as before.
    s.cluster.apply(&inputs(&s.ns));
    s.wait_reconciled("reconciled again", "True", &[]);
    s.converge("the Secret and ConfigMap recreated");
    assert!(s.config().contains(USERNAME));
    assert!(s.assets().contains(PASSWORD));
    assert!(s.assets().contains("MIIB-test-ca-4d2b"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn deleted_references_take_effect() {
    for backend in testenv::backends() {
        scenario_deleted_references_take_effect(backend).await;
    }
}

/// Writes the server served over a quiet period, by (verb, resource).
fn writes_during_quiet_period(cluster: &Cluster) -> Vec<((String, String), u64)> {
    let writes = cluster.count_writes();
    std::thread::sleep(Duration::from_secs(3));
    writes.since()
}

impl Scenario {
    /// Waits until the (new) operator has reconciled once and its writes have settled.
    fn settle_after_start(&self) {
        eventually(
            "the operator reconciles",
            Duration::from_secs(60),
            || match self
                .operator()
                .try_metric("agent_operator_reconcile_operations_total")
            {
                Some(n) if n >= 1.0 => Ok(()),
                n => Err(format!("{n:?} reconciles")),
            },
        );
        self.cluster.settle();
    }
}

/// Issue 22, item 2: drift is repaired by comparing the live objects with the desired ones,
/// not from a memory of the process's own writes: after a restart, hand edits of the config
/// Secret's data, a StatefulSet's image and replicas, and the integrations Deployment scaled
/// to 3 are all reset; and the new process writes nothing while nothing drifted.
async fn scenario_drift_is_repaired_after_a_restart(backend: Backend) {
    let mut s = Scenario::start(backend, "drift").await;
    s.restart_operator();
    s.settle_after_start();
    assert_eq!(
        writes_during_quiet_period(&s.cluster),
        [],
        "a restarted operator writes objects nothing changed"
    );

    s.patch(
        "secret",
        "agent-config",
        r#"{"stringData":{"agent.yml":"edited by hand"}}"#,
    );
    s.converge("the config Secret's data restored");
    s.kubectl(&[
        "set",
        "image",
        "statefulset/agent",
        "grafana-agent=registry.example/evil:latest",
    ]);
    s.patch("statefulset", "agent", r#"{"spec":{"replicas":5}}"#);
    s.converge("the StatefulSet's image and replicas restored");
    match backend {
        Backend::ControlPlane => {
            s.kubectl(&[
                "scale",
                "deployment",
                "agent-integrations-deploy",
                "--replicas=3",
            ]);
        }
        // testkube serves no scale subresource.
        Backend::TestKube => {
            s.patch(
                "deployment",
                "agent-integrations-deploy",
                r#"{"spec":{"replicas":3}}"#,
            );
        }
    }
    eventually(
        "the integrations Deployment back at one replica",
        Duration::from_secs(60),
        || {
            let replicas =
                s.get("deployment", "agent-integrations-deploy")["spec"]["replicas"].clone();
            if replicas == 1 {
                Ok(())
            } else {
                Err(format!("replicas {replicas}"))
            }
        },
    );
    s.converge("every hand edit repaired");
    s.cluster.settle();
    assert_eq!(
        writes_during_quiet_period(&s.cluster),
        [],
        "an idle operator writes after repairing drift"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn drift_is_repaired_after_a_restart() {
    for backend in testenv::backends() {
        scenario_drift_is_repaired_after_a_restart(backend).await;
    }
}

/// The kinds holding one status entry per agent, as `(kubectl kind, object name)`.
const SHARED_STATUS: &[(&str, &str)] = &[
    ("metricsinstance", "primary"),
    ("logsinstance", "primary"),
    ("podlogs", "web"),
    ("integration", "node"),
];

impl Scenario {
    /// The objects of [`SHARED_STATUS`] that lack the agent's entry.
    fn missing_entries(&self) -> Vec<String> {
        let agent = format!("{}/agent", self.ns);
        SHARED_STATUS
            .iter()
            .filter(|(kind, name)| {
                let status = self.get(kind, name)["status"].clone();
                !status["agents"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|entry| entry["agent"] == agent.as_str())
            })
            .map(|(kind, name)| format!("{kind}/{name}"))
            .collect()
    }
}

/// Issue 22, item 3: restarting the operator keeps every agent's entries in the status of the
/// instances, PodLogs and Integrations it selects (during the first list every agent looks
/// deleted; only a real deletion may remove entries), and writes each status at most once, the
/// agent's own included.
async fn scenario_restarts_keep_status_entries(backend: Backend) {
    let mut s = Scenario::start(backend, "entries").await;
    // The agents are listed last, as with many agents or a slow list: the stores of the
    // instances are then full while the agents' store is still empty.
    let proxy = s
        .cluster
        .env
        .proxy()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    proxy.delay("list", "grafanaagents", Duration::from_secs(2));
    eventually("every entry written", Duration::from_secs(60), || {
        match s.missing_entries() {
            missing if missing.is_empty() => Ok(()),
            missing => Err(format!("{missing:?}")),
        }
    });
    s.cluster.settle();
    for restart in 1..=3 {
        let before = s.cluster.write_counts();
        s.restart_operator_with(&proxy);
        s.settle_after_start();
        std::thread::sleep(Duration::from_secs(1));
        assert_eq!(
            s.missing_entries(),
            Vec::<String>::new(),
            "restart {restart}"
        );
        // The agent's own status too.
        let kinds = SHARED_STATUS
            .iter()
            .map(|(kind, _)| *kind)
            .chain(["grafanaagent"]);
        for kind in kinds {
            let resource = match kind {
                "podlogs" => "podlogs/status".to_owned(),
                kind => format!("{kind}s/status"),
            };
            let after = s.cluster.write_counts();
            let written: u64 = after
                .iter()
                .filter(|((_, r), _)| *r == resource)
                .map(|(key, n)| n - before.get(key).copied().unwrap_or_default())
                .sum();
            assert!(
                written <= 1,
                "restart {restart}: {resource} written {written} times"
            );
        }
    }
    // A real deletion still removes the entries.
    s.kubectl(&["delete", "grafanaagent", "agent"]);
    eventually("the entries removed", Duration::from_secs(60), || {
        match s.missing_entries() {
            missing if missing.len() == SHARED_STATUS.len() => Ok(()),
            missing => Err(format!("only {missing:?} lost theirs")),
        }
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn restarts_keep_status_entries() {
    for backend in testenv::backends() {
        scenario_restarts_keep_status_entries(backend).await;
    }
}

impl Scenario {
    /// The notes of the Events on one object with this reason, oldest first.
    fn event_notes(&self, kind: &str, name: &str, reason: &str) -> Vec<String> {
        let events = self
            .cluster
            .get_json(&["events.v1.events.k8s.io", "-n", &self.ns]);
        let mut found: Vec<(String, String)> = events["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| {
                e["reason"] == reason
                    && e["regarding"]["kind"] == kind
                    && e["regarding"]["name"] == name
            })
            .map(|e| {
                let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
                (text(&e["eventTime"]), text(&e["note"]))
            })
            .collect();
        found.sort();
        found.into_iter().map(|(_, note)| note).collect()
    }

    /// Waits for an Event on one object with this reason whose note contains `words`.
    fn wait_event(&self, kind: &str, name: &str, reason: &str, words: &str) -> Vec<String> {
        self.wait_event_where(kind, name, reason, words, |note| note.contains(words))
    }

    /// Waits for an Event on one object with this reason whose note is exactly `note`. A
    /// note that only contains it may be an older Event: the first `Applied` names every
    /// object, so waiting on a part of it returns before the change under test is applied.
    fn wait_event_saying(&self, kind: &str, name: &str, reason: &str, note: &str) -> Vec<String> {
        self.wait_event_where(kind, name, reason, note, |n| n == note)
    }

    fn wait_event_where(
        &self,
        kind: &str,
        name: &str,
        reason: &str,
        words: &str,
        matches: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        eventually(
            &format!("an Event {reason} on {kind} {name} saying {words:?}"),
            Duration::from_secs(60),
            || {
                let notes = self.event_notes(kind, name, reason);
                if notes.iter().any(|n| matches(n)) {
                    Ok(notes)
                } else {
                    Err(format!("{notes:?}"))
                }
            },
        )
    }
}

/// Issue 22, item 8: an Event whose note changed is visible as such: a second, different
/// rejection of the same monitor, and `Applied` saying what each write wrote (folding Events
/// into a series by object, reason and action kept the first note).
async fn scenario_events_keep_every_note(backend: Backend) {
    let mut s = Scenario::start(backend, "events").await;
    s.restart_operator();
    s.settle_after_start();

    let broken = |endpoint: &str| {
        format!(
            "apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {{name: broken, namespace: {}, labels: {{instance: primary}}}}
spec:
  selector: {{matchLabels: {{app: broken}}}}
  endpoints:
  - {endpoint}
",
            s.ns
        )
    };
    s.cluster.apply(&broken(
        "{port: web, metricRelabelings: [{sourceLabels: [__name__], regex: '(unclosed', action: drop}]}",
    ));
    s.wait_event("ServiceMonitor", "broken", "InvalidConfiguration", "regex");
    s.cluster.apply(&broken(
        "{port: web, basicAuth: {username: {name: credentials, key: no-such-key}, password: {name: credentials, key: password}}}",
    ));
    let notes = s.wait_event(
        "ServiceMonitor",
        "broken",
        "InvalidConfiguration",
        "no-such-key",
    );
    assert!(notes.iter().any(|n| n.contains("regex")), "{notes:?}");

    // Each write says what it wrote: the assets Secret alone, then the config Secret alone.
    // Each wait is for the exact note, so the second edit is never folded into the first
    // one's reconcile.
    s.patch(
        "secret",
        "credentials",
        r#"{"stringData":{"password":"rotated-password-5b7d"}}"#,
    );
    s.wait_event_saying(
        "GrafanaAgent",
        "agent",
        "Applied",
        "applied Secret agent-secrets",
    );
    s.patch(
        "servicemonitor",
        "web",
        r#"{"spec":{"endpoints":[{"port":"https","scheme":"https","interval":"20s","tlsConfig":{"ca":{"configMap":{"name":"web-ca","key":"ca.crt"}}}}]}}"#,
    );
    s.wait_event_saying(
        "GrafanaAgent",
        "agent",
        "Applied",
        "applied Secret agent-config",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn events_keep_every_note() {
    for backend in testenv::backends() {
        scenario_events_keep_every_note(backend).await;
    }
}

/// Issue 22, item 7: a watch answered 410 Gone right after every relist relists with a growing
/// delay (it relisted every ~1.25 s forever), and a change delivered resets the delay. The
/// operator talks to the backend through `testenv::Proxy`, which makes the watches fail.
async fn scenario_relists_that_keep_failing_back_off(backend: Backend) {
    let mut s = Scenario::start(backend, "relists").await;
    let proxy = s
        .cluster
        .env
        .proxy()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let lists = || proxy.count("list", "servicemonitors");
    proxy.expire_watches("servicemonitors", true);
    // A new process, through the proxy: each list succeeds, each watch after it fails.
    s.restart_operator_with(&proxy);
    let before = lists();
    std::thread::sleep(Duration::from_secs(12));
    let relists = lists() - before;
    // 0.8 s doubling, plus up to as much again of jitter: at most 5 lists in 12 s (at a fixed
    // ~1.25 s it was 9 or more).
    assert!(
        (1..=5).contains(&relists),
        "{relists} lists of ServiceMonitors in 12 s"
    );

    // The fault gone, a change arrives (after the current delay) and resets the backoff.
    proxy.expire_watches("servicemonitors", false);
    s.patch(
        "servicemonitor",
        "web",
        r#"{"spec":{"endpoints":[{"port":"https","scheme":"https","interval":"25s","tlsConfig":{"ca":{"configMap":{"name":"web-ca","key":"ca.crt"}}}}]}}"#,
    );
    s.converge("the change made while the watch backed off");
    assert!(
        s.operator()
            .metric("agent_operator_watch_operations_failed_total")
            >= 1.0
    );
}

impl Scenario {
    /// Restarts the operator talking to the backend through `proxy`.
    fn restart_operator_with(&mut self, proxy: &testenv::Proxy) {
        drop(self.operator.take().map(OperatorProcess::stop));
        let namespace = format!("--namespace={}", self.ns);
        self.operator = Some(OperatorProcess::start_with(
            &self.cluster,
            proxy.kubeconfig(),
            "debug",
            &[&namespace],
        ));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn relists_that_keep_failing_back_off() {
    for backend in testenv::backends() {
        scenario_relists_that_keep_failing_back_off(backend).await;
    }
}

/// Issue 38, item 5: a ServiceMonitor watch that stalls without closing (`testenv::Proxy`
/// silences it: no event, no bookmark, no end) is noticed within its bound, 30 s (the
/// operator's watches end every 25 s, and kube-runtime drops one silent for 5 s longer), and
/// the edit made meanwhile lands. With kube-runtime's defaults it waited 291 s.
async fn scenario_a_stalled_watch_is_noticed(backend: Backend) {
    let mut s = Scenario::start(backend, "stalled-watch").await;
    let proxy = s
        .cluster
        .env
        .proxy()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    s.restart_operator_with(&proxy);
    s.converge("the operator through the proxy has synced");
    proxy.stall_watches("servicemonitors");
    let stalled = std::time::Instant::now();
    s.patch(
        "servicemonitor",
        "web",
        r#"{"spec":{"endpoints":[{"port":"https","scheme":"https","interval":"23s","tlsConfig":{"ca":{"configMap":{"name":"web-ca","key":"ca.crt"}}}}]}}"#,
    );
    eventually(
        "the edit made behind a stalled watch",
        Duration::from_secs(45),
        || match s.config() {
            config if config.contains("scrape_interval: '23s'") => Ok(()),
            config => Err(config),
        },
    );
    let took = stalled.elapsed();
    assert!(
        took <= Duration::from_secs(32),
        "the stalled watch went unnoticed for {took:?}"
    );
    assert!(
        proxy.count("watch", "servicemonitors") >= 2,
        "the stalled watch was not replaced"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stalled_watch_is_noticed() {
    for backend in testenv::backends() {
        scenario_a_stalled_watch_is_noticed(backend).await;
    }
}

impl Scenario {
    /// The `Reconciled` condition of the GrafanaAgent `agent`.
    fn reconciled_of(&self, agent: &str) -> Value {
        let status = self.get("grafanaagent", agent)["status"].clone();
        status["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["type"] == "Reconciled")
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// The name of the GrafanaAgent controlling the generated Secret `name`.
    fn secret_owner(&self, name: &str) -> String {
        let secret = self.generated_secret(name);
        secret["metadata"]["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["controller"] == true)
            .and_then(|r| r["name"].as_str())
            .unwrap_or_default()
            .to_owned()
    }
}

/// Issue 38, item 6: `agent` (with logs) generates `Secret agent-logs-config`; a GrafanaAgent
/// `agent-logs` (metrics), created later, generates it too. The later agent is refused whole,
/// its `Reconciled` condition and a Warning Event naming both agents and the object; the
/// Secret stays `agent`'s (before, its owner and content flipped at every reconcile while both
/// reported `Reconciled=True`); the operator's objects are what `render` prints. Once `agent`
/// is deleted, `agent-logs` is reconciled again and runs.
async fn scenario_colliding_agents(backend: Backend) {
    let s = Scenario::start(backend, "collisions").await;
    s.wait_reconciled("the first agent reconciled", "True", &[]);
    assert_eq!(s.secret_owner("agent-logs-config"), "agent");
    let config_before = s.generated_secret("agent-logs-config")["data"].clone();

    let later = format!(
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {{name: agent-logs, namespace: {}}}\nspec:\n  metrics:\n    instanceSelector: {{matchLabels: {{agent: agent}}}}\n",
        s.ns
    );
    s.cluster.apply(&later);
    let words = [
        format!("GrafanaAgent {}/agent (created earlier)", s.ns),
        "Secret agent-logs-config".to_owned(),
    ];
    let refused = eventually(
        "the later agent refused, naming both",
        Duration::from_secs(60),
        || {
            let reconciled = s.reconciled_of("agent-logs");
            let message = reconciled["message"].as_str().unwrap_or_default();
            if reconciled["status"] == "False"
                && reconciled["reason"] == "NameCollision"
                && words.iter().all(|w| message.contains(w.as_str()))
            {
                Ok(reconciled)
            } else {
                Err(format!("{reconciled}"))
            }
        },
    );
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(message.contains("agent-logs"), "{message}");
    s.wait_event(
        "GrafanaAgent",
        "agent-logs",
        "InvalidConfiguration",
        &words[0],
    );
    s.converge("render refuses the later agent too");
    // The Secret neither changes owner nor content while both agents are reconciled.
    for _ in 0..5 {
        assert_eq!(s.secret_owner("agent-logs-config"), "agent");
        assert_eq!(
            s.generated_secret("agent-logs-config")["data"],
            config_before
        );
        assert_eq!(s.reconciled()["status"], "True", "{}", s.reconciled());
        s.patch(
            "grafanaagent",
            "agent-logs",
            r#"{"metadata":{"labels":{"touched":"again"}}}"#,
        );
        std::thread::sleep(Duration::from_millis(600));
    }
    let managed = s.cluster.managed_in(Some(&s.ns));
    assert!(
        !managed
            .keys()
            .any(|(kind, _, name)| kind == "StatefulSet" && name == "agent-logs"),
        "the refused agent got a StatefulSet: {:?}",
        managed.keys()
    );

    // The earlier agent gone: the later one runs, and takes its Secret.
    s.kubectl(&["delete", "grafanaagent", "agent"]);
    eventually(
        "the later agent reconciled",
        Duration::from_secs(60),
        || {
            let reconciled = s.reconciled_of("agent-logs");
            match (
                reconciled["status"].as_str(),
                s.secret_owner("agent-logs-config"),
            ) {
                (Some("True"), owner) if owner == "agent-logs" => Ok(()),
                (_, owner) => Err(format!("{reconciled}, the Secret owned by {owner:?}")),
            }
        },
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn colliding_agents() {
    for backend in testenv::backends() {
        scenario_colliding_agents(backend).await;
    }
}

/// Issue 38, item 9a: a restart does not announce again what the previous process announced
/// (every start sent 2 Events per rejected object: 4,000 for 2,000 bad monitors). After the
/// restart, a second monitor is rejected: its Events show the new process has published
/// what it had to, and the first monitor still has one Event, on it and on the agent.
async fn scenario_restarts_do_not_repeat_events(backend: Backend) {
    let mut s = Scenario::start(backend, "event-restarts").await;
    let ns = s.ns.clone();
    let broken = |name: &str| {
        format!(
            "apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {{name: {name}, namespace: {ns}, labels: {{instance: primary}}}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  endpoints:
  - {{port: web, metricRelabelings: [{{sourceLabels: [__name__], regex: '(unclosed', action: drop}}]}}
"
        )
    };
    s.cluster.apply(&broken("broken"));
    let on_monitor = s.wait_event("ServiceMonitor", "broken", "InvalidConfiguration", "regex");
    let about_it = |s: &Scenario| {
        s.event_notes("GrafanaAgent", "agent", "InvalidConfiguration")
            .into_iter()
            .filter(|n| n.contains(&format!("ServiceMonitor {}/broken", s.ns)))
            .filter(|n| !n.contains("broken-later"))
            .collect::<Vec<_>>()
    };
    let on_agent = about_it(&s);
    assert_eq!(
        (on_monitor.len(), on_agent.len()),
        (1, 1),
        "{on_monitor:?} {on_agent:?}"
    );

    s.restart_operator();
    s.settle_after_start();
    s.cluster.apply(&broken("broken-later"));
    s.wait_event(
        "ServiceMonitor",
        "broken-later",
        "InvalidConfiguration",
        "regex",
    );
    assert_eq!(
        s.event_notes("ServiceMonitor", "broken", "InvalidConfiguration"),
        on_monitor,
        "the restarted operator sent the rejection's Event again"
    );
    assert_eq!(
        about_it(&s),
        on_agent,
        "the agent's Event about it was sent again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn restarts_do_not_repeat_events() {
    for backend in testenv::backends() {
        scenario_restarts_do_not_repeat_events(backend).await;
    }
}
