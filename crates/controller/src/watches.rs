//! The watches behind the controller: one reflector store per kind (what the snapshot step and
//! the apply step read instead of calling the API), and the streams that trigger reconciles.
//!
//! Secrets, ConfigMaps and Namespaces are watched metadata-only (`Api<PartialObjectMeta<_>>`) with managed fields stripped, so
//! memory does not grow with the size of unrelated Secrets; the values a reconcile needs are read
//! then (see [`crate::inputs`]).

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use futures::{Stream, StreamExt};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret, Service};
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{self, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use crate::metrics::Metrics;

/// Whether every watch has listed its kind once: until then a reconcile could see a partial
/// cluster and delete what it merely has not seen yet. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Readiness {
    synced: Arc<AtomicUsize>,
    total: usize,
}

impl Readiness {
    /// True once every watch's cache has synced (stays true: relists keep the old contents
    /// until the new list is complete).
    pub fn is_ready(&self) -> bool {
        self.synced.load(Ordering::Acquire) >= self.total
    }
}

/// Read access to every watched kind. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Stores {
    pub agents: Store<api::GrafanaAgent>,
    pub metrics_instances: Store<api::MetricsInstance>,
    pub logs_instances: Store<api::LogsInstance>,
    pub pod_logs: Store<api::PodLogs>,
    pub integrations: Store<api::Integration>,
    pub service_monitors: Store<api::ServiceMonitor>,
    pub pod_monitors: Store<api::PodMonitor>,
    pub probes: Store<api::Probe>,
    pub namespaces: Store<PartialObjectMeta<Namespace>>,
    pub secrets: Store<PartialObjectMeta<Secret>>,
    pub config_maps: Store<PartialObjectMeta<ConfigMap>>,
    pub services: Store<Service>,
    pub stateful_sets: Store<StatefulSet>,
    pub daemon_sets: Store<DaemonSet>,
    pub deployments: Store<Deployment>,
}

/// A watch's events as the controller consumes them: touched objects (deletions included).
pub(crate) type Trigger<K> =
    std::pin::Pin<Box<dyn Stream<Item = Result<K, watcher::Error>> + Send + 'static>>;

/// Every trigger stream, each feeding the store of the same name in [`Stores`].
pub(crate) struct Triggers {
    pub agents: Trigger<api::GrafanaAgent>,
    pub metrics_instances: Trigger<api::MetricsInstance>,
    pub logs_instances: Trigger<api::LogsInstance>,
    pub pod_logs: Trigger<api::PodLogs>,
    pub integrations: Trigger<api::Integration>,
    pub service_monitors: Trigger<api::ServiceMonitor>,
    pub pod_monitors: Trigger<api::PodMonitor>,
    pub probes: Trigger<api::Probe>,
    pub namespaces: Trigger<PartialObjectMeta<Namespace>>,
    pub secrets: Trigger<PartialObjectMeta<Secret>>,
    pub config_maps: Trigger<PartialObjectMeta<ConfigMap>>,
    pub services: Trigger<Service>,
    pub stateful_sets: Trigger<StatefulSet>,
    pub daemon_sets: Trigger<DaemonSet>,
    pub deployments: Trigger<Deployment>,
}

/// Which changes of a watched object trigger a reconcile (the store sees every change).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Triggering {
    /// Every change: Secrets and ConfigMaps (no `generation`), Namespaces (labels), and the
    /// workloads, whose status feeds the agent's `Available` condition.
    AnyChange,
    /// A change of `metadata.generation`, the labels or the deletion timestamp: the kinds
    /// whose status the operator (or another controller) writes, which nothing it renders
    /// reads. Without this every status write made by a reconcile would trigger another one.
    SpecOrLabels,
}

/// What [`Triggering::SpecOrLabels`] compares: a hash of generation, labels and deletion.
fn spec_or_labels<K: Resource>(object: &K) -> u64 {
    let meta = object.meta();
    let mut h = DefaultHasher::new();
    meta.generation.hash(&mut h);
    meta.labels.hash(&mut h);
    meta.deletion_timestamp.is_some().hash(&mut h);
    h.finish()
}

