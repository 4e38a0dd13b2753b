//! Live mode: a kube client built from kubectl's flags, and the read-only fetch of everything the
//! HPA controller reads for one HPA, assembled into the `v1 List` that
//! [`crate::snapshot::Snapshot::from_value`] reads (the same format `--snapshot` files have).
//!
//! All network I/O of the program is here, and it only ever sends GET requests (GET and LIST),
//! except the PATCH requests of `migrate --apply` ([`Conn::patch_raw`], at the end).
//! A failed call on a metrics source or on the target's scale does not fail the fetch: it is
//! recorded in the List's [`FETCH_ERRORS_ANNOTATION`], worded as the controller's metrics client
//! words it, and the core then reports it as the controller would.
//!
//! Round trips for one HPA: GET the HPA; then, concurrently, the target's scale (after a discovery
//! GET for custom-resource kinds) followed by the pods, PodMetrics and Pods-metric LISTs by the
//! scale's selector; the target object; Object and External metrics; the HPA's events; the server
//! version; the namespace's other HPAs followed by their targets' scales.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Result};
use futures::future::join_all;
use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v2::{HorizontalPodAutoscaler, MetricSpec};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::Request;
use kube::{Client, Config};
use serde_json::{json, Value};

use crate::cli::KubeFlags;
use crate::labels::Selector;
use crate::snapshot::{
    external_metric_key, object_metric_key, pods_metric_key, FETCH_ERRORS_ANNOTATION,
    TAKEN_AT_ANNOTATION,
};

/// Annotation on a fetched List: the API server's `gitVersion` (context only).
pub const SERVER_VERSION_ANNOTATION: &str = "kubectl-hpa.dev/server-version";
/// Annotation on a fetched List: where it was fetched from (context only).
pub const SOURCE_ANNOTATION: &str = "kubectl-hpa.dev/source";

/// Page size of the pods LIST.
const PAGE: u32 = 500;

/// A connection to one API server, as kubectl's flags chose it.
#[derive(Clone)]
pub struct Conn {
    client: Client,
    /// `-n`, else the context's namespace, else `default`.
    pub namespace: String,
    /// The kubeconfig context in use (`in-cluster` for the service-account fallback).
    pub context: String,
    /// The server URL, for messages.
    pub server: String,
    timeout: Option<Duration>,
}

/// Why one API call failed.
#[derive(Debug, Clone)]
pub enum Failure {
    /// The server answered with an error code. `parsed`: the body was a `Status`.
    Status {
        code: u16,
        reason: String,
        message: String,
        parsed: bool,
    },
    /// No answer within `--request-timeout`.
    Timeout(Duration),
    /// The server could not be reached.
    Unreachable(String),
    Other(String),
}

/// A failed API call: the verb, the resource (`pods.metrics.k8s.io`) and what was asked for.
#[derive(Debug, Clone)]
pub struct ApiFailure {
    pub verb: &'static str,
    pub resource: String,
    /// `"web" in namespace "shop"`, `in namespace "shop"`, or empty.
    pub object: String,
    pub server: String,
    pub failure: Failure,
}

