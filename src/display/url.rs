//! URLs as they are shown: never with their userinfo.

/// A URL with its userinfo (`user:password@`) replaced by `***@`, for every message and log
/// line that shows it (the URL itself is used unchanged).
pub fn mask_userinfo(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (format!("{s}://"), r),
        None => (String::new(), url),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => format!("{scheme}***@{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}
