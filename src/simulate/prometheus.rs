//! Recorded load from a Prometheus server, for backtests (`simulate --prometheus URL`).
//!
//! The one part of [`crate::simulate`] that does I/O: a small HTTP/1.1 client (plain `http://`,
//! as a `kubectl port-forward` or an in-cluster service gives) for `GET /api/v1/query_range`,
//! with a step equal to the sync period and long ranges paged by time. Everything else here is
//! pure: the PromQL a Resource metric's load is derived from, and the response decoding.

use std::fmt;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

use super::series::{Interpolation, Series, SeriesBuilder, SeriesError};

/// Points one `query_range` request asks for at most (Prometheus refuses more than 11,000).
pub const PAGE_POINTS: i64 = 10_000;

/// What went wrong talking to Prometheus; each renders as one line.
#[derive(Debug, Clone, PartialEq)]
pub enum PromError {
    /// The URL is not `http://HOST[:PORT][/PATH]`.
    BadUrl { url: String, why: String },
    /// No TCP connection, or the connection broke.
    Unreachable { url: String, detail: String },
    /// An HTTP status other than 200, with Prometheus' error message when it gave one.
    Status {
        url: String,
        status: u16,
        message: String,
    },
    /// Prometheus refused or failed the query (bad PromQL, timeout ...).
    Query {
        query: String,
        status: u16,
        message: String,
    },
    /// The response is not the JSON `query_range` returns.
    Decode { query: String, detail: String },
    /// The query ran but returned no sample in the range.
    Empty {
        query: String,
        start: Timestamp,
        end: Timestamp,
    },
    /// The Service could not be read through the API server's proxy (a one-line reason
    /// saying what to give instead).
    Service { why: String },
    /// The query returned several series where one is expected.
    Several {
        query: String,
        count: usize,
        labels: Vec<String>,
    },
}

use crate::cluster::Failure;
use crate::display::url::mask_userinfo;

impl fmt::Display for PromError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PromError::BadUrl { url, why } => write!(
                f,
                "--prometheus {:?}: {why}; expected http://HOST:PORT (e.g. after kubectl port-forward svc/prometheus 9090)",
                mask_userinfo(url)
            ),
            PromError::Unreachable { url, detail } => {
                write!(f, "cannot reach Prometheus at {}: {detail}", mask_userinfo(url))
            }
            PromError::Status {
                url,
                status,
                message,
            } => write!(
                f,
                "Prometheus at {} answered HTTP {status}: {message}",
                mask_userinfo(url)
            ),
            PromError::Query {
                query,
                status,
                message,
            } => write!(
                f,
                "Prometheus query {query:?} failed (HTTP {status}): {message}"
            ),
            PromError::Decode { query, detail } => {
                write!(f, "Prometheus query {query:?}: unexpected response: {detail}")
            }
            PromError::Empty { query, start, end } => write!(
                f,
                "Prometheus query {query:?} returned no data between {start} and {end}; check the labels (namespace, pod, container) and the range (--since, --until), or give the query with --query"
            ),
            PromError::Service { why } => f.write_str(why),
            PromError::Several {
                query,
                count,
                labels,
            } => write!(
                f,
                "Prometheus query {query:?} returned {count} series ({}{}); one is expected: aggregate it, e.g. sum({query})",
                labels.join(", "),
                if *count > labels.len() { ", ..." } else { "" }
            ),
        }
    }
}

impl std::error::Error for PromError {}

/// One series of a result: its labels (`{pod=a,...}`) and `(unix seconds, value)` points.
type Labelled = (String, Vec<(f64, f64)>);

/// A Prometheus server: its base URL, or a Service reached through the API server's proxy.
#[derive(Debug, Clone)]
pub struct Endpoint<'rt> {
    /// As given (the URL, or `service NAMESPACE/NAME:PORT`), for messages.
    pub url: String,
    transport: Transport<'rt>,
}

