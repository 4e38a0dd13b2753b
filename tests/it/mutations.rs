//! A mutation fuzzer over the examples (issue 25): objects replaced by lists (`[]`, `[7]`, the
//! object's values in order — what a positional read would take), and control characters
//! inserted into strings. Every run must end without a panic or a hang, print one error line
//! or a decision, never a raw control character — and an object replaced by a list is an error
//! or leaves the decision unchanged (the field is not read): never a silent wrong answer.
//!
//! `KUBECTL_HPA_MUTATIONS=N` runs N mutations (default 240); `KUBECTL_HPA_MUTATION_SEED=S`
//! another sequence.

use crate::support::binary::*;
use crate::support::fake_apiserver::load_snapshot;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// xorshift64*: a reproducible sequence without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The control sequences inserted: OSC 52 (clipboard), C1 CSI, NUL, CR, DEL, NEL, a
/// concealing SGR, a bell.
const CONTROLS: &[&str] = &[
    "\u{1b}]52;c;aGk=\u{7}",
    "\u{9b}2J",
    "\u{0}",
    "\r",
    "\u{7f}",
    "\u{85}",
    "\u{1b}[8m",
    "\u{7}",
];

/// The JSON pointers of the nodes of `v` that `pick` selects (the root left out).
fn paths(v: &Value, at: String, pick: &dyn Fn(&Value) -> bool, out: &mut Vec<String>) {
    if !at.is_empty() && pick(v) {
        out.push(at.clone());
    }
    let esc = |k: &str| k.replace('~', "~0").replace('/', "~1");
    match v {
        Value::Object(m) => m
            .iter()
            .for_each(|(k, c)| paths(c, format!("{at}/{}", esc(k)), pick, out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, c)| paths(c, format!("{at}/{i}"), pick, out)),
        _ => {}
    }
}

/// An example as one JSON List.
fn example_list(file: &str) -> Value {
    let mut items = Vec::new();
    for d in load_snapshot(example(file)) {
        match d["items"].as_array() {
            Some(i) if d["kind"] == "List" => items.extend(i.iter().cloned()),
            _ => items.push(d),
        }
    }
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// A control character, NUL included, raw in the output.
fn raw_control(bytes: &[u8]) -> Option<char> {
    String::from_utf8_lossy(bytes)
        .chars()
        .find(|c| c.is_control() && *c != '\n' && *c != '\t')
}

/// (current, desired) of an explanation.
fn replicas(v: &Value) -> (Value, Value) {
    (v["currentReplicas"].clone(), v["desiredReplicas"].clone())
}

struct Case<'a> {
    name: &'a str,
    file: &'a Path,
    what: String,
}

impl Case<'_> {
    /// Run explain; check the universal properties; the JSON decision when there is one.
    fn run(&self, extra: &[&str]) -> Option<Value> {
        let mut args = vec!["explain"];
        if !self.name.is_empty() {
            args.push(self.name);
        }
        let f = self.file.to_string_lossy();
        args.extend(["-n", "shop", "--snapshot", &f, "--now", NOW]);
        args.extend(extra);
        let t = Instant::now();
        let out = run(&args, None);
        let took = t.elapsed();
        let err = stderr(&out);
        let what = &self.what;
        assert!(took < Duration::from_secs(20), "{what}: took {took:?}");
        assert!(
            matches!(out.status.code(), Some(0 | 1 | 3)),
            "{what}: exit {:?}: {err}",
            out.status.code()
        );
        assert!(!err.contains("panicked"), "{what}: {err}");
        if out.status.code() == Some(1) {
            assert!(err.starts_with("error: "), "{what}: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{what}: {err}");
        }
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            if let Some(c) = raw_control(bytes) {
                panic!("{what}: raw {c:?} on {stream}");
            }
        }
        match (out.status.code(), extra.contains(&"json")) {
            (Some(0 | 3), true) => Some(
                serde_json::from_slice(&out.stdout)
                    .unwrap_or_else(|e| panic!("{what}: not JSON: {e}")),
            ),
            _ => None,
        }
    }
}

#[test]
fn mutated_examples_never_panic_print_controls_or_decide_silently_wrong() {
    let n: usize = std::env::var("KUBECTL_HPA_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(240);
    let seed = std::env::var("KUBECTL_HPA_MUTATION_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_2025_u64);
    let mut rng = Rng(seed | 1);
    let dir = tmpdir("mutations");
    let file = dir.join("mutated.json");
    let lists: Vec<(&str, Value, Value)> = EXAMPLES
        .iter()
        .map(|(name, f)| {
            let list = example_list(f);
            std::fs::write(&file, list.to_string()).expect("write");
            let case = Case {
                name,
                file: &file,
                what: format!("{f} as it is"),
            };
            let base = case.run(&["-o", "json"]).expect("the example decides");
            (*name, list, base)
        })
        .collect();
    let (mut to_list, mut controls) = (0, 0);
    for i in 0..n {
        let (name, list, base) = &lists[rng.below(lists.len())];
        let mut doc = list.clone();
        let structural = i % 2 == 0;
        let mut found = Vec::new();
        let pick: &dyn Fn(&Value) -> bool = if structural {
            &|v| v.is_object()
        } else {
            &|v| v.is_string()
        };
        paths(&doc, String::new(), pick, &mut found);
        let at = found[rng.below(found.len())].clone();
        let node = doc.pointer_mut(&at).expect("the path");
        let what;
        if structural {
            let values: Vec<Value> = node
                .as_object()
                .into_iter()
                .flatten()
                .map(|(_, v)| v.clone())
                .collect();
            let replacement = match rng.below(3) {
                0 => json!([]),
                1 => json!([7]),
                _ => Value::Array(values),
            };
            what = format!(
                "{name}: {at} -> {}",
                replacement.to_string().chars().take(60).collect::<String>()
            );
            *node = replacement;
            to_list += 1;
        } else {
            let s = node.as_str().unwrap_or_default().to_string();
            let cut = s
                .char_indices()
                .map(|(i, _)| i)
                .nth(rng.below(s.chars().count() + 1))
                .unwrap_or(s.len());
            let c = CONTROLS[rng.below(CONTROLS.len())];
            what = format!("{name}: {at} gets {c:?}");
            *node = json!(format!("{}{c}{}", &s[..cut], &s[cut..]));
            controls += 1;
        }
        std::fs::write(&file, doc.to_string()).expect("write");
        let case = Case {
            name,
            file: &file,
            what,
        };
        let decided = case.run(&["-o", "json"]);
        if structural {
            if let Some(d) = decided {
                assert_eq!(
                    replicas(&d),
                    replicas(base),
                    "{}: a silent wrong answer",
                    case.what
                );
            }
        } else {
            // The renderers: one HPA's text, the fleet table.
            case.run(&["-o", "wide"]);
            Case {
                name: "",
                file: &file,
                what: format!("{} (fleet)", case.what),
            }
            .run(&[]);
        }
    }
    assert!(to_list > 0 && controls > 0);
}
