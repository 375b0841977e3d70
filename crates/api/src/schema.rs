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
