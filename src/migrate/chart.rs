//! Helm chart sources: find `replicas:` in templates, recognise the guard that renders it only
//! without autoscaling (`{{- if not .Values.autoscaling.enabled }}` and its common variants), and
//! name the template line and the values key. Templates are never edited; an unguarded line gets
//! the exact guard to add.

use serde::Serialize;

use super::text::{self, path_string};

/// What a set of templates is, as Helm would see it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    /// Where the templates come from (text report only, for now).
    #[serde(skip)]
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

struct Frame {
    line: usize,
    cond: Option<String>,
    in_else: bool,
}

fn step(stack: &mut Vec<Frame>, action: &str, line: usize) {
    let word = action.split_whitespace().next().unwrap_or_default();
    match word {
        "if" => stack.push(Frame {
            line,
            cond: Some(action[2..].trim().to_string()),
            in_else: false,
        }),
        "with" | "range" | "define" | "block" => stack.push(Frame {
            line,
            cond: None,
            in_else: false,
        }),
        "else" => {
            if let Some(f) = stack.last_mut() {
                let rest = action[4..].trim();
                if let Some(c) = rest.strip_prefix("if ") {
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
    stack.iter().rev().find_map(|f| {
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
            self.child_indent = None;
            return false;
        }
        if !self.in_spec {
            return false;
        }
        let child = *self.child_indent.get_or_insert(indent);
        indent == child
    }
}

/// `kind:`s named under an HPA's `scaleTargetRef` in a template.
fn target_kinds(t: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_ref = None;
    for raw in t.lines() {
        let tr = raw.trim_start();
        let indent = raw.len() - tr.len();
        if tr.starts_with("scaleTargetRef:") {
            in_ref = Some(indent);
            continue;
        }
        if let Some(i) = in_ref {
            if !tr.is_empty() && indent <= i && !tr.starts_with("{{") {
                in_ref = None;
            } else if let Some(k) = tr.strip_prefix("kind:") {
                out.push(k.trim().to_string());
            }
        }
    }
    out
}

fn is_workload_kind(kind: Option<&str>, targets: &[String]) -> bool {
    match kind {
        None => true,
        Some(k) if k.contains("{{") => true,
        Some(k) => WORKLOAD_KINDS.contains(&k) || targets.iter().any(|t| t == k),
    }
}

fn scan_template(file: &str, t: &str, targets: &[String], out: &mut Vec<TemplateReplicas>) {
    let mut stack = Vec::new();
    let mut place = Place::default();
    let mut doc: Vec<TemplateReplicas> = Vec::new();
    let mut flush = |doc: &mut Vec<TemplateReplicas>, kind: Option<&str>| {
        if is_workload_kind(kind, targets) {
            out.append(doc);
        }
        doc.clear();
    };
    for (i, raw) in t.lines().enumerate() {
        let n = i + 1;
        if raw.starts_with("---") {
            flush(&mut doc, place.kind.as_deref());
        }
        let under_spec = place.key_under_spec(raw);
        if under_spec && is_replicas_key(raw) {
            let (head, _) = raw.split_at(raw.find("replicas:").unwrap_or(0));
            for a in actions(head) {
                step(&mut stack, &a, n);
            }
            doc.push(TemplateReplicas {
                file: file.to_string(),
                line: n,
                text: raw.trim().to_string(),
                guard: guard_of(&stack),
                values_key: values_ref(raw),
                values_line: None,
                fix: None,
            });
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
    flush(&mut doc, place.kind.as_deref());
}

/// Scan a chart.
pub fn scan(chart: &Chart) -> ChartReport {
    let mut replicas = Vec::new();
    let mut key = None;
    let mut has_hpa = false;
    let targets: Vec<String> = chart
        .templates
        .iter()
        .filter(|(_, t)| t.contains("kind: HorizontalPodAutoscaler"))
        .flat_map(|(_, t)| target_kinds(t))
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
    for r in &mut replicas {
        if let (Some(k), Some((_, v))) = (&r.values_key, values) {
            r.values_line = key_line(v, k);
        }
        if r.guard.is_none() && chart.origin != ChartOrigin::OtherTool {
            let indent: String = r_indent(&chart.templates, r);
            r.fix = Some(format!(
                "{indent}{{{{- if not .Values.{autoscaling_key} }}}}\n{indent}{}\n{indent}{{{{- end }}}}",
                r.text
            ));
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

fn r_indent(templates: &[(String, String)], r: &TemplateReplicas) -> String {
    templates
        .iter()
        .find(|(f, _)| *f == r.file)
        .and_then(|(_, t)| t.lines().nth(r.line - 1))
        .map(|l| l[..l.len() - l.trim_start().len()].to_string())
        .unwrap_or_default()
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
}
