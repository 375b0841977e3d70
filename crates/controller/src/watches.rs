//! The watches behind the controller: one reflector store per kind (what the snapshot step and
//! the apply step read instead of calling the API), and the streams that trigger reconciles.
//!
//! Secrets, ConfigMaps and Namespaces are watched metadata-only (`Api<PartialObjectMeta<_>>`) with managed fields stripped, so
//! memory does not grow with the size of unrelated Secrets; the values a reconcile needs are read
//! then (see [`crate::inputs`]).

use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use futures::{Stream, StreamExt};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret, Service};
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use render::input_ref::Kind;
use render::status::SharedStatus;
use render::store::InputStore;
use serde::Serialize;

use crate::checked::Checked;
use crate::error::Error;
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

/// How long the API server keeps one of the operator's watches open (`timeoutSeconds`); the
/// watcher then resumes it from its last resourceVersion (a bookmark just before the end keeps
/// that recent, so no relist). kube-runtime drops a watch that delivered nothing, not even a
/// bookmark, for this long plus 5 s, so this bounds how long a watch that stalls without
/// closing goes unnoticed: 30 s, against 295 s with kube-runtime's default of 290 s (an edit
/// waited 291 s behind a stalled ServiceMonitor watch). The cost is one watch request per
/// watched kind every 25 s.
pub(crate) const WATCH_TIMEOUT_SECS: u32 = 25;

/// A watch that ends every [`WATCH_TIMEOUT_SECS`], so that a stalled one is noticed.
pub(crate) fn watch_config() -> watcher::Config {
    watcher::Config::default().timeout(WATCH_TIMEOUT_SECS)
}

/// What a watched kind is to the controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// An input of discovery, under this name: its store goes into the snapshot, its changes
    /// map to the agents that select or reference it, Events about it find its UID here.
    Input(Kind),
    /// An object the operator writes: its changes map to its controlling agent unless they are
    /// the operator's own write.
    Generated,
}

/// Makes the mapper of each registry line: what turns a change of one of its objects into the
/// agents to reconcile (implemented by `mappers::Mappers`).
pub(crate) trait MapperFactory {
    fn mapper<K>(
        &self,
        role: Role,
        store: Store<K>,
    ) -> impl Fn(K) -> Vec<ObjectRef<api::GrafanaAgent>> + Send + Sync + 'static
    where
        K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static;
}

/// What the status step does with the store of each kind whose status holds one entry per
/// selecting agent ([`Stores::each_with_entries`]).
pub(crate) trait EntriesVisitor {
    type Error;
    fn visit<K: WithEntries>(
        &mut self,
        store: &Store<K>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send;
}

/// A namespaced kind as the controller stores, reads and writes it: typed, cloneable, shared
/// across tasks. Every kind with a store and every kind the writer writes is one.
pub(crate) trait Namespaced:
    Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
    + Clone
    + DeserializeOwned
    + Serialize
    + Debug
    + Send
    + Sync
    + 'static
{
}

impl<K> Namespaced for K where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Serialize
        + Debug
        + Send
        + Sync
        + 'static
{
}

/// A watched kind with per-agent status entries, as the status step reads and writes it.
pub(crate) trait WithEntries: SharedStatus + Namespaced {}

impl<K: SharedStatus + Namespaced> WithEntries for K {}

/// Lists every object of kind `K` (all namespaces) and feeds the list to `inputs` as a watch's
/// completed list would be, the fields our schema lacks included.
async fn list_into<K>(
    client: &Client,
    inputs: &mut InputStore,
    (feed, kind): (Feed<K>, Kind),
) -> Result<(), Error>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    let listed = match Api::<Checked<K>>::all(client.clone())
        .list(&kube::api::ListParams::default())
        .await
    {
        // The kind is not served (its CRD is not installed: a cluster with prometheus-operator
        // CRDs older than ScrapeConfig's), so it has no objects.
        Err(kube::Error::Api(s)) if s.code == 404 => return Ok(()),
        listed => listed.map_err(Error::api(format!("listing {}s", K::kind(&()))))?,
    };
    let (store, mut writer) = reflector::store();
    let mut unrecorded = Unrecorded::default();
    for event in [watcher::Event::Init]
        .into_iter()
        .chain(listed.items.into_iter().map(watcher::Event::InitApply))
        .chain([watcher::Event::InitDone])
    {
        let event = unrecorded.split(event);
        writer.apply_watcher_event(&event);
        if let watcher::Event::InitDone = event {
            feed(inputs, &event, &store);
            unrecorded.record(inputs, kind, &event);
        }
    }
    Ok(())
}

/// The fields our schema lacks of the objects a watch delivered ([`Checked`]) that the snapshot
/// has not taken yet: an object's are recorded with it (`Apply`), a (re)list's all at its end
/// (`InitDone`, after the feed replaced the kind's objects, which forgets theirs). Only objects
/// with some are held, so this is empty but for the few objects a newer CRD widened.
#[derive(Debug, Default)]
struct Unrecorded(HashMap<(String, String), Vec<String>>);