impl ApiFailure {
    pub fn code(&self) -> Option<u16> {
        match &self.failure {
            Failure::Status { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The error as client-go words it (what the controller's metrics client and scale client
    /// report): the server's `Status` message, or a generic text naming the request.
    pub fn client_go_text(&self) -> String {
        match &self.failure {
            Failure::Status {
                message,
                parsed: true,
                ..
            } if !message.is_empty() => message.clone(),
            Failure::Status { code, message, .. } => {
                let generic = match code {
                    401 => "the server has asked for the client to provide credentials".into(),
                    403 => "the server does not allow access to the requested resource".into(),
                    404 => "the server could not find the requested resource".into(),
                    429 => "the server has received too many requests and has asked us to try again later".into(),
                    503 => "the server is currently unable to handle the request".into(),
                    504 => "the server was unable to return a response in the time allotted, but may still be processing the request".into(),
                    c if *c >= 500 => format!("an error on the server ({message:?}) has prevented the request from succeeding"),
                    c => format!("the server responded with the status code {c} but did not return more information"),
                };
                format!("{generic} (get {})", self.resource)
            }
            Failure::Timeout(t) => format!(
                "the request timed out after {} (get {})",
                crate::duration::format_go_duration(t.as_nanos() as i64),
                self.resource
            ),
            Failure::Unreachable(m) | Failure::Other(m) => m.clone(),
        }
    }

    /// `list pods.metrics.k8s.io in namespace "shop"`
    pub fn request(&self) -> String {
        let mut s = format!("{} {}", self.verb, self.resource);
        if !self.object.is_empty() {
            s.push(' ');
            s.push_str(&self.object);
        }
        s
    }

    /// A one-line message for a failure that stops the command.
    pub fn fatal(&self) -> String {
        let req = self.request();
        match &self.failure {
            Failure::Status {
                code: 401, message, ..
            } => format!(
                "{req}: 401 Unauthorized: {message} (the server refused the credentials of the current context/user)"
            ),
            Failure::Status {
                code: 403, message, ..
            } => format!("{req}: 403 Forbidden: {message}"),
            Failure::Status {
                code,
                reason,
                message,
                parsed,
            } => {
                let reason = if *parsed && !reason.is_empty() {
                    format!(" {reason}")
                } else {
                    String::new()
                };
                let message = if message.is_empty() {
                    self.client_go_text()
                } else {
                    message.clone()
                };
                if *code >= 500 {
                    format!("{req}: the server failed with {code}{reason}: {message}")
                } else {
                    format!("{req}: {code}{reason}: {message}")
                }
            }
            Failure::Timeout(t) => format!(
                "{req}: no answer from {} within {} (--request-timeout)",
                self.server,
                crate::duration::format_go_duration(t.as_nanos() as i64)
            ),
            Failure::Unreachable(m) => {
                format!("unable to connect to the server {}: {m}", self.server)
            }
            Failure::Other(m) => format!("{req}: {m}"),
        }
    }
}

/// `--request-timeout`: a Go duration or a number of seconds; 0 = none.
fn request_timeout(s: &str) -> Result<Option<Duration>> {
    let s = s.trim();
    let nanos = match crate::duration::parse_go_duration(s) {
        Ok(n) => n,
        Err(e) => match s.parse::<i64>() {
            Ok(secs) => secs.saturating_mul(1_000_000_000),
            Err(_) => bail!("--request-timeout: invalid duration {s:?}: {e}"),
        },
    };
    if nanos < 0 {
        bail!("--request-timeout: must not be negative, got {s:?}");
    }
    Ok((nanos > 0).then(|| Duration::from_nanos(nanos as u64)))
}

/// The kubeconfig kubectl would read: `--kubeconfig`, else the existing files of `KUBECONFIG`
/// merged (first value wins), else `~/.kube/config`; `None` when there is none.
fn load_kubeconfig(flags: &KubeFlags) -> Result<Option<Kubeconfig>> {
    if let Some(p) = &flags.kubeconfig {
        return Kubeconfig::read_from(p)
            .map(Some)
            .map_err(|e| anyhow!("--kubeconfig {}: {e}", p.display()));
    }
    if let Some(v) = std::env::var_os("KUBECONFIG") {
        let paths: Vec<PathBuf> = std::env::split_paths(&v)
            .filter(|p| !p.as_os_str().is_empty() && p.exists())
            .collect();
        if !paths.is_empty() {
            let mut merged = Kubeconfig::default();
            for p in &paths {
                let kc = Kubeconfig::read_from(p)
                    .map_err(|e| anyhow!("KUBECONFIG file {}: {e}", p.display()))?;
                merged = merged
                    .merge(kc)
                    .map_err(|e| anyhow!("KUBECONFIG: cannot merge {}: {e}", p.display()))?;
            }
            return Ok(Some(merged));
        }
    }
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"));
    if let Some(h) = home {
        let p = PathBuf::from(h).join(".kube").join("config");
        if p.exists() {
            return Kubeconfig::read_from(&p)
                .map(Some)
                .map_err(|e| anyhow!("{}: {e}", p.display()));
        }
    }
    Ok(None)
}

/// Connect as kubectl would with these flags (no request is sent).
pub async fn connect(flags: &KubeFlags) -> Result<Conn> {
    let timeout = request_timeout(&flags.request_timeout)?;
    if flags.as_user.is_none() && !flags.as_group.is_empty() {
        bail!("--as-group requires --as: requesting groups without impersonating a user");
    }
    let options = KubeConfigOptions {
        context: flags.context.clone(),
        cluster: flags.cluster.clone(),
        user: flags.user.clone(),
    };
    let (mut config, context) = match load_kubeconfig(flags)? {
        Some(kc) => {
            let context = flags
                .context
                .clone()
                .or_else(|| kc.current_context.clone())
                .unwrap_or_default();
            if let Some(c) = &flags.context {
                if !kc.contexts.iter().any(|n| &n.name == c) {
                    bail!("context {c:?} does not exist in the kubeconfig");
                }
            }
            let config = Config::from_custom_kubeconfig(kc, &options)
                .await
                .map_err(|e| anyhow!("kubeconfig (context {context:?}): {e}"))?;
            (config, context)
        }
        None => {
            if flags.context.is_some() || flags.cluster.is_some() || flags.user.is_some() {
                bail!("no kubeconfig found (--kubeconfig, KUBECONFIG, ~/.kube/config) for --context/--cluster/--user");
            }
            let config = Config::incluster().map_err(|e| {
                anyhow!("no kubeconfig found (--kubeconfig, KUBECONFIG, ~/.kube/config) and not running in a cluster: {e}")
            })?;
            (config, "in-cluster".to_string())
        }
    };
    if let Some(u) = &flags.as_user {
        config.auth_info.impersonate = Some(u.clone());
    }
    if !flags.as_group.is_empty() {
        config.auth_info.impersonate_groups = Some(flags.as_group.clone());
    }
    // Exactly the requests we mean to send: no silent retries of 429/503/504.
    config.default_retry = false;
    if let Some(t) = timeout {
        config.connect_timeout = Some(config.connect_timeout.map_or(t, |c| c.min(t)));
    }
    let namespace = flags
        .namespace
        .clone()
        .unwrap_or_else(|| config.default_namespace.clone());
    let server = config
        .cluster_url
        .to_string()
        .trim_end_matches('/')
        .to_string();
    let client = Client::try_from(config)
        .map_err(|e| anyhow!("cannot build a client for {server} (context {context:?}): {e}"))?;
    Ok(Conn {
        client,
        namespace,
        context,
        server,
        timeout,
    })
}

fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let t = s.to_string();
        if !parts.iter().any(|p| p.contains(&t)) {
            parts.push(t);
        }
        cur = s.source();
    }
    parts.join(": ")
}

fn classify(e: kube::Error) -> Failure {
    match e {
        kube::Error::Api(s) => Failure::Status {
            code: s.code,
            parsed: s.reason != "Failed to parse error data",
            reason: s.reason,
            message: s.message,
        },
        other => {
            let chain = error_chain(&other);
            let low = chain.to_lowercase();
            if low.contains("connection refused")
                || low.contains("tcp connect error")
                || low.contains("dns error")
                || low.contains("no route to host")
                || low.contains("network is unreachable")
            {
                Failure::Unreachable(chain)
            } else {
                Failure::Other(chain)
            }
        }
    }
}

/// What one request asks for, for messages.
struct What<'a> {
    verb: &'static str,
    resource: &'a str,
    object: String,
}

fn in_ns(ns: &str) -> String {
    format!("in namespace {ns:?}")
}

fn named(name: &str, ns: &str) -> String {
    format!("{name:?} in namespace {ns:?}")
}

impl Conn {
    /// `GET /version` (the server's version, for the snapshot and the comparison).
    async fn version(&self) -> Result<Value, ApiFailure> {
        self.get(
            "/version",
            &[],
            What {
                verb: "get",
                resource: "/version",
                object: String::new(),
            },
        )
        .await
    }

    /// GET `path` with these query parameters; JSON back.
    async fn get(
        &self,
        path: &str,
        query: &[(&str, String)],
        what: What<'_>,
    ) -> Result<Value, ApiFailure> {
        let mut url = path.trim_start_matches('/').to_string();
        let q: Vec<String> = query
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect();
        if !q.is_empty() {
            url.push('?');
            url.push_str(&q.join("&"));
        }
        let fail = |failure| ApiFailure {
            verb: what.verb,
            resource: what.resource.to_string(),
            object: what.object.clone(),
            server: self.server.clone(),
            failure,
        };
        let req = Request::new("")
            .get(&url, &Default::default())
            .map_err(|e| fail(Failure::Other(e.to_string())))?;
        self.send(self.client.request::<Value>(req), fail).await
    }

    /// Await one request under the per-request timeout (`--request-timeout`); failures are
    /// classified for one-line messages by `fail`.
    async fn send(
        &self,
        call: impl std::future::Future<Output = kube::Result<Value>>,
        fail: impl Fn(Failure) -> ApiFailure,
    ) -> Result<Value, ApiFailure> {
        let res = match self.timeout {
            Some(t) => match tokio::time::timeout(t, call).await {
                Ok(r) => r,
                Err(_) => return Err(fail(Failure::Timeout(t))),
            },
            None => call.await,
        };
        res.map_err(|e| fail(classify(e)))
    }

    /// A LIST, paged with `limit`/`continue` when `paged`; the items with apiVersion/kind set.
    async fn list(
        &self,
        path: &str,
        query: &[(&str, String)],
        paged: bool,
        item_type: (&str, &str),
        what: What<'_>,
    ) -> Result<Vec<Value>, ApiFailure> {
        let mut items = Vec::new();
        let mut cont = String::new();
        loop {
            let mut q = query.to_vec();
            if paged {
                q.push(("limit", PAGE.to_string()));
                q.push(("continue", cont.clone()));
            }
            let page = self
                .get(
                    path,
                    &q,
                    What {
                        verb: what.verb,
                        resource: what.resource,
                        object: what.object.clone(),
                    },
                )
                .await?;
            items.extend(typed_items(&page, item_type));
            cont = page
                .pointer("/metadata/continue")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if !paged || cont.is_empty() {
                return Ok(items);
            }
        }
    }

