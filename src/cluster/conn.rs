//! The connection to one API server (made by [`super::connect`]): one `send` for every request (GET and LIST; the PATCH of `migrate --apply` is [`Conn::patch_raw`]).
//! Failures are typed ([`ApiFailure`]) and worded as client-go words them.

use std::time::Duration;

use http::Request;
use kube::Client;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

pub use crate::restmapper::{builtin_mapping, Gvr, Unmapped};

pub use super::connect::{connect, list_names, ConnectOptions, DefaultTimeout};
use super::obj::{self, Obj};
use crate::metrics_api::{MetricsApi, MetricsGroup};

/// Requests in flight at once, per connection. 10 is client-go's default burst (kubectl's
/// client sends at most 10 requests at once before its 5-per-second limit applies), and half
/// of 20, the in-flight share at which a small API server's Priority and Fairness starts
/// answering 429: `explain -A` stays a good citizen of a busy control plane.
pub const MAX_IN_FLIGHT: usize = 10;

/// Attempts of one idempotent request at most (client-go's default of 10).
const MAX_ATTEMPTS: u32 = 10;

/// The longest `Retry-After` wait honoured per attempt.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);

/// The most pages of one LIST (at 500 or 5000 items a page, far more than any cluster holds).
const MAX_PAGES: u32 = 10_000;

/// How much longer than `--request-timeout` a request may take when its connection attempt
/// (bounded by `--request-timeout` too) is what timed out: its own error is clearer.
const CONNECT_GRACE: Duration = Duration::from_millis(200);

/// A connection to one API server, as kubectl's flags chose it.
#[derive(Clone)]
pub struct Conn {
    pub(super) client: Client,
    /// `-n`, else the context's namespace, else `default`.
    pub namespace: String,
    /// The kubeconfig context in use (`in-cluster` for the service-account fallback).
    pub context: String,
    /// The server URL, for messages.
    pub server: String,
    pub(super) timeout: Option<Duration>,
    /// What `timeout` is: `--request-timeout`, or the command's default (`one sync period`).
    pub(super) timeout_what: &'static str,
    /// The TCP connect and TLS handshake bound.
    pub(super) connect_timeout: Option<Duration>,
    /// [`MAX_IN_FLIGHT`] permits shared by every request of this connection.
    pub(super) permits: std::sync::Arc<tokio::sync::Semaphore>,
    /// `-v`: requests are logged on stderr from level 6 on, as kubectl logs them.
    pub(super) verbosity: u8,
    /// The kubeconfig names behind the TLS settings, for TLS failures in words.
    pub(super) tls: super::tls::TlsContext,
    /// Requests go through a proxy (no direct TCP probe after a connect timeout).
    pub(super) proxied: bool,
    /// The bearer token, sent by [`Conn::attempt_quiet`] (kube sends other credentials).
    pub(super) credentials: Option<std::sync::Arc<super::auth::Credentials>>,
    /// Discovery documents read so far ([`Conn::discovery_cache`]).
    pub(super) discovered:
        std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Value>>>,
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
    /// No answer within `--request-timeout` (or the command's default, named).
    Timeout(Duration, &'static str),
    /// The server could not be reached.
    Unreachable(String),
    /// Nothing listens at the server's address (the connection was refused).
    Refused,
    /// A success answer whose body is not JSON (an HTML proxy or login page...).
    Unreadable(String),
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
    /// How many times the request was sent (retries included).
    pub attempts: u32,
}

impl Failure {
    /// A 401: the server refused the credentials.
    fn refused_credentials(&self) -> bool {
        matches!(self, Failure::Status { code: 401, .. })
    }
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
            Failure::Timeout(t, _) => format!(
                "the request timed out after {} (get {})",
                crate::duration::format_go_duration(t.as_nanos() as i64),
                self.resource
            ),
            Failure::Unreachable(m) | Failure::Other(m) => m.clone(),
            Failure::Refused => format!(
                "dial tcp {}: connect: connection refused",
                super::words::authority(&self.server)
            ),
            Failure::Unreadable(m) => format!("{m} (get {})", self.resource),
        }
    }

    /// The resource and why it could not be read, in a few words:
    /// `pods.metrics.k8s.io (429 Too Many Requests after 10 attempts)`.
    pub fn short(&self) -> String {
        let why = match &self.failure {
            Failure::Status { code, .. } => {
                let phrase = http::StatusCode::from_u16(*code)
                    .ok()
                    .and_then(|c| c.canonical_reason())
                    .unwrap_or("error");
                format!("{code} {phrase}")
            }
            Failure::Timeout(t, _) => format!(
                "no answer within {}",
                crate::duration::format_go_duration(t.as_nanos() as i64)
            ),
            Failure::Unreachable(_) => "server unreachable".into(),
            Failure::Refused => "connection refused".into(),
            Failure::Unreadable(m) | Failure::Other(m) => m.clone(),
        };
        let after = match self.attempts {
            n if n > 1 => format!(" after {n} attempts"),
            _ => String::new(),
        };
        format!("{} ({why}{after})", self.resource)
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
            Failure::Timeout(t, what) => format!(
                "{req}: no answer from {} within {} ({})",
                self.server,
                crate::duration::format_go_duration(t.as_nanos() as i64),
                match *what {
                    "--request-timeout" => what.to_string(),
                    other => format!("{other}; --request-timeout sets another"),
                }
            ),
            Failure::Unreachable(m) => {
                format!("unable to connect to the server {}: {m}", self.server)
            }
            // kubectl's words (its standardErrorMessage)
            Failure::Refused => format!(
                "The connection to the server {} was refused - did you specify the right host or port?",
                super::words::authority(&self.server)
            ),
            Failure::Other(m) | Failure::Unreadable(m) => format!("{req}: {m}"),
        }
    }
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

