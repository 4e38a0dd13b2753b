//! `kubectl hpa history` in events-only mode (issue 31 item 1): the recorded scale changes read
//! from the HPA's SuccessfulRescale Events, offline and live against the fake API server, with
//! aggregated (`count`) and series (`series.count`) Events.

use crate::support::binary;
use crate::support::fake_apiserver;

use binary::*;
use fake_apiserver::FakeApiServer;
use serde_json::{json, Value};

fn snapshot_args(extra: &[&str]) -> Vec<String> {
    let file = example("held-by-window.yaml");
    let mut a: Vec<String> = [
        "history",
        "frontend",
        "--snapshot",
        file.to_str().unwrap(),
        "--now",
        NOW,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn run_args(a: &[String], kc: Option<&std::path::Path>) -> std::process::Output {
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    run(&refs, kc)
}

fn sizes(v: &Value) -> Vec<(Value, Value, Value)> {
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| (r["time"].clone(), r["from"].clone(), r["to"].clone()))
        .collect()
}

#[test]
fn a_snapshot_gives_each_rescale_with_the_metric_that_decided_it() {
    let refs: Vec<String> = snapshot_args(&[]);
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    let out = cmd(&refs, None).env("COLUMNS", "80").output().expect("run");
    let text = ok(&out, "history");
    assert!(
        text.starts_with("shop/frontend: 2 scale events since 11:40:00 (the oldest Event): 1 up, 1 down; 1\n  explained, 1 not (below).\n"),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert!(
        text.contains("11:40:00  ? → 4 ↓  all metrics below target"),
        "{text}"
    );
    assert!(
        text.contains("11:55:30  4 → 8 ↑  cpu above target"),
        "{text}"
    );
    assert!(
        text.contains("the size before is older than the oldest Event"),
        "{text}"
    );
    // --since reaches back from now: 10 minutes hold only the scale-up.
    let v = ok_json(
        &run_args(&snapshot_args(&["--since", "10m", "-o", "json"]), None),
        "history --since",
    );
    assert_eq!(v["kind"], "History");
    assert_eq!(
        sizes(&v),
        vec![(json!("2026-03-01T11:55:30Z"), json!(4), json!(8))]
    );
    assert_eq!(v["rows"][0]["metric"], "cpu");
}

#[test]
fn live_and_snapshot_give_the_same_history() {
    let server = FakeApiServer::from_snapshot_file(example("held-by-window.yaml"));
    let kc = server.write_kubeconfig(&tmpdir("history-live"));
    let live = ok_json(
        &run(
            &[
                "history", "frontend", "-n", "shop", "--now", NOW, "-o", "json",
            ],
            Some(&kc),
        ),
        "live history",
    );
    let offline = ok_json(
        &run_args(&snapshot_args(&["-o", "json"]), None),
        "offline history",
    );
    assert_eq!(live["rows"], offline["rows"]);
    assert_eq!(live["summary"], offline["summary"]);
}

/// held-by-window's objects with the `New size: 8` Event rewritten by `f`.
fn with_the_scale_up_event(f: impl Fn(&mut Value)) -> Vec<Value> {
    let mut objects = fake_apiserver::load_snapshot(example("held-by-window.yaml"));
    let mut changed = 0;
    for doc in objects.iter_mut() {
        for o in doc["items"].as_array_mut().into_iter().flatten() {
            if o["kind"] == "Event"
                && o["message"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with("New size: 8")
            {
                f(o);
                changed += 1;
            }
        }
    }
    assert_eq!(changed, 1);
    objects
}

fn live_history(objects: Vec<Value>, tag: &str) -> Value {
    let server = FakeApiServer::start(objects);
    let kc = server.write_kubeconfig(&tmpdir(tag));
    ok_json(
        &run(
            &[
                "history", "frontend", "-n", "shop", "--now", NOW, "-o", "json",
            ],
            Some(&kc),
        ),
        "live history",
    )
}

#[test]
fn an_aggregated_event_is_three_rescales_of_which_one_has_no_time() {
    let objects = with_the_scale_up_event(|o| {
        o["count"] = json!(3);
        o["firstTimestamp"] = json!("2026-03-01T11:45:00Z");
    });
    let v = live_history(objects, "history-aggregated");
    assert_eq!(
        sizes(&v),
        vec![
            (json!("2026-03-01T11:40:00Z"), Value::Null, json!(4)),
            (json!("2026-03-01T11:45:00Z"), json!(4), json!(8)),
            (Value::Null, Value::Null, json!(8)),
            (json!("2026-03-01T11:55:30Z"), Value::Null, json!(8)),
        ]
    );
    assert_eq!(v["rows"][2]["earliest"], "2026-03-01T11:45:00Z");
    assert_eq!(v["rows"][2]["latest"], "2026-03-01T11:55:30Z");
    assert_eq!(v["summary"]["scaleEvents"], 4);
}

#[test]
fn a_series_event_is_read_like_an_aggregated_one() {
    let objects = with_the_scale_up_event(|o| {
        let m = o.as_object_mut().unwrap();
        m.remove("count");
        m.remove("lastTimestamp");
        m.insert("firstTimestamp".into(), json!("2026-03-01T11:45:00Z"));
        m.insert(
            "series".into(),
            json!({"count": 3, "lastObservedTime": "2026-03-01T11:55:30.000000Z"}),
        );
    });
    let v = live_history(objects, "history-series");
    assert_eq!(v["summary"]["scaleEvents"], 4, "{v}");
    assert_eq!(v["rows"][3]["time"], "2026-03-01T11:55:30Z");
}

#[test]
fn a_bad_since_is_a_usage_error() {
    let out = run_args(&snapshot_args(&["--since", "1x"]), None);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--since: invalid duration \"1x\""),
        "{}",
        stderr(&out)
    );
}

/// `explain --at` replays from Prometheus: without `--prometheus` (or with a bad time) it is
/// one line saying what is needed, exit 2.
#[test]
fn explain_at_without_prometheus_says_what_is_needed() {
    let file = example("scale-up-cpu.yaml");
    let base = [
        "explain",
        "web",
        "-n",
        "shop",
        "--snapshot",
        file.to_str().unwrap(),
    ];
    for (extra, says) in [
        (
            &["--at", "-2h"][..],
            "--at replays the controller over what Prometheus recorded: give --prometheus URL",
        ),
        (
            &["--at", "yesterday", "--prometheus", "http://127.0.0.1:9"][..],
            "--at: invalid RFC3339 time \"yesterday\"",
        ),
        (
            &["--prometheus", "http://127.0.0.1:9"][..],
            "--prometheus is read by --at TIME",
        ),
    ] {
        let args: Vec<String> = base.iter().chain(extra).map(|s| s.to_string()).collect();
        let out = run_args(&args, None);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
    }
}
/// Each named test body `fn(url)` run twice: against the in-process stand-in replaying the
/// answers recorded as `PREFIX + name` (the default run), and `#[ignore]`d against a real
/// Prometheus loaded with `series` (`.ci/run` runs these; `RECORD_PROMETHEUS=1` records them).
/// Shared by replay.rs, offsets.rs and tuning.rs, which use the same names in scope.
macro_rules! against_both {
    ($prefix:literal, |$n:ident| $series:expr; $($name:ident),* $(,)?) => {
        mod recorded {
            $(
                #[test]
                fn $name() {
                    let s = super::PromStandin::replay(concat!($prefix, stringify!($name)));
                    super::$name(&s.url);
                    s.assert_every_request_answered();
                }
            )*
        }
        mod real {
            $(
                #[test]
                #[ignore = "needs the prometheus and promtool binaries: .ci/run installs them and runs these with -- --ignored"]
                fn $name() {
                    let $n = concat!($prefix, stringify!($name));
                    let p = super::prometheus($n, &$series);
                    let recorder = super::recording_requested().then(|| {
                        let port = p.url.rsplit(':').next().unwrap().parse::<u16>().unwrap();
                        super::PromStandin::recording($n, ([127, 0, 0, 1], port).into())
                    });
                    let url = recorder.as_ref().map_or(p.url.clone(), |r| r.url.clone());
                    super::$name(&url);
                }
            )*
        }
    };
}

mod lag;
mod offsets;
mod proxy;
mod replay;
mod tuning;