/// How a request reaches Prometheus.
#[derive(Debug, Clone)]
enum Transport<'rt> {
    /// Plain HTTP to `host:port`, under a path prefix (`/prometheus`, no trailing slash).
    Direct {
        host: String,
        port: u16,
        prefix: String,
        timeout: Duration,
    },
    /// `GET /api/v1/namespaces/NS/services/NAME:PORT/proxy/...` over the kubeconfig's
    /// connection (its auth, TLS, retries and `--request-timeout`).
    Proxy(Box<ServiceProxy<'rt>>),
}

/// A Prometheus Service behind the API server's service proxy.
#[derive(Clone)]
struct ServiceProxy<'rt> {
    namespace: String,
    name: String,
    /// A port number or name, as the proxy's `NAME:PORT` takes it.
    port: String,
    conn: crate::cluster::Conn,
    /// The command's runtime (the one `lib::run` builds), which sends the requests: its
    /// `block_on` drives the I/O (a current-thread runtime's `Handle::block_on` would not).
    rt: &'rt tokio::runtime::Runtime,
}

impl fmt::Debug for ServiceProxy<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ServiceProxy({}/{}:{} via {})",
            self.namespace, self.name, self.port, self.conn.context
        )
    }
}

impl<'rt> Endpoint<'rt> {
    /// Parse `http://HOST[:PORT][/PREFIX]`.
    pub fn parse(url: &str) -> Result<Endpoint<'rt>, PromError> {
        let bad = |why: &str| PromError::BadUrl {
            url: url.to_string(),
            why: why.to_string(),
        };
        let rest = match url.split_once("://") {
            Some(("http", rest)) => rest,
            Some(("https", _)) => return Err(bad(
                "https is not supported; reach Prometheus over plain http (kubectl port-forward)",
            )),
            Some((scheme, _)) => return Err(bad(&format!("unsupported scheme {scheme:?}"))),
            None => url,
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if path.contains(['?', '#']) {
            return Err(bad("the URL must not carry a query or fragment"));
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => {
                let port = p
                    .parse::<u16>()
                    .map_err(|_| bad(&format!("invalid port {p:?}")))?;
                (h, port)
            }
            _ => (authority, 80),
        };
        if host.is_empty() || host.contains('@') {
            return Err(bad("no host"));
        }
        Ok(Endpoint {
            url: url.trim_end_matches('/').to_string(),
            transport: Transport::Direct {
                host: host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_string(),
                port,
                prefix: path.trim_end_matches('/').to_string(),
                timeout: Duration::from_secs(30),
            },
        })
    }

