//! The connection to one API server (made by [`super::connect`]) and how a request travels:
//! one `send` for every request (GET and LIST; the PATCH of `migrate --apply` is in
//! [`super::writes`]) under `--request-timeout`, a bounded number in flight, retried as
//! client-go retries, LISTs paged; a request that got no answer classified in kubectl's words.

use std::time::Duration;

use http::Request;
use kube::Client;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::failure::{status_failure, unreadable, ApiFailure, Failure};
use super::obj::{self, Obj};
use super::words::{authority, joined};

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
    /// or the TCP connection timed out; anything else as [`unanswered`] classifies it.
    async fn transport_failure(&self, e: &kube::Error) -> (Failure, Option<Duration>) {
        let parts = super::words::chain(e);
        let low = joined(&parts).to_lowercase();
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
        unanswered(&parts, &self.server)
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
        let authority = authority(&self.server);
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
        let decode = |_: &str, b: &[u8]| {
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
            .map_err(|e| unanswered(&super::words::chain(&e), &self.server))?;
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
        decode(&content_type, &body).map_err(|e| (unreadable(&content_type, &body, &e), None))
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

    /// One page of a LIST: its continue token and its items, each read by `reduce` (see
    /// [`Conn::page_started`]).
    pub(super) async fn page(
        &self,
        path: &str,
        query: &[(&str, String)],
        item_type: (&str, &str),
        what: What<'_>,
        reduce: &'static Reduce,
    ) -> Result<(String, Vec<Obj>), ApiFailure> {
        let (next, items) = self
            .page_started(path, query, item_type, what, reduce)
            .await?;
        Ok((next, items.await?))
    }

    /// One page of a LIST, read off the runtime's thread (`spawn_blocking`, on the other
    /// core): its continue token as soon as the page is scanned, and its items still being
    /// read by `reduce` — the runtime goes on with the next page and the other requests (the
    /// other contexts') meanwhile.
    async fn page_started(
        &self,
        path: &str,
        query: &[(&str, String)],
        item_type: (&str, &str),
        what: What<'_>,
        reduce: &'static Reduce,
    ) -> Result<(String, Reading), ApiFailure> {
        let keep = |content_type: &str, b: &[u8]| Ok((content_type.to_string(), b.to_vec()));
        let failure = Failing {
            verb: what.verb,
            resource: what.resource.to_string(),
            object: what.object.clone(),
            server: self.server.clone(),
        };
        let (content_type, body) = self.get_as(path, query, what, &keep).await?;
        let (api_version, kind) = (item_type.0.to_string(), item_type.1.to_string());
        let (token, scanned) = tokio::sync::oneshot::channel();
        let unreadable_as = failure.clone();
        let items = tokio::task::spawn_blocking(move || {
            let unread = |e: serde_json::Error| {
                Box::new(unreadable_as.failure(unreadable(&content_type, &body, &e)))
            };
            let (next, raw) = match scan_page(&body, &kind) {
                Ok(page) => page,
                Err(e) => {
                    let _ = token.send(Err(unread(e)));
                    return Ok(vec![]);
                }
            };
            let _ = token.send(Ok(next));
            let item_type = (api_version.as_str(), kind.as_str());
            raw.into_iter()
                .map(|r| reduce(r, item_type))
                .collect::<serde_json::Result<Vec<Obj>>>()
                .map_err(unread)
        });
        let reading = Reading {
            items,
            failure: failure.clone(),
        };
        match scanned.await {
            Ok(Ok(next)) => Ok((next, reading)),
            Ok(Err(f)) => Err(*f),
            // The reading ended without a word: its own error says why.
            Err(_) => Err(match reading.await {
                Err(f) => f,
                Ok(_) => failure.failure(Failure::Other("the answer was not read".into())),
            }),
        }
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
        reduce: &'static Reduce,
    ) -> Result<Vec<Obj>, ApiFailure> {
        // Each page's items are read while the next page is asked for.
        let mut reading = Vec::new();
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
            let (next, items) = self
                .page_started(path, &q, item_type, what_now, reduce)
                .await?;
            reading.push(items);
            if page.is_none() || next.is_empty() {
                let mut items = Vec::new();
                for r in reading {
                    items.append(&mut r.await?);
                }
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

    /// GET an API path (query included in `path` if any); the body's bytes back, unread (a
    /// service proxy's answer, which its caller parses once, in its own format).
    pub async fn get_path_bytes(
        &self,
        path: &str,
        resource: &str,
        object: String,
    ) -> Result<Vec<u8>, ApiFailure> {
        let what = What {
            verb: "get",
            resource,
            object,
        };
        self.get_as(path, &[], what, &|_, b| Ok(b.to_vec())).await
    }

    /// LIST an API path, paged; items get `item_type` as apiVersion/kind when missing.
    pub async fn list_path(
        &self,
        path: &str,
        item_type: (&str, &str),
        resource: &str,
        object: String,
    ) -> Result<Vec<Value>, ApiFailure> {
        self.list_values(
            path,
            &[],
            Some(500),
            item_type,
            What {
                verb: "list",
                resource,
                object,
            },
        )
        .await
    }
}

/// Reads one item of a LIST from its JSON text, with the LIST's (apiVersion, kind) set where
/// the item has none (LIST items usually have neither): one read of the item does both.
pub(super) type Reduce = dyn Fn(&RawValue, (&str, &str)) -> serde_json::Result<Obj> + Sync;

/// Reads a body from its bytes (and its content type).
type Decode<'a, T> = dyn Fn(&str, &[u8]) -> serde_json::Result<T> + Sync + 'a;

/// An item kept whole, typed.
pub(super) fn whole(item: &RawValue, item_type: (&str, &str)) -> serde_json::Result<Obj> {
    obj::with_type(item.to_owned().into(), item_type)
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

/// A page's continue token and its items' text, not yet read (a page of another kind, or a
/// `Status`, is an error).
fn scan_page<'a>(body: &'a [u8], kind: &str) -> serde_json::Result<(String, Vec<&'a RawValue>)> {
    let page: PageWire = serde_json::from_slice(body)?;
    let text = |r: Option<&RawValue>| r.and_then(|r| serde_json::from_str::<String>(r.get()).ok());
    let (status, message, reason) = (text(page.status), text(page.message), text(page.reason));
    let status = (status.as_deref(), message.as_deref(), reason.as_deref());
    if let Some(why) = super::shape::wrong_kind(page.kind.as_deref(), kind, true, status) {
        return Err(serde::de::Error::custom(why));
    }
    let next = page.metadata.and_then(|m| m.cont).unwrap_or_default();
    Ok((next, page.items.unwrap_or_default()))
}

/// A page's continue token and its items, each read by `reduce`, typed.
#[cfg(test)]
fn read_page(
    body: &[u8],
    reduce: &Reduce,
    item_type: (&str, &str),
) -> serde_json::Result<(String, Vec<Obj>)> {
    let (next, raw) = scan_page(body, item_type.1)?;
    let mut items = Vec::with_capacity(raw.len());
    for r in raw {
        items.push(reduce(r, item_type)?);
    }
    Ok((next, items))
}

/// What a failed request was, for its [`ApiFailure`] (a page read after its answer).
#[derive(Clone)]
struct Failing {
    verb: &'static str,
    resource: String,
    object: String,
    server: String,
}

impl Failing {
    fn failure(&self, failure: Failure) -> ApiFailure {
        ApiFailure {
            verb: self.verb,
            resource: self.resource.clone(),
            object: self.object.clone(),
            server: self.server.clone(),
            failure,
            attempts: 1,
        }
    }
}

/// The items of a page still being read (see [`Conn::page_started`]).
struct Reading {
    items: tokio::task::JoinHandle<Result<Vec<Obj>, Box<ApiFailure>>>,
    failure: Failing,
}

impl std::future::IntoFuture for Reading {
    type Output = Result<Vec<Obj>, ApiFailure>;
    type IntoFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            match self.items.await {
                Ok(items) => items.map_err(|f| *f),
                Err(e) => Err(self
                    .failure
                    .failure(Failure::Other(format!("reading the answer: {e}")))),
            }
        })
    }
}

