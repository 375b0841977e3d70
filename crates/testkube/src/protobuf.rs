//! Decoding of Kubernetes protobuf request bodies for the few kinds kubectl's generator commands
//! send that way (`kubectl create namespace|configmap|secret`). Everything else answers 415 and
//! responses are always JSON, which clients accept whatever they sent.

use base64::Engine;
use serde_json::{Map, Value, json};

#[derive(Debug, thiserror::Error)]
pub enum ProtobufError {
    #[error("not a Kubernetes protobuf envelope (missing the k8s\\0 prefix)")]
    NoEnvelope,
    #[error("truncated protobuf message at byte {0}")]
    Truncated(usize),
    #[error("unsupported protobuf wire type {wire_type} for field {field}")]
    WireType { field: u64, wire_type: u64 },
    #[error("protobuf string field {0} is not UTF-8")]
    NotUtf8(&'static str),
    #[error(
        "protobuf bodies are accepted for Namespace, ConfigMap and Secret only, not {0:?}; send JSON"
    )]
    UnsupportedKind(String),
}

#[derive(Clone, Copy)]
enum Kind {
    Text,
    Integer,
    Boolean,
    TextList,
    TextMap,
    BytesMap,
    Message(&'static [Field]),
    MessageList(&'static [Field]),
}

struct Field {
    number: u64,
    name: &'static str,
    kind: Kind,
}

const fn field(number: u64, name: &'static str, kind: Kind) -> Field {
    Field { number, name, kind }
}

const OWNER_REFERENCE: &[Field] = &[
    field(1, "kind", Kind::Text),
    field(3, "name", Kind::Text),
    field(4, "uid", Kind::Text),
    field(5, "apiVersion", Kind::Text),
    field(6, "controller", Kind::Boolean),
    field(7, "blockOwnerDeletion", Kind::Boolean),
];

/// ObjectMeta without the server-owned timestamps and managed fields, which a create never needs.
const OBJECT_META: &[Field] = &[
    field(1, "name", Kind::Text),
    field(2, "generateName", Kind::Text),
    field(3, "namespace", Kind::Text),
    field(5, "uid", Kind::Text),
    field(6, "resourceVersion", Kind::Text),
    field(7, "generation", Kind::Integer),
    field(11, "labels", Kind::TextMap),
    field(12, "annotations", Kind::TextMap),
    field(13, "ownerReferences", Kind::MessageList(OWNER_REFERENCE)),
    field(14, "finalizers", Kind::TextList),
];

const NAMESPACE_SPEC: &[Field] = &[field(1, "finalizers", Kind::TextList)];

const NAMESPACE: &[Field] = &[
    field(1, "metadata", Kind::Message(OBJECT_META)),
    field(2, "spec", Kind::Message(NAMESPACE_SPEC)),
];

const CONFIG_MAP: &[Field] = &[
    field(1, "metadata", Kind::Message(OBJECT_META)),
    field(2, "data", Kind::TextMap),
    field(3, "binaryData", Kind::BytesMap),
    field(4, "immutable", Kind::Boolean),
];

const SECRET: &[Field] = &[
    field(1, "metadata", Kind::Message(OBJECT_META)),
    field(2, "data", Kind::BytesMap),
    field(3, "type", Kind::Text),
    field(4, "stringData", Kind::TextMap),
    field(5, "immutable", Kind::Boolean),
];

const TYPE_META: &[Field] = &[
    field(1, "apiVersion", Kind::Text),
    field(2, "kind", Kind::Text),
];

/// One decoded wire field: its number and either a varint or a byte slice.
enum Wire<'a> {
    Varint(u64),
    Slice(&'a [u8]),
}

struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, ProtobufError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self
                .bytes
                .get(self.position)
                .ok_or(ProtobufError::Truncated(self.position))?;
            self.position += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ProtobufError::Truncated(self.position))
    }

    fn take(&mut self, length: usize) -> Result<&'a [u8], ProtobufError> {
        let end = self
            .position
            .checked_add(length)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(ProtobufError::Truncated(self.position))?;
        let slice = &self.bytes[self.position..end];
        self.position = end;
        Ok(slice)
    }

    fn next_field(&mut self) -> Result<Option<(u64, Wire<'a>)>, ProtobufError> {
        if self.position >= self.bytes.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let (number, wire_type) = (key >> 3, key & 7);
        let wire = match wire_type {
            0 => Wire::Varint(self.varint()?),
            1 => Wire::Slice(self.take(8)?),
            2 => {
                let length = usize::try_from(self.varint()?)
                    .map_err(|_| ProtobufError::Truncated(self.position))?;
                Wire::Slice(self.take(length)?)
            }
            5 => Wire::Slice(self.take(4)?),
            other => {
                return Err(ProtobufError::WireType {
                    field: number,
                    wire_type: other,
                });
            }
        };
        Ok(Some((number, wire)))
    }
}

