//! KEDA's layer for one HPA of a [`Snapshot`] (pure): the ScaledObject behind it read at the
//! snapshot's time ([`facts`]), or why it could not be read; its recent Events; and the
//! conflicts KEDA meets on the HPA's target (a second HPA, another ScaledObject). Live and
//! offline explain read the same snapshot, so they give the same section.

use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use serde::Serialize;
use serde_json::Value;

use super::facts::{facts, KedaFacts};
use super::owner::{owner, KedaOwner};
use crate::snapshot::Snapshot;

/// Events shown (the newest).
const EVENTS_SHOWN: usize = 5;

/// The webhook's escape hatch for an HPA already on the target (`verifyHpas`).
pub const HPA_OWNERSHIP_ANNOTATION: &str = "validations.keda.sh/hpa-ownership";
/// Adopting an existing HPA (with `advanced.horizontalPodAutoscalerConfig.name`).
pub const TRANSFER_OWNERSHIP_ANNOTATION: &str = "scaledobject.keda.sh/transfer-hpa-ownership";

/// KEDA's section of an explanation.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KedaSection {
    /// The ScaledObject that generated the HPA (absent: the HPA is not KEDA's, but a
    /// ScaledObject targets its target: see `conflicts`).
    pub owner: Option<KedaOwner>,
    /// Why the ScaledObject could not be read (absent when it was read).
    pub unreadable: Option<String>,
    /// What the ScaledObject says, at the evaluation time.
    pub facts: Option<KedaFacts>,
    /// The ScaledObject's newest Events (at most 5), newest last.
    pub events: Vec<KedaEvent>,
    /// Other autoscalers of the same target.
    pub conflicts: Vec<Conflict>,
}

/// An Event about the ScaledObject.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KedaEvent {
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
    pub count: Option<i64>,
    /// When it was last seen (RFC 3339), when the Event says.
    pub last_seen: Option<String>,
}

/// Another autoscaler of the HPA's target.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Conflict {
    /// `HorizontalPodAutoscaler` or `ScaledObject`.
    pub kind: String,
    pub name: String,
    /// The target both scale (`Deployment orders`).
    pub target: String,
}

fn str_at<'v>(v: &'v Value, path: &str) -> &'v str {
    v.pointer(path).and_then(Value::as_str).unwrap_or_default()
}

/// Printable text only (a message from the cluster never reaches the terminal as a control
/// character).
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// KEDA's section for HPA `ns/name` at `now`: `None` when neither the HPA is KEDA's nor a
/// ScaledObject targets its target.
pub fn section(
    snap: &Snapshot,
    hpa: &HorizontalPodAutoscaler,
    now: jiff::Timestamp,
) -> Option<KedaSection> {
    let ns = hpa.metadata.namespace.as_deref().unwrap_or("default");
    let who = owner(hpa);
    let conflicts = conflicts(snap, hpa, who.as_ref());
    let who = match who {
        Some(o) => o,
        None if conflicts.is_empty() => return None,
        None => {
            return Some(KedaSection {
                owner: None,
                unreadable: None,
                facts: None,
                events: Vec::new(),
                conflicts,
            })
        }
    };
    let so = snap.scaled_object(ns, &who.scaled_object);
    let unreadable = match so {
        Some(_) => None,
        None => Some(match snap.scaled_objects_error(ns) {
            Some(e) => printable(e),
            None => format!(
                "the snapshot holds no ScaledObject {ns}/{} (a file taken without it, or the ScaledObject was deleted)",
                who.scaled_object
            ),
        }),
    };
    Some(KedaSection {
        facts: so.map(|so| facts(so, hpa, now)),
        events: events(snap, ns, &who.scaled_object),
        owner: Some(who),
        unreadable,
        conflicts,
    })
}

/// [`section`] for HPA `ns/name` of the snapshot (`None` also when the snapshot lacks it).
pub fn section_for(
    snap: &Snapshot,
    ns: &str,
    name: &str,
    now: jiff::Timestamp,
) -> Option<KedaSection> {
    section(snap, snap.hpa(ns, name).ok()?, now)
}

/// The newest Events about ScaledObject `ns/name`.
fn events(snap: &Snapshot, ns: &str, name: &str) -> Vec<KedaEvent> {
    let mut all: Vec<KedaEvent> = snap
        .scaled_object_events(ns, name)
        .into_iter()
        .map(|e| {
            let last = ["/lastTimestamp", "/series/lastObservedTime", "/eventTime"]
                .iter()
                .map(|p| str_at(e, p))
                .find(|t| !t.is_empty())
                .map(String::from);
            KedaEvent {
                type_: printable(str_at(e, "/type")),
                reason: printable(str_at(e, "/reason")),
                message: printable(match str_at(e, "/message") {
                    "" => str_at(e, "/note"),
                    m => m,
                }),
                count: e
                    .get("count")
                    .or_else(|| e.pointer("/series/count"))
                    .and_then(Value::as_i64),
                last_seen: last,
            }
        })
        .collect();
    all.sort_by_key(|e| {
        e.last_seen
            .as_deref()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
    });
    let skip = all.len().saturating_sub(EVENTS_SHOWN);
    all.split_off(skip)
}

/// `(kind, name)` of a target, the kind `Deployment` when a ScaledObject leaves it out.
fn so_target(so: &Value) -> (String, String) {
    let kind = match str_at(so, "/spec/scaleTargetRef/kind") {
        "" => "Deployment",
        k => k,
    };
    (
        kind.to_string(),
        str_at(so, "/spec/scaleTargetRef/name").to_string(),
    )
}

