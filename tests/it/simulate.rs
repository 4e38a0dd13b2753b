//! `kubectl hpa simulate`, run as the real binary: the behaviours documented by Kubernetes,
//! agreement with `explain`, the load inputs, the outputs, and bad input.

use std::collections::HashMap;
use std::process::{Command, Output};

const DATA: &str = "tests/simulate_data";

fn run(args: &[&str]) -> Output {
    crate::support::binary::bare()
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Run with `-o csv` and return the rows as column → value maps.
fn csv(args: &[&str]) -> Vec<HashMap<String, String>> {
    let mut all = args.to_vec();
    all.extend(["-o", "csv"]);
    let text = ok(&all);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .map(|h| h.to_string())
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn col<T: std::str::FromStr>(rows: &[HashMap<String, String>], name: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    rows.iter()
        .map(|r| r[name].parse().expect("a number"))
        .collect()
}

fn data(f: &str) -> String {
    format!("{DATA}/{f}")
}

/// A failure: exit code 1, one `error:` line on stderr, no panic.
fn fails(args: &[&str]) -> String {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(out.stdout.is_empty(), "nothing on stdout");
    err
}

// --- Behaviours from the Kubernetes documentation -------------------------------------------

#[test]
fn docs_default_scale_up_is_4_pods_or_100_percent_per_15s() {
    // A per-pod value 100× the target: every sync wants far more pods than the policies allow.
    // Samples are immediate (no lag, no window) so new pods count at once.
    let rows = csv(&[
        "simulate",
        "--hpa",
        &data("default-scale-up.yaml"),
        "--per-pod",
        "http_requests_per_second=10000",
        "--metrics-lag",
        "0s",
        "--metrics-window",
        "0s",
        "--duration",
        "2m",
    ]);
    let replicas: Vec<i32> = col(&rows, "replicas");
    // 1 → max(1+4, 2×1) = 5 → max(9, 10) = 10 → 20 → 40 → 80 → maxReplicas 100.
    assert_eq!(replicas, [5, 10, 20, 40, 80, 100, 100, 100]);
    assert_eq!(rows[0]["rule"], "ScaleUpLimit");
    assert_eq!(rows[5]["rule"], "TooManyReplicas");
}

#[test]
fn docs_scale_down_policy_first_step_removes_8_of_80() {
    let rows = csv(&[
        "simulate",
        "--hpa",
        &data("scale-down-policies.yaml"),
        "--replicas",
        "80",
        "--per-pod",
        "http_requests_per_second=10",
        "--duration",
        "2m15s",
    ]);
    let replicas: Vec<i32> = col(&rows, "replicas");
    // Pods 4 → 76, Percent 10 → 72; Max selects the bigger change: 72. The next step waits
    // until the first one is 60 s old: 72 − 10 % = 64, then 57.
    assert_eq!(replicas, [72, 72, 72, 72, 64, 64, 64, 64, 57]);
    assert!(rows.iter().all(|r| r["rule"] == "ScaleDownLimit"));
}

#[test]
fn docs_stabilization_window_holds_the_highest_recommendation_for_300s() {
    // 1000 rps on 10 pods at 100 per pod, then 200 rps from +5m: 2 pods would do.
    let rows = csv(&[
        "simulate",
        "--hpa",
        &data("stabilization-300s.yaml"),
        "--replicas",
        "10",
        "--demand",
        "http_requests_per_second=step:1000:200:5m",
        "--duration",
        "11m",
    ]);
    let at = |secs: f64| {
        rows.iter()
            .find(|r| r["offset_seconds"].parse::<f64>().unwrap() == secs)
            .unwrap()
    };
    // The drop is seen at +5m15s (15 s metrics lag) and proposes 2; the 10s recommended up
    // to +5m keep the replicas at 10 for 300 s.
    assert_eq!(at(315.0)["proposal"], "2");
    assert_eq!(at(315.0)["replicas"], "10");
    assert_eq!(at(315.0)["rule"], "ScaleDownStabilized");
    assert_eq!(at(585.0)["replicas"], "10");
    assert_eq!(at(600.0)["replicas"], "2");
    let replicas: Vec<i32> = col(&rows, "replicas");
    assert!(replicas[..40].iter().all(|r| *r == 10), "{replicas:?}");
}

#[test]
fn docs_select_policy_disabled_never_scales_down() {
    let rows = csv(&[
        "simulate",
        "--hpa",
        &data("scale-down-disabled.yaml"),
        "--replicas",
        "10",
        "--demand",
        "http_requests_per_second=step:1000:200:5m",
        "--duration",
        "30m",
    ]);
    let replicas: Vec<i32> = col(&rows, "replicas");
    assert!(replicas.iter().all(|r| *r == 10), "{replicas:?}");
    assert_eq!(rows.last().unwrap()["proposal"], "2");
    assert_eq!(rows.last().unwrap()["rule"], "SelectPolicyDisabled");
}

// --- Agreement with explain ------------------------------------------------------------------

#[test]
fn first_tick_of_a_constant_load_equals_explain() {
    let snap = "examples/scale-up-cpu.yaml";
    let explain: serde_json::Value = serde_json::from_str(&ok(&[
        "explain",
        "web",
        "-n",
        "shop",
        "--snapshot",
        snap,
        "-o",
        "json",
    ]))
    .unwrap();
    let sim: serde_json::Value = serde_json::from_str(&ok(&[
        "simulate",
        "web",
        "-n",
        "shop",
        "--snapshot",
        snap,
        "--duration",
        "5m",
        "-o",
        "json",
    ]))
    .unwrap();
    let first = &sim["timeline"][0];
    assert_eq!(first["replicas"], explain["desiredReplicas"]);
    assert_eq!(first["replicasBefore"], explain["currentReplicas"]);
    assert_eq!(first["proposal"], explain["proposal"]);
    assert_eq!(first["rule"], explain["verdict"]["decidedBy"]);
    assert_eq!(
        first["replicas"], 5,
        "the README's expected verdict for this example"
    );
    assert_eq!(sim["replayedFirstTick"], true);
}

#[test]
fn constant_load_settles_at_the_needed_replicas() {
    // 1.25 cores of demand at 50 % of 500m needs 5 pods: the run settles there and stays.
    let rows = csv(&[
        "simulate",
        "web",
        "-n",
        "shop",
        "--snapshot",
        "examples/scale-up-cpu.yaml",
        "--duration",
        "30m",
    ]);
    let replicas: Vec<i32> = col(&rows, "replicas");
    assert!(replicas.iter().all(|r| *r == 5), "{replicas:?}");
    assert_eq!(rows.last().unwrap()["cpu_value"], "50");
}

// --- The world model ---------------------------------------------------------------------------

#[test]
fn startup_cpu_burst_is_hidden_by_the_readiness_rules_until_pods_are_ready() {
    let base = [
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--replicas",
        "2",
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=step:0.5:4:1m",
        "--pod-startup",
        "60s",
        "--duration",
        "15m",
    ]
    .map(String::from)
    .to_vec();
    let with = |extra: &[&str]| {
        let mut a: Vec<&str> = base.iter().map(String::as_str).collect();
        a.extend(extra);
        col::<i32>(&csv(&a), "replicas")
    };
    let quiet = with(&[]);
    // A burst that ends when the pod turns Ready: its samples are all from unready pods, which
    // the controller discards (cpu-initialization-period), so nothing changes.
    let hidden = with(&["--startup-cpu", "2", "--startup-burst", "60s"]);
    assert_eq!(quiet, hidden);
    // A burst that lasts well after readiness is counted, and scales further.
    let seen = with(&["--startup-cpu", "2", "--startup-burst", "5m"]);
    assert!(
        seen.iter().max() > quiet.iter().max(),
        "quiet {quiet:?}\nseen {seen:?}"
    );
}

#[test]
fn demand_is_shared_so_utilization_falls_as_replicas_rise() {
    let rows = csv(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--replicas",
        "2",
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=2",
        "--duration",
        "10m",
    ]);
    let util: Vec<f64> = col(&rows, "cpu_value");
    assert_eq!(util[0], 200.0, "2 cores on 2 × 500m");
    let last = *util.last().unwrap();
    assert!(
        last <= 77.0,
        "settles within the tolerance of 70 %: {util:?}"
    );
    // 2 cores at 70 % of 500m needs ceil(5.71) = 6 pods.
    assert_eq!(rows.last().unwrap()["needed"], "6");
    assert_eq!(rows.last().unwrap()["replicas"], "6");
}

#[test]
fn a_simulated_running_controller_holds_its_first_sync_where_an_empty_memory_scaled_down() {
    // 10 pods of 1 core serving 1 core: 10 % for a 70 % target proposes 2 replicas.
    let args = |history: &'static str| {
        csv(&[
            "simulate",
            "--hpa",
            &data("cpu.yaml"),
            "--replicas",
            "10",
            "--requests",
            "cpu=1",
            "--demand",
            "cpu=1",
            "--duration",
            "6m",
            "--history",
            history,
        ])
    };
    let empty = args("none");
    assert_eq!(
        empty[0]["replicas"], "2",
        "an empty memory scales down at once"
    );
    let running = args("auto");
    assert_eq!(running[0]["proposal"], "2");
    assert_eq!(
        running[0]["replicas"], "10",
        "a running controller holds for the 5-minute window"
    );
    let replicas: Vec<i32> = col(&running, "replicas");
    let first_down = replicas.iter().position(|r| *r < 10).unwrap();
    // The no-behavior path drops a recommendation once it is older than the window
    // (`Before(now - 5m)`): the one remembered at +0 s still holds at +300 s.
    assert_eq!(running[first_down]["offset_seconds"], "315");
    assert_eq!(replicas[first_down], 2);
    // The default is auto, and the text output says which memory the run started from.
    let text = ok(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--replicas",
        "10",
        "--requests",
        "cpu=1",
        "--demand",
        "cpu=1",
        "--duration",
        "1m",
    ]);
    assert!(
        text.contains("memory      a controller that has been running with 10 replicas"),
        "{text}"
    );
}

