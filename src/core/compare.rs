//! Comparisons of names and words, byte for byte as `str`'s, without a call to `memcmp`: a pod
//! average compares each pod's name with its sample's, and a sync compares the words of its
//! conditions, so these run millions of times in a `simulate`.

// perf: benches/simulate. A `memcmp` call per pod name spent more time than the rest of the
// pod's count (a masked vector compare per call); in line, eight bytes at a time, it left the
// profile. Checked against `str`'s order at every length and position (tests below).
/// `a < b` in byte order (as `str` compares), eight bytes at a time in line. Pod names are
/// short and share their prefix; `memcmp` called once per pod for such a comparison took more
/// time than everything else the pod's count does (measured: a masked vector compare per call).
#[inline]
pub(crate) fn precedes(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len().min(b.len());
    let word = |s: &[u8], at: usize| u64::from_be_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    if n < 8 {
        if let Some((p, q)) = a.iter().zip(b).find(|(p, q)| p != q) {
            return p < q;
        }
    } else {
        // Every eight bytes, the last eight overlapping the ones before (equal up to there).
        let mut at = 0;
        loop {
            let last = at + 8 >= n;
            if last {
                at = n - 8;
            }
            let (p, q) = (word(a, at), word(b, at));
            if p != q {
                return p < q;
            }
            if last {
                break;
            }
            at += 8;
        }
    }
    a.len() < b.len()
}

/// `a == b`, eight bytes at a time in line (no call to `memcmp`, see [`precedes`]).
#[inline]
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_ne_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    if n < 8 {
        return a.iter().zip(b).all(|(p, q)| p == q);
    }
    // Every eight bytes, the last eight overlapping the ones before.
    let mut at = 0;
    while at + 8 < n {
        if word(a, at) != word(b, at) {
            return false;
        }
        at += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

// perf: benches/simulate. The conditions a sync carries over are the controller's own
// `&'static str` words (`Word`), so most comparisons end at the pointers.
/// Whether two texts are equal; the same memory is, without comparing bytes (the bytes are
/// compared by [`same_name`], in line).
pub(crate) fn same_text(a: &str, b: &str) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || same_name(a, b)
}

#[cfg(test)]
mod tests {
    use super::{precedes, same_name, same_text};

    #[test]
    fn precedes_is_the_byte_order_of_texts() {
        let texts = [
            "",
            "a",
            "b",
            "ab",
            "web-",
            "web-sim",
            "web-sim-",
            "web-sim-0",
            "web-sim-00001",
            "web-sim-00002",
            "web-sim-00010",
            "web-sim-000010",
            "web-sim-0000100000000001",
            "web-sim-0000100000000002",
            "web-sim-00001000000000010",
            "web-sim-1",
            "web-sin-00001",
            "WEB-sim-00001",
            "é-pod",
            "e-pod",
            "\u{7f}",
            "zzzzzzzzzzzzzzzzz",
        ];
        for a in texts {
            for b in texts {
                assert_eq!(precedes(a, b), a < b, "{a:?} < {b:?}");
                assert_eq!(same_name(a, b), a == b, "{a:?} == {b:?}");
            }
        }
    }

    #[test]
    fn precedes_and_same_name_agree_with_str_at_every_length_and_position() {
        let base = "web-sim-0123456789abcdefghijklmn";
        let mut texts: Vec<String> = (0..=base.len()).map(|n| base[..n].to_string()).collect();
        for i in 0..base.len() {
            for delta in [1u8, 255] {
                let mut b = base.as_bytes().to_vec();
                b[i] = b[i].wrapping_add(delta) & 0x7f;
                texts.push(String::from_utf8(b).unwrap());
            }
        }
        for a in &texts {
            for b in &texts {
                assert_eq!(precedes(a, b), a < b, "{a:?} < {b:?}");
                assert_eq!(same_name(a, b), a == b, "{a:?} == {b:?}");
            }
        }
    }

    #[test]
    fn same_text_is_equality_whether_or_not_the_memory_is_shared() {
        let owned = String::from("ScalingActive");
        assert!(same_text("ScalingActive", &owned));
        assert!(same_text(&owned, &owned));
        assert!(!same_text(&owned[..7], &owned));
        assert!(!same_text("ScalingActivf", &owned));
    }
}
