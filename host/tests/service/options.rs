//! Issue 14, per-job options and image modes, black-box over real HTTP on both stores:
//! `image_mode` (embedded, referenced with its images endpoint and zip bundle, placeholder,
//! none), `pages`, `password` (PDF and DOCX, right and wrong), `force_ocr`, `ocr_language`,
//! their 422s, and the password's secrecy: in no log line (of `quire serve`, of a
//! `quire worker` in another process on Redis, of their conversion children), no job field and
//! no store key or value once the job has ended.
//!
//! Fixtures: `host/tests/fixtures/options/`, made by `scripts/make-option-fixtures.sh`.

use crate::both_stores;
use crate::faults::remote;
use crate::support::*;
use serde_json::{json, Value};
use std::io::Read;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);
const PASSWORD: &str = "Quire-opt-7391-secret";

fn fixture(name: &str) -> Vec<u8> {
    let path = quire_testkit::workspace()
        .join("host/tests/fixtures/options")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A Markdown document with one picture (a 4x3 PNG as a `data:` URI) between two paragraphs.
fn markdown_with_picture() -> (Vec<u8>, Vec<u8>) {
    use base64::Engine as _;
    let img = image::RgbImage::from_fn(4, 3, |x, y| image::Rgb([x as u8 * 60, y as u8 * 80, 9]));
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&png);
    let md = format!(
        "# Harbour report\n\nBefore the picture.\n\n![A red lighthouse](data:image/png;base64,{b64})\n\nAfter the picture.\n"
    );
    (md.into_bytes(), png)
}

