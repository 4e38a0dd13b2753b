//! The integration tests: one test binary (`cargo test --test it`), one module per area, one
//! way to run the binary ([`support::binary`]) and one fake API server
//! ([`support::fake_apiserver`]). Run one area with `cargo test --test it live::`.

#[path = "../support/mod.rs"]
mod support;

mod architecture;
mod blockers;
mod chain;
mod contract;
mod controller_cases;
mod docs;
mod explain_cli;
mod fake_apiserver_selftest;
mod faults;
mod fleet;
mod history;
mod hygiene;
mod keda;
mod live;
mod memory;
mod migrate;
mod mutations;
mod packaging;
mod release;
mod simulate;
mod simulate_backtest;
mod simulate_regression;
mod snapshot_inputs;
