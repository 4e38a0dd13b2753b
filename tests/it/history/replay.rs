//! `kubectl hpa history --prometheus` (issue 31 item 2): the controller replayed over series a
//! known scenario wrote. Our own `simulate` run decides the scenario (the demand steps from 0.75
//! to 4 cores at +20m and back to 1 core at +60m on examples/scale-up-cpu.yaml); this file writes
//! what kube-state-metrics and cAdvisor would have recorded of that run, plus one manual scale at
//! +85m (the replicas moved to 8 while the HPA's desired replicas stayed 4).
//!
//! As in `simulate_backtest.rs`, each test runs against the in-process stand-in serving answers
//! recorded from a real Prometheus (`recorded::`, the default run) and, `#[ignore]`d, against a
//! real Prometheus backfilled with these series (`real::`; `.ci/run` runs them with
//! `-- --ignored`; `RECORD_PROMETHEUS=1` re-records the answers).

use std::fmt::Write as _;

use jiff::Timestamp;
use serde_json::Value;

use crate::support::binary::{cmd, example, ok, ok_json, tmpdir};
use crate::support::prometheus::{prometheus, recording_requested, PromStandin};

const T0: &str = "2026-11-01T00:00:00Z";
pub(super) const TO: &str = "2026-11-01T01:39:45Z";
/// The sync at which the replicas are moved by hand (+85m).
const MANUAL_TICK: usize = 340;

/// One sync of the simulated run (its CSV row).
pub(super) struct Tick {
    pub offset: i64,
    pub load: f64,
    pub before: i32,
    pub after: i32,
    pub ready: i32,
    pub over_target: bool,
}

pub(super) fn t0() -> i64 {
    T0.parse::<Timestamp>().unwrap().as_second()
}

/// The scenario's decisions: `simulate` over the demand, one row per 15 s sync.
pub(super) fn scenario() -> Vec<Tick> {
    simulated(
        &example("scale-up-cpu.yaml"),
        "time,value\n0,0.75\n1200,4\n3600,1\n6000,1\n",
        "100m",
    )
}

/// `simulate` of HPA shop/web in `snap` over the CPU demand `csv` (step interpolation) for
/// `minutes`, from T0: one row per sync.
pub(super) fn simulated(snap: &std::path::Path, csv: &str, minutes: &str) -> Vec<Tick> {
    let dir = tmpdir("history-replay");
    let demand = dir.join("demand.csv");
    std::fs::write(&demand, csv).unwrap();
    let load = format!("cpu=csv:{}", demand.display());
    let out = cmd(
        &[
            "simulate",
            "web",
            "-n",
            "shop",
            "--snapshot",
            snap.to_str().unwrap(),
            "--demand",
            &load,
            "--interpolation",
            "step",
            "--duration",
            minutes,
            "--now",
            T0,
            "-o",
            "csv",
        ],
        None,
    )
    .output()
    .unwrap();
    let text = ok(&out, "simulate");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (o, l, b, a, r, x) = (
        col("offset_seconds"),
        col("load_cpu"),
        col("replicas_before"),
        col("replicas"),
        col("ready"),
        col("over_target"),
    );
    lines
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            Tick {
                offset: f[o].parse::<f64>().unwrap() as i64,
                load: f[l].parse().unwrap(),
                before: f[b].parse().unwrap(),
                after: f[a].parse().unwrap(),
                ready: f[r].parse().unwrap(),
                over_target: f[x] == "true",
            }
        })
        .collect()
}

/// One recorded sync: (offset, load, replicas, desired replicas, Ready pods).
type Row = (i64, f64, i32, i32, i32);

/// The rows kube-state-metrics and cAdvisor would have recorded of `ticks`, from 10 minutes
/// before T0 (the replay's lead reads the syncs before the window).
pub(super) fn rows(ticks: &[Tick]) -> Vec<Row> {
    let first = &ticks[0];
    let mut rows: Vec<Row> = (1..=40)
        .rev()
        .map(|i| (-15 * i, first.load, first.before, first.before, first.ready))
        .collect();
    rows.extend(
        ticks
            .iter()
            .map(|t| (t.offset, t.load, t.before, t.after, t.ready)),
    );
    rows
}

/// What kube-state-metrics and cAdvisor would have recorded of `ticks`, with the manual scale
/// injected.
fn openmetrics(ticks: &[Tick]) -> String {
    let mut rows = rows(ticks);
    // The manual scale: the replicas are 8 at this sync (and its pods Ready), the HPA's desired
    // replicas the 4 it wrote before; the controller then scales back to 4.
    let m = 40 + MANUAL_TICK;
    assert_eq!(
        (rows[m].2, rows[m].3),
        (4, 4),
        "the scenario is steady at +85m"
    );
    rows[m].2 = 8;
    rows[m].4 = 8;
    series(&rows)
}

