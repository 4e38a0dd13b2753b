//! `kubectl hpa simulate --prometheus`: backtests against Prometheus' HTTP API. The replay must
//! equal the same load given as a CSV.
//!
//! Each test runs twice over the same body:
//! - `recorded::` (the default `cargo test`): against the in-process stand-in of
//!   `tests/support/prometheus.rs`, serving the `query_range` answers recorded from the real
//!   server in `tests/support/prometheus/<test>.json`;
//! - `real::` (`#[ignore]`d; `.ci/run` runs them with `-- --ignored`, which installs Prometheus):
//!   against a real Prometheus server (the `prometheus` package) on 127.0.0.1, its storage
//!   backfilled with `promtool tsdb create-blocks-from openmetrics` from series this file writes.
//!   Without the `prometheus` and `promtool` binaries they fail: asked for, never skipped.
//!   `scripts/record-prometheus.sh` runs them with `RECORD_PROMETHEUS=1` to re-record the answers.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output};

use jiff::{SignedDuration, Timestamp};
use kubectl_hpa::PrometheusEndpoint as Endpoint;

use crate::support::prometheus::{prometheus, recording_requested, PromStandin, Prometheus};

/// The start of the replayed range; the data begins 10 minutes earlier.
const T0: &str = "2026-11-01T00:00:00Z";

fn t0() -> Timestamp {
    T0.parse().unwrap()
}

