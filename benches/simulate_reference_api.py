#!/usr/bin/env python3
"""The straightforward reference of `kubectl hpa simulate`.

kube-controller-manager's HPA step (pkg/controller/podautoscaler) written plainly, in the
controller's own structure and names, over API-shaped objects: an autoscaling/v2
HorizontalPodAutoscaler, the Scale subresource, Pods and a PodMetricsList, whose quantities,
RFC3339 timestamps and durations are parsed from their strings every sync. It is general over
HPA specs (min/max, Resource utilization targets, tolerances, stabilization windows, Pods and
Percent policies, selectPolicy Max/Min/Disabled, or the no-behavior path) and specialised to
nothing; nothing in it is slow on purpose.

The world is that of benches/simulate_reference.py (the lean reference, specialised by hand to
one HPA) and of the Rust simulation: pods Ready 30 s after creation, a sample once a pod has run
one 15 s window, a sample at `now` describes the demand at `now - 15 s` shared by the pods Ready
then (removed ones included), scale-down removes not-Ready pods first, then the newest. It agrees
with the lean reference and with the simulation at every sync.

Usage: simulate_reference_api.py SYNCS BEHAVIOR(default|none) [--replicas-out FILE]
Prints `syncs seconds` (the simulation loop only).
"""
import math
import re
import sys
import time
from collections import namedtuple
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import ROUND_CEILING, Decimal


# --- Reading API values ------------------------------------------------------------------------

_QUANTITY = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
                       r"([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?")
_SUFFIXES = {"": Decimal(1), "n": Decimal("1e-9"), "u": Decimal("1e-6"), "m": Decimal("1e-3")}
_SUFFIXES.update({s: Decimal(1000) ** (i + 1) for i, s in enumerate("kMGTPE")})
_SUFFIXES.update({s + "i": Decimal(1024) ** (i + 1) for i, s in enumerate("KMGTPE")})
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]*)?)(ns|us|µs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}


def parse_quantity(text):
    """A resource.Quantity ("500m", "1", "1.5", "2Gi", "1e3") in milli-units, rounded up like
    Quantity.MilliValue()."""
    match = _QUANTITY.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"invalid quantity {text!r}")
    number, suffix = match.group(1), match.group(2) or ""
    if suffix[:1] in ("e", "E") and len(suffix) > 1:
        scale = Decimal(10) ** int(suffix[1:])
    else:
        scale = _SUFFIXES[suffix]
    return int((Decimal(number) * scale * 1000).to_integral_value(rounding=ROUND_CEILING))


def parse_duration(text):
    """A Go duration ("15s", "1m30s", "500ms") as a timedelta."""
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"invalid duration {text!r}")
    return timedelta(seconds=sum(float(n) * _DURATION_UNITS[u] for n, u in parts))


