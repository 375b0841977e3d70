//! JSON merge patch, JSON patch and an approximation of strategic merge patch.
//!
//! Strategic merge patch is driven on a real server by the Go struct tags of each built-in type.
//! This approximation uses a table of list fields that have a merge key (containers by `name`,
//! ports by `containerPort`/`port`, volume mounts by `mountPath`, ...) and treats every other list
//! as atomic (replaced whole). It understands the `$patch: replace|delete|merge` directive,
//! `$retainKeys`, `$deleteFromPrimitiveList/<field>` and ignores `$setElementOrder/<field>`, which
//! is enough for `kubectl apply` (client-side), `kubectl edit` and `kubectl patch`.

use serde_json::{Map, Value};

#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error(
        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    )]
    UnknownFormat,
    #[error("invalid patch body: {0}")]
    Malformed(String),
    #[error("json patch could not be applied: {0}")]
    JsonPatchFailed(String),
    #[error("strategic merge patch: {0}")]
    Strategic(String),
}

/// The patch flavours of `Content-Type` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchKind {
    Merge,
    Json,
    Strategic,
    Apply,
}

impl PatchKind {
    pub fn from_content_type(content_type: &str) -> Result<Self, PatchError> {
        let media = content_type.split(';').next().unwrap_or_default().trim();
        match media {
            "application/merge-patch+json" => Ok(PatchKind::Merge),
            "application/json-patch+json" => Ok(PatchKind::Json),
            "application/strategic-merge-patch+json" => Ok(PatchKind::Strategic),
            "application/apply-patch+yaml" | "application/apply-patch+cbor" => Ok(PatchKind::Apply),
            _ => Err(PatchError::UnknownFormat),
        }
    }
}

pub fn merge_patch(target: &Value, patch: &Value) -> Value {
    let mut result = target.clone();
    json_patch::merge(&mut result, patch);
    result
}

/// RFC 6902 patch. Like the reference implementation the API server uses, a `test` for `null`
/// passes on a missing path; kube-runtime's finalizer helper relies on that when it adds the
/// first finalizer.
pub fn json_patch(target: &Value, patch: &Value) -> Result<Value, PatchError> {
    let operations: json_patch::Patch = serde_json::from_value(patch.clone())
        .map_err(|error| PatchError::Malformed(error.to_string()))?;
    let mut result = target.clone();
    for operation in &operations.0 {
        if let json_patch::PatchOperation::Test(test) = operation
            && test.value.is_null()
            && result.pointer(test.path.as_str()).is_none()
        {
            continue;
        }
        json_patch::patch(&mut result, std::slice::from_ref(operation))
            .map_err(|error| PatchError::JsonPatchFailed(error.to_string()))?;
    }
    Ok(result)
}

/// The merge key of a list field of a built-in kind, judged from the field name and, for
/// `ports`, from the element shape (container ports and service ports use different keys).
pub fn merge_key(field: &str, sample: Option<&Value>) -> Option<&'static str> {
    match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "volumes"
        | "env"
        | "imagePullSecrets"
        | "secrets" => Some("name"),
        "volumeMounts" => Some("mountPath"),
        "volumeDevices" => Some("devicePath"),
        "conditions" => Some("type"),
        "ownerReferences" => Some("uid"),
        "hostAliases" => Some("ip"),
        "readinessGates" => Some("conditionType"),
        "topologySpreadConstraints" => Some("topologyKey"),
        "ports" => {
            if sample.is_some_and(|element| element.get("containerPort").is_some()) {
                Some("containerPort")
            } else {
                Some("port")
            }
        }
        _ => None,
    }
}

/// Lists of scalars whose strategy is "merge": elements are a set.
pub fn is_set_list(field: &str) -> bool {
    field == "finalizers"
}

pub fn strategic_merge(target: &Value, patch: &Value) -> Result<Value, PatchError> {
    match patch {
        Value::Object(patch_map) => {
            let base = match target {
                Value::Object(map) => map.clone(),
                _ => Map::new(),
            };
            merge_map(base, patch_map).map(Value::Object)
        }
        other => Ok(other.clone()),
    }
}

fn merge_map(
    mut target: Map<String, Value>,
    patch: &Map<String, Value>,
) -> Result<Map<String, Value>, PatchError> {
    match patch.get("$patch").and_then(Value::as_str) {
        Some("replace") => {
            let mut replacement = patch.clone();
            replacement.remove("$patch");
            return Ok(replacement);
        }
        Some("delete") => return Ok(Map::new()),
        Some("merge") | None => {}
        Some(other) => {
            return Err(PatchError::Strategic(format!(
                "unknown patch directive {other:?}"
            )));
        }
    }
    if let Some(retained) = patch.get("$retainKeys").and_then(Value::as_array) {
        let retained: Vec<&str> = retained.iter().filter_map(Value::as_str).collect();
        target.retain(|key, _| retained.contains(&key.as_str()));
    }
    for (key, value) in patch {
        if key == "$patch" || key == "$retainKeys" || key.starts_with("$setElementOrder/") {
            continue;
        }
        if let Some(field) = key.strip_prefix("$deleteFromPrimitiveList/") {
            let doomed = value.as_array().cloned().unwrap_or_default();
            if let Some(Value::Array(items)) = target.get_mut(field) {
                items.retain(|item| !doomed.contains(item));
            }
            continue;
        }
        match value {
            Value::Null => {
                target.remove(key);
            }
            Value::Object(child_patch) => {
                let child = match target.remove(key) {
                    Some(Value::Object(map)) => map,
                    _ => Map::new(),
                };
                target.insert(key.clone(), Value::Object(merge_map(child, child_patch)?));
            }
            Value::Array(patch_items) => {
                let current = match target.remove(key) {
                    Some(Value::Array(items)) => items,
                    _ => Vec::new(),
                };
                let merged = merge_list(key, current, patch_items)?;
                target.insert(key.clone(), Value::Array(merged));
            }
            scalar => {
                target.insert(key.clone(), scalar.clone());
            }
        }
    }
    Ok(target)
}

