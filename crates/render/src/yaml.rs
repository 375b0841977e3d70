//! A YAML emitter for JSON-shaped data whose output means the same to YAML 1.1 readers (the
//! agent's Go yaml.v2, kubectl) and YAML 1.2 readers: any string that either version could read
//! as something other than a string is quoted (`yes`, `on`, `0755`, `1e3`, `1:20`, `~`, ...).
//!
//! Keys keep the order they have in the value: typed structs give a fixed order, and verbatim
//! user payloads keep the user's order.

use serde::Serialize;
use serde_json::Value;

/// Why a value could not be turned into YAML.
#[derive(Debug, thiserror::Error)]
#[error("cannot serialize as YAML: {0}")]
pub struct YamlError(#[from] serde_json::Error);

/// One YAML document (no `---` marker), ending with a newline.
///
/// Written straight from `value`'s `Serialize` implementation, without building a
/// `serde_json::Value` first: a 10k-ServiceMonitor agent.yml is ~50 MB of text, and the tree
/// would cost several times that in memory and allocations. The output is byte for byte
/// what [`write_document`] gives for `serde_json::to_value(value)`; in the one case where
/// they could differ (a map with a repeated key, which only `#[serde(flatten)]` can make,
/// and which the tree would merge) it takes the tree's path.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, YamlError> {
    let mut out = String::with_capacity(256);
    match value.serialize(&mut Streamer::new(&mut out, Context::Document)) {
        Ok(()) => Ok(out),
        Err(StreamError::DuplicateKey) => {
            let value = serde_json::to_value(value)?;
            out.clear();
            write_document(&mut out, &value);
            Ok(out)
        }
        Err(StreamError::Json(e)) => Err(YamlError(e)),
    }
}

/// [`write_sequence_item`] for any `Serialize` value, written directly.
pub fn write_sequence_item_of<T: Serialize + ?Sized>(
    out: &mut String,
    value: &T,
    level: usize,
) -> Result<(), YamlError> {
    let mark = out.len();
    indent(out, level);
    out.push('-');
    match value.serialize(&mut Streamer::new(out, Context::SeqItem(level))) {
        Ok(()) => Ok(()),
        Err(StreamError::DuplicateKey) => {
            out.truncate(mark);
            write_sequence_item(out, &serde_json::to_value(value)?, level);
            Ok(())
        }
        Err(StreamError::Json(e)) => Err(YamlError(e)),
    }
}

/// Where the next node goes, which decides how it starts (see [`write_nested`] and
/// [`write_seq`], whose layout this reproduces).
#[derive(Clone, Copy, Debug)]
enum Context {
    /// A whole document.
    Document,
    /// The value of a `key:` written at this column.
    MapValue(usize),
    /// A sequence item whose `-` is written, at this column.
    SeqItem(usize),
}

#[derive(Debug)]
enum StreamError {
    /// A map repeated a key: let the `Value` path merge it as `serde_json` does.
    DuplicateKey,
    Json(serde_json::Error),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::DuplicateKey => f.write_str("duplicate map key"),
            StreamError::Json(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StreamError {}

impl serde::ser::Error for StreamError {
    fn custom<M: std::fmt::Display>(msg: M) -> Self {
        StreamError::Json(<serde_json::Error as serde::ser::Error>::custom(msg))
    }
}

impl From<serde_json::Error> for StreamError {
    fn from(e: serde_json::Error) -> Self {
        StreamError::Json(e)
    }
}

struct Streamer<'o> {
    out: &'o mut String,
    context: Context,
}

impl<'o> Streamer<'o> {
    fn new(out: &'o mut String, context: Context) -> Self {
        Streamer { out, context }
    }

    /// A scalar, as [`write_inline`] writes it, in the current context.
    fn scalar(&mut self, write: impl FnOnce(&mut String)) -> Result<(), StreamError> {
        if !matches!(self.context, Context::Document) {
            self.out.push(' ');
        }
        write(self.out);
        self.out.push('\n');
        Ok(())
    }

    /// A number or other value whose text is exactly what the `Value` path gives for it.
    fn via_value(&mut self, value: Value) -> Result<(), StreamError> {
        self.scalar(|out| write_inline(out, &value))
    }

    fn collection(&mut self, is_map: bool) -> Collection<'_, 'o> {
        Collection {
            context: self.context,
            streamer: self,
            count: 0,
            level: 0,
            keys: None,
            is_map,
        }
    }
}

/// A sequence or mapping being written.
struct Collection<'s, 'o> {
    streamer: &'s mut Streamer<'o>,
    context: Context,
    count: usize,
    /// The column of the items' dashes or of the keys, known at the first item.
    level: usize,
    /// Keys seen so far, for maps that could repeat one (`serialize_map`).
    keys: Option<std::collections::HashSet<String>>,
    is_map: bool,
}

impl Collection<'_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), StreamError> {
        let out = &mut *self.streamer.out;
        if self.count == 0 {
            self.level = match self.context {
                Context::Document => 0,
                Context::MapValue(l) => {
                    out.push('\n');
                    l
                }
                Context::SeqItem(l) => {
                    out.push('\n');
                    l + 2
                }
            };
        }
        indent(out, self.level);
        out.push('-');
        self.count += 1;
        self.streamer.context = Context::SeqItem(self.level);
        value.serialize(&mut *self.streamer)
    }

    fn key_text(&mut self, key: &str) -> Result<(), StreamError> {
        if let Some(keys) = &mut self.keys
            && !keys.insert(key.to_owned())
        {
            return Err(StreamError::DuplicateKey);
        }
        let out = &mut *self.streamer.out;
        let first_on_dash_line = self.count == 0 && matches!(self.context, Context::SeqItem(_));
        if self.count == 0 {
            self.level = match self.context {
                Context::Document => 0,
                Context::MapValue(l) => {
                    out.push('\n');
                    l + 2
                }
                Context::SeqItem(l) => {
                    out.push(' ');
                    l + 2
                }
            };
        }
        if !first_on_dash_line {
            indent(out, self.level);
        }
        write_key(out, key, self.level);
        self.count += 1;
        self.streamer.context = Context::MapValue(self.level);
        Ok(())
    }

    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), StreamError> {
        let text = key.serialize(KeyText)?;
        self.key_text(&text)
    }

    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), StreamError> {
        value.serialize(&mut *self.streamer)
    }

    fn finish(self) -> Result<(), StreamError> {
        if self.count == 0 {
            let empty = if self.is_map { "{}" } else { "[]" };
            self.streamer.scalar(|out| out.push_str(empty))?;
        }
        Ok(())
    }
}