def parse_time(text):
    """An RFC3339 timestamp ("2024-01-01T00:00:15Z") as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))  # "Z" from Python 3.11 only


def format_time(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_selector(text):
    """A label selector of equality terms ("app=web,tier=front") as a dict."""
    return dict(term.split("=", 1) for term in text.split(",") if term)


# --- The controller (pkg/controller/podautoscaler) ---------------------------------------------

DEFAULT_TOLERANCE = 0.1  # the controller's flags: --horizontal-pod-autoscaler-tolerance,
CPU_INITIALIZATION_PERIOD = timedelta(minutes=5)  # -cpu-initialization-period,
DELAY_OF_INITIAL_READINESS_STATUS = timedelta(seconds=30)  # -initial-readiness-delay,
DOWNSCALE_STABILISATION_WINDOW = timedelta(minutes=5)  # -downscale-stabilization
SCALE_UP_LIMIT_FACTOR, SCALE_UP_LIMIT_MINIMUM = 2.0, 4.0
MIN_INT32, MAX_INT32 = -(2**31), 2**31 - 1


class MetricsError(Exception):
    """A metric could not be computed (the controller's `err`)."""


PodMetric = namedtuple("PodMetric", "value timestamp window")  # value in milli-units
TimestampedRecommendation = namedtuple("TimestampedRecommendation", "recommendation timestamp")


@dataclass
class TimestampedScaleEvent:
    replica_change: int
    timestamp: datetime
    outdated: bool


def get_pod_condition(status, condition_type):
    return next((c for c in status.get("conditions") or [] if c["type"] == condition_type), None)


def get_resource_metric(pod_metrics_list, resource):
    """metricsclient's GetResourceMetric: pod name -> PodMetric (summed over the containers)."""
    items = pod_metrics_list["items"]
    if not items:
        raise MetricsError("no metrics returned from resource metrics API")
    res = {}
    for m in items:
        usages = [c["usage"].get(resource) for c in m["containers"]]
        if usages and None not in usages:
            res[m["metadata"]["name"]] = PodMetric(sum(parse_quantity(u) for u in usages),
                                                   parse_time(m["timestamp"]),
                                                   parse_duration(m["window"]))
    return res


def group_pods(pods, metrics, resource, cpu_initialization_period,
               delay_of_initial_readiness_status, now):
    ready_pod_count = 0
    unready_pods, missing_pods, ignored_pods = set(), set(), set()
    for pod in pods:
        name, status = pod["metadata"]["name"], pod["status"]
        if pod["metadata"].get("deletionTimestamp") or status.get("phase") == "Failed":
            ignored_pods.add(name)
            continue
        if status.get("phase") == "Pending":
            unready_pods.add(name)
            continue
        metric = metrics.get(name)
        if metric is None:
            missing_pods.add(name)
            continue
        if resource == "cpu":
            condition = get_pod_condition(status, "Ready")
            if condition is None or status.get("startTime") is None:
                unready = True
            else:
                start_time = parse_time(status["startTime"])
                transition = parse_time(condition["lastTransitionTime"])
                if start_time + cpu_initialization_period > now:
                    # Still initializing: ignore the sample if the pod is unready or one window
                    # of metric was not collected since its last transition.
                    unready = (condition["status"] == "False"
                               or metric.timestamp < transition + metric.window)
                else:
                    # Ignore the sample if the pod is unready and has never been ready.
                    unready = (condition["status"] == "False"
                               and start_time + delay_of_initial_readiness_status > transition)
            if unready:
                unready_pods.add(name)
                continue
        ready_pod_count += 1
    return ready_pod_count, unready_pods, missing_pods, ignored_pods


def remove_metrics_for_pods(metrics, pods):
    for name in pods:
        metrics.pop(name, None)


def calculate_pod_requests(pods, resource):
    """Per pod, the sum of its containers' (and restartable init containers') requests."""
    requests = {}
    for pod in pods:
        spec = pod["spec"]
        containers = spec["containers"] + [c for c in spec.get("initContainers") or []
                                           if c.get("restartPolicy") == "Always"]
        pod_sum = 0
        for c in containers:
            request = c.get("resources", {}).get("requests", {}).get(resource)
            if request is None:
                raise MetricsError(f"missing request for {resource} in container {c['name']} "
                                   f"of Pod {pod['metadata']['name']}")
            pod_sum += parse_quantity(request)
        requests[pod["metadata"]["name"]] = pod_sum
    return requests


def get_resource_utilization_ratio(metrics, requests, target_utilization):
    metrics_total = requests_total = 0
    for name, metric in metrics.items():
        if name in requests:  # otherwise an extraneous metric
            metrics_total += metric.value
            requests_total += requests[name]
    if requests_total == 0:
        raise MetricsError("no metrics returned matched known pods")
    current_utilization = metrics_total * 100 // requests_total
    return current_utilization / target_utilization


def is_within(tolerances, usage_ratio):
    scale_down, scale_up = tolerances
    return 1.0 - scale_down <= usage_ratio <= 1.0 + scale_up


def get_resource_replicas(current_replicas, target_utilization, resource, tolerances, pods,
                          pod_metrics_list, now):
    metrics = get_resource_metric(pod_metrics_list, resource)
    if not pods:
        raise MetricsError("no pods returned by selector while calculating replica count")
    ready_pod_count, unready_pods, missing_pods, ignored_pods = group_pods(
        pods, metrics, resource, CPU_INITIALIZATION_PERIOD, DELAY_OF_INITIAL_READINESS_STATUS, now)
    remove_metrics_for_pods(metrics, ignored_pods)
    remove_metrics_for_pods(metrics, unready_pods)
    if not metrics:
        raise MetricsError("did not receive metrics for targeted pods (pods might be unready)")
    requests = calculate_pod_requests(pods, resource)
    usage_ratio = get_resource_utilization_ratio(metrics, requests, target_utilization)

    scale_up_with_unready = len(unready_pods) > 0 and usage_ratio > 1.0
    if not scale_up_with_unready and not missing_pods:
        if is_within(tolerances, usage_ratio):
            return current_replicas
        return math.ceil(usage_ratio * ready_pod_count)

    if missing_pods:
        if usage_ratio < 1.0:
            # On a scale-down, missing pods use 100 % of their request (the target if higher).
            fallback_utilization = max(100, target_utilization)
            for name in missing_pods:
                metrics[name] = PodMetric(requests[name] * fallback_utilization // 100, now,
                                          timedelta(0))
        elif usage_ratio > 1.0:
            for name in missing_pods:  # on a scale-up, 0 %
                metrics[name] = PodMetric(0, now, timedelta(0))
    if scale_up_with_unready:
        for name in unready_pods:  # on a scale-up, unready pods use 0 %
            metrics[name] = PodMetric(0, now, timedelta(0))

    new_usage_ratio = get_resource_utilization_ratio(metrics, requests, target_utilization)
    if (is_within(tolerances, new_usage_ratio)
            or (usage_ratio < 1.0 and new_usage_ratio > 1.0)
            or (usage_ratio > 1.0 and new_usage_ratio < 1.0)):
        return current_replicas  # too small a change, or the direction would change
    new_replicas = math.ceil(new_usage_ratio * len(metrics))
    if ((new_usage_ratio < 1.0 and new_replicas > current_replicas)
            or (new_usage_ratio > 1.0 and new_replicas < current_replicas)):
        return current_replicas
    return new_replicas


def get_tolerances(hpa):
    """(scale-down, scale-up) tolerances: the behavior's own (1.33+) or the controller's."""
    behavior = hpa["spec"].get("behavior") or {}
    return tuple(parse_quantity(rules["tolerance"]) / 1000 if "tolerance" in rules
                 else DEFAULT_TOLERANCE
                 for rules in (behavior.get("scaleDown") or {}, behavior.get("scaleUp") or {}))


def compute_replicas_for_metric(hpa, spec, current_replicas, pods, pod_metrics_list, now):
    if spec["type"] != "Resource" or spec["resource"]["target"]["type"] != "Utilization":
        raise MetricsError("only Resource metrics with Utilization targets are covered here")
    return get_resource_replicas(current_replicas,
                                 spec["resource"]["target"]["averageUtilization"],
                                 spec["resource"]["name"], get_tolerances(hpa), pods,
                                 pod_metrics_list, now)


def compute_replicas_for_metrics(hpa, scale, pods, pod_metrics_list, now):
    """The largest proposal; an error if every metric failed, or some did and the others
    would scale down."""
    spec_replicas = scale["spec"]["replicas"]
    replicas, invalid, first_error = 0, 0, None
    for spec in hpa["spec"]["metrics"]:
        try:
            proposal = compute_replicas_for_metric(hpa, spec, spec_replicas, pods,
                                                   pod_metrics_list, now)
        except MetricsError as err:
            invalid, first_error = invalid + 1, first_error or err
            continue
        if replicas == 0 or proposal > replicas:
            replicas = proposal
    if invalid >= len(hpa["spec"]["metrics"]) or (invalid > 0 and replicas < spec_replicas):
        raise first_error
    return replicas


class HorizontalController:
    """The controller's memory across syncs: recommendations and scale events per HPA."""

    def __init__(self):
        self.recommendations, self.scale_up_events, self.scale_down_events = {}, {}, {}

    def reconcile_autoscaler(self, hpa, scale, pods, pod_metrics_list, now):
        """One sync of one HPA; returns the replica count the target is set to."""
        spec, behavior = hpa["spec"], hpa["spec"].get("behavior")
        key = f"{hpa['metadata']['namespace']}/{hpa['metadata']['name']}"
        current_replicas = scale["spec"]["replicas"]
        min_replicas = spec.get("minReplicas", 1)
        if current_replicas == 0 and min_replicas != 0:
            return current_replicas  # scaling is disabled
        if current_replicas > spec["maxReplicas"]:
            desired_replicas = spec["maxReplicas"]
        elif current_replicas < min_replicas:
            desired_replicas = min_replicas
        else:
            try:
                desired_replicas = max(0, compute_replicas_for_metrics(
                    hpa, scale, pods, pod_metrics_list, now))
            except MetricsError:
                return current_replicas  # FailedComputeMetricsReplicas: no scaling this sync
            normalize = (self.normalize_desired_replicas if behavior is None
                         else self.normalize_desired_replicas_with_behaviors)
            desired_replicas = normalize(hpa, key, current_replicas, desired_replicas,
                                         min_replicas, now)
        if desired_replicas != current_replicas:
            self.store_scale_event(behavior, key, current_replicas, desired_replicas, now)
        return desired_replicas

    def normalize_desired_replicas(self, hpa, key, current_replicas, prenormalized,
                                   min_replicas, now):
        """The no-behavior path."""
        stabilized = self.stabilize_recommendation(key, prenormalized, now)
        return convert_desired_replicas_with_rules(current_replicas, stabilized, min_replicas,
                                                   hpa["spec"]["maxReplicas"])

    def stabilize_recommendation(self, key, prenormalized, now):
        max_recommendation = prenormalized
        found_old_sample, old_sample_index = False, 0
        cutoff = now - DOWNSCALE_STABILISATION_WINDOW
        records = self.recommendations.setdefault(key, [])
        for i, rec in enumerate(records):
            if rec.timestamp < cutoff:
                found_old_sample, old_sample_index = True, i
            elif rec.recommendation > max_recommendation:
                max_recommendation = rec.recommendation
        store_record(records, found_old_sample, old_sample_index,
                     TimestampedRecommendation(prenormalized, now))
        return max_recommendation

    def normalize_desired_replicas_with_behaviors(self, hpa, key, current_replicas,
                                                  prenormalized, min_replicas, now):
        scale_up = hpa["spec"]["behavior"]["scaleUp"]
        scale_down = dict(hpa["spec"]["behavior"]["scaleDown"])
        if scale_down.get("stabilizationWindowSeconds") is None:  # maybeInitScaleDown...
            scale_down["stabilizationWindowSeconds"] = \
                DOWNSCALE_STABILISATION_WINDOW.total_seconds()
        stabilized = self.stabilize_recommendation_with_behaviors(
            key, scale_up, scale_down, current_replicas, prenormalized, now)
        return self.convert_desired_replicas_with_behavior_rate(
            key, scale_up, scale_down, min_replicas, hpa["spec"]["maxReplicas"],
            current_replicas, stabilized, now)

    def stabilize_recommendation_with_behaviors(self, key, scale_up, scale_down,
                                                current_replicas, desired_replicas, now):
        found_old_sample, old_sample_index = False, 0
        up_recommendation = down_recommendation = desired_replicas
        up_cutoff = now - timedelta(seconds=scale_up["stabilizationWindowSeconds"])
        down_cutoff = now - timedelta(seconds=scale_down["stabilizationWindowSeconds"])
        records = self.recommendations.setdefault(key, [])
        for i, rec in enumerate(records):
            if rec.timestamp > up_cutoff:
                up_recommendation = min(rec.recommendation, up_recommendation)
            if rec.timestamp > down_cutoff:
                down_recommendation = max(rec.recommendation, down_recommendation)
            if rec.timestamp < up_cutoff and rec.timestamp < down_cutoff:
                found_old_sample, old_sample_index = True, i
        recommendation = current_replicas
        if recommendation < up_recommendation:
            recommendation = up_recommendation
        if recommendation > down_recommendation:
            recommendation = down_recommendation
        store_record(records, found_old_sample, old_sample_index,
                     TimestampedRecommendation(desired_replicas, now))
        return recommendation

    def convert_desired_replicas_with_behavior_rate(self, key, scale_up, scale_down, min_replicas,
                                                    max_replicas, current_replicas,
                                                    desired_replicas, now):
        up_events = self.scale_up_events.get(key, [])
        down_events = self.scale_down_events.get(key, [])
        if desired_replicas > current_replicas:
            scale_up_limit = calculate_scale_up_limit_with_scaling_rules(
                current_replicas, up_events, down_events, scale_up, now)
            # Below the current count: no further scale-up until the events expire.
            maximum_allowed = min(max_replicas, max(scale_up_limit, current_replicas))
            return min(desired_replicas, maximum_allowed)
        if desired_replicas < current_replicas:
            scale_down_limit = calculate_scale_down_limit_with_behaviors(
                current_replicas, up_events, down_events, scale_down, now)
            minimum_allowed = max(min_replicas, min(scale_down_limit, current_replicas))
            return max(desired_replicas, minimum_allowed)
        return desired_replicas

    def store_scale_event(self, behavior, key, prev_replicas, new_replicas, now):
        """Adds the event, or replaces one older than the direction's longest policy period."""
        if behavior is None:
            return  # no event is used without a behavior
        if new_replicas > prev_replicas:
            rules, change = behavior["scaleUp"], new_replicas - prev_replicas
            events = self.scale_up_events.setdefault(key, [])
        else:
            rules, change = behavior["scaleDown"], prev_replicas - new_replicas
            events = self.scale_down_events.setdefault(key, [])
        mark_scale_events_outdated(events, get_longest_policy_period(rules), now)
        found_old_sample, old_sample_index = False, 0
        for i, event in enumerate(events):
            if event.outdated:
                found_old_sample, old_sample_index = True, i
        store_record(events, found_old_sample, old_sample_index,
                     TimestampedScaleEvent(change, now, False))


def store_record(records, found_old_sample, old_sample_index, record):
    if found_old_sample:
        records[old_sample_index] = record
    else:
        records.append(record)


def calculate_scale_up_limit(current_replicas):
    return int(max(SCALE_UP_LIMIT_FACTOR * current_replicas, SCALE_UP_LIMIT_MINIMUM))


def convert_desired_replicas_with_rules(current_replicas, desired_replicas, hpa_min, hpa_max):
    maximum_allowed = min(hpa_max, calculate_scale_up_limit(current_replicas))
    if desired_replicas < hpa_min:
        return hpa_min
    return min(desired_replicas, maximum_allowed)


def calculate_scale_up_limit_with_scaling_rules(current_replicas, up_events, down_events,
                                                rules, now):
    if rules.get("selectPolicy") == "Disabled":
        return current_replicas
    # Min: the smallest change (the lowest limit); otherwise Max, the largest.
    select_policy, result = (min, MAX_INT32) if rules.get("selectPolicy") == "Min" \
        else (max, MIN_INT32)
    for policy in rules["policies"]:
        period_start_replicas = get_period_start_replicas(current_replicas, policy, up_events,
                                                          down_events, now)
        if policy["type"] == "Pods":
            proposed = period_start_replicas + policy["value"]
        else:  # Percent, rounded up or a small count could never scale up
            proposed = math.ceil(period_start_replicas * (1 + policy["value"] / 100))
        result = select_policy(result, proposed)
    return result


def calculate_scale_down_limit_with_behaviors(current_replicas, up_events, down_events,
                                              rules, now):
    if rules.get("selectPolicy") == "Disabled":
        return current_replicas
    # Min: the smallest change (the highest limit); otherwise Max, the largest.
    select_policy, result = (max, MIN_INT32) if rules.get("selectPolicy") == "Min" \
        else (min, MAX_INT32)
    for policy in rules["policies"]:
        period_start_replicas = get_period_start_replicas(current_replicas, policy, up_events,
                                                          down_events, now)
        if policy["type"] == "Pods":
            proposed = period_start_replicas - policy["value"]
        else:  # Percent, truncated
            proposed = int(period_start_replicas * (1 - policy["value"] / 100))
        result = select_policy(result, proposed)
    return result


def get_period_start_replicas(current_replicas, policy, up_events, down_events, now):
    """The replica count at the start of the policy's period (before its scale events)."""
    added = get_replicas_change_per_period(policy["periodSeconds"], up_events, now)
    deleted = get_replicas_change_per_period(policy["periodSeconds"], down_events, now)
    return current_replicas - added + deleted


def get_replicas_change_per_period(period_seconds, events, now):
    cutoff = now - timedelta(seconds=period_seconds)
    return sum(event.replica_change for event in events if event.timestamp > cutoff)


def get_longest_policy_period(rules):
    return max((policy["periodSeconds"] for policy in rules["policies"]), default=0)


def mark_scale_events_outdated(events, longest_policy_period, now):
    cutoff = now - timedelta(seconds=longest_policy_period)
    for event in events:
        if event.timestamp < cutoff:
            event.outdated = True


# --- The world (that of benches/simulate_reference.py) -----------------------------------------

EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)  # t = 0
SYNC, STARTUP, LAG, WINDOW = 15.0, 30.0, 15.0, 15.0  # seconds (see the module's docstring)