async fn post(s: &TestServer, parts: &[FormPart<'_>]) -> (u16, Value) {
    let r = s.post_form(parts).await;
    let status = r.status().as_u16();
    let body = r.text().await.unwrap();
    (
        status,
        serde_json::from_str(&body).unwrap_or(Value::String(body)),
    )
}

async fn run(s: &TestServer, parts: &[FormPart<'_>]) -> Value {
    let (status, job) = post(s, parts).await;
    assert_eq!(status, 202, "{job}");
    s.wait_final(job["id"].as_str().unwrap(), WAIT).await
}

async fn result(s: &TestServer, id: &str) -> String {
    s.get_text(&s.url(&format!("/api/v1/jobs/{id}/result")))
        .await
}

/// A Markdown text, or a JSON result without the top-level `images` map.
fn no_image_map(text: &str) -> bool {
    serde_json::from_str::<Value>(text).map_or(true, |v| v.get("images").is_none())
}

/// The `images/<name>` link targets of a Markdown text.
fn image_links(md: &str) -> Vec<String> {
    md.match_indices("](images/")
        .map(|(i, _)| {
            let rest = &md[i + 2..];
            rest[..rest.find(')').unwrap()].to_string()
        })
        .collect()
}

both_stores!(
    image_modes_shape_markdown_json_and_their_files,
    |kind| async move {
        let mut s = TestServer::start(kind).await;
        let (md, png) = markdown_with_picture();
        let file = || FormPart::file("file", "harbour report.md", &md);

        // Default: the contract's base64, and no image_mode in the job.
        let job = run(&s, &[file(), FormPart::text("output_format", "md")]).await;
        assert_eq!(job["status"], "completed", "{job}");
        assert!(job.get("image_mode").is_none(), "{job}");
        let id = job["id"].as_str().unwrap();
        assert!(result(&s, id).await.contains("](data:image/png;base64,"));

        // embedded, sent explicitly: the same output, and echoed.
        let job = run(
            &s,
            &[
                file(),
                FormPart::text("output_format", "md"),
                FormPart::text("image_mode", "embedded"),
            ],
        )
        .await;
        assert_eq!(job["image_mode"], "embedded");
        assert!(result(&s, job["id"].as_str().unwrap())
            .await
            .contains("](data:image/png;base64,"));

        // referenced: links, the images endpoint and the zip.
        let job = run(
            &s,
            &[
                file(),
                FormPart::text("output_format", "md"),
                FormPart::text("image_mode", "referenced"),
            ],
        )
        .await;
        assert_eq!(job["status"], "completed", "{job}");
        assert_eq!(job["image_mode"], "referenced");
        let id = job["id"].as_str().unwrap().to_string();
        let text = result(&s, &id).await;
        assert!(!text.contains("base64"), "{text}");
        let links = image_links(&text);
        assert_eq!(links.len(), 1, "{text}");
        assert!(text.contains("![A red lighthouse](images/"), "{text}");
        let r = s.get(&format!("/api/v1/jobs/{id}/{}", links[0])).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], "image/png");
        assert_eq!(r.bytes().await.unwrap().as_ref(), png.as_slice());
        for bad in [
            "nothere.png",
            "..%2F..%2Fetc%2Fpasswd",
            ".hidden.png",
            "x.txt",
        ] {
            let r = s.get(&format!("/api/v1/jobs/{id}/images/{bad}")).await;
            assert_eq!(r.status(), 404, "{bad}");
        }
        let r = s.get(&format!("/api/v1/jobs/{id}/result?bundle=zip")).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], "application/zip");
        assert!(r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("harbour report.zip"));
        let bytes = r.bytes().await.unwrap().to_vec();
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
        let mut inner = String::new();
        zip.by_name("harbour report.md")
            .expect("the result in the zip")
            .read_to_string(&mut inner)
            .unwrap();
        assert_eq!(inner, text);
        for link in image_links(&inner) {
            let mut data = Vec::new();
            zip.by_name(&link)
                .unwrap_or_else(|_| panic!("{link} resolves inside the zip"))
                .read_to_end(&mut data)
                .unwrap();
            assert_eq!(data, png);
        }
        let r = s.get(&format!("/api/v1/jobs/{id}/result?bundle=tar")).await;
        assert_eq!(r.status(), 422);

        // referenced JSON: links in the text, no images map; the files are served the same way.
        let job = run(
            &s,
            &[
                file(),
                FormPart::text("output_format", "json"),
                FormPart::text("image_mode", "referenced"),
            ],
        )
        .await;
        let id = job["id"].as_str().unwrap().to_string();
        let v: Value = serde_json::from_str(&result(&s, &id).await).unwrap();
        assert!(v.get("images").is_none(), "{v}");
        assert!(v.to_string().contains("](images/"), "{v}");
        // Embedded JSON keeps the contract's map.
        let job = run(&s, &[file(), FormPart::text("output_format", "json")]).await;
        let v: Value =
            serde_json::from_str(&result(&s, job["id"].as_str().unwrap()).await).unwrap();
        assert!(v["images"].as_object().is_some_and(|m| m.len() == 1), "{v}");

        // placeholder and none, in both formats.
        for format in ["md", "json"] {
            let job = run(
                &s,
                &[
                    file(),
                    FormPart::text("output_format", format),
                    FormPart::text("image_mode", "placeholder"),
                ],
            )
            .await;
            let text = result(&s, job["id"].as_str().unwrap()).await;
            assert!(text.contains("<!-- image: A red lighthouse -->"), "{text}");
            assert!(!text.contains("base64") && no_image_map(&text), "{text}");
            let job = run(
                &s,
                &[
                    file(),
                    FormPart::text("output_format", format),
                    FormPart::text("image_mode", "none"),
                ],
            )
            .await;
            assert_eq!(job["image_mode"], "none");
            let text = result(&s, job["id"].as_str().unwrap()).await;
            assert!(text.contains("Before the picture") && text.contains("After the picture"));
            assert!(
                !text.contains("lighthouse") && no_image_map(&text),
                "{text}"
            );
            assert!(
                !text.contains("\n\n\n"),
                "no gap where the image was: {text:?}"
            );
        }
        // The images folder goes with the job.
        let r = s
            .client
            .delete(s.url(&format!("/api/v1/jobs/{id}")))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 204);
        assert!(files_in(&s.config.output_dir)
            .iter()
            .all(|f| !f.starts_with(&id)));
        s.stop().await;
    }
);

