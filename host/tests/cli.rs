//! The `quire` command line as a user runs it: from any working directory, with the runtime
//! files found without help.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

/// A one-page PDF with the text "Relocated hello" (PDFium rebuilds the missing xref offsets).
fn tiny_pdf(dir: &Path) -> std::path::PathBuf {
    let content = "BT /F1 24 Tf 72 700 Td (Relocated hello) Tj ET";
    let pdf = format!(
        "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n\
         2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n\
         3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
         /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >> endobj\n\
         4 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n\
         5 0 obj << /Length {} >> stream\n{content}\nendstream endobj\n\
         trailer << /Root 1 0 R >>\n%%EOF\n",
        content.len()
    );
    let path = dir.join("tiny.pdf");
    std::fs::write(&path, pdf).unwrap();
    path
}

/// `quire` started in `cwd` with no runtime settings in its environment.
fn quire_in(cwd: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_quire"));
    cmd.current_dir(cwd)
        .env_remove("QUIRE_RUNTIME_DIR")
        .env_remove("OCR_MODEL_DIR")
        .env_remove("PDFIUM_LIB_PATH")
        .env_remove("QUIRE_CONFIG");
    cmd
}

#[test]
fn converts_a_pdf_started_from_another_directory() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = tiny_pdf(dir.path());
    let out = quire_in(Path::new("/"))
        .arg("convert")
        .arg(&pdf)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("Relocated hello"), "{md}\n{stderr}");
}

