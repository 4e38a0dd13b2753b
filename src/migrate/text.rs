//! Span-reporting scanners for YAML block structure and JSON, and the unified diff of byte
//! deletions. Nothing here re-serializes: callers delete byte ranges of the original text.

/// One line of a text: byte offsets into the whole text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset after the content (before `\r\n` / `\n`).
    pub content_end: usize,
    /// Offset after the terminator.
    pub end: usize,
}

/// Split `text` into lines, keeping track of terminators (`\n`, `\r\n`).
pub fn lines(text: &str) -> Vec<Line> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while start < b.len() {
        let nl = b[start..].iter().position(|&c| c == b'\n');
        let (content_end, end) = match nl {
            Some(i) => {
                let e = start + i;
                let ce = if e > start && b[e - 1] == b'\r' {
                    e - 1
                } else {
                    e
                };
                (ce, e + 1)
            }
            None => (b.len(), b.len()),
        };
        out.push(Line {
            start,
            content_end,
            end,
        });
        start = end;
    }
    out
}

/// A path segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

impl Seg {
    pub fn key(k: &str) -> Seg {
        Seg::Key(k.to_string())
    }
}

/// Display a path as `spec.replicas` / `items[1].spec.replicas`.
pub fn path_string(p: &[Seg]) -> String {
    let mut s = String::new();
    for seg in p {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// A block-mapping key found by [`scan_yaml`].
#[derive(Clone, Debug)]
pub struct KeyHit {
    pub path: Vec<Seg>,
    /// Index into the line table.
    pub line: usize,
    /// Column of the key.
    pub col: usize,
    /// The value text on the key line (properties included, comment stripped, trimmed).
    pub value: String,
    /// First line after the node (exclusive), trailing blank/comment lines excluded.
    pub end_line: usize,
}

struct Frame {
    indent: usize,
    seg: Seg,
    /// The node's value was given on its own line (a scalar): deeper lines are continuations.
    inline: bool,
}

fn indent_of(s: &str) -> usize {
    s.len() - s.trim_start_matches(' ').len()
}

/// Is this line blank or only a comment?
pub fn is_blank_or_comment(s: &str) -> bool {
    let t = s.trim_start_matches([' ', '\t']);
    t.is_empty() || t.starts_with('#')
}

/// Strip a trailing comment (` #...` outside quotes) and surrounding blanks.
pub fn strip_comment(v: &str) -> &str {
    let b = v.as_bytes();
    let (mut sq, mut dq) = (false, false);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if dq => i += 1,
            b'"' if !sq => dq = !dq,
            b'\'' if !dq => sq = !sq,
            b'#' if !sq && !dq && (i == 0 || b[i - 1] == b' ' || b[i - 1] == b'\t') => {
                return v[..i].trim();
            }
            _ => {}
        }
        i += 1;
    }
    v.trim()
}

/// Skip node properties (`&anchor`, `!tag`) at the start of a value.
pub fn strip_properties(v: &str) -> &str {
    let mut v = v.trim_start();
    while v.starts_with('&') || v.starts_with('!') {
        match v.find([' ', '\t']) {
            Some(i) => v = v[i..].trim_start(),
            None => return "",
        }
    }
    v
}

/// The anchor (`&name`) a value carries, if any.
pub fn anchor_of(v: &str) -> Option<String> {
    let mut v = v.trim_start();
    while v.starts_with('&') || v.starts_with('!') {
        let end = v.find([' ', '\t']).unwrap_or(v.len());
        if let Some(a) = v[..end].strip_prefix('&') {
            return Some(a.to_string());
        }
        v = v[end..].trim_start();
    }
    None
}