/// The longest wait for a TCP connection when telling a TLS handshake timeout from a
/// connect timeout.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

impl Conn {
    /// A request that got no answer, in words: TLS failures name what to set
    /// ([`super::tls::TlsContext::explain`]), a connect timeout says whether the TLS handshake
    /// or the TCP connection timed out; anything else as [`transport`] classifies it.
    async fn transport_failure(&self, e: &kube::Error) -> (Failure, Option<Duration>) {
        let parts = super::words::chain(e);
        let low = super::words::joined(&parts).to_lowercase();
        if let Some(words) = self.tls.explain(&low) {
            return (Failure::Unreachable(words), None);
        }
        if low.contains("connect")
            && (low.contains("deadline has elapsed") || low.contains("timed out"))
        {
            return (
                Failure::Unreachable(self.connect_timeout_words().await),
                None,
            );
        }
        super::words::transport(&parts, &self.server)
    }

    /// A connect timeout: a TLS handshake timeout when the server takes TCP connections
    /// (probed once, directly, unless a proxy is in the way), else a TCP connect timeout.
    async fn connect_timeout_words(&self) -> String {
        let within = self
            .connect_timeout
            .map(|t| {
                format!(
                    " within {}",
                    crate::duration::format_go_duration(t.as_nanos() as i64)
                )
            })
            .unwrap_or_default();
        let https = self.server.starts_with("https://");
        let authority = super::words::authority(&self.server);
        let addr = match (authority.rsplit_once(':'), https) {
            (Some((_, p)), _) if !p.contains(']') => authority.clone(),
            (_, true) => format!("{authority}:443"),
            (_, false) => format!("{authority}:80"),
        };
        let probe = tokio::time::timeout(PROBE_TIMEOUT, tokio::net::TcpStream::connect(&addr));
        let tcp_ok = !self.proxied && matches!(probe.await, Ok(Ok(_)));
        match (https, tcp_ok) {
            (true, true) => format!(
                "TLS handshake timeout: {addr} takes TCP connections but completed no TLS handshake{within} (is it the API server's TLS port? a proxy or load balancer in the way? a longer --request-timeout waits longer)"
            ),
            _ => format!(
                "timed out connecting to {addr}{within} (a firewall, a wrong address or port, or an overloaded server; a longer --request-timeout waits longer)"
            ),
        }
    }
}

