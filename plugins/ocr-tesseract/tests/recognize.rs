//! Tesseract on generated pages with known text (CER), on corpus images when present, and
//! from several threads at once.

mod support;

use quire_ocr_tesseract::TesseractProvider;
use quire_plugin_api::{OcrImage, OcrProvider, PluginConfig};
use std::time::Instant;
use support::textgen;

fn provider() -> TesseractProvider {
    TesseractProvider::new(&PluginConfig::default()).expect("eng language data installed")
}

#[test]
fn character_error_rate_on_generated_pages() {
    let samples = textgen::samples();
    if samples.is_empty() {
        eprintln!("skipped: DejaVu fonts not installed");
        return;
    }
    let p = provider();
    let (mut upright, mut all) = (Vec::new(), Vec::new());
    println!("{:<14} {:>7} {:>8}", "page", "CER", "seconds");
    for s in &samples {
        let start = Instant::now();
        let out = p
            .recognize(&OcrImage {
                data: &s.data,
                mime: s.mime,
                dpi: None,
            })
            .unwrap();
        let secs = start.elapsed().as_secs_f64();
        let cer = textgen::cer(&s.text, &out.text);
        println!("{:<14} {:>6.1}% {:>8.2}", s.name, cer * 100.0, secs);
        if cer > 0.05 {
            println!("  read: {:?}", out.text);
        }
        all.push(cer);
        if s.upright {
            upright.push(cer);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "mean CER upright {:.2}%, all {:.2}%",
        mean(&upright) * 100.0,
        mean(&all) * 100.0
    );
    assert!(mean(&upright) <= 0.05, "upright CER {:.3}", mean(&upright));
}

#[test]
fn engines_are_per_thread() {
    let samples = textgen::samples();
    let Some(s) = samples.iter().find(|s| s.name == "sans-20") else {
        return;
    };
    let p = provider();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..3)
            .map(|_| {
                scope.spawn(|| {
                    let image = OcrImage {
                        data: &s.data,
                        mime: s.mime,
                        dpi: None,
                    };
                    let first = p.recognize(&image).unwrap();
                    let second = p.recognize(&image).unwrap();
                    assert_eq!(first.text, second.text);
                    textgen::cer(&s.text, &first.text)
                })
            })
            .collect();
        for h in handles {
            assert!(h.join().unwrap() < 0.05);
        }
    });
}

#[test]
fn corpus_image_is_read() {
    let path = quire_testkit::workspace().join("../shared/corpus/png/tika__testOCR_spacing.png");
    let Ok(data) = std::fs::read(path) else {
        eprintln!("skipped: corpus not present");
        return;
    };
    let out = provider()
        .recognize(&OcrImage {
            data: &data,
            mime: "image/png",
            dpi: None,
        })
        .unwrap();
    assert!(out.text.contains("The quick"), "{:?}", out.text);
    assert!(out.confidence.unwrap() > 0.5);
}

#[test]
fn undecodable_input_is_malformed() {
    let err = provider()
        .recognize(&OcrImage {
            data: b"not an image",
            mime: "image/png",
            dpi: None,
        })
        .unwrap_err();
    assert_eq!(err.kind(), quire_plugin_api::ErrorKind::Malformed);
}

#[test]
fn a4_scan_speed() {
    let Some(s) = textgen::a4_scan() else {
        return;
    };
    let p = provider();
    // Warm the engine (model load) as a worker thread would have.
    let warm = textgen::samples();
    if let Some(first) = warm.first() {
        p.recognize(&OcrImage {
            data: &first.data,
            mime: first.mime,
            dpi: None,
        })
        .unwrap();
    }
    let start = Instant::now();
    let cpu_start = thread_cpu_seconds();
    let out = p
        .recognize(&OcrImage {
            data: &s.data,
            mime: s.mime,
            dpi: Some(300),
        })
        .unwrap();
    let secs = start.elapsed().as_secs_f64();
    let cpu = thread_cpu_seconds() - cpu_start;
    let cer = textgen::cer(&s.text, &out.text);
    println!(
        "A4 300 dpi scan ({} chars): {secs:.2} s wall, {cpu:.2} s CPU of this thread, CER {:.2}%",
        s.text.len(),
        cer * 100.0
    );
    assert!(cer < 0.05);
    if !cfg!(debug_assertions) {
        // CPU time, not wall time: helpers share this 2-core machine while the test runs.
        assert!(cpu < 3.0, "{cpu:.2} s of CPU");
    }
}

/// CPU seconds used by the calling thread (OpenMP is limited to this thread, see engine.rs).
fn thread_cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a rusage into the pointer it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_THREAD, usage.as_mut_ptr());
        usage.assume_init()
    };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(usage.ru_utime) + t(usage.ru_stime)
}
