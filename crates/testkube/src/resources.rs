//! The set of served resources: the built-in kinds and those registered by CustomResourceDefinitions,
//! plus the discovery documents describing them.

use std::collections::BTreeMap;

use serde_json::{Value, json};

/// Where objects of one resource are stored: objects of every served version of a CRD share one
/// collection, as they share one etcd prefix on a real server.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StoreKey {
    pub group: String,
    pub plural: String,
}

/// A printer column of a custom resource, as declared in `additionalPrinterColumns`.
#[derive(Debug, Clone)]
pub struct PrinterColumn {
    pub name: String,
    pub column_type: String,
    pub json_path: String,
}

/// Everything the server needs to know about one served group/version/resource.
#[derive(Debug, Clone)]
pub struct ResourceInfo {
    pub group: String,
    pub version: String,
    pub plural: String,
    pub singular: String,
    pub kind: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// Whether the `status` subresource exists: status is then written only through it, and the
    /// main resource ignores status changes.
    pub has_status: bool,
    /// Whether `metadata.generation` is maintained (custom resources and the workload kinds).
    pub tracks_generation: bool,
    /// Built-in kinds accept strategic merge patches; custom resources answer 415 as on a cluster.
    pub builtin: bool,
    pub printer_columns: Vec<PrinterColumn>,
    /// For a custom resource, the lists its schema declares `x-kubernetes-list-type: map` with
    /// one key, by field name: server-side apply merges them element by element.
    pub list_map_keys: BTreeMap<String, String>,
}

impl ResourceInfo {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    pub fn store_key(&self) -> StoreKey {
        StoreKey {
            group: self.group.clone(),
            plural: self.plural.clone(),
        }
    }

    pub fn list_kind(&self) -> String {
        format!("{}List", self.kind)
    }
}

struct Builtin {
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    has_status: bool,
    tracks_generation: bool,
}

#[allow(clippy::too_many_arguments)] // A table row constructor: positional keeps the table readable.
const fn builtin(
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    has_status: bool,
    tracks_generation: bool,
) -> Builtin {
    Builtin {
        group,
        version,
        plural,
        singular,
        kind,
        namespaced,
        short_names,
        has_status,
        tracks_generation,
    }
}

/// The built-in resources: those the operator touches and those common in users' manifests.
const BUILTINS: &[Builtin] = &[
    builtin(
        "",
        "v1",
        "namespaces",
        "namespace",
        "Namespace",
        false,
        &["ns"],
        true,
        false,
    ),
    builtin(
        "",
        "v1",
        "secrets",
        "secret",
        "Secret",
        true,
        &[],
        false,
        false,
    ),
    builtin(
        "",
        "v1",
        "configmaps",
        "configmap",
        "ConfigMap",
        true,
        &["cm"],
        false,
        false,
    ),
    builtin(
        "",
        "v1",
        "services",
        "service",
        "Service",
        true,
        &["svc"],
        true,
        false,
    ),
    builtin(
        "",
        "v1",
        "endpoints",
        "endpoints",
        "Endpoints",
        true,
        &["ep"],
        false,
        false,
    ),
    builtin(
        "",
        "v1",
        "nodes",
        "node",
        "Node",
        false,
        &["no"],
        true,
        false,
    ),
    builtin("", "v1", "pods", "pod", "Pod", true, &["po"], true, true),
    builtin(
        "",
        "v1",
        "serviceaccounts",
        "serviceaccount",
        "ServiceAccount",
        true,
        &["sa"],
        false,
        false,
    ),
    builtin(
        "",
        "v1",
        "events",
        "event",
        "Event",
        true,
        &["ev"],
        false,
        false,
    ),
    builtin(
        "",
        "v1",
        "persistentvolumeclaims",
        "persistentvolumeclaim",
        "PersistentVolumeClaim",
        true,
        &["pvc"],
        true,
        false,
    ),
    builtin(
        "apps",
        "v1",
        "statefulsets",
        "statefulset",
        "StatefulSet",
        true,
        &["sts"],
        true,
        true,
    ),
    builtin(
        "apps",
        "v1",
        "daemonsets",
        "daemonset",
        "DaemonSet",
        true,
        &["ds"],
        true,
        true,
    ),
    builtin(
        "apps",
        "v1",
        "deployments",
        "deployment",
        "Deployment",
        true,
        &["deploy"],
        true,
        true,
    ),
    builtin(
        "apps",
        "v1",
        "replicasets",
        "replicaset",
        "ReplicaSet",
        true,
        &["rs"],
        true,
        true,
    ),
    builtin(
        "discovery.k8s.io",
        "v1",
        "endpointslices",
        "endpointslice",
        "EndpointSlice",
        true,
        &[],
        false,
        false,
    ),
    builtin(
        "coordination.k8s.io",
        "v1",
        "leases",
        "lease",
        "Lease",
        true,
        &[],
        false,
        false,
    ),
    builtin(
        "events.k8s.io",
        "v1",
        "events",
        "event",
        "Event",
        true,
        &["ev"],
        false,
        false,
    ),
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "roles",
        "role",
        "Role",
        true,
        &[],
        false,
        false,
    ),
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "clusterroles",
        "clusterrole",
        "ClusterRole",
        false,
        &[],
        false,
        false,
    ),
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "rolebindings",
        "rolebinding",
        "RoleBinding",
        true,
        &[],
        false,
        false,
    ),
    builtin(
        "rbac.authorization.k8s.io",
        "v1",
        "clusterrolebindings",
        "clusterrolebinding",
        "ClusterRoleBinding",
        false,
        &[],
        false,
        false,
    ),
    builtin(
        "networking.k8s.io",
        "v1",
        "ingresses",
        "ingress",
        "Ingress",
        true,
        &["ing"],
        true,
        true,
    ),
    builtin(
        "apiextensions.k8s.io",
        "v1",
        "customresourcedefinitions",
        "customresourcedefinition",
        "CustomResourceDefinition",
        false,
        &["crd", "crds"],
        true,
        true,
    ),
];

