//! The HTTP contract: statuses, headers, bodies.

use crate::both_stores;
use crate::support::*;
use serde_json::Value;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

both_stores!(create_answers_202_with_location, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let r = s
        .post_form(&[
            FormPart::file("file", "notes.txt", b"hello world"),
            FormPart::text("output_format", "md"),
            FormPart::text("webhook_url", "http://example.com/hook"),
        ])
        .await;
    assert_eq!(r.status(), 202);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let job: Value = r.json().await.unwrap();
    let id = job["id"].as_str().unwrap();
    assert!(uuid::Uuid::parse_str(id).is_ok());
    assert_eq!(location, format!("/api/v1/jobs/{id}"));
    assert_eq!(job["status"], "pending");
    assert_eq!(job["progress"], 0);
    assert_eq!(job["file_name"], "notes.txt");
    assert_eq!(job["output_format"], "md");
    assert_eq!(job["use_ocr"], false);
    assert_eq!(job["webhook_url"], "http://example.com/hook");
    assert!(job.get("ocr_provider").is_none());
    assert!(job.get("completed_at").is_none());
    assert!(job["created_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(job["created_at"], job["updated_at"]);
    s.stop().await;
});

both_stores!(job_completes_and_result_downloads, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let md = s
        .create(
            "Report (final).txt",
            b"First line\n\nSecond paragraph",
            "md",
        )
        .await;
    let json = s.create("data.txt", b"Some text", "json").await;
    let job = s.wait_final(&md, WAIT).await;
    assert_eq!(job["status"], "completed", "{job}");
    assert_eq!(job["progress"], 100);
    assert!(job["completed_at"].as_str().is_some());
    assert!(job.get("error_message").is_none());
    let meta = &job["metadata"];
    assert_eq!(meta["detected_mime"], "text/plain");
    assert_eq!(meta["converter"], "text");
    assert_eq!(meta["input_bytes"], 28);
    assert!(meta["output_bytes"].as_u64().unwrap() > 0);
    assert!(meta["duration_ms"].is_u64());
    let r = s.get(&format!("/api/v1/jobs/{md}/result")).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/markdown; charset=utf-8");
    assert_eq!(
        r.headers()["content-disposition"],
        "attachment; filename=\"Report (final).md\""
    );
    let text = r.text().await.unwrap();
    assert!(text.contains("Second paragraph"), "{text}");

    let job = s.wait_final(&json, WAIT).await;
    assert_eq!(job["status"], "completed");
    let r = s.get(&format!("/api/v1/jobs/{json}/result")).await;
    assert_eq!(
        r.headers()["content-type"],
        "application/json; charset=utf-8"
    );
    assert_eq!(
        r.headers()["content-disposition"],
        "attachment; filename=\"data.json\""
    );
    let doc: Value = r.json().await.unwrap();
    assert_eq!(doc["document"]["filename"], "data.txt");
    assert_eq!(doc["content"]["type"], "structured_document");
    s.stop().await;
});

both_stores!(
    small_uploads_stay_in_the_store_large_ones_on_disk,
    |kind| async move {
        let mut s = TestServer::start(kind).await;
        let small = b"A small upload.\n".to_vec();
        let limit = 64 * 1024;
        // Just over the stores' inline limit: it spills to UPLOAD_DIR while streaming.
        let large: Vec<u8> = b"word ".iter().copied().cycle().take(limit + 1).collect();
        let at_limit: Vec<u8> = b"text ".iter().copied().cycle().take(limit).collect();
        let a = s.create("small.txt", &small, "md").await;
        let b = s.create("large.txt", &large, "md").await;
        let c = s.create("limit.txt", &at_limit, "md").await;
        for (id, bytes) in [(&a, small.len()), (&b, large.len()), (&c, at_limit.len())] {
            let job = s.wait_final(id, WAIT).await;
            assert_eq!(job["status"], "completed", "{job}");
            assert_eq!(job["metadata"]["input_bytes"], bytes as u64);
            let text = s
                .get_text(&s.url(&format!("/api/v1/jobs/{id}/result")))
                .await;
            assert!(text.len() + 16 >= bytes, "{} of {bytes}", text.len());
        }
        // Small files never touched the disk, on either store (Redis keeps them under their
        // own key since issue 16); the large one did.
        assert_eq!(files_in(&s.config.upload_dir), vec![b.clone()]);
        s.stop().await;
    }
);