def demand(t):
    """cpu=sine:4:3:24h, in milli-cores."""
    return round((4.0 + 3.0 * math.sin(2.0 * math.pi * t / 86400.0)) * 1000.0)


def at(t):
    return EPOCH + timedelta(seconds=t)


class SimPod:
    """A pod of the world: its times in seconds, and its API object."""

    def __init__(self, name, created):
        self.created, self.ready_at = created, created + STARTUP
        stamp = format_time(at(created))
        self.obj = {
            "metadata": {"name": name, "namespace": "shop", "labels": {"app": "web"},
                         "creationTimestamp": stamp},
            "spec": {"containers": [{"name": "web", "image": "web:1",
                                     "resources": {"requests": {"cpu": "500m"}}}]},
            "status": {"phase": "Running", "startTime": stamp, "conditions": [
                {"type": t, "status": s, "lastTransitionTime": stamp}
                for t, s in (("Initialized", "True"), ("Ready", "False"),
                             ("ContainersReady", "False"), ("PodScheduled", "True"))]},
        }

    def is_ready(self):
        return get_pod_condition(self.obj["status"], "Ready")["status"] == "True"


class World:
    def __init__(self, replicas, created):
        self.pods = []  # in creation order (and name order)
        self.gone = []  # (ready_at, removed_at) of removed pods while their share is sampled
        self.serial = 0
        self.add_pods(replicas, created)

    def add_pods(self, count, now):
        for _ in range(count):
            self.serial += 1
            self.pods.append(SimPod(f"web-{self.serial:05d}", now))

    def advance(self, now):
        """The kubelet marks pods Ready; removed pods' shares leave the samples."""
        for pod in self.pods:
            if pod.ready_at <= now and not pod.is_ready():
                for condition in pod.obj["status"]["conditions"]:
                    if condition["type"] in ("Ready", "ContainersReady"):
                        condition["status"] = "True"
                        condition["lastTransitionTime"] = format_time(at(pod.ready_at))
        self.gone = [g for g in self.gone if g[1] > now - LAG]

    def get_scale(self):
        return {"spec": {"replicas": len(self.pods)},
                "status": {"replicas": len(self.pods), "selector": "app=web"}}

    def list_pods(self, selector):
        return [p.obj for p in self.pods
                if all(p.obj["metadata"]["labels"].get(k) == v for k, v in selector.items())]

    def list_pod_metrics(self, now):
        """metrics-server: the demand at now - LAG shared by the pods Ready then (the remainder
        to the first ones), 0 for the pods not Ready then."""
        tau = now - LAG
        served = sum(1 for p in self.pods if p.ready_at <= tau) + sum(
            1 for (ready_at, removed) in self.gone if ready_at <= tau < removed)
        q, r = divmod(demand(tau), served) if served else (0, 0)
        stamp = format_time(at(tau))
        items = []
        for p in self.pods:
            if p.created + WINDOW > tau:
                continue  # not one window of samples yet
            usage = 0
            if p.ready_at <= tau:
                usage, r = q + (1 if r > 0 else 0), r - 1
            items.append({
                "metadata": {"name": p.obj["metadata"]["name"], "namespace": "shop"},
                "timestamp": stamp, "window": "15s",
                "containers": [{"name": "web", "usage": {"cpu": f"{usage}m", "memory": "64Mi"}}],
            })
        return {"kind": "PodMetricsList", "items": items}

    def scale_to(self, replicas, now):
        """The ReplicaSet controller: creates pods, or removes not-Ready ones then the newest."""
        current = len(self.pods)
        if replicas > current:
            self.add_pods(replicas - current, now)
        elif replicas < current:
            order = sorted(range(current),
                           key=lambda i: (self.pods[i].is_ready(), -self.pods[i].created))
            remove = set(order[: current - replicas])
            self.gone.extend((self.pods[i].ready_at, now) for i in sorted(remove))
            self.pods = [p for i, p in enumerate(self.pods) if i not in remove]


