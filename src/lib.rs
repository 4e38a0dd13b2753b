//! kubectl-hpa: explain, simulate and migrate Kubernetes HorizontalPodAutoscalers.
//!
//! The crate is a library with a thin binary (`src/main.rs`). The algorithm lives in
//! [`core`], which performs no I/O; everything else feeds it or renders its trace.

pub mod duration;
pub mod quantity;
pub mod core;
pub mod labels;
pub mod metrics_api;
pub mod snapshot;