    /// The resource (plural) of a kind: a guess for built-in groups, discovery for the others.
    /// Errors are worded as the controller's REST mapper words them.
    async fn resource_of(&self, api_version: &str, kind: &str) -> Result<Gvr, String> {
        let (group, version) = match api_version.split_once('/') {
            Some((g, v)) => (g.to_string(), v.to_string()),
            None => (String::new(), api_version.to_string()),
        };
        const BUILTIN: [&str; 6] = [
            "",
            "apps",
            "batch",
            "networking.k8s.io",
            "policy",
            "autoscaling",
        ];
        if BUILTIN.contains(&group.as_str()) {
            return Ok(Gvr {
                plural: plural_guess(kind),
                group,
                version,
            });
        }
        let path = format!("/apis/{group}/{version}");
        let what = What {
            verb: "get",
            resource: &path,
            object: String::new(),
        };
        let no_match = || format!("no matches for kind {kind:?} in version {api_version:?}");
        match self.get(&path, &[], what).await {
            Ok(list) => list["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|r| r["kind"] == kind && !r["name"].as_str().unwrap_or("/").contains('/'))
                .and_then(|r| r["name"].as_str())
                .map(|plural| Gvr {
                    group: group.clone(),
                    version: version.clone(),
                    plural: plural.to_string(),
                })
                .ok_or_else(no_match),
            Err(f) if f.code() == Some(404) => Err(no_match()),
            Err(f) => Err(format!(
                "unable to retrieve the complete list of server APIs: {}: {}",
                api_version,
                f.client_go_text()
            )),
        }
    }

    /// GET the autoscaling/v1 Scale of a target.
    async fn scale(
        &self,
        ns: &str,
        api_version: &str,
        kind: &str,
        name: &str,
    ) -> Result<Value, String> {
        let gvr = self.resource_of(api_version, kind).await?;
        let path = format!("{}/{name}/scale", gvr.collection(ns));
        let resource = gvr.qualified();
        let mut s = self
            .get(
                &path,
                &[],
                What {
                    verb: "get",
                    resource: &resource,
                    object: named(name, ns),
                },
            )
            .await
            .map_err(|f| f.client_go_text())?;
        s["apiVersion"] = json!("autoscaling/v1");
        s["kind"] = json!("Scale");
        if s.pointer("/metadata/namespace").is_none() && s["metadata"].is_object() {
            s["metadata"]["namespace"] = json!(ns);
        }
        Ok(s)
    }
}

/// group, version, resource
struct Gvr {
    group: String,
    version: String,
    plural: String,
}

impl Gvr {
    fn collection(&self, ns: &str) -> String {
        if self.group.is_empty() {
            format!("/api/{}/namespaces/{ns}/{}", self.version, self.plural)
        } else {
            format!(
                "/apis/{}/{}/namespaces/{ns}/{}",
                self.group, self.version, self.plural
            )
        }
    }
    fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// English plural of a built-in kind, as the REST mapper's guess does.
fn plural_guess(kind: &str) -> String {
    let k = kind.to_lowercase();
    if k.ends_with('s') || k.ends_with('x') || k.ends_with("ch") || k.ends_with("sh") {
        format!("{k}es")
    } else if let Some(stem) = k
        .strip_suffix('y')
        .filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u']))
    {
        format!("{stem}ies")
    } else {
        format!("{k}s")
    }
}

fn typed_items(list: &Value, (api_version, kind): (&str, &str)) -> Vec<Value> {
    list["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut i| {
            if i.is_object() && !kind.is_empty() {
                if i.get("apiVersion").is_none_or(Value::is_null) {
                    i["apiVersion"] = json!(api_version);
                }
                if i.get("kind").is_none_or(Value::is_null) {
                    i["kind"] = json!(kind);
                }
            }
            i
        })
        .collect()
}

fn metric_list(api_version: &str, kind: &str, items: Vec<Value>) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "metadata": {}, "items": items})
}

/// Everything fetched for one HPA.
pub struct Fetched {
    /// The `v1 List` (what `kubectl hpa snapshot` prints).
    pub list: Value,
    /// The HPA as the server returned it.
    pub hpa: HorizontalPodAutoscaler,
    /// What could not be read besides the metrics sources, and denied requests, in words.
    pub notes: Vec<String>,
    pub server_version: Option<String>,
}

const CUSTOM: &str = "/apis/custom.metrics.k8s.io/v1beta2";
const EXTERNAL: &str = "/apis/external.metrics.k8s.io/v1beta1";

fn selector_string(
    s: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
) -> String {
    s.and_then(|s| Selector::from_label_selector(s).ok())
        .map(|s| s.to_string())
        .unwrap_or_default()
}

/// A note for a denied (401/403) metrics request: names the verb and the resource.
fn denied_note(f: &ApiFailure, what: &str) -> Option<String> {
    matches!(f.code(), Some(401 | 403)).then(|| {
        format!(
            "{} was denied ({}): {what} cannot be read with these credentials, so the controller's view (it uses its own service account) may differ; ask for `{}` on this resource",
            f.request(),
            if f.code() == Some(401) { "401 Unauthorized" } else { "403 Forbidden" },
            f.verb
        )
    })
}

/// The result of the pods branch (after the scale).
#[derive(Default)]
struct PodsBranch {
    pods: Vec<Value>,
    pod_metrics: Option<Result<Vec<Value>, ApiFailure>>,
    pods_metrics: Vec<(String, Result<Vec<Value>, ApiFailure>)>,
}

