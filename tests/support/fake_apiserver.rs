//! A fake, read-only Kubernetes API server for integration tests.
//!
//! Include it with `#[path = "support/fake_apiserver.rs"] mod fake_apiserver;`.
//! [`FakeApiServer::start`] serves a snapshot of API objects over plain HTTP on
//! `127.0.0.1:<random port>` from its own thread and tokio runtime (so plain
//! `#[test]` fns work) until dropped. It speaks JSON like a real server:
//!
//! * `/version`, plain discovery (`/api`, `/api/v1`, `/apis`, `/apis/<g>`,
//!   `/apis/<g>/<v>`; aggregated-discovery `Accept` headers get the plain form);
//! * GET / LIST of any stored kind, namespaced or cluster-wide, with
//!   `labelSelector`, `fieldSelector`, `limit` + `continue` paging, results
//!   sorted by namespace/name as etcd would; `.../status`; `.../scale` built
//!   from the object or taken from a snapshot `autoscaling/v1` `Scale` item;
//! * kinds known only from an HPA `scaleTargetRef` are listed with a `scale`
//!   subresource (for targets given as a `Scale` item only);
//! * `metrics.k8s.io`, `custom.metrics.k8s.io` and `external.metrics.k8s.io`,
//!   listed in discovery only when the snapshot holds objects of the group, an
//!   `APIService` for it, or [`Options::advertise`] names it. An `APIService`
//!   whose `Available` condition is `False` makes its group/version answer 503
//!   `service unavailable` (plain text, as kube-aggregator does);
//! * errors as real `Status` objects; per-path fault injection and latency;
//! * writes are refused with 405 (and recorded) unless [`WriteMode::AcceptPatches`]:
//!   then PATCH with `application/merge-patch+json` (an Update) or
//!   `application/apply-patch+yaml` (a server-side apply) changes the stored object
//!   or its scale, honours `metadata.resourceVersion` in the body as a
//!   precondition (409 Conflict "the object has been modified"), and keeps
//!   `metadata.managedFields` like the apiserver does, simplified: leaf fields
//!   (lists are leaves), Update moves ownership of changed fields to the manager
//!   (`fieldManager`, else the User-Agent's prefix), a scale write is recorded
//!   as `subresource: scale` on `spec.replicas`, Apply conflicts (409
//!   `FieldManagerConflict`) when another manager owns a field it sets to a
//!   different value unless `force=true`, and prunes the fields it stops
//!   applying that nobody else owns. Entries carry the time [`MANAGED_TIME`];
//!   `dryRun=All` answers with the result without storing it;
//! * [`Fault::ConcurrentWrite`] simulates another client writing just before a request;
//!
//! Objects missing `metadata.resourceVersion` (and `uid`, outside metrics groups)
//! get generated ones; namespaced builtin kinds without a namespace go to `default`.
//! At start, a `Namespace` is added for every namespace in use (and `default`) unless given.
//! Not supported: watch (405), tables (`as=Table` gets a plain list), openapi,
//! protobuf, `metricLabelSelector` (ignored), conversion between API versions.
#![allow(dead_code)]

#[path = "raw_http.rs"]
pub mod raw_http;
#[path = "selectors.rs"]
pub mod selectors;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use selectors::{label_selector_to_string, string_map, Selector};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::Notify;

/// One request as the server saw it (path and query percent-decoded).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub query: Vec<(String, String)>,
    /// Subset: accept, content-type, user-agent, impersonate-user,
    /// impersonate-group (may repeat), authorization.
    pub headers: Vec<(String, String)>,
    /// Body as text (writes only, in practice).
    pub body: String,
}

impl RecordedRequest {
    pub fn query_param(&self, key: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
    pub fn is_write(&self) -> bool {
        !matches!(self.method.as_str(), "GET" | "HEAD" | "OPTIONS")
    }
}

const KEPT_HEADERS: [&str; 7] = [
    "accept-encoding",
    "accept",
    "content-type",
    "user-agent",
    "impersonate-user",
    "impersonate-group",
    "authorization",
];

/// Which request paths (without the query) a fault applies to.
#[derive(Clone, Debug)]
pub enum PathMatch {
    Exact(String),
    Prefix(String),
    Contains(String),
    /// Requests with this method (`PATCH`) whose path matches.
    Method(String, Box<PathMatch>),
}

impl PathMatch {
    pub fn exact(p: impl Into<String>) -> Self {
        PathMatch::Exact(p.into())
    }
    pub fn prefix(p: impl Into<String>) -> Self {
        PathMatch::Prefix(p.into())
    }
    pub fn contains(p: impl Into<String>) -> Self {
        PathMatch::Contains(p.into())
    }
    /// Only requests with `method` (e.g. `"PATCH"`) matching `m`.
    pub fn method(method: &str, m: PathMatch) -> Self {
        PathMatch::Method(method.to_string(), Box::new(m))
    }
    fn matches(&self, method: &str, path: &str) -> bool {
        match self {
            PathMatch::Exact(p) => path == p,
            PathMatch::Prefix(p) => path.starts_with(p.as_str()),
            PathMatch::Contains(p) => path.contains(p.as_str()),
            PathMatch::Method(m, inner) => {
                m.eq_ignore_ascii_case(method) && inner.matches(method, path)
            }
        }
    }
}

/// What happens to a request whose path matches an injected fault.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Answer with this code and the `Status` body a real server sends for it
    /// (401 Unauthorized, 403 Forbidden naming the impersonated user or
    /// `fake-user`, 404 NotFound for the requested resource, 409, 429,
    /// 500 InternalError, 503 ServiceUnavailable, 504 Timeout...).
    Status(u16),
    /// 403 Forbidden naming this user.
    ForbiddenAs(String),
    /// Wait this long, then answer normally (use more than the client timeout).
    Delay(Duration),
    /// Close the connection without answering.
    Drop,
    /// Another client writes first: this JSON merge patch is applied to the
    /// addressed object (or, with `subresource: Some("scale")`, to its scale) as
    /// an Update by `manager` — new resourceVersion, managedFields updated —
    /// then the request is answered normally.
    ConcurrentWrite {
        patch: Value,
        manager: String,
        subresource: Option<String>,
    },
    /// 429 TooManyRequests with `Retry-After: <seconds>` (as API Priority and Fairness answers).
    Throttle(u64),
    /// 503 ServiceUnavailable, with `Retry-After: <seconds>` when given.
    Unavailable(Option<u64>),
    /// An HTML page (a proxy or SSO login page) with this code instead of JSON.
    Html(u16),
    /// Answer normally, but a LIST's `metadata.continue` is always this same token.
    RepeatContinue,
    /// Answer with this code and this JSON body (a `PodList` where a `PodMetricsList` belongs,
    /// a `Status` Failure with 200 OK...).
    Answer(u16, Value),
}

/// How write verbs (POST/PUT/PATCH/DELETE) are treated. All are recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WriteMode {
    /// 405 MethodNotAllowed for every write.
    #[default]
    Reject,
    /// PATCH with a JSON merge patch or an apply patch (YAML/JSON, applied as a
    /// merge patch — a stub) updates the stored object or its scale; other
    /// writes are still refused.
    AcceptPatches,
}

/// Start-up options; `Options::default()` is what [`FakeApiServer::start`] uses.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Extra group/versions to list in discovery even without objects,
    /// e.g. `"metrics.k8s.io/v1beta1"`, `"external.metrics.k8s.io/v1beta1"`.
    pub advertise: Vec<String>,
    /// `gitVersion` reported by `/version`; default `v1.37.0`.
    pub git_version: Option<String>,
    pub write_mode: WriteMode,
    /// Serve HTTPS with this certificate (see [`Pki`]); `None`: plain HTTP.
    pub tls: Option<TlsServer>,
    /// Serve the resource metrics only as `metrics.k8s.io/v1` (GA in 1.37): the snapshot's
    /// `metrics.k8s.io/v1beta1` objects are stored as v1 and v1beta1 is not served (404).
    pub resource_metrics_v1_only: bool,
}

/// The server side of TLS: PEM files.
#[derive(Clone, Debug)]
pub struct TlsServer {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// Require a client certificate signed by this CA.
    pub client_ca: Option<PathBuf>,
}

/// Certificates for TLS tests, made with the `openssl` command in a directory: a CA, a server
/// certificate it signed valid for [`Pki::SERVER_NAME`] only (not for 127.0.0.1), a client
/// certificate it signed, and a second, unrelated CA.
#[derive(Clone, Debug)]
pub struct Pki {
    pub ca: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
    pub other_ca: PathBuf,
}

impl Pki {
    /// The only name the server certificate holds.
    pub const SERVER_NAME: &'static str = "fake-apiserver.test";

    /// Make the files in `dir` (panics when `openssl` is missing or fails).
    pub fn generate(dir: &Path) -> Pki {
        let f = |n: &str| dir.join(n);
        let ca_ext = [
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ];
        for ca in ["ca", "other-ca"] {
            let (key, crt) = (f(&format!("{ca}.key")), f(&format!("{ca}.crt")));
            let mut a = vec![
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "2",
                "-subj",
            ];
            let subj = format!("/CN=fake-{ca}");
            a.push(&subj);
            a.extend([
                "-keyout",
                key.to_str().unwrap(),
                "-out",
                crt.to_str().unwrap(),
            ]);
            a.extend(ca_ext);
            openssl(&a);
        }
        let leaf = |name: &str, ext: &str| {
            let (key, csr, crt, extf) = (
                f(&format!("{name}.key")),
                f(&format!("{name}.csr")),
                f(&format!("{name}.crt")),
                f(&format!("{name}.ext")),
            );
            std::fs::write(&extf, ext).unwrap();
            let subj = format!("/CN={name}");
            openssl(&[
                "req",
                "-new",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-subj",
                &subj,
                "-keyout",
                key.to_str().unwrap(),
                "-out",
                csr.to_str().unwrap(),
            ]);
            openssl(&[
                "x509",
                "-req",
                "-in",
                csr.to_str().unwrap(),
                "-CA",
                f("ca.crt").to_str().unwrap(),
                "-CAkey",
                f("ca.key").to_str().unwrap(),
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                extf.to_str().unwrap(),
                "-out",
                crt.to_str().unwrap(),
            ]);
            (crt, key)
        };
        let (server_cert, server_key) = leaf(
            "server",
            &format!(
                "subjectAltName=DNS:{}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n",
                Self::SERVER_NAME
            ),
        );
        let (client_cert, client_key) = leaf(
            "client",
            "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n",
        );
        Pki {
            ca: f("ca.crt"),
            server_cert,
            server_key,
            client_cert,
            client_key,
            other_ca: f("other-ca.crt"),
        }
    }

    /// The server side: this PKI's server certificate, optionally requiring client certificates.
    pub fn server(&self, require_client_cert: bool) -> TlsServer {
        TlsServer {
            cert: self.server_cert.clone(),
            key: self.server_key.clone(),
            client_ca: require_client_cert.then(|| self.ca.clone()),
        }
    }
}

