//! A small renderer of Helm templates, on the evaluator of [`super::gotemplate`]: enough to
//! render a chart whose templates use the common subset — text and `{{ }}` output, `{{-`/`-}}`
//! trimming, comments, `if`/`else if`/`else`, `with`/`else`, `range` over a list or map (the
//! element as `.`), `define` and `include`/`template` of a named template, and the functions
//! `toYaml`, `nindent`, `indent`, `quote`, `printf` (`%s`, `%d`, `%v`), `trunc`, `trimSuffix`,
//! `required`, besides the evaluator's own (`default`, `not`, `eq`, …). No `helm` binary can be
//! installed where the tests run; the tests render each suggested guard with it, autoscaling
//! on and off, and parse the result with [`crate::yaml`]. Anything outside the subset is an
//! [`Unknown`] error naming it, never a silent wrong rendering.
//!
//! Like Helm, a missing value prints as nothing (Helm removes Go's `<no value>`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::gotemplate::{eval, truthy, Funcs, Scope, Unknown};

/// A parsed template.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    Text(String),
    /// `{{ pipeline }}`: printed.
    Out(String),
    /// `if`: the branches (condition, body) in order, then the `else` body.
    If(Vec<(String, Vec<Node>)>, Vec<Node>),
    /// `with` / `range`: the pipeline, the body, the `else` body.
    With(String, Vec<Node>, Vec<Node>),
    Range(String, Vec<Node>, Vec<Node>),
}

/// A piece of template source: text, or an action with its trim markers.
enum Piece {
    Text(String),
    Action(String),
}

fn pieces(src: &str) -> Result<Vec<Piece>, Unknown> {
    let mut out = Vec::new();
    let mut rest = src;
    let mut trim_next = false;
    while let Some(a) = rest.find("{{") {
        let mut text = &rest[..a];
        if trim_next {
            text = text.trim_start();
        }
        let body_start = a + 2;
        let end = rest[body_start..]
            .find("}}")
            .ok_or_else(|| Unknown("an action without `}}`".into()))?
            + body_start;
        let mut body = &rest[body_start..end];
        if body.starts_with("- ") || body == "-" {
            text = text.trim_end();
            body = &body[1..];
        }
        trim_next = body.ends_with(" -") || body == "-";
        if trim_next {
            body = &body[..body.len() - 1];
        }
        out.push(Piece::Text(text.to_string()));
        out.push(Piece::Action(body.trim().to_string()));
        rest = &rest[end + 2..];
    }
    out.push(Piece::Text(if trim_next {
        rest.trim_start().to_string()
    } else {
        rest.to_string()
    }));
    Ok(out)
}

/// The templates of a chart, parsed: each file's nodes and every `define`.
#[derive(Debug, Default)]
pub struct Templates {
    files: BTreeMap<String, Vec<Node>>,
    defines: BTreeMap<String, Vec<Node>>,
}

/// What ended a list of nodes.
enum Stop {
    Eof,
    End,
    Else(String),
}

struct Parse<'p> {
    pieces: std::iter::Peekable<std::vec::IntoIter<Piece>>,
    defines: &'p mut BTreeMap<String, Vec<Node>>,
    /// How many blocks enclose the list being parsed (bounded: parsing recurses per block).
    depth: usize,
}

/// The deepest nesting of blocks (`if`/`with`/`range`/`define`) a template may have: parsing
/// and rendering recurse per block, and a deeper template is not a chart's.
const MAX_NESTING: usize = 64;

fn quoted_name(s: &str) -> Result<(String, &str), Unknown> {
    let s = s.trim_start();
    let inner = s
        .strip_prefix('"')
        .ok_or_else(|| Unknown(format!("a template name that is not a string: {s}")))?;
    let end = inner
        .find('"')
        .ok_or_else(|| Unknown("an unterminated template name".into()))?;
    Ok((inner[..end].to_string(), inner[end + 1..].trim()))
}

