//! Issue 36, item 3: a field of a live object that our CRD's schema lacks is never dropped
//! without a word. The cluster serves a ServiceMonitor CRD wider than ours (as a newer
//! prometheus-operator's is: ours plus fields nobody knows, `spec.futureField` and
//! `spec.endpoints[].futureEndpointField`), so the API server keeps them; `agent-operator run`
//! reports them in the status (`RuntimeDifferences`, reason `UnknownField`, on the agent and
//! in the selecting MetricsInstance's entry) and in one Warning Event on the monitor, while
//! the monitor still renders, as `render` renders it; `explain` against the cluster says the
//! same. Removing the fields removes the warning. On testkube and on the real control plane
//! (whose API server prunes what the CRD does not declare: hence the wider CRD).

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::{Backend, Cluster, OperatorProcess, eventually};

const MONITOR: &str = "\
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: future
  namespace: shop
  labels:
    instance: primary
spec:
  futureField: newer-operators-know-me
  selector:
    matchLabels:
      app: future
  endpoints:
  - port: web
    futureEndpointField: true
";

/// As the operator names them: sorted (the API server's order of fields is its own).
const FIELDS: &str = "spec.endpoints[0].futureEndpointField, spec.futureField";

/// Adds `spec.futureField` and `spec.endpoints[].futureEndpointField` to the cluster's
/// ServiceMonitor CRD (ours, as `Cluster::start` installed it).
fn widen_service_monitor_crd(cluster: &Cluster) {
    let mut crd = cluster.get_json(&["crd", "servicemonitors.monitoring.coreos.com"]);
    let versions = crd["spec"]["versions"].as_array_mut().expect("versions");
    for version in versions {
        let spec = &mut version["schema"]["openAPIV3Schema"]["properties"]["spec"];
        spec["properties"]["futureField"] = json!({"type": "string"});
        spec["properties"]["endpoints"]["items"]["properties"]["futureEndpointField"] =
            json!({"type": "boolean"});
    }
    cluster.kubectl_with_input(&["replace", "-f", "-"], Some(&crd.to_string()));
}

/// The monitor as the API server holds it, with the fields the wider CRD kept. The real API
/// server starts using a new schema a moment after the CRD update: until then it prunes
/// them, so the monitor is applied again until they stay.
fn create_monitor_with_unknown_fields(cluster: &Cluster) {
    eventually(
        "the API server keeps the fields the wider CRD declares",
        Duration::from_secs(30),
        || {
            cluster.apply(MONITOR);
            let live = cluster.get_json(&["servicemonitor", "-n", "shop", "future"]);
            let kept = live["spec"]["futureField"] == "newer-operators-know-me"
                && live["spec"]["endpoints"][0]["futureEndpointField"] == true;
            if kept {
                Ok(())
            } else {
                Err(format!("{}", live["spec"]))
            }
        },
    );
}

/// The `RuntimeDifferences` condition of `conditions`, if any.
fn runtime_differences(conditions: &Value) -> Option<Value> {
    conditions
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "RuntimeDifferences")
        .cloned()
}

/// The agent's condition and the one in its entry of MetricsInstance monitoring/primary.
fn conditions(cluster: &Cluster) -> (Option<Value>, Option<Value>) {
    let agent = cluster.get_json(&["grafanaagent", "-n", "monitoring", "agent"]);
    let instance = cluster.get_json(&["metricsinstance", "-n", "monitoring", "primary"]);
    let entry = instance["status"]["agents"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["agent"] == "monitoring/agent")
        .cloned()
        .unwrap_or_default();
    (
        runtime_differences(&agent["status"]["conditions"]),
        runtime_differences(&entry["conditions"]),
    )
}

