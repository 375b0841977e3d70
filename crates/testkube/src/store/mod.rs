//! The in-memory object store: CRUD with Kubernetes semantics, the change history that watches
//! replay, garbage collection and namespace termination.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

use base64::Engine;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::error::{ApiError, StatusCause, cause};
use crate::fieldmanager::{self, ApplyError, ListKeys, Scope, Writer};
use crate::patch::{self, PatchKind};
use crate::resources::{Registry, ResourceInfo, StoreKey, resources_from_crd};
use crate::selector::{FieldSelector, LabelSelector};

mod delete;
mod validation;
mod write;

use validation::*;

/// Namespace (empty for cluster-scoped objects) and name: the order lists are returned in.
pub type ObjectKey = (String, String);

const FOREGROUND_FINALIZER: &str = "foregroundDeletion";
const ORPHAN_FINALIZER: &str = "orphan";
const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

/// One committed write, kept for watches that resume from an older resourceVersion.
#[derive(Debug)]
pub struct Change {
    pub resource_version: u64,
    pub store_key: StoreKey,
    pub kind: ChangeKind,
    pub object: Arc<Value>,
    pub previous: Option<Arc<Value>>,
}

/// What a watch stream sends: `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.
#[derive(Debug, Clone)]
pub struct WatchItem {
    pub event_type: &'static str,
    pub object: Arc<Value>,
}

/// Where a watch starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchStart {
    /// Synthetic `ADDED` events for the current state first (resourceVersion unset or "0", or
    /// `sendInitialEvents=true`, which also ends them with an initial-events-end bookmark).
    Snapshot { end_bookmark: bool },
    /// Changes after this resourceVersion.
    After(u64),
}

/// Which objects a list or watch selects.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub namespace: Option<String>,
    pub labels: LabelSelector,
    pub fields: FieldSelector,
}

impl Selection {
    pub fn matches(&self, object: &Value) -> bool {
        if let Some(namespace) = &self.namespace
            && object["metadata"]["namespace"].as_str() != Some(namespace.as_str())
        {
            return false;
        }
        self.labels.matches(object) && self.fields.matches(object)
    }
}

struct Watcher {
    store_key: StoreKey,
    selection: Selection,
    sender: mpsc::UnboundedSender<WatchItem>,
}

/// How a write is attributed and whether it is persisted.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// `fieldManager` query parameter, or a name derived from the User-Agent.
    pub field_manager: String,
    pub dry_run: bool,
    pub force: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    Background,
    Foreground,
    Orphan,
}

#[derive(Debug, Clone, Default)]
pub struct DeleteOptions {
    pub propagation: Option<Propagation>,
    pub precondition_uid: Option<String>,
    pub precondition_resource_version: Option<String>,
    pub dry_run: bool,
}

/// Result of a delete: the object is either gone, or still there marked for deletion.
pub enum Deleted {
    Gone(Arc<Value>),
    Pending(Arc<Value>),
}

/// List parameters after parsing.
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    pub selection: Selection,
    pub limit: Option<usize>,
    pub continue_token: Option<String>,
    pub resource_version: Option<String>,
    pub resource_version_match: Option<String>,
}

pub struct ListPage {
    pub items: Vec<Arc<Value>>,
    pub resource_version: u64,
    pub continue_token: Option<String>,
    pub remaining: Option<usize>,
}

pub struct State {
    pub registry: Registry,
    collections: HashMap<StoreKey, BTreeMap<ObjectKey, Arc<Value>>>,
    uids: HashMap<String, (StoreKey, ObjectKey)>,
    /// Owner uid → objects whose ownerReferences name it, for garbage collection.
    dependents: HashMap<String, BTreeSet<(StoreKey, ObjectKey)>>,
    resource_version: u64,
    history: VecDeque<Arc<Change>>,
    history_limit: usize,
    /// Watches and continue tokens from a resourceVersion below this are answered 410 Gone.
    compacted_below: u64,
    watchers: Vec<Watcher>,
}

pub fn now_rfc3339() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second())
        .map(|whole| whole.to_string())
        .unwrap_or_else(|_| now.to_string())
}

fn new_uid() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No entropy source: fall back to the clock, uniqueness is all that matters here.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos())
            .unwrap_or_default();
        bytes = nanos.to_le_bytes();
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The random suffix of `generateName`, from the same alphabet the real server uses.
fn random_suffix() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut bytes = [0u8; 5];
    let _ = getrandom::fill(&mut bytes);
    bytes
        .iter()
        .map(|byte| ALPHABET[*byte as usize % ALPHABET.len()] as char)
        .collect()
}

