//! A terminal chart of replicas and load over time, downsampled to a fixed number of columns
//! while the run streams (memory is O(width), whatever the run's length).

use std::fmt::Write as _;

use owo_colors::OwoColorize;

use super::engine::TickRecord;
use super::series::{num, secs};

/// One column of the chart: the ticks it covers, aggregated.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Column {
    pub replicas_max: i32,
    pub ready_max: usize,
    pub load_max: f64,
    pub needed_max: Option<i32>,
}

/// Collects columns from tick records.
#[derive(Debug, Clone)]
pub struct ChartBuilder {
    per_column: u64,
    seen: u64,
    columns: Vec<Column>,
}

impl ChartBuilder {
    /// A chart of at most `width` columns for a run of `total_ticks`.
    pub fn new(total_ticks: u64, width: usize) -> ChartBuilder {
        let width = width.max(10) as u64;
        ChartBuilder {
            per_column: total_ticks.div_ceil(width).max(1),
            seen: 0,
            columns: Vec::with_capacity(width as usize),
        }
    }

    /// Add a tick; the load plotted is the first load.
    pub fn add(&mut self, r: &TickRecord) {
        let i = (self.seen / self.per_column) as usize;
        self.seen += 1;
        if i == self.columns.len() {
            self.columns.push(Column::default());
        }
        let c = &mut self.columns[i];
        c.replicas_max = c.replicas_max.max(r.replicas);
        c.ready_max = c.ready_max.max(r.ready);
        c.load_max = c.load_max.max(r.loads.first().copied().unwrap_or(0.0));
        c.needed_max = match (c.needed_max, r.needed) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }
}

/// Colours of the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hue {
    Green,
    Magenta,
    Blue,
}

const BLOCKS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Draw one panel: `values` as filled columns of `height` rows, scaled to `max`.
///
/// The y-axis labels are right-aligned in `label_w` characters.
#[allow(clippy::too_many_arguments)]
pub fn panel(
    out: &mut String,
    title: &str,
    values: &[f64],
    max: f64,
    height: usize,
    label_w: usize,
    hue: Hue,
    color: bool,
) {
    let max = if max > 0.0 { max } else { 1.0 };
    let _ = writeln!(
        out,
        "{}",
        if color {
            title.bold().to_string()
        } else {
            title.to_string()
        }
    );
    for row in 0..height {
        let label = if row == 0 {
            num(max)
        } else if row + 1 == height {
            "0".to_string()
        } else {
            String::new()
        };
        let mut line = String::with_capacity(values.len() * 3);
        for v in values {
            let eighths = (v / max * (height * 8) as f64).round() as i64;
            let level = (eighths - ((height - 1 - row) * 8) as i64).clamp(0, 8) as usize;
            line.push(BLOCKS[level]);
        }
        let line = if color {
            match hue {
                Hue::Green => line.green().to_string(),
                Hue::Magenta => line.magenta().to_string(),
                Hue::Blue => line.blue().to_string(),
            }
        } else {
            line
        };
        let _ = writeln!(out, "{label:>label_w$} ┤{line}");
    }
}

/// The time axis under panels of `columns` columns covering `total_seconds`.
pub fn axis(out: &mut String, columns: usize, total_seconds: f64, label_w: usize) {
    let _ = writeln!(out, "{:label_w$} └{}", "", "─".repeat(columns));
    let left = "+0s".to_string();
    let mid = format!("+{}", secs((total_seconds / 2.0).round()));
    let right = format!("+{}", secs(total_seconds.round()));
    let mut line = vec![' '; columns + 2];
    let mut put = |pos: usize, s: &str| {
        for (i, ch) in s.chars().enumerate() {
            if let Some(c) = line.get_mut(pos + i) {
                *c = ch;
            }
        }
    };
    put(0, &left);
    if columns > left.len() + mid.len() + right.len() + 4 {
        put((columns / 2).saturating_sub(mid.len() / 2), &mid);
    }
    put((columns + 2).saturating_sub(right.len()), &right);
    let _ = writeln!(
        out,
        "{:label_w$}  {}",
        "",
        line.iter().collect::<String>().trim_end()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downsamples_to_width_and_draws() {
        let mut b = ChartBuilder::new(1000, 50);
        for i in 0..1000 {
            let r = TickRecord {
                replicas: if i < 500 { 2 } else { 8 },
                loads: vec![i as f64],
                ..Default::default()
            };
            b.add(&r);
        }
        assert_eq!(b.columns().len(), 50);
        assert_eq!(b.columns()[0].replicas_max, 2);
        assert_eq!(b.columns()[49].replicas_max, 8);
        let values: Vec<f64> = b.columns().iter().map(|c| c.replicas_max as f64).collect();
        let mut out = String::new();
        panel(&mut out, "replicas", &values, 8.0, 4, 1, Hue::Green, false);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 5);
        assert!(lines[1].starts_with("8 ┤"));
        assert!(lines[1].ends_with(&"█".repeat(25)), "{out}");
        assert!(lines[4].contains(&"█".repeat(50)), "{out}");
    }
}
