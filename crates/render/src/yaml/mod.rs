//! A YAML emitter for JSON-shaped data whose output means the same to YAML 1.1 readers (the
//! agent's Go yaml.v2, kubectl) and YAML 1.2 readers: any string that either version could read
//! as something other than a string is quoted (`yes`, `on`, `0755`, `1e3`, `1:20`, `~`, ...).
//!
//! Keys keep the order they have in the value: typed structs give a fixed order, and verbatim
//! user payloads keep the user's order.
//!
//! Three parts: `serializer` writes straight from a `Serialize` value, `emit` writes a
//! `serde_json::Value` and holds the scalar and key rules both share, and `reader` reads
//! back the block-style subset manifests use, faster than the full parser.

mod emit;
mod parse_error;
mod reader;
mod serializer;

pub use emit::{IMPLICIT_KEY_LIMIT, write_document, write_sequence_item, write_string};
pub use parse_error::describe as describe_parse_error;
pub use reader::read_simple_document;
pub use serializer::{
    Escape, UNESCAPED, to_string, to_string_escaped, write_sequence_item_escaped,
    write_sequence_item_of,
};

/// Why a value could not be turned into YAML.
#[derive(Debug, thiserror::Error)]
#[error("cannot serialize as YAML: {0}")]
pub struct YamlError(#[from] serde_json::Error);

#[cfg(test)]
mod tests;