impl Unrecorded {
    fn key<K: Resource>(object: &K) -> (String, String) {
        let meta = object.meta();
        (
            meta.namespace.clone().unwrap_or_default(),
            meta.name.clone().unwrap_or_default(),
        )
    }

    /// The event as the reflector takes it, the unknown fields kept here.
    fn split<K: Resource>(&mut self, event: watcher::Event<Checked<K>>) -> watcher::Event<K> {
        let mut keep = |checked: Checked<K>| {
            if !checked.unknown.is_empty() {
                self.0.insert(Self::key(&checked.object), checked.unknown);
            }
            checked.object
        };
        match event {
            watcher::Event::Apply(o) => watcher::Event::Apply(keep(o)),
            watcher::Event::InitApply(o) => watcher::Event::InitApply(keep(o)),
            watcher::Event::Delete(o) => watcher::Event::Delete(o.object),
            watcher::Event::Init => watcher::Event::Init,
            watcher::Event::InitDone => watcher::Event::InitDone,
        }
    }

    /// Records in `inputs`, after the feed applied `event`, the unknown fields it brought.
    fn record<K: Resource>(
        &mut self,
        inputs: &mut InputStore,
        kind: Kind,
        event: &watcher::Event<K>,
    ) {
        let object = |(namespace, name): (String, String)| {
            render::input_ref::InputRef::new(kind, namespace, name)
        };
        match event {
            watcher::Event::Apply(o) => {
                let key = Self::key(o);
                let fields = self.0.remove(&key).unwrap_or_default();
                inputs.set_unknown_fields(object(key), fields);
            }
            watcher::Event::Delete(o) => {
                self.0.remove(&Self::key(o));
            }
            // A relist starts afresh: what an interrupted one held is not its.
            watcher::Event::Init => self.0.clear(),
            watcher::Event::InitApply(_) => {}
            watcher::Event::InitDone => {
                for (key, fields) in self.0.drain() {
                    inputs.set_unknown_fields(object(key), fields);
                }
            }
        }
    }
}

