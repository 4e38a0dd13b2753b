//! The connection flags, as kubectl names them, and what they give the cluster layer.

use std::path::PathBuf;

use clap::Args;

use super::request_timeout_value;

/// Connection flags, as kubectl names them.
#[derive(Debug, Clone, Args, Default)]
pub struct KubeFlags {
    /// Path to the kubeconfig file to use
    #[arg(long, global = true, help_heading = "Connection", value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The name of the kubeconfig context to use; repeat it for the fleet overview of several
    /// contexts (explain without --watch)
    #[arg(
        long,
        global = true,
        help_heading = "Connection",
        value_name = "CONTEXT"
    )]
    pub context: Vec<String>,
    /// The name of the kubeconfig cluster to use
    #[arg(long, global = true, help_heading = "Connection")]
    pub cluster: Option<String>,
    /// The name of the kubeconfig user to use
    #[arg(long, global = true, help_heading = "Connection")]
    pub user: Option<String>,
    /// The namespace scope for this request
    #[arg(short = 'n', long, global = true)]
    pub namespace: Option<String>,
    /// Every namespace
    #[arg(short = 'A', long = "all-namespaces", global = true)]
    pub all_namespaces: bool,
    /// Username to impersonate for the operation
    #[arg(
        long = "as",
        global = true,
        help_heading = "Connection",
        value_name = "USER"
    )]
    pub as_user: Option<String>,
    /// Group to impersonate for the operation (repeatable)
    #[arg(long, global = true, help_heading = "Connection", value_name = "GROUP")]
    pub as_group: Vec<String>,
    /// The length of time to wait before giving up on a single server request (e.g. 1s, 2m; 0 = no timeout; default: none, with --watch about the sync period)
    #[arg(long = "request-timeout", global = true, help_heading = "Connection", value_name = "DURATION", value_parser = request_timeout_value)]
    pub request_timeout: Option<std::time::Duration>,
    /// The address and port of the Kubernetes API server (over the kubeconfig's)
    #[arg(
        short = 's',
        long,
        global = true,
        help_heading = "Connection",
        value_name = "URL"
    )]
    pub server: Option<String>,
    /// Bearer token for authentication to the API server (over the kubeconfig user's)
    #[arg(long, global = true, help_heading = "Connection", value_name = "TOKEN")]
    pub token: Option<String>,
    /// Do not check the server's certificate (insecure)
    #[arg(long, global = true, help_heading = "Connection")]
    pub insecure_skip_tls_verify: bool,
    /// Path to a cert file for the certificate authority (over the kubeconfig cluster's)
    #[arg(long, global = true, help_heading = "Connection", value_name = "FILE")]
    pub certificate_authority: Option<PathBuf>,
    /// Path to a client certificate file for TLS (over the kubeconfig user's)
    #[arg(long, global = true, help_heading = "Connection", value_name = "FILE")]
    pub client_certificate: Option<PathBuf>,
    /// Path to a client key file for TLS (over the kubeconfig user's)
    #[arg(long, global = true, help_heading = "Connection", value_name = "FILE")]
    pub client_key: Option<PathBuf>,
    /// Server name to use for server certificate validation (default: the server URL's host)
    #[arg(long, global = true, help_heading = "Connection", value_name = "NAME")]
    pub tls_server_name: Option<String>,
    /// Log level: 6 or more writes each API request (method, URL, status, time) to stderr
    #[arg(
        short = 'v',
        long = "v",
        global = true,
        help_heading = "Connection",
        value_name = "LEVEL",
        default_value_t = 0
    )]
    pub verbosity: u8,
    /// Every context of the kubeconfig: the fleet overview of each (explain without --watch)
    #[arg(long = "all-contexts", global = true, help_heading = "Connection")]
    pub all_contexts: bool,
    /// No progress on stderr while fetching from the cluster (it is shown only on a terminal,
    /// only once a fetch has taken a second, and never with -o json|yaml)
    #[arg(long, global = true, help_heading = "Connection")]
    pub quiet: bool,
}

/// The one resolution of kubectl's connection flags into the cluster layer's plain options.
impl From<&KubeFlags> for crate::cluster::ConnectOptions {
    fn from(f: &KubeFlags) -> Self {
        crate::cluster::ConnectOptions {
            kubeconfig: f.kubeconfig.clone(),
            context: f.context.last().cloned(),
            cluster: f.cluster.clone(),
            user: f.user.clone(),
            namespace: f.namespace.clone(),
            as_user: f.as_user.clone(),
            as_group: f.as_group.clone(),
            request_timeout: f.request_timeout,
            default_request_timeout: None,
            server: f.server.clone(),
            token: f.token.clone(),
            certificate_authority: f.certificate_authority.clone(),
            client_certificate: f.client_certificate.clone(),
            client_key: f.client_key.clone(),
            tls_server_name: f.tls_server_name.clone(),
            insecure_skip_tls_verify: f.insecure_skip_tls_verify,
            verbosity: f.verbosity,
        }
    }
}

impl KubeFlags {
    /// The cluster layer's options for these flags.
    pub fn connect_options(&self) -> crate::cluster::ConnectOptions {
        self.into()
    }

    /// Several contexts asked for: `--context` given with more than one name, or
    /// `--all-contexts`.
    pub fn several_contexts(&self) -> bool {
        self.all_contexts || self.distinct_contexts().len() > 1
    }

    /// The `--context` names in the order given, each once.
    pub fn distinct_contexts(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in &self.context {
            if !out.contains(c) {
                out.push(c.clone());
            }
        }
        out
    }

    /// Commands that read one cluster refuse several contexts (a usage error, exit 2):
    /// `what` names the command.
    pub fn refuse_several_contexts(&self, what: &str) -> Result<(), super::UsageError> {
        if !self.several_contexts() {
            return Ok(());
        }
        let flag = match self.all_contexts {
            true => "--all-contexts".to_string(),
            false => format!("--context given {} times", self.distinct_contexts().len()),
        };
        Err(super::UsageError(format!(
            "{flag}: {what} reads one context; only explain (without --watch) reads several: give one --context"
        )))
    }
}