/// A map with one key, `variant`, whose value is the collection returned (externally
/// tagged enum variants, as serde_json writes them).
struct Tagged<'s, 'o> {
    inner: Collection<'s, 'o>,
}

impl<'s, 'o> Streamer<'o> {
    fn tagged(&'s mut self, variant: &str, is_map: bool) -> Result<Tagged<'s, 'o>, StreamError> {
        let mut outer = self.collection(true);
        outer.key_text(variant)?;
        let streamer = outer.streamer;
        Ok(Tagged {
            inner: streamer.collection(is_map),
        })
    }
}

impl<'s, 'o> serde::Serializer for &'s mut Streamer<'o> {
    type Ok = ();
    type Error = StreamError;
    type SerializeSeq = Collection<'s, 'o>;
    type SerializeTuple = Collection<'s, 'o>;
    type SerializeTupleStruct = Collection<'s, 'o>;
    type SerializeTupleVariant = Tagged<'s, 'o>;
    type SerializeMap = Collection<'s, 'o>;
    type SerializeStruct = Collection<'s, 'o>;
    type SerializeStructVariant = Tagged<'s, 'o>;

    fn serialize_bool(self, v: bool) -> Result<(), StreamError> {
        self.scalar(|out| out.push_str(if v { "true" } else { "false" }))
    }
    fn serialize_i8(self, v: i8) -> Result<(), StreamError> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), StreamError> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), StreamError> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), StreamError> {
        self.scalar(|out| out.push_str(&v.to_string()))
    }
    fn serialize_i128(self, v: i128) -> Result<(), StreamError> {
        self.via_value(serde_json::to_value(v)?)
    }
    fn serialize_u8(self, v: u8) -> Result<(), StreamError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), StreamError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), StreamError> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), StreamError> {
        self.scalar(|out| out.push_str(&v.to_string()))
    }
    fn serialize_u128(self, v: u128) -> Result<(), StreamError> {
        self.via_value(serde_json::to_value(v)?)
    }
    fn serialize_f32(self, v: f32) -> Result<(), StreamError> {
        self.via_value(serde_json::to_value(v)?)
    }
    fn serialize_f64(self, v: f64) -> Result<(), StreamError> {
        self.via_value(serde_json::to_value(v)?)
    }
    fn serialize_char(self, v: char) -> Result<(), StreamError> {
        self.scalar(|out| write_string(out, v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<(), StreamError> {
        self.scalar(|out| write_string(out, v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), StreamError> {
        use serde::ser::SerializeSeq;
        let mut seq = self.collection(false);
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), StreamError> {
        self.scalar(|out| out.push_str("null"))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), StreamError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), StreamError> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), StreamError> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), StreamError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), StreamError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), StreamError> {
        let mut map = self.collection(true);
        map.key_text(variant)?;
        map.value(value)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Collection<'s, 'o>, StreamError> {
        Ok(self.collection(false))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Collection<'s, 'o>, StreamError> {
        Ok(self.collection(false))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Collection<'s, 'o>, StreamError> {
        Ok(self.collection(false))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Tagged<'s, 'o>, StreamError> {
        self.tagged(variant, false)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Collection<'s, 'o>, StreamError> {
        let mut map = self.collection(true);
        map.keys = Some(std::collections::HashSet::new());
        Ok(map)
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Collection<'s, 'o>, StreamError> {
        Ok(self.collection(true))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Tagged<'s, 'o>, StreamError> {
        self.tagged(variant, true)
    }
}

impl serde::ser::SerializeSeq for Collection<'_, '_> {
    type Ok = ();
    type Error = StreamError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), StreamError> {
        self.element(value)
    }
    fn end(self) -> Result<(), StreamError> {
        self.finish()
    }
}

impl serde::ser::SerializeTuple for Collection<'_, '_> {
    type Ok = ();
    type Error = StreamError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), StreamError> {
        self.element(value)
    }
    fn end(self) -> Result<(), StreamError> {
        self.finish()
    }
}

impl serde::ser::SerializeTupleStruct for Collection<'_, '_> {
    type Ok = ();
    type Error = StreamError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), StreamError> {
        self.element(value)
    }
    fn end(self) -> Result<(), StreamError> {
        self.finish()
    }
}

impl serde::ser::SerializeMap for Collection<'_, '_> {
    type Ok = ();
    type Error = StreamError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), StreamError> {
        self.key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), StreamError> {
        self.value(value)
    }
    fn end(self) -> Result<(), StreamError> {
        self.finish()
    }
}

impl serde::ser::SerializeStruct for Collection<'_, '_> {
    type Ok = ();
    type Error = StreamError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), StreamError> {
        self.key_text(key)?;
        self.value(value)
    }
    fn end(self) -> Result<(), StreamError> {
        self.finish()
    }
}

impl serde::ser::SerializeTupleVariant for Tagged<'_, '_> {
    type Ok = ();
    type Error = StreamError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), StreamError> {
        self.inner.element(value)
    }
    fn end(self) -> Result<(), StreamError> {
        self.inner.finish()
    }
}

