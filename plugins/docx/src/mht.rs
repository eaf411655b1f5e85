//! MHT (MIME HTML, `multipart/related`) altChunk parts: the HTML part taken out of the MIME
//! container, so the host's HTML converter can read it. Only the first `text/html` part is
//! kept (its pictures, other parts of the container, are not resolved).

use base64::Engine as _;

/// The decoded first `text/html` part when `bytes` is a MIME multipart message; `None`
/// otherwise (the bytes are handed on as they are).
pub(crate) fn html_of(bytes: &[u8]) -> Option<Vec<u8>> {
    let text = String::from_utf8_lossy(bytes.get(..bytes.len().min(64 << 20))?);
    let (head, body) = split_head(&text)?;
    let head_l = head.to_ascii_lowercase();
    if !head_l.contains("multipart/") {
        return None;
    }
    let boundary = param(head, "boundary")?;
    let delimiter = format!("--{boundary}");
    for part in body.split(delimiter.as_str()).skip(1) {
        if part.starts_with("--") {
            break;
        }
        let Some((h, b)) = split_head(part.trim_start_matches(['\r', '\n'])) else {
            continue;
        };
        let hl = h.to_ascii_lowercase();
        if !header(&hl, "content-type").is_some_and(|v| v.starts_with("text/html")) {
            continue;
        }
        let b = b.trim_end_matches(['\r', '\n']);
        return Some(match header(&hl, "content-transfer-encoding").as_deref() {
            Some("base64") => {
                let clean: Vec<u8> = b.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
                base64::engine::general_purpose::STANDARD
                    .decode(clean)
                    .ok()?
            }
            Some("quoted-printable") => quoted_printable(b),
            _ => b.as_bytes().to_vec(),
        });
    }
    None
}

/// Headers and body, split at the first empty line.
fn split_head(s: &str) -> Option<(&str, &str)> {
    let crlf = s.find("\r\n\r\n").map(|i| (i, 4));
    let lf = s.find("\n\n").map(|i| (i, 2));
    let (i, n) = match (crlf, lf) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    Some((&s[..i], &s[i + n..]))
}

/// A header's value (lower-cased headers in), folded lines joined, up to its first `;`.
fn header(head_lower: &str, name: &str) -> Option<String> {
    let unfolded = head_lower
        .replace("\r\n", "\n")
        .replace("\n ", " ")
        .replace("\n\t", " ");
    unfolded.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == name).then(|| v.split(';').next().unwrap_or("").trim().to_owned())
    })
}

/// A parameter (`boundary="..."`) of the headers, case kept.
fn param<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    let lower = head.to_ascii_lowercase();
    let at = lower.find(&format!("{name}="))? + name.len() + 1;
    let rest = &head[at..];
    let value = if let Some(r) = rest.strip_prefix('"') {
        &r[..r.find('"')?]
    } else {
        rest.split(|c: char| c == ';' || c.is_whitespace()).next()?
    };
    (!value.is_empty()).then_some(value)
}

fn quoted_printable(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'=' {
            if b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') {
                i += 3;
                continue;
            }
            if b.get(i + 1) == Some(&b'\n') {
                i += 2;
                continue;
            }
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::html_of;

    #[test]
    fn the_html_part_of_an_mht_is_taken_out() {
        let mht = "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=\"----=_NextPart_01\"\r\n\r\n------=_NextPart_01\r\nContent-Type: text/html; charset=\"utf-8\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<html><body><h1 class=3D\"t\">Title</h1><p>Caf=C3=A9 te=\r\nxt</p></body></html>\r\n------=_NextPart_01--\r\n";
        let html = String::from_utf8(html_of(mht.as_bytes()).expect("html part")).unwrap();
        assert_eq!(
            html,
            "<html><body><h1 class=\"t\">Title</h1><p>Café text</p></body></html>"
        );
        assert!(html_of(b"<html><body>plain</body></html>").is_none());
    }
}
