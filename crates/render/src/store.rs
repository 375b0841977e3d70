//! Every input object the operator reads, kept up to date one change at a time.
//!
//! The controller feeds an [`InputStore`] from its watches (`apply`, `delete`, and `reset` on a
//! relist: kube-runtime's `watcher::Event::Init` .. `InitApply` .. `InitDone` is buffered and
//! handed to `reset` at `InitDone`); `render` fills the same store from files through
//! [`crate::manifest::Loader`]. Discovery reads it only through the [`InputView`] trait.
//!
//! Objects are indexed by namespace, then name, so iteration is in (namespace, name) order by
//! construction and a selector reads only the namespaces it can match.
//!
//! Secrets and ConfigMaps are held as [`DataObject`]s: the resourceVersion the watch last saw
//! (the controller watches them metadata-only) and, optionally, content read at some
//! resourceVersion: the names of all the object's keys and the values of the keys the
//! hierarchy references. Content counts only while its resourceVersion is the object's current
//! one; discovery lists the objects whose needed values are not loaded in
//! [`crate::discover::Discovery::to_load`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use api::{
    GrafanaAgent, Integration, LogsInstance, MetricsInstance, PodLogs, PodMonitor, Probe,
    ScrapeConfig, ServiceMonitor,
};
use kube::core::Resource;

use crate::input_ref::{InputRef, Kind};
use crate::journal::{Change, Journal};
use crate::references::{self, Reference};

pub use crate::asset_key::AssetSource;

/// `(namespace, name)`.
pub type NamespacedName = (String, String);

/// Labels of an object or a namespace.
pub type Labels = BTreeMap<String, String>;

/// The data of one Secret or ConfigMap: key to raw bytes (ConfigMap `data` and `binaryData`
/// merged, `data` winning).
pub type KeyValues = BTreeMap<String, Vec<u8>>;

static NO_LABELS: Labels = BTreeMap::new();

/// The fields of each object that the schema of our CRD does not have, as its schema check
/// found them when the object arrived ([`crate::manifest::unknown_fields`]): only objects with
/// some are listed, in (kind, namespace, name) order.
pub type UnknownFields = BTreeMap<InputRef, Vec<String>>;

static NO_UNKNOWN_FIELDS: UnknownFields = BTreeMap::new();

/// `(namespace, name)` of any object.
pub fn namespaced_name<T: Resource>(object: &T) -> NamespacedName {
    let meta = object.meta();
    (
        meta.namespace.clone().unwrap_or_default(),
        meta.name.clone().unwrap_or_default(),
    )
}

/// The labels of any object (empty when it has none).
pub fn labels_of<T: Resource>(object: &T) -> &Labels {
    object.meta().labels.as_ref().unwrap_or(&NO_LABELS)
}

/// One of the nine custom resource kinds the store holds as whole objects.
pub trait Input: Resource + Sized + Send + Sync + 'static {
    const KIND: Kind;
    /// The Secret and ConfigMap keys the object refers to (see [`crate::references`]).
    fn references(&self) -> Vec<Reference>;
    /// This kind's objects in `store`.
    fn objects(store: &InputStore) -> &Objects<Self>;
    fn objects_mut(store: &mut InputStore) -> &mut Objects<Self>;
}

macro_rules! input_kinds {
    ($($t:ty => $kind:ident, $field:ident, $references:expr;)*) => {$(
        impl Input for $t {
            const KIND: Kind = Kind::$kind;
            fn references(&self) -> Vec<Reference> {
                $references(self)
            }
            fn objects(store: &InputStore) -> &Objects<Self> {
                &store.$field
            }
            fn objects_mut(store: &mut InputStore) -> &mut Objects<Self> {
                &mut store.$field
            }
        }
    )*};
}

input_kinds! {
    GrafanaAgent => GrafanaAgent, agents, references::of_agent;
    MetricsInstance => MetricsInstance, metrics_instances, references::of_metrics_instance;
    LogsInstance => LogsInstance, logs_instances, references::of_logs_instance;
    PodLogs => PodLogs, pod_logs, |_: &PodLogs| Vec::new();
    Integration => Integration, integrations, references::of_integration;
    ServiceMonitor => ServiceMonitor, service_monitors, references::of_service_monitor;
    PodMonitor => PodMonitor, pod_monitors, references::of_pod_monitor;
    Probe => Probe, probes, references::of_probe;
    ScrapeConfig => ScrapeConfig, scrape_configs, references::of_scrape_config;
}

/// The objects of one kind, by namespace then name, and by label.
#[derive(Debug, Clone)]
pub struct Objects<T> {
    by_namespace: BTreeMap<String, BTreeMap<String, Stored<T>>>,
    /// Label key, then value, to the objects carrying that label: a selector that requires a
    /// label (`matchLabels`, or `In`) reads only those, not every object of the namespaces it
    /// searches (at 50k monitors over ten agents, most of a reconcile's CPU went to matching
    /// the monitors of other agents).
    by_label: HashMap<String, HashMap<String, BTreeMap<NamespacedName, Arc<T>>>>,
    len: usize,
}

/// An object and what discovery needs of it that depends on the object alone, worked out
/// once when it arrives rather than at every discovery of every agent that selects it (at
/// 10k ServiceMonitors, listing their references was a fifth of each edit's CPU).
#[derive(Debug)]
struct Stored<T> {
    object: Arc<T>,
    references: Arc<[Reference]>,
}