/// The registry of watched kinds: one line per kind, from which the reflector store
/// ([`Stores`]), the watch and its trigger stream ([`Triggers`], [`build`]), the wiring into
/// the `Controller` with the kind's mapper ([`Triggers::wire`]), the feeding of the inputs'
/// snapshot ([`Stores::inputs`]) and the UIDs of Event references ([`Stores::uid`]) all
/// follow.
///
/// A line is `field: Type => role, scope, selection, triggering, prepare, feed;` where
/// * role is `Input(Kind)` or `Generated` ([`Role`]);
/// * scope is `namespaced` (all namespaces, or `--namespace`) or `cluster`;
/// * selection is `every` object or `managed` (the managed-by label: what the operator wrote);
/// * triggering is a [`Triggering`] variant;
/// * prepare runs on each object before the store takes it (`keep` for nothing);
/// * feed applies each of the kind's watch events to the snapshot (a function of [`feed`];
///   `no_feed` for generated kinds, which are no input), and fills it in [`list_inputs`];
/// * status is `entries` for the kinds whose status holds one entry per selecting agent (they
///   implement `render::status::SharedStatus`; the status step visits them through
///   [`Stores::each_with_entries`]), `no_entries` for the others.
///
/// The agents (the `Controller`'s own kind) come first, on a line of their own.
macro_rules! watched_kinds {
    (
        primary $pfield:ident: $pty:ty => Input($pkind:ident), $pfeed:path;
        $( $field:ident: $ty:ty => $role:ident $(($kind:ident))?, $scope:ident, $selection:ident,
           $when:ident, $prepare:path, $feed:path, $status:ident; )*
    ) => {
        /// Read access to every watched kind. Cheap to clone.
        #[derive(Clone)]
        pub(crate) struct Stores {
            pub $pfield: Store<$pty>,
            $( pub $field: Store<$ty>, )*
            /// Every input as discovery reads it, fed by the input kinds' watch events (each
            /// applied as it passes, before it triggers anything): a reconcile reads it in
            /// place instead of copying every store.
            pub inputs: Arc<RwLock<InputStore>>,
        }

        /// Every trigger stream, each feeding the store of the same name in [`Stores`].
        pub(crate) struct Triggers {
            pub $pfield: Trigger<$pty>,
            /// The agents that are gone (see [`Departures`]), once each.
            pub agents_gone: Gone<$pty>,
            $( pub $field: Trigger<$ty>, )*
        }

        /// Every registry line's name and role, in order.
        #[cfg(test)]
        pub(crate) const REGISTRY: &[(&str, Role)] = &[
            (stringify!($pfield), Role::Input(Kind::$pkind)),
            $( (stringify!($field), Role::$role $((Kind::$kind))?), )*
        ];

        /// Every input kind of the registry, in order.
        pub(crate) fn input_kinds() -> impl Iterator<Item = Kind> {
            [Kind::$pkind, $( $( Kind::$kind, )? )*].into_iter()
        }

        /// The input kinds whose lines say `entries`, in order.
        #[cfg(test)]
        pub(crate) fn with_entries() -> Vec<Kind> {
            let mut kinds = Vec::new();
            $( $(
                if stringify!($status) == "entries" {
                    kinds.push(Kind::$kind);
                }
            )? )*
            kinds
        }

        /// Every input kind listed once (all namespaces), each list fed into a fresh snapshot
        /// by its line's feed, as the watches feed theirs at the end of a list. Without
        /// watches: for `agent-operator explain`.
        pub(crate) async fn list_inputs(client: &Client) -> Result<InputStore, Error> {
            let mut inputs = InputStore::new();
            list_into::<$pty>(client, &mut inputs, ($pfeed, Kind::$pkind)).await?;
            $( list_input!($role $(($kind))?, client, inputs, $ty, $feed); )*
            Ok(inputs)
        }

        impl Stores {
            /// The UID of an input object the stores hold (Events regarding it carry it).
            pub(crate) fn uid(&self, kind: Kind, namespace: &str, name: &str) -> Option<String> {
                if kind == Kind::$pkind {
                    return uid_in(&self.$pfield, namespace, name);
                }
                $(
                    if Role::$role $((Kind::$kind))? == Role::Input(kind) {
                        return uid_in(&self.$field, namespace, name);
                    }
                )*
                None
            }

            /// The apiVersion of an input kind.
            pub(crate) fn api_version(kind: Kind) -> Option<String> {
                if kind == Kind::$pkind {
                    return Some(<$pty as Resource>::api_version(&()).into_owned());
                }
                $(
                    if Role::$role $((Kind::$kind))? == Role::Input(kind) {
                        return Some(<$ty as Resource>::api_version(&()).into_owned());
                    }
                )*
                None
            }
        }

        impl Stores {
            /// Runs `visit` over the store of every kind whose line says `entries` (its status
            /// holds one entry per selecting agent), in registry order; stops at an error.
            pub(crate) async fn each_with_entries<V: EntriesVisitor>(
                &self,
                visit: &mut V,
            ) -> Result<(), V::Error> {
                $( with_entries!($status, visit, self.$field); )*
                Ok(())
            }
        }

        impl Triggers {
            /// The `Controller` `primary` builds on the agents' trigger stream, with every
            /// other trigger stream added, each with the mapper its role gives; and the
            /// departures of agents.
            pub(crate) fn wire(
                self,
                stores: &Stores,
                mappers: &impl MapperFactory,
                primary: impl FnOnce(Trigger<$pty>) -> kube::runtime::Controller<$pty>,
            ) -> (kube::runtime::Controller<$pty>, Gone<$pty>) {
                let Triggers { $pfield, agents_gone, $( $field, )* } = self;
                let controller = primary($pfield);
                $(
                    let controller = controller.watches_stream(
                        $field,
                        mappers.mapper(Role::$role $((Kind::$kind))?, stores.$field.clone()),
                    );
                )*
                (controller, agents_gone)
            }
        }

        impl Triggers {
            /// Runs every watch, feeding the stores and the snapshot, and triggers nothing:
            /// the steps' unit tests read a real API server through real stores this way.
            #[cfg(test)]
            pub(crate) fn drain(self) -> impl Future<Output = ()> + Send + 'static {
                use futures::FutureExt;
                let Triggers { $pfield, agents_gone, $( $field, )* } = self;
                let mut all: Vec<futures::future::BoxFuture<'static, ()>> = vec![
                    $pfield.for_each(|_| async {}).boxed(),
                    agents_gone.for_each(|_| async {}).boxed(),
                ];
                $( all.push($field.for_each(|_| async {}).boxed()); )*
                futures::future::join_all(all).map(|_| ())
            }
        }

        /// Starts no request yet: the streams run when the controller polls them.
        pub(crate) fn build(
            client: Client,
            namespace: Option<&str>,
            agent_selector: Option<&str>,
            metrics: Metrics,
        ) -> (Stores, Triggers, Readiness, Relisted) {
            let (relisted, relists) = futures::channel::mpsc::unbounded();
            let mut b = Builder {
                relisted,
                inputs: Arc::default(),
                client: client.clone(),
                namespace,
                metrics,
                readiness: Readiness {
                    synced: Arc::default(),
                    total: 0,
                },
            };
            let agents_config = listed_in_pages(match agent_selector {
                Some(s) => watch_config().labels(s),
                None => watch_config(),
            });
            let ($pfield, primary, agents_gone) = b.with_departures(
                b.api(),
                agents_config,
                Triggering::SpecOrLabels,
                ($pfeed, Kind::$pkind),
            );
            $(
                let $field = b.watch(
                    scoped!($scope, b, client),
                    selection!($selection),
                    Triggering::$when,
                    $prepare,
                    feed_of!($role $(($kind))?, $feed),
                    None,
                );
            )*
            (
                Stores {
                    $pfield: $pfield.clone(),
                    $( $field: $field.0, )*
                    inputs: b.inputs.clone(),
                },
                Triggers {
                    $pfield: primary,
                    agents_gone,
                    $( $field: $field.1, )*
                },
                b.readiness,
                relists,
            )
        }
    };
}

