//! One API object as the fetch holds it: its JSON text as the server sent it (or reduced, see
//! [`super::slim`]), never built as a `Value` tree. The few fields the assembly needs (names,
//! labels) are read from the text on demand; the snapshot reads the rest straight into its
//! typed structs, as it reads a snapshot file.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::snapshot::{MetaNames, Pod, TextHead};

/// An object's JSON text, its head once read (see [`Obj::text_head`]) and, for a pod the
/// fetch wrote from its typed fields, those fields (see [`Obj::typed_pod`]).
#[derive(Default, Clone)]
pub struct Obj {
    text: Box<RawValue>,
    head: OnceLock<Option<TextHead>>,
    pod: Option<Box<Pod>>,
}

impl Obj {
    /// The object's apiVersion, kind, namespace and name as its text says them, read once.
    ///
    /// perf: the assembly routes each object by namespace, keeps one per identity, and the
    /// snapshot routes it by kind: 47,750 head reads for five contexts of 500 HPAs (`cargo
    /// bench --bench fleet`), now one per object, none for a pod (its writer knows its head):
    /// callgrind 1,617 M → 1,477 M instructions (−8.7%).
    pub fn text_head(&self) -> Option<&TextHead> {
        self.head
            .get_or_init(|| crate::snapshot::read_head(self.text.get(), false))
            .as_ref()
    }

    /// The object whose head (without labels) its writer knows: the text's, checked in debug
    /// builds.
    pub fn with_head(text: Box<RawValue>, head: TextHead) -> Obj {
        debug_assert_eq!(
            crate::snapshot::read_head(text.get(), false).as_ref(),
            Some(&head),
            "the head given is the text's"
        );
        Obj {
            text,
            head: OnceLock::from(Some(head)),
            pod: None,
        }
    }

    /// A pod written from `pod`'s fields as `text`, with its head; the snapshot takes the
    /// fields rather than reading the text again ([`Obj::parts`]).
    pub fn typed_pod(text: Box<RawValue>, head: TextHead, pod: Pod) -> Obj {
        Obj {
            pod: Some(Box::new(pod)),
            ..Obj::with_head(text, head)
        }
    }

    /// The text, its head, and the typed pod when the fetch kept it (taken: a second call
    /// gives none).
    pub fn parts(&mut self) -> (&RawValue, Option<&TextHead>, Option<Pod>) {
        self.text_head();
        let Obj { text, head, pod } = self;
        let head = head.get().and_then(Option::as_ref);
        (&**text, head, pod.take().map(|p| *p))
    }
}

impl From<Box<RawValue>> for Obj {
    fn from(text: Box<RawValue>) -> Obj {
        Obj {
            text,
            head: OnceLock::new(),
            pod: None,
        }
    }
}

impl std::ops::Deref for Obj {
    type Target = RawValue;
    fn deref(&self) -> &RawValue {
        &self.text
    }
}

impl std::fmt::Debug for Obj {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.text.fmt(f)
    }
}

impl serde::Serialize for Obj {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(s)
    }
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
    let h = crate::snapshot::read_head(o.get(), true).unwrap_or_default();
    Head {
        namespace: h.namespace.unwrap_or_else(|| "default".into()),
        name: h.name.unwrap_or_default(),
        labels: h
            .labels
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k, v.as_str()?.to_string())))
            .collect(),
    }
}

/// The head of an object without its labels (where it goes).
pub fn place(o: &Obj) -> Head {
    let h = o.text_head();
    Head {
        namespace: h
            .and_then(|h| h.namespace.clone())
            .unwrap_or_else(|| "default".into()),
        name: h.and_then(|h| h.name.clone()).unwrap_or_default(),
        labels: BTreeMap::new(),
    }
}

/// An Event's type and reason, borrowed from its text (strings with escapes read as owned).
#[derive(Deserialize, Default)]
struct EventWire<'a> {
    #[serde(default, borrow, rename = "type")]
    type_: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    reason: Option<std::borrow::Cow<'a, str>>,
}

