//! TLS as kubectl sets it up: `--certificate-authority`, `--client-certificate`,
//! `--client-key`, `--tls-server-name` and `--insecure-skip-tls-verify` over the kubeconfig
//! (client-go's override rules), and TLS failures in words that say what to set.

use std::path::{Path, PathBuf};

use base64::Engine;
use kube::Config;

use super::options::ConnectOptions;

/// Why the TLS flags could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// `--certificate-authority` with `--insecure-skip-tls-verify` (kubectl refuses it too).
    #[error("specifying a root certificates file with the insecure flag is not allowed: pass --certificate-authority or --insecure-skip-tls-verify, not both")]
    CaWithInsecure,
    /// A file named by a flag could not be read.
    #[error("--{flag} {}: cannot read it: {error}", path.display())]
    Unreadable {
        flag: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    /// A file named by a flag holds no PEM block of the expected kind.
    #[error("--{flag} {}: no PEM block in it", path.display())]
    NotPem { flag: &'static str, path: PathBuf },
    /// `--client-certificate` without `--client-key`, or the other way round, with nothing
    /// in the kubeconfig user to pair it with.
    #[error("--{given} needs --{missing} (the kubeconfig user has no {missing} to pair it with)")]
    Unpaired {
        given: &'static str,
        missing: &'static str,
    },
}

/// The DER bytes of every `CERTIFICATE` block of a PEM text.
pub fn pem_certificates(text: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for line in text.lines().map(str::trim) {
        match (&mut block, line) {
            (None, "-----BEGIN CERTIFICATE-----") => block = Some(String::new()),
            (Some(b), "-----END CERTIFICATE-----") => {
                if let Ok(der) = base64::engine::general_purpose::STANDARD.decode(b.as_bytes()) {
                    out.push(der);
                }
                block = None;
            }
            (Some(b), l) => b.push_str(l),
            (None, _) => {}
        }
    }
    out
}

fn read(flag: &'static str, path: &Path) -> Result<String, TlsError> {
    std::fs::read_to_string(path).map_err(|error| TlsError::Unreadable {
        flag,
        path: path.to_path_buf(),
        error,
    })
}

/// A PEM file given by a flag: read, and checked to hold a block whose label contains `kind`.
fn pem_file(flag: &'static str, path: &Path, kind: &str) -> Result<String, TlsError> {
    let text = read(flag, path)?;
    let has = text
        .lines()
        .any(|l| l.starts_with("-----BEGIN ") && l.contains(kind));
    match has {
        true => Ok(text),
        false => Err(TlsError::NotPem {
            flag,
            path: path.to_path_buf(),
        }),
    }
}

/// Apply the TLS flags over the kubeconfig's settings, as client-go merges its overrides:
/// `--certificate-authority` replaces the cluster's CA (file or data) and clears its
/// `insecure-skip-tls-verify`; `--insecure-skip-tls-verify` clears the CA; a client
/// certificate or key flag replaces the user's file and data; `--tls-server-name` (or
/// `--server` alone, which clears it) replaces the cluster's `tls-server-name`.
pub fn apply(config: &mut Config, o: &ConnectOptions) -> Result<(), TlsError> {
    if o.certificate_authority.is_some() && o.insecure_skip_tls_verify {
        return Err(TlsError::CaWithInsecure);
    }
    if let Some(path) = &o.certificate_authority {
        let certs = pem_certificates(&read("certificate-authority", path)?);
        if certs.is_empty() {
            return Err(TlsError::NotPem {
                flag: "certificate-authority",
                path: path.clone(),
            });
        }
        config.root_cert = Some(certs);
        config.root_cert_file = None;
        config.accept_invalid_certs = false;
    }
    if o.insecure_skip_tls_verify {
        config.accept_invalid_certs = true;
        config.root_cert = None;
        config.root_cert_file = None;
    }
    if let Some(path) = &o.client_certificate {
        pem_file("client-certificate", path, "CERTIFICATE")?;
        config.auth_info.client_certificate = Some(path.to_string_lossy().into_owned());
        config.auth_info.client_certificate_data = None;
    }
    if let Some(path) = &o.client_key {
        pem_file("client-key", path, "PRIVATE KEY")?;
        config.auth_info.client_key = Some(path.to_string_lossy().into_owned());
        config.auth_info.client_key_data = None;
    }
    let a = &config.auth_info;
    let has_cert = a.client_certificate.is_some() || a.client_certificate_data.is_some();
    let has_key = a.client_key.is_some() || a.client_key_data.is_some();
    let flagged = o.client_certificate.is_some() || o.client_key.is_some();
    match (has_cert, has_key) {
        _ if !flagged => {}
        (true, false) => Err(TlsError::Unpaired {
            given: "client-certificate",
            missing: "client-key",
        })?,
        (false, true) => Err(TlsError::Unpaired {
            given: "client-key",
            missing: "client-certificate",
        })?,
        _ => {}
    }
    if o.tls_server_name.is_some() || o.server.is_some() {
        config.tls_server_name = o.tls_server_name.clone();
    }
    Ok(())
}

/// Where the kubeconfig's TLS settings live, for messages: `cluster "prod"`, `user "admin"`.
#[derive(Debug, Clone, Default)]
pub struct TlsContext {
    /// The kubeconfig cluster's name (empty: none, e.g. in-cluster or `--server` alone).
    pub cluster: String,
    /// The kubeconfig user's name.
    pub user: String,
    /// The host the certificate is checked against.
    pub host: String,
}

impl TlsContext {
    /// A TLS failure (lower-cased error chain `low`) in words that say what to set, or `None`
    /// when the chain is no TLS failure this knows. Without a kubeconfig cluster or user
    /// (`--server` alone, in-cluster) only the flags are named.
    pub fn explain(&self, low: &str) -> Option<String> {
        if low.contains("unknownissuer") || low.contains("unknown issuer") {
            let set = match self.cluster.is_empty() {
                true => "pass --certificate-authority FILE with the CA that signed it".to_string(),
                false => format!(
                    "set certificate-authority (or certificate-authority-data) of the kubeconfig cluster {:?} to the CA that signed it, or pass --certificate-authority FILE",
                    self.cluster
                ),
            };
            return Some(format!(
                "tls: the server's certificate is signed by an unknown authority: {set}; --insecure-skip-tls-verify skips the check (insecure)"
            ));
        }
        if low.contains("notvalidforname") || low.contains("not valid for name") {
            let set = match self.cluster.is_empty() {
                true => String::new(),
                false => format!(
                    " (or set tls-server-name of the kubeconfig cluster {:?})",
                    self.cluster
                ),
            };
            return Some(format!(
                "tls: the server's certificate is not valid for {:?}: pass --tls-server-name with a name the certificate holds{set}, or use a server URL whose host the certificate names",
                self.host
            ));
        }
        if low.contains("expired") && low.contains("certificate") {
            return Some(
                "tls: the server's certificate has expired (or this machine's clock is wrong)"
                    .into(),
            );
        }
        let client_cert = [
            "certificaterequired",
            "certificate required",
            "badcertificate",
            "bad certificate",
            "unknownca",
            "unknown ca",
        ];
        if low.contains("received fatal alert") && client_cert.iter().any(|m| low.contains(m)) {
            let set = match self.user.is_empty() {
                true => String::new(),
                false => format!(
                    "set client-certificate and client-key of the kubeconfig user {:?}, or ",
                    self.user
                ),
            };
            return Some(format!(
                "tls: the server refused the client certificate (or wants one): {set}pass --client-certificate FILE --client-key FILE"
            ));
        }
        None
    }
}

/// A plain-`http` server with no proxy never shakes hands: give the client an empty trust store
/// rather than let it load the system's (kube loads and parses every certificate of the
/// platform store when a cluster names no CA — about 300 files and 4% of `explain -A`'s CPU
/// per context; `cargo bench --bench fleet`, five contexts). Any TLS setting, an `https`
/// server or a proxy leaves the configuration as it is.
pub fn no_trust_store_for_plain_http(config: &mut Config) {
    let plain = config.cluster_url.scheme_str() == Some("http");
    if plain
        && config.proxy_url.is_none()
        && config.root_cert.is_none()
        && config.root_cert_file.is_none()
        && !config.accept_invalid_certs
    {
        config.root_cert = Some(Vec::new());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_http_server_without_proxy_skips_the_system_trust_store() {
        let plain = || Config::new("http://127.0.0.1:8080".parse().unwrap());
        let mut c = plain();
        no_trust_store_for_plain_http(&mut c);
        assert_eq!(c.root_cert, Some(vec![]), "plain http: an empty store");

        let mut https = Config::new("https://127.0.0.1:6443".parse().unwrap());
        no_trust_store_for_plain_http(&mut https);
        assert_eq!(https.root_cert, None, "https: the system store");

        let mut proxied = plain();
        proxied.proxy_url = Some("https://proxy:3128".parse().unwrap());
        no_trust_store_for_plain_http(&mut proxied);
        assert_eq!(proxied.root_cert, None, "a proxy may speak TLS");

        let mut insecure = plain();
        insecure.accept_invalid_certs = true;
        no_trust_store_for_plain_http(&mut insecure);
        assert_eq!(insecure.root_cert, None);

        let mut own = plain();
        own.root_cert = Some(vec![vec![9]]);
        no_trust_store_for_plain_http(&mut own);
        assert_eq!(own.root_cert, Some(vec![vec![9]]), "its own CA is kept");
    }

    const PEM: &str = "junk\n-----BEGIN CERTIFICATE-----\nAAEC\nAw==\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nBAU=\n-----END CERTIFICATE-----\n";

    #[test]
    fn pem_blocks_are_decoded_in_order() {
        assert_eq!(pem_certificates(PEM), vec![vec![0, 1, 2, 3], vec![4, 5]]);
        assert!(pem_certificates("not a certificate").is_empty());
    }

    fn config() -> Config {
        let mut c = Config::new("https://127.0.0.1:6443".parse().unwrap());
        c.root_cert = Some(vec![vec![9]]);
        c.tls_server_name = Some("from-kubeconfig".into());
        c
    }

    #[test]
    fn ca_flag_replaces_the_kubeconfig_ca_and_insecure_clears_it() {
        let dir = std::env::temp_dir().join(format!("tls-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca = dir.join("ca.crt");
        std::fs::write(&ca, PEM).unwrap();
        let mut c = config();
        c.accept_invalid_certs = true;
        let o = ConnectOptions {
            certificate_authority: Some(ca.clone()),
            ..Default::default()
        };
        apply(&mut c, &o).unwrap();
        assert_eq!(c.root_cert, Some(vec![vec![0, 1, 2, 3], vec![4, 5]]));
        assert!(
            !c.accept_invalid_certs,
            "a CA flag clears the kubeconfig's insecure"
        );
        assert_eq!(c.tls_server_name.as_deref(), Some("from-kubeconfig"));

        let mut c = config();
        let o = ConnectOptions {
            insecure_skip_tls_verify: true,
            ..Default::default()
        };
        apply(&mut c, &o).unwrap();
        assert!(c.accept_invalid_certs && c.root_cert.is_none());

        let both = ConnectOptions {
            certificate_authority: Some(ca),
            insecure_skip_tls_verify: true,
            ..Default::default()
        };
        assert!(matches!(
            apply(&mut config(), &both),
            Err(TlsError::CaWithInsecure)
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn server_flag_alone_clears_the_kubeconfig_tls_server_name() {
        let mut c = config();
        let o = ConnectOptions {
            server: Some("https://10.0.0.1".into()),
            ..Default::default()
        };
        apply(&mut c, &o).unwrap();
        assert_eq!(c.tls_server_name, None);
        let mut c = config();
        let o = ConnectOptions {
            tls_server_name: Some("api.internal".into()),
            ..Default::default()
        };
        apply(&mut c, &o).unwrap();
        assert_eq!(c.tls_server_name.as_deref(), Some("api.internal"));
    }

    #[test]
    fn a_missing_or_unpaired_file_is_named() {
        let o = ConnectOptions {
            certificate_authority: Some("/nonexistent/ca.crt".into()),
            ..Default::default()
        };
        let e = apply(&mut config(), &o).unwrap_err().to_string();
        assert!(
            e.starts_with("--certificate-authority /nonexistent/ca.crt: cannot read it"),
            "{e}"
        );
    }

    #[test]
    fn unknown_authority_names_what_to_set() {
        let t = TlsContext {
            cluster: "prod".into(),
            ..Default::default()
        };
        let w = t
            .explain("client error (connect): invalid peer certificate: unknownissuer")
            .unwrap();
        assert!(w.contains("certificate-authority (or certificate-authority-data) of the kubeconfig cluster \"prod\""), "{w}");
        assert!(
            w.contains("--certificate-authority FILE") && w.contains("--insecure-skip-tls-verify"),
            "{w}"
        );
        assert_eq!(t.explain("connection refused"), None);
    }

    #[test]
    fn without_a_kubeconfig_only_the_flags_are_named() {
        // `--server` alone (or in-cluster): there is no kubeconfig cluster or user to point at.
        let t = TlsContext {
            host: "10.0.0.1".into(),
            ..Default::default()
        };
        let tls = |chain: &str| t.explain(chain).unwrap_or_default();
        let ca = tls("invalid peer certificate: unknownissuer");
        assert!(
            ca.contains("pass --certificate-authority FILE with the CA that signed it"),
            "{ca}"
        );
        let name = tls("invalid peer certificate: notvalidforname");
        assert!(name.contains("pass --tls-server-name"), "{name}");
        let client = tls("received fatal alert: certificaterequired");
        assert!(
            client.ends_with("pass --client-certificate FILE --client-key FILE"),
            "{client}"
        );
        for w in [ca, name, client] {
            assert!(!w.contains("kubeconfig"), "{w}");
        }
    }
}