both_stores!(options_are_validated_with_422, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let pdf = fixture("pages.pdf");
    let txt = b"plain text".to_vec();
    let cases: Vec<(Vec<FormPart<'_>>, &str)> = vec![
        (vec![FormPart::text("image_mode", "inline")], "image_mode"),
        (vec![FormPart::text("pages", "3-1")], "pages"),
        (vec![FormPart::text("pages", "0")], "pages"),
        (vec![FormPart::text("pages", "a-b")], "pages"),
        (vec![FormPart::text("force_ocr", "true")], "force_ocr"),
        (vec![FormPart::text("force_ocr", "maybe")], "force_ocr"),
        (vec![FormPart::text("ocr_language", "de")], "ocr_language"),
        (
            vec![
                FormPart::text("use_ocr", "true"),
                FormPart::text("ocr_language", "en;rm -rf"),
            ],
            "ocr_language",
        ),
        (
            vec![
                FormPart::text("use_ocr", "true"),
                FormPart::text("ocr_provider", "provider_two"),
                FormPart::text("ocr_language", "ru"),
            ],
            "ocr_language",
        ),
        (
            vec![
                FormPart::text("use_ocr", "true"),
                FormPart::text("ocr_language", "qqq"),
            ],
            "ocr_language",
        ),
        (vec![FormPart::text("password", "")], "password"),
    ];
    for (extra, field) in cases {
        let mut parts = vec![
            FormPart::file("file", "doc.pdf", &pdf),
            FormPart::text("output_format", "md"),
        ];
        parts.extend(extra);
        let (status, body) = post(&s, &parts).await;
        assert_eq!(status, 422, "{field}: {body}");
        let detail = body["detail"].as_array().unwrap();
        assert!(
            detail.iter().any(|e| e["loc"][1] == field),
            "{field}: {body}"
        );
    }
    // pages and password apply to their types only.
    for (field, value) in [("pages", "1"), ("password", "x")] {
        let (status, body) = post(
            &s,
            &[
                FormPart::file("file", "notes.txt", &txt),
                FormPart::text("output_format", "md"),
                FormPart::text(field, value),
            ],
        )
        .await;
        assert_eq!(status, 422, "{body}");
        assert_eq!(body["detail"][0]["loc"][1], field, "{body}");
    }
    // A refused password is never echoed.
    let long = format!("{PASSWORD}{}", "x".repeat(2000));
    let (status, body) = post(
        &s,
        &[
            FormPart::file("file", "doc.pdf", &pdf),
            FormPart::text("output_format", "md"),
            FormPart::text("password", &long),
        ],
    )
    .await;
    assert_eq!(status, 422);
    assert!(!body.to_string().contains(PASSWORD), "{body}");
    // Nothing was stored for any of them.
    assert!(files_in(&s.config.upload_dir)
        .iter()
        .all(|f| f.starts_with(".ready")));
    s.stop().await;
});

both_stores!(pages_convert_only_the_chosen_pages, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let pdf = fixture("pages.pdf");
    let job = run(
        &s,
        &[
            FormPart::file("file", "three.pdf", &pdf),
            FormPart::text("output_format", "md"),
            FormPart::text("pages", "3, 2, 9-12"),
        ],
    )
    .await;
    assert_eq!(job["status"], "completed", "{job}");
    assert_eq!(job["pages"], "2-3,9-12");
    let md = result(&s, job["id"].as_str().unwrap()).await;
    assert!(
        !md.contains("alpha") && !md.contains("<!-- Page 1 -->"),
        "{md}"
    );
    assert!(
        md.contains("<!-- Page 2 -->") && md.contains("bravo"),
        "{md}"
    );
    assert!(
        md.contains("<!-- Page 3 -->") && md.contains("charlie"),
        "{md}"
    );

    let job = run(
        &s,
        &[
            FormPart::file("file", "three.pdf", &pdf),
            FormPart::text("output_format", "json"),
            FormPart::text("pages", "2"),
        ],
    )
    .await;
    let v: Value = serde_json::from_str(&result(&s, job["id"].as_str().unwrap()).await).unwrap();
    assert_eq!(v["content"]["total_pages"], 3, "{v}");
    assert_eq!(v["document"]["metadata"]["num_pages"], 3, "{v}");
    let pages = v["content"]["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0]["page_number"], 2);
    assert!(pages[0]["text"].as_str().unwrap().contains("bravo"));

    // None of them exists: refused at upload (the page count is read there).
    let (status, body) = post(
        &s,
        &[
            FormPart::file("file", "three.pdf", &pdf),
            FormPart::text("output_format", "md"),
            FormPart::text("pages", "7-9"),
        ],
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["loc"], json!(["body", "pages"]), "{body}");
    assert_eq!(
        body["detail"][0]["msg"],
        "The document has 3 pages; none of the requested pages (7-9) exists",
        "{body}"
    );
    // Without pages the job does not show the field.
    let job = run(
        &s,
        &[
            FormPart::file("file", "three.pdf", &pdf),
            FormPart::text("output_format", "md"),
        ],
    )
    .await;
    assert!(job.get("pages").is_none(), "{job}");
    assert!(result(&s, job["id"].as_str().unwrap())
        .await
        .contains("alpha"));
    s.stop().await;
});