impl<T> Clone for Stored<T> {
    fn clone(&self) -> Self {
        Stored {
            object: self.object.clone(),
            references: self.references.clone(),
        }
    }
}

impl<T> Default for Objects<T> {
    fn default() -> Self {
        Objects {
            by_namespace: BTreeMap::new(),
            by_label: HashMap::new(),
            len: 0,
        }
    }
}

impl<T> Objects<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, namespace: &str, name: &str) -> Option<&Arc<T>> {
        Some(&self.by_namespace.get(namespace)?.get(name)?.object)
    }

    /// What the object `namespace/name` refers to ([`Input::references`]); `None` when the
    /// store does not hold it.
    pub fn references(&self, namespace: &str, name: &str) -> Option<&[Reference]> {
        Some(&self.by_namespace.get(namespace)?.get(name)?.references)
    }

    /// The objects of `namespace`, by name.
    pub fn in_namespace(&self, namespace: &str) -> impl Iterator<Item = &Arc<T>> {
        self.by_namespace
            .get(namespace)
            .into_iter()
            .flat_map(|m| m.values().map(|s| &s.object))
    }

    /// How many objects `namespace` holds.
    pub fn count_in_namespace(&self, namespace: &str) -> usize {
        self.by_namespace.get(namespace).map_or(0, BTreeMap::len)
    }

    /// The namespaces holding at least one object, in order.
    pub fn namespaces(&self) -> impl Iterator<Item = &str> {
        self.by_namespace.keys().map(String::as_str)
    }

    /// Every object, by (namespace, name).
    pub fn iter(&self) -> impl Iterator<Item = &Arc<T>> {
        self.by_namespace
            .values()
            .flat_map(|m| m.values().map(|s| &s.object))
    }

    /// How many objects carry label `key` with one of `values`.
    pub fn count_labelled(&self, key: &str, values: &[&str]) -> usize {
        self.carrying(key, values).map(BTreeMap::len).sum()
    }

    /// The objects carrying label `key` with one of `values`, with their namespace, by
    /// (namespace, name).
    pub fn labelled(&self, key: &str, values: &[&str]) -> Vec<(&str, &Arc<T>)> {
        let mut carrying: Vec<(&NamespacedName, &Arc<T>)> =
            self.carrying(key, values).flatten().collect();
        carrying.sort_unstable_by(|a, b| a.0.cmp(b.0));
        carrying
            .into_iter()
            .map(|((namespace, _), object)| (namespace.as_str(), object))
            .collect()
    }

    /// The objects carrying `key` with each of `values`, by value. An object carries one value
    /// of a key, so these are disjoint once a value listed twice is taken once.
    fn carrying(
        &self,
        key: &str,
        values: &[&str],
    ) -> impl Iterator<Item = &BTreeMap<NamespacedName, Arc<T>>> {
        let mut values: Vec<&str> = values.to_vec();
        values.sort_unstable();
        values.dedup();
        let by_value = self.by_label.get(key);
        values
            .into_iter()
            .filter_map(move |v| by_value.and_then(|b| b.get(v)))
    }
}

impl<T: Input> Objects<T> {
    /// Adds or replaces the object; returns the one replaced and whether it had the same
    /// labels and references.
    fn insert(
        &mut self,
        namespace: String,
        name: String,
        object: Arc<T>,
    ) -> (Option<Arc<T>>, bool) {
        let key = (namespace, name);
        let stored = Stored {
            references: object.references().into(),
            object: object.clone(),
        };
        let replaced = self
            .by_namespace
            .entry(key.0.clone())
            .or_default()
            .insert(key.1.clone(), stored.clone());
        let same_shape = replaced.as_ref().is_some_and(|r| {
            r.references == stored.references
                && labels_of(r.object.as_ref()) == labels_of(object.as_ref())
        });
        let previous = replaced.map(|s| s.object);
        match &previous {
            Some(previous) => self.unindex(&key, previous),
            None => self.len += 1,
        }
        for (label, value) in labels_of(object.as_ref()) {
            self.by_label
                .entry(label.clone())
                .or_default()
                .entry(value.clone())
                .or_default()
                .insert(key.clone(), object.clone());
        }
        (previous, same_shape)
    }

    fn remove(&mut self, namespace: &str, name: &str) -> Option<Arc<T>> {
        let in_namespace = self.by_namespace.get_mut(namespace)?;
        let removed = in_namespace.remove(name)?.object;
        if in_namespace.is_empty() {
            self.by_namespace.remove(namespace);
        }
        self.len -= 1;
        self.unindex(&(namespace.to_owned(), name.to_owned()), &removed);
        Some(removed)
    }

    /// Drops `object`'s labels from the label index.
    fn unindex(&mut self, key: &NamespacedName, object: &T) {
        for (label, value) in labels_of(object) {
            let Some(by_value) = self.by_label.get_mut(label) else {
                continue;
            };
            if let Some(carrying) = by_value.get_mut(value) {
                carrying.remove(key);
                if carrying.is_empty() {
                    by_value.remove(value);
                }
            }
            if by_value.is_empty() {
                self.by_label.remove(label);
            }
        }
    }
}

/// What the store knows of one Secret or ConfigMap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataObject {
    resource_version: Option<String>,
    /// Shared: a reader's view ([`WithContent`]) lays the same content over many snapshots.
    content: Option<Arc<DataContent>>,
}

/// Content of a Secret or ConfigMap read at one resourceVersion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataContent {
    resource_version: Option<String>,
    key_names: BTreeSet<String>,
    values: KeyValues,
}

