//! Snapshots as users make them: several files, `-` for stdin, multi-document YAML, a JSON
//! stream, or `cat a.yaml b.json` — each document a `v1 List`, a metrics List or a single object.
//! The documents are read one by one and merged into one [`Snapshot`]; the fetch errors of a
//! document whose HPAs share one namespace stay scoped to that namespace (a `snapshot -A` file
//! holds one List per namespace, each with its own `resource-metrics` error).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;
use serde_json::Value;

use super::build::Snapshot;
use super::error::{err, SnapshotError};
use super::item::Item;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;

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
        let mut docs = docs;
        let mut pairs = drop_earlier_series(&mut docs);
        let note = replaced_note(&docs, &mut pairs);
        let mut snap = merge_all(docs).ok_or_else(|| err("--snapshot: no file given"))?;
        snap.source = source;
        if let Some(note) = note {
            snap.drop_replaced();
            snap.merge_notes.push(note);
        }
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
                    Segment::Yaml(t) => docs.extend(yaml_documents(t, &source)?),
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
                    for v in yaml_documents(t, source)? {
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
            controller_flags,
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
            taken_for,
            chain,
            ..
        } = other;
        self.chain.absorb(chain);
        self.taken_at = self.taken_at.max(taken_at);
        self.server_version = self.server_version.take().or(server_version);
        self.controller_flags = self.controller_flags.take().or(controller_flags);
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
        // A one-HPA file merged with one that answers for everything answers for everything.
        self.taken_for = match (self.taken_for.take(), taken_for) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                Some(a)
            }
            _ => None,
        };
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

/// What identifies an object when documents are merged: its API group, kind, namespace and
/// name (as the API server holds one object per identity). `None`: no identity (no name), kept.
type ObjectKey = (String, String, String, String);

fn key_of(group: &str, kind: &str, ns: Option<&str>, name: Option<&str>) -> Option<ObjectKey> {
    let name = name.filter(|n| !n.is_empty())?;
    Some((
        group.to_string(),
        kind.to_string(),
        ns.filter(|n| !n.is_empty())
            .unwrap_or("default")
            .to_string(),
        name.to_string(),
    ))
}

/// The API group of an `apiVersion` (`""` for the core group).
fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

impl Snapshot {
    /// The identity of every object read (in the order of the vectors; `None`: no identity).
    /// Deployments and ReplicaSets count once (their `WorkloadStatus` is the same object).
    fn object_keys(&self) -> impl Iterator<Item = Option<ObjectKey>> + '_ {
        let hpas = self.hpas.iter().map(|h| {
            let m = &h.metadata;
            key_of(
                "autoscaling",
                "HorizontalPodAutoscaler",
                m.namespace.as_deref(),
                m.name.as_deref(),
            )
        });
        let workloads = self.workloads.iter().map(|w| {
            let group = if w.kind == "Scale" {
                "autoscaling"
            } else {
                "apps"
            };
            key_of(group, &w.kind, Some(&w.namespace), Some(&w.name))
        });
        let pods = self.pods.iter().map(|p| {
            let m = &p.metadata;
            key_of("", "Pod", m.namespace.as_deref(), m.name.as_deref())
        });
        let pod_metrics = self.pod_metrics.iter().map(|p| {
            let m = &p.metadata;
            key_of(
                "metrics.k8s.io",
                "PodMetrics",
                m.namespace.as_deref(),
                m.name.as_deref(),
            )
        });
        let other = self.other.iter().map(other_key);
        hpas.chain(workloads)
            .chain(pods)
            .chain(pod_metrics)
            .chain(other)
    }

    /// Keep the last object of each identity ([`ObjectKey`]), in every vector: a later
    /// document replaces an earlier one.
    fn drop_replaced(&mut self) {
        let hpa_key = |h: &HorizontalPodAutoscaler| {
            let m = &h.metadata;
            key_of(
                "autoscaling",
                "HorizontalPodAutoscaler",
                m.namespace.as_deref(),
                m.name.as_deref(),
            )
        };
        keep_last(&mut self.hpas, hpa_key);
        keep_last(&mut self.workloads, |w| {
            key_of("", &w.kind, Some(&w.namespace), Some(&w.name))
        });
        keep_last(&mut self.workload_status, |w| {
            key_of("", &w.kind, Some(&w.namespace), Some(&w.name))
        });
        keep_last(&mut self.pods, |p| {
            key_of(
                "",
                "Pod",
                p.metadata.namespace.as_deref(),
                p.metadata.name.as_deref(),
            )
        });
        keep_last(&mut self.pod_metrics, |p| {
            key_of(
                "",
                "PodMetrics",
                p.metadata.namespace.as_deref(),
                p.metadata.name.as_deref(),
            )
        });
        keep_last(&mut self.other, other_key);
        for notes in self.hpa_notes.values_mut() {
            let mut seen = std::collections::HashSet::new();
            notes.retain(|n| seen.insert(n.text.clone()));
        }
        self.sort_other();
    }
}