fn metadata_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object["metadata"].is_object() {
        object["metadata"] = json!({});
    }
    object["metadata"]
        .as_object_mut()
        .expect("metadata was just made an object")
}

fn name_of(object: &Value) -> &str {
    object["metadata"]["name"].as_str().unwrap_or_default()
}

fn uid_of(object: &Value) -> &str {
    object["metadata"]["uid"].as_str().unwrap_or_default()
}

fn finalizers_of(object: &Value) -> Vec<String> {
    object["metadata"]["finalizers"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn is_terminating(object: &Value) -> bool {
    object["metadata"]["deletionTimestamp"].is_string()
}

fn owner_uids(object: &Value) -> Vec<String> {
    object["metadata"]["ownerReferences"]
        .as_array()
        .map(|refs| {
            refs.iter()
                .filter_map(|owner| owner["uid"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn gone_for(resource_version: u64, oldest: u64) -> ApiError {
    ApiError::expired(format!(
        "too old resource version: {resource_version} ({oldest})"
    ))
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ContinueToken {
    #[serde(rename = "rv")]
    resource_version: u64,
    #[serde(rename = "ns")]
    namespace: String,
    name: String,
}

impl State {
    pub fn new(history_limit: usize) -> Self {
        let mut state = State {
            registry: Registry::new(),
            collections: HashMap::new(),
            uids: HashMap::new(),
            dependents: HashMap::new(),
            resource_version: 1,
            history: VecDeque::new(),
            history_limit: history_limit.max(1),
            compacted_below: 0,
            watchers: Vec::new(),
        };
        let options = WriteOptions {
            field_manager: "testkube".into(),
            ..WriteOptions::default()
        };
        for namespace in ["default", "kube-system", "kube-public", "kube-node-lease"] {
            let info = state
                .registry
                .lookup("", "v1", "namespaces")
                .cloned()
                .expect("namespaces are built in");
            let created = state.create(
                &info,
                None,
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}),
                &options,
            );
            debug_assert!(created.is_ok());
        }
        state
    }

    pub fn resource_version(&self) -> u64 {
        self.resource_version
    }

    pub fn object_count(&self) -> usize {
        self.collections.values().map(BTreeMap::len).sum()
    }

    /// Fault injection: every resourceVersion handed out so far becomes too old, so watches and
    /// continue tokens using one get 410 Gone and clients relist.
    pub fn expire_resource_versions(&mut self) {
        self.resource_version += 1;
        self.compacted_below = self.resource_version;
        self.history.clear();
    }

    /// Fault injection: ends every open watch stream, as an API server restart would.
    pub fn close_watches(&mut self) {
        self.watchers.clear();
    }

    pub fn watcher_count(&self) -> usize {
        self.watchers
            .iter()
            .filter(|watcher| !watcher.sender.is_closed())
            .count()
    }

    fn collection(&self, key: &StoreKey) -> Option<&BTreeMap<ObjectKey, Arc<Value>>> {
        self.collections.get(key)
    }

    fn object_key(info: &ResourceInfo, namespace: Option<&str>, name: &str) -> ObjectKey {
        let namespace = if info.namespaced {
            namespace.unwrap_or_default()
        } else {
            ""
        };
        (namespace.to_string(), name.to_string())
    }

    /// Rewrites `apiVersion` when a CRD serves several versions from one collection.
    pub fn presented(info: &ResourceInfo, object: &Arc<Value>) -> Arc<Value> {
        let api_version = info.api_version();
        if object["apiVersion"].as_str() == Some(api_version.as_str()) {
            return object.clone();
        }
        let mut copy = (**object).clone();
        copy["apiVersion"] = json!(api_version);
        Arc::new(copy)
    }

    pub fn get(
        &self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Arc<Value>, ApiError> {
        self.collection(&info.store_key())
            .and_then(|objects| objects.get(&Self::object_key(info, namespace, name)))
            .map(|object| Self::presented(info, object))
            .ok_or_else(|| ApiError::not_found(&info.group, &info.plural, name))
    }

    // ----- list -----

    pub fn list(&self, info: &ResourceInfo, options: &ListOptions) -> Result<ListPage, ApiError> {
        let requested = match options.resource_version.as_deref() {
            None | Some("") | Some("0") => None,
            Some(text) => Some(text.parse::<u64>().map_err(|_| {
                ApiError::bad_request(format!("invalid resource version: {text:?}"))
            })?),
        };
        if let Some(requested) = requested {
            match options.resource_version_match.as_deref() {
                Some("Exact") if requested != self.resource_version => {
                    // Only the current state is kept, so older exact reads are as good as compacted.
                    return Err(gone_for(requested, self.resource_version));
                }
                _ if requested > self.resource_version => {
                    return Err(ApiError::timeout(format!(
                        "Too large resource version: {requested}, current: {}",
                        self.resource_version
                    )));
                }
                _ => {}
            }
        }
        let mut start: Bound<ObjectKey> = Bound::Unbounded;
        let mut resource_version = self.resource_version;
        if let Some(token) = options
            .continue_token
            .as_deref()
            .filter(|token| !token.is_empty())
        {
            let decoded: ContinueToken = base64::engine::general_purpose::STANDARD
                .decode(token)
                .ok()
                .and_then(|bytes| serde_json::from_slice(&bytes).ok())
                .ok_or_else(|| {
                    ApiError::bad_request(
                        "continue key is not valid: incorrect encoded start resourceVersion",
                    )
                })?;
            if decoded.resource_version < self.compacted_below {
                return Err(ApiError::expired(
                    "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
                ));
            }
            resource_version = decoded.resource_version;
            start = Bound::Excluded((decoded.namespace, decoded.name));
        }
        let Some(objects) = self.collection(&info.store_key()) else {
            return Ok(ListPage {
                items: Vec::new(),
                resource_version,
                continue_token: None,
                remaining: None,
            });
        };
        let selection = &options.selection;
        let mut items = Vec::new();
        let mut continue_token = None;
        let mut remaining = None;
        // A pinned name (kubectl's wait and get -w use one) or namespace narrows the scan.
        let (lower, upper) = match (&selection.namespace, selection.fields.exact_name()) {
            (Some(namespace), Some(name)) if info.namespaced => {
                let key = (namespace.clone(), name.to_string());
                (Bound::Included(key.clone()), Bound::Included(key))
            }
            (None, Some(name)) if !info.namespaced => {
                let key = (String::new(), name.to_string());
                (Bound::Included(key.clone()), Bound::Included(key))
            }
            (Some(namespace), _) if info.namespaced => (
                Bound::Included((namespace.clone(), String::new())),
                Bound::Excluded((format!("{namespace}\u{0}"), String::new())),
            ),
            _ => (Bound::Unbounded, Bound::Unbounded),
        };
        let lower = match (&start, lower) {
            (Bound::Excluded(after), Bound::Included(from)) if *after >= from => {
                Bound::Excluded(after.clone())
            }
            (Bound::Excluded(after), Bound::Unbounded) => Bound::Excluded(after.clone()),
            (_, lower) => lower,
        };
        if let (
            Bound::Excluded(low) | Bound::Included(low),
            Bound::Excluded(high) | Bound::Included(high),
        ) = (&lower, &upper)
            && low > high
        {
            return Ok(ListPage {
                items,
                resource_version,
                continue_token,
                remaining,
            });
        }
        let mut matching = objects
            .range((lower, upper))
            .filter(|(_, object)| selection.matches(object));
        for (key, object) in matching.by_ref() {
            items.push(Self::presented(info, object));
            if options
                .limit
                .is_some_and(|limit| limit > 0 && items.len() >= limit)
            {
                let rest = matching.by_ref().count();
                if rest > 0 {
                    let token = ContinueToken {
                        resource_version,
                        namespace: key.0.clone(),
                        name: key.1.clone(),
                    };
                    let encoded = serde_json::to_vec(&token)
                        .map_err(|error| ApiError::internal(error.to_string()))?;
                    continue_token =
                        Some(base64::engine::general_purpose::STANDARD.encode(encoded));
                    remaining = Some(rest);
                }
                break;
            }
        }
        Ok(ListPage {
            items,
            resource_version,
            continue_token,
            remaining,
        })
    }

    // ----- watch -----

    /// Registers a watch; returns the events to send first and the channel of live ones.
    pub fn watch(
        &mut self,
        info: &ResourceInfo,
        selection: Selection,
        start: WatchStart,
    ) -> Result<(Vec<WatchItem>, mpsc::UnboundedReceiver<WatchItem>), ApiError> {
        let store_key = info.store_key();
        let mut initial = Vec::new();
        match start {
            WatchStart::Snapshot { end_bookmark } => {
                if let Some(objects) = self.collection(&store_key) {
                    for object in objects.values().filter(|object| selection.matches(object)) {
                        initial.push(WatchItem {
                            event_type: "ADDED",
                            object: Self::presented(info, object),
                        });
                    }
                }
                if end_bookmark {
                    initial.push(WatchItem {
                        event_type: "BOOKMARK",
                        object: Arc::new(bookmark(info, self.resource_version, true)),
                    });
                }
            }
            WatchStart::After(resource_version) => {
                if resource_version < self.compacted_below {
                    return Err(gone_for(resource_version, self.compacted_below));
                }
                if resource_version > self.resource_version {
                    return Err(ApiError::timeout(format!(
                        "Too large resource version: {resource_version}, current: {}",
                        self.resource_version
                    )));
                }
                let first = self
                    .history
                    .partition_point(|change| change.resource_version <= resource_version);
                for change in self.history.range(first..) {
                    if change.store_key != store_key {
                        continue;
                    }
                    if let Some(item) = watch_item_for(change, &selection) {
                        initial.push(WatchItem {
                            event_type: item.event_type,
                            object: Self::presented(info, &item.object),
                        });
                    }
                }
            }
        }
        let (sender, receiver) = mpsc::unbounded_channel();
        self.watchers.push(Watcher {
            store_key,
            selection,
            sender,
        });
        Ok((initial, receiver))
    }

    // ----- commit machinery -----

    fn record(&mut self, change: Change) {
        let change = Arc::new(change);
        self.watchers.retain(|watcher| {
            if watcher.store_key != change.store_key {
                return !watcher.sender.is_closed();
            }
            match watch_item_for(&change, &watcher.selection) {
                Some(item) => watcher.sender.send(item).is_ok(),
                None => !watcher.sender.is_closed(),
            }
        });
        self.history.push_back(change);
        while self.history.len() > self.history_limit {
            if let Some(evicted) = self.history.pop_front() {
                self.compacted_below = self.compacted_below.max(evicted.resource_version);
            }
        }
    }

    fn index_owners(
        &mut self,
        store_key: &StoreKey,
        key: &ObjectKey,
        previous: Option<&Value>,
        current: Option<&Value>,
    ) {
        for owner in previous.map(owner_uids).unwrap_or_default() {
            if let Some(set) = self.dependents.get_mut(&owner) {
                set.remove(&(store_key.clone(), key.clone()));
                if set.is_empty() {
                    self.dependents.remove(&owner);
                }
            }
        }
        for owner in current.map(owner_uids).unwrap_or_default() {
            self.dependents
                .entry(owner)
                .or_default()
                .insert((store_key.clone(), key.clone()));
        }
    }

    /// Stores `object` under a fresh resourceVersion and notifies watchers.
    fn commit(&mut self, store_key: &StoreKey, key: ObjectKey, mut object: Value) -> Arc<Value> {
        self.resource_version += 1;
        metadata_mut(&mut object).insert(
            "resourceVersion".into(),
            json!(self.resource_version.to_string()),
        );
        let object = Arc::new(object);
        let previous = self
            .collections
            .entry(store_key.clone())
            .or_default()
            .insert(key.clone(), object.clone());
        self.uids.insert(
            uid_of(&object).to_string(),
            (store_key.clone(), key.clone()),
        );
        self.index_owners(store_key, &key, previous.as_deref(), Some(&object));
        let kind = if previous.is_some() {
            ChangeKind::Modified
        } else {
            ChangeKind::Added
        };
        self.record(Change {
            resource_version: self.resource_version,
            store_key: store_key.clone(),
            kind,
            object: object.clone(),
            previous,
        });
        object
    }

    /// Removes an object for good, then lets garbage collection and namespace termination react.
    fn remove(&mut self, store_key: &StoreKey, key: &ObjectKey) -> Option<Arc<Value>> {
        let previous = self.collections.get_mut(store_key)?.remove(key)?;
        self.resource_version += 1;
        let mut last = (*previous).clone();
        metadata_mut(&mut last).insert(
            "resourceVersion".into(),
            json!(self.resource_version.to_string()),
        );
        let last = Arc::new(last);
        let uid = uid_of(&last).to_string();
        self.uids.remove(&uid);
        self.index_owners(store_key, key, Some(&previous), None);
        self.record(Change {
            resource_version: self.resource_version,
            store_key: store_key.clone(),
            kind: ChangeKind::Deleted,
            object: last.clone(),
            previous: Some(previous),
        });
        if store_key.group == "apiextensions.k8s.io"
            && store_key.plural == "customresourcedefinitions"
        {
            self.drop_custom_resources(&last);
        }
        self.collect_dependents_of(&uid);
        for owner in owner_uids(&last) {
            self.finish_foreground_if_unblocked(&owner);
        }
        if !key.0.is_empty() {
            self.finish_namespace_if_empty(&key.0);
        }
        Some(last)
    }

    /// Runs after any write: an object marked for deletion whose finalizers are all gone is
    /// removed, as the real registry does on the update that clears the last finalizer.
    fn settle(&mut self, store_key: &StoreKey, key: &ObjectKey) {
        let Some(object) = self
            .collections
            .get(store_key)
            .and_then(|objects| objects.get(key))
            .cloned()
        else {
            return;
        };
        if is_terminating(&object) && finalizers_of(&object).is_empty() {
            let namespace_waiting = store_key.group.is_empty()
                && store_key.plural == "namespaces"
                && self.namespace_has_content(name_of(&object));
            if !namespace_waiting {
                self.remove(store_key, key);
            }
        }
    }

    // ----- create -----

    fn namespace_has_content(&self, namespace: &str) -> bool {
        self.collections.values().any(|objects| {
            objects
                .range((namespace.to_string(), String::new())..)
                .next()
                .is_some_and(|((object_namespace, _), _)| object_namespace == namespace)
        })
    }

    fn namespace_object(&self, namespace: &str) -> Option<&Arc<Value>> {
        self.collections
            .get(&StoreKey {
                group: String::new(),
                plural: "namespaces".into(),
            })?
            .get(&(String::new(), namespace.to_string()))
    }

    // ----- update and patch -----

    fn current(&self, info: &ResourceInfo, key: &ObjectKey) -> Result<Arc<Value>, ApiError> {
        self.collection(&info.store_key())
            .and_then(|objects| objects.get(key))
            .cloned()
            .ok_or_else(|| ApiError::not_found(&info.group, &info.plural, &key.1))
    }

    fn check_resource_version(
        info: &ResourceInfo,
        current: &Value,
        proposed: &Value,
    ) -> Result<(), ApiError> {
        match proposed["metadata"]["resourceVersion"].as_str() {
            Some(given)
                if !given.is_empty()
                    && Some(given) != current["metadata"]["resourceVersion"].as_str() =>
            {
                Err(ApiError::stale_resource_version(
                    &info.group,
                    &info.plural,
                    name_of(current),
                ))
            }
            _ => Ok(()),
        }
    }

    // ----- delete and garbage collection -----

    /// Under the lock, so that no event older than the bookmark can still be in flight.
    pub fn bookmark(&self, info: &ResourceInfo) -> Arc<Value> {
        Arc::new(bookmark(info, self.resource_version, false))
    }
}

fn bookmark(info: &ResourceInfo, resource_version: u64, initial_events_end: bool) -> Value {
    let mut object = json!({
        "kind": info.kind,
        "apiVersion": info.api_version(),
        "metadata": {"resourceVersion": resource_version.to_string()},
    });
    if initial_events_end {
        object["metadata"]["annotations"] = json!({ INITIAL_EVENTS_END: "true" });
    }
    object
}

/// The event a watcher with `selection` sees for `change`: an object moving into the selection
/// is ADDED, one moving out is DELETED, as on a real server.
fn watch_item_for(change: &Change, selection: &Selection) -> Option<WatchItem> {
    let now_matches = selection.matches(&change.object);
    let matched_before = change
        .previous
        .as_ref()
        .is_some_and(|previous| selection.matches(previous));
    let event_type = match change.kind {
        ChangeKind::Added if now_matches => "ADDED",
        ChangeKind::Deleted if matched_before => "DELETED",
        ChangeKind::Modified => match (matched_before, now_matches) {
            (true, true) => "MODIFIED",
            (false, true) => "ADDED",
            (true, false) => "DELETED",
            (false, false) => return None,
        },
        _ => return None,
    };
    Some(WatchItem {
        event_type,
        object: change.object.clone(),
    })
}
