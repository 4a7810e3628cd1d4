//! A serde `Deserializer` over a scenario document (a `serde_json::Value`)
//! that keeps what an error message needs: the key path of the failing
//! value, and why it failed (what is allowed). The scenario types derive
//! `Deserialize`; this reader is what makes their errors precise.
//!
//! Why not `serde_path_to_error` over `serde_json::Value`: serde's derive
//! reads an internally tagged enum (`#[serde(tag = "kind")]`) by buffering
//! the table into its private `Content` and deserializing the variant from
//! that, outside any wrapping deserializer, so the path below the table and
//! the field of a failing value are lost (dtolnay/path-to-error#1). Here the
//! tag is read by the deserializer itself:
//!
//! - an enum whose serde name is `"@KEY"` (optionally `"@KEY default=NAME"`,
//!   `"@KEY scalar=NAME"`) is a table tagged by `KEY`: the variant is the
//!   value of `KEY`, or `default` when the key is absent; a value that is
//!   not a table is the content of the `scalar` variant (`start = "2s"`).
//!   The variant's content is read from the same table without the tag, so
//!   every path stays exact. The enums derive plain (externally tagged)
//!   serde; `ser.rs` writes them back in the same tagged form.
//! - any other enum is a string naming a unit variant (`"timely"`).
//! - a struct's keys are all checked before any value is read (unknown keys
//!   are reported before bad values, with the allowed keys and a
//!   did-you-mean), so `deny_unknown_fields` never has to fire.
//! - JSON `null` means "not given": such entries are skipped.
//!
//! Errors carry their path as segments and a [`Problem`]; the caller looks
//! the offending value up in the document by that path (parse.rs).

use std::fmt;

use serde::de::{
    self, value::BorrowedStrDeserializer, DeserializeSeed, EnumAccess, Expected, IntoDeserializer, MapAccess,
    SeqAccess, VariantAccess, Visitor,
};
use serde_json::{Map, Value};

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// A key path, rendered as `calls[1].transport.send_buffer`.
pub fn path_string(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if s.is_empty() => s.push_str(k),
            Seg::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Parses a path written by [`path_string`] (keys without `.` or `[`).
pub fn parse_path(s: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in s.split('.').filter(|p| !p.is_empty()) {
        let (key, rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Seg::Key(key.to_string()));
        }
        for idx in rest.split('[') {
            if let Ok(i) = idx.trim_end_matches(']').parse() {
                out.push(Seg::Index(i));
            }
        }
    }
    out
}

/// The value at `path` as written (possibly null, i.e. "not given").
pub fn lookup<'a>(root: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    let mut v = root;
    for seg in path {
        v = match (seg, v) {
            (Seg::Key(k), Value::Object(m)) => m.get(k)?,
            (Seg::Index(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

/// What went wrong at an error's path.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// The value is not allowed; the text says what is.
    Invalid(String),
    /// A required key is absent; `Some` when the reader knows what belongs
    /// there (a tag's choices), else the caller supplies the text.
    Missing(Option<String>),
    /// The key itself is not allowed here; the text lists the keys that are.
    UnknownKey(String),
}

/// A deserialization error: path (built while unwinding) and problem.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    /// Innermost segment first until [`Error::path`] reverses it.
    rev_path: Vec<Seg>,
    problem: Problem,
    /// A `missing_field` raised by a derived visitor, not yet given its key.
    unplaced_field: Option<String>,
}

impl Error {
    fn new(problem: Problem) -> Self {
        Error { rev_path: Vec::new(), problem, unplaced_field: None }
    }
    fn invalid(allowed: impl Into<String>) -> Self {
        Self::new(Problem::Invalid(allowed.into()))
    }
    fn at(mut self, seg: Seg) -> Self {
        self.rev_path.push(seg);
        self
    }
    /// A missing field is raised after the struct's map is read: it gets
    /// its key here, at the struct that lacks it.
    fn place(mut self) -> Self {
        if let Some(f) = self.unplaced_field.take() {
            self.rev_path.push(Seg::Key(f));
        }
        self
    }
    pub fn path(&self) -> Vec<Seg> {
        self.rev_path.iter().rev().cloned().collect()
    }
    pub fn problem(&self) -> &Problem {
        &self.problem
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {:?}", path_string(&self.path()), self.problem)
    }
}

impl std::error::Error for Error {}

/// `"a"`, `"b"` → `one of "a", "b"`.
pub fn one_of(names: &[&str]) -> String {
    format!("one of {}", names.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", "))
}

fn expecting(e: &dyn Expected) -> String {
    match e.to_string().as_str() {
        "a boolean" => "true or false".into(),
        s => s.to_string(),
    }
}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self::invalid(msg.to_string())
    }
    fn invalid_type(_: de::Unexpected<'_>, exp: &dyn Expected) -> Self {
        Self::invalid(expecting(exp))
    }
    fn invalid_value(_: de::Unexpected<'_>, exp: &dyn Expected) -> Self {
        Self::invalid(expecting(exp))
    }
    fn invalid_length(_: usize, exp: &dyn Expected) -> Self {
        Self::invalid(expecting(exp))
    }
    fn unknown_variant(_: &str, expected: &'static [&'static str]) -> Self {
        Self::invalid(one_of(expected))
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Self::new(Problem::UnknownKey(keys_text(expected, None, field))).at(Seg::Key(field.into()))
    }
    fn missing_field(field: &'static str) -> Self {
        Error { unplaced_field: Some(field.into()), ..Self::new(Problem::Missing(None)) }
    }
}

