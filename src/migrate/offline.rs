//! Offline: from the repository alone (no cluster, no kubeconfig). Find each workload an HPA of
//! the manifests (or `--hpa FILE`) scales, propose the edit, and say what the next apply by each
//! tool does *in general* — without the live object the owners of `spec.replicas` are unknown.

use serde_json::Value;

use super::files::Sources;
use super::manifest::{self, EditAction, ObjectRef, Occurrence};
use super::options::Options;
use super::plan::{Finding, Severity};
use super::report::{FileReport, Mode, OfflineTarget, Report, RunAdvice};

fn str_of<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(*p)?;
    }
    cur.as_str()
}

/// The HPAs of the sources: (name, file:line, target).
fn hpas(sources: &[&Sources], o: &Options) -> Vec<(String, String, ObjectRef)> {
    let mut out = Vec::new();
    for m in sources.iter().flat_map(|s| &s.manifests) {
        for (line, h) in m.objects_of_kind("HorizontalPodAutoscaler") {
            let name = str_of(&h, &["metadata", "name"]).unwrap_or_default();
            if o.name.as_deref().is_some_and(|n| n != name) {
                continue;
            }
            let ns = str_of(&h, &["metadata", "namespace"]).or(o.namespace.as_deref());
            let r = |k: &str| str_of(&h, &["spec", "scaleTargetRef", k]).unwrap_or_default();
            let target = ObjectRef {
                group: super::plan::group_of(r("apiVersion")).to_string(),
                kind: r("kind").to_string(),
                namespace: ns.unwrap_or_default().to_string(),
                name: r("name").to_string(),
            };
            let shown = ns.map_or(name.to_string(), |n| format!("{n}/{name}"));
            out.push((shown, format!("{}:{line}", m.file), target));
        }
    }
    out
}

fn finding(id: &'static str, severity: Severity, message: String) -> Finding {
    Finding {
        id,
        severity,
        blocking: false,
        message,
    }
}

fn occurrence_finding(o: &Occurrence) -> Finding {
    let at = manifest::describe(o);
    match &o.action {
        EditAction::NoReplicas => finding(
            "manifest-without-replicas",
            Severity::Info,
            format!("{at}: no spec.replicas (nothing to edit)"),
        ),
        EditAction::Remove {
            first_line,
            last_line,
            ..
        } => {
            let lines = if first_line == last_line {
                format!("line {first_line}")
            } else {
                format!("lines {first_line}-{last_line}")
            };
            finding(
                "manifest-edit",
                Severity::Info,
                format!("{at}: remove {} ({lines})", manifest::field_path(o)),
            )
        }
        EditAction::Refused { reason } => finding(
            "manifest-edit-refused",
            Severity::High,
            format!("{at}: not edited: {reason}"),
        ),
    }
}

/// What the next apply by each tool does, in general.
pub fn general() -> Vec<RunAdvice> {
    let g = |tool: &str, text: &str| RunAdvice {
        tool: tool.into(),
        text: text.into(),
    };
    vec![
        g("kubectl apply (client-side)", "with replicas in the file, every apply resets the count to it; without, if the last applied manifest had replicas (the last-applied annotation), the apply sends replicas: null and the API defaults it to 1 — run migrate against the cluster first"),
        g("kubectl apply --server-side", "without replicas the field is pruned (-> 1) when the applier is its only owner; kept once the HPA has changed the count or after migrate's hand-over"),
        g("Helm 3 (three-way merge)", "compares with the previous release's manifest: if it rendered replicas and the new one does not, the upgrade sends replicas: null (-> 1) whatever the annotation says; migrate against the cluster reads the release Secret and tells which"),
        g("Kustomize", "a `replicas:` entry or a patch on /spec/replicas adds the field back even when the base has none: remove them in every overlay"),
        g("Argo CD", "syncs like kubectl (client-side by default): safe without replicas only with ignoreDifferences on /spec/replicas and RespectIgnoreDifferences=true, or after migrate"),
        g("Flux", "server-side apply with force, folding kubectl* managers into its own: without replicas the field is pruned (-> 1) unless the HPA's scale entry or the hand-over owns it, or `.spec.ignore` covers /spec/replicas"),
    ]
}

/// The offline report. `why` says why there is no cluster.
pub fn plan(o: &Options, src: &Sources, hpa_src: &Sources, why: &str) -> Report {
    let mut r = Report::new(Mode::Offline);
    r.file_errors = src.errors.iter().chain(&hpa_src.errors).cloned().collect();
    let found = hpas(&[src, hpa_src], o);
    let targets: Vec<ObjectRef> = found.iter().map(|(_, _, t)| t.clone()).collect();
    let edits: Vec<_> = src.plan_edits(&targets);
    r.kustomize = src
        .kustomizations
        .iter()
        .flat_map(super::kustomize::scan)
        .collect();
    r.charts = src.charts.iter().map(super::chart::scan).collect();
    for (hpa, at, t) in found {
        let occurrences: Vec<Occurrence> = src.occurrences_of(&t);
        let mut findings: Vec<Finding> = occurrences.iter().map(occurrence_finding).collect();
        if occurrences.is_empty() {
            findings.push(finding(
                "manifest-not-found",
                Severity::Info,
                format!("no document in the given files is {} {}", t.kind, t.name),
            ));
        }
        for k in r
            .kustomize
            .iter()
            .filter(|k| k.name == t.name || k.name.is_empty())
        {
            findings.push(super::findings::kustomize_finding(k));
        }
        findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
        r.targets.push(OfflineTarget {
            hpa,
            hpa_at: at,
            target: t,
            occurrences,
            findings,
        });
    }
    if r.targets.is_empty() && r.charts.is_empty() && r.kustomize.is_empty() {
        r.errors.push(match &o.name {
            Some(n) => format!("no HorizontalPodAutoscaler {n:?} in the given manifests (add its file with --hpa FILE, or run against a cluster)"),
            None => "no HorizontalPodAutoscaler in the given manifests (add its file with --hpa FILE, or run against a cluster)".into(),
        });
    }
    r.general = general();
    r.files = edits
        .into_iter()
        .map(|edit| FileReport {
            edit,
            written: false,
        })
        .collect();
    r.cluster_effect = format!("none — offline ({why}): nothing is read from or written to a cluster, so the owners of spec.replicas are unknown");
    r.describe_files(o.write, false);
    if r.edited_files().is_empty() {
        return r;
    }
    r.risks.push("Other copies of the manifest (branches, environments, clusters, CI jobs) that still set replicas reset the count when applied: change them together.".into());
    r.risks.push("New environments created from the edited manifest start at 1 replica until the HPA's first sync raises them to minReplicas.".into());
    r
}