/// client-go's rule: a 429 or a 5xx with `Retry-After` is retried after that many seconds
/// (each wait capped at [`MAX_RETRY_AFTER`]); a 429 without it after one second.
fn retry_hint(code: u16, retry_after: Option<u64>) -> Option<Duration> {
    let capped = |s: u64| Duration::from_secs(s).min(MAX_RETRY_AFTER);
    match (code, retry_after) {
        (429, None) => Some(Duration::from_secs(1)),
        (429 | 500..=599, Some(s)) => Some(capped(s)),
        _ => None,
    }
}

/// An error answer: its `Status` when the body is one, else the body's first line.
fn status_failure(code: u16, body: &[u8]) -> Failure {
    #[derive(serde::Deserialize)]
    struct Status {
        #[serde(default)]
        reason: String,
        #[serde(default)]
        message: String,
        kind: Option<String>,
    }
    match serde_json::from_slice::<Status>(body) {
        Ok(st) if st.kind.as_deref() == Some("Status") => Failure::Status {
            code,
            reason: st.reason,
            message: st.message,
            parsed: true,
        },
        _ => Failure::Status {
            code,
            reason: String::new(),
            message: body_words(body),
            parsed: false,
        },
    }
}

/// A body that is not a Status, in a few words: an HTML page named as such.
fn body_words(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.starts_with('<') {
        return "an HTML page answered instead of the API (a proxy or a login page?)".into();
    }
    let line = text.lines().next().unwrap_or_default();
    line.chars().take(200).collect()
}

/// A success answer whose body is not JSON.
fn unreadable(content_type: &str, body: &[u8], e: &serde_json::Error) -> Failure {
    let words = body_words(body);
    if words.starts_with("an HTML page") {
        return Failure::Unreadable(words);
    }
    // JSON of the wrong shape (see super::shape), in its own words without the position.
    if e.is_data() {
        let m = e.to_string();
        let m = m.rsplit_once(" at line ").map_or(m.as_str(), |(m, _)| m);
        return Failure::Unreadable(m.to_string());
    }
    let ct = if content_type.is_empty() {
        "no content type"
    } else {
        content_type
    };
    Failure::Unreadable(format!("the answer is not JSON ({ct}): {e}"))
}

/// A copy of a request to send it again.
fn clone_request(req: &Request<Vec<u8>>) -> Request<Vec<u8>> {
    let mut copy = Request::new(req.body().clone());
    *copy.method_mut() = req.method().clone();
    *copy.uri_mut() = req.uri().clone();
    *copy.headers_mut() = req.headers().clone();
    copy
}

/// `kubectl-hpa/<version>`
fn user_agent() -> String {
    format!("kubectl-hpa/{}", env!("CARGO_PKG_VERSION"))
}

/// What one request asks for, for messages.
pub(super) struct What<'a> {
    pub verb: &'static str,
    pub resource: &'a str,
    pub object: String,
}

pub(super) fn in_ns(ns: &str) -> String {
    format!("in namespace {ns:?}")
}

pub(super) fn named(name: &str, ns: &str) -> String {
    format!("{name:?} in namespace {ns:?}")
}

/// Why a fetch of one plan request failed.
#[derive(Debug, Clone)]
pub enum FetchError {
    Api(Box<ApiFailure>),
    Unmapped(Unmapped),
}

impl FetchError {
    pub fn from_api(f: ApiFailure) -> FetchError {
        FetchError::Api(Box::new(f))
    }
    /// The error as the controller's clients word it.
    pub fn client_go_text(&self) -> String {
        match self {
            FetchError::Api(f) => f.client_go_text(),
            FetchError::Unmapped(u) => u.to_string(),
        }
    }
    pub fn api(&self) -> Option<&ApiFailure> {
        match self {
            FetchError::Api(f) => Some(f),
            FetchError::Unmapped(_) => None,
        }
    }

