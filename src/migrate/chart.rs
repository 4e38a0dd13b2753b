//! Helm chart sources: find `replicas:` in templates, recognise the guard that renders it only
//! without autoscaling (`{{- if not .Values.autoscaling.enabled }}` and its common variants), and
//! name the template line and the values key. Templates are never edited; an unguarded line gets
//! the exact guard to add.

use serde::Serialize;

use serde_json::Value;

use super::gotemplate::{eval, truthy, Scope, Unknown};
use super::text::{self, path_string};

/// What a set of templates is, as Helm would see it (`origin` of a chart in `-o json`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ChartOrigin {
    /// A directory with `Chart.yaml`.
    #[default]
    Chart,
    /// A `templates/` directory or loose files with Helm template actions, no `Chart.yaml`.
    UnknownChart,
    /// `{{ }}` (or `{% %}`) templating without Helm's functions (kube-aws, Jinja-like).
    OtherTool,
}

/// Helm's own words in template actions: without any, `{{ }}` belongs to another tool.
const HELM_WORDS: &[&str] = &[
    ".Values",
    ".Release",
    ".Chart",
    ".Capabilities",
    "include ",
    "toYaml",
    "nindent",
    "required ",
];

/// A file holds template actions (`{{ … }}` or Jinja-like `{% … %}`).
pub fn has_actions(text: &str) -> bool {
    text.lines().any(|l| {
        l.find("{{").is_some_and(|a| l[a..].contains("}}"))
            || l.find("{%").is_some_and(|a| l[a..].contains("%}"))
    })
}

/// Templates without a `Chart.yaml`: Helm's when an action uses Helm's functions or values.
pub fn origin_of(templates: &[(String, String)]) -> ChartOrigin {
    let helm = templates.iter().any(|(_, t)| {
        t.lines()
            .flat_map(actions)
            .any(|a| HELM_WORDS.iter().any(|w| a.contains(w)))
    });
    if helm {
        ChartOrigin::UnknownChart
    } else {
        ChartOrigin::OtherTool
    }
}

/// A chart as read from disk.
#[derive(Clone, Debug)]
pub struct Chart {
    /// A chart, templates of an unknown chart, or templates of another tool.
    pub origin: ChartOrigin,
    /// The chart directory as given (`chart/`).
    pub dir: String,
    /// `(path, text)` of `values.yaml`, if any.
    pub values: Option<(String, String)>,
    /// `(path, text)` of every template (`templates/**.yaml|yml|tpl`).
    pub templates: Vec<(String, String)>,
}

/// One `replicas:` line of a template.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateReplicas {
    pub file: String,
    pub line: usize,
    /// The line as written, trimmed.
    pub text: String,
    /// The enclosing guard: (line, condition), when replicas is rendered only without autoscaling.
    pub guard: Option<(usize, String)>,
    /// The values key the line renders (`replicaCount`), and where values.yaml sets it.
    pub values_key: Option<String>,
    pub values_line: Option<usize>,
    /// The guard to add (only when unguarded).
    pub fix: Option<String>,
    /// The same guard as a unified diff of the template (advice: templates are never edited).
    pub fix_diff: Option<String>,
}

/// What a chart says about replicas.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChartReport {
    pub dir: String,
    pub values_file: Option<String>,
    /// The values key that switches autoscaling (`autoscaling.enabled`) and its values.yaml line.
    pub autoscaling_key: String,
    pub autoscaling_line: Option<usize>,
    pub replicas: Vec<TemplateReplicas>,
    /// A template renders a HorizontalPodAutoscaler.
    pub has_hpa_template: bool,
    /// Where the templates come from: a chart, templates of an unknown chart, or templates of
    /// another tool (whose findings carry no Helm advice).
    pub origin: ChartOrigin,
}

fn autoscaling_word(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    l.contains("autoscal") || l.contains("hpa") || l.contains("keda")
}

