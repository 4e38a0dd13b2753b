//! Reading `-f FILE|DIR [-R]` and `-f -` like kubectl: files (`.yaml`, `.yml`, `.json`), the
//! files of a directory (its subdirectories too with `-R`), stdin. A directory with `Chart.yaml`
//! is a Helm chart (templates are scanned, never parsed as manifests); `kustomization.yaml` files
//! are read as kustomizations, with the patch files they name.
//!
//! Confinement: `-R` never follows a symbolic link to a directory (no loops, nothing outside the
//! tree); a symbolic link to a file is read only when the file is inside the directory given,
//! and a patch only when it is inside its kustomization's directory (kustomize's own rule).
//! Every file is read through [`crate::bounded_read`]: regular files only, under a size cap.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::bounded_read::{self, MAX_INPUT_BYTES};

use super::chart::{self, Chart, ChartOrigin};
use super::kustomize::{self, Kustomization};
use super::manifest::{self, FileEdit, FileError, Manifest, ObjectRef, Occurrence};
use super::write::{Origin, Origins};

pub use super::manifest::STDIN;

/// Everything read from the inputs.
#[derive(Debug, Default)]
pub struct Sources {
    pub manifests: Vec<Manifest>,
    pub charts: Vec<Chart>,
    pub kustomizations: Vec<Kustomization>,
    pub errors: Vec<FileError>,
    /// The manifest files as read, for `--write`.
    pub origins: Origins,
    /// The manifests holding an object of each `(group, kind, name)`: finding a workload's
    /// documents costs the files that hold it, not every file (`-R` over thousands stays linear).
    index: HashMap<(String, String, String), Vec<usize>>,
    /// Links to files inside the directory being read, read after its regular files.
    links: Vec<PathBuf>,
    /// Files with template actions outside a chart: `(directory, shown path, text)`.
    loose: Vec<(PathBuf, String, String)>,
}

/// A path as shown: without a leading `./`.
fn shown(p: &Path) -> String {
    let s = p.display().to_string();
    match s.strip_prefix("./") {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => s,
    }
}

fn err(file: &Path, message: String) -> FileError {
    FileError {
        file: shown(file),
        line: None,
        message,
    }
}

/// The bytes of a file (bounded) as text without its byte order mark, and its record.
fn read_file(p: &Path) -> Result<(String, Origin), FileError> {
    let symlink = std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
    let meta = std::fs::metadata(p).map_err(|e| err(p, format!("cannot read: {e}")))?;
    let bytes = bounded_read::read_regular(p, MAX_INPUT_BYTES)
        .map_err(|e| err(p, format!("cannot read: {e}")))?;
    let origin = Origin::new(p, &bytes, &meta, symlink);
    let text = String::from_utf8(bytes).map_err(|_| err(p, "not UTF-8 text".into()))?;
    let text = match text.strip_prefix(bounded_read::BOM) {
        Some(rest) => rest.to_string(),
        None => text,
    };
    Ok((text, origin))
}

fn read_text(p: &Path) -> Result<String, FileError> {
    bounded_read::read_text(p, MAX_INPUT_BYTES).map_err(|e| err(p, format!("cannot read: {e}")))
}

fn is_manifest(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|x| x.to_str()),
        Some("yaml" | "yml" | "json")
    )
}

/// An entry of a directory, its type not following links.
struct Entry {
    path: PathBuf,
    dir: bool,
    symlink: bool,
}

fn sorted_entries(dir: &Path) -> Result<Vec<Entry>, FileError> {
    let rd = std::fs::read_dir(dir).map_err(|e| err(dir, format!("cannot read directory: {e}")))?;
    let mut v: Vec<Entry> = rd
        .filter_map(|e| {
            let e = e.ok()?;
            let t = e.file_type().ok()?;
            Some(Entry {
                path: e.path(),
                dir: t.is_dir(),
                symlink: t.is_symlink(),
            })
        })
        .collect();
    v.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(v)
}

/// Is `p` (a link) pointing at a file inside `root` (canonical)?
fn inside(p: &Path, root: &Path) -> bool {
    std::fs::canonicalize(p).is_ok_and(|c| c.starts_with(root))
}

