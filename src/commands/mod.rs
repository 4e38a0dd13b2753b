//! The commands: small modules that wire the core, I/O and rendering.

pub mod explain;
pub mod fleet;
pub mod live;
pub mod migrate;
pub mod simulate;
pub mod snapshot;
pub mod watch;
