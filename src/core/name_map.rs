//! A small map keyed by pod name: what `replica_calculator.go` keeps in Go maps (samples and
//! requests per pod), as one sorted vector. Iteration is in name order (as a `BTreeMap`'s), a
//! duplicate name keeps its last value (as an insert into a map does), and a lookup first tries
//! the entry after the previous hit: pods and samples usually come in the same order, so a
//! lookup is one comparison instead of a search.

use std::cell::Cell;

use super::compare::{precedes, same_text};

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
        if !entries.windows(2).all(|w| precedes(w[0].0, w[1].0)) {
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

    // perf: benches/simulate. Pods and samples come in the same order, so the entry after the
    // last hit is nearly always the one: one comparison instead of a binary search per pod.
    #[inline]
    fn find(&self, name: &str) -> Result<usize, usize> {
        let h = self.hint.get();
        let found = match self.entries.get(h) {
            Some(e) if same_text(e.0, name) => Ok(h),
            _ => self.entries.binary_search_by(|e| e.0.cmp(name)),
        };
        if let Ok(i) = found {
            self.hint.set(i + 1);
        }
        found
    }

    #[inline]
    pub(super) fn get(&self, name: &str) -> Option<&V> {
        self.find(name).ok().map(|i| &self.entries[i].1)
    }

    /// [`NameMap::get`], with the entry's index (in name order).
    #[inline]
    pub(super) fn get_index(&self, name: &str) -> Option<(usize, &V)> {
        let i = self.find(name).ok()?;
        Some((i, &self.entries[i].1))
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// In name order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&'a str, &V)> + '_ {
        self.entries.iter().map(|(k, v)| (*k, v))
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.entries.iter().map(|(_, v)| v)
    }
}

// perf: benches/simulate. With the evaluator's other buffers, a sync whose pods stay the same
// allocates nothing (the peak RSS is the same after 1 day and after 30).
/// The buffer of a map's entries kept between two maps (of two syncs) with no name in it: the
/// next map borrows its names for its own lifetime and reuses the allocation.
#[derive(Debug, Clone)]
pub(super) struct Spare<V>(Vec<(&'static str, V)>);

impl<V> Default for Spare<V> {
    fn default() -> Self {
        Spare(Vec::new())
    }
}

impl<V> Spare<V> {
    /// The buffer, empty, for entries whose names borrow for `'a`.
    pub(super) fn take<'a>(&mut self) -> Vec<(&'a str, V)> {
        recycle(std::mem::take(&mut self.0))
    }

    /// Keep `map`'s buffer for the next map.
    pub(super) fn keep(&mut self, map: NameMap<'_, V>) {
        self.0 = recycle(map.entries);
    }
}

/// `v`'s allocation for entries borrowing for another lifetime: emptied, then collected in
/// place (collecting a vector's own iterator into elements of the same size and alignment
/// reuses its buffer; no element is left to convert).
fn recycle<'b, V>(mut v: Vec<(&str, V)>) -> Vec<(&'b str, V)> {
    v.clear();
    v.into_iter().map(|_| unreachable!("emptied")).collect()
}

impl<V> Default for NameMap<'_, V> {
    fn default() -> Self {
        NameMap {
            entries: Vec::new(),
            hint: Cell::new(0),
        }
    }
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
        assert_eq!(m.values().copied().collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn a_spare_buffer_is_reused_by_the_next_map() {
        let mut spare = super::Spare::default();
        let names = [String::from("a"), String::from("b")];
        let mut buf = spare.take();
        buf.extend(names.iter().map(|n| (n.as_str(), 1)));
        let m = NameMap::from_entries(buf);
        let ptr = m.entries.as_ptr() as usize;
        spare.keep(m);
        let other = [String::from("c")];
        let mut buf = spare.take();
        assert!(buf.is_empty() && buf.capacity() >= 2);
        assert_eq!(buf.as_ptr() as usize, ptr);
        buf.push((other[0].as_str(), 2));
        assert_eq!(NameMap::from_entries(buf).get("c"), Some(&2));
    }

    #[test]
    fn a_lookup_gives_the_index_in_name_order_whatever_was_found_before() {
        let m: NameMap<i32> = [("c", 1), ("a", 2), ("b", 3)].into_iter().collect();
        let owned = String::from("b");
        assert_eq!(m.get_index(owned.as_str()), Some((1, &3)));
        // After a hit the next entry is tried first; a miss there still searches.
        assert_eq!(m.get_index("a"), Some((0, &2)));
        assert_eq!(m.get_index("c"), Some((2, &1)));
        assert_eq!(m.get_index("bb"), None);
        assert_eq!(m.get_index("b"), Some((1, &3)));
    }
}
