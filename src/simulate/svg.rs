//! An SVG chart of a run (`--chart FILE.svg`, `-o svg`): the load, then per configuration the
//! metric the controller saw against its target band, and the desired and Ready replicas with
//! the scale events. Written by hand (a few hundred elements; no plotting crate needed) and
//! downsampled while the run streams, so memory does not grow with the run's length.
//!
//! Every plot is a `<g class="plot">` carrying its axis ranges (`data-x-min`, `data-x-max`,
//! `data-y-min`, `data-y-max`); every line is a `<polyline data-series="...">`.

use std::fmt::Write as _;

use super::engine::TickRecord;
use super::series::{num, secs};

/// Width of the SVG in pixels.
const WIDTH: f64 = 960.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
/// Columns (time buckets) a track keeps at most.
pub const COLUMNS: u64 = 720;

/// One time bucket of a track.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Bucket {
    pub load_max: f64,
    pub metric_max: Option<f64>,
    pub desired_max: i32,
    pub ready_max: usize,
    pub ups: u32,
    pub downs: u32,
}

/// A configuration's run, bucketed for drawing.
#[derive(Debug, Clone)]
pub struct Track {
    per_bucket: u64,
    seen: u64,
    buckets: Vec<Bucket>,
}

impl Track {
    /// A track for a run of `total_ticks`.
    pub fn new(total_ticks: u64) -> Track {
        Track {
            per_bucket: total_ticks.div_ceil(COLUMNS).max(1),
            seen: 0,
            buckets: Vec::with_capacity(COLUMNS.min(total_ticks.max(1)) as usize),
        }
    }

    /// Add a sync; the load drawn is the first load, the metric the first metric.
    pub fn add(&mut self, r: &TickRecord) {
        let i = (self.seen / self.per_bucket) as usize;
        self.seen += 1;
        if i == self.buckets.len() {
            self.buckets.push(Bucket::default());
        }
        let b = &mut self.buckets[i];
        b.load_max = b.load_max.max(r.loads.first().copied().unwrap_or(0.0));
        if let Some(v) = r.metrics.first().and_then(|m| m.value) {
            b.metric_max = Some(b.metric_max.map_or(v, |m| m.max(v)));
        }
        b.desired_max = b.desired_max.max(r.replicas);
        b.ready_max = b.ready_max.max(r.ready);
        match r.replicas.cmp(&r.replicas_before) {
            std::cmp::Ordering::Greater => b.ups += 1,
            std::cmp::Ordering::Less => b.downs += 1,
            std::cmp::Ordering::Equal => {}
        }
    }

    pub fn buckets(&self) -> &[Bucket] {
        &self.buckets
    }
}

/// The target band of the metric drawn: `(lower, target, upper)` in the metric's unit.
pub type Band = (f64, f64, f64);

/// One configuration's panel.
pub struct Panel<'a> {
    pub title: String,
    pub track: &'a Track,
    /// The metric's name and unit (`cpu (%)`).
    pub metric_label: String,
    pub band: Option<Band>,
    /// Events marked on the replicas plot with their label (`history --chart`: each recorded
    /// scale event and its reason).
    pub marks: Vec<Mark>,
}

/// An event marked on a panel's replicas plot: a line at its time, its label beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// Seconds from the chart's start.
    pub seconds: f64,
    pub label: String,
}

/// A round upper bound for an axis: 1, 2 or 5 × 10^k, at least `v`.
pub fn nice_max(v: f64) -> f64 {
    if !(v.is_finite() && v > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * p >= v * (1.0 - 1e-12) {
            return m * p;
        }
    }
    10.0 * p
}