fn bin() -> Command {
    let mut c = crate::support::binary::bare();
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1");
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A failure: exit 1 and one `error:` line.
fn fails(args: &[&str]) -> String {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err
}

fn csv_rows(text: &str) -> Vec<HashMap<String, String>> {
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn column(rows: &[HashMap<String, String>], name: &str) -> Vec<String> {
    rows.iter().map(|r| r[name].clone()).collect()
}

/// The server a test's body queries: the stand-in serving recorded answers, or a real
/// Prometheus (behind the recording stand-in with `RECORD_PROMETHEUS=1`).
enum Server {
    Recorded(PromStandin),
    Real(Prometheus, Option<PromStandin>),
}

impl Server {
    fn recorded(name: &str) -> Server {
        Server::Recorded(PromStandin::replay(name))
    }

    fn real(name: &str) -> Server {
        let p = prometheus(name, &openmetrics());
        let recorder = recording_requested().then(|| {
            let port = p.url.rsplit(':').next().unwrap().parse::<u16>().unwrap();
            PromStandin::recording(name, ([127, 0, 0, 1], port).into())
        });
        Server::Real(p, recorder)
    }

    fn url(&self) -> &str {
        match self {
            Server::Recorded(s) | Server::Real(_, Some(s)) => &s.url,
            Server::Real(p, None) => &p.url,
        }
    }

    /// After the body: every request had a recorded answer.
    fn done(&self) {
        if let Server::Recorded(s) = self {
            s.assert_every_request_answered();
        }
    }
}

/// The same body against the recorded answers (by default) and a real Prometheus (asked for).
macro_rules! against_both {
    ($($name:ident),* $(,)?) => {
        mod recorded {
            $(
                #[test]
                fn $name() {
                    let s = super::Server::recorded(stringify!($name));
                    super::$name(s.url());
                    s.done();
                }
            )*
        }
        mod real {
            $(
                #[test]
                #[ignore = "needs the prometheus and promtool binaries: .ci/run installs them and runs these with -- --ignored"]
                fn $name() {
                    let s = super::Server::real(stringify!($name));
                    super::$name(s.url());
                    s.done();
                }
            )*
        }
    };
}

against_both!(
    a_backtest_replays_the_recorded_load_like_the_same_load_as_csv,
    external_metric_from_a_query_and_compare_with_chart,
    paged_queries_return_the_same_series,
);

/// Seconds since the epoch of `T0 + offset`.
fn at(offset: i64) -> i64 {
    t0().as_second() + offset
}

/// Per-pod CPU of the `web` pods: 0.4 cores, 1.6 from +30m, 0.5 from +60m.
fn cpu_per_pod(offset: i64) -> f64 {
    match offset {
        o if o < 1800 => 0.4,
        o if o < 3600 => 1.6,
        _ => 0.5,
    }
}

/// Total of the queue_depth series: 40, 200 from +20m, 60 from +50m.
fn queue_total(offset: i64) -> f64 {
    match offset {
        o if o < 1200 => 40.0,
        o if o < 3000 => 200.0,
        _ => 60.0,
    }
}

/// cAdvisor series of three `web` pods (with the pod-level and sandbox cgroups, which must not
/// be counted), a pod of another workload and one of another namespace; and two queue_depth
/// series. From T0 − 10m to T0 + 2h every 15 s.
fn openmetrics() -> String {
    let mut s = String::new();
    let times: Vec<i64> = (-40..=480).map(|i| i * 15).collect();
    let _ = writeln!(s, "# TYPE container_cpu_usage_seconds counter");
    let series = [
        ("shop", "web-7d9f8c6b5-aaaaa", "app", 1.0),
        ("shop", "web-7d9f8c6b5-bbbbb", "app", 1.0),
        ("shop", "web-7d9f8c6b5-ccccc", "app", 1.0),
        ("shop", "web-7d9f8c6b5-aaaaa", "", 1.0),
        ("shop", "web-7d9f8c6b5-aaaaa", "POD", 0.01),
        ("shop", "web-api-6c8d9f7b4-ddddd", "app", 3.0),
        ("other", "web-7d9f8c6b5-eeeee", "app", 5.0),
    ];
    for (ns, pod, container, scale) in series {
        let mut counter = 1000.0;
        for (i, t) in times.iter().enumerate() {
            if i > 0 {
                counter += cpu_per_pod(*t - 15) * scale * 15.0;
            }
            let _ = writeln!(
                s,
                "container_cpu_usage_seconds_total{{namespace=\"{ns}\",pod=\"{pod}\",container=\"{container}\"}} {counter} {}",
                at(*t)
            );
        }
    }
    let _ = writeln!(s, "# TYPE queue_depth gauge");
    for (queue, share) in [("a", 0.25), ("b", 0.75)] {
        for t in &times {
            let _ = writeln!(
                s,
                "queue_depth{{queue=\"{queue}\"}} {} {}",
                queue_total(*t) * share,
                at(*t)
            );
        }
    }
    s.push_str("# EOF\n");
    s
}

fn scratch(name: &str) -> PathBuf {
    let p =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    p
}

const UNTIL: &str = "2026-11-01T02:00:00Z";

/// The CPU backtest's arguments (tests/simulate_data/cpu.yaml, 4 replicas of 500m, CSV out)
/// followed by `tail`.
fn cpu_backtest<'a>(tail: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "simulate",
        "--hpa",
        "tests/simulate_data/cpu.yaml",
        "--replicas",
        "4",
        "--requests",
        "cpu=500m",
        "-o",
        "csv",
    ];
    args.extend_from_slice(tail);
    args
}

/// [`cpu_backtest`] over the recorded 2 h until [`UNTIL`], the Prometheus given by `source`.
fn cpu_backtest_since_2h<'a>(source: &[&'a str]) -> Vec<&'a str> {
    let mut args = cpu_backtest(source);
    args.extend(["--since", "2h", "--until", UNTIL]);
    args
}

