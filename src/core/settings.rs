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
    /// `HPAOptimizedSelectorStore` (1.37+, beta, on by default; kubernetes PR #139142): the
    /// controller's store of which HPA selects which pods. It changes no number, only the
    /// AmbiguousSelector message (two HPAs named instead of all). `None`: the release's
    /// default ([`FeatureGates::optimized_selector_store`]); listed in `featureGates` only
    /// when set, so outputs that never set it stay as they were.
    #[serde(skip)]
    pub hpa_optimized_selector_store: Option<bool>,
}

pub const KNOWN_GATES: &[&str] = &[
    "HPAScaleToZero",
    "HPAConfigurableTolerance",
    "PodLevelResources",
    "HPAOptimizedSelectorStore",
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
    GateLife {
        name: "HPAOptimizedSelectorStore",
        added: 37,
        on_by_default: 37,
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
            hpa_optimized_selector_store: None,
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
                "HPAOptimizedSelectorStore" => self.hpa_optimized_selector_store = Some(on),
                _ => self.pod_level_resources = on,
            }
        }
        Ok(())
    }

    /// [`FeatureGates::apply`] for the gates a cluster's kube-controller-manager runs with:
    /// gates that do not change the HPA algorithm, or that the modelled release does not
    /// have or has locked, are passed over (the controller accepted them for its own
    /// release); the names passed over are returned.
    pub fn apply_lenient(&mut self, spec: &str, v: KubeVersion) -> Vec<String> {
        let mut skipped = Vec::new();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let applied = self.apply(item, v, "cluster");
            let known = item
                .split_once('=')
                .is_some_and(|(n, _)| KNOWN_GATES.contains(&n.trim()));
            if applied.is_err() && known {
                skipped.push(item.to_string());
            }
        }
        skipped
    }

    pub fn as_map(&self) -> BTreeMap<&'static str, bool> {
        let mut m = BTreeMap::from([
            ("HPAScaleToZero", self.hpa_scale_to_zero),
            ("HPAConfigurableTolerance", self.hpa_configurable_tolerance),
            ("PodLevelResources", self.pod_level_resources),
        ]);
        // Only when set (see the field): it never changes a number.
        if let Some(on) = self.hpa_optimized_selector_store {
            m.insert("HPAOptimizedSelectorStore", on);
        }
        m
    }

    /// Whether the controller of release `v` uses the optimized selector store.
    pub fn optimized_selector_store(&self, v: KubeVersion) -> bool {
        self.hpa_optimized_selector_store.unwrap_or_else(|| {
            GATES
                .iter()
                .any(|g| g.name == "HPAOptimizedSelectorStore" && v.at_least(g.on_by_default))
        })
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
    /// Which controller flags the user gave (they win over the cluster's).
    pub given: Given,
}

/// The controller flags given on the command line (a flag the user gives wins over the value
/// read from the cluster's kube-controller-manager).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Given {
    pub tolerance: bool,
    pub cpu_initialization_period: bool,
    pub initial_readiness_delay: bool,
    pub downscale_stabilization: bool,
    pub sync_period: bool,
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
    /// Where each controller flag came from, when the cluster's kube-controller-manager was
    /// read (absent otherwise: the defaults or the command line's flags).
    #[serde(flatten)]
    pub sources: Sources,
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
            sources: Sources::default(),
            requested: Requested::default(),
        }
    }

    pub fn version(&self) -> KubeVersion {
        self.kubernetes_version
    }

    /// These settings with the release chosen by [`resolve_release`] from the requested flag and
    /// `evidence`, and the gate defaults of that release with `--feature-gates` applied.
    pub fn for_evidence(&self, evidence: Option<Evidence>) -> Result<Settings, SettingsError> {
        self.for_cluster(evidence, None)
    }

    /// [`Settings::for_evidence`] with the flags of the cluster's kube-controller-manager
    /// (`cluster`, when its Pod was read): each flag the user did not give takes the cluster's
    /// value, the cluster's feature gates apply before `--feature-gates`, and every flag says
    /// where it came from ([`Sources`]). Without them, on a managed control plane (told by the
    /// server's version), the provider's defaults are said to be assumed.
    pub fn for_cluster(
        &self,
        evidence: Option<Evidence>,
        cluster: Option<&ClusterFlags>,
    ) -> Result<Settings, SettingsError> {
        let release = resolve_release(self.requested.kubernetes_version.as_deref(), evidence)?;
        let mut s = self.clone();
        s.feature_gates = FeatureGates::defaults_for(release.version);
        s.sources = Sources::default();
        if let Some(c) = cluster {
            s.take_cluster_flags(c, release.version);
        } else if let Some(Evidence::Server(v) | Evidence::Snapshot(v)) = evidence {
            s.sources.controller_flags_note = managed_control_plane(v);
            if s.sources.controller_flags_note.is_some() {
                s.sources.header = Some("the provider's default flags".into());
            }
        }
        if let Some(g) = &self.requested.feature_gates {
            s.feature_gates.apply(g, release.version, &release.source)?;
        }
        s.kubernetes_version = release.version;
        s.kubernetes_version_source = release.source;
        Ok(s)
    }
}

