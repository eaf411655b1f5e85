//! Token counts of OpenAI's cl100k and o200k BPEs with no load step: the ranks are tables in
//! the binary (written by the build script, `host/build.rs`), read in place, and a piece's
//! count is the byte-pair merge by rank that defines these encodings (OpenAI's tiktoken):
//! start from single bytes and merge, again and again, the adjacent pair whose joined bytes
//! are the token of the lowest rank (the leftmost on a tie), until no adjacent pair is a
//! token.
//!
//! Why not `bpe-openai` at run time: its first use in a process decodes a MessagePack
//! dictionary and builds Aho-Corasick automata, 26 ms of CPU and some 5,800 page faults,
//! paid by every worker child on its first chunks job and by every CLI run. Here a count
//! touches only the table pages it reads. `bpe-openai` still supplies the tokens to the build
//! script, and the tests compare every count with it.

include!("rank_hash.rs");

/// One BPE's tables (see the build script for their layout).
pub struct Ranks {
    blob: &'static [u8],
    offsets: &'static [u8],
    table: &'static [u8],
}

pub static CL100K: Ranks = Ranks {
    blob: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.blob")),
    offsets: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.offsets")),
    table: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.table")),
};

pub static O200K: Ranks = Ranks {
    blob: include_bytes!(concat!(env!("OUT_DIR"), "/o200k.blob")),
    offsets: include_bytes!(concat!(env!("OUT_DIR"), "/o200k.offsets")),
    table: include_bytes!(concat!(env!("OUT_DIR"), "/o200k.table")),
};

/// No token: a pair that cannot merge.
const NONE: u32 = u32::MAX;

/// Pieces up to this long (bytes) are merged by scanning their parts, on the stack; longer
/// ones through a heap, so that a long piece (CJK text without spaces, a base64 blob) is not
/// quadratic.
const SHORT: usize = 64;

#[inline(always)]
fn u32_at(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([
        bytes[4 * i],
        bytes[4 * i + 1],
        bytes[4 * i + 2],
        bytes[4 * i + 3],
    ])
}

impl Ranks {
    /// How many tokens the BPE has.
    pub fn tokens(&self) -> usize {
        self.offsets.len() / 4 - 1
    }

