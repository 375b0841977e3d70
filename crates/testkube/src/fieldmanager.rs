//! Field ownership (`metadata.managedFields`) and server-side apply.
//!
//! Field sets use the real `FieldsV1` encoding: `f:<field>` for map fields, `k:{...}` for
//! elements of lists with a merge key, `v:<json>` for elements of set lists. Lists of custom
//! resources are atomic unless their CRD schema declares them `x-kubernetes-list-type: map` (with
//! one key), lists of built-in kinds use the merge keys of [`crate::patch::merge_key`].

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::patch::{is_set_list, merge_key};

/// A path of `FieldsV1` segments to an owned field, list element or leaf.
pub type FieldPath = Vec<String>;
pub type FieldSet = BTreeSet<FieldPath>;

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error("Apply failed with {} conflict(s): {}", .0.len(), describe_conflicts(.0))]
    Conflicts(Vec<Conflict>),
}

/// A field the applier wants to set to a value other than the one another manager owns.
#[derive(Debug, Clone)]
pub struct Conflict {
    pub manager: String,
    pub api_version: String,
    /// Display form, e.g. `.spec.replicas`.
    pub field: String,
}

fn describe_conflicts(conflicts: &[Conflict]) -> String {
    conflicts
        .iter()
        .map(|conflict| {
            format!(
                "conflict with \"{}\" using {}: {}",
                conflict.manager, conflict.api_version, conflict.field
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Which part of an object a write addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The main resource; `status_separate` when the kind has a status subresource, in which
    /// case `status` is not owned through the main resource.
    Main { status_separate: bool },
    /// The `status` subresource.
    Status,
}

impl Scope {
    fn subresource(self) -> Option<&'static str> {
        match self {
            Scope::Main { .. } => None,
            Scope::Status => Some("status"),
        }
    }

    fn includes_top_level(self, field: &str) -> bool {
        match self {
            Scope::Main { status_separate } => {
                let server_or_status = matches!(field, "apiVersion" | "kind")
                    || (status_separate && field == "status");
                !server_or_status
            }
            Scope::Status => field == "status",
        }
    }
}

/// Metadata the server owns; nobody manages these.
const SERVER_METADATA: &[&str] = &[
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

/// One `managedFields` entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    pub api_version: String,
    pub time: String,
    pub subresource: Option<String>,
    pub fields: FieldSet,
}

impl Entry {
    fn same_owner(&self, manager: &str, operation: &str, subresource: Option<&str>) -> bool {
        self.manager == manager
            && self.operation == operation
            && self.subresource.as_deref() == subresource
    }

    fn to_json(&self) -> Value {
        let mut entry = json!({
            "manager": self.manager,
            "operation": self.operation,
            "apiVersion": self.api_version,
            "time": self.time,
            "fieldsType": "FieldsV1",
            "fieldsV1": to_fields_v1(&self.fields),
        });
        if let Some(subresource) = &self.subresource {
            entry["subresource"] = json!(subresource);
        }
        entry
    }
}

/// Reads `metadata.managedFields`; entries that do not parse are dropped, as the real server
/// resets malformed managed fields.
pub fn read_entries(object: &Value) -> Vec<Entry> {
    object["metadata"]["managedFields"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .filter_map(|entry| {
                    Some(Entry {
                        manager: entry["manager"].as_str()?.to_string(),
                        operation: entry["operation"].as_str().unwrap_or("Update").to_string(),
                        api_version: entry["apiVersion"].as_str().unwrap_or_default().to_string(),
                        time: entry["time"].as_str().unwrap_or_default().to_string(),
                        subresource: entry["subresource"].as_str().map(str::to_string),
                        fields: from_fields_v1(&entry["fieldsV1"]),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn write_entries(object: &mut Value, entries: &[Entry]) {
    let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let kept: Vec<Value> = entries
        .iter()
        .filter(|entry| !entry.fields.is_empty())
        .map(Entry::to_json)
        .collect();
    if kept.is_empty() {
        metadata.remove("managedFields");
    } else {
        metadata.insert("managedFields".into(), Value::Array(kept));
    }
}

pub fn to_fields_v1(fields: &FieldSet) -> Value {
    let mut root = Map::new();
    for path in fields {
        let mut node = &mut root;
        for segment in path {
            node = node
                .entry(segment.clone())
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("field set nodes are always objects");
        }
        if path.last().is_some_and(|segment| segment.starts_with("k:")) {
            node.insert(".".into(), json!({}));
        }
    }
    Value::Object(root)
}

pub fn from_fields_v1(value: &Value) -> FieldSet {
    fn walk(node: &Map<String, Value>, path: &mut FieldPath, fields: &mut FieldSet) {
        for (segment, child) in node {
            if segment == "." {
                fields.insert(path.clone());
                continue;
            }
            path.push(segment.clone());
            match child.as_object() {
                Some(children) if !children.is_empty() => walk(children, path, fields),
                _ => {
                    fields.insert(path.clone());
                }
            }
            path.pop();
        }
    }
    let mut fields = FieldSet::new();
    if let Some(root) = value.as_object() {
        walk(root, &mut Vec::new(), &mut fields);
    }
    fields
}

/// Which lists merge element by element, and by which key.
#[derive(Debug, Clone, Copy)]
pub enum ListKeys<'a> {
    /// A built-in kind (and any object's `metadata`): the merge keys of
    /// [`crate::patch::merge_key`].
    Builtin,
    /// A custom resource: the lists its CRD schema declares `x-kubernetes-list-type: map`, by
    /// field name, with their key; every other list is atomic.
    Custom(&'a BTreeMap<String, String>),
}

/// The fields an object sets within `scope`; `metadata` lists always merge as a built-in
/// kind's do.
pub fn field_set(object: &Value, scope: Scope, lists: ListKeys<'_>) -> FieldSet {
    let mut fields = FieldSet::new();
    let Some(map) = object.as_object() else {
        return fields;
    };
    for (key, value) in map {
        if !scope.includes_top_level(key) {
            continue;
        }
        let mut path = vec![format!("f:{key}")];
        if key == "metadata" {
            let Some(metadata) = value.as_object() else {
                continue;
            };
            for (field, child) in metadata {
                if SERVER_METADATA.contains(&field.as_str()) {
                    continue;
                }
                path.push(format!("f:{field}"));
                collect(field, child, &mut path, &mut fields, ListKeys::Builtin);
                path.pop();
            }
        } else {
            collect(key, value, &mut path, &mut fields, lists);
        }
    }
    fields
}

fn element_key<'a>(field: &str, items: &[Value], lists: ListKeys<'a>) -> Option<&'a str> {
    let key = match lists {
        ListKeys::Builtin => merge_key(field, items.first())?,
        ListKeys::Custom(keys) => keys.get(field)?.as_str(),
    };
    items
        .iter()
        .all(|item| item.get(key).is_some())
        .then_some(key)
}

fn key_segment(key: &str, element: &Value) -> String {
    format!("k:{}", json!({ key: element[key] }))
}

fn collect(
    field: &str,
    value: &Value,
    path: &mut FieldPath,
    fields: &mut FieldSet,
    lists: ListKeys<'_>,
) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, child) in map {
                path.push(format!("f:{key}"));
                collect(key, child, path, fields, lists);
                path.pop();
            }
        }
        Value::Array(items) if is_set_list(field) && items.iter().all(|item| !item.is_object()) => {
            if items.is_empty() {
                fields.insert(path.clone());
            }
            for item in items {
                path.push(format!("v:{item}"));
                fields.insert(path.clone());
                path.pop();
            }
        }
        Value::Array(items) if !items.is_empty() => match element_key(field, items, lists) {
            Some(key) => {
                for item in items {
                    path.push(key_segment(key, item));
                    fields.insert(path.clone());
                    if let Some(map) = item.as_object() {
                        for (child_key, child) in map {
                            path.push(format!("f:{child_key}"));
                            collect(child_key, child, path, fields, lists);
                            path.pop();
                        }
                    }
                    path.pop();
                }
            }
            None => {
                fields.insert(path.clone());
            }
        },
        _ => {
            fields.insert(path.clone());
        }
    }
}

fn element_matches(element: &Value, segment: &str) -> bool {
    if let Some(key_json) = segment.strip_prefix("k:") {
        let Ok(Value::Object(keys)) = serde_json::from_str::<Value>(key_json) else {
            return false;
        };
        keys.iter()
            .all(|(key, wanted)| element.get(key) == Some(wanted))
    } else if let Some(value_json) = segment.strip_prefix("v:") {
        serde_json::from_str::<Value>(value_json).is_ok_and(|wanted| *element == wanted)
    } else {
        false
    }
}

fn child<'a>(value: &'a Value, segment: &str) -> Option<&'a Value> {
    if let Some(field) = segment.strip_prefix("f:") {
        value.as_object()?.get(field)
    } else {
        value
            .as_array()?
            .iter()
            .find(|element| element_matches(element, segment))
    }
}

