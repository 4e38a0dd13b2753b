//! The commands: small modules that wire the core, I/O and rendering.

pub mod explain;
pub mod history;
pub mod migrate;
pub mod simulate;
pub mod snapshot;
