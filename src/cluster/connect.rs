//! How to connect, as kubectl chooses: its connection flags, the kubeconfig (files merged,
//! names checked), the flags over it, proxies, timeouts, the in-cluster fallback, and the
//! credentials ([`super::auth`]) — into a [`Conn`].

use std::path::PathBuf;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use super::failure::Error;
use super::options::ConnectOptions;
use super::transport::{Conn, What, MAX_IN_FLIGHT};

type Result<T> = std::result::Result<T, Error>;

/// Why no connection can be set up, in words: [`Error::Connect`].
macro_rules! fail {
    ($($words:tt)*) => { Error::Connect(format!($($words)*)) };
}

/// The timeout of each request: `--request-timeout` (zero = none) when given, else the
/// options' default; with what it is, for messages.
fn request_timeout(o: &ConnectOptions) -> (Option<Duration>, &'static str) {
    const FLAG: &str = "--request-timeout";
    match (o.request_timeout, o.default_request_timeout) {
        (Some(t), _) => ((!t.is_zero()).then_some(t), FLAG),
        (None, Some(d)) => (Some(d.after), d.what),
        (None, None) => (None, FLAG),
    }
}

/// The kubeconfig kubectl would read: `--kubeconfig`, else the existing files of `KUBECONFIG`
/// merged (first value wins), else `~/.kube/config`; `None` when there is none.
fn load_kubeconfig(flags: &ConnectOptions) -> Result<Option<Kubeconfig>> {
    if let Some(p) = &flags.kubeconfig {
        return read_kubeconfig(p, "--kubeconfig ").map(Some);
    }
    if let Some(v) = std::env::var_os("KUBECONFIG") {
        let paths: Vec<PathBuf> = std::env::split_paths(&v)
            .filter(|p| !p.as_os_str().is_empty() && p.exists())
            .collect();
        if paths.is_empty() && !v.is_empty() {
            // kubectl does not fall back to ~/.kube/config: that may be another cluster.
            return Err(fail!(
                "KUBECONFIG={}: none of its files exists (kubectl does not fall back to ~/.kube/config either)",
                v.to_string_lossy()
            ));
        }
        if !paths.is_empty() {
            let mut merged = Kubeconfig::default();
            for p in &paths {
                let kc = read_kubeconfig(p, "KUBECONFIG file ")?;
                merged = merged
                    .merge(kc)
                    .map_err(|e| fail!("KUBECONFIG: cannot merge {}: {e}", p.display()))?;
            }
            return Ok(Some(merged));
        }
    }
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"));
    if let Some(h) = home {
        let p = PathBuf::from(h).join(".kube").join("config");
        if p.exists() {
            return read_kubeconfig(&p, "").map(Some);
        }
    }
    Ok(None)
}

/// One kubeconfig file; a file that does not parse is named with the line of the error only,
/// as kubectl names it: the parser's own message quotes the text around the error (a `token:`
/// line above it) or the value of a field of the wrong type, and CI logs are often public.
fn read_kubeconfig(p: &std::path::Path, what: &str) -> Result<Kubeconfig> {
    Kubeconfig::read_from(p).map_err(|e| match e {
        kube::config::KubeconfigError::Parse(_) => {
            let at = yaml_error_position(&e.to_string())
                .map(|(line, col)| format!(" at line {line}, column {col}"))
                .unwrap_or_default();
            fail!(
                "{what}{}: not a valid kubeconfig: YAML error{at} (the file's text is not shown: it may hold credentials)",
                p.display()
            )
        }
        e => fail!("{what}{}: {e}", p.display()),
    })
}

/// The `line L column C` of a YAML parser's message.
fn yaml_error_position(message: &str) -> Option<(u64, u64)> {
    let rest = &message[message.find("line ")? + 5..];
    let (line, rest) = rest.split_once(' ')?;
    let col = rest.strip_prefix("column ")?;
    let col: String = col.chars().take_while(char::is_ascii_digit).collect();
    Some((line.parse().ok()?, col.parse().ok()?))
}

