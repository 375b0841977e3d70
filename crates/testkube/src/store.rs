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

fn is_dns_label(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

fn is_dns_subdomain(name: &str) -> bool {
    name.len() <= 253 && name.split('.').all(is_dns_label)
}

/// kube-apiserver's limit on an object's annotations, keys and values together.
const ANNOTATIONS_SIZE_LIMIT: usize = 256 * 1024;

/// Annotations over the real server's size limit. `kubectl apply` (client side) keeps the
/// whole object in `last-applied-configuration`, so a large CRD cannot be applied that way,
/// only with `--server-side` or `create`.
fn annotations_cause(object: &Value) -> Option<StatusCause> {
    let size: usize = object["metadata"]["annotations"]
        .as_object()?
        .iter()
        .map(|(key, value)| key.len() + value.as_str().map_or(0, str::len))
        .sum();
    (size > ANNOTATIONS_SIZE_LIMIT).then(|| {
        cause(
            "FieldValueTooLong",
            "metadata.annotations",
            format!("Too long: may not be more than {ANNOTATIONS_SIZE_LIMIT} bytes"),
        )
    })
}

fn name_cause(info: &ResourceInfo, name: &str) -> Option<StatusCause> {
    let label_only = matches!(info.plural.as_str(), "namespaces" | "services");
    let valid = if label_only {
        is_dns_label(name)
    } else {
        is_dns_subdomain(name)
    };
    if valid {
        return None;
    }
    let rule = if label_only {
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
    } else {
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
    };
    Some(cause(
        "FieldValueInvalid",
        "metadata.name",
        format!("Invalid value: {name:?}: {rule}"),
    ))
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

/// The parts of an object that count for `metadata.generation`.
fn spec_part(object: &Value, has_status: bool) -> Map<String, Value> {
    object
        .as_object()
        .map(|map| {
            map.iter()
                .filter(|(key, _)| {
                    let bookkeeping = matches!(key.as_str(), "metadata" | "apiVersion" | "kind")
                        || (has_status && key.as_str() == "status");
                    !bookkeeping
                })
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// The object without the fields every write changes, to detect no-op writes. Ownership
/// changes still count (a second manager applying the same value becomes a co-owner).
fn comparable(object: &Value) -> Value {
    let mut copy = object.clone();
    if let Some(metadata) = copy.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("resourceVersion");
        if let Some(entries) = metadata
            .get_mut("managedFields")
            .and_then(Value::as_array_mut)
        {
            for entry in entries.iter_mut().filter_map(Value::as_object_mut) {
                entry.remove("time");
            }
        }
    }
    copy
}

/// Fields that may not change after creation, per kind; each violation is one Invalid cause.
fn immutable_field_causes(info: &ResourceInfo, old: &Value, new: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    match (info.group.as_str(), info.plural.as_str()) {
        ("apps", "statefulsets") => {
            let changed: Vec<&str> = ["selector", "volumeClaimTemplates", "serviceName"]
                .into_iter()
                .filter(|field| old["spec"][field] != new["spec"][field])
                .collect();
            if !changed.is_empty() {
                causes.push(cause(
                    "FieldValueForbidden",
                    "spec",
                    format!(
                        "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden (changed: {})",
                        changed.join(", ")
                    ),
                ));
            }
        }
        ("apps", "deployments" | "daemonsets" | "replicasets")
            if old["spec"]["selector"] != new["spec"]["selector"] =>
        {
            causes.push(cause(
                "FieldValueInvalid",
                "spec.selector",
                format!(
                    "Invalid value: {}: field is immutable",
                    new["spec"]["selector"]
                ),
            ));
        }
        ("", "secrets" | "configmaps") if old["immutable"] == json!(true) => {
            for field in ["data", "binaryData", "stringData", "immutable"] {
                if old[field] != new[field] {
                    causes.push(cause(
                        "FieldValueForbidden",
                        field,
                        "Forbidden: field is immutable when `immutable` is set",
                    ));
                }
            }
        }
        _ => {}
    }
    causes
}

/// A real API server moves a Secret's `stringData` into `data` (base64, winning over the
/// same key in `data`) on every write, and never stores `stringData`.
fn fold_string_data(info: &ResourceInfo, object: &mut Value) {
    use base64::Engine;
    if !(info.group.is_empty() && info.plural == "secrets") {
        return;
    }
    let Some(map) = object.as_object_mut() else {
        return;
    };
    let Some(Value::Object(strings)) = map.remove("stringData") else {
        return;
    };
    let data = map.entry("data").or_insert_with(|| json!({}));
    if !data.is_object() {
        *data = json!({});
    }
    for (key, value) in strings {
        if let Some(text) = value.as_str() {
            data[key] = json!(base64::engine::general_purpose::STANDARD.encode(text));
        }
    }
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

    fn check_type(info: &ResourceInfo, object: &mut Value) -> Result<(), ApiError> {
        if !object.is_object() {
            return Err(ApiError::bad_request(
                "the body of the request must be a JSON object",
            ));
        }
        let api_version = info.api_version();
        match object["apiVersion"].as_str() {
            None => object["apiVersion"] = json!(api_version),
            Some(given) if given == api_version => {}
            Some(given) => {
                return Err(ApiError::bad_request(format!(
                    "the API version in the data ({given}) does not match the expected API version ({api_version})"
                )));
            }
        }
        match object["kind"].as_str() {
            None => object["kind"] = json!(info.kind),
            Some(given) if given == info.kind => {}
            Some(given) => {
                return Err(ApiError::bad_request(format!(
                    "the kind in the data ({given}) does not match the expected kind ({})",
                    info.kind
                )));
            }
        }
        Ok(())
    }

    fn check_namespace(
        info: &ResourceInfo,
        namespace: Option<&str>,
        object: &mut Value,
    ) -> Result<(), ApiError> {
        let metadata = metadata_mut(object);
        if !info.namespaced {
            metadata.remove("namespace");
            return Ok(());
        }
        let Some(namespace) = namespace else {
            return Err(ApiError::bad_request(format!(
                "{} is namespaced: the request must name a namespace",
                info.plural
            )));
        };
        match metadata.get("namespace").and_then(Value::as_str) {
            Some(given) if !given.is_empty() && given != namespace => Err(ApiError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            )),
            _ => {
                metadata.insert("namespace".into(), json!(namespace));
                Ok(())
            }
        }
    }

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

    fn writer<'a>(
        info: &'a ResourceInfo,
        options: &'a WriteOptions,
        api_version: &'a str,
        time: &'a str,
        scope: Scope,
    ) -> Writer<'a> {
        Writer {
            manager: &options.field_manager,
            api_version,
            time,
            scope,
            lists: if info.builtin {
                ListKeys::Builtin
            } else {
                ListKeys::Custom(&info.list_map_keys)
            },
        }
    }

    pub fn create(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        body: Value,
        options: &WriteOptions,
    ) -> Result<Arc<Value>, ApiError> {
        self.create_inner(info, namespace, body, options, true)
    }

    fn create_inner(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        mut object: Value,
        options: &WriteOptions,
        record_fields: bool,
    ) -> Result<Arc<Value>, ApiError> {
        Self::check_type(info, &mut object)?;
        Self::check_namespace(info, namespace, &mut object)?;
        fold_string_data(info, &mut object);
        let store_key = info.store_key();
        let generate_name = object["metadata"]["generateName"]
            .as_str()
            .map(str::to_string);
        let mut name = object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        if name.is_empty() {
            let Some(prefix) = generate_name else {
                return Err(ApiError::invalid(
                    &info.group,
                    &info.kind,
                    "",
                    vec![cause(
                        "FieldValueRequired",
                        "metadata.name",
                        "Required value: name or generateName is required",
                    )],
                ));
            };
            loop {
                let candidate = format!("{prefix}{}", random_suffix());
                let taken = self.collection(&store_key).is_some_and(|objects| {
                    objects.contains_key(&Self::object_key(info, namespace, &candidate))
                });
                if !taken {
                    name = candidate;
                    break;
                }
            }
            metadata_mut(&mut object).insert("name".into(), json!(name));
        }
        if let Some(invalid) = name_cause(info, &name).or_else(|| annotations_cause(&object)) {
            return Err(ApiError::invalid(
                &info.group,
                &info.kind,
                &name,
                vec![invalid],
            ));
        }
        if info.namespaced {
            let namespace = namespace.unwrap_or_default();
            match self.namespace_object(namespace) {
                None => return Err(ApiError::not_found("", "namespaces", namespace)),
                Some(existing) if is_terminating(existing) => {
                    return Err(ApiError::forbidden(format!(
                        "{} \"{name}\" is forbidden: unable to create new content in namespace {namespace} because it is being terminated",
                        info.plural
                    )));
                }
                Some(_) => {}
            }
        }
        let key = Self::object_key(info, namespace, &name);
        if self
            .collection(&store_key)
            .is_some_and(|objects| objects.contains_key(&key))
        {
            return Err(ApiError::already_exists(&info.group, &info.plural, &name));
        }
        let now = now_rfc3339();
        {
            let metadata = metadata_mut(&mut object);
            for server_owned in [
                "uid",
                "resourceVersion",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "selfLink",
            ] {
                metadata.remove(server_owned);
            }
            if record_fields {
                metadata.remove("managedFields");
            }
            metadata.insert("uid".into(), json!(new_uid()));
            metadata.insert("creationTimestamp".into(), json!(now));
            if info.tracks_generation {
                metadata.insert("generation".into(), json!(1));
            } else {
                metadata.remove("generation");
            }
        }
        if info.has_status
            && let Some(map) = object.as_object_mut()
        {
            map.remove("status");
        }
        self.apply_kind_defaults(info, &mut object)?;
        if record_fields {
            let api_version = info.api_version();
            let writer = Self::writer(
                info,
                options,
                &api_version,
                &now,
                Scope::Main {
                    status_separate: info.has_status,
                },
            );
            fieldmanager::record_update(None, &mut object, &writer);
        }
        if options.dry_run {
            return Ok(Arc::new(object));
        }
        let is_crd =
            info.group == "apiextensions.k8s.io" && info.plural == "customresourcedefinitions";
        let stored = self.commit(&store_key, key, object);
        if is_crd {
            self.register_crd(&stored)?;
        }
        Ok(stored)
    }

    /// What a real server's defaulting and controllers would fill in immediately.
    fn apply_kind_defaults(
        &mut self,
        info: &ResourceInfo,
        object: &mut Value,
    ) -> Result<(), ApiError> {
        match (info.group.as_str(), info.plural.as_str()) {
            ("", "namespaces") => {
                let name = name_of(object).to_string();
                let metadata = metadata_mut(object);
                let labels = metadata.entry("labels").or_insert_with(|| json!({}));
                if let Some(labels) = labels.as_object_mut() {
                    labels.insert("kubernetes.io/metadata.name".into(), json!(name));
                }
                object["spec"] = json!({"finalizers": ["kubernetes"]});
                object["status"] = json!({"phase": "Active"});
            }
            ("apiextensions.k8s.io", "customresourcedefinitions") => {
                let infos = resources_from_crd(object).map_err(|error| {
                    ApiError::invalid(
                        &info.group,
                        &info.kind,
                        name_of(object),
                        vec![cause("FieldValueInvalid", error.field(), error.to_string())],
                    )
                })?;
                let names = &object["spec"]["names"];
                let mut accepted = names.clone();
                if accepted["singular"].is_null() {
                    accepted["singular"] = json!(
                        infos
                            .first()
                            .map(|info| info.singular.clone())
                            .unwrap_or_default()
                    );
                }
                if accepted["listKind"].is_null() {
                    accepted["listKind"] = json!(format!(
                        "{}List",
                        names["kind"].as_str().unwrap_or_default()
                    ));
                }
                let now = now_rfc3339();
                let stored_versions: Vec<Value> = object["spec"]["versions"]
                    .as_array()
                    .map(|versions| {
                        versions
                            .iter()
                            .filter(|version| version["storage"] == json!(true))
                            .map(|version| version["name"].clone())
                            .collect()
                    })
                    .unwrap_or_default();
                object["status"] = json!({
                    "acceptedNames": accepted,
                    "conditions": [
                        {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": now},
                        {"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": now}
                    ],
                    "storedVersions": stored_versions,
                });
            }
            _ => {}
        }
        Ok(())
    }

    fn register_crd(&mut self, crd: &Value) -> Result<(), ApiError> {
        let infos =
            resources_from_crd(crd).map_err(|error| ApiError::internal(error.to_string()))?;
        self.registry.register_crd(name_of(crd), infos);
        Ok(())
    }

    fn drop_custom_resources(&mut self, crd: &Value) {
        self.registry.unregister_crd(name_of(crd));
        let store_key = StoreKey {
            group: crd["spec"]["group"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            plural: crd["spec"]["names"]["plural"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        };
        let keys: Vec<ObjectKey> = self
            .collection(&store_key)
            .map(|objects| objects.keys().cloned().collect())
            .unwrap_or_default();
        for key in keys {
            self.remove(&store_key, &key);
        }
    }

    // ----- update and patch -----

    /// Turns a client's proposed object into what gets stored: server-owned metadata restored,
    /// status or spec kept according to `scope`, immutability and generation handled.
    fn prepare_update(
        &self,
        info: &ResourceInfo,
        current: &Value,
        mut proposed: Value,
        scope: Scope,
    ) -> Result<Value, ApiError> {
        let name = name_of(current).to_string();
        if scope == Scope::Status {
            let mut updated = current.clone();
            match proposed.get_mut("status").map(Value::take) {
                Some(status) if !status.is_null() => updated["status"] = status,
                _ => {
                    if let Some(map) = updated.as_object_mut() {
                        map.remove("status");
                    }
                }
            }
            if let Some(managed) = proposed["metadata"].get("managedFields") {
                metadata_mut(&mut updated).insert("managedFields".into(), managed.clone());
            }
            return Ok(updated);
        }
        fold_string_data(info, &mut proposed);
        {
            let current_metadata = current["metadata"].as_object().cloned().unwrap_or_default();
            let metadata = metadata_mut(&mut proposed);
            for server_owned in [
                "uid",
                "creationTimestamp",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
                "generation",
                "namespace",
                "name",
            ] {
                match current_metadata.get(server_owned) {
                    Some(value) => metadata.insert(server_owned.into(), value.clone()),
                    None => metadata.remove(server_owned),
                };
            }
        }
        if info.has_status {
            match current.get("status") {
                Some(status) => proposed["status"] = status.clone(),
                None => {
                    if let Some(map) = proposed.as_object_mut() {
                        map.remove("status");
                    }
                }
            }
        }
        if info.group.is_empty() && info.plural == "namespaces" {
            proposed["spec"] = current["spec"].clone();
        }
        if is_terminating(current) {
            let before = finalizers_of(current);
            if let Some(added) = finalizers_of(&proposed)
                .into_iter()
                .find(|finalizer| !before.contains(finalizer))
            {
                return Err(ApiError::invalid(
                    &info.group,
                    &info.kind,
                    &name,
                    vec![cause(
                        "FieldValueForbidden",
                        "metadata.finalizers",
                        format!(
                            "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers [{added:?}]"
                        ),
                    )],
                ));
            }
        }
        let mut causes = immutable_field_causes(info, current, &proposed);
        causes.extend(annotations_cause(&proposed));
        if info.group == "apiextensions.k8s.io"
            && info.plural == "customresourcedefinitions"
            && let Err(error) = resources_from_crd(&proposed)
        {
            causes.push(cause("FieldValueInvalid", error.field(), error.to_string()));
        }
        if !causes.is_empty() {
            return Err(ApiError::invalid(&info.group, &info.kind, &name, causes));
        }
        if info.tracks_generation
            && spec_part(current, info.has_status) != spec_part(&proposed, info.has_status)
        {
            let generation = current["metadata"]["generation"].as_i64().unwrap_or(1) + 1;
            metadata_mut(&mut proposed).insert("generation".into(), json!(generation));
        }
        Ok(proposed)
    }

    /// Commits an update unless it changes nothing (a real server then keeps the
    /// resourceVersion and sends no watch event).
    fn finish_update(
        &mut self,
        info: &ResourceInfo,
        key: ObjectKey,
        current: &Arc<Value>,
        mut updated: Value,
        options: &WriteOptions,
        scope: Option<Scope>,
    ) -> Result<Arc<Value>, ApiError> {
        if let Some(map) = updated.as_object_mut() {
            map.insert("apiVersion".into(), current["apiVersion"].clone());
        }
        if comparable(&updated) == comparable(current) {
            return Ok(Self::presented(info, current));
        }
        if let Some(scope) = scope {
            let api_version = info.api_version();
            let time = now_rfc3339();
            let writer = Self::writer(info, options, &api_version, &time, scope);
            fieldmanager::record_update(Some(current), &mut updated, &writer);
        }
        if options.dry_run {
            return Ok(Arc::new(updated));
        }
        let store_key = info.store_key();
        let is_crd =
            info.group == "apiextensions.k8s.io" && info.plural == "customresourcedefinitions";
        let stored = self.commit(&store_key, key.clone(), updated);
        if is_crd {
            self.register_crd(&stored)?;
        }
        self.settle(&store_key, &key);
        Ok(Self::presented(info, &stored))
    }

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

    pub fn update(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
        mut body: Value,
        status: bool,
        options: &WriteOptions,
    ) -> Result<Arc<Value>, ApiError> {
        Self::check_type(info, &mut body)?;
        Self::check_namespace(info, namespace, &mut body)?;
        match body["metadata"]["name"].as_str() {
            Some(given) if given == name => {}
            Some(given) => {
                return Err(ApiError::bad_request(format!(
                    "the name of the object ({given}) does not match the name on the URL ({name})"
                )));
            }
            None => {
                return Err(ApiError::bad_request("metadata.name is required on update"));
            }
        }
        let key = Self::object_key(info, namespace, name);
        let current = self.current(info, &key)?;
        Self::check_resource_version(info, &current, &body)?;
        let scope = if status {
            Scope::Status
        } else {
            Scope::Main {
                status_separate: info.has_status,
            }
        };
        let updated = self.prepare_update(info, &current, body, scope)?;
        self.finish_update(info, key, &current, updated, options, Some(scope))
    }

    #[allow(clippy::too_many_arguments)]
    pub fn patch(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
        kind: PatchKind,
        body: &Value,
        status: bool,
        options: &WriteOptions,
    ) -> Result<Arc<Value>, ApiError> {
        let key = Self::object_key(info, namespace, name);
        let scope = if status {
            Scope::Status
        } else {
            Scope::Main {
                status_separate: info.has_status,
            }
        };
        let current = match kind {
            PatchKind::Apply => {
                return self.server_side_apply(info, namespace, name, body, scope, options);
            }
            _ => self.current(info, &key)?,
        };
        let patched = match kind {
            PatchKind::Merge => patch::merge_patch(&current, body),
            PatchKind::Json => patch::json_patch(&current, body)
                .map_err(|error| ApiError::new(422, "Invalid", error.to_string()))?,
            PatchKind::Strategic if info.builtin => patch::strategic_merge(&current, body)
                .map_err(|error| ApiError::bad_request(error.to_string()))?,
            PatchKind::Strategic | PatchKind::Apply => {
                return Err(ApiError::unsupported_media_type(
                    patch::PatchError::UnknownFormat.to_string(),
                ));
            }
        };
        let mut patched = patched;
        if !patched.is_object() {
            return Err(ApiError::bad_request("the patch did not produce an object"));
        }
        Self::check_resource_version(info, &current, &patched)?;
        if name_of(&patched) != name {
            return Err(ApiError::bad_request(
                "metadata.name cannot be changed by a patch",
            ));
        }
        Self::check_type(info, &mut patched)?;
        let updated = self.prepare_update(info, &current, patched, scope)?;
        self.finish_update(info, key, &current, updated, options, Some(scope))
    }

    fn server_side_apply(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
        body: &Value,
        scope: Scope,
        options: &WriteOptions,
    ) -> Result<Arc<Value>, ApiError> {
        if options.field_manager.is_empty() {
            return Err(ApiError::invalid(
                "meta.k8s.io",
                "PatchOptions",
                "",
                vec![cause(
                    "FieldValueRequired",
                    "fieldManager",
                    "Required value: is required for apply patch",
                )],
            ));
        }
        let mut applied = body.clone();
        if applied["apiVersion"].is_null() || applied["kind"].is_null() {
            return Err(ApiError::bad_request(
                "apiVersion and kind must be set in an apply patch",
            ));
        }
        Self::check_type(info, &mut applied)?;
        match applied["metadata"]["name"].as_str() {
            Some(given) if given == name => {}
            Some(given) => {
                return Err(ApiError::bad_request(format!(
                    "the name of the object ({given}) does not match the name on the URL ({name})"
                )));
            }
            None => {
                metadata_mut(&mut applied).insert("name".into(), json!(name));
            }
        }
        Self::check_namespace(info, namespace, &mut applied)?;
        let key = Self::object_key(info, namespace, name);
        let api_version = info.api_version();
        let time = now_rfc3339();
        let writer = Self::writer(info, options, &api_version, &time, scope);
        let conflict_error = |error: ApplyError| {
            let ApplyError::Conflicts(conflicts) = &error;
            let causes = conflicts
                .iter()
                .map(|conflict| {
                    cause(
                        "FieldManagerConflict",
                        &conflict.field,
                        format!(
                            "conflict with \"{}\" using {}",
                            conflict.manager, conflict.api_version
                        ),
                    )
                })
                .collect();
            let mut api_error =
                ApiError::conflict(&info.group, &info.plural, name, "").with_causes(causes);
            api_error.message = error.to_string();
            api_error
        };
        let existing = self
            .collection(&info.store_key())
            .and_then(|objects| objects.get(&key))
            .cloned();
        match existing {
            None => {
                if scope == Scope::Status {
                    return Err(ApiError::not_found(&info.group, &info.plural, name));
                }
                let mut skeleton = json!({"apiVersion": api_version, "kind": info.kind, "metadata": {"name": name}});
                if info.namespaced {
                    skeleton["metadata"]["namespace"] = json!(namespace.unwrap_or_default());
                }
                let merged = fieldmanager::apply(&skeleton, &applied, &writer, options.force)
                    .map_err(conflict_error)?;
                self.create_inner(info, namespace, merged, options, false)
            }
            Some(current) => {
                Self::check_resource_version(info, &current, &applied)?;
                let merged = fieldmanager::apply(&current, &applied, &writer, options.force)
                    .map_err(conflict_error)?;
                let updated = self.prepare_update(info, &current, merged, scope)?;
                self.finish_update(info, key, &current, updated, options, None)
            }
        }
    }

    // ----- delete and garbage collection -----

    pub fn delete(
        &mut self,
        info: &ResourceInfo,
        namespace: Option<&str>,
        name: &str,
        options: &DeleteOptions,
    ) -> Result<Deleted, ApiError> {
        let key = Self::object_key(info, namespace, name);
        let current = self.current(info, &key)?;
        if let Some(uid) = &options.precondition_uid
            && uid != uid_of(&current)
        {
            return Err(ApiError::conflict(
                &info.group,
                &info.plural,
                name,
                &format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
                    uid_of(&current)
                ),
            ));
        }
        if let Some(resource_version) = &options.precondition_resource_version
            && Some(resource_version.as_str()) != current["metadata"]["resourceVersion"].as_str()
        {
            return Err(ApiError::conflict(
                &info.group,
                &info.plural,
                name,
                &format!(
                    "Precondition failed: ResourceVersion in precondition: {resource_version}"
                ),
            ));
        }
        if options.dry_run {
            return Ok(Deleted::Pending(Self::presented(info, &current)));
        }
        let propagation = options.propagation.unwrap_or(Propagation::Background);
        let outcome = self.delete_object(&info.store_key(), &key, propagation);
        Ok(match outcome {
            Deleted::Gone(object) => Deleted::Gone(Self::presented(info, &object)),
            Deleted::Pending(object) => Deleted::Pending(Self::presented(info, &object)),
        })
    }

    /// Deletes with a propagation policy; the object stays (marked) while finalizers remain.
    fn delete_object(
        &mut self,
        store_key: &StoreKey,
        key: &ObjectKey,
        propagation: Propagation,
    ) -> Deleted {
        let Some(current) = self
            .collections
            .get(store_key)
            .and_then(|objects| objects.get(key))
            .cloned()
        else {
            return Deleted::Gone(Arc::new(Value::Null));
        };
        let is_namespace = store_key.group.is_empty() && store_key.plural == "namespaces";
        let mut finalizers = finalizers_of(&current);
        let uid = uid_of(&current).to_string();
        let has_dependents = self.dependents.get(&uid).is_some_and(|set| !set.is_empty());
        match propagation {
            Propagation::Foreground
                if has_dependents && !finalizers.iter().any(|f| f == FOREGROUND_FINALIZER) =>
            {
                finalizers.push(FOREGROUND_FINALIZER.into());
            }
            Propagation::Orphan if has_dependents => {
                self.orphan_dependents(&uid);
            }
            _ => {}
        }
        let must_wait =
            !finalizers.is_empty() || (is_namespace && self.namespace_has_content(&key.1));
        if !must_wait {
            return match self.remove(store_key, key) {
                Some(last) => Deleted::Gone(last),
                None => Deleted::Gone(current),
            };
        }
        let mut marked = (*current).clone();
        let changed = !is_terminating(&current) || finalizers != finalizers_of(&current);
        if changed {
            let metadata = metadata_mut(&mut marked);
            metadata
                .entry("deletionTimestamp")
                .or_insert_with(|| json!(now_rfc3339()));
            metadata.insert("deletionGracePeriodSeconds".into(), json!(0));
            metadata.insert("finalizers".into(), json!(finalizers));
            if is_namespace {
                marked["status"] = json!({"phase": "Terminating"});
            }
            marked = (*self.commit(store_key, key.clone(), marked)).clone();
        }
        if is_namespace {
            self.empty_namespace(&key.1);
        }
        if propagation == Propagation::Foreground {
            let dependents: Vec<(StoreKey, ObjectKey)> = self
                .dependents
                .get(&uid)
                .map(|set| set.iter().cloned().collect())
                .unwrap_or_default();
            for (dependent_store, dependent_key) in dependents {
                self.delete_object(&dependent_store, &dependent_key, Propagation::Foreground);
            }
            self.finish_foreground_if_unblocked(&uid);
        }
        match self
            .collections
            .get(store_key)
            .and_then(|objects| objects.get(key))
        {
            Some(object) => Deleted::Pending(object.clone()),
            None => Deleted::Gone(Arc::new(marked)),
        }
    }

    /// Removes owner references to `owner_uid`, as the garbage collector does for `Orphan`.
    fn orphan_dependents(&mut self, owner_uid: &str) {
        let dependents: Vec<(StoreKey, ObjectKey)> = self
            .dependents
            .get(owner_uid)
            .map(|set| set.iter().cloned().collect())
            .unwrap_or_default();
        for (store_key, key) in dependents {
            self.drop_owner_reference(&store_key, &key, owner_uid);
        }
    }

    fn drop_owner_reference(&mut self, store_key: &StoreKey, key: &ObjectKey, owner_uid: &str) {
        let Some(object) = self
            .collections
            .get(store_key)
            .and_then(|objects| objects.get(key))
            .cloned()
        else {
            return;
        };
        let mut updated = (*object).clone();
        if let Some(references) = updated["metadata"]["ownerReferences"].as_array_mut() {
            references.retain(|reference| reference["uid"].as_str() != Some(owner_uid));
            if references.is_empty()
                && let Some(metadata) = updated["metadata"].as_object_mut()
            {
                metadata.remove("ownerReferences");
            }
        }
        self.commit(store_key, key.clone(), updated);
    }

    /// After an owner is gone: dependents with no remaining live owner are deleted in the
    /// background, the others lose the dangling reference.
    fn collect_dependents_of(&mut self, owner_uid: &str) {
        let Some(dependents) = self.dependents.get(owner_uid).cloned() else {
            return;
        };
        for (store_key, key) in dependents {
            let Some(object) = self
                .collections
                .get(&store_key)
                .and_then(|objects| objects.get(&key))
                .cloned()
            else {
                continue;
            };
            let other_live_owner = owner_uids(&object)
                .iter()
                .any(|uid| uid != owner_uid && self.uids.contains_key(uid));
            if other_live_owner {
                self.drop_owner_reference(&store_key, &key, owner_uid);
            } else if !is_terminating(&object) {
                self.delete_object(&store_key, &key, Propagation::Background);
            }
        }
    }

    /// A foreground-deleting owner is removed once no dependent blocks it.
    fn finish_foreground_if_unblocked(&mut self, owner_uid: &str) {
        let Some((store_key, key)) = self.uids.get(owner_uid).cloned() else {
            return;
        };
        let Some(owner) = self
            .collections
            .get(&store_key)
            .and_then(|objects| objects.get(&key))
            .cloned()
        else {
            return;
        };
        let mut finalizers = finalizers_of(&owner);
        if !is_terminating(&owner) || !finalizers.iter().any(|f| f == FOREGROUND_FINALIZER) {
            return;
        }
        let blocked = self.dependents.get(owner_uid).is_some_and(|set| {
            set.iter().any(|(dependent_store, dependent_key)| {
                self.collections
                    .get(dependent_store)
                    .and_then(|objects| objects.get(dependent_key))
                    .is_some_and(|dependent| {
                        dependent["metadata"]["ownerReferences"]
                            .as_array()
                            .is_some_and(|refs| {
                                refs.iter().any(|reference| {
                                    reference["uid"].as_str() == Some(owner_uid)
                                        && reference["blockOwnerDeletion"] == json!(true)
                                })
                            })
                    })
            })
        });
        if blocked {
            return;
        }
        finalizers.retain(|f| f != FOREGROUND_FINALIZER && f != ORPHAN_FINALIZER);
        let mut updated = (*owner).clone();
        metadata_mut(&mut updated).insert("finalizers".into(), json!(finalizers));
        if finalizers.is_empty()
            && let Some(metadata) = updated["metadata"].as_object_mut()
        {
            metadata.remove("finalizers");
        }
        self.commit(&store_key, key.clone(), updated);
        self.settle(&store_key, &key);
    }

    /// Deletes everything in a terminating namespace (the namespace controller's job).
    fn empty_namespace(&mut self, namespace: &str) {
        let mut doomed = Vec::new();
        for (store_key, objects) in &self.collections {
            for (key, object) in objects.range((namespace.to_string(), String::new())..) {
                if key.0 != namespace {
                    break;
                }
                if !is_terminating(object) {
                    doomed.push((store_key.clone(), key.clone()));
                }
            }
        }
        for (store_key, key) in doomed {
            self.delete_object(&store_key, &key, Propagation::Background);
        }
        self.finish_namespace_if_empty(namespace);
    }

    fn finish_namespace_if_empty(&mut self, namespace: &str) {
        let Some(object) = self.namespace_object(namespace).cloned() else {
            return;
        };
        if is_terminating(&object)
            && finalizers_of(&object).is_empty()
            && !self.namespace_has_content(namespace)
        {
            let store_key = StoreKey {
                group: String::new(),
                plural: "namespaces".into(),
            };
            self.remove(&store_key, &(String::new(), namespace.to_string()));
        }
    }

    pub fn delete_collection(
        &mut self,
        info: &ResourceInfo,
        options: &ListOptions,
        delete: &DeleteOptions,
    ) -> Result<Vec<Arc<Value>>, ApiError> {
        let mut everything = options.clone();
        everything.limit = None;
        everything.continue_token = None;
        let page = self.list(info, &everything)?;
        let mut deleted = Vec::new();
        for object in page.items {
            let namespace = object["metadata"]["namespace"].as_str().map(str::to_string);
            match self.delete(info, namespace.as_deref(), name_of(&object), delete) {
                Ok(Deleted::Gone(object) | Deleted::Pending(object)) => deleted.push(object),
                Err(error) if error.code == 404 => {}
                Err(error) => return Err(error),
            }
        }
        Ok(deleted)
    }

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
