//! Answers of the wrong shape: a success (200) whose body is a `Status` (a proxy or an
//! aggregated API passing on a failure as a success) or a List or object of another kind than
//! the one asked for (a misrouted aggregator answering a `PodList` for PodMetrics). Each is our
//! own failure to read, never data: read as data, it would become the controller's verdict
//! (`InvalidMetrics` from a PodMetrics list without usage).

use serde_json::Value;

/// A 200 answer of kind `kind` (`None`: it has none) to a request for items of kind
/// `item_kind` (`""`: any): why it is not what was asked for. `status`, `message` and
/// `reason` are a `Status`'s fields.
pub fn wrong_kind(
    kind: Option<&str>,
    item_kind: &str,
    list: bool,
    status: (Option<&str>, Option<&str>, Option<&str>),
) -> Option<String> {
    let kind = kind?;
    if kind == "Status" {
        let (st, message, reason) = status;
        let mut s = format!(
            "the answer is a Status {} with 200 OK",
            st.unwrap_or("object")
        );
        if let Some(m) = message.filter(|m| !m.is_empty()) {
            s += &format!(": {m}");
        }
        if let Some(r) = reason.filter(|r| !r.is_empty()) {
            s += &format!(" ({r})");
        }
        return Some(s);
    }
    if item_kind.is_empty() {
        return None;
    }
    let want = match list {
        true => format!("{item_kind}List"),
        false => item_kind.to_string(),
    };
    (kind != want).then(|| format!("the answer is a {kind}, not a {want}"))
}

/// [`wrong_kind`] of a whole answer read as a `Value`.
pub fn wrong_value(v: &Value, item_kind: &str, list: bool) -> Option<String> {
    let s = |k: &str| v.get(k).and_then(Value::as_str);
    wrong_kind(
        s("kind"),
        item_kind,
        list,
        (s("status"), s("message"), s("reason")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_status_or_another_kind_is_not_the_answer_asked_for() {
        let status = json!({"kind": "Status", "status": "Failure", "message": "metrics not ready", "reason": "ServiceUnavailable"});
        assert_eq!(
            wrong_value(&status, "", false).as_deref(),
            Some("the answer is a Status Failure with 200 OK: metrics not ready (ServiceUnavailable)")
        );
        let pods = json!({"kind": "PodList", "items": []});
        assert_eq!(
            wrong_value(&pods, "PodMetrics", true).as_deref(),
            Some("the answer is a PodList, not a PodMetricsList")
        );
        assert_eq!(
            wrong_value(&json!({"kind": "Pod"}), "PodMetrics", true).as_deref(),
            Some("the answer is a Pod, not a PodMetricsList")
        );
        let ok = json!({"kind": "PodMetricsList", "items": []});
        assert_eq!(wrong_value(&ok, "PodMetrics", true), None);
        assert_eq!(wrong_value(&json!({"items": []}), "PodMetrics", true), None);
        assert_eq!(
            wrong_value(&pods, "", true),
            None,
            "any kind when none is asked for"
        );
        assert_eq!(wrong_value(&json!({"kind": "Scale"}), "Scale", false), None);
        assert_eq!(
            wrong_value(&json!({"kind": "Deployment"}), "Scale", false).as_deref(),
            Some("the answer is a Deployment, not a Scale")
        );
    }
}
