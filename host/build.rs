//! Writes the rank tables of OpenAI's cl100k and o200k BPEs into the build's output
//! directory, in the form `render::ranks` reads in place (nothing is decoded or built when
//! the service counts tokens): for each BPE, the bytes of every token one after another
//! (`.blob`), where each token starts (`.offsets`, little-endian u32 per rank and one past
//! the last), and an open-addressing hash table of rank + 1 by `rank_hash` (`.table`,
//! little-endian u32, 0 for empty, a power of two at least twice the tokens).
//!
//! The tokens come from the crate `bpe-openai`, which ships OpenAI's published ranks: nothing
//! is downloaded.

use std::path::PathBuf;

include!("src/render/rank_hash.rs");

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/render/rank_hash.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for (name, tokenizer) in [
        ("cl100k", bpe_openai::cl100k_base()),
        ("o200k", bpe_openai::o200k_base()),
    ] {
        let bpe = &tokenizer.bpe;
        let n = bpe.num_tokens();
        let mut blob = Vec::new();
        let mut offsets = Vec::with_capacity(4 * (n + 1));
        for rank in 0..n {
            offsets.extend_from_slice(&(blob.len() as u32).to_le_bytes());
            blob.extend_from_slice(bpe.token_bytes(rank as u32));
        }
        offsets.extend_from_slice(&(blob.len() as u32).to_le_bytes());
        let size = (2 * n).next_power_of_two();
        let mut table = vec![0u32; size];
        for rank in 0..n {
            let mut i = rank_hash(bpe.token_bytes(rank as u32)) as usize & (size - 1);
            while table[i] != 0 {
                i = (i + 1) & (size - 1);
            }
            table[i] = rank as u32 + 1;
        }
        let table: Vec<u8> = table.iter().flat_map(|v| v.to_le_bytes()).collect();
        for (ext, bytes) in [("blob", &blob), ("offsets", &offsets), ("table", &table)] {
            std::fs::write(out.join(format!("{name}.{ext}")), bytes)
                .expect("the build's output directory is writable");
        }
    }
}
