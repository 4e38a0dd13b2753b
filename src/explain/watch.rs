//! `explain NAME --watch` (live only): fetch and re-evaluate every sync period, keeping the
//! controller's recommendation history ourselves (each evaluation starts from the previous one's
//! `history.after`), and print a line only when the decision changes. Once one stabilization
//! window has been watched, every recommendation the window holds is one we computed: the answer
//! no longer rests on an assumed history.
//!
//! Text: one line per change. JSON/YAML: one compact JSON object per change (JSON lines).

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};

use crate::cli::{DecideOptions, ExplainOptions, OutputFormat};
use crate::cluster;
use crate::core::{Calculation, Decision, HistoryMode, Rule};
use crate::output::Outcome;
use crate::snapshot::Snapshot;

/// What counts as a change.
#[derive(PartialEq)]
struct Key {
    current: Option<i32>,
    desired: Option<i32>,
    proposal: Option<i32>,
    action: String,
    decided_by: Rule,
}

fn key(d: &Decision) -> Key {
    Key {
        current: d.current_replicas,
        desired: d.desired_replicas,
        proposal: d.proposal,
        action: format!("{:?}", d.verdict.action),
        decided_by: d.verdict.decided_by,
    }
}

/// The metrics in a few words: `cpu 83%/50%`.
fn metrics_brief(d: &Decision) -> String {
    d.metrics
        .iter()
        .map(|m| {
            let name = m
                .description
                .as_deref()
                .and_then(|s| s.split_whitespace().next())
                .unwrap_or(&m.type_)
                .to_string();
            let v = match &m.calculation {
                Some(Calculation::PodAverage {
                    mode,
                    current,
                    target,
                    ratio,
                    ..
                }) if ratio.is_finite() => {
                    if *mode == "Utilization" {
                        format!("{current}%/{target}%")
                    } else {
                        format!(
                            "{}/{}",
                            crate::quantity::format_decimal_si(*current),
                            crate::quantity::format_decimal_si(*target)
                        )
                    }
                }
                Some(Calculation::Value {
                    value_milli,
                    target_milli,
                    ..
                }) => format!(
                    "{}/{}",
                    crate::quantity::format_decimal_si(*value_milli),
                    crate::quantity::format_decimal_si(*target_milli)
                ),
                Some(Calculation::AverageValue {
                    average_milli,
                    target_milli,
                    ..
                }) => format!(
                    "{}/{}",
                    crate::quantity::format_decimal_si(*average_milli),
                    crate::quantity::format_decimal_si(*target_milli)
                ),
                _ => m
                    .error
                    .as_ref()
                    .map(|_| "error".to_string())
                    .unwrap_or_else(|| "-".into()),
            };
            format!("{name} {v}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The longest stabilization window of the decision, in seconds.
fn window_seconds(d: &Decision, decide: &DecideOptions) -> i64 {
    match &d.normalization {
        Some(n) => n
            .stabilization
            .scale_down_window_seconds
            .max(n.stabilization.scale_up_window_seconds.unwrap_or(0)),
        None => decide.settings.downscale_stabilization.as_secs(),
    }
}

/// Write a line now; false when stdout is closed (e.g. `--watch | head -1`): the watch ends.
pub(super) fn out(w: &mut dyn Write, s: &str) -> bool {
    crate::output::write_now(w, s)
}

/// Whether stdout's reader is gone (a pipe whose reader closed reports POLLERR), checked without
/// writing, so a watch that prints only changes still ends when `head -1` has its line.
#[cfg(unix)]
pub(super) fn stdout_closed() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: libc::POLLOUT,
        revents: 0,
    };
    // SAFETY: one valid pollfd, zero timeout; poll only reads and writes that struct.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP) != 0
}

#[cfg(not(unix))]
pub(super) fn stdout_closed() -> bool {
    false
}

/// An error line on stderr; a closed stderr is not a reason to abort.
pub(super) fn err_line(s: &str) {
    crate::output::stderr_line(s);
}

/// The line printed when the decision changes (with -o json|yaml a `WatchEvent`: a JSON object
/// per line, or a YAML document per change).
fn change_line(d: &Decision, format: OutputFormat, complete: bool) -> Result<String> {
    if format.is_document() {
        let event = crate::output::contract::watch_event(d, metrics_brief(d), complete);
        return Ok(crate::output::stream_item(&event, format)?);
    }
    Ok(format!(
        "{}  {} → {}  {:?}  {}: {}  [{}]\n",
        crate::display::units::full_time(d.now),
        d.current_replicas.map_or("-".into(), |v| v.to_string()),
        d.desired_replicas.map_or("-".into(), |v| v.to_string()),
        d.verdict.action,
        d.verdict.decided_by,
        d.verdict.summary,
        metrics_brief(d)
    ))
}

/// Said once, when the watch has seen a whole stabilization window.
fn window_watched(d: &Decision, window: i64) -> String {
    format!(
        "{}  watched one stabilization window ({window}s): the recommendations in the window are all our own — from now on the answer needs no assumption about the controller's history{}\n",
        crate::display::units::full_time(d.now),
        if d.behavior.is_some() {
            " (rate-limit periods still count scale events from before the watch)"
        } else {
            ""
        }
    )
}

/// Run the watch loop; output is written into `w` as it comes (the outcome's text is empty;
/// it says whether some evaluation was our own failure).
pub fn run(
    opts: &ExplainOptions,
    rt: &tokio::runtime::Runtime,
    w: &mut dyn Write,
) -> Result<Outcome> {
    let Some(name) = opts.read.name.clone() else {
        bail!("--watch follows one HPA: kubectl hpa explain NAME -n NAMESPACE --watch");
    };
    if opts.read.all_namespaces {
        bail!("--watch follows one HPA: use NAME -n NAMESPACE, not -A");
    }
    if opts.decide.now.is_some() {
        bail!("--watch evaluates at the time of each fetch; --now cannot be used with it");
    }
    let mut period =
        Duration::from_nanos(opts.decide.settings.sync_period.as_nanos().max(1) as u64);
    // Each request gives up after about one sync period unless --request-timeout says otherwise.
    let conn = rt.block_on(cluster::connect(
        opts.read
            .kube
            .connect_options()
            .with_default_timeout(period, "one sync period"),
    ))?;
    let ns = conn.namespace.clone();
    let json = matches!(opts.view.output, OutputFormat::Json | OutputFormat::Yaml);
    let mut history = opts.decide.history.clone();
    let mut last: Option<Key> = None;
    let mut announced = false;
    let started = Instant::now();
    let mut first_time = None;
    let mut n: u32 = 0;
    let mut own_failure = false;
    // Stays true while stdout is open; a closed reader (`| head -1`) ends the watch.
    let mut open = true;
    if !json {
        open &= out(w, &format!(
            "Watching HPA {ns}/{name} every {} (sync period); a line is printed when the decision changes.\n",
            crate::duration::format_go_duration(opts.decide.settings.sync_period.as_nanos() as i64)
        ));
    }
    loop {
        let tick = Instant::now();
        let result = rt
            .block_on(cluster::fetch_hpa(&conn, &ns, &name))
            .map_err(anyhow::Error::from)
            .and_then(|f| {
                let snap = Snapshot::from_text(&f.list, &format!("cluster {}", conn.context))?;
                let req = super::one::Request {
                    namespace: Some(&ns),
                    name: &name,
                    history: &history,
                };
                super::one::decide(&opts.decide, &snap, req)
            });
        match result {
            Err(e) if n == 0 => return Err(e),
            Err(e) => err_line(&format!(
                "error: {} (retrying at the next sync)",
                format!("{e:#}").replace('\n', " ")
            )),
            Ok(d) => {
                own_failure |= super::one::own_failure(&d);
                open &= retick(w, &d, &mut period, json);
                let first = *first_time.get_or_insert(d.now);
                history = HistoryMode::Watched {
                    history: d.history.after.clone(),
                    since: first,
                };
                let window = window_seconds(&d, &opts.decide);
                let watched = d.now.duration_since(first).as_secs();
                let complete = watched >= window;
                let k = key(&d);
                if last.as_ref() != Some(&k) {
                    open &= out(w, &change_line(&d, opts.view.output, complete)?);
                    last = Some(k);
                }
                if complete && !announced && !json {
                    open &= out(w, &window_watched(&d, window));
                    announced = true;
                }
            }
        }
        n += 1;
        if !open || stdout_closed() {
            return Ok(watched(own_failure));
        }
        if opts.watch.count.is_some_and(|c| n >= c) {
            break;
        }
        std::thread::sleep(period.saturating_sub(tick.elapsed()));
    }
    stopped(w, json, n, started);
    Ok(watched(own_failure))
}

/// A watch's outcome: its output is already written.
pub(super) fn watched(own_failure: bool) -> Outcome {
    Outcome {
        text: String::new(),
        own_failure,
    }
}

/// The watch ticks with the controller: at the sync period of the decision's settings (the
/// cluster's own, when its kube-controller-manager's flags were read; a `--sync-period` given
/// still wins), said in a line when it changes the period. `false`: stdout is closed.
pub(super) fn retick(w: &mut dyn Write, d: &Decision, period: &mut Duration, json: bool) -> bool {
    let synced = Duration::from_nanos(d.settings.sync_period.as_nanos().max(1) as u64);
    let changed = synced != *period;
    *period = synced;
    if !changed || json {
        return true;
    }
    let every = crate::duration::format_go_duration(d.settings.sync_period.as_nanos() as i64);
    out(
        w,
        &format!(
            "The controller's sync period is {every} ({}): watching every {every} instead.\n",
            d.settings
                .sources
                .sync_period_source
                .as_deref()
                .unwrap_or("cluster")
        ),
    )
}

/// The last line of a watch in text: how many evaluations in how long.
pub(super) fn stopped(w: &mut dyn Write, json: bool, n: u32, started: Instant) {
    if !json {
        let line = format!(
            "stopped after {n} evaluation(s) in {:.1}s\n",
            started.elapsed().as_secs_f64()
        );
        let _ = out(w, &line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::testing::{example, options, NOW};

    fn decision(file: &str, name: &str) -> Decision {
        let (snap, _) = example(file);
        super::super::one::decide_from_snapshot(&options(&["--now", NOW]), &snap, name)
            .expect("decides")
    }

    #[test]
    fn a_change_is_a_new_count_or_verdict() {
        let d = decision("scale-up-cpu.yaml", "web");
        let mut e = d.clone();
        e.verdict.summary = "other words".into();
        assert!(key(&d) == key(&e));
        e.desired_replicas = Some(6);
        assert!(key(&d) != key(&e));
    }

    #[test]
    fn the_change_line_in_text_and_json() {
        let d = decision("scale-up-cpu.yaml", "web");
        let text = change_line(&d, OutputFormat::Text, false).expect("text");
        assert!(
            text.starts_with(&format!("{NOW}  3 → 5  ScaleUp  MetricProposal: ")),
            "{text}"
        );
        assert!(
            text.trim_end()
                .ends_with(&format!("[{}]", metrics_brief(&d))),
            "{text}"
        );
        assert!(
            metrics_brief(&d).starts_with("cpu "),
            "{}",
            metrics_brief(&d)
        );
        let json: serde_json::Value =
            serde_json::from_str(&change_line(&d, OutputFormat::Json, true).expect("json"))
                .expect("JSON");
        assert_eq!(json["desiredReplicas"], 5);
        assert_eq!(json["historyComplete"], true);
    }

    #[test]
    fn the_window_to_watch() {
        let d = decision("scale-down-stabilized.yaml", "frontend");
        let opts = options(&[]);
        assert_eq!(window_seconds(&d, &opts.decide), 300);
        let line = window_watched(&d, 300);
        assert!(
            line.contains("(300s)") && line.contains("no assumption"),
            "{line}"
        );
    }
}
