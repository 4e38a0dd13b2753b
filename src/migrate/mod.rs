//! `kubectl hpa migrate`, the pure part: from an HPA and its target as the API server returned
//! them (and the matching documents of local manifests), work out who owns `spec.replicas`, what
//! the next apply would do to it, and the minimal requests that hand the field to the HPA without
//! changing the replica count. No I/O here; `crate::commands::migrate` sends what this plans.

pub mod advice;
pub mod analyze;
pub mod api;
pub mod chart;
pub mod files;
pub mod findings;
pub mod gitops;
pub mod gotemplate;
pub mod guard;
pub mod helm;
pub mod kustomize;
pub mod live;
pub mod manifest;
pub mod offline;
pub mod offline_text;
pub mod options;
pub mod owners;
pub mod plan;
pub mod predict;
pub mod renderer;
pub mod report;
pub mod report_text;
pub mod requests;
pub mod session;
pub mod text;
pub mod tools;
pub mod write;

pub use options::Options;