    /// Our own failure, in a few words (`pods.metrics.k8s.io (429 Too Many Requests)`), or
    /// `None` when the controller would meet the same failure: a 404 (the API or the metric
    /// is not served, the object does not exist) or a kind no API serves. Anything else — a
    /// throttled, failed, timed-out, unreadable or denied request (the controller reads with
    /// its own credentials) — says nothing about the controller's view.
    pub fn own_failure(&self) -> Option<String> {
        match self {
            FetchError::Api(f) if f.code() == Some(404) => None,
            FetchError::Api(f) => Some(f.short()),
            FetchError::Unmapped(Unmapped::Discovery { api_version, text }) => {
                Some(format!("the API group of {api_version} ({text})"))
            }
            FetchError::Unmapped(_) => None,
        }
    }
}

impl Conn {
    /// The discovery document at `path` read before on this connection, or (with `store`)
    /// remember it: a fleet's targets of one group cost one discovery, not one per HPA.
    pub(super) fn discovery_cache(&self, path: &str, store: Option<&Value>) -> Option<Value> {
        let mut cache = self.discovered.lock().unwrap_or_else(|e| e.into_inner());
        match store {
            Some(v) => cache.insert(path.to_string(), v.clone()),
            None => cache.get(path).cloned(),
        }
    }

