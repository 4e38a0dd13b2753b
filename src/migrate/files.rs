//! Reading `-f FILE|DIR [-R]` and `-f -` like kubectl: files (`.yaml`, `.yml`, `.json`), the
//! files of a directory (its subdirectories too with `-R`), stdin. A directory with `Chart.yaml`
//! is a Helm chart (templates are scanned, never parsed as manifests); `kustomization.yaml` files
//! are read as kustomizations, with the patch files they name.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::chart::Chart;
use super::kustomize::{self, Kustomization};
use super::manifest::{FileError, Manifest};

/// The label of stdin in messages and diffs.
pub const STDIN: &str = "<stdin>";

/// Everything read from the inputs.
#[derive(Debug, Default)]
pub struct Sources {
    pub manifests: Vec<Manifest>,
    pub charts: Vec<Chart>,
    pub kustomizations: Vec<Kustomization>,
    pub errors: Vec<FileError>,
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

fn read_text(p: &Path) -> Result<String, FileError> {
    let bytes = std::fs::read(p).map_err(|e| err(p, format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|_| err(p, "not UTF-8 text".into()))
}

fn is_manifest(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|x| x.to_str()),
        Some("yaml" | "yml" | "json")
    )
}

fn sorted_entries(dir: &Path) -> Result<Vec<PathBuf>, FileError> {
    let rd = std::fs::read_dir(dir).map_err(|e| err(dir, format!("cannot read directory: {e}")))?;
    let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort();
    Ok(v)
}

/// Read every input. `stdin` is read for `-`.
pub fn read(inputs: &[PathBuf], recursive: bool, stdin: &mut dyn Read) -> Sources {
    let mut s = Sources::default();
    for p in inputs {
        if p.as_os_str() == "-" {
            let mut text = String::new();
            match stdin.read_to_string(&mut text) {
                Ok(_) => s.add_text(STDIN, text),
                Err(e) => s
                    .errors
                    .push(err(Path::new(STDIN), format!("cannot read: {e}"))),
            }
        } else if p.is_dir() {
            s.add_dir(p, recursive, true);
        } else {
            s.add_file(p);
        }
    }
    s
}

impl Sources {
    fn add_text(&mut self, file: &str, text: String) {
        match Manifest::parse(file, &text) {
            Ok(m) => self.manifests.push(m),
            Err(e) => self.errors.push(e),
        }
    }

    fn add_file(&mut self, p: &Path) {
        let text = match read_text(p) {
            Ok(t) => t,
            Err(e) => return self.errors.push(e),
        };
        let file = shown(p);
        if kustomize::is_kustomization(&file, &text) {
            let dir = p.parent().unwrap_or(Path::new("."));
            let patch_files = kustomize::patch_paths(&text)
                .into_iter()
                .filter_map(|w| {
                    let disk = dir.join(&w);
                    read_text(&disk).ok().map(|t| (w, shown(&disk), t))
                })
                .collect();
            self.kustomizations.push(Kustomization {
                file,
                text,
                patch_files,
            });
            return;
        }
        self.add_text(&file, text);
    }

    fn add_dir(&mut self, dir: &Path, recursive: bool, top: bool) {
        if dir.join("Chart.yaml").is_file() {
            return self.add_chart(dir);
        }
        let entries = match sorted_entries(dir) {
            Ok(e) => e,
            Err(e) => return self.errors.push(e),
        };
        for e in entries {
            let hidden = e
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with('.'));
            if e.is_dir() {
                if recursive && !hidden {
                    self.add_dir(&e, recursive, false);
                }
            } else if (top || !hidden) && is_manifest(&e) && e.is_file() {
                self.add_file(&e);
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
                if e.is_dir() {
                    stack.push(e);
                } else if matches!(
                    e.extension().and_then(|x| x.to_str()),
                    Some("yaml" | "yml" | "tpl")
                ) {
                    match read_text(&e) {
                        Ok(t) => templates.push((shown(&e), t)),
                        Err(x) => self.errors.push(x),
                    }
                }
            }
        }
        templates.sort();
        self.charts.push(Chart {
            dir: shown(dir),
            values,
            templates,
        });
    }
}

/// Write the planned edits (temp file + rename, permissions kept). Stdin cannot be written.
pub fn write_edits(files: &mut [super::report::FileReport]) -> anyhow::Result<()> {
    for f in files.iter_mut() {
        if let Some(t) = &f.edit.new_text {
            if f.edit.file == STDIN {
                continue;
            }
            write_atomically(Path::new(&f.edit.file), t)
                .map_err(|e| anyhow::anyhow!("--write {}: {e}", f.edit.file))?;
            f.written = true;
        }
    }
    Ok(())
}

fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("manifest");
    let tmp = dir.join(format!(".{name}.kubectl-hpa-migrate.tmp"));
    std::fs::write(&tmp, text)?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    std::fs::rename(&tmp, path)
}
