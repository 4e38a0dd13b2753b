//! Objects are read as objects only. A derived serde `Deserialize` of a struct also accepts a
//! sequence, read positionally: a Deployment's `spec: [7]` would become `replicas: 7`, and a
//! pod with `metadata: []` a pod without a name (which no selector lists: it would disappear
//! from the count). [`MapsOnly`] wraps a deserializer so that every struct, at any depth, must
//! be a map; a sequence is the error [`LIST_FOR_OBJECT`]. Everything
//! else passes through unchanged.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

/// Read JSON text into `T`, objects as objects only (the live fetch's reduced pods).
pub fn from_json<'a, T: serde::Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let t = T::deserialize(MapsOnly(&mut de))?;
    de.end()?;
    Ok(t)
}

/// The error of a list where an object is read.
pub(super) const LIST_FOR_OBJECT: &str =
    "expected an object (a map of fields), found a list: fix the file's shape (as `kubectl get -o yaml` writes it)";

/// A deserializer that refuses a sequence where a struct is read (see the module).
pub(super) struct MapsOnly<D>(pub D);

/// Forward a `deserialize_*` call, the visitor wrapped (`structs`: refusing sequences).
macro_rules! forward {
    ($($name:ident),*) => {$(
        fn $name<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$name(Guard { inner: visitor, structs: false })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for MapsOnly<D> {
    type Error = D::Error;

    forward!(
        deserialize_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier,
        deserialize_ignored_any
    );

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Guard::new(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Guard::new(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Guard::new(visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_tuple_struct(name, len, Guard::new(visitor))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let guard = Guard {
            inner: visitor,
            structs: true,
        };
        self.0.deserialize_struct(name, fields, guard)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, Guard::new(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// A visitor whose nested values are read through [`MapsOnly`]; `structs`: it reads a struct,
/// so a sequence is refused.
struct Guard<V> {
    inner: V,
    structs: bool,
}

impl<V> Guard<V> {
    fn new(inner: V) -> Guard<V> {
        Guard {
            inner,
            structs: false,
        }
    }
}

/// Forward `visit_*` calls of plain values.
macro_rules! visit {
    ($($name:ident: $t:ty),*) => {$(
        fn $name<E: de::Error>(self, v: $t) -> Result<V::Value, E> {
            self.inner.$name(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Guard<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    visit!(visit_bool: bool, visit_i8: i8, visit_i16: i16, visit_i32: i32, visit_i64: i64,
        visit_i128: i128, visit_u8: u8, visit_u16: u16, visit_u32: u32, visit_u64: u64,
        visit_u128: u128, visit_f32: f32, visit_f64: f64, visit_char: char, visit_str: &str,
        visit_borrowed_str: &'de str, visit_string: String, visit_bytes: &[u8],
        visit_borrowed_bytes: &'de [u8], visit_byte_buf: Vec<u8>);

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(MapsOnly(d))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(MapsOnly(d))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        if self.structs {
            return Err(de::Error::custom(LIST_FOR_OBJECT));
        }
        self.inner.visit_seq(Access(seq))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(Access(map))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(Access(data))
    }
}

/// A sequence's, map's, enum's or variant's access whose values are read through [`MapsOnly`].
struct Access<A>(A);

/// A seed whose value is read through [`MapsOnly`].
struct Seed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(MapsOnly(d))
    }
}

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for Access<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for Access<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Seed(seed))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: de::EnumAccess<'de>> de::EnumAccess<'de> for Access<A> {
    type Error = A::Error;
    type Variant = Access<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let (v, rest) = self.0.variant_seed(Seed(seed))?;
        Ok((v, Access(rest)))
    }
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Access<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Seed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Guard::new(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let guard = Guard {
            inner: visitor,
            structs: true,
        };
        self.0.struct_variant(fields, guard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq, Default)]
    struct Spec {
        #[serde(default)]
        replicas: Option<i32>,
        #[serde(default)]
        inner: Option<Inner>,
        #[serde(default)]
        list: Vec<Inner>,
    }

    #[derive(Debug, Deserialize, PartialEq, Default)]
    struct Inner {
        #[serde(default)]
        name: String,
    }

    fn from_text(t: &str) -> Result<Spec, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(t);
        Spec::deserialize(MapsOnly(&mut de))
    }

    #[test]
    fn a_sequence_where_a_struct_is_read_is_refused_at_any_depth() {
        // What plain serde does: positional.
        assert_eq!(
            serde_json::from_str::<Spec>("[7]").unwrap().replicas,
            Some(7)
        );
        for bad in [
            "[7]",
            r#"{"inner": ["x"]}"#,
            r#"{"list": [{"name": "a"}, ["b"]]}"#,
        ] {
            let e = from_text(bad).unwrap_err().to_string();
            assert!(e.contains(LIST_FOR_OBJECT), "{bad}: {e}");
            let v: serde_json::Value = serde_json::from_str(bad).unwrap();
            assert!(Spec::deserialize(MapsOnly(&v)).is_err(), "{bad} as a Value");
        }
        let good = r#"{"replicas": 3, "inner": {"name": "a"}, "list": [{"name": "b"}]}"#;
        let s = from_text(good).unwrap();
        assert_eq!(s.replicas, Some(3));
        assert_eq!(s.list[0].name, "b");
        assert_eq!(
            Spec::deserialize(MapsOnly(&json!({"inner": null}))).unwrap(),
            Spec::default()
        );
    }
}