both_stores!(force_ocr_reads_pages_from_their_image, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let pdf = fixture("layered.pdf");
    // OCR on, not forced: the page has a text layer, which is what is read.
    let job = run(
        &s,
        &[
            FormPart::file("file", "layered.pdf", &pdf),
            FormPart::text("output_format", "md"),
            FormPart::text("use_ocr", "true"),
        ],
    )
    .await;
    assert_eq!(job["status"], "completed", "{job}");
    let md = result(&s, job["id"].as_str().unwrap()).await;
    assert!(md.contains("quokka"), "{md}");
    // Forced: the picture is read, the text layer ignored; languages echoed normalised.
    let job = run(
        &s,
        &[
            FormPart::file("file", "layered.pdf", &pdf),
            FormPart::text("output_format", "md"),
            FormPart::text("use_ocr", "true"),
            FormPart::text("force_ocr", "yes"),
            FormPart::text("ocr_language", " EN "),
        ],
    )
    .await;
    assert_eq!(job["status"], "completed", "{job}");
    assert_eq!(job["force_ocr"], true);
    assert_eq!(job["ocr_language"], "en");
    let md = result(&s, job["id"].as_str().unwrap()).await;
    assert!(!md.contains("quokka"), "{md}");
    assert!(md.contains("lighthouse"), "{md}");
    s.stop().await;
});

/// A `quire serve` / `quire worker` process whose every output line (its log, and what its
/// conversion children write) is kept, with the environment of `faults::spawn`.
struct Logged {
    child: std::process::Child,
    addr: Option<String>,
    lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn_logged(sub: &str, dir: &std::path::Path, env: &[(&str, String)]) -> Logged {
    use std::io::BufRead;
    use std::process::Stdio;
    let mut cmd = crate::faults::quire_command(sub, dir, "debug", env);
    cmd.stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn quire");
    let lines: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let l = lines.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(i) = line.find("listening on http://") {
                let rest = &line[i + "listening on http://".len()..];
                let _ = tx.send(
                    rest.chars()
                        .take_while(|c| !c.is_whitespace() && *c != '"')
                        .collect(),
                );
            }
            l.lock().unwrap().push(line);
        }
    });
    let l = lines.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            l.lock().unwrap().push(line);
        }
    });
    let addr = (sub == "serve").then(|| {
        rx.recv_timeout(Duration::from_secs(30))
            .expect("quire serve announces its address")
    });
    Logged { child, addr, lines }
}

/// Every value under a Redis key, as text (hash fields and values, list and set members).
async fn redis_values(con: &mut redis::aio::MultiplexedConnection, key: &str) -> Vec<String> {
    let kind: String = redis::cmd("TYPE").arg(key).query_async(con).await.unwrap();
    let cmd = match kind.as_str() {
        "string" => redis::cmd("GET").arg(key).clone(),
        "hash" => redis::cmd("HGETALL").arg(key).clone(),
        "list" => redis::cmd("LRANGE").arg(key).arg(0).arg(-1).clone(),
        "set" => redis::cmd("SMEMBERS").arg(key).clone(),
        "zset" => redis::cmd("ZRANGE").arg(key).arg(0).arg(-1).clone(),
        "none" => return Vec::new(),
        other => panic!("unexpected type {other} of {key}"),
    };
    match cmd.query_async::<redis::Value>(con).await.unwrap() {
        redis::Value::Nil => Vec::new(),
        v => vec![format!("{v:?}")],
    }
}