/// Split `key: rest` off a line's content; `None` when the content is not a mapping key.
fn split_key(s: &str) -> Option<(String, &str)> {
    let b = s.as_bytes();
    if b.is_empty()
        || matches!(
            b[0],
            b'#' | b'{' | b'[' | b'?' | b'|' | b'>' | b'*' | b'&' | b'!'
        )
    {
        return None;
    }
    let (key, after) = if b[0] == b'"' || b[0] == b'\'' {
        let q = b[0];
        let mut i = 1;
        while i < b.len() {
            if q == b'"' && b[i] == b'\\' {
                i += 2;
                continue;
            }
            if b[i] == q {
                if q == b'\'' && i + 1 < b.len() && b[i + 1] == b'\'' {
                    i += 2;
                    continue;
                }
                break;
            }
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        let raw = &s[..=i];
        let key: String = crate::yaml::from_str(raw).ok()?;
        let rest = s[i + 1..].trim_start_matches([' ', '\t']);
        (key, rest)
    } else {
        // plain key: up to the first ": " / ":\t" / ":" at the end, before any " #"
        let mut i = 0;
        let mut found = None;
        while i < b.len() {
            if b[i] == b'#' && i > 0 && (b[i - 1] == b' ' || b[i - 1] == b'\t') {
                break;
            }
            if b[i] == b':' && (i + 1 == b.len() || b[i + 1] == b' ' || b[i + 1] == b'\t') {
                found = Some(i);
                break;
            }
            i += 1;
        }
        let i = found?;
        (s[..i].trim_end().to_string(), &s[i..])
    };
    let rest = after.strip_prefix(':')?;
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some((key, rest))
}

/// How a value on a line continues.
#[derive(Debug, PartialEq, Eq)]
enum ValueKind {
    /// Nothing on the line: children (or nothing) follow.
    Empty,
    /// `|` or `>`: the more-indented lines that follow are text.
    BlockScalar,
    /// An unterminated flow collection or quoted scalar: lines follow until it closes.
    Open,
    /// A complete value on the line.
    Inline,
}

fn classify(v: &str) -> ValueKind {
    let v = strip_properties(strip_comment(v));
    if v.is_empty() {
        return ValueKind::Empty;
    }
    if v.starts_with('|') || v.starts_with('>') {
        return ValueKind::BlockScalar;
    }
    if open_depth(v, 0, false, false).is_open() {
        return ValueKind::Open;
    }
    ValueKind::Inline
}

#[derive(Clone, Copy)]
struct OpenState {
    depth: i32,
    sq: bool,
    dq: bool,
}

impl OpenState {
    fn is_open(&self) -> bool {
        self.depth > 0 || self.sq || self.dq
    }
}

/// Track flow depth and open quotes over `v` (only for values starting with `[`, `{`, `"`, `'`,
/// or continuing such a value).
fn open_depth(v: &str, depth: i32, sq: bool, dq: bool) -> OpenState {
    let mut st = OpenState { depth, sq, dq };
    let b = v.as_bytes();
    if depth == 0 && !sq && !dq && !matches!(b.first(), Some(b'[' | b'{' | b'"' | b'\'')) {
        return st;
    }
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if st.dq {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                st.dq = false;
            }
        } else if st.sq {
            if c == b'\'' {
                if i + 1 < b.len() && b[i + 1] == b'\'' {
                    i += 1;
                } else {
                    st.sq = false;
                }
            }
        } else {
            match c {
                b'"' => st.dq = true,
                b'\'' => st.sq = true,
                b'[' | b'{' => st.depth += 1,
                b']' | b'}' => st.depth -= 1,
                b'#' if i > 0 && (b[i - 1] == b' ' || b[i - 1] == b'\t') => break,
                _ => {}
            }
        }
        i += 1;
    }
    st
}

/// Scan the block structure of the YAML lines `[from, to)` of `text` and report every mapping key
/// with its path. Flow collections, block scalars and multi-line scalars are skipped as values.
pub fn scan_yaml(text: &str, ls: &[Line], from: usize, to: usize) -> Vec<KeyHit> {
    let mut scan = YamlScan {
        text,
        ls,
        to,
        stack: Vec::new(),
        hits: Vec::new(),
    };
    let mut i = from;
    while i < to {
        i = scan.line(i);
    }
    scan.set_ends(from);
    scan.hits
}

/// The state of [`scan_yaml`]: the open nodes (by indent) and the keys found so far.
struct YamlScan<'a> {
    text: &'a str,
    ls: &'a [Line],
    to: usize,
    stack: Vec<Frame>,
    hits: Vec<KeyHit>,
}

/// What a line's node holds, for skipping the lines its value spans.
struct NodeValue<'a> {
    indent: usize,
    kind: ValueKind,
    text: &'a str,
}

