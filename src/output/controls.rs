//! Control characters never reach the terminal raw. Names, metric names, messages and paths come
//! from files and clusters; a `scaleTargetRef.name` holding an OSC 52 sequence would write the
//! user's clipboard when printed. Escaping is done here, once, on everything the program writes
//! — [`Clean`] wraps stdout, [`escape_controls`] the lines on stderr — so no renderer can forget
//! it: every C0 control but newline and tab, DEL and every C1 control (U+0080–U+009F) becomes
//! `\u00XX`. That is also a JSON string escape of the same character, so a JSON document stays
//! valid and means the same; YAML documents never hold them raw (the emitter escapes them).
//! With colour on, the one escape sequence the renderers write themselves passes: SGR
//! (`ESC [ digits;… m`: colour, bold, reset), which moves no cursor and writes no clipboard.

use std::borrow::Cow;
use std::io::Write;

/// Whether a byte starts something to escape (C0 but `\n` and `\t`, DEL, the lead of a C1).
fn special(b: u8) -> bool {
    (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f || b == 0xc2
}

/// The length of the SGR sequence at the start of `s` (`ESC [ [0-9;]* m`), if it is one.
fn sgr_len(s: &[u8]) -> Option<usize> {
    if s.get(1) != Some(&b'[') {
        return None;
    }
    let params = s[2..]
        .iter()
        .take_while(|b| b.is_ascii_digit() || **b == b';')
        .count();
    (s.get(2 + params) == Some(&b'm')).then_some(3 + params)
}

/// Append `bytes` to `out` with the control characters escaped (`sgr`: SGR sequences pass).
/// Returns how many bytes at the end were kept back: a C1 lead byte whose second byte is in
/// the next chunk.
fn escape_into(bytes: &[u8], sgr: bool, out: &mut Vec<u8>) -> usize {
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && !special(bytes[i]) {
            i += 1;
        }
        out.extend_from_slice(&bytes[start..i]);
        let Some(&b) = bytes.get(i) else {
            break;
        };
        if b == 0xc2 {
            match bytes.get(i + 1) {
                None => return 1,
                Some(&c @ 0x80..=0x9f) => {
                    out.extend_from_slice(format!("\\u{c:04x}").as_bytes());
                    i += 2;
                }
                Some(_) => {
                    out.push(b);
                    i += 1;
                }
            }
            continue;
        }
        if let Some(n) = (b == 0x1b && sgr).then(|| sgr_len(&bytes[i..])).flatten() {
            out.extend_from_slice(&bytes[i..i + n]);
            i += n;
            continue;
        }
        out.extend_from_slice(format!("\\u{b:04x}").as_bytes());
        i += 1;
    }
    0
}

/// `s` with its control characters escaped (no SGR passes): for lines on stderr.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.bytes().any(special) {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(s.len() + 16);
    escape_into(s.as_bytes(), false, &mut out);
    // Only whole characters were replaced, by ASCII.
    Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// A writer that escapes control characters on their way to `inner` (see the module).
pub struct Clean<W: Write> {
    inner: W,
    /// SGR sequences pass (colour is on).
    sgr: bool,
    /// A C1 lead byte kept back from the end of the last write.
    carry: Option<u8>,
    buf: Vec<u8>,
}

impl<W: Write> Clean<W> {
    pub fn new(inner: W, sgr: bool) -> Clean<W> {
        Clean {
            inner,
            sgr,
            carry: None,
            buf: Vec::new(),
        }
    }
}

impl<W: Write> Write for Clean<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.carry.is_none() && !data.iter().copied().any(special) {
            self.inner.write_all(data)?;
            return Ok(data.len());
        }
        let mut joined;
        let bytes = match self.carry.take() {
            Some(c) => {
                joined = vec![c];
                joined.extend_from_slice(data);
                &joined[..]
            }
            None => data,
        };
        self.buf.clear();
        let kept = escape_into(bytes, self.sgr, &mut self.buf);
        if kept > 0 {
            self.carry = bytes.last().copied();
        }
        self.inner.write_all(&self.buf)?;
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if let Some(c) = self.carry.take() {
            self.inner.write_all(&[c])?;
        }
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(chunks: &[&str], sgr: bool) -> String {
        let mut w = Clean::new(Vec::new(), sgr);
        for c in chunks {
            w.write_all(c.as_bytes()).unwrap();
        }
        w.flush().unwrap();
        String::from_utf8(w.inner).unwrap()
    }

    #[test]
    fn controls_are_escaped_and_the_rest_passes() {
        let osc52 = "web\u{1b}]52;c;aGk=\u{7}x";
        assert_eq!(escape_controls(osc52), "web\\u001b]52;c;aGk=\\u0007x");
        assert_eq!(escape_controls("a\tb\nc é ✓"), "a\tb\nc é ✓");
        assert_eq!(
            escape_controls("a\rb\u{7f}\u{85}\u{9b}2J\u{a0}"),
            "a\\u000db\\u007f\\u0085\\u009b2J\u{a0}"
        );
        assert!(matches!(escape_controls("plain"), Cow::Borrowed(_)));
        // On stderr even SGR is escaped.
        assert_eq!(escape_controls("\u{1b}[1mx"), "\\u001b[1mx");
    }

    #[test]
    fn the_writer_lets_sgr_pass_only_with_colour_and_joins_split_c1() {
        let coloured = "\u{1b}[38;5;2mshop\u{1b}[39m \u{1b}[2J\u{1b}]0;t\u{7}";
        assert_eq!(
            through(&[coloured], true),
            "\u{1b}[38;5;2mshop\u{1b}[39m \\u001b[2J\\u001b]0;t\\u0007"
        );
        assert_eq!(through(&[coloured], false).matches('\u{1b}').count(), 0);
        // A C1 character cut between two writes.
        let c1 = "a\u{9b}b";
        let (x, y) = c1.as_bytes().split_at(2);
        let mut w = Clean::new(Vec::new(), false);
        w.write_all(x).unwrap();
        w.write_all(y).unwrap();
        assert_eq!(String::from_utf8(w.inner).unwrap(), "a\\u009bb");
        // JSON keeps its meaning.
        let doc = serde_json::json!({"name": "a\u{85}\u{7f}\u{1b}"}).to_string();
        let back: serde_json::Value = serde_json::from_str(&through(&[&doc], true)).unwrap();
        assert_eq!(back["name"], "a\u{85}\u{7f}\u{1b}");
        // YAML holds none of them raw: passing through changes nothing.
        let doc = crate::yaml::to_string(&serde_json::json!({"name": "a\u{85}\u{7f}\u{1b}\u{9b}"}))
            .unwrap();
        assert_eq!(through(&[&doc], false), doc);
    }
}