fn openssl(args: &[&str]) {
    let out = std::process::Command::new("openssl")
        .args(args)
        .output()
        .expect("the openssl command (TLS tests make their certificates with it)");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A rustls server configuration from PEM files.
fn tls_acceptor(t: &TlsServer) -> tokio_rustls::TlsAcceptor {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(&t.cert)
        .expect("server cert")
        .map(|c| c.expect("server cert PEM"))
        .collect();
    let key = PrivateKeyDer::from_pem_file(&t.key).expect("server key");
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .expect("protocol versions");
    let builder = match &t.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for c in CertificateDer::pem_file_iter(ca).expect("client CA") {
                roots.add(c.expect("client CA PEM")).expect("client CA");
            }
            let v = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .build()
            .expect("client verifier");
            builder.with_client_cert_verifier(v)
        }
    };
    let config = builder
        .with_single_cert(certs, key)
        .expect("server cert and key");
    tokio_rustls::TlsAcceptor::from(Arc::new(config))
}

/// The running server; stops (and joins its thread) on drop.
pub struct FakeApiServer {
    addr: SocketAddr,
    tls: bool,
    state: Arc<Mutex<State>>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeApiServer {
    pub fn start(objects: Vec<Value>) -> Self {
        Self::start_with(objects, Options::default())
    }

    pub fn start_with(objects: Vec<Value>, opts: Options) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let addr = listener.local_addr().expect("local addr");
        let mut st = State {
            git_version: opts.git_version.clone().unwrap_or_else(|| "v1.37.0".into()),
            advertise: opts.advertise.clone(),
            write_mode: opts.write_mode,
            resource_metrics_v1_only: opts.resource_metrics_v1_only,
            next_rv: 1000,
            types_cache: Default::default(),
            ..State::default()
        };
        // Loaded through an index of identities: `add`'s scan for an object to replace made
        // loading the fleet bench's 22,000 objects take tens of seconds.
        let mut index = Default::default();
        objects
            .into_iter()
            .for_each(|o| st.add_indexed(o, Some(&mut index)));
        // a Namespace object for every namespace in use that the snapshot lacks
        let used: BTreeSet<String> = st
            .objects
            .iter()
            .filter(|s| s.namespaced)
            .map(|s| s.ns().to_string())
            .collect();
        for ns in used.into_iter().chain(["default".to_string()]) {
            if !st
                .objects
                .iter()
                .any(|s| s.group.is_empty() && s.plural == "namespaces" && s.name() == ns)
            {
                st.add(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}, "status": {"phase": "Active"}}));
            }
        }
        let state = Arc::new(Mutex::new(st));
        let acceptor = opts.tls.as_ref().map(tls_acceptor);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let shared = state.clone();
        let thread = std::thread::Builder::new()
            .name(format!("fake-apiserver-{}", addr.port()))
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("tokio runtime");
                rt.block_on(serve(listener, shared, rx, acceptor));
            })
            .expect("spawn server thread");
        FakeApiServer {
            addr,
            tls: opts.tls.is_some(),
            state,
            shutdown: Some(tx),
            thread: Some(thread),
        }
    }

    /// Serves the objects of a snapshot file (see [`load_snapshot`]).
    pub fn from_snapshot_file(path: impl AsRef<Path>) -> Self {
        Self::start(load_snapshot(path))
    }

    pub fn from_snapshot_file_with(path: impl AsRef<Path>, opts: Options) -> Self {
        Self::start_with(load_snapshot(path), opts)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` (`https://` with [`Options::tls`])
    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    /// Writes `<dir>/kubeconfig`: cluster `fake` at [`Self::url`], context
    /// `fake` (namespace `default`, current), user `fake-user` with token
    /// `fake-token`.
    pub fn write_kubeconfig(&self, dir: &Path) -> PathBuf {
        self.write_kubeconfig_contexts(dir, &[("fake", "default", "fake-user")])
    }

    /// Like [`Self::write_kubeconfig`] plus a second, non-current context
    /// `context` with namespace `namespace` and user `other-user` (token
    /// `other-token`), so tests can tell from the `Authorization` header
    /// which context a client used.
    pub fn write_kubeconfig_two_contexts(
        &self,
        dir: &Path,
        context: &str,
        namespace: &str,
    ) -> PathBuf {
        self.write_kubeconfig_contexts(
            dir,
            &[
                ("fake", "default", "fake-user"),
                (context, namespace, "other-user"),
            ],
        )
    }

    /// Contexts as (name, namespace, user); the first is current. User `u`
    /// has token `<u without "-user">-token`.
    pub fn write_kubeconfig_contexts(
        &self,
        dir: &Path,
        contexts: &[(&str, &str, &str)],
    ) -> PathBuf {
        let mut y = format!("apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {}\ncontexts:\n", self.url());
        for (name, ns, user) in contexts {
            y += &format!("- name: {name}\n  context:\n    cluster: fake\n    namespace: {ns}\n    user: {user}\n");
        }
        y += &format!("current-context: {}\nusers:\n", contexts[0].0);
        let users: BTreeSet<&str> = contexts.iter().map(|c| c.2).collect();
        for u in users {
            y += &format!(
                "- name: {u}\n  user:\n    token: {}-token\n",
                u.trim_end_matches("-user")
            );
        }
        let path = dir.join("kubeconfig");
        std::fs::write(&path, y).expect("write kubeconfig");
        path
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Answer a GET asked again, with nothing changed since, with the bytes sent the first
    /// time: the server's own CPU then stays off the machine it shares with the client it
    /// serves (a real cluster spends it on its own machines). For the benchmarks; tests keep
    /// building every answer.
    pub fn cache_answers(&self) {
        self.lock().answers.get_or_insert_with(BTreeMap::new);
    }

    /// Delay added before every request is answered.
    pub fn set_latency(&self, d: Duration) {
        self.lock().latency = d;
    }

    /// Adds a permanent fault; the first matching fault (in insertion order) wins.
    pub fn inject(&self, m: PathMatch, f: Fault) {
        self.lock().faults.push(FaultRule {
            m,
            f,
            remaining: None,
            skip: 0,
        });
    }

    /// Adds a fault that applies to the next `times` matching requests only.
    pub fn inject_times(&self, m: PathMatch, f: Fault, times: usize) {
        self.lock().faults.push(FaultRule {
            m,
            f,
            remaining: Some(times),
            skip: 0,
        });
    }

    /// Like [`Self::inject_times`], but the first `skip` matching requests pass untouched.
    pub fn inject_after(&self, m: PathMatch, f: Fault, skip: usize, times: usize) {
        self.lock().faults.push(FaultRule {
            m,
            f,
            remaining: Some(times),
            skip,
        });
    }

    /// Answer 429 TooManyRequests (`Retry-After: 1`) to a request that arrives while `n`
    /// others are in flight, like API Priority and Fairness; `None`: no limit.
    pub fn set_in_flight_limit(&self, n: Option<usize>) {
        self.lock().in_flight_limit = n;
    }

    /// The most requests that were ever in flight at once.
    pub fn max_in_flight(&self) -> usize {
        self.lock().max_in_flight
    }

    pub fn clear_faults(&self) {
        self.lock().faults.clear();
    }

    /// Tokens that expire: a bearer token is answered 401 Unauthorized once `d` has passed
    /// since the first request that bore it (as a cluster refuses an expired token);
    /// `None`: every token is accepted. Requests without a bearer token are not affected.
    pub fn set_token_lifetime(&self, d: Option<Duration>) {
        self.lock().token_lifetime = d;
    }

    /// Serve Service `namespace/name` port `port` (as the proxy path names it) through the
    /// service proxy, forwarding each request to `base_url` (`http://127.0.0.1:PORT`, e.g. a
    /// Prometheus stand-in).
    pub fn proxy_service(&self, namespace: &str, name: &str, port: &str, base_url: &str) {
        self.lock().service_proxies.insert(
            format!("{namespace}/{name}"),
            (port.to_string(), base_url.to_string()),
        );
    }

    /// Stop serving a group/version (`argoproj.io/v1beta1`): left out of discovery, its
    /// paths answer 404 (as a version a CRD does not serve), even if an HPA's
    /// `scaleTargetRef` names it.
    pub fn unserve(&self, group_version: &str) {
        let mut st = self.lock();
        st.unserved.insert(group_version.to_string());
        *st.types_cache.borrow_mut() = None;
    }

    pub fn set_write_mode(&self, mode: WriteMode) {
        self.lock().write_mode = mode;
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// The recorded write requests (anything but GET/HEAD/OPTIONS).
    pub fn writes(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(RecordedRequest::is_write)
            .collect()
    }

    pub fn clear_requests(&self) {
        self.lock().requests.clear();
    }

    /// Adds an object, or replaces the stored one with the same
    /// apiVersion/kind/namespace/name (metric lists are appended).
    pub fn upsert(&self, obj: Value) {
        self.lock().add(obj);
    }

    /// The stored generic objects (not Scale items or metric values).
    pub fn objects(&self) -> Vec<Value> {
        self.lock().objects.iter().map(|s| s.obj.clone()).collect()
    }
}

impl Drop for FakeApiServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads a snapshot: YAML (possibly several documents) or JSON. Documents
/// may be single objects or lists (`v1 List`, `PodMetricsList`, ...);
/// `MetricValueList`/`ExternalMetricValueList` are kept whole as metric data.
pub fn load_snapshot(path: impl AsRef<Path>) -> Vec<Value> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("read snapshot {}: {e}", path.display()));
    kubectl_hpa::yaml::documents::<Value>(&text)
        .unwrap_or_else(|e| panic!("parse snapshot {}: {e}", path.display()))
        .into_iter()
        .filter(|v| !v.is_null())
        .collect()
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

// ---------------------------------------------------------------- state

/// Builtin kinds: `group/version Kind plural scope shortNames subresources
/// categories` (`core` = the legacy group; `-` = none; lists comma-separated).
const BUILTINS: &str = "
    core/v1 Pod pods ns po status all
    core/v1 Event events ns ev - -
    core/v1 Namespace namespaces cluster ns status -
    core/v1 Node nodes cluster no status -
    core/v1 Service services ns svc status all
    core/v1 ConfigMap configmaps ns cm - -
    apiregistration.k8s.io/v1 APIService apiservices cluster - status -
    apps/v1 Deployment deployments ns deploy scale,status all
    apps/v1 StatefulSet statefulsets ns sts scale,status all
    apps/v1 ReplicaSet replicasets ns rs scale,status all
    apps/v1 DaemonSet daemonsets ns ds status all
    events.k8s.io/v1 Event events ns ev - -
    autoscaling/v2 HorizontalPodAutoscaler horizontalpodautoscalers ns hpa status all
    metrics.k8s.io/v1beta1 PodMetrics pods ns - - -
    metrics.k8s.io/v1beta1 NodeMetrics nodes cluster - - -";
const CUSTOM: &str = "custom.metrics.k8s.io";
const EXTERNAL: &str = "external.metrics.k8s.io";
/// Groups listed in discovery only when something asks for them.
const OPTIONAL_GROUPS: [&str; 3] = ["metrics.k8s.io", CUSTOM, EXTERNAL];
/// Order of the first groups in `/apis` (the rest follow alphabetically).
const GROUP_ORDER: &str = "apiregistration.k8s.io apps events.k8s.io autoscaling";

fn all_verbs() -> Vec<&'static str> {
    "create delete deletecollection get list patch update watch"
        .split(' ')
        .collect()
}