#[test]
fn a_lagged_sample_divides_its_demand_among_the_pods_of_its_own_time() {
    // 2 cores on 10 pods of 1 core is 20 % against a 50 % target: 4 replicas, held by the
    // 120 s window until +120 s. With a 60 s lag the sample at +135 s describes +75 s, when
    // 10 pods served the 2 cores: 20 %, not 2 cores over the 4 pods left (50 %).
    let rows = csv(&[
        "simulate",
        "--hpa",
        &data("cpu-window-120s.yaml"),
        "--replicas",
        "10",
        "--requests",
        "cpu=1",
        "--demand",
        "cpu=2",
        "--metrics-lag",
        "60s",
        "--duration",
        "4m",
    ]);
    let at = |t: &str| rows.iter().find(|r| r["offset_seconds"] == t).unwrap();
    assert_eq!(
        (
            at("120")["replicas_before"].as_str(),
            at("120")["replicas"].as_str()
        ),
        ("10", "4")
    );
    assert_eq!(at("135")["cpu_value"], "20");
    // From +180 s the samples describe the time after the scale-down: 4 pods, 50 %.
    assert_eq!(at("180")["cpu_value"], "50");
}

/// The replica count after every sync of `script` (a Python reference in `benches/`) over
/// `syncs` syncs with `behavior` (`default` or `none`).
fn python_reference(script: &str, syncs: usize, behavior: &str) -> Vec<String> {
    let out_file = std::env::temp_dir().join(format!(
        "kubectl-hpa-{script}-{behavior}-{}.txt",
        std::process::id()
    ));
    let out = Command::new("python3")
        .arg(format!("{}/benches/{script}", env!("CARGO_MANIFEST_DIR")))
        .args([&syncs.to_string(), behavior, "--replicas-out"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replicas = std::fs::read_to_string(&out_file)
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let _ = std::fs::remove_file(&out_file);
    replicas
}

#[test]
fn both_independent_python_references_agree_at_every_sync() {
    // The benchmark's references: benches/simulate_reference.py, the controller step and the
    // world specialised by hand to this HPA, and benches/simulate_reference_api.py, the
    // controller's functions written plainly over API-shaped objects. A day of a sine load,
    // default behavior and the no-behavior path.
    let have_python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_python {
        eprintln!(
            "\n!!!!! SKIPPED: python3 is missing; the reference cross-check did not run !!!!!\n"
        );
        return;
    }
    for (manifest, behavior) in [
        ("cpu-default-behavior.yaml", "default"),
        ("cpu.yaml", "none"),
    ] {
        let rows = csv(&[
            "simulate",
            "--hpa",
            &data(manifest),
            "--replicas",
            "4",
            "--requests",
            "cpu=500m",
            "--demand",
            "cpu=sine:4:3:24h",
            "--duration",
            "24h",
        ]);
        let ours: Vec<String> = rows.iter().map(|r| r["replicas"].clone()).collect();
        assert_eq!(ours.len(), 5760);
        for script in ["simulate_reference.py", "simulate_reference_api.py"] {
            let theirs = python_reference(script, 5760, behavior);
            assert_eq!(theirs.len(), 5760, "{script}");
            let first_difference = ours.iter().zip(&theirs).position(|(a, b)| a != b);
            assert_eq!(
                first_difference, None,
                "{script} {behavior}: replicas differ"
            );
        }
        // The run is not trivial: it scales both ways.
        assert!(
            ours.iter().any(|r| r == "20") || ours.iter().any(|r| r.parse::<i32>().unwrap() > 12)
        );
        assert!(
            ours.iter().any(|r| r == "2") || ours.iter().any(|r| r.parse::<i32>().unwrap() < 6)
        );
    }
}

// --- Inputs --------------------------------------------------------------------------------------

#[test]
fn csv_and_prometheus_series_with_step_and_linear_interpolation() {
    let base = [
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--duration",
        "12m",
    ];
    let loads = |spec: &str, interp: &str| -> Vec<f64> {
        let mut a = base.to_vec();
        a.extend(["--demand", spec, "--interpolation", interp]);
        col(&csv(&a), "load_cpu")
    };
    let csv_file = format!("cpu=csv:{}", data("load.csv"));
    let lin = loads(&csv_file, "linear");
    assert_eq!((lin[0], lin[10], lin[20], lin[30]), (1.0, 2.0, 3.0, 2.25));
    let step = loads(&csv_file, "step");
    assert_eq!(
        (step[10], step[20], step[39], step[40]),
        (1.0, 3.0, 3.0, 1.5)
    );
    let prom = loads(&format!("cpu=prom:{}", data("prometheus.json")), "linear");
    // Two series summed: 1 → 3 → 1.5, like the CSV.
    assert_eq!(
        (prom[0], prom[10], prom[20], prom[30]),
        (1.0, 2.0, 3.0, 2.25)
    );
}

#[test]
fn scenario_file_sets_duration_world_and_load() {
    let text = ok(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--scenario",
        &data("scenario.yaml"),
    ]);
    assert!(
        text.contains("duration    40m0s (scenario) = 160 syncs every 15s"),
        "{text}"
    );
    assert!(text.contains("pod start-up 45s (scenario)"), "{text}");
    assert!(text.contains("metrics lag 15s (scenario)"), "{text}");
    assert!(
        text.contains("start       2026-03-01T12:00:00Z (the scenario's start)"),
        "{text}"
    );
    assert!(text.contains("sync period 15s (default)"), "{text}");
    // Flags override the scenario.
    let text = ok(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--scenario",
        &data("scenario.yaml"),
        "--pod-startup",
        "90s",
        "--duration",
        "5m",
    ]);
    assert!(text.contains("pod start-up 1m30s (flag)"), "{text}");
    assert!(text.contains("= 20 syncs"), "{text}");
}