/// The first `.Values.a.b` reference of an expression.
fn values_ref(expr: &str) -> Option<String> {
    let i = expr.find(".Values.")?;
    let rest = &expr[i + ".Values.".len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(rest.len());
    let key = rest[..end].trim_end_matches('.');
    (!key.is_empty()).then(|| key.to_string())
}

/// `if` conditions that are true only when autoscaling is off; `negated`: the condition holds
/// in the `if` branch (else: in the `else` branch).
fn guard_polarity(cond: &str) -> Option<bool> {
    if !autoscaling_word(cond) {
        return None;
    }
    let c = cond.replace(['(', ')'], " ");
    let words: Vec<&str> = c.split_whitespace().collect();
    let pos = words.iter().position(|w| autoscaling_word(w))?;
    let before = &words[..pos];
    let negated = before.last() == Some(&"not")
        || (before.first() == Some(&"eq") && words.get(pos + 1) == Some(&"false"))
        || (before.first() == Some(&"eq") && before.get(1) == Some(&"false"));
    Some(negated)
}

/// Template actions of a line: the text inside `{{ }}`, trimmed of `-` and spaces.
fn actions(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(a) = rest.find("{{") {
        let Some(b) = rest[a..].find("}}") else { break };
        let inner = rest[a + 2..a + b].trim_matches(|c: char| c == '-' || c.is_whitespace());
        out.push(inner.to_string());
        rest = &rest[a + b + 2..];
    }
    out
}

/// A block enclosing a line: `if` (with the conditions of the branches before it, which
/// must all be false), `with`, `range`, or `define`/`block`.
#[derive(Clone, Debug)]
struct Frame {
    line: usize,
    word: &'static str,
    /// The pipeline of the branch the line is in (`None` for define/block).
    cond: Option<String>,
    /// Earlier `if`/`else if` conditions of the same block.
    prior: Vec<String>,
    in_else: bool,
}

fn step(stack: &mut Vec<Frame>, action: &str, line: usize) {
    let word = action.split_whitespace().next().unwrap_or_default();
    let frame = |word: &'static str, cond: Option<String>| Frame {
        line,
        word,
        cond,
        prior: Vec::new(),
        in_else: false,
    };
    let rest = || Some(action[word.len()..].trim().to_string());
    match word {
        "if" => stack.push(frame("if", rest())),
        "with" => stack.push(frame("with", rest())),
        "range" => stack.push(frame("range", rest())),
        "define" | "block" => stack.push(frame("define", None)),
        "else" => {
            if let Some(f) = stack.last_mut() {
                let rest = action[4..].trim();
                if let Some(c) = rest.strip_prefix("if ") {
                    f.prior.extend(f.cond.take());
                    f.cond = Some(c.trim().to_string());
                    f.line = line;
                    f.in_else = false;
                } else {
                    f.in_else = true;
                }
            }
        }
        "end" => {
            stack.pop();
        }
        _ => {}
    }
}

fn guard_of(stack: &[Frame]) -> Option<(usize, String)> {
    stack.iter().rev().filter(|f| f.word == "if").find_map(|f| {
        let c = f.cond.as_ref()?;
        let negated = guard_polarity(c)?;
        (negated != f.in_else).then(|| (f.line, c.clone()))
    })
}

/// The `replicas:` key of a line, not `minReplicas:` and not in a comment.
fn is_replicas_key(line: &str) -> bool {
    let t = line.trim_start().trim_start_matches("- ").trim_start();
    t.starts_with("replicas:") && !line.trim_start().starts_with('#')
}

fn key_line(values: &str, key: &str) -> Option<usize> {
    let ls = text::lines(values);
    text::scan_yaml(values, &ls, 0, ls.len())
        .into_iter()
        .find(|h| path_string(&h.path) == key)
        .map(|h| h.line + 1)
}

/// Kinds whose `spec.replicas` the HPA scales (custom resources: when an HPA template of the
/// chart names their kind in `scaleTargetRef`).
const WORKLOAD_KINDS: &[&str] = &[
    "Deployment",
    "StatefulSet",
    "ReplicaSet",
    "ReplicationController",
];

/// Where a template line is, YAML-wise: enough to tell a workload's `spec.replicas` from any
/// other `replicas:` (a KEDA ScaledObject's `spec.fallback.replicas`, a nested field).
#[derive(Default)]
struct Place {
    /// The document's `kind:` (column 0), as written.
    kind: Option<String>,
    /// Inside the document's top-level `spec:`.
    in_spec: bool,
    /// The indentation of `spec`'s keys, once seen.
    child_indent: Option<usize>,
    /// Inside the document's top-level `metadata:`, and the indentation of its keys.
    in_metadata: bool,
    meta_indent: Option<usize>,
    /// The document's `metadata.name`, as written (quotes removed).
    name: Option<String>,
}