/// The statement listing one registry line's kind for [`list_inputs`]: generated kinds are
/// no input.
macro_rules! list_input {
    (Input($kind:ident), $client:ident, $inputs:ident, $ty:ty, $feed:path) => {
        list_into::<$ty>($client, &mut $inputs, ($feed, Kind::$kind)).await?;
    };
    (Generated, $client:ident, $inputs:ident, $ty:ty, $feed:path) => {};
}

/// The statement visiting one registry line's store for [`Stores::each_with_entries`].
macro_rules! with_entries {
    (entries, $visit:ident, $store:expr) => {
        $visit.visit(&$store).await?;
    };
    (no_entries, $visit:ident, $store:expr) => {};
}

macro_rules! scoped {
    (namespaced, $b:ident, $client:ident) => {
        $b.api()
    };
    (cluster, $b:ident, $client:ident) => {
        Api::all($client.clone())
    };
}

/// The feed of a registry line, with the kind it feeds: generated kinds feed nothing.
macro_rules! feed_of {
    (Input($kind:ident), $feed:path) => {
        Some(($feed, Kind::$kind))
    };
    (Generated, $feed:path) => {
        None
    };
}

/// Objects per page of a watch's initial list (kube-runtime asks for 500). At 50k
/// ServiceMonitors that was 100 requests answered one after the other, and the list more than
/// half the cold start (4.4 s of 7.9 on testkube; 3.7 s with this). A page of 5,000 monitors is
/// about 6 MB of JSON, decoded and dropped page by page.
const LIST_PAGE_SIZE: u32 = 5_000;

fn listed_in_pages(config: watcher::Config) -> watcher::Config {
    config.page_size(LIST_PAGE_SIZE)
}

macro_rules! selection {
    (every) => {
        listed_in_pages(watch_config())
    };
    (managed) => {
        listed_in_pages(watch_config().labels(&managed_selector()))
    };
}

watched_kinds! {
    primary agents: api::GrafanaAgent => Input(GrafanaAgent), feed::objects;
    metrics_instances: api::MetricsInstance => Input(MetricsInstance), namespaced, every, SpecOrLabels, keep, feed::objects, entries;
    logs_instances: api::LogsInstance => Input(LogsInstance), namespaced, every, SpecOrLabels, keep, feed::objects, entries;
    pod_logs: api::PodLogs => Input(PodLogs), namespaced, every, SpecOrLabels, keep, feed::objects, entries;
    integrations: api::Integration => Input(Integration), namespaced, every, SpecOrLabels, keep, feed::objects, entries;
    service_monitors: api::ServiceMonitor => Input(ServiceMonitor), namespaced, every, SpecOrLabels, keep, feed::objects, no_entries;
    pod_monitors: api::PodMonitor => Input(PodMonitor), namespaced, every, SpecOrLabels, keep, feed::objects, no_entries;
    probes: api::Probe => Input(Probe), namespaced, every, SpecOrLabels, keep, feed::objects, no_entries;
    scrape_configs: api::ScrapeConfig => Input(ScrapeConfig), namespaced, every, SpecOrLabels, keep, feed::objects, no_entries;
    // Namespaces are cluster-scoped: watched whole even with --namespace (spec 5).
    namespaces: PartialObjectMeta<Namespace> => Input(Namespace), cluster, every, AnyChange, keep, feed::namespaces, no_entries;
    secrets: PartialObjectMeta<Secret> => Input(Secret), namespaced, every, AnyChange, keep, feed::secrets, no_entries;
    config_maps: PartialObjectMeta<ConfigMap> => Input(ConfigMap), namespaced, every, AnyChange, keep, feed::config_maps, no_entries;
    // The Secrets the operator generates, each value replaced by its digest
    // ([`digest_values`]): enough to tell a hand edit of their data, without holding it.
    generated_secrets: Secret => Generated, namespaced, managed, AnyChange, digest_values, no_feed, no_entries;
    services: Service => Generated, namespaced, managed, AnyChange, keep, no_feed, no_entries;
    stateful_sets: StatefulSet => Generated, namespaced, managed, AnyChange, keep, no_feed, no_entries;
    daemon_sets: DaemonSet => Generated, namespaced, managed, AnyChange, keep, no_feed, no_entries;
    deployments: Deployment => Generated, namespaced, managed, AnyChange, keep, no_feed, no_entries;
    // The config loader's grants (`<agent>-config-loader`).
    roles: k8s_openapi::api::rbac::v1::Role => Generated, namespaced, managed, AnyChange, keep, no_feed, no_entries;
    role_bindings: k8s_openapi::api::rbac::v1::RoleBinding => Generated, namespaced, managed, AnyChange, keep, no_feed, no_entries;
    // The workloads' pods (they carry the managed-by label of the pod template), for status
    // only: whose config loader is not ready. Owned by their workloads, so they map to no
    // agent; a pod turning (not) ready changes its workload's status, which does.
    pods: k8s_openapi::api::core::v1::Pod => Generated, namespaced, managed, AnyChange, containers_readiness_only, no_feed, no_entries;
}