/// An object's identity as `Snapshot::drop_replaced` keys a merged file's: its apiVersion's
/// group (`apps` of `apps/v1`, empty for the core group: two versions of one object are one),
/// kind, namespace and name. `None`: not an object with a kind and a name (never merged).
pub fn identity(o: &Obj) -> Option<[String; 4]> {
    let h = o.text_head()?;
    let (kind, name) = (h.kind.clone()?, h.name.clone()?);
    let group = h
        .api_version
        .as_deref()
        .and_then(|v| v.split_once('/'))
        .map_or("", |(g, _)| g)
        .to_string();
    Some([group, kind, h.namespace.clone().unwrap_or_default(), name])
}

/// Is an Event a Warning, or a Normal one of `reasons`?
pub fn warning_or_reason(o: &RawValue, reasons: &[&str]) -> bool {
    serde_json::from_str::<EventWire>(o.get()).is_ok_and(|w| {
        w.type_.as_deref() == Some("Warning")
            || w.reason.as_deref().is_some_and(|r| reasons.contains(&r))
    })
}

/// The text of a `Value` (a GET's answer joining a List).
pub fn of_value(v: &Value) -> Obj {
    // A Value always serializes, and to valid JSON.
    RawValue::from_string(v.to_string())
        .unwrap_or_default()
        .into()
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
    /// Read in the same scan for the object's head ([`Obj::text_head`]), as the head's
    /// reader reads it: any other shape fails this scan, and [`TypeOnlyWire`] reads the type.
    #[serde(default)]
    metadata: Option<MetaNames>,
    /// Set when [`TypeOnlyWire`] read the type: the head is left to its reader.
    #[serde(skip)]
    unread_metadata: bool,
}

/// [`TypeWire`] without `metadata`.
#[derive(Deserialize)]
struct TypeOnlyWire {
    #[serde(default, rename = "apiVersion", deserialize_with = "present")]
    api_version: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    kind: Option<Value>,
}

