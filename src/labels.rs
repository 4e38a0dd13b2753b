//! Label selectors: the string form the scale subresource returns (`app=web,tier in (a,b)`),
//! conversion from `metav1.LabelSelector`, and matching against a label map.
//!
//! This follows `k8s.io/apimachinery/pkg/labels`: requirements are ANDed; `=`/`==`/`!=`,
//! `in`/`notin`, `key` (exists) and `!key` (does not exist). `!=` and `notin` match objects that
//! lack the key.

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// One requirement of a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    DoesNotExist(String),
}

/// A parsed selector. An empty selector matches everything (as in Kubernetes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    pub requirements: Vec<Requirement>,
}

impl Selector {
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Does this selector select an object with these labels?
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.requirements.iter().all(|r| match r {
            Requirement::Equals(k, v) => labels.get(k) == Some(v),
            Requirement::NotEquals(k, v) => labels.get(k) != Some(v),
            Requirement::In(k, vs) => labels.get(k).is_some_and(|x| vs.contains(x)),
            Requirement::NotIn(k, vs) => labels.get(k).is_none_or(|x| !vs.contains(x)),
            Requirement::Exists(k) => labels.contains_key(k),
            Requirement::DoesNotExist(k) => !labels.contains_key(k),
        })
    }

    /// Convert a `metav1.LabelSelector` (matchLabels + matchExpressions).
    pub fn from_label_selector(sel: &LabelSelector) -> Result<Selector, SelectorError> {
        let mut requirements = Vec::new();
        if let Some(ml) = &sel.match_labels {
            for (k, v) in ml {
                validate_key(k)?;
                requirements.push(Requirement::Equals(k.clone(), v.clone()));
            }
        }
        for e in sel.match_expressions.iter().flatten() {
            validate_key(&e.key)?;
            let values = e.values.clone().unwrap_or_default();
            let r = match e.operator.as_str() {
                "In" | "NotIn" if values.is_empty() => {
                    return fail(format!(
                        "for 'in', 'notin' operators, values set can't be empty (key {:?})",
                        e.key
                    ))
                }
                "In" => Requirement::In(e.key.clone(), values),
                "NotIn" => Requirement::NotIn(e.key.clone(), values),
                "Exists" | "DoesNotExist" if !values.is_empty() => {
                    return fail(format!(
                        "values set must be empty for exists and does not exist (key {:?})",
                        e.key
                    ))
                }
                "Exists" => Requirement::Exists(e.key.clone()),
                "DoesNotExist" => Requirement::DoesNotExist(e.key.clone()),
                op => return fail(format!("{op:?} is not a valid label selector operator")),
            };
            requirements.push(r);
        }
        Ok(Selector { requirements })
    }

    /// Parse the string form (`labels.Parse`).
    pub fn parse(input: &str) -> Result<Selector, SelectorError> {
        let mut p = Parser {
            chars: input.chars().collect(),
            pos: 0,
        };
        let mut requirements = Vec::new();
        p.skip_ws();
        if p.at_end() {
            return Ok(Selector::default());
        }
        loop {
            requirements.push(p.requirement()?);
            p.skip_ws();
            if p.at_end() {
                break;
            }
            if !p.eat(',') {
                return fail(format!(
                    "unable to parse requirement: found '{}', expected: ','",
                    p.rest()
                ));
            }
        }
        Ok(Selector { requirements })
    }
}

impl fmt::Display for Selector {
    /// The canonical string form, as `labels.Selector.String()` prints it (sorted by key).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<(String, String)> = self
            .requirements
            .iter()
            .map(|r| {
                let key = match r {
                    Requirement::Equals(k, _)
                    | Requirement::NotEquals(k, _)
                    | Requirement::In(k, _)
                    | Requirement::NotIn(k, _)
                    | Requirement::Exists(k)
                    | Requirement::DoesNotExist(k) => k.clone(),
                };
                let text = match r {
                    Requirement::Equals(k, v) => format!("{k}={v}"),
                    Requirement::NotEquals(k, v) => format!("{k}!={v}"),
                    Requirement::In(k, vs) => format!("{k} in ({})", sorted(vs).join(",")),
                    Requirement::NotIn(k, vs) => format!("{k} notin ({})", sorted(vs).join(",")),
                    Requirement::Exists(k) => k.clone(),
                    Requirement::DoesNotExist(k) => format!("!{k}"),
                };
                (key, text)
            })
            .collect();
        parts.sort();
        let texts: Vec<String> = parts.into_iter().map(|(_, t)| t).collect();
        f.write_str(&texts.join(","))
    }
}

fn sorted(v: &[String]) -> Vec<String> {
    let mut v = v.to_vec();
    v.sort();
    v.dedup();
    v
}

