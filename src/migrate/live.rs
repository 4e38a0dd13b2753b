//! The API choreography of `migrate` against a cluster, through [`super::api::Api`] only: read
//! the HPAs, their targets, the Helm release Secrets and the Argo CD / Flux objects; plan; then
//! (only with `--apply` or `--server-dry-run`) send the planned requests with bounded retries on
//! 409 and verify the result.

use serde_json::{json, Value};

use super::api::{Api, ApiFailure};
use super::files::Sources;
use super::gitops::{self, GitopsFacts, Target};
use super::helm::{self, HelmFacts};
use super::manifest::{FileEdit, ObjectRef};
use super::options::Options;
use super::owners::{self, LAST_APPLIED};
use super::plan::{Analysis, Input, Step, RV_FROM_PREVIOUS};
use super::report::{ApplyReport, Check, FileReport, Mode, Report, Sent, Workload};

/// Rounds of re-reading after a 409 "the object has been modified".
pub const MAX_ROUNDS: usize = 5;

const HPA_RES: &str = "horizontalpodautoscalers.autoscaling";

/// A target read from the cluster.
pub struct Resolved {
    hpa: Value,
    obj: Value,
    path: String,
    resource: String,
}

/// The plan, before anything is sent.
pub struct Planned {
    pub report: Report,
    resolved: Vec<(String, Resolved)>,
}

fn s<'a>(v: &'a Value, p: &str) -> &'a str {
    v.pointer(p).and_then(Value::as_str).unwrap_or_default()
}

/// Kinds the API server scales without a discovery check.
fn builtin_scalable(api_version: &str, kind: &str) -> bool {
    (super::plan::group_of(api_version) == "apps"
        && matches!(kind, "Deployment" | "StatefulSet" | "ReplicaSet"))
        || (api_version == "v1" && kind == "ReplicationController")
}

fn target_ref(hpa: &Value) -> Option<ObjectRef> {
    let r = hpa.pointer("/spec/scaleTargetRef")?;
    Some(ObjectRef {
        group: super::plan::group_of(r["apiVersion"].as_str()?).to_string(),
        kind: r["kind"].as_str()?.to_string(),
        namespace: s(hpa, "/metadata/namespace").to_string(),
        name: r["name"].as_str()?.to_string(),
    })
}

fn hpa_ref(h: &Value) -> String {
    format!("{}/{}", s(h, "/metadata/namespace"), s(h, "/metadata/name"))
}

async fn resolve_target(api: &Api, hpa: &Value) -> Result<Resolved, String> {
    let ns = hpa
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or(api.namespace())
        .to_string();
    let r = hpa
        .pointer("/spec/scaleTargetRef")
        .cloned()
        .unwrap_or_default();
    let (a, kind, tname) = (s(&r, "/apiVersion"), s(&r, "/kind"), s(&r, "/name"));
    let who = format!("HPA {ns}/{}", s(hpa, "/metadata/name"));
    if kind.is_empty() || tname.is_empty() {
        return Err(format!("{who} has no spec.scaleTargetRef kind/name"));
    }
    let (collection, resource) = api
        .collection_of(&ns, a, kind)
        .await
        .map_err(|e| format!("{who} targets {kind} {tname:?} ({a}): {e}"))?;
    let path = format!("{collection}/{tname}");
    let object = format!("{tname:?} in namespace {ns:?}");
    let mut obj = match api.get(&path, &resource, object.clone()).await {
        Ok(o) => o,
        Err(f) if f.code() == Some(404) => {
            return Err(format!(
                "{who} points at {kind} {ns}/{tname}, which does not exist"
            ))
        }
        Err(f) => return Err(f.fatal()),
    };
    if obj.get("apiVersion").is_none_or(Value::is_null) {
        obj["apiVersion"] = json!(a);
    }
    if obj.get("kind").is_none_or(Value::is_null) {
        obj["kind"] = json!(kind);
    }
    if !builtin_scalable(a, kind) {
        let scale = api
            .get(
                &format!("{path}/scale"),
                &format!("{resource}/scale"),
                object,
            )
            .await;
        if let Err(f) = scale {
            let why = if f.code() == Some(404) {
                "it has no scale subresource".to_string()
            } else {
                f.fatal()
            };
            return Err(format!(
                "{who} targets {kind} {ns}/{tname}, which cannot be scaled: {why}"
            ));
        }
    }
    Ok(Resolved {
        hpa: hpa.clone(),
        obj,
        path,
        resource,
    })
}