impl serde::ser::SerializeStructVariant for Tagged<'_, '_> {
    type Ok = ();
    type Error = StreamError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), StreamError> {
        self.inner.key_text(key)?;
        self.inner.value(value)
    }
    fn end(self) -> Result<(), StreamError> {
        self.inner.finish()
    }
}

/// A map key as text, as `serde_json` accepts keys: strings, and integers, booleans, chars
/// and unit variants written as strings.
struct KeyText;

fn key_must_be_a_string() -> StreamError {
    <StreamError as serde::ser::Error>::custom("key must be a string")
}

impl serde::Serializer for KeyText {
    type Ok = String;
    type Error = StreamError;
    type SerializeSeq = serde::ser::Impossible<String, StreamError>;
    type SerializeTuple = serde::ser::Impossible<String, StreamError>;
    type SerializeTupleStruct = serde::ser::Impossible<String, StreamError>;
    type SerializeTupleVariant = serde::ser::Impossible<String, StreamError>;
    type SerializeMap = serde::ser::Impossible<String, StreamError>;
    type SerializeStruct = serde::ser::Impossible<String, StreamError>;
    type SerializeStructVariant = serde::ser::Impossible<String, StreamError>;

    fn serialize_bool(self, v: bool) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_i8(self, v: i8) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_i16(self, v: i16) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_i32(self, v: i32) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_i64(self, v: i64) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_u16(self, v: u16) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_u32(self, v: u32) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_u64(self, v: u64) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_f32(self, _v: f32) -> Result<String, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_f64(self, _v: f64) -> Result<String, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_char(self, v: char) -> Result<String, StreamError> {
        Ok(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<String, StreamError> {
        Ok(v.to_owned())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<String, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<String, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<String, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<String, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<String, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, StreamError> {
        Ok(variant.to_owned())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<String, StreamError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<String, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, StreamError> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, StreamError> {
        Err(key_must_be_a_string())
    }
}

/// Appends `value` as one YAML document to `out`.
pub fn write_document(out: &mut String, value: &Value) {
    match value {
        Value::Object(m) if !m.is_empty() => write_map(out, m, 0),
        Value::Array(a) if !a.is_empty() => write_seq(out, a, 0),
        scalar => {
            write_inline(out, scalar);
            out.push('\n');
        }
    }
}

/// Appends `value` as one item of a block sequence whose dashes are at column `level`,
/// exactly as it would be written inside a whole document.
pub fn write_sequence_item(out: &mut String, value: &Value, level: usize) {
    write_seq(out, std::slice::from_ref(value), level);
}

fn indent(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = n;
    while left > 0 {
        let step = left.min(SPACES.len());
        out.push_str(&SPACES[..step]);
        left -= step;
    }
}

fn write_map(out: &mut String, map: &serde_json::Map<String, Value>, level: usize) {
    for (k, v) in map {
        indent(out, level);
        write_key(out, k, level);
        write_nested(out, v, level);
    }
}

fn write_seq(out: &mut String, seq: &[Value], level: usize) {
    for item in seq {
        indent(out, level);
        out.push('-');
        match item {
            Value::Object(m) if !m.is_empty() => {
                // The first key goes on the dash line; the rest align under it.
                out.push(' ');
                let mut first = true;
                for (k, v) in m {
                    if !first {
                        indent(out, level + 2);
                    }
                    first = false;
                    write_key(out, k, level + 2);
                    write_nested(out, v, level + 2);
                }
            }
            Value::Array(a) if !a.is_empty() => {
                out.push('\n');
                write_seq(out, a, level + 2);
            }
            scalar => {
                out.push(' ');
                write_inline(out, scalar);
                out.push('\n');
            }
        }
    }
}

/// Writes the value of a map entry whose `key:` is already written.
fn write_nested(out: &mut String, v: &Value, level: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, level + 2);
        }
        // Sequences in maps are not indented further, as kubectl writes them.
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, a, level);
        }
        scalar => {
            out.push(' ');
            write_inline(out, scalar);
            out.push('\n');
        }
    }
}

fn write_inline(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
    }
}

fn write_number(out: &mut String, n: &serde_json::Number) {
    if n.is_f64() {
        let f = n.as_f64().unwrap_or_default();
        if f.is_nan() {
            out.push_str(".nan");
        } else if f.is_infinite() {
            out.push_str(if f > 0.0 { ".inf" } else { "-.inf" });
        } else {
            let text = format!("{f:?}");
            out.push_str(&text);
        }
    } else {
        out.push_str(&n.to_string());
    }
}

/// The longest key, as written (quotes and escapes included, in bytes), that is written as
/// an implicit `key:`. YAML limits implicit keys to 1024 characters and its readers refuse
/// longer ones (yaml.v2: "could not find expected ':'"); they count characters, with or
/// without the quotes, so a byte count with some margin is safe for all of them.
pub const IMPLICIT_KEY_LIMIT: usize = 1000;

/// Writes mapping key `key`, whose first character goes at column `level` (the cursor is
/// there), and its `:`. A key too long to be implicit is written as an explicit one,
/// `? key` with the `:` on the next line at the same column: the value that follows is then
/// laid out exactly as after an implicit key.
fn write_key(out: &mut String, key: &str, level: usize) {
    let start = out.len();
    if key.len() <= IMPLICIT_KEY_LIMIT {
        write_string(out, key);
        // Escapes can make the written key longer than the key itself.
        if out.len() - start <= IMPLICIT_KEY_LIMIT {
            out.push(':');
            return;
        }
        out.truncate(start);
    }
    out.push_str("? ");
    write_string(out, key);
    out.push('\n');
    indent(out, level);
    out.push(':');
}