/// Read every input. `stdin` is read for `-` (up to the size cap).
pub fn read(inputs: &[PathBuf], recursive: bool, stdin: &mut dyn Read) -> Sources {
    let mut s = Sources::default();
    for p in inputs {
        if p.as_os_str() == "-" {
            let mut text = String::new();
            let got = stdin.take(MAX_INPUT_BYTES + 1).read_to_string(&mut text);
            match got {
                Ok(n) if n as u64 > MAX_INPUT_BYTES => s.errors.push(err(
                    Path::new(STDIN),
                    format!(
                        "larger than {} MiB, the limit for an input",
                        MAX_INPUT_BYTES >> 20
                    ),
                )),
                Ok(_) => s.add_text(STDIN, bounded_read::strip_bom(&text)),
                Err(e) => s
                    .errors
                    .push(err(Path::new(STDIN), format!("cannot read: {e}"))),
            }
        } else if p.is_dir() {
            // A directory named on the command line is read even through a link; below it
            // nothing leaves it.
            let root = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
            s.add_dir(p, &root, recursive, true);
            for link in std::mem::take(&mut s.links) {
                s.add_file(&link);
            }
        } else {
            s.add_file(p);
        }
    }
    s.add_loose_templates();
    s
}

/// `values.yaml` beside the templates or in one of the two directories above.
fn values_near(dir: &Path) -> Option<(String, String)> {
    let mut d = Some(dir);
    for _ in 0..3 {
        let here = d?;
        let v = here.join("values.yaml");
        if let Ok(t) = read_text(&v) {
            return Some((shown(&v), t));
        }
        d = here.parent().filter(|p| !p.as_os_str().is_empty());
    }
    None
}

impl Sources {
    fn add_text(&mut self, file: &str, text: &str) {
        match Manifest::parse(file, text) {
            Ok(m) => {
                let i = self.manifests.len();
                for key in m.object_keys() {
                    let at = self.index.entry(key).or_default();
                    if at.last() != Some(&i) {
                        at.push(i);
                    }
                }
                self.manifests.push(m);
            }
            Err(e) => self.errors.push(e),
        }
    }

    /// The planned edit of every manifest for `targets`: each file is planned for the targets
    /// it holds an object of only (not every target against every file).
    pub fn plan_edits(&self, targets: &[ObjectRef]) -> Vec<FileEdit> {
        let mut mine: Vec<Vec<ObjectRef>> = vec![Vec::new(); self.manifests.len()];
        for t in targets {
            let key = (t.group.clone(), t.kind.clone(), t.name.clone());
            for &i in self.index.get(&key).into_iter().flatten() {
                if !mine[i].contains(t) {
                    mine[i].push(t.clone());
                }
            }
        }
        self.manifests
            .iter()
            .zip(&mine)
            .map(|(m, ts)| m.plan(ts))
            .collect()
    }

    /// The documents of workload `t` in the manifests, with their planned edits.
    pub fn occurrences_of(&self, t: &ObjectRef) -> Vec<Occurrence> {
        let key = (t.group.clone(), t.kind.clone(), t.name.clone());
        self.index
            .get(&key)
            .into_iter()
            .flatten()
            .flat_map(|&i| self.manifests[i].plan(std::slice::from_ref(t)).occurrences)
            .collect()
    }

    fn add_file(&mut self, p: &Path) {
        let (text, origin) = match read_file(p) {
            Ok(t) => t,
            Err(e) => return self.errors.push(e),
        };
        if self.origins.has_identity(&origin) {
            return; // the same file again (named twice, or a link to it)
        }
        let file = shown(p);
        if kustomize::is_kustomization(&file, &text) {
            if let Err(e) = manifest::nesting_guard(&file, &text) {
                return self.errors.push(e);
            }
            return self.add_kustomization(p, file, text);
        }
        if chart::has_actions(&text) || p.extension().is_some_and(|x| x == "tpl") {
            // a template, not a manifest: scanned with the others of its directory
            let dir = p.parent().unwrap_or(Path::new(".")).to_path_buf();
            return self.loose.push((dir, file, text));
        }
        self.origins.insert(file.clone(), origin);
        self.add_text(&file, &text);
    }