/// Keeps of a pod what the status reads: its metadata (labels, name) and its containers'
/// names and readiness. A pod's spec and the rest of its status are most of its size.
fn containers_readiness_only(pod: &mut k8s_openapi::api::core::v1::Pod) {
    use k8s_openapi::api::core::v1::{ContainerStatus, PodStatus};
    pod.spec = None;
    pod.metadata.managed_fields = None;
    pod.metadata.annotations = None;
    pod.status = pod.status.take().map(|status| PodStatus {
        container_statuses: status.container_statuses.map(|statuses| {
            statuses
                .into_iter()
                .map(|c| ContainerStatus {
                    name: c.name,
                    ready: c.ready,
                    started: c.started,
                    ..Default::default()
                })
                .collect()
        }),
        ..Default::default()
    });
}

/// Nothing to prepare.
fn keep<K>(_: &mut K) {}

fn uid_in<K>(store: &Store<K>, namespace: &str, name: &str) -> Option<String>
where
    K: Resource<DynamicType = ()> + Clone,
{
    let key = match namespace {
        "" => ObjectRef::new(name),
        ns => ObjectRef::new(name).within(ns),
    };
    store.get(&key)?.meta().uid.clone()
}

/// What applies one watch event of a kind to the snapshot.
pub(crate) type Feed<K> = fn(&mut InputStore, &watcher::Event<K>, &Store<K>);

/// How each input kind's watch events go into the snapshot (`render::InputStore`): one object
/// at a time, and a (re)list whole at its end, from the reflector's store (which takes the new
/// list at `InitDone`, before the event passes here).
pub(crate) mod feed {
    use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
    use kube::Resource;
    use kube::core::PartialObjectMeta;
    use kube::runtime::reflector::{ObjectRef, Store};
    use kube::runtime::watcher::Event;
    use render::assets::AssetSource;
    use render::input_ref::Kind;
    use render::store::{Input, InputStore};
    use std::sync::Arc;

    fn namespace_and_name<K: Resource>(object: &K) -> (&str, &str) {
        let meta = object.meta();
        (
            meta.namespace.as_deref().unwrap_or_default(),
            meta.name.as_deref().unwrap_or_default(),
        )
    }

    /// The kinds discovery reads in full.
    pub(crate) fn objects<K>(inputs: &mut InputStore, event: &Event<K>, store: &Store<K>)
    where
        K: Input + Resource<DynamicType = ()> + Clone,
    {
        match event {
            Event::Apply(object) => {
                // The reflector's copy: the snapshot shares it instead of holding another.
                let stored = store
                    .get(&ObjectRef::from_obj(object))
                    .unwrap_or_else(|| Arc::new(object.clone()));
                inputs.apply(stored);
            }
            Event::Delete(object) => {
                let (namespace, name) = namespace_and_name(object);
                inputs.delete(K::KIND, namespace, name);
            }
            Event::InitDone => inputs.reset(store.state()),
            Event::Init | Event::InitApply(_) => {}
        }
    }

    /// Namespaces: their labels.
    pub(crate) fn namespaces(
        inputs: &mut InputStore,
        event: &Event<PartialObjectMeta<Namespace>>,
        store: &Store<PartialObjectMeta<Namespace>>,
    ) {
        let labels = |ns: &PartialObjectMeta<Namespace>| {
            (
                ns.metadata.name.clone().unwrap_or_default(),
                ns.metadata.labels.clone().unwrap_or_default(),
            )
        };
        match event {
            Event::Apply(ns) => {
                let (name, labels) = labels(ns);
                inputs.apply_namespace(name, labels);
            }
            Event::Delete(ns) => {
                inputs.delete(
                    Kind::Namespace,
                    "",
                    ns.metadata.name.as_deref().unwrap_or_default(),
                );
            }
            Event::InitDone => inputs.reset_namespaces(store.state().iter().map(|ns| labels(ns))),
            Event::Init | Event::InitApply(_) => {}
        }
    }