    /// The Service `namespace/name` (port number or name `port`) through the API server's
    /// service proxy, over `conn` (made on `rt`, which sends the requests; never called from
    /// inside a runtime).
    fn service(
        conn: crate::cluster::Conn,
        rt: &'rt tokio::runtime::Runtime,
        (namespace, name, port): (&str, &str, &str),
    ) -> Endpoint<'rt> {
        Endpoint {
            url: format!("service {namespace}/{name}:{port}"),
            transport: Transport::Proxy(Box::new(ServiceProxy {
                namespace: namespace.to_string(),
                name: name.to_string(),
                port: port.to_string(),
                conn,
                rt,
            })),
        }
    }

    /// Per-request connect and read timeout (a direct URL; the proxy has `--request-timeout`).
    pub fn with_timeout(mut self, t: Duration) -> Endpoint<'rt> {
        if let Transport::Direct { timeout, .. } = &mut self.transport {
            *timeout = t;
        }
        self
    }

    /// `GET PREFIX/path?query`; the body of a 200 response.
    fn get(&self, path: &str, query: &[(&str, String)]) -> Result<Vec<u8>, PromError> {
        let qs: Vec<String> = query
            .iter()
            .map(|(k, v)| format!("{k}={}", percent_encode(v)))
            .collect();
        match &self.transport {
            Transport::Direct {
                host,
                port,
                prefix,
                timeout,
            } => {
                let target = format!("{prefix}{path}?{}", qs.join("&"));
                self.get_direct((host, *port), &target, *timeout)
            }
            Transport::Proxy(p) => p.get(&format!("{path}?{}", qs.join("&"))),
        }
    }

    /// `GET target` over plain HTTP/1.1 to `host:port`.
    fn get_direct(
        &self,
        (host, port): (&str, u16),
        target: &str,
        timeout: Duration,
    ) -> Result<Vec<u8>, PromError> {
        let unreachable = |detail: String| PromError::Unreachable {
            url: self.url.clone(),
            detail,
        };
        let addrs: Vec<_> = (host, port)
            .to_socket_addrs()
            .map_err(|e| unreachable(format!("cannot resolve {host}: {e}")))?
            .collect();
        let mut last = String::from("no address");
        let mut stream = None;
        for a in &addrs {
            match TcpStream::connect_timeout(a, timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = e.to_string(),
            }
        }
        let mut stream = stream.ok_or_else(|| unreachable(last))?;
        let io = |e: std::io::Error| unreachable(e.to_string());
        stream.set_read_timeout(Some(timeout)).map_err(io)?;
        stream.set_write_timeout(Some(timeout)).map_err(io)?;
        let request = format!(
            "GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\nUser-Agent: kubectl-hpa\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).map_err(io)?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).map_err(io)?;
        let (status, body) = parse_response(&raw).map_err(|e| unreachable(e.to_string()))?;
        if status != 200 {
            return Err(PromError::Status {
                url: self.url.clone(),
                status,
                message: prometheus_error(&body).unwrap_or_else(|| first_line(&body)),
            });
        }
        Ok(body)
    }

    /// One `query_range` request: the series of the result, each with its labels and points.
    fn query_range_once(
        &self,
        query: &str,
        start: Timestamp,
        end: Timestamp,
        step: SignedDuration,
    ) -> Result<Vec<Labelled>, PromError> {
        let secs = |t: Timestamp| format!("{:.3}", t.as_millisecond() as f64 / 1000.0);
        let body = self
            .get(
                "/api/v1/query_range",
                &[
                    ("query", query.to_string()),
                    ("start", secs(start)),
                    ("end", secs(end)),
                    ("step", format!("{:.3}", step.as_secs_f64())),
                ],
            )
            .map_err(|e| match e {
                // 400 bad_data, 422 execution, 503 timeout: the query's own failure.
                PromError::Status {
                    status: status @ (400 | 422 | 503),
                    message,
                    ..
                } => PromError::Query {
                    query: query.to_string(),
                    status,
                    message,
                },
                other => other,
            })?;
        decode_matrix(&body, query)
    }

    /// The query's one series over `[start, end]` at `step`, paged by time: `(unix seconds,
    /// value)` in time order. NaN and infinite samples (a rate over a gap) are skipped.
    pub fn query_range(
        &self,
        query: &str,
        start: Timestamp,
        end: Timestamp,
        step: SignedDuration,
        page_points: i64,
    ) -> Result<Vec<(f64, f64)>, PromError> {
        let mut out: Vec<(f64, f64)> = Vec::new();
        let mut labels_seen: Option<String> = None;
        for (a, b) in pages(start, end, step, page_points) {
            let series = self.query_range_once(query, a, b, step)?;
            if series.len() > 1 {
                return Err(PromError::Several {
                    query: query.to_string(),
                    count: series.len(),
                    labels: series.iter().take(3).map(|s| s.0.clone()).collect(),
                });
            }
            for (labels, points) in series {
                match &labels_seen {
                    Some(l) if *l != labels => {
                        return Err(PromError::Several {
                            query: query.to_string(),
                            count: 2,
                            labels: vec![l.clone(), labels],
                        })
                    }
                    _ => labels_seen = Some(labels),
                }
                for (t, v) in points {
                    if v.is_finite() && out.last().is_none_or(|p| t > p.0) {
                        out.push((t, v));
                    }
                }
            }
        }
        if out.is_empty() {
            return Err(PromError::Empty {
                query: query.to_string(),
                start,
                end,
            });
        }
        Ok(out)
    }
}

