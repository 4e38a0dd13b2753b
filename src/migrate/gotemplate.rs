//! A small evaluator of Go-template expressions, enough to decide a chart's `if`/`with`/`range`
//! conditions against its values: `.Values` paths (and paths relative to `with`'s dot, `$`),
//! parentheses and field access on them, pipelines into the last argument, literals, and the
//! functions `and`, `or`, `not`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `default`, `empty`.
//! Anything else (`.Release`, `include`, variables, other functions) is [`Unknown`]: the caller
//! then says it cannot decide instead of guessing. Truth is Go's: false, 0, nil and empty
//! strings, lists and maps are false.

use serde_json::Value;

/// The expression uses something this evaluator does not model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown(pub String);

/// Functions beyond the conditions' own (a renderer's `include`, `toYaml`, `nindent`, …):
/// `None` when the name is not one of them.
pub trait Funcs {
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, Unknown>>;
}

/// What `.` and `$` are while evaluating.
#[derive(Clone)]
pub struct Scope<'a> {
    /// `$`: `{"Values": values}` (a renderer adds `Release`, `Chart`).
    pub root: &'a Value,
    /// `.`; `None` inside a `range` (the element is not modelled).
    pub dot: Option<Value>,
    /// More functions (`None` while deciding conditions: anything else is unknown).
    pub funcs: Option<&'a dyn Funcs>,
}

impl std::fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scope")
            .field("root", self.root)
            .field("dot", &self.dot)
            .field("funcs", &self.funcs.is_some())
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    Pipe,
    /// `.a.b` (relative to dot), `$.a.b`, or `.` alone (empty path).
    Path {
        root: bool,
        keys: Vec<String>,
    },
    /// `.a.b` right after `)`: field access on the group.
    Fields(Vec<String>),
    Ident(String),
    Lit(Value),
}

fn fields(s: &str) -> Vec<String> {
    s.split('.')
        .filter(|k| !k.is_empty())
        .map(String::from)
        .collect()
}

fn tokens(src: &str) -> Result<Vec<Tok>, Unknown> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let word_end = |mut j: usize| {
        while j < b.len() && (b[j].is_alphanumeric() || matches!(b[j], '_' | '.' | '-' | '$')) {
            j += 1;
        }
        j
    };
    while i < b.len() {
        let c = b[i];
        match c {
            ' ' | '\t' | '\n' | '\r' => i += 1,
            '(' => (out.push(Tok::Open), i += 1).1,
            ')' => (out.push(Tok::Close), i += 1).1,
            '|' => (out.push(Tok::Pipe), i += 1).1,
            '"' | '`' => {
                let end = (i + 1..b.len())
                    .find(|&j| b[j] == c && (c == '`' || b[j - 1] != '\\'))
                    .ok_or_else(|| Unknown(format!("unterminated string in `{src}`")))?;
                let raw: String = b[i + 1..end].iter().collect();
                out.push(Tok::Lit(Value::String(raw.replace("\\\"", "\""))));
                i = end + 1;
            }
            _ => {
                let j = word_end(i + 1);
                let w: String = b[i..j].iter().collect();
                let after_group = matches!(out.last(), Some(Tok::Close));
                let tok = if let Some(rest) = w.strip_prefix('$') {
                    if !(rest.is_empty() || rest.starts_with('.')) {
                        return Err(Unknown(format!("variable {w}")));
                    }
                    Tok::Path {
                        root: true,
                        keys: fields(rest),
                    }
                } else if w.starts_with('.') && after_group && i > 0 && b[i - 1] == ')' {
                    Tok::Fields(fields(&w))
                } else if w.starts_with('.') {
                    Tok::Path {
                        root: false,
                        keys: fields(&w),
                    }
                } else if let Ok(n) = w.parse::<i64>() {
                    Tok::Lit(Value::from(n))
                } else if let Ok(f) = w.parse::<f64>() {
                    Tok::Lit(serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number))
                } else {
                    match w.as_str() {
                        "true" => Tok::Lit(Value::Bool(true)),
                        "false" => Tok::Lit(Value::Bool(false)),
                        "nil" => Tok::Lit(Value::Null),
                        _ => Tok::Ident(w),
                    }
                };
                out.push(tok);
                i = j;
            }
        }
    }
    Ok(out)
}