fn builtins() -> impl Iterator<Item = ResType> {
    BUILTINS.lines().filter(|l| !l.trim().is_empty()).map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        let list = |s: &str| match s {
            "-" => vec![],
            _ => s.split(',').map(String::from).collect(),
        };
        let (g, version) = f[0].split_once('/').expect("group/version");
        let group = if g == "core" { "" } else { g };
        ResType {
            group: group.into(),
            version: version.into(),
            kind: f[1].into(),
            plural: f[2].into(),
            namespaced: f[3] == "ns",
            short: list(f[4]),
            sub: list(f[5]),
            categories: list(f[6]),
            verbs: if group == "metrics.k8s.io" {
                vec!["get", "list"]
            } else {
                all_verbs()
            },
        }
    })
}

struct Stored {
    group: String,
    version: String,
    plural: String,
    namespaced: bool,
    obj: Value,
    /// The object serialized, with the resourceVersion it was serialized at: a LIST copies
    /// these bytes instead of cloning and re-serializing every object (every write to a
    /// stored object sets a new resourceVersion, which invalidates them).
    wire: std::cell::RefCell<Option<(String, Bytes)>>,
}

impl Stored {
    /// The object as JSON bytes, serialized once per resourceVersion.
    fn json(&self) -> Bytes {
        let rv = meta_str(&self.obj, "resourceVersion");
        let mut wire = self.wire.borrow_mut();
        match &*wire {
            Some((at, b)) if at == rv => b.clone(),
            _ => {
                let b = Bytes::from(serde_json::to_vec(&self.obj).expect("json"));
                *wire = Some((rv.to_string(), b.clone()));
                b
            }
        }
    }
    fn ns(&self) -> &str {
        meta_str(&self.obj, "namespace")
    }
    fn name(&self) -> &str {
        meta_str(&self.obj, "name")
    }
    fn kind(&self) -> &str {
        self.obj["kind"].as_str().unwrap_or_default()
    }
}

/// One custom (`MetricValue`) or external (`ExternalMetricValue`) item.
struct MetricItem {
    group: String,
    version: String,
    /// Namespace of the external list it came from, if it named one.
    ns: Option<String>,
    item: Value,
}

struct FaultRule {
    m: PathMatch,
    f: Fault,
    remaining: Option<usize>,
    /// Matching requests still to let through before the fault applies.
    skip: usize,
}

#[derive(Default)]
struct State {
    objects: Vec<Stored>,
    scales: Vec<Value>,
    metrics: Vec<MetricItem>,
    advertise: Vec<String>,
    git_version: String,
    write_mode: WriteMode,
    faults: Vec<FaultRule>,
    latency: Duration,
    requests: Vec<RecordedRequest>,
    /// [`FakeApiServer::set_in_flight_limit`]: above it, 429 with `Retry-After: 1`.
    in_flight_limit: Option<usize>,
    in_flight: usize,
    /// [`Options::resource_metrics_v1_only`].
    resource_metrics_v1_only: bool,
    /// The most requests ever in flight at once.
    max_in_flight: usize,
    next_rv: u64,
    /// [`State::resource_types`] of the last request, with the state it was computed for.
    types_cache: std::cell::RefCell<Option<(TypesKey, Vec<ResType>)>>,
    /// [`FakeApiServer::set_token_lifetime`]: a bearer token is refused (401) this long after
    /// its first use.
    token_lifetime: Option<Duration>,
    /// When each bearer token was first used.
    tokens_seen: BTreeMap<String, std::time::Instant>,
    /// [`FakeApiServer::unserve`]: group/versions left out of discovery and not served.
    unserved: BTreeSet<String>,
    /// [`FakeApiServer::proxy_service`]: `NAMESPACE/NAME` → (port, the base URL forwarded to).
    service_proxies: BTreeMap<String, (String, String)>,
    /// [`FakeApiServer::cache_answers`]: the answers to GETs, by path and query, with the
    /// state they were built from.
    answers: Option<BTreeMap<String, (AnswerKey, Answer)>>,
}

/// What a GET's answer depends on: what the resource types do ([`TypesKey`]), and the
/// lengths a setter that changes what is served changes.
type AnswerKey = (TypesKey, usize, usize, usize);

/// An answer as sent: code, content type, body, extra headers.
type Answer = (u16, &'static str, Bytes, Vec<(&'static str, String)>);

impl State {
    fn answer_key(&self) -> AnswerKey {
        (
            self.types_key(),
            self.unserved.len(),
            self.service_proxies.len(),
            self.faults.len(),
        )
    }

    fn types_key(&self) -> TypesKey {
        (
            self.objects.len(),
            self.scales.len(),
            self.metrics.len(),
            self.advertise.len(),
            self.next_rv,
        )
    }

    /// The cached answer to a GET, if the state is the one it was built from.
    fn cached(&self, rec: &RecordedRequest) -> Option<Answer> {
        let (key, answer) = self.answers.as_ref()?.get(&answer_path(rec))?;
        (*key == self.answer_key()).then(|| answer.clone())
    }
}

/// A GET's path and query, the key of its cached answer.
fn answer_path(rec: &RecordedRequest) -> String {
    use std::fmt::Write as _;
    let mut k = rec.path.clone();
    for (n, v) in &rec.query {
        let _ = write!(k, "&{n}={v}");
    }
    k
}

/// What the resource types depend on: every write bumps `next_rv` or a length.
type TypesKey = (usize, usize, usize, usize, u64);

/// A resource as discovery lists it.
#[derive(Clone)]
struct ResType {
    group: String,
    version: String,
    kind: String,
    plural: String,
    namespaced: bool,
    short: Vec<String>,
    sub: Vec<String>,
    categories: Vec<String>,
    verbs: Vec<&'static str>,
}

impl ResType {
    fn new(
        group: &str,
        version: &str,
        kind: &str,
        plural: &str,
        namespaced: bool,
        sub: &[&str],
        verbs: Vec<&'static str>,
    ) -> Self {
        let sub = sub.iter().map(|s| s.to_string()).collect();
        let (group, version, kind, plural) =
            (group.into(), version.into(), kind.into(), plural.into());
        ResType {
            group,
            version,
            kind,
            plural,
            namespaced,
            short: vec![],
            sub,
            categories: vec![],
            verbs,
        }
    }
}

fn meta_str<'a>(obj: &'a Value, key: &str) -> &'a str {
    obj["metadata"][key].as_str().unwrap_or_default()
}

fn split_api_version(av: &str) -> (String, String) {
    match av.split_once('/') {
        Some((g, v)) => (g.into(), v.into()),
        None => (String::new(), av.into()),
    }
}

/// Resource name of a kind: the builtin table, else lower-case English plural.
fn plural_of(group: Option<&str>, kind: &str) -> String {
    if let Some(b) = builtins().find(|b| b.kind == kind && group.is_none_or(|g| g == b.group)) {
        return b.plural;
    }
    let k = kind.to_lowercase();
    if k.ends_with('s') || k.ends_with('x') || k.ends_with("ch") || k.ends_with("sh") {
        format!("{k}es")
    } else if k.ends_with('y') && !k.ends_with("ay") && !k.ends_with("ey") && !k.ends_with("oy") {
        format!("{}ies", &k[..k.len() - 1])
    } else {
        format!("{k}s")
    }
}

/// Kubernetes version priority: GA > beta > alpha, then higher numbers.
fn version_rank(v: &str) -> (u8, u32, u32) {
    let rest = v.strip_prefix('v').unwrap_or(v);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let tail = &rest[digits.len()..];
    let major = digits.parse().unwrap_or(0);
    let (stab, minor) = if let Some(n) = tail.strip_prefix("beta") {
        (1, n.parse().unwrap_or(0))
    } else if let Some(n) = tail.strip_prefix("alpha") {
        (0, n.parse().unwrap_or(0))
    } else {
        (2, 0)
    };
    (stab, major, minor)
}

impl State {
    /// Stores one snapshot document (object or list), normalising metadata.
    fn add(&mut self, obj: Value) {
        self.add_indexed(obj, None)
    }

    /// [`State::add`], finding the object to replace through `index` (identity → position in
    /// `objects`) when given; the index must cover every object added since `objects` was empty.
    fn add_indexed(&mut self, mut obj: Value, mut index: Option<&mut ObjectIndex>) {
        if self.resource_metrics_v1_only && obj["apiVersion"] == "metrics.k8s.io/v1beta1" {
            obj["apiVersion"] = json!("metrics.k8s.io/v1");
        }
        let av = obj["apiVersion"].as_str().unwrap_or_default().to_string();
        let kind = obj["kind"]
            .as_str()
            .unwrap_or_else(|| panic!("snapshot object without kind: {obj}"))
            .to_string();
        let (group, version) = split_api_version(&av);
        if kind == "MetricValueList" || kind == "ExternalMetricValueList" {
            let ns = obj["metadata"]["namespace"].as_str().map(String::from);
            for item in obj["items"].as_array().cloned().unwrap_or_default() {
                self.metrics.push(MetricItem {
                    group: group.clone(),
                    version: version.clone(),
                    ns: ns.clone(),
                    item,
                });
            }
            return;
        }
        if kind == "MetricValue" || kind == "ExternalMetricValue" {
            self.metrics.push(MetricItem {
                group,
                version,
                ns: None,
                item: obj,
            });
            return;
        }
        if let (Some(item_kind), Some(items)) = (kind.strip_suffix("List"), obj["items"].as_array())
        {
            for mut item in items.clone() {
                if item.get("apiVersion").is_none() && !item_kind.is_empty() {
                    item["apiVersion"] = json!(av);
                    item["kind"] = json!(item_kind);
                }
                self.add_indexed(item, index.as_deref_mut());
            }
            return;
        }
        if group == "autoscaling" && kind == "Scale" {
            self.scales.retain(|s| {
                (meta_str(s, "namespace"), meta_str(s, "name"))
                    != (meta_str(&obj, "namespace"), meta_str(&obj, "name"))
            });
            self.scales.push(obj);
            return;
        }
        let builtin = builtins().find(|b| b.group == group && b.kind == kind);
        let namespaced = builtin.map_or(obj["metadata"]["namespace"].is_string(), |b| b.namespaced);
        if !obj["metadata"].is_object() {
            obj["metadata"] = json!({});
        }
        let meta = obj["metadata"].as_object_mut().expect("metadata object");
        if namespaced && !meta.contains_key("namespace") {
            meta.insert("namespace".into(), json!("default"));
        }
        if !meta.contains_key("resourceVersion") {
            self.next_rv += 1;
            meta.insert("resourceVersion".into(), json!(self.next_rv.to_string()));
        }
        if !meta.contains_key("uid") && group != "metrics.k8s.io" {
            self.next_rv += 1;
            meta.insert(
                "uid".into(),
                json!(format!("00000000-0000-4000-8000-{:012x}", self.next_rv)),
            );
        }
        let plural = plural_of(Some(&group), &kind);
        let stored = Stored {
            group,
            version,
            plural,
            namespaced,
            obj,
            wire: Default::default(),
        };
        let same = |s: &Stored| {
            s.group == stored.group
                && s.version == stored.version
                && s.plural == stored.plural
                && s.ns() == stored.ns()
                && s.name() == stored.name()
        };
        let found = match index {
            Some(index) => {
                let key = (
                    stored.group.clone(),
                    stored.version.clone(),
                    stored.plural.clone(),
                    stored.ns().to_string(),
                    stored.name().to_string(),
                );
                let next = self.objects.len();
                let i = *index.entry(key).or_insert(next);
                (i < next).then_some(i)
            }
            None => self.objects.iter().position(same),
        };
        match found {
            Some(i) => self.objects[i] = stored,
            None => self.objects.push(stored),
        }
    }

