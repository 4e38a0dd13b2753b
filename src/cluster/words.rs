//! What a connection prints of itself: URLs without their userinfo, server authorities as
//! kubectl names them, and error chains in one line (classified in [`super::transport`]).

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
}
