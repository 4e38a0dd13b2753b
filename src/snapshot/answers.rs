//! What a file can answer: a `kubectl hpa snapshot NAME` file holds its namespace's other HPAs
//! (the controller's ambiguity check reads them) but not their targets, pods, metrics or
//! events, so a fleet replay of it lists only the HPA it was taken for, plus one line naming
//! the ones it cannot answer — rather than decisions about objects it never fetched.

use super::annotations::TAKEN_FOR_ANNOTATION;
use super::build::Snapshot;

impl Snapshot {
    /// Whether the file can answer for HPA `namespace/name` (it was taken for it, or for
    /// every HPA it holds).
    pub fn answers_for(&self, namespace: &str, name: &str) -> bool {
        self.taken_for
            .as_ref()
            .is_none_or(|f| f.contains(&(namespace.to_string(), name.to_string())))
    }

    /// The HPAs of the file (in `namespace`, or all) it cannot answer for, `namespace/name`
    /// sorted.
    pub fn unanswered(&self, namespace: Option<&str>) -> Vec<String> {
        let mut out: Vec<String> = self
            .hpas
            .iter()
            .filter_map(|h| {
                let ns = h.metadata.namespace.as_deref().unwrap_or("default");
                let name = h.metadata.name.as_deref().unwrap_or_default();
                let here = namespace.is_none_or(|n| n == ns);
                (here && !self.answers_for(ns, name)).then(|| format!("{ns}/{name}"))
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The one line a fleet replay adds when the file cannot answer for some of its HPAs.
    pub fn unanswered_note(&self, namespace: Option<&str>) -> Option<String> {
        let missing = self.unanswered(namespace);
        let taken_for = self.taken_for.as_ref()?;
        if missing.is_empty() {
            return None;
        }
        let taken: Vec<String> = taken_for
            .iter()
            .map(|(ns, n)| format!("{ns}/{n}"))
            .collect();
        Some(format!(
            "not replayed: {} — the file was taken for {} ({TAKEN_FOR_ANNOTATION}) and lacks the others' targets, pods and metrics; `kubectl hpa snapshot -n NAMESPACE` takes a file for the whole namespace",
            missing.join(", "),
            taken.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(annotation: &str) -> String {
        let hpa = |name: &str| {
            format!("- apiVersion: autoscaling/v2\n  kind: HorizontalPodAutoscaler\n  metadata: {{name: {name}, namespace: shop}}\n  spec: {{maxReplicas: 2, scaleTargetRef: {{kind: Deployment, name: {name}}}}}\n")
        };
        format!(
            "apiVersion: v1\nkind: List\nmetadata:\n  annotations:\n    kubectl-hpa.dev/taken-at: \"2026-03-01T12:00:00Z\"\n{annotation}items:\n{}{}",
            hpa("web"),
            hpa("api")
        )
    }

    #[test]
    fn a_one_hpa_file_answers_only_for_its_hpa() {
        let s = Snapshot::from_text(&file("    kubectl-hpa.dev/taken-for: shop/web\n"), "f")
            .expect("snapshot");
        assert!(s.answers_for("shop", "web"));
        assert!(!s.answers_for("shop", "api"));
        assert_eq!(s.unanswered(Some("shop")), ["shop/api"]);
        assert!(s.unanswered(Some("other")).is_empty());
        let note = s.unanswered_note(None).expect("note");
        assert!(
            note.starts_with("not replayed: shop/api — the file was taken for shop/web"),
            "{note}"
        );
    }

    #[test]
    fn a_fleet_file_answers_for_all_and_a_merge_with_one_too() {
        let fleet = Snapshot::from_text(&file(""), "f").expect("snapshot");
        assert!(fleet.answers_for("shop", "api"));
        assert_eq!(fleet.unanswered_note(None), None);
        let both = format!(
            "{}---\n{}",
            file("    kubectl-hpa.dev/taken-for: shop/web\n"),
            file("")
        );
        let merged = Snapshot::from_text(&both, "f").expect("snapshot");
        assert!(merged.answers_for("shop", "api"));
    }

    #[test]
    fn a_malformed_taken_for_is_an_error_naming_it() {
        let e =
            Snapshot::from_text(&file("    kubectl-hpa.dev/taken-for: web\n"), "f").unwrap_err();
        assert!(
            e.message.contains(
                "metadata.annotations.kubectl-hpa.dev/taken-for: expected NAMESPACE/NAME"
            ),
            "{e}"
        );
    }
}
