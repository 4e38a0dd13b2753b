//! `explain -A --watch` / `explain -n NS --watch` (live only), like `kubectl get -w`: the fleet is
//! fetched and re-evaluated every sync period; the table is printed once, then a row each time an
//! HPA's decision changes. Each HPA keeps its own recommendation history, as `explain NAME
//! --watch` does (each evaluation starts from the previous one's `history.after`).
//!
//! Text: the rows (no header after the first table). JSON/YAML: one compact fleet item per
//! change (JSON lines), the same item as in `-o json`'s `items`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::Result;
use jiff::Timestamp;

use super::fleet::{evaluate_fetched_with, FleetItem};
use super::watch::{err_line, out, stdout_closed};
use crate::cli::{ExplainOptions, OutputFormat, ViewOptions};
use crate::cluster;
use crate::core::{Action, DesiredRange, HistoryMode, Rule};

/// What counts as a change of a row: the replicas, the verdict and the warnings (not the
/// summary's words, which follow every move of the metrics).
#[derive(Debug, Clone, PartialEq)]
struct RowKey {
    current: Option<i32>,
    desired: Option<i32>,
    range: Option<DesiredRange>,
    min_max: (Option<i32>, Option<i32>),
    action: Option<Action>,
    decided_by: Option<Rule>,
    warnings: Vec<String>,
    error: bool,
}

fn row_key(i: &FleetItem) -> RowKey {
    RowKey {
        current: i.current_replicas,
        desired: i.desired_replicas,
        range: i.desired_range,
        min_max: (i.min_replicas, i.max_replicas),
        action: i.action,
        decided_by: i.decided_by,
        warnings: i.warnings.clone(),
        error: i.error.is_some(),
    }
}

/// The state of a fleet watch: each HPA's last printed row and its memory.
#[derive(Debug, Default)]
pub struct FleetWatch {
    shown: BTreeMap<(String, String), RowKey>,
    memory: BTreeMap<(String, String), (History, Timestamp)>,
}

type History = crate::core::History;

impl FleetWatch {
    /// The memory we kept for this HPA (None before its first evaluation: `--history` then).
    pub fn memory(&self, namespace: &str, name: &str) -> Option<HistoryMode> {
        self.memory
            .get(&(namespace.to_string(), name.to_string()))
            .map(|(history, since)| HistoryMode::Watched {
                history: history.clone(),
                since: *since,
            })
    }

    /// Take in one evaluation: keep each HPA's memory and return the rows that changed (every
    /// row the first time).
    pub fn observe(&mut self, items: &[FleetItem]) -> Vec<FleetItem> {
        let mut changed = Vec::new();
        for i in items {
            let k = (i.namespace.clone(), i.name.clone());
            if let Some(d) = &i.decision {
                let since = self.memory.get(&k).map_or(d.now, |(_, s)| *s);
                self.memory
                    .insert(k.clone(), (d.history.after.clone(), since));
            }
            let row = row_key(i);
            if self.shown.get(&k) != Some(&row) {
                self.shown.insert(k, row);
                changed.push(i.clone());
            }
        }
        changed
    }
}

/// The lines for the changed rows: table rows (the header only the first time) or JSON lines.
pub fn change_lines(
    view: &ViewOptions,
    all_namespaces: bool,
    changed: &[FleetItem],
    first: bool,
) -> Result<String> {
    let mut changed = match &view.sort_by {
        Some(key) => key.sorted(changed),
        None => changed.to_vec(),
    };
    if view.problems {
        changed.retain(super::fleet_summary::needs_attention);
    }
    if let Some(crate::cli::Select::CustomColumns(c)) = &view.select {
        let items: Vec<serde_json::Value> = changed
            .iter()
            .filter_map(|i| serde_json::to_value(i).ok())
            .collect();
        return Ok(match items.is_empty() {
            true => String::new(),
            false => c.render_items(&items, first),
        });
    }
    if view.output.is_document() {
        let mut s = String::new();
        for i in &changed {
            let event = crate::output::contract::fleet_watch_event(i);
            s += &crate::output::stream_item(&event, view.output)?;
        }
        return Ok(s);
    }
    if changed.is_empty() {
        return Ok(String::new());
    }
    let table = super::fleet_table::table(&changed, view, all_namespaces);
    // The header once, on the first table (unless --no-headers already left it out).
    Ok(match first || view.no_headers {
        true => table,
        false => table
            .split_once('\n')
            .map(|(_, rows)| rows.to_string())
            .unwrap_or_default(),
    })
}

