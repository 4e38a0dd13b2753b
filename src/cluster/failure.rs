//! Why the cluster layer failed, as one error type ([`Error`]), and why one API call failed
//! ([`ApiFailure`], [`FetchError`]): typed, and worded as client-go and kubectl word them.

use std::time::Duration;

pub use crate::restmapper::Unmapped;

/// The cluster layer's error: why a connection could not be made or a fetch stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A call the explanation cannot do without (the HPAs, the pods) failed.
    #[error("{}", .0.fatal())]
    Api(Box<ApiFailure>),
    /// Discovery failed where nothing else could stand in.
    #[error("{0}")]
    Other(String),
    /// `explain NAME`: no such HPA (with the names there are).
    #[error("{}", hpa_not_found(namespace, name, context, others))]
    HpaNotFound {
        namespace: String,
        name: String,
        context: String,
        others: Vec<String>,
    },
    /// The server returned an HPA this program cannot read.
    #[error("HorizontalPodAutoscaler {namespace}/{name} from the server: {error}")]
    BadHpa {
        namespace: String,
        name: String,
        error: String,
    },
    /// No connection could be set up from the flags, the kubeconfig or the in-cluster files.
    #[error("{0}")]
    Connect(String),
    /// The TLS flags could not be applied.
    #[error(transparent)]
    Tls(#[from] super::tls::TlsError),
}

fn hpa_not_found(namespace: &str, name: &str, context: &str, others: &[String]) -> String {
    let head = format!("horizontalpodautoscalers.autoscaling {name:?} not found in namespace {namespace:?} (context {context})");
    if others.is_empty() {
        format!("{head}; there is no HPA in namespace {namespace:?}")
    } else {
        format!(
            "{head}; HPAs in namespace {namespace:?}: {}",
            others.join(", ")
        )
    }
}

impl From<FetchError> for Error {
    fn from(e: FetchError) -> Error {
        match e {
            FetchError::Api(a) => Error::Api(a),
            FetchError::Unmapped(u) => Error::Other(u.to_string()),
        }
    }
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
    pub(super) fn refused_credentials(&self) -> bool {
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

/// An error answer: its `Status` when the body is one, else the body's first line.
pub(super) fn status_failure(code: u16, body: &[u8]) -> Failure {
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
pub(super) fn unreadable(content_type: &str, body: &[u8], e: &serde_json::Error) -> Failure {
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
