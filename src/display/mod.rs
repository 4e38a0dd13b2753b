//! How values and names are shown to people: quantities in the user's units, durations and
//! times without nanoseconds, metric names as people write them. Used by the text renderers and
//! by the diagnostics alike, so it sits below both.

pub mod cut;
pub mod names;
pub mod units;
pub mod url;

pub use cut::fit;
