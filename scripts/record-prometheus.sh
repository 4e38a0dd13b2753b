#!/usr/bin/env bash
# Re-record the Prometheus answers the default backtest tests replay.
#
#   scripts/record-prometheus.sh
#
# Runs the real-Prometheus backtest tests (tests/it/simulate_backtest.rs, `real::`) with
# RECORD_PROMETHEUS=1: each puts the stand-in of tests/support/prometheus.rs in front of its
# real server, which forwards every query_range request and writes what it answered to
# tests/support/prometheus/<test>.json. Then runs the `recorded::` tests on the new answers.
# Needs the prometheus and promtool binaries (Debian: apt-get install prometheus).
set -euo pipefail
cd "$(dirname "$0")/.."
for b in prometheus promtool; do
  command -v "$b" >/dev/null 2>&1 || { echo "record-prometheus.sh: $b is missing" >&2; exit 1; }
done
RECORD_PROMETHEUS=1 cargo test --locked --test it simulate_backtest::real:: -- --ignored
cargo test --locked --test it simulate_backtest::recorded::
RECORD_PROMETHEUS=1 cargo test --locked --test it history::replay::real:: -- --ignored
cargo test --locked --test it history::replay::recorded::
git status --short tests/support/prometheus
