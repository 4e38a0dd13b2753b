//! Snapshots as users make them: several files, `-` for stdin, multi-document YAML, a JSON
//! stream, or `cat a.yaml b.json` — each document a `v1 List`, a metrics List or a single object.
//! The documents are read one by one and merged into one [`Snapshot`]; the fetch errors of a
//! document whose HPAs share one namespace stay scoped to that namespace (a `snapshot -A` file
//! holds one List per namespace, each with its own `resource-metrics` error).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::item::Item;
use super::{err, Snapshot, SnapshotError};

/// Deepest `[`/`{` nesting read from a YAML text (serde's own recursion limit is 128; past it a
/// flow document is refused before parsing, which would cost seconds of CPU first).
pub const MAX_FLOW_DEPTH: usize = crate::bounded_read::MAX_FLOW_DEPTH;

/// A text that starts with `{` but is not JSON is tried as flow YAML up to this size.
const FLOW_YAML_RETRY_BYTES: usize = 1 << 20;

/// The path that means standard input.
pub const STDIN: &str = "-";

/// One document of a text: JSON (read straight into typed objects) or YAML.
#[derive(Debug, PartialEq, Eq)]
enum Segment<'a> {
    Json(&'a str),
    Yaml(&'a str),
}

impl Snapshot {
    /// Read and merge the snapshot sources: files, or `-` for standard input (once).
    pub fn read_sources(paths: &[PathBuf]) -> Result<Snapshot, SnapshotError> {
        if paths.iter().filter(|p| p.as_os_str() == STDIN).count() > 1 {
            return Err(err("--snapshot -: standard input can be read only once"));
        }
        let docs = paths
            .iter()
            .map(|p| Snapshot::from_file(p))
            .collect::<Result<Vec<_>, _>>()?;
        let source = docs
            .iter()
            .map(|d| d.source.as_str())
            .collect::<Vec<_>>()
            .join(" + ");
        let mut snap = merge_all(docs).ok_or_else(|| err("--snapshot: no file given"))?;
        snap.source = source;
        Ok(snap)
    }

    /// Read a snapshot file (YAML or JSON; `-`: standard input).
    pub fn from_file(path: &Path) -> Result<Snapshot, SnapshotError> {
        let (text, source) = read_text(path)?;
        Snapshot::from_text(&text, &source)
    }

    /// The documents of snapshot files, redacted ([`super::redact`]): each file is first read
    /// as explain reads it, and refused if explain could not read it.
    pub fn redacted_documents(paths: &[PathBuf]) -> Result<Vec<Value>, SnapshotError> {
        if paths.iter().filter(|p| p.as_os_str() == STDIN).count() > 1 {
            return Err(err("--snapshot -: standard input can be read only once"));
        }
        let mut docs = Vec::new();
        for p in paths {
            let (text, source) = read_text(p)?;
            Snapshot::from_text(&text, &source)?;
            for seg in split(&text) {
                match seg {
                    Segment::Json(t) => docs.push(
                        serde_json::from_str(t)
                            .map_err(|e| err(format!("{source}: invalid JSON: {e}")))?,
                    ),
                    Segment::Yaml(t) => {
                        for doc in serde_yaml::Deserializer::from_str(t) {
                            let v = Value::deserialize(doc)
                                .map_err(|e| err(format!("{source}: invalid YAML: {e}")))?;
                            docs.push(v);
                        }
                    }
                }
            }
        }
        docs.retain(|d| !d.is_null());
        super::redact::redact_all(&mut docs)?;
        Ok(docs)
    }

    /// Parse snapshot text; `source` names it in errors. One JSON document is read straight
    /// into the typed objects (no intermediate tree); YAML goes through a `Value`; several
    /// documents (YAML `---`, a JSON stream, YAML then JSON) are read one by one and merged.
    pub fn from_text(text: &str, source: &str) -> Result<Snapshot, SnapshotError> {
        if text.trim_start().starts_with('{') {
            if let Some(snap) = Snapshot::from_json_list(text, source)? {
                return Ok(snap);
            }
            match serde_json::from_str::<&RawValue>(text) {
                Ok(raw) => return Snapshot::from_item(Item::Raw(raw), source),
                Err(e) if !e.to_string().starts_with("trailing characters") => {
                    // Not one JSON document: perhaps (small) flow YAML, else the JSON error —
                    // a truncated download is not parsed a second time.
                    if text.len() <= FLOW_YAML_RETRY_BYTES {
                        if let Ok(s) = Snapshot::from_segments(&[Segment::Yaml(text)], source) {
                            return Ok(s);
                        }
                    }
                    return Err(err(format!("{source}: invalid JSON: {e}")));
                }
                Err(_) => {}
            }
        }
        let segments = split(text);
        Snapshot::from_segments(&segments, source)
    }

    fn from_segments(segments: &[Segment<'_>], source: &str) -> Result<Snapshot, SnapshotError> {
        let mut docs: Vec<Snapshot> = Vec::new();
        let mut empty = 0;
        for seg in segments {
            match seg {
                Segment::Json(t) => {
                    let at = format!("{source} (document {})", docs.len() + empty + 1);
                    let one = match Snapshot::from_json_list(t, source)? {
                        Some(s) => s,
                        None => {
                            let raw: &RawValue = serde_json::from_str(t)
                                .map_err(|e| err(format!("{at}: invalid JSON: {e}")))?;
                            Snapshot::from_item(Item::Raw(raw), source)?
                        }
                    };
                    docs.push(one);
                }
                Segment::Yaml(t) => {
                    check_depth(t, source)?;
                    for doc in serde_yaml::Deserializer::from_str(t) {
                        let v = Value::deserialize(doc)
                            .map_err(|e| err(format!("{source}: invalid YAML: {e}")))?;
                        if v.is_null() {
                            empty += 1;
                            continue;
                        }
                        docs.push(Snapshot::from_owned(v, source)?);
                    }
                }
            }
        }
        match merge_all(docs) {
            Some(s) => Ok(s),
            None => Snapshot::from_owned(Value::Null, source),
        }
    }

    /// Merge another document's objects into this one.
    pub(super) fn absorb(&mut self, other: Snapshot) {
        let Snapshot {
            taken_at,
            server_version,
            hpas,
            workloads,
            pods,
            pod_metrics,
            has_pod_metrics,
            custom_metrics,
            external_metrics,
            other: others,
            workload_status,
            fetch_errors,
            own_failures,
            scoped_errors,
            ignored,
            hpa_notes,
            written_by_tool,
            ..
        } = other;
        self.taken_at = self.taken_at.max(taken_at);
        self.server_version = self.server_version.take().or(server_version);
        self.hpas.extend(hpas);
        self.workloads.extend(workloads);
        self.pods.extend(pods);
        self.pod_metrics.extend(pod_metrics);
        self.has_pod_metrics |= has_pod_metrics;
        self.custom_metrics.extend(custom_metrics);
        self.external_metrics.extend(external_metrics);
        self.other.extend(others);
        self.workload_status.extend(workload_status);
        self.fetch_errors.extend(fetch_errors);
        self.own_failures.extend(own_failures);
        for (ns, s) in scoped_errors {
            let mine = self.scoped_errors.entry(ns).or_default();
            mine.0.extend(s.0);
            mine.1.extend(s.1);
        }
        self.ignored.extend(ignored);
        for (k, v) in hpa_notes {
            self.hpa_notes.entry(k).or_default().extend(v);
        }
        self.written_by_tool |= written_by_tool;
        self.index = std::sync::OnceLock::new();
    }

    /// A document's fetch errors move to its namespace when all its HPAs are in one (the
    /// `resource-metrics` error of one namespace's List must not fail another's HPAs).
    pub(super) fn scope_errors(&mut self) {
        if self.fetch_errors.is_empty() && self.own_failures.is_empty() {
            return;
        }
        let mut namespaces = self
            .hpas
            .iter()
            .map(|h| h.metadata.namespace.as_deref().unwrap_or("default"));
        let Some(first) = namespaces.next() else {
            return;
        };
        if namespaces.any(|n| n != first) {
            return;
        }
        let first = first.to_string();
        let errors = std::mem::take(&mut self.fetch_errors);
        let own = std::mem::take(&mut self.own_failures);
        let entry = self.scoped_errors.entry(first).or_default();
        entry.0.extend(errors);
        entry.1.extend(own);
    }

    /// The fetch errors that apply to namespace `ns` (its List's, else the file's).
    pub(super) fn errors_in(&self, ns: &str) -> &BTreeMap<String, String> {
        self.scoped_errors
            .get(ns)
            .map(|s| &s.0)
            .unwrap_or(&self.fetch_errors)
    }

    /// Our own failures that apply to namespace `ns`.
    pub(super) fn own_failures_in(&self, ns: &str) -> &BTreeMap<String, String> {
        self.scoped_errors
            .get(ns)
            .map(|s| &s.1)
            .unwrap_or(&self.own_failures)
    }

    /// The namespaces the snapshot's HPAs are in.
    pub fn hpa_namespaces(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .hpas
            .iter()
            .map(|h| {
                h.metadata
                    .namespace
                    .clone()
                    .unwrap_or_else(|| "default".into())
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// `No HorizontalPodAutoscalers found in namespace X (the snapshot holds namespaces a, b).`
    /// — what an offline fleet over a namespace the file does not cover says (exit 0).
    pub fn no_hpas_text(&self, namespace: Option<&str>) -> String {
        let scope = match namespace {
            Some(ns) => format!("namespace {ns}"),
            None => "the snapshot".to_string(),
        };
        let have = self.hpa_namespaces();
        if have.is_empty() {
            return format!(
                "No HorizontalPodAutoscalers found in {scope} ({} holds none).\n",
                self.source
            );
        }
        format!(
            "No HorizontalPodAutoscalers found in {scope} ({} holds namespace{} {}).\n",
            self.source,
            if have.len() == 1 { "" } else { "s" },
            have.join(", ")
        )
    }
}

/// The text of a snapshot file (`-`: standard input) and its name for messages.
fn read_text(path: &Path) -> Result<(String, String), SnapshotError> {
    if path.as_os_str() == STDIN {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| err(format!("cannot read the snapshot from standard input: {e}")))?;
        return Ok((text, "<stdin>".into()));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| err(format!("cannot read snapshot {}: {e}", path.display())))?;
    Ok((text, path.display().to_string()))
}

/// One snapshot of several documents (`None`: no document). With more than one, each
/// document's fetch errors are first scoped to its namespace ([`Snapshot::scope_errors`]).
fn merge_all(docs: Vec<Snapshot>) -> Option<Snapshot> {
    let several = docs.len() > 1;
    let mut docs = docs.into_iter().map(|mut d| {
        if several {
            d.scope_errors();
        }
        d
    });
    let mut first = docs.next()?;
    for d in docs {
        first.absorb(d);
    }
    first.sort_other();
    Some(first)
}

/// Cut a text into documents: a JSON value at the start (or after another) is one; YAML runs
/// until a line that starts with `{` (a JSON document appended with `cat`).
fn split(text: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start();
        if trimmed.is_empty() {
            break;
        }
        if trimmed.starts_with('{') {
            let mut stream = serde_json::Deserializer::from_str(trimmed).into_iter::<&RawValue>();
            if let Some(Ok(_)) = stream.next() {
                let end = stream.byte_offset();
                out.push(Segment::Json(&trimmed[..end]));
                rest = &trimmed[end..];
                continue;
            }
        }
        let end = next_json_line(trimmed).unwrap_or(trimmed.len());
        out.push(Segment::Yaml(&trimmed[..end]));
        rest = &trimmed[end..];
    }
    out
}

/// The offset of the first line after the first that starts with `{` at column 0.
fn next_json_line(text: &str) -> Option<usize> {
    text.match_indices("\n{").map(|(i, _)| i + 1).next()
}

/// Refuse flow nesting deeper than [`MAX_FLOW_DEPTH`] before the parser spends seconds on it
/// (the guard is shared with migrate's reader: [`crate::bounded_read::flow_too_deep`]).
fn check_depth(text: &str, source: &str) -> Result<(), SnapshotError> {
    match crate::bounded_read::flow_too_deep(text, MAX_FLOW_DEPTH) {
        Some(line) => Err(err(format!(
            "{source}: line {line}: nesting deeper than {MAX_FLOW_DEPTH} levels of [ ] / {{ }}; a snapshot holds API objects, never that deep"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_cuts_json_streams_and_appended_json() {
        let t = "{\"a\":1}\n{\"b\":2}\n";
        assert_eq!(
            split(t),
            vec![Segment::Json("{\"a\":1}"), Segment::Json("{\"b\":2}")]
        );
        let t = "kind: List\nitems: []\n{\"b\":2}\n";
        assert_eq!(
            split(t),
            vec![
                Segment::Yaml("kind: List\nitems: []\n"),
                Segment::Json("{\"b\":2}")
            ]
        );
    }

    fn ns_list(ns: &str, errors: &str) -> String {
        format!(
            "apiVersion: v1\nkind: List\nmetadata:\n  annotations:\n    kubectl-hpa.dev/fetch-errors: '{errors}'\nitems:\n- apiVersion: autoscaling/v2\n  kind: HorizontalPodAutoscaler\n  metadata: {{name: h, namespace: {ns}}}\n  spec: {{maxReplicas: 2, scaleTargetRef: {{kind: Deployment, name: d}}}}\n"
        )
    }

    #[test]
    fn one_namespace_s_fetch_errors_stay_in_its_namespace() {
        let text = format!(
            "{}---\n{}",
            ns_list("a", r#"{"resource-metrics": "boom"}"#),
            ns_list("b", "{}")
        );
        let snap = Snapshot::from_text(&text, "f").unwrap();
        assert_eq!(snap.hpas.len(), 2);
        assert_eq!(
            snap.errors_in("a")
                .get("resource-metrics")
                .map(String::as_str),
            Some("boom")
        );
        assert!(snap.errors_in("b").is_empty());
        // One document: the file's errors, as before.
        let one =
            Snapshot::from_text(&ns_list("a", r#"{"resource-metrics": "boom"}"#), "f").unwrap();
        assert!(one.errors_in("b").contains_key("resource-metrics"));
    }

    #[test]
    fn depth_ignores_quoted_and_commented_brackets() {
        let deep = "[".repeat(200);
        assert!(check_depth(&format!("a: \"{deep}\"\n# {deep}\nb: '{deep}'\n"), "f").is_ok());
        let e = check_depth(&format!("items: {deep}"), "f").unwrap_err();
        assert!(e.message.contains("line 1: nesting deeper than 128"), "{e}");
    }
}
