//! Hand-written schema fragments for fields schemars cannot describe from their Rust type.

use schemars::{Schema, SchemaGenerator, json_schema};

/// An object whose content is kept verbatim by the API server.
pub fn preserved_object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": true
    })
}

/// For a list of `Container`s: `protocol` of each port defaults to `TCP`, as upstream's CRDs
/// declare (controller-gen copies the `+default` of core/v1; k8s-openapi's schema leaves it out).
///
/// # Panics
///
/// When an inlined Container schema has no `ports[].protocol`: a k8s-openapi upgrade changed
/// the shape, and the default would silently go missing. (A `$ref` to Container, as the CRD
/// reference generates, is left alone: there Container is Kubernetes' type, linked.)
pub fn container_port_protocol_default(schema: &mut Schema) {
    if schema.pointer("/items/$ref").is_some() {
        return;
    }
    let protocol = schema
        .pointer_mut("/items/properties/ports/items/properties/protocol")
        .and_then(serde_json::Value::as_object_mut)
        .expect("a Container list schema with ports[].protocol");
    protocol.insert("default".to_owned(), "TCP".into());
}

/// prometheus-operator's `Duration` pattern: what its CRDs let through for intervals and
/// timeouts (Prometheus' own parser is stricter about unit order; render checks that).
pub const DURATION_PATTERN: &str =
    "^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$";

/// The most metrics shards (StatefulSets) one GrafanaAgent may ask for
/// (`spec.metrics.shards`, a CRD `maximum`): enough for any scrape load one cluster has,
/// small enough that planning them stays quick.
pub const MAX_METRICS_SHARDS: i32 = 1000;

/// The most pods per metrics shard (`spec.metrics.replicas`, a CRD `maximum`); replicas are
/// high-availability copies, so this is far above any real use.
pub const MAX_METRICS_REPLICAS: i32 = 1000;

/// A Prometheus label name, as prometheus-operator's CRDs require of `sourceLabels`.
pub const LABEL_NAME_PATTERN: &str = "^[a-zA-Z_][a-zA-Z0-9_]*$";

/// The relabel actions prometheus-operator's CRDs accept, in their two spellings.
pub const RELABEL_ACTIONS: [&str; 22] = [
    "replace",
    "Replace",
    "keep",
    "Keep",
    "drop",
    "Drop",
    "hashmod",
    "HashMod",
    "labelmap",
    "LabelMap",
    "labeldrop",
    "LabelDrop",
    "labelkeep",
    "LabelKeep",
    "lowercase",
    "Lowercase",
    "uppercase",
    "Uppercase",
    "keepequal",
    "KeepEqual",
    "dropequal",
    "DropEqual",
];