/// Fetch everything the controller reads for HPA `ns/name` (GET/LIST only) and build the List.
pub async fn fetch_hpa(conn: &Conn, ns: &str, name: &str) -> Result<Fetched> {
    let hpa_path = format!("/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers");
    let hpa_res = "horizontalpodautoscalers.autoscaling";
    let mut raw = match conn
        .get(
            &format!("{hpa_path}/{name}"),
            &[],
            What {
                verb: "get",
                resource: hpa_res,
                object: named(name, ns),
            },
        )
        .await
    {
        Ok(v) => v,
        Err(f) if f.code() == Some(404) => {
            let others = conn
                .list(
                    &hpa_path,
                    &[],
                    false,
                    ("autoscaling/v2", "HorizontalPodAutoscaler"),
                    What {
                        verb: "list",
                        resource: hpa_res,
                        object: in_ns(ns),
                    },
                )
                .await
                .map(|l| {
                    l.iter()
                        .filter_map(|h| h.pointer("/metadata/name")?.as_str().map(String::from))
                        .collect::<Vec<_>>()
                });
            let hint = match others {
                Ok(n) if n.is_empty() => format!("there is no HPA in namespace {ns:?}"),
                Ok(n) => format!("HPAs in namespace {ns:?}: {}", n.join(", ")),
                Err(_) => String::new(),
            };
            bail!(
                "horizontalpodautoscalers.autoscaling {name:?} not found in namespace {ns:?} (context {}){}",
                conn.context,
                if hint.is_empty() { String::new() } else { format!("; {hint}") }
            );
        }
        Err(f) => bail!(f.fatal()),
    };
    raw["apiVersion"] = json!("autoscaling/v2");
    raw["kind"] = json!("HorizontalPodAutoscaler");
    let hpa: HorizontalPodAutoscaler = serde_json::from_value(raw.clone())
        .map_err(|e| anyhow!("HorizontalPodAutoscaler {ns}/{name} from the server: {e}"))?;
    let spec = &hpa.spec;
    let tref = &spec.scale_target_ref;
    let tref_api = tref.api_version.clone().unwrap_or_default();

    let metrics: Vec<MetricSpec> = spec.metrics.clone().unwrap_or_default();
    let needs_pod_metrics = metrics.is_empty()
        || metrics
            .iter()
            .any(|m| m.resource.is_some() || m.container_resource.is_some());
    let pods_specs: Vec<(String, String)> = metrics
        .iter()
        .filter_map(|m| m.pods.as_ref())
        .map(|p| {
            (
                p.metric.name.clone(),
                selector_string(p.metric.selector.as_ref()),
            )
        })
        .collect();

    // The scale, then everything selected by its selector.
    let scale_branch = async {
        let scale = conn.scale(ns, &tref_api, &tref.kind, &tref.name).await;
        let Ok(s) = &scale else {
            return (scale, Ok(PodsBranch::default()));
        };
        let selector = s
            .pointer("/status/selector")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if selector.is_empty() || Selector::parse(&selector).is_err() {
            return (scale, Ok(PodsBranch::default()));
        }
        let pods_f = async {
            conn.list(
                &format!("/api/v1/namespaces/{ns}/pods"),
                &[("labelSelector", selector.clone())],
                true,
                ("v1", "Pod"),
                What {
                    verb: "list",
                    resource: "pods",
                    object: in_ns(ns),
                },
            )
            .await
        };
        let pm_f = async {
            if !needs_pod_metrics {
                return None;
            }
            Some(
                conn.list(
                    &format!("/apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods"),
                    &[("labelSelector", selector.clone())],
                    false,
                    ("metrics.k8s.io/v1beta1", "PodMetrics"),
                    What {
                        verb: "list",
                        resource: "pods.metrics.k8s.io",
                        object: in_ns(ns),
                    },
                )
                .await,
            )
        };
        let custom_f = join_all(pods_specs.iter().map(|(metric, msel)| {
            let selector = selector.clone();
            async move {
                let r = conn
                    .list(
                        &format!("{CUSTOM}/namespaces/{ns}/pods/*/{metric}"),
                        &[
                            ("labelSelector", selector),
                            ("metricLabelSelector", msel.clone()),
                        ],
                        false,
                        ("", ""),
                        What {
                            verb: "get",
                            resource: "pods.custom.metrics.k8s.io",
                            object: in_ns(ns),
                        },
                    )
                    .await;
                (metric.clone(), r)
            }
        }));
        let (pods, pod_metrics, pods_metrics) = tokio::join!(pods_f, pm_f, custom_f);
        let branch = pods.map(|pods| PodsBranch {
            pods,
            pod_metrics,
            pods_metrics,
        });
        (scale, branch)
    };

    // The target object itself (context for the snapshot; its scale is what counts).
    let target_f = async {
        if tref_api != "apps/v1"
            || !matches!(
                tref.kind.as_str(),
                "Deployment" | "StatefulSet" | "ReplicaSet"
            )
        {
            return None;
        }
        let plural = plural_guess(&tref.kind);
        let r = conn
            .get(
                &format!("/apis/apps/v1/namespaces/{ns}/{plural}/{}", tref.name),
                &[],
                What {
                    verb: "get",
                    resource: &format!("{plural}.apps"),
                    object: named(&tref.name, ns),
                },
            )
            .await;
        Some(r.map(|mut v| {
            v["apiVersion"] = json!("apps/v1");
            v["kind"] = json!(tref.kind);
            v
        }))
    };

    let objects_f = join_all(metrics.iter().filter_map(|m| m.object.as_ref()).map(|o| {
        let d = &o.described_object;
        let metric = o.metric.name.clone();
        let msel = selector_string(o.metric.selector.as_ref());
        async move {
            let key = object_metric_key(&d.kind, &d.name, &metric);
            let api = d.api_version.clone().unwrap_or_default();
            let path = if d.kind == "Namespace" && api.split('/').next() == Some("v1") {
                Ok(format!("{CUSTOM}/namespaces/{}/metrics/{metric}", d.name))
            } else {
                conn.resource_of(&api, &d.kind).await.map(|gvr| {
                    format!(
                        "{CUSTOM}/namespaces/{ns}/{}/{}/{metric}",
                        gvr.qualified(),
                        d.name
                    )
                })
            };
            let r = match path {
                Err(e) => Err(e),
                Ok(p) => conn
                    .list(
                        &p,
                        &[("metricLabelSelector", msel)],
                        false,
                        ("", ""),
                        What {
                            verb: "get",
                            resource: "custom.metrics.k8s.io",
                            object: format!("{} {:?} metric {metric:?}", d.kind, d.name),
                        },
                    )
                    .await
                    .map_err(|f| f.client_go_text()),
            };
            (key, r)
        }
    }));

    let externals_f = join_all(metrics.iter().filter_map(|m| m.external.as_ref()).map(|e| {
        let metric = e.metric.name.clone();
        let sel = selector_string(e.metric.selector.as_ref());
        async move {
            let r = conn
                .list(
                    &format!("{EXTERNAL}/namespaces/{ns}/{metric}"),
                    &[("labelSelector", sel)],
                    false,
                    ("", ""),
                    What {
                        verb: "list",
                        resource: "external.metrics.k8s.io",
                        object: format!("{metric:?} in namespace {ns:?}"),
                    },
                )
                .await;
            (metric, r)
        }
    }));

    let events_f = async {
        conn.list(
        &format!("/api/v1/namespaces/{ns}/events"),
        &[(
            "fieldSelector",
            format!(
                "involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name={name},involvedObject.namespace={ns}"
            ),
        )],
        false,
        ("v1", "Event"),
        What {
            verb: "list",
            resource: "events",
            object: in_ns(ns),
        },
        )
        .await
    };

    let version_f = conn.version();

    // The namespace's other HPAs (AmbiguousSelector), then their targets' scales.
    let others_f = async {
        let list = conn
            .list(
                &hpa_path,
                &[],
                false,
                ("autoscaling/v2", "HorizontalPodAutoscaler"),
                What {
                    verb: "list",
                    resource: hpa_res,
                    object: in_ns(ns),
                },
            )
            .await?;
        let others: Vec<Value> = list
            .into_iter()
            .filter(|h| h.pointer("/metadata/name").and_then(Value::as_str) != Some(name))
            .collect();
        // Their targets: apps/v1 workloads are listed once per kind (the request count does not
        // grow with the number of HPAs); other kinds need their scale subresource each.
        let mut apps_kinds: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
        let mut other_targets = Vec::new();
        for h in &others {
            let Some(r) = h.pointer("/spec/scaleTargetRef") else {
                continue;
            };
            let (api, kind, tname) = (
                r["apiVersion"].as_str().unwrap_or_default().to_string(),
                r["kind"].as_str().unwrap_or_default().to_string(),
                r["name"].as_str().unwrap_or_default().to_string(),
            );
            if kind.is_empty() || tname.is_empty() || (kind == tref.kind && tname == tref.name) {
                continue; // unusable, or the same target: its scale is fetched already
            }
            let plural = match (api.as_str(), kind.as_str()) {
                ("apps/v1", "Deployment") => Some("deployments"),
                ("apps/v1", "StatefulSet") => Some("statefulsets"),
                ("apps/v1", "ReplicaSet") => Some("replicasets"),
                _ => None,
            };
            match plural {
                Some(p) => {
                    apps_kinds.entry(p).or_default().insert(tname);
                }
                None => other_targets.push((api, kind, tname)),
            }
        }
        let workloads = join_all(apps_kinds.iter().map(|(plural, names)| async move {
            let kind = match *plural {
                "deployments" => "Deployment",
                "statefulsets" => "StatefulSet",
                _ => "ReplicaSet",
            };
            let items = conn
                .list(
                    &format!("/apis/apps/v1/namespaces/{ns}/{plural}"),
                    &[],
                    true,
                    ("apps/v1", kind),
                    What {
                        verb: "list",
                        resource: match *plural {
                            "deployments" => "deployments.apps",
                            "statefulsets" => "statefulsets.apps",
                            _ => "replicasets.apps",
                        },
                        object: in_ns(ns),
                    },
                )
                .await
                .unwrap_or_default();
            items
                .into_iter()
                .filter(|w| {
                    w.pointer("/metadata/name")
                        .and_then(Value::as_str)
                        .is_some_and(|n| names.contains(n))
                })
                .collect::<Vec<_>>()
        }));
        let scales =
            join_all(other_targets.iter().map(|(api, kind, tname)| async move {
                conn.scale(ns, api, kind, tname).await.ok()
            }));
        let (workloads, scales) = tokio::join!(workloads, scales);
        let mut found: Vec<Value> = workloads.into_iter().flatten().collect();
        found.extend(scales.into_iter().flatten());
        Ok::<_, ApiFailure>((others, found))
    };

    let ((scale, pods_branch), target, objects, externals, events, version, others) = tokio::join!(
        scale_branch,
        target_f,
        objects_f,
        externals_f,
        events_f,
        version_f,
        others_f
    );

    let mut items: Vec<Value> = vec![raw];
    let mut errors: BTreeMap<String, String> = BTreeMap::new();
    let mut notes: Vec<String> = Vec::new();

    match others {
        Ok((others, scales)) => {
            items.extend(others);
            items.extend(scales);
        }
        Err(f) => notes.push(format!(
            "the namespace's other HPAs could not be listed ({}): AmbiguousSelector (several HPAs on the same pods) was not checked",
            f.client_go_text()
        )),
    }
    match target {
        Some(Ok(t)) => items.push(t),
        Some(Err(f)) => notes.push(format!(
            "{} failed ({}); the decision uses the target's scale subresource",
            f.request(),
            f.client_go_text()
        )),
        None => {}
    }
    match scale {
        Ok(s) => items.push(s),
        Err(e) => {
            errors.insert("scale".into(), e);
        }
    }
    let branch = pods_branch.map_err(|f| anyhow!(f.fatal()))?;
    items.extend(branch.pods);
    match branch.pod_metrics {
        Some(Ok(pm)) => items.push(metric_list("metrics.k8s.io/v1beta1", "PodMetricsList", pm)),
        Some(Err(f)) => {
            notes.extend(denied_note(&f, "resource metrics (cpu, memory)"));
            errors.insert(
                "resource-metrics".into(),
                format!(
                    "unable to fetch metrics from resource metrics API: {}",
                    f.client_go_text()
                ),
            );
            items.push(metric_list(
                "metrics.k8s.io/v1beta1",
                "PodMetricsList",
                vec![],
            ));
        }
        None => {}
    }
    for (metric, r) in branch.pods_metrics {
        match r {
            Ok(v) => items.push(metric_list(
                "custom.metrics.k8s.io/v1beta2",
                "MetricValueList",
                v,
            )),
            Err(f) => {
                notes.extend(denied_note(&f, &format!("pods metric {metric}")));
                errors.insert(
                    pods_metric_key(&metric),
                    format!(
                        "unable to fetch metrics from custom metrics API: {}",
                        f.client_go_text()
                    ),
                );
            }
        }
    }
    for (key, r) in objects {
        match r {
            Ok(v) => items.push(metric_list(
                "custom.metrics.k8s.io/v1beta2",
                "MetricValueList",
                v,
            )),
            Err(e) => {
                errors.insert(
                    key,
                    format!("unable to fetch metrics from custom metrics API: {e}"),
                );
            }
        }
    }
    for (metric, r) in externals {
        match r {
            Ok(v) => items.push(metric_list(
                "external.metrics.k8s.io/v1beta1",
                "ExternalMetricValueList",
                v,
            )),
            Err(f) => {
                notes.extend(denied_note(&f, &format!("external metric {metric}")));
                errors.insert(
                    external_metric_key(&metric),
                    format!(
                        "unable to fetch metrics from external metrics API: {}",
                        f.client_go_text()
                    ),
                );
            }
        }
    }
    match events {
        Ok(ev) => items.extend(ev),
        Err(f) => notes.push(format!(
            "the HPA's events could not be listed ({}): {}",
            f.request(),
            f.client_go_text()
        )),
    }
    let server_version = match version {
        Ok(v) => v["gitVersion"].as_str().map(String::from),
        Err(f) => {
            notes.push(format!(
                "the server version could not be read: {}",
                f.client_go_text()
            ));
            None
        }
    };

    let mut annotations = serde_json::Map::new();
    annotations.insert(
        TAKEN_AT_ANNOTATION.into(),
        json!(Timestamp::now().to_string()),
    );
    annotations.insert(
        SOURCE_ANNOTATION.into(),
        json!(format!("cluster {} ({})", conn.context, conn.server)),
    );
    if let Some(v) = &server_version {
        annotations.insert(SERVER_VERSION_ANNOTATION.into(), json!(v));
    }
    if !errors.is_empty() {
        annotations.insert(
            FETCH_ERRORS_ANNOTATION.into(),
            json!(serde_json::to_string(&errors)?),
        );
    }
    let list = json!({
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"annotations": annotations},
        "items": items,
    });
    Ok(Fetched {
        list,
        hpa,
        notes,
        server_version,
    })
}

