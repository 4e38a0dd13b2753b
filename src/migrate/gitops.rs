//! Argo CD and Flux, read not guessed: find the owning `Application` / `Kustomization` /
//! `HelmRelease` from a workload's tracking markers, and judge from the object (when it could be
//! read) whether `spec.replicas` is ignored at sync, or give the exact snippet to add.

use serde::Serialize;
use serde_json::Value;

/// The GitOps object that applies a workload.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitopsRef {
    /// `Application`, `Kustomization` or `HelmRelease`.
    pub kind: &'static str,
    pub api_version: &'static str,
    pub namespace: String,
    pub name: String,
}

impl GitopsRef {
    /// `applications.argoproj.io`
    pub fn resource(&self) -> String {
        let (plural, group) = match self.kind {
            "Application" => ("applications", "argoproj.io"),
            "Kustomization" => ("kustomizations", "kustomize.toolkit.fluxcd.io"),
            _ => ("helmreleases", "helm.toolkit.fluxcd.io"),
        };
        format!("{plural}.{group}")
    }
    pub fn path(&self) -> String {
        let plural = self.resource();
        let plural = plural.split('.').next().unwrap_or_default();
        format!(
            "/apis/{}/namespaces/{}/{plural}/{}",
            self.api_version, self.namespace, self.name
        )
    }
    pub fn label(&self) -> String {
        format!("{} {}/{}", self.kind, self.namespace, self.name)
    }
}

/// What reading the GitOps object showed.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitopsFacts {
    #[serde(flatten)]
    pub owner: GitopsRef,
    /// None when the object could not be read.
    pub ignores_replicas: Option<bool>,
    /// Argo CD: `RespectIgnoreDifferences=true` (sync copies the live value).
    pub respects_ignore: Option<bool>,
    /// The object could not be read: why.
    pub unreadable: Option<String>,
    /// Extra facts (automated sync, server-side apply, suspended).
    pub notes: Vec<String>,
    /// What to add when the ignore rule is not in place.
    pub snippet: String,
}

impl GitopsFacts {
    /// The next sync leaves `spec.replicas` to the HPA.
    pub fn protected(&self) -> bool {
        match self.owner.kind {
            "Application" => {
                self.ignores_replicas == Some(true) && self.respects_ignore == Some(true)
            }
            _ => self.ignores_replicas == Some(true),
        }
    }
}

fn s<'a>(v: &'a Value, p: &str) -> &'a str {
    v.pointer(p).and_then(Value::as_str).unwrap_or_default()
}

/// The GitOps objects a workload's markers name.
pub fn owners_of(obj: &Value) -> Vec<GitopsRef> {
    let mut out = Vec::new();
    let ann = |k: &str| {
        s(
            obj,
            &format!("/metadata/annotations/{}", k.replace('/', "~1")),
        )
    };
    let lab = |k: &str| s(obj, &format!("/metadata/labels/{}", k.replace('/', "~1")));
    let tracking = ann("argocd.argoproj.io/tracking-id");
    let app = match tracking.split_once(':') {
        Some((app, _)) => app.to_string(),
        None => lab("argocd.argoproj.io/instance").to_string(),
    };
    if !app.is_empty() {
        // apps in any namespace: `<namespace>_<name>`
        let (ns, name) = match app.split_once('_') {
            Some((ns, n)) => (ns.to_string(), n.to_string()),
            None => ("argocd".to_string(), app),
        };
        out.push(GitopsRef {
            kind: "Application",
            api_version: "argoproj.io/v1alpha1",
            namespace: ns,
            name,
        });
    }
    for (prefix, kind, api) in [
        (
            "kustomize",
            "Kustomization",
            "kustomize.toolkit.fluxcd.io/v1",
        ),
        ("helm", "HelmRelease", "helm.toolkit.fluxcd.io/v2"),
    ] {
        let name = lab(&format!("{prefix}.toolkit.fluxcd.io/name"));
        if !name.is_empty() {
            let ns = lab(&format!("{prefix}.toolkit.fluxcd.io/namespace"));
            out.push(GitopsRef {
                kind,
                api_version: api,
                namespace: if ns.is_empty() {
                    "flux-system".into()
                } else {
                    ns.into()
                },
                name: name.into(),
            });
        }
    }
    out
}