    /// Whether the request bears a bearer token past [`State::token_lifetime`] (its first use
    /// is recorded).
    fn token_expired(&mut self, rec: &RecordedRequest) -> bool {
        let Some(lifetime) = self.token_lifetime else {
            return false;
        };
        let Some(token) = rec
            .header("authorization")
            .and_then(|a| a.strip_prefix("Bearer "))
        else {
            return false;
        };
        let now = std::time::Instant::now();
        let first = *self.tokens_seen.entry(token.to_string()).or_insert(now);
        now.duration_since(first) > lifetime
    }

    fn find(&self, rt: &ResType, ns: &str, name: &str) -> Option<&Stored> {
        self.objects.iter().find(|s| {
            s.group == rt.group
                && s.version == rt.version
                && s.plural == rt.plural
                && s.ns() == ns
                && s.name() == name
        })
    }

    /// Optional groups asked for by objects, metric items, APIServices or options.
    fn optional_on(&self) -> BTreeSet<String> {
        let mut on: BTreeSet<String> = self
            .advertise
            .iter()
            .map(|gv| split_api_version(gv).0)
            .collect();
        on.extend(self.objects.iter().map(|s| s.group.clone()));
        on.extend(self.metrics.iter().map(|m| m.group.clone()));
        on.extend(
            self.apiservices()
                .map(|a| a["spec"]["group"].as_str().unwrap_or_default().to_string()),
        );
        on
    }

    fn apiservices(&self) -> impl Iterator<Item = &Value> {
        self.objects
            .iter()
            .filter(|s| s.group == "apiregistration.k8s.io" && s.kind() == "APIService")
            .map(|s| &s.obj)
    }

    /// Every resource discovery lists.
    fn resource_types(&self) -> Vec<ResType> {
        let key = self.types_key();
        if let Some((k, types)) = self.types_cache.borrow().as_ref() {
            if *k == key {
                return types.clone();
            }
        }
        let mut types = self.compute_resource_types();
        types.retain(|r| {
            let gv = match r.group.as_str() {
                "" => r.version.clone(),
                g => format!("{g}/{}", r.version),
            };
            !self.unserved.contains(&gv)
        });
        *self.types_cache.borrow_mut() = Some((key, types.clone()));
        types
    }

    fn compute_resource_types(&self) -> Vec<ResType> {
        let on = self.optional_on();
        let mut out: Vec<ResType> = builtins()
            .filter(|b| !OPTIONAL_GROUPS.contains(&b.group.as_str()) || on.contains(&b.group))
            .filter(|b| !(self.resource_metrics_v1_only && b.group == "metrics.k8s.io"))
            .collect();
        let add = |out: &mut Vec<ResType>, r: ResType| {
            if !out
                .iter()
                .any(|x| (&x.group, &x.version, &x.plural) == (&r.group, &r.version, &r.plural))
            {
                out.push(r);
            }
        };
        // A CRD (or unlisted builtin): scalable if an object has spec.replicas or a Scale item
        // (computed in one pass: a cluster of thousands of objects stays fast to serve).
        let scale_names: BTreeSet<&str> =
            self.scales.iter().map(|sc| meta_str(sc, "name")).collect();
        let scalable_types: BTreeSet<(&str, &str)> = self
            .objects
            .iter()
            .filter(|o| o.obj["spec"]["replicas"].is_number() || scale_names.contains(o.name()))
            .map(|o| (o.group.as_str(), o.plural.as_str()))
            .collect();
        let mut seen: BTreeSet<(&str, &str, &str)> = BTreeSet::new();
        for s in &self.objects {
            if !seen.insert((&s.group, &s.version, &s.plural)) {
                continue;
            }
            let scalable = scalable_types.contains(&(s.group.as_str(), s.plural.as_str()));
            let sub: &[&str] = if scalable {
                &["scale", "status"]
            } else {
                &["status"]
            };
            add(
                &mut out,
                ResType::new(
                    &s.group,
                    &s.version,
                    s.kind(),
                    &s.plural,
                    s.namespaced,
                    sub,
                    all_verbs(),
                ),
            );
        }
        // Targets known only through an HPA's scaleTargetRef (and a Scale item).
        for h in self
            .objects
            .iter()
            .filter(|s| s.kind() == "HorizontalPodAutoscaler")
        {
            let r = &h.obj["spec"]["scaleTargetRef"];
            let (group, version) = split_api_version(r["apiVersion"].as_str().unwrap_or_default());
            let kind = r["kind"].as_str().unwrap_or_default();
            if !kind.is_empty() {
                let plural = plural_of(Some(&group), kind);
                add(
                    &mut out,
                    ResType::new(
                        &group,
                        &version,
                        kind,
                        &plural,
                        true,
                        &["scale", "status"],
                        all_verbs(),
                    ),
                );
            }
        }
        for m in &self.metrics {
            let (plural, namespaced, kind) = if m.group == CUSTOM {
                let d = &m.item["describedObject"];
                (
                    format!(
                        "{}/{}",
                        plural_of(None, d["kind"].as_str().unwrap_or_default()),
                        metric_name(&m.item)
                    ),
                    d["namespace"].is_string(),
                    "MetricValueList",
                )
            } else {
                (
                    metric_name(&m.item).to_string(),
                    true,
                    "ExternalMetricValueList",
                )
            };
            add(
                &mut out,
                ResType::new(
                    &m.group,
                    &m.version,
                    kind,
                    &plural,
                    namespaced,
                    &[],
                    vec!["get"],
                ),
            );
        }
        out
    }

    /// group -> versions, best first.
    fn groups(&self) -> BTreeMap<String, Vec<String>> {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for r in self.resource_types() {
            g.entry(r.group).or_default().insert(r.version);
        }
        let extra = self.advertise.iter().map(|gv| split_api_version(gv));
        let from_apiservices = self.apiservices().map(|a| {
            (
                a["spec"]["group"].as_str().unwrap_or_default().to_string(),
                a["spec"]["version"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        });
        for (grp, v) in extra.chain(from_apiservices) {
            g.entry(grp).or_default().insert(v);
        }
        g.into_iter()
            .map(|(k, vs)| {
                let mut vs: Vec<String> = vs.into_iter().collect();
                vs.sort_by_key(|v| std::cmp::Reverse(version_rank(v)));
                (k, vs)
            })
            .collect()
    }

    /// `Some(msg)` when an APIService for group/version reports Available=False.
    fn unavailable(&self, group: &str, version: &str) -> bool {
        self.apiservices().any(|a| {
            a["spec"]["group"] == group
                && a["spec"]["version"] == version
                && a["status"]["conditions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|c| c["type"] == "Available" && c["status"] == "False")
        })
    }

    fn take_fault(&mut self, method: &str, path: &str) -> Option<Fault> {
        let i = self
            .faults
            .iter()
            .position(|r| r.m.matches(method, path) && r.remaining != Some(0))?;
        let rule = &mut self.faults[i];
        if rule.skip > 0 {
            rule.skip -= 1;
            return None;
        }
        if let Some(n) = rule.remaining.as_mut() {
            *n -= 1;
        }
        Some(rule.f.clone())
    }
}

fn metric_name(item: &Value) -> &str {
    item["metric"]["name"]
        .as_str()
        .or_else(|| item["metricName"].as_str())
        .unwrap_or_default()
}

// ---------------------------------------------------------------- serving

async fn serve(
    listener: std::net::TcpListener,
    state: Arc<Mutex<State>>,
    mut shutdown: tokio::sync::oneshot::Receiver<()>,
    tls: Option<tokio_rustls::TlsAcceptor>,
) {
    let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
    loop {
        let stream = tokio::select! {
            _ = &mut shutdown => return,
            acc = listener.accept() => match acc { Ok((s, _)) => s, Err(_) => continue },
        };
        let state = state.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            // Notified by Fault::Drop: dropping the connection closes the socket unanswered.
            let kill = Arc::new(Notify::new());
            let k = kill.clone();
            let svc = hyper::service::service_fn(move |req| handle(state.clone(), k.clone(), req));
            let http = hyper::server::conn::http1::Builder::new();
            match &tls {
                None => {
                    let conn = http.serve_connection(hyper_util::rt::TokioIo::new(stream), svc);
                    tokio::select! {
                        _ = conn => {}
                        _ = kill.notified() => {}
                    }
                }
                Some(acceptor) => {
                    // A failed handshake (an unknown CA, no client certificate) closes the socket.
                    let Ok(stream) = acceptor.accept(stream).await else {
                        return;
                    };
                    let conn = http.serve_connection(hyper_util::rt::TokioIo::new(stream), svc);
                    tokio::select! {
                        _ = conn => {}
                        _ = kill.notified() => {}
                    }
                }
            }
        });
    }
}

/// A response before encoding.
enum Reply {
    Json(u16, Value),
    Text(u16, String),
    /// Code, content type, body, extra headers.
    Raw(u16, &'static str, String, Vec<(&'static str, String)>),
    /// A JSON body already serialized (a LIST, assembled from each object's bytes).
    JsonBytes(u16, Vec<u8>),
}

/// Counts a request in flight while alive.
struct InFlight(Arc<Mutex<State>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut st = lock(&self.0);
        st.in_flight = st.in_flight.saturating_sub(1);
    }
}

fn throttled(secs: u64) -> Reply {
    match status(
        429,
        "TooManyRequests",
        "Too many requests, please try again later.".into(),
        Some(json!({"retryAfterSeconds": secs})),
    ) {
        Reply::Json(c, v) => Reply::Raw(
            c,
            "application/json",
            v.to_string(),
            vec![("retry-after", secs.to_string())],
        ),
        other => other,
    }
}

fn unavailable(retry_after: Option<u64>) -> Reply {
    let body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "service unavailable", "reason": "ServiceUnavailable", "code": 503});
    let headers = retry_after
        .map(|s| ("retry-after", s.to_string()))
        .into_iter()
        .collect();
    Reply::Raw(503, "application/json", body.to_string(), headers)
}

fn html(code: u16) -> Reply {
    let page = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body><form action=\"/login\">Corporate SSO</form></body></html>\n";
    Reply::Raw(code, "text/html; charset=utf-8", page.into(), vec![])
}

/// A LIST answered normally whose `metadata.continue` is always the same token.
fn repeat_continue(reply: Reply) -> Reply {
    match reply {
        Reply::Json(c, mut v) if v.get("items").is_some() => {
            v["metadata"]["continue"] = json!("same-token");
            Reply::Json(c, v)
        }
        Reply::JsonBytes(c, b) => {
            repeat_continue(Reply::Json(c, serde_json::from_slice(&b).expect("json")))
        }
        other => other,
    }
}

