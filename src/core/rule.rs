//! The rule that decided a verdict (`verdict.decidedBy`), and the controller's stabilization and
//! limit reasons it is drawn from. Serialised as the controller's own reason strings.

use std::fmt;

use serde::{Serialize, Serializer};

/// Declares [`Rule`] with the exact string each variant serialises to.
macro_rules! rules {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// One rule of the controller's algorithm, named as the controller names it (a condition
        /// reason or event reason where it has one).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Rule {
            $($(#[$doc])* $name,)*
        }

        impl Rule {
            /// The name as it appears in the output (`Tolerance`, `ScaleUpLimit`, ...).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Rule::$name => stringify!($name),)*
                }
            }
        }
    };
}

rules! {
    /// The target's scale subresource could not be read.
    FailedGetScale,
    /// The target is at 0 replicas: scaling is disabled.
    ScalingDisabled,
    /// The target runs more replicas than `maxReplicas`.
    AboveMaxReplicas,
    /// The target runs fewer replicas than `minReplicas`.
    BelowMinReplicas,
    /// The scale's selector is missing or cannot be parsed.
    InvalidSelector,
    /// Another HPA selects the same pods.
    AmbiguousSelector,
    /// Some metrics failed and the valid ones propose a scale-down.
    InvalidMetricBlocksScaleDown,
    /// Every metric failed.
    InvalidMetrics,
    /// The scale-up rate limit capped the recommendation.
    ScaleUpLimit,
    /// The scale-down rate limit capped the recommendation.
    ScaleDownLimit,
    /// `maxReplicas` capped the recommendation.
    TooManyReplicas,
    /// `minReplicas` raised the recommendation.
    TooFewReplicas,
    /// The recommendation is within the limits.
    DesiredWithinRange,
    /// A lower recommendation in the scale-up window held the proposal.
    ScaleUpStabilized,
    /// A higher recommendation in the scale-down window held the proposal.
    ScaleDownStabilized,
    /// Stabilization left the proposal as it is.
    ReadyForNewScale,
    /// The selectPolicy of the direction is `Disabled`.
    SelectPolicyDisabled,
    /// The winning metric is within the tolerance band.
    Tolerance,
    /// The metrics propose the current replica count.
    MetricsMatchCurrent,
    /// The largest metric proposal went through unchanged.
    MetricProposal,
    /// Scaling from zero: the result is raised to `minReplicas`.
    ScaleFromZeroMinReplicas,
    /// Not the controller's: a read of ours failed, so its view is unknown.
    FetchFailed,
    /// Not the controller's: the snapshot file holds no metrics, so the recomputation is unknown.
    NoMetrics,
    /// Not the controller's: the file (not written by `kubectl hpa snapshot`) lacks the HPA's
    /// scale target, so the recomputation is unknown.
    NotInSnapshot,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn serialises_to_the_controller_reason() {
        assert_eq!(
            serde_json::to_string(&Rule::ScaleDownStabilized).unwrap(),
            "\"ScaleDownStabilized\""
        );
        assert_eq!(
            Rule::InvalidMetricBlocksScaleDown.to_string(),
            "InvalidMetricBlocksScaleDown"
        );
    }
}
