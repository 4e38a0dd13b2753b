//! What the next apply by each applier does to `spec.replicas`: with the manifest as it is,
//! without replicas, and after the migration.

use super::gitops;
use super::helm::{HelmFacts, ReleaseState};
use super::owners::{Owner, Role, Tool};
use super::plan::{finding, Ctx, Effect, Finding, Prediction, Severity};

/// Client-side apply (kubectl, or Argo CD in its default mode): the last-applied annotation decides.
pub(crate) fn predict_client_side(c: &Ctx, next_apply: &mut Vec<Prediction>) {
    let Ctx {
        last_applied,
        annotation_replicas,
        manifest_replicas,
        live,
        default_replicas,
        tools,
        ..
    } = *c;
    let has_tool = |t: Tool| tools.iter().any(|x| x.tool == t);
    let mut predict = |applier: String, manifest: &'static str, effect: Effect| {
        next_apply.push(Prediction {
            applier,
            manifest,
            text: effect.text(),
            effect,
        })
    };
    // client-side apply (kubectl, or Argo CD in its default mode)
    if let Some(la) = last_applied {
        let who = if has_tool(Tool::ArgoCd) {
            format!(
                "client-side apply (Argo CD / kubectl, manager {})",
                la.manager
            )
        } else {
            format!("kubectl apply (client-side, manager {})", la.manager)
        };
        if let Some(n) = manifest_replicas {
            let e = if Some(n) == live {
                Effect::Nothing
            } else {
                Effect::ResetTo { replicas: n }
            };
            predict(who.clone(), "asIs", e);
        }
        let without = if annotation_replicas.is_some() {
            Effect::Delete {
                defaults_to: default_replicas,
            }
        } else {
            Effect::Nothing
        };
        predict(who.clone(), "withoutReplicas", without);
        predict(who, "afterMigration", Effect::Nothing);
    }
}

/// Server-side appliers: pruned when the sole owner, conflicts when another manager owns it.
pub(crate) fn predict_server_side(
    c: &Ctx,
    next_apply: &mut Vec<Prediction>,
    findings: &mut Vec<Finding>,
) {
    let mut ssa: Vec<&Owner> = c
        .all
        .iter()
        .filter(|o| o.role == Role::Applier && o.operation == "Apply")
        .collect();
    ssa.dedup_by(|a, b| a.manager == b.manager);
    for p in &ssa {
        predict_one_server_side_applier(c, p, next_apply, findings);
    }
}

/// What one server-side applier's next apply does with the manifest as it is, without
/// replicas, and after the migration.
fn predict_one_server_side_applier(
    c: &Ctx,
    p: &Owner,
    next_apply: &mut Vec<Prediction>,
    findings: &mut Vec<Finding>,
) {
    let mut predict = |applier: String, manifest: &'static str, effect: Effect| {
        next_apply.push(Prediction {
            applier,
            manifest,
            text: effect.text(),
            effect,
        })
    };
    let who = format!(
        "{} (server-side apply, manager {})",
        p.tool.map_or("an applier", |t| t.label()),
        p.manager
    );
    let is_p = |o: &&Owner| o.manager == p.manager && o.operation == "Apply";
    let p_owns = c.owners.iter().any(|o| is_p(&o));
    let others: Vec<String> = c
        .owners
        .iter()
        .filter(|o| !is_p(o))
        .map(|o| match &o.subresource {
            Some(sub) => format!("{} ({sub})", o.manager),
            None => o.manager.clone(),
        })
        .collect();
    if let Some(n) = c.manifest_replicas {
        let e = apply_as_is(c, p, n, others, findings);
        predict(who.clone(), "asIs", e);
    }
    let sole = p_owns && others_empty(c, p);
    let delete = Effect::Delete {
        defaults_to: c.default_replicas,
    };
    let without = if sole {
        delete.clone()
    } else {
        Effect::Nothing
    };
    predict(who.clone(), "withoutReplicas", without);
    let after = if sole && !c.handover_planned {
        delete
    } else {
        Effect::Nothing
    };
    predict(who, "afterMigration", after);
    if sole {
        findings.push(finding(
            "ssa-sole-owner-would-prune",
            Severity::High,
            format!(
                "{} is the only owner of spec.replicas: a server-side apply of the manifest without replicas would delete the field{}",
                p.manager,
                c.default_replicas.map_or(String::new(), |d| format!(" and the API would default it to {d}"))
            ),
        ));
    }
}

/// Whether no one but `p` (as an Apply manager) owns spec.replicas.
fn others_empty(c: &Ctx, p: &Owner) -> bool {
    c.owners
        .iter()
        .all(|o| o.manager == p.manager && o.operation == "Apply")
}

/// A server-side apply by `p` of the manifest as it is (replicas `n`): nothing, a conflict with
/// the other owners (Flux and Argo CD force conflicts), or a reset.
fn apply_as_is(
    c: &Ctx,
    p: &Owner,
    n: i64,
    others: Vec<String>,
    findings: &mut Vec<Finding>,
) -> Effect {
    let forced = matches!(p.tool, Some(Tool::Flux) | Some(Tool::ArgoCd));
    if Some(n) == c.live {
        return Effect::Nothing;
    }
    if others.is_empty() || forced {
        return Effect::ResetTo { replicas: n };
    }
    findings.push(finding(
        "ssa-apply-would-conflict",
        Severity::Medium,
        format!(
            "a server-side apply by {} of replicas {n} (live {}) fails with a conflict with {}; with --force-conflicts it would take the field back from the HPA",
            p.manager,
            c.live.map_or("unset".into(), |l| l.to_string()),
            others.join(", ")
        ),
    ));
    Effect::Conflict { with: others }
}