fn child_mut<'a>(value: &'a mut Value, segment: &str) -> Option<&'a mut Value> {
    if let Some(field) = segment.strip_prefix("f:") {
        value.as_object_mut()?.get_mut(field)
    } else {
        value
            .as_array_mut()?
            .iter_mut()
            .find(|element| element_matches(element, segment))
    }
}

pub fn value_at<'a>(object: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter()
        .try_fold(object, |current, segment| child(current, segment))
}

fn remove_at(object: &mut Value, path: &[String]) -> Option<Value> {
    let (last, parent_path) = path.split_last()?;
    let mut parent = object;
    for segment in parent_path {
        parent = child_mut(parent, segment)?;
    }
    if let Some(field) = last.strip_prefix("f:") {
        parent.as_object_mut()?.remove(field)
    } else {
        let items = parent.as_array_mut()?;
        let index = items
            .iter()
            .position(|element| element_matches(element, last))?;
        Some(items.remove(index))
    }
}

/// Human form of a path, as in the real conflict messages: `.spec.containers[name="a"].image`.
pub fn display_path(path: &[String]) -> String {
    let mut shown = String::new();
    for segment in path {
        if let Some(field) = segment.strip_prefix("f:") {
            shown.push('.');
            shown.push_str(field);
        } else if let Some(keys) = segment.strip_prefix("k:") {
            let parsed: Map<String, Value> = serde_json::from_str(keys).unwrap_or_default();
            let inner: Vec<String> = parsed
                .iter()
                .map(|(key, value)| format!("{key}={value}"))
                .collect();
            shown.push_str(&format!("[{}]", inner.join(",")));
        } else if let Some(value) = segment.strip_prefix("v:") {
            shown.push_str(&format!("[={value}]"));
        }
    }
    shown
}

