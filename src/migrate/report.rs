//! The migration report (`-o json`: the body of a `MigrationPlan`,
//! [`crate::output::contract::migration_plan`]); [`super::report_text`] renders it as text.

use serde::Serialize;

use super::chart::ChartReport;
use super::kustomize::KustomizeSetting;
use super::manifest::{FileEdit, FileError};
use super::manifest::{ObjectRef, Occurrence};
use super::plan::{Analysis, Finding};

/// What the run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    /// No cluster: the manifests alone.
    Offline,
    /// GET requests only.
    DryRun,
    /// The planned PATCH requests with `dryRun=All`.
    ServerDryRun,
    /// The planned PATCH requests.
    Apply,
}

/// A workload an HPA of the manifests scales.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OfflineTarget {
    /// The HPA (`name`, or `namespace/name` when it names one) and where it is (`file:line`).
    pub hpa: String,
    pub hpa_at: String,
    pub target: ObjectRef,
    pub occurrences: Vec<Occurrence>,
    pub findings: Vec<Finding>,
}

/// One request sent by `--apply` / `--server-dry-run`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sent {
    pub step: &'static str,
    pub round: usize,
    pub method: &'static str,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub content_type: &'static str,
    pub body: String,
    /// HTTP status (200, or the error's code).
    pub status: Option<u16>,
    pub outcome: String,
}

/// One check after `--apply`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Check {
    pub check: &'static str,
    pub ok: bool,
    pub detail: String,
}

#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApplyReport {
    pub sent: Vec<Sent>,
    pub verified: Vec<Check>,
    pub error: Option<String>,
}

/// One HPA's part of the report.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    /// `namespace/name` of the HPA.
    pub hpa_ref: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apply: Option<ApplyReport>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileReport {
    #[serde(flatten)]
    pub edit: FileEdit,
    pub written: bool,
}

/// Advice for a tool, once per run.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RunAdvice {
    pub tool: String,
    pub text: String,
}

/// The whole report.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub mode: Mode,
    /// What this run does to the cluster and to the files, in one sentence each.
    pub cluster_effect: String,
    pub files_effect: String,
    pub workloads: Vec<Workload>,
    /// Offline: the workloads the manifests' HPAs scale.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<OfflineTarget>,
    /// Offline: what the next apply by each tool does, in general.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub general: Vec<RunAdvice>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub charts: Vec<ChartReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kustomize: Vec<KustomizeSetting>,
    pub files: Vec<FileReport>,
    pub advice: Vec<RunAdvice>,
    pub risks: Vec<String>,
    pub errors: Vec<String>,
    pub file_errors: Vec<FileError>,
    /// `-f - --write`: the stream for standard output (the report then goes to standard error).
    #[serde(skip)]
    pub stdout: Option<String>,
}

impl Report {
    pub fn new(mode: Mode) -> Report {
        Report {
            mode,
            cluster_effect: String::new(),
            files_effect: String::new(),
            workloads: Vec::new(),
            targets: Vec::new(),
            general: Vec::new(),
            charts: Vec::new(),
            kustomize: Vec::new(),
            files: Vec::new(),
            advice: Vec::new(),
            risks: Vec::new(),
            errors: Vec::new(),
            file_errors: Vec::new(),
            stdout: None,
        }
    }

    /// Advice and risks of every workload, once each.
    pub fn collect_advice(&mut self) {
        for a in self.workloads.iter().filter_map(|w| w.analysis.as_ref()) {
            for ad in &a.advice {
                let r = RunAdvice {
                    tool: ad.tool.to_string(),
                    text: ad.text.clone(),
                };
                if !self.advice.contains(&r) {
                    self.advice.push(r);
                }
            }
            for rk in &a.risks {
                if !self.risks.contains(rk) {
                    self.risks.push(rk.clone());
                }
            }
        }
    }

    /// The PATCH requests of the plan, and the namespaces they touch.
    pub fn planned_writes(&self) -> (usize, Vec<String>) {
        let mut n = 0;
        let mut ns: Vec<String> = Vec::new();
        for a in self.workloads.iter().filter_map(|w| w.analysis.as_ref()) {
            if !a.blocked() && !a.requests.is_empty() {
                n += a.requests.len();
                if !ns.contains(&a.target.namespace) {
                    ns.push(a.target.namespace.clone());
                }
            }
        }
        (n, ns)
    }

    /// The files the run edits (or would edit).
    pub fn edited_files(&self) -> Vec<&str> {
        self.files
            .iter()
            .filter(|f| f.edit.new_text.is_some())
            .map(|f| f.edit.file.as_str())
            .collect()
    }

    /// Describe the effect on files: `write` asked, `after_cluster` when writes wait for it.
    pub fn describe_files(&mut self, write: bool, after_cluster: bool) {
        let edits = self.edited_files().join(", ");
        self.files_effect = if self.files.is_empty() && self.charts.is_empty() {
            "no files given (-f): none read or written".into()
        } else if edits.is_empty() {
            "no file needs an edit; none is written".into()
        } else if write && after_cluster {
            format!("--write edits {edits}, only after the cluster requests succeeded")
        } else if write {
            format!("--write edits {edits}")
        } else {
            format!("none is written (--write would edit {edits})")
        };
    }
}

/// How the text report is laid out.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// `-o wide`: the general "next apply" advice even when no workload is affected, and the
    /// whole report when nothing is to change.
    pub wide: bool,
    /// The columns the advice and the risks are wrapped to.
    pub width: usize,
}

impl Default for Layout {
    fn default() -> Layout {
        Layout {
            wide: false,
            width: crate::render::layout::DEFAULT_WIDTH,
        }
    }
}
