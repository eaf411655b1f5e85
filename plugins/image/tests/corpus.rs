//! Every corpus picture converts or fails with a clear error (never a panic). Skipped when the
//! shared corpus is not on this machine.

use quire_plugin_api::{Context, Converter, ImageRules, Input};
use quire_plugin_image::ImageConverter;

#[test]
fn corpus_images_convert() {
    let root = quire_testkit::workspace().join("../shared/corpus");
    if !root.is_dir() {
        eprintln!("skipped: no corpus at {}", root.display());
        return;
    }
    let converter = ImageConverter::new(ImageRules::default());
    let (mut ok, mut failed) = (0, Vec::new());
    for (dir, mime) in [
        ("png", "image/png"),
        ("jpg", "image/jpeg"),
        ("gif", "image/gif"),
        ("bmp", "image/bmp"),
        ("webp", "image/webp"),
        ("tiff", "image/tiff"),
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let input = Input {
                bytes: &bytes,
                file_name: &name,
                mime,
            };
            match converter.convert(&input, &mut Context::new()) {
                Ok(doc) => {
                    let s = doc.image.as_ref().unwrap();
                    println!(
                        "ok   {dir}/{name}: {} {}x{} frames {} parts {} first {}",
                        s.format,
                        s.width,
                        s.height,
                        s.frames,
                        doc.parts.len(),
                        doc.images()[0].mime
                    );
                    if doc.metadata != Default::default() {
                        println!("     metadata {:?}", doc.metadata);
                    }
                    ok += 1;
                }
                Err(e) => {
                    println!(
                        "FAIL {dir}/{name}: {:?} {} ({:?})",
                        e.kind(),
                        e.message(),
                        e.detail()
                    );
                    failed.push(name);
                }
            }
        }
    }
    println!("{ok} converted, {} failed", failed.len());
    assert!(ok > 0);
}