/// What a [`DataObject`] says about one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLookup<'a> {
    Value(&'a [u8]),
    /// The content current at the object's resourceVersion has no such key.
    NoSuchKey,
    /// No content at the current resourceVersion, or the key's value was not read.
    NotLoaded,
}

impl DataObject {
    /// The resourceVersion the watch last reported (`None` for objects read from files).
    pub fn resource_version(&self) -> Option<&str> {
        self.resource_version.as_deref()
    }

    /// The content, if it was read at the current resourceVersion.
    pub fn current_content(&self) -> Option<&DataContent> {
        self.content
            .as_deref()
            .filter(|c| c.resource_version == self.resource_version)
    }

    pub fn lookup(&self, key: &str) -> KeyLookup<'_> {
        match self.current_content() {
            None => KeyLookup::NotLoaded,
            Some(c) if !c.key_names.contains(key) => KeyLookup::NoSuchKey,
            Some(c) => c
                .values
                .get(key)
                .map_or(KeyLookup::NotLoaded, |v| KeyLookup::Value(v)),
        }
    }
}

impl DataContent {
    /// What was read of a Secret or ConfigMap at `resource_version`: every key name it had
    /// and the values of the keys wanted.
    pub fn new(
        resource_version: Option<String>,
        key_names: BTreeSet<String>,
        values: KeyValues,
    ) -> Self {
        DataContent {
            resource_version,
            key_names,
            values,
        }
    }

    pub fn resource_version(&self) -> Option<&str> {
        self.resource_version.as_deref()
    }

    /// Every key the object had at that version, loaded or not.
    pub fn key_names(&self) -> &BTreeSet<String> {
        &self.key_names
    }

    /// The values that were read.
    pub fn values(&self) -> &KeyValues {
        &self.values
    }
}

/// What discovery reads: a read-only view of every input.
pub trait InputView {
    /// The objects of kind `T`, by (namespace, name).
    fn objects<T: Input>(&self) -> &Objects<T>;
    /// The labels of namespace `name`; a namespace nobody declared has none.
    fn namespace_labels(&self, name: &str) -> &Labels;
    /// Every namespace known, in name order: those declared (from a cluster, every namespace)
    /// and those an object of the nine kinds lives in.
    fn namespace_names(&self) -> BTreeSet<&str>;
    /// A Secret or ConfigMap, if it exists.
    fn data_object(&self, source: AssetSource, namespace: &str, name: &str) -> Option<&DataObject>;
    /// The objects holding fields our schemas lack ([`UnknownFields`]); a view that records
    /// none has none.
    fn unknown_fields(&self) -> &UnknownFields {
        &NO_UNKNOWN_FIELDS
    }
    /// Whether a Secret or ConfigMap that is not in the view was in the input but refused when
    /// read (a manifest document with an error): a reference to it is not to a missing object.
    fn data_refused(&self, source: AssetSource, namespace: &str, name: &str) -> bool;
    /// What changed in the inputs, in order, when they keep it.
    fn journal(&self) -> Option<&Journal> {
        None
    }
}

/// Every input, maintained from watch events or filled from files.
#[derive(Debug, Clone, Default)]
pub struct InputStore {
    agents: Objects<GrafanaAgent>,
    metrics_instances: Objects<MetricsInstance>,
    logs_instances: Objects<LogsInstance>,
    pod_logs: Objects<PodLogs>,
    integrations: Objects<Integration>,
    service_monitors: Objects<ServiceMonitor>,
    pod_monitors: Objects<PodMonitor>,
    probes: Objects<Probe>,
    scrape_configs: Objects<ScrapeConfig>,
    /// Namespace name to its labels.
    namespaces: BTreeMap<String, Labels>,
    secrets: BTreeMap<NamespacedName, DataObject>,
    config_maps: BTreeMap<NamespacedName, DataObject>,
    /// Secrets and ConfigMaps refused when read from files ([`InputView::data_refused`]).
    refused_data: BTreeSet<(AssetSource, NamespacedName)>,
    /// What the schema check of each object found unknown, kept beside it: worked out once
    /// when the object arrives, never at a reconcile.
    unknown_fields: UnknownFields,
    /// Every change above, for bringing an earlier discovery up to date.
    journal: Journal,
}

impl InputStore {
    pub fn new() -> Self {
        InputStore::default()
    }

    /// The objects of kind `T`, by (namespace, name).
    pub fn objects<T: Input>(&self) -> &Objects<T> {
        T::objects(self)
    }

    /// Every GrafanaAgent, by (namespace, name).
    pub fn agents(&self) -> impl Iterator<Item = &Arc<GrafanaAgent>> {
        self.agents.iter()
    }

    /// Adds or replaces `object` (a watch's `Apply`/`InitApply`). Returns the object it
    /// replaced.
    pub fn apply<T: Input>(&mut self, object: Arc<T>) -> Option<Arc<T>> {
        let (namespace, name) = namespaced_name(object.as_ref());
        let monitor = matches!(
            T::KIND,
            Kind::ServiceMonitor | Kind::PodMonitor | Kind::Probe | Kind::ScrapeConfig
        )
        .then(|| InputRef::new(T::KIND, &namespace, &name));
        let (previous, same_shape) = T::objects_mut(self).insert(namespace, name, object);
        self.journal.record(match monitor {
            Some(monitor) if same_shape => Change::MonitorEdited(monitor),
            _ => Change::Other,
        });
        previous
    }

