//! `--sort-by`: kubectl's relaxed JSONPath (`.desiredReplicas`, `{.decision.proposal}`,
//! `name`) on the fleet's rows, the items of `-o json` (`namespace`, `name`, `target.kind`,
//! `currentReplicas`, `desiredReplicas`, `minReplicas`, `maxReplicas`, `action`, `decidedBy`,
//! `warnings`, `decision.…`); `.metadata.name` and `.metadata.namespace` work too, as in kubectl.
//!
//! Numbers sort as numbers, text as text (numbers first); rows without the field come last.
//! The sort is stable: ties keep the namespace/name order.

use std::cmp::Ordering;

use serde::Serialize;
use serde_json::{json, Value};

use crate::output::jsonpath::{Template, TemplateError};

/// A `--sort-by` expression, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct SortBy {
    /// As given, for messages.
    pub expression: String,
    template: Template,
}

/// Why a `--sort-by` expression cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortByError(pub String);

impl std::fmt::Display for SortByError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SortByError {}

impl From<TemplateError> for SortByError {
    fn from(e: TemplateError) -> SortByError {
        SortByError(e.0)
    }
}

/// The value a row sorts by.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
enum Key {
    Number(f64),
    Text(String),
    Missing,
}

impl SortBy {
    /// Parse `.a.b`, `a.b`, `{.a.b}` (kubectl's relaxed form): one path, nothing around it.
    pub fn parse(s: &str) -> Result<SortBy, SortByError> {
        let inner = s.trim();
        let inner = inner
            .strip_prefix('{')
            .and_then(|x| x.strip_suffix('}'))
            .unwrap_or(inner)
            .trim();
        if inner.is_empty() || inner.contains(['{', '}']) {
            return Err(SortByError(format!(
                "{s:?}: expected one field path, e.g. .desiredReplicas"
            )));
        }
        let path = if inner.starts_with('.') {
            inner.to_string()
        } else {
            format!(".{inner}")
        };
        let template = Template::parse(&format!("{{{path}}}"))?;
        Ok(SortBy {
            expression: s.to_string(),
            template,
        })
    }

    /// The items (fleet rows: anything that serializes to an object with `name` and
    /// `namespace`) in this order; a stable sort: ties keep their order.
    pub fn sorted<T: Serialize + Clone>(&self, items: &[T]) -> Vec<T> {
        let mut keyed: Vec<(Key, &T)> = items.iter().map(|i| (self.key(i), i)).collect();
        keyed.sort_by(|a, b| compare(&a.0, &b.0));
        keyed.into_iter().map(|(_, i)| i.clone()).collect()
    }

    fn key<T: Serialize>(&self, item: &T) -> Key {
        let Ok(mut doc) = serde_json::to_value(item) else {
            return Key::Missing;
        };
        if let Value::Object(m) = &mut doc {
            let meta = json!({"name": m.get("name"), "namespace": m.get("namespace")});
            m.insert("metadata".into(), meta);
        }
        key_of(self.template.apply(&doc).ok())
    }
}

/// What the template printed: empty, `null` and not found are missing; numbers are numbers.
fn key_of(text: Option<String>) -> Key {
    match text {
        None => Key::Missing,
        Some(t) if t.is_empty() || t == "null" => Key::Missing,
        Some(t) => match t.parse::<f64>() {
            Ok(n) if n.is_finite() => Key::Number(n),
            _ => Key::Text(t),
        },
    }
}

fn compare(a: &Key, b: &Key) -> Ordering {
    match (a, b) {
        (Key::Number(x), Key::Number(y)) => x.total_cmp(y),
        (Key::Text(x), Key::Text(y)) => x.cmp(y),
        (Key::Missing, Key::Missing) => Ordering::Equal,
        (Key::Missing, _) => Ordering::Greater,
        (_, Key::Missing) => Ordering::Less,
        (Key::Number(_), Key::Text(_)) => Ordering::Less,
        (Key::Text(_), Key::Number(_)) => Ordering::Greater,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relaxed_paths_as_kubectl_takes_them() {
        for s in [".desiredReplicas", "desiredReplicas", "{.desiredReplicas}"] {
            let k = SortBy::parse(s).expect(s);
            assert_eq!(k.expression, s);
            assert_eq!(k.template, Template::parse("{.desiredReplicas}").unwrap());
        }
        assert!(SortBy::parse("").is_err());
        assert!(SortBy::parse("{.a}{.b}").is_err());
        assert!(SortBy::parse(".items[?(@.a)]").is_err());
    }

    #[test]
    fn numbers_as_numbers_text_as_text_missing_last() {
        let keys: Vec<Key> = [Some("10"), Some("9"), None, Some("b"), Some("a"), Some("")]
            .into_iter()
            .map(|t| key_of(t.map(String::from)))
            .collect();
        let mut sorted = keys.clone();
        sorted.sort_by(compare);
        assert_eq!(
            sorted,
            vec![
                Key::Number(9.0),
                Key::Number(10.0),
                Key::Text("a".into()),
                Key::Text("b".into()),
                Key::Missing,
                Key::Missing,
            ]
        );
    }
}