// --- Outputs ---------------------------------------------------------------------------------------

#[test]
fn text_output_has_timeline_chart_and_summary() {
    let text = ok(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=spike:1:5:10m:10m",
    ]);
    for part in [
        "Timeline",
        "RULE",
        "Chart",
        "replicas",
        "load cpu",
        "Summary",
        "peak replicas",
        "pod-hours",
        "worst under-provisioned interval",
        "flapping (changes within 5m)",
    ] {
        assert!(text.contains(part), "missing {part}: {text}");
    }
    assert!(text.contains('█'), "{text}");
    assert!(!text.contains('\x1b'), "no colour without a TTY");
}

#[test]
fn compare_runs_both_configurations_on_the_same_load() {
    let args = [
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=step:1:5:5m",
        "--duration",
        "30m",
        "--compare",
        &data("tight-scale-up.yaml"),
    ];
    let mut json_args = args.to_vec();
    json_args.extend(["-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&ok(&json_args)).unwrap();
    let timeline = v["timeline"].as_array().unwrap();
    assert_eq!(timeline.len(), 2 * 120);
    assert_eq!(timeline[0]["config"], "base");
    assert_eq!(timeline[1]["config"], "compare");
    // The candidate adds at most one pod per minute: it takes longer to reach the need.
    let s = v["summaries"].as_array().unwrap();
    assert!(s[1]["longestShortfallSeconds"].as_f64() > s[0]["longestShortfallSeconds"].as_f64());
    assert!(v["difference"]["longestShortfallSeconds"].as_f64().unwrap() > 0.0);
    let text = ok(&args);
    assert!(text.contains("difference"), "{text}");
    assert!(text.contains("replicas [compare]"), "{text}");
    // The two configurations' columns stay aligned whatever rule decided each sync, and the
    // differences carry their units.
    let bars: Vec<usize> = text
        .lines()
        .filter(|l| l.contains(" | "))
        .map(|l| l.chars().position(|c| c == '|').unwrap())
        .collect();
    assert!(bars.len() > 3, "{text}");
    assert!(bars.iter().all(|b| *b == bars[0]), "{bars:?}\n{text}");
    assert!(
        text.lines()
            .filter(|l| l.contains(" | "))
            .all(|l| l == l.trim_end()),
        "no trailing spaces"
    );
    assert!(text.contains(" pod-h "), "{text}");
}

#[test]
fn json_output_is_one_valid_document_with_settings_and_defaults() {
    let out = ok(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=1",
        "--duration",
        "1m",
        "-o",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "Simulation");
    assert_eq!(v["ticks"], 4);
    assert_eq!(v["world"]["podStartup"], "30s");
    assert_eq!(v["world"]["origins"]["pod start-up"], "default");
    assert_eq!(v["settings"]["syncPeriod"], "15s");
    assert_eq!(v["timeline"].as_array().unwrap().len(), 4);
    assert_eq!(v["difference"], serde_json::Value::Null);
}

#[test]
fn svg_chart_has_a_panel_per_configuration_with_its_series_and_axes() {
    let svg = ok(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=spike:1:6:10m:20m",
        "--duration",
        "1h",
        "--compare",
        &data("cpu-default-behavior.yaml"),
        "-o",
        "svg",
    ]);
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let series: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .filter_map(|n| n.attribute("data-series"))
        .collect();
    // The shared load, then metric, desired and ready per configuration.
    assert_eq!(
        series,
        ["load", "metric", "desired", "ready", "metric", "desired", "ready"]
    );
    let panels = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("panel"))
        .count();
    assert_eq!(panels, 2);
    let plot = |id: &str| {
        let g = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap_or_else(|| panic!("no plot {id}"));
        let f = |a: &str| g.attribute(a).unwrap().parse::<f64>().unwrap();
        (
            f("data-x-min"),
            f("data-x-max"),
            f("data-y-min"),
            f("data-y-max"),
        )
    };
    // One hour on the x axis; the 6-core spike fits the load axis.
    assert_eq!(plot("load"), (0.0, 3600.0, 0.0, 10.0));
    // 6 cores at 70 % of 500m need 18 pods: the replicas axis reaches 20.
    for id in ["replicas-0", "replicas-1"] {
        assert_eq!(plot(id), (0.0, 3600.0, 0.0, 20.0), "{id}");
    }
    // The metric axis covers the target band (70 % ± 10 %) and the peaks.
    let band = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("band"))
        .expect("a target band");
    assert!(band.attribute("height").is_some());
    assert!(plot("metric-0").3 >= 77.0);
    // Scale events are marked.
    let ups = doc
        .descendants()
        .find(|n| n.attribute("data-events") == Some("scale-up"))
        .unwrap();
    assert!(ups.attribute("d").unwrap().contains('M'));
    // --chart writes the same picture next to the text output.
    let file = std::env::temp_dir().join(format!("kubectl-hpa-chart-{}.svg", std::process::id()));
    let path = file.display().to_string();
    let text = ok(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=spike:1:6:10m:20m",
        "--duration",
        "1h",
        "--compare",
        &data("cpu-default-behavior.yaml"),
        "--chart",
        &path,
    ]);
    assert!(text.contains("Summary"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), svg);
    let _ = std::fs::remove_file(&file);
}

