//! Prints a workbook or CSV as rough Markdown (for eyeballing):
//! `cargo run -p quire-plugin-spreadsheet --example dump_spreadsheet -- FILE...`.

use quire_plugin_api::{Block, Context, Converter, Input};
use quire_plugin_spreadsheet::SpreadsheetConverter;

fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).expect("read file");
        let mime = match path.rsplit('.').next().unwrap_or_default() {
            "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "xlsm" => "application/vnd.ms-excel.sheet.macroEnabled.12",
            "xlsb" => "application/vnd.ms-excel.sheet.binary.macroEnabled.12",
            "xls" => "application/vnd.ms-excel",
            "ods" => "application/vnd.oasis.opendocument.spreadsheet",
            _ => "text/csv",
        };
        let input = Input {
            bytes: &bytes,
            file_name: &path,
            mime,
        };
        let mut ctx = Context::new();
        match SpreadsheetConverter.convert(&input, &mut ctx) {
            Ok(doc) => {
                for part in &doc.parts {
                    println!("## {}", part.name.as_deref().unwrap_or_default());
                    for block in &part.blocks {
                        match block {
                            Block::Grid(g) => {
                                for row in g.iter_rows() {
                                    println!("| {} |", row.collect::<Vec<_>>().join(" | "));
                                }
                            }
                            other => println!("{other:?}"),
                        }
                    }
                }
                println!("metadata: {:?}", doc.metadata);
            }
            Err(e) => println!("error: {e} ({:?})", e.detail()),
        }
        for w in ctx.warnings() {
            println!("warning: {w}");
        }
    }
}