    /// Secrets: their resourceVersions (values are read when referenced).
    pub(crate) fn secrets(
        inputs: &mut InputStore,
        event: &Event<PartialObjectMeta<Secret>>,
        store: &Store<PartialObjectMeta<Secret>>,
    ) {
        data_objects(AssetSource::Secret, inputs, event, store);
    }

    /// ConfigMaps: their resourceVersions.
    pub(crate) fn config_maps(
        inputs: &mut InputStore,
        event: &Event<PartialObjectMeta<ConfigMap>>,
        store: &Store<PartialObjectMeta<ConfigMap>>,
    ) {
        data_objects(AssetSource::ConfigMap, inputs, event, store);
    }

    fn data_objects<K>(
        source: AssetSource,
        inputs: &mut InputStore,
        event: &Event<PartialObjectMeta<K>>,
        store: &Store<PartialObjectMeta<K>>,
    ) where
        K: Resource<DynamicType = ()> + Clone,
    {
        match event {
            Event::Apply(object) => {
                let (namespace, name) = namespace_and_name(object);
                let version = object.metadata.resource_version.clone();
                inputs.apply_meta(source, namespace, name, version);
            }
            Event::Delete(object) => {
                let (namespace, name) = namespace_and_name(object);
                inputs.delete(source.kind(), namespace, name);
            }
            Event::InitDone => {
                let listed: Vec<_> = store
                    .state()
                    .iter()
                    .map(|o| {
                        let (namespace, name) = namespace_and_name(o.as_ref());
                        (
                            (namespace.to_owned(), name.to_owned()),
                            o.metadata.resource_version.clone(),
                        )
                    })
                    .collect();
                inputs.reset_meta(source, listed);
            }
            Event::Init | Event::InitApply(_) => {}
        }
    }
}

/// A watch's events as the controller consumes them: touched objects (deletions included).
pub(crate) type Trigger<K> =
    std::pin::Pin<Box<dyn Stream<Item = Result<K, watcher::Error>> + Send + 'static>>;

/// The objects of one kind that are gone, as [`Departures`] tells them.
pub(crate) type Gone<K> = futures::channel::mpsc::UnboundedReceiver<ObjectRef<K>>;

/// Which objects of a watch are gone: each one the watch reports deleted, and, when a relist
/// completes, each one known before that the relist no longer lists (deleted while the watch
/// was away, which no event tells). Nothing else: during a (re)list the reflector's store is
/// refilled only at its end, so an object missing from the store then is merely not listed
/// yet (taking that for a deletion wiped every agent's status entries at each start).
#[derive(Debug)]
struct Departures<K: Resource<DynamicType = ()>> {
    known: HashSet<ObjectRef<K>>,
    relisting: HashSet<ObjectRef<K>>,
}

impl<K: Resource<DynamicType = ()>> Default for Departures<K> {
    fn default() -> Self {
        Departures {
            known: HashSet::new(),
            relisting: HashSet::new(),
        }
    }
}

impl<K: Resource<DynamicType = ()>> Departures<K> {
    /// The objects `event` shows gone.
    fn observe(&mut self, event: &watcher::Event<K>) -> Vec<ObjectRef<K>> {
        match event {
            watcher::Event::Init => {
                self.relisting.clear();
                Vec::new()
            }
            watcher::Event::InitApply(o) => {
                self.relisting.insert(ObjectRef::from_obj(o));
                Vec::new()
            }
            watcher::Event::InitDone => {
                let listed = std::mem::take(&mut self.relisting);
                let gone = self.known.difference(&listed).cloned().collect();
                self.known = listed;
                gone
            }
            watcher::Event::Apply(o) => {
                self.known.insert(ObjectRef::from_obj(o));
                Vec::new()
            }
            watcher::Event::Delete(o) => {
                let key = ObjectRef::from_obj(o);
                self.known.remove(&key);
                vec![key]
            }
        }
    }
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
    /// The snapshot the input kinds' watches feed.
    inputs: Arc<RwLock<InputStore>>,
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

    /// [`Builder::watch`] of every object, also telling `gone` which objects are gone ([`Departures`]).
    fn with_departures<K>(
        &mut self,
        api: Api<Checked<K>>,
        config: watcher::Config,
        when: Triggering,
        feed: (Feed<K>, Kind),
    ) -> (Store<K>, Trigger<K>, Gone<K>)
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    {
        let (gone, departures) = futures::channel::mpsc::unbounded();
        let (store, trigger) = self.watch(api, config, when, |_| {}, Some(feed), Some(gone));
        (store, trigger, departures)
    }

