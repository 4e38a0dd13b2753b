//! `kubectl hpa migrate [NAME | -A] [-f FILE|DIR ...]`: hand `spec.replicas` of autoscaled
//! workloads to their HPA without a dip. Dry run by default (GET requests only); `--apply` sends
//! the planned PATCH requests (bounded retries on 409, never forced) and verifies the result;
//! `--write` edits the local manifests, only after the cluster steps succeeded.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;
use serde_json::{json, Value};

use crate::cli::{Environment, KubeFlags};
use crate::cluster::{self, ApiFailure, Conn};
use crate::migrate::manifest::{FileEdit, FileError, Manifest, ObjectRef};
use crate::migrate::owners::{self, LAST_APPLIED};
use crate::migrate::{self as plan, Analysis, Input, Step, RV_FROM_PREVIOUS};

/// Rounds of re-reading after a 409 "the object has been modified".
pub const MAX_ROUNDS: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum MigrateFormat {
    #[default]
    Text,
    Json,
}

const MIGRATE_AFTER: &str = "\
Examples:
  # What would it take to hand spec.replicas of web's target to the HPA? (dry run: GET only)
  kubectl hpa migrate web -n shop -f k8s/web.yaml

  # Send the requests, verify, then edit the manifest
  kubectl hpa migrate web -n shop -f k8s/web.yaml --apply --write

  # Every HPA of the namespace, as JSON
  kubectl hpa migrate -n shop -f k8s/ -o json

Nothing is written to the cluster without --apply, and no file without --write.
Exit codes: 0 plan computed or applied, 1 unusable input, API error or failed verification, 2 bad usage.";

/// Flags of `kubectl hpa migrate`.
#[derive(Debug, Clone, Args)]
#[command(after_help = MIGRATE_AFTER)]
pub struct MigrateArgs {
    /// Name of the HorizontalPodAutoscaler whose target is migrated (default: every HPA of the namespace)
    pub name: Option<String>,
    /// Local manifests to check and edit: files or directories (*.yaml, *.yml, *.json; not recursive)
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Send the planned requests to the cluster (default: dry run)
    #[arg(long)]
    pub apply: bool,
    /// Edit the local files (only after the cluster steps succeeded)
    #[arg(long)]
    pub write: bool,
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value_t = MigrateFormat::Text)]
    pub output: MigrateFormat,
    #[command(flatten)]
    pub kube: KubeFlags,
}

/// `migrate`, resolved.
#[derive(Debug, Clone)]
pub struct MigrateOptions {
    pub name: Option<String>,
    pub files: Vec<PathBuf>,
    pub apply: bool,
    pub write: bool,
    pub output: MigrateFormat,
    pub all_namespaces: bool,
    pub kube: KubeFlags,
}

impl MigrateArgs {
    pub fn resolve(&self, _env: &Environment) -> Result<MigrateOptions, String> {
        if self.kube.all_namespaces && self.kube.namespace.is_some() {
            return Err("-A/--all-namespaces and -n/--namespace cannot be used together".into());
        }
        if self.kube.all_namespaces && self.name.is_some() {
            return Err("give an HPA NAME or -A, not both".into());
        }
        Ok(MigrateOptions {
            name: self.name.clone(),
            files: self.files.clone(),
            apply: self.apply,
            write: self.write,
            output: self.output,
            all_namespaces: self.kube.all_namespaces,
            kube: self.kube.clone(),
        })
    }
}

/// One request sent by `--apply`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    pub step: &'static str,
    pub round: usize,
    pub method: &'static str,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub content_type: &'static str,
    pub body: String,
    /// HTTP status (200, or the error's code).
    pub status: Option<u16>,
    pub outcome: String,
}

/// One check after `--apply`.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub check: &'static str,
    pub ok: bool,
    pub detail: String,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyReport {
    pub sent: Vec<Sent>,
    pub verified: Vec<Check>,
    pub error: Option<String>,
}