impl Parse<'_> {
    fn list(&mut self) -> Result<(Vec<Node>, Stop), Unknown> {
        if self.depth >= MAX_NESTING {
            return Err(Unknown(format!("blocks nested deeper than {MAX_NESTING}")));
        }
        self.depth += 1;
        let r = self.nodes();
        self.depth -= 1;
        r
    }

    /// The nodes up to the `end`/`else` that closes this list, or the end of the template.
    fn nodes(&mut self) -> Result<(Vec<Node>, Stop), Unknown> {
        let mut nodes = Vec::new();
        while let Some(p) = self.pieces.next() {
            let a = match p {
                Piece::Text(t) => {
                    if !t.is_empty() {
                        nodes.push(Node::Text(t));
                    }
                    continue;
                }
                Piece::Action(a) => a,
            };
            let (word, rest) = a.split_once(char::is_whitespace).unwrap_or((&a, ""));
            let rest = rest.trim().to_string();
            match word {
                _ if a.starts_with("/*") => {}
                "end" => return Ok((nodes, Stop::End)),
                "else" => return Ok((nodes, Stop::Else(rest))),
                "if" => nodes.push(self.if_chain(rest)?),
                "with" | "range" => {
                    let (body, stop) = self.list()?;
                    let other = match stop {
                        Stop::End => Vec::new(),
                        Stop::Else(e) if e.is_empty() => self.until_end()?,
                        _ => return Err(Unknown(format!("`{word}` without its `end`"))),
                    };
                    nodes.push(if word == "with" {
                        Node::With(rest, body, other)
                    } else {
                        Node::Range(rest, body, other)
                    });
                }
                "define" => {
                    let (name, _) = quoted_name(&rest)?;
                    let body = self.until_end()?;
                    self.defines.insert(name, body);
                }
                "template" => {
                    let (name, arg) = quoted_name(&rest)?;
                    let arg = if arg.is_empty() { "." } else { arg };
                    nodes.push(Node::Out(format!("include \"{name}\" ({arg})")));
                }
                "block" | "break" | "continue" => {
                    return Err(Unknown(format!("`{word}` in a template")))
                }
                _ => nodes.push(Node::Out(a.clone())),
            }
        }
        Ok((nodes, Stop::Eof))
    }

    fn until_end(&mut self) -> Result<Vec<Node>, Unknown> {
        match self.list()? {
            (body, Stop::End) => Ok(body),
            _ => Err(Unknown("a block without its `end`".into())),
        }
    }

    fn if_chain(&mut self, cond: String) -> Result<Node, Unknown> {
        let mut branches = Vec::new();
        let mut cond = cond;
        loop {
            let (body, stop) = self.list()?;
            branches.push((cond, body));
            match stop {
                Stop::End => return Ok(Node::If(branches, Vec::new())),
                Stop::Else(e) if e.is_empty() => {
                    return Ok(Node::If(branches, self.until_end()?));
                }
                Stop::Else(e) => match e.strip_prefix("if ") {
                    Some(c) => cond = c.trim().to_string(),
                    None => return Err(Unknown(format!("`else {e}`"))),
                },
                Stop::Eof => return Err(Unknown("`if` without its `end`".into())),
            }
        }
    }
}

impl Templates {
    /// Parse every template (`(path, text)`); `*.tpl` files only contribute their `define`s.
    pub fn parse(templates: &[(String, String)]) -> Result<Templates, Unknown> {
        let mut t = Templates::default();
        for (path, text) in templates {
            let mut p = Parse {
                pieces: pieces(text)?.into_iter().peekable(),
                defines: &mut t.defines,
                depth: 0,
            };
            let nodes = match p.list()? {
                (nodes, Stop::Eof) => nodes,
                _ => {
                    return Err(Unknown(format!(
                        "{path}: an `end` or `else` without its block"
                    )))
                }
            };
            if !path.ends_with(".tpl") {
                t.files.insert(path.clone(), nodes);
            }
        }
        Ok(t)
    }

    /// Render every template file with these values (`.Release.Name` is `release`), each as
    /// `(path, text)`.
    pub fn render(&self, values: &Value) -> Result<Vec<(String, String)>, Unknown> {
        let root = serde_json::json!({
            "Values": values,
            "Release": {"Name": "release", "Namespace": "default", "Service": "Helm"},
            "Chart": {"Name": "chart", "Version": "0.1.0"},
        });
        let ctx = Ctx { t: self, depth: 0 };
        let mut out = Vec::new();
        for (path, nodes) in &self.files {
            let mut text = String::new();
            ctx.exec(nodes, &root, root.clone(), &mut text)
                .map_err(|Unknown(e)| Unknown(format!("{path}: {e}")))?;
            out.push((path.clone(), text));
        }
        Ok(out)
    }
}

/// Rendering: the templates (for `include`) and how deep the includes are.
struct Ctx<'t> {
    t: &'t Templates,
    depth: usize,
}

/// A value printed as Go's template prints it (a missing value: nothing, as Helm does).
fn printed(v: &Value) -> Result<String, Unknown> {
    match v {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(Unknown("a map or list printed without toYaml".into())),
    }
}

fn indent(n: &Value, s: &Value) -> Result<String, Unknown> {
    let n = n
        .as_u64()
        .ok_or_else(|| Unknown("indent by a non-number".into()))?;
    let pad = " ".repeat(n as usize);
    let text = printed(s)?;
    Ok(text
        .split('\n')
        .map(|l| format!("{pad}{l}"))
        .collect::<Vec<_>>()
        .join("\n"))
}