/// The HPAs to migrate and the namespace's HPAs (for duplicates).
async fn read_hpas(api: &Api, o: &Options) -> anyhow::Result<(Vec<Value>, Vec<Value>)> {
    let ns = api.namespace().to_string();
    let collection = if o.all_namespaces {
        "/apis/autoscaling/v2/horizontalpodautoscalers".to_string()
    } else {
        format!("/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers")
    };
    let item = ("autoscaling/v2", "HorizontalPodAutoscaler");
    let scope = if o.all_namespaces {
        String::new()
    } else {
        format!("in namespace {ns:?}")
    };
    match &o.name {
        Some(name) => {
            let h = api
                .get(
                    &format!("{collection}/{name}"),
                    HPA_RES,
                    format!("{name:?} in namespace {ns:?}"),
                )
                .await
                .map_err(|f| anyhow::anyhow!(f.fatal()))?;
            let all = api
                .list(&collection, item, HPA_RES, scope)
                .await
                .unwrap_or_default();
            Ok((vec![h], all))
        }
        None => {
            let all = api
                .list(&collection, item, HPA_RES, scope)
                .await
                .map_err(|f| anyhow::anyhow!(f.fatal()))?;
            Ok((all.clone(), all))
        }
    }
}

/// The Helm release of a workload, from its release Secrets.
async fn helm_facts(api: &Api, obj: &Value) -> Option<HelmFacts> {
    let (release, ns) = helm::release_of(obj)?;
    let path =
        format!("/api/v1/namespaces/{ns}/secrets?labelSelector=owner%3Dhelm%2Cname%3D{release}");
    let what = format!("in namespace {ns:?} (Helm release {release})");
    let (kind, name) = (s(obj, "/kind"), s(obj, "/metadata/name"));
    Some(match api.get(&path, "secrets", what).await {
        Ok(list) => {
            let items: Vec<Value> = list
                .get("items")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            helm::facts_from_secrets(&release, &ns, &items, kind, name)
        }
        Err(f) => HelmFacts {
            release,
            namespace: ns,
            state: helm::ReleaseState::Unreadable { reason: f.fatal() },
        },
    })
}

/// The Argo CD / Flux objects of a workload, read when permitted.
async fn gitops_facts(api: &Api, obj: &Value) -> Vec<GitopsFacts> {
    let api_version = s(obj, "/apiVersion");
    let target = Target {
        group: super::plan::group_of(api_version),
        kind: s(obj, "/kind"),
        namespace: s(obj, "/metadata/namespace"),
        name: s(obj, "/metadata/name"),
    };
    let mut out = Vec::new();
    for r in gitops::owners_of(obj) {
        let object = format!("{:?} in namespace {:?}", r.name, r.namespace);
        let read = api.get(&r.path(), &r.resource(), object).await;
        let read = read.as_ref().map_err(ApiFailure::fatal);
        out.push(gitops::judge(r, read, obj, &target));
    }
    out
}

/// Read the Helm and GitOps facts of one target and analyse it.
async fn analyse_one(
    api: &Api,
    o: &Options,
    src: &Sources,
    settings: &[super::kustomize::KustomizeSetting],
    siblings: &[Value],
    r: &Resolved,
) -> Analysis {
    let me = target_ref(&r.hpa).unwrap_or_default();
    let other_hpas = siblings
        .iter()
        .filter(|x| hpa_ref(x) != hpa_ref(&r.hpa))
        .filter(|x| target_ref(x).is_some_and(|t| t == me))
        .map(hpa_ref)
        .collect();
    super::analyze::analyze(&Input {
        hpa: &r.hpa,
        object: &r.obj,
        path: r.path.clone(),
        other_hpas,
        occurrences: src.occurrences_of(&me),
        kustomize: settings
            .iter()
            .filter(|k| k.name == me.name || k.name.is_empty())
            .cloned()
            .collect(),
        files_given: !o.files.is_empty(),
        helm: helm_facts(api, &r.obj).await,
        gitops: gitops_facts(api, &r.obj).await,
    })
}

