//! What the real control plane adds over testkube, and what tests rely on it for: RBAC for the
//! operator's identity, kube-controller-manager's garbage collector and workload controllers.

mod support;

use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use kube::core::ObjectMeta;
use serde_json::json;
use support::{kubectl, kubectl_ok};
use testenv::{Backend, TestEnv};

const OPERATOR: &str = "system:serviceaccount:agent-operator:grafana-agent-operator";

/// Polls `condition` every 200 ms until it holds, failing the test after `limit`.
async fn eventually<F, Fut>(what: &str, limit: Duration, mut condition: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let start = Instant::now();
    while !condition().await {
        assert!(start.elapsed() < limit, "{what}: not after {limit:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operator_identity_is_the_service_account_and_rbac_applies() {
    for backend in testenv::backends() {
        let env = TestEnv::start(backend).await.unwrap();
        let Some(operator_kubeconfig) = env.operator_kubeconfig() else {
            assert_eq!(
                backend,
                Backend::TestKube,
                "only testkube has no authentication"
            );
            continue;
        };
        let namespace = env.create_namespace("rbac").await.unwrap();
        let as_operator = |args: &[&str]| {
            let mut command = tokio::process::Command::from(env.kubectl());
            command.env("KUBECONFIG", operator_kubeconfig).args(args);
            command
        };

        let whoami = as_operator(&["auth", "whoami", "-o", "json"])
            .output()
            .await
            .unwrap();
        assert!(whoami.status.success(), "{whoami:?}");
        let whoami: serde_json::Value = serde_json::from_slice(&whoami.stdout).unwrap();
        assert_eq!(whoami["status"]["userInfo"]["username"], OPERATOR);
        let groups = &whoami["status"]["userInfo"]["groups"];
        for group in [
            "system:serviceaccounts",
            "system:serviceaccounts:agent-operator",
            "system:authenticated",
        ] {
            assert!(
                groups.as_array().unwrap().contains(&json!(group)),
                "{group} missing from {groups}"
            );
        }

        let get_secrets = ["get", "secrets", "-n", namespace.as_str()];
        let denied = as_operator(&get_secrets).output().await.unwrap();
        assert!(!denied.status.success());
        assert!(
            String::from_utf8_lossy(&denied.stderr).contains("Forbidden"),
            "{denied:?}"
        );

        let grant = [
            json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "Role",
                "metadata": {"name": "read-secrets", "namespace": namespace},
                "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list"]}]
            }),
            json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": {"name": "operator-reads-secrets", "namespace": namespace},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "read-secrets"},
                "subjects": [{"kind": "ServiceAccount", "name": "grafana-agent-operator", "namespace": "agent-operator"}]
            }),
        ];
        let grant: String = grant.iter().map(|object| format!("{object}\n")).collect();
        kubectl_ok(&env, &["apply", "-f", "-"], Some(&grant)).await;
        let allowed = as_operator(&get_secrets).output().await.unwrap();
        assert!(allowed.status.success(), "{allowed:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_collector_deletes_dependents_of_a_deleted_owner() {
    for backend in testenv::backends() {
        let env = TestEnv::start(backend).await.unwrap();
        let namespace = env.create_namespace("gc").await.unwrap();
        let configmaps = Api::<ConfigMap>::namespaced(env.client(), &namespace);
        let owner = configmaps
            .create(&PostParams::default(), &config_map("owner", None))
            .await
            .unwrap();
        let reference = json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": "owner",
            "uid": owner.metadata.uid,
            "controller": true,
            "blockOwnerDeletion": true,
        });
        configmaps
            .create(
                &PostParams::default(),
                &config_map(
                    "dependent",
                    Some(serde_json::from_value(reference).unwrap()),
                ),
            )
            .await
            .unwrap();

        configmaps
            .delete("owner", &DeleteParams::background())
            .await
            .unwrap();
        eventually(
            &format!("[{backend}] the dependent is garbage-collected"),
            Duration::from_secs(60),
            || async { configmaps.get_opt("dependent").await.unwrap().is_none() },
        )
        .await;
    }
}

/// kube-controller-manager's workload controllers run (testkube has none): a Deployment gets a
/// ReplicaSet and Pods, which stay Pending without a scheduler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workload_controllers_run_on_the_control_plane() {
    for backend in testenv::backends() {
        if backend != Backend::ControlPlane {
            continue;
        }
        let env = TestEnv::start(backend).await.unwrap();
        let namespace = env.create_namespace("workloads").await.unwrap();
        let deployment = json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": namespace},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "web", "image": "example.invalid/web:1"}]}
                }
            }
        });
        kubectl_ok(&env, &["apply", "-f", "-"], Some(&deployment.to_string())).await;
        let pods = Api::<Pod>::namespaced(env.client(), &namespace);
        eventually(
            "the Deployment's two Pods are created",
            Duration::from_secs(60),
            || async { pods.list(&ListParams::default()).await.unwrap().items.len() == 2 },
        )
        .await;
        let replica_sets = Api::<ReplicaSet>::namespaced(env.client(), &namespace);
        assert_eq!(
            replica_sets
                .list(&ListParams::default())
                .await
                .unwrap()
                .items
                .len(),
            1
        );
        for pod in pods.list(&ListParams::default()).await.unwrap() {
            let phase = pod.status.and_then(|status| status.phase);
            assert_eq!(phase.as_deref(), Some("Pending"));
        }

        // Deleting the namespace removes everything in it (namespace controller).
        let deleted = kubectl(
            &env,
            &[
                "delete",
                "namespace",
                &namespace,
                "--wait=true",
                "--timeout=60s",
            ],
            None,
        )
        .await;
        assert!(deleted.status.success(), "{deleted:?}");
    }
}

fn config_map(
    name: &str,
    owner: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>,
) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            owner_references: owner.map(|owner| vec![owner]),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    }
}