fn a_backtest_replays_the_recorded_load_like_the_same_load_as_csv(url: &str) {
    // CPU from cAdvisor: 3 pods × 0.4, 1.6 then 0.5 cores.
    let rows = csv_rows(&ok(&cpu_backtest_since_2h(&["--prometheus", url])));
    assert_eq!(rows.len(), 480, "2 h of 15 s syncs");
    let mut csv = String::from("time,value\n");
    let mut checked = 0;
    for r in &rows {
        let t: f64 = r["offset_seconds"].parse().unwrap();
        let load: f64 = r["load_cpu"].parse().unwrap();
        let ti = t as i64;
        // Away from a change (the 60 s rate window plus a scrape), the rate is exact.
        let blurred = [1800, 3600].iter().any(|b| ti > *b && ti <= b + 75);
        if !blurred {
            // The rate at t is the usage over the scrape interval that ends at t.
            let want = 3.0 * cpu_per_pod(ti - 15);
            assert!((load - want).abs() < 1e-6, "+{t}s: {load} vs {want}");
            checked += 1;
        }
        let _ = writeln!(csv, "{t},{load}");
    }
    assert!(checked > 450);
    // The same load as a CSV replays to the same run.
    let file = scratch("replay-load.csv");
    std::fs::write(&file, csv).unwrap();
    let spec = format!("cpu=csv:{}", file.display());
    let args = cpu_backtest(&["--demand", &spec, "--duration", "2h", "--now", T0]);
    let from_csv = csv_rows(&ok(&args));
    for col in ["replicas", "ready", "cpu_value", "proposal", "rule"] {
        assert_eq!(column(&rows, col), column(&from_csv, col), "{col}");
    }
    // It scaled up for the 4.8 cores and back down after.
    let replicas: Vec<i32> = column(&rows, "replicas")
        .iter()
        .map(|r| r.parse().unwrap())
        .collect();
    assert!(replicas.iter().max().unwrap() >= &14, "{replicas:?}");
}

fn external_metric_from_a_query_and_compare_with_chart(url: &str) {
    let base = [
        "simulate",
        "--hpa",
        "tests/simulate_data/queue-external.yaml",
        "--replicas",
        "2",
    ];
    // The query returns two series where one is expected.
    let mut args = base.to_vec();
    args.extend([
        "--prometheus",
        url,
        "--since",
        "2h",
        "--until",
        UNTIL,
        "--query",
        "queue_depth=queue_depth",
    ]);
    let err = fails(&args);
    assert!(err.contains("returned 2 series"), "{err}");
    assert!(err.contains("sum(queue_depth)"), "{err}");
    // A metric without a query says how to give one.
    let mut args = base.to_vec();
    args.extend(["--prometheus", url, "--since", "2h", "--until", UNTIL]);
    let err = fails(&args);
    assert!(err.contains("--query queue_depth=PROMQL"), "{err}");
    // An empty range.
    let mut args = base.to_vec();
    args.extend([
        "--prometheus",
        url,
        "--since",
        "1h",
        "--until",
        "2026-06-01T00:00:00Z",
        "--query",
        "queue_depth=sum(queue_depth)",
    ]);
    let err = fails(&args);
    assert!(err.contains("returned no data between"), "{err}");
    // Bad PromQL: Prometheus' own message, with the query.
    let mut args = base.to_vec();
    args.extend([
        "--prometheus",
        url,
        "--since",
        "1h",
        "--until",
        UNTIL,
        "--query",
        "queue_depth=sum(rate(queue_depth[",
    ]);
    let err = fails(&args);
    assert!(
        err.contains("Prometheus query \"sum(rate(queue_depth[\" failed (HTTP 400): ")
            && err.contains("parse error"),
        "{err}"
    );

    // The same load written independently as a CSV replays identically.
    let mut args = base.to_vec();
    args.extend([
        "--prometheus",
        url,
        "--since",
        "2h",
        "--until",
        UNTIL,
        "--query",
        "queue_depth=sum(queue_depth)",
        "-o",
        "csv",
    ]);
    let rows = csv_rows(&ok(&args));
    let mut csv = String::from("time,value\n");
    for i in -1..480 {
        let _ = writeln!(csv, "{},{}", i * 15, queue_total(i * 15));
    }
    let file = scratch("queue.csv");
    std::fs::write(&file, csv).unwrap();
    let spec = format!("queue_depth=csv:{}", file.display());
    let mut args2 = base.to_vec();
    args2.extend([
        "--value",
        &spec,
        "--duration",
        "2h",
        "--now",
        T0,
        "-o",
        "csv",
    ]);
    let from_csv = csv_rows(&ok(&args2));
    for col in ["load_queue_depth", "replicas", "ready", "proposal", "rule"] {
        assert_eq!(column(&rows, col), column(&from_csv, col), "{col}");
    }

    // --compare and a chart: both configurations side by side.
    let svg = scratch("backtest.svg");
    let svg_s = svg.display().to_string();
    let mut args = base.to_vec();
    args.extend([
        "--prometheus",
        url,
        "--since",
        "2h",
        "--until",
        UNTIL,
        "--query",
        "queue_depth=sum(queue_depth)",
        "--compare",
        "tests/simulate_data/queue-external-fast.yaml",
        "--chart",
        &svg_s,
        "--timeline",
        "none",
    ]);
    let text = ok(&args);
    for part in [
        "time over target (beyond tolerance)",
        "worst under-provisioned interval",
        "cost (pod-hours)",
        "difference",
        "Prometheus http://127.0.0.1",
    ] {
        assert!(text.contains(part), "missing {part}: {text}");
    }
    let doc = std::fs::read_to_string(&svg).unwrap();
    assert!(doc.starts_with("<svg") || doc.starts_with("<?xml"), "{doc}");
}