/// Read and plan every workload (GET requests only).
pub async fn plan(api: &Api, o: &Options, src: &Sources, mode: Mode) -> anyhow::Result<Planned> {
    let mut report = Report::new(mode);
    report.file_errors = src.errors.clone();
    let (hpas, siblings) = read_hpas(api, o).await?;
    if hpas.is_empty() {
        report.errors.push(if o.all_namespaces {
            "no HorizontalPodAutoscalers found in any namespace".to_string()
        } else {
            format!(
                "no HorizontalPodAutoscalers found in namespace {:?}",
                api.namespace()
            )
        });
    }
    let mut targets = Vec::new();
    let mut resolved = Vec::new();
    for h in &hpas {
        match resolve_target(api, h).await {
            Ok(r) => {
                targets.extend(target_ref(h));
                resolved.push(r);
            }
            Err(e) => {
                report.errors.push(e.clone());
                report.workloads.push(Workload {
                    hpa_ref: hpa_ref(h),
                    analysis: None,
                    error: Some(e),
                    apply: None,
                });
            }
        }
    }
    let edits: Vec<FileEdit> = src.plan_edits(&targets);
    let settings: Vec<_> = src
        .kustomizations
        .iter()
        .flat_map(super::kustomize::scan)
        .collect();
    let mut planned = Vec::new();
    for r in resolved {
        let a = analyse_one(api, o, src, &settings, &siblings, &r).await;
        let w = hpa_ref(&r.hpa);
        if a.blocked() {
            let why: Vec<String> = a
                .findings
                .iter()
                .filter(|f| f.blocking)
                .map(|f| f.message.clone())
                .collect();
            report
                .errors
                .push(format!("HPA {w}: not migrated: {}", why.join("; ")));
        }
        report.workloads.push(Workload {
            hpa_ref: w.clone(),
            analysis: Some(a),
            error: None,
            apply: None,
        });
        planned.push((w, r));
    }
    report.workloads.sort_by(|a, b| a.hpa_ref.cmp(&b.hpa_ref));
    report.files = edits
        .into_iter()
        .map(|edit| FileReport {
            edit,
            written: false,
        })
        .collect();
    report.kustomize = settings;
    report.charts = src.charts.iter().map(super::chart::scan).collect();
    report.collect_advice();
    describe_cluster(&mut report, api);
    let after = matches!(mode, Mode::Apply);
    report.describe_files(o.write, after);
    Ok(Planned {
        report,
        resolved: planned,
    })
}

fn describe_cluster(report: &mut Report, api: &Api) {
    let mut n = 0;
    let mut on = Vec::new();
    for a in report.workloads.iter().filter_map(|w| w.analysis.as_ref()) {
        if !a.blocked() && !a.requests.is_empty() {
            n += a.requests.len();
            on.push(format!(
                "{} {}/{}",
                a.target.kind, a.target.namespace, a.target.name
            ));
        }
    }
    let at = api.describe();
    let what = format!(
        "{n} PATCH request{} on {}",
        if n == 1 { "" } else { "s" },
        on.join(", ")
    );
    report.cluster_effect = match report.mode {
        Mode::Apply if n == 0 => format!("{at}: nothing to write (no request is needed); GET requests only"),
        Mode::Apply => format!("{at}: writes {what} (metadata annotation and/or a hand-over of spec.replicas at its current value, never forced)"),
        Mode::ServerDryRun if n == 0 => format!("{at}: nothing to send with dryRun=All (no request is needed)"),
        Mode::ServerDryRun => format!("{at}: sends {what} with dryRun=All — admission judges them, nothing is persisted"),
        _ if n == 0 => format!("{at}: dry run, GET requests only; nothing would be written"),
        _ => format!("{at}: dry run, GET requests only; --apply would write {what}"),
    };
}

/// Send the plans (with `dryRun=All` for `--server-dry-run`), then `--write`.
pub async fn execute(
    api: &Api,
    planned: Planned,
    o: &Options,
    origins: &super::write::Origins,
) -> anyhow::Result<Report> {
    let Planned {
        mut report,
        resolved,
    } = planned;
    let dry = report.mode == Mode::ServerDryRun;
    let mut stopped = false;
    let resolved = if report.mode == Mode::DryRun {
        Vec::new()
    } else {
        resolved
    };
    for (w_ref, r) in &resolved {
        let Some(w) = report.workloads.iter_mut().find(|w| &w.hpa_ref == w_ref) else {
            continue;
        };
        if w.analysis.as_ref().is_none_or(Analysis::blocked) {
            continue;
        }
        if stopped {
            w.error = Some("not attempted: an earlier workload failed".into());
            continue;
        }
        let rep = send(api, r, dry).await;
        if let Some(e) = &rep.error {
            report.errors.push(format!("HPA {w_ref}: {e}"));
            stopped = true;
        }
        w.apply = Some(rep);
    }
    if o.write {
        write_files(&mut report, origins);
    }
    Ok(report)
}