    /// What changed in the store, in order.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// Replaces every object of kind `T` (a relist: the objects between `Init` and
    /// `InitDone`). Their unknown fields are forgotten: the relist's are recorded after it.
    pub fn reset<T: Input>(&mut self, objects: impl IntoIterator<Item = Arc<T>>) {
        self.journal.record(Change::Other);
        *T::objects_mut(self) = Objects::default();
        self.unknown_fields
            .retain(|object, _| object.kind != T::KIND);
        for object in objects {
            self.apply(object);
        }
    }

    /// Adds or relabels namespace `name`.
    pub fn apply_namespace(&mut self, name: impl Into<String>, labels: Labels) {
        self.journal.record(Change::Other);
        self.namespaces.insert(name.into(), labels);
    }

    /// Replaces every namespace.
    pub fn reset_namespaces(&mut self, namespaces: impl IntoIterator<Item = (String, Labels)>) {
        self.journal.record(Change::Other);
        self.namespaces = namespaces.into_iter().collect();
    }

    /// Records that a Secret or ConfigMap exists at `resource_version` (a metadata-only
    /// watch event). Content read earlier is kept; it counts again only if it was read at
    /// this version.
    pub fn apply_meta(
        &mut self,
        source: AssetSource,
        namespace: impl Into<String>,
        name: impl Into<String>,
        resource_version: Option<String>,
    ) {
        let (namespace, name) = (namespace.into(), name.into());
        self.journal.record(Change::data(source, &namespace, &name));
        self.data_object_entry(source, namespace, name)
            .resource_version = resource_version;
    }

    /// Stores what was read of a Secret or ConfigMap at `resource_version`: every key name
    /// it has and the values of the keys wanted (the others are not held). Creates the
    /// object if no watch event announced it yet.
    pub fn set_content(
        &mut self,
        source: AssetSource,
        namespace: impl Into<String>,
        name: impl Into<String>,
        resource_version: Option<String>,
        key_names: BTreeSet<String>,
        values: KeyValues,
    ) {
        let (namespace, name) = (namespace.into(), name.into());
        self.journal.record(Change::data(source, &namespace, &name));
        let object = self
            .data_map_mut(source)
            .entry((namespace, name))
            .or_insert_with(|| DataObject {
                resource_version: resource_version.clone(),
                content: None,
            });
        object.content = Some(Arc::new(DataContent::new(
            resource_version,
            key_names,
            values,
        )));
    }

    /// A Secret or ConfigMap read whole (from a file): its resourceVersion and every value.
    pub fn apply_data(
        &mut self,
        source: AssetSource,
        namespace: impl Into<String>,
        name: impl Into<String>,
        resource_version: Option<String>,
        data: KeyValues,
    ) {
        let (namespace, name) = (namespace.into(), name.into());
        self.apply_meta(source, &namespace, &name, resource_version.clone());
        let key_names = data.keys().cloned().collect();
        self.set_content(source, namespace, name, resource_version, key_names, data);
    }

    /// Stores content just read, at the version it was read at (newer than the listed
    /// metadata, or as new).
    pub fn apply_read(
        &mut self,
        source: AssetSource,
        namespace: impl Into<String>,
        name: impl Into<String>,
        content: Arc<DataContent>,
    ) {
        let (namespace, name) = (namespace.into(), name.into());
        self.journal.record(Change::data(source, &namespace, &name));
        let object = self.data_object_entry(source, namespace, name);
        object.resource_version = content.resource_version.clone();
        object.content = Some(content);
    }

    /// The Secret or ConfigMap `namespace/name`, added (empty) if unknown.
    fn data_object_entry(
        &mut self,
        source: AssetSource,
        namespace: impl Into<String>,
        name: impl Into<String>,
    ) -> &mut DataObject {
        self.data_map_mut(source)
            .entry((namespace.into(), name.into()))
            .or_default()
    }

    /// Replaces the list of Secrets or ConfigMaps (a metadata relist): objects not listed
    /// are dropped, content of the listed ones is kept as [`InputStore::apply_meta`] keeps it.
    pub fn reset_meta(
        &mut self,
        source: AssetSource,
        objects: impl IntoIterator<Item = (NamespacedName, Option<String>)>,
    ) {
        self.journal.record(Change::Other);
        let mut previous = std::mem::take(self.data_map_mut(source));
        let map = self.data_map_mut(source);
        for (key, resource_version) in objects {
            let mut object = previous.remove(&key).unwrap_or_default();
            object.resource_version = resource_version;
            map.insert(key, object);
        }
    }

    /// Records the fields of `object` that our schema lacks (none: forgets what was recorded),
    /// as its schema check found them when it arrived; read through
    /// [`InputView::unknown_fields`]. Set with every version of the object: a version without
    /// them clears them.
    pub fn set_unknown_fields(&mut self, object: InputRef, fields: Vec<String>) {
        self.journal.record(Change::UnknownFields(object.clone()));
        if fields.is_empty() {
            self.unknown_fields.remove(&object);
        } else {
            self.unknown_fields.insert(object, fields);
        }
    }

