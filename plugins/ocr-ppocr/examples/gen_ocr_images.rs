//! Writes the generated OCR test pages (PNG/JPEG plus `.txt` ground truth) into a directory:
//! `cargo run --release -p quire-ocr-ppocr --example gen_ocr_images -- /tmp/ocr-pages`.

#[path = "../tests/common/testpages.rs"]
mod testpages;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/ocr-pages".to_string());
    match testpages::write_pages(std::path::Path::new(&dir)) {
        Ok(files) => {
            for f in &files {
                println!("{}", f.display());
            }
            println!("{} pages written to {dir}", files.len());
        }
        Err(e) => {
            eprintln!("could not write the pages: {e}");
            std::process::exit(1);
        }
    }
}
