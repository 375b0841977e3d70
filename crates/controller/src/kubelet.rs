//! The kubelet Service/Endpoints controller (`--kubelet-service NS/NAME`, spec 3.10): one
//! headless Service whose endpoints are every Node's address, so a ServiceMonitor can scrape
//! the kubelets and cAdvisor.
//!
//! Compared with upstream (compatibility Q32): a node without an address is skipped and
//! reported instead of failing the whole update, and EndpointSlices are maintained beside the
//! Endpoints (which are marked `skip-mirror`, so kube-controller-manager does not mirror them
//! into a second, duplicate set of slices).
//!
//! The objects are written by the operator's one writer (`crate::writer`), as an agent's are:
//! only when their content changed or someone else's edit made them drift, and failures carry
//! the same error categories.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::{FutureExt, StreamExt, stream};
use k8s_openapi::api::core::v1::{
    EndpointAddress, EndpointPort, EndpointSubset, Endpoints, Node, NodeStatus, ObjectReference,
    Service, ServicePort, ServiceSpec,
};
use k8s_openapi::api::discovery::v1::{
    Endpoint, EndpointConditions, EndpointPort as SlicePort, EndpointSlice,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::runtime::reflector::{self, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, Resource};
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use render::desired::{MANAGED_BY_LABEL, MANAGED_BY_VALUE};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::backoff::Backoff;
use crate::error::Error;
use crate::watches::watch_config;
use crate::writer::{OwnWrites, Writer};

const SLICE_MANAGER: &str = "agent-operator";
/// The API server refuses EndpointSlices with more endpoints than this.
const MAX_ENDPOINTS_PER_SLICE: usize = 1000;
const PORTS: [(&str, i32); 3] = [
    ("https-metrics", 10250),
    ("http-metrics", 10255),
    ("cadvisor", 4194),
];

#[derive(Debug, thiserror::Error)]
pub enum KubeletError {
    #[error("invalid format for kubelet-service {0:?}, must be formatted as \"namespace/name\"")]
    Format(String),
}

/// The `namespace/name` of the kubelet Service, Endpoints and EndpointSlices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeletService {
    pub namespace: String,
    pub name: String,
}

impl std::str::FromStr for KubeletService {
    type Err = KubeletError;

    fn from_str(value: &str) -> Result<Self, KubeletError> {
        match value.split('/').collect::<Vec<_>>()[..] {
            [namespace, name] if !namespace.is_empty() && !name.is_empty() => Ok(KubeletService {
                namespace: namespace.to_string(),
                name: name.to_string(),
            }),
            _ => Err(KubeletError::Format(value.to_string())),
        }
    }
}

impl fmt::Display for KubeletService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// One node's published address.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NodeAddress {
    ip: String,
    node: String,
    uid: Option<String>,
}

/// The first InternalIP, else the first ExternalIP.
fn node_ip(node: &Node) -> Option<&str> {
    let addresses = node.status.as_ref()?.addresses.as_ref()?;
    ["InternalIP", "ExternalIP"].iter().find_map(|kind| {
        addresses
            .iter()
            .find(|a| a.type_ == *kind && !a.address.is_empty())
            .map(|a| a.address.as_str())
    })
}

/// Everything the controller writes for the current nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Desired {
    pub service: Service,
    pub endpoints: Endpoints,
    pub slices: Vec<EndpointSlice>,
    /// Nodes left out for lacking an InternalIP and an ExternalIP, sorted.
    pub skipped: Vec<String>,
}

/// Computes the objects for `nodes` (any order); pure, so it is tested without a server.
pub fn desired(target: &KubeletService, nodes: &[Arc<Node>]) -> Desired {
    let mut addresses = Vec::with_capacity(nodes.len());
    let mut skipped = Vec::new();
    for node in nodes {
        let name = node.metadata.name.clone().unwrap_or_default();
        match node_ip(node) {
            Some(ip) => addresses.push(NodeAddress {
                ip: ip.to_string(),
                node: name,
                uid: node.metadata.uid.clone(),
            }),
            None => skipped.push(name),
        }
    }
    // By IP string as upstream, then name, so equal inputs in any order give equal objects.
    addresses.sort_by(|a, b| (&a.ip, &a.node).cmp(&(&b.ip, &b.node)));
    skipped.sort();
    Desired {
        service: service(target),
        endpoints: endpoints(target, &addresses),
        slices: slices(target, &addresses),
        skipped,
    }
}

