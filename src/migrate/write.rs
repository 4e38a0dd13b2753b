//! `--write`: replacing the edited manifests without ever writing outside them or losing an
//! edit made meanwhile. Each file read is remembered ([`Origin`]: identity, size, mtime, a hash
//! of its bytes). Writing is all or nothing: every file is checked (a regular file with one
//! name, writable, unchanged since it was read) and its new text written to a temporary file
//! created beside it (exclusively, never through a link, owner, group and mode copied); only
//! then are the temporary files renamed over the originals, each checked once more just before.
//! A failure before the renames removes the temporary files and writes nothing; a failure
//! during them puts back the files already replaced.

use std::collections::HashMap;
use std::fs::{File, Metadata};
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::manifest::STDIN;
use super::report::{FileReport, Report};

/// A file as it was read.
#[derive(Clone, Debug)]
pub struct Origin {
    pub path: PathBuf,
    /// The path itself is a symbolic link.
    pub symlink: bool,
    /// The file began with a UTF-8 byte order mark (kept when written).
    pub bom: bool,
    id: (u64, u64),
    len: u64,
    mtime: Option<SystemTime>,
    hash: u64,
}

/// The files read, by their name as shown (`FileEdit::file`).
#[derive(Debug, Default)]
pub struct Origins(HashMap<String, Origin>);

impl Origins {
    pub fn insert(&mut self, shown: String, o: Origin) {
        self.0.insert(shown, o);
    }
    pub fn get(&self, shown: &str) -> Option<&Origin> {
        self.0.get(shown)
    }
    /// A file already read under another name (the same inode)?
    pub fn has_identity(&self, o: &Origin) -> bool {
        self.0.values().any(|x| x.id == o.id)
    }
}

fn hash_of(bytes: &[u8]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

#[cfg(unix)]
fn identity(m: &Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(not(unix))]
fn identity(_: &Metadata) -> (u64, u64) {
    (0, 0)
}

impl Origin {
    /// The record of `path`, whose bytes were just read; `meta` is its metadata (following
    /// links), `symlink` whether the path itself is a link.
    pub fn new(path: &Path, bytes: &[u8], meta: &Metadata, symlink: bool) -> Origin {
        Origin {
            path: path.to_path_buf(),
            symlink,
            bom: bytes.starts_with("\u{feff}".as_bytes()),
            id: identity(meta),
            len: meta.len(),
            mtime: meta.modified().ok(),
            hash: hash_of(bytes),
        }
    }

    /// Is the file at the path still the one read (a regular file, not a link, same identity,
    /// size, mtime and bytes)? Returns its current bytes and metadata.
    fn unchanged(&self) -> Result<(Vec<u8>, Metadata), String> {
        let lmeta =
            std::fs::symlink_metadata(&self.path).map_err(|e| format!("cannot stat: {e}"))?;
        if self.symlink || lmeta.file_type().is_symlink() {
            let to = std::fs::read_link(&self.path)
                .map(|t| format!(" (to {})", t.display()))
                .unwrap_or_default();
            return Err(format!("is a symbolic link{to}: --write replaces only regular files; name the file it points to with -f"));
        }
        let changed = "changed since it was read (another writer?): not overwritten; run migrate again to plan from its new content";
        if identity(&lmeta) != self.id
            || lmeta.len() != self.len
            || lmeta.modified().ok() != self.mtime
        {
            return Err(changed.into());
        }
        let bytes =
            crate::bounded_read::read_regular(&self.path, crate::bounded_read::MAX_INPUT_BYTES)
                .map_err(|e| format!("cannot read it again: {e}"))?;
        if hash_of(&bytes) != self.hash {
            return Err(changed.into());
        }
        Ok((bytes, lmeta))
    }
}

/// Refuse files a rename would not replace faithfully.
fn replaceable(meta: &Metadata) -> Result<(), String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Err(format!("has {} hard links: replacing it would split them (the other names would keep the old text); edit it by hand", meta.nlink()));
        }
        if meta.mode() & 0o200 == 0 {
            return Err(format!("is read-only (mode {:04o}): not written; make it writable (chmod u+w) to let --write edit it", meta.mode() & 0o7777));
        }
    }
    #[cfg(not(unix))]
    if meta.permissions().readonly() {
        return Err("is read-only: not written; make it writable to let --write edit it".into());
    }
    Ok(())
}

