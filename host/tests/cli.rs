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