    /// The watch of kind `K`, read through [`Checked`]: for an input kind (`feed`, with the
    /// kind it feeds), the fields our schema lacks are recorded in the snapshot with each
    /// object.
    fn watch<K>(
        &mut self,
        api: Api<Checked<K>>,
        config: watcher::Config,
        when: Triggering,
        prepare: fn(&mut K),
        feed: Option<(Feed<K>, Kind)>,
        gone: Option<futures::channel::mpsc::UnboundedSender<ObjectRef<K>>>,
    ) -> (Store<K>, Trigger<K>)
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    {
        let mut departures = Departures::default();
        let (reader, writer) = reflector::store();
        let kind = K::kind(&()).into_owned();
        let synced = self.track(kind.clone());
        let backoff = RelistBackoff::default();
        // Shared by the step before the reflector, which takes the unknown fields off each
        // object, and the one after it, which records them with the object in the snapshot:
        // one after the other on the same stream, never contended.
        let unrecorded = Arc::new(Mutex::new(Unrecorded::default()));
        let split = {
            let unrecorded = unrecorded.clone();
            move |event: Result<watcher::Event<Checked<K>>, watcher::Error>| {
                event.map(|event| {
                    unrecorded
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .split(event)
                })
            }
        };
        let stream = counted(
            watcher(api, config).map(split),
            self.metrics.clone(),
            kind.clone(),
        )
        .inspect(backoff.progress())
        .backoff(backoff)
        .modify(move |o: &mut K| {
            o.managed_fields_mut().clear();
            prepare(o);
        })
        .reflect(writer)
        .inspect({
            let relisted = self.relisted.clone();
            let (inputs, reader) = (self.inputs.clone(), reader.clone());
            move |event| {
                // First: the reconciles this event triggers, and readiness at the end of
                // the first list, must find it in the snapshot.
                if let (Ok(event), Some((feed, kind))) = (event, feed) {
                    let mut inputs = inputs.write().unwrap_or_else(PoisonError::into_inner);
                    feed(&mut inputs, event, &reader);
                    unrecorded
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .record(&mut inputs, kind, event);
                }
                if let (Ok(event), Some(gone)) = (event, &gone) {
                    for key in departures.observe(event) {
                        // The receiver lives as long as the controller.
                        let _ = gone.unbounded_send(key);
                    }
                }
                // A kind the API server does not serve (its CRD is not installed: a cluster with
                // prometheus-operator CRDs older than ScrapeConfig's) has no objects: counted
                // as listed, or no agent would ever be reconciled. The watch keeps retrying
                // and lists the kind once its CRD appears.
                if let Err(watcher::Error::InitialListFailed(kube::Error::Api(s))) = event
                    && s.code == 404
                {
                    synced();
                }
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

/// Replaces each value of a generated Secret by the MD5 digest of its bytes: the store then
/// tells whether the live data is what the operator wants (see `apply`) without holding a
/// config of tens of megabytes a second time.
pub(crate) fn digest_values(secret: &mut Secret) {
    use md5::{Digest, Md5};
    for value in secret.data.iter_mut().flat_map(|data| data.values_mut()) {
        value.0 = Md5::digest(&value.0).to_vec();
    }
    // Written as `data` by the operator; a hand edit through `stringData` arrives as `data`.
    secret.string_data = None;
}

/// How long a watch waits before retrying after an error: kube-runtime's default policy
/// (0.8 s doubling to 30 s, with jitter, started afresh after two minutes without an error),
/// except that only progress resets it: a change the watch delivered. kube-runtime's
/// `StreamBackoff` resets its policy on any successful event, and a relist is a run of them,
/// so a watch answered 410 Gone right after each relist relisted every ~1.25 s forever
/// (23.6 requests/s and a quarter of a core at 10k monitors).
#[derive(Default)]
struct RelistBackoff {
    policy: watcher::DefaultBackoff,
    progressed: Arc<AtomicBool>,
}

impl RelistBackoff {
    /// What marks progress, to run on the watch's events before the backoff sees them.
    fn progress<K>(&self) -> impl Fn(&Result<watcher::Event<K>, watcher::Error>) + use<K> {
        let progressed = self.progressed.clone();
        move |event| {
            if let Ok(watcher::Event::Apply(_) | watcher::Event::Delete(_)) = event {
                progressed.store(true, Ordering::Release);
            }
        }
    }
}

impl Iterator for RelistBackoff {
    type Item = std::time::Duration;

    fn next(&mut self) -> Option<std::time::Duration> {
        self.policy.next()
    }
}

impl kube::runtime::utils::Backoff for RelistBackoff {
    fn reset(&mut self) {
        if self.progressed.swap(false, Ordering::AcqRel) {
            self.policy.reset();
        }
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
    metrics.watching(&kind);
    stream.inspect(move |event| match event {
        Ok(watcher::Event::Init) => metrics.list_started(&kind),
        Ok(watcher::Event::Apply(_) | watcher::Event::Delete(_)) => metrics.watch_event(&kind),
        Ok(_) => {}
        Err(watcher::Error::InitialListFailed(_)) => metrics.list_failed(&kind),
        Err(_) => metrics.watch_failed(&kind),
    })
}

/// A stream that yields once per completed (re)list of any watch.
pub(crate) type Relisted = futures::channel::mpsc::UnboundedReceiver<()>;

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

    #[test]
    fn only_deletions_and_objects_a_relist_lost_are_gone() {
        use watcher::Event::{Apply, Delete, Init, InitApply, InitDone};
        let mut d = Departures::default();
        let gone = |d: &mut Departures<MetricsInstance>, event| -> Vec<String> {
            d.observe(&event).into_iter().map(|k| k.name).collect()
        };
        // The first list: nothing is gone, though nothing is in the store until InitDone.
        assert!(gone(&mut d, Init).is_empty());
        assert!(gone(&mut d, InitApply(instance("a", 1, "x", "1"))).is_empty());
        assert!(gone(&mut d, InitApply(instance("b", 1, "x", "2"))).is_empty());
        assert!(gone(&mut d, InitDone).is_empty());
        assert!(gone(&mut d, Apply(instance("c", 1, "x", "3"))).is_empty());
        assert_eq!(gone(&mut d, Delete(instance("a", 1, "x", "4"))), ["a"]);
        // A relist that no longer lists c: c was deleted while the watch was away.
        assert!(gone(&mut d, Init).is_empty());
        assert!(gone(&mut d, InitApply(instance("b", 1, "x", "2"))).is_empty());
        assert_eq!(gone(&mut d, InitDone), ["c"]);
    }

    #[tokio::test]
    async fn relists_that_keep_failing_back_off_until_a_change_arrives() {
        use kube::runtime::utils::Backoff;
        let mut backoff = RelistBackoff::default();
        let progress = backoff.progress::<MetricsInstance>();
        let mut delays = Vec::new();
        for _ in 0..8 {
            // A relist (successful events: no progress), then the watch fails.
            progress(&Ok(watcher::Event::InitDone));
            backoff.reset();
            delays.push(backoff.next().expect("never gives up"));
        }
        assert!(delays[1] > delays[0] && delays[3] > delays[2], "{delays:?}");
        assert!(
            delays[7] >= std::time::Duration::from_secs(15),
            "{delays:?}"
        );
        assert!(
            delays[7] <= std::time::Duration::from_secs(60),
            "capped: {delays:?}"
        );
        // A change delivered: the next failure is retried soon again.
        progress(&Ok(watcher::Event::Apply(instance("a", 1, "x", "1"))));
        backoff.reset();
        assert!(backoff.next().expect("a delay") <= std::time::Duration::from_secs(2));
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

    #[test]
    fn every_input_kind_is_watched() {
        // A new render Kind fails to compile here until it is listed, then fails the test
        // until the registry has its line.
        let every = |kind: Kind| match kind {
            Kind::GrafanaAgent
            | Kind::MetricsInstance
            | Kind::LogsInstance
            | Kind::PodLogs
            | Kind::Integration
            | Kind::ServiceMonitor
            | Kind::PodMonitor
            | Kind::Probe
            | Kind::ScrapeConfig
            | Kind::Secret
            | Kind::ConfigMap
            | Kind::Namespace => kind,
        };
        let all = [
            Kind::GrafanaAgent,
            Kind::MetricsInstance,
            Kind::LogsInstance,
            Kind::PodLogs,
            Kind::Integration,
            Kind::ServiceMonitor,
            Kind::PodMonitor,
            Kind::Probe,
            Kind::ScrapeConfig,
            Kind::Secret,
            Kind::ConfigMap,
            Kind::Namespace,
        ]
        .map(every);
        for kind in all {
            let lines = REGISTRY
                .iter()
                .filter(|(_, role)| *role == Role::Input(kind))
                .count();
            assert_eq!(lines, 1, "{kind:?} has {lines} registry lines");
            assert!(Stores::api_version(kind).is_some(), "{kind:?}");
        }
        // The places that follow from the registry: the kinds `list_inputs` lists, counts
        // and status entries.
        let mut listed: Vec<Kind> = input_kinds().collect();
        listed.sort();
        assert_eq!(listed, all.to_vec());
        let mut with_entries = with_entries();
        with_entries.sort();
        let mut kinds_with_entries = render::status::KINDS_WITH_ENTRIES.to_vec();
        kinds_with_entries.sort();
        assert_eq!(
            with_entries, kinds_with_entries,
            "the registry lines saying `entries` are the kinds with per-agent status entries"
        );
        assert_eq!(
            Stores::api_version(Kind::ServiceMonitor).as_deref(),
            Some("monitoring.coreos.com/v1")
        );
        assert_eq!(Stores::api_version(Kind::Secret).as_deref(), Some("v1"));
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
