//! The fast text path beside PDFium, page by page: `fastpath_diff [-v] FILE...` prints, per
//! file, how many pages the fast path reads, and (with `-v`) every difference in glyphs,
//! rules, marks, images and links on those pages.

#[path = "../tests/support/mod.rs"]
mod support;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let config = support::config();
    let (mut pages, mut fast, mut same) = (0usize, 0usize, 0usize);
    for path in args.iter().filter(|a| *a != "-v") {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let lines = match quire_plugin_pdf::debug_fastpath(&config, &bytes) {
            Ok(l) => l,
            Err(e) => {
                println!("{path}: error {}", e.message());
                continue;
            }
        };
        let (mut p, mut f, mut s) = (0, 0, 0);
        for l in &lines {
            if l.starts_with("page ") {
                p += 1;
                if !l.contains("fallback") {
                    f += 1;
                }
                if l.ends_with(": same") {
                    s += 1;
                }
            }
        }
        if lines.first().is_some_and(|l| l.starts_with("document")) {
            println!("{path}: {}", lines[0]);
        } else {
            println!("{path}: {p} pages, fast {f}, same {s}");
        }
        if verbose {
            for l in lines
                .iter()
                .filter(|l| l.contains("DIFF") || l.contains("fallback"))
            {
                println!("  {l}");
            }
        }
        pages += p;
        fast += f;
        same += s;
    }
    println!("total: {pages} pages, fast {fast}, same {same}");
}