/// The order groups are listed in `/apis`, built-ins first as on a real server.
const BUILTIN_GROUP_ORDER: &[&str] = &[
    "apps",
    "events.k8s.io",
    "rbac.authorization.k8s.io",
    "networking.k8s.io",
    "discovery.k8s.io",
    "coordination.k8s.io",
    "apiextensions.k8s.io",
];

/// Errors of a CustomResourceDefinition that cannot be registered.
#[derive(Debug, thiserror::Error)]
pub enum CrdError {
    #[error("spec.{0}: Required value")]
    Missing(&'static str),
    #[error("spec.scope: Unsupported value: {0:?}: supported values: \"Cluster\", \"Namespaced\"")]
    BadScope(String),
    #[error(
        "metadata.name: Invalid value: {actual:?}: must be spec.names.plural+\".\"+spec.group ({expected:?})"
    )]
    NameMismatch { actual: String, expected: String },
    #[error(
        "spec.versions: Invalid value: must have exactly one version marked as storage version"
    )]
    StorageVersion,
}

impl CrdError {
    pub fn field(&self) -> &'static str {
        match self {
            CrdError::Missing(_) | CrdError::BadScope(_) => "spec",
            CrdError::NameMismatch { .. } => "metadata.name",
            CrdError::StorageVersion => "spec.versions",
        }
    }
}