/// The OpenMetrics text of `rows` (what `promtool tsdb create-blocks-from openmetrics` reads).
pub(super) fn series(rows: &[Row]) -> String {
    let mut s = String::new();
    let hpa = "namespace=\"shop\",horizontalpodautoscaler=\"web\"";
    for (name, pick) in [
        (
            "kube_horizontalpodautoscaler_status_desired_replicas",
            3usize,
        ),
        ("kube_horizontalpodautoscaler_status_current_replicas", 2),
        ("kube_horizontalpodautoscaler_spec_min_replicas", 10),
        ("kube_horizontalpodautoscaler_spec_max_replicas", 11),
    ] {
        let _ = writeln!(s, "# TYPE {name} gauge");
        for r in rows {
            let v = match pick {
                2 => r.2,
                3 => r.3,
                10 => 2,
                _ => 10,
            };
            let _ = writeln!(s, "{name}{{{hpa}}} {v} {}", t0() + r.0);
        }
    }
    let pod = |i: usize| format!("web-6d8f7b9c54-p{i:04}");
    let _ = writeln!(s, "# TYPE kube_pod_status_ready gauge");
    for i in 0..10 {
        for r in rows {
            let v = i32::from((i as i32) < r.4);
            let _ = writeln!(
                s,
                "kube_pod_status_ready{{namespace=\"shop\",pod=\"{}\",condition=\"true\"}} {v} {}",
                pod(i),
                t0() + r.0
            );
        }
    }
    let _ = writeln!(s, "# TYPE kube_pod_container_resource_requests gauge");
    for i in 0..3 {
        for r in rows {
            let _ = writeln!(
                s,
                "kube_pod_container_resource_requests{{namespace=\"shop\",pod=\"{}\",container=\"web\",resource=\"cpu\",unit=\"core\"}} 0.5 {}",
                pod(i),
                t0() + r.0
            );
        }
    }
    // cAdvisor: one container's counter carries the workload's whole usage; the sample a sync
    // reads describes the load one sync earlier (the simulation's metrics lag).
    let _ = writeln!(s, "# TYPE container_cpu_usage_seconds counter");
    let mut counter = 1000.0;
    let mut prev = rows[0].1;
    for r in rows {
        counter += prev * 15.0;
        prev = r.1;
        let _ = writeln!(
            s,
            "container_cpu_usage_seconds_total{{namespace=\"shop\",pod=\"{}\",container=\"web\"}} {counter} {}",
            pod(0),
            t0() + r.0
        );
    }
    s.push_str("# EOF\n");
    s
}

fn history(url: &str, extra: &[&str]) -> std::process::Output {
    history_until(url, TO, extra)
}

/// `history web` from T0 to `to` on `--prometheus url`.
pub(super) fn history_until(url: &str, to: &str, extra: &[&str]) -> std::process::Output {
    history_from(&["--prometheus", url], None, to, extra)
}

/// `history web` from T0 to `to` reading the Prometheus `prom` names (its flag and value), with
/// the kubeconfig `kc`.
pub(super) fn history_from(
    prom: &[&str],
    kc: Option<&std::path::Path>,
    to: &str,
    extra: &[&str],
) -> std::process::Output {
    let snap = example("scale-up-cpu.yaml");
    let mut args = vec![
        "history",
        "web",
        "-n",
        "shop",
        "--snapshot",
        snap.to_str().unwrap(),
    ];
    args.extend_from_slice(prom);
    args.extend_from_slice(&[
        "--from",
        T0,
        "--to",
        to,
        "--now",
        to,
        // The series are scraped every 15 s: a rate over two scrapes is the sample the
        // simulated controller read.
        "--rate-window",
        "30s",
    ]);
    args.extend_from_slice(extra);
    cmd(&args, kc).env("COLUMNS", "100").output().unwrap()
}