/// Whether `path` is a merge-key field of a keyed list element (`...k:{"name":"a"}, f:name`).
fn is_key_field(path: &[String]) -> bool {
    let [.., parent, last] = path else {
        return false;
    };
    let (Some(keys), Some(field)) = (parent.strip_prefix("k:"), last.strip_prefix("f:")) else {
        return false;
    };
    serde_json::from_str::<Map<String, Value>>(keys).is_ok_and(|keys| keys.contains_key(field))
}

fn is_element(path: &[String]) -> bool {
    path.last()
        .is_some_and(|segment| !segment.starts_with("f:"))
}

fn owns_path_or_descendant(fields: &FieldSet, path: &[String]) -> bool {
    fields
        .range(path.to_vec()..)
        .next()
        .is_some_and(|candidate| candidate.starts_with(path))
}

/// Who is writing.
#[derive(Debug, Clone)]
pub struct Writer<'a> {
    pub manager: &'a str,
    pub api_version: &'a str,
    pub time: &'a str,
    pub scope: Scope,
    pub lists: ListKeys<'a>,
}

/// Records an Update (create, replace or non-apply patch): fields whose value changed become
/// the writer's, and nobody owns fields that disappeared.
pub fn record_update(old: Option<&Value>, new: &mut Value, writer: &Writer<'_>) {
    let mut entries = old.map(read_entries).unwrap_or_default();
    let new_fields = field_set(new, writer.scope, writer.lists);
    let old_fields = old
        .map(|old| field_set(old, writer.scope, writer.lists))
        .unwrap_or_default();
    let changed: FieldSet = new_fields
        .iter()
        .filter(|path| {
            let before = old.and_then(|old| value_at(old, path));
            if is_element(path) {
                before.is_none()
            } else {
                before != value_at(new, path)
            }
        })
        .cloned()
        .collect();
    let removed: FieldSet = old_fields.difference(&new_fields).cloned().collect();
    let subresource = writer.scope.subresource();
    for entry in &mut entries {
        entry
            .fields
            .retain(|path| !changed.contains(path) && !removed.contains(path));
    }
    if !changed.is_empty() {
        match entries
            .iter_mut()
            .find(|entry| entry.same_owner(writer.manager, "Update", subresource))
        {
            Some(entry) => {
                entry.fields.extend(changed);
                entry.time = writer.time.to_string();
                entry.api_version = writer.api_version.to_string();
            }
            None => entries.push(Entry {
                manager: writer.manager.to_string(),
                operation: "Update".into(),
                api_version: writer.api_version.to_string(),
                time: writer.time.to_string(),
                subresource: subresource.map(str::to_string),
                fields: changed,
            }),
        }
    }
    write_entries(new, &entries);
}