/// Helm (decided by the release) and Argo CD / Flux (decided by the owning object).
pub(crate) fn predict_tools(
    c: &Ctx,
    next_apply: &mut Vec<Prediction>,
    findings: &mut Vec<Finding>,
) {
    let Ctx {
        input,
        manifest_replicas,
        live,
        default_replicas,
        tools,
        ..
    } = *c;
    let has_tool = |t: Tool| tools.iter().any(|x| x.tool == t);
    // Helm in client-side mode: the previous release manifest decides, not the annotation
    if has_tool(Tool::Helm) && !input.helm.as_ref().is_some_and(HelmFacts::server_side) {
        let (rows, f) = helm_rows(
            input.helm.as_ref(),
            live,
            manifest_replicas,
            default_replicas,
        );
        next_apply.extend(rows);
        findings.push(f);
    }
    // Argo CD / Flux: what the owning object says
    for g in &input.gitops {
        let (id, msg) = gitops::verdict(g);
        let sev = if g.protected() {
            Severity::Info
        } else {
            Severity::Medium
        };
        findings.push(finding(id, sev, msg));
        if g.protected() {
            let tool = if g.owner.kind == "Application" {
                "Argo CD"
            } else {
                "Flux"
            };
            next_apply.retain(|p| !p.applier.contains(tool));
            for m in ["asIs", "withoutReplicas", "afterMigration"] {
                next_apply.push(Prediction {
                    applier: format!("{tool} sync ({}, ignores /spec/replicas)", g.owner.label()),
                    manifest: m,
                    text: Effect::Nothing.text(),
                    effect: Effect::Nothing,
                });
            }
        }
    }
}

/// Helm's client-side upgrade: a three-way merge against the previous release's manifest. One
/// prediction, decided by the release Secret when it could be read.
fn helm_rows(
    facts: Option<&HelmFacts>,
    live: Option<i64>,
    manifest_replicas: Option<i64>,
    default_replicas: Option<i64>,
) -> (Vec<Prediction>, Finding) {
    let row = |applier: &str, manifest: &'static str, effect: Effect| Prediction {
        applier: applier.to_string(),
        manifest,
        text: effect.text(),
        effect,
    };
    let delete = Effect::Delete {
        defaults_to: default_replicas,
    };
    let dflt = default_replicas.map_or("the default".into(), |d| d.to_string());
    let check = facts.map_or(
        "helm get manifest RELEASE -n NAMESPACE | grep -n 'replicas:'".into(),
        |f| {
            format!(
                "helm get manifest {} -n {} | grep -n 'replicas:'",
                f.release, f.namespace
            )
        },
    );
    let read = facts.and_then(|f| match &f.state {
        ReleaseState::Read {
            secret,
            revision,
            replicas,
            ..
        } => Some((secret, revision, replicas)),
        ReleaseState::Unreadable { .. } => None,
    });
    match read {
        Some((secret, revision, Some(r))) => {
            let who =
                format!("helm upgrade (three-way merge against {secret}, revision {revision})");
            let mut rows = Vec::new();
            if let Some(n) = manifest_replicas.or(r.parse().ok()) {
                let e = if Some(n) == live {
                    Effect::Nothing
                } else {
                    Effect::ResetTo { replicas: n }
                };
                rows.push(row(&who, "asIs", e));
            }
            rows.push(row(&who, "withoutReplicas", delete.clone()));
            rows.push(row(&who, "afterMigration", delete));
            (rows, finding("helm-release-has-replicas", Severity::High, format!(
                "the deployed release ({secret}, revision {revision}) rendered spec.replicas: {r}: the first upgrade whose chart no longer renders it (e.g. autoscaling.enabled=true) sends replicas: null and the API defaults it to {dflt}; the cluster requests below do not change that (see the Helm advice)"
            )))
        }
        Some((secret, revision, None)) => {
            let who =
                format!("helm upgrade (three-way merge against {secret}, revision {revision})");
            (
                vec![row(&who, "withoutReplicas", Effect::Nothing), row(&who, "afterMigration", Effect::Nothing)],
                finding("helm-release-without-replicas", Severity::Info, format!(
                    "the deployed release ({secret}, revision {revision}) does not render spec.replicas: an upgrade without it leaves the live value alone"
                )),
            )
        }
        None => {
            let why = match facts.map(|f| &f.state) {
                Some(ReleaseState::Unreadable { reason }) => reason.clone(),
                _ => "the object has no meta.helm.sh/release-name annotation".into(),
            };
            let both = Effect::Unknown {
                outcomes: format!("delete spec.replicas -> {dflt} if the deployed release rendered it, else leave it alone (release not readable)"),
            };
            (
                vec![
                    row("helm upgrade (three-way merge against the deployed release)", "withoutReplicas", both.clone()),
                    row("helm upgrade (three-way merge against the deployed release)", "afterMigration", both),
                ],
                finding("helm-release-unreadable", Severity::Medium, format!(
                    "the Helm release storage could not be read ({why}): if the deployed release rendered spec.replicas, the upgrade that stops rendering it sends replicas: null and the API defaults it to {dflt}; if it did not, the upgrade leaves it alone. Check with `{check}`"
                )),
            )
        }
    }
}