/// `--context`, `--cluster` or `--user` naming what the kubeconfig lacks is refused, in
/// kubectl's words (never anonymous requests to some server).
fn refuse_unknown_names(kc: &Kubeconfig, flags: &ConnectOptions) -> Result<()> {
    if let Some(c) = &flags.context {
        if !kc.contexts.iter().any(|n| &n.name == c) {
            return Err(fail!("context {c:?} does not exist"));
        }
    }
    if let Some(c) = &flags.cluster {
        if !kc.clusters.iter().any(|n| &n.name == c) {
            return Err(fail!("cluster {c:?} does not exist"));
        }
    }
    if let Some(u) = &flags.user {
        if !kc.auth_infos.iter().any(|n| &n.name == u) {
            return Err(fail!("auth info {u:?} does not exist"));
        }
    }
    Ok(())
}

/// `--server` and `--token` over what the kubeconfig says (TLS flags: [`super::tls::apply`]).
fn override_from_flags(config: &mut Config, flags: &ConnectOptions) -> Result<()> {
    if let Some(url) = &flags.server {
        config.cluster_url = url.parse().map_err(|e| {
            fail!(
                "--server {:?}: not a URL: {e}",
                super::words::mask_userinfo(url)
            )
        })?;
    }
    if let Some(t) = &flags.token {
        config.auth_info.token = Some(t.clone().into());
        config.auth_info.token_file = None;
    }
    Ok(())
}

/// A proxy from `HTTPS_PROXY`/`https_proxy` is not used for a server that `NO_PROXY`/`no_proxy`
/// covers (kube checks the proxy's own address instead); a kubeconfig's `proxy-url` always is.
fn bypass_env_proxy(config: &mut Config) {
    let env = |a: &str, b: &str| {
        std::env::var(a)
            .ok()
            .filter(|v| !v.is_empty())
            .or_else(|| std::env::var(b).ok().filter(|v| !v.is_empty()))
    };
    let Some(proxy) = &config.proxy_url else {
        return;
    };
    let from_env = env("HTTPS_PROXY", "https_proxy")
        .and_then(|p| p.parse::<http::Uri>().ok())
        .is_some_and(|p| &p == proxy);
    let host = config.cluster_url.host().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if from_env && env("NO_PROXY", "no_proxy").is_some_and(|n| no_proxy_covers(&n, host)) {
        config.proxy_url = None;
    }
}

/// Whether a `NO_PROXY` list covers `host`: `*`, the host itself, a domain it is in
/// (`example.com` or `.example.com`), or an IPv4/IPv6 address or CIDR range holding it.
fn no_proxy_covers(list: &str, host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    let ip: Option<std::net::IpAddr> = host.parse().ok();
    list.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .any(|e| {
            let e = e.to_ascii_lowercase();
            if e == "*" || e == host {
                return true;
            }
            if let (Some(ip), Some((net, bits))) = (ip, e.split_once('/')) {
                return in_cidr(ip, net, bits);
            }
            let domain = e.trim_start_matches('.');
            ip.is_none() && host.ends_with(&format!(".{domain}"))
        })
}

fn in_cidr(ip: std::net::IpAddr, net: &str, bits: &str) -> bool {
    use std::net::IpAddr;
    let (Ok(net), Ok(bits)) = (net.parse::<IpAddr>(), bits.parse::<u32>()) else {
        return false;
    };
    let (a, b, width) = match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(b)) => (u32::from(a) as u128, u32::from(b) as u128, 32),
        (IpAddr::V6(a), IpAddr::V6(b)) => (u128::from(a), u128::from(b), 128),
        _ => return false,
    };
    if bits > width {
        return false;
    }
    let shift = width - bits;
    shift >= 128 || (a >> shift) == (b >> shift)
}