/// Writes `s` plain when no YAML 1.1 or 1.2 reader can take it for anything but this string,
/// single-quoted when it is printable, double-quoted with escapes otherwise.
pub fn write_string(out: &mut String, s: &str) {
    if is_plain_safe(s) {
        out.push_str(s);
    } else if s.chars().all(|c| !c.is_control() && is_yaml_printable(c)) {
        out.push('\'');
        out.push_str(&s.replace('\'', "''"));
        out.push('\'');
    } else {
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() || !is_yaml_printable(c) => {
                    out.push_str(&format!("\\u{:04x}", c as u32))
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
}

/// Words YAML 1.1 reads as booleans or null, in any case.
const RESERVED_WORDS: &[&str] = &[
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~",
];

fn is_plain_safe(s: &str) -> bool {
    let bytes = s.as_bytes();
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    if first == b' ' || last == b' ' || last == b':' {
        return false;
    }
    if b"-?:,[]{}#&*!|>'\"%@`=<.+~".contains(&first) && !(first == b'-' && is_plain_dash_word(s)) {
        return false;
    }
    if first.is_ascii_digit() {
        // Numbers, octals, sexagesimals, timestamps, versions: quote them all.
        return false;
    }
    // The longest reserved word has five letters.
    if bytes.len() <= 5 && RESERVED_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)) {
        return false;
    }
    // One pass for `: `, ` #`, tabs and ASCII control characters; another over the
    // characters only when there are non-ASCII ones (C1 controls, the byte order mark).
    let mut previous = 0u8;
    let mut ascii = true;
    for &b in bytes {
        if b < 0x20
            || b == 0x7f
            || (previous == b':' && b == b' ')
            || (previous == b' ' && b == b'#')
        {
            return false;
        }
        ascii &= b < 0x80;
        previous = b;
    }
    ascii
        || !s
            .chars()
            .any(|c| c.is_control() || !is_yaml_printable(c) || c == '\u{feff}')
}

/// `-foo` (an agent flag) is a plain string; `-`, `- x`, `-1`, `-.5` and `-.inf` are not.
fn is_plain_dash_word(s: &str) -> bool {
    let rest = &s[1..];
    rest.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '-')
}

/// Reads `text` (one YAML document) when it keeps to the block-style subset that generated
/// and hand-written Kubernetes manifests almost always use; `None` for anything else, which
/// the caller then hands to the full parser.
///
/// The full parser reads a few MB/s, and `render` of 10k ServiceMonitors reads about 12 MB;
/// this subset reader is an order of magnitude faster. It only accepts what it can read
/// exactly as the full parser does: block mappings and sequences indented with spaces, plain
/// scalars that are unambiguously strings, decimal integers, `true`, `false` and `null`,
/// one-line quoted scalars, `{}`, `[]` and one-line flow sequences of such scalars. Anchors,
/// tags, block scalars, multi-line scalars, comments after values, duplicate keys, and
/// every scalar another YAML reader could type differently (`yes`, `1.0`, `0x1F`, `2001-12-14`,
/// `1:20`, ...) give `None`, so the full parser decides, and reports errors.
pub fn read_simple_document(text: &str) -> Option<Value> {
    let mut lines = Vec::new();
    for raw in text.lines() {
        let content = raw.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        // Tabs, and line breaks other than \n, are read differently by different YAML
        // versions: leave them to the full parser.
        if raw.contains(['\t', '\r', '\u{85}', '\u{2028}', '\u{2029}', '\u{feff}']) {
            return None;
        }
        lines.push(Line {
            indent: raw.len() - content.len(),
            text: content.trim_end_matches(' '),
        });
    }
    let first = lines.first()?.indent;
    let mut reader = SimpleReader { lines, pos: 0 };
    let value = reader.node(first)?;
    (reader.pos == reader.lines.len()).then_some(value)
}

#[derive(Clone, Copy)]
struct Line<'a> {
    indent: usize,
    /// The line without its indentation and trailing spaces; never empty.
    text: &'a str,
}

struct SimpleReader<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
}

fn is_sequence_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

impl<'a> SimpleReader<'a> {
    fn peek(&self) -> Option<Line<'a>> {
        self.lines.get(self.pos).copied()
    }

    /// The block node whose first line is the current one, at `indent`.
    fn node(&mut self, indent: usize) -> Option<Value> {
        let line = self.peek()?;
        if line.indent != indent {
            return None;
        }
        if is_sequence_item(line.text) {
            self.sequence(indent)
        } else {
            self.mapping(indent)
        }
    }

    /// The value of a `key:` with nothing after the colon: a deeper block, a sequence at the
    /// key's own indentation (as kubectl writes them), or null.
    fn nested_value(&mut self, key_indent: usize) -> Option<Value> {
        match self.peek() {
            Some(next) if next.indent > key_indent => self.node(next.indent),
            Some(next) if next.indent == key_indent && is_sequence_item(next.text) => {
                self.sequence(key_indent)
            }
            _ => Some(Value::Null),
        }
    }

    fn mapping(&mut self, indent: usize) -> Option<Value> {
        let mut map = serde_json::Map::new();
        while let Some(line) = self.peek() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent || is_sequence_item(line.text) {
                return None;
            }
            let (key, rest) = split_mapping_entry(line.text)?;
            if map.contains_key(&key) {
                return None;
            }
            self.pos += 1;
            let value = if rest.is_empty() {
                self.nested_value(indent)?
            } else {
                inline_value(rest)?
            };
            map.insert(key, value);
        }
        Some(Value::Object(map))
    }

    fn sequence(&mut self, indent: usize) -> Option<Value> {
        let mut items = Vec::new();
        while let Some(line) = self.peek() {
            // A line at the sequence's indentation that is no item ends a sequence written
            // at its key's indentation; the mapping holding the key reads it.
            if line.indent < indent || (line.indent == indent && !is_sequence_item(line.text)) {
                break;
            }
            if line.indent > indent {
                return None;
            }
            if line.text == "-" {
                self.pos += 1;
                items.push(match self.peek() {
                    Some(next) if next.indent > indent => self.node(next.indent)?,
                    _ => Value::Null,
                });
                continue;
            }
            let rest = line.text[2..].trim_start_matches(' ');
            let column = indent + (line.text.len() - rest.len());
            if is_sequence_item(rest) || rest.starts_with('#') {
                return None;
            }
            if split_mapping_entry(rest).is_some() {
                // `- key: value`: a mapping whose first entry shares the dash's line.
                self.lines[self.pos] = Line {
                    indent: column,
                    text: rest,
                };
                items.push(self.mapping(column)?);
            } else {
                self.pos += 1;
                items.push(inline_value(rest)?);
            }
        }
        Some(Value::Array(items))
    }
}