both_stores!(
    a_password_opens_pdf_and_docx_and_is_kept_nowhere,
    |kind| async move {
        let dir = tempfile::tempdir().unwrap();
        let config = test_config(kind, dir.path());
        let mut env: Vec<(&str, String)> = vec![("WORKERS", "1".into())];
        if let Some(url) = &config.redis_url {
            env.push(("REDIS_URL", url.clone()));
            env.push(("REDIS_KEY_PREFIX", config.redis_key_prefix.clone()));
        }
        // On Redis the conversions run in a `quire worker` of its own; the API runs none.
        let mut worker = None;
        if kind == StoreKind::Redis {
            worker = Some(spawn_logged("worker", dir.path(), &env));
            env[0].1 = "0".into();
        }
        let serve = spawn_logged("serve", dir.path(), &env);
        let addr = serve.addr.clone().unwrap();
        let s = remote(&addr, dir, config.clone());
        let pdf = fixture("encrypted.pdf");
        let docx = fixture("encrypted.docx");
        let mut ids = Vec::new();
        for (name, bytes, expect) in [
            ("secret.pdf", &pdf, "Secret page 2 says bravo"),
            (
                "secret.docx",
                &docx,
                "The quarterly figures are confidential.",
            ),
        ] {
            let job = run(
                &s,
                &[
                    FormPart::file("file", name, bytes),
                    FormPart::text("output_format", "md"),
                    FormPart::text("password", PASSWORD),
                ],
            )
            .await;
            assert_eq!(job["status"], "completed", "{name}: {job}");
            assert!(job.get("password").is_none());
            assert!(!job.to_string().contains(PASSWORD), "{job}");
            let id = job["id"].as_str().unwrap().to_string();
            assert!(result(&s, &id).await.contains(expect), "{name}");
            ids.push(id);
            // A wrong password fails clearly; none fails as before (encrypted, no password).
            let job = run(
                &s,
                &[
                    FormPart::file("file", name, bytes),
                    FormPart::text("output_format", "md"),
                    FormPart::text("password", "not-the-password"),
                ],
            )
            .await;
            assert_eq!(job["status"], "failed", "{job}");
            let msg = job["error_message"].as_str().unwrap();
            assert!(
                msg.starts_with("The password given does not open this"),
                "{msg}"
            );
            ids.push(job["id"].as_str().unwrap().to_string());
            let job = run(
                &s,
                &[
                    FormPart::file("file", name, bytes),
                    FormPart::text("output_format", "md"),
                ],
            )
            .await;
            assert_eq!(job["status"], "failed", "{job}");
            assert_eq!(job["metadata"]["error_kind"], "encrypted", "{job}");
        }
        for id in &ids {
            let text = s.get_text(&s.url(&format!("/api/v1/jobs/{id}"))).await;
            assert!(!text.contains(PASSWORD) && !text.contains("not-the-password"));
        }
        // The store: no key, no value holds it once the jobs ended; no secret record is left.
        if let Some(_url) = &config.redis_url {
            let client = redis::Client::open(REDIS_URL).unwrap();
            let mut con = client.get_multiplexed_async_connection().await.unwrap();
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(format!("{}*", config.redis_key_prefix))
                .query_async(&mut con)
                .await
                .unwrap();
            assert!(!keys.is_empty());
            for key in &keys {
                assert!(
                    !key.contains(PASSWORD) && !key.contains(":secret:"),
                    "{key}"
                );
                for value in redis_values(&mut con, key).await {
                    assert!(!value.contains(PASSWORD), "{key}: {value}");
                }
            }
        }
        let logs: Vec<String> = serve
            .lines
            .lock()
            .unwrap()
            .iter()
            .chain(
                worker
                    .as_ref()
                    .map(|w| w.lines.lock().unwrap().clone())
                    .unwrap_or_default()
                    .iter(),
            )
            .cloned()
            .collect();
        assert!(
            logs.iter().any(|l| l.contains("job finished")),
            "the logs were captured: {} lines",
            logs.len()
        );
        for line in &logs {
            assert!(
                !line.contains(PASSWORD) && !line.contains("not-the-password"),
                "{line}"
            );
        }
        drop(serve);
        drop(worker);
        // Embedded: the password never reaches the database file.
        if kind == StoreKind::Embedded {
            let db = std::fs::read(s.dir.path().join("data/quire.redb")).unwrap();
            assert!(!db.windows(PASSWORD.len()).any(|w| w == PASSWORD.as_bytes()));
        } else {
            redis_cleanup(&config.redis_key_prefix).await;
        }
    }
);