fn labels() -> BTreeMap<String, String> {
    [
        (MANAGED_BY_LABEL, MANAGED_BY_VALUE),
        ("app.kubernetes.io/name", "kubelet"),
        ("k8s-app", "kubelet"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn metadata(target: &KubeletService, name: &str, extra: &[(&str, &str)]) -> ObjectMeta {
    let mut labels = labels();
    labels.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: Some(target.namespace.clone()),
        labels: Some(labels),
        ..ObjectMeta::default()
    }
}

fn service(target: &KubeletService) -> Service {
    Service {
        metadata: metadata(target, &target.name, &[]),
        spec: Some(ServiceSpec {
            type_: Some("ClusterIP".into()),
            cluster_ip: Some("None".into()),
            ports: Some(
                PORTS
                    .iter()
                    .map(|(name, port)| ServicePort {
                        name: Some(name.to_string()),
                        port: *port,
                        protocol: Some("TCP".into()),
                        ..ServicePort::default()
                    })
                    .collect(),
            ),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    }
}

fn node_ref(address: &NodeAddress) -> ObjectReference {
    ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("Node".into()),
        name: Some(address.node.clone()),
        uid: address.uid.clone(),
        ..ObjectReference::default()
    }
}

fn endpoints(target: &KubeletService, addresses: &[NodeAddress]) -> Endpoints {
    let subsets = (!addresses.is_empty()).then(|| {
        vec![EndpointSubset {
            addresses: Some(
                addresses
                    .iter()
                    .map(|a| EndpointAddress {
                        ip: a.ip.clone(),
                        target_ref: Some(node_ref(a)),
                        ..EndpointAddress::default()
                    })
                    .collect(),
            ),
            ports: Some(
                PORTS
                    .iter()
                    .map(|(name, port)| EndpointPort {
                        name: Some(name.to_string()),
                        port: *port,
                        protocol: Some("TCP".into()),
                        ..EndpointPort::default()
                    })
                    .collect(),
            ),
            ..EndpointSubset::default()
        }]
    });
    Endpoints {
        metadata: metadata(
            target,
            &target.name,
            &[("endpointslice.kubernetes.io/skip-mirror", "true")],
        ),
        subsets: Some(subsets.unwrap_or_default()),
    }
}

/// One slice per address family and per 1000 addresses: `<name>-ipv4`, `<name>-ipv4-1`, ...
/// An address family with no node has no slice.
fn slices(target: &KubeletService, addresses: &[NodeAddress]) -> Vec<EndpointSlice> {
    let mut slices = Vec::new();
    for (family, is_family) in [
        ("IPv4", (|ip: &str| !ip.contains(':')) as fn(&str) -> bool),
        ("IPv6", |ip: &str| ip.contains(':')),
    ] {
        let members: Vec<&NodeAddress> = addresses.iter().filter(|a| is_family(&a.ip)).collect();
        for (index, chunk) in members.chunks(MAX_ENDPOINTS_PER_SLICE).enumerate() {
            let base = format!("{}-{}", target.name, family.to_lowercase());
            let name = if index == 0 {
                base
            } else {
                format!("{base}-{index}")
            };
            slices.push(EndpointSlice {
                metadata: metadata(
                    target,
                    &name,
                    &[
                        ("kubernetes.io/service-name", &target.name),
                        ("endpointslice.kubernetes.io/managed-by", SLICE_MANAGER),
                    ],
                ),
                address_type: family.to_string(),
                endpoints: chunk
                    .iter()
                    .map(|a| Endpoint {
                        addresses: vec![a.ip.clone()],
                        conditions: Some(EndpointConditions {
                            ready: Some(true),
                            ..EndpointConditions::default()
                        }),
                        node_name: Some(a.node.clone()),
                        target_ref: Some(node_ref(a)),
                        ..Endpoint::default()
                    })
                    .collect(),
                ports: Some(
                    PORTS
                        .iter()
                        .map(|(name, port)| SlicePort {
                            name: Some(name.to_string()),
                            port: Some(*port),
                            protocol: Some("TCP".into()),
                            ..SlicePort::default()
                        })
                        .collect(),
                ),
            });
        }
    }
    slices
}

fn slice_selector(target: &KubeletService) -> String {
    format!(
        "kubernetes.io/service-name={},endpointslice.kubernetes.io/managed-by={SLICE_MANAGER}",
        target.name
    )
}

/// Gauges of what the last update published.
#[derive(Clone, Debug, Default)]
pub struct KubeletMetrics {
    endpoints: Gauge,
    skipped: Gauge,
}

impl KubeletMetrics {
    pub fn new(registry: &mut Registry) -> Self {
        let metrics = KubeletMetrics::default();
        registry.register(
            "agent_operator_kubelet_endpoints",
            "Node addresses published in the kubelet Endpoints and EndpointSlices",
            metrics.endpoints.clone(),
        );
        registry.register(
            "agent_operator_kubelet_nodes_without_address",
            "Nodes left out of the kubelet Endpoints for having neither an InternalIP nor an ExternalIP",
            metrics.skipped.clone(),
        );
        metrics
    }
}

/// Keeps the kubelet Service, Endpoints and EndpointSlices equal to the current Nodes.
pub struct KubeletController {
    client: Client,
    writer: Writer,
    own_writes: OwnWrites,
    target: KubeletService,
    metrics: KubeletMetrics,
}

/// The caches the controller compares against: the live objects it writes, and the Nodes.
struct Caches {
    nodes: Store<Node>,
    services: Store<Service>,
    endpoints: Store<Endpoints>,
    slices: Store<EndpointSlice>,
}

impl KubeletController {
    pub fn new(client: Client, target: KubeletService, metrics: KubeletMetrics) -> Self {
        let own_writes = OwnWrites::default();
        KubeletController {
            writer: Writer::new(client.clone(), own_writes.clone()),
            own_writes,
            client,
            target,
            metrics,
        }
    }

    /// Watches Nodes and the written objects and updates on every change, until `stop`.
    /// Failed updates are retried with backoff; a write in flight when `stop` comes finishes.
    pub async fn run(self, stop: CancellationToken) {
        let target = &self.target;
        let ns = target.namespace.as_str();
        let by_name = watch_config().fields(&format!("metadata.name={}", target.name));
        let (nodes, nodes_writer) = reflector::store();
        let (services, services_writer) = reflector::store();
        let (endpoints, endpoints_writer) = reflector::store();
        let (slices, slices_writer) = reflector::store();
        // Nodes carry image lists and conditions we never read; keep addresses only.
        let node_events = watcher(Api::<Node>::all(self.client.clone()), watch_config())
            .modify(|node: &mut Node| {
                node.metadata.managed_fields = None;
                node.metadata.annotations = None;
                node.metadata.labels = None;
                node.spec = None;
                node.status = node.status.take().map(|status| NodeStatus {
                    addresses: status.addresses,
                    ..NodeStatus::default()
                });
            })
            .reflect(nodes_writer);
        let service_events = watcher(
            Api::<Service>::namespaced(self.client.clone(), ns),
            by_name.clone(),
        )
        .reflect(services_writer);
        let endpoints_events = watcher(
            Api::<Endpoints>::namespaced(self.client.clone(), ns),
            by_name,
        )
        .reflect(endpoints_writer);
        let slice_events = watcher(
            Api::<EndpointSlice>::namespaced(self.client.clone(), ns),
            watch_config().labels(&slice_selector(target)),
        )
        .reflect(slices_writer);
        // The watch events of the controller's own writes trigger nothing: an object that keeps
        // drifting (a field another manager holds) is written once per real change, not in a
        // loop of write, event, write.
        let own = &self.own_writes;
        let mut events = stream::select_all([
            watch_status(0, node_events, None),
            watch_status(1, service_events, Some(own.clone())),
            watch_status(2, endpoints_events, Some(own.clone())),
            watch_status(3, slice_events, Some(own.clone())),
        ]);
        let caches = Caches {
            nodes,
            services,
            endpoints,
            slices,
        };

        info!(service = %target, "kubelet controller started");
        let mut synced = [false; 4];
        let mut retry_in: Option<Duration> = None;
        let mut backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(60));
        let mut last_skipped: Option<Vec<String>> = None;
        loop {
            let retry = async {
                match retry_in {
                    Some(delay) => tokio::time::sleep(delay).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = stop.cancelled() => break,
                () = retry => {}
                Some(status) = events.next() => {
                    record(&mut synced, status);
                    // Handle a burst of events with one update.
                    while let Some(Some(status)) = events.next().now_or_never() {
                        record(&mut synced, status);
                    }
                }
            }
            if !synced.iter().all(|s| *s) {
                continue;
            }
            let desired = desired(target, &caches.nodes.state());
            if last_skipped.as_ref() != Some(&desired.skipped) {
                if !desired.skipped.is_empty() {
                    warn!(nodes = ?desired.skipped, service = %target,
                          "nodes without an InternalIP or ExternalIP are left out of the kubelet endpoints");
                }
                last_skipped = Some(desired.skipped.clone());
            }
            self.metrics.skipped.set(gauge_value(desired.skipped.len()));
            let published: usize = desired.slices.iter().map(|s| s.endpoints.len()).sum();
            self.metrics.endpoints.set(gauge_value(published));
            retry_in = match self.update(&caches, &desired).await {
                Ok(()) => {
                    backoff.reset();
                    None
                }
                Err(e) => {
                    let delay = backoff.next_delay();
                    warn!(error = %e, category = e.category().label(), retry_in = ?delay, "kubelet controller update failed");
                    Some(delay)
                }
            };
        }
        info!(service = %target, "kubelet controller stopped");
    }

    async fn update(&self, caches: &Caches, desired: &Desired) -> Result<(), Error> {
        let writer = &self.writer;
        writer.write(&caches.services, &desired.service).await?;
        writer.write(&caches.endpoints, &desired.endpoints).await?;
        for slice in &desired.slices {
            writer.write(&caches.slices, slice).await?;
        }
        let wanted: BTreeSet<&str> = desired
            .slices
            .iter()
            .filter_map(|s| s.metadata.name.as_deref())
            .collect();
        let ns = &self.target.namespace;
        for stale in caches.slices.state() {
            let Some(name) = stale.metadata.name.as_deref() else {
                continue;
            };
            if wanted.contains(name) {
                continue;
            }
            info!(namespace = %ns, %name, "deleting an EndpointSlice no node needs");
            writer.delete::<EndpointSlice>(ns, name).await?;
        }
        Ok(())
    }
}

/// Which watch a status is from, and whether it finished its initial list.
struct WatchStatus {
    source: usize,
    init_done: bool,
}

fn watch_status<K, S>(
    source: usize,
    events: S,
    own_writes: Option<OwnWrites>,
) -> stream::BoxStream<'static, WatchStatus>
where
    K: Resource<DynamicType = ()> + Send + 'static,
    S: futures::Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send + 'static,
{
    events
        .default_backoff()
        .filter_map(move |event| {
            let echo = match (&event, &own_writes) {
                (Ok(watcher::Event::Apply(object)), Some(own)) => own.is_echo(object, true),
                (Ok(watcher::Event::Delete(object)), Some(own)) => own.is_echo(object, false),
                _ => false,
            };
            async move {
                if echo {
                    return None;
                }
                match event {
                    Ok(watcher::Event::InitDone) => Some(WatchStatus {
                        source,
                        init_done: true,
                    }),
                    Ok(watcher::Event::Init | watcher::Event::InitApply(_)) => None,
                    Ok(_) => Some(WatchStatus {
                        source,
                        init_done: false,
                    }),
                    Err(e) => {
                        warn!(error = %e, "kubelet controller watch failed; retrying");
                        None
                    }
                }
            }
        })
        .boxed()
}

fn record(synced: &mut [bool; 4], status: WatchStatus) {
    if status.init_done {
        synced[status.source] = true;
    }
}

fn gauge_value(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::NodeAddress as Address;

    use super::*;

    fn node(name: &str, addresses: &[(&str, &str)]) -> Arc<Node> {
        Arc::new(Node {
            metadata: ObjectMeta {
                name: Some(name.into()),
                uid: Some(format!("uid-{name}")),
                ..ObjectMeta::default()
            },
            status: Some(NodeStatus {
                addresses: Some(
                    addresses
                        .iter()
                        .map(|(type_, address)| Address {
                            type_: type_.to_string(),
                            address: address.to_string(),
                        })
                        .collect(),
                ),
                ..NodeStatus::default()
            }),
            ..Node::default()
        })
    }

    fn target() -> KubeletService {
        "monitoring/kubelet".parse().unwrap()
    }

    #[test]
    fn the_flag_must_be_namespace_slash_name() {
        assert_eq!(
            target(),
            KubeletService {
                namespace: "monitoring".into(),
                name: "kubelet".into()
            }
        );
        for bad in ["kubelet", "a/b/c", "/kubelet", "monitoring/", ""] {
            let error = bad.parse::<KubeletService>().unwrap_err().to_string();
            assert_eq!(
                error,
                format!(
                    "invalid format for kubelet-service {bad:?}, must be formatted as \"namespace/name\""
                )
            );
        }
    }

    #[test]
    fn nodes_publish_their_internal_ip_else_external_ip_sorted_by_ip_and_addressless_nodes_are_skipped()
     {
        let nodes = [
            node("c", &[("Hostname", "c"), ("ExternalIP", "10.0.0.9")]),
            node(
                "a",
                &[("ExternalIP", "1.2.3.4"), ("InternalIP", "10.0.0.2")],
            ),
            node("b", &[("Hostname", "b")]),
            node("d", &[("InternalIP", "10.0.0.10")]),
            node("e", &[("InternalIP", "fd00::1")]),
        ];
        let desired = desired(&target(), &nodes);
        assert_eq!(desired.skipped, ["b"]);
        let subset = &desired.endpoints.subsets.as_ref().unwrap()[0];
        let ips: Vec<(&str, &str)> = subset
            .addresses
            .as_ref()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a.ip.as_str(),
                    a.target_ref.as_ref().unwrap().name.as_deref().unwrap(),
                )
            })
            .collect();
        // String order, as upstream: "10.0.0.10" sorts before "10.0.0.2".
        assert_eq!(
            ips,
            [
                ("10.0.0.10", "d"),
                ("10.0.0.2", "a"),
                ("10.0.0.9", "c"),
                ("fd00::1", "e")
            ]
        );
        let slices: Vec<(&str, &str, usize)> = desired
            .slices
            .iter()
            .map(|s| {
                (
                    s.metadata.name.as_deref().unwrap(),
                    s.address_type.as_str(),
                    s.endpoints.len(),
                )
            })
            .collect();
        assert_eq!(
            slices,
            [("kubelet-ipv4", "IPv4", 3), ("kubelet-ipv6", "IPv6", 1)]
        );
        let reversed: Vec<Arc<Node>> = nodes.iter().rev().cloned().collect();
        assert_eq!(super::desired(&target(), &reversed), desired);
    }

    #[test]
    fn the_service_is_headless_with_the_three_kubelet_ports_and_upstream_labels() {
        let desired = desired(&target(), &[]);
        let yaml = serde_json::to_value(&desired.service).unwrap();
        assert_eq!(
            yaml,
            serde_json::json!({
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {
                    "name": "kubelet",
                    "namespace": "monitoring",
                    "labels": {
                        "app.kubernetes.io/managed-by": "grafana-agent-operator",
                        "app.kubernetes.io/name": "kubelet",
                        "k8s-app": "kubelet",
                    },
                },
                "spec": {
                    "type": "ClusterIP",
                    "clusterIP": "None",
                    "ports": [
                        {"name": "https-metrics", "port": 10250, "protocol": "TCP"},
                        {"name": "http-metrics", "port": 10255, "protocol": "TCP"},
                        {"name": "cadvisor", "port": 4194, "protocol": "TCP"},
                    ],
                },
            })
        );
        assert_eq!(desired.endpoints.subsets, Some(vec![]));
        assert!(desired.slices.is_empty());
    }

    #[test]
    fn more_than_a_thousand_nodes_take_several_slices() {
        let nodes: Vec<Arc<Node>> = (0..2500)
            .map(|i| {
                let ip = format!("10.{}.{}.1", i / 256, i % 256);
                node(&format!("n{i}"), &[("InternalIP", ip.as_str())])
            })
            .collect();
        let desired = desired(&target(), &nodes);
        let sizes: Vec<(String, usize)> = desired
            .slices
            .iter()
            .map(|s| (s.metadata.name.clone().unwrap(), s.endpoints.len()))
            .collect();
        assert_eq!(
            sizes,
            [
                ("kubelet-ipv4".to_string(), 1000),
                ("kubelet-ipv4-1".to_string(), 1000),
                ("kubelet-ipv4-2".to_string(), 500)
            ]
        );
    }
}