/// Edit distance for did-you-mean suggestions.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + (ca != *cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// "one of the keys kind, limit (for kind = "droptail") (did you mean "limit"?)"
fn keys_text(fields: &[&str], tag: Option<Tag>, key: &str) -> String {
    let mut keys: Vec<&str> = tag.map(|t| t.key).into_iter().collect();
    keys.extend_from_slice(fields);
    let context = tag.map(|t| format!(" (for {} = \"{}\")", t.key, t.variant)).unwrap_or_default();
    let hint = keys
        .iter()
        .find(|a| edit_distance(a, key) <= if a.len() > 4 { 2 } else { 1 })
        .map(|a| format!(" (did you mean \"{a}\"?)"))
        .unwrap_or_default();
    if keys.is_empty() {
        return format!("no keys other than the tag{context}");
    }
    format!("one of the keys {}{context}{hint}", keys.join(", "))
}

/// The tag of the table a node is the variant content of.
#[derive(Clone, Copy, Debug)]
struct Tag {
    key: &'static str,
    variant: &'static str,
}

/// How a tagged enum is read, from its serde name (`"@kind default=udp"`).
struct TagSpec {
    key: &'static str,
    default: Option<&'static str>,
    scalar: Option<&'static str>,
}

impl TagSpec {
    pub fn parse(name: &'static str) -> Option<TagSpec> {
        let rest = name.strip_prefix('@')?;
        let mut words = rest.split_whitespace();
        let mut spec = TagSpec { key: words.next()?, default: None, scalar: None };
        for w in words {
            if let Some(d) = w.strip_prefix("default=") {
                spec.default = Some(d);
            } else if let Some(s) = w.strip_prefix("scalar=") {
                spec.scalar = Some(s);
            }
        }
        Some(spec)
    }
}

/// Is `name` a tagged enum's serde name; its tag key and scalar variant.
pub(super) fn tag_of(name: &'static str) -> Option<(&'static str, Option<&'static str>)> {
    TagSpec::parse(name).map(|s| (s.key, s.scalar))
}

/// Deserializes `T` from a document.
pub fn from_value<'de, T: de::Deserialize<'de>>(v: &'de Value) -> Result<T, Error> {
    T::deserialize(Node { v, tag: None }).map_err(Error::place)
}

/// A value of the document; `tag` when it is a tagged table being read as
/// its variant's content (the tag key is then skipped and named in errors).
#[derive(Clone, Copy)]
struct Node<'a> {
    v: &'a Value,
    tag: Option<Tag>,
}

impl<'a> Node<'a> {
    fn map(&self) -> Option<&'a Map<String, Value>> {
        self.v.as_object()
    }

    /// All keys are allowed ones (the tag, then `fields`) before any value is read.
    fn check_keys(&self, map: &Map<String, Value>, fields: &[&str]) -> Result<(), Error> {
        let tag_key = self.tag.map(|t| t.key);
        for k in map.keys() {
            if Some(k.as_str()) != tag_key && !fields.contains(&k.as_str()) {
                let e = Error::new(Problem::UnknownKey(keys_text(fields, self.tag, k)));
                return Err(e.at(Seg::Key(k.clone())));
            }
        }
        Ok(())
    }
}

