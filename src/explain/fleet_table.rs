//! The fleet table (text and `-o wide`): one row per HPA in kubectl's borderless look, laid out
//! by [`crate::render::columns`] to fit the width ([`ViewOptions::width`]); then the problems, one line each,
//! the notes and a footer.
//!
//! Both keep one line per HPA. Text fits the width: the REASON column is cut to the room the
//! other columns leave, and columns are left out when that is not enough. `-o wide` shows
//! every column and the whole reason and runs past the terminal, as kubectl's wide output
//! does. REASON gives times relative to the evaluation (`in 15s`), not as RFC3339 timestamps.

use super::fleet::FleetItem;
use super::fleet_summary::{causes_text, needs_attention, summary_line};
use crate::cli::{OutputFormat, ViewOptions};
use crate::core::Action;
use crate::diagnose::{Finding, Severity};
use crate::render::columns::{self, Shade, GAP};
use crate::render::layout::{wrap, MIN_WIDTH};

/// The reason keeps at least this many characters when the other columns take the width.
const MIN_REASON: usize = 24;
/// A cut summary keeps at least this many characters; else REASON shows only the rule.
const MIN_SUMMARY: usize = 16;

/// The whole text of the fleet overview of `scope` (`all namespaces`, `namespace shop`): the
/// summary, the table, the problems (per cause; per HPA in `-o wide`), the notes, a footer.
pub fn render(
    items: &[FleetItem],
    view: &ViewOptions,
    all_namespaces: bool,
    notes: &[String],
    scope: &str,
) -> String {
    let width = view.width.max(MIN_WIDTH);
    let summary = summary_line(items, scope, width);
    render_with(items, view, all_namespaces, notes, &summary)
}

/// Whether the rows come from more than one kubeconfig context (the CONTEXT column).
pub fn several_contexts(items: &[FleetItem]) -> bool {
    let mut first = None;
    items.iter().filter_map(|i| i.context.as_deref()).any(|c| {
        let other = first.is_some_and(|f| f != c);
        first.get_or_insert(c);
        other
    })
}

/// [`render`] under a summary of the caller's (the lines of several contexts).
pub fn render_with(
    items: &[FleetItem],
    view: &ViewOptions,
    all_namespaces: bool,
    notes: &[String],
    summary: &str,
) -> String {
    let wide = view.output == OutputFormat::Wide;
    let all_ns = items
        .iter()
        .map(|i| &i.namespace)
        .collect::<std::collections::BTreeSet<_>>()
        .len()
        > 1
        || all_namespaces;
    let contexts = several_contexts(items);
    let width = view.width.max(MIN_WIDTH);
    let mut out = String::new();
    if !view.no_headers {
        out += summary;
        out += "\n";
    }
    // --problems: the summary counts the whole scope, the rest shows the rows that need someone.
    let shown: Vec<FleetItem>;
    let items = match view.problems {
        true => {
            shown = items
                .iter()
                .filter(|i| needs_attention(i))
                .cloned()
                .collect();
            if shown.is_empty() {
                return out + "No HPA needs attention: no warning, none at max, unknown or unable to scale.\n";
            }
            &shown[..]
        }
        false => items,
    };
    let (table, left_out) = table_and_left_out(items, view, Cols { contexts, all_ns });
    out += &table;
    out += &match wide {
        true => problems(items, width),
        false => causes_text(items, width),
    };
    for n in notes {
        out += &wrap(n, width, "note: ", "      ");
    }
    out += &footer(items.len(), wide, width, &left_out, contexts);
    out
}

/// Which of the leading columns a table has: CONTEXT (several contexts), NAMESPACE.
#[derive(Debug, Clone, Copy)]
pub struct Cols {
    pub contexts: bool,
    pub all_ns: bool,
}