#[test]
fn plugins_reports_each_converter_ready_from_another_directory() {
    let out = quire_in(Path::new("/"))
        .args(["plugins", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pdf = v["converters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "pdf")
        .expect("pdf converter listed");
    assert_eq!(pdf["ready"], true, "{v}");
    assert!(v["runtime_dir"].as_str().is_some_and(|d| !d.is_empty()));
}

#[test]
fn a_runtime_folder_without_pdfium_is_reported_not_ready() {
    let empty = tempfile::tempdir().unwrap();
    let out = quire_in(Path::new("/"))
        .env("QUIRE_RUNTIME_DIR", empty.path())
        .args(["plugins", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pdf = v["converters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "pdf")
        .unwrap();
    assert_eq!(pdf["ready"], false, "{v}");
    assert!(
        pdf["detail"].as_str().unwrap().contains("libpdfium.so"),
        "{v}"
    );
    let text = v["converters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "text")
        .unwrap();
    assert_eq!(text["ready"], true);
}

#[test]
fn a_closed_pipe_ends_the_listing_quietly() {
    let mut child = quire_in(Path::new("/"))
        .arg("plugins")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Hang up before the listing is written, as `quire plugins | true` does.
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_typo_never_suggests_the_internal_child_command() {
    let out = quire_in(Path::new("/"))
        .arg("convert-chil")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("__convert-child"), "{stderr}");
    let help = quire_in(Path::new("/")).arg("--help").output().unwrap();
    assert!(!String::from_utf8_lossy(&help.stdout).contains("convert-child"));
}

#[test]
fn an_unwritable_output_names_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("note.txt");
    std::fs::write(&txt, "A short note.\n").unwrap();
    let target = dir.path().join("no/such/dir/x.md");
    let out = quire_in(Path::new("/"))
        .arg("convert")
        .arg(&txt)
        .arg("-o")
        .arg(&target)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&target.display().to_string()),
        "the message names the path: {stderr}"
    );
}

#[test]
fn reads_the_document_from_standard_input() {
    let out = convert_stdin(&["--name", "table.csv"], b"Name,Value\nTea,3\nCoffee,5\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("| Tea | 3 |"), "{md}");
    // Without a name the content decides.
    let out = convert_stdin(&[], b"<html><body><h1>From a pipe</h1></body></html>");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("# From a pipe"));
}

/// `quire convert - ARGS` from `/` with `input` on standard input.
fn convert_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = quire_in(Path::new("/"))
        .args(["convert", "-"])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// `quire serve` from `/` on a free port with JSON logs, its state in `dir`; returns the child
/// and the base URL once it answers.
fn serve_json_logs(dir: &Path) -> (std::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = quire_in(Path::new("/"))
        .arg("serve")
        .env("HOST", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("UPLOAD_DIR", dir.join("uploads"))
        .env("OUTPUT_DIR", dir.join("outputs"))
        .env("DATA_DIR", dir.join("data"))
        .env("WORKERS", "1")
        .env("LOG_FORMAT", "json")
        .env("LOG_LEVEL", "info")
        .env("WEBHOOK_MAX_RETRIES", "0")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (child, base);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("quire serve did not listen on {port}");
}

/// One HTTP/1.1 request with `Connection: close`; returns the status line.
fn http(base: &str, method: &str, target: &str, body: Option<(&str, &[u8])>) -> String {
    http_full(base, method, target, body)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// One HTTP/1.1 request with `Connection: close`; returns the whole response.
fn http_full(base: &str, method: &str, target: &str, body: Option<(&str, &[u8])>) -> String {
    use std::io::Write;
    let addr = base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    req.push_str("Authorization: Bearer sekrit-token-123\r\n");
    if let Some((ctype, bytes)) = body {
        req.push_str(&format!(
            "Content-Type: {ctype}\r\nContent-Length: {}\r\n",
            bytes.len()
        ));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    if let Some((_, bytes)) = body {
        s.write_all(bytes).unwrap();
    }
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn each_request_gets_one_access_log_line_without_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let (child, base) = serve_json_logs(dir.path());
    let boundary = "XyZ";
    let form = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"output_format\"\r\n\r\nmd\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"webhook_url\"\r\n\r\nhttp://127.0.0.1:9/hook?key=sekrit-hook-456\r\n\
         --{boundary}--\r\n"
    );
    let created = http(
        &base,
        "POST",
        "/api/v1/jobs?token=sekrit-query-789",
        Some((
            &format!("multipart/form-data; boundary={boundary}"),
            form.as_bytes(),
        )),
    );
    assert!(created.contains(" 202 "), "{created}");
    let unknown = "0b7e1d2c-0000-4000-8000-000000000000";
    assert!(http(&base, "GET", &format!("/api/v1/jobs/{unknown}"), None).contains(" 404 "));
    assert!(http(&base, "GET", "/api/v1/health", None).contains(" 200 "));
    assert!(http(&base, "GET", "/no/such/route", None).contains(" 404 "));
    // SIGTERM: the service drains and exits, flushing its log.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    let access: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["message"] == "request")
        .collect();
    let seen: Vec<(String, String, u64)> = access
        .iter()
        .map(|v| {
            assert!(v["duration_ms"].is_number(), "{v}");
            assert_eq!(v["level"], "INFO", "{v}");
            (
                v["method"].as_str().unwrap_or_default().to_string(),
                v["path"].as_str().unwrap_or_default().to_string(),
                v["status"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    let want = |m: &str, p: &str, s: u64| (m.to_string(), p.to_string(), s);
    assert_eq!(
        seen,
        vec![
            want("POST", "/api/v1/jobs", 202),
            want("GET", "/api/v1/jobs/{job_id}", 404),
            want("GET", "/api/v1/health", 200),
            want("GET", "(no route)", 404),
        ],
        "{log}"
    );
    for secret in ["sekrit", unknown, "/no/such/route"] {
        assert!(
            !access.iter().any(|v| v.to_string().contains(secret)),
            "{secret} in the access log: {log}"
        );
    }
    assert!(!log.contains("sekrit"), "a secret reached the log: {log}");
}

/// A binary laid out as the release archive is (`<root>/bin/quire`, `<root>/lib/quire/`) but
/// without `libpdfium.so`: the reason names the archive, not a script that is not there.
#[test]
fn an_archive_install_without_pdfium_says_to_unpack_again() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("bin")).unwrap();
    std::fs::create_dir_all(root.path().join("lib/quire/models")).unwrap();
    let exe = root.path().join("bin/quire");
    std::fs::copy(env!("CARGO_BIN_EXE_quire"), &exe).unwrap();
    // A test running beside this one may fork while the copy's write handle is open, which
    // makes exec fail with ETXTBSY until that child has exec'd: retry briefly.
    let out = (0..50)
        .find_map(|_| {
            match Command::new(&exe)
                .current_dir("/")
                .env_remove("QUIRE_RUNTIME_DIR")
                .env_remove("OCR_MODEL_DIR")
                .env_remove("PDFIUM_LIB_PATH")
                .env_remove("QUIRE_CONFIG")
                .args(["plugins", "--json"])
                .output()
            {
                Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    None
                }
                other => Some(other.unwrap()),
            }
        })
        .expect("the copied binary stayed busy");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pdf = v["converters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "pdf")
        .unwrap();
    let detail = pdf["detail"].as_str().unwrap();
    assert_eq!(pdf["ready"], false, "{v}");
    assert!(detail.contains("libpdfium.so"), "{detail}");
    assert!(detail.contains("release archive"), "{detail}");
    assert!(!detail.contains("setup.sh"), "{detail}");
    // Pointed elsewhere explicitly: the setting is what to check.
    let empty = tempfile::tempdir().unwrap();
    let out = quire_in(Path::new("/"))
        .env("QUIRE_RUNTIME_DIR", empty.path())
        .args(["plugins"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("QUIRE_RUNTIME_DIR") && !text.contains("setup.sh"),
        "{text}"
    );
}

#[test]
fn provider_lists_are_sorted_by_id() {
    let out = quire_in(Path::new("/"))
        .args(["plugins", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for list in ["converters", "ocr_providers"] {
        let ids: Vec<&str> = v[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted, "{list}");
    }
    let out = quire_in(Path::new("/")).arg("plugins").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let at = |id: &str| {
        text.find(&format!("  {id} "))
            .unwrap_or_else(|| panic!("{text}"))
    };
    assert!(at("provider_one") < at("provider_three"), "{text}");
    assert!(at("provider_three") < at("provider_two"), "{text}");
}

/// `quire convert` over `files` (paths relative to `cwd`) with `extra` arguments.
fn convert_many(cwd: &Path, files: &[&str], extra: &[&str]) -> std::process::Output {
    quire_in(cwd)
        .arg("convert")
        .args(files)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn several_files_are_written_beside_their_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("sub")).unwrap();
    std::fs::write(d.join("a.txt"), "Alpha text.\n").unwrap();
    std::fs::write(d.join("sub/b.csv"), "Name,Value\nTea,3\n").unwrap();
    let out = convert_many(d, &["a.txt", "sub/b.csv"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "nothing on stdout with several files"
    );
    let a = std::fs::read_to_string(d.join("a.md")).unwrap();
    assert!(a.contains("Alpha text."), "{a}");
    let b = std::fs::read_to_string(d.join("sub/b.md")).unwrap();
    assert!(b.contains("| Tea | 3 |"), "{b}");
    // JSON gets its extension.
    let out = convert_many(d, &["a.txt", "sub/b.csv"], &["-f", "json"]);
    assert!(out.status.success());
    let j: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("sub/b.json")).unwrap()).unwrap();
    assert!(j.is_object());
}

#[test]
fn several_files_go_into_the_output_folder_and_never_over_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("notes.md"), "# Notes\n\nKeep me.\n").unwrap();
    std::fs::write(d.join("notes.txt"), "Plain notes.\n").unwrap();
    std::fs::write(d.join("report.html"), "<h1>Report</h1>").unwrap();
    // Beside the inputs: notes.md would be the input itself and the result of notes.txt too,
    // so both keep their extension.
    let out = convert_many(d, &["notes.md", "notes.txt", "report.html"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(d.join("notes.md")).unwrap(),
        "# Notes\n\nKeep me.\n",
        "the input is untouched"
    );
    assert!(d.join("notes.md.md").is_file() && d.join("notes.txt.md").is_file());
    assert!(std::fs::read_to_string(d.join("report.md"))
        .unwrap()
        .contains("# Report"));
    // Into a folder that does not exist yet.
    let out = convert_many(d, &["notes.txt", "report.html"], &["-o", "out/md"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(d.join("out/md/notes.md").is_file() && d.join("out/md/report.md").is_file());
    // -o naming a file with several inputs, `-` among several, one input twice: refused
    // before anything is written (status 2).
    for (files, extra) in [
        (vec!["notes.txt", "report.html"], vec!["-o", "notes.md"]),
        (vec!["notes.txt", "-"], vec![]),
        (vec!["notes.txt", "./notes.txt"], vec!["-o", "again"]),
    ] {
        let out = convert_many(d, &files, &extra);
        assert_eq!(out.status.code(), Some(2), "{files:?} {extra:?}");
        assert!(!d.join("again").exists());
    }
    assert_eq!(
        std::fs::read_to_string(d.join("notes.md")).unwrap(),
        "# Notes\n\nKeep me.\n"
    );
}

#[test]
fn a_failure_among_several_is_named_and_sets_the_status() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("good.txt"), "Fine.\n").unwrap();
    std::fs::write(d.join("bad.docx"), b"PK\x03\x04 not really a zip").unwrap();
    let out = convert_many(d, &["good.txt", "bad.docx", "missing.txt"], &["-o", "out"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "an unreadable input: {stderr}");
    assert!(
        d.join("out/good.md").is_file(),
        "the others are still converted"
    );
    assert!(!d.join("out/bad.md").exists());
    assert!(stderr.contains("bad.docx: "), "{stderr}");
    assert!(stderr.contains("missing.txt"), "{stderr}");
    assert!(stderr.contains("2 of 3 files failed"), "{stderr}");
    let out = convert_many(d, &["good.txt", "bad.docx"], &["-o", "out"]);
    assert_eq!(out.status.code(), Some(1));
    let out = convert_many(d, &["good.txt", "good.txt"], &[]);
    assert_eq!(out.status.code(), Some(2), "one input twice");
}

#[test]
fn one_file_into_an_existing_folder_is_named_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("a.txt"), "Into a folder.\n").unwrap();
    std::fs::create_dir(d.join("out")).unwrap();
    let out = convert_many(d, &["a.txt"], &["-o", "out"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read_to_string(d.join("out/a.md"))
        .unwrap()
        .contains("Into a folder."));
    let out = convert_many(d, &["a.txt"], &["-o", "./a.txt"]);
    assert_eq!(out.status.code(), Some(2), "never over its own input");
    assert_eq!(
        std::fs::read_to_string(d.join("a.txt")).unwrap(),
        "Into a folder.\n"
    );
}

/// The service's log as an operator reads it: the start-up line names what is ready (sorted),
/// a rejected upload leaves its line with its status, a failed job and a failed webhook are
/// at WARN with their reason, and a completed job logs no error.
#[test]
fn the_log_tells_readiness_rejections_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let (child, base) = serve_json_logs(dir.path());
    let boundary = "XyZ";
    let form = |fields: &[(&str, Option<&str>, &[u8])]| {
        let mut body = Vec::new();
        for (name, file, value) in fields {
            let disposition = match file {
                Some(f) => format!("name=\"{name}\"; filename=\"{f}\""),
                None => format!("name=\"{name}\""),
            };
            body.extend_from_slice(
                format!("--{boundary}\r\nContent-Disposition: form-data; {disposition}\r\n\r\n")
                    .as_bytes(),
            );
            body.extend_from_slice(value);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        body
    };
    let ctype = format!("multipart/form-data; boundary={boundary}");
    let post_full = |body: Vec<u8>| http_full(&base, "POST", "/api/v1/jobs", Some((&ctype, &body)));
    let post = |body: Vec<u8>| {
        post_full(body)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    // The job id in a 202's body.
    let id_of = |response: String| -> String {
        assert!(response.starts_with("HTTP/1.1 202"), "{response}");
        let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        v["id"].as_str().unwrap().to_string()
    };
    // 415: a type no converter takes; 422: a field the API does not know.
    let unsupported = post(form(&[
        (
            "file",
            Some("tool.exe"),
            b"MZ\x90\x00\x03\x00\x00\x00\x04\x00",
        ),
        ("output_format", None, b"md"),
    ]));
    assert!(unsupported.contains(" 415 "), "{unsupported}");
    let unknown = post(form(&[
        ("file", Some("a.txt"), b"hello"),
        ("output_format", None, b"md"),
        ("colour", None, b"blue"),
    ]));
    assert!(unknown.contains(" 422 "), "{unknown}");
    // A job that fails (a damaged DOCX) with a webhook that cannot be delivered (nothing
    // listens on port 9), and a job that completes.
    let broken = id_of(post_full(form(&[
        ("file", Some("broken.docx"), b"PK\x03\x04 not a zip at all"),
        ("output_format", None, b"md"),
        ("webhook_url", None, b"http://127.0.0.1:9/hook"),
    ])));
    let fine = id_of(post_full(form(&[
        ("file", Some("fine.txt"), b"All good."),
        ("output_format", None, b"md"),
    ])));
    // Both jobs final and the webhook's one attempt recorded.
    let start = std::time::Instant::now();
    for id in [&broken, &fine] {
        loop {
            let job = http_full(&base, "GET", &format!("/api/v1/jobs/{id}"), None);
            let done = job.contains("\"completed\"") || job.contains("\"failed\"");
            let hooked = id != &broken || job.contains("\"delivered\"");
            if done && hooked {
                break;
            }
            assert!(start.elapsed().as_secs() < 60, "{job}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .collect();
    let find = |message: &str| -> Vec<&serde_json::Value> {
        lines
            .iter()
            .filter(|v| v["message"].as_str().unwrap_or_default().contains(message))
            .collect()
    };
    let start = find("converters ready:");
    assert_eq!(start.len(), 1, "{log}");
    let start = start[0]["message"].as_str().unwrap();
    // Each list (ready, not ready; converters, then OCR providers) is sorted by id.
    let mut lists = 0;
    for part in start.split(['.', ';']) {
        let Some((_, items)) = part.split_once(": ") else {
            continue;
        };
        let ids: Vec<&str> = items
            .split(", ")
            .map(|i| i.split(" (").next().unwrap().trim())
            .collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted, "{start}");
        lists += 1;
    }
    assert_eq!(lists, 4, "{start}");
    assert!(start.contains("docx, html") && start.contains("OCR providers ready: provider_one"));
    for status in [415, 422] {
        assert!(
            find("request")
                .iter()
                .any(|v| v["status"] == status && v["path"] == "/api/v1/jobs"),
            "no line for the {status}: {log}"
        );
    }
    let failed = find("job failed");
    assert_eq!(failed.len(), 1, "{log}");
    assert_eq!(failed[0]["level"], "WARN", "{log}");
    assert!(failed[0]["error_kind"].is_string(), "{log}");
    let hook = find("webhook");
    assert!(
        !hook.is_empty() && hook.iter().all(|v| v["level"] == "WARN"),
        "the failed webhook at WARN: {log}"
    );
    let finished = find("job finished");
    assert_eq!(finished.len(), 1, "{log}");
    assert!(finished[0].get("error").is_none(), "{log}");
    assert!(finished[0]["converter"] == "text", "{log}");
}

/// Issue 14 on the command line: `--image-mode referenced` writes `images/` beside the
/// output file and links into it; `--pages`, `--password-file` and a wrong password; usage
/// mistakes are status 2 with nothing written.
#[test]
fn image_modes_pages_and_passwords_on_the_command_line() {
    let fixtures = quire_testkit::workspace().join("host/tests/fixtures/options");
    let dir = tempfile::tempdir().unwrap();
    // A Markdown input with one picture.
    let mut png = Vec::new();
    image::DynamicImage::ImageRgb8(image::RgbImage::from_pixel(3, 2, image::Rgb([200, 10, 10])))
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    use base64::Engine as _;
    let md = format!(
        "# Title\n\n![A dot](data:image/png;base64,{})\n",
        base64::engine::general_purpose::STANDARD.encode(&png)
    );
    std::fs::write(dir.path().join("pic.md"), md).unwrap();
    let out = quire_in(dir.path())
        .args(["convert", "pic.md", "--image-mode", "referenced", "-o"])
        .arg(dir.path().join("out/result.md"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "the folder out/ does not exist");
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let out = quire_in(dir.path())
        .args([
            "convert",
            "pic.md",
            "--image-mode",
            "referenced",
            "-o",
            "out/result.md",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result = std::fs::read_to_string(dir.path().join("out/result.md")).unwrap();
    let link = result
        .split("](")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .unwrap()
        .to_string();
    assert!(link.starts_with("images/"), "{result}");
    assert_eq!(
        std::fs::read(dir.path().join("out").join(&link)).unwrap(),
        png
    );
    // Standard output has no folder beside it.
    let out = quire_in(dir.path())
        .args(["convert", "pic.md", "--image-mode", "referenced"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());

    let pw = dir.path().join("pw.txt");
    std::fs::write(&pw, "Quire-opt-7391-secret\n").unwrap();
    let out = quire_in(dir.path())
        .arg("convert")
        .arg(fixtures.join("encrypted.pdf"))
        .args(["--pages", "3", "--password-file"])
        .arg(&pw)
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        md.starts_with("<!-- Page 3 -->") && md.contains("charlie"),
        "{md}"
    );
    assert!(!md.contains("alpha") && !md.contains("bravo"), "{md}");
    let out = quire_in(dir.path())
        .arg("convert")
        .arg(fixtures.join("encrypted.docx"))
        .args(["--password", "wrong"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "quire: The password given does not open this DOCX file"
    );
    for bad in [&["--pages", "4-2"][..], &["--force-ocr"][..]] {
        let out = quire_in(dir.path())
            .args(["convert", "pic.md"])
            .args(bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}
