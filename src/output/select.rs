//! `-o name`, `-o jsonpath=…` and `-o custom-columns=…`: what they print is selected from the
//! typed document itself, turned into a [`Value`] once (`serde_json::to_value`), never from the
//! JSON text printed and parsed back. The text round trip is not exact: serde_json's default
//! parser can land one unit in the last place away from a float (`1.0000000000052753` reads
//! back as `1.0000000000052751`), so a selected number could differ from the same number in
//! `-o json`. Selected values print as in `-o json`, as kubectl prints an object's fields.

use serde::Serialize;
use serde_json::Value;

use super::custom_columns::Columns;
use super::jsonpath::{Template, TemplateError};

/// What `-o name`, `-o jsonpath=…` and `-o custom-columns=…` print from a document.
#[derive(Debug, Clone, PartialEq)]
pub enum Select {
    /// `horizontalpodautoscaler.autoscaling/NAME`, one line per HPA.
    Name,
    JsonPath(Template),
    /// `custom-columns=` / `custom-columns-file=`.
    CustomColumns(Columns),
}

/// A selection that could not be printed.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    /// The template's path finds nothing (kubectl fails the same way).
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The document could not be turned into a JSON value.
    #[error("cannot select from the JSON output: {0}")]
    Json(#[from] serde_json::Error),
}

impl Select {
    /// What this selection prints from `doc` (one decision, or a document with `items`): the
    /// document is turned into a JSON value once and selected from.
    pub fn print<T: Serialize + ?Sized>(&self, doc: &T) -> Result<String, SelectError> {
        self.apply(&serde_json::to_value(doc)?)
    }

    /// What this selection prints from a document already held as a JSON value.
    pub fn apply(&self, doc: &Value) -> Result<String, SelectError> {
        Ok(match self {
            Select::JsonPath(t) => t.apply(doc)?,
            Select::CustomColumns(c) => c.render(doc),
            Select::Name => {
                let one = |v: &Value| {
                    v.get("name")
                        .and_then(Value::as_str)
                        .map(|n| format!("horizontalpodautoscaler.autoscaling/{n}\n"))
                        .unwrap_or_default()
                };
                match doc.get("items").and_then(Value::as_array) {
                    Some(items) => items.iter().map(one).collect(),
                    None => one(doc),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document with the numbers a text round trip could change.
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Doc {
        name: &'static str,
        ratio: f64,
        big: i64,
        huge: u64,
        items: Vec<Item>,
    }

    #[derive(Serialize)]
    struct Item {
        name: &'static str,
        ratio: f64,
    }

    fn doc() -> Doc {
        Doc {
            name: "web",
            // serde_json's default parser reads this one's shortest text back one unit lower.
            ratio: 1.000_000_000_005_275_3,
            big: i64::MIN + 1,
            huge: u64::MAX,
            items: vec![Item {
                name: "a",
                ratio: 1.000_000_000_021_100_7,
            }],
        }
    }

    fn jsonpath(t: &str) -> Select {
        Select::JsonPath(Template::parse(t).expect("template"))
    }

    #[test]
    fn numbers_print_as_in_the_json_output() {
        let d = doc();
        let json = crate::output::json(&d).expect("json");
        let printed = jsonpath("{.ratio} {.big} {.huge} {.items[0].ratio}")
            .print(&d)
            .expect("selects");
        // Exactly the texts `-o json` prints for these fields, as kubectl prints them.
        assert_eq!(
            printed,
            "1.0000000000052753 -9223372036854775807 18446744073709551615 1.0000000000211007"
        );
        for field in printed.split(' ') {
            assert!(json.contains(field), "{field} not in {json}");
        }
        let columns = Columns::parse("NAME:.name,RATIO:.ratio").expect("columns");
        assert_eq!(
            Select::CustomColumns(columns).print(&d).expect("columns"),
            "NAME   RATIO\na      1.0000000000211007\n"
        );
    }

    #[test]
    fn names_of_one_document_and_of_a_list() {
        let one = serde_json::json!({"name": "web", "desiredReplicas": 5});
        let fleet = serde_json::json!({"items": [{"name": "a"}, {"name": "b"}]});
        assert_eq!(
            Select::Name.print(&one).unwrap(),
            "horizontalpodautoscaler.autoscaling/web\n"
        );
        assert_eq!(
            Select::Name.print(&fleet).unwrap(),
            "horizontalpodautoscaler.autoscaling/a\nhorizontalpodautoscaler.autoscaling/b\n"
        );
        assert!(jsonpath("{.missing}")
            .print(&one)
            .unwrap_err()
            .to_string()
            .contains(".missing is not found"));
    }
}