    /// Removes one object (a watch's `Delete`). Returns whether it was there. For
    /// `Kind::Namespace`, `namespace` is ignored and `name` is the namespace.
    pub fn delete(&mut self, kind: Kind, namespace: &str, name: &str) -> bool {
        self.journal.record(match kind {
            Kind::Secret => Change::data(AssetSource::Secret, namespace, name),
            Kind::ConfigMap => Change::data(AssetSource::ConfigMap, namespace, name),
            _ => Change::Other,
        });
        if !self.unknown_fields.is_empty() {
            self.unknown_fields
                .remove(&InputRef::new(kind, namespace, name));
        }
        fn remove<T: Input>(store: &mut InputStore, namespace: &str, name: &str) -> bool {
            T::objects_mut(store).remove(namespace, name).is_some()
        }
        let key = || (namespace.to_owned(), name.to_owned());
        match kind {
            Kind::GrafanaAgent => remove::<GrafanaAgent>(self, namespace, name),
            Kind::MetricsInstance => remove::<MetricsInstance>(self, namespace, name),
            Kind::LogsInstance => remove::<LogsInstance>(self, namespace, name),
            Kind::PodLogs => remove::<PodLogs>(self, namespace, name),
            Kind::Integration => remove::<Integration>(self, namespace, name),
            Kind::ServiceMonitor => remove::<ServiceMonitor>(self, namespace, name),
            Kind::PodMonitor => remove::<PodMonitor>(self, namespace, name),
            Kind::Probe => remove::<Probe>(self, namespace, name),
            Kind::ScrapeConfig => remove::<ScrapeConfig>(self, namespace, name),
            Kind::Secret => self.secrets.remove(&key()).is_some(),
            Kind::ConfigMap => self.config_maps.remove(&key()).is_some(),
            Kind::Namespace => self.namespaces.remove(name).is_some(),
        }
    }

    /// Every Secret or ConfigMap of one source, by (namespace, name).
    pub fn data_objects(
        &self,
        source: AssetSource,
    ) -> impl Iterator<Item = (&NamespacedName, &DataObject)> {
        self.data_map(source).iter()
    }

    /// Every namespace declared, with its labels.
    pub fn namespaces(&self) -> &BTreeMap<String, Labels> {
        &self.namespaces
    }

    fn data_map(&self, source: AssetSource) -> &BTreeMap<NamespacedName, DataObject> {
        match source {
            AssetSource::Secret => &self.secrets,
            AssetSource::ConfigMap => &self.config_maps,
        }
    }

    /// Records a Secret or ConfigMap refused when read from a file ([`InputView::data_refused`]).
    pub fn refuse_data(&mut self, source: AssetSource, namespace: &str, name: &str) {
        self.journal.record(Change::data(source, namespace, name));
        self.refused_data
            .insert((source, (namespace.to_owned(), name.to_owned())));
    }

    fn data_map_mut(&mut self, source: AssetSource) -> &mut BTreeMap<NamespacedName, DataObject> {
        match source {
            AssetSource::Secret => &mut self.secrets,
            AssetSource::ConfigMap => &mut self.config_maps,
        }
    }
}

impl InputView for InputStore {
    fn objects<T: Input>(&self) -> &Objects<T> {
        T::objects(self)
    }

    fn namespace_labels(&self, name: &str) -> &Labels {
        self.namespaces.get(name).unwrap_or(&NO_LABELS)
    }

    fn namespace_names(&self) -> BTreeSet<&str> {
        let mut names: BTreeSet<&str> = self.namespaces.keys().map(String::as_str).collect();
        names.extend(self.agents.namespaces());
        names.extend(self.metrics_instances.namespaces());
        names.extend(self.logs_instances.namespaces());
        names.extend(self.pod_logs.namespaces());
        names.extend(self.integrations.namespaces());
        names.extend(self.service_monitors.namespaces());
        names.extend(self.pod_monitors.namespaces());
        names.extend(self.probes.namespaces());
        names.extend(self.scrape_configs.namespaces());
        names
    }

    fn data_object(&self, source: AssetSource, namespace: &str, name: &str) -> Option<&DataObject> {
        self.data_map(source)
            .get(&(namespace.to_owned(), name.to_owned()))
    }

    fn data_refused(&self, source: AssetSource, namespace: &str, name: &str) -> bool {
        self.refused_data
            .contains(&(source, (namespace.to_owned(), name.to_owned())))
    }

    fn unknown_fields(&self) -> &UnknownFields {
        &self.unknown_fields
    }

    fn journal(&self) -> Option<&Journal> {
        Some(&self.journal)
    }
}

/// A view of `base` with one reader's own reads of Secrets and ConfigMaps laid over it. The
/// controller's store is fed by the watches and shared by every reconcile, without values;
/// each agent keeps the values its hierarchy references and discovers through this view,
/// so no reconcile copies the store.
pub struct WithContent<'a, V: ?Sized> {
    base: &'a V,
    /// `None`: read and found missing.
    laid: BTreeMap<(AssetSource, NamespacedName), Option<DataObject>>,
}

impl<'a, V: InputView + ?Sized> WithContent<'a, V> {
    pub fn new(base: &'a V) -> Self {
        WithContent {
            base,
            laid: BTreeMap::new(),
        }
    }

    /// Content read earlier: it counts while the object's version, as the base knows it, is
    /// the one it was read at. Nothing is laid for an object the base does not hold.
    pub fn lay(
        &mut self,
        source: AssetSource,
        namespace: &str,
        name: &str,
        content: Arc<DataContent>,
    ) {
        let Some(object) = self.base.data_object(source, namespace, name) else {
            return;
        };
        let resource_version = object.resource_version.clone();
        self.put(source, namespace, name, resource_version, content);
    }