def make_hpa(behavior):
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": {"name": "web", "namespace": "shop"},
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                       "name": "web"},
                    "minReplicas": 2, "maxReplicas": 20,
                    "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                        "type": "Utilization", "averageUtilization": 70}}}]}}
    if behavior == "default":  # `behavior: {}` as the API server fills it in
        hpa["spec"]["behavior"] = {
            "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15}]},
            "scaleDown": {"selectPolicy": "Max", "policies": [
                {"type": "Percent", "value": 100, "periodSeconds": 15}]}}
    elif behavior != "none":
        raise SystemExit(f"unknown behavior {behavior!r} (default|none)")
    return hpa


def run(syncs, behavior):
    hpa = make_hpa(behavior)
    world = World(4, -3600.0)
    controller = HorizontalController()
    controller.recommendations["shop/web"] = [TimestampedRecommendation(4, at(0.0))]
    replicas = []
    for k in range(syncs):
        now = k * SYNC
        world.advance(now)
        scale = world.get_scale()
        pods = world.list_pods(parse_selector(scale["status"]["selector"]))
        desired = controller.reconcile_autoscaler(hpa, scale, pods, world.list_pod_metrics(now),
                                                  at(now))
        world.scale_to(desired, now)
        replicas.append(desired)
    return replicas


def main():
    syncs, behavior = int(sys.argv[1]), sys.argv[2]
    t = time.perf_counter()
    replicas = run(syncs, behavior)
    elapsed = time.perf_counter() - t
    if "--replicas-out" in sys.argv:
        with open(sys.argv[sys.argv.index("--replicas-out") + 1], "w") as f:
            f.write("\n".join(map(str, replicas)) + "\n")
    print(f"{syncs} {elapsed:.6f}")


if __name__ == "__main__":
    main()
