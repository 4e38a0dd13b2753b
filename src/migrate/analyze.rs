//! Analyse one HPA and its target and plan the migration: the stages in order (read, predict,
//! judge, plan, advise).

use serde_json::Value;

use super::advice::{advice_for, standard_risks, Facts};
use super::findings::{manifest_findings, ownership_findings, target_findings};
use super::owners;
use super::plan::{
    finding, is_apps, s, Analysis, Condition, Ctx, Finding, HpaInfo, Input, LastApplied,
    Prediction, Severity, Step, TargetInfo,
};
use super::predict::{predict_client_side, predict_server_side, predict_tools};
use super::requests::{kubectl_equivalents, plan_steps};
use super::tools::detect_tools;

fn hpa_info(hpa: &Value) -> HpaInfo {
    HpaInfo {
        namespace: s(hpa, "/metadata/namespace").into(),
        name: s(hpa, "/metadata/name").into(),
        min_replicas: hpa
            .pointer("/spec/minReplicas")
            .and_then(Value::as_i64)
            .unwrap_or(1),
        max_replicas: hpa
            .pointer("/spec/maxReplicas")
            .and_then(Value::as_i64)
            .unwrap_or(0),
        conditions: hpa
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| Condition {
                type_: s(c, "/type").into(),
                status: s(c, "/status").into(),
                reason: s(c, "/reason").into(),
                message: s(c, "/message").into(),
            })
            .collect(),
    }
}

/// The last-applied annotation and its `spec.replicas`; an unreadable one blocks.
fn read_annotation(
    obj: &Value,
    findings: &mut Vec<Finding>,
) -> (Option<LastApplied>, Option<Value>) {
    match owners::last_applied(obj).map(owners::last_applied_replicas) {
        None => (None, None),
        Some(Ok(r)) => (
            Some(LastApplied {
                replicas: r.as_ref().map(|v| v.to_string()),
                manager: owners::annotation_manager(obj),
            }),
            r,
        ),
        Some(Err(e)) => {
            let mut f = finding("last-applied-unreadable", Severity::High, e.to_string());
            f.blocking = true;
            findings.push(f);
            (None, None)
        }
    }
}

/// The planned requests; a plan that cannot be made blocks.
fn steps_or_block(obj: &Value, path: &str, findings: &mut Vec<Finding>) -> Vec<Step> {
    match plan_steps(obj, path) {
        Ok(s) => s,
        Err(e) => {
            let mut f = finding("last-applied-unreadable", Severity::High, e.to_string());
            f.blocking = true;
            if !findings.iter().any(|x| x.id == f.id) {
                findings.push(f);
            }
            Vec::new()
        }
    }
}

/// Analyse one HPA and its target and plan the migration.
pub fn analyze(input: &Input) -> Analysis {
    let obj = input.object;
    let hpa = hpa_info(input.hpa);
    let target = target_info(input);
    let apps = is_apps(&target.api_version, &target.kind);
    let owners = owners::replicas_owners(obj);
    let all = owners::all_entries(obj);
    let mut findings = Vec::new();

    let (last_applied, annotation_replicas) = read_annotation(obj, &mut findings);
    let tools = detect_tools(input, &all);
    // the manifest's replicas: a local file, else what was last applied
    let file_replicas: Option<i64> = input
        .occurrences
        .iter()
        .filter_map(|o| o.replicas.as_deref())
        .find_map(|r| r.parse().ok());
    let manifest_replicas = file_replicas.or(annotation_replicas.as_ref().and_then(Value::as_i64));
    let steps = steps_or_block(obj, &input.path, &mut findings);
    let handover_planned = steps.iter().any(|s| s.id == "handover-replicas");
    let c = Ctx {
        input,
        obj,
        target: &target,
        hpa: &hpa,
        owners: &owners,
        all: &all,
        tools: &tools,
        last_applied: last_applied.as_ref(),
        annotation_replicas: annotation_replicas.as_ref(),
        file_replicas,
        manifest_replicas,
        live: target.replicas,
        default_replicas: apps.then_some(1),
        handover_planned,
        keeper: owners.iter().any(|o| o.role.keeps()),
        apps,
    };
    let next_apply = predict_and_judge(&c, steps.is_empty(), &mut findings);
    let blocked = findings.iter().any(|f| f.blocking);

    // --- kubectl equivalents, advice, risks
    let kubectl = kubectl_equivalents(
        obj,
        &target,
        &steps,
        &input.occurrences,
        last_applied.is_some(),
    );
    let facts = Facts {
        csa: last_applied.is_some(),
        handover: handover_planned && !blocked,
        helm: input.helm.as_ref(),
        gitops: &input.gitops,
    };
    let advice = advice_for(&tools, &target, &facts);
    let risks = standard_risks(&tools, &target, apps, facts.handover);
    Analysis {
        hpa,
        target,
        owners,
        last_applied,
        tools,
        next_apply,
        findings,
        requests: if blocked { Vec::new() } else { steps },
        kubectl,
        advice,
        risks,
        helm: input.helm.clone(),
        gitops: input.gitops.clone(),
    }
}