/// The wait before sending again a request whose connection was reset or closed unanswered.
const RESET_BACKOFF: Duration = Duration::from_millis(200);

/// The innermost cause, without the OS error number: `Connection refused`,
/// `failed to lookup address information: Name or service not known`.
fn cause(parts: &[String]) -> String {
    let last = parts.last().map(String::as_str).unwrap_or_default();
    let plain = match last.rfind(" (os error ") {
        Some(i) if last.ends_with(')') => &last[..i],
        _ => last,
    };
    plain.to_string()
}

/// A request that got no answer, classified from its error chain: refused, unreachable (in
/// plain words), or reset/closed before the answer (retried after a short backoff, as
/// client-go retries a GET on a reset connection or an EOF).
pub(super) fn unanswered(parts: &[String], server: &str) -> (Failure, Option<Duration>) {
    let low = joined(parts).to_lowercase();
    if low.contains("connection refused") {
        return (Failure::Refused, None);
    }
    let cause = cause(parts);
    if low.contains("dns error") || low.contains("failed to lookup address") {
        let host = authority(server);
        let host = host.rsplit_once(':').map_or(host.as_str(), |(h, _)| h);
        return (
            Failure::Unreachable(format!("cannot resolve the host name {host}: {cause}")),
            None,
        );
    }
    if [
        "tcp connect error",
        "no route to host",
        "network is unreachable",
    ]
    .iter()
    .any(|m| low.contains(m))
    {
        return (Failure::Unreachable(cause), None);
    }
    let reset = [
        "connection reset",
        "connection closed before message completed",
        "incomplete message",
        "unexpected eof",
        "broken pipe",
        "connection was aborted",
    ]
    .iter()
    .any(|m| low.contains(m));
    match reset {
        true => (Failure::Other(cause), Some(RESET_BACKOFF)),
        false => (Failure::Other(plain_chain(parts)), None),
    }
}

