//! Bounds that bite: an HPA at `maxReplicas` whose metrics want more (`at-max-replicas`, with
//! the uncapped need and the requests of the pods it would add), or satisfied there
//! (`at-max-satisfied`: alerts like KubeHpaMaxedOut fire on it too); an HPA at `minReplicas`
//! whose metrics want fewer (`at-min-floor`) or exactly the floor (`at-min-satisfied`).
//!
//! "The metrics want" is the decision's `proposal`: the largest valid metric proposal, before
//! stabilization, rate limits and the bounds (`computeReplicasForMetrics`).

use serde_json::{json, Map, Value};

use crate::core::{Decision, Input};
use crate::display::units::Unit;

use super::finding::{finding, Finding, Severity};

/// The resources whose requests say what more pods cost.
const COSTED: [&str; 2] = ["cpu", "memory"];

/// `+50 %` / `−25 %`: how far `want` is from `bound`.
fn percent_from(want: i32, bound: i32) -> String {
    let p = (f64::from(want) - f64::from(bound)) * 100.0 / f64::from(bound.max(1));
    if p >= 0.0 {
        format!("+{:.0} %", p)
    } else {
        format!("−{:.0} %", -p)
    }
}

/// The requests of one pod, per costed resource (milli-units): the largest among the selected
/// pods (all alike when they come from one template), pod-level requests when set, else the
/// sum over the containers (restartable init containers included).
fn per_pod_requests(input: &Input) -> Vec<(&'static str, i64)> {
    COSTED
        .iter()
        .filter_map(|&res| {
            let per_pod = input.pods.iter().filter_map(|p| {
                if let Some(v) = p.pod_requests.as_ref().and_then(|r| r.get(res)) {
                    return Some(v);
                }
                let vs: Vec<i64> = p
                    .containers
                    .iter()
                    .filter_map(|c| c.requests.get(res))
                    .collect();
                (!vs.is_empty()).then(|| vs.iter().sum())
            });
            per_pod.max().filter(|v| *v > 0).map(|v| (res, v))
        })
        .collect()
}

/// "1 cpu and 512Mi memory of requests (500m cpu, 256Mi memory per pod)" for `pods` pods, with
/// the figures as details; `None` when the pods request neither.
fn cost(input: &Input, pods: i32, details: &mut Map<String, Value>) -> Option<String> {
    let per_pod = per_pod_requests(input);
    if per_pod.is_empty() || pods <= 0 {
        return None;
    }
    let show = |res: &str, v: i64| format!("{} {res}", Unit::of_resource(res).show(v));
    let total: Vec<String> = per_pod
        .iter()
        .map(|(r, v)| show(r, v.saturating_mul(i64::from(pods))))
        .collect();
    let each: Vec<String> = per_pod.iter().map(|(r, v)| show(r, *v)).collect();
    let mut requests = Map::new();
    for (r, v) in &per_pod {
        requests.insert(
            (*r).to_string(),
            json!(Unit::of_resource(r).show(v.saturating_mul(i64::from(pods)))),
        );
    }
    details.insert("extraRequests".into(), Value::Object(requests));
    Some(format!(
        "{} of requests ({} per pod)",
        total.join(" and "),
        each.join(", ")
    ))
}