impl<'a> YamlScan<'a> {
    fn content(&self, j: usize) -> &'a str {
        let s = &self.text[self.ls[j].start..self.ls[j].content_end];
        s.strip_prefix('\u{feff}').unwrap_or(s)
    }

    /// Scan line `i`; returns the next line to scan.
    fn line(&mut self, i: usize) -> usize {
        let s = self.content(i);
        if is_blank_or_comment(s) {
            return i + 1;
        }
        let col = indent_of(s);
        // a continuation of a scalar given on an earlier line
        if let Some(top) = self.stack.last() {
            if top.inline && top.indent < col && !self.stack.iter().any(|f| f.indent >= col) {
                return i + 1;
            }
        }
        let value = self.node(i, &s[col..], col);
        self.skip_value(i + 1, &value)
    }

    /// The node at `col` of line `i`: sequence entries (possibly nested on one line), then a
    /// key or a scalar.
    fn node(&mut self, i: usize, mut rest: &'a str, mut col: usize) -> NodeValue<'a> {
        while rest == "-" || rest.starts_with("- ") || rest.starts_with("-\t") {
            let after = rest[1..].trim_start_matches([' ', '\t']);
            let kind = self.sequence_entry(col, after);
            if after.is_empty() {
                return NodeValue {
                    indent: col,
                    kind,
                    text: after,
                };
            }
            col += rest.len() - after.len();
            rest = after;
        }
        if let Some((key, value)) = split_key(rest) {
            return self.key(i, col, key, value);
        }
        // a scalar or flow node on its own line
        if let Some(top) = self.stack.last_mut() {
            if top.indent < col {
                top.inline = true;
            }
        }
        NodeValue {
            indent: col,
            kind: classify(rest),
            text: rest,
        }
    }

    /// A sequence entry at `col` whose content is `after`; returns the kind of that content.
    fn sequence_entry(&mut self, col: usize, after: &str) -> ValueKind {
        while self.stack.last().is_some_and(|f| f.indent > col) {
            self.stack.pop();
        }
        let n = match self.stack.last() {
            Some(Frame {
                indent,
                seg: Seg::Index(n),
                ..
            }) if *indent == col => {
                let n = *n + 1;
                self.stack.pop();
                n
            }
            _ => 0,
        };
        let kind = classify(after);
        self.stack.push(Frame {
            indent: col,
            seg: Seg::Index(n),
            inline: matches!(kind, ValueKind::Inline) && split_key(after).is_none(),
        });
        kind
    }

    /// A `key: value` at `col` of line `i`: a hit with its path.
    fn key(&mut self, i: usize, col: usize, key: String, value: &'a str) -> NodeValue<'a> {
        while self.stack.last().is_some_and(|f| f.indent >= col) {
            self.stack.pop();
        }
        let kind = classify(value);
        let mut path: Vec<Seg> = self.stack.iter().map(|f| f.seg.clone()).collect();
        path.push(Seg::Key(key.clone()));
        self.hits.push(KeyHit {
            path,
            line: i,
            col,
            value: strip_comment(value).to_string(),
            end_line: i + 1,
        });
        self.stack.push(Frame {
            indent: col,
            seg: Seg::Key(key),
            inline: kind == ValueKind::Inline,
        });
        NodeValue {
            indent: col,
            kind,
            text: value,
        }
    }

    /// Skip the lines a block scalar or an open flow node spans, from line `i`.
    fn skip_value(&self, mut i: usize, value: &NodeValue) -> usize {
        match value.kind {
            ValueKind::BlockScalar => {
                while i < self.to {
                    let t = self.content(i);
                    if t.trim().is_empty() || indent_of(t) > value.indent {
                        i += 1;
                    } else {
                        break;
                    }
                }
            }
            ValueKind::Open => {
                let mut st =
                    open_depth(strip_properties(strip_comment(value.text)), 0, false, false);
                while i < self.to && st.is_open() {
                    st = open_depth(self.content(i), st.depth, st.sq, st.dq);
                    i += 1;
                }
            }
            _ => {}
        }
        i
    }

    /// The end of each key's node: the next content line at the same or a lower indent.
    fn set_ends(&mut self, from: usize) {
        let mut hits = std::mem::take(&mut self.hits);
        let content_lines: Vec<usize> = (from..self.to)
            .filter(|&j| !is_blank_or_comment(self.content(j)))
            .collect();
        for h in &mut hits {
            let next = content_lines
                .iter()
                .copied()
                .find(|&j| {
                    let t = self.content(j);
                    let ind = indent_of(t);
                    let own_seq = ind == h.col && h.value.is_empty() && t[ind..].starts_with('-');
                    j > h.line && ind <= h.col && !own_seq
                })
                .unwrap_or(self.to);
            let mut end = next;
            while end > h.line + 1 && is_blank_or_comment(self.content(end - 1)) {
                end -= 1;
            }
            h.end_line = end;
        }
        self.hits = hits;
    }
}

// ------------------------------------------------------------------ JSON

/// A JSON value with byte spans.
// One-line reason: every node keeps its whole span, though only objects' starts are read.
#[allow(dead_code)]
#[derive(Debug, Clone)]
pub enum JNode {
    Object {
        members: Vec<JMember>,
        start: usize,
        end: usize,
    },
    Array {
        items: Vec<JNode>,
        start: usize,
        end: usize,
    },
    Scalar {
        start: usize,
        end: usize,
    },
}

#[derive(Debug, Clone)]
pub struct JMember {
    pub key: String,
    pub key_start: usize,
    pub value: JNode,
}

impl JNode {
    pub fn end(&self) -> usize {
        match self {
            JNode::Object { end, .. } | JNode::Array { end, .. } | JNode::Scalar { end, .. } => {
                *end
            }
        }
    }
    pub fn get(&self, seg: &Seg) -> Option<&JNode> {
        match (self, seg) {
            (JNode::Object { members, .. }, Seg::Key(k)) => {
                members.iter().find(|m| &m.key == k).map(|m| &m.value)
            }
            (JNode::Array { items, .. }, Seg::Index(i)) => items.get(*i),
            _ => None,
        }
    }
    pub fn at(&self, path: &[Seg]) -> Option<&JNode> {
        path.iter().try_fold(self, |n, s| n.get(s))
    }
    /// The byte range that removes member `key` of the object at `path` together with exactly
    /// one adjacent comma.
    pub fn member_removal(&self, path: &[Seg], key: &str) -> Option<(usize, usize)> {
        let JNode::Object { members, start, .. } = self.at(path)? else {
            return None;
        };
        let m = members.iter().position(|m| m.key == key)?;
        Some(if m + 1 < members.len() {
            (members[m].key_start, members[m + 1].key_start)
        } else if m > 0 {
            (members[m - 1].value.end(), members[m].value.end())
        } else {
            (start + 1, members[m].value.end())
        })
    }
}

/// Parse JSON text starting at `offset` (within `text`), recording spans.
pub fn parse_json_spans(text: &str, offset: usize) -> Result<(JNode, usize), JsonSpanError> {
    let mut p = JParser {
        b: text.as_bytes(),
        i: offset,
        text,
    };
    p.ws();
    let n = p.value(0)?;
    p.ws();
    Ok((n, p.i))
}

/// JSON that [`parse_json_spans`] cannot read: what was expected and the byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonSpanError {
    pub what: String,
    pub byte: usize,
}