/// Keeps the [`Triggering::SpecOrLabels`] changes of a watch's events (and every deletion and
/// every object of a (re)list), as touched objects. Not kube-runtime's `predicate_filter`:
/// it sees touched objects without their event, so a deletion (same generation, same
/// labels) would be dropped (kube-rs/kube#1768), and it keeps what it saw of objects gone
/// during a relist.
fn triggering<K>(
    events: impl Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send + 'static,
    triggering: Triggering,
) -> impl Stream<Item = Result<K, watcher::Error>> + Send + 'static
where
    K: Resource + Send + 'static,
{
    let mut seen: HashMap<(Option<String>, Option<String>), u64> = HashMap::new();
    let mut relisting: HashMap<(Option<String>, Option<String>), u64> = HashMap::new();
    let key = |o: &K| (o.meta().namespace.clone(), o.meta().name.clone());
    events.filter_map(move |event| {
        let touched = match event {
            Err(e) => Some(Err(e)),
            Ok(watcher::Event::Init) => {
                relisting.clear();
                None
            }
            Ok(watcher::Event::InitDone) => {
                // Objects gone while the watch was away are forgotten with the old list.
                seen = std::mem::take(&mut relisting);
                None
            }
            Ok(watcher::Event::InitApply(o)) => {
                if triggering == Triggering::SpecOrLabels {
                    relisting.insert(key(&o), spec_or_labels(&o));
                }
                Some(Ok(o))
            }
            Ok(watcher::Event::Delete(o)) => {
                seen.remove(&key(&o));
                Some(Ok(o))
            }
            Ok(watcher::Event::Apply(o)) => match triggering {
                Triggering::AnyChange => Some(Ok(o)),
                Triggering::SpecOrLabels => {
                    let fingerprint = spec_or_labels(&o);
                    let before = seen.insert(key(&o), fingerprint);
                    (before != Some(fingerprint)).then_some(Ok(o))
                }
            },
        };
        std::future::ready(touched)
    })
}

/// The label every object the operator creates carries: owned-object watches list only these.
fn managed_selector() -> String {
    format!(
        "{}={}",
        render::desired::MANAGED_BY_LABEL,
        render::desired::MANAGED_BY_VALUE
    )
}

struct Builder<'a> {
    /// Told when a watch finished a (re)list: a relist replaces its store at once, after the
    /// objects it listed already went by as triggers, so every agent is reconciled again.
    relisted: futures::channel::mpsc::UnboundedSender<()>,
    client: Client,
    namespace: Option<&'a str>,
    metrics: Metrics,
    readiness: Readiness,
}

impl Builder<'_> {
    fn api<K>(&self) -> Api<K>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>,
    {
        match self.namespace {
            Some(ns) => Api::namespaced(self.client.clone(), ns),
            None => Api::all(self.client.clone()),
        }
    }

    /// A hook that counts this watch as synced at its first completed list, for
    /// [`Readiness`]. Not `Store::wait_until_ready`: kube-runtime wakes only the last of
    /// several waiters on one store, and the Controller already waits on the agents' store.
    fn track(&mut self, kind: String) -> impl Fn() + Send + Sync + 'static {
        self.readiness.total += 1;
        let synced = self.readiness.synced.clone();
        let counted = AtomicBool::new(false);
        move || {
            if !counted.swap(true, Ordering::AcqRel) {
                synced.fetch_add(1, Ordering::AcqRel);
                tracing::debug!(kind, "watch cache synced");
            }
        }
    }

    fn full<K>(
        &mut self,
        api: Api<K>,
        config: watcher::Config,
        when: Triggering,
    ) -> (Store<K>, Trigger<K>)
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    {
        let (reader, writer) = reflector::store();
        let kind = K::kind(&()).into_owned();
        let synced = self.track(kind.clone());
        let stream = counted(watcher(api, config), self.metrics.clone(), kind.clone())
            .default_backoff()
            .modify(|o: &mut K| {
                o.managed_fields_mut().clear();
            })
            .reflect(writer)
            .inspect({
                let relisted = self.relisted.clone();
                move |event| {
                    if let Ok(watcher::Event::InitDone) = event {
                        synced();
                        // The receiver lives as long as the controller; after it, no one cares.
                        let _ = relisted.unbounded_send(());
                    }
                }
            });
        (
            reader,
            without_errors(triggering(stream, when), kind).boxed(),
        )
    }
}

