//! A serde `Serializer` into a `serde_json::Value` that writes enums the
//! way de.rs reads them: a tagged enum (serde name `"@KEY …"`) becomes a
//! table with `KEY = "variant"` beside the variant's own keys, its scalar
//! variant the bare value; any other unit variant a string. `to_json` is
//! `to_value` of the scenario document.

use serde::ser::{self, Serialize};
use serde_json::{Map, Value};

use super::de::tag_of;

type Error = serde_json::Error;

/// The document form of `t`.
pub fn to_value<T: Serialize + ?Sized>(t: &T) -> Result<Value, Error> {
    t.serialize(Ser)
}

struct Ser;

fn tagged(name: &'static str, variant: &'static str, content: Value) -> Result<Value, Error> {
    let Some((key, scalar)) = tag_of(name) else {
        let mut m = Map::new();
        m.insert(variant.into(), content);
        return Ok(Value::Object(m));
    };
    if scalar == Some(variant) {
        return Ok(content);
    }
    let mut m = match content {
        Value::Object(m) => m,
        Value::Null => Map::new(),
        other => {
            return Err(ser::Error::custom(format!("variant {variant} of {name} is not a table: {other}")))
        }
    };
    m.insert(key.into(), Value::String(variant.into()));
    Ok(Value::Object(m))
}

impl ser::Serializer for Ser {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = ser::Impossible<Value, Error>;
    type SerializeMap = Table;
    type SerializeStruct = Table;
    type SerializeStructVariant = Table;

    fn serialize_bool(self, v: bool) -> Result<Value, Error> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, Error> {
        Ok(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Value, Error> {
        Ok(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Value, Error> {
        Ok(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Value, Error> {
        Ok(v.into())
    }
    fn serialize_u8(self, v: u8) -> Result<Value, Error> {
        Ok(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Value, Error> {
        Ok(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Value, Error> {
        Ok(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Value, Error> {
        Ok(v.into())
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Error> {
        Ok((v as f64).into())
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Error> {
        Ok(v.into())
    }
    fn serialize_char(self, v: char) -> Result<Value, Error> {
        Ok(Value::String(v.into()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, Error> {
        Ok(Value::String(v.into()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, Error> {
        Ok(v.to_vec().into())
    }
    fn serialize_none(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Value, Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value, Error> {
        match tag_of(name) {
            Some(_) => tagged(name, variant, Value::Null),
            None => Ok(Value::String(variant.into())),
        }
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Result<Value, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Value, Error> {
        tagged(name, variant, v.serialize(Ser)?)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(ser::Error::custom(format!("{name}: tuple variants are not used in scenarios")))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Table, Error> {
        Ok(Table { map: Map::new(), key: None, variant: None })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Table, Error> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Table, Error> {
        Ok(Table { map: Map::new(), key: None, variant: Some((name, variant)) })
    }
}

struct Seq(Vec<Value>);

impl ser::SerializeSeq for Seq {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.0.push(v.serialize(Ser)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(Value::Array(self.0))
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Value, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Value, Error> {
        ser::SerializeSeq::end(self)
    }
}

/// A map, struct or struct variant (`variant` = enum name and variant).
struct Table {
    map: Map<String, Value>,
    key: Option<String>,
    variant: Option<(&'static str, &'static str)>,
}

impl Table {
    fn put<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) -> Result<(), Error> {
        self.map.insert(key.into(), v.serialize(Ser)?);
        Ok(())
    }
    fn finish(self) -> Result<Value, Error> {
        let Some((name, variant)) = self.variant else {
            return Ok(Value::Object(self.map));
        };
        // A scalar variant is its one field's value (`packet = "1000B"`).
        if tag_of(name).is_some_and(|(_, scalar)| scalar == Some(variant)) && self.map.len() == 1 {
            return tagged(name, variant, self.map.into_iter().next().map(|(_, v)| v).unwrap_or(Value::Null));
        }
        tagged(name, variant, Value::Object(self.map))
    }
}

impl ser::SerializeMap for Table {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        match k.serialize(Ser)? {
            Value::String(s) => self.key = Some(s),
            other => self.key = Some(other.to_string()),
        }
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let k = self.key.take().unwrap_or_default();
        self.put(&k, v)
    }
    fn end(self) -> Result<Value, Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for Table {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> Result<(), Error> {
        self.put(k, v)
    }
    fn end(self) -> Result<Value, Error> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Table {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> Result<(), Error> {
        self.put(k, v)
    }
    fn end(self) -> Result<Value, Error> {
        self.finish()
    }
}
