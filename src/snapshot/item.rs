//! One object of a snapshot, either already parsed (`Value`: YAML files, fetched Lists) or a
//! borrowed slice of JSON text (`RawValue`: JSON files, parsed straight into the typed,
//! reduced structs the evaluation reads — nothing else is built).

use std::fmt::{self, Display};

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::error::{err, SnapshotError};
use super::shape::MapsOnly;

pub(super) enum Item<'a> {
    Owned(Value),
    Raw(&'a RawValue),
}

/// What identifies an object, for dispatch and messages.
#[derive(Debug, Default)]
pub(super) struct Head {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl Head {
    /// The head an object's text gives ([`super::read_head`] without labels).
    pub fn of_text(h: &super::TextHead) -> Head {
        let s = |f: &Option<String>| f.clone().unwrap_or_default();
        Head {
            api_version: s(&h.api_version),
            kind: s(&h.kind),
            namespace: s(&h.namespace),
            name: s(&h.name),
        }
    }
}

/// `Pod shop/web-1`, for messages.
impl Display for Head {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.kind.is_empty() {
            "object"
        } else {
            &self.kind
        };
        let name = if self.name.is_empty() {
            "<unnamed>"
        } else {
            &self.name
        };
        if self.namespace.is_empty() {
            write!(f, "{kind} {name}")
        } else {
            write!(f, "{kind} {}/{name}", self.namespace)
        }
    }
}

/// Where an item is, for its errors (`SOURCE: items[3] Pod shop/web-1`, `SOURCE: items[3]
/// PodMetrics`), written only when an error is: reading a file or a fetch builds no text per
/// item.
pub(super) struct Ctx<'a> {
    pub source: &'a str,
    pub position: &'a dyn Display,
    /// The item: its [`Head`], or what a metrics list holds.
    pub what: &'a dyn Display,
}

impl Display for Ctx<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}{}", self.source, self.position, self.what)
    }
}

/// The position of item `i` of a List at `outer` (`items[1] items[3] `).
pub(super) struct Nested<'a> {
    pub outer: &'a dyn Display,
    pub i: usize,
}

impl Display for Nested<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}items[{}] ", self.outer, self.i)
    }
}

/// Whether an object has a `spec` (read whole: only objects of an unknown kind ask).
#[derive(Deserialize, Default)]
struct SpecWire {
    #[serde(default)]
    spec: Option<IgnoredAny>,
}

/// The objects of an object kept as it is (events, APIServices, custom resources) that are read
/// as objects: `metadata`, an Event's subject and series, status conditions.
#[derive(Deserialize)]
pub(super) struct KeptShape {
    #[serde(default, rename = "metadata")]
    _metadata: Option<Shape>,
    #[serde(default, rename = "involvedObject")]
    _involved_object: Option<Shape>,
    #[serde(default, rename = "regarding")]
    _regarding: Option<Shape>,
    #[serde(default, rename = "series")]
    _series: Option<Shape>,
    #[serde(default, rename = "status")]
    _status: Option<StatusShape>,
}

#[derive(Deserialize)]
struct StatusShape {
    #[serde(default, rename = "conditions")]
    _conditions: Option<Vec<Shape>>,
}

/// Any object (its fields are not read here).
#[derive(Deserialize)]
struct Shape {}

#[derive(Deserialize)]
struct ItemsWire<'a> {
    #[serde(borrow, default)]
    items: Option<&'a RawValue>,
}

fn str_of<'v>(v: &'v Value, path: &str) -> &'v str {
    v.pointer(path).and_then(Value::as_str).unwrap_or_default()
}

impl<'a> Item<'a> {
    pub fn head(&self) -> Head {
        match self {
            Item::Owned(v) => Head {
                api_version: str_of(v, "/apiVersion").to_string(),
                kind: str_of(v, "/kind").to_string(),
                namespace: str_of(v, "/metadata/namespace").to_string(),
                name: str_of(v, "/metadata/name").to_string(),
            },
            Item::Raw(r) => {
                Head::of_text(&super::head::read_head(r.get(), false).unwrap_or_default())
            }
        }
    }