/// The touched objects of a watch, its errors logged and left out.
///
/// The watch retries on its own (with its own backoff; after a 410 it relists), so the
/// controller has nothing to do with an error, and must not see one: kube-runtime's
/// `Controller` puts a single backoff over all of its trigger streams together, so every
/// error from one watch paused every watch, for longer at each error. When all watches
/// expired at once (an API server restart, or etcd compaction during a partition), each of
/// them reported its 410 in turn, and changes made meanwhile arrived minutes late.
fn without_errors<K: Send + 'static>(
    stream: impl Stream<Item = Result<K, watcher::Error>> + Send + 'static,
    kind: String,
) -> impl Stream<Item = Result<K, watcher::Error>> + Send + 'static {
    stream.filter_map(move |touched| {
        let kept = match touched {
            Ok(object) => Some(Ok(object)),
            Err(error) => {
                tracing::debug!(kind, %error, "watch failed; it retries with backoff");
                None
            }
        };
        std::future::ready(kept)
    })
}

/// Counts lists, watch events and failures of one watch.
fn counted<K>(
    stream: impl Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send + 'static,
    metrics: Metrics,
    kind: String,
) -> impl Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send + 'static {
    stream.inspect(move |event| match event {
        Ok(watcher::Event::Init) => metrics.list_started(&kind),
        Ok(watcher::Event::Apply(_) | watcher::Event::Delete(_)) => metrics.watch_event(&kind),
        Ok(_) => {}
        Err(watcher::Error::InitialListFailed(_)) => metrics.list_failed(&kind),
        Err(_) => metrics.watch_failed(&kind),
    })
}

/// Starts no request yet: the streams run when the controller polls them.
/// A stream that yields once per completed (re)list of any watch.
pub(crate) type Relisted = futures::channel::mpsc::UnboundedReceiver<()>;

