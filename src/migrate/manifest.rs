//! Local manifests: find the objects of a workload in YAML (several documents, `List`) and JSON
//! files, and remove their `spec.replicas` by deleting exactly those bytes — comments, anchors,
//! indentation, blank lines and CRLF line endings are kept. Every edit is checked by parsing the
//! result again: it must equal the original minus the removed fields, or nothing is written.

use serde::Serialize;
use serde_json::Value as Yaml;

use super::text::{self, anchor_of, path_string, strip_properties, KeyHit, Line, Seg};

/// The label of stdin in messages and diffs.
pub const STDIN: &str = "<stdin>";

/// A workload the files are searched for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    /// API group (`apps`; empty for the core group).
    pub group: String,
    pub kind: String,
    /// Empty: any namespace (an offline HPA that names none).
    pub namespace: String,
    pub name: String,
}

impl ObjectRef {
    pub fn matches(&self, api_version: &str, kind: &str, name: &str, ns: Option<&str>) -> bool {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        group == self.group
            && kind == self.kind
            && name == self.name
            && ns.is_none_or(|n| self.namespace.is_empty() || n == self.namespace)
    }
}

/// An error in a manifest file, with the line it is about (1-based) when known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FileError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Yaml,
    Json,
}

/// One document of a file.
#[derive(Debug)]
struct Doc {
    /// Line indices `[first, end)` of the document's content.
    first: usize,
    end: usize,
    format: Format,
    value: Yaml,
}

/// A parsed manifest file.
#[derive(Debug)]
pub struct Manifest {
    pub file: String,
    pub text: String,
    lines: Vec<Line>,
    docs: Vec<Doc>,
}

/// An object in a manifest matching a workload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence {
    pub file: String,
    /// 1-based document number.
    pub document: usize,
    /// `List` item index.
    pub item: Option<usize>,
    /// 1-based line of the `replicas` key, else of the document start.
    pub line: usize,
    /// The `spec.replicas` value as written, if present.
    pub replicas: Option<String>,
    /// The manifest names no namespace (assumed to be the workload's).
    pub namespace_assumed: bool,
    /// What happens to it.
    pub action: EditAction,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum EditAction {
    /// No `spec.replicas`: nothing to do.
    NoReplicas,
    /// Remove the bytes `[start, end)` (lines `first..=last`, 1-based).
    #[serde(rename_all = "camelCase")]
    Remove {
        #[serde(skip)]
        start: usize,
        #[serde(skip)]
        end: usize,
        first_line: usize,
        last_line: usize,
        /// A comment directly above the key that stays (it may describe the removed line).
        comment_above: Option<usize>,
    },
    /// Cannot be edited safely; edit by hand.
    Refused { reason: String },
}

/// The planned edit of one file.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileEdit {
    pub file: String,
    pub occurrences: Vec<Occurrence>,
    /// Unified diff (empty when nothing changes).
    pub diff: String,
    /// The new content (only when something changes and the check passed).
    #[serde(skip)]
    pub new_text: Option<String>,
}

fn yaml_err(file: &str, line_offset: usize, e: &crate::yaml::Error) -> FileError {
    let line = e
        .location()
        .map(|l| l.line() as usize + line_offset)
        .filter(|&l| l > line_offset);
    let msg = crate::yaml::one_line(e);
    // the parser appends " at line L, column C"; the line is reported separately
    let msg = match msg.find(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg,
    };
    let message = if crate::yaml::one_line(e).contains("recursion limit") {
        format!(
            "nesting deeper than {} levels of mappings and sequences; no manifest is that deep",
            crate::yaml::MAX_DEPTH
        )
    } else if too_much(e) {
        format!("past the YAML parser's budget ({msg}); no manifest is that large")
    } else {
        format!("not valid YAML: {msg}")
    };
    FileError {
        file: file.to_string(),
        line,
        message,
    }
}

fn str_of<'a>(v: &'a Yaml, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(*p)?;
    }
    cur.as_str()
}