both_stores!(non_ascii_names_get_an_rfc5987_filename, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let id = s
        .create("Übersicht (Q1) 'draft'.md", b"# Title\n\nBody", "md")
        .await;
    s.wait_final(&id, WAIT).await;
    let r = s.get(&format!("/api/v1/jobs/{id}/result")).await;
    assert_eq!(
        r.headers()["content-disposition"].to_str().unwrap(),
        "attachment; filename=\"_bersicht (Q1) 'draft'.md\"; filename*=UTF-8''%C3%9Cbersicht%20%28Q1%29%20%27draft%27.md"
    );
    s.stop().await;
});

both_stores!(
    a_backslash_name_downloads_keeping_its_base_name,
    |kind| async move {
        let mut s = TestServer::start(kind).await;
        // `back\slash.txt` is a legal Unix file name, not a path: the result is `back\slash.md`.
        let id = s.create("back\\slash.txt", b"Plain text.\n", "md").await;
        let job = s.wait_final(&id, WAIT).await;
        assert_eq!(job["status"], "completed", "{job}");
        assert_eq!(job["file_name"], "back\\slash.txt", "{job}");
        let r = s.get(&format!("/api/v1/jobs/{id}/result")).await;
        assert_eq!(r.status(), 200);
        assert_eq!(
            r.headers()["content-disposition"].to_str().unwrap(),
            "attachment; filename=\"back_slash.md\"; filename*=UTF-8''back%5Cslash.md"
        );
        s.stop().await;
    }
);

