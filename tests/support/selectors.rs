//! Kubernetes label and field selectors, as the API server evaluates them.
//!
//! Labels: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`,
//! `k>3`, `k<3`, comma-separated (commas inside parentheses belong to a set).
//! Fields: `path=v`, `path==v`, `path!=v` where `path` is a dotted JSON path
//! into the object (`metadata.name`, `involvedObject.kind`, `regarding.uid`...);
//! a missing field compares as the empty string.
#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
enum Op {
    Eq(String),
    NotEq(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    NotExists,
    Gt(i64),
    Lt(i64),
}

/// A parsed selector: every requirement must hold (logical AND).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selector(Vec<(String, Op)>);

/// Splits on commas that are not inside parentheses.
fn split_top_level(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn parse_set(rest: &str) -> Result<Vec<String>, String> {
    let rest = rest.trim();
    let inner = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(|| format!("expected a parenthesised set, found {rest:?}"))?;
    Ok(inner
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect())
}

impl Selector {
    /// Parses a label selector; `Err` carries a message for a 400 Status.
    pub fn parse_labels(s: &str) -> Result<Selector, String> {
        let mut reqs = Vec::new();
        for part in split_top_level(s) {
            if let Some(key) = part.strip_prefix('!') {
                reqs.push((key.trim().to_string(), Op::NotExists));
                continue;
            }
            // set-based: "key in (...)" / "key notin (...)"
            let mut words = part.splitn(2, char::is_whitespace);
            let key = words.next().unwrap_or_default().to_string();
            let rest = words.next().unwrap_or_default().trim_start();
            if let Some(set) = rest.strip_prefix("notin") {
                reqs.push((key, Op::NotIn(parse_set(set)?)));
                continue;
            }
            if let Some(set) = rest.strip_prefix("in") {
                reqs.push((key, Op::In(parse_set(set)?)));
                continue;
            }
            reqs.push(Self::parse_equality(&part, true)?);
        }
        Ok(Selector(reqs))
    }

    /// Parses a field selector (only equality operators, as the server allows).
    pub fn parse_fields(s: &str) -> Result<Selector, String> {
        split_top_level(s)
            .iter()
            .map(|p| Self::parse_equality(p, false))
            .collect::<Result<_, _>>()
            .map(Selector)
    }

    fn parse_equality(part: &str, labels: bool) -> Result<(String, Op), String> {
        let bad = || format!("unable to parse requirement: {part:?}");
        for (tok, ctor) in [("!=", 0), ("==", 1), ("=", 1), (">", 2), ("<", 3)] {
            if let Some((k, v)) = part.split_once(tok) {
                let (k, v) = (k.trim().to_string(), v.trim().to_string());
                if k.is_empty() || (ctor >= 2 && !labels) {
                    return Err(bad());
                }
                let op = match ctor {
                    0 => Op::NotEq(v),
                    1 => Op::Eq(v),
                    2 => Op::Gt(v.parse().map_err(|_| bad())?),
                    _ => Op::Lt(v.parse().map_err(|_| bad())?),
                };
                return Ok((k, op));
            }
        }
        if labels && !part.contains(char::is_whitespace) {
            return Ok((part.to_string(), Op::Exists));
        }
        Err(bad())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Evaluates against a label map (`None` value = label absent).
    pub fn matches_labels(&self, labels: &BTreeMap<String, String>) -> bool {
        self.0.iter().all(|(k, op)| {
            let v = labels.get(k);
            match op {
                Op::Eq(x) => v == Some(x),
                Op::NotEq(x) => v != Some(x),
                Op::In(xs) => v.is_some_and(|v| xs.contains(v)),
                Op::NotIn(xs) => !v.is_some_and(|v| xs.contains(v)),
                Op::Exists => v.is_some(),
                Op::NotExists => v.is_none(),
                Op::Gt(n) => v
                    .and_then(|v| v.parse::<i64>().ok())
                    .is_some_and(|v| v > *n),
                Op::Lt(n) => v
                    .and_then(|v| v.parse::<i64>().ok())
                    .is_some_and(|v| v < *n),
            }
        })
    }

    /// Evaluates field requirements against dotted paths into `obj`.
    pub fn matches_fields(&self, obj: &Value) -> bool {
        self.0.iter().all(|(path, op)| {
            let v = field_value(obj, path);
            match op {
                Op::Eq(x) => &v == x,
                Op::NotEq(x) => &v != x,
                _ => false,
            }
        })
    }
}

/// The string form of a dotted JSON path (`""` when absent).
pub fn field_value(obj: &Value, path: &str) -> String {
    let v = path.split('.').try_fold(obj, |cur, seg| cur.get(seg));
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// `metadata.labels` (or any string map) of an object as a sorted map.
pub fn string_map(v: Option<&Value>) -> BTreeMap<String, String> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// Renders a `metav1.LabelSelector` (`matchLabels` + `matchExpressions`) as the
/// string form an `autoscaling/v1` Scale carries in `status.selector`.
pub fn label_selector_to_string(sel: &Value) -> String {
    let mut parts: Vec<(String, String)> = string_map(sel.get("matchLabels"))
        .into_iter()
        .map(|(k, v)| (k.clone(), format!("{k}={v}")))
        .collect();
    for e in sel
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = e
            .get("key")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let vals: Vec<&str> = e
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let text = match e
            .get("operator")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "In" => format!("{key} in ({})", vals.join(",")),
            "NotIn" => format!("{key} notin ({})", vals.join(",")),
            "Exists" => key.clone(),
            _ => format!("!{key}"),
        };
        parts.push((key, text));
    }
    parts.sort();
    parts
        .into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join(",")
}