/// `key: rest` or `key:` (rest empty), with the key read as a string. A key longer than an
/// emitted implicit key can be is left to the full parser, which refuses those above YAML's
/// 1024-character limit.
fn split_mapping_entry(text: &str) -> Option<(String, &str)> {
    let (key, rest) = if let Some(quote @ ('\'' | '"')) = text.chars().next() {
        let end = closing_quote(text, quote)?;
        let rest = &text[end + 1..];
        let rest = if rest == ":" {
            ""
        } else {
            rest.strip_prefix(": ")?
        };
        if end + 1 > IMPLICIT_KEY_LIMIT {
            return None;
        }
        (quoted(&text[..=end])?, rest)
    } else {
        let (key, rest) = match text.find(": ") {
            Some(i) => (&text[..i], &text[i + 2..]),
            None => (text.strip_suffix(':')?, ""),
        };
        if key.len() > IMPLICIT_KEY_LIMIT {
            return None;
        }
        match plain_scalar(key.trim_end_matches(' '))? {
            Value::String(s) => (s, rest),
            _ => return None,
        }
    };
    Some((key, rest.trim_start_matches(' ')))
}

/// The byte index of the quote closing the scalar that starts `text`.
fn closing_quote(text: &str, quote: char) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == '"' => i += 2,
            b'\'' if quote == '\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote as u8 => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// A value written on the same line as its key or dash.
fn inline_value(text: &str) -> Option<Value> {
    match text.as_bytes()[0] {
        b'\'' | b'"' => quoted(text).map(Value::String),
        b'{' => (text == "{}").then(|| Value::Object(serde_json::Map::new())),
        b'[' => flow_sequence(text),
        _ => plain_scalar(text),
    }
}

/// `[a, 'b', 3]` on one line, items being scalars.
fn flow_sequence(text: &str) -> Option<Value> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?.trim_matches(' ');
    if inner.is_empty() {
        return Some(Value::Array(Vec::new()));
    }
    if inner.contains(['[', ']', '{', '}', '\'', '"', '#']) {
        return None;
    }
    inner
        .split(',')
        .map(|item| {
            let item = item.trim_matches(' ');
            if item.is_empty() || item.contains(':') {
                return None;
            }
            plain_scalar(item)
        })
        .collect::<Option<Vec<_>>>()
        .map(Value::Array)
}

