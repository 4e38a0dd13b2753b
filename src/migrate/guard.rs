//! The guard to add around a template's `replicas:` line, as advice: the template with the guard
//! applied and the unified diff between the two (three lines of context, like the manifest
//! edits' diffs). Templates are never edited on disk.
//!
//! The guard keeps the template's own style: its lines are indented like the `replicas:` line,
//! and take the whitespace control of the nearest block action of the file (`{{- if … }}` when
//! the surrounding `if`/`with`/`range`/`end` lines trim on the left, `{{ if … -}}` when they trim
//! on the right; both trims would glue the lines together, so that becomes a left trim). It wraps
//! the `replicas:` line and only what goes with it: the lines of its value, indented deeper.

use super::text;

/// A suggested guard: the snippet, the template with it applied, and the diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The guard and the lines it wraps, as they would read in the template.
    pub snippet: String,
    /// The whole template with the guard applied.
    pub patched: String,
    /// A unified diff of the template against `patched`.
    pub diff: String,
}

/// The block words whose action lines set a file's whitespace style.
const BLOCK_WORDS: &[&str] = &["if", "else", "end", "with", "range"];

/// `(left, right)` trims of a line that holds only a block action (`{{- if … }}`).
fn block_style(line: &str) -> Option<(bool, bool)> {
    let t = line.trim();
    let inner = t.strip_prefix("{{")?.strip_suffix("}}")?;
    if inner.contains("{{") || inner.contains("}}") {
        return None;
    }
    let left = inner.starts_with('-');
    let right = inner.ends_with('-');
    let word = inner
        .trim_matches(|c: char| c == '-' || c.is_whitespace())
        .split_whitespace()
        .next()?;
    BLOCK_WORDS.contains(&word).then_some((left, right))
}

/// The opening and closing delimiters the guard's two lines use.
fn delimiters(lines: &[&str], at: usize) -> (&'static str, &'static str) {
    let nearest = (0..lines.len())
        .filter(|&i| i != at)
        .filter_map(|i| block_style(lines[i]).map(|s| (i.abs_diff(at), s)))
        .min_by_key(|(d, _)| *d)
        .map(|(_, s)| s);
    match nearest {
        Some((false, true)) => ("{{ ", " -}}"),
        Some((false, false)) => ("{{ ", " }}"),
        _ => ("{{- ", " }}"),
    }
}

/// The guard `{{- if not COND }}` … `{{- end }}` around line `line` (1-based) of `template`.
/// `None` when the line is not in the template.
pub fn guard(file: &str, template: &str, line: usize, cond: &str) -> Option<Guard> {
    let ls = text::lines(template);
    let at = line.checked_sub(1).filter(|&i| i < ls.len())?;
    let shown: Vec<&str> = ls
        .iter()
        .map(|l| &template[l.start..l.content_end])
        .collect();
    let indent_of = |s: &str| s.len() - s.trim_start().len();
    let ind = indent_of(shown[at]);
    // the value's own lines (`replicas:` then a deeper-indented value) go with it
    let mut last = at;
    while last + 1 < shown.len()
        && !shown[last + 1].trim().is_empty()
        && indent_of(shown[last + 1]) > ind
    {
        last += 1;
    }
    let pad = &shown[at][..ind];
    let (open, close) = delimiters(&shown, at);
    let head = format!("{pad}{open}if not {cond}{close}");
    let tail = format!("{pad}{open}end{close}");
    let eol = if template[ls[at].content_end..ls[at].end].starts_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut patched = String::with_capacity(template.len() + head.len() + tail.len() + 4);
    patched.push_str(&template[..ls[at].start]);
    patched.push_str(&head);
    patched.push_str(eol);
    patched.push_str(&template[ls[at].start..ls[last].content_end]);
    patched.push_str(eol);
    patched.push_str(&tail);
    patched.push_str(&template[ls[last].content_end..]);
    let mut snippet = vec![head.clone()];
    snippet.extend(shown[at..=last].iter().map(|s| s.to_string()));
    snippet.push(tail.clone());
    Some(Guard {
        snippet: snippet.join("\n"),
        patched,
        diff: insertion_diff(file, &shown, at, last, &head, &tail),
    })
}