/// For shell completion: the HPA names of `namespace` (`None`: the context's namespace), or
/// with `hpas == false` the namespace names, from the default kubeconfig. Bounded by `timeout`;
/// every error (no kubeconfig, unreachable, RBAC) gives an empty list.
pub fn list_names(hpas: bool, namespace: Option<&str>, timeout: Duration) -> Vec<String> {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return Vec::new();
    };
    let flags = KubeFlags {
        namespace: namespace.map(String::from),
        request_timeout: format!("{}ms", timeout.as_millis().max(1)),
        ..KubeFlags::default()
    };
    let work = async {
        let conn = connect(&flags).await.ok()?;
        let (path, resource) = if hpas {
            (
                format!(
                    "/apis/autoscaling/v2/namespaces/{}/horizontalpodautoscalers",
                    conn.namespace
                ),
                "horizontalpodautoscalers.autoscaling",
            )
        } else {
            ("/api/v1/namespaces".to_string(), "namespaces")
        };
        let items = conn
            .list(
                &path,
                &[],
                false,
                ("", ""),
                What {
                    verb: "list",
                    resource,
                    object: String::new(),
                },
            )
            .await
            .ok()?;
        Some(
            items
                .iter()
                .filter_map(|i| i.pointer("/metadata/name")?.as_str().map(String::from))
                .collect::<Vec<_>>(),
        )
    };
    rt.block_on(async { tokio::time::timeout(timeout, work).await.ok().flatten() })
        .unwrap_or_default()
}