/// Go's truth of a value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn lookup(mut v: &Value, keys: &[String]) -> Value {
    for k in keys {
        match v.get(k) {
            Some(x) => v = x,
            None => return Value::Null,
        }
    }
    v.clone()
}

/// One argument of a command.
enum Arg {
    Val(Value),
    Func(String),
}

struct Parser<'s, 'a> {
    toks: Vec<Tok>,
    at: usize,
    scope: &'s Scope<'a>,
    /// How many parentheses enclose the operand being read (bounded: each one recurses).
    depth: usize,
}

/// The deepest parenthesised pipeline an expression may have.
const MAX_PARENS: usize = 64;

impl Parser<'_, '_> {
    fn pipeline(&mut self) -> Result<Value, Unknown> {
        let mut piped: Option<Value> = None;
        loop {
            let v = self.command(piped.take())?;
            if self.toks.get(self.at) == Some(&Tok::Pipe) {
                self.at += 1;
                piped = Some(v);
            } else {
                return Ok(v);
            }
        }
    }

    fn command(&mut self, piped: Option<Value>) -> Result<Value, Unknown> {
        let mut args = Vec::new();
        while let Some(t) = self.toks.get(self.at) {
            if matches!(t, Tok::Close | Tok::Pipe) {
                break;
            }
            args.push(self.operand()?);
        }
        let mut args = args.into_iter();
        match args.next() {
            Some(Arg::Func(f)) => {
                let mut vals = Vec::new();
                for a in args {
                    match a {
                        Arg::Val(v) => vals.push(v),
                        Arg::Func(g) => {
                            return Err(Unknown(format!("function {g} as an argument")))
                        }
                    }
                }
                vals.extend(piped);
                if let Some(r) = self.scope.funcs.and_then(|x| x.call(&f, &vals)) {
                    return r;
                }
                call(&f, vals)
            }
            Some(Arg::Val(v)) if args.len() == 0 && piped.is_none() => Ok(v),
            _ => Err(Unknown("a command that is not a function call".into())),
        }
    }

    /// `.Values` and what else the root holds (a renderer's `.Release`, `.Chart`); anything
    /// else (`.Capabilities`, ...) is unknown.
    fn at_root(&self, keys: &[String]) -> Result<Value, Unknown> {
        match keys.first().map(String::as_str) {
            Some("Values") => Ok(lookup(self.scope.root, keys)),
            Some(k) if self.scope.root.get(k).is_some() => Ok(lookup(self.scope.root, keys)),
            None if self.scope.funcs.is_some() => Ok(self.scope.root.clone()),
            other => Err(Unknown(format!(".{}", other.unwrap_or_default()))),
        }
    }