/// The endpoint of `--prometheus URL` (parsed), or of `--prometheus-service` (the kubeconfig's
/// connection, made now on the command's runtime `rt`, which then sends the requests; never
/// called from inside that runtime).
pub fn open<'rt>(
    target: &crate::cli::history::PromTarget,
    kube: &crate::cli::KubeFlags,
    rt: &'rt tokio::runtime::Runtime,
) -> Result<Endpoint<'rt>, PromError> {
    use crate::cli::history::PromTarget;
    match target {
        PromTarget::Url(url) => Endpoint::parse(url),
        PromTarget::Service {
            namespace,
            name,
            port,
        } => {
            let conn =
                rt.block_on(crate::cluster::connect(kube))
                    .map_err(|e| PromError::Service {
                        why: format!("--prometheus-service {namespace}/{name}:{port}: {e}"),
                    })?;
            Ok(Endpoint::service(conn, rt, (namespace, name, port)))
        }
    }
}

/// Prometheus' own error message in an error answer (`{"status":"error","error":"..."}`).
fn prometheus_error(body: &[u8]) -> Option<String> {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_string))
}

/// The first line of a body, at most 200 characters.
fn first_line(body: &[u8]) -> String {
    String::from_utf8_lossy(body)
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(200)
        .collect()
}

impl ServiceProxy<'_> {
    /// `GET target` (path and query) on the Service through the API server's proxy. An
    /// error answer holding Prometheus' own error is Prometheus' ([`PromError::Status`]); the
    /// API server's 403, 404 and 503 say what to give instead ([`PromError::Service`]).
    fn get(&self, target: &str) -> Result<Vec<u8>, PromError> {
        let (ns, name, port) = (&self.namespace, &self.name, &self.port);
        let path = format!("/api/v1/namespaces/{ns}/services/{name}:{port}/proxy{target}");
        let object = format!("{:?} in namespace {ns:?}", format!("{name}:{port}"));
        let conn = &self.conn;
        let answer = self
            .rt
            .block_on(conn.get_path_bytes(&path, "services/proxy", object));
        let service = format!("{ns}/{name}");
        let e = match answer {
            Ok(body) => return Ok(body),
            Err(e) => e,
        };
        let (code, text, status_object) = match &e.failure {
            Failure::Status {
                code,
                message,
                parsed,
                ..
            } => (Some(*code), message.clone(), *parsed),
            _ => (None, String::new(), false),
        };
        // An answer that is not the API server's Status is Prometheus' own (passed through).
        if let (Some(status), false) = (code, status_object) {
            return Err(PromError::Status {
                url: self.describe(),
                status,
                message: prometheus_error(text.as_bytes()).unwrap_or(text),
            });
        }
        let why = match code {
            Some(404) => format!(
                "service {service} not found (context {}: {text}): give --prometheus-service NAMESPACE/NAME[:PORT] (kubectl get svc -A | grep prometheus) or --prometheus URL",
                conn.context
            ),
            Some(403) => format!(
                "the API server refused the proxy to service {service} (403 Forbidden: {text}): it needs get on services/proxy in namespace {ns}; or port-forward it and give --prometheus URL"
            ),
            Some(503) => format!(
                "service {service} port {port} is unavailable through the API server (503: {text}): check the port (--prometheus-service {service}:PORT) and that its pods are Ready, or give --prometheus URL"
            ),
            _ => e.fatal(),
        };
        Err(PromError::Service { why })
    }

    /// `service NS/NAME:PORT (context C)`.
    fn describe(&self) -> String {
        format!(
            "service {}/{}:{} (context {})",
            self.namespace, self.name, self.port, self.conn.context
        )
    }
}

/// Split `[start, end]` into ranges of at most `page_points` steps; consecutive pages do not
/// share an evaluation time.
pub fn pages(
    start: Timestamp,
    end: Timestamp,
    step: SignedDuration,
    page_points: i64,
) -> Vec<(Timestamp, Timestamp)> {
    let mut out = Vec::new();
    if step <= SignedDuration::ZERO || end < start {
        return out;
    }
    let span = step * (page_points.clamp(1, i32::MAX as i64) as i32 - 1).max(0);
    let mut a = start;
    loop {
        let b = match a.checked_add(span) {
            Ok(b) if b < end => b,
            _ => end,
        };
        out.push((a, b));
        match b.checked_add(step) {
            Ok(next) if b < end && next <= end => a = next,
            _ => break,
        }
    }
    out
}

