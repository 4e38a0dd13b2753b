//! The controller's settings: kube-controller-manager flags, the Kubernetes release whose
//! behaviour is reproduced, and the feature gates that change the algorithm.
//!
//! The release is chosen by [`resolve_release`], in this order: `--kubernetes-version`; the
//! server's `/version` (live); the snapshot's `kubectl-hpa.dev/server-version` annotation
//! (offline); else the newest release. Feature-gate defaults follow the chosen release, and a
//! gate that does not exist in it, or is locked there, is refused as the controller refuses it.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use jiff::SignedDuration;
use serde::Serialize;

/// The oldest modelled minor version (autoscaling/v2 is GA from 1.23).
pub const OLDEST_MINOR: u32 = 23;
/// The newest released minor version: the default when nothing says otherwise.
pub const NEWEST_MINOR: u32 = 37;
/// A minor version modelled from the controller's unreleased source (pre-release): chosen only
/// by `--kubernetes-version 1.38` or a server that reports it (`v1.38.0-alpha.1`).
pub const PRERELEASE_MINOR: u32 = 38;

/// A bad `--kubernetes-version` or `--feature-gates` for the chosen release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsError {
    /// Not of the form `1.MINOR[...]`.
    InvalidVersion {
        given: String,
    },
    /// A `1.MINOR` outside the modelled releases.
    OutOfRange {
        given: String,
        minor: u32,
    },
    /// Not `NAME=true|false`.
    InvalidGate {
        item: String,
    },
    InvalidGateValue {
        name: String,
        value: String,
    },
    /// Not one of the gates that change the HPA algorithm.
    UnknownGate {
        name: String,
    },
    /// The gate exists, but not yet in the chosen release.
    GateNotInRelease {
        name: &'static str,
        version: KubeVersion,
        added: u32,
        from: String,
    },
    /// The gate is GA and locked in the chosen release; only its locked value is accepted.
    GateLocked {
        name: &'static str,
        locked_to: bool,
        version: KubeVersion,
        from: String,
    },
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingsError::InvalidVersion { given } => write!(
                f,
                "invalid Kubernetes version {given:?}: expected MAJOR.MINOR such as 1.{NEWEST_MINOR}"
            ),
            SettingsError::OutOfRange { given, minor } => write!(
                f,
                "Kubernetes version {given:?} (1.{minor}) is outside the supported range 1.{OLDEST_MINOR}..1.{PRERELEASE_MINOR}"
            ),
            SettingsError::InvalidGate { item } => {
                write!(f, "invalid feature gate {item:?}: expected NAME=true|false")
            }
            SettingsError::InvalidGateValue { name, value } => write!(
                f,
                "invalid value {value:?} for feature gate {name}: expected true or false"
            ),
            SettingsError::UnknownGate { name } => write!(
                f,
                "unknown feature gate {name:?}: the gates that change the HPA algorithm are {}",
                KNOWN_GATES.join(", ")
            ),
            SettingsError::GateNotInRelease {
                name,
                version,
                added,
                from,
            } => write!(
                f,
                "unrecognized feature gate: {name} (Kubernetes {version}, {from}, has no such gate: it was added in 1.{added})"
            ),
            SettingsError::GateLocked {
                name,
                locked_to,
                version,
                from,
            } => write!(
                f,
                "cannot set feature gate {name} to {}, feature is locked to {locked_to} (Kubernetes {version}, {from}: the gate is GA)",
                !locked_to
            ),
        }
    }
}

impl std::error::Error for SettingsError {}

/// A Kubernetes release (1.minor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct KubeVersion {
    pub minor: u32,
}

impl KubeVersion {
    /// The newest released version (the default).
    pub const NEWEST: KubeVersion = KubeVersion {
        minor: NEWEST_MINOR,
    };
    /// The oldest modelled version.
    pub const OLDEST: KubeVersion = KubeVersion {
        minor: OLDEST_MINOR,
    };
    /// The unreleased version modelled from the controller's source.
    pub const PRERELEASE: KubeVersion = KubeVersion {
        minor: PRERELEASE_MINOR,
    };