fn write_files(report: &mut Report, origins: &super::write::Origins) {
    let pending: Vec<&str> = report
        .workloads
        .iter()
        .filter(|w| {
            w.analysis.as_ref().is_some_and(|a| !a.requests.is_empty())
                && (report.mode != Mode::Apply
                    || w.apply.as_ref().is_none_or(|r| r.error.is_some()))
        })
        .map(|w| w.hpa_ref.as_str())
        .collect();
    let why = if !report.file_errors.is_empty() {
        Some("--write: nothing written because of the file errors".to_string())
    } else if !report.errors.is_empty() {
        Some("--write: nothing written because the cluster steps did not all succeed".into())
    } else if !pending.is_empty() {
        Some(format!("--write: nothing written: the cluster still needs the requests for {} (run with --apply; editing the files first would let someone apply them before the cluster is safe)", pending.join(", ")))
    } else {
        None
    };
    match why {
        Some(e) => {
            report.files_effect = "none written (see the errors)".into();
            report.errors.push(e);
        }
        None => {
            let done = super::write::write_edits(&mut report.files, origins);
            super::write::record(report, done);
        }
    }
}

fn is_field_conflict(f: &ApiFailure) -> bool {
    let t = f.client_go_text();
    f.code() == Some(409) && (t.contains("Apply failed") || t.contains("conflict with"))
}

fn replicas_of(v: &Value) -> Option<i64> {
    v.pointer("/spec/replicas").and_then(Value::as_i64)
}

fn object_words(obj: &Value) -> String {
    format!(
        "{:?} in namespace {:?}",
        s(obj, "/metadata/name"),
        s(obj, "/metadata/namespace")
    )
}

/// The body to send for a step: the planned one, with the previous step's resourceVersion.
fn body_for(st: &Step, rv: &str) -> String {
    if st.resource_version_from_previous_step {
        st.body.replace(RV_FROM_PREVIOUS, rv)
    } else {
        st.body.clone()
    }
}

enum Outcome {
    Next(String),
    Restart,
    Stop(String),
}

/// One round of sending: what was read and how.
struct Round<'a> {
    api: &'a Api,
    r: &'a Resolved,
    /// `spec.replicas` as read at the start of the round.
    r0: Option<i64>,
    round: usize,
    dry: bool,
}

/// Send one step; record it.
async fn send_step(x: &Round<'_>, st: &Step, rv: &str, rep: &mut ApplyReport) -> Outcome {
    let Round {
        api,
        r,
        r0,
        round,
        dry,
    } = *x;
    let body = body_for(st, rv);
    let mut query = st.query.clone();
    if dry {
        query.push(("dryRun".into(), "All".into()));
    }
    let res = api
        .patch(
            &st.path,
            &query,
            st.content_type,
            &body,
            &r.resource,
            object_words(&r.obj),
        )
        .await;
    let mut sent = Sent {
        step: st.id,
        round,
        method: st.method,
        path: st.path.clone(),
        query,
        content_type: st.content_type,
        body,
        status: None,
        outcome: String::new(),
    };
    let out = match res {
        Ok(v) => {
            sent.status = Some(200);
            let got = replicas_of(&v);
            if got != r0 {
                sent.outcome = format!(
                    "the response has spec.replicas {got:?}, but {r0:?} was read: stopping"
                );
                Outcome::Stop(format!(
                    "{} changed spec.replicas from {r0:?} to {got:?}: stopped (nothing else sent)",
                    st.id
                ))
            } else {
                sent.outcome = if dry {
                    "accepted (dryRun=All, not persisted): spec.replicas unchanged".into()
                } else {
                    "ok: spec.replicas unchanged".into()
                };
                // a dry run persists nothing: the next step's precondition is the version read
                Outcome::Next(if dry {
                    rv.to_string()
                } else {
                    s(&v, "/metadata/resourceVersion").to_string()
                })
            }
        }
        Err(f) if st.id == "handover-replicas" && is_field_conflict(&f) => {
            sent.status = f.code();
            sent.outcome = format!("field manager conflict ({}): the HPA already owns spec.replicas, the hand-over is not needed", f.client_go_text());
            Outcome::Next(rv.to_string())
        }
        Err(f) if f.code() == Some(409) => {
            sent.status = f.code();
            sent.outcome = format!(
                "conflict ({}): re-reading the object (round {round} of {MAX_ROUNDS})",
                f.client_go_text()
            );
            Outcome::Restart
        }
        Err(f) => {
            sent.status = f.code();
            sent.outcome = f.fatal();
            Outcome::Stop(format!("{}: stopped, nothing else sent", f.fatal()))
        }
    };
    rep.sent.push(sent);
    out
}