impl Manifest {
    /// Parse a manifest file. Templated files (`{{`) and unparsable YAML/JSON are errors naming
    /// the line.
    pub fn parse(file: &str, text: &str) -> Result<Manifest, FileError> {
        nesting_guard(file, text)?;
        let ls = text::lines(text);
        refuse_templates(file, text, &ls)?;
        let is_json = file.ends_with(".json")
            || text
                .trim_start_matches('\u{feff}')
                .trim_start()
                .starts_with(['{', '['])
                && !text.contains("\n---");
        let docs = if is_json {
            vec![json_doc(file, text, ls.len())?]
        } else {
            yaml_docs(file, text, &ls)?
        };
        Ok(Manifest {
            file: file.to_string(),
            text: text.to_string(),
            lines: ls,
            docs,
        })
    }

    fn line_text(&self, i: usize) -> &str {
        &self.text[self.lines[i].start..self.lines[i].content_end]
    }

    /// Every object of the file: (document index, List item, object value).
    fn objects(&self) -> Vec<(usize, Option<usize>, &Yaml)> {
        let mut out = Vec::new();
        for (d, doc) in self.docs.iter().enumerate() {
            let kind = str_of(&doc.value, &["kind"]).unwrap_or_default();
            match doc.value.get("items").and_then(Yaml::as_array) {
                Some(items) if kind.ends_with("List") => {
                    for (i, it) in items.iter().enumerate() {
                        out.push((d, Some(i), it));
                    }
                }
                _ => out.push((d, None, &doc.value)),
            }
        }
        out
    }

    /// `(group, kind, name)` of every object of the file (to index the files by workload).
    pub fn object_keys(&self) -> Vec<(String, String, String)> {
        self.objects()
            .into_iter()
            .map(|(_, _, o)| {
                let api = str_of(o, &["apiVersion"]).unwrap_or_default();
                let group = api.rsplit_once('/').map_or("", |(g, _)| g);
                let kind = str_of(o, &["kind"]).unwrap_or_default();
                let name = str_of(o, &["metadata", "name"]).unwrap_or_default();
                (group.to_string(), kind.to_string(), name.to_string())
            })
            .collect()
    }

    /// Every object of `kind` in the file: (1-based line of its document, object).
    pub fn objects_of_kind(&self, kind: &str) -> Vec<(usize, Yaml)> {
        self.objects()
            .into_iter()
            .filter(|(_, _, o)| str_of(o, &["kind"]) == Some(kind))
            .map(|(d, _, o)| {
                let doc = &self.docs[d];
                let first = (doc.first..doc.end)
                    .find(|&j| !text::is_blank_or_comment(self.line_text(j)))
                    .unwrap_or(doc.first);
                (first + 1, o.clone())
            })
            .collect()
    }

    fn hits(&self, doc: &Doc) -> Vec<KeyHit> {
        text::scan_yaml(&self.text, &self.lines, doc.first, doc.end)
    }