    pub fn at_least(self, minor: u32) -> bool {
        self.minor >= minor
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

impl Serialize for KubeVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `(major, minor)` of a version string as `--kubernetes-version` takes it (`1.31`) or as
/// distributions write `gitVersion`: `v1.30.4-gke.1200`, `v1.29.10-eks-7f9249a`,
/// `v1.31.2+k3s1`, `v1.34.3+rke2r1`, `v1.33.0-rc.1`, `v1.36.2-aks`. The minor must be followed
/// by the end, `.`, `-` or `+`; anything else (`1.3x`, `latest`) is not a version.
pub fn parse_major_minor(s: &str) -> Option<(u32, u32)> {
    let t = s.trim();
    let t = t.strip_prefix('v').unwrap_or(t);
    let (major, rest) = t.split_once('.')?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let (minor, tail) = rest.split_at(digits);
    if !(tail.is_empty() || tail.starts_with(['.', '-', '+'])) {
        return None;
    }
    if major.is_empty() || !major.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((major.parse().ok()?, minor.parse().ok()?))
}

impl FromStr for KubeVersion {
    type Err = SettingsError;
    /// Accepts `1.31`, `v1.31`, `1.31.4`, `v1.31.4-gke.100`, within 1.23..=1.38.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match parse_major_minor(s) {
            Some((1, m)) if (OLDEST_MINOR..=PRERELEASE_MINOR).contains(&m) => {
                Ok(KubeVersion { minor: m })
            }
            Some((1, m)) => Err(SettingsError::OutOfRange {
                given: s.to_string(),
                minor: m,
            }),
            _ => Err(SettingsError::InvalidVersion {
                given: s.to_string(),
            }),
        }
    }
}

/// What says which release the cluster runs, besides the flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence<'a> {
    /// Live: the `gitVersion` of the server's `/version`.
    Server(&'a str),
    /// Offline: the snapshot's `kubectl-hpa.dev/server-version` annotation.
    Snapshot(&'a str),
}

/// The modelled release and where it came from (`settings.kubernetesVersionSource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    pub version: KubeVersion,
    pub source: String,
}

/// The source text when nothing names the release.
pub const DEFAULT_SOURCE: &str = "default: newest release";

/// Choose the release to model: the flag, else the evidence, else the newest release.
///
/// Only a bad flag is an error. A server version that is not a Kubernetes release falls back to
/// the newest release; one older than 1.23 is modelled as 1.23, one newer than 1.38 as 1.38 —
/// each saying so in the source text, never silently.
pub fn resolve_release(
    flag: Option<&str>,
    evidence: Option<Evidence>,
) -> Result<Release, SettingsError> {
    if let Some(f) = flag {
        let version = f.parse::<KubeVersion>()?;
        return Ok(Release {
            version,
            source: format!("flag --kubernetes-version {}", f.trim()),
        });
    }
    let Some(evidence) = evidence else {
        return Ok(Release {
            version: KubeVersion::NEWEST,
            source: DEFAULT_SOURCE.into(),
        });
    };
    let (what, git) = match evidence {
        Evidence::Server(v) => ("server /version", v),
        Evidence::Snapshot(v) => ("snapshot server-version", v),
    };
    let shown = format!("{what} {}", git.trim());
    let (version, source) = match parse_major_minor(git) {
        Some((1, m)) if m < OLDEST_MINOR => (
            KubeVersion::OLDEST,
            format!(
                "{shown}, older than the oldest modelled release: modelled as {}",
                KubeVersion::OLDEST
            ),
        ),
        Some((1, m)) if m > PRERELEASE_MINOR => (
            KubeVersion::PRERELEASE,
            format!(
                "{shown}, newer than the newest modelled release: modelled as {}",
                KubeVersion::PRERELEASE
            ),
        ),
        Some((1, m)) if m == PRERELEASE_MINOR => (
            KubeVersion { minor: m },
            format!("{shown} (1.{m} is modelled from the controller's unreleased source)"),
        ),
        Some((1, m)) => (KubeVersion { minor: m }, shown),
        _ => (
            KubeVersion::NEWEST,
            format!("{DEFAULT_SOURCE} ({what} {git:?} is not a Kubernetes release)"),
        ),
    };
    Ok(Release { version, source })
}

