//! The web page at `/`: choose or drop files, pick the options the API offers, watch each
//! job, read the result rendered and as source, download it. Static files compiled into the
//! binary (no CDN, nothing fetched at run time); the page reads `openapi.json`, `formats` and
//! `ready` of the server it is served by, so it offers exactly that server's fields.
//!
//! Files (`webui/`): `index.html`, `app.css`, `app.js` (ours) and `marked.js` (marked 18.2.1
//! from npm, MIT, its licence in `marked-LICENSE.txt`, served at `/ui/licenses.txt`). Every
//! answer carries a Content-Security-Policy that allows only this origin (images also as
//! `data:` and `blob:` URLs, which is how results carry them), so nothing in a converted
//! document can load or run anything else. `/docs` (`docs.html`, `webui/docs.{js,css}`) is
//! served the same way.

use super::Shared;
use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::Arc;

const INDEX: &str = include_str!("webui/index.html");
const APP_JS: &str = include_str!("webui/app.js");
const APP_CSS: &str = include_str!("webui/app.css");
const MARKED_JS: &str = include_str!("webui/marked.js");
const LICENSES: &str = include_str!("webui/marked-LICENSE.txt");
const DOCS: &str = include_str!("docs.html");
const DOCS_JS: &str = include_str!("webui/docs.js");
const DOCS_CSS: &str = include_str!("webui/docs.css");

/// Only this origin; images also from `data:` (Markdown output embeds them) and `blob:`
/// (images and downloads fetched with the API key). No inline script or style.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self' data: blob:; connect-src 'self'; form-action 'none'; \
    frame-ancestors 'none'; base-uri 'none'";

/// The routes of the page, at the root (outside `API_PREFIX`).
pub fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/", get(index))
        .route("/ui/app.js", get(|| async { asset(APP_JS, JS) }))
        .route("/ui/app.css", get(|| async { asset(APP_CSS, CSS) }))
        .route("/ui/marked.js", get(|| async { asset(MARKED_JS, JS) }))
        .route("/ui/docs.js", get(|| async { asset(DOCS_JS, JS) }))
        .route("/ui/docs.css", get(|| async { asset(DOCS_CSS, CSS) }))
        .route(
            "/ui/licenses.txt",
            get(|| async { asset(LICENSES, "text/plain; charset=utf-8") }),
        )
}

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// The page, with the API prefix and version of this server written in.
async fn index(State(shared): State<Arc<Shared>>) -> Response {
    let html = INDEX
        .replace("{{API_PREFIX}}", &escape_attr(&shared.config.api_prefix))
        .replace("{{VERSION}}", env!("CARGO_PKG_VERSION"));
    asset(html, "text/html; charset=utf-8")
}

/// The `/docs` page (its script and style are `/ui/docs.js` and `/ui/docs.css`), reading the
/// OpenAPI document at `openapi_url`.
pub fn docs_page(openapi_url: &str) -> Response {
    asset(
        DOCS.replace("{{OPENAPI_URL}}", &escape_attr(openapi_url)),
        "text/html; charset=utf-8",
    )
}

fn asset(body: impl Into<String>, content_type: &'static str) -> Response {
    let mut response = body.into().into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    // Small files compiled into the binary: revalidation is cheap, and a new binary's page is
    // seen at once.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The prefix goes into an HTML attribute value.
fn escape_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_page_and_its_assets_stay_small_and_self_contained() {
        let total = super::INDEX.len()
            + super::APP_JS.len()
            + super::APP_CSS.len()
            + super::MARKED_JS.len();
        assert!(total < 200 * 1024, "the page weighs {total} bytes");
        // Nothing is loaded from elsewhere (the CSP would refuse it too): no other origin in
        // the HTML and CSS, and no script fetches an absolute URL.
        for (name, text) in [
            ("index.html", super::INDEX),
            ("app.css", super::APP_CSS),
            ("docs.html", super::DOCS),
            ("docs.css", super::DOCS_CSS),
        ] {
            assert!(
                !text.contains("http://") && !text.contains("https://"),
                "{name} names another origin"
            );
        }
        for (name, text) in [("app.js", super::APP_JS), ("docs.js", super::DOCS_JS)] {
            assert!(
                !text.contains("fetch('http") && !text.contains("fetch(\"http"),
                "{name} fetches from another origin"
            );
        }
        for page in [super::INDEX, super::DOCS] {
            assert!(!page.contains("<script>"), "no inline script");
            assert!(!page.contains("style="), "no inline style");
        }
    }

    #[test]
    fn the_prefix_cannot_break_out_of_its_attribute() {
        assert_eq!(super::escape_attr("/a\"<b>&"), "/a&quot;&lt;b&gt;&amp;");
    }
}
