//! Fitting text to a width: word-wrapped prose with a hanging indent, and tables that wrap their
//! cells (comfy-table's dynamic arrangement with a fixed width).

use comfy_table::{presets, ColumnConstraint, ContentArrangement, Table, Width};

/// The width when stdout is not a terminal and `COLUMNS` is not set.
pub const DEFAULT_WIDTH: usize = 100;
/// Narrower than this, tables cannot be laid out sensibly; we lay them out at this width.
pub const MIN_WIDTH: usize = 40;

/// Visible width of a string: characters outside ANSI escape sequences.
pub fn visible_width(s: &str) -> usize {
    let mut n = 0;
    let mut in_escape = false;
    for c in s.chars() {
        match (in_escape, c) {
            (false, '\u{1b}') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, _) => n += 1,
        }
    }
    n
}

/// Word-wrap `text` to `width` columns: the first line starts with `first`, the others with
/// `rest`. A word longer than a line stays whole on its own line.
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut line_has_word = false;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let needed = visible_width(&line) + usize::from(line_has_word) + visible_width(word);
        if line_has_word && needed > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line = rest.to_string();
            line_has_word = false;
        }
        if line_has_word {
            line.push(' ');
        }
        line.push_str(word);
        line_has_word = true;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// A table that fits `width` columns, wrapping its cells.
pub fn table(headers: &[&str], width: usize) -> Table {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width.clamp(MIN_WIDTH, u16::MAX as usize) as u16)
        .set_header(headers.to_vec());
    t
}

/// Build a table from rows, keeping words whole when the longest word of every column fits the
/// width (comfy-table otherwise splits words to share the width out).
pub fn table_of(headers: &[&str], rows: Vec<Vec<String>>, width: usize) -> Table {
    let mut t = table(headers, width);
    let mut longest: Vec<usize> = headers.iter().map(|h| longest_word(h)).collect();
    for r in &rows {
        for (k, c) in r.iter().enumerate() {
            if let Some(l) = longest.get_mut(k) {
                *l = (*l).max(longest_word(c));
            }
        }
    }
    // Each column has a border and a space on each side. Keep words whole, the shortest columns
    // first (a split "proposal" helps nobody), while every column still gets a few characters.
    let width = width.max(MIN_WIDTH);
    let mut used = 1 + 6 * longest.len();
    let mut order: Vec<(usize, &usize)> = longest.iter().enumerate().collect();
    order.sort_by_key(|(_, l)| **l);
    for (k, l) in order {
        let extra = l.saturating_sub(3);
        if used + extra > width {
            break;
        }
        used += extra;
        if let Some(col) = t.column_mut(k) {
            // The boundary counts the padding (one space each side).
            let w = (*l + 2).min(u16::MAX as usize) as u16;
            col.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(w)));
        }
    }
    for r in rows {
        t.add_row(r);
    }
    t
}

fn longest_word(s: &str) -> usize {
    s.split_whitespace()
        .map(|w| w.chars().count())
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_within_the_width_with_a_hanging_indent() {
        let s = wrap("aaa bbb ccc ddd eee", 10, "  - ", "    ");
        assert_eq!(s, "  - aaa\n    bbb\n    ccc\n    ddd\n    eee\n");
        for l in s.lines() {
            assert!(l.len() <= 10);
        }
        let s = wrap("a verylongtokenthatcannotbreak b", 10, "", "  ");
        assert_eq!(s, "a\n  verylongtokenthatcannotbreak\n  b\n");
    }

    #[test]
    fn escapes_do_not_count() {
        assert_eq!(visible_width("\u{1b}[1mabc\u{1b}[0m"), 3);
    }

    #[test]
    fn words_stay_whole_when_they_can() {
        let rows = vec![vec![
            "reviews-7c9d8f6b5d-2xkqp".to_string(),
            "word ".repeat(30),
        ]];
        let t = table_of(&["pod", "why"], rows, 50).to_string();
        assert!(t.contains("reviews-7c9d8f6b5d-2xkqp"), "{t}");
        for l in t.lines() {
            assert!(l.chars().count() <= 50, "{l}");
        }
    }

    #[test]
    fn tables_fit() {
        let mut t = table(&["a", "b"], 40);
        t.add_row(vec!["x".repeat(10), "word ".repeat(20)]);
        for l in t.to_string().lines() {
            assert!(l.chars().count() <= 40, "{l}");
        }
    }
}