    /// Files with template actions outside any chart, one unknown chart (or other tool's
    /// templates) per directory, with the `values.yaml` beside or above them.
    fn add_loose_templates(&mut self) {
        let mut loose = std::mem::take(&mut self.loose);
        loose.sort();
        let mut i = 0;
        while i < loose.len() {
            let dir = loose[i].0.clone();
            let n = loose[i..].iter().take_while(|l| l.0 == dir).count();
            let templates: Vec<(String, String)> = loose[i..i + n]
                .iter()
                .map(|(_, f, t)| (f.clone(), t.clone()))
                .collect();
            i += n;
            self.charts.push(Chart {
                origin: chart::origin_of(&templates),
                dir: shown(&dir),
                values: values_near(&dir),
                templates,
            });
        }
    }

    /// A kustomization and the patch files it names: each read only when it is a regular
    /// file inside the kustomization's directory (as kustomize itself requires); one that
    /// cannot be read is an error naming it.
    fn add_kustomization(&mut self, p: &Path, file: String, text: String) {
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let mut patch_files = Vec::new();
        for w in kustomize::patch_paths(&text) {
            let disk = dir.join(&w);
            let refuse = |why: String| FileError {
                file: file.clone(),
                line: None,
                message: format!("patch {w}: {why}"),
            };
            if !inside(&disk, &root) {
                let why = if disk.exists() {
                    "outside the kustomization's directory: not read (kustomize refuses it too)"
                } else {
                    "cannot read: no such file"
                };
                self.errors.push(refuse(why.into()));
                continue;
            }
            match bounded_read::read_text(&disk, MAX_INPUT_BYTES) {
                Ok(t) => match manifest::nesting_guard(&shown(&disk), &t) {
                    Ok(()) => patch_files.push((w, shown(&disk), t)),
                    Err(e) => self.errors.push(e),
                },
                Err(e) => self.errors.push(refuse(format!("cannot read: {e}"))),
            }
        }
        self.kustomizations.push(Kustomization {
            file,
            text,
            patch_files,
        });
    }

    fn add_dir(&mut self, dir: &Path, root: &Path, recursive: bool, top: bool) {
        if dir.join("Chart.yaml").is_file() {
            return self.add_chart(dir);
        }
        let entries = match sorted_entries(dir) {
            Ok(e) => e,
            Err(e) => return self.errors.push(e),
        };
        for e in entries {
            let hidden = e
                .path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'));
            if e.dir {
                if recursive && !hidden {
                    self.add_dir(&e.path, root, recursive, false);
                }
                continue;
            }
            let tpl = e.path.extension().is_some_and(|x| x == "tpl");
            // a chart's values, never a manifest (read with the templates beside or below it)
            let values = e.path.file_name().is_some_and(|n| n == "values.yaml");
            if (hidden && !top) || values || !(is_manifest(&e.path) || tpl) {
                continue;
            }
            if e.symlink {
                // a link to a directory is never followed; to a file, only inside the tree
                if e.path.is_dir() {
                    continue;
                }
                if !inside(&e.path, root) {
                    self.errors.push(err(&e.path, format!("a symbolic link to a file outside {}: not read (name the file itself with -f to use it)", shown(root))));
                    continue;
                }
                // read after the regular files: a file reached by its own name and a link is
                // read (and edited) under its own name
                self.links.push(e.path);
                continue;
            }
            if e.path.is_file() {
                self.add_file(&e.path);
            }
        }
    }

    fn add_chart(&mut self, dir: &Path) {
        let values_path = dir.join("values.yaml");
        let values = read_text(&values_path)
            .ok()
            .map(|t| (shown(&values_path), t));
        let mut templates = Vec::new();
        let mut stack = vec![dir.join("templates")];
        while let Some(d) = stack.pop() {
            let Ok(entries) = sorted_entries(&d) else {
                continue;
            };
            for e in entries.into_iter().rev() {
                if e.dir {
                    stack.push(e.path);
                } else if !e.symlink
                    && matches!(
                        e.path.extension().and_then(|x| x.to_str()),
                        Some("yaml" | "yml" | "tpl")
                    )
                {
                    match read_text(&e.path) {
                        Ok(t) => templates.push((shown(&e.path), t)),
                        Err(x) => self.errors.push(x),
                    }
                }
            }
        }
        templates.sort();
        self.charts.push(Chart {
            origin: ChartOrigin::Chart,
            dir: shown(dir),
            values,
            templates,
        });
    }
}
