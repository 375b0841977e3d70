//! The kubelet Service/Endpoints controller over real HTTP: against testkube where a test
//! needs its faults or request counters, else against the backends `testenv` selects.

use std::time::{Duration, Instant};

use controller::kubelet::{KubeletController, KubeletMetrics, KubeletService};
use k8s_openapi::api::core::v1::{Endpoints, Node, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Api, Client};
use prometheus_client::registry::Registry;
use serde_json::json;
use testkube::TestKube;
use tokio_util::sync::CancellationToken;

async fn add_node(client: &Client, name: &str, addresses: serde_json::Value) {
    let nodes: Api<Node> = Api::all(client.clone());
    let node = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();
    let status = json!({"status": {"addresses": addresses}});
    nodes
        .patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
}

async fn endpoint_ips(client: &Client) -> Option<Vec<String>> {
    endpoint_ips_in(client, "default").await
}

async fn endpoint_ips_in(client: &Client, namespace: &str) -> Option<Vec<String>> {
    let endpoints: Api<Endpoints> = Api::namespaced(client.clone(), namespace);
    let live = endpoints.get_opt("kubelet").await.unwrap()?;
    Some(
        live.subsets
            .unwrap_or_default()
            .iter()
            .flat_map(|s| s.addresses.clone().unwrap_or_default())
            .map(|a| a.ip)
            .collect(),
    )
}

async fn slice_names(client: &Client) -> Vec<String> {
    let slices: Api<EndpointSlice> = Api::namespaced(client.clone(), "default");
    let mut names: Vec<String> = slices
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|s| s.metadata.name)
        .collect();
    names.sort();
    names
}

async fn eventually<F, Fut>(what: &str, check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    eventually_within(what, Duration::from_secs(10), check).await;
}