    /// Plan the removal of `spec.replicas` from every object of the file matching one of
    /// `targets`. The result is checked by parsing it again.
    pub fn plan(&self, targets: &[ObjectRef]) -> FileEdit {
        let mut occurrences = Vec::new();
        let mut removed: Vec<(usize, Option<usize>)> = Vec::new();
        let mut dels = Vec::new();
        for (d, item, obj) in self.objects() {
            let api = str_of(obj, &["apiVersion"]).unwrap_or_default();
            let kind = str_of(obj, &["kind"]).unwrap_or_default();
            let name = str_of(obj, &["metadata", "name"]).unwrap_or_default();
            let ns = str_of(obj, &["metadata", "namespace"]);
            if !targets.iter().any(|t| t.matches(api, kind, name, ns)) {
                continue;
            }
            let doc = &self.docs[d];
            let replicas = obj.get("spec").and_then(|s| s.get("replicas"));
            let mut occ = Occurrence {
                file: self.file.clone(),
                document: d + 1,
                item,
                line: doc.first + 1,
                replicas: replicas.map(yaml_scalar),
                namespace_assumed: ns.is_none(),
                action: EditAction::NoReplicas,
            };
            if replicas.is_some() {
                let mut path = Vec::new();
                if let Some(i) = item {
                    path.push(Seg::key("items"));
                    path.push(Seg::Index(i));
                }
                occ.action = match doc.format {
                    Format::Json => self.json_removal(doc, &path),
                    Format::Yaml => self.yaml_removal(doc, &path),
                };
                if let EditAction::Remove {
                    start,
                    end,
                    first_line,
                    ..
                } = &occ.action
                {
                    occ.line = *first_line;
                    dels.push((*start, *end));
                    removed.push((d, item));
                } else if let EditAction::Refused { .. } = &occ.action {
                    occ.line = self.find_key_line(doc, &path).unwrap_or(occ.line);
                }
            }
            occurrences.push(occ);
        }
        let mut edit = FileEdit {
            file: self.file.clone(),
            occurrences,
            diff: String::new(),
            new_text: None,
        };
        if dels.is_empty() {
            return edit;
        }
        let new_text = text::apply_deletions(&self.text, &dels);
        if let Err(reason) = self.check(&new_text, &removed) {
            for o in &mut edit.occurrences {
                if matches!(o.action, EditAction::Remove { .. }) {
                    o.action = EditAction::Refused {
                        reason: format!(
                            "the edited file did not check out ({reason}); edit it by hand"
                        ),
                    };
                }
            }
            return edit;
        }
        edit.diff = text::unified_diff(&self.file, &self.text, &dels);
        edit.new_text = Some(new_text);
        edit
    }

    fn find_key_line(&self, doc: &Doc, prefix: &[Seg]) -> Option<usize> {
        let mut p = prefix.to_vec();
        p.push(Seg::key("spec"));
        self.hits(doc)
            .iter()
            .find(|h| h.path == p)
            .map(|h| h.line + 1)
    }

    fn json_removal(&self, doc: &Doc, prefix: &[Seg]) -> EditAction {
        let first = (doc.first..doc.end)
            .find(|&j| !text::is_blank_or_comment(self.line_text(j).trim_start_matches('\u{feff}')))
            .unwrap_or(doc.first);
        let offset = self.lines[first].start;
        let start = offset + self.text[offset..].len()
            - self.text[offset..]
                .trim_start_matches(['\u{feff}', ' ', '\t'])
                .len();
        let node = match text::parse_json_spans(&self.text, start) {
            Ok((n, _)) => n,
            Err(e) => {
                return EditAction::Refused {
                    reason: format!("could not locate the JSON member: {e}"),
                }
            }
        };
        let mut spec = prefix.to_vec();
        spec.push(Seg::key("spec"));
        // `spec` holding only `replicas` goes whole (never left `{}`, see whole_spec_removal)
        let alone = matches!(node.at(&spec), Some(text::JNode::Object { members, .. }) if members.len() == 1);
        let removal = if alone {
            node.member_removal(prefix, "spec")
        } else {
            node.member_removal(&spec, "replicas")
        };
        match removal {
            Some((mut a, mut b)) => {
                // a member alone on its line(s): delete whole lines
                let line_start = |off: usize| self.text[..off].rfind('\n').map_or(0, |i| i + 1);
                let (la, lb) = (line_start(a), line_start(b));
                if self.text[la..a].trim().is_empty()
                    && lb > a
                    && self.text[lb..b].trim().is_empty()
                {
                    a = la;
                    b = lb;
                }
                let line_of =
                    |off: usize| self.lines.iter().position(|l| off < l.end).unwrap_or(0) + 1;
                let key_line = node
                    .at(&spec)
                    .and_then(|s| match s {
                        text::JNode::Object { members, .. } => members
                            .iter()
                            .find(|m| m.key == "replicas")
                            .map(|m| m.key_start),
                        _ => None,
                    })
                    .map_or(line_of(a), line_of);
                EditAction::Remove {
                    start: a,
                    end: b,
                    first_line: key_line,
                    last_line: line_of(b.saturating_sub(1)),
                    comment_above: None,
                }
            }
            None => EditAction::Refused {
                reason: "could not locate `spec.replicas` in the JSON text".into(),
            },
        }
    }