/// The notes of the Warning Events `UnknownField` on ServiceMonitor shop/future.
fn unknown_field_events(cluster: &Cluster) -> Vec<String> {
    let events = cluster.get_json(&["events.v1.events.k8s.io", "-n", "shop"]);
    events["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| {
            e["type"] == "Warning"
                && e["reason"] == "UnknownField"
                && e["regarding"]["kind"] == "ServiceMonitor"
                && e["regarding"]["name"] == "future"
        })
        .map(|e| e["note"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn explain_monitor(cluster: &Cluster) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(["explain", "servicemonitor/shop/future"])
        .env("KUBECONFIG", &cluster.kubeconfig)
        .current_dir(support::root())
        .output()
        .expect("run agent-operator explain");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

async fn scenario(backend: Backend) {
    let cluster = Cluster::start(backend, "unknown-fields").await;
    widen_service_monitor_crd(&cluster);
    cluster.kubectl(&["apply", "-f", "examples/"]);
    create_monitor_with_unknown_fields(&cluster);
    let operator = OperatorProcess::start(&cluster, "info", &[]);

    // The field is ignored, as render ignores it: the monitor is scraped, the objects are
    // what render prints for the cluster's inputs.
    cluster.converge("the monitor with unknown fields renders as render renders it");
    let config = cluster.config_text("monitoring", "agent-config");
    assert!(config.contains("serviceMonitor/shop/future/0"), "{config}");

    let warning = format!("ServiceMonitor shop/future: unknown fields, ignored: {FIELDS}");
    eventually(
        "RuntimeDifferences (UnknownField) on the agent and in the instance's entry",
        Duration::from_secs(60),
        || {
            let (agent, entry) = conditions(&cluster);
            let names = |c: &Option<Value>| {
                c.as_ref().is_some_and(|c| {
                    c["status"] == "True"
                        && c["reason"] == "UnknownField"
                        && c["message"].as_str().is_some_and(|m| m.contains(&warning))
                })
            };
            if names(&agent) && names(&entry) {
                Ok(())
            } else {
                Err(format!("agent: {agent:?}, entry: {entry:?}"))
            }
        },
    );
    let notes = eventually(
        "one Warning Event UnknownField on the monitor naming both fields",
        Duration::from_secs(60),
        || match unknown_field_events(&cluster).as_slice() {
            [] => Err("none yet".to_owned()),
            notes => Ok(notes.to_vec()),
        },
    );
    assert_eq!(notes, [format!("UnknownField: {warning}")]);
    // Not a rejection: the agent stays Reconciled.
    let agent = cluster.get_json(&["grafanaagent", "-n", "monitoring", "agent"]);
    let reconciled = agent["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Reconciled")
        .cloned()
        .unwrap_or_default();
    assert_eq!(reconciled["status"], "True", "{agent}");

    // explain, reading the cluster, says what the operator says.
    let explained = explain_monitor(&cluster);
    assert!(
        explained.contains(&format!("unknown fields, ignored: {FIELDS}")),
        "{explained}"
    );

    // Without the fields the warning goes away; the monitor is still scraped.
    cluster.kubectl(&[
        "patch",
        "servicemonitor",
        "-n",
        "shop",
        "future",
        "--type",
        "json",
        "-p",
        r#"[{"op":"remove","path":"/spec/futureField"},{"op":"remove","path":"/spec/endpoints/0/futureEndpointField"}]"#,
    ]);
    eventually(
        "RuntimeDifferences is gone from the agent and the instance's entry",
        Duration::from_secs(60),
        || match conditions(&cluster) {
            (None, None) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    cluster.converge("the monitor without unknown fields");
    let config = cluster.config_text("monitoring", "agent-config");
    assert!(config.contains("serviceMonitor/shop/future/0"), "{config}");
    assert!(!explain_monitor(&cluster).contains("unknown field"));
    // The one Event stays the one: nothing new was announced for it.
    assert_eq!(unknown_field_events(&cluster).len(), 1);

    let log = operator.stop();
    assert!(!log.contains("panicked"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn unknown_fields_of_live_objects_show_in_status_and_events_on_testkube() {
    scenario(Backend::TestKube).await;
}

/// The real API server prunes what the CRD does not declare and keeps what the wider one
/// does: the case of a cluster with a newer prometheus-operator CRD.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn unknown_fields_of_live_objects_show_in_status_and_events_on_the_control_plane() {
    if testenv::backends().contains(&Backend::ControlPlane) {
        scenario(Backend::ControlPlane).await;
    }
}
