#!/usr/bin/env python3
"""One day of cAdvisor CPU counters for the pods of Deployment shop/web, as OpenMetrics.

The README's backtest example loads this into a Prometheus server:

    python3 examples/backtest/generate.py > day.om
    promtool tsdb create-blocks-from openmetrics day.om data/
    prometheus --storage.tsdb.path=data/ --storage.tsdb.retention.time=100y \
        --web.listen-address=127.0.0.1:9090 --config.file=prometheus.yml

The workload's total CPU: a quiet night (~1.2 cores), a morning ramp to ~6 cores, a lunch dip,
a 15-minute burst to ~11 cores at 18:00, noise every scrape; deterministic (fixed seed).
"""
import math
import random

START = 1793491200  # 2026-11-01T00:00:00Z
STEP = 15
PODS = ["web-7d9f8c6b5-k2x9p", "web-7d9f8c6b5-m4q7z", "web-7d9f8c6b5-t8w3n"]


def total_cores(t):
    h = (t - START) / 3600.0
    day = 1.2 + 4.8 * max(0.0, math.sin(math.pi * (h - 7.0) / 14.0)) ** 1.5
    if 12.0 <= h < 13.5:
        day *= 0.75
    if 18.0 <= h < 18.25:
        day += 5.0
    return day


def main():
    rnd = random.Random(7)
    print("# TYPE container_cpu_usage_seconds counter")
    counters = {p: 5000.0 for p in PODS}
    lines = {p: [] for p in PODS}
    for i in range(-40, 24 * 240 + 1):
        t = START + i * STEP
        load = total_cores(t) * (1.0 + rnd.uniform(-0.08, 0.08))
        for p in PODS:
            lines[p].append(
                f'container_cpu_usage_seconds_total{{namespace="shop",pod="{p}",container="app"}} '
                f"{counters[p]:.3f} {t}"
            )
            counters[p] += load / len(PODS) * STEP
    for p in PODS:
        print("\n".join(lines[p]))
    print("# EOF")


if __name__ == "__main__":
    main()
