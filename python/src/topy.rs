//! The library's records as Python objects: their serde form (the fields and names of the
//! CLI's JSON Lines, one definition in the library) made into dicts, lists, str, int, bool and
//! None.
//!
//! This is the part of a call that must hold the GIL: everything before it —
//! parse, resolve, the records as Rust structs — runs without it. So it makes no object it can
//! share instead: a dict key is made once per call and reused by every record (`Objects`
//! remembers it, and since every record lists its fields in the same order the next key is
//! found by one comparison); a string value equal to the one the same key had in the previous
//! record (a page's `base`, `element`, `kind`, `base_source`, `part`) is the same str object.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use serde::ser::{self, Impossible, Serialize};

/// A serde error, or a Python one raised while making an object.
#[derive(Debug)]
pub struct ToPyError(PyErr);

impl std::fmt::Display for ToPyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for ToPyError {}

impl ser::Error for ToPyError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        ToPyError(crate::Error::new_err(msg.to_string()))
    }
}

impl From<PyErr> for ToPyError {
    fn from(e: PyErr) -> Self {
        ToPyError(e)
    }
}

type Result<T> = std::result::Result<T, ToPyError>;

/// A dict key made once, and the str object its last string value was.
struct Slot<'py> {
    name: String,
    key: Bound<'py, PyString>,
    last: Option<(String, Bound<'py, PyAny>)>,
}

/// The keys (and repeated values) of one conversion.
pub struct Objects<'py> {
    py: Python<'py>,
    slots: Vec<Slot<'py>>,
    /// Where the next key is expected: after the last one found.
    next: usize,
}

impl<'py> Objects<'py> {
    pub fn new(py: Python<'py>) -> Objects<'py> {
        Objects {
            py,
            slots: Vec::new(),
            next: 0,
        }
    }

    /// `value` as Python objects.
    pub fn convert<T: Serialize + ?Sized>(&mut self, value: &T) -> PyResult<Bound<'py, PyAny>> {
        value
            .serialize(Ser {
                objects: self,
                slot: None,
            })
            .map_err(|e| e.0)
    }

    /// The slot of key `name`: the expected one, else any, else a new one.
    fn slot(&mut self, name: &str) -> usize {
        let at = match self.slots.get(self.next) {
            Some(s) if s.name == name => self.next,
            _ => match self.slots.iter().position(|s| s.name == name) {
                Some(i) => i,
                None => {
                    self.slots.push(Slot {
                        name: name.to_owned(),
                        key: PyString::new(self.py, name),
                        last: None,
                    });
                    self.slots.len() - 1
                }
            },
        };
        self.next = at + 1;
        at
    }

    /// A string value, under key `slot` when it is a dict's value.
    fn string(&mut self, slot: Option<usize>, v: &str) -> Bound<'py, PyAny> {
        let py = self.py;
        let Some(slot) = slot.and_then(|i| self.slots.get_mut(i)) else {
            return PyString::new(py, v).into_any();
        };
        if let Some((text, object)) = &mut slot.last {
            if text == v {
                return object.clone();
            }
            // The text's buffer is reused: no allocation per value.
            text.clear();
            text.push_str(v);
            *object = PyString::new(py, v).into_any();
            return object.clone();
        }
        let object = PyString::new(py, v).into_any();
        slot.last = Some((v.to_owned(), object.clone()));
        object
    }

    fn key(&self, slot: usize) -> Result<&Bound<'py, PyString>> {
        self.slots
            .get(slot)
            .map(|s| &s.key)
            .ok_or_else(|| <ToPyError as ser::Error>::custom("a dict key was lost"))
    }
}

/// One value's serializer; `slot` is the key it is the value of, in a dict.
struct Ser<'a, 'py> {
    objects: &'a mut Objects<'py>,
    slot: Option<usize>,
}

/// A list or tuple being made; with a variant, `{variant: [...]}`.
struct Seq<'a, 'py> {
    objects: &'a mut Objects<'py>,
    items: Vec<Bound<'py, PyAny>>,
    tuple: bool,
    variant: Option<&'static str>,
}