    fn yaml_removal(&self, doc: &Doc, prefix: &[Seg]) -> EditAction {
        let hits = self.hits(doc);
        let mut spec_path = prefix.to_vec();
        spec_path.push(Seg::key("spec"));
        let mut rep_path = spec_path.clone();
        rep_path.push(Seg::key("replicas"));
        let spec = hits.iter().find(|h| h.path == spec_path);
        let rep: Vec<&KeyHit> = hits.iter().filter(|h| h.path == rep_path).collect();
        let refuse = |r: String| EditAction::Refused { reason: r };
        let Some(spec) = spec else {
            return refuse("could not locate `spec` as a block mapping key".into());
        };
        let spec_value = strip_properties(&spec.value);
        if spec_value.starts_with('{') {
            return refuse(format!(
                "`spec` is a flow mapping (`{{...}}`, line {}); remove `replicas` by hand",
                spec.line + 1
            ));
        }
        if spec_value.starts_with('*') {
            return refuse(format!("`spec` is an alias (`{}`, line {}); its `replicas` comes from the anchor — edit by hand", spec.value, spec.line + 1));
        }
        if rep.len() != 1 {
            let merge = hits.iter().find(|h| {
                h.path.len() == spec_path.len() + 1
                    && h.path.starts_with(&spec_path)
                    && h.path.last() == Some(&Seg::key("<<"))
            });
            return refuse(match (rep.len(), merge) {
                (0, Some(m)) => format!("`spec.replicas` comes from a merge key (`<<: {}`, line {}); edit the anchored mapping by hand", m.value, m.line + 1),
                (0, None) => "could not locate the `replicas` key under `spec`".into(),
                _ => "`replicas` appears more than once under `spec`".into(),
            });
        }
        let h = rep[0];
        if let Some(a) = anchor_of(&h.value) {
            let alias = format!("*{a}");
            let used = (doc.first..doc.end).find(|&j| {
                let s = self.line_text(j);
                let s = text::strip_comment(s);
                s.match_indices(&alias).any(|(i, _)| {
                    let after = s[i + alias.len()..].chars().next();
                    after.is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'))
                })
            });
            if let Some(j) = used {
                return refuse(format!(
                    "`replicas` carries the anchor `&{a}` used by `{alias}` on line {}; removing it would break the alias — edit by hand",
                    j + 1
                ));
            }
        }
        let others = hits.iter().any(|x| {
            x.path.len() == spec_path.len() + 1
                && x.path.starts_with(&spec_path)
                && x.path != rep_path
        });
        if !others {
            return self.whole_spec_removal(spec, h);
        }
        let comment_above = (h.line > doc.first)
            .then(|| h.line - 1)
            .filter(|&j| {
                let s = self.line_text(j).trim_start();
                s.starts_with('#')
            })
            .map(|j| j + 1);
        EditAction::Remove {
            start: self.lines[h.line].start,
            end: self.lines[h.end_line - 1].end,
            first_line: h.line + 1,
            last_line: h.end_line,
            comment_above,
        }
    }

    /// `spec` holds only `replicas`: removing that alone would leave `spec:` null — which a
    /// Kustomize (strategic merge) patch reads as "delete the whole spec", rendering the
    /// workload without selector or template. The `spec` key goes with it.
    fn whole_spec_removal(&self, spec: &KeyHit, h: &KeyHit) -> EditAction {
        if !spec.value.is_empty() {
            return EditAction::Refused {
                reason: format!(
                    "`spec` holds only `replicas` and carries `{}` (line {}); removing it would leave an empty `spec` — edit by hand",
                    spec.value,
                    spec.line + 1
                ),
            };
        }
        EditAction::Remove {
            start: self.lines[spec.line].start,
            end: self.lines[h.end_line - 1].end,
            first_line: spec.line + 1,
            last_line: h.end_line,
            comment_above: None,
        }
    }