/// A presentation of three slides, each with one title ("Slide one" …), built in code.
fn three_slides() -> Vec<u8> {
    use std::io::Write;
    const P: &str = r#"xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
    const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    let rels = |list: &[(&str, &str, &str)]| {
        let mut s = String::from(
            r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#,
        );
        for (id, kind, target) in list {
            s.push_str(&format!(
                r#"<Relationship Id="{id}" Type="{REL}/{kind}" Target="{target}"/>"#
            ));
        }
        s + "</Relationships>"
    };
    let slide = |title: &str| {
        format!(
            r#"<p:sld {P}><p:cSld><p:spTree><p:nvGrpSpPr/><p:grpSpPr/><p:sp><p:nvSpPr><p:cNvPr id="2" name="t"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>{title}</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>"#
        )
    };
    let pres = format!(
        r#"<p:presentation {P}><p:sldIdLst><p:sldId id="256" r:id="r1"/><p:sldId id="257" r:id="r2"/><p:sldId id="258" r:id="r3"/></p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/></p:presentation>"#
    );
    let entries: Vec<(String, String)> = vec![
        (
            "[Content_Types].xml".into(),
            r#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>"#.into(),
        ),
        (
            "_rels/.rels".into(),
            rels(&[("r1", "officeDocument", "ppt/presentation.xml")]),
        ),
        ("ppt/presentation.xml".into(), pres),
        (
            "ppt/_rels/presentation.xml.rels".into(),
            rels(&[
                ("r1", "slide", "slides/slide1.xml"),
                ("r2", "slide", "slides/slide2.xml"),
                ("r3", "slide", "slides/slide3.xml"),
            ]),
        ),
        ("ppt/slides/slide1.xml".into(), slide("Slide one")),
        ("ppt/slides/slide2.xml".into(), slide("Slide two")),
        ("ppt/slides/slide3.xml".into(), slide("Slide three")),
    ];
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in &entries {
        w.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(data.as_bytes()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

both_stores!(pages_choose_slides_of_a_presentation, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let pptx = three_slides();
    let job = run(
        &s,
        &[
            FormPart::file("file", "deck.pptx", &pptx),
            FormPart::text("output_format", "json"),
            FormPart::text("pages", "1,3"),
        ],
    )
    .await;
    assert_eq!(job["status"], "completed", "{job}");
    let v: Value = serde_json::from_str(&result(&s, job["id"].as_str().unwrap()).await).unwrap();
    assert_eq!(v["content"]["total_slides"], 3, "{v}");
    assert_eq!(v["document"]["metadata"]["num_slides"], 3, "{v}");
    let numbers: Vec<&Value> = v["content"]["slides"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["slide_number"])
        .collect();
    assert_eq!(numbers, [1, 3]);
    let job = run(
        &s,
        &[
            FormPart::file("file", "deck.pptx", &pptx),
            FormPart::text("output_format", "md"),
            FormPart::text("pages", "2"),
        ],
    )
    .await;
    let md = result(&s, job["id"].as_str().unwrap()).await;
    assert!(
        md.starts_with("<!-- Slide 2 -->") && md.contains("Slide two"),
        "{md}"
    );
    assert!(
        !md.contains("Slide one") && !md.contains("Slide three"),
        "{md}"
    );
    s.stop().await;
});

both_stores!(
    pages_naming_no_page_are_refused_at_upload,
    |kind| async move {
        let mut s = TestServer::start(kind).await;
        // In memory (small) and streamed to a file (past the stores' inline limit), PDF and PPTX.
        let small_pdf = fixture("pages.pdf");
        let big_pdf = padded_pdf(&small_pdf, 300_000);
        let small_pptx = three_slides();
        let big_pptx = three_slides_padded(300_000);
        let cases: [(&str, &[u8], &str); 4] = [
            ("three.pdf", &small_pdf, "pages"),
            ("three.pdf", &big_pdf, "pages"),
            ("deck.pptx", &small_pptx, "slides"),
            ("deck.pptx", &big_pptx, "slides"),
        ];
        for (name, bytes, noun) in cases {
            for pages in ["4", "4-", "9,12-20"] {
                let (status, body) = post(
                    &s,
                    &[
                        FormPart::file("file", name, bytes),
                        FormPart::text("output_format", "md"),
                        FormPart::text("pages", pages),
                    ],
                )
                .await;
                assert_eq!(
                    status,
                    422,
                    "{name} {} B, pages {pages}: {body}",
                    bytes.len()
                );
                let msg = body["detail"][0]["msg"].as_str().unwrap();
                assert!(
                    msg.starts_with(&format!(
                        "The document has 3 {noun}; none of the requested {noun}"
                    )),
                    "{msg}"
                );
            }
            // One existing page among missing ones is accepted and converts that page.
            let job = run(
                &s,
                &[
                    FormPart::file("file", name, bytes),
                    FormPart::text("output_format", "md"),
                    FormPart::text("pages", "3-9"),
                ],
            )
            .await;
            assert_eq!(job["status"], "completed", "{name}: {job}");
            let md = result(&s, job["id"].as_str().unwrap()).await;
            assert!(
                md.contains("charlie") || md.contains("Slide three"),
                "{name}: {md}"
            );
        }
        // Nothing of a refused upload is left in the upload folder.
        let left = files_in(&s.config.upload_dir);
        assert!(left.iter().all(|n| !n.ends_with(".part")), "{left:?}");
        s.stop().await;
    }
);

/// [`three_slides`] with an extra, incompressible media part of `pad` bytes.
fn three_slides_padded(pad: usize) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new_append(std::io::Cursor::new(three_slides())).unwrap();
    w.start_file(
        "ppt/media/pad.bin",
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored),
    )
    .unwrap();
    let mut x: u32 = 7;
    let data: Vec<u8> = (0..pad)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) as u8
        })
        .collect();
    w.write_all(&data).unwrap();
    w.finish().unwrap().into_inner()
}