/// One HPA's part of the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    /// `namespace/name` of the HPA.
    pub hpa_ref: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply: Option<ApplyReport>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    #[serde(flatten)]
    pub edit: FileEdit,
    pub written: bool,
}

/// The whole report (`-o json`: `kind: MigrationPlan`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// `dryRun` or `apply`.
    pub mode: &'static str,
    pub workloads: Vec<Workload>,
    pub files: Vec<FileReport>,
    pub errors: Vec<String>,
    pub file_errors: Vec<FileError>,
}

/// Run `migrate`. The report goes to stdout even when an error is returned.
pub fn run(args: &MigrateArgs, env: &Environment) -> Result<String> {
    let opts = args.resolve(env).map_err(anyhow::Error::msg)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = rt.block_on(migrate(&opts))?;
    let out = match opts.output {
        MigrateFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        MigrateFormat::Text => render_text(&report),
    };
    let mut problems: Vec<String> = report.errors.clone();
    problems.extend(report.file_errors.iter().map(|e| e.to_string()));
    if problems.is_empty() {
        return Ok(out);
    }
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
    Err(anyhow!("{}", problems.join("; ")))
}

fn manifest_paths(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, FileError> {
    let mut out = Vec::new();
    for p in inputs {
        if p.is_dir() {
            let rd = std::fs::read_dir(p).map_err(|e| FileError {
                file: p.display().to_string(),
                line: None,
                message: format!("cannot read directory: {e}"),
            })?;
            let mut files: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.is_file()
                        && matches!(
                            f.extension().and_then(|x| x.to_str()),
                            Some("yaml" | "yml" | "json")
                        )
                })
                .collect();
            files.sort();
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn read_manifests(inputs: &[PathBuf]) -> (Vec<Manifest>, Vec<FileError>) {
    let mut ok = Vec::new();
    let mut errs = Vec::new();
    let paths = match manifest_paths(inputs) {
        Ok(p) => p,
        Err(e) => return (ok, vec![e]),
    };
    for p in paths {
        let file = p.display().to_string();
        match std::fs::read(&p) {
            Err(e) => errs.push(FileError {
                file,
                line: None,
                message: format!("cannot read: {e}"),
            }),
            Ok(bytes) => match String::from_utf8(bytes) {
                Err(_) => errs.push(FileError {
                    file,
                    line: None,
                    message: "not UTF-8 text".into(),
                }),
                Ok(text) => match Manifest::parse(&file, &text) {
                    Ok(m) => ok.push(m),
                    Err(e) => errs.push(e),
                },
            },
        }
    }
    (ok, errs)
}

/// Kinds the API server scales without a discovery check.
fn builtin_scalable(api_version: &str, kind: &str) -> bool {
    (plan::group_of(api_version) == "apps"
        && matches!(kind, "Deployment" | "StatefulSet" | "ReplicaSet"))
        || (api_version == "v1" && kind == "ReplicationController")
}

/// A target read from the cluster.
struct Resolved {
    hpa: Value,
    obj: Value,
    path: String,
    resource: String,
}

async fn resolve_target(conn: &Conn, hpa: &Value) -> Result<Resolved, String> {
    let ns = hpa
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or(&conn.namespace)
        .to_string();
    let name = hpa
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let r = hpa
        .pointer("/spec/scaleTargetRef")
        .cloned()
        .unwrap_or_default();
    let (api, kind, tname) = (
        r["apiVersion"].as_str().unwrap_or_default(),
        r["kind"].as_str().unwrap_or_default(),
        r["name"].as_str().unwrap_or_default(),
    );
    let hpa_ref = format!("HPA {ns}/{name}");
    if kind.is_empty() || tname.is_empty() {
        return Err(format!("{hpa_ref} has no spec.scaleTargetRef kind/name"));
    }
    let (collection, resource) = conn
        .collection_of(&ns, api, kind)
        .await
        .map_err(|e| format!("{hpa_ref} targets {kind} {tname:?} ({api}): {e}"))?;
    let path = format!("{collection}/{tname}");
    let mut obj = match conn
        .get_path(&path, &resource, format!("{tname:?} in namespace {ns:?}"))
        .await
    {
        Ok(o) => o,
        Err(f) if f.code() == Some(404) => {
            return Err(format!(
                "{hpa_ref} points at {kind} {ns}/{tname}, which does not exist ({}): nothing to migrate",
                f.client_go_text()
            ))
        }
        Err(f) => return Err(format!("{hpa_ref}: {}", f.fatal())),
    };
    if obj.get("apiVersion").is_none_or(Value::is_null) {
        obj["apiVersion"] = json!(api);
    }
    if obj.get("kind").is_none_or(Value::is_null) {
        obj["kind"] = json!(kind);
    }
    if !builtin_scalable(api, kind) {
        let scale = conn
            .get_path(
                &format!("{path}/scale"),
                &format!("{resource}/scale"),
                format!("{tname:?} in namespace {ns:?}"),
            )
            .await;
        if let Err(f) = scale {
            let why = if f.code() == Some(404) {
                "it has no scale subresource".to_string()
            } else {
                f.fatal()
            };
            return Err(format!(
                "{hpa_ref} targets {kind} {ns}/{tname}, which cannot be scaled: {why}"
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

fn target_ref(hpa: &Value) -> Option<(String, String, String)> {
    let r = hpa.pointer("/spec/scaleTargetRef")?;
    Some((
        plan::group_of(r["apiVersion"].as_str()?).to_string(),
        r["kind"].as_str()?.to_string(),
        r["name"].as_str()?.to_string(),
    ))
}

fn hpa_ref(h: &Value) -> String {
    format!(
        "{}/{}",
        h.pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or_default(),
        h.pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    )
}

async fn migrate(o: &MigrateOptions) -> Result<Report> {
    let (manifests, file_errors) = read_manifests(&o.files);
    let conn = cluster::connect(&o.kube).await?;
    if o.apply {
        // Name the cluster before any write (stderr: the report stays on stdout).
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "migrate --apply: writing to context {:?} (server {})",
            conn.context,
            conn.server
        );
    }
    let ns = conn.namespace.clone();
    let hpa_res = "horizontalpodautoscalers.autoscaling";
    let collection = if o.all_namespaces {
        "/apis/autoscaling/v2/horizontalpodautoscalers".to_string()
    } else {
        format!("/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers")
    };
    let mut errors = Vec::new();
    let (hpas, siblings): (Vec<Value>, Option<Vec<Value>>) = match &o.name {
        Some(name) => {
            let h = conn
                .get_path(
                    &format!("{collection}/{name}"),
                    hpa_res,
                    format!("{name:?} in namespace {ns:?}"),
                )
                .await
                .map_err(|f| anyhow!(f.fatal()))?;
            // the namespace's other HPAs, for duplicates on the same target (best effort)
            let all = conn
                .list_path(
                    &collection,
                    ("autoscaling/v2", "HorizontalPodAutoscaler"),
                    hpa_res,
                    format!("in namespace {ns:?}"),
                )
                .await
                .ok();
            (vec![h], all)
        }
        None => {
            let all = conn
                .list_path(
                    &collection,
                    ("autoscaling/v2", "HorizontalPodAutoscaler"),
                    hpa_res,
                    if o.all_namespaces {
                        String::new()
                    } else {
                        format!("in namespace {ns:?}")
                    },
                )
                .await
                .map_err(|f| anyhow!(f.fatal()))?;
            (all.clone(), Some(all))
        }
    };
    if hpas.is_empty() {
        errors.push(if o.all_namespaces {
            "no HorizontalPodAutoscalers found in any namespace".to_string()
        } else {
            format!("no HorizontalPodAutoscalers found in namespace {ns:?}")
        });
    }

    let mut workloads = Vec::new();
    let mut targets: Vec<ObjectRef> = Vec::new();
    let mut resolved: Vec<Option<Resolved>> = Vec::new();
    for h in &hpas {
        match resolve_target(&conn, h).await {
            Ok(r) => {
                let (group, kind, name) = target_ref(h).unwrap_or_default();
                targets.push(ObjectRef {
                    group,
                    kind,
                    namespace: hpa_ref(h).split('/').next().unwrap_or_default().to_string(),
                    name,
                });
                resolved.push(Some(r));
            }
            Err(e) => {
                errors.push(e.clone());
                workloads.push(Workload {
                    hpa_ref: hpa_ref(h),
                    analysis: None,
                    error: Some(e),
                    apply: None,
                });
                resolved.push(None);
            }
        }
    }
    // one edit per file covering every target
    let edits: Vec<FileEdit> = manifests.iter().map(|m| m.plan(&targets)).collect();
    let mut analyses: Vec<(Resolved, Analysis)> = Vec::new();
    for r in resolved.into_iter().flatten() {
        let (group, kind, name) = target_ref(&r.hpa).unwrap_or_default();
        let me = ObjectRef {
            group,
            kind: kind.clone(),
            namespace: hpa_ref(&r.hpa)
                .split('/')
                .next()
                .unwrap_or_default()
                .to_string(),
            name: name.clone(),
        };
        let occurrences = manifests
            .iter()
            .flat_map(|m| m.plan(std::slice::from_ref(&me)).occurrences)
            .collect();
        let kustomize = manifests
            .iter()
            .flat_map(|m| {
                m.kustomize_replicas(&name)
                    .into_iter()
                    .map(|(l, c)| (m.file.clone(), l, c))
            })
            .collect();
        let other_hpas = siblings
            .iter()
            .flatten()
            .filter(|s| hpa_ref(s) != hpa_ref(&r.hpa))
            .filter(|s| {
                hpa_ref(s).split('/').next() == Some(me.namespace.as_str())
                    && target_ref(s)
                        .is_some_and(|(g, k, n)| g == me.group && k == kind && n == name)
            })
            .map(hpa_ref)
            .collect();
        let a = plan::analyze(&Input {
            hpa: &r.hpa,
            object: &r.obj,
            path: r.path.clone(),
            other_hpas,
            occurrences,
            kustomize,
            files_given: !o.files.is_empty(),
        });
        analyses.push((r, a));
    }

    // --apply
    let mut stopped = false;
    for (r, a) in analyses {
        let mut w = Workload {
            hpa_ref: hpa_ref(&r.hpa),
            analysis: None,
            error: None,
            apply: None,
        };
        if a.blocked() {
            let why: Vec<String> = a
                .findings
                .iter()
                .filter(|f| f.blocking)
                .map(|f| f.message.clone())
                .collect();
            let e = format!("HPA {}: not migrated: {}", w.hpa_ref, why.join("; "));
            errors.push(e.clone());
            w.error = Some(e);
        } else if o.apply && !stopped {
            let report = execute(&conn, &r).await;
            if let Some(e) = &report.error {
                errors.push(format!("HPA {}: {e}", w.hpa_ref));
                stopped = true;
            }
            w.apply = Some(report);
        } else if o.apply && stopped {
            w.error = Some("not attempted: an earlier workload failed".into());
        }
        w.analysis = Some(a);
        workloads.push(w);
    }
    workloads.sort_by(|a, b| a.hpa_ref.cmp(&b.hpa_ref));

    // --write
    let pending: Vec<&str> = workloads
        .iter()
        .filter(|w| {
            w.analysis.as_ref().is_some_and(|a| !a.requests.is_empty())
                && w.apply.as_ref().is_none_or(|r| r.error.is_some())
        })
        .map(|w| w.hpa_ref.as_str())
        .collect();
    let cluster_failed = !errors.is_empty();
    let mut files: Vec<FileReport> = edits
        .into_iter()
        .map(|edit| FileReport {
            edit,
            written: false,
        })
        .collect();
    if o.write {
        if !file_errors.is_empty() {
            errors.push("--write: nothing written because of the file errors".into());
        } else if cluster_failed {
            errors.push(
                "--write: nothing written because the cluster steps did not all succeed".into(),
            );
        } else if !pending.is_empty() {
            errors.push(format!(
                "--write: nothing written: the cluster still needs the requests for {} (run with --apply; editing the files first would let someone apply them before the cluster is safe)",
                pending.join(", ")
            ));
        } else {
            for f in &mut files {
                if let Some(t) = &f.edit.new_text {
                    write_atomically(Path::new(&f.edit.file), t)
                        .map_err(|e| anyhow!("--write {}: {e}", f.edit.file))?;
                    f.written = true;
                }
            }
        }
    }
    Ok(Report {
        api_version: "kubectl-hpa.dev/v1",
        kind: "MigrationPlan",
        mode: if o.apply { "apply" } else { "dryRun" },
        workloads,
        files,
        errors,
        file_errors,
    })
}

fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("manifest");
    let tmp = dir.join(format!(".{name}.kubectl-hpa-migrate.tmp"));
    std::fs::write(&tmp, text)?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    std::fs::rename(&tmp, path)
}

fn is_field_conflict(f: &ApiFailure) -> bool {
    let t = f.client_go_text();
    f.code() == Some(409) && (t.contains("Apply failed") || t.contains("conflict with"))
}

fn replicas_of(v: &Value) -> Option<i64> {
    v.pointer("/spec/replicas").and_then(Value::as_i64)
}

/// Send the plan for one target: re-read, plan, send; on 409 "modified" start over (bounded).
async fn execute(conn: &Conn, r: &Resolved) -> ApplyReport {
    let mut rep = ApplyReport::default();
    let object = {
        let ns = r
            .obj
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let n = r
            .obj
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        format!("{n:?} in namespace {ns:?}")
    };
    let template_before = r.obj.pointer("/spec/template").cloned();
    let mut read_replicas = replicas_of(&r.obj);
    let mut done = false;
    for round in 1..=MAX_ROUNDS {
        let obj = if round == 1 {
            r.obj.clone()
        } else {
            match conn.get_path(&r.path, &r.resource, object.clone()).await {
                Ok(o) => o,
                Err(f) => {
                    rep.error = Some(f.fatal());
                    return rep;
                }
            }
        };
        let r0 = replicas_of(&obj);
        read_replicas = r0;
        let steps = match plan::plan_steps(&obj, &r.path) {
            Ok(s) => s,
            Err(e) => {
                rep.error = Some(e);
                return rep;
            }
        };
        let mut rv = obj
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut modified = false;
        for st in &steps {
            let body = body_for(st, &obj, &rv);
            let res = conn
                .patch_raw(
                    &st.path,
                    &st.query,
                    st.content_type,
                    &body,
                    &r.resource,
                    object.clone(),
                )
                .await;
            let mut sent = Sent {
                step: st.id,
                round,
                method: st.method,
                path: st.path.clone(),
                query: st.query.clone(),
                content_type: st.content_type,
                body,
                status: None,
                outcome: String::new(),
            };
            match res {
                Ok(v) => {
                    sent.status = Some(200);
                    let got = replicas_of(&v);
                    if got != r0 {
                        sent.outcome = format!(
                            "the response has spec.replicas {got:?}, but {r0:?} was read: stopping"
                        );
                        rep.sent.push(sent);
                        rep.error = Some(format!(
                            "{} changed spec.replicas from {r0:?} to {got:?}: stopped (nothing else sent)",
                            st.id
                        ));
                        return rep;
                    }
                    sent.outcome = "ok: spec.replicas unchanged".into();
                    rv = v
                        .pointer("/metadata/resourceVersion")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    rep.sent.push(sent);
                }
                Err(f) if st.id == "handover-replicas" && is_field_conflict(&f) => {
                    sent.status = f.code();
                    sent.outcome = format!(
                        "field manager conflict ({}): the HPA already owns spec.replicas, the hand-over is not needed",
                        f.client_go_text()
                    );
                    rep.sent.push(sent);
                }
                Err(f) if f.code() == Some(409) => {
                    sent.status = f.code();
                    sent.outcome = format!(
                        "conflict ({}): re-reading the object (round {round} of {MAX_ROUNDS})",
                        f.client_go_text()
                    );
                    rep.sent.push(sent);
                    modified = true;
                    break;
                }
                Err(f) => {
                    sent.status = f.code();
                    sent.outcome = f.fatal();
                    rep.sent.push(sent);
                    rep.error = Some(format!("{}: stopped, nothing else sent", f.fatal()));
                    return rep;
                }
            }
        }
        if !modified {
            done = true;
            break;
        }
    }
    if !done {
        rep.error = Some(format!(
            "the object kept changing: gave up after {MAX_ROUNDS} conflicts (409); run again"
        ));
        return rep;
    }
    rep.verified = verify(conn, r, &object, read_replicas, template_before.as_ref()).await;
    if let Some(c) = rep.verified.iter().find(|c| !c.ok) {
        rep.error = Some(format!("verification failed: {}: {}", c.check, c.detail));
    }
    rep
}

/// The body to send for a step: the planned one, with the previous step's resourceVersion.
fn body_for(st: &Step, obj: &Value, rv: &str) -> String {
    if st.resource_version_from_previous_step {
        st.body.replace(RV_FROM_PREVIOUS, rv)
    } else {
        let _ = obj;
        st.body.clone()
    }
}

async fn verify(
    conn: &Conn,
    r: &Resolved,
    object: &str,
    read_replicas: Option<i64>,
    template_before: Option<&Value>,
) -> Vec<Check> {
    let mut out = Vec::new();
    let after = match conn
        .get_path(&r.path, &r.resource, object.to_string())
        .await
    {
        Ok(o) => o,
        Err(f) => {
            out.push(Check {
                check: "re-read",
                ok: false,
                detail: f.fatal(),
            });
            return out;
        }
    };
    let now = replicas_of(&after);
    let owners_now = owners::replicas_owners(&after);
    let scaled_by = owners_now
        .iter()
        .find(|o| o.subresource.as_deref() == Some("scale"))
        .map(|o| o.manager.clone());
    out.push(match (now == read_replicas, &scaled_by) {
        (true, _) => Check {
            check: "replicas-unchanged",
            ok: true,
            detail: format!("spec.replicas is {} as read before the requests", show(now)),
        },
        (false, Some(m)) => Check {
            check: "replicas-unchanged",
            ok: true,
            detail: format!(
                "spec.replicas is {} (read {}): changed since by {m} through the scale subresource, not by these requests",
                show(now),
                show(read_replicas)
            ),
        },
        (false, None) => Check {
            check: "replicas-unchanged",
            ok: false,
            detail: format!("spec.replicas is {} but {} was read", show(now), show(read_replicas)),
        },
    });
    let t_now = after.pointer("/spec/template");
    out.push(Check {
        check: "pod-template-unchanged",
        ok: t_now == template_before,
        detail: if t_now == template_before {
            "spec.template is unchanged (no rollout)".into()
        } else {
            "spec.template differs from the first read".into()
        },
    });
    let ann = owners::last_applied(&after);
    let ann_ok = match ann.map(owners::last_applied_replicas) {
        None => Ok("there is no last-applied annotation".to_string()),
        Some(Ok(None)) => Ok(format!(
            "the {LAST_APPLIED} annotation has no spec.replicas"
        )),
        Some(Ok(Some(v))) => Err(format!(
            "the {LAST_APPLIED} annotation still has spec.replicas: {v}"
        )),
        Some(Err(e)) => Err(e),
    };
    out.push(Check {
        check: "annotation-without-replicas",
        ok: ann_ok.is_ok(),
        detail: ann_ok.unwrap_or_else(|e| e),
    });
    let names: Vec<String> = owners_now
        .iter()
        .map(|o| match &o.subresource {
            Some(s) => format!("{} ({} {s})", o.manager, o.operation),
            None => format!("{} ({})", o.manager, o.operation),
        })
        .collect();
    let sole = plan::needs_handover(&owners_now);
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

fn show(v: Option<i64>) -> String {
    v.map_or("unset".into(), |n| n.to_string())
}

fn query_string(q: &[(String, String)]) -> String {
    if q.is_empty() {
        return String::new();
    }
    format!(
        "?{}",
        q.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    )
}

fn indent(text: &str, by: &str) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{by}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The human-readable report.
pub fn render_text(r: &Report) -> String {
    let mut o = String::new();
    if r.mode == "dryRun" {
        o += "Dry run: nothing is sent to the cluster (use --apply) and no file is written (use --write).\n\n";
    }
    for w in &r.workloads {
        let Some(a) = &w.analysis else {
            o += &format!(
                "HPA {}\n  error: {}\n\n",
                w.hpa_ref,
                w.error.as_deref().unwrap_or("?")
            );
            continue;
        };
        let t = &a.target;
        o += &format!(
            "{} {}/{}   HPA {}/{} (min {}, max {})   spec.replicas = {}   resourceVersion {}\n",
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
        if !a.hpa.conditions.is_empty() {
            let c: Vec<String> = a
                .hpa
                .conditions
                .iter()
                .map(|c| format!("{}={} ({})", c.type_, c.status, c.reason))
                .collect();
            o += &format!("  HPA conditions: {}\n", c.join(", "));
        }
        o += "  owners of spec.replicas:\n";
        if a.owners.is_empty() {
            o += "    (none recorded in managedFields)\n";
        }
        for ow in &a.owners {
            let mut role = match ow.role {
                owners::Role::Hpa => "the HPA".to_string(),
                owners::Role::ScaleWriter => "scale subresource writer".into(),
                owners::Role::Handover => "hand-over".into(),
                owners::Role::Applier => "applier".into(),
                owners::Role::Other => "other".into(),
            };
            if let Some(tool) = ow.tool {
                role += &format!(": {}", tool.label());
            }
            o += &format!(
                "    {}  {}{}  {}  {}  [{role}]\n",
                ow.manager,
                ow.operation,
                ow.subresource
                    .as_ref()
                    .map_or(String::new(), |s| format!(" ({s})")),
                ow.api_version.as_deref().unwrap_or("-"),
                ow.time.as_deref().unwrap_or("-"),
            );
        }
        match &a.last_applied {
            Some(la) => {
                o += &format!(
                    "  last-applied-configuration: spec.replicas = {}   (annotation owned by {})\n",
                    la.replicas.as_deref().unwrap_or("(absent)"),
                    la.manager
                )
            }
            None => o += "  last-applied-configuration: none\n",
        }
        if !a.tools.is_empty() {
            o += "  managed by:\n";
            for t in &a.tools {
                o += &format!("    {}: {}\n", t.tool.label(), t.evidence.join("; "));
            }
        }
        if !a.next_apply.is_empty() {
            o += "  next apply of the manifest:\n";
            let mut last = "";
            for p in &a.next_apply {
                if p.applier != last {
                    o += &format!("    {}\n", p.applier);
                    last = &p.applier;
                }
                let label = match p.manifest {
                    "asIs" => "as it is (with replicas):",
                    "withoutReplicas" => "without replicas, no migration:",
                    _ => "without replicas, after migrate:",
                };
                let danger = if matches!(p.effect, plan::Effect::Delete { .. }) {
                    "   [DANGER]"
                } else {
                    ""
                };
                o += &format!("      {label:<34}{}{danger}\n", p.text);
            }
        }
        o += "  findings:\n";
        for f in &a.findings {
            let sev = match f.severity {
                plan::Severity::High => "high",
                plan::Severity::Medium => "medium",
                plan::Severity::Info => "info",
            };
            o += &format!("    [{sev}] {}: {}\n", f.id, f.message);
        }
        if a.blocked() {
            o += "  not migrated (blocking finding above)\n";
        } else if a.requests.is_empty() {
            o += "  requests --apply would send: none\n";
        } else {
            o += &format!(
                "  requests {} send:\n",
                if r.mode == "apply" {
                    "planned to"
                } else {
                    "--apply would"
                }
            );
            for (i, st) in a.requests.iter().enumerate() {
                o += &format!(
                    "    {}. {}\n       {} {}{}\n       Content-Type: {}\n       {}\n",
                    i + 1,
                    st.description,
                    st.method,
                    st.path,
                    query_string(&st.query),
                    st.content_type,
                    st.body
                );
            }
            if a.requests
                .iter()
                .any(|s| s.resource_version_from_previous_step)
            {
                o += "       (each request carries the resourceVersion just read or returned, as a precondition: a concurrent change gets 409 and a re-read)\n";
            }
        }
        if let Some(ap) = &w.apply {
            o += "  sent:\n";
            for s in &ap.sent {
                o += &format!(
                    "    [round {}] {} {}{} -> {}: {}\n",
                    s.round,
                    s.method,
                    s.path,
                    query_string(&s.query),
                    s.status.map_or("-".into(), |c| c.to_string()),
                    s.outcome
                );
            }
            if ap.sent.is_empty() {
                o += "    nothing (no request was needed)\n";
            }
            if !ap.verified.is_empty() {
                o += "  verified:\n";
                for c in &ap.verified {
                    o += &format!(
                        "    [{}] {}: {}\n",
                        if c.ok { "ok" } else { "FAILED" },
                        c.check,
                        c.detail
                    );
                }
            }
            if let Some(e) = &ap.error {
                o += &format!("  error: {e}\n");
            }
        }
        if let Some(e) = &w.error {
            o += &format!("  error: {e}\n");
        }
        if !a.kubectl.is_empty() {
            o += "  kubectl equivalents:\n";
            for k in &a.kubectl {
                o += &indent(k, "    ");
            }
        }
        if !a.advice.is_empty() {
            o += "  advice:\n";
            for ad in &a.advice {
                o += &format!("    {}: {}\n", ad.tool, ad.text);
            }
        }
        o += "  risks:\n";
        for rk in &a.risks {
            o += &format!("    - {rk}\n");
        }
        o += "\n";
    }
    let changed: Vec<&FileReport> = r.files.iter().filter(|f| !f.edit.diff.is_empty()).collect();
    if !r.files.is_empty() {
        o += "Local manifests:\n";
        for f in &r.files {
            if f.edit.occurrences.is_empty() {
                o += &format!("  {}: no document of a migrated workload\n", f.edit.file);
            } else if f.edit.diff.is_empty() {
                o += &format!("  {}: unchanged\n", f.edit.file);
            } else if f.written {
                o += &format!("  {}: written\n", f.edit.file);
            } else {
                o += &format!("  {}: would change (use --write)\n", f.edit.file);
            }
        }
        for f in changed {
            o += "\n";
            o += &f.edit.diff;
        }
        o += "\n";
    }
    for e in &r.file_errors {
        o += &format!("file error: {e} (nothing written)\n");
    }
    for e in &r.errors {
        o += &format!("error: {e}\n");
    }
    o
}
