//! The requests `--apply` sends (the annotation's merge patch and the hand-over's server-side
//! apply) and their kubectl equivalents.

use serde_json::{json, Value};

use super::manifest::{EditAction, Occurrence};
use super::owners::{self, Owner, CSA_MANAGER, HANDOVER_MANAGER, LAST_APPLIED};
use super::plan::{group_of, s, Step, TargetInfo, RV_FROM_PREVIOUS};

/// The merge patch of the annotation alone, with the resourceVersion precondition.
pub fn annotation_body(new_annotation: &str, resource_version: &str) -> String {
    json!({"metadata": {"annotations": {LAST_APPLIED: new_annotation}, "resourceVersion": resource_version}})
        .to_string()
}

/// The server-side apply of `spec.replicas` alone at `replicas`, with the precondition.
pub fn handover_body(
    api_version: &str,
    kind: &str,
    ns: &str,
    name: &str,
    replicas: i64,
    resource_version: &str,
) -> String {
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": ns, "resourceVersion": resource_version},
        "spec": {"replicas": replicas},
    })
    .to_string()
}

/// The annotation step for an object, if its annotation has `spec.replicas`.
pub fn annotation_step(obj: &Value, path: &str) -> Result<Option<Step>, owners::AnnotationError> {
    let Some(raw) = owners::last_applied(obj) else {
        return Ok(None);
    };
    if owners::last_applied_replicas(raw)?.is_none() {
        return Ok(None);
    }
    let new = owners::strip_last_applied(raw)?;
    let manager = owners::annotation_manager(obj);
    Ok(Some(Step {
        id: "remove-replicas-from-last-applied",
        description: format!(
            "remove spec.replicas from the {LAST_APPLIED} annotation (metadata only, as field manager {manager})"
        ),
        method: "PATCH",
        path: path.to_string(),
        query: vec![("fieldManager".into(), manager)],
        content_type: "application/merge-patch+json",
        body: annotation_body(&new, s(obj, "/metadata/resourceVersion")),
        resource_version_from_previous_step: false,
    }))
}

/// Does the hand-over need to be sent: someone owns `spec.replicas` and nobody who keeps it.
pub fn needs_handover(owners: &[Owner]) -> bool {
    !owners.is_empty() && !owners.iter().any(|o| o.role.keeps())
}

/// The hand-over step, if needed.
pub fn handover_step(obj: &Value, path: &str, after_previous: bool) -> Option<Step> {
    let replicas = obj.pointer("/spec/replicas").and_then(Value::as_i64)?;
    if !needs_handover(&owners::replicas_owners(obj)) {
        return None;
    }
    let rv = if after_previous {
        RV_FROM_PREVIOUS
    } else {
        s(obj, "/metadata/resourceVersion")
    };
    Some(Step {
        id: "handover-replicas",
        description: format!(
            "co-own spec.replicas={replicas} as field manager {HANDOVER_MANAGER} (server-side apply, never forced; value unchanged)"
        ),
        method: "PATCH",
        path: path.to_string(),
        query: vec![("fieldManager".into(), HANDOVER_MANAGER.into())],
        content_type: "application/apply-patch+yaml",
        body: handover_body(
            s(obj, "/apiVersion"),
            s(obj, "/kind"),
            s(obj, "/metadata/namespace"),
            s(obj, "/metadata/name"),
            replicas,
            rv,
        ),
        resource_version_from_previous_step: after_previous,
    })
}

/// The requests `--apply` sends for an object as read, in order.
pub fn plan_steps(obj: &Value, path: &str) -> Result<Vec<Step>, owners::AnnotationError> {
    let mut steps = Vec::new();
    if let Some(a) = annotation_step(obj, path)? {
        steps.push(a);
    }
    if let Some(h) = handover_step(obj, path, !steps.is_empty()) {
        steps.push(h);
    }
    Ok(steps)
}

/// `deployments.apps/web`
fn kubectl_resource(target: &TargetInfo, path: &str) -> String {
    let plural = path.rsplit('/').nth(1).unwrap_or_default();
    let g = group_of(&target.api_version);
    if g.is_empty() {
        format!("{plural}/{}", target.name)
    } else {
        format!("{plural}.{g}/{}", target.name)
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

pub(crate) fn kubectl_equivalents(
    obj: &Value,
    target: &TargetInfo,
    steps: &[Step],
    occurrences: &[Occurrence],
    csa: bool,
) -> Vec<String> {
    let res = kubectl_resource(target, &target.path);
    let ns = &target.namespace;
    let mut out = Vec::new();
    for st in steps {
        match st.id {
            "remove-replicas-from-last-applied" => {
                let manager = &st.query[0].1;
                out.push(format!(
                    "# {}\nkubectl patch {res} -n {ns} --type merge --field-manager {manager} -p {}",
                    st.description,
                    shell_quote(&st.body)
                ));
                out.push(format!(
                    "# or interactively (delete the `replicas:` line under spec; no resourceVersion precondition)\nkubectl apply edit-last-applied {res} -n {ns}"
                ));
            }
            "handover-replicas" => {
                let replicas = obj
                    .pointer("/spec/replicas")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                let mut c = format!(
                    "# {}\nkubectl apply --server-side --field-manager={HANDOVER_MANAGER} --validate=false -f - <<'EOF'\napiVersion: {}\nkind: {}\nmetadata:\n  name: {}\n  namespace: {ns}\nspec:\n  replicas: {replicas}\nEOF",
                    st.description, target.api_version, target.kind, target.name
                );
                if csa {
                    c += &format!("\n# WARNING: on this client-side-applied object, kubectl first folds the fields of {CSA_MANAGER} into {HANDOVER_MANAGER} (its client-side -> server-side migration), so {HANDOVER_MANAGER} would own the whole object; `kubectl hpa migrate --apply` sends the single apply request instead");
                }
                out.push(c);
            }
            _ => {}
        }
    }
    out.push(format!(
        "# check the owners of spec.replicas\nkubectl get {res} -n {ns} --show-managed-fields -o yaml"
    ));
    for o in occurrences {
        if matches!(o.action, EditAction::Remove { .. }) {
            out.push(format!(
                "# after the cluster steps and the file edit: the next apply must not change spec.replicas\nkubectl diff -f {}",
                o.file
            ));
        }
    }
    out.dedup();
    out
}