/// Escape text for XML. Control characters (C0 but tab and newline, DEL, C1) are removed:
/// XML 1.0 forbids the C0 ones (the file would not parse), and none has a place in a label.
fn esc(s: &str) -> String {
    s.chars()
        .filter(|&c| !c.is_control() || c == '\t' || c == '\n')
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Geometry of one plot.
struct Plot {
    top: f64,
    height: f64,
    x_max: f64,
    y_max: f64,
}

impl Plot {
    fn x(&self, seconds: f64) -> f64 {
        LEFT + (WIDTH - LEFT - RIGHT) * (seconds / self.x_max).clamp(0.0, 1.0)
    }
    fn y(&self, v: f64) -> f64 {
        self.top + self.height * (1.0 - (v / self.y_max).clamp(0.0, 1.0))
    }

    /// Open the plot's group: frame, y labels, x labels, title.
    fn open(&self, out: &mut String, id: &str, title: &str) {
        let _ = writeln!(
            out,
            r#"<g class="plot" id="{id}" data-x-min="0" data-x-max="{}" data-y-min="0" data-y-max="{}">"#,
            num(self.x_max),
            num(self.y_max)
        );
        let _ = writeln!(
            out,
            r#"<text class="title" x="{LEFT}" y="{:.1}">{}</text>"#,
            self.top - 6.0,
            esc(title)
        );
        let _ = writeln!(
            out,
            r##"<rect class="frame" x="{LEFT}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#999"/>"##,
            self.top,
            WIDTH - LEFT - RIGHT,
            self.height
        );
        for f in [0.0, 0.5, 1.0] {
            let v = self.y_max * f;
            let _ = writeln!(
                out,
                r#"<text class="y-label" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                LEFT - 6.0,
                self.y(v) + 4.0,
                num(v)
            );
        }
        for f in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let t = self.x_max * f;
            let anchor = match f {
                0.0 => "start",
                1.0 => "end",
                _ => "middle",
            };
            let _ = writeln!(
                out,
                r#"<text class="x-label" x="{:.1}" y="{:.1}" text-anchor="{anchor}">+{}</text>"#,
                self.x(t),
                self.top + self.height + 14.0,
                secs(t.round())
            );
        }
    }

    /// A step line through per-bucket values (`None`: a gap).
    fn series(
        &self,
        out: &mut String,
        name: &str,
        color: &str,
        dash: &str,
        values: impl Iterator<Item = Option<f64>>,
        bucket_seconds: f64,
    ) {
        let mut points = String::new();
        for (i, v) in values.enumerate() {
            let Some(v) = v else { continue };
            let (a, b) = (i as f64 * bucket_seconds, (i + 1) as f64 * bucket_seconds);
            let _ = write!(
                points,
                "{:.1},{:.1} {:.1},{:.1} ",
                self.x(a),
                self.y(v),
                self.x(b),
                self.y(v)
            );
        }
        let _ = writeln!(
            out,
            r#"<polyline data-series="{name}" fill="none" stroke="{color}" stroke-width="1.5"{dash} points="{}"/>"#,
            points.trim_end()
        );
    }
}

/// Legend entries under a plot.
fn legend(out: &mut String, y: f64, items: &[(&str, &str)]) {
    let mut x = LEFT;
    for (label, color) in items {
        let _ = writeln!(
            out,
            r#"<rect x="{x:.1}" y="{:.1}" width="10" height="10" fill="{color}"/><text class="legend" x="{:.1}" y="{:.1}">{}</text>"#,
            y - 9.0,
            x + 14.0,
            y,
            esc(label)
        );
        x += 24.0 + 7.0 * label.chars().count() as f64;
    }
}