/// Send the plan for one target: re-read, plan, send; on 409 "modified" start over (bounded).
async fn send(api: &Api, r: &Resolved, dry: bool) -> ApplyReport {
    let mut rep = ApplyReport::default();
    let object = object_words(&r.obj);
    let template_before = r.obj.pointer("/spec/template").cloned();
    for round in 1..=MAX_ROUNDS {
        let obj = if round == 1 {
            r.obj.clone()
        } else {
            api.conflict_backoff(round).await;
            match api.get(&r.path, &r.resource, object.clone()).await {
                Ok(o) => o,
                Err(f) => {
                    rep.error = Some(f.fatal());
                    return rep;
                }
            }
        };
        let read_replicas = replicas_of(&obj);
        let steps = match super::requests::plan_steps(&obj, &r.path) {
            Ok(s) => s,
            Err(e) => {
                rep.error = Some(e.to_string());
                return rep;
            }
        };
        let mut rv = s(&obj, "/metadata/resourceVersion").to_string();
        let mut restart = false;
        for st in &steps {
            let x = Round {
                api,
                r,
                r0: read_replicas,
                round,
                dry,
            };
            match send_step(&x, st, &rv, &mut rep).await {
                Outcome::Next(v) => rv = v,
                Outcome::Restart => {
                    restart = true;
                    break;
                }
                Outcome::Stop(e) => {
                    rep.error = Some(e);
                    return rep;
                }
            }
        }
        if !restart {
            if !dry {
                rep.verified =
                    verify(api, r, &object, read_replicas, template_before.as_ref()).await;
                if let Some(c) = rep.verified.iter().find(|c| !c.ok) {
                    rep.error = Some(format!("verification failed: {}: {}", c.check, c.detail));
                }
            }
            return rep;
        }
    }
    rep.error = Some(format!(
        "the object kept changing: gave up after {MAX_ROUNDS} conflicts (409); run again"
    ));
    rep
}

fn show(v: Option<i64>) -> String {
    v.map_or("unset".into(), |n| n.to_string())
}

async fn verify(
    api: &Api,
    r: &Resolved,
    object: &str,
    read: Option<i64>,
    template_before: Option<&Value>,
) -> Vec<Check> {
    let after = match api.get(&r.path, &r.resource, object.to_string()).await {
        Ok(o) => o,
        Err(f) => {
            return vec![Check {
                check: "re-read",
                ok: false,
                detail: f.fatal(),
            }]
        }
    };
    let now = replicas_of(&after);
    let owners_now = owners::replicas_owners(&after);
    let scaled_by = owners_now
        .iter()
        .find(|o| o.subresource.as_deref() == Some("scale"))
        .map(|o| o.manager.clone());
    let mut out = vec![match (now == read, &scaled_by) {
        (true, _) => Check { check: "replicas-unchanged", ok: true, detail: format!("spec.replicas is {} as read before the requests", show(now)) },
        (false, Some(m)) => Check { check: "replicas-unchanged", ok: true, detail: format!("spec.replicas is {} (read {}): changed since by {m} through the scale subresource, not by these requests", show(now), show(read)) },
        (false, None) => Check { check: "replicas-unchanged", ok: false, detail: format!("spec.replicas is {} but {} was read", show(now), show(read)) },
    }];
    let same = after.pointer("/spec/template") == template_before;
    out.push(Check {
        check: "pod-template-unchanged",
        ok: same,
        detail: if same {
            "spec.template is unchanged (no rollout)".into()
        } else {
            "spec.template differs from the first read".into()
        },
    });
    let ann = match owners::last_applied(&after).map(owners::last_applied_replicas) {
        None => Ok("there is no last-applied annotation".to_string()),
        Some(Ok(None)) => Ok(format!(
            "the {LAST_APPLIED} annotation has no spec.replicas"
        )),
        Some(Ok(Some(v))) => Err(format!(
            "the {LAST_APPLIED} annotation still has spec.replicas: {v}"
        )),
        Some(Err(e)) => Err(e.to_string()),
    };
    out.push(Check {
        check: "annotation-without-replicas",
        ok: ann.is_ok(),
        detail: ann.unwrap_or_else(|e| e),
    });
    let names: Vec<String> = owners_now
        .iter()
        .map(|o| match &o.subresource {
            Some(s) => format!("{} ({} {s})", o.manager, o.operation),
            None => format!("{} ({})", o.manager, o.operation),
        })
        .collect();
    let sole = super::requests::needs_handover(&owners_now);
    out.push(Check {
        check: "no-applier-sole-owner",
        ok: !sole,
        detail: if owners_now.is_empty() {
            "no field manager owns spec.replicas".into()
        } else if sole {
            format!("spec.replicas is owned only by {}", names.join(", "))
        } else {
            format!("spec.replicas is owned by {}", names.join(", "))
        },
    });
    out
}