/// The column names; REASON is the one before last.
pub fn headers(cols: Cols) -> Vec<&'static str> {
    let mut header = vec![];
    if cols.contexts {
        header.push("CONTEXT");
    }
    if cols.all_ns {
        header.push("NAMESPACE");
    }
    header.extend([
        "HPA",
        "REFERENCE",
        "TARGETS",
        "CURRENT",
        "DESIRED",
        "MIN/MAX",
        "VERDICT",
        "REASON",
        "WARNINGS",
    ]);
    header
}

/// The DESIRED cell. An UNKNOWN verdict computed no count: `-`, and in `-o wide` the value the
/// HPA's status carries, said to be the status's.
fn desired_cell(i: &FleetItem, wide: bool) -> String {
    if i.action == Some(Action::Unknown) {
        return match (wide, i.status_desired_replicas) {
            (true, Some(v)) => format!("{v} (status)"),
            _ => "-".into(),
        };
    }
    match i.desired_range.filter(|r| r.min != r.max) {
        Some(r) => format!("{} ({}–{})", opt(i.desired_replicas), r.min, r.max),
        None => opt(i.desired_replicas),
    }
}

/// The cells of one row, the reason in full.
pub fn cells(i: &FleetItem, cols: Cols, wide: bool) -> Vec<String> {
    let mut r = Vec::new();
    if cols.contexts {
        r.push(i.context.clone().unwrap_or_else(|| "-".into()));
    }
    if cols.all_ns {
        r.push(i.namespace.clone());
    }
    r.extend([
        i.name.clone(),
        format!("{}/{}", i.target.kind, i.target.name)
            + if i.keda_scaled_object.is_some() {
                " (KEDA)"
            } else {
                ""
            },
        super::fleet_targets::cell(&i.targets, wide),
        opt(i.current_replicas),
        desired_cell(i, wide),
        format!("{}/{}", opt(i.min_replicas), opt(i.max_replicas)),
        verdict_word(i),
        reason(i),
        if i.warnings.is_empty() {
            "-".into()
        } else {
            i.warnings.join(",")
        },
    ]);
    r
}

/// `Rule: summary`, or why the HPA could not be evaluated; times relative to the evaluation.
fn reason(i: &FleetItem) -> String {
    let text = match (&i.decided_by, &i.summary, &i.error) {
        (Some(by), Some(s), _) => format!("{by}: {s}"),
        (_, _, Some(e)) => e.clone(),
        _ => String::new(),
    };
    match &i.decision {
        Some(d) => relative_times(&text, d.now),
        None => text,
    }
}

/// Every RFC3339 timestamp of `text` as a time relative to `now`: `in 15s`, `4m45s ago`.
pub fn relative_times(text: &str, now: jiff::Timestamp) -> String {
    let is_stamp_char = |c: char| c.is_ascii_digit() || "-:TZ.+".contains(c);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c.is_ascii_digit()) {
        let (before, from) = rest.split_at(at);
        out += before;
        let len = from.find(|c: char| !is_stamp_char(c)).unwrap_or(from.len());
        let token = from[..len].trim_end_matches(['.', ':', '-', '+']);
        let parsed = (token.len() >= 20 && token.as_bytes().get(10) == Some(&b'T'))
            .then(|| token.parse::<jiff::Timestamp>().ok())
            .flatten();
        match parsed {
            Some(t) => {
                let nanos = t.duration_since(now).as_nanos() as i64;
                let go = |n: i64| crate::duration::format_go_duration(n);
                out += &match nanos {
                    0 => "now".to_string(),
                    n if n > 0 => format!("in {}", go(n)),
                    n => format!("{} ago", go(-n)),
                };
                rest = &from[token.len()..];
            }
            // Not a timestamp: the run (ASCII, at least the digit found) stays as it is.
            None => {
                out += &from[..len];
                rest = &from[len..];
            }
        }
    }
    out + rest
}