/// Where each controller flag came from, when the cluster's kube-controller-manager was read:
/// `cluster: pod kube-system/NAME`, `flag --tolerance (the cluster's is 0.2)`, `default (...)`.
/// Each is absent when the cluster's flags were not read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sources {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance_source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_initialization_period_source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_readiness_delay_source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub downscale_stabilization_source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync_period_source: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feature_gates_source: Option<String>,
    /// Where the flags were read (`pod kube-system/NAME`), or why they cannot be (a managed
    /// control plane: the provider's defaults are assumed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller_flags_note: Option<String>,
    /// The same in a few words, for the text's header: `flags of pod kube-system/NAME`.
    #[serde(skip)]
    pub header: Option<String>,
}

/// The HPA flags of the cluster's kube-controller-manager, read from its Pod's command line
/// (kubeadm, RKE2 and similar run it as a static pod in kube-system).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClusterFlags {
    /// Where they were read: `pod kube-system/kube-controller-manager-cp1`.
    pub origin: String,
    pub tolerance: Option<f64>,
    pub cpu_initialization_period: Option<SignedDuration>,
    pub initial_readiness_delay: Option<SignedDuration>,
    pub downscale_stabilization: Option<SignedDuration>,
    pub sync_period: Option<SignedDuration>,
    /// `--feature-gates`, as written.
    pub feature_gates: Option<String>,
    /// Flags found but not usable, in words (`--horizontal-pod-autoscaler-tolerance=abc: ...`).
    pub unreadable: Vec<String>,
}

const FLAG_PREFIX: &str = "--horizontal-pod-autoscaler-";

impl ClusterFlags {
    /// Read the flags from a command line (the container's `command` then its `args`), as
    /// kube-controller-manager's flag parser reads them: `--flag=value` or `--flag value`, a
    /// single leading dash too, the last occurrence winning; durations in Go's spelling
    /// (`30s`, `5m0s`, `1m30s`). Other flags are passed over.
    pub fn from_args(origin: &str, args: &[String]) -> ClusterFlags {
        let mut raw: BTreeMap<&str, &str> = BTreeMap::new();
        let mut i = 0;
        while i < args.len() {
            let a = args[i].trim();
            i += 1;
            let Some(flag) = a.strip_prefix("--").or_else(|| a.strip_prefix('-')) else {
                continue;
            };
            let (name, value) = match flag.split_once('=') {
                Some((n, v)) => (n, v),
                None => match args.get(i).map(|v| v.trim()) {
                    Some(v) if !v.starts_with('-') => {
                        i += 1;
                        (flag, v)
                    }
                    _ => (flag, ""),
                },
            };
            raw.insert(name, value);
        }
        let mut out = ClusterFlags {
            origin: origin.to_string(),
            feature_gates: raw.get("feature-gates").map(|g| g.to_string()),
            ..ClusterFlags::default()
        };
        for (name, value) in raw {
            let Some(short) = format!("--{name}")
                .strip_prefix(FLAG_PREFIX)
                .map(String::from)
            else {
                continue;
            };
            out.read_one(&short, value);
        }
        out
    }