/// A Prometheus series as a load: offsets in seconds since `start`. The error is the series'
/// own ([`SeriesError`] converts into [`SimulateError`](super::SimulateError) with `?`), so
/// this client does not depend on the command's error type, which wraps this client's.
pub fn to_series(
    points: &[(f64, f64)],
    start: Timestamp,
    source: &str,
    interpolation: Interpolation,
) -> Result<Series, SeriesError> {
    let t0 = start.as_millisecond() as f64 / 1000.0;
    let mut b = SeriesBuilder::new();
    for (t, v) in points {
        // Tiny negative values are floating-point noise of a rate; a load is never negative.
        b.push(t - t0, v.max(0.0), source)?;
    }
    b.build(interpolation, source)
}

/// Decode a `query_range` response body into labelled series.
fn decode_matrix(body: &[u8], query: &str) -> Result<Vec<Labelled>, PromError> {
    let bad = |detail: String| PromError::Decode {
        query: query.to_string(),
        detail,
    };
    let doc: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| {
            bad(format!(
                "not JSON ({e}; it begins {:?}): the address does not serve Prometheus' HTTP API; check --prometheus URL or --prometheus-service's NAME and PORT (kubectl get svc -A | grep prometheus)",
                first_line(body)
            ))
        })?;
    if doc.get("status").and_then(|s| s.as_str()) != Some("success") {
        let msg = doc
            .get("error")
            .and_then(|e| e.as_str())
            .unwrap_or("no error message");
        return Err(bad(format!("the query failed: {msg}")));
    }
    let data = doc.get("data").ok_or_else(|| bad("no data field".into()))?;
    match data.get("resultType").and_then(|r| r.as_str()) {
        Some("matrix") => {}
        other => return Err(bad(format!("resultType {other:?}, expected \"matrix\""))),
    }
    let result = data
        .get("result")
        .and_then(|r| r.as_array())
        .ok_or_else(|| bad("no data.result array".into()))?;
    let mut out = Vec::with_capacity(result.len());
    for (i, s) in result.iter().enumerate() {
        let labels = s
            .get("metric")
            .and_then(|m| m.as_object())
            .map(|m| {
                let inner: Vec<String> = m
                    .iter()
                    .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("?")))
                    .collect();
                format!("{{{}}}", inner.join(","))
            })
            .unwrap_or_else(|| "{}".into());
        let values = s
            .get("values")
            .and_then(|v| v.as_array())
            .ok_or_else(|| bad(format!("data.result[{i}].values is missing")))?;
        let mut points = Vec::with_capacity(values.len());
        for (j, pair) in values.iter().enumerate() {
            let at = || format!("data.result[{i}].values[{j}]");
            let (t, v) = match pair.as_array().map(Vec::as_slice) {
                Some([t, v]) => (t, v),
                _ => return Err(bad(format!("{}: expected [time, \"value\"]", at()))),
            };
            let t = t
                .as_f64()
                .ok_or_else(|| bad(format!("{}: time is not a number", at())))?;
            let v = v
                .as_str()
                .and_then(|s| s.parse::<f64>().ok())
                .ok_or_else(|| bad(format!("{}: value is not a number string", at())))?;
            points.push((t, v));
        }
        out.push((labels, points));
    }
    Ok(out)
}

/// A response that is not the HTTP/1.1 this client reads.
#[derive(Debug, Clone, PartialEq, Eq)]
enum HttpError {
    NoHeader,
    NotHttp(String),
    Encoding(String),
    TruncatedBody,
    ChunkSize(String),
    TruncatedChunk,
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HttpError::NoHeader => f.write_str("the response has no HTTP header"),
            HttpError::NotHttp(line) => write!(f, "not an HTTP response: {line:?}"),
            HttpError::Encoding(v) => write!(f, "unsupported content encoding {v:?}"),
            HttpError::TruncatedBody => f.write_str("a truncated chunked body"),
            HttpError::ChunkSize(t) => write!(f, "invalid chunk size {t:?}"),
            HttpError::TruncatedChunk => f.write_str("a truncated chunk"),
        }
    }
}