async fn handle(
    state: Arc<Mutex<State>>,
    kill: Arc<Notify>,
    req: hyper::Request<hyper::body::Incoming>,
) -> Result<hyper::Response<Full<Bytes>>, Infallible> {
    let method = req.method().to_string();
    let path = percent_decode(req.uri().path(), false);
    let query = parse_query(req.uri().query().unwrap_or(""));
    let headers = KEPT_HEADERS
        .iter()
        .flat_map(|h| {
            req.headers().get_all(*h).iter().map(move |v| {
                (
                    h.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
        })
        .collect();
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let rec = RecordedRequest {
        method,
        path,
        query,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let (latency, fault, over_limit, cached) = {
        let mut st = lock(&state);
        st.requests.push(rec.clone());
        st.in_flight += 1;
        st.max_in_flight = st.max_in_flight.max(st.in_flight);
        let over = st.in_flight_limit.is_some_and(|n| st.in_flight > n);
        let fault = match st.token_expired(&rec) {
            true => Some(Fault::Status(401)),
            false => st.take_fault(&rec.method, &rec.path),
        };
        let cached = match (&fault, over, rec.method.as_str()) {
            (None, false, "GET") => st.cached(&rec),
            _ => None,
        };
        (st.latency, fault, over, cached)
    };
    let _in_flight = InFlight(state.clone());
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    if let Some(answer) = cached {
        return Ok(response(answer));
    }
    let cacheable = fault.is_none() && !over_limit && rec.method == "GET";
    let reply = match fault {
        _ if over_limit => throttled(1),
        Some(Fault::Drop) => {
            kill.notify_one();
            match std::future::pending::<Infallible>().await {}
        }
        Some(Fault::Delay(d)) => {
            tokio::time::sleep(d).await;
            route(&mut lock(&state), &rec)
        }
        Some(Fault::Status(code)) => fault_status(&rec, code, None),
        Some(Fault::ForbiddenAs(user)) => fault_status(&rec, 403, Some(&user)),
        Some(Fault::ConcurrentWrite {
            patch,
            manager,
            subresource,
        }) => {
            let mut st = lock(&state);
            concurrent_write(&mut st, &rec, &patch, &manager, subresource.as_deref());
            route(&mut st, &rec)
        }
        Some(Fault::Throttle(secs)) => throttled(secs),
        Some(Fault::Unavailable(secs)) => unavailable(secs),
        Some(Fault::Html(code)) => html(code),
        Some(Fault::Answer(code, body)) => Reply::Json(code, body),
        Some(Fault::RepeatContinue) => {
            // Every page is the first one, always with the same token.
            let mut first = rec.clone();
            first.query.retain(|(k, _)| k != "continue");
            repeat_continue(route(&mut lock(&state), &first))
        }
        None => route(&mut lock(&state), &rec),
    };
    let (code, ctype, bytes, extra) = match reply {
        Reply::Json(c, v) => (
            c,
            "application/json",
            serde_json::to_vec(&v).expect("json"),
            vec![],
        ),
        Reply::Text(c, t) => (c, "text/plain; charset=utf-8", t.into_bytes(), vec![]),
        Reply::JsonBytes(c, b) => (c, "application/json", b, vec![]),
        Reply::Raw(c, ct, b, h) => (c, ct, b.into_bytes(), h),
    };
    let answer: Answer = (code, ctype, Bytes::from(bytes), extra);
    if cacheable {
        let mut st = lock(&state);
        let key = st.answer_key();
        if let Some(answers) = st.answers.as_mut() {
            answers.insert(answer_path(&rec), (key, answer.clone()));
        }
    }
    Ok(response(answer))
}

/// The HTTP response of an answer.
fn response((code, ctype, bytes, extra): Answer) -> hyper::Response<Full<Bytes>> {
    let mut resp = hyper::Response::builder()
        .status(code)
        .header("content-type", ctype)
        .header("cache-control", "no-cache, private");
    for (k, v) in extra {
        resp = resp.header(k, v);
    }
    resp.body(Full::new(bytes)).expect("response")
}

fn percent_decode(s: &str, plus_is_space: bool) -> String {
    let b = s.as_bytes();
    let (mut out, mut i) = (Vec::with_capacity(b.len()), 0);
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => match std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(v) => {
                    out.push(v);
                    i += 3;
                    continue;
                }
                None => out.push(b'%'),
            },
            b'+' if plus_is_space => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn parse_query(q: &str) -> Vec<(String, String)> {
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .map(|(k, v)| (percent_decode(k, true), percent_decode(v, true)))
        .collect()
}

// ---------------------------------------------------------------- Status bodies

fn status(code: u16, reason: &str, message: String, details: Option<Value>) -> Reply {
    let mut s = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "code": code});
    if !reason.is_empty() {
        s["reason"] = json!(reason);
    }
    if let Some(d) = details {
        s["details"] = d;
    }
    Reply::Json(code, s)
}

/// `metav1.StatusDetails` with empty fields omitted.
fn details(group: &str, resource: &str, name: &str) -> Value {
    let mut d = Map::new();
    for (k, v) in [("name", name), ("group", group), ("kind", resource)] {
        if !v.is_empty() {
            d.insert(k.into(), json!(v));
        }
    }
    Value::Object(d)
}

fn qualified(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_string()
    } else {
        format!("{resource}.{group}")
    }
}

fn not_found(group: &str, resource: &str, name: &str) -> Reply {
    status(
        404,
        "NotFound",
        format!("{} {name:?} not found", qualified(group, resource)),
        Some(details(group, resource, name)),
    )
}

fn no_such_path() -> Reply {
    status(
        404,
        "NotFound",
        "the server could not find the requested resource".into(),
        Some(json!({})),
    )
}

/// The authorization attributes of a request, as the apiserver derives them.
struct ReqInfo {
    resource_request: bool,
    verb: String,
    group: String,
    ns: String,
    resource: String,
    name: String,
    sub: String,
}

fn req_info(rec: &RecordedRequest) -> ReqInfo {
    let segs: Vec<&str> = rec.path.trim_matches('/').split('/').collect();
    let rest = match segs.as_slice() {
        ["api", _, rest @ ..] if !rest.is_empty() => Some(("", rest)),
        ["apis", g, _, rest @ ..] if !rest.is_empty() => Some((*g, rest)),
        _ => None,
    };
    let Some((group, rest)) = rest else {
        return ReqInfo {
            resource_request: false,
            verb: rec.method.to_lowercase(),
            group: String::new(),
            ns: String::new(),
            resource: String::new(),
            name: String::new(),
            sub: String::new(),
        };
    };
    let (ns, rest) = if rest[0] == "namespaces" && rest.len() >= 3 {
        (rest[1], &rest[2..])
    } else {
        ("", rest)
    };
    let name = rest.get(1).copied().unwrap_or_default();
    let watch = matches!(rec.query_param("watch"), Some("true" | "1"));
    let verb = match (rec.method.as_str(), name.is_empty()) {
        ("GET", true) if watch => "watch",
        ("GET", true) => "list",
        ("GET", false) => "get",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", true) => "deletecollection",
        ("DELETE", false) => "delete",
        (m, _) => {
            return ReqInfo {
                resource_request: true,
                verb: m.to_lowercase(),
                group: group.into(),
                ns: ns.into(),
                resource: rest[0].into(),
                name: name.into(),
                sub: String::new(),
            }
        }
    };
    ReqInfo {
        resource_request: true,
        verb: verb.into(),
        group: group.into(),
        ns: ns.into(),
        resource: rest[0].into(),
        name: name.into(),
        sub: rest.get(2..).map(|s| s.join("/")).unwrap_or_default(),
    }
}

/// The `Status` a real server sends with `code` for this request.
fn fault_status(rec: &RecordedRequest, code: u16, user: Option<&str>) -> Reply {
    let ri = req_info(rec);
    match code {
        401 => status(401, "Unauthorized", "Unauthorized".into(), None),
        403 => {
            let user = user
                .or(rec.header("impersonate-user"))
                .unwrap_or("fake-user");
            let what = if !ri.resource_request {
                return status(
                    403,
                    "Forbidden",
                    format!(
                        "forbidden: User {user:?} cannot {} path {:?}",
                        ri.verb, rec.path
                    ),
                    Some(json!({})),
                );
            } else {
                let res = if ri.sub.is_empty() {
                    ri.resource.clone()
                } else {
                    format!("{}/{}", ri.resource, ri.sub)
                };
                let scope = if ri.ns.is_empty() {
                    "at the cluster scope".to_string()
                } else {
                    format!("in the namespace {:?}", ri.ns)
                };
                format!(
                    "User {user:?} cannot {} resource {res:?} in API group {:?} {scope}",
                    ri.verb, ri.group
                )
            };
            let q = qualified(&ri.group, &ri.resource);
            let subject = if ri.name.is_empty() {
                q
            } else {
                format!("{q} {:?}", ri.name)
            };
            status(
                403,
                "Forbidden",
                format!("{subject} is forbidden: {what}"),
                Some(details(&ri.group, &ri.resource, &ri.name)),
            )
        }
        404 if ri.resource_request => not_found(&ri.group, &ri.resource, &ri.name),
        404 => no_such_path(),
        429 => status(
            429,
            "TooManyRequests",
            "Too many requests, please try again later.".into(),
            Some(json!({"retryAfterSeconds": 1})),
        ),
        500 => status(
            500,
            "InternalError",
            "Internal error occurred: injected fault".into(),
            Some(json!({"causes": [{"message": "injected fault"}]})),
        ),
        503 => status(
            503,
            "ServiceUnavailable",
            "the server is currently unable to handle the request".into(),
            None,
        ),
        c => status(c, "", format!("injected fault {c}"), None),
    }
}

// ---------------------------------------------------------------- routing

fn route(st: &mut State, rec: &RecordedRequest) -> Reply {
    let segs: Vec<&str> = rec
        .path
        .trim_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let write = rec.is_write();
    if !write && rec.method != "GET" && rec.method != "HEAD" {
        return status(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource".into(),
            Some(json!({})),
        );
    }
    match segs.as_slice() {
        _ if write && !(st.write_mode == WriteMode::AcceptPatches && rec.method == "PATCH") => {
            status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource (fake API server is read-only)".into(), Some(json!({})))
        }
        ["version"] => Reply::Json(200, version_json(&st.git_version)),
        ["healthz" | "readyz" | "livez"] => Reply::Text(200, "ok".into()),
        ["api"] => Reply::Json(200, json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:443"}]})),
        ["api", "v1"] => resource_list(st, "", "v1"),
        ["apis"] => {
            let mut groups: Vec<(String, Vec<String>)> = st.groups().into_iter().filter(|(g, _)| !g.is_empty()).collect();
            groups.sort_by_key(|(g, _)| (GROUP_ORDER.split(' ').position(|o| o == g).unwrap_or(usize::MAX), g.clone()));
            Reply::Json(200, json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups.iter().map(|(g, vs)| api_group(g, vs)).collect::<Vec<_>>()}))
        }
        ["apis", g] => match st.groups().get(*g) {
            Some(vs) if !g.is_empty() => {
                let mut v = api_group(g, vs);
                v["kind"] = json!("APIGroup");
                v["apiVersion"] = json!("v1");
                Reply::Json(200, v)
            }
            _ => no_such_path(),
        },
        ["apis", g, v, rest @ ..] => {
            if !st.groups().get(*g).is_some_and(|vs| vs.iter().any(|x| x == v)) {
                return no_such_path();
            }
            if st.unavailable(g, v) {
                return Reply::Text(503, "service unavailable\n".into());
            }
            match (*g, rest) {
                (_, []) => resource_list(st, g, v),
                (CUSTOM, _) => custom_metrics(st, v, rest, rec),
                (EXTERNAL, _) => external_metrics(st, v, rest, rec),
                _ => resource(st, g, v, rest, rec),
            }
        }
        ["api", "v1", "namespaces", ns, "services", svc, "proxy", rest @ ..] => {
            service_proxy(st, (ns, svc), rest, rec)
        }
        ["api", "v1", rest @ ..] => resource(st, "", "v1", rest, rec),
        _ => no_such_path(),
    }
}