/// Merges an applied configuration into `base`, keyed lists element by element.
fn merge_applied(base: &mut Value, applied: &Value, field: &str, lists: ListKeys<'_>) {
    match (base, applied) {
        (Value::Object(base_map), Value::Object(applied_map)) => {
            for (key, value) in applied_map {
                if value.is_null() {
                    base_map.remove(key);
                    continue;
                }
                let keyed = if field == "metadata" {
                    ListKeys::Builtin
                } else {
                    lists
                };
                match base_map.get_mut(key) {
                    Some(existing) if existing.is_object() && value.is_object() => {
                        merge_applied(existing, value, key, keyed);
                    }
                    Some(existing) if existing.is_array() && value.is_array() => {
                        merge_applied(existing, value, key, keyed);
                    }
                    _ => {
                        base_map.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (Value::Array(base_items), Value::Array(applied_items)) => {
            if is_set_list(field) {
                for item in applied_items {
                    if !base_items.contains(item) {
                        base_items.push(item.clone());
                    }
                }
                return;
            }
            let key = element_key(field, applied_items, lists)
                .filter(|key| base_items.iter().all(|item| item.get(*key).is_some()));
            let Some(key) = key else {
                *base_items = applied_items.clone();
                return;
            };
            *base_items = merge_keyed(base_items, applied_items, key, lists);
        }
        (base, applied) => *base = applied.clone(),
    }
}

/// The elements of a keyed list after an apply, in the API server's order: the applied
/// elements in the applied order (each merged into its live counterpart), and every live
/// element the apply does not name where it was, relative to its live neighbours. An applied
/// element not live yet comes after the live-only elements that precede the next element both
/// lists have, so replacing `B` with `C` in `[A, B, D]` gives `[A, B, C, D]` before the
/// manager's `B` is pruned (`[A, C, D]`), not `[A, D, C]`.
fn merge_keyed(live: &[Value], applied: &[Value], key: &str, lists: ListKeys<'_>) -> Vec<Value> {
    let same = |a: &Value, b: &Value| a.get(key) == b.get(key);
    let applied_has = |v: &Value| applied.iter().any(|a| same(a, v));
    let position_in_live = |v: &Value| live.iter().position(|l| same(l, v));
    // The applied elements that are live, in the applied order: the next one is where the
    // walk through the live list stops before placing an applied-only element.
    let shared: Vec<&Value> = applied
        .iter()
        .filter(|a| position_in_live(a).is_some())
        .collect();
    let mut next_shared = shared.iter().peekable();
    let mut out = Vec::with_capacity(live.len().max(applied.len()));
    let mut at = 0;
    for item in applied {
        let stop = next_shared.peek().copied().copied();
        // Live-only elements up to the next shared one keep their place; shared elements
        // met out of the applied order are placed when the applied order reaches them.
        while let Some(l) = live.get(at) {
            if !applied_has(l) {
                out.push(l.clone());
            } else if stop.is_some_and(|s| same(s, l)) {
                break;
            }
            at += 1;
        }
        match position_in_live(item) {
            Some(p) => {
                let mut merged = live[p].clone();
                merge_applied(&mut merged, item, "", lists);
                out.push(merged);
                next_shared.next();
                if at == p {
                    at += 1;
                }
            }
            None => out.push(item.clone()),
        }
    }
    out.extend(live[at..].iter().filter(|l| !applied_has(l)).cloned());
    out
}

/// Server-side apply of `applied` by `writer` onto `current` (a skeleton when creating).
/// Returns the merged object with updated managed fields, or the conflicts unless `force`.
pub fn apply(
    current: &Value,
    applied: &Value,
    writer: &Writer<'_>,
    force: bool,
) -> Result<Value, ApplyError> {
    let mut entries = read_entries(current);
    let subresource = writer.scope.subresource();
    let applied_fields = field_set(applied, writer.scope, writer.lists);

    let mut conflicts = Vec::new();
    let mut conflicting_paths: Vec<(usize, FieldPath)> = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        if entry.same_owner(writer.manager, "Apply", subresource) {
            continue;
        }
        for path in entry.fields.intersection(&applied_fields) {
            if is_element(path) {
                continue;
            }
            if value_at(current, path) != value_at(applied, path) {
                conflicts.push(Conflict {
                    manager: entry.manager.clone(),
                    api_version: entry.api_version.clone(),
                    field: display_path(path),
                });
                conflicting_paths.push((index, path.clone()));
            }
        }
    }
    if !conflicts.is_empty() && !force {
        return Err(ApplyError::Conflicts(conflicts));
    }
    for (index, path) in conflicting_paths {
        entries[index].fields.remove(&path);
    }

    let mut merged = current.clone();
    let mut scoped_applied = Map::new();
    if let Some(applied_map) = applied.as_object() {
        for (key, value) in applied_map {
            if key == "metadata" {
                let mut metadata = value.as_object().cloned().unwrap_or_default();
                metadata.retain(|field, _| !SERVER_METADATA.contains(&field.as_str()));
                scoped_applied.insert(key.clone(), Value::Object(metadata));
            } else if writer.scope.includes_top_level(key) {
                scoped_applied.insert(key.clone(), value.clone());
            }
        }
    }
    if matches!(writer.scope, Scope::Status) {
        scoped_applied.remove("metadata");
    }
    merge_applied(
        &mut merged,
        &Value::Object(scoped_applied),
        "",
        writer.lists,
    );

    let previous = entries
        .iter()
        .find(|entry| entry.same_owner(writer.manager, "Apply", subresource))
        .map(|entry| entry.fields.clone())
        .unwrap_or_default();
    let mut removed: Vec<&FieldPath> = previous.difference(&applied_fields).collect();
    removed.sort_by_key(|path| std::cmp::Reverse(path.len()));
    for path in removed {
        let owned_by_others = entries.iter().any(|entry| {
            !entry.same_owner(writer.manager, "Apply", subresource)
                && owns_path_or_descendant(&entry.fields, path)
        });
        if owned_by_others || owns_path_or_descendant(&applied_fields, path) || is_key_field(path) {
            // Key fields go with their element, never alone: the element stays identifiable.
            continue;
        }
        remove_at(&mut merged, path);
        // Drop maps this removal left empty (but never top-level sections).
        let mut ancestor = path.clone();
        while ancestor.len() > 2 {
            ancestor.pop();
            let empty = value_at(&merged, &ancestor)
                .is_some_and(|value| value.as_object().is_some_and(Map::is_empty));
            let owned = entries.iter().any(|entry| entry.fields.contains(&ancestor))
                || applied_fields.contains(&ancestor);
            if !empty || owned {
                break;
            }
            remove_at(&mut merged, &ancestor);
        }
    }

    match entries
        .iter_mut()
        .find(|entry| entry.same_owner(writer.manager, "Apply", subresource))
    {
        Some(entry) => {
            entry.fields = applied_fields;
            entry.time = writer.time.to_string();
            entry.api_version = writer.api_version.to_string();
        }
        None => entries.push(Entry {
            manager: writer.manager.to_string(),
            operation: "Apply".into(),
            api_version: writer.api_version.to_string(),
            time: writer.time.to_string(),
            subresource: subresource.map(str::to_string),
            fields: applied_fields,
        }),
    }
    write_entries(&mut merged, &entries);
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer(manager: &str) -> Writer<'_> {
        Writer {
            manager,
            api_version: "apps/v1",
            time: "2024-01-01T00:00:00Z",
            scope: Scope::Main {
                status_separate: true,
            },
            lists: ListKeys::Builtin,
        }
    }

    #[test]
    fn fields_v1_round_trips() {
        let object = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}, "finalizers": ["x"]},
            "spec": {"containers": [{"name": "c", "image": "i"}], "tolerations": [{"key": "k"}]}, "status": {"phase": "Running"}});
        let fields = field_set(
            &object,
            Scope::Main {
                status_separate: true,
            },
            ListKeys::Builtin,
        );
        assert!(fields.contains(&vec![
            "f:spec".to_string(),
            "f:containers".into(),
            "k:{\"name\":\"c\"}".into(),
            "f:image".into()
        ]));
        assert!(fields.contains(&vec!["f:spec".to_string(), "f:tolerations".into()]));
        assert!(fields.contains(&vec![
            "f:metadata".to_string(),
            "f:finalizers".into(),
            "v:\"x\"".into()
        ]));
        assert!(!fields.iter().any(|path| path[0] == "f:status"));
        assert_eq!(from_fields_v1(&to_fields_v1(&fields)), fields);
    }

    #[test]
    fn apply_removes_dropped_fields_and_reports_conflicts() {
        let skeleton =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}});
        let first = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": {"a": "1", "b": "2"}}, "spec": {"replicas": 1}});
        let applied = apply(&skeleton, &first, &writer("one"), false).unwrap();
        let second = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": {"a": "1"}}, "spec": {"replicas": 1}});
        let reapplied = apply(&applied, &second, &writer("one"), false).unwrap();
        assert_eq!(reapplied["metadata"]["labels"], json!({"a": "1"}));
        let other = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 3}});
        let error = apply(&reapplied, &other, &writer("two"), false).unwrap_err();
        assert!(error.to_string().contains(".spec.replicas"), "{error}");
        let forced = apply(&reapplied, &other, &writer("two"), true).unwrap();
        assert_eq!(forced["spec"]["replicas"], json!(3));
        let shared = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 3}});
        assert!(apply(&forced, &shared, &writer("three"), false).is_ok());
    }

    /// As the API server (structured-merge-diff) orders a keyed list: an element replaced
    /// by another at the same place keeps the place, and elements the manager no longer
    /// applies are pruned. (An env var renamed in a pod template used to move to the end.)
    #[test]
    fn applied_keyed_list_elements_keep_the_applied_order() {
        let object = |env: &[&str]| {
            let env: Vec<Value> = env
                .iter()
                .map(|n| json!({"name": n, "value": "v"}))
                .collect();
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d"},
                "spec": {"template": {"spec": {"containers": [{"name": "c", "env": env}]}}}})
        };
        let names = |o: &Value| -> Vec<String> {
            o["spec"]["template"]["spec"]["containers"][0]["env"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| e["name"].as_str().unwrap_or_default().to_owned())
                .collect()
        };
        let skeleton =
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d"}});
        let first = apply(
            &skeleton,
            &object(&["POD", "ALLOY", "SHARD"]),
            &writer("op"),
            false,
        )
        .unwrap();
        let second = apply(
            &first,
            &object(&["POD", "AGENT", "SHARD"]),
            &writer("op"),
            false,
        )
        .unwrap();
        assert_eq!(names(&second), ["POD", "AGENT", "SHARD"]);
        let reordered = apply(
            &second,
            &object(&["SHARD", "POD", "NEW"]),
            &writer("op"),
            false,
        )
        .unwrap();
        assert_eq!(names(&reordered), ["SHARD", "POD", "NEW"]);
        // Another manager's element stays where it was among the applied ones.
        let theirs = apply(&reordered, &object(&["EXTRA"]), &writer("other"), false).unwrap();
        assert_eq!(names(&theirs), ["SHARD", "POD", "NEW", "EXTRA"]);
        let mine = apply(
            &theirs,
            &object(&["FIRST", "SHARD", "POD", "NEW", "LAST"]),
            &writer("op"),
            false,
        )
        .unwrap();
        assert_eq!(
            names(&mine),
            ["FIRST", "SHARD", "POD", "NEW", "EXTRA", "LAST"]
        );
    }

    /// A custom resource's list declared `x-kubernetes-list-type: map`: each manager's
    /// elements merge, an update keeps the other's, and an empty apply removes only its own.
    #[test]
    fn custom_list_maps_merge_per_manager_and_other_lists_stay_atomic() {
        let keys = BTreeMap::from([("agents".to_owned(), "agent".to_owned())]);
        let status_writer = |manager| Writer {
            manager,
            api_version: "example.com/v1",
            time: "2024-01-01T00:00:00Z",
            scope: Scope::Status,
            lists: ListKeys::Custom(&keys),
        };
        let object = |status: Value| json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"}, "status": status});
        let entry = |agent: &str, n: i32| json!({"agent": agent, "count": n, "atomic": [n]});
        let current = object(json!({}));
        let one = apply(
            &current,
            &object(json!({"agents": [entry("a", 1)]})),
            &status_writer("a"),
            true,
        )
        .unwrap();
        let both = apply(
            &one,
            &object(json!({"agents": [entry("b", 1)]})),
            &status_writer("b"),
            true,
        )
        .unwrap();
        assert_eq!(
            both["status"]["agents"],
            json!([entry("a", 1), entry("b", 1)])
        );
        let updated = apply(
            &both,
            &object(json!({"agents": [entry("a", 2)]})),
            &status_writer("a"),
            true,
        )
        .unwrap();
        assert_eq!(
            updated["status"]["agents"],
            json!([entry("a", 2), entry("b", 1)])
        );
        let removed = apply(&updated, &object(json!({})), &status_writer("a"), true).unwrap();
        assert_eq!(removed["status"]["agents"], json!([entry("b", 1)]));
    }
}