fn details(v: &Value) -> Vec<(String, String, String)> {
    v["detail"]
        .as_array()
        .expect("detail array")
        .iter()
        .map(|d| {
            assert_eq!(d["loc"][0], "body");
            (
                d["loc"][1].as_str().unwrap().to_string(),
                d["type"].as_str().unwrap().to_string(),
                d["msg"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

both_stores!(invalid_fields_answer_422_detail_arrays, |kind| async move {
    let mut s = TestServer::start(kind).await;
    // Nothing at all.
    let r = s.post_form(&[]).await;
    assert_eq!(r.status(), 422);
    let d = details(&r.json().await.unwrap());
    assert!(
        d.contains(&("file".into(), "missing".into(), "Field required".into())),
        "{d:?}"
    );
    assert!(d.contains(&(
        "output_format".into(),
        "missing".into(),
        "Field required".into()
    )));
    // Not multipart at all.
    let r = s
        .client
        .post(s.url("/api/v1/jobs"))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 422);
    // Every field wrong at once.
    let r = s
        .post_form(&[
            FormPart::file("file", "a.txt", b"hi"),
            FormPart::text("output_format", "pdf"),
            FormPart::text("use_ocr", "maybe"),
            FormPart::text("ocr_provider", "provider_nine"),
            FormPart::text("webhook_url", "ftp://example.com"),
        ])
        .await;
    assert_eq!(r.status(), 422);
    let d = details(&r.json().await.unwrap());
    let fields: Vec<&str> = d.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(
        fields,
        ["output_format", "use_ocr", "ocr_provider", "webhook_url"],
        "{d:?}"
    );
    assert!(d[0].2.contains("'md', 'json' or 'chunks'"));
    // An empty webhook_url is not a URL (the OpenAPI document's `format: uri`).
    let r = s
        .post_form(&[
            FormPart::file("file", "a.txt", b"hi"),
            FormPart::text("output_format", "md"),
            FormPart::text("webhook_url", ""),
        ])
        .await;
    assert_eq!(r.status(), 422);
    assert_eq!(details(&r.json().await.unwrap())[0].0, "webhook_url");
    // Empty file.
    let r = s
        .post_form(&[
            FormPart::file("file", "a.txt", b""),
            FormPart::text("output_format", "md"),
        ])
        .await;
    assert_eq!(r.status(), 422);
    assert_eq!(details(&r.json().await.unwrap())[0].0, "file");
    // provider_three without an API key.
    let r = s
        .post_form(&[
            FormPart::file("file", "a.txt", b"hi"),
            FormPart::text("output_format", "md"),
            FormPart::text("use_ocr", "true"),
            FormPart::text("ocr_provider", "provider_three"),
        ])
        .await;
    assert_eq!(r.status(), 422);
    let d = details(&r.json().await.unwrap());
    assert_eq!(d[0].0, "ocr_provider");
    // Unknown fields are named, not ignored.
    let r = s
        .post_form(&[
            FormPart::file("file", "a.txt", b"hi"),
            FormPart::text("output_format", "md"),
            FormPart::text("language", "de"),
            FormPart::text("colour", "blue"),
        ])
        .await;
    assert_eq!(r.status(), 422);
    let d = details(&r.json().await.unwrap());
    let fields: Vec<&str> = d.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(fields, ["language", "colour"], "{d:?}");
    assert!(d[0].2.contains("output_format"), "{d:?}");
    // A second file is refused, not silently dropped.
    let r = s
        .post_form(&[
            FormPart::file("file", "a.txt", b"hi"),
            FormPart::file("file", "b.txt", b"there"),
            FormPart::text("output_format", "md"),
        ])
        .await;
    assert_eq!(r.status(), 422);
    let d = details(&r.json().await.unwrap());
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "file");
    assert!(d[0].2.contains("one file"), "{d:?}");
    // Nothing was kept.
    assert!(
        files_in(&s.config.upload_dir).is_empty(),
        "{:?}",
        files_in(&s.config.upload_dir)
    );
    s.stop().await;
});

both_stores!(use_ocr_accepts_common_spellings, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let registry = quire::registry::Registry::from_inventory().unwrap();
    let has_one = registry
        .ocr_providers()
        .iter()
        .any(|p| p.id == "provider_one");
    for value in ["TRUE", "1", "yes", "On"] {
        let r = s
            .post_form(&[
                FormPart::file("file", "a.txt", b"hi"),
                FormPart::text("output_format", "md"),
                FormPart::text("use_ocr", value),
            ])
            .await;
        if has_one {
            assert_eq!(r.status(), 202);
            let job: Value = r.json().await.unwrap();
            assert_eq!(job["use_ocr"], true);
            assert_eq!(job["ocr_provider"], "provider_one");
        } else {
            assert_eq!(
                r.status(),
                422,
                "provider_one is compiled out: must be refused"
            );
            let d = details(&r.json().await.unwrap());
            assert!(d[0].2.contains("not built"), "{d:?}");
        }
    }
    for value in ["false", "0", "NO", "off"] {
        let r = s
            .post_form(&[
                FormPart::file("file", "a.txt", b"hi"),
                FormPart::text("output_format", "md"),
                FormPart::text("use_ocr", value),
            ])
            .await;
        assert_eq!(r.status(), 202);
        let job: Value = r.json().await.unwrap();
        assert_eq!(job["use_ocr"], false);
    }
    s.stop().await;
});

both_stores!(
    unsupported_types_answer_415_and_store_nothing,
    |kind| async move {
        let mut s = TestServer::start(kind).await;
        let garbage: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        let r = s
            .post_form(&[
                FormPart::file("file", "movie.mp4", &garbage),
                FormPart::text("output_format", "md"),
            ])
            .await;
        assert_eq!(r.status(), 415);
        let v: Value = r.json().await.unwrap();
        let text = v["detail"].as_str().unwrap();
        assert!(text.starts_with("Unsupported file type: "), "{text}");
        assert!(text.contains(". Supported: "), "{text}");
        assert!(text.contains("TXT"), "{text}");
        assert!(files_in(&s.config.upload_dir).is_empty());
        let depth = s.get("/metrics").await.text().await.unwrap();
        assert!(depth.contains("quire_jobs_created_total 0"), "{depth}");
        s.stop().await;
    }
);

both_stores!(
    oversized_uploads_answer_413_while_streaming,
    |kind| async move {
        let mut s = TestServer::start_with(kind, |c| c.max_file_size = 1024 * 1024, 1).await;
        let big = vec![b'a'; 3 * 1024 * 1024];
        let r = s
            .post_form(&[
                FormPart::text("output_format", "md"),
                FormPart::file("file", "big.txt", &big),
            ])
            .await;
        assert_eq!(r.status(), 413);
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["detail"], "File too large. Maximum size is 1MB");
        assert!(files_in(&s.config.upload_dir).is_empty());
        // Exactly the limit is fine.
        let ok = vec![b'a'; 1024 * 1024];
        let r = s
            .post_form(&[
                FormPart::text("output_format", "md"),
                FormPart::file("file", "ok.txt", &ok),
            ])
            .await;
        assert_eq!(r.status(), 202);
        s.stop().await;
    }
);

both_stores!(
    errors_for_unknown_jobs_and_unfinished_results,
    |kind| async move {
        let mut s = TestServer::start(kind).await;
        for path in [
            "/api/v1/jobs/00000000-0000-4000-8000-000000000000",
            "/api/v1/jobs/not-a-uuid",
            "/api/v1/jobs/00000000-0000-4000-8000-000000000000/result",
        ] {
            let r = s.client.get(s.url(path)).send().await.unwrap();
            assert_eq!(r.status(), 404, "{path}");
            assert_eq!(r.json::<Value>().await.unwrap()["detail"], "Job not found");
        }
        // Still running: 400.
        let slow = s.create("slow.txt", b"QUIRE-FAULT:slow:3000", "md").await;
        let r = s.get(&format!("/api/v1/jobs/{slow}/result")).await;
        assert_eq!(r.status(), 400);
        assert_eq!(
            r.json::<Value>().await.unwrap()["detail"],
            "Job is not completed yet"
        );
        // Failed: 400 with the reason.
        let bad = s.create("bad.txt", b"QUIRE-FAULT:panic", "md").await;
        let job = s.wait_final(&bad, WAIT).await;
        assert_eq!(job["status"], "failed");
        let r = s.get(&format!("/api/v1/jobs/{bad}/result")).await;
        assert_eq!(r.status(), 400);
        let detail = r.json::<Value>().await.unwrap()["detail"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(
            detail,
            format!("Job failed: {}", job["error_message"].as_str().unwrap())
        );
        // Completed but the file is gone: 404 "Result file not found".
        s.wait_final(&slow, WAIT).await;
        std::fs::remove_file(s.config.output_dir.join(format!("{slow}.md"))).unwrap();
        let r = s.get(&format!("/api/v1/jobs/{slow}/result")).await;
        assert_eq!(r.status(), 404);
        assert_eq!(
            r.json::<Value>().await.unwrap()["detail"],
            "Result file not found"
        );
        s.stop().await;
    }
);

both_stores!(delete_removes_job_and_files, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let id = s.create("a.txt", b"hello", "md").await;
    s.wait_final(&id, WAIT).await;
    assert!(!files_in(&s.config.output_dir).is_empty());
    let r = s
        .client
        .delete(s.url(&format!("/api/v1/jobs/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    let r = s.get(&format!("/api/v1/jobs/{id}")).await;
    assert_eq!(r.status(), 404);
    let r = s
        .client
        .delete(s.url(&format!("/api/v1/jobs/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert!(files_in(&s.config.upload_dir).is_empty());
    assert!(files_in(&s.config.output_dir).is_empty());
    s.stop().await;
});

both_stores!(
    progress_only_rises_and_states_only_advance,
    |kind| async move {
        let mut s = TestServer::start(kind).await;
        let id = s.create("slow.txt", b"QUIRE-FAULT:slow:2000", "json").await;
        let mut seen: Vec<(String, u64)> = Vec::new();
        let start = std::time::Instant::now();
        loop {
            let job = s.job(&id).await;
            let status = job["status"].as_str().unwrap().to_string();
            let progress = job["progress"].as_u64().unwrap();
            if status != "completed" {
                assert!(progress < 100, "100 only when completed: {job}");
            }
            seen.push((status.clone(), progress));
            if status == "completed" || status == "failed" {
                break;
            }
            assert!(start.elapsed() < WAIT);
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        let order = |s: &str| {
            ["pending", "processing", "completed", "failed"]
                .iter()
                .position(|x| *x == s)
                .unwrap()
        };
        for pair in seen.windows(2) {
            assert!(pair[1].1 >= pair[0].1, "progress fell: {seen:?}");
            assert!(
                order(&pair[1].0) >= order(&pair[0].0),
                "state went back: {seen:?}"
            );
        }
        assert_eq!(seen.last().unwrap(), &("completed".to_string(), 100));
        let intermediate: Vec<u64> = seen
            .iter()
            .filter(|x| x.0 == "processing")
            .map(|x| x.1)
            .collect();
        assert!(
            intermediate.iter().any(|p| *p > 5 && *p < 100),
            "progress moved while processing: {seen:?}"
        );
        s.stop().await;
    }
);

both_stores!(service_endpoints, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let h: Value = s.get("/api/v1/health").await.json().await.unwrap();
    assert_eq!(h["status"], "healthy");
    assert_eq!(h["version"], env!("CARGO_PKG_VERSION"));
    assert!(h["uptime"].is_number());
    let r = s.client.get(s.url("/api/v1/ready")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "ready");
    assert_eq!(v["services"]["store"], true);
    assert_eq!(v["services"]["worker"], true);
    assert_eq!(v["services"]["storage"], true);
    for id in ["provider_one", "provider_two", "provider_three"] {
        assert!(v["services"]["ocr"][id].is_boolean(), "{v}");
    }
    assert_eq!(
        v["services"]["ocr"]["provider_three"], false,
        "no API key configured"
    );
    for id in ["text", "docx", "pdf", "image"] {
        assert_eq!(v["services"]["converters"][id], true, "{v}");
    }
    assert!(
        v["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p.as_str().unwrap().starts_with("OCR provider")),
        "only optional OCR providers may be reported while ready: {v}"
    );
    let f: Value = s.get("/api/v1/formats").await.json().await.unwrap();
    assert!(
        f["input"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["converter"] == "text"),
        "{f}"
    );
    assert_eq!(f["output"], serde_json::json!(["md", "json"]));
    let o: Value = s.get("/api/v1/openapi.json").await.json().await.unwrap();
    assert!(o["openapi"].as_str().unwrap().starts_with("3."));
    for p in [
        "/api/v1/jobs",
        "/api/v1/jobs/{job_id}",
        "/api/v1/jobs/{job_id}/result",
        "/api/v1/health",
        "/api/v1/ready",
        "/api/v1/formats",
    ] {
        assert!(o["paths"][p].is_object(), "{p} missing from openapi");
    }
    assert!(o["paths"]["/api/v1/jobs"]["post"]["responses"]["202"].is_object());
    // The document says what the server does (schemathesis found each of these).
    let form = &o["components"]["schemas"]["CreateJobForm"];
    assert_eq!(form["additionalProperties"], false, "{form}");
    assert_eq!(form["properties"]["webhook_url"]["format"], "uri", "{form}");
    let result = &o["paths"]["/api/v1/jobs/{job_id}/result"]["get"]["responses"]["200"];
    assert!(
        result["content"]["application/json"].is_object(),
        "{result}"
    );
    assert!(o["paths"]["/api/v1/jobs"]["post"]["responses"]["400"].is_object());
    assert!(
        o["paths"]["/metrics"]["get"].is_object(),
        "/metrics documented"
    );
    let output_format =
        serde_json::to_string(&o["components"]["schemas"]["CreateJobForm"]).unwrap();
    assert!(output_format.contains("OutputFormat"), "{output_format}");
    let enum_values = &o["components"]["schemas"]["OutputFormat"]["enum"];
    assert_eq!(
        enum_values,
        &serde_json::json!(["md", "json", "chunks"]),
        "{o}"
    );
    let input = &o["components"]["schemas"]["FieldError"]["properties"]["input"];
    assert!(
        input.to_string().contains("string"),
        "FieldError.input is a string (or null): {input}"
    );
    let docs = s.client.get(s.url("/docs")).send().await.unwrap();
    assert_eq!(docs.status(), 200);
    let html = docs.text().await.unwrap();
    assert!(
        html.contains("/api/v1/openapi.json") && !html.contains("https://"),
        "docs page is self-contained"
    );
    let m = s.client.get(s.url("/metrics")).send().await.unwrap();
    assert!(m.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let text = m.text().await.unwrap();
    assert!(text.contains("quire_queue_depth "), "{text}");
    let r = s.client.get(s.url("/nope")).send().await.unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(r.json::<Value>().await.unwrap()["detail"], "Not Found");
    let r = s.client.put(s.url("/api/v1/health")).send().await.unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(
        r.json::<Value>().await.unwrap()["detail"],
        "Method Not Allowed"
    );
    s.stop().await;
});

#[tokio::test]
async fn readiness_is_503_without_workers() {
    let mut s = TestServer::start_with(StoreKind::Embedded, |_| {}, 0).await;
    let r = s.client.get(s.url("/api/v1/ready")).send().await.unwrap();
    assert_eq!(r.status(), 503);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "not ready");
    assert_eq!(v["services"]["worker"], false);
    assert_eq!(v["services"]["store"], true);
    s.stop().await;
}

#[tokio::test]
async fn readiness_is_503_with_the_reason_when_pdfium_is_missing() {
    let empty = tempfile::tempdir().unwrap();
    let runtime = empty.path().to_path_buf();
    let mut s = TestServer::start_with(
        StoreKind::Embedded,
        move |c| c.quire_runtime_dir = runtime,
        1,
    )
    .await;
    let r = s.client.get(s.url("/api/v1/ready")).send().await.unwrap();
    assert_eq!(r.status(), 503);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["status"], "not ready");
    assert_eq!(v["services"]["converters"]["pdf"], false, "{v}");
    assert_eq!(v["services"]["converters"]["text"], true, "{v}");
    let problems: Vec<&str> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(
        problems
            .iter()
            .any(|p| p.starts_with("The pdf converter cannot run") && p.contains("libpdfium.so")),
        "{problems:?}"
    );
    s.stop().await;
}

#[tokio::test]
async fn cors_follows_allowed_origins() {
    let mut s = TestServer::start_with(
        StoreKind::Embedded,
        |c| c.allowed_origins = "https://app.example, https://other.example".into(),
        1,
    )
    .await;
    let r = s
        .client
        .request(reqwest::Method::OPTIONS, s.url("/api/v1/jobs"))
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.headers()["access-control-allow-origin"],
        "https://app.example"
    );
    let r = s
        .client
        .get(s.url("/api/v1/health"))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert!(r.headers().get("access-control-allow-origin").is_none());
    s.stop().await;
    let mut open = TestServer::start(StoreKind::Embedded).await;
    let r = open
        .client
        .get(open.url("/api/v1/health"))
        .header("origin", "https://anything.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
    open.stop().await;
}

#[tokio::test]
async fn api_prefix_and_public_base_url_are_honoured() {
    let mut s = TestServer::start_with(
        StoreKind::Embedded,
        |c| {
            c.api_prefix = "/convert/v1".into();
            c.public_base_url = Some("https://docs.example.com/".into());
        },
        1,
    )
    .await;
    let (ct, body) = multipart(&[
        FormPart::file("file", "a.txt", b"x"),
        FormPart::text("output_format", "md"),
    ]);
    let r = s
        .client
        .post(s.url("/convert/v1/jobs"))
        .header("content-type", ct)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    let id = r.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        s.client
            .get(s.url("/api/v1/health"))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let o: Value = s
        .get("/convert/v1/openapi.json")
        .await
        .json()
        .await
        .unwrap();
    assert!(o["paths"]["/convert/v1/jobs"].is_object());
    let job = s.shared_job(&id).await;
    assert_eq!(
        job.spec.result_url,
        format!("https://docs.example.com/convert/v1/jobs/{id}/result")
    );
    s.stop().await;
}

#[tokio::test]
async fn retention_removes_records_and_files() {
    // 2 seconds of retention.
    let mut s =
        TestServer::start_with(StoreKind::Embedded, |c| c.file_ttl_hours = 2.0 / 3600.0, 1).await;
    let id = s.create("a.txt", b"short-lived", "md").await;
    s.wait_final(&id, WAIT).await;
    assert_eq!(files_in(&s.config.output_dir).len(), 1);
    let start = std::time::Instant::now();
    loop {
        let r = s.get(&format!("/api/v1/jobs/{id}")).await;
        if r.status() == 404 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(15), "job not expired");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(files_in(&s.config.upload_dir).is_empty());
    assert!(files_in(&s.config.output_dir).is_empty());
    s.stop().await;
}

#[tokio::test]
async fn retention_on_redis_expires_keys_and_files() {
    let mut s =
        TestServer::start_with(StoreKind::Redis, |c| c.file_ttl_hours = 2.0 / 3600.0, 1).await;
    let id = s.create("a.txt", b"short-lived", "md").await;
    s.wait_final(&id, WAIT).await;
    let start = std::time::Instant::now();
    loop {
        let r = s.get(&format!("/api/v1/jobs/{id}")).await;
        if r.status() == 404 && files_in(&s.config.output_dir).is_empty() {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(15), "job not expired");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(files_in(&s.config.upload_dir).is_empty());
    s.stop().await;
}

both_stores!(aborted_uploads_leave_no_file, |kind| async move {
    let mut s = TestServer::start(kind).await;
    let stream = partial_upload(&s.base, 50_000_000, 2_000_000).await;
    // The partial upload exists while the body streams in...
    let start = std::time::Instant::now();
    while files_in(&s.config.upload_dir).is_empty() && start.elapsed() < Duration::from_secs(5) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(files_in(&s.config.upload_dir).len(), 1);
    // ...and is gone once the client disconnects.
    drop(stream);
    let start = std::time::Instant::now();
    while !files_in(&s.config.upload_dir).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "partial upload left behind"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    s.stop().await;
});