/// Other HPAs (when KEDA is involved) and other ScaledObjects on the HPA's target.
fn conflicts(
    snap: &Snapshot,
    hpa: &HorizontalPodAutoscaler,
    mine: Option<&KedaOwner>,
) -> Vec<Conflict> {
    let ns = hpa.metadata.namespace.as_deref().unwrap_or("default");
    let name = hpa.metadata.name.as_deref().unwrap_or_default();
    let r = &hpa.spec.scale_target_ref;
    let target = (r.kind.clone(), r.name.clone());
    if target.1.is_empty() {
        return Vec::new();
    }
    let describe = format!("{} {}", target.0, target.1);
    let mut out = Vec::new();
    for so in snap.scaled_objects_in(ns) {
        let so_name = str_at(so, "/metadata/name");
        if mine.is_some_and(|m| m.scaled_object == so_name) || so_target(so) != target {
            continue;
        }
        out.push(Conflict {
            kind: "ScaledObject".into(),
            name: printable(so_name),
            target: describe.clone(),
        });
    }
    let keda_involved = mine.is_some() || !out.is_empty();
    // by the snapshot's index of HPAs by target, not a scan of every HPA per HPA
    for other in snap.hpas_on_target(ns, &target.0, &target.1) {
        let other_name = other.metadata.name.as_deref().unwrap_or_default();
        if other_name == name {
            continue;
        }
        if !keda_involved && owner(other).is_none() {
            continue;
        }
        out.push(Conflict {
            kind: "HorizontalPodAutoscaler".into(),
            name: printable(other_name),
            target: describe.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(extra: &str) -> Snapshot {
        let text = format!(
            r#"
apiVersion: v1
kind: List
metadata:
  annotations: {{kubectl-hpa.dev/taken-at: "2026-11-27T12:01:30Z"}}
items:
- {}
- {}
{extra}
"#,
            serde_json::to_string(
                &crate::yaml::from_str::<Value>(include_str!("testdata/orders-hpa.yaml")).unwrap()
            )
            .unwrap(),
            serde_json::to_string(
                &crate::yaml::from_str::<Value>(include_str!("testdata/orders-so.yaml")).unwrap()
            )
            .unwrap(),
        );
        let doc: Value = crate::yaml::from_str(&text).expect("yaml");
        Snapshot::from_owned(doc, "test").expect("reads")
    }

    fn now() -> jiff::Timestamp {
        "2026-11-27T12:01:30Z".parse().unwrap()
    }

    #[test]
    fn a_keda_hpa_gets_its_facts_events_and_conflicts() {
        let s = snap(
            r#"- {apiVersion: v1, kind: Event, metadata: {name: e1, namespace: shop}, involvedObject: {kind: ScaledObject, name: orders, namespace: shop}, type: Normal, reason: KEDAScaleTargetActivated, message: "Scaled apps/v1.Deployment shop/orders from 0 to 1\u001b[31m", count: 2, lastTimestamp: "2026-11-27T11:00:00Z"}
- {apiVersion: v1, kind: Event, metadata: {name: e2, namespace: shop}, involvedObject: {kind: Deployment, name: orders, namespace: shop}, type: Normal, reason: ScalingReplicaSet, message: x}
- {apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: orders-manual, namespace: shop}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: orders}, maxReplicas: 3}}
- {apiVersion: keda.sh/v1alpha1, kind: ScaledObject, metadata: {name: orders-2, namespace: shop}, spec: {scaleTargetRef: {name: orders}}}"#,
        );
        let hpa = &s.hpas[0];
        let k = section(&s, hpa, now()).expect("KEDA's");
        assert_eq!(
            k.owner.as_ref().map(|o| o.scaled_object.as_str()),
            Some("orders")
        );
        assert!(k.unreadable.is_none());
        assert_eq!(
            k.facts.as_ref().map(|f| f.scaled_object.as_str()),
            Some("orders")
        );
        assert_eq!(k.events.len(), 1);
        assert_eq!(k.events[0].reason, "KEDAScaleTargetActivated");
        assert!(
            !k.events[0].message.contains('\u{1b}'),
            "{}",
            k.events[0].message
        );
        let names: Vec<(&str, &str)> = k
            .conflicts
            .iter()
            .map(|c| (c.kind.as_str(), c.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("ScaledObject", "orders-2"),
                ("HorizontalPodAutoscaler", "orders-manual")
            ]
        );
        // The manual HPA is not KEDA's, but a ScaledObject targets its target.
        let manual = s
            .hpas
            .iter()
            .find(|h| h.metadata.name.as_deref() == Some("orders-manual"))
            .unwrap();
        let m = section(&s, manual, now()).expect("conflict");
        assert!(m.owner.is_none());
        assert_eq!(m.conflicts.len(), 3, "{:?}", m.conflicts);
    }

    #[test]
    fn a_missing_scaled_object_says_why() {
        let doc: Value = crate::yaml::from_str(&format!(
            "apiVersion: v1\nkind: List\nmetadata: {{annotations: {{kubectl-hpa.dev/fetch-errors: '{{\"keda-scaledobjects\": \"list scaledobjects.keda.sh failed (403)\"}}'}}}}\nitems:\n- {}\n",
            serde_json::to_string(&crate::yaml::from_str::<Value>(include_str!("testdata/orders-hpa.yaml")).unwrap()).unwrap()
        ))
        .unwrap();
        let s = Snapshot::from_owned(doc, "t").unwrap();
        let k = section(&s, &s.hpas[0], now()).expect("KEDA's");
        assert!(k.facts.is_none());
        assert_eq!(
            k.unreadable.as_deref(),
            Some("list scaledobjects.keda.sh failed (403)")
        );
        let plain: HorizontalPodAutoscaler = crate::yaml::from_str(
            "metadata: {name: web, namespace: shop}\nspec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3}\n",
        )
        .unwrap();
        assert!(section(&s, &plain, now()).is_none());
    }
}
