//! Writes the generated OCR test pages and their reference texts to a directory:
//! `cargo run -p quire-ocr-tesseract --example gen_tesseract_pages -- DIR` gives `DIR/<name>.png|jpg`
//! and `DIR/<name>.txt` for each page (see tests/support/textgen.rs).

#[path = "../tests/support/textgen.rs"]
mod textgen;

fn main() -> std::io::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "ocr-pages".into());
    std::fs::create_dir_all(&dir)?;
    let samples = textgen::samples();
    if samples.is_empty() {
        eprintln!("DejaVu fonts not found; install fonts-dejavu-core");
        std::process::exit(1);
    }
    for s in samples.into_iter().chain(textgen::a4_scan()) {
        let ext = if s.mime == "image/jpeg" { "jpg" } else { "png" };
        std::fs::write(format!("{dir}/{}.{ext}", s.name), &s.data)?;
        std::fs::write(format!("{dir}/{}.txt", s.name), &s.text)?;
        println!("{dir}/{}.{ext}", s.name);
    }
    Ok(())
}