/// Embedded store: the password lives in the process's memory only, so a job still waiting
/// when `quire serve` restarts cannot be opened any more; it fails saying so (and the
/// password was never on disk).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_does_not_outlive_an_embedded_restart() {
    use crate::faults::spawn;
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(StoreKind::Embedded, dir.path());
    let mut one = spawn("serve", dir.path(), &[("WORKERS", "0".to_string())]);
    let s = remote(one.addr.as_deref().unwrap(), dir, config.clone());
    let pdf = fixture("encrypted.pdf");
    let (status, job) = post(
        &s,
        &[
            FormPart::file("file", "secret.pdf", &pdf),
            FormPart::text("output_format", "md"),
            FormPart::text("password", PASSWORD),
        ],
    )
    .await;
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    one.kill9();
    let _two = spawn("serve", s.dir.path(), &[("WORKERS", "1".to_string())]);
    let s = remote(_two.addr.as_deref().unwrap(), s.dir, config);
    let job = s.wait_final(&id, WAIT).await;
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(job["metadata"]["error_kind"], "encrypted", "{job}");
    assert!(
        job["error_message"]
            .as_str()
            .unwrap()
            .starts_with("The password of this job is no longer kept"),
        "{job}"
    );
    let db = std::fs::read(s.dir.path().join("data/quire.redb")).unwrap();
    assert!(!db.windows(PASSWORD.len()).any(|w| w == PASSWORD.as_bytes()));
}