/// Draw the chart: `title`, the load of `panels[0]`'s track (all configurations share it),
/// then one panel per configuration. `total_seconds` is the run's length.
pub fn render(title: &str, load_label: &str, total_seconds: f64, panels: &[Panel]) -> String {
    let x_max = if total_seconds > 0.0 {
        total_seconds
    } else {
        1.0
    };
    let load_h = 120.0;
    let metric_h = 110.0;
    let replicas_h = 140.0;
    let panel_h = metric_h + replicas_h + 110.0;
    let height = 60.0 + load_h + 60.0 + panel_h * panels.len() as f64;
    let mut out = String::with_capacity(64 * 1024);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(out, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text class="chart-title" x="{LEFT}" y="22" font-size="14" font-weight="bold">{}</text>"#,
        esc(title)
    );
    let Some(first) = panels.first() else {
        out.push_str("</svg>\n");
        return out;
    };
    let bucket_s = x_max / first.track.buckets().len().max(1) as f64;

    // The load, shared by all configurations.
    let load_max = first
        .track
        .buckets()
        .iter()
        .map(|b| b.load_max)
        .fold(0.0, f64::max);
    let p = Plot {
        top: 50.0,
        height: load_h,
        x_max,
        y_max: nice_max(load_max),
    };
    p.open(&mut out, "load", &format!("load: {load_label}"));
    p.series(
        &mut out,
        "load",
        "#4c78a8",
        "",
        first.track.buckets().iter().map(|b| Some(b.load_max)),
        bucket_s,
    );
    out.push_str("</g>\n");

    let mut top = 50.0 + load_h + 60.0;
    // One replica scale for every panel, so that `--compare`'s panels read side by side.
    let replicas_max = panels
        .iter()
        .flat_map(|p| p.track.buckets().iter())
        .map(|b| b.desired_max.max(b.ready_max as i32))
        .max()
        .unwrap_or(0)
        .max(1);
    for (i, panel) in panels.iter().enumerate() {
        let sizes = (metric_h, replicas_h, replicas_max);
        draw_panel(&mut out, i, panel, top, x_max, sizes);
        top += panel_h;
    }
    out.push_str("</svg>\n");
    out
}

/// One configuration: its metric against the target band, then its replicas and scale events.
fn draw_panel(
    out: &mut String,
    index: usize,
    panel: &Panel,
    top: f64,
    x_max: f64,
    (metric_h, replicas_h, replicas_max): (f64, f64, i32),
) {
    let buckets = panel.track.buckets();
    let bucket_s = x_max / buckets.len().max(1) as f64;
    let _ = writeln!(
        out,
        r#"<g class="panel" id="panel-{index}" data-title="{}">"#,
        esc(&panel.title)
    );
    let sizes = (x_max, bucket_s);
    metric_plot(out, index, panel, top, metric_h, sizes);
    let replicas = (top + metric_h + 60.0, replicas_h, replicas_max);
    replicas_plot(out, index, panel, replicas, sizes);
    out.push_str("</g>\n");
}

/// A panel's upper plot: the metric the controller saw against its target and band.
fn metric_plot(
    out: &mut String,
    index: usize,
    panel: &Panel,
    top: f64,
    metric_h: f64,
    (x_max, bucket_s): (f64, f64),
) {
    let buckets = panel.track.buckets();
    let metric_max = buckets
        .iter()
        .filter_map(|b| b.metric_max)
        .fold(panel.band.map_or(0.0, |b| b.2), f64::max);
    let p = Plot {
        top,
        height: metric_h,
        x_max,
        y_max: nice_max(metric_max),
    };
    p.open(
        out,
        &format!("metric-{index}"),
        &format!("{} — {}", panel.title, panel.metric_label),
    );
    if let Some((lo, target, hi)) = panel.band {
        let _ = writeln!(
            out,
            r##"<rect class="band" x="{LEFT}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#54a24b" fill-opacity="0.15"/>"##,
            p.y(hi),
            WIDTH - LEFT - RIGHT,
            (p.y(lo) - p.y(hi)).max(0.5)
        );
        let _ = writeln!(
            out,
            r##"<line class="target" x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#54a24b" stroke-dasharray="4 3"/>"##,
            WIDTH - RIGHT,
            y = p.y(target)
        );
    }
    p.series(
        out,
        "metric",
        "#f58518",
        "",
        buckets.iter().map(|b| b.metric_max),
        bucket_s,
    );
    out.push_str("</g>\n");
    legend(
        out,
        top + metric_h + 30.0,
        &[
            ("metric seen by the controller", "#f58518"),
            ("target and tolerance band", "#54a24b"),
        ],
    );
}