// --- Bad input --------------------------------------------------------------------------------------

#[test]
fn no_source_and_no_name_says_what_to_give() {
    let err = fails(&["simulate", "--demand", "cpu=1"]);
    assert!(
        err.contains("name the HPA")
            && err.contains("--snapshot FILE")
            && err.contains("--hpa FILE"),
        "{err}"
    );
}

#[test]
fn malformed_scenario_names_the_field() {
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--scenario",
        &data("bad-scenario.yaml"),
    ]);
    assert!(
        err.contains("bad-scenario.yaml: field loads[0].points[1].value"),
        "{err}"
    );
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--scenario",
        &data("bad-syntax.yaml"),
    ]);
    assert!(
        err.contains("bad-syntax.yaml") && err.contains("line"),
        "{err}"
    );
}

#[test]
fn series_out_of_order_names_the_line() {
    let spec = format!("cpu=csv:{}", data("load-out-of-order.csv"));
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        &spec,
    ]);
    assert!(
        err.contains("load-out-of-order.csv line 4: time +2m0s is not after"),
        "{err}"
    );
}

#[test]
fn negative_load_is_refused() {
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=-2",
    ]);
    assert!(
        err.contains("--demand cpu=") && err.contains("must be a load >= 0"),
        "{err}"
    );
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=ramp:1:-3:0s:5m",
    ]);
    assert!(err.contains("to must be a load >= 0"), "{err}");
}