    /// The edited text must parse to the same documents with only the planned fields removed.
    fn check(&self, new_text: &str, removed: &[(usize, Option<usize>)]) -> Result<(), EditCheck> {
        let again = Manifest::parse(&self.file, new_text).map_err(EditCheck::Unparsable)?;
        if again.docs.len() != self.docs.len() {
            return Err(EditCheck::DocumentCount);
        }
        for (d, (old, new)) in self.docs.iter().zip(&again.docs).enumerate() {
            let mut expect = old.value.clone();
            for (rd, item) in removed.iter().filter(|(rd, _)| *rd == d) {
                let _ = rd;
                let obj = match item {
                    Some(i) => expect.get_mut("items").and_then(|v| v.get_mut(*i)),
                    None => Some(&mut expect),
                };
                if let Some(o) = obj {
                    if let Some(m) = o.get_mut("spec").and_then(Yaml::as_object_mut) {
                        m.remove("replicas");
                        if m.is_empty() {
                            // an emptied `spec` goes too (never left null or `{}`)
                            if let Some(om) = o.as_object_mut() {
                                om.remove("spec");
                            }
                        }
                    }
                }
            }
            if expect != new.value {
                return Err(EditCheck::ChangedBeyondReplicas { document: d + 1 });
            }
        }
        Ok(())
    }
}

/// Why an edited file did not check out against the original.
#[derive(Debug)]
enum EditCheck {
    /// The edited text does not parse.
    Unparsable(FileError),
    /// The edit changed the number of documents.
    DocumentCount,
    /// A document (1-based) changed beyond `spec.replicas`.
    ChangedBeyondReplicas { document: usize },
}

impl std::fmt::Display for EditCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditCheck::Unparsable(e) => write!(f, "{e}"),
            EditCheck::DocumentCount => f.write_str("the number of documents changed"),
            EditCheck::ChangedBeyondReplicas { document } => {
                write!(f, "document {document} changed beyond `spec.replicas`")
            }
        }
    }
}

/// A scalar as text (`3`, `"3"` as 3).
pub fn yaml_scalar(v: &Yaml) -> String {
    match v {
        Yaml::Number(n) => n.to_string(),
        Yaml::String(s) => s.clone(),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Null => "null".into(),
        other => crate::yaml::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_string(),
    }
}

/// A short description of an occurrence: `web.yaml:12 (document 2)`.
pub fn describe(o: &Occurrence) -> String {
    let mut s = format!("{}:{}", o.file, o.line);
    let mut parts = vec![format!("document {}", o.document)];
    if let Some(i) = o.item {
        parts.push(format!("List item {i}"));
    }
    s += &format!(" ({})", parts.join(", "));
    s
}

/// `spec.replicas` / `items[2].spec.replicas`.
pub fn field_path(o: &Occurrence) -> String {
    let mut p = Vec::new();
    if let Some(i) = o.item {
        p.push(Seg::key("items"));
        p.push(Seg::Index(i));
    }
    p.push(Seg::key("spec"));
    p.push(Seg::key("replicas"));
    path_string(&p)
}

/// Refuse a file past the parser's budgets (nesting deeper than
/// [`crate::yaml::MAX_DEPTH`], alias bombs, ...) with a one-line error naming the line: the
/// parser stops at the breach, so such a file costs no more than reading it. Other parse
/// errors are left to the reader of the file (a kustomization that does not parse is skipped).
pub fn nesting_guard(file: &str, text: &str) -> Result<(), FileError> {
    match crate::yaml::documents::<serde::de::IgnoredAny>(text) {
        Err(e) if too_much(&e) => Err(yaml_err(file, 0, &e)),
        _ => Ok(()),
    }
}

/// The parser refused the input for its size or depth, not for its syntax.
fn too_much(e: &crate::yaml::Error) -> bool {
    matches!(e, crate::yaml::Error::Budget { .. })
        || crate::yaml::one_line(e).contains("recursion limit")
}

