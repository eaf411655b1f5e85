//! Link targets as the reader would follow them.
//!
//! Saved search-result pages wrap every result in a click-tracking redirect; the address the
//! user actually cares about is inside it. Bing (`/ck/a?...&u=a1<base64url>`) and Google
//! (`/url?q=<percent-encoded>`) are unwrapped, as markitdown does for Bing pages. Script
//! pseudo-links are dropped.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// The href to keep for a link, or `None` when it is not a link worth keeping.
pub fn clean_href(raw: &str) -> Option<String> {
    let href = raw.trim();
    if href.is_empty() || starts_with_ignore_case(href, "javascript:") {
        return None;
    }
    match unwrap_redirect(href) {
        Unwrapped::NotRedirect => Some(href.to_owned()),
        Unwrapped::Target(target) => clean_href(&target),
    }
}

enum Unwrapped {
    NotRedirect,
    Target(String),
}

fn unwrap_redirect(href: &str) -> Unwrapped {
    let Some((full, query)) = href.split_once('?') else {
        return Unwrapped::NotRedirect;
    };
    let path = full
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    if let Some(host) = full
        .strip_suffix("/ck/a")
        .filter(|_| path.ends_with("bing.com/ck/a"))
    {
        let target = param(query, "u")
            .and_then(|u| u.strip_prefix("a1").map(str::to_owned))
            .and_then(|e| URL_SAFE_NO_PAD.decode(e.trim_end_matches('=')).ok())
            .and_then(|bytes| String::from_utf8(bytes).ok());
        return match target {
            // A Bing-internal address ("/search?q=..."): resolve against the redirect's host.
            Some(t) if t.starts_with('/') && !t.starts_with("//") => {
                Unwrapped::Target(format!("{host}{t}"))
            }
            Some(t) => Unwrapped::Target(t),
            None => Unwrapped::NotRedirect,
        };
    }
    if path == "/url" || path.ends_with("google.com/url") {
        if let Some(q) = param(query, "q").or_else(|| param(query, "url")) {
            let target = percent_decode(&q);
            if is_web_address(&target) {
                return Unwrapped::Target(target);
            }
        }
    }
    Unwrapped::NotRedirect
}

fn param(query: &str, name: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
}

fn is_web_address(s: &str) -> bool {
    starts_with_ignore_case(s, "https://") || starts_with_ignore_case(s, "http://")
}

fn starts_with_ignore_case(s: &str, prefix: &str) -> bool {
    s.get(..prefix.len())
        .is_some_and(|h| h.eq_ignore_ascii_case(prefix))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                match u8::from_str_radix(s.get(i + 1..i + 3).unwrap_or("zz"), 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwraps_search_redirects() {
        let target = "https://en.wikipedia.org/wiki/Microsoft";
        let bing = format!(
            "https://www.bing.com/ck/a?!&&p=abc&ptn=3&u=a1{}&ntb=1",
            URL_SAFE_NO_PAD.encode(target)
        );
        assert_eq!(clean_href(&bing).as_deref(), Some(target));
        let internal = format!(
            "https://www.bing.com/ck/a?!&&p=abc&u=a1{}&ntb=1",
            URL_SAFE_NO_PAD.encode("/search?q=duck")
        );
        assert_eq!(
            clean_href(&internal).as_deref(),
            Some("https://www.bing.com/search?q=duck")
        );
        assert_eq!(
            clean_href("/url?q=https://example.com/a%3Fb%3D1&sa=U").as_deref(),
            Some("https://example.com/a?b=1")
        );
        assert_eq!(
            clean_href("https://www.bing.com/ck/a?u=zz").as_deref(),
            Some("https://www.bing.com/ck/a?u=zz")
        );
        assert_eq!(clean_href(" javascript:void(0)"), None);
        let js = format!(
            "https://www.bing.com/ck/a?u=a1{}",
            URL_SAFE_NO_PAD.encode("javascript:void(0)")
        );
        assert_eq!(clean_href(&js), None);
        assert_eq!(clean_href("/url?q=%"), Some("/url?q=%".into()));
        assert_eq!(clean_href("#top").as_deref(), Some("#top"));
    }
}
