//! Bearer-token credentials, as client-go keeps them: a token from `--token` or the
//! kubeconfig, a `tokenFile` (re-read every minute and when the server refuses the token) or an
//! exec credential plugin (run again at its `expirationTimestamp` and when the server refuses
//! the token), so a `--watch` outlives tokens that last minutes.
//!
//! The token is checked before any use: a header value cannot hold a control character, and
//! such a token is refused in words naming where it came from, never echoing it. It is sent
//! only in the `Authorization` header of requests to the API server, marked sensitive.

use std::time::Duration;

use http::HeaderValue;
use jiff::{SignedDuration, Timestamp};
use kube::config::{ExecConfig, ExecInteractiveMode};
use kube::Config;
use serde_json::{json, Value};

/// How often a token file is read again (client-go's cached file token source: one minute).
const FILE_REFRESH: SignedDuration = SignedDuration::from_secs(60);

/// Where the token comes from.
enum Source {
    /// `--token` or the kubeconfig user's `token`: never changes.
    Fixed,
    /// A `tokenFile` (the kubeconfig's, or the in-cluster service-account token).
    File(String),
    /// An exec credential plugin, and the bound of its run.
    Exec(Box<ExecConfig>, Option<Duration>),
}

/// The token in use: its header, a number that changes with it, and when to renew it.
struct Current {
    header: HeaderValue,
    generation: u64,
    renew_at: Option<Timestamp>,
}

/// A connection's bearer token (see the module's documentation).
pub(super) struct Credentials {
    source: Source,
    /// Where the token comes from, for messages: `--token`, `tokenFile /path`...
    label: String,
    current: tokio::sync::Mutex<Current>,
}

/// Take the bearer token out of `config` (kube would send it through a layer that aborts the
/// process on a control character, and never refreshes an exec token without expiry): `None`
/// when the user authenticates otherwise (client certificates, basic auth, an auth provider).
/// `--token` (in `config` already, `from_flag`) wins over every kubeconfig credential. The
/// exec plugin runs here once, bounded by `timeout`.
pub(super) fn take(
    config: &mut Config,
    from_flag: bool,
    user: &str,
    timeout: Option<Duration>,
) -> Result<Option<Credentials>, String> {
    let a = &mut config.auth_info;
    if from_flag {
        (a.auth_provider, a.username, a.password, a.exec) = (None, None, None, None);
    }
    if a.auth_provider.is_some() || (a.username.is_some() && a.password.is_some()) {
        return Ok(None);
    }
    let token = inline_token(a);
    let (source, label, token, renew_at) = if let Some(t) = token {
        let label = match from_flag {
            true => "--token".to_string(),
            false => format!("the kubeconfig token of user {user:?}"),
        };
        (Source::Fixed, label, t, None)
    } else if let Some(exec) = a.exec.clone() {
        let label = format!(
            "the exec plugin {}",
            exec.command.clone().unwrap_or_default()
        );
        let (token, renew_at) = run_plugin(&exec, timeout)?;
        let Some(token) = token else {
            return Ok(None); // client certificates: kube's
        };
        (
            Source::Exec(Box::new(exec), timeout),
            label,
            token,
            renew_at,
        )
    } else if let Some(path) = a.token_file.clone() {
        let label = format!("tokenFile {path}");
        let token = read_file(&path)?;
        let renew_at = Some(Timestamp::now() + FILE_REFRESH);
        (Source::File(path), label, token, renew_at)
    } else {
        return Ok(None);
    };
    (a.token, a.token_file, a.exec) = (None, None, None);
    let header = bearer(&token, &label)?;
    Ok(Some(Credentials {
        source,
        label,
        current: tokio::sync::Mutex::new(Current {
            header,
            generation: 0,
            renew_at,
        }),
    }))
}

/// The kubeconfig user's inline token (kube keeps it as a secret that only its serializer
/// shows); `None` when absent or empty (kubectl sends no empty token).
fn inline_token(a: &kube::config::AuthInfo) -> Option<String> {
    a.token.as_ref()?;
    let v = serde_json::to_value(a).ok()?;
    let t = v.get("token")?.as_str()?;
    (!t.is_empty()).then(|| t.to_string())
}

/// The `Authorization` header of a token, marked sensitive; a token that cannot be a header
/// value is refused in words that do not show it.
pub(super) fn bearer(token: &str, label: &str) -> Result<HeaderValue, String> {
    if let Some((at, c)) = token.chars().enumerate().find(|(_, c)| c.is_control()) {
        return Err(format!(
            "{label}: the token holds a control character (U+{:04X} at character {}); it is not sent (a token is printable text: check how it was copied)",
            c as u32,
            at + 1
        ));
    }
    let mut v = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| format!("{label}: the token cannot be sent in an HTTP header"))?;
    v.set_sensitive(true);
    Ok(v)
}

/// A token file's token, its surrounding whitespace trimmed as kubectl trims it.
fn read_file(path: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("tokenFile {path}: {e}"))?;
    let token = text.trim();
    if token.is_empty() {
        return Err(format!("tokenFile {path}: the file is empty"));
    }
    Ok(token.to_string())
}

impl Credentials {
    /// The header to send and its generation; renewed first when due. A renewal that fails
    /// fails this request only (a token file that cannot be read again keeps the last token,
    /// as client-go keeps it).
    pub(super) async fn header(&self) -> Result<(HeaderValue, u64), String> {
        let mut cur = self.current.lock().await;
        if cur.renew_at.is_some_and(|t| Timestamp::now() >= t) {
            match (self.renew(&mut cur).await, &self.source) {
                (Err(_), Source::File(_)) => cur.renew_at = Some(Timestamp::now() + FILE_REFRESH),
                (Err(e), _) => return Err(e),
                (Ok(_), _) => {}
            }
        }
        Ok((cur.header.clone(), cur.generation))
    }