#[test]
fn unknown_metric_names_the_metrics() {
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "qps=3",
    ]);
    assert!(
        err.contains("unknown metric \"qps\": the HPA's metrics are cpu"),
        "{err}"
    );
}

#[test]
fn utilization_without_requests_asks_for_them() {
    let err = fails(&["simulate", "--hpa", &data("cpu.yaml"), "--demand", "cpu=3"]);
    assert!(err.contains("--requests cpu="), "{err}");
}

#[test]
fn load_kind_must_fit_the_metric() {
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--value",
        "cpu=3",
    ]);
    assert!(
        err.contains("load kind value does not apply to the Resource metric \"cpu\""),
        "{err}"
    );
}

#[test]
fn bad_shorthand_and_prometheus_exports_are_refused() {
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu=wave:1:2",
    ]);
    assert!(err.contains("unknown shape \"wave\""), "{err}");
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        "cpu",
    ]);
    assert!(err.contains("expected METRIC=LOAD"), "{err}");
    let err = fails(&[
        "simulate",
        "--hpa",
        &data("cpu.yaml"),
        "--requests",
        "cpu=500m",
        "--demand",
        &format!("cpu=prom:{}", data("load.csv")),
    ]);
    assert!(err.contains("load.csv: invalid JSON at line 1"), "{err}");
}

