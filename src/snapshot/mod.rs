//! Snapshots: a `v1` `List` of real API objects — everything the core needs for an HPA.
//!
//! Live mode fetches a [`Snapshot`]; offline mode reads one from a file. Either way,
//! [`Snapshot::input_for`] validates it and builds the core's [`crate::core::Input`], so the
//! same decision comes out of both. Every error names the object and the field.
//!
//! The files, from the bottom up (no file imports one above it): `error` (the one error type),
//! `annotations` (the List's annotations, fetch-error keys), `wire`/`shape`/`item` (objects as
//! read), `convert` (HPA versions), `to_core` (objects as the core reads them), `index`
//! (lookups built once per file), `build` (the [`Snapshot`] from documents), `input` (one
//! HPA's input), `read` (files, streams and merging), `amend`, `answers` (what a file can
//! answer), `redact`.

mod amend;
mod annotations;
mod answers;
pub mod blockers;
mod build;
mod chain;
mod controller_flags;
pub mod convert;
mod error;
mod head;
mod index;
mod input;
mod item;
pub mod keda;
mod read;
pub mod redact;
mod shape;
mod to_core;
pub mod wire;

pub use annotations::{
    external_metric_key, object_metric_key, pods_metric_key, scale_error_key, scale_not_found_key,
    FETCH_ERRORS_ANNOTATION, OWN_FAILURES_ANNOTATION, SERVER_VERSION_ANNOTATION, SOURCE_ANNOTATION,
    TAKEN_AT_ANNOTATION, TAKEN_FOR_ANNOTATION,
};
pub use build::{ListItem, Snapshot};
pub use chain::{rules_config_map, selects_deployment, slim_deployment, CHAIN_KEY_PREFIX};
pub use convert::NoteKind;
pub use error::SnapshotError;
pub use head::{read_head, MetaNames, TextHead};
pub use input::TargetStatus;
pub use shape::from_json as from_json_maps_only;
pub use to_core::Workload;
pub use wire::Pod;