/// The resources a CRD object declares, one per served version.
pub fn resources_from_crd(crd: &Value) -> Result<Vec<ResourceInfo>, CrdError> {
    let spec = &crd["spec"];
    let group = spec["group"].as_str().ok_or(CrdError::Missing("group"))?;
    let names = &spec["names"];
    let plural = names["plural"]
        .as_str()
        .ok_or(CrdError::Missing("names.plural"))?;
    let kind = names["kind"]
        .as_str()
        .ok_or(CrdError::Missing("names.kind"))?;
    let singular = names["singular"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| kind.to_lowercase());
    let namespaced = match spec["scope"].as_str() {
        Some("Namespaced") => true,
        Some("Cluster") => false,
        Some(other) => return Err(CrdError::BadScope(other.to_string())),
        None => return Err(CrdError::Missing("scope")),
    };
    let expected_name = format!("{plural}.{group}");
    let actual_name = crd["metadata"]["name"].as_str().unwrap_or_default();
    if actual_name != expected_name {
        return Err(CrdError::NameMismatch {
            actual: actual_name.to_string(),
            expected: expected_name,
        });
    }
    let versions = spec["versions"]
        .as_array()
        .filter(|versions| !versions.is_empty())
        .ok_or(CrdError::Missing("versions"))?;
    let storage_count = versions
        .iter()
        .filter(|version| version["storage"].as_bool() == Some(true))
        .count();
    if storage_count != 1 {
        return Err(CrdError::StorageVersion);
    }
    let strings = |value: &Value| -> Vec<String> {
        value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|item| item.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut infos = Vec::new();
    for version in versions {
        if version["served"].as_bool() == Some(false) {
            continue;
        }
        let Some(name) = version["name"].as_str() else {
            return Err(CrdError::Missing("versions[].name"));
        };
        let printer_columns = version["additionalPrinterColumns"]
            .as_array()
            .map(|columns| {
                columns
                    .iter()
                    .filter_map(|column| {
                        Some(PrinterColumn {
                            name: column["name"].as_str()?.to_string(),
                            column_type: column["type"].as_str().unwrap_or("string").to_string(),
                            json_path: column["jsonPath"].as_str()?.to_string(),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        infos.push(ResourceInfo {
            group: group.to_string(),
            version: name.to_string(),
            plural: plural.to_string(),
            singular: singular.clone(),
            kind: kind.to_string(),
            namespaced,
            short_names: strings(&names["shortNames"]),
            categories: strings(&names["categories"]),
            has_status: version["subresources"]["status"].is_object(),
            tracks_generation: true,
            builtin: false,
            printer_columns,
            list_map_keys: list_map_keys(&version["schema"]["openAPIV3Schema"]),
        });
    }
    Ok(infos)
}

/// The single-key list-maps of a CRD schema, by field name (as [`crate::patch::merge_key`]
/// names a built-in kind's merge keys). Lists keyed by several fields stay atomic here.
fn list_map_keys(schema: &Value) -> BTreeMap<String, String> {
    fn walk(node: &Value, keys: &mut BTreeMap<String, String>) {
        if !node.is_object() {
            return;
        }
        if let Some(properties) = node["properties"].as_object() {
            for (field, property) in properties {
                let map_keys = property["x-kubernetes-list-map-keys"].as_array();
                if property["x-kubernetes-list-type"] == "map"
                    && let Some([key]) = map_keys.map(Vec::as_slice)
                    && let Some(key) = key.as_str()
                {
                    keys.insert(field.clone(), key.to_owned());
                }
                walk(property, keys);
            }
        }
        walk(&node["items"], keys);
        walk(&node["additionalProperties"], keys);
    }
    let mut keys = BTreeMap::new();
    walk(schema, &mut keys);
    keys
}

/// Served resources, indexed by group, version and plural.
#[derive(Debug, Clone)]
pub struct Registry {
    resources: BTreeMap<(String, String, String), ResourceInfo>,
    /// Which CRD (by name) registered which entries, so that an update or delete replaces them.
    crd_entries: BTreeMap<String, Vec<(String, String, String)>>,
}

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

impl Registry {
    pub fn new() -> Self {
        let mut resources = BTreeMap::new();
        for entry in BUILTINS {
            let info = ResourceInfo {
                group: entry.group.to_string(),
                version: entry.version.to_string(),
                plural: entry.plural.to_string(),
                singular: entry.singular.to_string(),
                kind: entry.kind.to_string(),
                namespaced: entry.namespaced,
                short_names: entry
                    .short_names
                    .iter()
                    .map(|name| name.to_string())
                    .collect(),
                categories: Vec::new(),
                has_status: entry.has_status,
                tracks_generation: entry.tracks_generation,
                builtin: true,
                list_map_keys: BTreeMap::new(),
                printer_columns: Vec::new(),
            };
            resources.insert(
                (
                    info.group.clone(),
                    info.version.clone(),
                    info.plural.clone(),
                ),
                info,
            );
        }
        Registry {
            resources,
            crd_entries: BTreeMap::new(),
        }
    }

    pub fn lookup(&self, group: &str, version: &str, plural: &str) -> Option<&ResourceInfo> {
        self.resources
            .get(&(group.to_string(), version.to_string(), plural.to_string()))
    }

    /// Any served version of a stored resource; used where only the storage matters.
    pub fn any_version(&self, key: &StoreKey) -> Option<&ResourceInfo> {
        self.resources
            .values()
            .find(|info| info.group == key.group && info.plural == key.plural)
    }

    /// The info for an object's `apiVersion` and `kind`, used to resolve owner references.
    pub fn by_kind(&self, api_version: &str, kind: &str) -> Option<&ResourceInfo> {
        let (group, version) = split_api_version(api_version);
        self.resources
            .values()
            .find(|info| info.group == group && info.version == version && info.kind == kind)
    }

    pub fn all(&self) -> impl Iterator<Item = &ResourceInfo> {
        self.resources.values()
    }

    pub fn register_crd(&mut self, crd_name: &str, infos: Vec<ResourceInfo>) {
        self.unregister_crd(crd_name);
        let mut keys = Vec::new();
        for info in infos {
            let key = (
                info.group.clone(),
                info.version.clone(),
                info.plural.clone(),
            );
            keys.push(key.clone());
            self.resources.insert(key, info);
        }
        self.crd_entries.insert(crd_name.to_string(), keys);
    }

    pub fn unregister_crd(&mut self, crd_name: &str) {
        if let Some(keys) = self.crd_entries.remove(crd_name) {
            for key in keys {
                self.resources.remove(&key);
            }
        }
    }

    /// Groups in discovery order, each with its versions (first is preferred).
    fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for info in self.resources.values() {
            if info.group.is_empty() {
                continue;
            }
            let versions = groups.entry(info.group.clone()).or_default();
            if !versions.contains(&info.version) {
                versions.push(info.version.clone());
            }
        }
        for versions in groups.values_mut() {
            versions.sort_by(|left, right| compare_versions(right, left));
        }
        let mut ordered = Vec::new();
        for name in BUILTIN_GROUP_ORDER {
            if let Some(versions) = groups.remove(*name) {
                ordered.push((name.to_string(), versions));
            }
        }
        ordered.extend(groups);
        ordered
    }

    fn group_document(name: &str, versions: &[String]) -> Value {
        let version_entries: Vec<Value> = versions
            .iter()
            .map(|version| json!({"groupVersion": format!("{name}/{version}"), "version": version}))
            .collect();
        json!({
            "name": name,
            "versions": version_entries,
            "preferredVersion": version_entries.first().cloned().unwrap_or(Value::Null),
        })
    }

    /// `/apis`
    pub fn group_list(&self) -> Value {
        let groups: Vec<Value> = self
            .groups()
            .iter()
            .map(|(name, versions)| Self::group_document(name, versions))
            .collect();
        json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
    }

    /// `/apis/<group>`
    pub fn group(&self, group: &str) -> Option<Value> {
        self.groups()
            .iter()
            .find(|(name, _)| name == group)
            .map(|(name, versions)| {
                let mut document = Self::group_document(name, versions);
                document["kind"] = json!("APIGroup");
                document["apiVersion"] = json!("v1");
                document
            })
    }

    /// `/api/v1` and `/apis/<group>/<version>`
    pub fn resource_list(&self, group: &str, version: &str) -> Option<Value> {
        let mut resources = Vec::new();
        for info in self
            .resources
            .values()
            .filter(|info| info.group == group && info.version == version)
        {
            let mut entry = json!({
                "name": info.plural,
                "singularName": info.singular,
                "namespaced": info.namespaced,
                "kind": info.kind,
                "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
            });
            if !info.short_names.is_empty() {
                entry["shortNames"] = json!(info.short_names);
            }
            if !info.categories.is_empty() {
                entry["categories"] = json!(info.categories);
            }
            resources.push(entry);
            if info.has_status {
                resources.push(json!({
                    "name": format!("{}/status", info.plural),
                    "singularName": "",
                    "namespaced": info.namespaced,
                    "kind": info.kind,
                    "verbs": ["get", "patch", "update"],
                }));
            }
        }
        if resources.is_empty() {
            return None;
        }
        let group_version = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        Some(json!({
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": group_version,
            "resources": resources,
        }))
    }
}

/// Minimal OpenAPI v3 documents: one PATCH operation per resource, tagged with its kind and the
/// `fieldValidation` parameter. That is what kubectl checks to decide the server validates
/// fields itself; without it kubectl insists on downloading full schemas.
impl Registry {
    fn group_versions(&self) -> Vec<(String, String)> {
        let mut pairs: Vec<(String, String)> = self
            .resources
            .values()
            .map(|info| (info.group.clone(), info.version.clone()))
            .collect();
        pairs.dedup();
        pairs
    }

    fn openapi_path_key(group: &str, version: &str) -> String {
        if group.is_empty() {
            format!("api/{version}")
        } else {
            format!("apis/{group}/{version}")
        }
    }

    /// `/openapi/v3`
    pub fn openapi_root(&self) -> Value {
        let mut paths = serde_json::Map::new();
        for (group, version) in self.group_versions() {
            let key = Self::openapi_path_key(&group, &version);
            let document = self.openapi_group_version(&key).unwrap_or_default();
            let hash = fnv1a(document.to_string().as_bytes());
            paths.insert(
                key.clone(),
                json!({"serverRelativeURL": format!("/openapi/v3/{key}?hash={hash:016X}")}),
            );
        }
        json!({ "paths": paths })
    }

    /// `/openapi/v3/api/v1`, `/openapi/v3/apis/<group>/<version>`
    pub fn openapi_group_version(&self, key: &str) -> Option<Value> {
        let mut paths = serde_json::Map::new();
        for info in self
            .resources
            .values()
            .filter(|info| Self::openapi_path_key(&info.group, &info.version) == key)
        {
            let path = if info.namespaced {
                format!("/{key}/namespaces/{{namespace}}/{}/{{name}}", info.plural)
            } else {
                format!("/{key}/{}/{{name}}", info.plural)
            };
            paths.insert(
                path,
                json!({"patch": {
                    "x-kubernetes-group-version-kind": {"group": info.group, "version": info.version, "kind": info.kind},
                    "parameters": [
                        {"name": "fieldValidation", "in": "query", "schema": {"type": "string"}},
                        {"name": "fieldManager", "in": "query", "schema": {"type": "string"}},
                        {"name": "dryRun", "in": "query", "schema": {"type": "string"}},
                        {"name": "force", "in": "query", "schema": {"type": "boolean"}}
                    ],
                    "responses": {"200": {"description": "OK"}}
                }}),
            );
        }
        if paths.is_empty() {
            return None;
        }
        Some(json!({
            "openapi": "3.0.0",
            "info": {"title": "Kubernetes", "version": "v1.35.0"},
            "paths": paths,
            "components": {"schemas": {}},
        }))
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        Some((group, version)) => (group, version),
        None => ("", api_version),
    }
}

/// Kubernetes version priority: GA > beta > alpha, higher numbers first.
fn compare_versions(left: &str, right: &str) -> std::cmp::Ordering {
    fn rank(version: &str) -> (u8, u64, u64) {
        let Some(rest) = version.strip_prefix('v') else {
            return (0, 0, 0);
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(major) = digits.parse::<u64>() else {
            return (0, 0, 0);
        };
        let suffix = &rest[digits.len()..];
        if suffix.is_empty() {
            return (3, major, 0);
        }
        let (level, tail) = if let Some(tail) = suffix.strip_prefix("beta") {
            (2, tail)
        } else if let Some(tail) = suffix.strip_prefix("alpha") {
            (1, tail)
        } else {
            return (0, 0, 0);
        };
        (level, major, tail.parse().unwrap_or(0))
    }
    rank(left).cmp(&rank(right))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_by_kubernetes_priority() {
        let mut versions = vec!["v1alpha1", "v2", "v1beta1", "v1", "v1beta2"];
        versions.sort_by(|left, right| compare_versions(right, left));
        assert_eq!(versions, vec!["v2", "v1", "v1beta2", "v1beta1", "v1alpha1"]);
    }
}
