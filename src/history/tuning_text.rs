//! The tuning as text: what flaps and the change that stops it, a before/after table over the
//! recorded load, and the patch to apply (the YAML and the `kubectl patch` line).

use jiff::SignedDuration;

use super::tuning::{Tuning, TuningOutcome, TuningRun};
use crate::display::fit;
use crate::display::units::duration;
use crate::render::layout::wrap;

/// The tuning of HPA `ns/name` in `width` columns; empty when the HPA does not flap (the
/// headline already says "no flapping").
pub fn render(ns: &str, name: &str, t: &Tuning, width: usize) -> String {
    if t.outcome == TuningOutcome::NoFlapping {
        return String::new();
    }
    let mut out = String::from("\n");
    let (Some(before), Some(after), Some(change), Some(yaml)) =
        (&t.before, &t.after, &t.change, t.patch_yaml())
    else {
        out.push_str(&wrap(&format!("Tuning: {}.", t.message), width, "", "  "));
        return out;
    };
    out.push_str(&wrap(
        &format!(
            "Tuning: {change} removes the flaps. The recorded load re-simulated with the \
             current behavior and with the change ({} or more direction changes within one hour \
             is flapping):",
            t.flapping_threshold_per_hour
        ),
        width,
        "",
        "  ",
    ));
    out.push_str(&table(before, after, width));
    out.push_str(
        "Apply it: save these lines as patch.yaml (or merge them into the HPA's manifest)\n",
    );
    for line in yaml.lines() {
        out.push_str(&fit(&format!("  {line}"), width));
        out.push('\n');
    }
    out.push_str("and run:\n");
    out.push_str(&fit(
        &format!("  kubectl patch hpa {name} -n {ns} --type merge --patch-file patch.yaml"),
        width,
    ));
    out.push('\n');
    out
}

fn secs(s: f64) -> String {
    duration(SignedDuration::from_secs(s.round() as i64))
}

fn table(before: &TuningRun, after: &TuningRun, width: usize) -> String {
    let rows = [
        (
            "flaps/hour",
            format!("{:.1}", before.flaps_per_hour),
            format!("{:.1}", after.flaps_per_hour),
        ),
        (
            "scale events",
            before.scale_events.to_string(),
            after.scale_events.to_string(),
        ),
        (
            "time over target",
            secs(before.over_target_seconds),
            secs(after.over_target_seconds),
        ),
        (
            "time at max",
            secs(before.at_max_seconds),
            secs(after.at_max_seconds),
        ),
    ];
    let w1 = rows.iter().map(|r| r.1.len()).max().unwrap_or(0).max(3);
    let mut out = fit(&format!("  {:16}  {:>w1$}  PROPOSED", "", "NOW"), width);
    out.push('\n');
    for (what, b, a) in rows {
        out.push_str(&fit(&format!("  {what:16}  {b:>w1$}  {a:>8}"), width));
        out.push('\n');
    }
    out
}