/// The service proxy (`services/NAME:PORT/proxy/REST`) of a Service registered with
/// [`FakeApiServer::proxy_service`]: the request forwarded to its base URL (path and query as
/// the client encoded them); the API server's 404 for another Service, its 503 for another port.
fn service_proxy(
    st: &State,
    (ns, svc): (&str, &str),
    rest: &[&str],
    rec: &RecordedRequest,
) -> Reply {
    let (name, port) = svc.split_once(':').unwrap_or((svc, ""));
    let Some((want_port, base)) = st.service_proxies.get(&format!("{ns}/{name}")) else {
        return not_found("", "services", name);
    };
    if port != want_port {
        return status(
            503,
            "ServiceUnavailable",
            format!("no service port {port:?} found for service {name:?}"),
            Some(json!({})),
        );
    }
    let encode = |v: &str| {
        v.bytes()
            .map(
                |b| match b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    true => (b as char).to_string(),
                    false => format!("%{b:02X}"),
                },
            )
            .collect::<String>()
    };
    let query: Vec<String> = rec
        .query
        .iter()
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect();
    let target = format!("/{}?{}", rest.join("/"), query.join("&"));
    let addr: SocketAddr = base
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .expect("proxy_service: a base URL http://IP:PORT");
    match raw_http::request(addr, "GET", &target, &[], None, Duration::from_secs(60)) {
        Ok(r) => Reply::Raw(r.status, "application/json", r.text(), vec![]),
        Err(e) => status(
            503,
            "ServiceUnavailable",
            format!("error trying to reach service: {e}"),
            Some(json!({})),
        ),
    }
}

fn version_json(git: &str) -> Value {
    let mut nums = git.trim_start_matches('v').split(['.', '-', '+']);
    let (major, minor) = (nums.next().unwrap_or("1"), nums.next().unwrap_or("0"));
    json!({
        "major": major, "minor": minor, "emulationMajor": major, "emulationMinor": minor,
        "minCompatibilityMajor": major, "minCompatibilityMinor": minor.parse::<u32>().map_or(minor.to_string(), |m| m.saturating_sub(1).to_string()),
        "gitVersion": git, "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.25.5", "compiler": "gc", "platform": "linux/amd64"
    })
}

fn api_group(g: &str, versions: &[String]) -> Value {
    let gv = |v: &String| json!({"groupVersion": format!("{g}/{v}"), "version": v});
    json!({"name": g, "versions": versions.iter().map(gv).collect::<Vec<_>>(), "preferredVersion": gv(&versions[0])})
}

fn resource_list(st: &State, g: &str, v: &str) -> Reply {
    let mut resources = Vec::new();
    for r in st
        .resource_types()
        .into_iter()
        .filter(|r| r.group == g && r.version == v)
    {
        let metric = r.group == CUSTOM || r.group == EXTERNAL;
        let mut e = json!({"name": r.plural, "singularName": if metric { String::new() } else { r.kind.to_lowercase() }, "namespaced": r.namespaced, "kind": r.kind, "verbs": r.verbs});
        if !r.short.is_empty() {
            e["shortNames"] = json!(r.short);
        }
        if !r.categories.is_empty() {
            e["categories"] = json!(r.categories);
        }
        resources.push(e);
        for s in &r.sub {
            let (group, version, kind) = if s == "scale" {
                ("autoscaling", "v1", "Scale")
            } else {
                (g, v, r.kind.as_str())
            };
            resources.push(json!({"name": format!("{}/{s}", r.plural), "singularName": "", "namespaced": r.namespaced, "group": group, "version": version, "kind": kind, "verbs": ["get", "patch", "update"]}));
        }
    }
    let gv = if g.is_empty() {
        v.to_string()
    } else {
        format!("{g}/{v}")
    };
    Reply::Json(
        200,
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}),
    )
}

/// Parses the `labelSelector` / `fieldSelector` params (400 Status on error).
fn selectors_of(rec: &RecordedRequest) -> Result<(Selector, Selector), Reply> {
    let bad = |e: String| status(400, "BadRequest", e, None);
    let labels =
        Selector::parse_labels(rec.query_param("labelSelector").unwrap_or("")).map_err(bad)?;
    let fields =
        Selector::parse_fields(rec.query_param("fieldSelector").unwrap_or("")).map_err(bad)?;
    Ok((labels, fields))
}

/// GET/LIST/PATCH under `/api/v1/...` or `/apis/<g>/<v>/...`.
fn resource(st: &mut State, g: &str, v: &str, rest: &[&str], rec: &RecordedRequest) -> Reply {
    let (ns, rest) = if rest.len() >= 3 && rest[0] == "namespaces" {
        (Some(rest[1]), &rest[2..])
    } else {
        (None, rest)
    };
    let Some(rt) = st
        .resource_types()
        .into_iter()
        .find(|r| r.group == g && r.version == v && r.plural == rest[0])
    else {
        return no_such_path();
    };
    if (rt.namespaced && ns.is_none() && rest.len() > 1)
        || (!rt.namespaced && ns.is_some())
        || rest.len() > 3
    {
        return no_such_path();
    }
    let ns = ns.unwrap_or_default();
    match rest {
        [_] if rec.method == "GET" => list(st, &rt, ns, rec),
        [_, name] | [_, name, "status"] => {
            if rec.method == "PATCH" {
                return patch(st, &rt, ns, name, None, rec);
            }
            match st.find(&rt, ns, name) {
                Some(s) => Reply::Json(200, s.obj.clone()),
                None => not_found(g, &rt.plural, name),
            }
        }
        [_, name, "scale"] if rec.method == "PATCH" => patch(st, &rt, ns, name, Some("scale"), rec),
        [_, name, "scale"] => match scale_of(st, &rt, ns, name) {
            Some(s) => Reply::Json(200, s),
            None if !rt.sub.iter().any(|s| s == "scale") => no_such_path(),
            None => not_found(g, &rt.plural, name),
        },
        _ => no_such_path(),
    }
}

/// Identity (group, version, plural, namespace, name) → position in `State::objects`.
type ObjectIndex = std::collections::HashMap<(String, String, String, String, String), usize>;

fn list(st: &State, rt: &ResType, ns: &str, rec: &RecordedRequest) -> Reply {
    if matches!(rec.query_param("watch"), Some("true" | "1")) {
        return status(
            405,
            "MethodNotAllowed",
            "watch is not supported by the fake API server".into(),
            Some(json!({})),
        );
    }
    let (labels, fields) = match selectors_of(rec) {
        Ok(s) => s,
        Err(r) => return r,
    };
    // metrics-server selects PodMetrics by the pod's labels: the pods' labels by (namespace,
    // name), looked up once per LIST (a scan per item made a LIST of 8,000 PodMetrics take
    // seconds, which the fleet bench measured as ours).
    let pod_labels: std::collections::HashMap<(&str, &str), &Value> =
        match rt.group == "metrics.k8s.io" && !labels.is_empty() {
            true => st
                .objects
                .iter()
                .filter(|p| p.group.is_empty() && p.plural == rt.plural)
                .filter_map(|p| Some(((p.ns(), p.name()), p.obj["metadata"].get("labels")?)))
                .collect(),
            false => Default::default(),
        };
    // Selected before they are copied: a LIST by selector costs what it returns.
    let keep = |o: &Value| {
        if labels.is_empty() && fields.is_empty() {
            return ns.is_empty() || meta_str(o, "namespace") == ns;
        }
        let mut l = string_map(o["metadata"].get("labels"));
        if l.is_empty() && !pod_labels.is_empty() {
            let key = (meta_str(o, "namespace"), meta_str(o, "name"));
            l = string_map(pod_labels.get(&key).copied());
        }
        (ns.is_empty() || meta_str(o, "namespace") == ns)
            && labels.matches_labels(&l)
            && fields.matches_fields(o)
    };
    let mut items: Vec<&Stored> = st
        .objects
        .iter()
        .filter(|s| s.group == rt.group && s.version == rt.version && s.plural == rt.plural)
        .filter(|s| keep(&s.obj))
        .collect();
    // Each key read once (a comparison reading four keys made the fake server's own CPU,
    // which shares the machine with the client it serves, a tenth of a fleet run's).
    items.sort_by_cached_key(|s| (s.ns(), s.name()));
    let rv = st.next_rv.to_string();
    let start = match rec.query_param("continue").filter(|c| !c.is_empty()) {
        None => 0,
        Some(tok) => match decode_continue(tok) {
            Some(n) => n,
            None => {
                return status(
                    400,
                    "BadRequest",
                    "continue key is not valid: invalid continue token".into(),
                    None,
                )
            }
        },
    };
    let limit = rec
        .query_param("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .filter(|l| *l > 0)
        .unwrap_or(usize::MAX);
    let total = items.len();
    let page: Vec<&Stored> = items.into_iter().skip(start).take(limit).collect();
    let mut meta = json!({"resourceVersion": rv});
    let end = start + page.len();
    if end < total {
        meta["continue"] = json!(encode_continue(end));
        meta["remainingItemCount"] = json!(total - end);
    }
    let gv = if rt.group.is_empty() {
        rt.version.clone()
    } else {
        format!("{}/{}", rt.group, rt.version)
    };
    list_body(
        json!({"apiVersion": gv, "kind": format!("{}List", rt.kind), "metadata": meta}),
        &page,
    )
}

/// A LIST's JSON: `head` (apiVersion, kind, metadata) and the items' bytes, serialized once
/// per object (see [`Stored::json`]) — served as fast as a real API server's watch cache
/// serves a LIST, so the fake does not dominate what it measures.
fn list_body(head: Value, page: &[&Stored]) -> Reply {
    let mut body = serde_json::to_vec(&head).expect("json");
    body.pop(); // the closing brace
    let wire: Vec<Bytes> = page.iter().map(|s| s.json()).collect();
    body.reserve(wire.iter().map(|b| b.len() + 1).sum::<usize>() + 12);
    body.extend_from_slice(b",\"items\":[");
    for (i, b) in wire.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(b);
    }
    body.extend_from_slice(b"]}");
    Reply::JsonBytes(200, body)
}