/// A panel's lower plot: desired replicas, Ready pods and the scale events.
fn replicas_plot(
    out: &mut String,
    index: usize,
    panel: &Panel,
    (rtop, replicas_h, replicas_max): (f64, f64, i32),
    (x_max, bucket_s): (f64, f64),
) {
    let buckets = panel.track.buckets();
    let p = Plot {
        top: rtop,
        height: replicas_h,
        x_max,
        y_max: nice_max(replicas_max as f64),
    };
    p.open(out, &format!("replicas-{index}"), "replicas");
    p.series(
        out,
        "desired",
        "#e45756",
        "",
        buckets.iter().map(|b| Some(b.desired_max as f64)),
        bucket_s,
    );
    p.series(
        out,
        "ready",
        "#4c78a8",
        r#" stroke-dasharray="5 3""#,
        buckets.iter().map(|b| Some(b.ready_max as f64)),
        bucket_s,
    );
    // Scale events: ▲ above the plot for scale-ups, ▼ below for scale-downs.
    let mut ups = String::new();
    let mut downs = String::new();
    for (i, b) in buckets.iter().enumerate() {
        let x = p.x((i as f64 + 0.5) * bucket_s);
        if b.ups > 0 {
            let _ = write!(ups, "M{x:.1},{:.1}l-3,6h6z", rtop + 2.0);
        }
        if b.downs > 0 {
            let _ = write!(downs, "M{x:.1},{:.1}l-3,-6h6z", rtop + replicas_h - 2.0);
        }
    }
    let _ = writeln!(
        out,
        r##"<path class="events" data-events="scale-up" d="{ups}" fill="#54a24b"/>"##
    );
    let _ = writeln!(
        out,
        r##"<path class="events" data-events="scale-down" d="{downs}" fill="#72b7b2"/>"##
    );
    marks(out, &p, &panel.marks);
    out.push_str("</g>\n");
    legend(
        out,
        rtop + replicas_h + 30.0,
        &[
            ("desired replicas", "#e45756"),
            ("Ready pods", "#4c78a8"),
            ("scale-up", "#54a24b"),
            ("scale-down", "#72b7b2"),
        ],
    );
}

/// The panel's marks: a dashed line across the plot at each event, its label on one of four
/// rows (so that events a sync apart stay readable), the label again as the line's tooltip.
fn marks(out: &mut String, p: &Plot, marks: &[Mark]) {
    for (i, m) in marks.iter().enumerate() {
        let x = p.x(m.seconds);
        let label = esc(&m.label);
        let _ = writeln!(
            out,
            r##"<g class="mark" data-seconds="{}" data-label="{label}"><line x1="{x:.1}" x2="{x:.1}" y1="{:.1}" y2="{:.1}" stroke="#888" stroke-dasharray="2 2"><title>{label}</title></line><text class="mark-label" x="{:.1}" y="{:.1}" font-size="9">{label}</text></g>"##,
            num(m.seconds),
            p.top,
            p.top + p.height,
            x + 3.0,
            p.top + 11.0 + 10.0 * (i % 4) as f64,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Titles and labels with markup (a custom metric named `q<&"`) give well-formed XML.
    #[test]
    fn titles_and_labels_are_escaped() {
        let mut track = Track::new(2);
        track.add(&TickRecord::default());
        let panel = Panel {
            title: "[a<b] & \"c\"".into(),
            track: &track,
            metric_label: "q<&\"".into(),
            band: None,
            marks: vec![Mark {
                seconds: 1.0,
                label: "1 → 2 <&\"".into(),
            }],
        };
        let svg = render("ns/<web> & \"x\"", "q<&\"", 30.0, &[panel]);
        let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
        for want in ["ns/<web> & \"x\"", "load: q<&\"", "1 → 2 <&\""] {
            assert!(texts.contains(&want), "{want} in {texts:?}");
        }
    }

    #[test]
    fn nice_bounds() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(7.0), 10.0);
        assert_eq!(nice_max(10.0), 10.0);
        assert_eq!(nice_max(11.0), 20.0);
        assert_eq!(nice_max(0.3), 0.5);
        assert_eq!(nice_max(4.8), 5.0);
    }

    #[test]
    fn tracks_bucket_long_runs() {
        let mut t = Track::new(10_000);
        for i in 0..10_000 {
            t.add(&TickRecord {
                replicas_before: 2,
                replicas: if i == 5000 { 3 } else { 2 },
                ..Default::default()
            });
        }
        assert!(t.buckets().len() <= COLUMNS as usize);
        assert_eq!(t.buckets().iter().map(|b| b.ups).sum::<u32>(), 1);
    }
}