/// The unified diff of inserting `head` before line `at` and `tail` after line `last`.
fn insertion_diff(
    file: &str,
    shown: &[&str],
    at: usize,
    last: usize,
    head: &str,
    tail: &str,
) -> String {
    const CTX: usize = 3;
    let from = at.saturating_sub(CTX);
    let to = (last + 1 + CTX).min(shown.len());
    let mut body = String::new();
    for l in &shown[from..at] {
        body += &format!(" {l}\n");
    }
    body += &format!("+{head}\n");
    for l in &shown[at..=last] {
        body += &format!(" {l}\n");
    }
    body += &format!("+{tail}\n");
    for l in &shown[last + 1..to] {
        body += &format!(" {l}\n");
    }
    let old = to - from;
    format!(
        "--- {file}\n+++ {file}\n@@ -{},{old} +{},{} @@\n{body}",
        from + 1,
        from + 1,
        old + 2
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: {{ .Values.replicaCount }}\n  {{- with .Values.strategy }}\n  strategy: {{ toYaml . | nindent 4 }}\n  {{- end }}\n  selector:\n    matchLabels: {app: web}\n";

    #[test]
    fn the_diff_wraps_the_line_in_the_files_own_style() {
        let g = guard("t/d.yaml", DEPLOY, 4, ".Values.autoscaling.enabled").unwrap();
        assert_eq!(
            g.diff,
            "--- t/d.yaml\n+++ t/d.yaml\n@@ -1,7 +1,9 @@\n apiVersion: apps/v1\n kind: Deployment\n spec:\n+  {{- if not .Values.autoscaling.enabled }}\n   replicas: {{ .Values.replicaCount }}\n+  {{- end }}\n   {{- with .Values.strategy }}\n   strategy: {{ toYaml . | nindent 4 }}\n   {{- end }}\n"
        );
        assert_eq!(
            g.patched,
            DEPLOY.replace(
                "  replicas: {{ .Values.replicaCount }}\n",
                "  {{- if not .Values.autoscaling.enabled }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}\n"
            )
        );
        assert_eq!(
            g.snippet,
            "  {{- if not .Values.autoscaling.enabled }}\n  replicas: {{ .Values.replicaCount }}\n  {{- end }}"
        );
    }

    #[test]
    fn right_trims_no_trims_crlf_and_a_value_on_its_own_lines() {
        let right = "spec:\n  {{ if .Values.x -}}\n  paused: true\n  {{ end -}}\n  replicas: 3\n  selector: {}\n";
        let g = guard("f", right, 5, "(.Values.hpa).enabled").unwrap();
        assert!(
            g.patched.contains(
                "  {{ if not (.Values.hpa).enabled -}}\n  replicas: 3\n  {{ end -}}\n  selector"
            ),
            "{}",
            g.patched
        );
        let both = "spec:\n{{- if .Values.x -}}\n{{- end -}}\n  replicas: 3\n";
        let g = guard("f", both, 4, ".Values.a").unwrap();
        assert!(g
            .patched
            .ends_with("  {{- if not .Values.a }}\n  replicas: 3\n  {{- end }}\n"));
        let none = "spec:\n  {{ if .Values.x }}\n  {{ end }}\n  replicas: 3\n";
        let g = guard("f", none, 4, ".Values.a").unwrap();
        assert!(g
            .patched
            .ends_with("  {{ if not .Values.a }}\n  replicas: 3\n  {{ end }}\n"));
        let crlf = "spec:\r\n  replicas:\r\n    {{ .Values.n }}\r\n  selector: {}\r\n";
        let g = guard("f", crlf, 2, ".Values.a").unwrap();
        assert_eq!(
            g.patched,
            "spec:\r\n  {{- if not .Values.a }}\r\n  replicas:\r\n    {{ .Values.n }}\r\n  {{- end }}\r\n  selector: {}\r\n"
        );
        assert!(g.diff.contains("@@ -1,4 +1,6 @@\n spec:\n+  {{- if not .Values.a }}\n   replicas:\n     {{ .Values.n }}\n+  {{- end }}\n   selector: {}\n"), "{}", g.diff);
        // the last line of a file without a final newline
        let g = guard("f", "spec:\n  replicas: 3", 2, ".Values.a").unwrap();
        assert_eq!(
            g.patched,
            "spec:\n  {{- if not .Values.a }}\n  replicas: 3\n  {{- end }}"
        );
        assert!(guard("f", "spec:\n", 9, ".Values.a").is_none());
    }
}
