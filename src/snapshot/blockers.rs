//! What stops the replicas from appearing, or fights over them, as a snapshot holds it: the
//! namespace's ResourceQuotas, LimitRanges, PodDisruptionBudgets and VerticalPodAutoscalers
//! (kept as they are, like Events), and the readings of the two Event messages the findings
//! are built from — the scheduler's `FailedScheduling` ("0/5 nodes are available: 3
//! Insufficient cpu, 2 node(s) had untolerated taint {…}") and a `FailedCreate`'s "exceeded
//! quota" — which `--redact` also writes back in place of the message (names and numbers only).

/// The kinds kept for these findings (beside Events, already kept).
pub const KINDS: &[(&str, &str)] = &[
    ("v1", "ResourceQuota"),
    ("v1", "LimitRange"),
    ("policy/v1", "PodDisruptionBudget"),
    ("autoscaling.k8s.io/v1", "VerticalPodAutoscaler"),
];

/// The `spec` and `status` fields `--redact` keeps of each kind (numbers, selectors, names).
pub fn kept_fields(kind: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match kind {
        "ResourceQuota" => (&["hard", "scopes", "scopeSelector"], &["hard", "used"]),
        "LimitRange" => (&["limits"], &[]),
        "PodDisruptionBudget" => (
            &["minAvailable", "maxUnavailable", "selector"],
            &[
                "currentHealthy",
                "desiredHealthy",
                "disruptionsAllowed",
                "expectedPods",
            ],
        ),
        "VerticalPodAutoscaler" => (&["targetRef", "updatePolicy", "resourcePolicy"], &[]),
        _ => (&[], &[]),
    }
}

/// What keeps a pod from a node, in the scheduler's families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unfit {
    /// `Insufficient cpu` / `memory` / `ephemeral-storage` / an extended resource.
    Insufficient,
    /// `Too many pods` (the node's pod limit).
    TooManyPods,
    /// `had untolerated taint`.
    Taint,
    /// node affinity or selector, pod affinity and anti-affinity, topology spread.
    Affinity,
    /// volume node affinity, zone conflicts, unbound claims, attach limits.
    Volume,
    /// `were unschedulable` (cordoned).
    Cordoned,
    Other,
}

/// One reason of a `FailedScheduling` message: how many nodes and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeReason {
    pub nodes: u32,
    /// The scheduler's words (`Insufficient cpu`, `node(s) had untolerated taint {…}`).
    pub text: String,
    pub family: Unfit,
}

/// A `FailedScheduling` message read: `0/5 nodes are available: …`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulingFailure {
    pub available: u32,
    pub total: u32,
    pub reasons: Vec<NodeReason>,
}

impl SchedulingFailure {
    /// The message again, without what follows the reasons (the preemption's words).
    pub fn text(&self) -> String {
        let reasons: Vec<String> = self
            .reasons
            .iter()
            .map(|r| format!("{} {}", r.nodes, r.text))
            .collect();
        format!(
            "{}/{} nodes are available: {}",
            self.available,
            self.total,
            reasons.join(", ")
        )
    }
}

fn family(text: &str) -> Unfit {
    let t = text.to_ascii_lowercase();
    if t.starts_with("insufficient ") {
        Unfit::Insufficient
    } else if t.contains("too many pods") {
        Unfit::TooManyPods
    } else if t.contains("taint") {
        Unfit::Taint
    } else if t.contains("volume") || t.contains("persistentvolumeclaim") {
        Unfit::Volume
    } else if t.contains("affinity") || t.contains("selector") || t.contains("topology spread") {
        Unfit::Affinity
    } else if t.contains("unschedulable") {
        Unfit::Cordoned
    } else {
        Unfit::Other
    }
}