impl std::fmt::Display for JsonSpanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.what, self.byte)
    }
}

impl std::error::Error for JsonSpanError {}

struct JParser<'a> {
    b: &'a [u8],
    i: usize,
    text: &'a str,
}

impl JParser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\r' | b'\n') {
            self.i += 1;
        }
    }
    fn err(&self, what: &str) -> JsonSpanError {
        JsonSpanError {
            what: what.to_string(),
            byte: self.i,
        }
    }
    fn string(&mut self) -> Result<(usize, usize), JsonSpanError> {
        let s = self.i;
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return Ok((s, self.i));
                }
                _ => self.i += 1,
            }
        }
        Err(self.err("unterminated string"))
    }
    fn value(&mut self, depth: usize) -> Result<JNode, JsonSpanError> {
        if depth > 256 {
            return Err(self.err("nesting too deep"));
        }
        let start = self.i;
        match self.b.get(self.i) {
            Some(b'{') => self.object(start, depth),
            Some(b'[') => self.array(start, depth),
            Some(b'"') => {
                let (s, e) = self.string()?;
                Ok(JNode::Scalar { start: s, end: e })
            }
            Some(_) => {
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'
                    )
                {
                    self.i += 1;
                }
                if self.i == start {
                    return Err(self.err("expected a value"));
                }
                Ok(JNode::Scalar { start, end: self.i })
            }
            None => Err(self.err("unexpected end")),
        }
    }

    /// `{ "key": value, … }` from `start` (at the `{`).
    fn object(&mut self, start: usize, depth: usize) -> Result<JNode, JsonSpanError> {
        self.i += 1;
        let mut members = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Ok(JNode::Object {
                members,
                start,
                end: self.i,
            });
        }
        loop {
            members.push(self.member(depth)?);
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(JNode::Object {
                        members,
                        start,
                        end: self.i,
                    });
                }
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
    }

    /// `"key": value` inside an object.
    fn member(&mut self, depth: usize) -> Result<JMember, JsonSpanError> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return Err(self.err("expected a string key"));
        }
        let (ks, ke) = self.string()?;
        let key: String = serde_json::from_str(&self.text[ks..ke])
            .map_err(|e| self.err(&format!("bad key: {e}")))?;
        self.ws();
        if self.b.get(self.i) != Some(&b':') {
            return Err(self.err("expected ':'"));
        }
        self.i += 1;
        self.ws();
        let value = self.value(depth + 1)?;
        Ok(JMember {
            key,
            key_start: ks,
            value,
        })
    }

    /// `[ value, … ]` from `start` (at the `[`).
    fn array(&mut self, start: usize, depth: usize) -> Result<JNode, JsonSpanError> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Ok(JNode::Array {
                items,
                start,
                end: self.i,
            });
        }
        loop {
            self.ws();
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(JNode::Array {
                        items,
                        start,
                        end: self.i,
                    });
                }
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
    }
}

