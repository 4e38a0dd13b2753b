//! A resource list (a container's `resources.requests`, a pod's `overhead`, a PodMetrics
//! container's `usage`): resource name → milli-units, in name order like the API's map.
//!
//! The algorithm looks a resource up once per pod and container at every sync (hundreds of
//! thousands of times in `simulate`). Names are kept as [`Resource`]s, whose well-known
//! resources (`cpu`, `memory`) are variants rather than text: a lookup by a [`Resource`] made
//! once per metric compares tags, not bytes. A list holds one or two entries, so it is a
//! vector searched from the front.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;

/// A resource name.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Resource(Name);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Name {
    Cpu,
    Memory,
    /// Any other name (`ephemeral-storage`, `nvidia.com/gpu` ...); never `cpu` or `memory`.
    Other(Box<str>),
}

impl Resource {
    pub const CPU: Resource = Resource(Name::Cpu);
    pub const MEMORY: Resource = Resource(Name::Memory);

    pub fn new(name: &str) -> Resource {
        Resource(match name {
            "cpu" => Name::Cpu,
            "memory" => Name::Memory,
            other => Name::Other(other.into()),
        })
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Name::Cpu => "cpu",
            Name::Memory => "memory",
            Name::Other(s) => s,
        }
    }
}

impl From<&str> for Resource {
    fn from(s: &str) -> Self {
        Resource::new(s)
    }
}

impl From<String> for Resource {
    fn from(s: String) -> Self {
        match s.as_str() {
            "cpu" => Resource::CPU,
            "memory" => Resource::MEMORY,
            _ => Resource(Name::Other(s.into_boxed_str())),
        }
    }
}

impl Borrow<str> for Resource {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl Ord for Resource {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Resource {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Resource name → milli-units, each name once, in name order.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Resources {
    entries: Vec<(Resource, i64)>,
}

impl Resources {
    pub fn new() -> Resources {
        Resources::default()
    }

    /// The value of `resource` (a lookup that compares no text for `cpu` and `memory`).
    // perf: benches/simulate. A PodMetrics container's usage holds one resource: it is
    // compared without a search (the pod average reads one per pod and sync). Debug builds
    // compare the answer with the search's.
    #[inline]
    pub fn of(&self, resource: &Resource) -> Option<i64> {
        if let [(r, v)] = &self.entries[..] {
            let sole = (r == resource).then_some(*v);
            debug_assert_eq!(sole, self.search(resource));
            return sole;
        }
        self.search(resource)
    }

    /// [`Resources::of`] by a search from the front.
    #[inline]
    fn search(&self, resource: &Resource) -> Option<i64> {
        self.entries
            .iter()
            .find(|(r, _)| r == resource)
            .map(|(_, v)| *v)
    }

    /// The value of the resource named `name`.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.entries
            .iter()
            .find(|(r, _)| r.as_str() == name)
            .map(|(_, v)| *v)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Set `resource`'s value (replacing any), keeping the name order.
    pub fn insert(&mut self, resource: impl Into<Resource>, value: i64) {
        let resource = resource.into();
        match self.entries.binary_search_by(|(r, _)| r.cmp(&resource)) {
            Ok(i) => self.entries[i].1 = value,
            Err(i) => self.entries.insert(i, (resource, value)),
        }
    }

    /// The entry of `resource`, to write in place.
    pub fn of_mut(&mut self, resource: &Resource) -> Option<&mut i64> {
        self.entries
            .iter_mut()
            .find(|(r, _)| r == resource)
            .map(|(_, v)| v)
    }

    /// The value of the list's only entry, when it holds exactly one.
    #[inline]
    pub fn sole_mut(&mut self) -> Option<&mut i64> {
        match &mut self.entries[..] {
            [(_, v)] => Some(v),
            _ => None,
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// In name order.
    pub fn iter(&self) -> impl Iterator<Item = (&Resource, i64)> + '_ {
        self.entries.iter().map(|(r, v)| (r, *v))
    }

    /// In name order.
    pub fn keys(&self) -> impl Iterator<Item = &Resource> + '_ {
        self.entries.iter().map(|(r, _)| r)
    }
}

impl<R: Into<Resource>> FromIterator<(R, i64)> for Resources {
    fn from_iter<I: IntoIterator<Item = (R, i64)>>(iter: I) -> Self {
        let mut out = Resources::new();
        for (r, v) in iter {
            out.insert(r, v);
        }
        out
    }
}

impl<R: Into<Resource>, const N: usize> From<[(R, i64); N]> for Resources {
    fn from(entries: [(R, i64); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl fmt::Debug for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_well_known_ones_are_tags() {
        for name in ["cpu", "memory", "ephemeral-storage", "nvidia.com/gpu", ""] {
            assert_eq!(Resource::new(name).as_str(), name);
            assert_eq!(Resource::from(name.to_string()).as_str(), name);
        }
        assert_eq!(Resource::new("cpu"), Resource::CPU);
        assert_eq!(Resource::from("memory".to_string()), Resource::MEMORY);
        assert_ne!(Resource::new("cpu"), Resource::new("cpu "));
    }

    #[test]
    fn a_list_keeps_name_order_and_the_last_value_of_a_name() {
        let r: Resources = [
            ("memory", 5),
            ("cpu", 1),
            ("ephemeral-storage", 2),
            ("cpu", 3),
        ]
        .into_iter()
        .collect();
        let keys: Vec<&str> = r.keys().map(Resource::as_str).collect();
        assert_eq!(keys, ["cpu", "ephemeral-storage", "memory"]);
        assert_eq!(r.get("cpu"), Some(3));
        assert_eq!(r.of(&Resource::CPU), Some(3));
        assert_eq!(r.of(&Resource::new("ephemeral-storage")), Some(2));
        assert_eq!(r.get("gpu"), None);
        assert!(!r.contains_key("gpu"));
        assert_eq!(
            format!("{r:?}"),
            r#"{"cpu": 3, "ephemeral-storage": 2, "memory": 5}"#
        );
    }

    #[test]
    fn a_value_is_written_in_place_by_its_resource() {
        let mut r = Resources::from([("cpu", 1), ("memory", 2)]);
        *r.of_mut(&Resource::CPU).unwrap() = 10;
        assert_eq!(r, Resources::from([("memory", 2), ("cpu", 10)]));
        assert!(r.of_mut(&Resource::new("gpu")).is_none());
    }
}