impl Place {
    /// Follow one line; true when it is a key directly under the top-level `spec:`.
    fn key_under_spec(&mut self, raw: &str) -> bool {
        let t = raw.trim_start();
        if t.is_empty() || t.starts_with('#') || (t.starts_with("{{") && t.ends_with("}}")) {
            return false;
        }
        if t.starts_with("---") && raw.starts_with("---") {
            *self = Place::default();
            return false;
        }
        let indent = raw.len() - t.len();
        if indent == 0 {
            let (key, value) = t.split_once(':').unwrap_or((t, ""));
            let value = value.split(" #").next().unwrap_or_default().trim();
            if key.trim() == "kind" {
                self.kind = Some(value.to_string());
            }
            self.in_spec = key.trim() == "spec" && value.is_empty();
            self.in_metadata = key.trim() == "metadata" && value.is_empty();
            self.child_indent = None;
            self.meta_indent = None;
            return false;
        }
        if self.in_metadata {
            if indent == *self.meta_indent.get_or_insert(indent) {
                if let Some(v) = t.strip_prefix("name:") {
                    self.name = Some(unquote(v));
                }
            }
            return false;
        }
        if !self.in_spec {
            return false;
        }
        let child = *self.child_indent.get_or_insert(indent);
        indent == child
    }
}

/// What a template's `scaleTargetRef` names: its `kind` (a KEDA ScaledObject's defaults to
/// Deployment) and `name`, as written (quotes removed).
#[derive(Debug, Clone, PartialEq)]
struct TargetRef {
    kind: Option<String>,
    name: Option<String>,
}

/// The `scaleTargetRef`s of a template's HPAs and ScaledObjects.
fn target_refs(t: &str) -> Vec<TargetRef> {
    let mut out = Vec::new();
    let mut doc_kind: Option<String> = None;
    let mut in_ref = None;
    for raw in t.lines() {
        let tr = raw.trim_start();
        let indent = raw.len() - tr.len();
        if let Some(k) = tr.strip_prefix("kind:").filter(|_| indent == 0) {
            doc_kind = Some(k.trim().to_string());
        }
        if tr.starts_with("scaleTargetRef:") {
            in_ref = Some(indent);
            let kind = (doc_kind.as_deref() == Some("ScaledObject")).then(|| "Deployment".into());
            out.push(TargetRef { kind, name: None });
            continue;
        }
        let (Some(i), Some(last)) = (in_ref, out.last_mut()) else {
            continue;
        };
        if !tr.is_empty() && indent <= i && !tr.starts_with("{{") {
            in_ref = None;
        } else if let Some(k) = tr.strip_prefix("kind:") {
            last.kind = Some(unquote(k));
        } else if let Some(n) = tr.strip_prefix("name:") {
            last.name = Some(unquote(n));
        }
    }
    out
}

fn unquote(v: &str) -> String {
    let v = v.split(" #").next().unwrap_or_default().trim();
    v.trim_matches(|c| c == '"' || c == '\'').to_string()
}

/// Two names as written that cannot render to the same text: both literal and different, or
/// the same template actions around different literal text (`{{ include "app.fullname" . }}-db`
/// is not `{{ include "app.fullname" . }}`). Anything else may render equal.
fn names_differ(a: &str, b: &str) -> bool {
    fn skeleton(s: &str) -> (Vec<String>, String) {
        let (mut actions, mut text, mut rest) = (Vec::new(), String::new(), s);
        while let Some(i) = rest.find("{{") {
            text.push_str(&rest[..i]);
            text.push('\u{0}');
            let Some(j) = rest[i..].find("}}") else {
                return (vec![s.to_string()], String::new());
            };
            let inner = rest[i + 2..i + j].trim_matches(|c: char| c == '-' || c.is_whitespace());
            let words: Vec<&str> = inner.split_whitespace().collect();
            actions.push(words.join(" ").replacen("template ", "include ", 1));
            rest = &rest[i + j + 2..];
        }
        text.push_str(rest);
        (actions, text)
    }
    let (a, b) = (skeleton(a), skeleton(b));
    a.0 == b.0 && a.1 != b.1
}

fn is_workload_kind(kind: Option<&str>, targets: &[TargetRef]) -> bool {
    match kind {
        None => true,
        Some(k) if k.contains("{{") => true,
        Some(k) => {
            WORKLOAD_KINDS.contains(&k) || targets.iter().any(|t| t.kind.as_deref() == Some(k))
        }
    }
}

