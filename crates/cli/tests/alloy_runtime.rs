//! Runtime alloy end to end (docs/alloy.md): the real `agent-operator run --runtime alloy`
//! against an API server (`testenv::backends()`: the real control plane). An agent without
//! `spec.runtime` runs Alloy (the flag is the default) on a config in Alloy's syntax (the
//! default format), its objects equal what `render --runtime alloy` prints; with
//! `spec.alloy.configFormat: static` (the rollback) Alloy converts the static config, and the
//! settings its converter drops show as a `RuntimeDifferences` condition and as Warning Events
//! `AlloyDifference` on the agent and on the object, beside the rollback's own, and `explain`
//! against the cluster lists them; `spec.runtime: agent` overrides the flag, and then the
//! condition goes away.

mod support;

use std::time::Duration;

use serde_json::Value;
use support::{Backend, Cluster, OperatorProcess, eventually};

const ALLOY: &[&str] = &["--runtime", "alloy"];

/// The `RuntimeDifferences` condition of the example agent, if any.
fn runtime_differences(cluster: &Cluster) -> Option<Value> {
    let agent = cluster.get_json(&["grafanaagent", "-n", "monitoring", "agent"]);
    agent["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "RuntimeDifferences")
        .cloned()
}

/// The notes of the Warning Events with `reason` on the object `kind namespace/name`.
fn warnings_on(
    cluster: &Cluster,
    reason: &str,
    kind: &str,
    namespace: &str,
    name: &str,
) -> Vec<String> {
    let events = cluster.get_json(&["events.v1.events.k8s.io", "-n", namespace]);
    events["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|e| {
            e["type"] == "Warning"
                && e["reason"] == reason
                && e["regarding"]["kind"] == kind
                && e["regarding"]["name"] == name
        })
        .map(|e| e["note"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The `grafana-agent` container of the example's first metrics StatefulSet.
fn metrics_container(cluster: &Cluster) -> Value {
    let sts = cluster.get_json(&["statefulset", "-n", "monitoring", "agent"]);
    sts["spec"]["template"]["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["name"] == "grafana-agent")
        .cloned()
        .unwrap_or_default()
}

/// The image of the `grafana-agent` container of the example's first metrics StatefulSet.
fn metrics_image(cluster: &Cluster) -> String {
    metrics_container(cluster)["image"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Whether that container runs Alloy's static converter (`--config.format=static`).
fn converts_static(cluster: &Cluster) -> bool {
    metrics_container(cluster)["args"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|a| a == "--config.format=static")
}

async fn scenario_runtime_alloy(backend: Backend) {
    let cluster = Cluster::start(backend, "alloy").await;
    cluster.kubectl(&["apply", "-f", "examples/"]);
    // A setting Alloy's converter drops.
    cluster.kubectl(&[
        "patch",
        "metricsinstance",
        "-n",
        "monitoring",
        "primary",
        "--type",
        "merge",
        "-p",
        r#"{"spec":{"walTruncateFrequency":"30m"}}"#,
    ]);
    let operator = OperatorProcess::start(&cluster, "debug", ALLOY);

    // The agent has no spec.runtime: the flag makes it Alloy, as render --runtime alloy says,
    // on a config in Alloy's syntax, which writes the WAL setting.
    cluster.converge_with(None, ALLOY, "the examples run on Alloy");
    let image = metrics_image(&cluster);
    assert!(image.starts_with("grafana/alloy:"), "{image}");
    assert!(
        !converts_static(&cluster),
        "{}",
        metrics_container(&cluster)
    );
    let native = cluster.config_text("monitoring", "agent-config");
    assert!(native.contains("truncate_frequency = \"30m\""), "{native}");

    // The rollback: Alloy converts the static config, whose converter drops the setting.
    cluster.kubectl(&[
        "patch",
        "grafanaagent",
        "-n",
        "monitoring",
        "agent",
        "--type",
        "merge",
        "-p",
        r#"{"spec":{"alloy":{"configFormat":"static"}}}"#,
    ]);
    cluster.converge_with(None, ALLOY, "the examples run on Alloy, static");
    assert!(converts_static(&cluster), "{}", metrics_container(&cluster));

    let wal = "MetricsInstance monitoring/primary: spec.walTruncateFrequency: not used by Alloy";
    let rollback =
        "GrafanaAgent monitoring/agent: spec.alloy.configFormat: is static, the rollback";
    eventually(
        "the agent's RuntimeDifferences condition names the dropped setting and the rollback",
        Duration::from_secs(60),
        || match runtime_differences(&cluster) {
            Some(c)
                if c["status"] == "True"
                    && c["reason"] == "AlloyDifference"
                    && c["message"]
                        .as_str()
                        .is_some_and(|m| m.contains(wal) && m.contains(rollback)) =>
            {
                Ok(())
            }
            other => Err(format!("{other:?}")),
        },
    );
    eventually(
        "Warning Events AlloyDifference on the agent and on the MetricsInstance",
        Duration::from_secs(60),
        || {
            let on_agent = warnings_on(
                &cluster,
                "AlloyDifference",
                "GrafanaAgent",
                "monitoring",
                "agent",
            );
            let on_instance = warnings_on(
                &cluster,
                "AlloyDifference",
                "MetricsInstance",
                "monitoring",
                "primary",
            );
            let names = |notes: &[String]| notes.iter().any(|n| n.contains(wal));
            if names(&on_agent) && names(&on_instance) {
                Ok(())
            } else {
                Err(format!("agent: {on_agent:?}, instance: {on_instance:?}"))
            }
        },
    );
    // A difference is no rejection: nothing is reported invalid for it, and the agent stays
    // Reconciled.
    let invalid = warnings_on(
        &cluster,
        "InvalidConfiguration",
        "MetricsInstance",
        "monitoring",
        "primary",
    );
    assert_eq!(invalid, Vec::<String>::new());
    let agent = cluster.get_json(&["grafanaagent", "-n", "monitoring", "agent"]);
    let reconciled = agent["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Reconciled")
        .cloned();
    assert_eq!(
        reconciled.as_ref().map(|c| c["status"].clone()),
        Some(Value::from("True")),
        "{agent}"
    );

    // explain, reading the cluster, lists the difference under the instance.
    let explained = {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent-operator"))
            .args([
                "explain",
                "metricsinstance/monitoring/primary",
                "--runtime",
                "alloy",
            ])
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
    };
    assert!(
        explained.contains("runtime difference: spec.walTruncateFrequency: not used by Alloy"),
        "{explained}"
    );

    // spec.runtime overrides the operator's flag: back to the agent, and no difference left.
    cluster.kubectl(&[
        "patch",
        "grafanaagent",
        "-n",
        "monitoring",
        "agent",
        "--type",
        "merge",
        "-p",
        r#"{"spec":{"runtime":"agent"}}"#,
    ]);
    cluster.converge_with(None, ALLOY, "spec.runtime: agent overrides --runtime alloy");
    let image = metrics_image(&cluster);
    assert!(image.starts_with("grafana/agent:"), "{image}");
    eventually(
        "the RuntimeDifferences condition is gone",
        Duration::from_secs(60),
        || match runtime_differences(&cluster) {
            None => Ok(()),
            Some(c) => Err(format!("{c}")),
        },
    );
    let log = operator.stop();
    assert!(!log.contains("panicked"), "{log}");
}

/// On the real control plane the CRD's schema keeps `spec.runtime`, and server-side apply of the
/// status removes the condition the operator no longer sets.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn runtime_alloy_differences_show_in_status_and_events() {
    for backend in testenv::backends() {
        scenario_runtime_alloy(backend).await;
    }
}