fn paged_queries_return_the_same_series(url: &str) {
    let e = Endpoint::parse(url).unwrap();
    let step = SignedDuration::from_secs(15);
    let end: Timestamp = UNTIL.parse().unwrap();
    let one = e
        .query_range("sum(queue_depth)", t0(), end, step, 10_000)
        .unwrap();
    let paged = e
        .query_range("sum(queue_depth)", t0(), end, step, 7)
        .unwrap();
    assert_eq!(one.len(), 481);
    assert_eq!(one, paged);
}

#[test]
fn an_unreachable_prometheus_is_one_clear_error() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let err = fails(&[
        "simulate",
        "--hpa",
        "tests/simulate_data/cpu.yaml",
        "--requests",
        "cpu=500m",
        "--prometheus",
        &url,
        "--since",
        "1h",
    ]);
    assert!(
        err.contains(&format!("cannot reach Prometheus at {url}")),
        "{err}"
    );
    let err = fails(&[
        "simulate",
        "--hpa",
        "tests/simulate_data/cpu.yaml",
        "--requests",
        "cpu=500m",
        "--prometheus",
        "https://prometheus.example",
    ]);
    assert!(err.contains("https is not supported"), "{err}");
    let err = fails(&[
        "simulate",
        "--hpa",
        "tests/simulate_data/cpu.yaml",
        "--requests",
        "cpu=500m",
        "--prometheus",
        &url,
        "--duration",
        "1h",
    ]);
    assert!(err.contains("do not apply to a backtest"), "{err}");
}

/// `simulate`'s backtest reads through `--prometheus-service` as through `--prometheus URL`:
/// the same run, every read on the Service's proxy path.
#[test]
fn a_backtest_through_the_service_proxy_is_the_backtest_through_the_url() {
    use crate::support::fake_apiserver::FakeApiServer;
    let s = PromStandin::replay("a_backtest_replays_the_recorded_load_like_the_same_load_as_csv");
    let server = FakeApiServer::start(vec![]);
    server.proxy_service("monitoring", "prometheus", "9090", &s.url);
    let kc = server.write_kubeconfig(&crate::support::binary::tmpdir("backtest-proxy"));
    let direct = ok(&cpu_backtest_since_2h(&["--prometheus", &s.url]));
    let kc = kc.to_str().unwrap();
    let proxied = ok(&cpu_backtest_since_2h(&[
        "--prometheus-service",
        "prometheus",
        "--kubeconfig",
        kc,
    ]));
    assert_eq!(csv_rows(&proxied).len(), 480);
    assert_eq!(proxied, direct);
    let proxy_reads = server
        .requests()
        .iter()
        .filter(|r| r.path.contains("/proxy/"))
        .count();
    assert!(proxy_reads > 0);
    assert!(server.requests().iter().all(|r| !r.path.contains("/proxy/")
        || r.path
            == "/api/v1/namespaces/monitoring/services/prometheus:9090/proxy/api/v1/query_range"));
}