fn printf(args: &[Value]) -> Result<String, Unknown> {
    let (fmt, rest) = args
        .split_first()
        .ok_or_else(|| Unknown("printf without a format".into()))?;
    let fmt = fmt
        .as_str()
        .ok_or_else(|| Unknown("printf's format is not a string".into()))?;
    let mut out = String::new();
    let mut args = rest.iter();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some('s' | 'd' | 'v') => {
                let a = args
                    .next()
                    .ok_or_else(|| Unknown("printf with too few arguments".into()))?;
                out += &printed(a)?;
            }
            other => return Err(Unknown(format!("printf verb %{}", other.unwrap_or(' ')))),
        }
    }
    Ok(out)
}

impl Funcs for Ctx<'_> {
    fn call(&self, name: &str, args: &[Value]) -> Option<Result<Value, Unknown>> {
        let s = |r: Result<String, Unknown>| Some(r.map(Value::String));
        match (name, args) {
            ("include", [Value::String(n), arg]) => s(self.include(n, arg)),
            ("toYaml", [v]) => s(crate::yaml::to_string(v)
                .map(|y| y.trim_end_matches('\n').to_string())
                .map_err(|e| Unknown(format!("toYaml: {e}")))),
            ("nindent", [n, v]) => s(indent(n, v).map(|t| format!("\n{t}"))),
            ("indent", [n, v]) => s(indent(n, v)),
            ("quote", [v]) => s(printed(v).map(|t| format!("{t:?}"))),
            ("printf", _) => s(printf(args)),
            ("trunc", [Value::Number(n), Value::String(t)]) => {
                let n = n.as_u64().unwrap_or(0) as usize;
                s(Ok(t.chars().take(n).collect()))
            }
            ("trimSuffix", [Value::String(x), Value::String(t)]) => {
                s(Ok(t.strip_suffix(x.as_str()).unwrap_or(t).to_string()))
            }
            ("required", [Value::String(msg), v]) => Some(if truthy(v) || v.is_boolean() {
                Ok(v.clone())
            } else {
                Err(Unknown(format!("required: {msg}")))
            }),
            _ => None,
        }
    }
}

