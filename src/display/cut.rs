//! Cutting text to the terminal's width: the one truncation the tables share (the fleet
//! table's cells, history's rows).

/// At most `n` characters, the last one `…` when cut.
pub fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A line of at most `width` characters (the last one `…` when cut), its newline kept; widths
/// below 2 leave it whole.
pub fn fit(line: &str, width: usize) -> String {
    let (body, nl) = match line.strip_suffix('\n') {
        Some(b) => (b, "\n"),
        None => (line, ""),
    };
    if width < 2 {
        return line.to_string();
    }
    truncate(body, width) + nl
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_with_an_ellipsis() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
        assert_eq!(fit("abcdef\n", 4), "abc…\n");
        assert_eq!(fit("abcdef", 1), "abcdef");
        assert_eq!(fit("aé…z", 4), "aé…z");
    }
}