    /// Whether the object has a `spec` (an unknown kind with one is kept as a custom resource).
    pub fn has_spec(&self) -> bool {
        match self {
            Item::Owned(v) => v.get("spec").is_some(),
            Item::Raw(r) => serde_json::from_str::<SpecWire>(r.get())
                .ok()
                .is_some_and(|w| w.spec.is_some()),
        }
    }

    /// Deserialize into `T`; errors name the field. The fast path does not track the field
    /// path; only a failure is parsed again to name it.
    pub fn typed<T: DeserializeOwned, C: Display + ?Sized>(
        self,
        ctx: &C,
    ) -> Result<T, SnapshotError> {
        self.read(ctx)
    }

    /// Check that the object has the shape of `T` (the objects kept as they are: a list where
    /// `T` has an object is an error naming the field).
    pub fn check<T: DeserializeOwned, C: Display + ?Sized>(
        &self,
        ctx: &C,
    ) -> Result<(), SnapshotError> {
        self.read::<T, C>(ctx).map(drop)
    }

    fn read<T: DeserializeOwned, C: Display + ?Sized>(&self, ctx: &C) -> Result<T, SnapshotError> {
        let located = |path: String, inner: String| {
            if path == "." || path.is_empty() {
                err(format!("{ctx}: {inner}"))
            } else {
                err(format!("{ctx}: field {path}: {inner}"))
            }
        };
        // Objects are read as objects only (`spec: [7]` is not `replicas: 7`): see `MapsOnly`.
        match self {
            Item::Owned(v) => match T::deserialize(MapsOnly(v)) {
                Ok(t) => Ok(t),
                Err(_) => serde_path_to_error::deserialize(MapsOnly(v))
                    .map_err(|e| located(e.path().to_string(), e.into_inner().to_string())),
            },
            Item::Raw(r) => {
                let mut de = serde_json::Deserializer::from_str(r.get());
                match T::deserialize(MapsOnly(&mut de)).and_then(|t| de.end().map(|()| t)) {
                    Ok(t) => Ok(t),
                    Err(_) => {
                        let mut de = serde_json::Deserializer::from_str(r.get());
                        serde_path_to_error::deserialize(MapsOnly(&mut de))
                            .map_err(|e| located(e.path().to_string(), e.into_inner().to_string()))
                    }
                }
            }
        }
    }

    /// The object as a `Value` (kept as it is: events, APIServices, custom resources).
    pub fn into_value<C: Display + ?Sized>(self, ctx: &C) -> Result<Value, SnapshotError> {
        match self {
            Item::Owned(v) => Ok(v),
            Item::Raw(r) => serde_json::from_str(r.get()).map_err(|e| err(format!("{ctx}: {e}"))),
        }
    }

    /// The `items` of a List (`None`: absent or null).
    pub fn items<C: Display + ?Sized>(
        self,
        ctx: &C,
    ) -> Result<Option<Vec<Item<'a>>>, SnapshotError> {
        let not_a_list = || err(format!("{ctx}: field items: expected a list"));
        match self {
            Item::Owned(mut v) => match v.get_mut("items").map(Value::take) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Array(a)) => Ok(Some(a.into_iter().map(Item::Owned).collect())),
                Some(_) => Err(not_a_list()),
            },
            Item::Raw(r) => {
                let w: ItemsWire<'a> = serde_json::from_str(r.get()).map_err(|_| not_a_list())?;
                match w.items {
                    None => Ok(None),
                    Some(raw) if raw.get().trim() == "null" => Ok(None),
                    Some(raw) => {
                        let list: Vec<&'a RawValue> =
                            serde_json::from_str(raw.get()).map_err(|_| not_a_list())?;
                        Ok(Some(list.into_iter().map(Item::Raw).collect()))
                    }
                }
            }
        }
    }
}