    /// After the server refused the token of `generation` (401): whether a request is worth
    /// sending again — another request renewed the token meanwhile, or it was renewed now and
    /// changed. A fixed token is never renewed.
    pub(super) async fn renewed_after_refusal(&self, generation: u64) -> bool {
        let mut cur = self.current.lock().await;
        if cur.generation != generation {
            return true;
        }
        matches!(self.renew(&mut cur).await, Ok(true))
    }

    /// Read the token again from its source; whether it changed.
    async fn renew(&self, cur: &mut Current) -> Result<bool, String> {
        let (token, renew_at) = match &self.source {
            Source::Fixed => return Ok(false),
            Source::File(path) => {
                let t = read_file(path)?;
                (t, Some(Timestamp::now() + FILE_REFRESH))
            }
            Source::Exec(exec, timeout) => {
                let (exec, timeout) = (exec.clone(), *timeout);
                let answer = tokio::task::spawn_blocking(move || run_plugin(&exec, timeout))
                    .await
                    .map_err(|e| format!("{}: {e}", self.label))??;
                match answer {
                    (Some(t), renew_at) => (t, renew_at),
                    (None, _) => return Err(format!("{}: the answer holds no token", self.label)),
                }
            }
        };
        let header = bearer(&token, &self.label)?;
        cur.renew_at = renew_at;
        if header == cur.header {
            return Ok(false);
        }
        cur.header = header;
        cur.generation += 1;
        Ok(true)
    }
}

/// Run a kubeconfig user's exec credential plugin: its token (`None` when it answers with
/// client certificates instead) and its `expirationTimestamp`. Interactive only when stdin is
/// a terminal and the plugin allows it; bounded by `timeout`; failures in kubectl's words,
/// never with the plugin's environment or output.
fn run_plugin(
    exec: &ExecConfig,
    timeout: Option<Duration>,
) -> Result<(Option<String>, Option<Timestamp>), String> {
    use std::io::IsTerminal;
    use std::process::{Command, Stdio};
    let cmd = exec.command.clone().unwrap_or_default();
    if cmd.is_empty() {
        return Err("exec: the kubeconfig user's exec has no command".into());
    }
    let interactive = std::io::stdin().is_terminal()
        && !matches!(exec.interactive_mode, Some(ExecInteractiveMode::Never));
    let api = exec
        .api_version
        .clone()
        .unwrap_or_else(|| "client.authentication.k8s.io/v1beta1".into());
    let info =
        json!({"apiVersion": api, "kind": "ExecCredential", "spec": {"interactive": interactive}});
    let mut c = Command::new(&cmd);
    c.args(exec.args.iter().flatten())
        .env("KUBERNETES_EXEC_INFO", info.to_string())
        .stdin(match interactive {
            true => Stdio::inherit(),
            false => Stdio::null(),
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for e in exec.env.iter().flatten() {
        if let (Some(n), Some(v)) = (e.get("name"), e.get("value")) {
            c.env(n, v);
        }
    }
    let hint = exec
        .install_hint
        .as_deref()
        .map(|h| format!("; {}", h.trim().replace('\n', " ")))
        .unwrap_or_default();
    let child = c.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("exec: executable {cmd} not found{hint}"),
        _ => format!("exec: executable {cmd} could not be started: {e}"),
    })?;
    let out = wait_bounded(child, timeout).map_err(|e| format!("exec: executable {cmd}: {e}"))?;
    if !out.status.success() {
        let code = out
            .status
            .code()
            .map_or("a signal".into(), |c| c.to_string());
        return Err(format!(
            "exec: executable {cmd} failed with exit code {code}"
        ));
    }
    let cred: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "exec: executable {cmd}: its output is not an ExecCredential (JSON error at line {} column {})",
            e.line(),
            e.column()
        )
    })?;
    let expiry = match cred.pointer("/status/expirationTimestamp") {
        Some(Value::String(t)) => Some(t.parse::<Timestamp>().map_err(|_| {
            format!("exec: executable {cmd}: status.expirationTimestamp is not an RFC 3339 time")
        })?),
        _ => None,
    };
    let token = cred.pointer("/status/token").and_then(Value::as_str);
    Ok((token.map(String::from), expiry))
}

/// The output of a child process that must end within `timeout` (killed otherwise).
fn wait_bounded(
    mut child: std::process::Child,
    timeout: Option<Duration>,
) -> Result<std::process::Output, String> {
    let start = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return child.wait_with_output().map_err(|e| e.to_string()),
            Ok(None) if timeout.is_some_and(|t| start.elapsed() >= t) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err("no credential within --request-timeout".into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::bearer;

    #[test]
    fn a_token_with_a_control_character_is_refused_without_showing_it() {
        for t in [
            "ab\u{1}SEKRIT",
            "SEKRIT\r\n",
            "x\u{7f}SEKRIT",
            "\u{85}SEKRIT",
            "a\tSEKRIT",
        ] {
            let e = bearer(t, "--token").unwrap_err();
            assert!(
                e.starts_with("--token: the token holds a control character"),
                "{e}"
            );
            assert!(!e.contains("SEKRIT"), "{e}");
        }
        let v = bearer("abc.def-ghi_~+/=", "--token").unwrap();
        assert!(v.is_sensitive());
        assert_eq!(v.to_str().unwrap(), "Bearer abc.def-ghi_~+/=");
    }
}