    /// One `--horizontal-pod-autoscaler-NAME` flag.
    fn read_one(&mut self, name: &str, value: &str) {
        let duration = |v: &str| -> Result<SignedDuration, String> {
            let n = crate::duration::parse_go_duration(v).map_err(|e| e.to_string())?;
            match n {
                n if n < 0 => Err("a negative duration".into()),
                n => Ok(SignedDuration::from_nanos(n)),
            }
        };
        let slot = match name {
            "cpu-initialization-period" => &mut self.cpu_initialization_period,
            "initial-readiness-delay" => &mut self.initial_readiness_delay,
            "downscale-stabilization" => &mut self.downscale_stabilization,
            "sync-period" => &mut self.sync_period,
            "tolerance" => {
                match value.parse::<f64>() {
                    Ok(t) if t.is_finite() && (0.0..1.0).contains(&t) => self.tolerance = Some(t),
                    _ => self.unreadable.push(format!(
                        "{FLAG_PREFIX}tolerance={value}: not a tolerance from 0 to below 1"
                    )),
                }
                return;
            }
            _ => return, // upscale/downscale delays and the like: not modelled
        };
        match duration(value) {
            Ok(d) if name == "sync-period" && d.is_zero() => self.unreadable.push(format!(
                "{FLAG_PREFIX}{name}={value}: must be greater than zero"
            )),
            Ok(d) => *slot = Some(d),
            Err(e) => self
                .unreadable
                .push(format!("{FLAG_PREFIX}{name}={value}: {e}")),
        }
    }
}

/// A managed control plane told by the server's `gitVersion`: the provider's defaults are
/// assumed, and whether they can be changed there.
pub fn managed_control_plane(git_version: &str) -> Option<String> {
    let v = git_version.to_ascii_lowercase();
    let (provider, changeable) = if v.contains("-eks-") {
        ("EKS", "EKS does not let you change them")
    } else if v.contains("-gke.") {
        ("GKE", "GKE does not let you change them")
    } else if v.contains("-aks") || v.contains("+aks") {
        ("AKS", "AKS does not let you change them")
    } else if v.contains("+k3s") {
        return Some("k3s runs kube-controller-manager inside the k3s process, not as a pod: its flags (k3s --kube-controller-manager-arg) cannot be read through the API; the defaults are assumed — pass the values it runs with if they differ".into());
    } else {
        return None;
    };
    Some(format!(
        "managed control plane ({provider}): kube-controller-manager is not readable, so the provider's defaults are assumed (the upstream defaults unless documented otherwise); {changeable}"
    ))
}

impl Settings {
    /// Take the cluster's flags where the user gave none (see [`Settings::for_cluster`]).
    fn take_cluster_flags(&mut self, c: &ClusterFlags, v: KubeVersion) {
        let origin = format!("cluster: {}", c.origin);
        let given = self.requested.given;
        let go = |d: SignedDuration| {
            crate::duration::format_go_duration(d.as_nanos().clamp(0, i64::MAX as i128) as i64)
        };
        fn pick<T: Copy>(
            value: &mut T,
            cluster: Option<T>,
            given: bool,
            flag: &str,
            origin: &str,
            show: impl Fn(T) -> String,
        ) -> String {
            match (cluster, given) {
                (Some(c), false) => {
                    *value = c;
                    origin.to_string()
                }
                (Some(c), true) => format!("flag --{flag} (the cluster's is {})", show(c)),
                (None, true) => format!("flag --{flag}"),
                (None, false) => format!("default (the cluster's kube-controller-manager does not set {FLAG_PREFIX}{flag})"),
            }
        }
        let s = &mut self.sources;
        s.tolerance_source = Some(pick(
            &mut self.tolerance,
            c.tolerance,
            given.tolerance,
            "tolerance",
            &origin,
            |t| t.to_string(),
        ));
        s.cpu_initialization_period_source = Some(pick(
            &mut self.cpu_initialization_period,
            c.cpu_initialization_period,
            given.cpu_initialization_period,
            "cpu-initialization-period",
            &origin,
            go,
        ));
        s.initial_readiness_delay_source = Some(pick(
            &mut self.initial_readiness_delay,
            c.initial_readiness_delay,
            given.initial_readiness_delay,
            "initial-readiness-delay",
            &origin,
            go,
        ));
        s.downscale_stabilization_source = Some(pick(
            &mut self.downscale_stabilization,
            c.downscale_stabilization,
            given.downscale_stabilization,
            "downscale-stabilization",
            &origin,
            go,
        ));
        s.sync_period_source = Some(pick(
            &mut self.sync_period,
            c.sync_period,
            given.sync_period,
            "sync-period",
            &origin,
            go,
        ));
        let mut note = format!("read from the kube-controller-manager {}", c.origin);
        for u in &c.unreadable {
            note += &format!("; {u} (not used)");
        }
        s.feature_gates_source = Some(match &c.feature_gates {
            Some(g) => {
                let skipped = self.feature_gates.apply_lenient(g, v);
                for k in skipped {
                    note += &format!(
                        "; gate {k} does not apply to the modelled Kubernetes {v} (not used)"
                    );
                }
                origin.clone()
            }
            None => {
                "default (the cluster's kube-controller-manager sets no --feature-gates)".into()
            }
        });
        if self.requested.feature_gates.is_some() {
            s.feature_gates_source = Some(format!(
                "{} then flag --feature-gates",
                s.feature_gates_source.take().unwrap_or_default()
            ));
        }
        s.controller_flags_note = Some(note);
        s.header = Some(format!("flags of {}", c.origin));
    }

