//! The controller's REST mapping of a `scaleTargetRef` (or an Object metric's described object)
//! to a resource, for the groups every modelled release serves — pure, shared by the snapshot
//! reader (offline) and the cluster layer (live), so both give the controller's exact text.
//!
//! The controller maps by group and kind only (`mapper.RESTMappings(GroupKind)` in
//! horizontal.go), so the version of `apiVersion` does not matter (`apps/v1beta2` is `apps/v1`)
//! while its group does: `extensions/v1beta1` Deployment fails with the REST mapper's
//! `NoKindMatchError`, `no matches for kind "Deployment" in group "extensions"`.

use std::fmt;

/// group, version, resource (plural).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gvr {
    pub group: String,
    pub version: String,
    pub plural: String,
}

impl Gvr {
    /// The collection path of the resource in namespace `ns`.
    pub fn collection(&self, ns: &str) -> String {
        if self.group.is_empty() {
            format!("/api/{}/namespaces/{ns}/{}", self.version, self.plural)
        } else {
            format!(
                "/apis/{}/{}/namespaces/{ns}/{}",
                self.group, self.version, self.plural
            )
        }
    }

    /// `deployments.apps`, `pods`: how API errors name the resource.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// Why a kind has no resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unmapped {
    /// The REST mapper's `NoKindMatchError` without searched versions.
    NoKindMatch { kind: String, group: String },
    /// Discovery of the group failed (live only).
    Discovery { api_version: String, text: String },
}

impl fmt::Display for Unmapped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // k8s.io/apimachinery pkg/api/meta/errors.go, NoKindMatchError.Error()
            Unmapped::NoKindMatch { kind, group } => {
                write!(f, "no matches for kind {kind:?} in group {group:?}")
            }
            Unmapped::Discovery { api_version, text } => write!(
                f,
                "unable to retrieve the complete list of server APIs: {api_version}: {text}"
            ),
        }
    }
}

/// Groups served by every modelled release (1.23 and later) and their kinds an HPA may name.
const BUILTIN: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "Pod",
            "Service",
            "ReplicationController",
            "Namespace",
            "Node",
            "Endpoints",
            "ConfigMap",
            "PersistentVolumeClaim",
        ],
    ),
    (
        "apps",
        &[
            "Deployment",
            "StatefulSet",
            "ReplicaSet",
            "DaemonSet",
            "ControllerRevision",
        ],
    ),
    ("batch", &["Job", "CronJob"]),
    (
        "networking.k8s.io",
        &["Ingress", "NetworkPolicy", "IngressClass"],
    ),
    ("policy", &["PodDisruptionBudget"]),
    ("autoscaling", &["HorizontalPodAutoscaler"]),
    // Removed in 1.22 (its last kinds moved to networking.k8s.io): nothing maps there.
    ("extensions", &[]),
];

/// The group of an `apiVersion` (`apps/v1` → `apps`, `v1` → ``).
pub fn group_of(api_version: &str) -> &str {
    api_version.split_once('/').map_or("", |(g, _)| g)
}

/// Map a built-in group's kind (preferred version `v1`); `None` for groups that need discovery.
pub fn builtin_mapping(api_version: &str, kind: &str) -> Option<Result<Gvr, Unmapped>> {
    let group = group_of(api_version);
    let (_, kinds) = BUILTIN.iter().find(|(g, _)| *g == group)?;
    Some(if kinds.contains(&kind) {
        Ok(Gvr {
            group: group.to_string(),
            version: "v1".into(),
            plural: plural_guess(kind),
        })
    } else {
        Err(Unmapped::NoKindMatch {
            kind: kind.to_string(),
            group: group.to_string(),
        })
    })
}

/// English plural of a kind, as the REST mapper's guess does.
pub fn plural_guess(kind: &str) -> String {
    let k = kind.to_lowercase();
    if k.ends_with('s') || k.ends_with('x') || k.ends_with("ch") || k.ends_with("sh") {
        format!("{k}es")
    } else if let Some(stem) = k
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u']))
    {
        format!("{stem}ies")
    } else {
        format!("{k}s")
    }
}

/// How a not-found error names the target's resource offline (`deployments.apps`,
/// `rollouts.argoproj.io`).
pub fn qualified_guess(api_version: &str, kind: &str) -> String {
    let group = group_of(api_version);
    if group.is_empty() {
        plural_guess(kind)
    } else {
        format!("{}.{group}", plural_guess(kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_group_counts_and_the_version_does_not() {
        let d = builtin_mapping("apps/v1beta2", "Deployment")
            .unwrap()
            .unwrap();
        assert_eq!(
            d.collection("shop"),
            "/apis/apps/v1/namespaces/shop/deployments"
        );
        let e = builtin_mapping("extensions/v1beta1", "Deployment").unwrap();
        assert_eq!(
            e.unwrap_err().to_string(),
            r#"no matches for kind "Deployment" in group "extensions""#
        );
        let core = builtin_mapping("v1", "Deployment").unwrap();
        assert_eq!(
            core.unwrap_err().to_string(),
            r#"no matches for kind "Deployment" in group """#
        );
        assert!(builtin_mapping("argoproj.io/v1alpha1", "Rollout").is_none());
        assert_eq!(
            qualified_guess("argoproj.io/v1alpha1", "Rollout"),
            "rollouts.argoproj.io"
        );
        assert_eq!(plural_guess("Ingress"), "ingresses");
        assert_eq!(plural_guess("Policy"), "policies");
    }
}
