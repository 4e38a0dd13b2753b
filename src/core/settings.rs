//! The controller's settings: kube-controller-manager flags, the Kubernetes version whose
//! behaviour is reproduced, and the feature gates that change the algorithm.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use jiff::SignedDuration;
use serde::Serialize;

/// The oldest and newest minor versions whose HPA behaviour is modelled.
pub const OLDEST_MINOR: u32 = 23;
pub const NEWEST_MINOR: u32 = 37;

/// A Kubernetes release (1.minor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct KubeVersion {
    pub minor: u32,
}

impl KubeVersion {
    pub const NEWEST: KubeVersion = KubeVersion {
        minor: NEWEST_MINOR,
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

impl FromStr for KubeVersion {
    type Err = String;
    /// Accepts `1.31`, `v1.31`, `1.31.4`, `v1.31.4-gke.100`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split('.');
        let major = parts.next().unwrap_or("");
        let minor = parts.next().unwrap_or("");
        let minor_digits: String = minor.chars().take_while(|c| c.is_ascii_digit()).collect();
        match (major, minor_digits.parse::<u32>()) {
            ("1", Ok(m)) if (OLDEST_MINOR..=NEWEST_MINOR).contains(&m) => {
                Ok(KubeVersion { minor: m })
            }
            ("1", Ok(m)) => Err(format!(
                "Kubernetes version {s:?} (1.{m}) is outside the supported range 1.{OLDEST_MINOR}..1.{NEWEST_MINOR}"
            )),
            _ => Err(format!(
                "invalid Kubernetes version {s:?}: expected MAJOR.MINOR such as 1.{NEWEST_MINOR}"
            )),
        }
    }
}

/// Feature gates of kube-controller-manager that change the HPA algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct FeatureGates {
    /// `HPAScaleToZero`: the ScaledToZero logic (1.36+; on by default from 1.37).
    #[serde(rename = "HPAScaleToZero")]
    pub hpa_scale_to_zero: bool,
    /// `HPAConfigurableTolerance`: `behavior.scaleUp/scaleDown.tolerance` (1.33+; on by default from 1.35).
    #[serde(rename = "HPAConfigurableTolerance")]
    pub hpa_configurable_tolerance: bool,
    /// `PodLevelResources`: pod-level requests (1.32+; on by default from 1.34).
    #[serde(rename = "PodLevelResources")]
    pub pod_level_resources: bool,
}

pub const KNOWN_GATES: &[&str] = &[
    "HPAScaleToZero",
    "HPAConfigurableTolerance",
    "PodLevelResources",
];

impl FeatureGates {
    /// The defaults of a release.
    pub fn defaults_for(v: KubeVersion) -> FeatureGates {
        FeatureGates {
            hpa_scale_to_zero: v.at_least(37),
            hpa_configurable_tolerance: v.at_least(35),
            pod_level_resources: v.at_least(34),
        }
    }

    /// Apply `--feature-gates A=true,B=false` on top of the defaults.
    pub fn apply(&mut self, spec: &str) -> Result<(), String> {
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item.split_once('=').ok_or_else(|| {
                format!("invalid feature gate {item:?}: expected NAME=true|false")
            })?;
            let on = match value.trim() {
                "true" => true,
                "false" => false,
                other => {
                    return Err(format!(
                        "invalid value {other:?} for feature gate {name}: expected true or false"
                    ))
                }
            };
            match name.trim() {
                "HPAScaleToZero" => self.hpa_scale_to_zero = on,
                "HPAConfigurableTolerance" => self.hpa_configurable_tolerance = on,
                "PodLevelResources" => self.pod_level_resources = on,
                other => {
                    return Err(format!(
                        "unknown feature gate {other:?}: the gates that change the HPA algorithm are {}",
                        KNOWN_GATES.join(", ")
                    ))
                }
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

/// Controller-manager flags relevant to the HPA (their defaults match kube-controller-manager).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `--horizontal-pod-autoscaler-tolerance`.
    pub tolerance: f64,
    /// `--horizontal-pod-autoscaler-cpu-initialization-period`.
    #[serde(serialize_with = "ser_duration")]
    pub cpu_initialization_period: SignedDuration,
    /// `--horizontal-pod-autoscaler-initial-readiness-delay`.
    #[serde(serialize_with = "ser_duration")]
    pub initial_readiness_delay: SignedDuration,
    /// `--horizontal-pod-autoscaler-downscale-stabilization`.
    #[serde(serialize_with = "ser_duration")]
    pub downscale_stabilization: SignedDuration,
    /// `--horizontal-pod-autoscaler-sync-period` (used by simulate and watch).
    #[serde(serialize_with = "ser_duration")]
    pub sync_period: SignedDuration,
    pub kubernetes_version: KubeVersion,
    #[serde(serialize_with = "ser_gates")]
    pub feature_gates: FeatureGates,
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
    pub fn for_version(v: KubeVersion) -> Settings {
        Settings {
            tolerance: 0.1,
            cpu_initialization_period: SignedDuration::from_mins(5),
            initial_readiness_delay: SignedDuration::from_secs(30),
            downscale_stabilization: SignedDuration::from_mins(5),
            sync_period: SignedDuration::from_secs(15),
            kubernetes_version: v,
            feature_gates: FeatureGates::defaults_for(v),
        }
    }

    pub fn version(&self) -> KubeVersion {
        self.kubernetes_version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_versions() {
        assert_eq!("1.30".parse::<KubeVersion>().unwrap().minor, 30);
        assert_eq!("v1.33.2-eks-1".parse::<KubeVersion>().unwrap().minor, 33);
        assert!("1.12".parse::<KubeVersion>().is_err());
        assert!("2.0".parse::<KubeVersion>().is_err());
        assert!("latest".parse::<KubeVersion>().is_err());
    }

    #[test]
    fn gate_defaults_follow_releases() {
        let g = FeatureGates::defaults_for(KubeVersion { minor: 36 });
        assert!(!g.hpa_scale_to_zero);
        assert!(g.hpa_configurable_tolerance);
        let g = FeatureGates::defaults_for(KubeVersion { minor: 34 });
        assert!(!g.hpa_configurable_tolerance);
        let mut g = FeatureGates::defaults_for(KubeVersion::NEWEST);
        assert!(g.hpa_scale_to_zero);
        g.apply("HPAScaleToZero=false, HPAConfigurableTolerance=true")
            .unwrap();
        assert!(!g.hpa_scale_to_zero);
        assert!(g
            .apply("Foo=true")
            .unwrap_err()
            .contains("unknown feature gate"));
        assert!(g.apply("HPAScaleToZero").is_err());
        assert!(g.apply("HPAScaleToZero=yes").is_err());
    }
}