/// Templates are not edited: a `{{` outside a comment refuses the file.
fn refuse_templates(file: &str, text: &str, ls: &[text::Line]) -> Result<(), FileError> {
    for (i, l) in ls.iter().enumerate() {
        let s = &text[l.start..l.content_end];
        if s.contains("{{") && !s.trim_start().starts_with('#') {
            return Err(FileError {
                file: file.into(),
                line: Some(i + 1),
                message: "looks like a template (`{{`): templates are not edited; remove `replicas` in the template source (Helm: guard it with `{{- if not .Values.autoscaling.enabled }}`)".into(),
            });
        }
    }
    Ok(())
}

/// A JSON file: one document spanning every line.
fn json_doc(file: &str, text: &str, lines: usize) -> Result<Doc, FileError> {
    let value: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| FileError {
            file: file.into(),
            line: Some(e.line()),
            message: format!("not valid JSON: {e}"),
        })?;
    Ok(Doc {
        first: 0,
        end: lines,
        format: Format::Json,
        value,
    })
}

/// The `[first, end)` line ranges between document markers (`---`, `...`, directives).
fn document_bounds(
    file: &str,
    text: &str,
    ls: &[text::Line],
) -> Result<Vec<(usize, usize)>, FileError> {
    let mut first = 0;
    let mut bounds = Vec::new();
    for (i, l) in ls.iter().enumerate() {
        let s = &text[l.start..l.content_end];
        let s = s.strip_prefix('\u{feff}').unwrap_or(s);
        let marker =
            |m: &str| s == m || s.starts_with(&format!("{m} ")) || s.starts_with(&format!("{m}\t"));
        if marker("---") || marker("...") || s.starts_with('%') {
            if marker("---") && !text::is_blank_or_comment(s[3..].trim_start()) {
                return Err(FileError {
                    file: file.into(),
                    line: Some(i + 1),
                    message: "content on the `---` line is not supported; put the document on the next line".into(),
                });
            }
            bounds.push((first, i));
            first = i + 1;
        }
    }
    bounds.push((first, ls.len()));
    Ok(bounds)
}

/// One YAML document of lines `[a, b)` (`None` when it holds only blanks and comments).
fn yaml_doc(
    file: &str,
    text: &str,
    ls: &[text::Line],
    (a, b): (usize, usize),
) -> Result<Option<Doc>, FileError> {
    let content = |j: usize| &text[ls[j].start..ls[j].content_end];
    let Some(first_content) = (a..b).find(|&j| !text::is_blank_or_comment(content(j))) else {
        return Ok(None);
    };
    let slice = &text[ls[a].start..ls[b - 1].end];
    let value: Yaml = crate::yaml::from_str(slice).map_err(|e| yaml_err(file, a, &e))?;
    let fc = content(first_content)
        .trim_start_matches('\u{feff}')
        .trim_start();
    let format = if fc.starts_with('{') {
        Format::Json
    } else {
        Format::Yaml
    };
    Ok(Some(Doc {
        first: a,
        end: b,
        format,
        value,
    }))
}