/// The reason in `room` characters: whole when it fits, else cut, else only the rule's name
/// when a cut would leave little of the summary.
pub fn short_reason(i: &FleetItem, full: &str, room: usize) -> String {
    if full.chars().count() <= room {
        return full.to_string();
    }
    match &i.decided_by {
        Some(by) if room < by.to_string().chars().count() + 2 + MIN_SUMMARY => {
            truncate(&by.to_string(), room)
        }
        _ => truncate(full, room),
    }
}

/// The characters REASON gets: what the other columns leave of `width`, at least [`MIN_REASON`].
pub fn reason_room(widths: &[usize], reason_col: usize, width: usize) -> usize {
    let others: usize = widths
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != reason_col)
        .map(|(_, w)| w + GAP)
        .sum();
    width.saturating_sub(others + GAP).max(MIN_REASON)
}

/// The widest cell of each column, the header included.
fn column_widths(header: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (k, c) in r.iter().enumerate() {
            widths[k] = widths[k].max(c.chars().count());
        }
    }
    widths
}

/// Columns the text leaves out, in this order, while the table (its REASON cut to the least it
/// keeps) is wider than the terminal; `-o wide` shows every column.
const DROPPABLE: [&str; 5] = ["REFERENCE", "MIN/MAX", "WARNINGS", "TARGETS", "CURRENT"];

