//! The steps of kubectl's JSONPath subset and what they select in a document: shared by
//! `-o jsonpath=…` ([`super::jsonpath`]) and `-o custom-columns=…` ([`super::custom_columns`]).

use serde_json::Value;

/// One step of a path: `.name`, `[i]`, `[*]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Field(String),
    Index(usize),
    All,
}

/// What the steps find in `doc`, in document order (`[*]` over an object: its values).
pub fn select<'a>(doc: &'a Value, steps: &[Step]) -> Vec<&'a Value> {
    let mut current = vec![doc];
    for s in steps {
        current = current
            .into_iter()
            .flat_map(|v| -> Vec<&Value> {
                match (s, v) {
                    (Step::Field(f), Value::Object(m)) => m.get(f).into_iter().collect(),
                    (Step::Index(i), Value::Array(a)) => a.get(*i).into_iter().collect(),
                    (Step::All, Value::Array(a)) => a.iter().collect(),
                    (Step::All, Value::Object(m)) => m.values().collect(),
                    _ => Vec::new(),
                }
            })
            .collect();
    }
    current
}
