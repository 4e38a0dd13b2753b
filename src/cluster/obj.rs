//! One API object as the fetch holds it: its JSON text as the server sent it (or reduced, see
//! [`super::slim`]), never built as a `Value` tree. The few fields the assembly needs (names,
//! labels) are read from the text on demand; the snapshot reads the rest straight into its
//! typed structs, as it reads a snapshot file.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// An object's JSON text.
pub type Obj = Box<RawValue>;

#[derive(Deserialize, Default)]
struct HeadWire {
    #[serde(default)]
    metadata: Option<MetaWire>,
}

#[derive(Deserialize, Default)]
struct MetaWire {
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    labels: Option<BTreeMap<String, Value>>,
}

/// What the assembly reads of an object: its namespace (`default` when it has none), name
/// and string labels.
#[derive(Debug, Default, PartialEq)]
pub struct Head {
    pub namespace: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
}

/// The head of an object (empty when the text is not an object with metadata).
pub fn head(o: &RawValue) -> Head {
    let md = serde_json::from_str::<HeadWire>(o.get())
        .ok()
        .and_then(|h| h.metadata)
        .unwrap_or_default();
    Head {
        namespace: md.namespace.unwrap_or_else(|| "default".into()),
        name: md.name.unwrap_or_default(),
        labels: md
            .labels
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k, v.as_str()?.to_string())))
            .collect(),
    }
}

/// The text of a `Value` (a GET's answer joining a List).
pub fn of_value(v: &Value) -> Obj {
    // A Value always serializes, and to valid JSON.
    RawValue::from_string(v.to_string()).unwrap_or_default()
}

/// The object as a `Value` (for the one object a caller reads many fields of).
pub fn to_value(o: &RawValue) -> Value {
    serde_json::from_str(o.get()).unwrap_or(Value::Null)
}

#[derive(Deserialize)]
struct TypeWire {
    #[serde(default, rename = "apiVersion", deserialize_with = "present")]
    api_version: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    kind: Option<Value>,
}

/// A field that is there, `null` included (`Some(Null)`; an absent one is `None`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The object with `apiVersion`/`kind` set where it has none (the items of a LIST usually
/// have neither), spliced into its text; anything but an object is left as it is.
pub fn with_type(o: Obj, (api_version, kind): (&str, &str)) -> serde_json::Result<Obj> {
    if kind.is_empty() {
        return Ok(o);
    }
    let Ok(t) = serde_json::from_str::<TypeWire>(o.get()) else {
        return Ok(o);
    };
    let missing = |f: &Option<Value>| f.as_ref().is_none_or(Value::is_null);
    let (av, k) = (missing(&t.api_version), missing(&t.kind));
    if !av && !k {
        return Ok(o);
    }
    if t.api_version.is_some() && av || t.kind.is_some() && k {
        // An explicit null: set through a Value (a second key would be a duplicate).
        let mut v = to_value(&o);
        if let Some(m) = v.as_object_mut() {
            for (key, want, val) in [("apiVersion", av, api_version), ("kind", k, kind)] {
                if want {
                    m.insert(key.into(), Value::from(val));
                }
            }
        }
        return Ok(of_value(&v));
    }
    let text = o.get().trim_start();
    let Some(rest) = text.strip_prefix('{') else {
        return Ok(o);
    };
    let mut s = String::with_capacity(text.len() + api_version.len() + kind.len() + 32);
    s.push('{');
    if av {
        s.push_str("\"apiVersion\":");
        s.push_str(&serde_json::to_string(api_version)?);
        s.push(',');
    }
    if k {
        s.push_str("\"kind\":");
        s.push_str(&serde_json::to_string(kind)?);
        s.push(',');
    }
    if rest.trim_start().starts_with('}') {
        s.pop();
    }
    s.push_str(rest);
    RawValue::from_string(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Obj {
        of_value(&v)
    }

    #[test]
    fn the_type_is_spliced_in_where_it_is_missing_and_nowhere_else() {
        let typed = |v: Value| to_value(&with_type(obj(v), ("v1", "Pod")).expect("json"));
        let md = json!({"name": "a"});
        assert_eq!(
            typed(json!({"metadata": md})),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": md})
        );
        assert_eq!(typed(json!({})), json!({"apiVersion": "v1", "kind": "Pod"}));
        assert_eq!(
            typed(json!({"kind": "Other", "metadata": md})),
            json!({"apiVersion": "v1", "kind": "Other", "metadata": md})
        );
        assert_eq!(
            typed(json!({"apiVersion": null, "kind": "Pod"})),
            json!({"apiVersion": "v1", "kind": "Pod"})
        );
        assert_eq!(typed(json!("text")), json!("text"));
        let untouched = with_type(obj(json!({"a": 1})), ("", "")).expect("json");
        assert_eq!(untouched.get(), r#"{"a":1}"#);
    }

    #[test]
    fn the_head_is_read_from_the_text() {
        let o = obj(
            json!({"metadata": {"name": "web-1", "labels": {"app": "web", "n": 1}},
            "spec": {"big": [1, 2, 3]}}),
        );
        let h = head(&o);
        assert_eq!(
            (h.namespace.as_str(), h.name.as_str()),
            ("default", "web-1")
        );
        assert_eq!(h.labels, BTreeMap::from([("app".into(), "web".into())]));
        assert_eq!(head(&obj(json!([1]))).name, "");
    }
}