/// Every scale event of the scenario is explained; the manual scale is "not explained: manual
/// scale"; the controller's move back from it is explained.
fn every_scale_event_is_explained_and_the_manual_scale_is_not(url: &str) {
    let ticks = scenario();
    let scaled: Vec<(i64, i32, i32)> = ticks
        .iter()
        .filter(|t| t.before != t.after)
        .map(|t| (t.offset, t.before, t.after))
        .collect();
    assert_eq!(scaled.len(), 3, "the scenario scales 3 times");
    let v = ok_json(&history(url, &["-o", "json"]), "history --prometheus");
    let r = &v["replay"];
    let changes = r["changes"].as_array().expect("replay.changes");
    let at = |off: i64| (Timestamp::from_second(t0() + off).unwrap()).to_string();
    for (off, from, to) in &scaled {
        let c = changes
            .iter()
            .find(|c| c["time"] == at(*off).as_str())
            .unwrap_or_else(|| panic!("no change at +{off}s in {changes:#?}"));
        assert_eq!(
            (c["from"].as_i64(), c["to"].as_i64()),
            (Some(*from as i64), Some(*to as i64))
        );
        assert_eq!(c["verdict"], "explained", "{c:#}");
    }
    let manual_at = at(ticks[MANUAL_TICK].offset);
    let manual: Vec<&Value> = changes
        .iter()
        .filter(|c| c["time"] == manual_at.as_str())
        .collect();
    assert_eq!(manual.len(), 2, "{manual:#?}");
    assert_eq!(
        (&manual[0]["by"], &manual[0]["verdict"], &manual[0]["cause"]),
        (
            &"external".into(),
            &"notExplained".into(),
            &"manualScale".into()
        ),
        "{:#}",
        manual[0]
    );
    assert_eq!(
        (manual[0]["from"].as_i64(), manual[0]["to"].as_i64()),
        (Some(4), Some(8))
    );
    assert_eq!(manual[1]["verdict"], "explained", "{:#}", manual[1]);
    assert_eq!(changes.len(), 5, "{changes:#?}");
    let s = &r["summary"];
    assert_eq!(
        (s["scaleEvents"].as_u64(), s["explained"].as_u64()),
        (Some(5), Some(4))
    );
    assert_eq!(
        (s["manualScales"].as_u64(), s["flapping"].as_bool()),
        (Some(1), Some(false))
    );
    assert!(s["secondsAtMax"].as_f64().unwrap() > 2400.0, "{s}");
    assert_eq!(v["source"], "prometheus");

    // The text: the answer first, every line within the terminal; the chart beside it.
    let chart = tmpdir("history-chart").join("replay.svg");
    let text = ok(
        &history(url, &["--chart", chart.to_str().unwrap()]),
        "history --prometheus --chart",
    );
    let svg = std::fs::read_to_string(&chart).expect("--chart writes the file");
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..80.min(svg.len())]
    );
    assert!(
        svg.contains("recorded") && svg.contains("replayed"),
        "the two panels"
    );
    roxmltree::Document::parse(&svg).expect("the chart is well-formed XML");
    // Each scale event is marked with its reason.
    for reason in ["3 → 6 explained", "4 → 8 not explained: manual scale"] {
        assert!(svg.contains(reason), "{reason} marked on the chart");
    }
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with(
            "shop/web: 5 scale events 00:00:00–01:39:45 (replayed from Prometheus): 4"
        ),
        "{text}"
    );
    assert!(text.contains("not explained: manual scale"), "{text}");
    assert!(
        text.contains("manual scale: the replicas moved 4 → 8"),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
}

/// `explain --at` (issue 31 item 3): the decision replayed at the sync of each scale event the
/// replay decides at the recorded time is the recorded change, from → to, with its full trace
/// and the assumptions saying it is a replay at that time from that Prometheus. (The scale-down
/// is replayed one sync late — the CPU rate over 30 s still holds the last high sample — and
/// `explain --at` says so: recorded 4, replayed 10.)
fn explain_at_a_scale_event_decides_the_recorded_change(url: &str) {
    let snap = example("scale-up-cpu.yaml");
    let v = ok_json(&history(url, &["-o", "json"]), "history --prometheus");
    let changes: Vec<&Value> = v["replay"]["changes"]
        .as_array()
        .expect("replay.changes")
        .iter()
        .filter(|c| c["by"] == "controller")
        .collect();
    assert_eq!(changes.len(), 4, "{changes:#?}");
    let exact = changes.iter().filter(|c| c["offsetSyncs"] == 0).count();
    assert!(exact >= 2, "{changes:#?}");
    for c in changes {
        let at = c["time"].as_str().unwrap().to_string();
        let exact = c["offsetSyncs"] == 0;
        let (from, to) = match exact {
            true => (c["from"].as_i64(), c["to"].as_i64()),
            false => (c["from"].as_i64(), c["from"].as_i64()),
        };
        let args = [
            "explain",
            "web",
            "-n",
            "shop",
            "--snapshot",
            snap.to_str().unwrap(),
            "--at",
            &at,
            "--prometheus",
            url,
            "--rate-window",
            "30s",
        ];
        let v = ok_json(
            &cmd(&[&args[..], &["-o", "json"]].concat(), None)
                .output()
                .unwrap(),
            "explain --at",
        );
        assert_eq!(v["kind"], "Explanation");
        assert_eq!(v["now"], at.as_str());
        assert_eq!(
            (v["currentReplicas"].as_i64(), v["desiredReplicas"].as_i64()),
            (from, to),
            "the decision at {at}: {:#}",
            v["verdict"]
        );
        let first = v["assumptions"][0].as_str().unwrap();
        assert!(
            first.starts_with(&format!(
                "replayed at {at} (--at) from what Prometheus {url}"
            )),
            "{first}"
        );
        let recorded = v["assumptions"][2].as_str().unwrap();
        assert!(
            recorded.ends_with("the replay decided the same") == exact,
            "{recorded}"
        );
        assert!(!v["steps"].as_array().unwrap().is_empty(), "the full trace");
        let text = ok(
            &cmd(&args, None).env("COLUMNS", "100").output().unwrap(),
            "explain --at (text)",
        );
        if exact {
            assert!(
                text.contains(&format!("from {} to {}", from.unwrap(), to.unwrap())),
                "{text}"
            );
        }
        assert!(text.contains("replayed at"), "{text}");
    }
}

against_both!(
    "history_", |_name| super::openmetrics(&super::scenario());
    every_scale_event_is_explained_and_the_manual_scale_is_not,
    explain_at_a_scale_event_decides_the_recorded_change,
);