/// From a snapshot, `--history auto` starts from the memory explain infers from the HPA's status
/// and Events: the controller that scaled to 8 at 11:55:30 holds until the 8 leaves the 300 s
/// window at 12:00:30 — as `explain` says — where an empty memory scales down at once.
#[test]
fn a_snapshot_starts_from_the_memory_explain_infers() {
    let snap = format!(
        "{}/examples/held-by-window.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let base = [
        "simulate",
        "frontend",
        "-n",
        "shop",
        "--snapshot",
        &snap,
        "--duration",
        "1m",
    ];
    let rows = csv(&base);
    let replicas: Vec<i32> = col(&rows, "replicas");
    assert_eq!(
        replicas[..3],
        [8, 8, 4],
        "hold at +0 s and +15 s, down at +30 s"
    );
    let mut none = base.to_vec();
    none.extend(["--history", "none"]);
    let replicas: Vec<i32> = col(&csv(&none), "replicas");
    assert_eq!(replicas[0], 4, "an empty memory scales down at once");
}

// --- A new user's papercuts (issue 32) --------------------------------------------------------

/// A recorded load sets the run's length to its range (and says so); a flag that changes nothing
/// for the HPA is a warning on stderr, not silence.
#[test]
fn a_recording_is_simulated_over_its_whole_range_and_unused_flags_are_named() {
    let args = [
        "simulate",
        "--hpa",
        "examples/simulate/hpa.yaml",
        "--replicas",
        "3",
        "--requests",
        "cpu=500m",
        "--demand",
        "http_requests=csv:examples/simulate/rps.csv",
        "--timeline",
        "none",
    ];
    let out = run(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        text.contains("duration    24h0m0s (default: the recorded load's range) = 5760 syncs"),
        "{text}"
    );
    assert!(
        err.starts_with("warning: --requests cpu: no metric of the HPA reads cpu"),
        "{err}"
    );
    // --duration still wins, and a scenario's own duration too.
    let mut short = args.to_vec();
    short.extend(["--duration", "2h"]);
    assert!(ok(&short).contains("duration    2h0m0s (flag)"));
    // A synthetic shape has no range: the default hour.
    let text = ok(&[
        "simulate",
        "--hpa",
        "examples/simulate/hpa.yaml",
        "--demand",
        "http_requests=40",
        "--timeline",
        "none",
    ]);
    assert!(text.contains("duration    1h0m0s (default)"), "{text}");
}

