//! The migration report as text: a header that says what the run does to the cluster and to
//! the files, one short block per workload, then the file diffs, and advice and risks once per
//! run.

use serde_json::Value;

use super::owners;
use super::plan::{Analysis, Effect, Severity, Step};
use super::report::{ApplyReport, Layout, Mode, Report, Workload};

fn show(v: Option<i64>) -> String {
    v.map_or("unset".into(), |n| n.to_string())
}

pub fn query_string(q: &[(String, String)]) -> String {
    if q.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = q.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("?{}", parts.join("&"))
}

fn short(e: &Effect) -> String {
    match e {
        Effect::Delete { defaults_to } => {
            format!(
                "delete -> {} [DANGER]",
                defaults_to.map_or("default".into(), |d| d.to_string())
            )
        }
        Effect::ResetTo { replicas } => format!("reset to {replicas}"),
        Effect::Conflict { with } => format!("conflict ({})", with.join(", ")),
        Effect::Nothing => "leave alone".into(),
        Effect::Unknown { .. } => "-> 1 or alone [UNKNOWN]".into(),
    }
}

fn predictions(a: &Analysis, seen: &mut Vec<String>, o: &mut String) {
    if a.next_apply.is_empty() {
        return;
    }
    // The same predictions as a workload above: one line instead of the table.
    let key = format!(
        "next-apply:{}",
        a.next_apply
            .iter()
            .map(|p| format!("{}|{}|{:?}", p.applier, p.manifest, p.effect))
            .collect::<Vec<_>>()
            .join(";")
    );
    if seen.contains(&key) {
        *o += "  next apply: the same as above\n";
        return;
    }
    seen.push(key);
    let mut rows: Vec<(String, [String; 3])> = Vec::new();
    for p in &a.next_apply {
        let i = match p.manifest {
            "asIs" => 0,
            "withoutReplicas" => 1,
            _ => 2,
        };
        if rows.last().is_none_or(|(w, _)| *w != p.applier) {
            rows.push((p.applier.clone(), Default::default()));
        }
        if let Some(r) = rows.last_mut() {
            r.1[i] = short(&p.effect);
        }
    }
    let w0 = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(10);
    let w = |i: usize| rows.iter().map(|r| r.1[i].len()).max().unwrap_or(0).max(16);
    let (w1, w2) = (w(0), w(1));
    *o += &format!(
        "  {:<w0$}  {:<w1$}  {:<w2$}  {}\n",
        "next apply", "as it is", "without replicas", "after migrate"
    );
    for (who, c) in rows {
        let c: Vec<&str> = c
            .iter()
            .map(|x| if x.is_empty() { "-" } else { x.as_str() })
            .collect();
        *o += &format!("  {who:<w0$}  {:<w1$}  {:<w2$}  {}\n", c[0], c[1], c[2])
            .replace("  \n", "\n");
    }
}

/// What the run does with the planned requests.
fn verb(mode: Mode) -> &'static str {
    match mode {
        Mode::Apply => "sends",
        Mode::ServerDryRun => "sends with dryRun=All",
        _ => "--apply would send",
    }
}

/// One line per request; the bodies are in `-o json`.
fn requests(steps: &[Step], mode: Mode, o: &mut String) {
    let verb = verb(mode);
    for (i, st) in steps.iter().enumerate() {
        let what = match st.id {
            "remove-replicas-from-last-applied" => {
                "merge patch: the last-applied annotation without spec.replicas".to_string()
            }
            _ => {
                let n = serde_json::from_str::<Value>(&st.body)
                    .ok()
                    .and_then(|b| b.pointer("/spec/replicas").and_then(Value::as_i64));
                format!("server-side apply: spec.replicas {}, never forced", show(n))
            }
        };
        let rv = if st.resource_version_from_previous_step {
            "resourceVersion from the step before".to_string()
        } else {
            serde_json::from_str::<Value>(&st.body)
                .ok()
                .and_then(|b| {
                    b.pointer("/metadata/resourceVersion")
                        .and_then(Value::as_str)
                        .map(|v| format!("resourceVersion {v}"))
                })
                .unwrap_or_default()
        };
        let lead = if i == 0 {
            format!("{verb}:")
        } else {
            String::new()
        };
        *o += &format!(
            "  {lead:<w$} {}. PATCH {}{} ({what}; {rv})\n",
            i + 1,
            st.path,
            query_string(&st.query),
            w = verb.len() + 1
        );
    }
}