// ------------------------------------------------------------------ fleet (many HPAs at once)

/// The resource metrics APIService (`v1beta1.metrics.k8s.io`), read when a PodMetrics call failed
/// to tell "not installed" from "unavailable": one GET.
pub async fn metrics_apiservice(conn: &Conn) -> crate::diagnose::MetricsApi {
    use crate::diagnose::{MetricsApi, METRICS_APISERVICE};
    let r = conn
        .get(
            &format!("/apis/apiregistration.k8s.io/v1/apiservices/{METRICS_APISERVICE}"),
            &[],
            What {
                verb: "get",
                resource: "apiservices.apiregistration.k8s.io",
                object: format!("{METRICS_APISERVICE:?}"),
            },
        )
        .await;
    match r {
        Ok(v) => MetricsApi::from_apiservice(Some(&v)),
        Err(f) if f.code() == Some(404) => MetricsApi::Absent,
        Err(f) => MetricsApi::Unknown(format!("{}: {}", f.request(), f.client_go_text())),
    }
}

/// Everything fetched for the HPAs of a namespace or of the cluster.
pub struct FleetFetched {
    /// One `v1 List` per namespace that has HPAs (what [`crate::snapshot::Snapshot::from_owned`]
    /// reads), namespaces in order.
    pub lists: Vec<(String, Value)>,
    /// HPAs whose target's scale could not be read (`(namespace, name)` → the error as the
    /// controller's scale client words it); evaluated from their own List with a `scale`
    /// fetch error, which gives `FailedGetScale` as the controller would.
    pub scale_errors: BTreeMap<(String, String), String>,
    /// What could not be read besides metrics, in words.
    pub notes: Vec<String>,
    pub server_version: Option<String>,
    /// The resource metrics APIService, read only when the PodMetrics LIST failed.
    pub metrics_api: Option<crate::diagnose::MetricsApi>,
}

fn ns_of(v: &Value) -> String {
    v.pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("default")
        .to_string()
}

