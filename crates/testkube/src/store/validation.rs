//! What the API server checks before it stores an object: names, annotation sizes, types,
//! namespaces, fields that cannot change.

use super::*;

pub(super) fn is_dns_label(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

pub(super) fn is_dns_subdomain(name: &str) -> bool {
    name.len() <= 253 && name.split('.').all(is_dns_label)
}

/// kube-apiserver's limit on an object's annotations, keys and values together.
pub(super) const ANNOTATIONS_SIZE_LIMIT: usize = 256 * 1024;

/// Annotations over the real server's size limit. `kubectl apply` (client side) keeps the
/// whole object in `last-applied-configuration`, so a large CRD cannot be applied that way,
/// only with `--server-side` or `create`.
pub(super) fn annotations_cause(object: &Value) -> Option<StatusCause> {
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

pub(super) fn name_cause(info: &ResourceInfo, name: &str) -> Option<StatusCause> {
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

/// The parts of an object that count for `metadata.generation`.
pub(super) fn spec_part(object: &Value, has_status: bool) -> Map<String, Value> {
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
pub(super) fn comparable(object: &Value) -> Value {
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
pub(super) fn immutable_field_causes(
    info: &ResourceInfo,
    old: &Value,
    new: &Value,
) -> Vec<StatusCause> {
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
pub(super) fn fold_string_data(info: &ResourceInfo, object: &mut Value) {
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

impl State {
    pub(super) fn check_type(info: &ResourceInfo, object: &mut Value) -> Result<(), ApiError> {
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

    pub(super) fn check_namespace(
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
}