/// Connect as kubectl would with these flags (no request is sent).
pub async fn connect(options: impl Into<ConnectOptions>) -> Result<Conn> {
    let flags = &options.into();
    let (timeout, timeout_what) = request_timeout(flags);
    if flags.as_user.is_none() && !flags.as_group.is_empty() {
        return Err(fail!(
            "--as-group requires --as: requesting groups without impersonating a user"
        ));
    }
    let options = KubeConfigOptions {
        context: flags.context.clone(),
        cluster: flags.cluster.clone(),
        user: flags.user.clone(),
    };
    let mut kubeconfig_names = (String::new(), String::new());
    let (mut config, context) = match load_kubeconfig(flags)? {
        Some(kc) => {
            let context = flags
                .context
                .clone()
                .or_else(|| kc.current_context.clone())
                .unwrap_or_default();
            refuse_unknown_names(&kc, flags)?;
            kubeconfig_names = self::kubeconfig_names(&kc, flags, &context);
            let config = Config::from_custom_kubeconfig(kc, &options)
                .await
                .map_err(|e| fail!("kubeconfig (context {context:?}): {e}"))?;
            (config, context)
        }
        None if flags.server.is_some() => {
            let url = flags.server.as_deref().unwrap_or_default();
            let uri = url.parse().map_err(|e| {
                fail!(
                    "--server {:?}: not a URL: {e}",
                    super::words::mask_userinfo(url)
                )
            })?;
            (Config::new(uri), String::new())
        }
        None => {
            if flags.context.is_some() || flags.cluster.is_some() || flags.user.is_some() {
                return Err(fail!("no kubeconfig found (--kubeconfig, KUBECONFIG, ~/.kube/config) for --context/--cluster/--user"));
            }
            (in_cluster_config(flags)?, "in-cluster".to_string())
        }
    };
    override_from_flags(&mut config, flags)?;
    super::tls::apply(&mut config, flags)?;
    let credentials = super::auth::take(
        &mut config,
        flags.token.is_some(),
        &kubeconfig_names.1,
        timeout,
    )
    .map_err(Error::Connect)?
    .map(std::sync::Arc::new);
    bypass_env_proxy(&mut config);
    super::tls::no_trust_store_for_plain_http(&mut config);
    if let Some(u) = &flags.as_user {
        config.auth_info.impersonate = Some(u.clone());
    }
    if !flags.as_group.is_empty() {
        config.auth_info.impersonate_groups = Some(flags.as_group.clone());
    }
    // Retries are ours, in `Conn::send` (bounded, within --request-timeout), not kube's.
    config.default_retry = false;
    config.connect_timeout = connect_timeout(timeout, config.connect_timeout);
    let connect_timeout = config.connect_timeout;
    let namespace = flags
        .namespace
        .clone()
        .unwrap_or_else(|| config.default_namespace.clone());
    let server = super::words::mask_userinfo(config.cluster_url.to_string().trim_end_matches('/'));
    let tls = super::tls::TlsContext {
        cluster: kubeconfig_names.0,
        user: kubeconfig_names.1,
        host: config
            .tls_server_name
            .clone()
            .unwrap_or_else(|| config.cluster_url.host().unwrap_or_default().to_string()),
    };
    let proxied = config.proxy_url.is_some();
    let client = Client::try_from(config)
        .map_err(|e| fail!("cannot build a client for {server} (context {context:?}): {e}"))?;
    Ok(Conn {
        client,
        namespace,
        context,
        server,
        timeout,
        timeout_what,
        connect_timeout,
        permits: std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT)),
        verbosity: flags.verbosity,
        tls,
        proxied,
        credentials,
        discovered: Default::default(),
    })
}

/// The TCP connect and TLS handshake bound: `--request-timeout` when given (a longer one is
/// not cut to the fixed default), else the default (30 s).
pub(super) fn connect_timeout(
    request: Option<Duration>,
    default: Option<Duration>,
) -> Option<Duration> {
    request.or(default)
}

/// The in-cluster configuration (no kubeconfig): the service account's token and CA; `-n`
/// needs no `namespace` file.
fn in_cluster_config(flags: &ConnectOptions) -> Result<Config> {
    let c = super::incluster::resolve(&super::incluster::inputs(), flags.namespace.as_deref())
        .map_err(|e| {
            fail!("no kubeconfig found (--kubeconfig, KUBECONFIG, ~/.kube/config) and not running in a cluster: {e}")
        })?;
    let mut config = Config::new(
        c.url
            .parse()
            .map_err(|e| fail!("in-cluster server {:?}: {e}", c.url))?,
    );
    config.default_namespace = c.namespace;
    config.root_cert = (!c.ca.is_empty()).then_some(c.ca);
    config.auth_info.token_file = Some(format!("{}/token", super::incluster::SERVICE_ACCOUNT_DIR));
    Ok(config)
}

/// The contexts of the kubeconfig kubectl would read (`--all-contexts`), in the file's order
/// (merged files: the first file's first); an error when there is no kubeconfig or no context.
pub fn context_names(flags: &ConnectOptions) -> Result<Vec<String>> {
    let kc = load_kubeconfig(flags)?.ok_or_else(|| {
        fail!("--all-contexts: no kubeconfig found (--kubeconfig, KUBECONFIG, ~/.kube/config)")
    })?;
    let mut names: Vec<String> = Vec::new();
    for c in &kc.contexts {
        if !names.contains(&c.name) {
            names.push(c.name.clone());
        }
    }
    if names.is_empty() {
        return Err(fail!("--all-contexts: the kubeconfig has no context"));
    }
    Ok(names)
}