/// The finding for an HPA at one of its bounds, when it is there with a metric proposal.
pub(super) fn bounds(input: &Input, d: &Decision, out: &mut Vec<Finding>) {
    let (Some(desired), Some(want), Some(current)) =
        (d.desired_replicas, d.proposal, d.current_replicas)
    else {
        return;
    };
    let hpa = &input.hpa;
    let (min, max) = (hpa.min_replicas, hpa.max_replicas);
    if current == 0 || min >= max {
        return;
    }
    let mut details = Map::new();
    details.insert("proposal".into(), json!(want));
    let f = if desired == max && want > max {
        let extra = want - max;
        details.insert("maxReplicas".into(), json!(max));
        details.insert("extraPods".into(), json!(extra));
        let cost = cost(input, extra, &mut details)
            .map(|c| format!(", which need {c}"))
            .unwrap_or_default();
        finding(
            "at-max-replicas",
            Severity::Warning,
            format!(
                "the metrics want {want} ({}); capped at maxReplicas {max}: the pods stay above their target and nothing more is added until the load falls",
                percent_from(want, max)
            ),
            format!(
                "raise spec.maxReplicas to at least {want} (kubectl patch hpa {} -n {} --type merge -p '{{\"spec\":{{\"maxReplicas\":{want}}}}}') and make room for {extra} more pod(s){cost}; or give each pod more capacity (larger requests, a faster release) so fewer are needed",
                hpa.name, hpa.namespace
            ),
        )
    } else if desired == max {
        finding(
            "at-max-satisfied",
            Severity::Info,
            format!("at maxReplicas {max}, but the metrics want {want}: the cap does not bite (an alert like KubeHpaMaxedOut fires all the same)"),
            "nothing to fix; silence such an alert when the metrics want no more than maxReplicas".into(),
        )
    } else if desired == min && want < min {
        details.insert("minReplicas".into(), json!(min));
        details.insert("extraPods".into(), json!(min - want));
        let cost = cost(input, min - want, &mut details)
            .map(|c| format!(" ({c})"))
            .unwrap_or_default();
        finding(
            "at-min-floor",
            Severity::Info,
            format!(
                "the metrics want {want} ({}); floored at minReplicas {min}: {} pod(s) more than the load needs run{cost}",
                percent_from(want, min),
                min - want
            ),
            format!("nothing to fix if the floor is intended (availability, warm capacity); to let it scale down, lower spec.minReplicas toward {}", want.max(1)),
        )
    } else if desired == min && want == min {
        finding(
            "at-min-satisfied",
            Severity::Info,
            format!(
                "at minReplicas {min}, which is what the metrics want: the floor does not bite"
            ),
            "nothing to fix".into(),
        )
    } else {
        return;
    };
    out.push(Finding {
        details: Some(Value::Object(details)),
        ..f
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::Snapshot;

    /// The example pinned at maxReplicas, changed by `edit`, and the bounds' findings.
    fn at_max_edited(edit: &dyn Fn(&mut Value)) -> Vec<Finding> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join("at-max-replicas.yaml");
        let text = std::fs::read_to_string(&path).expect("example");
        let mut doc: Value = crate::yaml::from_str(&text).expect("yaml");
        edit(&mut doc);
        let snap = Snapshot::from_owned(doc, "at-max-replicas.yaml").expect("snapshot");
        let (input, d) = super::super::evaluated(&snap, "checkout");
        let mut out = Vec::new();
        bounds(&input, &d, &mut out);
        out
    }

    fn hpa_spec(doc: &mut Value, key: &str, v: i64) {
        doc["items"][0]["spec"][key] = json!(v);
    }

    /// Every PodMetrics sample at `milli` cpu.
    fn cpu_usage(doc: &mut Value, milli: i64) {
        for i in doc["items"].as_array_mut().into_iter().flatten() {
            if i["kind"] == "PodMetrics" {
                i["containers"][0]["usage"]["cpu"] = json!(format!("{milli}m"));
            }
        }
    }

    #[test]
    fn at_max_the_uncapped_need_and_the_cost_of_the_extra_pods() {
        let found = at_max_edited(&|_| {});
        let [f] = found.as_slice() else {
            panic!("{found:?}")
        };
        assert_eq!(
            (f.id.as_str(), f.severity),
            ("at-max-replicas", Severity::Warning)
        );
        assert!(
            f.message
                .starts_with("the metrics want 6 (+50 %); capped at maxReplicas 4"),
            "{}",
            f.message
        );
        assert!(
            f.action.starts_with("raise spec.maxReplicas to at least 6"),
            "{}",
            f.action
        );
        assert!(
            f.action.contains(
                "2 more pod(s), which need 1 cpu and 512Mi memory of requests (500m cpu, 256Mi memory per pod)"
            ),
            "{}",
            f.action
        );
        let d = f.details.as_ref().expect("details");
        assert_eq!(
            (d["proposal"].clone(), d["extraPods"].clone()),
            (json!(6), json!(2))
        );
        assert_eq!(d["extraRequests"], json!({"cpu": "1", "memory": "512Mi"}));
    }

    #[test]
    fn at_max_with_the_need_met_the_cap_does_not_bite() {
        let found = at_max_edited(&|doc| hpa_spec(doc, "maxReplicas", 6));
        let ids: Vec<&str> = found.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["at-max-satisfied"]);
        assert!(
            found[0].message.contains("the metrics want 6"),
            "{:?}",
            found
        );
    }

    #[test]
    fn at_min_the_floor_bites_or_is_satisfied() {
        // 20 % of the request for a 60 % target: ceil(0.333 × 4) = 2, floored at 3.
        let found = at_max_edited(&|doc| {
            hpa_spec(doc, "minReplicas", 3);
            cpu_usage(doc, 100);
        });
        let [f] = found.as_slice() else {
            panic!("{found:?}")
        };
        assert_eq!(
            (f.id.as_str(), f.severity),
            ("at-min-floor", Severity::Info)
        );
        assert!(
            f.message.starts_with("the metrics want 2 (−33 %); floored at minReplicas 3: 1 pod(s) more than the load needs run (500m cpu and 256Mi memory of requests"),
            "{}",
            f.message
        );
        // 45 %: ceil(0.75 × 4) = 3, the floor itself.
        let found = at_max_edited(&|doc| {
            hpa_spec(doc, "minReplicas", 3);
            cpu_usage(doc, 225);
        });
        let ids: Vec<&str> = found.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["at-min-satisfied"]);
    }

    #[test]
    fn between_the_bounds_nothing_is_said() {
        let found = at_max_edited(&|doc| hpa_spec(doc, "maxReplicas", 10));
        assert!(found.is_empty(), "{found:?}");
    }
}