/// A workload document one of the chart's autoscalers may target: when the chart's HPAs and
/// ScaledObjects name their targets, a workload of another kind, or of another name, keeps its
/// `replicas` (no autoscaler will scale it). Templated kinds or names count as possible.
fn is_targeted(kind: Option<&str>, name: Option<&str>, targets: &[TargetRef]) -> bool {
    if !is_workload_kind(kind, targets) {
        return false;
    }
    let (Some(kind), false) = (kind.filter(|k| !k.contains("{{")), targets.is_empty()) else {
        return true;
    };
    targets.iter().any(|t| {
        let kind_ok = match t.kind.as_deref() {
            None => true,
            Some(k) => k.contains("{{") || k == kind,
        };
        let name_differs =
            matches!((t.name.as_deref(), name), (Some(a), Some(b)) if names_differ(a, b));
        kind_ok && !name_differs
    })
}

/// A `replicas:` line and the blocks enclosing it.
type Found = (TemplateReplicas, Vec<Frame>);

fn scan_template(file: &str, t: &str, targets: &[TargetRef], out: &mut Vec<Found>) {
    let mut stack = Vec::new();
    let mut place = Place::default();
    let mut doc: Vec<Found> = Vec::new();
    let mut flush = |doc: &mut Vec<Found>, place: &Place| {
        if is_targeted(place.kind.as_deref(), place.name.as_deref(), targets) {
            out.append(doc);
        }
        doc.clear();
    };
    for (i, raw) in t.lines().enumerate() {
        let n = i + 1;
        if raw.starts_with("---") {
            flush(&mut doc, &place);
        }
        let under_spec = place.key_under_spec(raw);
        if under_spec && is_replicas_key(raw) {
            let (head, _) = raw.split_at(raw.find("replicas:").unwrap_or(0));
            for a in actions(head) {
                step(&mut stack, &a, n);
            }
            doc.push((
                TemplateReplicas {
                    file: file.to_string(),
                    line: n,
                    text: raw.trim().to_string(),
                    guard: guard_of(&stack),
                    values_key: values_ref(raw),
                    values_line: None,
                    fix: None,
                    fix_diff: None,
                },
                stack.clone(),
            ));
            let tail = &raw[head.len()..];
            for a in actions(tail) {
                step(&mut stack, &a, n);
            }
            continue;
        }
        for a in actions(raw) {
            step(&mut stack, &a, n);
        }
    }
    flush(&mut doc, &place);
}

/// The blocks enclosing the first `kind: KIND` line of a template.
fn frames_of(t: &str, kind: &str) -> Option<Vec<Frame>> {
    let mut stack = Vec::new();
    for (i, raw) in t.lines().enumerate() {
        let line = raw.trim_start();
        if line.strip_prefix("kind:").map(str::trim) == Some(kind) {
            return Some(stack);
        }
        for a in actions(raw) {
            step(&mut stack, &a, i + 1);
        }
    }
    None
}

/// The first block that keeps a line from rendering with these values (`None`: rendered).
fn blocking_frame(frames: &[Frame], root: &Value) -> Result<Option<usize>, Unknown> {
    let mut scope = Scope {
        root,
        dot: Some(root.clone()),
        funcs: None,
    };
    for (i, f) in frames.iter().enumerate() {
        let Some(cond) = f.cond.as_deref() else {
            return Err(Unknown("inside a define".into()));
        };
        let mut prior_true = false;
        for p in &f.prior {
            prior_true = prior_true || truthy(&eval(p, &scope)?);
        }
        let v = eval(cond, &scope)?;
        let on = !prior_true && (truthy(&v) != f.in_else);
        if !on {
            return Ok(Some(i));
        }
        if !f.in_else {
            match f.word {
                "with" => scope.dot = Some(v),
                "range" => scope.dot = None,
                _ => {}
            }
        }
    }
    Ok(None)
}

