//! What an object is (apiVersion, kind, namespace, name, labels), read from its JSON text only
//! as far as needed: the reading stops once `apiVersion`, `kind` and `metadata` are read.
//! The API server writes them first (and the fetch puts a List item's type first), so the
//! spec and status of an object are not scanned just to route it — an `explain -A` reads
//! the head of each of thousands of objects several times (the assembly, the snapshot).

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// The head of an object as its text says it (`None`: absent or `null`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct TextHead {
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
    /// The labels when asked for ([`read_head`]'s `labels`), whatever their values.
    pub labels: Option<BTreeMap<String, Value>>,
}

/// `metadata` as the head reads it without labels (also `cluster::obj::with_type`'s scan, so
/// both read an object's names alike).
#[derive(Deserialize)]
pub struct MetaNames {
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Deserialize)]
struct MetaWithLabels {
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    labels: Option<BTreeMap<String, Value>>,
}

enum Key {
    ApiVersion,
    Kind,
    Metadata,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<Key, E> {
                Ok(match k {
                    "apiVersion" => Key::ApiVersion,
                    "kind" => Key::Kind,
                    "metadata" => Key::Metadata,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(KeyVisitor)
    }
}

struct HeadVisitor<'o> {
    out: &'o mut Option<TextHead>,
    labels: bool,
}

impl<'de> Visitor<'de> for HeadVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let dup = |k: &str| serde::de::Error::custom(format!("duplicate field `{k}`"));
        let mut head = TextHead::default();
        let mut seen = [false; 3];
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::ApiVersion if seen[0] => return Err(dup("apiVersion")),
                Key::ApiVersion => (head.api_version, seen[0]) = (map.next_value()?, true),
                Key::Kind if seen[1] => return Err(dup("kind")),
                Key::Kind => (head.kind, seen[1]) = (map.next_value()?, true),
                Key::Metadata if seen[2] => return Err(dup("metadata")),
                Key::Metadata if self.labels => {
                    if let Some(m) = map.next_value::<Option<MetaWithLabels>>()? {
                        (head.namespace, head.name, head.labels) = (m.namespace, m.name, m.labels);
                    }
                    seen[2] = true;
                }
                Key::Metadata => {
                    if let Some(m) = map.next_value::<Option<MetaNames>>()? {
                        (head.namespace, head.name) = (m.namespace, m.name);
                    }
                    seen[2] = true;
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            if seen == [true; 3] {
                // The rest is not read: the deserializer's complaint that the object did not
                // end here is ignored by `read_head`.
                break;
            }
        }
        *self.out = Some(head);
        Ok(())
    }
}

/// The head of an object's JSON text; `labels` reads its labels too. `None` when the text is
/// not an object, or a field read has the wrong type (`"name": 7`) or comes twice.
pub fn read_head(text: &str, labels: bool) -> Option<TextHead> {
    let mut out = None;
    let mut de = serde_json::Deserializer::from_str(text);
    // An error after the head was read is the unread rest: the head stands.
    let _ = de.deserialize_map(HeadVisitor {
        out: &mut out,
        labels,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_is_read_up_to_metadata_and_the_rest_is_not_read() {
        let h = read_head(
            r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","namespace":"n","labels":{"x":"1","y":2}},"spec":not json at all"#,
            true,
        )
        .expect("head");
        assert_eq!(
            (
                h.api_version.as_deref(),
                h.kind.as_deref(),
                h.namespace.as_deref(),
                h.name.as_deref()
            ),
            (Some("v1"), Some("Pod"), Some("n"), Some("a"))
        );
        let labels = h.labels.expect("labels");
        assert_eq!(
            (labels["x"].as_str(), labels["y"].as_i64()),
            (Some("1"), Some(2))
        );
        assert_eq!(
            read_head(
                r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","labels":{}}}"#,
                false
            )
            .expect("head")
            .labels,
            None
        );
    }

    #[test]
    fn any_order_absent_null_and_escaped_keys_read_as_a_whole_parse_would() {
        let h = read_head(
            r#"{"spec":{"a":[1,{"b":"}"}]},"metadata":{"name":"w\u0065b"},"status":{},"kind":null,"api\u0056ersion":"apps/v1"}"#,
            false,
        )
        .expect("head");
        assert_eq!(h.api_version.as_deref(), Some("apps/v1"));
        assert_eq!(h.kind, None);
        assert_eq!(h.name.as_deref(), Some("web"));
        assert_eq!(h.namespace, None);
        assert_eq!(
            read_head(r#"{"metadata":null}"#, true),
            Some(TextHead::default())
        );
        assert_eq!(read_head("{}", true), Some(TextHead::default()));
    }

    #[test]
    fn not_an_object_a_wrong_type_or_a_field_twice_has_no_head() {
        for text in [
            "[]",
            "7",
            r#"{"metadata":{"name":7}}"#,
            r#"{"kind":["Pod"]}"#,
            r#"{"metadata":{"labels":["a"]}}"#,
            r#"{"kind":"Pod","kind":"Pod","metadata":{}}"#,
        ] {
            assert_eq!(read_head(text, true), None, "{text}");
        }
        // As a whole derived parse reads it: an empty list is an empty metadata.
        assert_eq!(
            read_head(r#"{"metadata":[]}"#, true),
            Some(TextHead::default())
        );
        // Labels not asked for are not read.
        assert!(read_head(r#"{"metadata":{"labels":["a"]}}"#, false).is_some());
    }
}