/// Feature gates of kube-controller-manager that change the HPA algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "PascalCase")]
pub struct FeatureGates {
    /// `HPAScaleToZero`: the ScaledToZero logic (1.36+; on by default from 1.37). The gate
    /// itself exists since 1.16 (it only allowed `minReplicas: 0` before 1.36).
    #[serde(rename = "HPAScaleToZero")]
    pub hpa_scale_to_zero: bool,
    /// `HPAConfigurableTolerance`: `behavior.scaleUp/scaleDown.tolerance` (1.33+; on by
    /// default from 1.35; GA and locked on in 1.37).
    #[serde(rename = "HPAConfigurableTolerance")]
    pub hpa_configurable_tolerance: bool,
    /// `PodLevelResources`: pod-level requests (1.32+; on by default from 1.34; the HPA reads
    /// them only from 1.34).
    #[serde(rename = "PodLevelResources")]
    pub pod_level_resources: bool,
}

pub const KNOWN_GATES: &[&str] = &[
    "HPAScaleToZero",
    "HPAConfigurableTolerance",
    "PodLevelResources",
];

/// The life of a gate in `pkg/features/kube_features.go`.
struct GateLife {
    name: &'static str,
    /// First minor in which the gate exists.
    added: u32,
    /// First minor in which it is on by default.
    on_by_default: u32,
    /// First minor in which it is GA and locked to true.
    locked: Option<u32>,
}

const GATES: &[GateLife] = &[
    GateLife {
        name: "HPAScaleToZero",
        added: 16,
        on_by_default: 37,
        locked: None,
    },
    GateLife {
        name: "HPAConfigurableTolerance",
        added: 33,
        on_by_default: 35,
        locked: Some(37),
    },
    GateLife {
        name: "PodLevelResources",
        added: 32,
        on_by_default: 34,
        locked: None,
    },
];

/// `NAME=true|false` items of a `--feature-gates` value.
fn gate_items(spec: &str) -> Result<Vec<(&'static GateLife, bool)>, SettingsError> {
    let mut out = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| SettingsError::InvalidGate {
                item: item.to_string(),
            })?;
        let name = name.trim();
        let on = match value.trim() {
            "true" => true,
            "false" => false,
            other => {
                return Err(SettingsError::InvalidGateValue {
                    name: name.to_string(),
                    value: other.to_string(),
                })
            }
        };
        let life =
            GATES
                .iter()
                .find(|g| g.name == name)
                .ok_or_else(|| SettingsError::UnknownGate {
                    name: name.to_string(),
                })?;
        out.push((life, on));
    }
    Ok(out)
}

impl FeatureGates {
    /// The defaults of a release.
    pub fn defaults_for(v: KubeVersion) -> FeatureGates {
        let on = |name: &str| {
            GATES
                .iter()
                .any(|g| g.name == name && v.at_least(g.on_by_default))
        };
        FeatureGates {
            hpa_scale_to_zero: on("HPAScaleToZero"),
            hpa_configurable_tolerance: on("HPAConfigurableTolerance"),
            pod_level_resources: on("PodLevelResources"),
        }
    }

    /// Check the syntax and the names of `--feature-gates` (before the release is known).
    pub fn check(spec: &str) -> Result<(), SettingsError> {
        gate_items(spec).map(|_| ())
    }

    /// Apply `--feature-gates A=true,B=false` on top of the defaults of release `v`, refusing
    /// a gate that `v` does not have and `=false` for a gate locked on in `v`; `from` says where
    /// the release came from, for the error.
    pub fn apply(&mut self, spec: &str, v: KubeVersion, from: &str) -> Result<(), SettingsError> {
        for (life, on) in gate_items(spec)? {
            if !v.at_least(life.added) {
                return Err(SettingsError::GateNotInRelease {
                    name: life.name,
                    version: v,
                    added: life.added,
                    from: from.to_string(),
                });
            }
            if life.locked.is_some_and(|l| v.at_least(l)) && !on {
                return Err(SettingsError::GateLocked {
                    name: life.name,
                    locked_to: true,
                    version: v,
                    from: from.to_string(),
                });
            }
            match life.name {
                "HPAScaleToZero" => self.hpa_scale_to_zero = on,
                "HPAConfigurableTolerance" => self.hpa_configurable_tolerance = on,
                _ => self.pod_level_resources = on,
            }
        }
        Ok(())
    }