/// Split a raw HTTP/1.1 response into its status and (de-chunked) body.
fn parse_response(raw: &[u8]) -> Result<(u16, Vec<u8>), HttpError> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or(HttpError::NoHeader)?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .filter(|_| status_line.starts_with("HTTP/1."))
        .ok_or_else(|| HttpError::NotHttp(status_line.to_string()))?;
    let mut chunked = false;
    for l in lines {
        if let Some((k, v)) = l.split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_ascii_lowercase());
            if k == "transfer-encoding" && v.contains("chunked") {
                chunked = true;
            }
            if k == "content-encoding" && v != "identity" {
                return Err(HttpError::Encoding(v));
            }
        }
    }
    let body = &raw[end + 4..];
    Ok((
        status,
        if chunked {
            dechunk(body)?
        } else {
            body.to_vec()
        },
    ))
}

/// Decode a chunked transfer-encoded body.
fn dechunk(mut body: &[u8]) -> Result<Vec<u8>, HttpError> {
    let mut out = Vec::with_capacity(body.len());
    loop {
        let eol = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or(HttpError::TruncatedBody)?;
        let size_text = String::from_utf8_lossy(&body[..eol]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| HttpError::ChunkSize(size_text.to_string()))?;
        body = &body[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        if body.len() < size {
            return Err(HttpError::TruncatedChunk);
        }
        out.extend_from_slice(&body[..size]);
        body = body.get(size + 2..).unwrap_or(&[]);
    }
}

/// Percent-encode a query parameter (everything but RFC 3986's unreserved characters).
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3 / 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The pods of a workload in cAdvisor's `pod` label, by the names its controller gives them.
pub fn pod_regex(kind: &str, name: &str) -> String {
    let name = name.replace('.', "\\\\.");
    match kind {
        // NAME-<pod-template-hash>-<5 random>
        "Deployment" => format!("{name}-[a-z0-9]{{1,10}}-[a-z0-9]{{5}}"),
        "StatefulSet" => format!("{name}-[0-9]+"),
        "ReplicaSet" | "ReplicationController" => format!("{name}-[a-z0-9]{{5}}"),
        _ => format!("{name}-.+"),
    }
}

/// The PromQL for the load of a Resource (or ContainerResource) metric, summed over the
/// workload's pods, from the standard cAdvisor series the kubelet exposes: CPU as a rate of
/// `container_cpu_usage_seconds_total` (cores), memory as `container_memory_working_set_bytes`.
/// `None` for other resources (give them with `--query`).
pub fn resource_query(
    resource: &str,
    container: Option<&str>,
    namespace: &str,
    kind: &str,
    name: &str,
    rate_window: SignedDuration,
) -> Option<String> {
    let container = match container {
        Some(c) => format!("container=\"{c}\""),
        // Without the pod-level ("") and sandbox ("POD") cgroups, which would count twice.
        None => "container!=\"\",container!=\"POD\"".to_string(),
    };
    let selector = format!(
        "namespace=\"{namespace}\",pod=~\"{}\",{container}",
        pod_regex(kind, name)
    );
    match resource {
        "cpu" => Some(format!(
            "sum(rate(container_cpu_usage_seconds_total{{{selector}}}[{}s]))",
            rate_window.as_secs().max(1)
        )),
        "memory" => Some(format!(
            "sum(container_memory_working_set_bytes{{{selector}}})"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn errors_never_print_the_url_s_userinfo() {
        let url = "http://alice:s3cret@prom.example:9090".to_string();
        let errors = [
            PromError::BadUrl {
                url: url.clone(),
                why: "no".into(),
            },
            PromError::Unreachable {
                url: url.clone(),
                detail: "refused".into(),
            },
            PromError::Status {
                url,
                status: 401,
                message: "unauthorized".into(),
            },
        ];
        for e in errors {
            let text = e.to_string();
            assert!(
                !text.contains("s3cret") && !text.contains("alice"),
                "{text}"
            );
            assert!(text.contains("***@prom.example:9090"), "{text}");
        }
    }

    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn parses_urls() {
        let direct = |url: &str| match Endpoint::parse(url).unwrap().transport {
            Transport::Direct {
                host, port, prefix, ..
            } => (host, port, prefix),
            Transport::Proxy(_) => unreachable!(),
        };
        assert_eq!(
            direct("http://127.0.0.1:9090/prom/"),
            ("127.0.0.1".into(), 9090, "/prom".into())
        );
        assert_eq!(direct("localhost"), ("localhost".into(), 80, "".into()));
        assert!(Endpoint::parse("https://x")
            .unwrap_err()
            .to_string()
            .contains("https"));
        assert!(Endpoint::parse("http://x:99999").is_err());
        assert!(Endpoint::parse("http://:9090").is_err());
    }

    #[test]
    fn pages_cover_the_range_without_overlap() {
        let step = SignedDuration::from_secs(15);
        let p = pages(
            t("2026-01-01T00:00:00Z"),
            t("2026-01-01T01:00:00Z"),
            step,
            100,
        );
        // 241 evaluation times in pages of 100: 100 + 100 + 41.
        assert_eq!(p.len(), 3);
        assert_eq!(p[0], (t("2026-01-01T00:00:00Z"), t("2026-01-01T00:24:45Z")));
        assert_eq!(p[1].0, t("2026-01-01T00:25:00Z"));
        assert_eq!(p[2].1, t("2026-01-01T01:00:00Z"));
        let one = pages(
            t("2026-01-01T00:00:00Z"),
            t("2026-01-01T00:00:00Z"),
            step,
            100,
        );
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn decodes_responses_and_chunks() {
        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
        assert_eq!(parse_response(raw).unwrap(), (200, b"hello world".to_vec()));
        assert!(parse_response(b"garbage").is_err());
        let body = br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"pod":"a"},"values":[[1,"2.5"],[16,"NaN"]]}]}}"#;
        let m = decode_matrix(body, "q").unwrap();
        assert_eq!(m[0].0, "{pod=a}");
        assert_eq!(m[0].1[0], (1.0, 2.5));
        assert!(m[0].1[1].1.is_nan());
        let err = decode_matrix(br#"{"status":"error","error":"parse error"}"#, "q").unwrap_err();
        assert!(err.to_string().contains("parse error"));
        // A 200 that is not Prometheus' JSON (a web page on the wrong port): named, with the
        // place to look, its first line quoted with control characters escaped.
        let err = decode_matrix(b"<html>\x1b[2J\n<body>Grafana</body>", "q").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("does not serve Prometheus' HTTP API"),
            "{text}"
        );
        assert!(text.contains(r#"it begins "<html>\u{1b}[2J""#), "{text}");
        assert!(!text.contains('\x1b') && !text.contains('\n'), "{text}");
    }

    #[test]
    fn derives_resource_queries() {
        let q = resource_query(
            "cpu",
            None,
            "shop",
            "Deployment",
            "web",
            SignedDuration::from_secs(60),
        )
        .unwrap();
        assert_eq!(
            q,
            "sum(rate(container_cpu_usage_seconds_total{namespace=\"shop\",pod=~\"web-[a-z0-9]{1,10}-[a-z0-9]{5}\",container!=\"\",container!=\"POD\"}[60s]))"
        );
        let m = resource_query(
            "memory",
            Some("app"),
            "shop",
            "StatefulSet",
            "db",
            SignedDuration::ZERO,
        )
        .unwrap();
        assert!(m.contains("pod=~\"db-[0-9]+\",container=\"app\""), "{m}");
        assert!(resource_query(
            "ephemeral-storage",
            None,
            "a",
            "Deployment",
            "b",
            SignedDuration::ZERO
        )
        .is_none());
        assert_eq!(percent_encode("a b{c=\"d\"}"), "a%20b%7Bc%3D%22d%22%7D");
    }
}
