//! KEDA's layer above a generated HPA, pure (no I/O): who owns the HPA ([`owner`]), what the
//! ScaledObject says about it ([`facts`]), the section explain shows for one HPA of a snapshot
//! ([`view`]) and its lines ([`text`]).
//!
//! Read from kedacore/keda @ 8b4f083: `controllers/keda/hpa.go` (the generated HPA),
//! `apis/keda/v1alpha1/scaledobject_types.go` (defaults, annotations), `pkg/scalers/scaler.go`
//! (metric names `s<i>-…`, target types), `pkg/scaling/executor/scale_scaledobjects.go`
//! (activation, cooldown, idle), `pkg/fallback/fallback.go` (fallback in the metrics server),
//! `apis/keda/v1alpha1/scaledobject_webhook.go` (`verifyHpas`: the hpa-ownership escape hatch).

pub mod facts;
pub mod owner;
pub mod text;
pub mod view;