// ------------------------------------------------------------------ diff

/// A changed line range: first old line, last old line (exclusive), the new lines, the deletions.
type Change = (usize, usize, Vec<String>, Vec<(usize, usize)>);

/// Apply byte deletions (non-overlapping) to `text`.
pub fn apply_deletions(text: &str, dels: &[(usize, usize)]) -> String {
    let mut d = dels.to_vec();
    d.sort();
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for (a, b) in d {
        out.push_str(&text[pos..a]);
        pos = b;
    }
    out.push_str(&text[pos..]);
    out
}

/// A unified diff (3 lines of context) of `text` against `text` with `dels` removed. Lines are
/// shown without their terminators (CRLF files are edited byte-for-byte all the same).
pub fn unified_diff(label: &str, text: &str, dels: &[(usize, usize)]) -> String {
    if dels.is_empty() {
        return String::new();
    }
    let ls = lines(text);
    let line_of = |off: usize| ls.iter().position(|l| off < l.end).unwrap_or(ls.len() - 1);
    let show = |l: &Line| text[l.start..l.content_end].to_string();
    // changes: (first old line, last old line exclusive, new lines)
    let mut d = dels.to_vec();
    d.sort();
    let mut changes: Vec<Change> = Vec::new();
    for (a, b) in d {
        let first = line_of(a);
        let last = line_of(b.saturating_sub(1).max(a));
        match changes.last_mut() {
            Some(c) if first < c.1 => {
                c.1 = c.1.max(last + 1);
                c.3.push((a, b));
            }
            _ => changes.push((first, last + 1, vec![], vec![(a, b)])),
        }
    }
    for c in &mut changes {
        let (s, e) = (ls[c.0].start, ls[c.1 - 1].end);
        let mut kept = String::new();
        let mut pos = s;
        for &(a, b) in &c.3 {
            kept.push_str(&text[pos..a]);
            pos = b;
        }
        kept.push_str(&text[pos..e]);
        c.2 = lines(&kept)
            .iter()
            .map(|l| kept[l.start..l.content_end].to_string())
            .collect();
    }
    const CTX: usize = 3;
    let mut out = format!("--- {label}\n+++ {label}\n");
    let mut delta: isize = 0;
    let mut k = 0;
    while k < changes.len() {
        let mut j = k;
        while j + 1 < changes.len() && changes[j + 1].0 <= changes[j].1 + 2 * CTX {
            j += 1;
        }
        let hs = changes[k].0.saturating_sub(CTX);
        let he = (changes[j].1 + CTX).min(ls.len());
        let mut body = String::new();
        let (mut old_n, mut new_n) = (0usize, 0usize);
        let mut line = hs;
        for c in &changes[k..=j] {
            while line < c.0 {
                body += &format!(" {}\n", show(&ls[line]));
                old_n += 1;
                new_n += 1;
                line += 1;
            }
            for l in &ls[c.0..c.1] {
                body += &format!("-{}\n", show(l));
                old_n += 1;
            }
            for n in &c.2 {
                body += &format!("+{n}\n");
                new_n += 1;
            }
            line = c.1;
        }
        while line < he {
            body += &format!(" {}\n", show(&ls[line]));
            old_n += 1;
            new_n += 1;
            line += 1;
        }
        let old_start = if old_n == 0 { hs } else { hs + 1 };
        let new_start_raw = hs as isize + delta;
        let new_start = if new_n == 0 {
            new_start_raw
        } else {
            new_start_raw + 1
        };
        out += &format!("@@ -{old_start},{old_n} +{new_start},{new_n} @@\n{body}");
        delta += new_n as isize - old_n as isize;
        k = j + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<(String, usize, usize)> {
        let ls = lines(text);
        scan_yaml(text, &ls, 0, ls.len())
            .into_iter()
            .map(|h| (path_string(&h.path), h.line + 1, h.end_line + 1))
            .collect()
    }

    #[test]
    fn scans_nested_mappings_and_sequences() {
        let y = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  spec:\n    replicas: 3 # old\n    template:\n      spec:\n        containers:\n        - name: a\n          env:\n          - name: replicas\n            value: \"3\"\n- kind: Service\n  spec:\n    replicas: 1\n";
        let k = keys(y);
        assert!(
            k.contains(&("items[0].spec.replicas".into(), 7, 8)),
            "{k:?}"
        );
        assert!(
            k.contains(&("items[1].spec.replicas".into(), 17, 18)),
            "{k:?}"
        );
        assert!(k.contains(&(
            "items[0].spec.template.spec.containers[0].env[0].name".into(),
            13,
            14
        )));
        assert!(!k.iter().any(|(p, ..)| p == "spec.replicas"));
    }

    #[test]
    fn skips_block_scalars_and_continuations() {
        let y = "data:\n  x: |\n    spec:\n      replicas: 3\n  y: >-\n    replicas: 4\ndescription: a\n  continued: no\nspec:\n  replicas: 2\n";
        let k = keys(y);
        let paths: Vec<&str> = k.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(
            paths,
            [
                "data",
                "data.x",
                "data.y",
                "description",
                "spec",
                "spec.replicas"
            ]
        );
    }

    #[test]
    fn flow_values_spanning_lines_are_skipped() {
        let y = "spec:\n  args: [a,\n    b: c]\n  replicas: 2\n";
        let k = keys(y);
        assert!(k.contains(&("spec.replicas".into(), 4, 5)), "{k:?}");
        assert_eq!(k.len(), 3);
    }

    #[test]
    fn indentless_sequences_and_crlf() {
        let y = "items:\r\n- kind: A\r\n  spec:\r\n    replicas: 1\r\n- kind: B\r\nspec:\r\n  replicas: 5\r\n";
        let k = keys(y);
        assert!(k.contains(&("items[0].spec.replicas".into(), 4, 5)));
        assert!(k.contains(&("items[1].kind".into(), 5, 6)));
        assert!(k.contains(&("spec.replicas".into(), 7, 8)));
    }

    #[test]
    fn json_member_removal_takes_one_comma() {
        let t = r#"{"a":1,"spec":{"replicas":3,"x":[1,2]},"z":{"replicas":1}}"#;
        let (n, _) = parse_json_spans(t, 0).unwrap();
        let p = [Seg::key("spec")];
        let r = n.member_removal(&p, "replicas").unwrap();
        assert_eq!(
            apply_deletions(t, &[r]),
            r#"{"a":1,"spec":{"x":[1,2]},"z":{"replicas":1}}"#
        );
        let t2 = "{\n  \"spec\": {\n    \"x\": 1,\n    \"replicas\": 3\n  }\n}\n";
        let (n, _) = parse_json_spans(t2, 0).unwrap();
        let r = n.member_removal(&p, "replicas").unwrap();
        assert_eq!(
            apply_deletions(t2, &[r]),
            "{\n  \"spec\": {\n    \"x\": 1\n  }\n}\n"
        );
    }

    #[test]
    fn diff_of_a_removed_line() {
        let t = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let ls = lines(t);
        let d = unified_diff("f.yaml", t, &[(ls[4].start, ls[4].end)]);
        assert_eq!(
            d,
            "--- f.yaml\n+++ f.yaml\n@@ -2,7 +2,6 @@\n b\n c\n d\n-e\n f\n g\n h\n"
        );
    }

    #[test]
    fn comments_and_strings() {
        assert_eq!(strip_comment("3 # x"), "3");
        assert_eq!(strip_comment("'a # b' # c"), "'a # b'");
        assert_eq!(anchor_of("&r 3"), Some("r".into()));
        assert_eq!(anchor_of("!!int &r 3"), Some("r".into()));
        assert_eq!(strip_properties("&a !!map"), "");
    }
}
