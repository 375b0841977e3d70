//! Our kinds read from the API server as `render` reads them from files: each object's JSON
//! goes through render's schema check ([`render::manifest::unknown_fields`], the walk the
//! manifest loader runs) before it is deserialized, and the paths of the fields the schema of
//! our CRD lacks come out beside the object.
//!
//! Why: a cluster may serve a newer CRD than ours (prometheus-operator's ServiceMonitor of
//! v0.9x, kept by users who run prometheus-operator too). The API server keeps the fields that
//! CRD has and ours does not, and deserializing into our types drops them silently: a monitor
//! would be scraped other than its author meant while its status said it was fine. The check
//! runs when an object arrives (a watch event, a list), never at a reconcile; kinds without a
//! schema of ours (Secrets, workloads, pods) are deserialized directly, as before.
//!
//! Why a walk over `serde_json::Value` and not `serde_ignored` on the typed deserialization:
//! one source of truth. `render`, `explain -f` and the operator must name the same fields, and
//! `render` checks manifests against our CRD's schema (defaults and zero values included); the
//! operator now runs that very function on the very JSON the API server sent. The cost is one
//! intermediate `Value` per object that arrives (measured in the commit that added this).

use std::borrow::Cow;

use kube::Resource;
use kube::core::ObjectMeta;
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};

/// An object of kind `K` and the fields of it that the schema of our CRD does not have.
#[derive(Clone, Debug)]
pub(crate) struct Checked<K> {
    pub object: K,
    /// The paths of the fields our schema lacks, in the object's order
    /// (`spec.endpoints[0].futureEndpointField`); empty for a kind without a schema of ours.
    pub unknown: Vec<String>,
}

impl<K: Resource<DynamicType = ()>> Resource for Checked<K> {
    type DynamicType = ();
    type Scope = K::Scope;

    fn kind(dt: &()) -> Cow<'_, str> {
        K::kind(dt)
    }
    fn group(dt: &()) -> Cow<'_, str> {
        K::group(dt)
    }
    fn version(dt: &()) -> Cow<'_, str> {
        K::version(dt)
    }
    fn api_version(dt: &()) -> Cow<'_, str> {
        K::api_version(dt)
    }
    fn plural(dt: &()) -> Cow<'_, str> {
        K::plural(dt)
    }
    // A metadata-only kind (`PartialObjectMeta`) stays one: its requests ask for metadata.
    fn metadata_api() -> bool {
        K::metadata_api()
    }
    fn url_path(dt: &(), namespace: Option<&str>) -> String {
        K::url_path(dt, namespace)
    }
    fn meta(&self) -> &ObjectMeta {
        self.object.meta()
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        self.object.meta_mut()
    }
}

impl<'de, K> Deserialize<'de> for Checked<K>
where
    K: Resource<DynamicType = ()> + DeserializeOwned,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let kind = K::kind(&());
        if !render::manifest::has_schema(&kind) {
            return K::deserialize(deserializer).map(|object| Checked {
                object,
                unknown: Vec::new(),
            });
        }
        let mut value = serde_json::Value::deserialize(deserializer)?;
        // `None`: an apiVersion our CRD does not serve, which our typed request cannot
        // return; then there is nothing to compare with.
        let unknown = render::manifest::unknown_fields(&kind, &mut value).unwrap_or_default();
        let object = K::deserialize(value).map_err(D::Error::custom)?;
        Ok(Checked { object, unknown })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::Secret;
    use kube::core::PartialObjectMeta;
    use serde_json::json;

    fn monitor(spec: serde_json::Value) -> serde_json::Value {
        json!({
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "ServiceMonitor",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7"},
            "spec": spec,
        })
    }

    /// The fields a newer CRD keeps are named with render's paths, and the object is read
    /// without them, as render reads it.
    #[test]
    fn unknown_fields_come_out_beside_the_object() {
        let text = monitor(json!({
            "selector": {},
            "futureField": true,
            "endpoints": [
                {"port": "web"},
                {"port": "metrics", "futureEndpointField": {"a": 1}, "interval": "30s"},
            ],
        }))
        .to_string();
        let checked: Checked<api::ServiceMonitor> = serde_json::from_str(&text).expect("reads");
        assert_eq!(
            checked.unknown,
            ["spec.futureField", "spec.endpoints[1].futureEndpointField"]
        );
        // Read back as JSON: what our types hold, whatever their Rust layout.
        let read = serde_json::to_value(&checked.object).expect("serializes");
        let endpoints = read["spec"]["endpoints"].as_array().expect("endpoints");
        assert_eq!(endpoints.len(), 2);
        assert_eq!(endpoints[1]["interval"], "30s");
        assert!(read["spec"].get("futureField").is_none());
        assert!(endpoints[1].get("futureEndpointField").is_none());
        assert_eq!(
            checked.object.metadata.resource_version.as_deref(),
            Some("7")
        );
    }

    /// What render reports for the same object, from the same walk.
    #[test]
    fn the_operator_and_render_name_the_same_fields() {
        let spec = json!({"selector": {}, "futureField": 1, "endpoints": [{"port": "web", "futureEndpointField": 2}]});
        let text = monitor(spec).to_string();
        let checked: Checked<api::ServiceMonitor> = serde_json::from_str(&text).expect("reads");
        let mut loader = render::manifest::Loader::new();
        loader.add_source("in.json", &text);
        let loaded = loader.finish();
        let rendered: Vec<String> = loaded
            .diagnostics
            .iter()
            .filter_map(|d| d.field.clone())
            .collect();
        assert_eq!(checked.unknown, rendered);
    }

    #[test]
    fn a_monitor_our_schema_covers_has_no_unknown_fields() {
        let text = monitor(json!({"selector": {}, "endpoints": [{"port": "web"}]})).to_string();
        let checked: Checked<api::ServiceMonitor> = serde_json::from_str(&text).expect("reads");
        assert!(checked.unknown.is_empty(), "{:?}", checked.unknown);
    }

    /// Kinds without a schema of ours are read directly, and a metadata-only kind keeps asking
    /// for metadata only.
    #[test]
    fn other_kinds_are_read_as_before() {
        let text = json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "s", "namespace": "ns"},
            "anything": {"at": "all"},
        })
        .to_string();
        let checked: Checked<Secret> = serde_json::from_str(&text).expect("reads");
        assert!(checked.unknown.is_empty());
        assert!(Checked::<PartialObjectMeta<Secret>>::metadata_api());
        assert!(!Checked::<Secret>::metadata_api());
        assert_eq!(
            Checked::<api::ServiceMonitor>::url_path(&(), Some("shop")),
            api::ServiceMonitor::url_path(&(), Some("shop"))
        );
    }
}