/// The workload as the plan names it.
fn target_info(input: &Input) -> TargetInfo {
    let obj = input.object;
    TargetInfo {
        api_version: s(obj, "/apiVersion").into(),
        kind: s(obj, "/kind").into(),
        namespace: s(obj, "/metadata/namespace").into(),
        name: s(obj, "/metadata/name").into(),
        path: input.path.clone(),
        resource_version: s(obj, "/metadata/resourceVersion").into(),
        replicas: obj.pointer("/spec/replicas").and_then(Value::as_i64),
    }
}

/// What each next apply would do, and the findings (most severe first); `already-safe` when
/// there is nothing to send and nothing dangerous after the migration.
fn predict_and_judge(c: &Ctx, no_steps: bool, findings: &mut Vec<Finding>) -> Vec<Prediction> {
    let mut next_apply = Vec::new();
    predict_client_side(c, &mut next_apply);
    predict_server_side(c, &mut next_apply, findings);
    predict_tools(c, &mut next_apply, findings);
    ownership_findings(c, findings);
    manifest_findings(c, findings);
    target_findings(c, findings);
    let blocked = findings.iter().any(|f| f.blocking);
    let after_danger = next_apply
        .iter()
        .any(|p| p.manifest == "afterMigration" && p.effect.dangerous());
    if no_steps && !blocked && !after_danger {
        findings.push(finding(
            "already-safe",
            Severity::Info,
            "nothing to send: removing spec.replicas from the manifest leaves the live value alone"
                .into(),
        ));
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    next_apply
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::migrate::manifest::{EditAction, Occurrence};
    use crate::migrate::owners::{Tool, LAST_APPLIED};
    use crate::migrate::plan::{Effect, RV_FROM_PREVIOUS};
    use serde_json::json;

    fn deploy(annotation_replicas: Option<i64>, managers: Value) -> Value {
        let mut la = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"annotations": {}, "name": "web", "namespace": "shop"}, "spec": {"selector": {"matchLabels": {"app": "web"}}}});
        if let Some(n) = annotation_replicas {
            la["spec"]["replicas"] = json!(n);
        }
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "42",
                "annotations": {LAST_APPLIED: format!("{la}\n")}, "managedFields": managers},
            "spec": {"replicas": 7, "selector": {"matchLabels": {"app": "web"}}}
        })
    }

    fn csa_entry(replicas: bool) -> Value {
        let mut f = json!({"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}}, "f:spec": {"f:selector": {}}});
        if replicas {
            f["f:spec"]["f:replicas"] = json!({});
        }
        json!({"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1", "fieldsV1": f})
    }

    fn hpa() -> Value {
        json!({"metadata": {"name": "web", "namespace": "shop"}, "spec": {"minReplicas": 2, "maxReplicas": 10, "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}}})
    }

    fn run(obj: &Value) -> Analysis {
        let h = hpa();
        analyze(&Input {
            hpa: &h,
            object: obj,
            path: "/apis/apps/v1/namespaces/shop/deployments/web".into(),
            other_hpas: vec![],
            occurrences: vec![],
            kustomize: vec![],
            files_given: false,
            helm: None,
            gitops: vec![],
        })
    }

    fn ids(a: &Analysis) -> Vec<&str> {
        a.findings.iter().map(|f| f.id).collect()
    }

    #[test]
    fn csa_with_replicas_plans_both_steps() {
        let obj = deploy(Some(3), json!([csa_entry(true)]));
        let a = run(&obj);
        assert!(a.has("csa-annotation-has-replicas"), "{:?}", ids(&a));
        assert!(a.has("csa-manager-owns-replicas"));
        assert!(a.has("manifest-sets-replicas"));
        assert_eq!(a.requests.len(), 2);
        let body: Value = serde_json::from_str(&a.requests[0].body).unwrap();
        assert_eq!(body["metadata"]["resourceVersion"], "42");
        let new = body["metadata"]["annotations"][LAST_APPLIED]
            .as_str()
            .unwrap();
        assert!(!new.contains("replicas") && new.ends_with("}\n"));
        assert_eq!(
            a.requests[0].query,
            [(
                "fieldManager".to_string(),
                "kubectl-client-side-apply".to_string()
            )]
        );
        assert_eq!(
            a.requests[1].body,
            format!("{{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{{\"name\":\"web\",\"namespace\":\"shop\",\"resourceVersion\":\"{RV_FROM_PREVIOUS}\"}},\"spec\":{{\"replicas\":7}}}}")
        );
        let w: Vec<&Prediction> = a
            .next_apply
            .iter()
            .filter(|p| p.manifest == "withoutReplicas")
            .collect();
        assert_eq!(
            w[0].effect,
            Effect::Delete {
                defaults_to: Some(1)
            }
        );
        assert!(a
            .next_apply
            .iter()
            .filter(|p| p.manifest == "afterMigration")
            .all(|p| p.effect == Effect::Nothing));
    }

    #[test]
    fn hpa_owner_means_no_handover() {
        let obj = deploy(
            Some(3),
            json!([csa_entry(false), {"manager": "kube-controller-manager", "operation": "Update", "subresource": "scale", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
        );
        let a = run(&obj);
        assert_eq!(a.requests.len(), 1);
        assert_eq!(a.requests[0].id, "remove-replicas-from-last-applied");
        assert!(a.has("hpa-owns-replicas"));
    }

    #[test]
    fn clean_object_is_already_safe() {
        let obj = deploy(
            None,
            json!([csa_entry(false), {"manager": "kube-controller-manager", "operation": "Update", "subresource": "scale", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
        );
        let a = run(&obj);
        assert!(a.requests.is_empty());
        assert!(a.has("already-safe"), "{:?}", ids(&a));
    }

    #[test]
    fn ssa_sole_owner_gets_handover_only() {
        let mut obj = deploy(
            None,
            json!([{"manager": "kubectl", "operation": "Apply", "fieldsV1": {"f:spec": {"f:replicas": {}, "f:selector": {}}}}]),
        );
        obj["metadata"]["annotations"] = json!({});
        let a = run(&obj);
        assert!(a.has("ssa-sole-owner-would-prune"));
        assert_eq!(a.requests.len(), 1);
        assert_eq!(a.requests[0].id, "handover-replicas");
        assert!(a.requests[0].body.contains("\"resourceVersion\":\"42\""));
        let after: Vec<&Prediction> = a
            .next_apply
            .iter()
            .filter(|p| p.manifest == "afterMigration")
            .collect();
        assert_eq!(after[0].effect, Effect::Nothing);
    }

    #[test]
    fn ssa_manifest_with_other_value_conflicts() {
        let mut obj = deploy(
            None,
            json!([
            {"manager": "kubectl", "operation": "Apply", "fieldsV1": {"f:spec": {"f:selector": {}}}},
            {"manager": "kube-controller-manager", "operation": "Update", "subresource": "scale", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
        );
        obj["metadata"]["annotations"] = json!({});
        let h = hpa();
        let occ = Occurrence {
            file: "w.yaml".into(),
            document: 1,
            item: None,
            line: 5,
            replicas: Some("3".into()),
            namespace_assumed: false,
            action: EditAction::NoReplicas,
        };
        let a = analyze(&Input {
            hpa: &h,
            object: &obj,
            path: "/apis/apps/v1/namespaces/shop/deployments/web".into(),
            other_hpas: vec!["shop/web2".into()],
            occurrences: vec![occ],
            kustomize: vec![],
            files_given: true,
            helm: None,
            gitops: vec![],
        });
        assert!(a.has("ssa-apply-would-conflict"));
        assert!(a.has("multiple-hpas") && a.blocked());
        assert!(a.requests.is_empty());
    }

    #[test]
    fn helm_is_detected() {
        let mut obj = deploy(
            None,
            json!([{"manager": "helm", "operation": "Update", "fieldsV1": {"f:spec": {"f:replicas": {}}}}]),
        );
        obj["metadata"]["annotations"] = json!({"meta.helm.sh/release-name": "web"});
        obj["metadata"]["labels"] = json!({"app.kubernetes.io/managed-by": "Helm"});
        let a = run(&obj);
        assert!(a.has("managed-by-helm") && a.has("helm-release-unreadable"));
        let after: Vec<&Prediction> = a
            .next_apply
            .iter()
            .filter(|p| p.manifest == "afterMigration")
            .collect();
        assert!(after
            .iter()
            .any(|p| matches!(p.effect, Effect::Unknown { .. })));
        assert!(!a.has("already-safe"), "one consistent prediction");
        assert_eq!(a.tools[0].tool, Tool::Helm);
        assert!(a.advice.iter().any(|x| x.tool == "helm"));
        assert_eq!(
            a.requests.len(),
            1,
            "handover still helps once Helm goes server-side"
        );
    }
}
