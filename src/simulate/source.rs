//! The HPA to simulate: chosen in a snapshot or a manifest (NAME and -n, or the only one), a
//! manifest given a synthetic target, the `--compare` manifest put in its place, and the
//! release evidence of the source. Pure: the command loads the files or the live objects.

use std::path::Path;

use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;

use super::error::{Result, SimulateError};
use super::options::{SimulateOptions, SourceChoice};
use crate::core::{History, Input, Settings};
use crate::snapshot::{Snapshot, Workload};

/// Where the HPA comes from, loaded.
#[derive(Debug, Clone)]
pub struct Source {
    pub snap: Snapshot,
    pub namespace: String,
    pub name: String,
    /// A manifest with a synthetic target (`--hpa`), not a snapshot or a live HPA.
    pub manifest: bool,
    /// Fetched from the cluster now.
    pub live: bool,
}

impl Source {
    /// A snapshot or manifest file, loaded: the HPA picked in it, a manifest given its
    /// synthetic target.
    pub fn from_file(mut snap: Snapshot, path: &Path, opts: &SimulateOptions) -> Result<Source> {
        let manifest = matches!(opts.source, SourceChoice::Manifest(_));
        let (namespace, name) =
            pick_hpa(&snap, opts.name.as_deref(), opts.namespace.as_deref(), path)?;
        if manifest {
            add_synthetic_target(&mut snap, &namespace, &name, opts.replicas)?;
        }
        check_replicas(opts, manifest)?;
        Ok(Source {
            snap,
            namespace,
            name,
            manifest,
            live: false,
        })
    }

    /// The objects of a live HPA, as `kubectl hpa snapshot NAME` would write them.
    pub fn live(
        snap: Snapshot,
        namespace: String,
        name: String,
        opts: &SimulateOptions,
    ) -> Result<Source> {
        check_replicas(opts, false)?;
        Ok(Source {
            snap,
            namespace,
            name,
            manifest: false,
            live: true,
        })
    }

    /// How the output names the source.
    pub fn note(&self, opts: &SimulateOptions, replay: bool) -> String {
        if self.manifest {
            let path = match &opts.source {
                SourceChoice::Manifest(p) => p.as_path(),
                _ => Path::new(""),
            };
            return format!("manifest {} with synthetic pods", path.display());
        }
        format!(
            "{}{}",
            match &opts.source {
                SourceChoice::Snapshot(p) => format!("snapshot {}", p.display()),
                _ => format!(
                    "live cluster, HPA {}/{} as fetched now",
                    self.namespace, self.name
                ),
            },
            if replay {
                " (tick 0 replays the snapshot's own pods and samples, as explain does)"
            } else {
                ""
            }
        )
    }

    /// The release: the flag, else the server's /version (live) or the one the snapshot
    /// recorded, else the newest release; `--feature-gates` checked against it.
    pub fn settings(&self, settings: Settings) -> Result<Settings> {
        let evidence = self
            .snap
            .server_version
            .as_deref()
            .filter(|_| !self.manifest)
            .map(|v| match self.live {
                true => crate::core::Evidence::Server(v),
                false => crate::core::Evidence::Snapshot(v),
            });
        settings
            .for_cluster(evidence, self.snap.controller_flags.as_ref())
            .map_err(|e| SimulateError::Usage(format!("--feature-gates: {e}")))
    }
}

fn check_replicas(opts: &SimulateOptions, manifest: bool) -> Result<()> {
    if opts.replicas.is_some() && !manifest {
        return Err(SimulateError::Flag("--replicas applies to --hpa; with --snapshot the starting replicas come from the snapshot".into()));
    }
    Ok(())
}

