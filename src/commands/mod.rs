//! The commands: small modules that wire the core, I/O and rendering.

pub mod explain;
pub mod live;
pub mod simulate;
pub mod snapshot;
