//! How to connect, as plain values: kubectl's connection flags (no clap type in this layer).

use std::path::PathBuf;
use std::time::Duration;

/// How to connect: kubectl's connection flags as plain values (no clap type in this layer).
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// `--kubeconfig` (else `KUBECONFIG`, else `~/.kube/config`).
    pub kubeconfig: Option<PathBuf>,
    /// `--context`, `--cluster`, `--user`: names in the kubeconfig.
    pub context: Option<String>,
    pub cluster: Option<String>,
    pub user: Option<String>,
    /// `-n`: over the context's (or the service account's) namespace.
    pub namespace: Option<String>,
    /// `--as`, `--as-group`: impersonation.
    pub as_user: Option<String>,
    pub as_group: Vec<String>,
    /// `--request-timeout`, resolved by the command line: zero = no timeout; `None` when not
    /// given.
    pub request_timeout: Option<Duration>,
    /// The timeout of each request when `--request-timeout` is not given (`--watch`: about
    /// the sync period); `None`: no timeout, as kubectl.
    pub default_request_timeout: Option<DefaultTimeout>,
    /// `--server`/`-s`: the API server's URL, over the kubeconfig's.
    pub server: Option<String>,
    /// `--token`: a bearer token, over the kubeconfig user's credentials.
    pub token: Option<String>,
    /// `--certificate-authority`: a PEM file of CA certificates, over the kubeconfig
    /// cluster's CA (file or data) and its `insecure-skip-tls-verify`.
    pub certificate_authority: Option<PathBuf>,
    /// `--client-certificate`, `--client-key`: PEM files, over the kubeconfig user's
    /// (file or data).
    pub client_certificate: Option<PathBuf>,
    pub client_key: Option<PathBuf>,
    /// `--tls-server-name`: the name the server's certificate is checked against (and sent
    /// as SNI), over the kubeconfig cluster's; `--server` alone clears the kubeconfig's.
    pub tls_server_name: Option<String>,
    /// `--insecure-skip-tls-verify`: the server's certificate is not checked.
    pub insecure_skip_tls_verify: bool,
    /// `-v`: at 6 or more, each request is written to stderr (method, URL, status, time).
    pub verbosity: u8,
}

/// A command's own timeout for each request, used when `--request-timeout` is not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultTimeout {
    pub after: Duration,
    /// What it is, for messages: `one sync period`.
    pub what: &'static str,
}

impl ConnectOptions {
    /// These options with `after` for each request unless `--request-timeout` was given;
    /// `what` names it in a timeout's message (`one sync period`).
    pub fn with_default_timeout(mut self, after: Duration, what: &'static str) -> ConnectOptions {
        self.default_request_timeout = Some(DefaultTimeout { after, what });
        self
    }

    /// Whether the options name a kubeconfig, context, cluster or user.
    pub fn names_a_cluster(&self) -> bool {
        self.kubeconfig.is_some()
            || self.context.is_some()
            || self.cluster.is_some()
            || self.user.is_some()
    }
}