/// Choose the HPA of a file: NAME (and -n), or the only one.
pub fn pick_hpa(
    snap: &Snapshot,
    name: Option<&str>,
    ns: Option<&str>,
    path: &Path,
) -> Result<(String, String)> {
    let all = snap.hpa_names(ns);
    let found: Vec<(String, String)> = all
        .iter()
        .filter_map(|f| f.split_once('/'))
        .filter(|(_, n)| name.is_none_or(|want| want == *n))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] if name.is_some() => {
            let ns = ns.unwrap_or("default");
            let name = name.unwrap_or_default();
            // Let the snapshot reader produce its usual message.
            snap.input_for(
                ns,
                name,
                Settings::default(),
                History::default(),
                Timestamp::UNIX_EPOCH,
            )
            .map(|_| (ns.to_string(), name.to_string()))
            .map_err(SimulateError::from)
        }
        [] => Err(SimulateError::Source(format!(
            "{}: holds no autoscaling/v2 HorizontalPodAutoscaler",
            path.display()
        ))),
        many => Err(SimulateError::Source(format!(
            "{}: holds several HPAs ({}); name one: kubectl hpa simulate NAME -n NAMESPACE ...",
            path.display(),
            many.iter()
                .map(|(a, b)| format!("{a}/{b}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Give a manifest's HPA a target: a scale with `replicas` (default minReplicas) and a selector.
pub fn add_synthetic_target(
    snap: &mut Snapshot,
    ns: &str,
    name: &str,
    replicas: Option<i32>,
) -> Result<()> {
    let hpa = snap
        .hpas
        .iter()
        .find(|h| h.metadata.name.as_deref() == Some(name))
        .ok_or_else(|| SimulateError::Source(format!("no HorizontalPodAutoscaler {name}")))?;
    let r = &hpa.spec.scale_target_ref;
    let min = hpa.spec.min_replicas.unwrap_or(1);
    let replicas = replicas.unwrap_or(min.max(1));
    if replicas < 0 {
        return Err(SimulateError::Flag(format!(
            "--replicas: must be >= 0, got {replicas}"
        )));
    }
    let workload = Workload {
        kind: r.kind.clone(),
        namespace: ns.to_string(),
        name: r.name.clone(),
        scale: super::engine::synthetic_scale(replicas, &format!("app={}", sanitize(&r.name))),
        uid: None,
    };
    snap.workloads.push(workload);
    Ok(())
}

/// A name usable in pod names and label values: other characters become `-`.
pub fn sanitize(s: &str) -> String {
    let v: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if v.is_empty() {
        "sim".into()
    } else {
        v
    }
}

/// The compare manifest (`other`, read from `path`) in place of the base HPA, on the same
/// snapshot and target.
pub fn compare_input(
    source: &Source,
    (path, other): (&Path, &Snapshot),
    settings: &Settings,
    history: &History,
    start: Timestamp,
) -> Result<Input> {
    let (snap, ns, name) = (&source.snap, &source.namespace, &source.name);
    let mut hpa: HorizontalPodAutoscaler = match other.hpas.as_slice() {
        [one] => one.clone(),
        [] => {
            return Err(SimulateError::Source(format!(
                "--compare {}: holds no autoscaling/v2 HorizontalPodAutoscaler",
                path.display()
            )))
        }
        _ => {
            return Err(SimulateError::Source(format!(
                "--compare {}: holds several HPAs; give a file with one",
                path.display()
            )))
        }
    };
    let mut snap = snap.clone();
    let idx = snap
        .hpas
        .iter()
        .position(|h| {
            h.metadata.name.as_deref() == Some(name.as_str())
                && h.metadata.namespace.as_deref().unwrap_or("default") == ns.as_str()
        })
        .ok_or_else(|| SimulateError::Source(format!("no HorizontalPodAutoscaler {ns}/{name}")))?;
    let base = &snap.hpas[idx];
    hpa.metadata.name = base.metadata.name.clone();
    hpa.metadata.namespace = base.metadata.namespace.clone();
    hpa.spec.scale_target_ref = base.spec.scale_target_ref.clone();
    hpa.status = base.status.clone();
    snap.hpas[idx] = hpa;
    snap.source = format!("--compare {}", path.display());
    Ok(snap.input_for(ns, name, settings.clone(), history.clone(), start)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(p: &str) -> Snapshot {
        Snapshot::from_file(Path::new(p)).expect("the test file reads")
    }

    #[test]
    fn the_only_hpa_or_the_named_one() {
        let snap = file("tests/simulate_data/cpu.yaml");
        let p = Path::new("cpu.yaml");
        assert_eq!(
            pick_hpa(&snap, None, None, p).unwrap(),
            ("shop".to_string(), "web".to_string())
        );
        assert_eq!(
            pick_hpa(&snap, Some("web"), None, p).unwrap().1,
            "web".to_string()
        );
        let e = pick_hpa(&snap, Some("api"), None, p).unwrap_err();
        assert!(matches!(e, SimulateError::Snapshot(_)), "{e:?}");
    }

    #[test]
    fn a_manifest_gets_a_synthetic_target() {
        let mut snap = file("tests/simulate_data/cpu.yaml");
        assert!(snap.workloads.is_empty());
        add_synthetic_target(&mut snap, "shop", "web", Some(4)).unwrap();
        assert_eq!(snap.workloads.len(), 1);
        assert_eq!(snap.workloads[0].name, "web");
        let e = add_synthetic_target(&mut snap, "shop", "web", Some(-1)).unwrap_err();
        assert_eq!(e.to_string(), "--replicas: must be >= 0, got -1");
        assert_eq!(sanitize("web/api v2"), "web-api-v2");
        assert_eq!(sanitize(""), "sim");
    }
}