macro_rules! forward_any {
    ($($m:ident)*) => {$(
        fn $m<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.deserialize_any(v)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Node<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.v {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => visitor.visit_u64(u),
                (None, Some(i), _) => visitor.visit_i64(i),
                (None, None, Some(f)) => visitor.visit_f64(f),
                _ => Err(Error::invalid(expecting(&visitor))),
            },
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(_) => self.deserialize_seq(visitor),
            Value::Object(m) => visitor.visit_map(Entries::new(m, None)),
        }
    }

    forward_any!(deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8
        deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_bytes deserialize_byte_buf);

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.v {
            Value::Bool(b) => visitor.visit_bool(*b),
            _ => Err(Error::invalid(expecting(&visitor))),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.v {
            Value::String(s) => visitor.visit_borrowed_str(s),
            _ => Err(Error::invalid(expecting(&visitor))),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.v {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.v {
            Value::Null => visitor.visit_unit(),
            _ => Err(Error::invalid(expecting(&visitor))),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.v {
            Value::Array(items) => visitor.visit_seq(Items { iter: items.iter().enumerate() }),
            _ => Err(Error::invalid(expecting(&visitor))),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.map() {
            Some(m) => visitor.visit_map(Entries::new(m, self.tag)),
            None => Err(Error::invalid(expecting(&visitor))),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let Some(m) = self.map() else {
            return Err(Error::invalid(expecting(&visitor)));
        };
        self.check_keys(m, fields)?;
        visitor.visit_map(Entries::new(m, self.tag)).map_err(Error::place)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let Some(spec) = TagSpec::parse(name) else {
            // A plain enum: a string naming a unit variant.
            return match self.v {
                Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
                _ => Err(Error::invalid(one_of(variants))),
            };
        };
        let choices: Vec<&'static str> =
            variants.iter().copied().filter(|v| Some(*v) != spec.scalar).collect();
        let Some(m) = self.map() else {
            return match spec.scalar {
                Some(variant) => visitor.visit_enum(Variant { variant, node: self, scalar: true }),
                None => Err(Error::invalid(expecting(&visitor))),
            };
        };
        let at_tag = |e: Error| e.at(Seg::Key(spec.key.into()));
        let variant = match m.get(spec.key).filter(|v| !v.is_null()) {
            Some(Value::String(s)) => match choices.iter().find(|c| **c == s) {
                Some(c) => *c,
                None => return Err(at_tag(Error::invalid(one_of(&choices)))),
            },
            Some(_) => return Err(at_tag(Error::invalid(one_of(&choices)))),
            None => match spec.default {
                Some(d) => d,
                None => return Err(at_tag(Error::new(Problem::Missing(Some(one_of(&choices)))))),
            },
        };
        let node = Node { v: self.v, tag: Some(Tag { key: spec.key, variant }) };
        visitor.visit_enum(Variant { variant, node, scalar: false })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// A struct's entries, skipping the tag and null ("not given") values.
struct Entries<'a> {
    iter: serde_json::map::Iter<'a>,
    skip: Option<&'static str>,
    key: Option<&'a String>,
    value: Option<&'a Value>,
}

impl<'a> Entries<'a> {
    fn new(m: &'a Map<String, Value>, tag: Option<Tag>) -> Self {
        Entries { iter: m.iter(), skip: tag.map(|t| t.key), key: None, value: None }
    }
}

impl<'de> MapAccess<'de> for Entries<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        for (k, v) in self.iter.by_ref() {
            if v.is_null() || Some(k.as_str()) == self.skip {
                continue;
            }
            self.key = Some(k);
            self.value = Some(v);
            let key = seed.deserialize(BorrowedStrDeserializer::new(k));
            return key.map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (Some(k), Some(v)) = (self.key.take(), self.value.take()) else {
            return Err(Error::invalid("a value after its key"));
        };
        seed.deserialize(Node { v, tag: None }).map_err(|e| e.place().at(Seg::Key(k.clone())))
    }
}

/// An array's elements.
struct Items<'a> {
    iter: std::iter::Enumerate<std::slice::Iter<'a, Value>>,
}

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        match self.iter.next() {
            None => Ok(None),
            Some((i, v)) => {
                seed.deserialize(Node { v, tag: None }).map(Some).map_err(|e| e.place().at(Seg::Index(i)))
            }
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// The variant of a tagged table (or of a scalar standing for one).
struct Variant<'a> {
    variant: &'static str,
    node: Node<'a>,
    /// A non-table value read as the content of the scalar variant.
    scalar: bool,
}

impl<'de> EnumAccess<'de> for Variant<'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let v = seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.variant))?;
        Ok((v, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.node.map() {
            Some(m) => self.node.check_keys(m, &[]),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self.node)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Error> {
        Err(Error::invalid("a table (tuple variants are not used in scenarios)"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if self.scalar {
            // The scalar is the variant's one field (`packet = "1000B"`):
            // errors stay at the scalar's own path.
            return visitor.visit_map(Scalar { key: fields.first().copied(), v: self.node.v });
        }
        de::Deserializer::deserialize_struct(self.node, "", fields, visitor)
    }
}

/// A scalar presented as a one-entry map for a one-field struct variant.
struct Scalar<'a> {
    key: Option<&'static str>,
    v: &'a Value,
}

impl<'de> MapAccess<'de> for Scalar<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        match self.key {
            Some(k) => seed.deserialize(BorrowedStrDeserializer::new(k)).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        self.key = None;
        seed.deserialize(Node { v: self.v, tag: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_and_parse_back() {
        let p =
            vec![Seg::Key("calls".into()), Seg::Index(1), Seg::Key("transport".into()), Seg::Key("x".into())];
        assert_eq!(path_string(&p), "calls[1].transport.x");
        assert_eq!(parse_path("calls[1].transport.x"), p);
        assert_eq!(parse_path("links[0].between[1]").len(), 4);
        assert_eq!(parse_path(""), vec![]);
    }
}