    /// The controller flags' origin in a few words, for the text (`None`: nothing was read).
    pub fn flags_origin(&self) -> Option<&str> {
        self.sources.controller_flags_note.as_deref()
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

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn cluster_flags_are_read_in_every_argument_form() {
        let f = ClusterFlags::from_args(
            "pod kube-system/kcm",
            &args(&[
                "kube-controller-manager",
                "--horizontal-pod-autoscaler-tolerance=0.2",
                "--horizontal-pod-autoscaler-sync-period",
                "30s",
                "-horizontal-pod-autoscaler-downscale-stabilization=5m0s",
                "--horizontal-pod-autoscaler-cpu-initialization-period=1m30s",
                "--horizontal-pod-autoscaler-initial-readiness-delay=10s",
                "--horizontal-pod-autoscaler-initial-readiness-delay=45s",
                "--leader-elect",
                "--feature-gates=HPAScaleToZero=false,RotateKubeletServerCertificate=true",
            ]),
        );
        assert_eq!(f.origin, "pod kube-system/kcm");
        assert_eq!(f.tolerance, Some(0.2));
        assert_eq!(f.sync_period, Some(SignedDuration::from_secs(30)));
        assert_eq!(
            f.downscale_stabilization,
            Some(SignedDuration::from_mins(5))
        );
        assert_eq!(
            f.cpu_initialization_period,
            Some(SignedDuration::from_secs(90))
        );
        // The last occurrence wins, as pflag keeps it.
        assert_eq!(
            f.initial_readiness_delay,
            Some(SignedDuration::from_secs(45))
        );
        assert_eq!(
            f.feature_gates.as_deref(),
            Some("HPAScaleToZero=false,RotateKubeletServerCertificate=true")
        );
        assert!(f.unreadable.is_empty(), "{:?}", f.unreadable);
    }

    #[test]
    fn unusable_cluster_flags_are_named_not_used() {
        let f = ClusterFlags::from_args(
            "pod kube-system/kcm",
            &args(&[
                "--horizontal-pod-autoscaler-tolerance=abc",
                "--horizontal-pod-autoscaler-sync-period=0s",
                "--horizontal-pod-autoscaler-downscale-stabilization=5 minutes",
                "--horizontal-pod-autoscaler-upscale-delay=3m",
            ]),
        );
        assert_eq!(
            (f.tolerance, f.sync_period, f.downscale_stabilization),
            (None, None, None)
        );
        assert_eq!(f.unreadable.len(), 3, "{:?}", f.unreadable);
        assert!(
            f.unreadable.iter().any(|u| u.contains("tolerance=abc")),
            "{:?}",
            f.unreadable
        );
    }

    #[test]
    fn the_clusters_flags_apply_where_the_user_gave_none() {
        let cluster = ClusterFlags::from_args(
            "pod kube-system/kcm",
            &args(&[
                "--horizontal-pod-autoscaler-tolerance=0.2",
                "--horizontal-pod-autoscaler-sync-period=30s",
                "--feature-gates=HPAScaleToZero=false,Foo=true",
            ]),
        );
        let mut s = Settings {
            tolerance: 0.05,
            ..Settings::default()
        };
        s.requested.given.tolerance = true;
        let r = s.for_cluster(None, Some(&cluster)).unwrap();
        assert_eq!(r.tolerance, 0.05, "the user's flag wins");
        assert_eq!(
            r.sources.tolerance_source.as_deref(),
            Some("flag --tolerance (the cluster's is 0.2)")
        );
        assert_eq!(r.sync_period, SignedDuration::from_secs(30));
        assert_eq!(
            r.sources.sync_period_source.as_deref(),
            Some("cluster: pod kube-system/kcm")
        );
        assert!(r
            .sources
            .downscale_stabilization_source
            .as_deref()
            .is_some_and(|t| t.starts_with("default")));
        assert!(!r.feature_gates.hpa_scale_to_zero, "the cluster's gate");
        // --feature-gates applies over the cluster's gates.
        s.requested.feature_gates = Some("HPAScaleToZero=true".into());
        let r = s.for_cluster(None, Some(&cluster)).unwrap();
        assert!(r.feature_gates.hpa_scale_to_zero);
        assert_eq!(
            r.sources.feature_gates_source.as_deref(),
            Some("cluster: pod kube-system/kcm then flag --feature-gates")
        );
        // Resolving again gives the same settings.
        assert_eq!(r.for_cluster(None, Some(&cluster)).unwrap(), r);
        // Without the cluster's flags nothing is said in the JSON.
        let json = serde_json::to_value(Settings::default().for_evidence(None).unwrap()).unwrap();
        assert!(json.get("toleranceSource").is_none(), "{json}");
        assert_eq!(
            serde_json::to_value(&r).unwrap()["toleranceSource"],
            "flag --tolerance (the cluster's is 0.2)"
        );
    }

    #[test]
    fn a_cluster_gate_the_modelled_release_lacks_is_passed_over_with_a_note() {
        let cluster = ClusterFlags::from_args(
            "pod kube-system/kcm",
            &args(&["--feature-gates=HPAConfigurableTolerance=true,PodLevelResources=true"]),
        );
        let r = Settings::default()
            .for_cluster(Some(Evidence::Server("v1.32.1")), Some(&cluster))
            .unwrap();
        assert!(r.feature_gates.pod_level_resources);
        assert!(!r.feature_gates.hpa_configurable_tolerance);
        let note = r.sources.controller_flags_note.unwrap_or_default();
        assert!(
            note.contains(
                "gate HPAConfigurableTolerance=true does not apply to the modelled Kubernetes 1.32"
            ),
            "{note}"
        );
    }

    #[test]
    fn managed_control_planes_say_the_providers_defaults_are_assumed() {
        for (git, provider) in [
            ("v1.29.10-eks-7f9249a", "EKS"),
            ("v1.30.4-gke.1200", "GKE"),
            ("v1.36.2-aks", "AKS"),
        ] {
            let r = Settings::default()
                .for_cluster(Some(Evidence::Server(git)), None)
                .unwrap();
            let note = r.sources.controller_flags_note.unwrap_or_default();
            assert!(
                note.contains(&format!("managed control plane ({provider})")),
                "{note}"
            );
            assert!(note.contains("does not let you change them"), "{note}");
            assert!(r.sources.tolerance_source.is_none());
        }
        assert!(managed_control_plane("v1.31.2+k3s1").is_some_and(|n| n.contains("k3s")));
        assert_eq!(managed_control_plane("v1.34.3+rke2r1"), None);
        assert_eq!(managed_control_plane("v1.37.0"), None);
    }

    #[test]
    fn the_optimized_selector_store_gate_is_accepted_from_1_37() {
        let mut g = FeatureGates::defaults_for(v(37));
        assert!(g.optimized_selector_store(v(37)));
        assert!(!g.optimized_selector_store(v(36)));
        assert!(!g.as_map().contains_key("HPAOptimizedSelectorStore"));
        g.apply("HPAOptimizedSelectorStore=false", v(37), "flag")
            .unwrap();
        assert!(!g.optimized_selector_store(v(37)));
        assert_eq!(g.as_map().get("HPAOptimizedSelectorStore"), Some(&false));
        let e = g
            .apply("HPAOptimizedSelectorStore=true", v(36), "flag")
            .unwrap_err();
        assert!(e.to_string().contains("added in 1.37"), "{e}");
        assert!(FeatureGates::check("HPAOptimizedSelectorStore=true").is_ok());
    }
}