/// Split at `", "` outside braces (a taint is `{key: value}`).
fn split_reasons(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b',' if depth <= 0 && bytes.get(i + 1) == Some(&b' ') => {
                out.push(&s[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&s[start..]);
    out
}

/// Read the scheduler's `FailedScheduling` message (`None`: not that form, e.g. a plugin's own
/// words): `0/5 nodes are available: 3 Insufficient cpu, 2 node(s) had untolerated taint
/// {node-role.kubernetes.io/control-plane: }. preemption: …`.
pub fn parse_failed_scheduling(message: &str) -> Option<SchedulingFailure> {
    let (counts, rest) = message.trim().split_once(" nodes are available")?;
    let (available, total) = counts.rsplit(' ').next()?.split_once('/')?;
    let (available, total) = (available.parse().ok()?, total.parse().ok()?);
    let rest = rest.strip_prefix(':').unwrap_or(rest).trim_start();
    // The reasons end at the first ". " outside braces (then "preemption: …"), or at the end.
    let mut depth = 0i32;
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            '.' if depth <= 0 && (rest[i + 1..].starts_with(' ') || i + 1 == rest.len()) => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let reasons = split_reasons(&rest[..end])
        .into_iter()
        .filter_map(|r| {
            let (n, text) = r.trim().split_once(' ')?;
            let text = text.trim().to_string();
            Some(NodeReason {
                nodes: n.parse().ok()?,
                family: family(&text),
                text,
            })
        })
        .collect();
    Some(SchedulingFailure {
        available,
        total,
        reasons,
    })
}

/// A `FailedCreate` refused by a ResourceQuota: `… is forbidden: exceeded quota: NAME,
/// requested: requests.cpu=500m, used: requests.cpu=3500m, limited: requests.cpu=4`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaRefusal {
    pub quota: String,
    pub requested: Vec<(String, String)>,
    pub used: Vec<(String, String)>,
    pub limited: Vec<(String, String)>,
}

impl QuotaRefusal {
    /// The refusal again, from `exceeded quota:` on (no pod name).
    pub fn text(&self) -> String {
        let list = |l: &[(String, String)]| {
            l.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "exceeded quota: {}, requested: {}, used: {}, limited: {}",
            self.quota,
            list(&self.requested),
            list(&self.used),
            list(&self.limited)
        )
    }
}

/// Read a quota refusal out of a `FailedCreate` message (`None`: another failure).
pub fn parse_quota_refusal(message: &str) -> Option<QuotaRefusal> {
    let (_, rest) = message.split_once("exceeded quota: ")?;
    let (quota, rest) = rest.split_once(", requested: ")?;
    let (requested, rest) = rest.split_once(", used: ")?;
    let (used, limited) = rest.split_once(", limited: ")?;
    let pairs = |s: &str| -> Vec<(String, String)> {
        s.trim()
            .split(',')
            .filter_map(|p| {
                let (k, v) = p.split_once('=')?;
                Some((k.trim().to_string(), v.trim().to_string()))
            })
            .collect()
    };
    Some(QuotaRefusal {
        quota: quota.trim().to_string(),
        requested: pairs(requested),
        used: pairs(used),
        limited: pairs(limited),
    })
}

/// The message `--redact` keeps of an Event these findings read: the reading of a
/// `FailedScheduling` or quota refusal written back (names and numbers), `None` otherwise.
pub fn redacted_message(reason: &str, message: &str) -> Option<String> {
    match reason {
        "FailedScheduling" => parse_failed_scheduling(message).map(|f| f.text()),
        "FailedCreate" => parse_quota_refusal(message).map(|q| q.text()),
        // The node autoscalers' words: node groups, node claims and counts.
        "TriggeredScaleUp" | "NotTriggerScaleUp" | "Nominated" => Some(message.to_string()),
        _ => None,
    }
}

/// The requests the LimitRanger admission plugin set, as `(resource, container)` pairs, read
/// from a pod's `kubernetes.io/limit-ranger` annotation: `LimitRanger plugin set: cpu, memory
/// request for container app; cpu limit for container app` → (cpu, app), (memory, app). Init
/// containers' and limits' entries are left out (the utilization is a share of the regular
/// containers' requests).
pub fn limit_ranger_requests(annotation: &str) -> Vec<(String, String)> {
    let Some(rest) = annotation.trim().strip_prefix("LimitRanger plugin set:") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for part in rest.split(';') {
        let Some((resources, container)) = part.trim().split_once(" request for container ") else {
            continue;
        };
        let container = container.trim();
        for r in resources.split(',') {
            let r = r.trim();
            if !r.is_empty() && !container.is_empty() {
                out.push((r.to_string(), container.to_string()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_rangers_annotation_names_each_request_it_set() {
        let got = limit_ranger_requests(
            "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; memory request for init container setup; cpu request for container sidecar",
        );
        let got: Vec<(&str, &str)> = got.iter().map(|(r, c)| (r.as_str(), c.as_str())).collect();
        assert_eq!(got, [("cpu", "app"), ("memory", "app"), ("cpu", "sidecar")]);
        assert!(limit_ranger_requests("something else: cpu request for container a").is_empty());
        assert!(
            limit_ranger_requests("LimitRanger plugin set: cpu limit for container a").is_empty()
        );
    }

    #[test]
    fn the_schedulers_message_is_read_into_counts_and_families() {
        let f = parse_failed_scheduling(
            "0/5 nodes are available: 3 Insufficient cpu, 1 Insufficient memory, 2 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/5 nodes are available: 5 No preemption victims found for incoming pod.",
        )
        .expect("parsed");
        assert_eq!((f.available, f.total), (0, 5));
        let got: Vec<(u32, &str, Unfit)> = f
            .reasons
            .iter()
            .map(|r| (r.nodes, r.text.as_str(), r.family))
            .collect();
        assert_eq!(
            got,
            [
                (3, "Insufficient cpu", Unfit::Insufficient),
                (1, "Insufficient memory", Unfit::Insufficient),
                (
                    2,
                    "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
                    Unfit::Taint
                ),
                (
                    1,
                    "node(s) didn't match Pod's node affinity/selector",
                    Unfit::Affinity
                ),
            ]
        );
        assert_eq!(
            f.text(),
            "0/5 nodes are available: 3 Insufficient cpu, 1 Insufficient memory, 2 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 1 node(s) didn't match Pod's node affinity/selector"
        );
    }

    #[test]
    fn volumes_cordons_and_a_message_without_a_period() {
        let f = parse_failed_scheduling(
            "0/3 nodes are available: 1 node(s) had volume node affinity conflict, 2 node(s) were unschedulable",
        )
        .expect("parsed");
        let fams: Vec<Unfit> = f.reasons.iter().map(|r| r.family).collect();
        assert_eq!(fams, [Unfit::Volume, Unfit::Cordoned]);
        assert!(
            parse_failed_scheduling("Failed to schedule pod, incompatible with nodepool").is_none()
        );
        assert!(parse_failed_scheduling("x/y nodes are available: 1 z").is_none());
    }

    #[test]
    fn a_quota_refusal_is_read_and_written_back_without_the_pod_name() {
        let m = "Error creating: pods \"web-7d9f-x2\" is forbidden: exceeded quota: compute, requested: requests.cpu=500m,requests.memory=256Mi, used: requests.cpu=3800m,requests.memory=1Gi, limited: requests.cpu=4,requests.memory=8Gi";
        let q = parse_quota_refusal(m).expect("parsed");
        assert_eq!(q.quota, "compute");
        assert_eq!(q.requested[0], ("requests.cpu".into(), "500m".into()));
        assert_eq!(q.limited[1], ("requests.memory".into(), "8Gi".into()));
        assert_eq!(
            redacted_message("FailedCreate", m).expect("kept"),
            "exceeded quota: compute, requested: requests.cpu=500m,requests.memory=256Mi, used: requests.cpu=3800m,requests.memory=1Gi, limited: requests.cpu=4,requests.memory=8Gi"
        );
        assert!(parse_quota_refusal("Error creating: pods is forbidden: no").is_none());
        assert!(redacted_message("Pulled", m).is_none());
    }
}