fn owners_line(a: &Analysis) -> String {
    if a.owners.is_empty() {
        return "none recorded in managedFields".into();
    }
    let v: Vec<String> = a
        .owners
        .iter()
        .map(|ow| {
            let role = match ow.role {
                owners::Role::Hpa => "the HPA",
                owners::Role::ScaleWriter => "scale writer",
                owners::Role::Handover => "hand-over",
                owners::Role::Applier => "applier",
                owners::Role::Other => "other",
            };
            let sub = ow
                .subresource
                .as_ref()
                .map_or(String::new(), |s| format!(" {s}"));
            format!("{} ({}{sub}, {role})", ow.manager, ow.operation)
        })
        .collect();
    v.join(", ")
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::High => "high",
        Severity::Medium => "medium",
        Severity::Info => "info",
    }
}

/// Findings, each message once per run: repeats are listed by id on one line.
fn findings(a: &Analysis, seen: &mut Vec<String>, o: &mut String) {
    let mut again = Vec::new();
    for f in a
        .findings
        .iter()
        .filter(|f| !f.id.starts_with("managed-by-"))
    {
        let key = format!("{}|{}", f.id, f.message);
        if seen.contains(&key) {
            again.push(format!("[{}] {}", severity(f.severity), f.id));
            continue;
        }
        seen.push(key);
        *o += &format!("  [{}] {}: {}\n", severity(f.severity), f.id, f.message);
    }
    if !again.is_empty() {
        *o += &format!("  {} (as above)\n", again.join(", "));
    }
}

fn workload(w: &Workload, mode: Mode, seen: &mut Vec<String>, o: &mut String) {
    let Some(a) = &w.analysis else {
        *o += &format!(
            "HPA {}: {}\n\n",
            w.hpa_ref,
            w.error.as_deref().unwrap_or("?")
        );
        return;
    };
    let t = &a.target;
    *o += &format!(
        "{} {}/{}  (HPA {}/{}, min {}, max {})  spec.replicas {}  resourceVersion {}\n",
        t.kind,
        t.namespace,
        t.name,
        a.hpa.namespace,
        a.hpa.name,
        a.hpa.min_replicas,
        a.hpa.max_replicas,
        show(t.replicas),
        t.resource_version
    );
    let la = a.last_applied.as_ref().map_or(String::new(), |la| {
        format!(
            "; last-applied annotation: replicas {} (owned by {})",
            la.replicas.as_deref().unwrap_or("absent"),
            la.manager
        )
    });
    *o += &format!("  owners of spec.replicas: {}{la}\n", owners_line(a));
    let tools: Vec<&str> = a
        .tools
        .iter()
        .filter(|t| {
            !matches!(
                t.tool,
                owners::Tool::KubectlClientSide | owners::Tool::KubectlServerSide
            )
        })
        .map(|t| t.tool.label())
        .collect();
    if !tools.is_empty() {
        *o += &format!("  managed by: {}\n", tools.join(", "));
    }
    let off: Vec<String> = a
        .hpa
        .conditions
        .iter()
        .filter(|c| c.status != "True")
        .map(|c| format!("{}={} ({})", c.type_, c.status, c.reason))
        .collect();
    if !off.is_empty() {
        *o += &format!("  HPA conditions: {}\n", off.join(", "));
    }
    predictions(a, seen, o);
    findings(a, seen, o);
    if a.blocked() {
        *o += "  not migrated (blocking finding above)\n";
    } else if a.requests.is_empty() {
        *o += "  requests: none needed\n";
    } else {
        // The same request shape as a workload above: one line instead of one per request.
        let shape = format!(
            "requests:{}",
            a.requests
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>()
                .join(",")
        );
        if seen.contains(&shape) {
            *o += &format!(
                "  {}: the same {} request(s) as above, on this object\n",
                verb(mode),
                a.requests.len()
            );
        } else {
            seen.push(shape);
            requests(&a.requests, mode, o);
        }
    }
    if let Some(ap) = &w.apply {
        applied(ap, o);
    }
    if let Some(e) = &w.error {
        *o += &format!("  error: {e}\n");
    }
    *o += "\n";
}