fn encode_continue(offset: usize) -> String {
    format!("fake-continue:{offset}")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn decode_continue(tok: &str) -> Option<usize> {
    let bytes: Option<Vec<u8>> = (0..tok.len())
        .step_by(2)
        .map(|i| {
            tok.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect();
    String::from_utf8(bytes?)
        .ok()?
        .strip_prefix("fake-continue:")?
        .parse()
        .ok()
}

/// The `autoscaling/v1` Scale of an object. A snapshot Scale item with that
/// namespace/name wins when the object exists or an HPA in the namespace
/// targets this kind and name; else it is built from spec.replicas (default
/// 1), status.replicas and status.selector (string) or spec.selector.
fn scale_of(st: &State, rt: &ResType, ns: &str, name: &str) -> Option<Value> {
    if !rt.sub.iter().any(|s| s == "scale") {
        return None;
    }
    let targeted = st.objects.iter().any(|h| {
        let r = &h.obj["spec"]["scaleTargetRef"];
        let group = split_api_version(r["apiVersion"].as_str().unwrap_or_default()).0;
        h.kind() == "HorizontalPodAutoscaler"
            && h.ns() == ns
            && r["name"] == name
            && r["kind"] == rt.kind.as_str()
            && group == rt.group
    });
    let item = st
        .scales
        .iter()
        .find(|s| meta_str(s, "name") == name && meta_str(s, "namespace") == ns);
    if let Some(s) = item.filter(|_| targeted || st.find(rt, ns, name).is_some()) {
        return Some(s.clone());
    }
    let o = &st.find(rt, ns, name)?.obj;
    let selector = match &o["status"]["selector"] {
        Value::String(s) => s.clone(),
        _ => label_selector_to_string(&o["spec"]["selector"]),
    };
    let m = &o["metadata"];
    Some(json!({
        "kind": "Scale", "apiVersion": "autoscaling/v1",
        "metadata": {"name": name, "namespace": ns, "uid": m["uid"], "resourceVersion": m["resourceVersion"], "creationTimestamp": m["creationTimestamp"]},
        "spec": {"replicas": o["spec"]["replicas"].as_i64().unwrap_or(1)},
        "status": {"replicas": o["status"]["replicas"].as_i64().unwrap_or(0), "selector": selector},
    }))
}

/// RFC 7386 JSON merge patch.
fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    let t = target.as_object_mut().expect("object");
    for (k, v) in p {
        if v.is_null() {
            t.remove(k);
        } else {
            merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
        }
    }
}

/// The `time` of every managedFields entry the fake server writes.
pub const MANAGED_TIME: &str = "2026-03-01T12:00:00Z";

/// Fields the server sets itself: never owned by a manager.
fn server_field(path: &[String]) -> bool {
    match path.first().map(String::as_str) {
        Some("apiVersion" | "kind" | "status") => true,
        Some("metadata") => matches!(
            path.get(1).map(String::as_str),
            Some(
                "name"
                    | "namespace"
                    | "resourceVersion"
                    | "uid"
                    | "managedFields"
                    | "generation"
                    | "creationTimestamp"
                    | "selfLink"
            ) | None
        ),
        _ => false,
    }
}

/// Leaf paths of an object: objects recurse, everything else (lists too) is a leaf.
fn leaf_paths(v: &Value) -> Vec<Vec<String>> {
    fn walk(v: &Value, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match v {
            Value::Object(m) if !m.is_empty() => {
                for (k, c) in m {
                    prefix.push(k.clone());
                    walk(c, prefix, out);
                    prefix.pop();
                }
            }
            _ => out.push(prefix.clone()),
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out.retain(|p| !p.is_empty() && !server_field(p));
    out
}

fn value_at<'a>(v: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(v, |cur, k| cur.get(k.as_str()))
}

fn set_at(v: &mut Value, path: &[String], value: Value) {
    let mut cur = v;
    for k in &path[..path.len() - 1] {
        if !cur.get(k.as_str()).is_some_and(Value::is_object) {
            cur[k.as_str()] = json!({});
        }
        cur = cur.get_mut(k.as_str()).expect("just set");
    }
    cur[path[path.len() - 1].as_str()] = value;
}

fn remove_at(v: &mut Value, path: &[String]) {
    let mut cur = v;
    for k in &path[..path.len() - 1] {
        match cur.get_mut(k.as_str()) {
            Some(c) => cur = c,
            None => return,
        }
    }
    if let Some(m) = cur.as_object_mut() {
        m.remove(path[path.len() - 1].as_str());
    }
}

/// The leaf paths a `fieldsV1` set names (`f:` keys; `.` and `k:`/`v:` entries stop the walk).
fn field_paths(fields: &Value) -> Vec<Vec<String>> {
    fn walk(v: &Value, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        let children: Vec<(&String, &Value)> = v
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| k.starts_with("f:"))
            .collect();
        if children.is_empty() {
            if !prefix.is_empty() {
                out.push(prefix.clone());
            }
            return;
        }
        for (k, c) in children {
            prefix.push(k[2..].to_string());
            walk(c, prefix, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    walk(fields, &mut Vec::new(), &mut out);
    out
}

fn fields_of(paths: &[Vec<String>]) -> Value {
    let mut f = json!({});
    for p in paths {
        let mut cur = &mut f;
        for k in p {
            cur = cur
                .as_object_mut()
                .expect("object")
                .entry(format!("f:{k}"))
                .or_insert_with(|| json!({}));
        }
    }
    f
}

/// Does an entry with these leaf paths own `path` (the path itself, or a whole parent)?
fn covers(paths: &[Vec<String>], path: &[String]) -> bool {
    paths
        .iter()
        .any(|p| path.starts_with(p) || p.starts_with(path))
}

/// One managedFields entry, unpacked.
struct Entry {
    raw: Value,
    paths: Vec<Vec<String>>,
}

impl Entry {
    fn manager(&self) -> &str {
        self.raw["manager"].as_str().unwrap_or_default()
    }
    fn operation(&self) -> &str {
        self.raw["operation"].as_str().unwrap_or_default()
    }
    fn subresource(&self) -> &str {
        self.raw["subresource"].as_str().unwrap_or_default()
    }
    fn is(&self, manager: &str, operation: &str, subresource: &str) -> bool {
        self.manager() == manager
            && self.operation() == operation
            && self.subresource() == subresource
    }
}

fn entries_of(obj: &Value) -> Vec<Entry> {
    obj["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| Entry {
            raw: e.clone(),
            paths: field_paths(&e["fieldsV1"]),
        })
        .collect()
}

/// Write the entries back (empty ones dropped; the key removed when none are left).
fn store_entries(obj: &mut Value, entries: Vec<Entry>) {
    let list: Vec<Value> = entries
        .into_iter()
        .filter(|e| !e.paths.is_empty())
        .map(|mut e| {
            e.raw["fieldsV1"] = fields_of(&e.paths);
            e.raw
        })
        .collect();
    if let Some(m) = obj["metadata"].as_object_mut() {
        if list.is_empty() {
            m.remove("managedFields");
        } else {
            m.insert("managedFields".into(), Value::Array(list));
        }
    }
}

fn new_entry(manager: &str, operation: &str, api_version: &str, subresource: &str) -> Entry {
    let mut raw = json!({"manager": manager, "operation": operation, "apiVersion": api_version, "time": MANAGED_TIME, "fieldsType": "FieldsV1", "fieldsV1": {}});
    if !subresource.is_empty() {
        raw["subresource"] = json!(subresource);
    }
    Entry { raw, paths: vec![] }
}

/// An Update by `manager`: the fields whose value changed move to its entry; deleted fields
/// leave every entry.
fn record_update(
    obj: &mut Value,
    before: &Value,
    manager: &str,
    api_version: &str,
    subresource: &str,
) {
    let after_paths = leaf_paths(obj);
    let mut changed: Vec<Vec<String>> = after_paths
        .iter()
        .filter(|p| value_at(before, p) != value_at(obj, p))
        .cloned()
        .collect();
    let deleted: Vec<Vec<String>> = leaf_paths(before)
        .into_iter()
        .filter(|p| value_at(obj, p).is_none())
        .collect();
    let mut entries = entries_of(obj);
    for e in &mut entries {
        e.paths.retain(|p| {
            !changed.iter().any(|c| c == p) && !deleted.iter().any(|d| p.starts_with(d))
        });
    }
    if !changed.is_empty() {
        let i = match entries
            .iter()
            .position(|e| e.is(manager, "Update", subresource))
        {
            Some(i) => i,
            None => {
                entries.push(new_entry(manager, "Update", api_version, subresource));
                entries.len() - 1
            }
        };
        let e = &mut entries[i];
        e.raw["time"] = json!(MANAGED_TIME);
        e.paths.append(&mut changed);
        e.paths.sort();
        e.paths.dedup();
    }
    store_entries(obj, entries);
}

/// The 409 a real server sends for a stale `metadata.resourceVersion`.
fn modified_conflict(rt: &ResType, name: &str) -> Reply {
    status(
        409,
        "Conflict",
        format!(
            "Operation cannot be fulfilled on {} {name:?}: the object has been modified; please apply your changes to the latest version and try again",
            qualified(&rt.group, &rt.plural)
        ),
        Some(details(&rt.group, &rt.plural, name)),
    )
}

/// The manager of a request: `fieldManager`, else the User-Agent up to the first `/`.
fn manager_of(rec: &RecordedRequest) -> String {
    match rec.query_param("fieldManager") {
        Some(m) if !m.is_empty() => m.to_string(),
        _ => rec
            .header("user-agent")
            .and_then(|u| u.split('/').next())
            .filter(|u| !u.is_empty())
            .unwrap_or("unknown")
            .to_string(),
    }
}

fn gv_of(rt: &ResType) -> String {
    if rt.group.is_empty() {
        rt.version.clone()
    } else {
        format!("{}/{}", rt.group, rt.version)
    }
}

/// A server-side apply of `applied` by `manager` to `obj`.
fn server_side_apply(
    obj: &mut Value,
    applied: &Value,
    manager: &str,
    api_version: &str,
    force: bool,
) -> Result<(), Vec<(String, String)>> {
    let mut set: Vec<Vec<String>> = leaf_paths(applied);
    set.sort();
    let mut entries = entries_of(obj);
    let me = |e: &Entry| e.is(manager, "Apply", "");
    let mut conflicts = Vec::new();
    for p in &set {
        if value_at(obj, p) == value_at(applied, p) || value_at(obj, p).is_none() {
            continue;
        }
        for e in entries.iter().filter(|e| !me(e) && covers(&e.paths, p)) {
            let mut who = format!("conflict with {:?}", e.manager());
            if !e.subresource().is_empty() {
                who += &format!(" with subresource {:?}", e.subresource());
            }
            who += &format!(
                " using {}",
                e.raw["apiVersion"].as_str().unwrap_or_default()
            );
            conflicts.push((who, format!(".{}", p.join("."))));
        }
    }
    if !conflicts.is_empty() && !force {
        return Err(conflicts);
    }
    // prune what this manager applied before and nobody else owns
    let before: Vec<Vec<String>> = entries
        .iter()
        .filter(|e| me(e))
        .flat_map(|e| e.paths.clone())
        .collect();
    for p in before.iter().filter(|p| !set.contains(p)) {
        if !entries.iter().any(|e| !me(e) && covers(&e.paths, p)) {
            remove_at(obj, p);
        }
    }
    for p in &set {
        let v = value_at(applied, p).cloned().unwrap_or(Value::Null);
        set_at(obj, p, v);
    }
    if force {
        for e in entries.iter_mut().filter(|e| !me(e)) {
            e.paths.retain(|p| !set.contains(p));
        }
    }
    match entries.iter_mut().find(|e| me(e)) {
        Some(e) => {
            e.paths = set;
            e.raw["time"] = json!(MANAGED_TIME);
        }
        None => {
            let mut e = new_entry(manager, "Apply", api_version, "");
            e.paths = set;
            entries.push(e);
        }
    }
    store_entries(obj, entries);
    Ok(())
}

/// An Update through the scale subresource: `spec.replicas` of the parent.
fn scale_update(
    st: &mut State,
    rt: &ResType,
    ns: &str,
    name: &str,
    patch: &Value,
    manager: &str,
) -> Option<Value> {
    let mut scale = scale_of(st, rt, ns, name)?;
    merge_patch(&mut scale, patch);
    st.next_rv += 1;
    let rv = st.next_rv.to_string();
    scale["metadata"]["resourceVersion"] = json!(rv);
    if let Some(s) = st
        .scales
        .iter_mut()
        .find(|s| meta_str(s, "name") == name && meta_str(s, "namespace") == ns)
    {
        *s = scale.clone();
    }
    let (g, v, plural) = (rt.group.clone(), rt.version.clone(), rt.plural.clone());
    if let Some(o) = st.objects.iter_mut().find(|s| {
        s.group == g && s.version == v && s.plural == plural && s.ns() == ns && s.name() == name
    }) {
        let before = o.obj.clone();
        o.obj["spec"]["replicas"] = scale["spec"]["replicas"].clone();
        o.obj["metadata"]["resourceVersion"] = json!(rv);
        if before["spec"]["replicas"] != o.obj["spec"]["replicas"] {
            let mut entries = entries_of(&o.obj);
            let path = vec!["spec".to_string(), "replicas".to_string()];
            for e in &mut entries {
                e.paths.retain(|p| p != &path);
            }
            let gv = o.obj["apiVersion"].as_str().unwrap_or_default().to_string();
            match entries
                .iter_mut()
                .find(|e| e.is(manager, "Update", "scale"))
            {
                Some(e) => {
                    e.paths.push(path);
                    e.raw["time"] = json!(MANAGED_TIME);
                }
                None => {
                    let mut e = new_entry(manager, "Update", &gv, "scale");
                    e.paths.push(path);
                    entries.push(e);
                }
            }
            store_entries(&mut o.obj, entries);
        }
    }
    Some(scale)
}

/// [`Fault::ConcurrentWrite`]: another client's Update of the object addressed by `rec`.
fn concurrent_write(
    st: &mut State,
    rec: &RecordedRequest,
    patch: &Value,
    manager: &str,
    subresource: Option<&str>,
) {
    let segs: Vec<&str> = rec.path.trim_matches('/').split('/').collect();
    let (g, v, rest) = match segs.as_slice() {
        ["api", v, rest @ ..] => ("", *v, rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => return,
    };
    let (ns, rest) = match rest {
        ["namespaces", ns, rest @ ..] if !rest.is_empty() => (*ns, rest),
        _ => ("", rest),
    };
    let (plural, name) = match rest {
        [p, n, ..] => (*p, *n),
        _ => return,
    };
    let Some(rt) = st
        .resource_types()
        .into_iter()
        .find(|r| r.group == g && r.version == v && r.plural == plural)
    else {
        return;
    };
    if subresource == Some("scale") {
        scale_update(st, &rt, ns, name, patch, manager);
        return;
    }
    st.next_rv += 1;
    let rv = st.next_rv.to_string();
    let gv = gv_of(&rt);
    if let Some(o) = st.objects.iter_mut().find(|s| {
        s.group == rt.group
            && s.version == rt.version
            && s.plural == rt.plural
            && s.ns() == ns
            && s.name() == name
    }) {
        let before = o.obj.clone();
        merge_patch(&mut o.obj, patch);
        record_update(
            &mut o.obj,
            &before,
            manager,
            &gv,
            subresource.unwrap_or_default(),
        );
        o.obj["metadata"]["resourceVersion"] = json!(rv);
    }
}

/// [`WriteMode::AcceptPatches`]: merge/apply patch of an object, its status or its scale.
fn patch(
    st: &mut State,
    rt: &ResType,
    ns: &str,
    name: &str,
    sub: Option<&str>,
    rec: &RecordedRequest,
) -> Reply {
    let ctype = rec.header("content-type").unwrap_or_default();
    let apply = ctype.starts_with("application/apply-patch+yaml");
    if !(ctype.starts_with("application/merge-patch+json") || apply) {
        return status(415, "UnsupportedMediaType", format!("the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/apply-patch+yaml (got {ctype:?})"), None);
    }
    let mut p: Value = match kubectl_hpa::yaml::from_str(&rec.body) {
        Ok(p) => p,
        Err(e) => {
            return status(
                400,
                "BadRequest",
                format!("error decoding patch: {e}"),
                None,
            )
        }
    };
    if apply && rec.query_param("fieldManager").is_none_or(str::is_empty) {
        return status(
            422,
            "Invalid",
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch".into(),
            None,
        );
    }
    let manager = manager_of(rec);
    let force = rec.query_param("force") == Some("true");
    if sub == Some("scale") {
        return match scale_update(st, rt, ns, name, &p, &manager) {
            Some(scale) => Reply::Json(200, scale),
            None => not_found(&rt.group, &rt.plural, name),
        };
    }
    let (g, v, plural) = (rt.group.clone(), rt.version.clone(), rt.plural.clone());
    let Some(i) = st.objects.iter().position(|s| {
        s.group == g && s.version == v && s.plural == plural && s.ns() == ns && s.name() == name
    }) else {
        return not_found(&g, &plural, name);
    };
    let stored_rv = meta_str(&st.objects[i].obj, "resourceVersion").to_string();
    if let Some(want) = p["metadata"]["resourceVersion"].as_str() {
        if want != stored_rv {
            return modified_conflict(rt, name);
        }
    }
    if let Some(m) = p.get_mut("metadata").and_then(Value::as_object_mut) {
        m.remove("resourceVersion");
        m.remove("managedFields");
    }
    let gv = gv_of(rt);
    let o = &mut st.objects[i];
    let before = o.obj.clone();
    if apply {
        if let Err(conflicts) = server_side_apply(&mut o.obj, &p, &manager, &gv, force) {
            o.obj = before;
            let n = conflicts.len();
            let list: Vec<String> = conflicts.iter().map(|(w, f)| format!("{w}: {f}")).collect();
            let causes: Vec<Value> = conflicts
                .iter()
                .map(|(w, f)| json!({"reason": "FieldManagerConflict", "message": w, "field": f}))
                .collect();
            let mut d = details(&rt.group, &rt.plural, name);
            d["causes"] = json!(causes);
            return status(
                409,
                "Conflict",
                format!(
                    "Apply failed with {n} conflict{}: {}",
                    if n == 1 { "" } else { "s" },
                    list.join("\n")
                ),
                Some(d),
            );
        }
    } else {
        merge_patch(&mut o.obj, &p);
        record_update(&mut o.obj, &before, &manager, &gv, sub.unwrap_or_default());
    }
    if rec.query_param("dryRun") == Some("All") {
        // admission would run; nothing is persisted and the resourceVersion stays
        let result = std::mem::replace(&mut o.obj, before);
        return Reply::Json(200, result);
    }
    st.next_rv += 1;
    let rv = st.next_rv.to_string();
    let o = &mut st.objects[i];
    o.obj["metadata"]["resourceVersion"] = json!(rv);
    Reply::Json(200, o.obj.clone())
}

fn metric_list(kind: &str, group: &str, version: &str, items: Vec<Value>) -> Reply {
    Reply::Json(
        200,
        json!({"kind": kind, "apiVersion": format!("{group}/{version}"), "metadata": {}, "items": items}),
    )
}

/// `custom.metrics.k8s.io`: `/namespaces/{ns}/{resource}/{name|*}/{metric}`,
/// `/{resource}/{name|*}/{metric}` (cluster scope), `/namespaces/{ns}/metrics/{metric}`.
fn custom_metrics(st: &State, version: &str, rest: &[&str], rec: &RecordedRequest) -> Reply {
    let (ns, resource, name, metric) = match rest {
        ["namespaces", ns, "metrics", m] => (None, "namespaces", *ns, *m),
        ["namespaces", ns, r, n, m] => (Some(*ns), *r, *n, *m),
        [r, n, m] => (None, *r, *n, *m),
        _ => return no_such_path(),
    };
    let (labels, _) = match selectors_of(rec) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let base = resource.split('.').next().unwrap_or_default();
    let kind_of = |m: &MetricItem| {
        m.item["describedObject"]["kind"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let candidates: Vec<&MetricItem> = st
        .metrics
        .iter()
        .filter(|m| m.group == CUSTOM && m.version == version && metric_name(&m.item) == metric)
        .filter(|m| plural_of(None, &kind_of(m)) == base || kind_of(m).to_lowercase() == base)
        .filter(|m| ns.is_none_or(|ns| m.item["describedObject"]["namespace"] == ns))
        .collect();
    if candidates.is_empty() {
        return status(
            404,
            "NotFound",
            format!("the server could not find the metric {metric} for {resource}"),
            Some(details(CUSTOM, resource, "")),
        );
    }
    let items: Vec<Value> = candidates
        .into_iter()
        .filter(|m| {
            let d = &m.item["describedObject"];
            if name != "*" {
                return d["name"] == name;
            }
            let obj = st.objects.iter().find(|s| {
                s.kind() == d["kind"]
                    && s.ns() == d["namespace"].as_str().unwrap_or_default()
                    && s.name() == d["name"]
            });
            labels.matches_labels(
                &obj.map(|o| string_map(o.obj["metadata"].get("labels")))
                    .unwrap_or_default(),
            )
        })
        .map(|m| m.item.clone())
        .collect();
    if items.is_empty() && name != "*" {
        return status(
            404,
            "NotFound",
            format!("the server could not find the metric {metric} for {resource} {name}"),
            Some(details(CUSTOM, resource, name)),
        );
    }
    metric_list("MetricValueList", CUSTOM, version, items)
}

/// `external.metrics.k8s.io`: `/namespaces/{ns}/{metric}?labelSelector=` over `metricLabels`.
fn external_metrics(st: &State, version: &str, rest: &[&str], rec: &RecordedRequest) -> Reply {
    let ["namespaces", ns, metric] = rest else {
        return no_such_path();
    };
    let (labels, _) = match selectors_of(rec) {
        Ok(s) => s,
        Err(r) => return r,
    };
    let candidates: Vec<&MetricItem> = st
        .metrics
        .iter()
        .filter(|m| {
            m.group == EXTERNAL
                && m.version == version
                && metric_name(&m.item).eq_ignore_ascii_case(metric)
                && m.ns.as_deref().is_none_or(|n| n == *ns)
        })
        .collect();
    if candidates.is_empty() {
        return status(
            404,
            "NotFound",
            format!("the server could not find the metric {metric}"),
            Some(details(EXTERNAL, metric, "")),
        );
    }
    let items = candidates
        .into_iter()
        // An item without metricLabels answers any selector, as KEDA's metrics server does.
        .filter(|m| {
            m.item.get("metricLabels").is_none_or(Value::is_null)
                || labels.matches_labels(&string_map(m.item.get("metricLabels")))
        })
        .map(|m| m.item.clone())
        .collect();
    metric_list("ExternalMetricValueList", EXTERNAL, version, items)
}