/// The columns left out of the text table of `rows` so that it fits `width`.
fn left_out(header: &[&'static str], rows: &[Vec<String>], width: usize) -> Vec<&'static str> {
    let widths = column_widths(header, rows);
    let least = |out: &[&str]| -> usize {
        header
            .iter()
            .zip(&widths)
            .filter(|(h, _)| !out.contains(*h))
            .map(|(h, w)| match *h {
                "REASON" => (*w).min(MIN_REASON),
                _ => w + GAP,
            })
            .sum()
    };
    let mut out = Vec::new();
    for col in DROPPABLE {
        if least(&out) <= width.max(MIN_WIDTH) {
            break;
        }
        out.push(col);
    }
    out
}

/// The rows of `items` (the header unless `--no-headers`), each line ending in a newline.
pub fn table(items: &[FleetItem], view: &ViewOptions, all_ns: bool) -> String {
    let contexts = several_contexts(items);
    table_and_left_out(items, view, Cols { contexts, all_ns }).0
}

/// [`table`], and the columns it left out to fit the width (none in `-o wide`).
fn table_and_left_out(
    items: &[FleetItem],
    view: &ViewOptions,
    cols: Cols,
) -> (String, Vec<&'static str>) {
    let wide = view.output == OutputFormat::Wide;
    let all_header = headers(cols);
    let all_rows: Vec<Vec<String>> = items.iter().map(|i| cells(i, cols, wide)).collect();
    let dropped = if wide {
        Vec::new()
    } else {
        left_out(&all_header, &all_rows, view.width)
    };
    let keep: Vec<bool> = all_header.iter().map(|h| !dropped.contains(h)).collect();
    let kept = |r: Vec<String>| -> Vec<String> {
        r.into_iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(c, _)| c)
            .collect()
    };
    let header: Vec<&str> = all_header
        .iter()
        .copied()
        .filter(|h| !dropped.contains(h))
        .collect();
    let reason_col = header.iter().position(|h| *h == "REASON").unwrap_or(0);
    let mut rows: Vec<Vec<String>> = all_rows.into_iter().map(kept).collect();
    let room = reason_room(&column_widths(&header, &rows), reason_col, view.width);
    if !wide {
        for (r, i) in rows.iter_mut().zip(items) {
            r[reason_col] = short_reason(i, &r[reason_col], room);
        }
    }
    let widths = column_widths(&header, &rows);
    let least: Vec<usize> = widths
        .iter()
        .enumerate()
        .map(|(k, w)| {
            if k == reason_col {
                *w.min(&MIN_REASON)
            } else {
                *w
            }
        })
        .collect();
    let shade: Vec<Option<Shade>> = items
        .iter()
        .map(|i| view.color.then(|| row_shade(i)).flatten())
        .collect();
    let text = columns::write(&header, &rows, &least, &shade, view.no_headers);
    (text, dropped)
}

/// Scale-ups green, scale-downs cyan, what cannot scale red (the terminal's normal shades).
fn row_shade(i: &FleetItem) -> Option<Shade> {
    match i.action {
        Some(Action::ScaleUp) => Some(Shade::Green),
        Some(Action::ScaleDown) => Some(Shade::Cyan),
        Some(Action::CannotScale | Action::Disabled) | None => Some(Shade::Red),
        _ => None,
    }
}

/// The problems of `-o wide`: one line per HPA and problem, with what to do.
fn problems(items: &[FleetItem], width: usize) -> String {
    let problems: Vec<(&FleetItem, &Finding)> = items
        .iter()
        .flat_map(|i| {
            i.diagnostics
                .iter()
                .filter(|f| f.severity != Severity::Info)
                .map(move |f| (i, f))
        })
        .collect();
    let mut out = String::new();
    if !problems.is_empty() {
        out += "\nProblems\n";
        for (i, f) in problems {
            let line = format!(
                "{} [{}] {}: {}",
                super::fleet_summary::qualified_name(i),
                f.severity.as_str(),
                f.id,
                f.message
            );
            out += &wrap(&line, width, "  ", "    ");
            out += &wrap(&f.action, width, "      → ", "        ");
        }
    }
    out
}

fn footer(count: usize, wide: bool, width: usize, left_out: &[&str], contexts: bool) -> String {
    let shows = match left_out {
        [] => "full reasons and what to do".to_string(),
        cols => format!(
            "{} (left out to fit {width} columns), full reasons and what to do",
            cols.join(", ")
        ),
    };
    let text = format!(
        "{} HPA(s); `kubectl hpa explain NAME -n NAMESPACE{}` explains one step by step{}",
        count,
        if contexts { " --context CONTEXT" } else { "" },
        if wide {
            String::new()
        } else {
            format!("; -o wide shows {shows}")
        }
    );
    "\n".to_string() + &wrap(&text, width, "", "")
}

/// The VERDICT column: `SCALE UP 3→5`, `HOLD`, `ERROR` (could not be evaluated).
pub fn verdict_word(i: &FleetItem) -> String {
    match (i.action, i.current_replicas, i.desired_replicas) {
        (Some(Action::ScaleUp), Some(c), Some(d)) => format!("SCALE UP {c}→{d}"),
        (Some(Action::ScaleDown), Some(c), Some(d)) => format!("SCALE DOWN {c}→{d}"),
        (Some(Action::Hold), _, _) => "HOLD".into(),
        (Some(Action::CannotScale), _, _) => "CANNOT SCALE".into(),
        (Some(Action::Disabled), _, _) => "DISABLED".into(),
        (Some(Action::Unknown), _, _) => "UNKNOWN".into(),
        (Some(_), _, _) => "?".into(),
        (None, _, _) => "ERROR".into(),
    }
}

fn opt(v: Option<i32>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

pub use crate::display::cut::truncate;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::fleet::evaluate_snapshot;
    use crate::explain::testing::{example, options, NOW};

    fn web() -> (crate::cli::ExplainOptions, FleetItem) {
        let opts = options(&["--now", NOW, "--snapshot", "x"]);
        let (snap, extras) = example("scale-up-cpu.yaml");
        let item = evaluate_snapshot(
            crate::explain::fleet::Evaluation::of(&opts),
            &snap,
            &extras,
            None,
        )
        .remove(0);
        (opts, item)
    }

    #[test]
    fn the_reason_is_whole_cut_or_only_the_rule() {
        let (_, web) = web();
        let full = reason(&web);
        assert!(
            full.starts_with("MetricProposal: scale up from 3 to 5"),
            "{full}"
        );
        assert_eq!(short_reason(&web, &full, 500), full);
        // Room for the rule and a useful part of the summary: cut.
        let cut = short_reason(&web, &full, 40);
        assert_eq!(cut.chars().count(), 40);
        assert!(cut.ends_with('…') && cut.starts_with("MetricProposal: scale"));
        // Little room: the rule alone.
        assert_eq!(short_reason(&web, &full, 24), "MetricProposal");
        assert_eq!(short_reason(&web, &full, 5), "Metr…");
    }

    #[test]
    fn reason_gets_what_the_other_columns_leave() {
        // Two columns of 10 and 4 beside REASON (column 1): each takes its width and a gap.
        assert_eq!(reason_room(&[10, 50, 4], 1, 100), 100 - (13 + 7 + 3));
        assert_eq!(reason_room(&[10, 50, 4], 1, 20), MIN_REASON);
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }

    #[test]
    fn one_line_per_hpa_in_kubectl_columns() {
        let (mut opts, web) = web();
        assert_eq!(verdict_word(&web), "SCALE UP 3→5");
        let t = table(std::slice::from_ref(&web), &opts.view, false);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 2, "{t}");
        assert!(lines[0].starts_with("HPA   "), "{t}");
        assert!(lines[1].starts_with("web   "), "{t}");
        // The columns line up: each header starts where its cell does.
        let at = |l: &str, w: &str| l.find(w).expect(w);
        assert_eq!(at(lines[0], "VERDICT"), at(lines[1], "SCALE UP"));
        assert!(lines
            .iter()
            .all(|l| l.chars().count() <= 100 && l == &l.trim_end()));
        opts.view.no_headers = true;
        let t = table(std::slice::from_ref(&web), &opts.view, true);
        assert!(t.starts_with("shop        web   "), "{t}");
        assert_eq!(t.lines().count(), 1);
        assert!(!t.contains('\u{1b}'));
        opts.view.color = true;
        let t = table(std::slice::from_ref(&web), &opts.view, true);
        assert!(t.contains("\u{1b}[38;5;2mshop"), "{t:?}");
        assert!(t.ends_with("MetricProposal\u{1b}[39m\n"), "{t:?}");
    }

    #[test]
    fn reasons_give_times_relative_to_the_evaluation() {
        let now: jiff::Timestamp = NOW.parse().expect("now");
        assert_eq!(
            relative_times(
                "earliest scale-down 2026-03-01T12:00:15Z (latest 2026-03-01T12:04:45Z); since 2026-03-01T11:55:30Z.",
                now
            ),
            "earliest scale-down in 15s (latest in 4m45s); since 4m30s ago."
        );
        assert_eq!(relative_times("at 2026-03-01T12:00:00Z", now), "at now");
        let plain = "scale up from 3 to 5: 83% of 60% (1.5 s, 10:30, 2026-03-01)";
        assert_eq!(relative_times(plain, now), plain);
        assert_eq!(relative_times("é 12 ü", now), "é 12 ü");
    }

    #[test]
    fn wide_keeps_one_line_per_hpa_past_the_width() {
        let (mut opts, web) = web();
        opts.view.output = OutputFormat::Wide;
        opts.view.width = 80;
        let t = render(
            std::slice::from_ref(&web),
            &opts.view,
            false,
            &["a note".into()],
            "s",
        );
        let (summary, t) = t.split_once("\n\n").expect("summary first");
        assert_eq!(summary, "s: 1 HPA: 1 scaling up; no problems");
        // The header, then the row: the whole reason on it, past 80 columns.
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[0].starts_with("HPA") && lines[1].starts_with("web "),
            "{t}"
        );
        assert_eq!(lines[2], "note: a note", "{t}");
        assert!(lines[1].chars().count() > 80, "{t}");
        assert!(lines[1].contains(&reason(&web)), "{t}");
        assert!(t.contains("\nnote: a note\n"), "{t}");
        assert!(t.ends_with("explains one step by step\n"), "{t}");
    }
}