/// A dict being made (a map or a struct); with a variant, `{variant: {...}}`.
struct Map<'a, 'py> {
    objects: &'a mut Objects<'py>,
    dict: Bound<'py, PyDict>,
    key: Option<usize>,
    variant: Option<&'static str>,
}

/// `{variant: value}`: serde's externally tagged form, as JSON writes it.
fn tagged<'py>(
    objects: &mut Objects<'py>,
    variant: &'static str,
    value: Bound<'py, PyAny>,
) -> Result<Bound<'py, PyAny>> {
    let slot = objects.slot(variant);
    let dict = PyDict::new(objects.py);
    dict.set_item(objects.key(slot)?, value)?;
    Ok(dict.into_any())
}

impl<'a, 'py> Ser<'a, 'py> {
    fn object(self, v: impl IntoPyObject<'py>) -> Result<Bound<'py, PyAny>> {
        Ok(v.into_bound_py_any(self.objects.py)?)
    }

    fn seq(self, len: Option<usize>, tuple: bool, variant: Option<&'static str>) -> Seq<'a, 'py> {
        Seq {
            objects: self.objects,
            items: Vec::with_capacity(len.unwrap_or(0)),
            tuple,
            variant,
        }
    }

    fn map(self, variant: Option<&'static str>) -> Map<'a, 'py> {
        let dict = PyDict::new(self.objects.py);
        Map {
            objects: self.objects,
            dict,
            key: None,
            variant,
        }
    }
}

impl<'a, 'py> ser::Serializer for Ser<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPyError;
    type SerializeSeq = Seq<'a, 'py>;
    type SerializeTuple = Seq<'a, 'py>;
    type SerializeTupleStruct = Seq<'a, 'py>;
    type SerializeTupleVariant = Seq<'a, 'py>;
    type SerializeMap = Map<'a, 'py>;
    type SerializeStruct = Map<'a, 'py>;
    type SerializeStructVariant = Map<'a, 'py>;

    fn serialize_bool(self, v: bool) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i8(self, v: i8) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i128(self, v: i128) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u128(self, v: u128) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_f32(self, v: f32) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_f64(self, v: f64) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_char(self, v: char) -> Result<Self::Ok> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<Self::Ok> {
        Ok(self.objects.string(self.slot, v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_none(self) -> Result<Self::Ok> {
        Ok(self.objects.py.None().into_bound(self.objects.py))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Self::Ok> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Self::Ok> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Self::Ok> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Self::Ok> {
        let objects = self.objects;
        let value = value.serialize(Ser {
            objects: &mut *objects,
            slot: None,
        })?;
        tagged(objects, variant, value)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq> {
        Ok(self.seq(len, false, None))
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple> {
        Ok(self.seq(Some(len), true, None))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Ok(self.seq(Some(len), true, None))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Ok(self.seq(Some(len), true, Some(variant)))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Ok(self.map(None))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        Ok(self.map(None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Ok(self.map(Some(variant)))
    }
}

impl<'py> Seq<'_, 'py> {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let item = value.serialize(Ser {
            objects: &mut *self.objects,
            slot: None,
        })?;
        self.items.push(item);
        Ok(())
    }

    fn finish(self) -> Result<Bound<'py, PyAny>> {
        let py = self.objects.py;
        let made = if self.tuple {
            PyTuple::new(py, self.items)?.into_any()
        } else {
            PyList::new(py, self.items)?.into_any()
        };
        match self.variant {
            Some(variant) => tagged(self.objects, variant, made),
            None => Ok(made),
        }
    }
}

macro_rules! seq_impl {
    ($trait:ident, $method:ident) => {
        impl<'py> ser::$trait for Seq<'_, 'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = ToPyError;
            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
                self.push(value)
            }
            fn end(self) -> Result<Self::Ok> {
                self.finish()
            }
        }
    };
}
seq_impl!(SerializeSeq, serialize_element);
seq_impl!(SerializeTuple, serialize_element);
seq_impl!(SerializeTupleStruct, serialize_field);
seq_impl!(SerializeTupleVariant, serialize_field);

impl<'py> Map<'_, 'py> {
    fn value<T: ?Sized + Serialize>(&mut self, slot: usize, value: &T) -> Result<()> {
        let value = value.serialize(Ser {
            objects: &mut *self.objects,
            slot: Some(slot),
        })?;
        self.dict.set_item(self.objects.key(slot)?, value)?;
        Ok(())
    }

