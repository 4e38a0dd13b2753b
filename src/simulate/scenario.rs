//! The scenario file: how long to run, the world, and the load of each metric.
//!
//! ```yaml
//! apiVersion: kubectl-hpa.dev/v1   # optional
//! kind: Scenario                   # optional
//! duration: 2h                     # default 1h
//! start: "2026-03-01T12:00:00Z"    # default: the snapshot's time
//! interpolation: linear            # step | linear, for recorded series (default linear)
//! world:
//!   podStartup: 30s                # creation → Ready
//!   startupCpu: 500m               # extra CPU a pod burns while starting (default 0)
//!   startupBurst: 60s              # how long the burst lasts (default: podStartup)
//!   metricsLag: 15s                # samples describe the load this long ago
//!   metricsWindow: 15s             # the samples' averaging window
//! loads:
//! - metric: cpu                    # a resource (cpu, memory) or a Pods/Object/External metric name
//!   kind: demand                   # demand (default) | perPod | value
//!   shape: {type: ramp, from: 1, to: 6, start: 5m, end: 20m}
//! - metric: http_requests_per_second
//!   points:                        # or csv: FILE, prometheus: FILE (relative to this file)
//!   - {at: 0s, value: 100}
//!   - {at: 10m, value: 400}
//! ```
//!
//! Parsing does no I/O: `csv`/`prometheus` entries come back as paths for the caller to read.

use std::path::PathBuf;

use jiff::{SignedDuration, Timestamp};
use serde::Deserialize;

use super::error::SimulateError;
use super::series::{self, Interpolation, SeriesBuilder, Shape, Signal};
use super::world::LoadKind;

/// A number or a string (`1.5`, `"1500m"`, `"5m"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Lit {
    Num(f64),
    Str(String),
}