fn merge_list(
    field: &str,
    mut current: Vec<Value>,
    patch: &[Value],
) -> Result<Vec<Value>, PatchError> {
    if is_set_list(field) {
        for item in patch {
            if !current.contains(item) {
                current.push(item.clone());
            }
        }
        return Ok(current);
    }
    let sample = patch
        .iter()
        .chain(current.iter())
        .find(|item| item.is_object());
    let Some(key) = merge_key(field, sample) else {
        // Atomic list: the patch value replaces it, minus any directive-only element.
        return Ok(patch
            .iter()
            .filter(|item| item.get("$patch").is_none())
            .cloned()
            .collect());
    };
    // A list-level `{"$patch": "replace"}` element replaces the whole list.
    if patch.iter().any(|item| {
        item.get("$patch").and_then(Value::as_str) == Some("replace") && item.get(key).is_none()
    }) {
        return Ok(patch
            .iter()
            .filter(|item| item.get("$patch").is_none())
            .cloned()
            .collect());
    }
    for item in patch {
        let Some(item_map) = item.as_object() else {
            return Err(PatchError::Strategic(format!(
                "list {field:?} merges on {key:?} but holds a non-object element"
            )));
        };
        let Some(key_value) = item_map.get(key) else {
            return Err(PatchError::Strategic(format!(
                "an element of list {field:?} lacks its merge key {key:?}"
            )));
        };
        let position = current
            .iter()
            .position(|existing| existing.get(key) == Some(key_value));
        let deleting = item_map.get("$patch").and_then(Value::as_str) == Some("delete");
        match (position, deleting) {
            (Some(index), true) => {
                current.remove(index);
            }
            (None, true) => {}
            (Some(index), false) => {
                let existing = match current[index].take() {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                current[index] = Value::Object(merge_map(existing, item_map)?);
            }
            (None, false) => {
                let mut fresh = item_map.clone();
                fresh.remove("$patch");
                current.push(Value::Object(merge_map(Map::new(), &fresh)?));
            }
        }
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strategic_merge_merges_containers_by_name() {
        let target = json!({"spec": {"containers": [
            {"name": "a", "image": "a:1", "env": [{"name": "X", "value": "1"}]},
            {"name": "b", "image": "b:1"}
        ], "tolerations": [{"key": "k"}]}});
        let patch = json!({"spec": {
            "containers": [{"name": "a", "image": "a:2", "env": [{"name": "Y", "value": "2"}]},
                           {"name": "b", "$patch": "delete"},
                           {"name": "c", "image": "c:1"}],
            "tolerations": [{"key": "z"}],
            "$setElementOrder/containers": [{"name": "a"}, {"name": "c"}]
        }});
        let merged = strategic_merge(&target, &patch).unwrap();
        assert_eq!(
            merged,
            json!({"spec": {"containers": [
                {"name": "a", "image": "a:2", "env": [{"name": "X", "value": "1"}, {"name": "Y", "value": "2"}]},
                {"name": "c", "image": "c:1"}
            ], "tolerations": [{"key": "z"}]}})
        );
    }

    #[test]
    fn json_patch_test_for_null_passes_on_missing_paths() {
        let target = json!({"metadata": {"name": "x"}});
        let patch = json!([
            {"op": "test", "path": "/metadata/finalizers", "value": null},
            {"op": "add", "path": "/metadata/finalizers", "value": ["f"]}
        ]);
        assert_eq!(
            json_patch(&target, &patch).unwrap(),
            json!({"metadata": {"name": "x", "finalizers": ["f"]}})
        );
        let failing = json!([{"op": "test", "path": "/metadata/name", "value": null}]);
        assert!(json_patch(&target, &failing).is_err());
    }

    #[test]
    fn strategic_merge_directives() {
        let target =
            json!({"metadata": {"finalizers": ["a", "b"], "labels": {"x": "1", "y": "2"}}});
        let patch = json!({"metadata": {
            "$deleteFromPrimitiveList/finalizers": ["a"],
            "finalizers": ["c"],
            "labels": {"$patch": "replace", "z": "3"}
        }});
        let merged = strategic_merge(&target, &patch).unwrap();
        assert_eq!(
            merged,
            json!({"metadata": {"finalizers": ["b", "c"], "labels": {"z": "3"}}})
        );
    }
}