/// The values under which the chart autoscales: values.yaml with every combination of
/// true/false for the keys the autoscalers' conditions read (at most 4 keys), where the HPA
/// template renders its HPA or a ScaledObject template its ScaledObject (KEDA's HPA).
fn autoscaler_worlds(values: &Value, scalers: &[Vec<Frame>]) -> Result<Vec<Value>, Unknown> {
    if scalers.is_empty() || scalers.iter().any(Vec::is_empty) {
        // an autoscaler rendered whatever the values: nothing to read the switch from
        return Err(Unknown("the HPA template has no condition".into()));
    }
    let mut keys: Vec<String> = Vec::new();
    for f in scalers.iter().flatten() {
        for c in f.prior.iter().chain(&f.cond) {
            for k in values_refs(c) {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
    }
    if keys.len() > 4 {
        return Err(Unknown("more than 4 values decide the HPA".into()));
    }
    let mut worlds = Vec::new();
    for mask in 0..(1u32 << keys.len()) {
        let mut v = values.clone();
        for (i, k) in keys.iter().enumerate() {
            set_path(&mut v, k, Value::Bool(mask & (1 << i) != 0));
        }
        let root = serde_json::json!({ "Values": v });
        let mut on = false;
        for s in scalers {
            on = on || blocking_frame(s, &root)?.is_none();
        }
        if on {
            worlds.push(root);
        }
    }
    Ok(worlds)
}

/// The autoscalers' own conditions as one pipeline: the HPA's, or `(or HPA SCALEDOBJECT)`.
fn scalers_condition(scalers: &[Vec<Frame>]) -> Option<String> {
    let conds: Option<Vec<String>> = scalers.iter().map(|s| hpa_condition(s)).collect();
    match conds?.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(format!("(or {})", many.join(" "))),
    }
}

fn set_path(v: &mut Value, key: &str, to: Value) {
    let mut cur = v;
    for k in key.split('.') {
        if !cur.is_object() {
            *cur = Value::Object(Default::default());
        }
        cur = cur
            .as_object_mut()
            .map(|m| m.entry(k.to_string()).or_insert(Value::Null))
            .expect("an object");
    }
    *cur = to;
}

/// Every `.Values.a.b` reference of an expression.
fn values_refs(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some(k) = values_ref(rest) {
        let i = rest.find(".Values.").unwrap_or(0) + ".Values.".len() + k.len();
        out.push(k);
        rest = &rest[i.min(rest.len())..];
    }
    out
}

/// The HPA's own condition as a pipeline (`.Values.hpa.enabled`, `(and .Values.a (not .Values.b))`).
fn hpa_condition(hpa: &[Frame]) -> Option<String> {
    let conds: Vec<&str> = hpa
        .iter()
        .filter(|f| f.word == "if" && !f.in_else && f.prior.is_empty())
        .filter_map(|f| f.cond.as_deref())
        .collect();
    if conds.len() != hpa.len() {
        return None;
    }
    let group = |c: &str| {
        if c.contains(char::is_whitespace) {
            format!("({c})")
        } else {
            c.to_string()
        }
    };
    match conds.as_slice() {
        [] => None,
        [c] => Some(group(c)),
        many => Some(format!(
            "(and {})",
            many.iter().map(|c| group(c)).collect::<Vec<_>>().join(" ")
        )),
    }
}

/// Is the line rendered when the HPA is? `Ok(None)`: yes; `Ok(Some(frame))`: no, that block
/// keeps it out whenever the HPA renders; `Err`: cannot tell (the old reading applies).
fn rendered_with_hpa(frames: &[Frame], worlds: &[Value]) -> Result<Option<usize>, Unknown> {
    if worlds.is_empty() {
        return Err(Unknown("the HPA never renders".into()));
    }
    let mut first = None;
    for w in worlds {
        match blocking_frame(frames, w)? {
            None => return Ok(None),
            Some(i) => first = first.or(Some(i)),
        }
    }
    Ok(first)
}

/// Scan a chart.
pub fn scan(chart: &Chart) -> ChartReport {
    let mut replicas = Vec::new();
    let mut key = None;
    let mut has_hpa = false;
    let targets: Vec<TargetRef> = chart
        .templates
        .iter()
        .filter(|(_, t)| {
            t.contains("kind: HorizontalPodAutoscaler") || t.contains("kind: ScaledObject")
        })
        .flat_map(|(_, t)| target_refs(t))
        .collect();
    for (file, t) in &chart.templates {
        if t.contains("kind: HorizontalPodAutoscaler") {
            has_hpa = true;
            key = key.or_else(|| {
                t.lines()
                    .flat_map(actions)
                    .filter(|a| a.starts_with("if "))
                    .find(|a| autoscaling_word(a))
                    .and_then(|a| values_ref(&a))
            });
        }
        scan_template(file, t, &targets, &mut replicas);
    }
    let autoscaling_key = key.unwrap_or_else(|| "autoscaling.enabled".into());
    let values = chart.values.as_ref();
    let find = |kind: &str| chart.templates.iter().find_map(|(_, t)| frames_of(t, kind));
    let scalers: Vec<Vec<Frame>> = find("HorizontalPodAutoscaler")
        .into_iter()
        .chain(find("ScaledObject"))
        .collect();
    let values_doc = match values {
        Some((_, v)) => crate::yaml::from_str::<Value>(v).ok(),
        None => Some(Value::Object(Default::default())),
    };
    let worlds = match &values_doc {
        Some(v) => autoscaler_worlds(v, &scalers).ok(),
        None => None,
    };
    let hpa_cond = scalers_condition(&scalers);
    let mut replicas: Vec<TemplateReplicas> = replicas
        .into_iter()
        .map(|(mut r, frames)| {
            match worlds.as_deref().map(|w| rendered_with_hpa(&frames, w)) {
                Some(Ok(None)) => r.guard = None,
                Some(Ok(Some(i))) if r.guard.is_none() => {
                    let f = &frames[i];
                    let word = if f.word == "if" { "" } else { f.word };
                    let cond = f.cond.clone().unwrap_or_default();
                    r.guard = Some((f.line, format!("{word} {cond}").trim().to_string()));
                }
                _ => {}
            }
            r
        })
        .collect();
    let guard_cond = hpa_cond
        .filter(|_| worlds.is_some())
        .unwrap_or_else(|| format!(".Values.{autoscaling_key}"));
    for r in &mut replicas {
        if let (Some(k), Some((_, v))) = (&r.values_key, values) {
            r.values_line = key_line(v, k);
        }
        if r.guard.is_none() && chart.origin != ChartOrigin::OtherTool {
            let template = chart.templates.iter().find(|(f, _)| *f == r.file);
            let g = template.and_then(|(f, t)| super::guard::guard(f, t, r.line, &guard_cond));
            r.fix = g.as_ref().map(|g| g.snippet.clone());
            r.fix_diff = g.map(|g| g.diff);
        }
    }
    ChartReport {
        dir: chart.dir.clone(),
        values_file: values.map(|(p, _)| p.clone()),
        autoscaling_line: values.and_then(|(_, v)| key_line(v, &autoscaling_key)),
        autoscaling_key,
        replicas,
        has_hpa_template: has_hpa,
        origin: chart.origin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(t: &str) -> ChartReport {
        scan(&Chart {
            origin: ChartOrigin::Chart,
            dir: "c".into(),
            values: Some((
                "c/values.yaml".into(),
                "replicaCount: 2\nautoscaling:\n  enabled: false\n".into(),
            )),
            templates: vec![("c/templates/d.yaml".into(), t.into())],
        })
    }

    #[test]
    fn guards_are_recognised_in_their_variants() {
        for t in [
            "spec:\n  {{- if not .Values.autoscaling.enabled }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}\n",
            "spec:\n{{ if not (.Values.autoscaling).enabled -}}\n  replicas: {{ .Values.replicaCount }}\n{{ end -}}\n",
            "spec:\n  {{- if .Values.autoscaling.enabled }}\n  {{- else }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}\n",
            "spec:\n  {{- if and (not .Values.hpa.enabled) .Values.replicaCount }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}\n",
            "spec:\n  {{- if eq .Values.autoscaling.enabled false }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}\n",
        ] {
            let r = chart(t);
            assert_eq!(r.replicas.len(), 1, "{t}");
            assert!(r.replicas[0].guard.is_some(), "{t}");
            assert!(r.replicas[0].fix.is_none());
        }
    }

    #[test]
    fn only_a_workloads_own_replicas_count() {
        let scaled_object = "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: web\nspec:\n  scaleTargetRef:\n    name: web\n  fallback:\n    failureThreshold: 3\n    replicas: 6\n";
        assert!(chart(scaled_object).replicas.is_empty());
        // a kind that is no workload, even with a replicas key under spec
        let other = "kind: Prometheus\nspec:\n  replicas: 2\n";
        assert!(chart(other).replicas.is_empty());
        // nested under the template's pod spec, or in a second document's other kind
        let t = "kind: Deployment\nspec:\n  template:\n    spec:\n      replicas: 1\n  replicas: 3\n---\nkind: PodDisruptionBudget\nspec:\n  replicas: 9\n";
        let r = chart(t);
        assert_eq!(r.replicas.iter().map(|x| x.line).collect::<Vec<_>>(), [6]);
        // a custom resource the chart's HPA targets counts
        let r = scan(&Chart {
            origin: ChartOrigin::Chart,
            dir: "c".into(),
            values: None,
            templates: vec![
                ("c/templates/hpa.yaml".into(), "kind: HorizontalPodAutoscaler\nspec:\n  scaleTargetRef:\n    apiVersion: argoproj.io/v1alpha1\n    kind: Rollout\n    name: web\n".into()),
                ("c/templates/r.yaml".into(), "kind: Rollout\nspec:\n  {{- if not .Values.autoscaling.enabled }}\n  replicas: 2\n  {{- end }}\n".into()),
            ],
        });
        assert_eq!(r.replicas.len(), 1);
        assert!(r.replicas[0].guard.is_some());
        // an Argo Rollout's canary steps set replicas too, never its spec.replicas
        let rollout = "kind: Rollout\nspec:\n  replicas: 4\n  strategy:\n    canary:\n      steps:\n        - setCanaryScale:\n            replicas: 1\n        - analysis:\n            templates:\n              - templateName: ok\n";
        let r = scan(&Chart {
            origin: ChartOrigin::Chart,
            dir: "c".into(),
            values: None,
            templates: vec![
                (
                    "c/templates/hpa.yaml".into(),
                    "kind: HorizontalPodAutoscaler\nspec:\n  scaleTargetRef:\n    kind: Rollout\n"
                        .into(),
                ),
                ("c/templates/r.yaml".into(), rollout.into()),
            ],
        });
        assert_eq!(r.replicas.iter().map(|x| x.line).collect::<Vec<_>>(), [3]);
        // without an HPA naming the Rollout, it is no workload of ours
        assert!(chart(rollout).replicas.is_empty());
    }

    #[test]
    fn only_the_workloads_an_autoscaler_targets_count() {
        let hpa = "kind: HorizontalPodAutoscaler\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: {{ include \"app.fullname\" . }}\n";
        let workloads = "kind: Deployment\nmetadata:\n  name: {{ include \"app.fullname\" . }}\nspec:\n  replicas: 2\n---\nkind: StatefulSet\nmetadata:\n  name: {{ include \"app.fullname\" . }}\nspec:\n  replicas: 1\n---\nkind: Deployment\nmetadata:\n  name: {{ include \"app.fullname\" . }}-worker\nspec:\n  replicas: 3\n---\nkind: Deployment\nmetadata:\n  name: {{ template \"app.name\" . }}\nspec:\n  replicas: 4\n";
        let r = chart_with("replicaCount: 2\n", hpa, workloads);
        // the StatefulSet (another kind) and the worker (another name) keep their replicas;
        // a name from other template actions may render equal, so it counts
        assert_eq!(
            r.replicas.iter().map(|x| x.line).collect::<Vec<_>>(),
            [5, 23]
        );
        // a ScaledObject's target defaults to a Deployment
        let so = "kind: ScaledObject\nspec:\n  scaleTargetRef:\n    name: \"web\"\n";
        let plain = "kind: StatefulSet\nmetadata:\n  name: web\nspec:\n  replicas: 1\n---\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n";
        let r = chart_with("a: 1\n", so, plain);
        assert_eq!(r.replicas.iter().map(|x| x.line).collect::<Vec<_>>(), [11]);
    }

    #[test]
    fn unguarded_lines_get_key_line_and_fix() {
        let r = chart("spec:\n  {{- if .Values.autoscaling.enabled }}\n  # x\n  {{- end }}\n  replicas: {{ .Values.replicaCount }}\n  minReplicas: 1\n");
        assert_eq!(r.replicas.len(), 1);
        let x = &r.replicas[0];
        assert_eq!((x.line, x.guard.clone()), (5, None));
        assert_eq!(
            (x.values_key.as_deref(), x.values_line),
            (Some("replicaCount"), Some(1))
        );
        assert_eq!(r.autoscaling_line, Some(3));
        assert_eq!(
            x.fix.as_deref(),
            Some("  {{- if not .Values.autoscaling.enabled }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}")
        );
    }

    fn chart_with(values: &str, hpa: &str, deploy: &str) -> ChartReport {
        scan(&Chart {
            origin: ChartOrigin::Chart,
            dir: "c".into(),
            values: Some(("c/values.yaml".into(), values.into())),
            templates: vec![
                ("c/templates/hpa.yaml".into(), hpa.into()),
                ("c/templates/d.yaml".into(), deploy.into()),
            ],
        })
    }

    #[test]
    fn a_guard_comparing_two_values_is_evaluated_against_the_hpas_own_condition() {
        let values = "controller:\n  replicaCount: 1\n  autoscaling:\n    enabled: false\n  keda:\n    enabled: false\n";
        let hpa = "{{- if and .Values.controller.autoscaling.enabled (not .Values.controller.keda.enabled) }}\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n{{- end }}\n";
        let deploy = "kind: Deployment\nspec:\n  {{- if eq .Values.controller.autoscaling.enabled .Values.controller.keda.enabled }}\n  replicas: {{ .Values.controller.replicaCount }}\n  {{- end }}\n";
        let r = chart_with(values, hpa, deploy);
        assert_eq!(r.replicas.len(), 1);
        let x = &r.replicas[0];
        // with the HPA rendered (autoscaling on, KEDA off) the eq is false: never both
        assert_eq!(
            x.guard,
            Some((
                3,
                "eq .Values.controller.autoscaling.enabled .Values.controller.keda.enabled".into()
            ))
        );
        assert!(x.fix.is_none());
    }

    #[test]
    fn a_scaled_object_autoscales_too() {
        let values = "replicaCount: 2\nautoscaling:\n  enabled: false\nkeda:\n  enabled: false\n";
        let scalers = |deploy: &str| {
            scan(&Chart {
                origin: ChartOrigin::Chart,
                dir: "c".into(),
                values: Some(("c/values.yaml".into(), values.into())),
                templates: vec![
                    ("c/templates/hpa.yaml".into(), "{{- if and .Values.autoscaling.enabled (not .Values.keda.enabled) }}\nkind: HorizontalPodAutoscaler\n{{- end }}\n".into()),
                    ("c/templates/so.yaml".into(), "{{- if .Values.keda.enabled }}\nkind: ScaledObject\nspec:\n  fallback:\n    replicas: 4\n{{- end }}\n".into()),
                    ("c/templates/d.yaml".into(), deploy.into()),
                ],
            })
        };
        // off only with the HPA: still rendered while KEDA's ScaledObject (and its HPA) scales
        let r = scalers("kind: Deployment\nspec:\n  {{- if not .Values.autoscaling.enabled }}\n  replicas: 2\n  {{- end }}\n");
        assert_eq!(
            r.replicas.len(),
            1,
            "the ScaledObject's fallback.replicas is not counted"
        );
        assert_eq!(r.replicas[0].guard, None);
        assert_eq!(
            r.replicas[0].fix.as_deref().unwrap().lines().next(),
            Some("  {{- if not (or (and .Values.autoscaling.enabled (not .Values.keda.enabled)) .Values.keda.enabled) }}")
        );
        // off with either
        let r = scalers("kind: Deployment\nspec:\n  {{- if not (or .Values.autoscaling.enabled .Values.keda.enabled) }}\n  replicas: 2\n  {{- end }}\n");
        assert_eq!(r.replicas[0].guard.as_ref().map(|g| g.0), Some(3));
    }

    #[test]
    fn the_suggested_guard_is_the_hpas_own_condition() {
        let values = "replicaCount: 2\nautoscaling:\n  enabled: false\nkeda:\n  enabled: false\n";
        let hpa = "{{- if and .Values.autoscaling.enabled (not .Values.keda.enabled) }}\nkind: HorizontalPodAutoscaler\n{{- end }}\n";
        // guarded on an unrelated switch: still rendered while the HPA is
        let deploy = "kind: Deployment\nspec:\n  {{- if .Values.replicaCount }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}\n";
        let r = chart_with(values, hpa, deploy);
        let x = &r.replicas[0];
        assert_eq!(x.guard, None);
        assert_eq!(
            x.fix.as_deref(),
            Some("  {{- if not (and .Values.autoscaling.enabled (not .Values.keda.enabled)) }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}")
        );
        // inside a `with` of the HPA's switch's opposite: not rendered with the HPA
        let deploy = "kind: Deployment\nspec:\n  {{- with .Values.autoscaling.enabled }}\n  {{- else }}\n  replicas: 3\n  {{- end }}\n";
        let r = chart_with(values, hpa, deploy);
        assert_eq!(
            r.replicas[0].guard,
            Some((3, "with .Values.autoscaling.enabled".into()))
        );
    }
}
