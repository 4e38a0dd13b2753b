//! `-o jsonpath=TEMPLATE`: the subset of kubectl's JSONPath templates that reads fields out of the
//! JSON output — `{.desiredReplicas}`, `{.verdict.action}`, `{.metrics[0].type}`,
//! `{.items[*].name}`, literal text between expressions and `{"\n"}`.
//!
//! Not supported (an error names them): `range`/`end`, filters `[?()]`, slices `[1:3]`, `..`.

use serde_json::Value;

use super::path::{select, Step};

/// Why a template cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("jsonpath: {0}")]
pub struct TemplateError(pub String);

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    Path(Vec<Step>),
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    parts: Vec<Part>,
}

impl Template {
    /// Parse a template: text with `{...}` expressions.
    pub fn parse(s: &str) -> Result<Template, TemplateError> {
        let mut parts = Vec::new();
        let mut rest = s;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Text(rest[..open].to_string()));
            }
            let close = rest[open..]
                .find('}')
                .map(|c| open + c)
                .ok_or_else(|| TemplateError(format!("unclosed '{{' in {s:?}")))?;
            parts.push(expression(rest[open + 1..close].trim())?);
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        if parts.is_empty() {
            return Err(TemplateError("empty template".into()));
        }
        Ok(Template { parts })
    }

    /// Apply the template to a document. A path that matches nothing is an error, as in kubectl.
    pub fn apply(&self, doc: &Value) -> Result<String, TemplateError> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Path(steps) => {
                    let found = select(doc, steps);
                    if found.is_empty() {
                        return Err(TemplateError(format!("{} is not found", show(steps))));
                    }
                    let texts: Vec<String> = found.iter().map(|v| scalar(v)).collect();
                    out.push_str(&texts.join(" "));
                }
            }
        }
        Ok(out)
    }
}

fn expression(e: &str) -> Result<Part, TemplateError> {
    if let Some(lit) = e.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        let text = lit.replace("\\n", "\n").replace("\\t", "\t");
        return Ok(Part::Text(text));
    }
    let body = e
        .strip_prefix('$')
        .unwrap_or(e)
        .strip_prefix('.')
        .ok_or_else(|| TemplateError(format!("{{{e}}}: expected a path starting with '.'")))?;
    if body.is_empty() {
        return Ok(Part::Path(Vec::new()));
    }
    if e.starts_with("range") || e == "end" || body.contains("..") || body.contains('?') {
        return Err(TemplateError(format!("{{{e}}} is not supported")));
    }
    let mut steps = Vec::new();
    for segment in body.split('.') {
        let (name, mut brackets) = match segment.find('[') {
            Some(b) => (&segment[..b], &segment[b..]),
            None => (segment, ""),
        };
        if name.is_empty() && brackets.is_empty() {
            return Err(TemplateError(format!("{{{e}}}: empty field name")));
        }
        if !name.is_empty() {
            steps.push(Step::Field(name.to_string()));
        }
        while let Some(inner) = brackets.strip_prefix('[') {
            let end = inner
                .find(']')
                .ok_or_else(|| TemplateError(format!("{{{e}}}: unclosed '['")))?;
            let idx = &inner[..end];
            steps.push(match idx {
                "*" => Step::All,
                i => Step::Index(i.parse().map_err(|_| {
                    TemplateError(format!("{{{e}}}: [{i}] is not supported (use [N] or [*])"))
                })?),
            });
            brackets = &inner[end + 1..];
        }
        if !brackets.is_empty() {
            return Err(TemplateError(format!("{{{e}}}: unexpected {brackets:?}")));
        }
    }
    Ok(Part::Path(steps))
}

fn show(steps: &[Step]) -> String {
    let mut s = String::new();
    for st in steps {
        match st {
            Step::Field(f) => {
                s.push('.');
                s.push_str(f);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
            Step::All => s.push_str("[*]"),
        }
    }
    if s.is_empty() {
        ".".into()
    } else {
        s
    }
}

/// Strings print raw, everything else as compact JSON (as kubectl does).
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn apply(t: &str, v: &Value) -> Result<String, TemplateError> {
        Template::parse(t)?.apply(v)
    }

    #[test]
    fn fields_indexes_and_wildcards() {
        let doc = json!({"desiredReplicas": 5, "verdict": {"action": "ScaleUp"},
            "items": [{"name": "a"}, {"name": "b"}], "metrics": [{"type": "Resource"}]});
        assert_eq!(apply("{.desiredReplicas}", &doc).unwrap(), "5");
        assert_eq!(apply("{.verdict.action}", &doc).unwrap(), "ScaleUp");
        assert_eq!(apply("{.items[*].name}", &doc).unwrap(), "a b");
        assert_eq!(apply("{.metrics[0].type}", &doc).unwrap(), "Resource");
        assert_eq!(
            apply("desired={.desiredReplicas}{\"\\n\"}", &doc).unwrap(),
            "desired=5\n"
        );
        assert_eq!(
            apply("{.verdict}", &doc).unwrap(),
            r#"{"action":"ScaleUp"}"#
        );
    }

    #[test]
    fn errors_name_the_problem() {
        let doc = json!({"a": 1});
        assert!(apply("{.b}", &doc)
            .unwrap_err()
            .0
            .contains(".b is not found"));
        assert!(Template::parse("{.a").is_err());
        assert!(Template::parse("{range .items[*]}").is_err());
        assert!(Template::parse("{.items[?(@.x)]}").is_err());
        assert!(Template::parse("{a}").is_err());
        assert!(Template::parse("").is_err());
    }
}