    /// Content just read: it may be newer than what the base knows (the watch reports the same
    /// version, or a deletion, soon after), so the object is taken at the version read.
    pub fn read(
        &mut self,
        source: AssetSource,
        namespace: &str,
        name: &str,
        content: Arc<DataContent>,
    ) {
        let resource_version = content.resource_version.clone();
        self.put(source, namespace, name, resource_version, content);
    }

    fn put(
        &mut self,
        source: AssetSource,
        namespace: &str,
        name: &str,
        resource_version: Option<String>,
        content: Arc<DataContent>,
    ) {
        let object = DataObject {
            resource_version,
            content: Some(content),
        };
        self.laid.insert(
            (source, (namespace.to_owned(), name.to_owned())),
            Some(object),
        );
    }

    /// An object found missing when read, whatever the base still says.
    pub fn missing(&mut self, source: AssetSource, namespace: &str, name: &str) {
        self.laid
            .insert((source, (namespace.to_owned(), name.to_owned())), None);
    }
}

impl<V: InputView + ?Sized> InputView for WithContent<'_, V> {
    fn objects<T: Input>(&self) -> &Objects<T> {
        self.base.objects()
    }

    fn namespace_labels(&self, name: &str) -> &Labels {
        self.base.namespace_labels(name)
    }

    fn namespace_names(&self) -> BTreeSet<&str> {
        self.base.namespace_names()
    }

    fn data_object(&self, source: AssetSource, namespace: &str, name: &str) -> Option<&DataObject> {
        match self
            .laid
            .get(&(source, (namespace.to_owned(), name.to_owned())))
        {
            Some(laid) => laid.as_ref(),
            None => self.base.data_object(source, namespace, name),
        }
    }

    fn data_refused(&self, source: AssetSource, namespace: &str, name: &str) -> bool {
        self.base.data_refused(source, namespace, name)
    }

    fn unknown_fields(&self) -> &UnknownFields {
        self.base.unknown_fields()
    }

    /// The base's: the values laid over it are not journaled (see [`crate::rediscover`]).
    fn journal(&self) -> Option<&Journal> {
        self.base.journal()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::discover;
    use crate::input_ref::InputRef;

    fn monitor(namespace: &str, name: &str) -> Arc<ServiceMonitor> {
        let mut sm = ServiceMonitor::default();
        sm.metadata.namespace = Some(namespace.to_owned());
        sm.metadata.name = Some(name.to_owned());
        Arc::new(sm)
    }

    fn listed(store: &InputStore) -> Vec<String> {
        store
            .objects::<ServiceMonitor>()
            .iter()
            .map(|m| InputRef::of(Kind::ServiceMonitor, m.as_ref()).key())
            .collect()
    }

    fn labelled(namespace: &str, name: &str, labels: &[(&str, &str)]) -> Arc<ServiceMonitor> {
        let mut sm = Arc::unwrap_or_clone(monitor(namespace, name));
        sm.metadata.labels = Some(
            labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        );
        Arc::new(sm)
    }

    fn carrying(store: &InputStore, key: &str, values: &[&str]) -> Vec<String> {
        let objects = store.objects::<ServiceMonitor>();
        let found: Vec<String> = objects
            .labelled(key, values)
            .into_iter()
            .map(|(ns, m)| {
                let key = InputRef::of(Kind::ServiceMonitor, m.as_ref()).key();
                assert!(key.starts_with(&format!("{ns}/")), "{key} under {ns}");
                key
            })
            .collect();
        assert_eq!(objects.count_labelled(key, values), found.len());
        found
    }

    #[test]
    fn the_label_index_follows_every_change() {
        let mut store = InputStore::new();
        store.apply(labelled("b", "1", &[("agent", "x"), ("app", "web")]));
        store.apply(labelled("a", "2", &[("agent", "y")]));
        store.apply(labelled("a", "1", &[("agent", "x")]));
        assert_eq!(carrying(&store, "agent", &["x"]), ["a/1", "b/1"]);
        // Several values, one listed twice, one nobody carries: by (namespace, name), once each.
        assert_eq!(
            carrying(&store, "agent", &["y", "x", "y", "z"]),
            ["a/1", "a/2", "b/1"]
        );
        assert_eq!(carrying(&store, "nope", &["x"]), Vec::<String>::new());

        // A relabel moves the object; a deletion drops it; the last carrier drops the value.
        store.apply(labelled("b", "1", &[("agent", "y")]));
        assert_eq!(carrying(&store, "agent", &["x"]), ["a/1"]);
        assert_eq!(carrying(&store, "agent", &["y"]), ["a/2", "b/1"]);
        assert_eq!(carrying(&store, "app", &["web"]), Vec::<String>::new());
        assert!(store.delete(Kind::ServiceMonitor, "a", "1"));
        assert_eq!(carrying(&store, "agent", &["x"]), Vec::<String>::new());
        let objects = store.objects::<ServiceMonitor>();
        assert!(!objects.by_label["agent"].contains_key("x"));
        assert!(!objects.by_label.contains_key("app"));

        // A relist replaces the index with the store.
        store.reset([labelled("c", "1", &[("agent", "x")])]);
        assert_eq!(carrying(&store, "agent", &["x"]), ["c/1"]);
        assert_eq!(carrying(&store, "agent", &["y"]), Vec::<String>::new());
    }

    #[test]
    fn unknown_fields_follow_their_object() {
        let monitor = |name: &str| {
            let mut sm = ServiceMonitor::new(name, Default::default());
            sm.metadata.namespace = Some("ns".into());
            Arc::new(sm)
        };
        let key = |name: &str| InputRef::new(Kind::ServiceMonitor, "ns", name);
        let mut store = InputStore::new();
        store.apply(monitor("a"));
        store.set_unknown_fields(key("a"), vec!["spec.x".into()]);
        store.apply(monitor("b"));
        store.set_unknown_fields(key("b"), vec!["spec.y".into()]);
        let view: &dyn Fn(&InputStore) -> Vec<String> = &|s| {
            s.unknown_fields()
                .iter()
                .map(|(k, v)| format!("{}={}", k.name, v.join(",")))
                .collect()
        };
        assert_eq!(view(&store), ["a=spec.x", "b=spec.y"]);
        // A version without them clears them; a deletion forgets them.
        store.set_unknown_fields(key("a"), Vec::new());
        assert_eq!(view(&store), ["b=spec.y"]);
        store.delete(Kind::ServiceMonitor, "ns", "b");
        assert!(view(&store).is_empty());
        // A relist replaces the kind's, and only that kind's.
        store.set_unknown_fields(key("a"), vec!["spec.x".into()]);
        let agent = InputRef::new(Kind::GrafanaAgent, "ns", "agent");
        store.set_unknown_fields(agent, vec!["spec.z".into()]);
        store.reset([monitor("a")]);
        assert_eq!(view(&store), ["agent=spec.z"]);
    }

    #[test]
    fn each_object_keeps_the_references_of_its_current_version() {
        let with_token = |secret: &str| {
            let mut sm = Arc::unwrap_or_clone(monitor("a", "1"));
            let mut endpoint = api::monitors::Endpoint::default();
            endpoint.common.bearer_token_secret = Some(api::selectors::SecretKeySelector {
                name: secret.to_owned(),
                key: "token".to_owned(),
                optional: None,
            });
            sm.spec.endpoints = vec![endpoint];
            Arc::new(sm)
        };
        let referred = |store: &InputStore| -> Option<Vec<String>> {
            let refs = store.objects::<ServiceMonitor>().references("a", "1")?;
            Some(
                refs.iter()
                    .map(|r| format!("{} {}", r.field, r.key.store_key()))
                    .collect(),
            )
        };
        let mut store = InputStore::new();
        store.apply(with_token("first"));
        assert_eq!(
            referred(&store).expect("held"),
            ["spec.endpoints[0].bearerTokenSecret /secrets/a/first/token"]
        );
        store.apply(with_token("second"));
        assert_eq!(
            referred(&store).expect("held"),
            ["spec.endpoints[0].bearerTokenSecret /secrets/a/second/token"]
        );
        store.apply(monitor("a", "1"));
        assert_eq!(referred(&store).expect("held"), Vec::<String>::new());
        assert!(store.delete(Kind::ServiceMonitor, "a", "1"));
        assert_eq!(referred(&store), None);
    }

    #[test]
    fn objects_are_kept_by_namespace_and_name_whatever_the_order_of_events() {
        let mut store = InputStore::new();
        for (ns, name) in [("b", "2"), ("a", "9"), ("b", "1"), ("a", "10")] {
            assert!(store.apply(monitor(ns, name)).is_none());
        }
        assert!(store.apply(monitor("b", "1")).is_some(), "replaced");
        assert_eq!(listed(&store), ["a/10", "a/9", "b/1", "b/2"]);
        assert_eq!(store.objects::<ServiceMonitor>().len(), 4);
        let in_b: Vec<_> = store
            .objects::<ServiceMonitor>()
            .in_namespace("b")
            .collect();
        assert_eq!(in_b.len(), 2);

        assert!(store.delete(Kind::ServiceMonitor, "a", "9"));
        assert!(!store.delete(Kind::ServiceMonitor, "a", "9"));
        assert!(store.delete(Kind::ServiceMonitor, "a", "10"));
        let namespaces: Vec<_> = store.objects::<ServiceMonitor>().namespaces().collect();
        assert_eq!(namespaces, ["b"], "an emptied namespace is dropped");

        store.reset([monitor("c", "x")]);
        assert_eq!(listed(&store), ["c/x"]);
        assert_eq!(store.objects::<ServiceMonitor>().len(), 1);
        assert!(store.objects::<Probe>().is_empty(), "other kinds untouched");
    }

    #[test]
    fn namespaces_and_data_objects_follow_their_events() {
        let mut store = InputStore::new();
        store.apply_namespace("apps", Labels::from([("team".into(), "apps".into())]));
        assert_eq!(store.namespace_labels("apps")["team"], "apps");
        assert!(store.delete(Kind::Namespace, "", "apps"));
        assert!(store.namespace_labels("apps").is_empty());

        let keys = BTreeSet::from(["k".to_owned()]);
        let values = KeyValues::from([("k".to_owned(), b"v".to_vec())]);
        let (s, rv) = (AssetSource::Secret, |v: &str| Some(v.to_owned()));
        store.set_content(s, "ns", "a", rv("1"), keys.clone(), values.clone());
        store.apply_meta(s, "ns", "b", rv("1"));
        let a = store
            .data_object(s, "ns", "a")
            .expect("set_content creates it");
        assert_eq!(a.lookup("k"), KeyLookup::Value(b"v"));
        store.apply_meta(s, "ns", "a", rv("2"));
        let a = store.data_object(s, "ns", "a").expect("a");
        assert_eq!(a.lookup("k"), KeyLookup::NotLoaded, "stale content");

        // A relist keeps the listed objects' content and drops the others.
        store.reset_meta(s, [(("ns".to_owned(), "a".to_owned()), rv("1"))]);
        let a = store.data_object(s, "ns", "a").expect("a");
        assert_eq!(a.lookup("k"), KeyLookup::Value(b"v"), "current again at 1");
        assert!(store.data_object(s, "ns", "b").is_none());
        assert!(
            store
                .data_object(AssetSource::ConfigMap, "ns", "a")
                .is_none()
        );
        assert!(store.delete(Kind::Secret, "ns", "a"));
        assert!(store.data_object(s, "ns", "a").is_none());
    }

    const AGENT: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: ops}