/// Fetch the HPAs of `namespace` (`None`: every namespace) and what they read, with a number of
/// requests that does not grow with the number of HPAs: one LIST each of HPAs, pods, PodMetrics,
/// Deployments, StatefulSets and ReplicaSets (per namespace, or cluster-wide), plus one request
/// per distinct custom/external metric query, a discovery GET per custom-resource group/version
/// and a scale GET per custom-resource target. Events are not read. GET and LIST only.
pub async fn fetch_fleet(conn: &Conn, namespace: Option<&str>) -> Result<FleetFetched> {
    let base = |group_version: &str, plural: &str| -> String {
        let root = if group_version == "v1" {
            "/api/v1".to_string()
        } else {
            format!("/apis/{group_version}")
        };
        match namespace {
            Some(ns) => format!("{root}/namespaces/{ns}/{plural}"),
            None => format!("{root}/{plural}"),
        }
    };
    let scope = match namespace {
        Some(ns) => in_ns(ns),
        None => "in all namespaces".to_string(),
    };
    let list_of = |gv: &'static str,
                   plural: &'static str,
                   resource: &'static str,
                   kind: &'static str,
                   paged: bool| {
        let path = base(gv, plural);
        let scope = scope.clone();
        async move {
            conn.list(
                &path,
                &[],
                paged,
                (gv, kind),
                What {
                    verb: "list",
                    resource,
                    object: scope,
                },
            )
            .await
        }
    };
    // Round 1: every list, concurrently.
    let version_f = conn.version();
    let (hpas, pods, pod_metrics, deployments, statefulsets, replicasets, version) = tokio::join!(
        list_of(
            "autoscaling/v2",
            "horizontalpodautoscalers",
            "horizontalpodautoscalers.autoscaling",
            "HorizontalPodAutoscaler",
            true
        ),
        list_of("v1", "pods", "pods", "Pod", true),
        list_of(
            "metrics.k8s.io/v1beta1",
            "pods",
            "pods.metrics.k8s.io",
            "PodMetrics",
            false
        ),
        list_of(
            "apps/v1",
            "deployments",
            "deployments.apps",
            "Deployment",
            true
        ),
        list_of(
            "apps/v1",
            "statefulsets",
            "statefulsets.apps",
            "StatefulSet",
            true
        ),
        list_of(
            "apps/v1",
            "replicasets",
            "replicasets.apps",
            "ReplicaSet",
            true
        ),
        version_f,
    );
    let hpas = hpas.map_err(|f| anyhow!(f.fatal()))?;
    let pods = pods.map_err(|f| anyhow!(f.fatal()))?;
    let mut notes = Vec::new();
    let server_version = match version {
        Ok(v) => v["gitVersion"].as_str().map(String::from),
        Err(f) => {
            notes.push(format!(
                "the server version could not be read: {}",
                f.client_go_text()
            ));
            None
        }
    };
    let mut workloads: BTreeMap<&str, Result<Vec<Value>, ApiFailure>> = BTreeMap::new();
    workloads.insert("Deployment", deployments);
    workloads.insert("StatefulSet", statefulsets);
    workloads.insert("ReplicaSet", replicasets);
    for (kind, r) in &workloads {
        if let Err(f) = r {
            notes.push(format!(
                "{} failed ({}): the scale of each {kind} target is read one by one instead",
                f.request(),
                f.client_go_text()
            ));
        }
    }

    // What the HPAs need.
    struct Need {
        ns: String,
        name: String,
        api: String,
        kind: String,
        target: String,
    }
    let mut needs = Vec::new();
    let mut uses_resource = false;
    let mut pods_q: BTreeSet<(String, String, String)> = BTreeSet::new(); // ns, metric, metric selector
    let mut object_q: BTreeSet<(String, String, String, String, String, String)> = BTreeSet::new(); // ns, api, kind, name, metric, msel
    let mut external_q: BTreeSet<(String, String, String)> = BTreeSet::new(); // ns, metric, selector
    for h in &hpas {
        let ns = ns_of(h);
        let name = h
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let Ok(typed) = serde_json::from_value::<HorizontalPodAutoscaler>(h.clone()) else {
            continue; // reported when the snapshot is read
        };
        let r = &typed.spec.scale_target_ref;
        needs.push(Need {
            ns: ns.clone(),
            name,
            api: r.api_version.clone().unwrap_or_default(),
            kind: r.kind.clone(),
            target: r.name.clone(),
        });
        let metrics = typed.spec.metrics.clone().unwrap_or_default();
        if metrics.is_empty() {
            uses_resource = true;
        }
        for m in &metrics {
            if m.resource.is_some() || m.container_resource.is_some() {
                uses_resource = true;
            }
            if let Some(p) = &m.pods {
                pods_q.insert((
                    ns.clone(),
                    p.metric.name.clone(),
                    selector_string(p.metric.selector.as_ref()),
                ));
            }
            if let Some(o) = &m.object {
                let d = &o.described_object;
                object_q.insert((
                    ns.clone(),
                    d.api_version.clone().unwrap_or_default(),
                    d.kind.clone(),
                    d.name.clone(),
                    o.metric.name.clone(),
                    selector_string(o.metric.selector.as_ref()),
                ));
            }
            if let Some(e) = &m.external {
                external_q.insert((
                    ns.clone(),
                    e.metric.name.clone(),
                    selector_string(e.metric.selector.as_ref()),
                ));
            }
        }
    }

    // Which targets need a scale GET: other kinds, and apps/v1 kinds whose list failed.
    let ok_kinds: BTreeSet<&str> = workloads
        .iter()
        .filter(|(_, r)| r.is_ok())
        .map(|(k, _)| *k)
        .collect();
    let listed = |api: &str, kind: &str| api == "apps/v1" && ok_kinds.contains(kind);
    let scale_gets: BTreeSet<(String, String, String, String)> = needs
        .iter()
        .filter(|n| !listed(&n.api, &n.kind))
        .map(|n| {
            (
                n.ns.clone(),
                n.api.clone(),
                n.kind.clone(),
                n.target.clone(),
            )
        })
        .collect();
    // Discovery once per group/version/kind.
    let mut kinds: BTreeSet<(String, String)> = scale_gets
        .iter()
        .map(|(_, a, k, _)| (a.clone(), k.clone()))
        .collect();
    kinds.extend(
        object_q
            .iter()
            .filter(|q| !(q.2 == "Namespace" && q.1.split('/').next() == Some("v1")))
            .map(|q| (q.1.clone(), q.2.clone())),
    );
    let resolved: BTreeMap<(String, String), Result<Gvr, String>> =
        join_all(kinds.into_iter().map(|(a, k)| async move {
            let r = conn.resource_of(&a, &k).await;
            ((a, k), r)
        }))
        .await
        .into_iter()
        .collect();

    // Round 2: scales of the other targets, metrics, and the APIService if PodMetrics failed.
    let scales_f = join_all(scale_gets.iter().map(|(ns, api, kind, target)| {
        let gvr = resolved.get(&(api.clone(), kind.clone()));
        async move {
            let r = match gvr {
                Some(Err(e)) => Err(e.clone()),
                _ => conn.scale(ns, api, kind, target).await,
            };
            ((ns.clone(), kind.clone(), target.clone()), r)
        }
    }));
    let pods_f = join_all(pods_q.iter().map(|(ns, metric, msel)| async move {
        let r = conn
            .list(
                &format!("{CUSTOM}/namespaces/{ns}/pods/*/{metric}"),
                &[("metricLabelSelector", msel.clone())],
                false,
                ("", ""),
                What {
                    verb: "get",
                    resource: "pods.custom.metrics.k8s.io",
                    object: in_ns(ns),
                },
            )
            .await;
        (ns.clone(), metric.clone(), r)
    }));
    let objects_f = join_all(object_q.iter().map(|q| {
        let (ns, api, kind, name, metric, msel) = q;
        let gvr = resolved.get(&(api.clone(), kind.clone()));
        async move {
            let key = object_metric_key(kind, name, metric);
            let path = if kind == "Namespace" && api.split('/').next() == Some("v1") {
                Ok(format!("{CUSTOM}/namespaces/{name}/metrics/{metric}"))
            } else {
                match gvr {
                    Some(Ok(g)) => Ok(format!(
                        "{CUSTOM}/namespaces/{ns}/{}/{name}/{metric}",
                        g.qualified()
                    )),
                    Some(Err(e)) => Err(e.clone()),
                    None => Err(format!("no matches for kind {kind:?} in version {api:?}")),
                }
            };
            let r = match path {
                Err(e) => Err(e),
                Ok(p) => conn
                    .list(
                        &p,
                        &[("metricLabelSelector", msel.clone())],
                        false,
                        ("", ""),
                        What {
                            verb: "get",
                            resource: "custom.metrics.k8s.io",
                            object: format!("{kind} {name:?} metric {metric:?}"),
                        },
                    )
                    .await
                    .map_err(|f| f.client_go_text()),
            };
            (ns.clone(), key, r)
        }
    }));
    let externals_f = join_all(external_q.iter().map(|(ns, metric, sel)| async move {
        let r = conn
            .list(
                &format!("{EXTERNAL}/namespaces/{ns}/{metric}"),
                &[("labelSelector", sel.clone())],
                false,
                ("", ""),
                What {
                    verb: "list",
                    resource: "external.metrics.k8s.io",
                    object: format!("{metric:?} in namespace {ns:?}"),
                },
            )
            .await;
        (ns.clone(), metric.clone(), r)
    }));
    let api_f = async {
        if uses_resource && pod_metrics.is_err() {
            Some(metrics_apiservice(conn).await)
        } else {
            None
        }
    };
    let (scales, pods_metrics, objects, externals, metrics_api) =
        tokio::join!(scales_f, pods_f, objects_f, externals_f, api_f);

    // Assemble one List per namespace.
    struct NsList {
        items: Vec<Value>,
        errors: BTreeMap<String, String>,
    }
    let mut by_ns: BTreeMap<String, NsList> = BTreeMap::new();
    for h in &hpas {
        by_ns.entry(ns_of(h)).or_insert_with(|| NsList {
            items: vec![],
            errors: BTreeMap::new(),
        });
    }
    let push = |by_ns: &mut BTreeMap<String, NsList>, ns: &str, v: Value| {
        if let Some(l) = by_ns.get_mut(ns) {
            l.items.push(v);
        }
    };
    for h in hpas {
        let ns = ns_of(&h);
        push(&mut by_ns, &ns, h);
    }
    for r in workloads.into_values().flatten() {
        for w in r {
            let ns = ns_of(&w);
            push(&mut by_ns, &ns, w);
        }
    }
    let mut scale_errors = BTreeMap::new();
    let scales: BTreeMap<(String, String, String), Result<Value, String>> =
        scales.into_iter().collect();
    for n in &needs {
        if listed(&n.api, &n.kind) {
            let present = by_ns.get(&n.ns).is_some_and(|l| {
                l.items.iter().any(|i| {
                    i["kind"] == n.kind.as_str()
                        && i.pointer("/metadata/name").and_then(Value::as_str)
                            == Some(n.target.as_str())
                })
            });
            if !present {
                scale_errors.insert(
                    (n.ns.clone(), n.name.clone()),
                    format!("{}.apps {:?} not found", plural_guess(&n.kind), n.target),
                );
            }
            continue;
        }
        if let Some(Err(e)) = scales.get(&(n.ns.clone(), n.kind.clone(), n.target.clone())) {
            scale_errors.insert((n.ns.clone(), n.name.clone()), e.clone());
        }
    }
    for ((ns, _, _), r) in scales {
        if let Ok(s) = r {
            push(&mut by_ns, &ns, s);
        }
    }
    for p in pods {
        let ns = ns_of(&p);
        push(&mut by_ns, &ns, p);
    }
    match pod_metrics {
        Ok(pm) => {
            let mut per: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            for m in pm {
                per.entry(ns_of(&m)).or_default().push(m);
            }
            for (ns, l) in by_ns.iter_mut() {
                l.items.push(metric_list(
                    "metrics.k8s.io/v1beta1",
                    "PodMetricsList",
                    per.remove(ns).unwrap_or_default(),
                ));
            }
        }
        Err(f) => {
            if uses_resource {
                notes.extend(denied_note(&f, "resource metrics (cpu, memory)"));
            }
            for l in by_ns.values_mut() {
                l.errors.insert(
                    "resource-metrics".into(),
                    format!(
                        "unable to fetch metrics from resource metrics API: {}",
                        f.client_go_text()
                    ),
                );
                l.items.push(metric_list(
                    "metrics.k8s.io/v1beta1",
                    "PodMetricsList",
                    vec![],
                ));
            }
        }
    }
    for (ns, metric, r) in pods_metrics {
        match r {
            Ok(v) => push(
                &mut by_ns,
                &ns,
                metric_list("custom.metrics.k8s.io/v1beta2", "MetricValueList", v),
            ),
            Err(f) => {
                notes.extend(denied_note(&f, &format!("pods metric {metric}")));
                if let Some(l) = by_ns.get_mut(&ns) {
                    l.errors.insert(
                        pods_metric_key(&metric),
                        format!(
                            "unable to fetch metrics from custom metrics API: {}",
                            f.client_go_text()
                        ),
                    );
                }
            }
        }
    }
    for (ns, key, r) in objects {
        match r {
            Ok(v) => push(
                &mut by_ns,
                &ns,
                metric_list("custom.metrics.k8s.io/v1beta2", "MetricValueList", v),
            ),
            Err(e) => {
                if let Some(l) = by_ns.get_mut(&ns) {
                    l.errors.insert(
                        key,
                        format!("unable to fetch metrics from custom metrics API: {e}"),
                    );
                }
            }
        }
    }
    for (ns, metric, r) in externals {
        match r {
            Ok(v) => push(
                &mut by_ns,
                &ns,
                metric_list(
                    "external.metrics.k8s.io/v1beta1",
                    "ExternalMetricValueList",
                    v,
                ),
            ),
            Err(f) => {
                notes.extend(denied_note(&f, &format!("external metric {metric}")));
                if let Some(l) = by_ns.get_mut(&ns) {
                    l.errors.insert(
                        external_metric_key(&metric),
                        format!(
                            "unable to fetch metrics from external metrics API: {}",
                            f.client_go_text()
                        ),
                    );
                }
            }
        }
    }
    let taken = Timestamp::now().to_string();
    let mut lists = Vec::with_capacity(by_ns.len());
    for (ns, l) in by_ns {
        let mut annotations = serde_json::Map::new();
        annotations.insert(TAKEN_AT_ANNOTATION.into(), json!(taken));
        annotations.insert(
            SOURCE_ANNOTATION.into(),
            json!(format!("cluster {} ({})", conn.context, conn.server)),
        );
        if let Some(v) = &server_version {
            annotations.insert(SERVER_VERSION_ANNOTATION.into(), json!(v));
        }
        if !l.errors.is_empty() {
            annotations.insert(
                FETCH_ERRORS_ANNOTATION.into(),
                json!(serde_json::to_string(&l.errors)?),
            );
        }
        lists.push((
            ns,
            json!({"apiVersion": "v1", "kind": "List", "metadata": {"annotations": annotations}, "items": l.items}),
        ));
    }
    Ok(FleetFetched {
        lists,
        scale_errors,
        notes,
        server_version,
        metrics_api,
    })
}