impl Lit {
    fn value(&self, at: &str) -> Result<f64, SimulateError> {
        match self {
            Lit::Num(v) => Ok(*v),
            Lit::Str(s) => {
                series::parse_value(s).map_err(|e| SimulateError::Scenario(format!("{at}: {e}")))
            }
        }
    }
    fn offset(&self, at: &str) -> Result<f64, SimulateError> {
        match self {
            Lit::Num(v) => Ok(*v),
            Lit::Str(s) => {
                series::parse_offset(s).map_err(|e| SimulateError::Scenario(format!("{at}: {e}")))
            }
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ScenarioFile {
    api_version: Option<String>,
    kind: Option<String>,
    duration: Option<Lit>,
    start: Option<String>,
    interpolation: Option<Interpolation>,
    world: Option<WorldFile>,
    #[serde(default)]
    loads: Vec<LoadFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WorldFile {
    pod_startup: Option<Lit>,
    startup_cpu: Option<Lit>,
    startup_burst: Option<Lit>,
    metrics_lag: Option<Lit>,
    metrics_window: Option<Lit>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LoadFile {
    metric: String,
    kind: Option<LoadKind>,
    interpolation: Option<Interpolation>,
    points: Option<Vec<PointFile>>,
    csv: Option<String>,
    prometheus: Option<String>,
    shape: Option<ShapeFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PointFile {
    at: Lit,
    value: Lit,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
enum ShapeFile {
    Constant {
        value: Lit,
    },
    Step {
        from: Lit,
        to: Lit,
        at: Lit,
    },
    Ramp {
        from: Lit,
        to: Lit,
        start: Lit,
        end: Lit,
    },
    Spike {
        base: Lit,
        peak: Lit,
        at: Lit,
        duration: Lit,
    },
    Sine {
        mean: Lit,
        amplitude: Lit,
        period: Lit,
    },
}

/// World settings from the scenario (each optional: flags and defaults fill the rest).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WorldOverrides {
    pub pod_startup: Option<SignedDuration>,
    pub startup_cpu_milli: Option<i64>,
    pub startup_burst: Option<SignedDuration>,
    pub metrics_lag: Option<SignedDuration>,
    pub metrics_window: Option<SignedDuration>,
}

/// Where a load's values come from.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadSource {
    Signal(Signal),
    /// A CSV file still to be read, with the interpolation to use.
    Csv(PathBuf, Interpolation),
    /// A Prometheus query_range JSON file still to be read.
    Prometheus(PathBuf, Interpolation),
}

/// One declared load, before the files are read.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadDecl {
    pub metric: String,
    pub kind: LoadKind,
    pub source: LoadSource,
    /// Where it was declared (`scenario.yaml loads[0]`, `--demand`).
    pub origin: String,
}

/// A parsed scenario.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scenario {
    pub duration: Option<SignedDuration>,
    pub start: Option<Timestamp>,
    pub interpolation: Option<Interpolation>,
    pub world: WorldOverrides,
    pub loads: Vec<LoadDecl>,
}

fn duration(l: &Lit, at: &str) -> Result<SignedDuration, SimulateError> {
    let s = l.offset(at)?;
    if s < 0.0 {
        return Err(SimulateError::Scenario(format!(
            "{at}: must not be negative"
        )));
    }
    Ok(SignedDuration::from_nanos((s * 1e9).round() as i64))
}

impl Scenario {
    /// Parse scenario YAML. `source` names the file in errors; relative `csv`/`prometheus`
    /// paths are resolved against `base_dir`.
    pub fn parse(
        text: &str,
        source: &str,
        base_dir: &std::path::Path,
    ) -> Result<Scenario, SimulateError> {
        // Read as a tree first (the YAML front's budgets apply), then typed with the path of
        // the field that does not fit.
        let tree: serde_json::Value = crate::yaml::from_str(text).map_err(|e| {
            SimulateError::Scenario(format!("{source}: {}", crate::yaml::one_line(&e)))
        })?;
        let file: ScenarioFile = serde_path_to_error::deserialize(tree).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if path == "." || path.is_empty() {
                SimulateError::Scenario(format!("{source}: {inner}"))
            } else {
                SimulateError::Scenario(format!("{source}: field {path}: {inner}"))
            }
        })?;
        let at = |f: &str| format!("{source}: field {f}");
        check_header(&file, &at)?;
        let mut sc = Scenario {
            interpolation: file.interpolation,
            ..Default::default()
        };
        if let Some(d) = &file.duration {
            let d = duration(d, &at("duration"))?;
            if d.is_zero() {
                return Err(SimulateError::Scenario(format!(
                    "{}: must be greater than zero",
                    at("duration")
                )));
            }
            sc.duration = Some(d);
        }
        if let Some(s) = &file.start {
            sc.start = Some(s.parse::<Timestamp>().map_err(|e| {
                SimulateError::Scenario(format!("{}: invalid RFC3339 time {s:?}: {e}", at("start")))
            })?);
        }
        sc.world = world_overrides(file.world.as_ref(), &at)?;
        let default_interp = file.interpolation.unwrap_or_default();
        for (i, l) in file.loads.iter().enumerate() {
            sc.loads
                .push(load_decl(i, l, default_interp, source, base_dir, &at)?);
        }
        Ok(sc)
    }
}

/// `apiVersion` and `kind`, when given, must be ours.
fn check_header(file: &ScenarioFile, at: &dyn Fn(&str) -> String) -> Result<(), SimulateError> {
    if let Some(v) = &file.api_version {
        if v != "kubectl-hpa.dev/v1" {
            return Err(SimulateError::Scenario(format!(
                "{}: expected kubectl-hpa.dev/v1, got {v:?}",
                at("apiVersion")
            )));
        }
    }
    if let Some(k) = &file.kind {
        if k != "Scenario" {
            return Err(SimulateError::Scenario(format!(
                "{}: expected Scenario, got {k:?}",
                at("kind")
            )));
        }
    }
    Ok(())
}

/// The `world:` block.
fn world_overrides(
    w: Option<&WorldFile>,
    at: &dyn Fn(&str) -> String,
) -> Result<WorldOverrides, SimulateError> {
    let default = WorldFile::default();
    let w = w.unwrap_or(&default);
    let dur = |l: &Option<Lit>, f: &str| l.as_ref().map(|l| duration(l, &at(f))).transpose();
    Ok(WorldOverrides {
        pod_startup: dur(&w.pod_startup, "world.podStartup")?,
        startup_burst: dur(&w.startup_burst, "world.startupBurst")?,
        metrics_lag: dur(&w.metrics_lag, "world.metricsLag")?,
        metrics_window: dur(&w.metrics_window, "world.metricsWindow")?,
        startup_cpu_milli: match &w.startup_cpu {
            Some(l) => {
                let f = at("world.startupCpu");
                let v = l.value(&f)?;
                if v.is_nan() || v < 0.0 {
                    return Err(SimulateError::Scenario(format!(
                        "{f}: must be >= 0, got {v}"
                    )));
                }
                Some((v * 1000.0).round() as i64)
            }
            None => None,
        },
    })
}

/// One entry of `loads:`.
fn load_decl(
    i: usize,
    l: &LoadFile,
    default_interp: Interpolation,
    source: &str,
    base_dir: &std::path::Path,
    at: &dyn Fn(&str) -> String,
) -> Result<LoadDecl, SimulateError> {
    let f = format!("loads[{i}]");
    let interp = l.interpolation.unwrap_or(default_interp);
    let given = [
        l.points.is_some(),
        l.csv.is_some(),
        l.prometheus.is_some(),
        l.shape.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if given != 1 {
        return Err(SimulateError::Scenario(format!(
            "{}: give exactly one of points, csv, prometheus, shape (found {given})",
            at(&f)
        )));
    }
    if l.metric.trim().is_empty() {
        return Err(SimulateError::Scenario(format!(
            "{}: must name a metric",
            at(&format!("{f}.metric"))
        )));
    }
    let source_ = if let Some(points) = &l.points {
        let mut b = SeriesBuilder::new();
        for (j, p) in points.iter().enumerate() {
            let pf = at(&format!("{f}.points[{j}]"));
            b.push(
                p.at.offset(&format!("{pf}.at"))?,
                p.value.value(&format!("{pf}.value"))?,
                &pf,
            )?;
        }
        LoadSource::Signal(Signal::Series(
            b.build(interp, &at(&format!("{f}.points")))?,
        ))
    } else if let Some(c) = &l.csv {
        LoadSource::Csv(base_dir.join(c), interp)
    } else if let Some(p) = &l.prometheus {
        LoadSource::Prometheus(base_dir.join(p), interp)
    } else if let Some(decl) = &l.shape {
        let sf = at(&format!("{f}.shape"));
        let shape = shape(decl, &sf)?;
        series::validate_shape(&shape, &sf)?;
        LoadSource::Signal(Signal::Shape(shape))
    } else {
        return Err(SimulateError::Scenario(format!(
            "{}: give one of points, csv, prometheus, shape",
            at(&f)
        )));
    };
    Ok(LoadDecl {
        metric: l.metric.clone(),
        kind: l.kind.unwrap_or(LoadKind::Demand),
        source: source_,
        origin: format!("{source} loads[{i}]"),
    })
}

/// A `shape:` entry; `sf` names it in errors.
fn shape(s: &ShapeFile, sf: &str) -> Result<Shape, SimulateError> {
    let v = |l: &Lit, n: &str| l.value(&format!("{sf}.{n}"));
    let t = |l: &Lit, n: &str| l.offset(&format!("{sf}.{n}"));
    Ok(match s {
        ShapeFile::Constant { value } => Shape::Constant {
            value: v(value, "value")?,
        },
        ShapeFile::Step { from, to, at } => Shape::Step {
            from: v(from, "from")?,
            to: v(to, "to")?,
            at: t(at, "at")?,
        },
        ShapeFile::Ramp {
            from,
            to,
            start,
            end,
        } => Shape::Ramp {
            from: v(from, "from")?,
            to: v(to, "to")?,
            start: t(start, "start")?,
            end: t(end, "end")?,
        },
        ShapeFile::Spike {
            base,
            peak,
            at,
            duration,
        } => Shape::Spike {
            base: v(base, "base")?,
            peak: v(peak, "peak")?,
            at: t(at, "at")?,
            duration: t(duration, "duration")?,
        },
        ShapeFile::Sine {
            mean,
            amplitude,
            period,
        } => Shape::Sine {
            mean: v(mean, "mean")?,
            amplitude: v(amplitude, "amplitude")?,
            period: t(period, "period")?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Scenario, SimulateError> {
        Scenario::parse(text, "s.yaml", std::path::Path::new("/data"))
    }

    #[test]
    fn full_file() {
        let sc = parse(
            "apiVersion: kubectl-hpa.dev/v1\nkind: Scenario\nduration: 2h\ninterpolation: step\nworld:\n  podStartup: 45s\n  startupCpu: 500m\nloads:\n- metric: cpu\n  shape: {type: ramp, from: 1, to: 6, start: 5m, end: 20m}\n- metric: rps\n  kind: perPod\n  points:\n  - {at: 0s, value: 10}\n  - {at: 1m, value: \"20\"}\n- metric: queue\n  kind: value\n  csv: q.csv\n",
        )
        .unwrap();
        assert_eq!(sc.duration, Some(SignedDuration::from_hours(2)));
        assert_eq!(sc.world.pod_startup, Some(SignedDuration::from_secs(45)));
        assert_eq!(sc.world.startup_cpu_milli, Some(500));
        assert_eq!(sc.loads.len(), 3);
        assert_eq!(sc.loads[1].kind, LoadKind::PerPod);
        assert_eq!(
            sc.loads[2].source,
            LoadSource::Csv("/data/q.csv".into(), Interpolation::Step)
        );
        match &sc.loads[0].source {
            LoadSource::Signal(s) => assert_eq!(s.value_at(750.0), 3.5),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse("loads:\n- metric: cpu\n  shape: {type: wave, value: 1}\n").unwrap_err();
        assert!(
            e.to_string().starts_with("s.yaml: field loads[0].shape"),
            "{e}"
        );
        let e = parse(
            "loads:\n- metric: cpu\n  points:\n  - {at: 1m, value: 1}\n  - {at: 30s, value: 2}\n",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("s.yaml: field loads[0].points[1]: time +30s"),
            "{e}"
        );
        let e = parse("loads:\n- metric: cpu\n  points:\n  - {at: 1m, value: -1}\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("loads[0].points[0]: negative load -1"),
            "{e}"
        );
        let e = parse("durration: 1h\n").unwrap_err();
        assert!(e.to_string().contains("unknown field `durration`"), "{e}");
        let e = parse("loads:\n- metric: cpu\n").unwrap_err();
        assert!(e.to_string().contains("exactly one of points"), "{e}");
        let e = parse("loads: [\n").unwrap_err();
        assert!(e.to_string().starts_with("s.yaml: "), "{e}");
    }
}