    pub fn as_map(&self) -> BTreeMap<&'static str, bool> {
        BTreeMap::from([
            ("HPAScaleToZero", self.hpa_scale_to_zero),
            ("HPAConfigurableTolerance", self.hpa_configurable_tolerance),
            ("PodLevelResources", self.pod_level_resources),
        ])
    }
}

/// What the command line asked for, kept so that the release can be chosen once the cluster's
/// own version is known (see [`Settings::for_evidence`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requested {
    /// `--kubernetes-version`, as given.
    pub kubernetes_version: Option<String>,
    /// `--feature-gates`, as given.
    pub feature_gates: Option<String>,
}

/// Controller-manager flags relevant to the HPA (their defaults match kube-controller-manager).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `--horizontal-pod-autoscaler-tolerance`.
    pub tolerance: f64,
    /// `--horizontal-pod-autoscaler-cpu-initialization-period`.
    #[serde(serialize_with = "ser_duration")]
    #[schemars(with = "String")]
    pub cpu_initialization_period: SignedDuration,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay`.
    #[serde(serialize_with = "ser_duration")]
    #[schemars(with = "String")]
    pub initial_readiness_delay: SignedDuration,
    /// `--horizontal-pod-autoscaler-downscale-stabilization`.
    #[serde(serialize_with = "ser_duration")]
    #[schemars(with = "String")]
    pub downscale_stabilization: SignedDuration,
    /// `--horizontal-pod-autoscaler-sync-period` (used by simulate and watch).
    #[serde(serialize_with = "ser_duration")]
    #[schemars(with = "String")]
    pub sync_period: SignedDuration,
    /// The modelled release.
    pub kubernetes_version: KubeVersion,
    /// Where the release came from: `flag --kubernetes-version 1.30`,
    /// `server /version v1.30.4-gke.1200`, `snapshot server-version v1.30.4-gke.1200`,
    /// `default: newest release` (with a note when the server's version is not modelled).
    pub kubernetes_version_source: String,
    #[serde(serialize_with = "ser_gates")]
    #[schemars(with = "std::collections::BTreeMap<String, bool>")]
    pub feature_gates: FeatureGates,
    /// The flags the release and gates were resolved from.
    #[serde(skip)]
    pub requested: Requested,
}

fn ser_duration<S: serde::Serializer>(d: &SignedDuration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::duration::format_go_duration(
        d.as_nanos().clamp(i64::MIN as i128, i64::MAX as i128) as i64,
    ))
}

fn ser_gates<S: serde::Serializer>(g: &FeatureGates, s: S) -> Result<S::Ok, S::Error> {
    g.as_map().serialize(s)
}

impl Default for Settings {
    fn default() -> Self {
        Settings::for_version(KubeVersion::NEWEST)
    }
}

impl Settings {
    /// The controller's defaults for release `v` (source: the newest-release default for
    /// [`KubeVersion::NEWEST`], else "given").
    pub fn for_version(v: KubeVersion) -> Settings {
        Settings {
            tolerance: 0.1,
            cpu_initialization_period: SignedDuration::from_mins(5),
            initial_readiness_delay: SignedDuration::from_secs(30),
            downscale_stabilization: SignedDuration::from_mins(5),
            sync_period: SignedDuration::from_secs(15),
            kubernetes_version: v,
            kubernetes_version_source: if v == KubeVersion::NEWEST {
                DEFAULT_SOURCE.into()
            } else {
                "given".into()
            },
            feature_gates: FeatureGates::defaults_for(v),
            requested: Requested::default(),
        }
    }

    pub fn version(&self) -> KubeVersion {
        self.kubernetes_version
    }

    /// These settings with the release chosen by [`resolve_release`] from the requested flag and
    /// `evidence`, and the gate defaults of that release with `--feature-gates` applied.
    pub fn for_evidence(&self, evidence: Option<Evidence>) -> Result<Settings, SettingsError> {
        let release = resolve_release(self.requested.kubernetes_version.as_deref(), evidence)?;
        let mut s = self.clone();
        s.feature_gates = FeatureGates::defaults_for(release.version);
        if let Some(g) = &self.requested.feature_gates {
            s.feature_gates.apply(g, release.version, &release.source)?;
        }
        s.kubernetes_version = release.version;
        s.kubernetes_version_source = release.source;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(minor: u32) -> KubeVersion {
        KubeVersion { minor }
    }

    #[test]
    fn parses_versions() {
        assert_eq!("1.30".parse::<KubeVersion>().unwrap().minor, 30);
        assert_eq!("v1.33.2-eks-1".parse::<KubeVersion>().unwrap().minor, 33);
        assert_eq!("1.38".parse::<KubeVersion>().unwrap().minor, 38);
        assert!(matches!(
            "1.12".parse::<KubeVersion>(),
            Err(SettingsError::OutOfRange { minor: 12, .. })
        ));
        assert!("1.39".parse::<KubeVersion>().is_err());
        assert!("2.0".parse::<KubeVersion>().is_err());
        assert!("latest".parse::<KubeVersion>().is_err());
        assert!("1.3x".parse::<KubeVersion>().is_err());
        assert!("1.".parse::<KubeVersion>().is_err());
    }

    #[test]
    fn parses_the_git_versions_of_real_distributions() {
        for (git, minor) in [
            ("v1.30.4-gke.1200", 30),
            ("v1.29.10-eks-7f9249a", 29),
            ("v1.31.2+k3s1", 31),
            ("v1.34.3+rke2r1", 34),
            ("v1.33.0-rc.1", 33),
            ("v1.36.2-aks", 36),
            ("v1.38.0-alpha.1", 38),
        ] {
            assert_eq!(parse_major_minor(git), Some((1, minor)), "{git}");
            let r = resolve_release(None, Some(Evidence::Server(git))).unwrap();
            assert_eq!(r.version, v(minor), "{git}");
            assert!(
                r.source.starts_with(&format!("server /version {git}")),
                "{}",
                r.source
            );
        }
        assert_eq!(parse_major_minor("v0.0.0-master+$Format:%H$"), Some((0, 0)));
        assert_eq!(parse_major_minor("garbage"), None);
    }

    #[test]
    fn the_flag_wins_then_the_server_then_the_snapshot_then_the_newest() {
        let server = Some(Evidence::Server("v1.30.4-gke.1200"));
        let r = resolve_release(Some("1.32"), server).unwrap();
        assert_eq!(
            (r.version, r.source.as_str()),
            (v(32), "flag --kubernetes-version 1.32")
        );
        let r = resolve_release(None, server).unwrap();
        assert_eq!(
            (r.version, r.source.as_str()),
            (v(30), "server /version v1.30.4-gke.1200")
        );
        let r = resolve_release(None, Some(Evidence::Snapshot("v1.29.10-eks-7f9249a"))).unwrap();
        assert_eq!(r.version, v(29));
        assert_eq!(r.source, "snapshot server-version v1.29.10-eks-7f9249a");
        let r = resolve_release(None, None).unwrap();
        assert_eq!(
            (r.version, r.source.as_str()),
            (KubeVersion::NEWEST, DEFAULT_SOURCE)
        );
        assert!(resolve_release(Some("1.12"), server).is_err());
    }

    #[test]
    fn unmodelled_server_versions_are_named_never_silent() {
        let r = resolve_release(None, Some(Evidence::Server("v1.21.14"))).unwrap();
        assert_eq!(r.version, KubeVersion::OLDEST);
        assert_eq!(
            r.source,
            "server /version v1.21.14, older than the oldest modelled release: modelled as 1.23"
        );
        let r = resolve_release(None, Some(Evidence::Snapshot("v1.41.0"))).unwrap();
        assert_eq!(r.version, KubeVersion::PRERELEASE);
        assert!(
            r.source.contains("newer than the newest modelled release"),
            "{}",
            r.source
        );
        let r = resolve_release(None, Some(Evidence::Server("v0.0.0-master"))).unwrap();
        assert_eq!(r.version, KubeVersion::NEWEST);
        assert!(
            r.source
                .contains("\"v0.0.0-master\" is not a Kubernetes release"),
            "{}",
            r.source
        );
        let r = resolve_release(None, Some(Evidence::Server("v1.38.0-alpha.1"))).unwrap();
        assert!(r.source.contains("unreleased source"), "{}", r.source);
    }

    #[test]
    fn gate_defaults_follow_releases() {
        let g = FeatureGates::defaults_for(v(36));
        assert!(!g.hpa_scale_to_zero);
        assert!(g.hpa_configurable_tolerance);
        let g = FeatureGates::defaults_for(v(34));
        assert!(!g.hpa_configurable_tolerance);
        assert!(g.pod_level_resources);
        assert!(!FeatureGates::defaults_for(v(33)).pod_level_resources);
        let mut g = FeatureGates::defaults_for(KubeVersion::NEWEST);
        assert!(g.hpa_scale_to_zero);
        g.apply(
            "HPAScaleToZero=false, HPAConfigurableTolerance=true",
            KubeVersion::NEWEST,
            "t",
        )
        .unwrap();
        assert!(!g.hpa_scale_to_zero);
        let e = g.apply("Foo=true", KubeVersion::NEWEST, "t").unwrap_err();
        assert!(e.to_string().contains("unknown feature gate"));
        assert!(g.apply("HPAScaleToZero", KubeVersion::NEWEST, "t").is_err());
        assert!(g
            .apply("HPAScaleToZero=yes", KubeVersion::NEWEST, "t")
            .is_err());
        assert!(FeatureGates::check("Foo=true").is_err());
        assert!(FeatureGates::check("PodLevelResources=false").is_ok());
    }

    #[test]
    fn a_gate_must_exist_in_the_release() {
        let mut g = FeatureGates::defaults_for(v(32));
        let e = g
            .apply("HPAConfigurableTolerance=true", v(32), "flag")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "unrecognized feature gate: HPAConfigurableTolerance (Kubernetes 1.32, flag, has no such gate: it was added in 1.33)"
        );
        g.apply("HPAConfigurableTolerance=true", v(33), "flag")
            .unwrap();
        assert!(g.hpa_configurable_tolerance);
        assert!(g.apply("PodLevelResources=true", v(31), "flag").is_err());
        g.apply("PodLevelResources=true", v(32), "flag").unwrap();
        // HPAScaleToZero exists since 1.16: every modelled release accepts it.
        g.apply("HPAScaleToZero=true", v(23), "flag").unwrap();
    }

    #[test]
    fn a_locked_gate_refuses_false() {
        let mut g = FeatureGates::defaults_for(v(37));
        let e = g
            .apply("HPAConfigurableTolerance=false", v(37), "flag")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot set feature gate HPAConfigurableTolerance to false, feature is locked to true (Kubernetes 1.37, flag: the gate is GA)"
        );
        g.apply("HPAConfigurableTolerance=true", v(37), "flag")
            .unwrap();
        let mut g = FeatureGates::defaults_for(v(36));
        g.apply("HPAConfigurableTolerance=false", v(36), "flag")
            .unwrap();
        assert!(!g.hpa_configurable_tolerance);
    }

    #[test]
    fn settings_follow_the_evidence() {
        let mut s = Settings::default();
        s.requested.feature_gates = Some("HPAConfigurableTolerance=false".into());
        let e = s.for_evidence(None).unwrap_err();
        assert!(e.to_string().contains("locked to true"), "{e}");
        let r = s.for_evidence(Some(Evidence::Server("v1.34.1"))).unwrap();
        assert_eq!(r.kubernetes_version, v(34));
        assert!(!r.feature_gates.hpa_configurable_tolerance);
        assert!(r.feature_gates.pod_level_resources);
        assert_eq!(r.kubernetes_version_source, "server /version v1.34.1");
        let e = s
            .for_evidence(Some(Evidence::Snapshot("v1.32.0")))
            .unwrap_err();
        assert!(
            e.to_string().contains("snapshot server-version v1.32.0"),
            "{e}"
        );
        s.requested.kubernetes_version = Some("1.35".into());
        let r = s.for_evidence(Some(Evidence::Server("v1.30.0"))).unwrap();
        assert_eq!(r.kubernetes_version, v(35));
        // Resolving again gives the same settings.
        assert_eq!(
            r.for_evidence(Some(Evidence::Server("v1.30.0"))).unwrap(),
            r
        );
    }
}