spec:
  metrics:
    remoteWrite:
    - url: https://remote/push
      basicAuth:
        username: {name: creds, key: user}
        password: {name: creds, key: pw}
"#;

    /// The controller's loop: metadata only, discovery asks for the referenced keys; once
    /// they are loaded at the current resourceVersion it asks for nothing; a new version
    /// asks again; a key the loaded content lacks is a rejection, not a load.
    #[test]
    fn discovery_lists_what_to_load_until_the_referenced_values_are_current() {
        let mut loader = crate::manifest::Loader::new();
        loader.add_source("agent.yaml", AGENT);
        let mut store = loader.finish().store;
        let agent = store.agents().next().expect("the agent").clone();
        let creds = InputRef::new(Kind::Secret, "ops", "creds");
        let wanted = BTreeSet::from(["pw".to_owned(), "user".to_owned()]);

        let d = discover(&agent, &store);
        assert!(d.to_load.is_empty(), "an absent Secret is not loaded");
        assert_eq!(d.dependencies.references[&creds], wanted);

        let s = AssetSource::Secret;
        store.apply_meta(s, "ops", "creds", Some("5".into()));
        let d = discover(&agent, &store);
        let to_read = crate::asset_key::DataRef::new(s, "ops", "creds");
        assert_eq!(d.to_load, BTreeMap::from([(to_read, wanted.clone())]));
        assert!(d.rejections.is_empty(), "{:?}", d.rejections);

        let all_keys = BTreeSet::from(["pw".into(), "user".into(), "unrelated".into()]);
        let values = KeyValues::from([
            ("pw".to_owned(), b"secret".to_vec()),
            ("user".to_owned(), b"me".to_vec()),
        ]);
        store.set_content(
            s,
            "ops",
            "creds",
            Some("5".into()),
            all_keys,
            values.clone(),
        );
        let d = discover(&agent, &store);
        assert!(d.to_load.is_empty());
        assert_eq!(d.hierarchy.assets.secret_data().len(), 2);

        store.apply_meta(s, "ops", "creds", Some("6".into()));
        assert_eq!(
            discover(&agent, &store).to_load.len(),
            1,
            "changed since read"
        );

        let without_pw = BTreeSet::from(["user".to_owned()]);
        store.set_content(s, "ops", "creds", Some("6".into()), without_pw, values);
        let d = discover(&agent, &store);
        assert!(d.to_load.is_empty());
        let rejected: Vec<_> = d.rejections.iter().map(|r| r.field.clone()).collect();
        assert_eq!(
            rejected,
            [Some(
                "spec.metrics.remoteWrite[0].basicAuth.password".to_owned()
            )]
        );
    }

    #[test]
    fn laid_content_counts_while_the_base_holds_the_version_it_was_read_at() {
        let mut loader = crate::manifest::Loader::new();
        loader.add_source("agent.yaml", AGENT);
        let mut base = loader.finish().store;
        let agent = base.agents().next().expect("the agent").clone();
        let s = AssetSource::Secret;
        let content = |version: &str| {
            Arc::new(DataContent::new(
                Some(version.to_owned()),
                BTreeSet::from(["pw".to_owned(), "user".to_owned()]),
                KeyValues::from([
                    ("pw".to_owned(), b"secret".to_vec()),
                    ("user".to_owned(), b"me".to_vec()),
                ]),
            ))
        };
        base.apply_meta(s, "ops", "creds", Some("5".into()));

        // Read at the version the base holds: current.
        let mut view = WithContent::new(&base);
        view.lay(s, "ops", "creds", content("5"));
        assert!(discover(&agent, &view).to_load.is_empty());
        // Read at an older version: loaded again.
        let mut view = WithContent::new(&base);
        view.lay(s, "ops", "creds", content("4"));
        assert_eq!(discover(&agent, &view).to_load.len(), 1);
        // Just read, newer than the base knows: taken at the version read.
        let mut view = WithContent::new(&base);
        view.read(s, "ops", "creds", content("6"));
        let d = discover(&agent, &view);
        assert!(d.to_load.is_empty());
        assert_eq!(d.hierarchy.assets.secret_data().len(), 2);
        // Found missing when read: a missing Secret, whatever the base says.
        let mut view = WithContent::new(&base);
        view.missing(s, "ops", "creds");
        assert!(view.data_object(s, "ops", "creds").is_none());
        assert!(discover(&agent, &view).to_load.is_empty());
        // Nothing is laid over an object the base does not hold.
        base.delete(Kind::Secret, "ops", "creds");
        let mut view = WithContent::new(&base);
        view.lay(s, "ops", "creds", content("5"));
        assert!(view.data_object(s, "ops", "creds").is_none());
        // The base's copy stays without values.
        base.apply_meta(s, "ops", "creds", Some("5".into()));
        assert_eq!(
            base.data_object(s, "ops", "creds")
                .map(DataObject::current_content),
            Some(None)
        );
    }
}