impl TypeWire {
    /// The head of the object once `apiVersion` and `kind` are `api_version` and `kind`
    /// (spliced in where absent), when this scan read it.
    fn head(&self, api_version: &str, kind: &str) -> Option<TextHead> {
        let typed = |f: &Option<Value>, given: &str| match f {
            None => Some(Some(given.to_string())),
            Some(Value::String(s)) => Some(Some(s.clone())),
            // An explicit null or another value: left to the reader.
            Some(_) => None,
        };
        if self.unread_metadata {
            return None;
        }
        let (namespace, name) = match &self.metadata {
            None => (None, None),
            Some(m) => (m.namespace.clone(), m.name.clone()),
        };
        Some(TextHead {
            api_version: typed(&self.api_version, api_version)?,
            kind: typed(&self.kind, kind)?,
            namespace,
            name,
            labels: None,
        })
    }
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
    let t = match serde_json::from_str::<TypeWire>(o.get()) {
        Ok(t) => t,
        // A `metadata` of another shape, or twice: typed as before, the head left to its reader.
        Err(_) => match serde_json::from_str::<TypeOnlyWire>(o.get()) {
            Ok(t) => TypeWire {
                api_version: t.api_version,
                kind: t.kind,
                metadata: None,
                unread_metadata: true,
            },
            Err(_) => return Ok(o),
        },
    };
    let missing = |f: &Option<Value>| f.as_ref().is_none_or(Value::is_null);
    let (av, k) = (missing(&t.api_version), missing(&t.kind));
    // perf: the head read in this scan, not again (five contexts of 500 HPAs, `cargo bench
    // --bench fleet`: callgrind 1,351 M → 1,315 M instructions, −2.7%).
    let head = t.head(api_version, kind);
    if !av && !k {
        return Ok(match head {
            Some(h) => Obj::with_head(o.text, h),
            None => o,
        });
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
    let text = RawValue::from_string(s)?;
    Ok(match head {
        Some(h) => Obj::with_head(text, h),
        None => Obj::from(text),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Obj {
        of_value(&v)
    }

    #[test]
    fn an_objects_identity_is_its_group_kind_namespace_and_name() {
        let id = |v: Value| identity(&obj(v));
        let ev = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"namespace": "shop", "name": "web.1"}});
        assert_eq!(
            id(ev),
            Some(["".into(), "Event".into(), "shop".into(), "web.1".into()])
        );
        // Two versions of one object are one; another group's kind is another object.
        let v1 = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"namespace": "a", "name": "b"}});
        let v2 = json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"namespace": "a", "name": "b"}});
        assert_eq!(id(v1), id(v2));
        assert_eq!(id(json!({"kind": "Event", "metadata": {}})), None);
        assert_eq!(
            RawValue::from_string(
                r#"{"apiVersion":"v1","kind":"Event","metadata":{"name":"n\u00e9"}}"#.into()
            )
            .ok()
            .and_then(|o| identity(&Obj::from(o)))
            .map(|i| i[3].clone()),
            Some("né".to_string())
        );
    }

    #[test]
    fn of_the_events_a_warning_or_a_reason_asked_for() {
        let ev = |t: &str, r: &str| obj(json!({"kind": "Event", "type": t, "reason": r}));
        let reasons = ["TriggeredScaleUp", "Nominated"];
        assert!(warning_or_reason(
            &ev("Warning", "FailedScheduling"),
            &reasons
        ));
        assert!(warning_or_reason(
            &ev("Normal", "TriggeredScaleUp"),
            &reasons
        ));
        assert!(!warning_or_reason(
            &ev("Normal", "SuccessfulAttachVolume"),
            &reasons
        ));
    }

    #[test]
    fn the_head_read_while_typing_is_the_texts() {
        let texts = [
            r#"{"metadata":{"name":"a","namespace":"n","labels":{"x":"y"}},"spec":{}}"#,
            r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"a"}}"#,
            r#"{"kind":"Other","metadata":null}"#,
            r#"{"metadata":"text"}"#,
            r#"{"metadata":[1,2]}"#,
            r#"{"metadata":7}"#,
            r#"{"metadata":{"name":"a","name":"b"}}"#,
            r#"{"metadata":{"name":5}}"#,
            r#"{"metadata":{"name":"escaped","namespace":null}}"#,
            r#"{"metadata":{},"metadata":{"name":"twice"}}"#,
            r#"{"apiVersion":null,"metadata":{"name":"a"}}"#,
            r#"{"apiVersion":3,"metadata":{"name":"a"}}"#,
            r#"{"apiVersion":"v1","kind":"Pod","kind":"Pod"}"#,
            r#"{}"#,
            r#"[1]"#,
        ];
        for t in texts {
            let typed = with_type(
                RawValue::from_string(t.into()).expect("json").into(),
                ("v1", "Pod"),
            )
            .expect("typed");
            let fresh = crate::snapshot::read_head(typed.get(), false);
            assert_eq!(typed.text_head(), fresh.as_ref(), "{t}");
        }
        // The scan settles the usual item: its head is known without a second read.
        let typed = with_type(
            RawValue::from_string(texts[0].into()).expect("json").into(),
            ("v1", "Pod"),
        )
        .expect("typed");
        assert!(typed.head.get().is_some());
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
        let p = place(&o);
        assert_eq!(
            (p.namespace.as_str(), p.name.as_str()),
            ("default", "web-1")
        );
        assert!(p.labels.is_empty(), "place reads no labels");
        // Bad labels spoil the head, not the place (its labels are not read).
        let bad = obj(json!({"metadata": {"name": "w", "namespace": "n", "labels": [1]}}));
        assert_eq!(
            (
                head(&bad).namespace.as_str(),
                place(&bad).namespace.as_str()
            ),
            ("default", "n")
        );
    }
}