fn applied(ap: &ApplyReport, o: &mut String) {
    if ap.sent.is_empty() {
        *o += "  sent: nothing (no request was needed)\n";
    } else {
        *o += "  sent:\n";
    }
    for s in &ap.sent {
        *o += &format!(
            "    [round {}] {} {}{} -> {}: {}\n",
            s.round,
            s.method,
            s.path,
            query_string(&s.query),
            s.status.map_or("-".into(), |c| c.to_string()),
            s.outcome
        );
    }
    if !ap.verified.is_empty() {
        *o += "  verified:\n";
        for c in &ap.verified {
            let ok = if c.ok { "ok" } else { "FAILED" };
            *o += &format!("    [{ok}] {}: {}\n", c.check, c.detail);
        }
    }
    if let Some(e) = &ap.error {
        *o += &format!("  error: {e}\n");
    }
}

fn files(r: &Report, o: &mut String) {
    if r.files.is_empty() {
        return;
    }
    *o += "Local manifests:\n";
    for f in &r.files {
        let state = if f.edit.occurrences.is_empty() {
            "no document of a migrated workload"
        } else if f.edit.diff.is_empty() {
            "unchanged"
        } else if f.written {
            "written"
        } else if f.edit.file == super::manifest::STDIN && r.stdout.is_some() {
            "written to standard output"
        } else {
            "would change (use --write)"
        };
        *o += &format!("  {}: {state}\n", f.edit.file);
    }
    for f in r.files.iter().filter(|f| !f.edit.diff.is_empty()) {
        *o += "\n";
        *o += &f.edit.diff;
    }
    *o += "\n";
}

fn indent(text: &str, by: &str) -> String {
    text.lines()
        .map(|l| format!("{by}{l}\n"))
        .collect::<String>()
}

/// The human-readable report, at the default width.
pub fn render_text(r: &Report) -> String {
    render_text_in(r, Layout::default())
}

/// The human-readable report laid out for `layout`: offline with nothing to change, one line
/// per source saying so and why (the whole report with `-o wide`).
pub fn render_text_in(r: &Report, layout: Layout) -> String {
    if !layout.wide {
        if let Some(lines) = super::offline_text::nothing_to_change(r) {
            return lines
                .iter()
                .map(|l| crate::render::layout::wrap(l, layout.width, "", "  "))
                .collect();
        }
    }
    let mut o = String::new();
    let cluster = format!("Cluster: {}", r.cluster_effect);
    let files_line = format!("Files: {}", r.files_effect);
    for line in [cluster, files_line] {
        // offline, the header fits the width like the rest; the live report keeps one line each
        o += &match r.mode {
            Mode::Offline => crate::render::layout::wrap(&line, layout.width, "", "  "),
            _ => format!("{line}\n"),
        };
    }
    o += "\n";
    let mut seen = Vec::new();
    for w in &r.workloads {
        workload(w, r.mode, &mut seen, &mut o);
    }
    super::offline_text::render(r, layout, &mut o);
    files(r, &mut o);
    if !r.advice.is_empty() {
        o += "Advice:\n";
        for a in &r.advice {
            let text = indent(&a.text, "      ");
            o += &format!("  {}: {}", a.tool, text.trim_start());
        }
    }
    if !r.risks.is_empty() {
        o += "Risks:\n";
        for rk in &r.risks {
            // offline risks fit the width; the live report keeps one line each (for now)
            o += &match r.mode {
                Mode::Offline => crate::render::layout::wrap(rk, layout.width, "  - ", "    "),
                _ => format!("  - {rk}\n"),
            };
        }
    }
    if !r.workloads.is_empty() {
        o += "Full request bodies, kubectl equivalents and JSON: -o json\n";
    }
    for e in &r.file_errors {
        o += &format!("file error: {e} (nothing written)\n");
    }
    for e in &r.errors {
        o += &format!("error: {e}\n");
    }
    o
}