    fn operand(&mut self) -> Result<Arg, Unknown> {
        let t = self.toks[self.at].clone();
        self.at += 1;
        let mut v = match t {
            Tok::Open if self.depth >= MAX_PARENS => {
                return Err(Unknown(format!(
                    "parentheses nested deeper than {MAX_PARENS}"
                )))
            }
            Tok::Open => {
                self.depth += 1;
                let v = self.pipeline();
                self.depth -= 1;
                let v = v?;
                if self.toks.get(self.at) != Some(&Tok::Close) {
                    return Err(Unknown("unbalanced parentheses".into()));
                }
                self.at += 1;
                v
            }
            Tok::Path { root: true, keys } => self.at_root(&keys)?,
            Tok::Path { root: false, keys } => match &self.scope.dot {
                Some(dot) if dot == self.scope.root => self.at_root(&keys)?,
                Some(dot) => lookup(dot, &keys),
                None => return Err(Unknown("`.` inside range".into())),
            },
            Tok::Lit(v) => v,
            Tok::Ident(f) => return Ok(Arg::Func(f)),
            Tok::Fields(_) | Tok::Close | Tok::Pipe => {
                return Err(Unknown("unexpected token".into()))
            }
        };
        while let Some(Tok::Fields(keys)) = self.toks.get(self.at) {
            v = lookup(&v, keys);
            self.at += 1;
        }
        Ok(Arg::Val(v))
    }
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn same(a: &Value, b: &Value) -> bool {
    match (num(a), num(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn call(f: &str, args: Vec<Value>) -> Result<Value, Unknown> {
    let n = args.len();
    let need = |k: usize| {
        if n == k {
            Ok(())
        } else {
            Err(Unknown(format!("{f} with {n} arguments")))
        }
    };
    let order = |a: &Value, b: &Value| match (num(a), num(b)) {
        (Some(x), Some(y)) => x.partial_cmp(&y),
        _ => match (a.as_str(), b.as_str()) {
            (Some(x), Some(y)) => Some(x.cmp(y)),
            _ => None,
        },
    };
    use std::cmp::Ordering::*;
    let cmp = |ok: &[std::cmp::Ordering]| -> Result<Value, Unknown> {
        need(2)?;
        let o =
            order(&args[0], &args[1]).ok_or_else(|| Unknown(format!("{f} of unlike values")))?;
        Ok(Value::Bool(ok.contains(&o)))
    };
    match f {
        "and" if n > 0 => Ok(args
            .iter()
            .find(|v| !truthy(v))
            .unwrap_or(&args[n - 1])
            .clone()),
        "or" if n > 0 => Ok(args
            .iter()
            .find(|v| truthy(v))
            .unwrap_or(&args[n - 1])
            .clone()),
        "not" => need(1).map(|_| Value::Bool(!truthy(&args[0]))),
        "empty" => need(1).map(|_| Value::Bool(!truthy(&args[0]))),
        "eq" if n >= 2 => Ok(Value::Bool(args[1..].iter().any(|b| same(&args[0], b)))),
        "ne" => need(2).map(|_| Value::Bool(!same(&args[0], &args[1]))),
        "lt" => cmp(&[Less]),
        "le" => cmp(&[Less, Equal]),
        "gt" => cmp(&[Greater]),
        "ge" => cmp(&[Greater, Equal]),
        "default" => {
            need(2)?;
            Ok(if truthy(&args[1]) {
                args[1].clone()
            } else {
                args[0].clone()
            })
        }
        _ => Err(Unknown(format!("function {f}"))),
    }
}

/// Evaluate one pipeline (the text of an action after `if`/`with`/`range`).
pub fn eval(expr: &str, scope: &Scope) -> Result<Value, Unknown> {
    let mut p = Parser {
        toks: tokens(expr)?,
        at: 0,
        scope,
        depth: 0,
    };
    if p.toks.is_empty() {
        return Err(Unknown("an empty pipeline".into()));
    }
    let v = p.pipeline()?;
    if p.at != p.toks.len() {
        return Err(Unknown(format!("unbalanced parentheses in `{expr}`")));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(expr: &str, values: Value) -> Result<Value, Unknown> {
        let root = json!({ "Values": values });
        eval(
            expr,
            &Scope {
                root: &root,
                dot: Some(root.clone()),
                funcs: None,
            },
        )
    }

    #[test]
    fn the_conditions_of_real_charts() {
        let v = json!({"autoscaling": {"enabled": true}, "controller": {"autoscaling": {"enabled": false}, "keda": {"enabled": false}}, "replicaCount": 2});
        let t = |e: &str| truthy(&ev(e, v.clone()).unwrap());
        assert!(!t("not .Values.autoscaling.enabled"));
        assert!(!t("not (.Values.autoscaling).enabled"));
        assert!(t(
            "eq .Values.controller.autoscaling.enabled .Values.controller.keda.enabled"
        ));
        assert!(!t(
            "ne .Values.controller.autoscaling.enabled .Values.controller.keda.enabled"
        ));
        assert!(!t(
            "and (not .Values.autoscaling.enabled) .Values.replicaCount"
        ));
        assert!(t("or .Values.autoscaling.enabled .Values.hpa.enabled"));
        assert!(!t("eq .Values.autoscaling.enabled false"));
        assert!(t(".Values.missing | default true"));
        assert!(t("gt .Values.replicaCount 1"));
        assert!(t("$.Values.autoscaling.enabled"));
        assert!(t("eq \"a\" \"a\""));
    }

    #[test]
    fn what_is_not_modelled_is_unknown() {
        for e in [
            ".Release.Name",
            "include \"x\" .",
            "$x",
            "semverCompare \">=1\" .Capabilities.KubeVersion.Version",
            "(.Values.a",
            "int .Values.a",
        ] {
            let r = ev(e, json!({}));
            assert!(r.is_err(), "{e}: {r:?}");
        }
    }
}
