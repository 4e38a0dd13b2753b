//! The one YAML stack: every YAML read and write of the crate goes through here, on
//! `serde-saphyr` (the crate `kube` already compiles; it replaced the deprecated `serde_yaml`).
//!
//! Budgets: the parser enforces them while it reads, so a hostile file (deep nesting, alias
//! bombs, document storms) is refused with a one-line error instead of exhausting the stack or
//! memory. The limits are sized for the largest file we accept ([`crate::bounded_read`], 64 MiB):
//! a fleet snapshot of thousands of HPAs and tens of thousands of pods fits well inside them.

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use serde_saphyr::Error;
pub use serde_saphyr::SerializeError;

/// Deepest nesting of mappings and sequences accepted (the parser's default; deeper input overflowed a debug build's test-thread stack).
pub const MAX_DEPTH: usize = 64;

/// The parser's options: budgets sized for our largest files, one-line errors (no snippet).
pub fn options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_reader_input_bytes = Some(crate::bounded_read::MAX_INPUT_BYTES as usize);
    budget.max_depth = MAX_DEPTH;
    budget.max_events = 64 * 1024 * 1024;
    budget.max_nodes = 32 * 1024 * 1024;
    budget.max_documents = 1024 * 1024;
    budget.max_total_scalar_bytes = crate::bounded_read::MAX_INPUT_BYTES as usize;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.with_snippet = false;
    // YAML 1.2 booleans (only `true`/`false`), as serde_yaml read them: an Event's `reason: Y`
    // or a label value `n` stays a string.
    options.strict_booleans = true;
    options
}

/// One YAML document.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    serde_saphyr::from_str_with_options(text, options())
}

/// Every document of a YAML stream, in order (empty documents are skipped by the parser).
pub fn documents<T: DeserializeOwned>(text: &str) -> Result<Vec<T>, Error> {
    serde_saphyr::from_multiple_with_options(text, options())
}

/// A value as a YAML document (block style, no leading `---`).
pub fn to_string<T: Serialize>(value: &T) -> Result<String, SerializeError> {
    serde_saphyr::to_string(value)
}

/// The first line of a parse error, for one-line messages.
pub fn one_line(e: &Error) -> String {
    let text = e.to_string();
    text.lines().next().unwrap_or("").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_round_trips() {
        let v = serde_json::json!({"kind": "HorizontalPodAutoscaler", "n": 3, "s": "yes", "l": [1, {"a": null}]});
        let text = to_string(&v).unwrap();
        let back: serde_json::Value = from_str(&text).unwrap();
        assert_eq!(back, v);
    }

    #[test]
    fn only_true_and_false_are_booleans() {
        let v: serde_json::Value = from_str("a: Y\nb: no\nc: on\nd: true\n").unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": "Y", "b": "no", "c": "on", "d": true})
        );
    }

    #[test]
    fn a_stream_gives_each_document() {
        let docs: Vec<serde_json::Value> = documents("a: 1\n---\nb: 2\n").unwrap();
        assert_eq!(
            docs,
            vec![serde_json::json!({"a": 1}), serde_json::json!({"b": 2})]
        );
    }

    #[test]
    fn deep_nesting_is_refused_in_one_line() {
        let just = format!(
            "{}1{}",
            "[".repeat(MAX_DEPTH - 1),
            "]".repeat(MAX_DEPTH - 1)
        );
        assert!(from_str::<serde_json::Value>(&just).is_ok());
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = from_str::<serde_json::Value>(&deep).unwrap_err();
        assert!(!one_line(&e).is_empty());
    }

    #[test]
    fn a_syntax_error_names_the_line() {
        let e = from_str::<serde_json::Value>("a: [1,\nb: x: y").unwrap_err();
        let line = one_line(&e);
        assert!(line.contains("line 2"), "{line}");
    }
}