fn text(bytes: &[u8], name: &'static str) -> Result<String, ProtobufError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| ProtobufError::NotUtf8(name))
}

/// A map entry message: key is field 1, value field 2.
fn map_entry(
    bytes: &[u8],
    name: &'static str,
    value_as_bytes: bool,
) -> Result<(String, Value), ProtobufError> {
    let mut reader = Reader { bytes, position: 0 };
    let (mut key, mut value) = (String::new(), json!(""));
    while let Some((number, wire)) = reader.next_field()? {
        if let Wire::Slice(slice) = wire {
            match number {
                1 => key = text(slice, name)?,
                2 if value_as_bytes => {
                    value = json!(base64::engine::general_purpose::STANDARD.encode(slice))
                }
                2 => value = json!(text(slice, name)?),
                _ => {}
            }
        }
    }
    Ok((key, value))
}

fn decode_message(
    bytes: &[u8],
    schema: &'static [Field],
) -> Result<Map<String, Value>, ProtobufError> {
    let mut object = Map::new();
    let mut reader = Reader { bytes, position: 0 };
    while let Some((number, wire)) = reader.next_field()? {
        // Unknown fields are skipped, as protobuf readers do.
        let Some(field) = schema.iter().find(|field| field.number == number) else {
            continue;
        };
        let name = field.name;
        match (field.kind, wire) {
            (Kind::Integer, Wire::Varint(value)) => {
                object.insert(name.into(), json!(value as i64));
            }
            (Kind::Boolean, Wire::Varint(value)) => {
                object.insert(name.into(), json!(value != 0));
            }
            // Go encodes unset strings as empty ones; JSON clients omit them.
            (Kind::Text, Wire::Slice([])) => {}
            (Kind::Text, Wire::Slice(slice)) => {
                object.insert(name.into(), json!(text(slice, name)?));
            }
            (Kind::TextList, Wire::Slice(slice)) => {
                let list = object.entry(name).or_insert_with(|| json!([]));
                if let Some(items) = list.as_array_mut() {
                    items.push(json!(text(slice, name)?));
                }
            }
            (Kind::TextMap | Kind::BytesMap, Wire::Slice(slice)) => {
                let (key, value) = map_entry(slice, name, matches!(field.kind, Kind::BytesMap))?;
                let map = object.entry(name).or_insert_with(|| json!({}));
                if let Some(map) = map.as_object_mut() {
                    map.insert(key, value);
                }
            }
            (Kind::Message(inner), Wire::Slice(slice)) => {
                object.insert(name.into(), Value::Object(decode_message(slice, inner)?));
            }
            (Kind::MessageList(inner), Wire::Slice(slice)) => {
                let decoded = Value::Object(decode_message(slice, inner)?);
                let list = object.entry(name).or_insert_with(|| json!([]));
                if let Some(items) = list.as_array_mut() {
                    items.push(decoded);
                }
            }
            (_, Wire::Varint(_)) | (_, Wire::Slice(_)) => {
                return Err(ProtobufError::WireType {
                    field: number,
                    wire_type: 99,
                });
            }
        }
    }
    Ok(object)
}

/// Decodes a `k8s\0`-prefixed `runtime.Unknown` envelope into the JSON form of its object.
pub fn decode(bytes: &[u8]) -> Result<Value, ProtobufError> {
    let body = bytes
        .strip_prefix(b"k8s\0")
        .ok_or(ProtobufError::NoEnvelope)?;
    let mut reader = Reader {
        bytes: body,
        position: 0,
    };
    let mut type_meta = Map::new();
    let mut raw: &[u8] = &[];
    while let Some((number, wire)) = reader.next_field()? {
        match (number, wire) {
            (1, Wire::Slice(slice)) => type_meta = decode_message(slice, TYPE_META)?,
            (2, Wire::Slice(slice)) => raw = slice,
            _ => {}
        }
    }
    let api_version = type_meta
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let kind = type_meta
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let schema = match (api_version, kind) {
        ("v1", "Namespace") => NAMESPACE,
        ("v1", "ConfigMap") => CONFIG_MAP,
        ("v1", "Secret") => SECRET,
        _ => {
            return Err(ProtobufError::UnsupportedKind(format!(
                "{api_version}/{kind}"
            )));
        }
    };
    let mut object = Map::new();
    object.insert("apiVersion".into(), json!(api_version));
    object.insert("kind".into(), json!(kind));
    object.extend(decode_message(raw, schema)?);
    Ok(Value::Object(object))
}