/// The kubeconfig cluster and user names this connection uses, for messages.
fn kubeconfig_names(kc: &Kubeconfig, flags: &ConnectOptions, context: &str) -> (String, String) {
    let ctx = kc
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref());
    let cluster = flags
        .cluster
        .clone()
        .or_else(|| ctx.map(|c| c.cluster.clone()))
        .unwrap_or_default();
    let user = flags
        .user
        .clone()
        .or_else(|| ctx.and_then(|c| c.user.clone()))
        .unwrap_or_default();
    (cluster, user)
}

/// For shell completion: the HPA names of `namespace` (`None`: the context's namespace), or
/// with `hpas == false` the namespace names, from the default kubeconfig. Bounded by `timeout`;
/// every error (no kubeconfig, unreachable, RBAC) gives an empty list; [`names`] is the same
/// from inside the runtime.
pub fn list_names(
    rt: &tokio::runtime::Runtime,
    hpas: bool,
    namespace: Option<&str>,
    timeout: Duration,
) -> Vec<String> {
    rt.block_on(names(hpas, namespace, timeout))
}

/// [`list_names`] from a running runtime.
pub async fn names(hpas: bool, namespace: Option<&str>, timeout: Duration) -> Vec<String> {
    let flags = ConnectOptions {
        namespace: namespace.map(String::from),
        request_timeout: Some(timeout.max(Duration::from_millis(1))),
        ..ConnectOptions::default()
    };
    let work = async {
        let conn = connect(flags).await.ok()?;
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
            .list_values(
                &path,
                &[],
                None,
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
    tokio::time::timeout(timeout, work)
        .await
        .ok()
        .flatten()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{connect_timeout, no_proxy_covers, request_timeout, ConnectOptions};
    use std::time::Duration;

    #[test]
    fn a_longer_request_timeout_is_not_cut_to_the_default_connect_timeout() {
        let thirty = Some(Duration::from_secs(30));
        let two_min = Some(Duration::from_secs(120));
        assert_eq!(connect_timeout(two_min, thirty), two_min);
        assert_eq!(
            connect_timeout(Some(Duration::from_secs(1)), thirty),
            Some(Duration::from_secs(1))
        );
        assert_eq!(connect_timeout(None, thirty), thirty);
    }

    #[test]
    fn the_default_request_timeout_applies_only_when_the_flag_is_not_given() {
        let watch = ConnectOptions::default()
            .with_default_timeout(Duration::from_secs(15), "one sync period");
        let want = (Some(Duration::from_secs(15)), "one sync period");
        assert_eq!(request_timeout(&watch), want);
        let zero = ConnectOptions {
            request_timeout: Some(Duration::ZERO),
            ..watch.clone()
        };
        assert_eq!(request_timeout(&zero).0, None, "--request-timeout 0: none");
        let given = ConnectOptions {
            request_timeout: Some(Duration::from_secs(120)),
            ..watch
        };
        let want = (Some(Duration::from_secs(120)), "--request-timeout");
        assert_eq!(request_timeout(&given), want);
        assert_eq!(request_timeout(&ConnectOptions::default()).0, None);
    }

    #[test]
    fn no_proxy_lists_cover_hosts_domains_and_ranges() {
        assert!(no_proxy_covers("*", "api.example.com"));
        assert!(no_proxy_covers("foo, api.example.com", "api.example.com"));
        assert!(no_proxy_covers(".example.com", "api.example.com"));
        assert!(no_proxy_covers("example.com", "api.example.com"));
        assert!(!no_proxy_covers("example.com", "api.example.org"));
        assert!(!no_proxy_covers("ample.com", "api.example.com"));
        assert!(no_proxy_covers("10.0.0.0/8", "10.1.2.3"));
        assert!(!no_proxy_covers("10.0.0.0/8", "11.1.2.3"));
        assert!(no_proxy_covers("127.0.0.1", "127.0.0.1"));
        assert!(!no_proxy_covers("127.0.0.1", "127.0.0.2"));
        assert!(no_proxy_covers("fd00::/8", "fd12::1"));
        assert!(!no_proxy_covers("", "x"));
    }
}