/// The chain without the wrappers that only say where in the Rust stack it failed
/// (`ServiceError`, `client error (Connect)`).
fn plain_chain(parts: &[String]) -> String {
    let kept: Vec<String> = parts
        .iter()
        .map(|p| {
            p.trim_start_matches("ServiceError: ")
                .trim_start_matches("HyperError: ")
                .to_string()
        })
        .filter(|p| !(p.starts_with("client error (") && p.ends_with(')')))
        .collect();
    match kept.is_empty() {
        true => joined(parts),
        false => joined(&kept),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn transport_errors_in_plain_words() {
        let parts = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let refused = parts(&[
            "ServiceError: client error (Connect)",
            "client error (Connect)",
            "tcp connect error",
            "Connection refused (os error 111)",
        ]);
        assert!(matches!(
            unanswered(&refused, "http://h:1").0,
            Failure::Refused
        ));
        let dns = parts(&[
            "ServiceError: client error (Connect)",
            "client error (Connect)",
            "dns error",
            "failed to lookup address information: Name or service not known",
        ]);
        let Failure::Unreachable(m) = unanswered(&dns, "https://nosuch.example:6443").0 else {
            panic!("dns")
        };
        assert_eq!(m, "cannot resolve the host name nosuch.example: failed to lookup address information: Name or service not known");
        let reset = parts(&[
            "ServiceError: client error (SendRequest)",
            "client error (SendRequest)",
            "connection closed before message completed",
        ]);
        let (f, hint) = unanswered(&reset, "http://h:1");
        assert!(hint.is_some());
        let Failure::Other(m) = f else {
            panic!("reset")
        };
        assert_eq!(m, "connection closed before message completed");
        let odd = parts(&[
            "ServiceError: client error (Other)",
            "client error (Other)",
            "odd",
        ]);
        let Failure::Other(m) = unanswered(&odd, "http://h:1").0 else {
            panic!("odd")
        };
        assert_eq!(m, "odd");
    }
}
