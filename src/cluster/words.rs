//! What a connection prints of itself: URLs without their userinfo, and transport failures in
//! kubectl's words rather than the Rust error chain behind them.

use std::time::Duration;

use super::conn::Failure;

/// The wait before sending again a request whose connection was reset or closed unanswered.
const RESET_BACKOFF: Duration = Duration::from_millis(200);

pub use crate::display::url::mask_userinfo;

/// The `host:port` of a URL as kubectl names the server (`127.0.0.1:6443`; the host alone
/// when the URL has no port), without userinfo.
pub fn authority(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let auth = &rest[..end];
    auth.rfind('@')
        .map_or(auth, |at| &auth[at + 1..])
        .to_string()
}

/// The messages of an error and of its sources, outermost first.
pub fn chain(e: &dyn std::error::Error) -> Vec<String> {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        parts.push(s.to_string());
        cur = s.source();
    }
    parts
}

/// The chain in one line, a level left out when an outer one already says it.
pub fn joined(parts: &[String]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for p in parts {
        if !out.iter().any(|o| o.contains(p.as_str())) {
            out.push(p);
        }
    }
    out.join(": ")
}

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
pub fn transport(parts: &[String], server: &str) -> (Failure, Option<Duration>) {
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
    fn userinfo_is_masked_and_the_rest_kept() {
        assert_eq!(
            mask_userinfo("https://alice:pw@example.com:6443/x?a=b@c"),
            "https://***@example.com:6443/x?a=b@c"
        );
        assert_eq!(mask_userinfo("http://tok@10.0.0.1"), "http://***@10.0.0.1");
        assert_eq!(
            mask_userinfo("https://example.com/a@b"),
            "https://example.com/a@b"
        );
        assert_eq!(
            authority("https://a:b@example.com:6443/p"),
            "example.com:6443"
        );
        assert_eq!(authority("https://example.com"), "example.com");
        assert_eq!(authority("http://[::1]:8080"), "[::1]:8080");
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
            transport(&refused, "http://h:1").0,
            Failure::Refused
        ));
        let dns = parts(&[
            "ServiceError: client error (Connect)",
            "client error (Connect)",
            "dns error",
            "failed to lookup address information: Name or service not known",
        ]);
        let Failure::Unreachable(m) = transport(&dns, "https://nosuch.example:6443").0 else {
            panic!("dns")
        };
        assert_eq!(m, "cannot resolve the host name nosuch.example: failed to lookup address information: Name or service not known");
        let reset = parts(&[
            "ServiceError: client error (SendRequest)",
            "client error (SendRequest)",
            "connection closed before message completed",
        ]);
        let (f, hint) = transport(&reset, "http://h:1");
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
        let Failure::Other(m) = transport(&odd, "http://h:1").0 else {
            panic!("odd")
        };
        assert_eq!(m, "odd");
    }
}
