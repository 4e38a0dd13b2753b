#!/usr/bin/env python3
"""The lean reference of `kubectl hpa simulate` for the benchmark.

The same controller step as kube-controller-manager's HPA (CPU utilization, the readiness
rules of the cpu resource, missing/unready rebalancing, tolerance, stabilization windows and
rate policies of the default behavior or the no-behavior path), specialised by hand to this one
HPA (its constants written in), in the same world as the Rust simulation: pods Ready 30 s after
creation, samples once a pod has run one 15 s window, a sample describes the load 15 s earlier
shared by the pods Ready then, scale-down removes not-Ready then newest pods. The general one,
over API-shaped objects, is simulate_reference_api.py.

Usage: simulate_reference.py SYNCS BEHAVIOR(default|none) [--replicas-out FILE]
Prints `syncs seconds` on stdout.
"""
import math
import sys
import time

SYNC = 15.0
STARTUP = 30.0
LAG = 15.0
WINDOW = 15.0
CPU_INIT = 300.0
READINESS_DELAY = 30.0
TOLERANCE = 0.1
REQUEST = 500  # milli-cores per pod
TARGET = 70  # percent
MIN, MAX = 2, 20
DOWN_WINDOW = 300.0


def demand(t):
    """cpu=sine:4:3:24h, in milli-cores."""
    return round((4.0 + 3.0 * math.sin(2.0 * math.pi * t / 86400.0)) * 1000.0)


class Pod:
    def __init__(self, created):
        self.created = created
        self.ready_at = created + STARTUP


def samples(pods, gone, now):
    """Per pod: its sample (milli-cores) or None."""
    tau = now - LAG
    served = sum(1 for p in pods if p.ready_at <= tau) + sum(
        1 for (ready_at, removed) in gone if ready_at <= tau < removed
    )
    total = demand(tau)
    q, r = (divmod(total, served) if served else (0, 0))
    out = []
    for p in pods:
        if p.created + WINDOW > tau:
            out.append(None)
        elif p.ready_at <= tau:
            out.append(q + (1 if r > 0 else 0))
            r -= 1
        else:
            out.append(0)
    return out, tau


def within(ratio):
    """The tolerance band (1.33+): 1 - tolerance <= ratio <= 1 + tolerance."""
    return 1.0 - TOLERANCE <= ratio <= 1.0 + TOLERANCE


def proposal(pods, gone, now, current):
    values, tau = samples(pods, gone, now)
    ready_usage = ready_req = 0
    counted = 0
    missing = unready = 0
    for p, v in zip(pods, values):
        if v is None:
            missing += 1
            continue
        is_ready = p.ready_at <= now
        if p.created + CPU_INIT > now:
            bad = (not is_ready) or tau < p.ready_at + WINDOW
        else:
            bad = (not is_ready) and p.created + READINESS_DELAY > p.ready_at
        if bad:
            unready += 1
            continue
        ready_usage += v
        ready_req += REQUEST
        counted += 1
    if counted == 0:
        return None
    util = ready_usage * 100 // ready_req
    ratio = util / TARGET
    scale_up_with_unready = unready > 0 and ratio > 1.0
    if missing == 0 and not scale_up_with_unready:
        if within(ratio):
            return current
        return math.ceil(ratio * counted)
    # Rebalance: missing pods at their request × max(100 %, target) when scaling down, 0 when
    # up, none at ratio 1; unready pods at 0 when scaling up.
    usage, req, n = ready_usage, ready_req, counted
    if ratio < 1.0:
        usage += missing * REQUEST * max(100, TARGET) // 100
        req += missing * REQUEST
        n += missing
    elif ratio > 1.0:
        req += missing * REQUEST
        n += missing
    if scale_up_with_unready:
        req += unready * REQUEST
        n += unready
    new_ratio = (usage * 100 // req) / TARGET
    if within(new_ratio) or (ratio < 1.0 < new_ratio) or (new_ratio < 1.0 < ratio):
        return current
    result = math.ceil(new_ratio * n)
    if (ratio > 1.0 and result < current) or (ratio < 1.0 and result > current):
        return current
    return result


def normalize_default(recs, ups, downs, now, current, desired):
    """The default behavior: up window 0, max(4 pods, 100 %) per 15 s; down window 300 s,
    100 % per 15 s."""
    up_rec = down_rec = desired
    for (t, r) in recs:
        if t > now - 0.0:
            up_rec = min(up_rec, r)
        if t > now - DOWN_WINDOW:
            down_rec = max(down_rec, r)
    recs[:] = [(t, r) for (t, r) in recs if t > now - DOWN_WINDOW]
    recs.append((now, desired))
    rec = min(max(current, up_rec), down_rec)
    if rec > current:
        added = sum(c for (t, c) in ups if t > now - SYNC)
        removed = sum(c for (t, c) in downs if t > now - SYNC)
        start = current - added + removed
        limit = max(start + 4, start * 2)
        rec = min(rec, max(limit, current))
    elif rec < current:
        added = sum(c for (t, c) in ups if t > now - SYNC)
        removed = sum(c for (t, c) in downs if t > now - SYNC)
        start = current + removed - added
        limit = start - start  # 100 % per period: down to 0
        rec = max(rec, min(limit, current))
    return max(MIN, min(MAX, rec))


def normalize_none(recs, now, current, desired):
    """No behavior: max over the last 300 s; scale-up limit max(2 × current, 4)."""
    recs[:] = [(t, r) for (t, r) in recs if t >= now - DOWN_WINDOW]
    recs.append((now, desired))
    rec = max(r for (_, r) in recs)
    rec = min(rec, max(2 * current, 4))
    return max(MIN, min(MAX, rec))


def run(syncs, behavior):
    pods = [Pod(-3600.0) for _ in range(4)]
    gone = []
    recs = [(0.0, 4)]
    ups, downs = [], []
    replicas = []
    for k in range(syncs):
        now = k * SYNC
        gone = [g for g in gone if g[1] > now - LAG]
        current = len(pods)
        desired = proposal(pods, gone, now, current)
        if desired is None:
            desired = current
        desired = max(MIN, min(MAX, desired)) if behavior == "none" else desired
        if behavior == "default":
            new = normalize_default(recs, ups, downs, now, current, desired)
        else:
            new = normalize_none(recs, now, current, desired)
        if new > current:
            ups.append((now, new - current))
            pods.extend(Pod(now) for _ in range(new - current))
        elif new < current:
            downs.append((now, current - new))
            order = sorted(
                range(len(pods)),
                key=lambda i: (pods[i].ready_at <= now, -pods[i].created),
            )
            remove = set(order[: current - new])
            for i in sorted(remove):
                gone.append((pods[i].ready_at, now))
            pods = [p for i, p in enumerate(pods) if i not in remove]
        ups = [e for e in ups if e[0] > now - 60.0]
        downs = [e for e in downs if e[0] > now - 60.0]
        replicas.append(new)
    return replicas


def main():
    syncs = int(sys.argv[1])
    behavior = sys.argv[2]
    t = time.perf_counter()
    replicas = run(syncs, behavior)
    elapsed = time.perf_counter() - t
    if "--replicas-out" in sys.argv:
        with open(sys.argv[sys.argv.index("--replicas-out") + 1], "w") as f:
            f.write("\n".join(map(str, replicas)) + "\n")
    print(f"{syncs} {elapsed:.6f}")


if __name__ == "__main__":
    main()
