//! End to end: the operator reads the ConfigMap values render asks for (`to_load`) the way it
//! reads Secret ones. An OAuth2 client id from a ConfigMap (Q17) reaches agent.yml, follows
//! edits of the ConfigMap, and an optional client id whose key appears later is picked up
//! without any change to the object that refers to it.

mod support;

use support::{Backend, Cluster, OperatorProcess};

const INPUTS: &str = "apiVersion: v1
kind: Namespace
metadata: {name: monitoring}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: monitoring}
spec:
  metrics:
    instanceSelector: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: monitoring}
spec:
  remoteWrite:
  - url: http://from-config-map/push
    oauth2:
      clientId:
        configMap: {name: oauth, key: id}
      clientSecret: {name: oauth-secret, key: secret}
      tokenUrl: https://auth.example/token
  - url: http://added-later/push
    oauth2:
      clientId:
        configMap: {name: oauth, key: later-id, optional: true}
      clientSecret: {name: oauth-secret, key: secret}
      tokenUrl: https://auth.example/token
---
apiVersion: v1
kind: ConfigMap
metadata: {name: oauth, namespace: monitoring}
data: {id: first-client}
---
apiVersion: v1
kind: Secret
metadata: {name: oauth-secret, namespace: monitoring}
stringData: {secret: not-a-real-secret}
";

fn patch_config_map(cluster: &Cluster, data: &str) {
    cluster.kubectl(&[
        "patch",
        "configmap",
        "-n",
        "monitoring",
        "oauth",
        "--type",
        "merge",
        "-p",
        &format!(r#"{{"data":{data}}}"#),
    ]);
}

async fn scenario_config_map_values(backend: Backend) {
    let cluster = Cluster::start(backend, "referenced-values").await;
    cluster.apply(INPUTS);
    let operator = OperatorProcess::start(&cluster, "info", &[]);

    cluster.converge("a client id from a ConfigMap");
    let config = cluster.config_text("monitoring", "agent-config");
    assert!(config.contains("client_id: first-client"), "{config}");
    // Optional and missing: the agent cannot do without a client id, so that remote_write
    // is left out (and reported), the other one stays.
    assert!(!config.contains("added-later"), "{config}");

    patch_config_map(&cluster, r#"{"id":"second-client"}"#);
    cluster.converge("the ConfigMap value edited");
    let config = cluster.config_text("monitoring", "agent-config");
    assert!(config.contains("client_id: second-client"), "{config}");

    patch_config_map(&cluster, r#"{"later-id":"late-client"}"#);
    cluster.converge("the optional key added");
    let config = cluster.config_text("monitoring", "agent-config");
    assert!(config.contains("http://added-later/push"), "{config}");
    assert!(config.contains("client_id: late-client"), "{config}");

    operator.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn config_map_values_reach_the_config_and_follow_edits() {
    for backend in testenv::backends() {
        scenario_config_map_values(backend).await;
    }
}
