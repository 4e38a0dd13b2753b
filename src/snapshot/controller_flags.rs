//! The controller's own flags in a snapshot: the kube-controller-manager Pod (kube-system,
//! label `component=kube-controller-manager`, as kubeadm and RKE2 run it as a static pod) is
//! read for its `--horizontal-pod-autoscaler-*` flags and `--feature-gates`, whether the live
//! fetch put it in the List or the file holds it as
//! `kubectl get pod -n kube-system -l component=kube-controller-manager -o yaml` prints it.
//! It does not join the pods: no HPA's calculation reads it.

use serde_json::Value;

use super::{Snapshot, SnapshotError};
use crate::core::settings::ClusterFlags;

/// The label kubeadm and RKE2 put on the static pod.
pub const COMPONENT_LABEL: (&str, &str) = ("component", "kube-controller-manager");

/// The container that runs kube-controller-manager: the one of that name, else the first.
fn command_line(pod: &Value) -> Vec<String> {
    let containers = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let c = containers
        .iter()
        .find(|c| c["name"] == COMPONENT_LABEL.1)
        .or_else(|| containers.first());
    let strings = |key: &str| -> Vec<String> {
        c.and_then(|c| c[key].as_array())
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(String::from))
            .collect()
    };
    let mut line = strings("command");
    line.extend(strings("args"));
    line
}

/// The flags of a kube-controller-manager Pod (`None`: not that Pod).
pub fn of_pod(pod: &Value) -> Option<ClusterFlags> {
    let (key, value) = COMPONENT_LABEL;
    let labels = pod.pointer("/metadata/labels")?;
    if labels[key] != value || pod.pointer("/metadata/namespace")? != "kube-system" {
        return None;
    }
    let name = pod.pointer("/metadata/name")?.as_str()?;
    Some(ClusterFlags::from_args(
        &format!("pod kube-system/{name}"),
        &command_line(pod),
    ))
}

/// Whether a command-line word is one of the flags read here.
fn read_flag(word: &str) -> bool {
    let name = word.split('=').next().unwrap_or(word);
    name.starts_with("--horizontal-pod-autoscaler-") || name == "--feature-gates"
}

/// The kube-controller-manager Pod as `--redact` keeps it: its name, namespace and component
/// label, and of each container its name and the flags read here (with the value after a
/// `--flag value` form) — no other flag, image or address.
pub fn redacted(pod: &Value) -> Value {
    let (key, value) = COMPONENT_LABEL;
    let md = &pod["metadata"];
    let containers: Vec<Value> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            let keep = |k: &str| -> Vec<Value> {
                let words: Vec<&str> = c[k]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let mut out = Vec::new();
                for (i, w) in words.iter().enumerate() {
                    let value_of_read = i > 0
                        && read_flag(words[i - 1])
                        && !words[i - 1].contains('=')
                        && !w.starts_with("--");
                    if read_flag(w) || value_of_read {
                        out.push(Value::from(*w));
                    }
                }
                out
            };
            serde_json::json!({"name": c["name"], "command": keep("command"), "args": keep("args")})
        })
        .collect();
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": md["name"], "namespace": md["namespace"], "labels": {key: value}},
        "spec": {"containers": containers},
    })
}

impl Snapshot {
    /// A kube-system Pod: the controller's flags when it is the kube-controller-manager (the
    /// first one, by name, when several control-plane nodes run it), else a pod as any other.
    pub(super) fn add_system_pod(
        &mut self,
        item: super::item::Item<'_>,
        ctx: &str,
    ) -> Result<(), SnapshotError> {
        let v = item.into_value(ctx)?;
        match of_pod(&v) {
            Some(f) => {
                if self
                    .controller_flags
                    .as_ref()
                    .is_none_or(|have| f.origin < have.origin)
                {
                    self.controller_flags = Some(f);
                }
            }
            None => self.pods.push(super::item::Item::Owned(v).typed(ctx)?),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(command: Value, args: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "kube-controller-manager-cp1", "namespace": "kube-system",
                         "labels": {"component": "kube-controller-manager", "tier": "control-plane"}},
            "spec": {"containers": [{"name": "kube-controller-manager", "command": command, "args": args}]}})
    }

    #[test]
    fn the_kubeadm_static_pod_is_read_from_its_command() {
        let p = pod(
            json!([
                "kube-controller-manager",
                "--bind-address=127.0.0.1",
                "--horizontal-pod-autoscaler-tolerance=0.2",
                "--horizontal-pod-autoscaler-sync-period=30s",
                "--feature-gates=HPAScaleToZero=true,RotateKubeletServerCertificate=true"
            ]),
            json!(null),
        );
        let f = of_pod(&p).expect("the controller-manager");
        assert_eq!(f.origin, "pod kube-system/kube-controller-manager-cp1");
        assert_eq!(f.tolerance, Some(0.2));
        assert_eq!(f.sync_period, Some(jiff::SignedDuration::from_secs(30)));
        assert_eq!(
            f.feature_gates.as_deref(),
            Some("HPAScaleToZero=true,RotateKubeletServerCertificate=true")
        );
    }

    #[test]
    fn args_after_command_and_separate_values_are_read() {
        // RKE2 style: the binary in command, the flags in args, some as `--flag value`.
        let p = pod(
            json!(["kube-controller-manager"]),
            json!([
                "--horizontal-pod-autoscaler-downscale-stabilization",
                "1m30s",
                "--horizontal-pod-autoscaler-initial-readiness-delay=5m0s"
            ]),
        );
        let f = of_pod(&p).expect("the controller-manager");
        assert_eq!(
            f.downscale_stabilization,
            Some(jiff::SignedDuration::from_secs(90))
        );
        assert_eq!(
            f.initial_readiness_delay,
            Some(jiff::SignedDuration::from_mins(5))
        );
    }

    #[test]
    fn other_pods_are_not_the_controller() {
        let mut p = pod(json!(["x"]), json!(null));
        p["metadata"]["namespace"] = json!("shop");
        assert!(of_pod(&p).is_none());
        let mut p = pod(json!(["x"]), json!(null));
        p["metadata"]["labels"] = json!({"component": "kube-scheduler"});
        assert!(of_pod(&p).is_none());
    }

    #[test]
    fn redacted_keeps_the_hpa_flags_and_nothing_else() {
        let p = pod(
            json!([
                "kube-controller-manager",
                "--bind-address=10.0.0.1",
                "--horizontal-pod-autoscaler-tolerance=0.2"
            ]),
            json!([
                "--horizontal-pod-autoscaler-sync-period",
                "30s",
                "--kubeconfig",
                "/etc/secret.conf",
                "--feature-gates=HPAScaleToZero=true"
            ]),
        );
        let r = redacted(&p);
        let text = r.to_string();
        assert!(
            !text.contains("10.0.0.1") && !text.contains("secret"),
            "{text}"
        );
        let f = of_pod(&r).expect("still the controller-manager");
        assert_eq!(f.tolerance, Some(0.2));
        assert_eq!(f.sync_period, Some(jiff::SignedDuration::from_secs(30)));
        assert_eq!(f.feature_gates.as_deref(), Some("HPAScaleToZero=true"));
    }
}