/// Run the fleet watch; output is written as it comes (the returned string is empty).
pub fn run(
    opts: &ExplainOptions,
    rt: &tokio::runtime::Runtime,
    w: &mut dyn std::io::Write,
) -> Result<crate::output::Outcome> {
    let mut period =
        Duration::from_nanos(opts.decide.settings.sync_period.as_nanos().max(1) as u64);
    let conn = rt.block_on(cluster::connect(&opts.read.kube))?;
    let ns = (!opts.read.all_namespaces).then(|| conn.namespace.clone());
    let json = matches!(opts.view.output, OutputFormat::Json | OutputFormat::Yaml);
    let mut state = FleetWatch::default();
    let started = Instant::now();
    let mut n: u32 = 0;
    let mut own_failure = false;
    let mut open = true;
    if !json {
        open &= out(w, &format!(
            "Watching the HPAs of {} every {} (sync period); a row is printed when its decision changes.\n",
            ns.as_deref().map_or("all namespaces".to_string(), |n| format!("namespace {n}")),
            crate::duration::format_go_duration(opts.decide.settings.sync_period.as_nanos() as i64)
        ));
    }
    loop {
        let tick = Instant::now();
        let result = rt
            .block_on(cluster::fetch_fleet(
                &conn,
                ns.as_deref(),
                &cluster::Progress::off(),
            ))
            .map_err(anyhow::Error::from)
            .and_then(|f| {
                evaluate_fetched_with(
                    crate::explain::fleet::Evaluation::of(opts),
                    &conn.context,
                    f,
                    &|ns, name| state.memory(ns, name),
                )
            });
        match result {
            Err(e) if n == 0 => return Err(e),
            Err(e) => err_line(&format!(
                "error: {} (retrying at the next sync)",
                format!("{e:#}").replace('\n', " ")
            )),
            Ok(items) => {
                own_failure |= super::fleet::own_failure(&items);
                if n == 0 && items.is_empty() && !json {
                    open &= out(w, "No HorizontalPodAutoscalers found yet; a row is printed when one appears.\n");
                }
                let changed = state.observe(&items);
                open &= out(
                    w,
                    &change_lines(&opts.view, opts.read.all_namespaces, &changed, n == 0)?,
                );
                // Tick with the controller: its sync period, read from the cluster (the same
                // settings for every HPA), as `explain NAME --watch` does.
                if let Some(d) = items.iter().find_map(|i| i.decision.as_ref()) {
                    open &= super::watch::retick(w, d, &mut period, json);
                }
            }
        }
        n += 1;
        if !open || stdout_closed() {
            return Ok(super::watch::watched(own_failure));
        }
        if opts.watch.count.is_some_and(|c| n >= c) {
            break;
        }
        std::thread::sleep(period.saturating_sub(tick.elapsed()));
    }
    super::watch::stopped(w, json, n, started);
    Ok(super::watch::watched(own_failure))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::fleet::evaluate_snapshot;
    use crate::explain::testing::{example, options, NOW};

    fn items(opts: &ExplainOptions) -> Vec<FleetItem> {
        let mut all = Vec::new();
        for f in ["scale-up-cpu.yaml", "hold-within-tolerance.yaml"] {
            let (snap, extras) = example(f);
            all.extend(evaluate_snapshot(
                crate::explain::fleet::Evaluation::of(opts),
                &snap,
                &extras,
                None,
            ));
        }
        all
    }

    #[test]
    fn every_row_first_then_only_the_changed_ones() {
        let opts = options(&["--now", NOW]);
        let mut w = FleetWatch::default();
        let first = items(&opts);
        assert_eq!(w.observe(&first).len(), 2);
        assert!(w.observe(&first).is_empty());
        // A new summary alone (the metrics moved a little) is no change.
        let mut again = first.clone();
        again[0].summary = Some("other words".into());
        assert!(w.observe(&again).is_empty());
        again[1].desired_replicas = Some(7);
        let changed = w.observe(&again);
        assert_eq!(changed.len(), 1);
        assert_eq!(changed[0].name, again[1].name);
    }

    #[test]
    fn each_hpa_keeps_its_memory_from_its_first_evaluation() {
        let opts = options(&["--now", NOW]);
        let mut w = FleetWatch::default();
        assert_eq!(w.memory("shop", "web"), None);
        let first = items(&opts);
        w.observe(&first);
        let d = first[1].decision.as_ref().expect("decided");
        match w.memory(&first[1].namespace, &first[1].name) {
            Some(HistoryMode::Watched { history, since }) => {
                assert_eq!(history, d.history.after);
                assert_eq!(since, d.now);
            }
            m => panic!("{m:?}"),
        }
        // A later evaluation keeps the first time.
        let mut later = first.clone();
        if let Some(d) = later[1].decision.as_mut() {
            d.now += jiff::SignedDuration::from_secs(15);
        }
        w.observe(&later);
        let Some(HistoryMode::Watched { since, .. }) = w.memory("shop", &first[1].name) else {
            panic!("no memory");
        };
        assert_eq!(since, d.now);
    }

    #[test]
    fn the_header_once_and_json_lines() {
        let mut opts = options(&["--now", NOW, "--sort-by", ".desiredReplicas"]);
        let rows = items(&opts);
        let first = change_lines(&opts.view, opts.read.all_namespaces, &rows, true).expect("text");
        assert!(first.starts_with("HPA "), "{first}");
        // Sorted: api (4 desired) before web (5).
        assert!(first.find("\napi ").expect("api") < first.find("\nweb ").expect("web"));
        let later =
            change_lines(&opts.view, opts.read.all_namespaces, &rows[..1], false).expect("text");
        assert!(later.starts_with("web "), "{later}");
        assert_eq!(
            change_lines(&opts.view, opts.read.all_namespaces, &[], false).expect("none"),
            ""
        );
        opts.view.output = OutputFormat::Json;
        let json = change_lines(&opts.view, opts.read.all_namespaces, &rows, true).expect("json");
        let lines: Vec<serde_json::Value> = json
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["name"], "api");
        assert_eq!(lines[1]["desiredReplicas"], 5);
    }
}
