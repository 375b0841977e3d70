//! Two GrafanaAgents selecting the same MetricsInstance, reconciled by the real controller: each
//! agent's reconciler server-side-applies only its own entry in the instance's `status.agents`
//! (a list-map keyed by `agent`) under its own field manager, so the API server keeps both, an
//! update of one keeps the other, and an agent that stops selecting the instance, or is deleted,
//! takes only its own entry away. The same holds for PodLogs: a valid and an invalid one each
//! get the agent's entry, `Reconciled` saying whether it is in the logs config.

mod support;

use std::time::Duration;

use api::{GrafanaAgent, MetricsInstance, PodLogs};
use kube::Api;
use kube::api::{DeleteParams, Patch, PatchParams};
use serde_json::{Value, json};
use support::{beside_operator, eventually, install_crds, kubectl_ok};
use testenv::TestEnv;

fn manifests(namespace: &str) -> String {
    let agent = |name: &str| {
        format!(
            "apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  metrics:
    instanceSelector: {{matchLabels: {{team: shared}}}}
---
"
        )
    };
    format!(
        "{}{}apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: shared, namespace: {namespace}, labels: {{team: shared}}}}
spec:
  remoteWrite: [{{url: 'https://remote.example/push'}}]
  serviceMonitorSelector: {{}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {{name: broken, namespace: {namespace}}}
spec:
  selector: {{}}
  endpoints:
  - port: web
    metricRelabelings: [{{sourceLabels: [__name__], regex: '(unclosed', action: drop}}]
",
        agent("alpha"),
        agent("beta"),
    )
}

/// `agent -> (Reconciled reason, rejectedTotal)` of every entry in the instance's status.
async fn entries(instances: &Api<MetricsInstance>) -> Vec<(String, String, i32)> {
    let instance = instances.get("shared").await.expect("the MetricsInstance");
    let mut entries: Vec<(String, String, i32)> = instance
        .status
        .map(|s| s.agents)
        .unwrap_or_default()
        .into_iter()
        .map(|e| {
            let reconciled = e
                .conditions
                .iter()
                .find(|c| c.type_ == "Reconciled")
                .map(|c| c.reason.clone())
                .unwrap_or_default();
            (e.agent, reconciled, e.rejected_total)
        })
        .collect();
    entries.sort();
    entries
}

async fn wait_for_entries(
    instances: &Api<MetricsInstance>,
    what: &str,
    wanted: &[(String, &str, i32)],
) {
    let wanted: Vec<(String, String, i32)> = wanted
        .iter()
        .map(|(a, r, n)| (a.clone(), (*r).to_owned(), *n))
        .collect();
    eventually(what, Duration::from_secs(60), || async {
        let seen = entries(instances).await;
        if seen == wanted {
            Ok(())
        } else {
            Err(format!("{seen:?}, wanted {wanted:?}"))
        }
    })
    .await;
}

/// Points agent `name`'s instance selector at `team` (`shared` selects the instance).
async fn select_team(agents: &Api<GrafanaAgent>, name: &str, team: &str) {
    let patch = json!({
        "apiVersion": "monitoring.grafana.com/v1alpha1",
        "kind": "GrafanaAgent",
        "spec": {"metrics": {"instanceSelector": {"matchLabels": {"team": team}}}},
    });
    agents
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_keep_their_own_entries_in_a_shared_instance() {
    for backend in testenv::backends() {
        let env = TestEnv::start(backend).await.unwrap();
        install_crds(&env).await;
        let ns = env.create_namespace("status").await.unwrap();
        kubectl_ok(
            &env,
            &["apply", "--server-side", "-n", &ns, "-f", "-"],
            Some(&manifests(&ns)),
        )
        .await;

        beside_operator(&env, &ns, async {
            let instances: Api<MetricsInstance> = Api::namespaced(env.client(), &ns);
            let agents: Api<GrafanaAgent> = Api::namespaced(env.client(), &ns);
            let alpha = format!("{ns}/alpha");
            let beta = format!("{ns}/beta");
            wait_for_entries(
                &instances,
                &format!("[{backend}] both agents' entries, each with the rejection"),
                &[
                    (alpha.clone(), "InvalidConfiguration", 1),
                    (beta.clone(), "InvalidConfiguration", 1),
                ],
            )
            .await;
            let instance = kubectl_ok(
                &env,
                &[
                    "get",
                    "metricsinstance",
                    "shared",
                    "-n",
                    &ns,
                    "--show-managed-fields",
                    "-o",
                    "json",
                ],
                None,
            )
            .await;
            let instance: Value = serde_json::from_slice(&instance.stdout).unwrap();
            let mut managers: Vec<&str> = instance["metadata"]["managedFields"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m["subresource"] == "status")
                .filter_map(|m| m["manager"].as_str())
                .collect();
            managers.sort_unstable();
            assert_eq!(
                managers,
                [
                    format!("agent-operator/{alpha}"),
                    format!("agent-operator/{beta}")
                ],
                "[{backend}]"
            );
            let rejected = &instance["status"]["agents"][0]["rejectedObjects"][0];
            assert_eq!(rejected["kind"], "ServiceMonitor", "[{backend}] {rejected}");
            assert_eq!(rejected["reason"], "InvalidRegex", "[{backend}] {rejected}");

            // A change both agents see: each rewrites its own entry, and both stay.
            kubectl_ok(
                &env,
                &["delete", "servicemonitor", "broken", "-n", &ns],
                None,
            )
            .await;
            wait_for_entries(
                &instances,
                &format!("[{backend}] both entries reconciled"),
                &[
                    (alpha.clone(), "Reconciled", 0),
                    (beta.clone(), "Reconciled", 0),
                ],
            )
            .await;

            // beta stops selecting the instance: its entry goes, alpha's stays.
            select_team(&agents, "beta", "other").await;
            wait_for_entries(
                &instances,
                &format!("[{backend}] beta's entry removed"),
                &[(alpha.clone(), "Reconciled", 0)],
            )
            .await;

            // alpha is deleted: its entry goes too.
            agents
                .delete("alpha", &DeleteParams::default())
                .await
                .unwrap();
            wait_for_entries(
                &instances,
                &format!("[{backend}] alpha's entry removed"),
                &[],
            )
            .await;
        })
        .await;
    }
}

/// What changed while no operator ran is found at the next start: each agent's first
/// reconcile scans every object for entries it no longer wants (later ones only look at the
/// objects the reverse index says it dropped).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entries_left_behind_while_the_operator_was_down_are_removed_at_start() {
    for backend in testenv::backends() {
        let env = TestEnv::start(backend).await.unwrap();
        install_crds(&env).await;
        let ns = env.create_namespace("status-down").await.unwrap();
        kubectl_ok(
            &env,
            &["apply", "--server-side", "-n", &ns, "-f", "-"],
            Some(&manifests(&ns)),
        )
        .await;
        let instances: Api<MetricsInstance> = Api::namespaced(env.client(), &ns);
        let agents: Api<GrafanaAgent> = Api::namespaced(env.client(), &ns);
        let (alpha, beta) = (format!("{ns}/alpha"), format!("{ns}/beta"));
        beside_operator(&env, &ns, async {
            wait_for_entries(
                &instances,
                &format!("[{backend}] both agents' entries"),
                &[
                    (alpha.clone(), "InvalidConfiguration", 1),
                    (beta.clone(), "InvalidConfiguration", 1),
                ],
            )
            .await;
        })
        .await;

        // No operator: alpha is deleted, beta stops selecting the instance.
        agents
            .delete("alpha", &DeleteParams::default())
            .await
            .unwrap();
        select_team(&agents, "beta", "other").await;
        assert_eq!(entries(&instances).await.len(), 2, "[{backend}]");

        beside_operator(&env, &ns, async {
            wait_for_entries(
                &instances,
                &format!("[{backend}] both entries removed at start"),
                &[],
            )
            .await;
            // Selected again, then dropped again: found through the reverse index.
            select_team(&agents, "beta", "shared").await;
            wait_for_entries(
                &instances,
                &format!("[{backend}] beta's entry back"),
                &[(beta.clone(), "InvalidConfiguration", 1)],
            )
            .await;
            select_team(&agents, "beta", "other").await;
            wait_for_entries(
                &instances,
                &format!("[{backend}] beta's entry removed again"),
                &[],
            )
            .await;
        })
        .await;
    }
}

fn pod_logs_manifests(namespace: &str) -> String {
    format!(
        "apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {{name: agent, namespace: {namespace}}}
spec:
  logs:
    instanceSelector: {{}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {{name: logs, namespace: {namespace}}}
spec:
  clients: [{{url: 'https://loki.example/push'}}]
  podLogsSelector: {{}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {{name: valid, namespace: {namespace}}}
spec:
  selector: {{}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {{name: invalid, namespace: {namespace}}}
spec:
  selector: {{}}
  relabelings: [{{sourceLabels: [__meta_kubernetes_pod_name], regex: '(unclosed', action: drop}}]
"
    )
}

/// `(PodLogs, agent, Reconciled status, Reconciled reason, logsInstances)` of every entry.
async fn pod_logs_entries(
    pod_logs: &Api<PodLogs>,
) -> Vec<(String, String, String, String, Vec<String>)> {
    let mut entries = Vec::new();
    for p in pod_logs.list(&Default::default()).await.expect("PodLogs") {
        let name = p.metadata.name.clone().unwrap_or_default();
        for e in p.status.map(|s| s.agents).unwrap_or_default() {
            let (status, reason) = e
                .conditions
                .iter()
                .find(|c| c.type_ == "Reconciled")
                .map(|c| (c.status.clone(), c.reason.clone()))
                .unwrap_or_default();
            entries.push((name.clone(), e.agent, status, reason, e.logs_instances));
        }
    }
    entries.sort();
    entries
}

async fn wait_for_pod_logs_entries(
    pod_logs: &Api<PodLogs>,
    what: &str,
    wanted: Vec<(String, String, String, String, Vec<String>)>,
) {
    eventually(what, Duration::from_secs(60), || async {
        let seen = pod_logs_entries(pod_logs).await;
        if seen == wanted {
            Ok(())
        } else {
            Err(format!("{seen:?}, wanted {wanted:?}"))
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_and_an_invalid_pod_logs_each_get_the_agents_entry() {
    for backend in testenv::backends() {
        let env = TestEnv::start(backend).await.unwrap();
        install_crds(&env).await;
        let ns = env.create_namespace("podlogs-status").await.unwrap();
        kubectl_ok(
            &env,
            &["apply", "--server-side", "-n", &ns, "-f", "-"],
            Some(&pod_logs_manifests(&ns)),
        )
        .await;

        beside_operator(&env, &ns, async {
            let pod_logs: Api<PodLogs> = Api::namespaced(env.client(), &ns);
            let agents: Api<GrafanaAgent> = Api::namespaced(env.client(), &ns);
            let agent = format!("{ns}/agent");
            let entry = |name: &str, status: &str, reason: &str| {
                (
                    name.to_owned(),
                    agent.clone(),
                    status.to_owned(),
                    reason.to_owned(),
                    vec![format!("{ns}/logs")],
                )
            };
            wait_for_pod_logs_entries(
                &pod_logs,
                &format!("[{backend}] an entry in each PodLogs"),
                vec![
                    entry("invalid", "False", "InvalidRegex"),
                    entry("valid", "True", "Reconciled"),
                ],
            )
            .await;
            let invalid = kubectl_ok(
                &env,
                &[
                    "get",
                    "podlogs",
                    "invalid",
                    "-n",
                    &ns,
                    "--show-managed-fields",
                    "-o",
                    "json",
                ],
                None,
            )
            .await;
            let invalid: Value = serde_json::from_slice(&invalid.stdout).unwrap();
            let managers: Vec<&str> = invalid["metadata"]["managedFields"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|m| m["subresource"] == "status")
                .filter_map(|m| m["manager"].as_str())
                .collect();
            assert_eq!(managers, [format!("agent-operator/{agent}")], "[{backend}]");
            let entry_json = &invalid["status"]["agents"][0];
            let message = entry_json["conditions"][0]["message"]
                .as_str()
                .unwrap_or_default();
            assert!(
                message.contains("spec.relabelings[0].regex"),
                "[{backend}] {entry_json}"
            );
            assert_eq!(
                entry_json["observedGeneration"], 1,
                "[{backend}] {entry_json}"
            );

            // The invalid PodLogs is fixed: its entry turns True.
            let fix = json!({
                "apiVersion": "monitoring.grafana.com/v1alpha1",
                "kind": "PodLogs",
                "spec": {"relabelings": [{"sourceLabels": ["__meta_kubernetes_pod_name"], "regex": "(closed)", "action": "drop"}]},
            });
            pod_logs
                .patch("invalid", &PatchParams::default(), &Patch::Merge(&fix))
                .await
                .unwrap();
            wait_for_pod_logs_entries(
                &pod_logs,
                &format!("[{backend}] the fixed PodLogs reconciled"),
                vec![
                    entry("invalid", "True", "Reconciled"),
                    entry("valid", "True", "Reconciled"),
                ],
            )
            .await;

            // The agent is deleted: its entries go.
            agents
                .delete("agent", &DeleteParams::default())
                .await
                .unwrap();
            wait_for_pod_logs_entries(
                &pod_logs,
                &format!("[{backend}] the agent's entries removed"),
                Vec::new(),
            )
            .await;
        })
        .await;
    }
}
