//! The streaming serializer: YAML written from a `Serialize` value without a value tree.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::YamlError;
use super::emit::{
    indent, write_document, write_inline, write_key, write_sequence_item, write_string,
};

/// A rewrite of every string of a document, keys included, as it is written: how agent.yml
/// protects what it holds from the expansions its readers make (`crate::expansion`).
pub type Escape = for<'s> fn(&'s str) -> Cow<'s, str>;

/// The name of the newtype struct whose string the [`Escape`] of a document leaves as it is:
/// the one way a document says that a `$` is meant for the expansion (the operator's own
/// `$(SHARD)`), so that no other string can.
pub const UNESCAPED: &str = "agent_operator::yaml::Unescaped";

/// One YAML document (no `---` marker), ending with a newline.
///
/// Written straight from `value`'s `Serialize` implementation, without building a
/// `serde_json::Value` first: a 10k-ServiceMonitor agent.yml is ~50 MB of text, and the tree
/// would cost several times that in memory and allocations. The output is byte for byte
/// what [`write_document`] gives for `serde_json::to_value(value)`; in the one case where
/// they could differ (a map with a repeated key, which only `#[serde(flatten)]` can make,
/// and which the tree would merge) it takes the tree's path.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, YamlError> {
    to_string_escaped(value, None)
}

/// [`to_string`] with every string but the [`UNESCAPED`] ones rewritten by `escape`. A
/// repeated map key is then an error: the tree's path would lose which strings are
/// [`UNESCAPED`].
pub fn to_string_escaped<T: Serialize + ?Sized>(
    value: &T,
    escape: Option<Escape>,
) -> Result<String, YamlError> {
    let mut out = String::with_capacity(256);
    match value.serialize(&mut Streamer::new(&mut out, Context::Document, escape)) {
        Ok(()) => Ok(out),
        Err(StreamError::DuplicateKey) if escape.is_none() => {
            let value = serde_json::to_value(value)?;
            out.clear();
            write_document(&mut out, &value);
            Ok(out)
        }
        Err(e) => Err(YamlError(e.into_json())),
    }
}

/// [`write_sequence_item`] for any `Serialize` value, written directly.
pub fn write_sequence_item_of<T: Serialize + ?Sized>(
    out: &mut String,
    value: &T,
    level: usize,
) -> Result<(), YamlError> {
    write_sequence_item_escaped(out, value, level, None)
}

/// [`write_sequence_item_of`] with the strings rewritten as [`to_string_escaped`] does.
pub fn write_sequence_item_escaped<T: Serialize + ?Sized>(
    out: &mut String,
    value: &T,
    level: usize,
    escape: Option<Escape>,
) -> Result<(), YamlError> {
    let mark = out.len();
    indent(out, level);
    out.push('-');
    match value.serialize(&mut Streamer::new(out, Context::SeqItem(level), escape)) {
        Ok(()) => Ok(()),
        Err(StreamError::DuplicateKey) if escape.is_none() => {
            out.truncate(mark);
            write_sequence_item(out, &serde_json::to_value(value)?, level);
            Ok(())
        }
        Err(e) => {
            out.truncate(mark);
            Err(YamlError(e.into_json()))
        }
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

impl StreamError {
    fn into_json(self) -> serde_json::Error {
        match self {
            StreamError::Json(e) => e,
            StreamError::DuplicateKey => {
                <serde_json::Error as serde::ser::Error>::custom("duplicate map key")
            }
        }
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
    escape: Option<Escape>,
}

impl<'o> Streamer<'o> {
    fn new(out: &'o mut String, context: Context, escape: Option<Escape>) -> Self {
        Streamer {
            out,
            context,
            escape,
        }
    }

    /// `s` as the document's [`Escape`] rewrites it.
    fn escaped<'s>(&self, s: &'s str) -> Cow<'s, str> {
        match self.escape {
            Some(escape) => escape(s),
            None => Cow::Borrowed(s),
        }
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
        let text = self.streamer.escaped(&text).into_owned();
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
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), StreamError> {
        let text = self.escaped(v);
        self.scalar(|out| write_string(out, &text))
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
        name: &'static str,
        value: &T,
    ) -> Result<(), StreamError> {
        if name == UNESCAPED {
            let escape = self.escape.take();
            let written = value.serialize(&mut *self);
            self.escape = escape;
            return written;
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::tests::streams_like_the_tree;
    use serde_json::{Value, json};

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
}