impl Ctx<'_> {
    fn include(&self, name: &str, arg: &Value) -> Result<String, Unknown> {
        let body = self
            .t
            .defines
            .get(name)
            .ok_or_else(|| Unknown(format!("no template named {name:?}")))?;
        if self.depth > 16 {
            return Err(Unknown(format!("{name:?} includes itself")));
        }
        let inner = Ctx {
            t: self.t,
            depth: self.depth + 1,
        };
        let mut out = String::new();
        inner.exec(body, arg, arg.clone(), &mut out)?;
        Ok(out)
    }

    fn eval(&self, expr: &str, root: &Value, dot: &Value) -> Result<Value, Unknown> {
        let scope = Scope {
            root,
            dot: Some(dot.clone()),
            funcs: Some(self),
        };
        eval(expr, &scope)
    }

    fn exec(
        &self,
        nodes: &[Node],
        root: &Value,
        dot: Value,
        out: &mut String,
    ) -> Result<(), Unknown> {
        for n in nodes {
            match n {
                Node::Text(t) => out.push_str(t),
                Node::Out(e) => *out += &printed(&self.eval(e, root, &dot)?)?,
                Node::If(branches, other) => {
                    let mut taken = None;
                    for (c, body) in branches {
                        if truthy(&self.eval(c, root, &dot)?) {
                            taken = Some(body);
                            break;
                        }
                    }
                    self.exec(taken.unwrap_or(other), root, dot.clone(), out)?;
                }
                Node::With(c, body, other) => {
                    let v = self.eval(c, root, &dot)?;
                    if truthy(&v) {
                        self.exec(body, root, v, out)?;
                    } else {
                        self.exec(other, root, dot.clone(), out)?;
                    }
                }
                Node::Range(c, body, other) => {
                    let items: Vec<Value> = match self.eval(c, root, &dot)? {
                        Value::Array(a) => a,
                        Value::Object(m) => m.into_iter().map(|(_, v)| v).collect(),
                        Value::Null => Vec::new(),
                        _ => return Err(Unknown(format!("range over a scalar: {c}"))),
                    };
                    if items.is_empty() {
                        self.exec(other, root, dot.clone(), out)?;
                    }
                    for item in items {
                        self.exec(body, root, item, out)?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(files: &[(&str, &str)], values: Value) -> Result<Vec<(String, String)>, Unknown> {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        Templates::parse(&files)?.render(&values)
    }

    #[test]
    fn trims_conditions_includes_and_functions() {
        let helpers = "{{/* the name */}}\n{{- define \"app.name\" -}}\n{{ .Release.Name }}-{{ .Values.name | default \"web\" }}\n{{- end }}\n";
        let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"app.name\" . }}\n  labels:\n    tier: {{ .Values.tier | quote }}\nspec:\n  {{- if not .Values.autoscaling.enabled }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}\n  template:\n    spec:\n      containers:\n        - name: {{ template \"app.name\" . }}\n          {{- with .Values.resources }}\n          resources:\n            {{- toYaml . | nindent 12 }}\n          {{- end }}\n          env:\n          {{- range .Values.env }}\n            - name: {{ .name }}\n          {{- else }}\n            []\n          {{- end }}\n";
        let files = [("t/_helpers.tpl", helpers), ("t/d.yaml", deploy)];
        let v = json!({"autoscaling": {"enabled": false}, "replicaCount": 3, "tier": "front",
            "resources": {"limits": {"cpu": "1"}}, "env": [{"name": "A"}, {"name": "B"}]});
        let out = render(&files, v).unwrap();
        assert_eq!(out.len(), 1, "the .tpl renders nothing itself");
        assert_eq!(
            out[0].1,
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: release-web\n  labels:\n    tier: \"front\"\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n        - name: release-web\n          resources:\n            limits:\n              cpu: \"1\"\n          env:\n            - name: A\n            - name: B\n"
        );
        let doc: Value = crate::yaml::from_str(&out[0].1).unwrap();
        assert_eq!(doc["spec"]["replicas"], 3);
        let v = json!({"autoscaling": {"enabled": true}, "name": "api"});
        let out = render(&files, v).unwrap();
        let doc: Value = crate::yaml::from_str(&out[0].1).unwrap();
        assert_eq!(doc["metadata"]["name"], "release-api");
        assert!(doc["spec"].get("replicas").is_none(), "{}", out[0].1);
        assert_eq!(
            doc["spec"]["template"]["spec"]["containers"][0]["env"],
            json!([])
        );
    }

    #[test]
    fn else_if_printf_and_what_is_outside_the_subset() {
        let t = "{{ if eq .Values.a 1 }}one{{ else if eq .Values.a 2 }}{{ printf \"%s-%d\" \"two\" .Values.a }}{{ else }}many{{ end }}";
        let r = |a: i64| render(&[("t", t)], json!({ "a": a })).unwrap()[0].1.clone();
        assert_eq!(
            (r(1), r(2), r(3)),
            ("one".into(), "two-2".into(), "many".into())
        );
        for bad in [
            "{{ if .Values.a }}x",
            "{{ end }}",
            "{{ .Capabilities.KubeVersion }}",
            "{{ lookup \"v1\" \"Secret\" \"\" \"\" }}",
            "{{ .Values }}",
            "{{ include \"missing\" . }}",
        ] {
            assert!(render(&[("t", bad)], json!({"a": 1})).is_err(), "{bad}");
        }
    }

    /// Bad chart templates are an `Unknown`, never a panic: every cut, insertion of a
    /// delimiter or quote, and deletion at every position of a real template, and nesting far
    /// deeper than any chart (it overflowed the stack before the nesting bound).
    #[test]
    fn mangled_and_deeply_nested_templates_are_unknown_not_a_panic() {
        let t = "{{- define \"n\" -}}{{ .Release.Name }}{{- end }}\nspec:\n  {{- if not (.Values.a).b }}\n  replicas: {{ .Values.r | default 1 }}\n  {{- end }}\n  x: {{ include \"n\" . | quote }}\n  {{- range $i, $e := .Values.l }}{{ printf \"%d\" $i }}{{ else }}[]{{ end }}\n  {{- with .Values.w }}{{ toYaml . | nindent 2 }}{{ end }}\n";
        let v = json!({"a": {"b": false}, "r": 2, "l": [1, 2], "w": {"k": "v"}});
        let cuts = (0..=t.len()).filter(|&i| t.is_char_boundary(i));
        for i in cuts {
            let mut variants = vec![
                t[..i].to_string(),
                format!("{}{}", &t[..i], &t[(i + 1).min(t.len())..]),
            ];
            for ins in [
                "{{", "}}", "-", "\"", "(", ")", "|", " ", "{{-", "-}}", "end", "else",
            ] {
                variants.push(format!("{}{ins}{}", &t[..i], &t[i..]));
            }
            for m in variants {
                let _ = render(&[("t/d.yaml", m.as_str())], v.clone());
            }
        }
        let deep_if = format!(
            "{}x{}",
            "{{ if .Values.a }}".repeat(100_000),
            "{{ end }}".repeat(100_000)
        );
        let deep_parens = format!(
            "{{{{ {}.Values.a{} }}}}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        for deep in [deep_if, deep_parens] {
            let e = render(&[("t", deep.as_str())], v.clone()).unwrap_err();
            assert!(e.0.contains("nested deeper than 64"), "{e:?}");
        }
        let fine = format!(
            "{}x{}",
            "{{ if .Values.r }}".repeat(60),
            "{{ end }}".repeat(60)
        );
        assert_eq!(render(&[("t", fine.as_str())], v).unwrap()[0].1, "x");
    }
}