async fn eventually_within<F, Fut>(what: &str, limit: Duration, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !check().await {
        assert!(start.elapsed() < limit, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A kubelet controller running on `client` for `target` (`namespace/name`).
struct Running {
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    fn start(client: &Client, target: &str, metrics: KubeletMetrics) -> Running {
        let target: KubeletService = target.parse().unwrap();
        let stop = CancellationToken::new();
        let task =
            tokio::spawn(KubeletController::new(client.clone(), target, metrics).run(stop.clone()));
        Running { stop, task }
    }

    /// Stops it and waits until it has returned.
    async fn stop(self) {
        self.stop.cancel();
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .unwrap()
            .unwrap();
    }
}

fn metrics_text(registry: &Registry) -> String {
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
    text
}

#[tokio::test]
async fn endpoints_and_slices_follow_the_nodes_and_idle_means_no_writes() {
    let kube = TestKube::start().await.unwrap();
    let client = kube.client().unwrap();
    add_node(
        &client,
        "b",
        json!([{"type": "InternalIP", "address": "10.0.0.2"}]),
    )
    .await;
    add_node(
        &client,
        "a",
        json!([{"type": "ExternalIP", "address": "10.0.0.1"}]),
    )
    .await;
    add_node(
        &client,
        "bare",
        json!([{"type": "Hostname", "address": "bare"}]),
    )
    .await;

    let mut registry = Registry::default();
    let metrics = KubeletMetrics::new(&mut registry);
    let running = Running::start(&client, "default/kubelet", metrics);

    eventually("endpoints for a and b", || async {
        endpoint_ips(&client).await == Some(vec!["10.0.0.1".into(), "10.0.0.2".into()])
    })
    .await;
    let services: Api<Service> = Api::namespaced(client.clone(), "default");
    let service = services.get("kubelet").await.unwrap();
    assert_eq!(service.spec.unwrap().cluster_ip.as_deref(), Some("None"));
    let endpoints: Api<Endpoints> = Api::namespaced(client.clone(), "default");
    let labels = endpoints
        .get("kubelet")
        .await
        .unwrap()
        .metadata
        .labels
        .unwrap();
    assert_eq!(labels["endpointslice.kubernetes.io/skip-mirror"], "true");
    eventually("one IPv4 slice", || async {
        slice_names(&client).await == ["kubelet-ipv4"]
    })
    .await;
    let text = metrics_text(&registry);
    assert!(
        text.contains("agent_operator_kubelet_endpoints 2\n"),
        "{text}"
    );
    assert!(
        text.contains("agent_operator_kubelet_nodes_without_address 1\n"),
        "{text}"
    );

    // Idle: nothing changes, nothing is written, even when a watch is cut and relists.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let writes = kube.counters().total_writes();
    kube.faults().close_watches();
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(kube.counters().total_writes(), writes);

    // A new IPv6 node: the Endpoints and a second slice change, the Service is not rewritten.
    let service_writes = kube.counters().writes("services");
    add_node(
        &client,
        "c",
        json!([{"type": "InternalIP", "address": "fd00::3"}]),
    )
    .await;
    eventually("c published", || async {
        endpoint_ips(&client)
            .await
            .is_some_and(|ips| ips.len() == 3)
    })
    .await;
    eventually("an IPv6 slice", || async {
        slice_names(&client).await == ["kubelet-ipv4", "kubelet-ipv6"]
    })
    .await;
    assert_eq!(kube.counters().writes("services"), service_writes);

    // The node goes away: its slice is deleted.
    let nodes: Api<Node> = Api::all(client.clone());
    nodes.delete("c", &DeleteParams::default()).await.unwrap();
    eventually("the IPv6 slice deleted", || async {
        slice_names(&client).await == ["kubelet-ipv4"]
    })
    .await;

    // A deleted Service is restored.
    services
        .delete("kubelet", &DeleteParams::default())
        .await
        .unwrap();
    eventually("the Service restored", || async {
        services.get_opt("kubelet").await.unwrap().is_some()
    })
    .await;

    running.stop().await;
}

#[tokio::test]
async fn failed_writes_are_retried() {
    let kube = TestKube::start().await.unwrap();
    let client = kube.client().unwrap();
    add_node(
        &client,
        "a",
        json!([{"type": "InternalIP", "address": "10.0.0.1"}]),
    )
    .await;
    kube.faults().fail_next(
        testkube::RequestMatch::verb_resource("patch", "endpoints"),
        2,
        500,
    );

    let metrics = KubeletMetrics::new(&mut Registry::default());
    let running = Running::start(&client, "default/kubelet", metrics);
    eventually("endpoints written after the failures", || async {
        endpoint_ips(&client).await == Some(vec!["10.0.0.1".into()])
    })
    .await;
    running.stop().await;
}

/// The kubelet objects are written by the operator's one writer: a hand edit of a field it
/// sets is put back, as for an agent's objects, by the real API server too (its defaults and
/// the fields it adds are no edit). No Node is created: the Service does not depend on them.
#[tokio::test]
async fn a_hand_edited_kubelet_service_is_restored() {
    for backend in testenv::backends() {
        let env = testenv::TestEnv::start(backend).await.unwrap();
        let namespace = env.create_namespace("kubelet").await.unwrap();
        let client = env.client();
        let metrics = KubeletMetrics::new(&mut Registry::default());
        let running = Running::start(&client, &format!("{namespace}/kubelet"), metrics);
        let services: Api<Service> = Api::namespaced(client.clone(), &namespace);
        let ports = || async {
            let service = services.get_opt("kubelet").await.unwrap()?;
            let ports = service.spec?.ports?;
            Some(
                ports
                    .into_iter()
                    .map(|p| format!("{}={}", p.name.unwrap_or_default(), p.port))
                    .collect::<Vec<_>>(),
            )
        };
        let written = || {
            Some(vec![
                "https-metrics=10250".to_owned(),
                "http-metrics=10255".to_owned(),
                "cadvisor=4194".to_owned(),
            ])
        };
        eventually_within("the Service written", Duration::from_secs(30), || async {
            ports().await == written()
        })
        .await;

        // Someone else renames a port the operator names, with a plain merge patch.
        let edit = json!({"spec": {"ports": [
            {"name": "https-metrics", "port": 10250, "protocol": "TCP"},
            {"name": "edited", "port": 10255, "protocol": "TCP"},
            {"name": "cadvisor", "port": 4194, "protocol": "TCP"},
        ]}});
        services
            .patch("kubelet", &PatchParams::default(), &Patch::Merge(&edit))
            .await
            .unwrap();
        eventually_within(
            &format!("{backend:?}: the edited port restored"),
            Duration::from_secs(30),
            || async { ports().await == written() },
        )
        .await;

        running.stop().await;
    }
}

/// What the real API server adds to the written objects (defaults, fields it fills) is no
/// drift: while Nodes change in ways the objects do not hold (labels, here), nothing is
/// written. Node names are unique per backend: the control plane is shared by the tests.
#[tokio::test]
async fn nothing_is_written_while_only_node_details_change() {
    for backend in testenv::backends() {
        let env = testenv::TestEnv::start(backend).await.unwrap();
        let namespace = env.create_namespace("kubelet-idle").await.unwrap();
        let client = env.client();
        let nodes: Api<Node> = Api::all(client.clone());
        let names = [format!("{namespace}-a"), format!("{namespace}-b")];
        for (name, ip) in names.iter().zip(["10.9.0.1", "10.9.0.2"]) {
            add_node(
                &client,
                name,
                json!([{"type": "InternalIP", "address": ip}]),
            )
            .await;
        }
        let metrics = KubeletMetrics::new(&mut Registry::default());
        let running = Running::start(&client, &format!("{namespace}/kubelet"), metrics);
        let services: Api<Service> = Api::namespaced(client.clone(), &namespace);
        let endpoints: Api<Endpoints> = Api::namespaced(client.clone(), &namespace);
        let slices: Api<EndpointSlice> = Api::namespaced(client.clone(), &namespace);
        let versions = || async {
            let version = |meta: kube::api::ObjectMeta| meta.resource_version.unwrap_or_default();
            let service = services.get_opt("kubelet").await.unwrap()?;
            let endpoints = endpoints.get_opt("kubelet").await.unwrap()?;
            let mut all = vec![version(service.metadata), version(endpoints.metadata)];
            let listed = slices.list(&ListParams::default()).await.unwrap().items;
            all.extend(listed.into_iter().map(|s| version(s.metadata)));
            Some(all)
        };
        eventually_within("both nodes published", Duration::from_secs(30), || async {
            endpoint_ips_in(&client, &namespace)
                .await
                .is_some_and(|ips| ips.len() == 2)
        })
        .await;
        // Whatever the first writes caused has settled.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let before = versions().await;
        for i in 0..5 {
            let patch = json!({"metadata": {"labels": {"churn": format!("x{i}")}}});
            nodes
                .patch(&names[0], &PatchParams::default(), &Patch::Merge(&patch))
                .await
                .unwrap();
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(versions().await, before, "{backend:?}: written while idle");

        for name in &names {
            nodes.delete(name, &DeleteParams::default()).await.unwrap();
        }
        running.stop().await;
    }
}
