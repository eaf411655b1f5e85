//! Shared by the corpus test and the evaluation example: where things are, a Tesseract CLI
//! OCR stand-in (the real providers live in other crates), word scores.
#![allow(dead_code)]

pub mod pdfgen;

use quire_plugin_api::{Error, OcrImage, OcrOutput, OcrProvider, PluginConfig, Result};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

pub fn workspace_root() -> PathBuf {
    quire_testkit::workspace()
}

pub fn corpus_dir() -> PathBuf {
    std::env::var_os("QUIRE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/corpus"))
}

pub fn config() -> PluginConfig {
    PluginConfig {
        runtime_dir: workspace_root().join("vendor-runtime"),
        ..PluginConfig::default()
    }
}

/// OCR through the `tesseract` command, for tests only.
pub struct TesseractCli;

impl TesseractCli {
    pub fn available() -> bool {
        Command::new("tesseract")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl OcrProvider for TesseractCli {
    fn recognize(&self, image: &OcrImage<'_>) -> Result<OcrOutput> {
        let mut cmd = Command::new("tesseract");
        cmd.args(["stdin", "stdout", "-l", "eng", "--psm", "1"]);
        if let Some(dpi) = image.dpi {
            cmd.args(["--dpi", &dpi.to_string()]);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Error::internal("tesseract did not start").with_detail(e))?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(image.data);
        }
        let out = child
            .wait_with_output()
            .map_err(|e| Error::internal("tesseract failed").with_detail(e))?;
        Ok(OcrOutput {
            text: String::from_utf8_lossy(&out.stdout).into_owned(),
            confidence: None,
        })
    }
}

/// Lower-cased NFKC words with punctuation trimmed from their ends; CJK characters count
/// one word each (as `text::word_count` counts them), so spacing around them does not matter.
pub fn tokens(text: &str) -> Vec<String> {
    use unicode_normalization::UnicodeNormalization;
    let text: String = text.nfkc().collect();
    let mut out = Vec::new();
    for w in text.split_whitespace() {
        let mut rest = String::new();
        for c in w.chars() {
            if is_cjk(c) {
                push_token(&mut out, &rest);
                rest.clear();
                out.push(c.to_string());
            } else {
                rest.push(c);
            }
        }
        push_token(&mut out, &rest);
    }
    out
}

fn push_token(out: &mut Vec<String>, w: &str) {
    let t = w
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    if !t.is_empty() {
        out.push(t);
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xAC00..=0xD7AF)
}

/// F1 of two bags of items.
pub fn bag_f1<T: std::hash::Hash + Eq + Clone>(ours: &[T], reference: &[T]) -> f64 {
    if ours.is_empty() && reference.is_empty() {
        return 1.0;
    }
    if ours.is_empty() || reference.is_empty() {
        return 0.0;
    }
    let mut counts: HashMap<T, i64> = HashMap::new();
    for t in reference {
        *counts.entry(t.clone()).or_default() += 1;
    }
    let mut hit = 0i64;
    for t in ours {
        if let Some(c) = counts.get_mut(t) {
            if *c > 0 {
                *c -= 1;
                hit += 1;
            }
        }
    }
    let p = hit as f64 / ours.len() as f64;
    let r = hit as f64 / reference.len() as f64;
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// Word F1 and word-bigram F1 (a cheap reading-order proxy).
pub fn scores(ours: &str, reference: &str) -> (f64, f64) {
    let a = tokens(ours);
    let b = tokens(reference);
    let bigrams = |t: &[String]| -> Vec<(String, String)> {
        t.windows(2).map(|w| (w[0].clone(), w[1].clone())).collect()
    };
    (bag_f1(&a, &b), bag_f1(&bigrams(&a), &bigrams(&b)))
}

/// Markdown to plain words: headings, emphasis, links, images, table pipes removed.
pub fn strip_markdown(md: &str) -> String {
    let mut out = String::new();
    for line in md.lines() {
        let l = line.trim();
        if l.starts_with("<!--") || l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
            continue;
        }
        let l = l.trim_start_matches('#').trim_start();
        let l = l
            .strip_prefix("- ")
            .or_else(|| l.strip_prefix("* "))
            .unwrap_or(l);
        let mut s = String::new();
        let mut chars = l.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '!' if chars.peek() == Some(&'[') => {}
                '[' | ']' | '*' | '`' | '|' => s.push(' '),
                _ => s.push(c),
            }
        }
        // Drop link targets "(http...)".
        let s = s
            .split(' ')
            .filter(|w| !(w.starts_with("(http") || w.starts_with("(#")))
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(
            &s.replace("&amp;", "&")
                .replace("&lt;", "<")
                .replace("&gt;", ">"),
        );
        out.push('\n');
    }
    out
}

/// The `#` lines of a Markdown file.
pub fn markdown_headings(md: &str) -> Vec<String> {
    md.lines()
        .filter(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Whether two headings are the same text (case, spacing and punctuation aside).
pub fn same_heading(a: &str, b: &str) -> bool {
    let norm = |s: &str| tokens(s).join(" ");
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && (a == b || bag_f1(&tokens(&a), &tokens(&b)) >= 0.8)
}

/// Expectation records for one corpus type: `(file, must_include, must_not_include)`.
pub fn expectations(kind: &str) -> Vec<(String, Vec<String>, Vec<String>)> {
    let path = corpus_dir().join("expectations.jsonl");
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let list = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|r| {
            r["file"]
                .as_str()
                .is_some_and(|f| f.starts_with(&format!("{kind}/")))
        })
        .map(|r| {
            (
                r["file"].as_str().unwrap_or_default().to_string(),
                list(&r["must_include"]),
                list(&r["must_not_include"]),
            )
        })
        .collect()
}
