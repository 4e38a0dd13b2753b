//! Borderless aligned columns, kubectl's table look: each cell left-aligned in its column, the
//! columns [`GAP`] spaces apart, no trailing spaces, one line per row.
//!
//! perf: the fleet table of five contexts (2,500 rows, `cargo bench --bench fleet`) was laid out
//! by comfy-table, which splits, measures and pads every cell line by line and then styles it:
//! 31.5 M of the main thread's 196 M instructions, all after the evaluations end (the serial
//! tail). This writer measures each cell once and writes the line straight into the text:
//! about 4 M. The output is byte for byte comfy-table's with the `NOTHING` preset, left
//! alignment, `ContentArrangement::Disabled` and a lower width bound per column (a unit test
//! compares the two, colours and wide characters included).

use unicode_width::UnicodeWidthStr;

/// Spaces after each column.
pub const GAP: usize = 3;

/// A colour for a whole row: the terminal's dark shades, as the fleet table uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shade {
    Green,
    Cyan,
    Red,
}

impl Shade {
    /// The sequence that starts the shade: its 256-colour index (`ESC[38;5;Nm`).
    fn start(self) -> &'static str {
        match self {
            Shade::Red => "\u{1b}[38;5;1m",
            Shade::Green => "\u{1b}[38;5;2m",
            Shade::Cyan => "\u{1b}[38;5;6m",
        }
    }
}

/// Ends a shade: the terminal's default foreground.
const RESET: &str = "\u{1b}[39m";

/// The text of `header` (unless `no_headers`) and `rows`, each line ending in a newline.
/// `least[k]` is the least content width of column `k` (the widest cell wins when wider);
/// `shade[r]` colours row `r`'s cells.
pub fn write(
    header: &[&str],
    rows: &[Vec<String>],
    least: &[usize],
    shade: &[Option<Shade>],
    no_headers: bool,
) -> String {
    let mut widths: Vec<usize> = header
        .iter()
        .zip(least)
        .map(|(h, l)| clamp(h.width()).max(1).max(*l))
        .collect();
    let cell_widths: Vec<Vec<usize>> = rows
        .iter()
        .map(|r| r.iter().map(|c| clamp(c.width())).collect())
        .collect();
    for r in &cell_widths {
        for (k, w) in r.iter().enumerate() {
            widths[k] = widths[k].max(*w);
        }
    }
    let line_len: usize = widths.iter().map(|w| w + GAP).sum::<usize>() + 1;
    let mut out = String::with_capacity(line_len * (rows.len() + 1));
    if !no_headers {
        let measured: Vec<usize> = header.iter().map(|h| clamp(h.width())).collect();
        line(&mut out, header.iter().copied(), &measured, &widths, None);
    }
    for ((r, measured), s) in rows.iter().zip(&cell_widths).zip(shade) {
        line(
            &mut out,
            r.iter().map(String::as_str),
            measured,
            &widths,
            *s,
        );
    }
    out
}

/// comfy-table counts widths in `u16`.
fn clamp(w: usize) -> usize {
    w.min(u16::MAX as usize)
}

/// One row: each cell padded to its column and [`GAP`], shaded as a whole when `shade` says so;
/// then the trailing spaces cut (inside the last shade too).
fn line<'a>(
    out: &mut String,
    cells: impl Iterator<Item = &'a str>,
    measured: &[usize],
    widths: &[usize],
    shade: Option<Shade>,
) {
    let start = out.len();
    let mut end = start;
    for ((c, m), w) in cells.zip(measured).zip(widths) {
        if let Some(s) = shade {
            out.push_str(s.start());
        }
        out.push_str(c);
        end = out.len();
        pad(out, w.saturating_sub(*m) + GAP);
        if shade.is_some() {
            out.push_str(RESET);
        }
    }
    match shade {
        // The last cell's padding sits inside its shade: `…text   ESC[39m` → `…textESC[39m`,
        // unless the cell is empty and the line ends in spaces before the shade began.
        Some(_) => {
            let body = out[start..end].trim_end().len();
            out.truncate(start + body);
            out.push_str(RESET);
        }
        None => {
            let body = out[start..].trim_end().len();
            out.truncate(start + body);
        }
    }
    out.push('\n');
}