/// The workload as a target: (group, kind, namespace, name).
pub struct Target<'a> {
    pub group: &'a str,
    pub kind: &'a str,
    pub namespace: &'a str,
    pub name: &'a str,
}

fn matches_target(t: &Value, target: &Target) -> bool {
    let field = |k: &str| t.get(k).and_then(Value::as_str);
    field("group").is_none_or(|g| g == target.group)
        && field("kind").is_none_or(|k| k == target.kind)
        && field("name").is_none_or(|n| n == target.name)
        && field("namespace").is_none_or(|n| n == target.namespace)
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Judge the object (or its read error) for this target.
pub fn judge(
    owner: GitopsRef,
    read: Result<&Value, String>,
    obj: &Value,
    target: &Target,
) -> GitopsFacts {
    let mut f = GitopsFacts {
        snippet: snippet(&owner, target),
        owner,
        ignores_replicas: None,
        respects_ignore: None,
        unreadable: None,
        notes: Vec::new(),
    };
    let app = match read {
        Ok(a) => a,
        Err(e) => {
            f.unreadable = Some(e);
            return f;
        }
    };
    match f.owner.kind {
        "Application" => judge_argo(&mut f, app, obj, target),
        "Kustomization" => {
            let rules = app.pointer("/spec/ignore").and_then(Value::as_array);
            f.ignores_replicas = Some(rules.into_iter().flatten().any(|r| {
                strings(r.get("paths")).contains(&"/spec/replicas")
                    && r.get("target").is_none_or(|t| matches_target(t, target))
            }));
            if app.pointer("/spec/suspend") == Some(&Value::Bool(true)) {
                f.notes.push("suspended".into());
            }
        }
        _ => {
            let rules = app
                .pointer("/spec/driftDetection/ignore")
                .and_then(Value::as_array);
            f.ignores_replicas = Some(rules.into_iter().flatten().any(|r| {
                strings(r.get("paths")).contains(&"/spec/replicas")
                    && r.get("target").is_none_or(|t| matches_target(t, target))
            }));
            if app.pointer("/spec/suspend") == Some(&Value::Bool(true)) {
                f.notes.push("suspended".into());
            }
        }
    }
    f
}

fn judge_argo(f: &mut GitopsFacts, app: &Value, obj: &Value, target: &Target) {
    let rules = app
        .pointer("/spec/ignoreDifferences")
        .and_then(Value::as_array);
    f.ignores_replicas = Some(rules.into_iter().flatten().any(|r| {
        matches_target(r, target)
            && (strings(r.get("jsonPointers")).contains(&"/spec/replicas")
                || strings(r.get("jqPathExpressions")).contains(&".spec.replicas"))
    }));
    let opts = strings(app.pointer("/spec/syncPolicy/syncOptions"));
    let per_resource = s(
        obj,
        "/metadata/annotations/argocd.argoproj.io~1sync-options",
    );
    f.respects_ignore = Some(
        opts.contains(&"RespectIgnoreDifferences=true")
            || per_resource.contains("RespectIgnoreDifferences=true"),
    );
    if opts.contains(&"ServerSideApply=true") || per_resource.contains("ServerSideApply=true") {
        f.notes
            .push("ServerSideApply=true (forced server-side sync)".into());
    }
    if app.pointer("/spec/syncPolicy/automated").is_some() {
        f.notes.push("automated sync".into());
    }
}

/// The exact lines to add to the GitOps object.
fn snippet(owner: &GitopsRef, t: &Target) -> String {
    let group = if t.group.is_empty() { "\"\"" } else { t.group };
    match owner.kind {
        "Application" => format!(
            "spec:\n  ignoreDifferences:\n  - group: {group}\n    kind: {}\n    name: {}\n    namespace: {}\n    jsonPointers: [/spec/replicas]\n  syncPolicy:\n    syncOptions: [RespectIgnoreDifferences=true]",
            t.kind, t.name, t.namespace
        ),
        "Kustomization" => format!(
            "spec:\n  ignore:\n  - paths: [/spec/replicas]\n    target: {{group: {group}, kind: {}, name: {}, namespace: {}}}",
            t.kind, t.name, t.namespace
        ),
        _ => format!(
            "spec:\n  driftDetection:\n    mode: enabled\n    ignore:\n    - paths: [/spec/replicas]\n      target: {{kind: {}, name: {}}}",
            t.kind, t.name
        ),
    }
}

/// One sentence on what the next sync does, and the finding id for it.
pub fn verdict(f: &GitopsFacts) -> (&'static str, String) {
    let who = f.owner.label();
    if let Some(e) = &f.unreadable {
        return (
            "gitops-object-unreadable",
            format!("{who} could not be read ({e}): whether it ignores /spec/replicas is unknown; if it does not, add the snippet below"),
        );
    }
    let notes = if f.notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", f.notes.join(", "))
    };
    match (f.owner.kind, f.ignores_replicas, f.respects_ignore) {
        ("Application", Some(true), Some(true)) => ("argocd-ignores-replicas", format!("{who}{notes} ignores /spec/replicas with RespectIgnoreDifferences=true: the next sync copies the live value, with or without replicas in Git")),
        ("Application", Some(true), _) => ("argocd-no-respect-ignore-differences", format!("{who}{notes} ignores /spec/replicas in the diff only: without RespectIgnoreDifferences=true the next sync still applies Git's replicas (or removes it); add the sync option")),
        ("Application", _, _) => ("argocd-replicas-not-ignored", format!("{who}{notes} does not ignore /spec/replicas: every sync applies what Git says (a reset, or a delete once removed); add the snippet below")),
        (_, Some(true), _) => ("flux-ignores-replicas", format!("{who}{notes} ignores /spec/replicas: the next reconcile keeps the live value, with or without replicas in Git")),
        _ => ("flux-replicas-not-ignored", format!("{who}{notes} does not ignore /spec/replicas: every reconcile force-applies Git's replicas; add the snippet below (kustomize-controller >= v1.9.0 / helm-controller drift detection) or remove replicas after the hand-over")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const T: Target = Target {
        group: "apps",
        kind: "Deployment",
        namespace: "shop",
        name: "web",
    };

    #[test]
    fn markers_name_the_objects() {
        let obj = json!({"metadata": {"annotations": {"argocd.argoproj.io/tracking-id": "shop-web:apps/Deployment:shop/web"},
            "labels": {"kustomize.toolkit.fluxcd.io/name": "apps", "kustomize.toolkit.fluxcd.io/namespace": "flux-system"}}});
        let o = owners_of(&obj);
        assert_eq!(
            o[0].path(),
            "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/shop-web"
        );
        assert_eq!(
            o[1].path(),
            "/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/flux-system/kustomizations/apps"
        );
    }

    #[test]
    fn argo_needs_both_settings() {
        let r = GitopsRef {
            kind: "Application",
            api_version: "argoproj.io/v1alpha1",
            namespace: "argocd".into(),
            name: "w".into(),
        };
        let mut app = json!({"spec": {"ignoreDifferences": [{"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}]}});
        let f = judge(r.clone(), Ok(&app), &json!({}), &T);
        assert!(!f.protected());
        assert_eq!(verdict(&f).0, "argocd-no-respect-ignore-differences");
        app["spec"]["syncPolicy"] = json!({"syncOptions": ["RespectIgnoreDifferences=true"]});
        assert!(judge(r.clone(), Ok(&app), &json!({}), &T).protected());
        let f = judge(r, Err("403".into()), &json!({}), &T);
        assert_eq!(verdict(&f).0, "gitops-object-unreadable");
        assert!(f.snippet.contains("RespectIgnoreDifferences=true"));
    }

    #[test]
    fn flux_helmrelease_drift_ignore() {
        let obj = json!({"metadata": {"labels": {"helm.toolkit.fluxcd.io/name": "web", "helm.toolkit.fluxcd.io/namespace": "shop"}}});
        let r = owners_of(&obj).remove(0);
        assert_eq!(
            r.path(),
            "/apis/helm.toolkit.fluxcd.io/v2/namespaces/shop/helmreleases/web"
        );
        let hr = json!({"spec": {"driftDetection": {"mode": "enabled", "ignore": [{"paths": ["/spec/replicas"], "target": {"kind": "Deployment"}}]}}});
        let f = judge(r.clone(), Ok(&hr), &obj, &T);
        assert!(f.protected());
        assert_eq!(verdict(&f).0, "flux-ignores-replicas");
        let other = json!({"spec": {"driftDetection": {"ignore": [{"paths": ["/spec/replicas"], "target": {"kind": "StatefulSet"}}]}}});
        let f = judge(r, Ok(&other), &obj, &T);
        assert!(!f.protected());
        assert!(f.snippet.contains("driftDetection"));
    }
}
