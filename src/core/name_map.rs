//! A small map keyed by pod name: what `replica_calculator.go` keeps in Go maps (samples and
//! requests per pod), as one sorted vector. Iteration is in name order (as a `BTreeMap`'s), a
//! duplicate name keeps its last value (as an insert into a map does), and a lookup first tries
//! the entry after the previous hit: pods and samples usually come in the same order, so a
//! lookup is one comparison instead of a search.

use std::cell::Cell;

/// Pod name → value, sorted by name.
#[derive(Debug, Clone)]
pub(super) struct NameMap<'a, V> {
    entries: Vec<(&'a str, V)>,
    /// The entry after the last one found.
    hint: Cell<usize>,
}

impl<'a, V> NameMap<'a, V> {
    /// The map of `entries`, in any order; of equal names the last one wins.
    pub(super) fn from_entries(mut entries: Vec<(&'a str, V)>) -> NameMap<'a, V> {
        if !entries.windows(2).all(|w| w[0].0 < w[1].0) {
            // Stable: equal names keep their order, so the last of each run is the latest.
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let mut out: Vec<(&'a str, V)> = Vec::with_capacity(entries.len());
            for e in entries {
                match out.last_mut() {
                    Some(last) if last.0 == e.0 => *last = e,
                    _ => out.push(e),
                }
            }
            entries = out;
        }
        NameMap {
            entries,
            hint: Cell::new(0),
        }
    }

    /// [`NameMap::from_entries`] of entries the caller knows to be in strictly increasing name
    /// order (`in_order`), which are then not compared again.
    pub(super) fn from_entries_in_order(entries: Vec<(&'a str, V)>, in_order: bool) -> Self {
        if in_order {
            NameMap {
                entries,
                hint: Cell::new(0),
            }
        } else {
            NameMap::from_entries(entries)
        }
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        let h = self.hint.get();
        let found = match self.entries.get(h) {
            Some(e) if same(e.0, name) => Ok(h),
            _ => self.entries.binary_search_by(|e| e.0.cmp(name)),
        };
        if let Ok(i) = found {
            self.hint.set(i + 1);
        }
        found
    }

    pub(super) fn get(&self, name: &str) -> Option<&V> {
        self.find(name).ok().map(|i| &self.entries[i].1)
    }

    /// [`NameMap::get`]; the entry found takes `name` as its key (the same text, so the order
    /// holds): a later lookup with this very `&str` compares no bytes.
    /// Also returns the entry's index (in name order).
    pub(super) fn get_adopting(&mut self, name: &'a str) -> Option<(usize, &V)> {
        let i = self.find(name).ok()?;
        self.entries[i].0 = name;
        Some((i, &self.entries[i].1))
    }

    pub(super) fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// Set `name`'s value (replacing any).
    pub(super) fn insert(&mut self, name: &'a str, value: V) {
        match self.find(name) {
            Ok(i) => self.entries[i].1 = value,
            Err(i) => self.entries.insert(i, (name, value)),
        }
    }

    pub(super) fn remove(&mut self, name: &str) {
        if let Ok(i) = self.find(name) {
            self.entries.remove(i);
            self.hint.set(i);
        }
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// In name order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&'a str, &V)> + '_ {
        self.entries.iter().map(|(k, v)| (*k, v))
    }

    pub(super) fn keys(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.entries.iter().map(|(k, _)| *k)
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.entries.iter().map(|(_, v)| v)
    }
}

/// Whether two names are equal; the same memory is, without comparing bytes.
fn same(a: &str, b: &str) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || a == b
}

impl<'a, V> FromIterator<(&'a str, V)> for NameMap<'a, V> {
    fn from_iter<I: IntoIterator<Item = (&'a str, V)>>(iter: I) -> NameMap<'a, V> {
        NameMap::from_entries(iter.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::NameMap;

    #[test]
    fn behaves_as_a_sorted_map_whose_last_insert_wins() {
        let m: NameMap<i32> = [("b", 1), ("a", 2), ("b", 3), ("c", 4)]
            .into_iter()
            .collect();
        assert_eq!(
            m.iter().collect::<Vec<_>>(),
            [("a", &2), ("b", &3), ("c", &4)]
        );
        assert_eq!(m.get("b"), Some(&3));
        assert_eq!(m.get("d"), None);
        let mut m = m;
        m.remove("a");
        m.insert("bb", 5);
        m.insert("c", 6);
        assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "bb", "c"]);
        assert_eq!(m.values().copied().collect::<Vec<_>>(), [3, 5, 6]);
        assert_eq!(m.len(), 3);
        assert!(m.contains_key("bb") && !m.contains_key("a"));
    }

    #[test]
    fn an_adopted_key_and_entries_known_in_order_change_no_answer() {
        let owned = String::from("b");
        let mut m: NameMap<i32> = [("c", 1), ("b", 2)].into_iter().collect();
        assert_eq!(m.get_adopting(owned.as_str()), Some((0, &2)));
        assert_eq!(m.get("b"), Some(&2));
        assert_eq!(m.keys().collect::<Vec<_>>(), ["b", "c"]);
        // Not known to be in order: sorted, the last of equal names wins.
        let m = NameMap::from_entries_in_order(vec![("b", 1), ("a", 2), ("b", 3)], false);
        assert_eq!(m.iter().collect::<Vec<_>>(), [("a", &2), ("b", &3)]);
        let m = NameMap::from_entries_in_order(vec![("a", 1), ("b", 2)], true);
        assert_eq!(m.get("b"), Some(&2));
    }
}