fn pad(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use comfy_table::{presets, Cell, Color, ColumnConstraint, ContentArrangement, Table, Width};

    /// The fleet table as comfy-table laid it out before this writer (the oracle).
    fn comfy(
        header: &[&str],
        rows: &[Vec<String>],
        least: &[usize],
        shade: &[Option<Shade>],
        no_headers: bool,
    ) -> String {
        let mut t = Table::new();
        t.load_style(presets::NOTHING)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(header.to_vec());
        for (k, c) in t.column_iter_mut().enumerate() {
            c.set_padding((0, GAP as u16));
            let l = (least[k] + GAP).min(u16::MAX as usize) as u16;
            c.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(l)));
        }
        let colored = shade.iter().any(Option::is_some);
        for (r, s) in rows.iter().zip(shade) {
            let color = s.map(|s| match s {
                Shade::Green => Color::DarkGreen,
                Shade::Cyan => Color::DarkCyan,
                Shade::Red => Color::DarkRed,
            });
            t.add_row(r.iter().map(|c| match color {
                Some(color) => Cell::new(c).fg(color),
                None => Cell::new(c),
            }));
        }
        if colored {
            t.enforce_styling();
        }
        t.lines()
            .skip(usize::from(no_headers))
            .map(|l| {
                let l = match l.trim_end().strip_suffix(RESET) {
                    Some(body) => body.trim_end().to_string() + RESET,
                    None => l.trim_end().to_string(),
                };
                l + "\n"
            })
            .collect()
    }

    fn rows(cells: &[&[&str]]) -> Vec<Vec<String>> {
        cells
            .iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect()
    }

    fn both(header: &[&str], rows: &[Vec<String>], least: &[usize], shade: &[Option<Shade>]) {
        for no_headers in [false, true] {
            let ours = write(header, rows, least, shade, no_headers);
            let theirs = comfy(header, rows, least, shade, no_headers);
            assert_eq!(ours, theirs, "no_headers: {no_headers}");
        }
    }

    #[test]
    fn plain_rows_are_comfy_tables_bytes() {
        let r = rows(&[
            &["shop", "web", "3 → 5", "scale up: cpu 90%/60%"],
            &["default", "a-much-longer-name", "", "holding"],
            &["x", "y", "1", ""],
        ]);
        both(
            &["NAMESPACE", "NAME", "REPLICAS", "REASON"],
            &r,
            &[9, 18, 8, 10],
            &[None; 3],
        );
        // A lower bound wider than every cell widens the column.
        both(&["A", "B"], &rows(&[&["a", "b"]]), &[6, 4], &[None]);
        both(&["A", "B"], &[], &[1, 1], &[]);
    }

    #[test]
    fn shaded_rows_are_comfy_tables_bytes() {
        let r = rows(&[
            &["shop", "web", "scale up"],
            &["shop", "api", "holding"],
            &["shop", "db", ""],
            &["shop", "", "cannot scale"],
        ]);
        let shade = [
            Some(Shade::Green),
            None,
            Some(Shade::Red),
            Some(Shade::Cyan),
        ];
        both(&["NAMESPACE", "NAME", "REASON"], &r, &[4, 3, 7], &shade);
    }

    #[test]
    fn display_widths_are_comfy_tables() {
        // Wide characters take two columns; a combining mark takes none but counts as a
        // character in the lower bound the fleet table computes.
        let r = rows(&[
            &["名前空間", "ウェブ", "e\u{301}te\u{301}"],
            &["ns", "🙂🙂", "plain"],
        ]);
        both(
            &["NAMESPACE", "NAME", "REASON"],
            &r,
            &[4, 3, 6],
            &[None, Some(Shade::Green)],
        );
    }
}
