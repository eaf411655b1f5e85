//! The web page at `/`: served from the binary with its own assets, a Content-Security-Policy
//! that allows only this origin, and the API prefix of this server written in. (What the page
//! does in a browser is tested by `tests/browser/run.sh`.)

use crate::support::*;

#[tokio::test]
async fn the_page_and_its_assets_are_served_from_this_origin_only() {
    let mut s = TestServer::start_with(
        StoreKind::Embedded,
        |c| c.api_prefix = "/convert/v2".into(),
        1,
    )
    .await;
    let r = s.client.get(s.url("/")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(
        r.headers()["content-type"].to_str().unwrap(),
        "text/html; charset=utf-8"
    );
    let html = r.text().await.unwrap();
    assert!(
        html.contains(r#"<meta name="quire-api" content="/convert/v2">"#),
        "the page names this server's prefix"
    );
    let mut total = html.len();
    for (path, kind) in [
        ("/ui/app.js", "text/javascript"),
        ("/ui/marked.js", "text/javascript"),
        ("/ui/app.css", "text/css"),
        ("/ui/licenses.txt", "text/plain"),
    ] {
        assert!(
            path == "/ui/licenses.txt" || html.contains(path),
            "the page loads {path}"
        );
        let r = s.client.get(s.url(path)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert!(
            r.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with(kind),
            "{path}"
        );
        assert_eq!(r.headers()["x-content-type-options"], "nosniff");
        let body = r.text().await.unwrap();
        if path != "/ui/licenses.txt" {
            total += body.len();
        }
    }
    assert!(total < 200 * 1024, "the page weighs {total} bytes");
    // /docs is served the same way and reads this server's OpenAPI document.
    let r = s.client.get(s.url("/docs")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["content-security-policy"].to_str().unwrap(),
        csp
    );
    let html = r.text().await.unwrap();
    assert!(html.contains("/convert/v2/openapi.json") && html.contains("/ui/docs.js"));
    for path in ["/ui/docs.js", "/ui/docs.css"] {
        let r = s.client.get(s.url(path)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
    }
    // The API's own answers are unchanged: an unknown path is still the contract's 404.
    let r = s.client.get(s.url("/ui/nope.js")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(
        r.json::<serde_json::Value>().await.unwrap()["detail"],
        "Not Found"
    );
    s.stop().await;
}
