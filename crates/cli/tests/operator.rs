//! End to end: the real `agent-operator run` binary against an API server, driven with kubectl
//! as a user would. After every change the operator's objects must equal, in every field
//! `render` prints, what `render` prints for the inputs the cluster then holds.

mod support;

use std::time::Duration;

use serde_json::Value;
use support::{Backend, Cluster, OperatorProcess, eventually};
use testkube::RequestMatch;

/// The example Secrets' values, which must never appear in the operator's output.
const SECRET_VALUES: &[&str] = &["not-a-real-password", "rotated-password-value"];

fn quiet_period() -> Duration {
    Duration::from_secs(3)
}

/// Writes the server served over a quiet period, by (verb, resource).
fn writes_during_quiet_period(cluster: &Cluster) -> Vec<((String, String), u64)> {
    let writes = cluster.count_writes();
    std::thread::sleep(quiet_period());
    writes.since()
}

fn agent_status(cluster: &Cluster) -> Value {
    cluster.get_json(&["grafanaagent", "-n", "monitoring", "agent"])["status"].clone()
}

fn warning_events_on(cluster: &Cluster, namespace: &str, kind: &str, name: &str) -> Vec<String> {
    let events = cluster.get_json(&["events.v1.events.k8s.io", "-n", namespace]);
    events["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|e| {
            e["type"] == "Warning"
                && e["reason"] == "InvalidConfiguration"
                && e["regarding"]["kind"] == kind
                && e["regarding"]["name"] == name
        })
        .map(|e| e["note"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Every Warning `InvalidConfiguration` Event in the cluster, as `Kind namespace/name: note`.
fn invalid_configuration_warnings(cluster: &Cluster) -> Vec<String> {
    let events = cluster.get_json(&["events.v1.events.k8s.io", "-A"]);
    events["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e["type"] == "Warning" && e["reason"] == "InvalidConfiguration")
        .map(|e| {
            let on = &e["regarding"];
            let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
            format!(
                "{} {}/{}: {}",
                text(&on["kind"]),
                text(&on["namespace"]),
                text(&on["name"]),
                text(&e["note"])
            )
        })
        .collect()
}

async fn scenario_follows_every_change(backend: Backend) {
    let cluster = Cluster::start(backend, "follows").await;
    cluster.kubectl(&["apply", "-f", "examples/"]);
    let operator = OperatorProcess::start(&cluster, "debug", &[]);

    // The examples: every object appears and equals render's.
    cluster.converge("the examples are applied");
    let names: Vec<String> = cluster
        .managed()
        .keys()
        .map(|(kind, _, name)| format!("{kind}/{name}"))
        .collect();
    assert_eq!(
        names,
        [
            "DaemonSet/agent-integrations-ds",
            "DaemonSet/agent-logs",
            "Deployment/agent-integrations-deploy",
            "Role/agent-config-loader",
            "RoleBinding/agent-config-loader",
            "Secret/agent-config",
            "Secret/agent-integrations-deploy-config",
            "Secret/agent-integrations-ds-config",
            "Secret/agent-logs-config",
            "Secret/agent-secrets",
            "Service/agent-operated",
            "StatefulSet/agent",
            "StatefulSet/agent-shard-1",
        ]
    );
    // The referenced Secret values were read while reconciling (discovery's `to_load`): a key
    // not loaded yet is no missing key, and no Warning says so.
    assert_eq!(
        invalid_configuration_warnings(&cluster),
        Vec::<String>::new()
    );
    let status = agent_status(&cluster);
    assert_eq!(status["serviceMonitors"], 1, "{status}");
    assert_eq!(status["shards"], 2, "{status}");
    // Issue 22, item 9: `kubectl get` shows each object's state, not NAME and AGE only. The
    // API server evaluates the printer columns' filters (testkube reads plain paths only).
    if backend == Backend::ControlPlane {
        let rows = |args: &[&str]| -> Vec<Vec<String>> {
            cluster
                .kubectl(args)
                .lines()
                .map(|l| l.split_whitespace().map(str::to_owned).collect())
                .collect()
        };
        let agents = rows(&["get", "grafanaagent", "-n", "monitoring"]);
        assert_eq!(
            agents[0][..5],
            ["NAME", "RECONCILED", "AVAILABLE", "SHARDS", "REPLICAS"],
            "{agents:?}"
        );
        assert_eq!(
            [&agents[1][0], &agents[1][1], &agents[1][3]],
            ["agent", "True", "2"],
            "{agents:?}"
        );
        let instances = rows(&["get", "metricsinstances", "-n", "monitoring"]);
        assert_eq!(
            instances[0][..4],
            ["NAME", "AGENTS", "RECONCILED", "AVAILABLE"],
            "{instances:?}"
        );
        assert_eq!(
            instances[1][..3],
            ["primary", "monitoring/agent", "True"],
            "{instances:?}"
        );
    }
    eventually(
        "the example PodLogs has the agent's entry",
        Duration::from_secs(60),
        || {
            let status = cluster.get_json(&["podlogs", "-n", "shop", "checkout"])["status"].clone();
            let entry = &status["agents"][0];
            if entry["agent"] == "monitoring/agent" && entry["conditions"][0]["status"] == "True" {
                Ok(())
            } else {
                Err(format!("{status}"))
            }
        },
    );

    // Idle: no write at all.
    cluster.settle();
    assert_eq!(
        writes_during_quiet_period(&cluster),
        [],
        "an idle operator writes"
    );

    // Drift: generated objects edited or deleted by hand are restored, the config Secret's
    // data even though the edit kept the desired-hash annotation.
    patch(
        &cluster,
        "secret",
        "monitoring",
        "agent-config",
        "merge",
        r#"{"stringData":{"agent.yml":"edited by hand"}}"#,
    );
    cluster.converge("the config Secret's data restored");
    patch(
        &cluster,
        "statefulset",
        "monitoring",
        "agent",
        "merge",
        r#"{"spec":{"replicas":5}}"#,
    );
    cluster.converge("the StatefulSet's spec restored");
    cluster.kubectl(&["delete", "service", "-n", "monitoring", "agent-operated"]);
    cluster.converge("the Service recreated");
    cluster.settle();
    assert_eq!(
        writes_during_quiet_period(&cluster),
        [],
        "an idle operator writes after repairing drift"
    );

    // One ServiceMonitor edit: exactly one config Secret write, at most one status write,
    // and one reconcile (the watch events of the operator's own writes trigger none).
    let reconciles = "agent_operator_reconcile_operations_total";
    let reconciles_before = operator.metric(reconciles);
    let writes = cluster.count_writes();
    patch(
        &cluster,
        "servicemonitor",
        "shop",
        "checkout",
        "json",
        r#"[{"op":"replace","path":"/spec/endpoints/0/interval","value":"20s"}]"#,
    );
    cluster.converge("a ServiceMonitor edit");
    cluster.settle();
    assert_eq!(writes.of("secrets"), 1, "{:?}", writes.since());
    assert_eq!(
        operator.metric(reconciles) - reconciles_before,
        1.0,
        "reconciles for one edit; log {}",
        operator.log.display()
    );
    assert!(writes.of("grafanaagents/status") <= 1);
    assert_eq!(writes.of("podlogs/status"), 0, "{:?}", writes.since());
    for kind in ["statefulsets", "daemonsets", "deployments", "services"] {
        assert_eq!(writes.of(kind), 0, "{kind}: {:?}", writes.since());
    }
    assert!(
        cluster
            .config_text("monitoring", "agent-config")
            .contains("scrape_interval: '20s'")
    );

    // Another edit: now one request in all, the config Secret's. Nothing in any status
    // changed, and the `Applied` Event of the first edit already said that the config Secret
    // is written (Events are announced on a change of outcome, not per write). The control
    // plane's Events are not counted (kube-controller-manager writes its own), testkube's are.
    let writes = cluster.count_writes();
    patch(
        &cluster,
        "servicemonitor",
        "shop",
        "checkout",
        "json",
        r#"[{"op":"replace","path":"/spec/endpoints/0/interval","value":"25s"}]"#,
    );
    cluster.converge("a second ServiceMonitor edit");
    cluster.settle();
    let since = writes.since();
    assert_eq!(writes.of("secrets"), 1, "{since:?}");
    for status in ["grafanaagents/status", "metricsinstances/status"] {
        assert_eq!(writes.of(status), 0, "{status}: {since:?}");
    }
    if backend == Backend::TestKube {
        // The edit itself (the test's patch of the ServiceMonitor) left out.
        let operators: u64 = since
            .iter()
            .filter(|((_, resource), _)| resource != "servicemonitors")
            .map(|(_, n)| n)
            .sum();
        assert_eq!(operators, 1, "requests for one edit: {since:?}");
    }

    // A new ServiceMonitor, then its deletion.
    cluster.apply(
        "apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: cart, namespace: shop, labels: {instance: primary}}
spec:
  selector: {matchLabels: {app: cart}}
  endpoints: [{port: web}]
",
    );
    cluster.converge("a ServiceMonitor added");
    assert!(
        cluster
            .config_text("monitoring", "agent-config")
            .contains("serviceMonitor/shop/cart/0")
    );
    cluster.kubectl(&["delete", "servicemonitor", "-n", "shop", "cart"]);
    cluster.converge("a ServiceMonitor deleted");
    assert!(
        !cluster
            .config_text("monitoring", "agent-config")
            .contains("serviceMonitor/shop/cart/0")
    );

    // A referenced Secret changes: the assets follow.
    patch(
        &cluster,
        "secret",
        "monitoring",
        "mimir-credentials",
        "merge",
        r#"{"stringData":{"password":"rotated-password-value"}}"#,
    );
    cluster.converge("a referenced Secret changed");
    assert_eq!(
        invalid_configuration_warnings(&cluster),
        Vec::<String>::new()
    );

    // Relabelling the namespace takes its monitors out of the selector.
    cluster.kubectl(&[
        "label",
        "namespace",
        "shop",
        "team=elsewhere",
        "--overwrite",
    ]);
    cluster.converge("a Namespace relabelled");
    let config = cluster.config_text("monitoring", "agent-config");
    assert!(!config.contains("serviceMonitor/shop/checkout"), "{config}");
    cluster.kubectl(&["label", "namespace", "shop", "team=shop", "--overwrite"]);
    cluster.converge("the Namespace labelled back");
    assert!(
        cluster
            .config_text("monitoring", "agent-config")
            .contains("serviceMonitor/shop/checkout")
    );

    // An object moving out of its selector leaves the config.
    cluster.kubectl(&[
        "label",
        "podmonitor",
        "-n",
        "shop",
        "payments",
        "instance=other",
        "--overwrite",
    ]);
    cluster.converge("a PodMonitor moved out of its selector");
    assert!(
        !cluster
            .config_text("monitoring", "agent-config")
            .contains("podMonitor/shop/payments")
    );

    // Shards 2 -> 3 -> 1: the extra StatefulSets go.
    for shards in ["3", "1"] {
        patch_agent(
            &cluster,
            &format!(r#"{{"spec":{{"metrics":{{"shards":{shards}}}}}}}"#),
        );
        cluster.converge(&format!("{shards} shards"));
    }
    let statefulsets: Vec<String> = cluster
        .managed()
        .keys()
        .filter(|(kind, _, _)| kind == "StatefulSet")
        .map(|(_, _, name)| name.clone())
        .collect();
    assert_eq!(statefulsets, ["agent"]);

    // An invalid ServiceMonitor: reported in the agent's status and on itself; the valid
    // ones stay configured.
    cluster.apply(
        "apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: broken, namespace: shop, labels: {instance: primary}}
spec:
  selector: {matchLabels: {app: broken}}
  endpoints:
  - port: web
    metricRelabelings: [{sourceLabels: [__name__], regex: '(unclosed', action: drop}]
",
    );
    cluster.converge("an invalid ServiceMonitor added");
    let status = eventually(
        "the rejection shows in the status",
        Duration::from_secs(30),
        || {
            let status = agent_status(&cluster);
            let reconciled = status["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|c| c["type"] == "Reconciled")
                .cloned()
                .unwrap_or_default();
            match reconciled["message"].as_str() {
                Some(m) if m.contains("ServiceMonitor shop/broken") => Ok(reconciled),
                _ => Err(format!("{status}")),
            }
        },
    );
    assert_eq!(status["reason"], "InvalidConfiguration");
    assert_eq!(status["status"], "False");
    let notes = eventually(
        "a Warning Event on the ServiceMonitor",
        Duration::from_secs(30),
        || {
            let notes = warning_events_on(&cluster, "shop", "ServiceMonitor", "broken");
            if notes.is_empty() {
                Err("none yet".to_owned())
            } else {
                Ok(notes)
            }
        },
    );
    assert!(notes.iter().all(|n| n.contains("regex")), "{notes:?}");
    let config = cluster.config_text("monitoring", "agent-config");
    assert!(config.contains("serviceMonitor/shop/checkout"), "{config}");
    assert!(!config.contains("serviceMonitor/shop/broken"), "{config}");
    // Not announced again while nothing changes.
    cluster.settle();
    let before = warning_events_on(&cluster, "shop", "ServiceMonitor", "broken").len();
    assert_eq!(writes_during_quiet_period(&cluster), []);
    assert_eq!(
        warning_events_on(&cluster, "shop", "ServiceMonitor", "broken").len(),
        before
    );

    // Paused: no write at all for the agent, even when its inputs change.
    patch_agent(&cluster, r#"{"spec":{"paused":true}}"#);
    cluster.settle();
    let writes = cluster.count_writes();
    cluster.kubectl(&["delete", "servicemonitor", "-n", "shop", "broken"]);
    std::thread::sleep(quiet_period());
    let operator_writes: Vec<_> = writes
        .since()
        .into_iter()
        .filter(|((_, resource), _)| resource != "servicemonitors")
        .collect();
    assert_eq!(operator_writes, [], "a paused agent's objects were written");
    patch_agent(&cluster, r#"{"spec":{"paused":false}}"#);
    cluster.converge("unpaused");

    // The examples' Integrations ship their metrics through the MetricsInstance (autoscrape):
    // without it the agent would refuse their config, so they would be rejected (and their
    // running workloads kept). They go first.
    cluster.kubectl(&["delete", "integrations", "--all", "-A"]);
    cluster.converge("no Integration");
    assert!(
        !cluster
            .managed()
            .keys()
            .any(|(_, _, name)| name.starts_with("agent-integrations"))
    );

    // Removing every MetricsInstance removes the metrics objects.
    cluster.kubectl(&["delete", "metricsinstances", "--all", "-n", "monitoring"]);
    cluster.converge("no MetricsInstance");
    assert!(
        !cluster
            .managed()
            .keys()
            .any(|(kind, _, name)| kind == "StatefulSet"
                || name == "agent-config"
                || name == "agent-operated")
    );

    // Deleting the agent removes everything it owned (garbage collection).
    match backend {
        Backend::ControlPlane => foreground_deletion_is_left_to_the_collector(&cluster),
        Backend::TestKube => {
            cluster.kubectl(&["delete", "grafanaagent", "-n", "monitoring", "agent"]);
        }
    }
    eventually("everything is removed", Duration::from_secs(60), || {
        let left = cluster.managed();
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("{:?}", left.keys()))
        }
    });

    // At debug level, no Secret value was ever logged.
    let log = operator.stop();
    assert!(
        log.contains("level=debug"),
        "the operator ran at debug level"
    );
    for value in SECRET_VALUES {
        assert!(!log.contains(value), "the operator logged a Secret value");
    }
}

async fn scenario_faults_give_the_same_final_state(backend: Backend) {
    let cluster = Cluster::start(backend, "faults").await;
    cluster.kubectl(&["apply", "-f", "examples/"]);
    let faults = cluster.testkube().faults();
    faults.fail_next(RequestMatch::verb_resource("patch", "secrets"), 3, 409);
    faults.fail_next(RequestMatch::verb_resource("patch", "statefulsets"), 2, 500);
    faults.fail_next(
        RequestMatch::verb_resource("patch", "grafanaagents/status"),
        2,
        500,
    );
    faults.fail_next(RequestMatch::verb_resource("get", "secrets"), 2, 500);
    faults.delay(RequestMatch::verb("patch"), Duration::from_millis(150));
    let operator = OperatorProcess::start(&cluster, "debug", &[]);
    cluster.converge("the examples, through conflicts and server errors");

    // Watches closed and resourceVersions expired while inputs change: the watches resume or
    // relist, and the changes still arrive.
    faults.close_watches();
    patch(
        &cluster,
        "servicemonitor",
        "shop",
        "checkout",
        "json",
        r#"[{"op":"replace","path":"/spec/endpoints/0/interval","value":"45s"}]"#,
    );
    faults.expire_resource_versions();
    faults.close_watches();
    cluster.kubectl(&[
        "label",
        "podmonitor",
        "-n",
        "shop",
        "payments",
        "instance=other",
        "--overwrite",
    ]);
    // Deleted while every watch is expired: only the relist can tell.
    cluster.kubectl(&["delete", "probe", "-n", "monitoring", "storefront"]);
    cluster.converge("changes made while watches failed");
    let config = cluster.config_text("monitoring", "agent-config");
    assert!(config.contains("scrape_interval: '45s'"), "{config}");
    assert!(!config.contains("podMonitor/shop/payments"), "{config}");
    assert!(!config.contains("probe/monitoring/storefront"), "{config}");

    // The faults did happen, and were retried rather than given up on.
    let log = operator.stop();
    for (fault, what) in [
        ("fails with 409", "conflict"),
        ("fails with 500", "server error"),
        ("too old resource version", "expired watch"),
    ] {
        assert!(log.contains(fault), "no {what} in the operator's log");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn operator_reaches_the_same_state_through_faults_on_testkube() {
    scenario_faults_give_the_same_final_state(Backend::TestKube).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn operator_follows_every_change_on_testkube() {
    scenario_follows_every_change(Backend::TestKube).await;
}

/// The same scenario on the real control plane (when `AGENT_OPERATOR_TEST_BACKENDS` names it,
/// or is unset): real validation, defaulting and server-side apply, and kube-controller-manager's
/// garbage collector removing what the deleted agent owned.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn operator_follows_every_change_on_the_control_plane() {
    if testenv::backends().contains(&Backend::ControlPlane) {
        scenario_follows_every_change(Backend::ControlPlane).await;
    }
}

/// `kubectl delete --cascade=foreground` of the agent: it stays, being deleted, until the
/// garbage collector has removed what it owns, and the operator must not write those again
/// meanwhile (it did: the deletion never ended). One owned object is held by a finalizer so
/// that the agent stays in its deletion long enough for the operator to be tried, with a
/// change to one of its inputs as well.
fn foreground_deletion_is_left_to_the_collector(cluster: &Cluster) {
    let managed = cluster.managed();
    let (kind, namespace, name) = managed
        .keys()
        .next()
        .cloned()
        .expect("the agent owns objects before its deletion");
    let held = [kind.as_str(), "-n", namespace.as_str(), name.as_str()];
    cluster.kubectl(
        &[
            &["patch"][..],
            &held,
            &[
                "--type=merge",
                "-p",
                r#"{"metadata":{"finalizers":["agent-operator.test/hold"]}}"#,
            ],
        ]
        .concat(),
    );
    cluster.kubectl(&[
        "delete",
        "grafanaagent",
        "-n",
        "monitoring",
        "agent",
        "--cascade=foreground",
        "--wait=false",
    ]);
    let only_held = |what: &str| {
        let left: Vec<_> = cluster.managed().into_keys().collect();
        if left.len() == 1 && left[0].2 == name {
            Ok(())
        } else {
            Err(format!("{what}: {left:?}"))
        }
    };
    eventually(
        "the collector removed all but the held object",
        Duration::from_secs(60),
        || only_held("left"),
    );
    cluster.kubectl(&[
        "annotate",
        "logsinstances",
        "--all",
        "-n",
        "monitoring",
        "agent-operator.test/touched=once",
    ]);
    std::thread::sleep(quiet_period());
    if let Err(e) = only_held("written again while the agent was being deleted") {
        panic!("{e}");
    }
    cluster.kubectl(
        &[
            &["patch"][..],
            &held,
            &["--type=merge", "-p", r#"{"metadata":{"finalizers":null}}"#],
        ]
        .concat(),
    );
    eventually("the agent is gone", Duration::from_secs(60), || {
        let agents = cluster.get_json(&["grafanaagents", "-n", "monitoring"]);
        match agents["items"].as_array().map(Vec::len) {
            Some(0) => Ok(()),
            other => Err(format!("{other:?} agents left")),
        }
    });
}

/// Merge-patches the example GrafanaAgent `monitoring/agent`.
fn patch_agent(cluster: &Cluster, merge_patch: &str) {
    patch(
        cluster,
        "grafanaagent",
        "monitoring",
        "agent",
        "merge",
        merge_patch,
    );
}

/// `kubectl patch KIND -n NAMESPACE NAME --type TYPE -p PATCH`.
fn patch(cluster: &Cluster, kind: &str, namespace: &str, name: &str, type_: &str, patch: &str) {
    cluster.kubectl(&[
        "patch", kind, "-n", namespace, name, "--type", type_, "-p", patch,
    ]);
}
