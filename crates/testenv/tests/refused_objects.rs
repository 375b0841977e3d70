//! A planned object kube-apiserver refuses for good (compatibility Q29: `storage: {}` gives a
//! claim template without a size) is reported on the agent, and nothing else is lost: the
//! agent's other objects are still written, and a running StatefulSet is not deleted in an
//! attempt to recreate it. A change of fields that cannot change, to a valid object, is applied
//! by deleting and creating the StatefulSet again.
//!
//! Real control plane only: testkube validates no workload, so it accepts such a StatefulSet.

mod support;

use std::time::Duration;

use api::GrafanaAgent;
use k8s_openapi::api::apps::v1::{DaemonSet, StatefulSet};
use k8s_openapi::api::events::v1::Event as EventObject;
use kube::Api;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use support::{beside_operator, eventually, install_crds, kubectl_ok};
use testenv::{Backend, TestEnv};

fn manifests(namespace: &str) -> String {
    format!(
        "apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {{name: sized, namespace: {namespace}}}
spec:
  storage:
    volumeClaimTemplate:
      spec:
        resources: {{requests: {{storage: 1Gi}}}}
  metrics:
    instanceSelector: {{}}
  logs:
    instanceSelector: {{}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {{name: unsized, namespace: {namespace}}}
spec:
  storage: {{}}
  metrics:
    instanceSelector: {{}}
  logs:
    instanceSelector: {{}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: primary, namespace: {namespace}}}
spec:
  remoteWrite: [{{url: 'https://remote.example/push'}}]
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {{name: primary, namespace: {namespace}}}
spec:
  clients: [{{url: 'https://loki.example/loki/api/v1/push'}}]
"
    )
}

/// The agent's `Reconciled` condition as `(status, reason, message)`.
async fn reconciled(agents: &Api<GrafanaAgent>, name: &str) -> Option<(String, String, String)> {
    let agent = agents.get(name).await.ok()?;
    let condition = agent
        .status?
        .conditions
        .into_iter()
        .find(|c| c.type_ == "Reconciled")?;
    Some((condition.status, condition.reason, condition.message))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_statefulset_is_reported_and_nothing_else_is_lost() {
    let backends = testenv::backends();
    assert!(!backends.is_empty());
    for backend in backends.into_iter().filter(|b| *b == Backend::ControlPlane) {
        let env = TestEnv::start(backend).await.unwrap();
        install_crds(&env).await;
        let ns = env.create_namespace("refused").await.unwrap();
        kubectl_ok(
            &env,
            &["apply", "--server-side", "-n", &ns, "-f", "-"],
            Some(&manifests(&ns)),
        )
        .await;

        beside_operator(&env, &ns, async {
            let agents: Api<GrafanaAgent> = Api::namespaced(env.client(), &ns);
            let statefulsets: Api<StatefulSet> = Api::namespaced(env.client(), &ns);
            let daemonsets: Api<DaemonSet> = Api::namespaced(env.client(), &ns);

            // Refused from the start: reported, and the logs DaemonSet planned after the
            // StatefulSet exists all the same.
            eventually(
                "the unsized agent's refusal in its status",
                Duration::from_secs(60),
                || async {
                    match reconciled(&agents, "unsized").await {
                        Some((status, _, message))
                            if status == "False" && message.contains("Required value") =>
                        {
                            Ok(())
                        }
                        other => Err(format!("{other:?}")),
                    }
                },
            )
            .await;
            eventually(
                "the unsized agent's logs DaemonSet",
                Duration::from_secs(30),
                || async {
                    daemonsets
                        .get_opt("unsized-logs")
                        .await
                        .map_err(|e| e.to_string())?
                        .ok_or_else(|| "missing".to_owned())
                },
            )
            .await;
            assert!(
                statefulsets.get_opt("unsized").await.unwrap().is_none(),
                "kube-apiserver created a StatefulSet without a claim size"
            );
            // The refusal is a Warning Event on the agent named by its category, published
            // once however often the agent is reconciled again.
            let refusals = || async {
                let events: Api<EventObject> = Api::namespaced(env.client(), &ns);
                let all = events.list(&Default::default()).await.unwrap().items;
                all.into_iter()
                    .filter(|e| {
                        e.type_.as_deref() == Some("Warning")
                            && e.reason.as_deref() == Some("RefusedByAPI")
                            && e.regarding.as_ref().and_then(|r| r.name.as_deref())
                                == Some("unsized")
                    })
                    .map(|e| e.series.map_or(1, |s| s.count))
                    .sum::<i32>()
            };
            eventually(
                "a RefusedByAPI Warning Event on the unsized agent",
                Duration::from_secs(30),
                || async {
                    match refusals().await {
                        0 => Err("none yet".to_owned()),
                        _ => Ok(()),
                    }
                },
            )
            .await;
            agents
                .patch(
                    "unsized",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"metadata": {"labels": {"reconcile": "again"}}})),
                )
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_secs(2)).await;
            assert_eq!(refusals().await, 1, "the same refusal was announced again");

            let running = eventually(
                "the sized agent's StatefulSet",
                Duration::from_secs(60),
                || async {
                    statefulsets
                        .get_opt("sized")
                        .await
                        .map_err(|e| e.to_string())?
                        .ok_or_else(|| "missing".to_owned())
                },
            )
            .await;
            // A claim size cannot change in place, but the new StatefulSet is valid: it is
            // deleted and created again.
            agents
                .patch(
                    "sized",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"spec": {"storage": {"volumeClaimTemplate": {
                        "spec": {"resources": {"requests": {"storage": "2Gi"}}}
                    }}}})),
                )
                .await
                .unwrap();
            let running = eventually(
                "the sized agent's StatefulSet recreated with 2Gi claims",
                Duration::from_secs(60),
                || async {
                    let live = statefulsets
                        .get_opt("sized")
                        .await
                        .map_err(|e| e.to_string())?
                        .ok_or_else(|| "missing".to_owned())?;
                    let size = json!(live.spec.as_ref().map(|s| &s.volume_claim_templates))
                        .pointer("/0/spec/resources/requests/storage")
                        .cloned();
                    if live.metadata.uid != running.metadata.uid && size == Some(json!("2Gi")) {
                        Ok(live)
                    } else {
                        Err(format!("uid {:?}, claim size {size:?}", live.metadata.uid))
                    }
                },
            )
            .await;

            // A running StatefulSet whose new spec is refused in any object stays as it is.
            agents
                .patch(
                    "sized",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"spec": {"storage": {"volumeClaimTemplate": null}}})),
                )
                .await
                .unwrap();
            eventually(
                "the sized agent's refusal in its status",
                Duration::from_secs(60),
                || async {
                    match reconciled(&agents, "sized").await {
                        Some((status, _, message))
                            if status == "False" && message.contains("Required value") =>
                        {
                            Ok(())
                        }
                        other => Err(format!("{other:?}")),
                    }
                },
            )
            .await;
            let kept = statefulsets.get("sized").await.unwrap();
            assert_eq!(
                kept.metadata.uid, running.metadata.uid,
                "the running StatefulSet was deleted and recreated"
            );
            assert!(kept.metadata.deletion_timestamp.is_none());
            assert!(daemonsets.get_opt("sized-logs").await.unwrap().is_some());
        })
        .await;
    }
}