    /// The bytes of the token of `rank`.
    pub fn token(&self, rank: u32) -> &'static [u8] {
        let (a, b) = (
            u32_at(self.offsets, rank as usize),
            u32_at(self.offsets, rank as usize + 1),
        );
        &self.blob[a as usize..b as usize]
    }

    /// The rank of the token whose bytes are `bytes`, or [`NONE`].
    #[inline]
    fn rank_or_none(&self, bytes: &[u8]) -> u32 {
        let mask = self.table.len() / 4 - 1;
        let mut i = rank_hash(bytes) as usize & mask;
        loop {
            let entry = u32_at(self.table, i);
            if entry == 0 {
                return NONE;
            }
            if self.token(entry - 1) == bytes {
                return entry - 1;
            }
            i = (i + 1) & mask;
        }
    }

    /// The rank of the token whose bytes are `bytes`.
    pub fn rank(&self, bytes: &[u8]) -> Option<u32> {
        Some(self.rank_or_none(bytes)).filter(|&r| r != NONE)
    }

    /// How many tokens `piece` (one piece of the pre-tokenizer) encodes to.
    pub fn count(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 {
            return piece.len();
        }
        if self.rank_or_none(piece) != NONE {
            return 1;
        }
        if piece.len() <= SHORT {
            self.count_short(piece)
        } else {
            self.count_long(piece)
        }
    }

    /// The merge by scanning: parts are (start, rank of the part joined with the next one),
    /// with two sentinels at the end.
    fn count_short(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        let mut parts = [(0usize, NONE); SHORT + 1];
        for (i, part) in parts.iter_mut().enumerate().take(n - 1) {
            *part = (i, self.rank_or_none(&piece[i..i + 2]));
        }
        parts[n - 1] = (n - 1, NONE);
        parts[n] = (n, NONE);
        let mut len = n + 1;
        // The rank of parts i and i + 1 joined once part i + 1 has taken in part i + 2.
        let joined = |parts: &[(usize, u32)], len: usize, i: usize| {
            if i + 3 < len {
                self.rank_or_none(&piece[parts[i].0..parts[i + 3].0])
            } else {
                NONE
            }
        };
        loop {
            let mut best = (NONE, 0);
            for (i, &(_, rank)) in parts[..len - 1].iter().enumerate() {
                if rank < best.0 {
                    best = (rank, i);
                }
            }
            if best.0 == NONE {
                return len - 1;
            }
            let i = best.1;
            if i > 0 {
                parts[i - 1].1 = joined(&parts, len, i - 1);
            }
            parts[i].1 = joined(&parts, len, i);
            parts.copy_within(i + 2..len, i + 1);
            len -= 1;
        }
    }

    /// The same merge with a heap of candidate pairs (rank, start) over a linked list of
    /// parts; a candidate whose parts have changed since it was pushed is dropped when popped.
    fn count_long(&self, piece: &[u8]) -> usize {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let n = piece.len();
        // next[s]: where the part starting at s ends (n for the last); alive[s]: a part
        // starts at s; prev[s]: where the part before it starts.
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut alive = vec![true; n];
        let mut heap = BinaryHeap::with_capacity(n);
        for i in 0..n - 1 {
            let rank = self.rank_or_none(&piece[i..i + 2]);
            if rank != NONE {
                heap.push(Reverse((rank, i, i + 2)));
            }
        }
        let mut parts = n;
        while let Some(Reverse((_, start, end))) = heap.pop() {
            // Still the pair it was: both parts alive and together spanning start..end.
            let mid = next[start];
            if !alive[start] || mid >= n || next[mid] != end {
                continue;
            }
            alive[mid] = false;
            next[start] = end;
            if end < n {
                prev[end] = start;
            }
            parts -= 1;
            if end < n {
                let after = next[end];
                let rank = self.rank_or_none(&piece[start..after]);
                if rank != NONE {
                    heap.push(Reverse((rank, start, after)));
                }
            }
            if start > 0 {
                let before = prev[start];
                let rank = self.rank_or_none(&piece[before..end]);
                if rank != NONE {
                    heap.push(Reverse((rank, before, end)));
                }
            }
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both() -> [(&'static Ranks, &'static bpe_openai::Tokenizer); 2] {
        [
            (&CL100K, bpe_openai::cl100k_base()),
            (&O200K, bpe_openai::o200k_base()),
        ]
    }

    #[test]
    fn every_token_looks_up_to_its_own_rank() {
        for (ranks, bpe) in both() {
            assert_eq!(ranks.tokens(), bpe.bpe.num_tokens());
            for rank in 0..ranks.tokens() as u32 {
                assert_eq!(ranks.token(rank), bpe.bpe.token_bytes(rank));
                assert_eq!(ranks.rank(ranks.token(rank)), Some(rank));
            }
            for bytes in [&b""[..], b"\xff\xfe\xfd\xfc", b"zzqxzzqxzzqx", &[0u8; 9]] {
                assert_eq!(ranks.rank(bytes), None, "{bytes:?}");
            }
        }
    }

    /// A seeded generator of text mixing scripts, digits, punctuation and whitespace runs.
    fn random_text(seed: u64, len: usize) -> String {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabets: [&[char]; 8] = [
            &['a', 'e', 't', 'n', 's', 'r', 'h', 'l', 'T', 'W', 'q', 'x'],
            &['é', 'ü', 'ß', 'ø', 'ñ', 'Å', 'ç'],
            &['東', '京', 'の', 'デ', 'ー', 'タ', '는', '한', '국'],
            &['😀', '👍', '🏳', '\u{200d}', '🌈'],
            &['0', '1', '2', '3', '7', '9'],
            &['.', ',', '!', '?', '\'', '"', '(', ')', '-', '/', '#', '*'],
            &[' ', ' ', ' ', '\n', '\t', '\r', '\u{a0}'],
            &['в', 'ы', 'Ж', 'α', 'Ω', 'ש', 'ع', 'क', '्'],
        ];
        let mut s = String::new();
        while s.chars().count() < len {
            let set = alphabets[(next() % 8) as usize];
            let run = 1 + (next() % 12) as usize;
            for _ in 0..run {
                s.push(set[(next() % set.len() as u64) as usize]);
            }
        }
        s
    }

    #[test]
    fn counts_equal_the_encoders_on_random_text() {
        for (ranks, bpe) in both() {
            for seed in 0..300u64 {
                let text = random_text(seed.wrapping_mul(0x9e37_79b9), 200);
                for piece in bpe.split(&text) {
                    assert_eq!(
                        ranks.count(piece.as_bytes()),
                        bpe.bpe.count(piece.as_bytes()),
                        "{piece:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn long_pieces_count_as_the_encoder_does() {
        // CJK without spaces, a base64-like run, repeated letters and symbol runs: pieces
        // longer than the scanning merge takes, on both sides of its limit.
        let base64: String = (0..3000)
            .map(|i| {
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(i * 37) % 64]
                    as char
            })
            .collect();
        let cjk: String = "東京都の人口データは毎年更新されています".repeat(40);
        let texts = [
            base64,
            cjk,
            "a".repeat(500),
            "=-".repeat(300),
            "x".repeat(SHORT),
            "x".repeat(SHORT + 1),
        ];
        for (ranks, bpe) in both() {
            for text in &texts {
                for piece in bpe.split(text) {
                    assert_eq!(
                        ranks.count(piece.as_bytes()),
                        bpe.bpe.count(piece.as_bytes()),
                        "{} bytes",
                        piece.len()
                    );
                }
                for cut in [SHORT - 1, SHORT, SHORT + 1, 2 * SHORT + 3] {
                    let bytes = &text.as_bytes()[..cut.min(text.len())];
                    assert_eq!(ranks.count(bytes), bpe.bpe.count(bytes), "cut {cut}");
                }
            }
        }
    }

    #[test]
    fn the_heap_merge_equals_the_scanning_merge() {
        let mut state = 0x1234_5678_9abc_def1u64;
        for (ranks, _) in both() {
            for round in 0..2000 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let len = 2 + (state % (SHORT as u64 - 1)) as usize;
                let bytes: Vec<u8> = (0..len)
                    .map(|i| {
                        let v = state.rotate_left(i as u32 * 7) as u8;
                        // Mostly letters, so that pairs merge.
                        if round % 3 == 0 {
                            v
                        } else {
                            b"aenst rl."[(v % 9) as usize]
                        }
                    })
                    .collect();
                assert_eq!(
                    ranks.count_short(&bytes),
                    ranks.count_long(&bytes),
                    "{bytes:?}"
                );
            }
        }
    }

    #[test]
    fn corpus_text_counts_as_the_encoder_does() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
        let Ok(dirs) = std::fs::read_dir(&corpus) else {
            eprintln!("no corpus at {}: skipped", corpus.display());
            return;
        };
        let mut files = 0;
        for dir in dirs.flatten() {
            let ext = dir.file_name().to_string_lossy().into_owned();
            if !matches!(ext.as_str(), "md" | "txt" | "html" | "csv" | "json" | "xml") {
                continue;
            }
            for file in std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let Ok(bytes) = std::fs::read(file.path()) else {
                    continue;
                };
                let text = String::from_utf8_lossy(&bytes);
                for (ranks, bpe) in both() {
                    let ours: usize = bpe.split(&text).map(|p| ranks.count(p.as_bytes())).sum();
                    assert_eq!(ours, bpe.count(&*text), "{}", file.path().display());
                }
                files += 1;
            }
        }
        assert!(files > 0, "no text files under {}", corpus.display());
    }
}