/// Memory in simulate's text reads as explain's tables do (Mi, not bytes): the target, the load,
/// the timeline and the chart's axis; times to the second.
#[test]
fn simulate_text_shows_values_and_times_in_the_tables_units() {
    let text = ok(&[
        "simulate",
        "session-cache",
        "-n",
        "shop",
        "--snapshot",
        "examples/statefulset-memory.yaml",
        "--per-pod",
        "memory=ramp:300Mi:900Mi:5m:20m",
        "--duration",
        "30m",
        "--now",
        "2026-03-01T12:00:00.123456789Z",
    ]);
    assert!(text.contains("averageValue 600Mi"), "{text}");
    assert!(text.contains("ramp 300Mi → 900Mi from +5m0s"), "{text}");
    assert!(
        text.contains("start       2026-03-01T12:00:00Z (--now)"),
        "{text}"
    );
    assert!(text.contains("900Mi ┤"), "the chart's axis: {text}");
    let digits = text
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .find(|w| w.len() >= 7);
    assert_eq!(digits, None, "a raw number of bytes or nanoseconds: {text}");
}

/// With COLUMNS (or a terminal) the settings block and the summary fit its width.
#[test]
fn the_settings_and_the_summary_fit_columns() {
    let out = crate::support::binary::bare()
        .args([
            "simulate",
            "--hpa",
            "examples/simulate/hpa.yaml",
            "--scenario",
            "examples/simulate/day.yaml",
            "--compare",
            "examples/simulate/hpa-tuned.yaml",
            "--timeline",
            "none",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("COLUMNS", "80")
        .output()
        .expect("the binary runs");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > 80).collect();
    assert!(
        long.is_empty(),
        "lines over 80 columns:\n{}",
        long.join("\n")
    );
    assert!(
        text.contains("\n  world       pod start-up 45s (scenario)"),
        "{text}"
    );
}

/// `--compare`'s SVG panels share one replica scale, so that they read side by side.
#[test]
fn the_compare_chart_uses_one_replica_scale() {
    let dir = crate::support::binary::tmpdir("svg-scale");
    let lazy = std::fs::read_to_string("examples/simulate/hpa.yaml")
        .or_else(|_| {
            std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/simulate/hpa.yaml"),
            )
        })
        .expect("the example")
        .replace("averageValue: \"20\"", "averageValue: \"100\"");
    let compare = dir.join("lazy.yaml");
    std::fs::write(&compare, lazy).expect("write");
    let svg = ok(&[
        "simulate",
        "--hpa",
        "examples/simulate/hpa.yaml",
        "--scenario",
        "examples/simulate/day.yaml",
        "--compare",
        compare.to_str().unwrap(),
        "-o",
        "svg",
    ]);
    let doc = roxmltree::Document::parse(&svg).expect("SVG");
    let y_max = |id: &str| {
        doc.descendants()
            .find(|n| n.attribute("id") == Some(id))
            .and_then(|n| n.attribute("data-y-max"))
            .unwrap_or_else(|| panic!("{id}"))
            .to_string()
    };
    assert_eq!(y_max("replicas-0"), y_max("replicas-1"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--compare`'s text (settings, timeline, chart, summary) fits `COLUMNS`: side by side when
/// it can, else one line per configuration, leaving out the columns a narrow terminal cannot
/// hold and saying which. Recorded at 80 and 120 columns in `tests/simulate_data/golden/`
/// (`UPDATE_GOLDEN=1` rewrites them).
#[test]
fn the_compare_timeline_fits_80_and_120_columns() {
    timeline_fits(
        &["--compare", "examples/simulate/hpa-tuned.yaml"],
        "compare",
    );
}

/// One configuration's timeline fits the terminal too: at 80 columns REC and PROP are left
/// out (said under the header), at 120 every column is shown.
#[test]
fn a_single_timeline_fits_80_and_120_columns() {
    timeline_fits(&[], "single");
}

/// `simulate --hpa hpa.yaml --scenario day.yaml ARGS` at 80 and 120 columns: no line wider,
/// and the text equals `tests/simulate_data/golden/TAG.WIDTH.txt`.
fn timeline_fits(args: &[&str], tag: &str) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stale = vec![];
    for width in [80, 120] {
        let out = crate::support::binary::bare()
            .args([
                "simulate",
                "--hpa",
                "examples/simulate/hpa.yaml",
                "--scenario",
                "examples/simulate/day.yaml",
            ])
            .args(args)
            .current_dir(root)
            .env("NO_COLOR", "1")
            .env("COLUMNS", width.to_string())
            .output()
            .expect("the binary runs");
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > width).collect();
        assert!(
            long.is_empty(),
            "over {width} columns:\n{}",
            long.join("\n")
        );
        let golden = root.join(format!("tests/simulate_data/golden/{tag}.{width}.txt"));
        stale.extend(crate::support::golden::compare(&golden, &text).err());
    }
    crate::support::golden::assert_none_stale(&stale, "simulate's timeline");
}

/// A run pinned at maxReplicas says how long and what the metrics wanted above it (issue 29
/// item 1), in the text summary and in the JSON.
#[test]
fn a_run_capped_at_max_replicas_says_so() {
    let dir = crate::support::binary::tmpdir("at-max");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let hpa = std::fs::read_to_string(root.join("examples/simulate/hpa.yaml"))
        .expect("the example")
        .replace("maxReplicas: 20", "maxReplicas: 3");
    let capped = dir.join("max3.yaml");
    std::fs::write(&capped, hpa).expect("write");
    let args = |output: &'static str| {
        vec![
            "simulate".to_string(),
            "--hpa".into(),
            capped.to_str().unwrap().into(),
            "--scenario".into(),
            "examples/simulate/day.yaml".into(),
            "--timeline".into(),
            "none".into(),
            "-o".into(),
            output.into(),
        ]
    };
    let run = |output| {
        let out = crate::support::binary::bare()
            .args(args(output))
            .current_dir(root)
            .env("NO_COLOR", "1")
            .output()
            .expect("the binary runs");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    let text = run("text");
    assert!(
        text.contains("at maxReplicas                      ┆ 11h52m45s (49.5%)"),
        "{text}"
    );
    assert!(
        text.contains("up to 10 (+7 over maxReplicas 3) at +18h0m0s"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&run("json")).expect("JSON");
    let summary = &json["summaries"][0];
    assert_eq!(summary["atMaxSeconds"], 42765.0, "{summary}");
    assert_eq!(summary["wantedAboveMax"]["replicas"], 10, "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}