    /// Forget the discovery documents under `prefix` (`/apis/GROUP`).
    pub(super) fn forget_discovery(&self, prefix: &str) {
        let mut cache = self.discovered.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|path, _| !(path == prefix || path.starts_with(&format!("{prefix}/"))));
    }

    /// `GET /version` (the server's version, for the snapshot and the comparison).
    pub(super) async fn version(&self) -> Result<Value, ApiFailure> {
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
    pub(super) async fn get(
        &self,
        path: &str,
        query: &[(&str, String)],
        what: What<'_>,
    ) -> Result<Value, ApiFailure> {
        self.get_kind(path, query, what, "").await
    }

    /// [`Conn::get`] of one object of kind `kind` (`""`: any): a 200 holding an object of
    /// another kind, or a `Status`, is our own failure, never data.
    pub(super) async fn get_kind(
        &self,
        path: &str,
        query: &[(&str, String)],
        what: What<'_>,
        kind: &str,
    ) -> Result<Value, ApiFailure> {
        let decode = |b: &[u8]| {
            let v: Value = serde_json::from_slice(b)?;
            match super::shape::wrong_value(&v, kind, false) {
                Some(why) => Err(serde::de::Error::custom(why)),
                None => Ok(v),
            }
        };
        self.get_as(path, query, what, &decode).await
    }

    /// GET `path`, the body read by `decode` straight from its bytes (a LIST's page into
    /// reduced items, without building the whole page as a `Value` first).
    async fn get_as<T>(
        &self,
        path: &str,
        query: &[(&str, String)],
        what: What<'_>,
        decode: &Decode<'_, T>,
    ) -> Result<T, ApiFailure> {
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
            attempts: 1,
        };
        let req = kube::core::Request::new("")
            .get(&url, &Default::default())
            .map_err(|e| fail(Failure::Other(e.to_string())))?;
        self.send(req, true, fail, decode).await
    }

    /// Send one request under `--request-timeout`, at most [`MAX_IN_FLIGHT`] at once; failures
    /// are classified for one-line messages by `fail`. Idempotent requests (GET, LIST) are
    /// retried as client-go retries them (see [`retry_wait`]); the whole call, retries and
    /// their waits included, stays within `--request-timeout`.
    pub(super) async fn send<T>(
        &self,
        req: Request<Vec<u8>>,
        idempotent: bool,
        fail: impl Fn(Failure) -> ApiFailure,
        decode: &Decode<'_, T>,
    ) -> Result<T, ApiFailure> {
        let deadline = self.timeout.map(|t| tokio::time::Instant::now() + t);
        let work = async {
            let mut attempt = 1;
            loop {
                let res = self.attempt(clone_request(&req), decode).await;
                // A request refused for its credentials was not processed: it is sent again
                // with renewed ones, even a PATCH.
                let wait = match &res {
                    Err((f, hint))
                        if (idempotent || f.refused_credentials()) && attempt < MAX_ATTEMPTS =>
                    {
                        *hint
                    }
                    _ => None,
                };
                let Some(wait) =
                    wait.filter(|w| deadline.is_none_or(|d| tokio::time::Instant::now() + *w < d))
                else {
                    return res.map_err(|(f, _)| (f, attempt));
                };
                tokio::time::sleep(wait).await;
                attempt += 1;
            }
        };
        let res = match (self.timeout, deadline) {
            // The grace lets a connect timeout (bounded by the same duration) be told as one.
            (Some(t), Some(d)) => match tokio::time::timeout_at(d + CONNECT_GRACE, work).await {
                Ok(r) => r,
                Err(_) => return Err(fail(Failure::Timeout(t, self.timeout_what))),
            },
            _ => work.await,
        };
        res.map_err(|(f, attempts)| ApiFailure {
            attempts,
            ..fail(f)
        })
    }

    /// One attempt: a permit of the in-flight bound, the request, its whole body.
    async fn attempt<T>(
        &self,
        req: Request<Vec<u8>>,
        decode: &Decode<'_, T>,
    ) -> Result<T, (Failure, Option<Duration>)> {
        if self.verbosity < 6 {
            return self.attempt_quiet(req, decode).await;
        }
        let (method, uri) = (req.method().clone(), req.uri().clone());
        let start = std::time::Instant::now();
        let res = self.attempt_quiet(req, decode).await;
        let status = match &res {
            Ok(_) => "OK".to_string(),
            Err((Failure::Status { code, .. }, _)) => code.to_string(),
            Err((Failure::Timeout(..), _)) => "timeout".to_string(),
            Err(_) => "failed".to_string(),
        };
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "{method} {}{uri} {status} in {} milliseconds",
            self.server,
            start.elapsed().as_millis()
        );
        res
    }

    /// One attempt, not logged.
    async fn attempt_quiet<T>(
        &self,
        mut req: Request<Vec<u8>>,
        decode: &Decode<'_, T>,
    ) -> Result<T, (Failure, Option<Duration>)> {
        let _permit = self.permits.acquire().await;
        let headers = req.headers_mut();
        for (k, v) in [
            ("accept", "application/json".to_string()),
            ("user-agent", user_agent()),
        ] {
            if let Ok(v) = v.parse() {
                headers.entry(k).or_insert(v);
            }
        }
        let mut generation = None;
        if let Some(c) = &self.credentials {
            let (v, g) = c.header().await.map_err(|m| (Failure::Other(m), None))?;
            headers.insert(http::header::AUTHORIZATION, v);
            generation = Some(g);
        }
        let res = match self.client.send(req.map(kube::client::Body::from)).await {
            Ok(r) => r,
            Err(e) => return Err(self.transport_failure(&e).await),
        };
        let code = res.status().as_u16();
        let retry_after = res
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let content_type = res
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body = res
            .into_body()
            .collect_bytes()
            .await
            .map_err(|e| super::words::transport(&super::words::chain(&e), &self.server))?;
        if code >= 400 {
            let mut hint = retry_hint(code, retry_after);
            // Refused credentials: sent again at once if the token was renewed (an exec
            // plugin's or a token file's).
            if let (401, Some(c), Some(g)) = (code, &self.credentials, generation) {
                if c.renewed_after_refusal(g).await {
                    hint = Some(Duration::ZERO);
                }
            }
            return Err((status_failure(code, &body), hint));
        }
        decode(&body).map_err(|e| (unreadable(&content_type, &body, &e), None))
    }

    /// A LIST, paged with `limit`/`continue` when `page` is given; the items with
    /// apiVersion/kind set.
    pub(super) async fn list(
        &self,
        path: &str,
        query: &[(&str, String)],
        page: Option<u32>,
        item_type: (&str, &str),
        what: What<'_>,
    ) -> Result<Vec<Obj>, ApiFailure> {
        self.list_each(path, query, page, item_type, what, &whole)
            .await
    }

    /// [`Conn::list`], each item as a `Value`.
    pub(super) async fn list_values(
        &self,
        path: &str,
        query: &[(&str, String)],
        page: Option<u32>,
        item_type: (&str, &str),
        what: What<'_>,
    ) -> Result<Vec<Value>, ApiFailure> {
        let items = self.list(path, query, page, item_type, what).await?;
        Ok(items.iter().map(|o| obj::to_value(o)).collect())
    }

    /// One page of a LIST: its continue token and its items, each read by `reduce`.
    pub(super) async fn page(
        &self,
        path: &str,
        query: &[(&str, String)],
        item_type: (&str, &str),
        what: What<'_>,
        reduce: &Reduce,
    ) -> Result<(String, Vec<Obj>), ApiFailure> {
        let decode = move |b: &[u8]| read_page(b, reduce, item_type);
        self.get_as(path, query, what, &decode).await
    }

    /// [`Conn::list`], each item read by `reduce` from its JSON text as its page arrives (to
    /// build only what is read: the pages of a big LIST are never held whole, as text or as
    /// `Value`s). A `resourceVersion` in `query` is sent with the first page only (the API
    /// server refuses it beside a `continue` token).
    pub(super) async fn list_each(
        &self,
        path: &str,
        query: &[(&str, String)],
        page: Option<u32>,
        item_type: (&str, &str),
        what: What<'_>,
        reduce: &Reduce,
    ) -> Result<Vec<Obj>, ApiFailure> {
        let mut items = Vec::new();
        let mut cont = String::new();
        let mut pages = 0;
        loop {
            let mut q = query.to_vec();
            if let Some(limit) = page {
                q.push(("limit", limit.to_string()));
                q.push(("continue", cont.clone()));
            }
            if !cont.is_empty() {
                q.retain(|(k, _)| *k != "resourceVersion");
            }
            let what_now = What {
                verb: what.verb,
                resource: what.resource,
                object: what.object.clone(),
            };
            let (next, mut got) = self.page(path, &q, item_type, what_now, reduce).await?;
            items.append(&mut got);
            if page.is_none() || next.is_empty() {
                return Ok(items);
            }
            pages += 1;
            if next == cont || pages >= MAX_PAGES {
                let why = match next == cont {
                    true => "the server answered the same continue token twice".to_string(),
                    false => format!("more than {MAX_PAGES} pages"),
                };
                return Err(ApiFailure {
                    verb: what.verb,
                    resource: what.resource.to_string(),
                    object: what.object.clone(),
                    server: self.server.clone(),
                    failure: Failure::Other(format!("{why}: refusing to page further")),
                    attempts: 1,
                });
            }
            cont = next;
        }
    }
}