/// A whole one-line quoted scalar (`text` is exactly the quoted token).
fn quoted(text: &str) -> Option<String> {
    let quote = text.chars().next()?;
    if text.len() < 2 || closing_quote(text, quote)? != text.len() - 1 {
        return None;
    }
    let inner = &text[1..text.len() - 1];
    // Characters YAML does not allow unescaped anywhere (DEL, C0 and C1 controls,
    // U+FFFE/U+FFFF): the full parser refuses them, so the fast reader must not accept them
    // (fuzz finding: `"\u{7f}"` read as a string).
    if inner.chars().any(|c| !is_yaml_printable(c)) {
        return None;
    }
    if quote == '\'' {
        return Some(inner.replace("''", "'"));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            '"' => '"',
            '/' => '/',
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

/// Whether YAML allows `c` unescaped in a document (its `c-printable` set).
fn is_yaml_printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// A plain scalar, when every YAML reader types it the same way.
fn plain_scalar(s: &str) -> Option<Value> {
    let first = s.chars().next()?;
    if s.contains(" #") || s.contains(": ") || s.ends_with(':') || s.starts_with(' ') {
        return None;
    }
    match s {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" => return Some(Value::Null),
        _ => {}
    }
    let numeric_start = first.is_ascii_digit()
        || first == '.'
        || first == '+'
        || (first == '-' && s[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.'));
    if numeric_start {
        let digits = s.strip_prefix('-').unwrap_or(s);
        let canonical_integer = !digits.is_empty()
            && digits.len() <= 18
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'))
            && s != "-0";
        if canonical_integer {
            return s.parse::<i64>().ok().map(Value::from);
        }
        // `30s`, `5Gi`, `1h30m`: a letter no number, date or time can hold makes it a string.
        let only_number_like = s
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || b"xXoO._+-:tTzZ ".contains(&b));
        let sign_or_dot = first == '.' || first == '+' || s.starts_with("-.");
        return (!only_number_like && !sign_or_dot).then(|| Value::String(s.to_owned()));
    }
    if "-?:,[]{}#&*!|>'\"%@`~=<\\".contains(first) && !(first == '-' && is_plain_dash_word(s)) {
        return None;
    }
    if RESERVED_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)) || is_special_float(s) {
        return None;
    }
    if s.chars().any(|c| !is_yaml_printable(c) || c == '\u{feff}') {
        return None;
    }
    Some(Value::String(s.to_owned()))
}

/// `.inf`, `.NaN` and the like (already excluded by their leading dot), plus the YAML 1.1
/// spellings without one that some readers accept.
fn is_special_float(s: &str) -> bool {
    ["inf", "infinity", "nan"]
        .iter()
        .any(|w| s.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn yaml(v: Value) -> String {
        let mut out = String::new();
        write_document(&mut out, &v);
        out
    }

    #[test]
    fn ambiguous_strings_are_quoted() {
        for s in [
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "n",
            "true",
            "null",
            "~",
            "0755",
            "1e3",
            "1:20",
            "2001-12-14",
            "12",
            "-1",
            ".5",
            "+1",
            ".inf",
            "",
            " lead",
            "a: b",
            "x #c",
            "*a",
            "&a",
            "!t",
            "%d",
            "@x",
            "`x",
            "{a}",
            "[a]",
            "'q'",
            "\"q\"",
            "=",
            "<<",
            "key:",
        ] {
            let out = yaml(json!({ "k": s }));
            assert_ne!(out, format!("k: {s}\n"), "{s:?} must be quoted");
            let back: Value = serde_saphyr::from_str(&out).expect("parses");
            assert_eq!(back, json!({ "k": s }), "{s:?} round-trips");
        }
    }

    #[test]
    fn ordinary_strings_stay_plain() {
        for s in [
            "web",
            "http-metrics",
            "$(SHARD)",
            "Node;(.*)",
            "-config.expand-env=true",
            "a/b",
            "__tmp_hash",
        ] {
            assert_eq!(yaml(json!({ "k": s })), format!("k: {s}\n"));
        }
    }

    #[test]
    fn integers_stay_integers() {
        assert_eq!(
            yaml(json!({"a": 1_048_576u64, "b": 0.5, "c": 2.0})),
            "a: 1048576\nb: 0.5\nc: 2.0\n"
        );
    }

    #[test]
    fn nested_structures_round_trip() {
        let v = json!({
            "server": {},
            "list": [],
            "configs": [{"name": "a/b", "scrape_configs": [{"job_name": "x", "static_configs": [{"targets": ["a:1", "b:2"]}]}]}],
            "nested": [[1, 2], ["x"]],
            "multi": "line one\nline 'two'\n",
            "nothing": null
        });
        let text = yaml(v.clone());
        let back: Value = serde_saphyr::from_str(&text).expect("parses");
        assert_eq!(back, v, "{text}");
    }

    fn full_parser(text: &str) -> Option<Value> {
        serde_saphyr::from_str::<Value>(text).ok()
    }

    /// The subset reader either declines or agrees with the full parser.
    fn agrees(text: &str) -> Option<Value> {
        let simple = read_simple_document(text);
        if let Some(v) = &simple {
            assert_eq!(Some(v), full_parser(text).as_ref(), "{text:?}");
        }
        simple
    }

    #[test]
    fn simple_reader_types_plain_scalars_as_the_full_parser_does() {
        let read: &[&str] = &[
            "web",
            "http-metrics",
            "30s",
            "5Gi",
            "100m",
            "1h30m",
            "-5s",
            "1",
            "0",
            "-3",
            "65535",
            "123456789012345678",
            "true",
            "false",
            "null",
            "$(SHARD)",
            "$1",
            "Node;(.*)",
            "(v\\d+).*",
            "go_gc_.*",
            "a/b",
            "http://a.b:9115/probe",
            "-config.expand-env=true",
            "--flag",
            "__tmp_hash",
            "it's",
            "ünïcode",
            "a b  c",
            "x#y",
            "a:b",
            "ns-00001",
            "app.kubernetes.io/name",
            "10.0.0.1:9100/x",
            "a[a-z]+",
            "a,b",
            "team-{x}",
        ];
        for s in read {
            let doc = format!("k: {s}\n");
            assert!(
                agrees(&doc).is_some(),
                "{s:?} should be read by the subset reader"
            );
        }
        let declined: &[&str] = &[
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "n",
            "True",
            "NULL",
            "~",
            "0755",
            "007",
            "1e3",
            "1.5",
            ".5",
            "+1",
            ".inf",
            "-.inf",
            ".NaN",
            "0x1F",
            "0o17",
            "1:20",
            "2001-12-14",
            "1.2.3",
            "-0",
            "1234567890123456789",
            "&a x",
            "*a",
            "!tag x",
            "%x",
            "@x",
            "`x",
            "|",
            ">",
            "a #c",
            "{a: 1}",
            "[a, [b]]",
            "'unterminated",
            "\"bad \\q escape\"",
            "'a' trailing",
            "=",
            "<<",
            "inf",
            "NaN",
            "1d",
        ];
        for s in declined {
            let doc = format!("k: {s}\n");
            assert!(
                agrees(&doc).is_none(),
                "{s:?} must be left to the full parser"
            );
        }
    }

    #[test]
    fn simple_reader_reads_kubernetes_manifests_exactly() {
        let docs = [
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n  namespace: 'y'\nstringData:\n  ca.crt: \"-----BEGIN-----\\nabc\\n\"\n  'quoted key': 'it''s'\n",
            "spec:\n  endpoints:\n  - port: web\n    relabelings:\n    - sourceLabels: [__name__, job]\n      regex: go_.*\n      action: drop\n    - targetLabel: x\n  - port: admin\n    params: {}\n    list: []\n  selector:\n    matchLabels:\n      app: a\n",
            "# leading comment\nitems:\n  - a\n  -\n    b: 1\n  - c: 2\n    d:\n      - 3\n      - 'x'\nempty:\nlast: ''\n",
            "a:\n- 1\n- - ignored\n",
            "list:\n- name: a\n  value: 1\n-\n- name: b\n",
            "top:\n    deep:\n        deeper: x\n    back: why\n",
        ];
        for (i, doc) in docs.iter().enumerate() {
            let got = agrees(doc);
            // The fourth document nests a sequence on a dash line, which the reader leaves
            // to the full parser.
            assert_eq!(got.is_some(), i != 3, "{doc}");
        }
    }

    #[test]
    fn simple_reader_leaves_everything_else_to_the_full_parser() {
        for doc in [
            "a: &x 1\nb: *x\n",
            "a: |\n  text\n",
            "a: >\n  folded\n",
            "a: one\n  two\n",
            "a: 1 # trailing comment\n",
            "a: 1\na: 2\n",
            "a:\n\t- 1\n",
            "a: !!str 1\n",
            "? complex\n: key\n",
            "- a\nb: 1\n",
            "a:\n  - x\n b: 1\n",
            "a: \"multi\n  line\"\n",
            "%YAML 1.2\n",
            "just a scalar\n",
            "a: 'x'\r\nb: y\r\n",
            "",
        ] {
            assert_eq!(read_simple_document(doc), None, "{doc:?}");
        }
    }

    #[test]
    fn simple_reader_reads_what_the_emitter_writes() {
        let v = json!({
            "server": {},
            "list": [],
            "configs": [{"name": "a/b", "scrape_configs": [{"job_name": "x", "static_configs": [{"targets": ["a:1", "b:2"]}]}]}],
            "quoted": ["yes", "0755", "1:20", "", " lead", "a: b", "x #c", "it's", "-1"],
            "numbers": [1, -2, 0],
            "flags": [true, false, null],
            "control": "tab\there",
        });
        let text = yaml(v.clone());
        // The tab (written as an escape) is fine: only raw tabs are declined.
        assert_eq!(read_simple_document(&text), Some(v.clone()), "{text}");
        assert_eq!(full_parser(&text), Some(v));
    }

    /// The streaming writer gives exactly what the `Value` path gives.
    fn streams_like_the_tree<T: Serialize>(value: &T) -> String {
        let streamed = to_string(value).expect("streams");
        let mut tree = String::new();
        write_document(&mut tree, &serde_json::to_value(value).expect("to_value"));
        assert_eq!(streamed, tree);
        let mut item = String::new();
        write_sequence_item_of(&mut item, value, 4).expect("item");
        let mut tree_item = String::new();
        write_sequence_item(
            &mut tree_item,
            &serde_json::to_value(value).expect("to_value"),
            4,
        );
        assert_eq!(item, tree_item);
        streamed
    }

    #[derive(Serialize)]
    enum Shape {
        Unit,
        Newtype(Vec<u8>),
        Tuple(i32, String),
        Struct { a: Option<u8>, b: Vec<()> },
    }

    #[derive(Serialize)]
    struct Typed {
        name: String,
        empty_map: std::collections::BTreeMap<String, u8>,
        empty_list: Vec<String>,
        nested: Vec<Vec<Value>>,
        shapes: Vec<Shape>,
        by_number: std::collections::BTreeMap<u32, bool>,
        missing: Option<String>,
        floats: Vec<f64>,
        big: u128,
        small: i8,
        letter: char,
        bytes: serde_bytes_like::Bytes,
        unit: (),
        tuple: (u8, &'static str),
    }

    mod serde_bytes_like {
        pub struct Bytes(pub Vec<u8>);
        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }

    #[test]
    fn streaming_writes_exactly_what_the_value_tree_writes() {
        let typed = Typed {
            name: "yes".into(),
            empty_map: Default::default(),
            empty_list: Vec::new(),
            nested: vec![
                vec![],
                vec![json!({}), json!([]), json!({"a": [1, {"b": []}]})],
                vec![json!(null)],
            ],
            shapes: vec![
                Shape::Unit,
                Shape::Newtype(vec![1, 2]),
                Shape::Newtype(vec![]),
                Shape::Tuple(-1, "x: y".into()),
                Shape::Struct {
                    a: None,
                    b: vec![(), ()],
                },
            ],
            by_number: [(1, true), (20, false)].into_iter().collect(),
            missing: None,
            floats: vec![0.5, 2.0, f64::NAN, f64::INFINITY, 1e300],
            big: u128::from(u64::MAX),
            small: -3,
            letter: '~',
            bytes: serde_bytes_like::Bytes(vec![0, 255]),
            unit: (),
            tuple: (7, "multi\nline"),
        };
        let text = streams_like_the_tree(&typed);
        assert!(
            text.contains("shapes:\n- Unit\n- Newtype:\n  - 1\n"),
            "{text}"
        );
        for v in [
            json!(null),
            json!("plain"),
            json!({}),
            json!([]),
            json!([[], {}, [[]], [{}], {"k": {}}]),
            json!({"a": {"b": {"c": []}}, "d": [{"e": 1, "f": [{"g": {}}]}]}),
        ] {
            streams_like_the_tree(&v);
        }
    }

    #[test]
    fn a_repeated_key_is_merged_as_the_value_tree_merges_it() {
        #[derive(Serialize)]
        struct Flattened {
            a: u8,
            #[serde(flatten)]
            rest: std::collections::BTreeMap<String, u8>,
        }
        let v = Flattened {
            a: 1,
            rest: [("a".to_owned(), 2), ("b".to_owned(), 3)]
                .into_iter()
                .collect(),
        };
        assert_eq!(streams_like_the_tree(&v), "a: 2\nb: 3\n");
    }

    #[test]
    fn keys_that_are_not_strings_fail_as_in_serde_json() {
        let map: std::collections::BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into_iter().collect();
        assert!(to_string(&map).is_err());
        assert!(serde_json::to_value(&map).is_err());
    }

    /// The quoting rule as first written (several passes), to check the one-pass version.
    fn is_plain_safe_reference(s: &str) -> bool {
        let Some(first) = s.chars().next() else {
            return false;
        };
        if s.starts_with(' ') || s.ends_with(' ') || s.ends_with(':') {
            return false;
        }
        if "-?:,[]{}#&*!|>'\"%@`=<.+~".contains(first) && !(first == '-' && is_plain_dash_word(s)) {
            return false;
        }
        if first.is_ascii_digit() {
            return false;
        }
        if RESERVED_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)) {
            return false;
        }
        if s.contains(": ") || s.contains(" #") || s.contains('\t') {
            return false;
        }
        !s.chars()
            .any(|c| c.is_control() || !is_yaml_printable(c) || c == '\u{feff}')
    }

    #[test]
    fn the_one_pass_quoting_rule_matches_the_reference() {
        let pieces = [
            "", " ", ":", ": ", " #", "#", "a", "Z", "_", "-", "--", "-x", "-1", "1", ".", "+",
            "~", "yes", "No", "null", "FALSE", "y", "\t", "\n", "\u{7f}", "\u{85}", "\u{feff}",
            "é", "\u{fffe}", "/", "$(SHARD)", "a:b", "'", "\"", "=", "<", "x ", "ü:", "日本",
        ];
        let mut checked = 0;
        for a in pieces {
            for b in pieces {
                for c in ["", "a", " ", ":", "#"] {
                    let s = format!("{a}{b}{c}");
                    assert_eq!(is_plain_safe(&s), is_plain_safe_reference(&s), "{s:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 5000);
    }

    /// Keys around the implicit-key limit, plain, quoted and escaped, in every position a
    /// key can take, with every kind of value: the full parser reads back exactly the value,
    /// and the fast reader declines or agrees (fuzz finding: keys above 1024 characters were
    /// written as implicit keys, which YAML readers refuse).
    #[test]
    fn keys_too_long_to_be_implicit_are_written_as_explicit_keys() {
        let mut keys = Vec::new();
        for n in [
            IMPLICIT_KEY_LIMIT - 2,
            IMPLICIT_KEY_LIMIT,
            IMPLICIT_KEY_LIMIT + 1,
            1024,
            1025,
            5000,
        ] {
            keys.push("k".repeat(n));
            keys.push(format!("{}'", "q".repeat(n - 1)));
            keys.push(format!("é{}", "x".repeat(n)));
        }
        // Short, but its escapes take it over the limit once written.
        keys.push("\u{1}".repeat(IMPLICIT_KEY_LIMIT / 4));
        for key in &keys {
            for value in [
                json!("v"),
                json!({"inner": 1, "other": [1, 2]}),
                json!(["a", {"b": "c"}]),
                json!({}),
                json!(null),
            ] {
                let documents = [
                    json!({ key.as_str(): value.clone(), "after": 1 }),
                    json!({"before": 0, key.as_str(): value.clone()}),
                    json!([{ key.as_str(): value.clone(), "after": 1 }]),
                    json!({"outer": [{"before": 0, key.as_str(): value.clone()}]}),
                    json!({"outer": { key.as_str(): value.clone() }}),
                ];
                for document in documents {
                    let text = streams_like_the_tree(&document);
                    assert_eq!(full_parser(&text).as_ref(), Some(&document), "{text}");
                    agrees(&text);
                    let written = text.lines().map(str::len).max().unwrap_or(0);
                    if text.contains("? ") {
                        assert!(written > IMPLICIT_KEY_LIMIT, "{text}");
                    }
                }
            }
        }
    }

    /// Fuzz finding: a raw DEL (or another character YAML does not allow unescaped) inside
    /// a quoted scalar was read as a string where serde-saphyr refuses the document; and the
    /// emitter must escape such characters wherever they are.
    #[test]
    fn characters_yaml_does_not_allow_raw_are_escaped_and_left_to_the_full_parser() {
        for c in [
            '\u{7f}', '\u{1}', '\u{80}', '\u{9f}', '\u{fffe}', '\u{ffff}',
        ] {
            for doc in [
                format!("- \"a{c}\"\n"),
                format!("- 'a{c}'\n"),
                format!("k: a{c}\n"),
            ] {
                assert_eq!(read_simple_document(&doc), None, "{doc:?}");
            }
            let value = json!({ format!("k{c}"): [format!("{c}"), format!("yes{c}")] });
            let text = streams_like_the_tree(&value);
            assert_eq!(full_parser(&text).as_ref(), Some(&value), "{text:?}");
            agrees(&text);
        }
    }

    #[test]
    fn the_fast_reader_leaves_long_implicit_keys_to_the_full_parser() {
        for n in [IMPLICIT_KEY_LIMIT + 1, 1024, 1025, 2000] {
            for doc in [
                format!("{}: v\n", "k".repeat(n)),
                format!("'{}': v\n", "k".repeat(n - 2)),
                format!("- a: 1\n  {}:\n  - x\n", "k".repeat(n)),
            ] {
                assert_eq!(read_simple_document(&doc), None, "{}", n);
            }
        }
        let at_limit = format!("{}: v\n", "k".repeat(IMPLICIT_KEY_LIMIT));
        assert_eq!(
            agrees(&at_limit),
            Some(json!({ "k".repeat(IMPLICIT_KEY_LIMIT): "v" }))
        );
    }
}