/// A custom metric value: the object it describes, the metric and its selector.
fn custom_key(m: &crate::metrics_api::MetricValue) -> Option<ObjectKey> {
    let o = &m.described_object;
    let selector = m
        .metric
        .selector
        .as_ref()
        .and_then(|s| serde_json::to_string(s).ok())
        .unwrap_or_default();
    key_of(
        "custom.metrics.k8s.io",
        &format!("{}/{}", o.kind, m.metric.name),
        o.namespace.as_deref(),
        Some(&format!("{}?{selector}", o.name)),
    )
}

/// Metric values have no identity of their own (an external metric's series may share their
/// labels, and the controller sums them all): a metric's values in a later document replace
/// the earlier documents' values of that metric (an object's custom metric, by its selector;
/// an external metric, by name). The pairs `(earlier, later)` → how many values were dropped.
fn drop_earlier_series(docs: &mut [Snapshot]) -> BTreeMap<(usize, usize), usize> {
    let mut pairs: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut custom_later = std::collections::HashMap::new();
    let mut external_later = std::collections::HashMap::new();
    for j in (0..docs.len()).rev() {
        let d = &mut docs[j];
        d.custom_metrics
            .retain(|m| match custom_key(m).and_then(|k| custom_later.get(&k)) {
                Some(&k) => {
                    *pairs.entry((j, k)).or_default() += 1;
                    false
                }
                None => true,
            });
        d.external_metrics
            .retain(|m| match external_later.get(&m.metric_name) {
                Some(&k) => {
                    *pairs.entry((j, k)).or_default() += 1;
                    false
                }
                None => true,
            });
        for k in d.custom_metrics.iter().filter_map(custom_key) {
            custom_later.insert(k, j);
        }
        for m in &d.external_metrics {
            external_later.insert(m.metric_name.clone(), j);
        }
    }
    pairs
}

/// An object kept as it is (an Event, an APIService, a custom-resource target).
fn other_key(v: &Value) -> Option<ObjectKey> {
    let text = |p: &str| v.pointer(p).and_then(Value::as_str);
    key_of(
        group_of(text("/apiVersion").unwrap_or_default()),
        text("/kind").unwrap_or_default(),
        text("/metadata/namespace"),
        text("/metadata/name"),
    )
}

/// Drop every element an element with the same key follows (the survivors keep their order).
fn keep_last<T>(v: &mut Vec<T>, key: impl Fn(&T) -> Option<ObjectKey>) {
    let keys: Vec<Option<ObjectKey>> = v.iter().map(&key).collect();
    let mut last = std::collections::HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        if let Some(k) = k {
            last.insert(k, i);
        }
    }
    let mut i = 0;
    v.retain(|_| {
        let keep = keys[i].as_ref().is_none_or(|k| last[k] == i);
        i += 1;
        keep
    });
}

/// `2 objects were read more than once: a later document replaces an earlier one (2 of a.yaml
/// by b.yaml)` — None when every object was read once.
fn replaced_note(docs: &[Snapshot], pairs: &mut BTreeMap<(usize, usize), usize>) -> Option<String> {
    let mut seen = std::collections::HashMap::new();
    for (j, d) in docs.iter().enumerate() {
        for k in d.object_keys().flatten() {
            if let Some(i) = seen.insert(k, j) {
                *pairs.entry((i, j)).or_default() += 1;
            }
        }
    }
    let total: usize = pairs.values().sum();
    if total == 0 {
        return None;
    }
    let detail: Vec<String> = pairs
        .iter()
        .map(|(&(i, j), n)| match i == j {
            true => format!("{n} within {}", docs[i].source),
            false => format!("{n} of {} by {}", docs[i].source, docs[j].source),
        })
        .collect();
    Some(format!(
        "{total} object(s) were read more than once: a later document replaces an earlier one, as the API server holds one object ({})",
        detail.join("; ")
    ))
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

/// The documents of a YAML text, through the crate's one YAML front: its budgets refuse
/// hostile input (nesting deeper than [`crate::yaml::MAX_DEPTH`], alias bombs) while parsing,
/// in one line, never with a stack overflow.
fn yaml_documents(text: &str, source: &str) -> Result<Vec<Value>, SnapshotError> {
    crate::yaml::documents(text).map_err(|e| {
        let line = crate::yaml::one_line(&e);
        if line.contains("Depth {") || line.contains("recursion limit") {
            let at = line.find(" at line ").map_or("", |i| &line[i..]);
            return err(format!(
                "{source}: YAML nested deeper than {} levels{at}; a snapshot holds API objects, never that deep",
                crate::yaml::MAX_DEPTH
            ));
        }
        err(format!("{source}: invalid YAML: {line}"))
    })
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
    fn deep_nesting_is_refused_by_the_parser_in_one_line() {
        let deep = "[".repeat(100_000);
        let e = Snapshot::from_text(&format!("items: {deep}"), "f").unwrap_err();
        assert!(
            e.message
                .starts_with("f: YAML nested deeper than 64 levels at line 1, column "),
            "{e}"
        );
        assert_eq!(e.message.lines().count(), 1, "{e}");
        // Brackets in quoted strings and comments are text, not nesting.
        let text = format!(
            "apiVersion: v1\nkind: List\nmetadata: {{name: \"{deep}\"}}\n# {deep}\nitems: []\n"
        );
        assert!(Snapshot::from_text(&text, "f").is_ok());
    }
}