// ------------------------------------------------------------------ `kubectl hpa migrate`
//
// The only writes of the program: `migrate --apply` sends the PATCH requests its plan shows,
// byte for byte, through [`Conn::patch_raw`].

impl Conn {
    /// GET an API path (query included in `path` if any); JSON back.
    pub async fn get_path(
        &self,
        path: &str,
        resource: &str,
        object: String,
    ) -> Result<Value, ApiFailure> {
        self.get(
            path,
            &[],
            What {
                verb: "get",
                resource,
                object,
            },
        )
        .await
    }

    /// LIST an API path, paged; items get `item_type` as apiVersion/kind when missing.
    pub async fn list_path(
        &self,
        path: &str,
        item_type: (&str, &str),
        resource: &str,
        object: String,
    ) -> Result<Vec<Value>, ApiFailure> {
        self.list(
            path,
            &[],
            true,
            item_type,
            What {
                verb: "list",
                resource,
                object,
            },
        )
        .await
    }

    /// The collection path and qualified resource name of a kind in `ns`
    /// (`/apis/apps/v1/namespaces/shop/deployments`, `deployments.apps`); discovery for
    /// non-built-in groups.
    pub async fn collection_of(
        &self,
        ns: &str,
        api_version: &str,
        kind: &str,
    ) -> Result<(String, String), String> {
        let gvr = self.resource_of(api_version, kind).await?;
        Ok((gvr.collection(ns), gvr.qualified()))
    }

    /// Send one PATCH exactly as planned: `path` (without query), the query (`fieldManager`,
    /// `dryRun` only), the content type (`application/merge-patch+json` or
    /// `application/apply-patch+yaml`) and the body bytes. Never forced.
    pub async fn patch_raw(
        &self,
        path: &str,
        query: &[(String, String)],
        content_type: &str,
        body: &str,
        resource: &str,
        object: String,
    ) -> Result<Value, ApiFailure> {
        use kube::api::{Patch, PatchParams};
        let fail = |failure| ApiFailure {
            verb: "patch",
            resource: resource.to_string(),
            object: object.clone(),
            server: self.server.clone(),
            failure,
        };
        let mut pp = PatchParams::default();
        for (k, v) in query {
            match k.as_str() {
                "fieldManager" => pp.field_manager = Some(v.clone()),
                "dryRun" if v == "All" => pp.dry_run = true,
                _ => return Err(fail(Failure::Other(format!("unsupported query {k}={v}")))),
            }
        }
        let patch: Patch<()> = match content_type {
            "application/merge-patch+json" => Patch::Merge(()),
            "application/apply-patch+yaml" => Patch::Apply(()),
            other => {
                return Err(fail(Failure::Other(format!(
                    "unsupported content type {other}"
                ))))
            }
        };
        let mut req = Request::new("")
            .patch(path.trim_start_matches('/'), &pp, &patch)
            .map_err(|e| fail(Failure::Other(e.to_string())))?;
        *req.body_mut() = body.as_bytes().to_vec();
        self.send(self.client.request::<Value>(req), fail).await
    }
}