/// A temporary file beside its target, holding the new bytes.
struct Temp {
    target: PathBuf,
    path: PathBuf,
    /// The target's bytes when checked (to put back if a later rename fails).
    original: Vec<u8>,
    origin: Origin,
    index: usize,
}

/// Create a new file beside `target` that did not exist (never following a link), with the
/// target's owner, group and mode, holding `bytes`.
fn create_beside(target: &Path, bytes: &[u8], meta: &Metadata) -> std::io::Result<PathBuf> {
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("manifest");
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut last = None;
    for attempt in 0..32u32 {
        let tmp = dir.join(format!(
            ".{name}.{}-{nanos:x}-{attempt}.kubectl-hpa-migrate.tmp",
            std::process::id()
        ));
        match open_new(&tmp) {
            Ok(mut f) => {
                let done = fill(&mut f, bytes, meta);
                if let Err(e) = done {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(e);
                }
                return Ok(tmp);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

#[cfg(unix)]
fn open_new(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn open_new(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

fn fill(f: &mut File, bytes: &[u8], meta: &Metadata) -> std::io::Result<()> {
    f.write_all(bytes)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let mine = f.metadata()?;
        if (mine.uid(), mine.gid()) != (meta.uid(), meta.gid()) {
            std::os::unix::fs::fchown(&*f, Some(meta.uid()), Some(meta.gid())).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!(
                        "cannot keep its owner and group ({}:{}): {e}",
                        meta.uid(),
                        meta.gid()
                    ),
                )
            })?;
        }
    }
    f.set_permissions(meta.permissions())?;
    f.sync_all()
}

/// What `--write` did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The files replaced, as shown.
    pub written: Vec<String>,
    /// Why nothing (more) was written, one line.
    pub error: Option<String>,
}

/// Say in the report exactly which files `--write` replaced, or why none (or which) were.
pub fn record(report: &mut Report, done: Outcome) {
    let n = done.written.len();
    let list = done.written.join(", ");
    let stdin = report
        .files
        .iter()
        .any(|f| f.edit.file == STDIN && f.edit.new_text.is_some());
    report.files_effect = match (&done.error, n) {
        (Some(_), 0) => "none written (see the errors)".into(),
        (Some(_), _) => format!("{n} left edited after a failure: {list} (see the errors)"),
        (None, 0) if stdin => format!("the edited {STDIN} is written to standard output (this report goes to standard error)"),
        (None, 0) => return,
        (None, _) => format!(
            "--write replaced {n} file{}: {list} (each through a new file beside it, owner, group and mode kept){}",
            if n == 1 { "" } else { "s" },
            if stdin { format!("; the edited {STDIN} is written to standard output (this report goes to standard error)") } else { String::new() }
        ),
    };
    report.errors.extend(done.error);
}

/// `-f - --write`: standard input cannot be replaced, so once the run went through without
/// an error its stream goes to standard output — edited, or as read (`original`) when it
/// needed no edit — and the report to standard error.
pub fn stdin_stream(report: &mut Report, original: Option<&str>) {
    if !report.errors.is_empty() || !report.file_errors.is_empty() {
        return;
    }
    let edited = report
        .files
        .iter()
        .find(|f| f.edit.file == STDIN)
        .and_then(|f| f.edit.new_text.clone());
    if edited.is_none() && original.is_some() {
        report.files_effect = format!("{}; {STDIN} is written unchanged to standard output (this report goes to standard error)", report.files_effect);
    }
    report.stdout = edited.or(original.map(String::from));
}

/// Write every planned edit, all or nothing (see the module). Stdin is never written.
pub fn write_edits(files: &mut [FileReport], origins: &Origins) -> Outcome {
    write_edits_with(files, origins, &mut |_| {})
}

/// [`write_edits`], calling `before_rename` with each target just before its last check
/// (tests use it to play a concurrent writer).
pub fn write_edits_with(
    files: &mut [FileReport],
    origins: &Origins,
    before_rename: &mut dyn FnMut(&Path),
) -> Outcome {
    let temps = match prepare(files, origins) {
        Ok(t) => t,
        Err(e) => {
            return Outcome {
                written: Vec::new(),
                error: Some(format!("--write: nothing written: {e}")),
            }
        }
    };
    let mut done: Vec<&Temp> = Vec::new();
    for (k, t) in temps.iter().enumerate() {
        before_rename(&t.target);
        let step = t.origin.unchanged().and_then(|_| {
            std::fs::rename(&t.path, &t.target).map_err(|e| format!("cannot replace it: {e}"))
        });
        if let Err(e) = step {
            for rest in &temps[k..] {
                let _ = std::fs::remove_file(&rest.path);
            }
            let shown = &files[t.index].edit.file;
            let (tail, kept) = restore(&done, files);
            let what = if kept.is_empty() {
                "nothing written"
            } else {
                "stopped"
            };
            for i in &kept {
                files[*i].written = true;
            }
            return Outcome {
                written: kept.iter().map(|i| files[*i].edit.file.clone()).collect(),
                error: Some(format!("--write: {what}: {shown}: {e}{tail}")),
            };
        }
        done.push(t);
    }
    let mut written = Vec::new();
    for t in &temps {
        files[t.index].written = true;
        written.push(files[t.index].edit.file.clone());
    }
    Outcome {
        written,
        error: None,
    }
}

/// Check every file and write its temporary file; on a failure remove those made.
fn prepare(files: &[FileReport], origins: &Origins) -> Result<Vec<Temp>, String> {
    let mut temps: Vec<Temp> = Vec::new();
    let fail = |temps: &[Temp], shown: &str, e: String| {
        for t in temps {
            let _ = std::fs::remove_file(&t.path);
        }
        Err(format!("{shown}: {e}"))
    };
    for (index, f) in files.iter().enumerate() {
        let Some(text) = &f.edit.new_text else {
            continue;
        };
        if f.edit.file == super::manifest::STDIN {
            continue;
        }
        let Some(origin) = origins.get(&f.edit.file) else {
            return fail(&temps, &f.edit.file, "not a file that was read".into());
        };
        let (original, meta) = match origin.unchanged() {
            Ok(x) => x,
            Err(e) => return fail(&temps, &f.edit.file, e),
        };
        if let Err(e) = replaceable(&meta) {
            return fail(&temps, &f.edit.file, e);
        }
        let mut bytes = Vec::with_capacity(text.len() + 3);
        if origin.bom {
            bytes.extend_from_slice("\u{feff}".as_bytes());
        }
        bytes.extend_from_slice(text.as_bytes());
        match create_beside(&origin.path, &bytes, &meta) {
            Ok(path) => temps.push(Temp {
                target: origin.path.clone(),
                path,
                original,
                origin: origin.clone(),
                index,
            }),
            Err(e) => {
                return fail(
                    &temps,
                    &f.edit.file,
                    format!("cannot write a temporary file beside it: {e}"),
                )
            }
        }
    }
    Ok(temps)
}

/// Put back the files already replaced: what to say, and the indices of those that could not
/// be put back (they hold the edit).
fn restore(done: &[&Temp], files: &[FileReport]) -> (String, Vec<usize>) {
    if done.is_empty() {
        return (String::new(), Vec::new());
    }
    let mut back = Vec::new();
    let mut lost = Vec::new();
    let mut kept = Vec::new();
    for t in done {
        let shown = files[t.index].edit.file.clone();
        let put = std::fs::symlink_metadata(&t.target)
            .and_then(|m| create_beside(&t.target, &t.original, &m))
            .and_then(|tmp| {
                std::fs::rename(&tmp, &t.target).inspect_err(|_| {
                    let _ = std::fs::remove_file(&tmp);
                })
            });
        match put {
            Ok(()) => back.push(shown),
            Err(e) => {
                lost.push(format!("{shown} ({e})"));
                kept.push(t.index);
            }
        }
    }
    let tail = if lost.is_empty() {
        format!(
            "; the files replaced before it were put back: {}",
            back.join(", ")
        )
    } else {
        format!(
            "; put back: {}; NOT put back, they hold the edit: {}",
            if back.is_empty() {
                "none".to_string()
            } else {
                back.join(", ")
            },
            lost.join(", ")
        )
    };
    (tail, kept)
}
