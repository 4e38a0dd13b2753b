//! What reading the file noted: fields of another API version in the HPA, and objects explain
//! passed over.

use crate::core::Input;
use crate::snapshot::Snapshot;

use super::finding::{finding, list_some, Finding, Severity};

/// What reading the file noted: fields of another API version in the HPA (dropped by the API
/// server), and objects explain passed over.
pub(super) fn snapshot_findings(snap: &Snapshot, input: &Input, out: &mut Vec<Finding>) {
    let (ns, name) = (input.hpa.namespace.as_str(), input.hpa.name.as_str());
    for text in snap.notes_for(ns, name, crate::snapshot::NoteKind::FieldIgnored) {
        out.push(finding(
            "hpa-field-ignored",
            Severity::Warning,
            format!("HorizontalPodAutoscaler {ns}/{name}: {text}"),
            "write the target in spec.metrics as autoscaling/v2 does (e.g. type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}) and check the manifest that produced it".into(),
        ));
    }
    if !snap.ignored.is_empty() {
        out.push(finding(
            "snapshot-objects-ignored",
            Severity::Info,
            format!(
                "{} object(s) of the snapshot are of kinds explain does not read and were passed over: {}",
                snap.ignored.len(),
                list_some(&snap.ignored, 5)
            ),
            "nothing to do; leave them out of the file to keep it small".into(),
        ));
    }
}