/// Reads one item of a LIST from its JSON text, with the LIST's (apiVersion, kind) set where
/// the item has none (LIST items usually have neither): one read of the item does both.
pub(super) type Reduce = dyn Fn(&RawValue, (&str, &str)) -> serde_json::Result<Obj> + Sync;

/// Reads a body from its bytes.
type Decode<'a, T> = dyn Fn(&[u8]) -> serde_json::Result<T> + Sync + 'a;

/// An item kept whole, typed.
pub(super) fn whole(item: &RawValue, item_type: (&str, &str)) -> serde_json::Result<Obj> {
    obj::with_type(item.to_owned(), item_type)
}

/// A LIST page as it arrives: its continue token and its items, not yet read.
#[derive(Deserialize)]
struct PageWire<'a> {
    #[serde(default, borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    /// A `Status`'s fields (a LIST page has none of them).
    #[serde(default, borrow)]
    status: Option<&'a RawValue>,
    #[serde(default, borrow)]
    message: Option<&'a RawValue>,
    #[serde(default, borrow)]
    reason: Option<&'a RawValue>,
    #[serde(default)]
    metadata: Option<ListMetaWire>,
    #[serde(default, borrow)]
    items: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct ListMetaWire {
    #[serde(default, rename = "continue")]
    cont: Option<String>,
}