    fn finish(self) -> Result<Bound<'py, PyAny>> {
        let made = self.dict.into_any();
        match self.variant {
            Some(variant) => tagged(self.objects, variant, made),
            None => Ok(made),
        }
    }
}

impl<'py> ser::SerializeMap for Map<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPyError;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(KeyName(&mut *self.objects))?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let slot = self
            .key
            .take()
            .ok_or_else(|| <ToPyError as ser::Error>::custom("a map value without its key"))?;
        self.value(slot, value)
    }
    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}

macro_rules! struct_impl {
    ($trait:ident) => {
        impl<'py> ser::$trait for Map<'_, 'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = ToPyError;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<()> {
                let slot = self.objects.slot(key);
                self.value(slot, value)
            }
            fn end(self) -> Result<Self::Ok> {
                self.finish()
            }
        }
    };
}
struct_impl!(SerializeStruct);
struct_impl!(SerializeStructVariant);

/// A map key's text, without making a str object: keys are looked up in [`Objects`]' slots.
/// The records' maps (`#[serde(flatten)]` makes a record one) have string keys only.
struct KeyName<'a, 'py>(&'a mut Objects<'py>);

fn not_a_string_key<T>() -> Result<T> {
    Err(<ToPyError as ser::Error>::custom(
        "a map key that is not a string",
    ))
}

macro_rules! no_key {
    ($($method:ident: $ty:ty),*) => {
        $(fn $method(self, _v: $ty) -> Result<usize> {
            not_a_string_key()
        })*
    };
}

impl ser::Serializer for KeyName<'_, '_> {
    type Ok = usize;
    type Error = ToPyError;
    type SerializeSeq = Impossible<usize, ToPyError>;
    type SerializeTuple = Impossible<usize, ToPyError>;
    type SerializeTupleStruct = Impossible<usize, ToPyError>;
    type SerializeTupleVariant = Impossible<usize, ToPyError>;
    type SerializeMap = Impossible<usize, ToPyError>;
    type SerializeStruct = Impossible<usize, ToPyError>;
    type SerializeStructVariant = Impossible<usize, ToPyError>;

    fn serialize_str(self, v: &str) -> Result<usize> {
        Ok(self.0.slot(v))
    }
    fn serialize_char(self, v: char) -> Result<usize> {
        Ok(self.0.slot(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<usize> {
        Ok(self.0.slot(variant))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<usize> {
        value.serialize(self)
    }
    no_key!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_bytes: &[u8]);
    fn serialize_none(self) -> Result<usize> {
        not_a_string_key()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _value: &T) -> Result<usize> {
        not_a_string_key()
    }
    fn serialize_unit(self) -> Result<usize> {
        not_a_string_key()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<usize> {
        not_a_string_key()
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<usize> {
        not_a_string_key()
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        not_a_string_key()
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        not_a_string_key()
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        not_a_string_key()
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        not_a_string_key()
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        not_a_string_key()
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        not_a_string_key()
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        not_a_string_key()
    }
}

/// `value` (a record, or a list of them) as Python objects.
pub fn to_python<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    Objects::new(py).convert(value)
}

/// The link records of every report, as one list (what `linkbase.links` returns), without
/// collecting them into a vector first.
pub struct LinksOf<'a>(pub &'a [linkbase::Report]);

impl Serialize for LinksOf<'_> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().flat_map(|r| &r.links))
    }
}