fn validate_key(k: &str) -> Result<(), SelectorError> {
    let ok = !k.is_empty()
        && k.len() <= 317
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'));
    if ok {
        Ok(())
    } else {
        fail(format!("invalid label key {k:?}"))
    }
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn at_end(&self) -> bool {
        self.pos >= self.chars.len()
    }
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    fn rest(&self) -> String {
        self.chars[self.pos..].iter().collect()
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_str(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        let end = self.pos + n;
        if end <= self.chars.len() && self.chars[self.pos..end].iter().copied().eq(s.chars()) {
            self.pos = end;
            true
        } else {
            false
        }
    }
    fn token(&mut self) -> String {
        let start = self.pos;
        while self.peek().is_some_and(is_token_char) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }
    fn value(&mut self) -> Result<String, SelectorError> {
        self.skip_ws();
        let v = self.token();
        if v.len() > 63 {
            return fail(format!(
                "invalid label value {v:?}: must be 63 characters or less"
            ));
        }
        Ok(v)
    }
    fn set(&mut self) -> Result<Vec<String>, SelectorError> {
        self.skip_ws();
        if !self.eat('(') {
            return fail(format!("found '{}', expected: '('", self.rest()));
        }
        let mut values = Vec::new();
        loop {
            let v = self.value()?;
            self.skip_ws();
            if !v.is_empty() {
                values.push(v);
            }
            if self.eat(')') {
                break;
            }
            if !self.eat(',') {
                return fail(format!("found '{}', expected: ',' or ')'", self.rest()));
            }
        }
        if values.is_empty() {
            return fail("for 'in', 'notin' operators, values set can't be empty".into());
        }
        Ok(values)
    }
    fn requirement(&mut self) -> Result<Requirement, SelectorError> {
        self.skip_ws();
        let negated = self.eat('!');
        self.skip_ws();
        let key = self.token();
        if key.is_empty() {
            return fail(format!(
                "unable to parse requirement: found '{}', expected: identifier",
                self.rest()
            ));
        }
        validate_key(&key)?;
        if negated {
            return Ok(Requirement::DoesNotExist(key));
        }
        self.skip_ws();
        if self.at_end() || self.peek() == Some(',') {
            return Ok(Requirement::Exists(key));
        }
        if self.eat_str("==") || self.eat('=') {
            return Ok(Requirement::Equals(key, self.value()?));
        }
        if self.eat_str("!=") {
            return Ok(Requirement::NotEquals(key, self.value()?));
        }
        if self.eat_str("notin") {
            return Ok(Requirement::NotIn(key, self.set()?));
        }
        if self.eat_str("in") {
            return Ok(Requirement::In(key, self.set()?));
        }
        fail(format!(
            "unable to parse requirement: found '{}', expected: in, notin, =, ==, !=",
            self.rest()
        ))
    }
}

/// A label selector that does not parse or validate, in apimachinery's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError(String);

impl std::fmt::Display for SelectorError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SelectorError {}

fn fail<T>(message: String) -> Result<T, SelectorError> {
    Err(SelectorError(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn parses_and_matches_every_operator() {
        let s = Selector::parse("app=web, tier in (a, b),env!=prod,!legacy,team,zone notin (z1)")
            .unwrap();
        assert_eq!(s.requirements.len(), 6);
        let ok = labels(&[("app", "web"), ("tier", "a"), ("team", "x")]);
        assert!(s.matches(&ok));
        let mut bad = ok.clone();
        bad.insert("legacy".into(), "1".into());
        assert!(!s.matches(&bad));
        let mut bad = ok.clone();
        bad.insert("zone".into(), "z1".into());
        assert!(!s.matches(&bad));
        let mut bad = ok.clone();
        bad.insert("env".into(), "prod".into());
        assert!(!s.matches(&bad));
        assert!(!s.matches(&labels(&[("app", "web"), ("tier", "c"), ("team", "x")])));
    }

    #[test]
    fn canonical_string_is_sorted() {
        let s = Selector::parse("b=2,a in (y,x)").unwrap();
        assert_eq!(s.to_string(), "a in (x,y),b=2");
    }

    #[test]
    fn rejects_garbage() {
        assert!(Selector::parse("app=web,,").is_err());
        assert!(Selector::parse("app in ()").is_err());
        assert!(Selector::parse("app ~ web").is_err());
        assert!(Selector::parse("=web").is_err());
    }

    #[test]
    fn empty_selector_matches_all() {
        let s = Selector::parse("  ").unwrap();
        assert!(s.is_empty());
        assert!(s.matches(&labels(&[("x", "y")])));
    }

    #[test]
    fn from_label_selector_struct() {
        let sel: LabelSelector = serde_json::from_value(serde_json::json!({
            "matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]
        }))
        .unwrap();
        let s = Selector::from_label_selector(&sel).unwrap();
        assert!(s.matches(&labels(&[("app", "web")])));
        assert!(!s.matches(&labels(&[("app", "web"), ("tier", "db")])));
        assert_eq!(s.to_string(), "app=web,tier notin (db)");
        let bad: LabelSelector = serde_json::from_value(serde_json::json!({
            "matchExpressions": [{"key": "tier", "operator": "Like", "values": ["db"]}]
        }))
        .unwrap();
        assert!(Selector::from_label_selector(&bad).is_err());
    }
}