pub(crate) fn build(
    client: Client,
    namespace: Option<&str>,
    agent_selector: Option<&str>,
    metrics: Metrics,
) -> (Stores, Triggers, Readiness, Relisted) {
    let (relisted, relists) = futures::channel::mpsc::unbounded();
    let mut b = Builder {
        relisted,
        client: client.clone(),
        namespace,
        metrics,
        readiness: Readiness {
            synced: Arc::default(),
            total: 0,
        },
    };
    let any = watcher::Config::default;
    let agents_config = match agent_selector {
        Some(s) => any().labels(s),
        None => any(),
    };
    let managed = || any().labels(&managed_selector());

    let status = Triggering::SpecOrLabels;
    let every = Triggering::AnyChange;
    let (agents, agents_t) = b.full(b.api(), agents_config, status);
    let (metrics_instances, metrics_instances_t) = b.full(b.api(), any(), status);
    let (logs_instances, logs_instances_t) = b.full(b.api(), any(), status);
    let (pod_logs, pod_logs_t) = b.full(b.api(), any(), status);
    let (integrations, integrations_t) = b.full(b.api(), any(), status);
    let (service_monitors, service_monitors_t) = b.full(b.api(), any(), status);
    let (pod_monitors, pod_monitors_t) = b.full(b.api(), any(), status);
    let (probes, probes_t) = b.full(b.api(), any(), status);
    // Namespaces are cluster-scoped: watched whole even with --namespace (spec 5).
    let (namespaces, namespaces_t) = b.full(Api::all(client), any(), every);
    let (secrets, secrets_t) = b.full(b.api(), any(), every);
    let (config_maps, config_maps_t) = b.full(b.api(), any(), every);
    let (services, services_t) = b.full(b.api(), managed(), every);
    let (stateful_sets, stateful_sets_t) = b.full(b.api(), managed(), every);
    let (daemon_sets, daemon_sets_t) = b.full(b.api(), managed(), every);
    let (deployments, deployments_t) = b.full(b.api(), managed(), every);
    (
        Stores {
            agents,
            metrics_instances,
            logs_instances,
            pod_logs,
            integrations,
            service_monitors,
            pod_monitors,
            probes,
            namespaces,
            secrets,
            config_maps,
            services,
            stateful_sets,
            daemon_sets,
            deployments,
        },
        Triggers {
            agents: agents_t,
            metrics_instances: metrics_instances_t,
            logs_instances: logs_instances_t,
            pod_logs: pod_logs_t,
            integrations: integrations_t,
            service_monitors: service_monitors_t,
            pod_monitors: pod_monitors_t,
            probes: probes_t,
            namespaces: namespaces_t,
            secrets: secrets_t,
            config_maps: config_maps_t,
            services: services_t,
            stateful_sets: stateful_sets_t,
            daemon_sets: daemon_sets_t,
            deployments: deployments_t,
        },
        b.readiness,
        relists,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::MetricsInstance;
    use kube::api::ObjectMeta;

    fn instance(name: &str, generation: i64, label: &str, status: &str) -> MetricsInstance {
        let mut o = MetricsInstance::new(name, Default::default());
        o.metadata = ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some("ns".to_owned()),
            generation: Some(generation),
            labels: Some([("team".to_owned(), label.to_owned())].into()),
            resource_version: Some(status.to_owned()),
            ..ObjectMeta::default()
        };
        o
    }

    fn names(seen: Vec<Result<MetricsInstance, watcher::Error>>) -> Vec<String> {
        seen.into_iter()
            .map(|o| {
                let o = o.expect("no error");
                format!(
                    "{}@{}",
                    o.name_any(),
                    o.resource_version().unwrap_or_default()
                )
            })
            .collect()
    }

    #[tokio::test]
    async fn status_only_changes_trigger_nothing() {
        use watcher::Event::{Apply, Delete, Init, InitApply, InitDone};
        let events = futures::stream::iter([
            Ok(Init),
            Ok(InitApply(instance("a", 1, "x", "1"))),
            Ok(InitDone),
            // A status write: same generation and labels.
            Ok(Apply(instance("a", 1, "x", "2"))),
            Ok(Apply(instance("a", 2, "x", "3"))),
            Ok(Apply(instance("a", 2, "y", "4"))),
            Ok(Apply(instance("a", 2, "y", "5"))),
            // Created after the list: its first event always counts.
            Ok(Apply(instance("b", 1, "x", "6"))),
            Ok(Delete(instance("a", 2, "y", "7"))),
        ]);
        let seen: Vec<_> = triggering(events, Triggering::SpecOrLabels).collect().await;
        assert_eq!(names(seen), ["a@1", "a@3", "a@4", "b@6", "a@7"]);
    }

    #[tokio::test]
    async fn every_change_triggers_where_asked() {
        use watcher::Event::Apply;
        let events = futures::stream::iter([
            Ok(Apply(instance("a", 1, "x", "1"))),
            Ok(Apply(instance("a", 1, "x", "2"))),
        ]);
        let seen: Vec<_> = triggering(events, Triggering::AnyChange).collect().await;
        assert_eq!(names(seen), ["a@1", "a@2"]);
    }

    #[tokio::test]
    async fn the_controller_sees_no_watch_error() {
        let touched = futures::stream::iter([
            Ok("first"),
            Err(watcher::Error::NoResourceVersion),
            Ok("second"),
            Err(watcher::Error::NoResourceVersion),
        ]);
        let seen: Vec<_> = without_errors(touched, "Test".to_owned())
            .map(|item| item.map_err(|e| e.to_string()))
            .collect()
            .await;
        assert_eq!(seen, [Ok("first"), Ok("second")]);
    }
}
