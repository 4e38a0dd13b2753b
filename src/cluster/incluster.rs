//! In-cluster configuration (a pod's service account), as client-go resolves it: a pure
//! function over the environment and the contents of the service-account files, so it is
//! tested without a pod.

/// Where a pod's service-account files are mounted.
pub const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// What the in-cluster configuration reads: environment variables and file contents
/// (`None`: unset or unreadable).
#[derive(Debug, Clone, Default)]
pub struct InClusterInputs {
    /// `KUBERNETES_SERVICE_HOST`, `KUBERNETES_SERVICE_PORT`.
    pub host: Option<String>,
    pub port: Option<String>,
    /// `POD_NAMESPACE` (set through the downward API).
    pub pod_namespace: Option<String>,
    /// The service account's `namespace` file.
    pub namespace_file: Option<String>,
    /// The service account's `ca.crt` file.
    pub ca_file: Option<String>,
    /// Whether the service account's `token` file exists.
    pub token_file: bool,
}

/// The resolved in-cluster settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InCluster {
    /// `https://HOST:PORT` (IPv6 hosts bracketed; `:443` left out).
    pub url: String,
    /// `-n`, else `POD_NAMESPACE`, else the `namespace` file, else `default`.
    pub namespace: String,
    /// The CA certificates of `ca.crt` (DER); empty when there is none.
    pub ca: Vec<Vec<u8>>,
}

/// Why the in-cluster configuration is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InClusterError {
    /// `KUBERNETES_SERVICE_HOST` or `KUBERNETES_SERVICE_PORT` is not set.
    #[error("unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined")]
    NoEnvironment,
    /// `KUBERNETES_SERVICE_PORT` is not a port number.
    #[error("KUBERNETES_SERVICE_PORT={0:?} is not a port number")]
    BadPort(String),
    /// No service-account token file.
    #[error("no service-account token at {SERVICE_ACCOUNT_DIR}/token")]
    NoToken,
}

/// Resolve the in-cluster settings from what [`InClusterInputs`] holds; `namespace` is `-n`.
/// The `namespace` file is not needed (kubectl does not need it either): `-n`, then
/// `POD_NAMESPACE`, then the file, then `default`.
pub fn resolve(i: &InClusterInputs, namespace: Option<&str>) -> Result<InCluster, InClusterError> {
    let nonempty = |v: &Option<String>| {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    let (Some(host), Some(port)) = (nonempty(&i.host), nonempty(&i.port)) else {
        return Err(InClusterError::NoEnvironment);
    };
    let port: u16 = port.parse().map_err(|_| InClusterError::BadPort(port))?;
    if !i.token_file {
        return Err(InClusterError::NoToken);
    }
    let host = match host.parse::<std::net::Ipv6Addr>() {
        Ok(_) => format!("[{host}]"),
        Err(_) => host,
    };
    let url = match port {
        443 => format!("https://{host}"),
        p => format!("https://{host}:{p}"),
    };
    let namespace = namespace
        .map(String::from)
        .or_else(|| nonempty(&i.pod_namespace))
        .or_else(|| nonempty(&i.namespace_file))
        .unwrap_or_else(|| "default".into());
    let ca = i
        .ca_file
        .as_deref()
        .map(super::tls::pem_certificates)
        .unwrap_or_default();
    Ok(InCluster { url, namespace, ca })
}

/// The inputs of this process: its environment and its service-account files.
pub fn inputs() -> InClusterInputs {
    let env = |k: &str| std::env::var(k).ok();
    let file = |n: &str| std::fs::read_to_string(format!("{SERVICE_ACCOUNT_DIR}/{n}")).ok();
    InClusterInputs {
        host: env("KUBERNETES_SERVICE_HOST"),
        port: env("KUBERNETES_SERVICE_PORT"),
        pod_namespace: env("POD_NAMESPACE"),
        namespace_file: file("namespace"),
        ca_file: file("ca.crt"),
        token_file: std::path::Path::new(&format!("{SERVICE_ACCOUNT_DIR}/token")).is_file(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod() -> InClusterInputs {
        InClusterInputs {
            host: Some("10.96.0.1".into()),
            port: Some("443".into()),
            token_file: true,
            ..Default::default()
        }
    }

    #[test]
    fn the_namespace_flag_needs_no_namespace_file() {
        let c = resolve(&pod(), Some("shop")).unwrap();
        assert_eq!(c.url, "https://10.96.0.1");
        assert_eq!(c.namespace, "shop");
    }

    #[test]
    fn namespace_order_is_flag_env_file_default() {
        let mut i = pod();
        assert_eq!(resolve(&i, None).unwrap().namespace, "default");
        i.namespace_file = Some("team-a\n".into());
        assert_eq!(resolve(&i, None).unwrap().namespace, "team-a");
        i.pod_namespace = Some("team-b".into());
        assert_eq!(resolve(&i, None).unwrap().namespace, "team-b");
        assert_eq!(resolve(&i, Some("x")).unwrap().namespace, "x");
    }

    #[test]
    fn urls_bracket_ipv6_and_keep_other_ports() {
        let mut i = pod();
        i.host = Some("fd00::1".into());
        i.port = Some("6443".into());
        assert_eq!(resolve(&i, None).unwrap().url, "https://[fd00::1]:6443");
        i.port = Some("https".into());
        assert_eq!(
            resolve(&i, None),
            Err(InClusterError::BadPort("https".into()))
        );
    }

    #[test]
    fn missing_environment_or_token_is_refused() {
        let mut i = pod();
        i.port = None;
        assert_eq!(resolve(&i, None), Err(InClusterError::NoEnvironment));
        let mut i = pod();
        i.token_file = false;
        assert_eq!(resolve(&i, Some("shop")), Err(InClusterError::NoToken));
    }
}