/// The documents of a YAML stream, split line by line; the split must give the same documents
/// as the YAML parser does (errors name the line in the file).
fn yaml_docs(file: &str, text: &str, ls: &[text::Line]) -> Result<Vec<Doc>, FileError> {
    let mut whole: Vec<Yaml> = crate::yaml::documents(text).map_err(|e| yaml_err(file, 0, &e))?;
    whole.retain(|v| !v.is_null());
    let mut docs = Vec::new();
    for bounds in document_bounds(file, text, ls)? {
        docs.extend(yaml_doc(file, text, ls, bounds)?);
    }
    docs.retain(|d| !d.value.is_null());
    if !whole.iter().eq(docs.iter().map(|d| &d.value)) {
        return Err(FileError {
            file: file.into(),
            line: None,
            message: "the documents of this file could not be told apart line by line (a `---` inside a block scalar?); edit it by hand".into(),
        });
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_refuses_deep_nesting_in_one_line_and_lets_syntax_errors_through() {
        let deep = format!("patches: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
        let e = nesting_guard("kustomization.yaml", &deep).unwrap_err();
        assert_eq!(e.line, Some(1), "{e}");
        assert!(e.message.contains("nesting deeper than 64 levels"), "{e}");
        assert!(!e.to_string().contains('\n'), "{e}");
        assert!(nesting_guard("k.yaml", "a: [1,\nb: x: y").is_ok());
        let flat = format!("a: {}1{}\n", "[".repeat(10), "]".repeat(10));
        assert!(nesting_guard("k.yaml", &flat).is_ok());
    }

    #[test]
    fn merge_keys_are_expanded_for_the_edit_check() {
        let text = "base: &b\n  replicas: 2\nkind: Deployment\napiVersion: apps/v1\nmetadata:\n  name: web\nspec:\n  <<: *b\n";
        let m = Manifest::parse("m.yaml", text).unwrap();
        let (_, _, o) = m.objects()[0];
        assert_eq!(o["spec"]["replicas"], 2);
    }

    fn web() -> Vec<ObjectRef> {
        vec![ObjectRef {
            group: "apps".into(),
            kind: "Deployment".into(),
            namespace: "shop".into(),
            name: "web".into(),
        }]
    }

    fn edit(text: &str) -> FileEdit {
        Manifest::parse("m.yaml", text).unwrap().plan(&web())
    }

    #[test]
    fn removes_only_the_target_documents_replicas() {
        let y = "# top\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  # static size\n  replicas: 3 # remove me\n  selector: {}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: other\nspec:\n  replicas: 2\n";
        let e = edit(y);
        assert_eq!(
            e.new_text.as_deref(),
            Some("# top\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  # static size\n  selector: {}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: other\nspec:\n  replicas: 2\n")
        );
        assert!(matches!(
            e.occurrences[0].action,
            EditAction::Remove {
                first_line: 8,
                last_line: 8,
                comment_above: Some(7),
                ..
            }
        ));
        assert!(e.occurrences[0].namespace_assumed);
    }

    #[test]
    fn other_namespace_is_not_touched() {
        let y = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: staging\nspec:\n  replicas: 3\n";
        let e = edit(y);
        assert!(e.occurrences.is_empty());
        assert!(e.new_text.is_none());
    }

    #[test]
    fn templates_and_bad_yaml_are_errors_with_lines() {
        let e = Manifest::parse("t.yaml", "spec:\n  replicas: {{ .Values.n }}\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = Manifest::parse("b.yaml", "a: 1\nb: [\n").unwrap_err();
        assert!(e.line.is_some(), "{e}");
        assert!(e.to_string().starts_with("b.yaml:"), "{e}");
    }

    #[test]
    fn anchors_used_elsewhere_are_refused() {
        let y = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n    size: &n 3\nspec:\n  replicas: *n\n";
        let e = edit(y);
        assert!(e
            .new_text
            .as_deref()
            .is_some_and(|t| !t.contains("replicas")));
        let y = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: &n 3\n  template:\n    metadata:\n      annotations:\n        size: *n\n";
        let e = edit(y);
        assert!(
            matches!(&e.occurrences[0].action, EditAction::Refused { reason } if reason.contains("&n"))
        );
    }

    #[test]
    fn merge_keys_and_flow_are_refused() {
        let y = "base: &b\n  replicas: 3\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n";
        let e = edit(y);
        assert!(
            matches!(&e.occurrences[0].action, EditAction::Refused { reason } if reason.contains("flow"))
        );
        let y = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nx: &b\n  replicas: 3\nspec:\n  <<: *b\n";
        let e = edit(y);
        assert!(
            matches!(&e.occurrences[0].action, EditAction::Refused { reason } if reason.contains("merge key")),
            "{:?}",
            e.occurrences
        );
    }

    #[test]
    fn json_list() {
        let j = "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n    {\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"metadata\": {\"name\": \"web\", \"namespace\": \"shop\"},\n     \"spec\": {\"replicas\": 3, \"selector\": {}}}\n  ]\n}\n";
        let e = Manifest::parse("l.json", j).unwrap().plan(&web());
        assert_eq!(e.occurrences.len(), 1);
        assert!(!e.occurrences[0].namespace_assumed);
        assert!(e.new_text.unwrap().contains("\"spec\": {\"selector\": {}}"));
    }
}