/// A page's continue token and its items, each read by `reduce`, typed.
fn read_page(
    body: &[u8],
    reduce: &Reduce,
    item_type: (&str, &str),
) -> serde_json::Result<(String, Vec<Obj>)> {
    let page: PageWire = serde_json::from_slice(body)?;
    let text = |r: Option<&RawValue>| r.and_then(|r| serde_json::from_str::<String>(r.get()).ok());
    let (status, message, reason) = (text(page.status), text(page.message), text(page.reason));
    let status = (status.as_deref(), message.as_deref(), reason.as_deref());
    if let Some(why) = super::shape::wrong_kind(page.kind.as_deref(), item_type.1, true, status) {
        return Err(serde::de::Error::custom(why));
    }
    let next = page.metadata.and_then(|m| m.cont).unwrap_or_default();
    let raw = page.items.unwrap_or_default();
    let mut items = Vec::with_capacity(raw.len());
    for r in raw {
        items.push(reduce(r, item_type)?);
    }
    Ok((next, items))
}

// ------------------------------------------------------------------ fleet (many HPAs at once)

/// The resource metrics APIService `name` (the version the controller reads, see
/// [`crate::metrics_api::resource_apiservice`]), read when a PodMetrics call failed to tell "not
/// installed" from "unavailable": one GET.
pub async fn metrics_apiservice(conn: &Conn, name: &str) -> MetricsApi {
    apiservice(conn, name).await.0
}

/// One APIService: what it says of its availability, and the object when it exists.
pub async fn apiservice(conn: &Conn, name: &str) -> (MetricsApi, Option<Value>) {
    let r = conn
        .get(
            &format!("/apis/apiregistration.k8s.io/v1/apiservices/{name}"),
            &[],
            What {
                verb: "get",
                resource: "apiservices.apiregistration.k8s.io",
                object: format!("{name:?}"),
            },
        )
        .await;
    match r {
        Ok(mut v) => {
            v["apiVersion"] = json!("apiregistration.k8s.io/v1");
            v["kind"] = json!("APIService");
            (MetricsApi::from_apiservice(Some(&v)), Some(v))
        }
        Err(f) if f.code() == Some(404) => (MetricsApi::Absent, None),
        Err(f) => (
            MetricsApi::Unknown(format!("{}: {}", f.request(), f.client_go_text())),
            None,
        ),
    }
}

/// The APIService of a metrics API that tells (the first of its
/// APIServices, the preferred version first, that exists): its name, availability and object.
pub async fn group_apiservice(
    conn: &Conn,
    group: MetricsGroup,
) -> Option<(String, MetricsApi, Option<Value>)> {
    let mut last = None;
    for name in group.apiservices() {
        let (api, obj) = apiservice(conn, name).await;
        let absent = api == MetricsApi::Absent;
        last = Some((name.to_string(), api, obj));
        if !absent {
            break;
        }
    }
    last
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_page_is_read_into_typed_items_and_its_continue_token() {
        use super::{read_page, whole};
        let body = br#"{"kind": "PodList", "metadata": {"continue": "abc"},
            "items": [{"metadata": {"name": "a"}}, {"kind": "Other", "metadata": {"name": "b"}}]}"#;
        let (next, items) = read_page(body, &whole, ("v1", "Pod")).expect("page");
        assert_eq!(next, "abc");
        assert_eq!(items.len(), 2);
        let items: Vec<serde_json::Value> = items.iter().map(|o| super::obj::to_value(o)).collect();
        assert_eq!(
            (items[0]["apiVersion"].as_str(), items[0]["kind"].as_str()),
            (Some("v1"), Some("Pod"))
        );
        assert_eq!(items[1]["kind"], "Other", "a kind the item has is kept");
        // The last page: no token; no items at all is an empty page.
        let (next, items) =
            read_page(br#"{"metadata": {}, "items": null}"#, &whole, ("v1", "Pod")).expect("page");
        assert_eq!((next.as_str(), items.len()), ("", 0));
        // What is not a LIST page is an error, not an empty list.
        assert!(read_page(b"[1, 2]", &whole, ("v1", "Pod")).is_err());
        assert!(read_page(br#"{"items": {"a": 1}}"#, &whole, ("v1", "Pod")).is_err());
        assert!(read_page(b"<html>", &whole, ("v1", "Pod")).is_err());
    }
}
