//! Reading untrusted text inputs, shared by the commands: a file named by the user or inside
//! another input (a kustomization's patch, a scenario's CSV) is read only when it is a regular
//! file, up to a size cap (`/dev/zero`, a FIFO or a 2 GB file is refused at once, never read to
//! the end); a UTF-8 byte order mark is ignored. No other I/O. (Deep YAML nesting is refused by
//! the parser's own budgets in [`crate::yaml`].)

use std::io::{self, Read};
use std::path::Path;

/// The largest file read as a manifest, patch, snapshot part or load CSV (64 MiB): far above
/// any Kubernetes object (etcd stores at most 1.5 MiB each) or a month of samples.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The UTF-8 byte order mark some editors put first.
pub const BOM: char = '\u{feff}';

/// Read a regular file of at most `cap` bytes. A directory, device, FIFO or socket is refused
/// before reading (a FIFO is opened without waiting for a writer), a larger file after `cap`
/// bytes. The errors are one line saying which.
pub fn read_regular(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_no_wait(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind_of(&meta)),
        ));
    }
    if meta.len() > cap {
        return Err(too_large(cap));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_large(cap));
    }
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text, the byte order mark (if any) removed.
pub fn read_text(path: &Path, cap: u64) -> io::Result<String> {
    let bytes = read_regular(path, cap)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))?;
    Ok(match text.strip_prefix(BOM) {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// The text without a leading byte order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix(BOM).unwrap_or(text)
}

fn too_large(cap: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("larger than {} MiB, the limit for an input file", cap >> 20),
    )
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

#[cfg(unix)]
fn open_no_wait(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO does not wait for a writer (regular files ignore the flag).
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_wait(path: &Path) -> io::Result<std::fs::File> {
    std::fs::File::open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_large_files_are_refused_without_reading() {
        #[cfg(unix)]
        {
            let e = read_regular(Path::new("/dev/zero"), 1 << 20).unwrap_err();
            assert_eq!(e.to_string(), "not a regular file (a device)");
        }
        let dir = std::env::temp_dir().join(format!("bounded-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = read_regular(&dir, 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a directory)");
        let f = dir.join("big");
        std::fs::write(&f, vec![b'a'; (2 << 20) + 1]).unwrap();
        let e = read_regular(&f, 2 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "larger than 2 MiB, the limit for an input file"
        );
        std::fs::write(&f, "\u{feff}a: 1\n").unwrap();
        assert_eq!(read_text(&f, 2 << 20).unwrap(), "a: 1\n");
        #[cfg(unix)]
        {
            let fifo = dir.join("fifo");
            let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            let e = read_regular(&fifo, 1 << 20).unwrap_err();
            assert_eq!(e.to_string(), "not a regular file (a FIFO)");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
