//! The `explain` feature, free of command-line types: decide one HPA ([`one`]), many ([`fleet`],
//! its table [`fleet_table`], `--sort-by` [`sort`]), the comparison with a live status
//! ([`live`]) and the watches ([`watch`] for one HPA, [`fleet_watch`] for many).
//!
//! Every mode decides through [`one::decide_with_input`]: a fleet row, a live explain and a
//! watch line give the decision `explain NAME --snapshot FILE` gives for the same objects. The
//! command (`commands::explain`) only loads (a file or the cluster), picks the mode and prints.

pub mod fleet;
pub mod fleet_table;
pub mod fleet_watch;
pub mod live;
pub mod one;
pub mod sort;
pub mod watch;
