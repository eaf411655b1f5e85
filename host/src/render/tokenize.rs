//! Token counting for chunks: the built-in OpenAI BPEs (`cl100k`, `o200k`: their ranks are
//! tables compiled into the binary and read in place, [`super::ranks`], so they have no load
//! step) and HuggingFace `tokenizer.json` files the operator names in configuration
//! (`CHUNK_TOKENIZERS`). Nothing is fetched at run time.
//!
//! A `tokenizer.json` is loaded once per process and kept (cached by path), so a worker child
//! pays for it on its first chunks job only. [`preload`] starts that load on a thread of its
//! own when a chunks conversion begins, so that it overlaps the conversion.

use super::pretokenize::{self, Pattern};
use super::ranks::{self, Ranks};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The built-in tokenizers, in the order they are listed.
pub const BUILT_IN: [&str; 2] = ["cl100k", "o200k"];

/// The default tokenizer of a chunks job.
pub const DEFAULT: &str = "cl100k";

/// Which tokenizer a chunks job counts with: a built-in name, or an operator-named
/// `tokenizer.json` (resolved to its file when the job is accepted).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TokenizerSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
}

impl Default for TokenizerSpec {
    fn default() -> Self {
        TokenizerSpec {
            name: DEFAULT.to_owned(),
            file: None,
        }
    }
}

impl TokenizerSpec {
    /// Resolves a requested name against the built-ins and the configured files
    /// (`name=path` pairs); `None` when the name is unknown.
    pub fn resolve(name: &str, files: &[(String, PathBuf)]) -> Option<TokenizerSpec> {
        let name = name.trim();
        if BUILT_IN.contains(&name) {
            return Some(TokenizerSpec {
                name: name.to_owned(),
                file: None,
            });
        }
        files
            .iter()
            .find(|(n, _)| n == name)
            .map(|(n, p)| TokenizerSpec {
                name: n.clone(),
                file: Some(p.clone()),
            })
    }
}

/// Parses `CHUNK_TOKENIZERS`: `name=path` pairs separated by commas. Names must not shadow a
/// built-in and must be unique.
pub fn parse_files(setting: &str) -> Result<Vec<(String, PathBuf)>, String> {
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    for item in setting.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((name, path)) = item.split_once('=') else {
            return Err(format!("\"{item}\" is not name=path"));
        };
        let (name, path) = (name.trim(), path.trim());
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(format!(
                "tokenizer name \"{name}\" must be letters, digits, '-', '_' or '.'"
            ));
        }
        if BUILT_IN.contains(&name) || out.iter().any(|(n, _)| n == name) {
            return Err(format!("tokenizer name \"{name}\" is used twice"));
        }
        if path.is_empty() {
            return Err(format!("tokenizer \"{name}\" has no file"));
        }
        out.push((name.to_owned(), PathBuf::from(path)));
    }
    Ok(out)
}

/// Counts tokens.
pub trait TokenCounter: Send + Sync {
    fn count(&self, text: &str) -> usize;

    /// The count of `text` and the byte offset where its last pre-tokenizer piece starts, for
    /// tokenizers whose pieces never span a run of line breaks between two non-blank texts
    /// (OpenAI's BPEs: see [`joined_count`]); `None` for the others, whose joined texts must
    /// be counted whole.
    fn count_tail(&self, text: &str) -> (usize, Option<usize>) {
        (self.count(text), None)
    }
}

/// One of OpenAI's BPEs; `slot` names its piece cache ([`PIECES`]), `pattern` its
/// pre-tokenizer (the same pieces as `bpe_openai::Tokenizer::split`, written out by hand).
struct OpenAi {
    ranks: &'static Ranks,
    slot: usize,
    pattern: Pattern,
}

/// Pieces at most this long (bytes) are cached: words and the spaces and punctuation around
/// them, which repeat; longer pieces (runs of digits, CJK text without spaces) rarely do.
const CACHED_PIECE: usize = 24;

/// Sets of the piece cache (two pieces each) per tokenizer and thread: 2 MB.
const CACHE_SETS: usize = 1 << 15;

/// Sets of a thread's first piece cache (128 KB), enough for a short document's words; it
/// is replaced by one of [`CACHE_SETS`] once [`GROW_AFTER`] bytes of text have been counted
/// with it. Clearing 2 MB for every process that chunks a page cost more than counting the
/// page (the allocator hands a block it has used before, so it is written with zeros, not
/// mapped zeroed).
const FIRST_CACHE_SETS: usize = 1 << 11;

/// Text counted (bytes) before the piece cache grows to [`CACHE_SETS`].
const GROW_AFTER: usize = 256 * 1024;

/// Pieces the cache holds at most.
#[cfg(test)]
const CACHED_PIECES: usize = 2 * CACHE_SETS;

/// A cached piece: its bytes zero-padded to [`CACHED_PIECE`], its length (0 in an empty slot;
/// no piece is empty) and its token count (at most one a byte).
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Slot {
    words: [u64; 3],
    len: u8,
    tokens: u8,
}

/// Two slots that share a hash, in one cache line: the piece used last first.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Set([Slot; 2]);

/// The up to eight bytes of `b` as a little-endian word, without copying them to a buffer.
#[inline(always)]
fn word(b: &[u8]) -> u64 {
    let n = b.len();
    let at = |i: usize| b[i] as u64;
    match n {
        0 => 0,
        1..=3 => at(0) | (at(n / 2) << (8 * (n / 2))) | (at(n - 1) << (8 * (n - 1))),
        _ => {
            // Two four-byte reads that overlap when fewer than eight bytes.
            let lo = u32::from_le_bytes(b[..4].try_into().expect("four bytes")) as u64;
            let hi = u32::from_le_bytes(b[n - 4..].try_into().expect("four bytes")) as u64;
            lo | (hi << (8 * (n - 4)))
        }
    }
}

impl Slot {
    /// The slot of a piece of 1 to [`CACHED_PIECE`] bytes, its count not yet known.
    #[inline(always)]
    fn key(piece: &[u8]) -> Slot {
        let n = piece.len();
        Slot {
            words: [
                word(&piece[..n.min(8)]),
                word(&piece[n.min(8)..n.min(16)]),
                word(&piece[n.min(16)..]),
            ],
            len: n as u8,
            tokens: 0,
        }
    }

    #[inline(always)]
    fn holds(&self, key: &Slot) -> bool {
        self.words == key.words && self.len == key.len
    }

    /// Which set of a cache of `2^bits` sets the piece goes to.
    #[inline(always)]
    fn set(&self, bits: u32) -> usize {
        const K: u64 = 0x9e37_79b9_7f4a_7c15;
        let [a, b, c] = self.words;
        let h = a.wrapping_mul(K);
        let h = (h.rotate_left(26) ^ b).wrapping_mul(K);
        let h = (h.rotate_left(26) ^ c ^ self.len as u64).wrapping_mul(K);
        (h >> (64 - bits)) as usize
    }
}

thread_local! {
    /// Token counts of the pieces already encoded on this thread, one cache per built-in BPE
    /// (allocated on first use). A piece is encoded alone, so its count depends on nothing
    /// else; natural text repeats its words, and the encoder allocates twice per piece. Two
    /// pieces a set: a third that lands there takes the place of the one used less recently.
    static PIECES: std::cell::RefCell<[Cache; 2]> = std::cell::RefCell::new(Default::default());
}

/// A thread's piece cache for one BPE: its sets (a power of two of them, none before first
/// use) and how much text it has counted.
#[derive(Default)]
struct Cache {
    sets: Vec<Set>,
    counted: usize,
}

impl Cache {
    /// Makes the cache ready to count `len` more bytes: allocated on first use, grown to
    /// [`CACHE_SETS`] (empty again) once it has counted [`GROW_AFTER`] bytes.
    fn prepare(&mut self, len: usize) {
        if self.sets.is_empty() {
            self.sets = vec![Set::default(); FIRST_CACHE_SETS];
        } else if self.sets.len() < CACHE_SETS && self.counted >= GROW_AFTER {
            self.sets = vec![Set::default(); CACHE_SETS];
        }
        self.counted = self.counted.saturating_add(len);
    }
}

impl OpenAi {
    /// The count of `piece`; `key` and `set` are its slot and set when it is short enough
    /// to be cached.
    #[inline]
    fn piece(&self, cache: &mut [Set], piece: &str, mut key: Slot, set: usize) -> usize {
        if piece.len() > CACHED_PIECE {
            return self.ranks.count(piece.as_bytes());
        }
        let set = &mut cache[set].0;
        if set[0].holds(&key) {
            return set[0].tokens as usize;
        }
        if set[1].holds(&key) {
            set.swap(0, 1);
            return set[0].tokens as usize;
        }
        let n = self.ranks.count(piece.as_bytes());
        debug_assert!(n <= piece.len());
        key.tokens = n as u8;
        set[1] = set[0];
        set[0] = key;
        n
    }
}

impl TokenCounter for OpenAi {
    fn count(&self, text: &str) -> usize {
        self.count_tail(text).0
    }

    fn count_tail(&self, text: &str) -> (usize, Option<usize>) {
        // What `Tokenizer::count` does (cl100k and o200k do not normalise), keeping the start
        // of the last piece.
        PIECES.with_borrow_mut(|caches| {
            let cache = &mut caches[self.slot];
            cache.prepare(text.len());
            let bits = cache.sets.len().trailing_zeros();
            let cache = &mut cache.sets[..];
            // Pieces are split and their sets fetched a batch at a time, then looked up: the
            // cache's memory is read for several pieces at once instead of one after another
            // (its misses were the largest cost of counting).
            let mut pieces = pretokenize::split(self.pattern, text);
            let mut batch = [("", Slot::default(), 0usize); BATCH];
            let mut n = 0;
            let mut last = None;
            loop {
                let mut k = 0;
                while k < BATCH {
                    let Some(piece) = pieces.next() else { break };
                    let entry = &mut batch[k];
                    entry.0 = piece;
                    if piece.len() <= CACHED_PIECE {
                        entry.1 = Slot::key(piece.as_bytes());
                        entry.2 = entry.1.set(bits);
                        prefetch(&cache[entry.2]);
                    }
                    k += 1;
                }
                if let Some((piece, ..)) = batch[..k].last() {
                    last = Some(piece.as_ptr() as usize - text.as_ptr() as usize);
                }
                for (piece, key, set) in &batch[..k] {
                    n += self.piece(cache, piece, *key, *set);
                }
                if k < BATCH {
                    return (n, last);
                }
            }
        })
    }
}

/// Pieces split before their counts are looked up.
const BATCH: usize = 16;

/// Asks for the cache line of `set` to be read, without waiting for it.
#[inline(always)]
fn prefetch(set: &Set) {
    // SAFETY: a prefetch reads nothing the program sees and never faults; the pointer is a
    // valid reference besides. SSE is part of every x86-64 target.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (set as *const Set).cast::<i8>(),
        )
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = set;
}

/// The count of `a`, a run of line breaks `sep`, then `b`, from the counts of `a` and `b`
/// alone: `a_tokens`, `a_tail` (where `a`'s last piece starts, from
/// [`TokenCounter::count_tail`]) and `b_tokens`. `None` when the rule does not apply (then the
/// joined text is counted whole).
///
/// Why it is exact for OpenAI's pre-tokenizers (cl100k, o200k): their pattern splits text into
/// pieces that are each encoded alone, and the piece that starts at a position depends only
/// on the text from there on. With `a` ending and `b` starting on a non-blank character and
/// `sep` only `\r`/`\n`: `a`'s pieces stay as they are except its last, which either takes
/// the line breaks in (a punctuation run: ` ?[^\s\p{L}\p{N}]+[\r\n]*`) or ends before
/// them (letters and digits stop at a line break); the breaks not taken in are one piece
/// (`\s*[\r\n]+`, stopping at `b`'s first character, which no pattern can take from a
/// line break); `b`'s pieces then start at `b` exactly as they do alone. Hence the count is
/// `a_tokens + b_tokens` plus what `last piece + sep` counts beyond the last piece alone.
pub fn joined_count(
    counter: &dyn TokenCounter,
    a: &str,
    a_tokens: usize,
    a_tail: Option<usize>,
    sep: &str,
    b: &str,
    b_tokens: usize,
) -> Option<usize> {
    let tail = a_tail?;
    let blank_end = a.chars().next_back().is_none_or(char::is_whitespace);
    let blank_start = b.chars().next().is_none_or(char::is_whitespace);
    if blank_end || blank_start || sep.is_empty() || !sep.bytes().all(|c| c == b'\n' || c == b'\r')
    {
        return None;
    }
    let last = a.get(tail..)?;
    let mut joint = String::with_capacity(last.len() + sep.len());
    joint.push_str(last);
    joint.push_str(sep);
    let extra = counter.count(&joint).checked_sub(counter.count(last))?;
    Some(a_tokens + extra + b_tokens)
}

struct HuggingFace(tokenizers::Tokenizer);

impl TokenCounter for HuggingFace {
    fn count(&self, text: &str) -> usize {
        // Special tokens (BOS/EOS) are not part of the text: counted without them.
        match self.0.encode_fast(text, false) {
            Ok(enc) => enc.len(),
            // A tokenizer that cannot encode some text still needs an upper bound: bytes.
            Err(_) => text.len(),
        }
    }
}

/// The counter for `spec`, loaded on first use and kept for the process.
pub fn counter(spec: &TokenizerSpec) -> Result<Arc<dyn TokenCounter>, String> {
    match (spec.name.as_str(), &spec.file) {
        ("cl100k", None) => Ok(Arc::new(OpenAi {
            ranks: &ranks::CL100K,
            slot: 0,
            pattern: Pattern::Cl100k,
        })),
        ("o200k", None) => Ok(Arc::new(OpenAi {
            ranks: &ranks::O200K,
            slot: 1,
            pattern: Pattern::O200k,
        })),
        (_, Some(path)) => load_file(path),
        (name, None) => Err(format!("Unknown tokenizer {name}.")),
    }
}

/// Starts loading the counter for `spec` on a thread of its own and returns at once; the
/// first call per tokenizer and process only. A chunks conversion calls it before converting:
/// the load of a `tokenizer.json` then runs beside the conversion, and [`counter`] waits for
/// what is left of it. A load that fails is reported by that later call. The built-in BPEs
/// have nothing to load.
pub fn preload(spec: &TokenizerSpec) {
    if spec.file.is_none() {
        return;
    }
    static STARTED: OnceLock<Mutex<std::collections::HashSet<TokenizerSpec>>> = OnceLock::new();
    let started = STARTED.get_or_init(Default::default);
    if !started
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(spec.clone())
    {
        return;
    }
    let spec = spec.clone();
    // Without a thread (none left under the memory limit) the load happens when it is needed.
    let _ = std::thread::Builder::new()
        .name("tokenizer-load".into())
        .spawn(move || {
            let _ = counter(&spec);
        });
}

/// A `tokenizer.json` counter: loaded once per path and process, however many threads ask
/// for it at once (the others wait for the first one's load). A load that failed is tried
/// again by the next call: the operator may have mended the file since.
fn load_file(path: &Path) -> Result<Arc<dyn TokenCounter>, String> {
    type Slot = Arc<Mutex<Option<Arc<dyn TokenCounter>>>>;
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, Slot>>> = OnceLock::new();
    let slot = LOADED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(path.to_owned())
        .or_default()
        .clone();
    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(c) = slot.as_ref() {
        return Ok(c.clone());
    }
    let tokenizer = tokenizers::Tokenizer::from_file(path).map_err(|e| {
        tracing::warn!(path = %path.display(), error = %e, "tokenizer file could not be loaded");
        "The configured tokenizer file could not be loaded.".to_owned()
    })?;
    let counter: Arc<dyn TokenCounter> = Arc::new(HuggingFace(tokenizer));
    *slot = Some(counter.clone());
    Ok(counter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_count_like_tiktoken() {
        // Reference counts from OpenAI's tiktoken for these strings.
        let c = counter(&TokenizerSpec::default()).unwrap();
        assert_eq!(c.count("hello world"), 2);
        assert_eq!(c.count(""), 0);
        let o = counter(&TokenizerSpec::resolve("o200k", &[]).unwrap()).unwrap();
        assert_eq!(o.count("hello world"), 2);
    }

    #[test]
    fn cached_pieces_count_as_the_encoder_does() {
        // Repeated words (cached after their first piece), long digit and CJK runs (never
        // cached), pieces that differ only in trailing NUL bytes, pieces of 24 and 25 bytes
        // (the longest cached and the shortest not), both BPEs on one thread, and a cache
        // that starts again when full.
        let text = "The cat sat on the mat.  The cat sat again!\n\n12345678901234567890123456789 \
                    東京のデータは東京のデータです。 naïve café, naïve café; ok?? ok??\r\n\
                    a\0 a\0\0 a\0 a a\0\0\0 abcdefghijklmnopqrstuvw abcdefghijklmnopqrstuvwx \
                    abcdefghijklmnopqrstuvw abcdefghijklmnopqrstuvwx";
        for (name, bpe) in [
            ("cl100k", bpe_openai::cl100k_base()),
            ("o200k", bpe_openai::o200k_base()),
        ] {
            let c = counter(&TokenizerSpec {
                name: name.into(),
                file: None,
            })
            .unwrap();
            for round in 0..3 {
                assert_eq!(c.count(text), bpe.count(text), "{name} round {round}");
                for cut in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
                    assert_eq!(
                        c.count(&text[cut..]),
                        bpe.count(&text[cut..]),
                        "{name} {cut}"
                    );
                }
            }
        }
        let c = counter(&TokenizerSpec::default()).unwrap();
        let words: String = (0..CACHED_PIECES + 10).map(|i| format!(" w{i}")).collect();
        assert_eq!(
            c.count(&words),
            bpe_openai::cl100k_base().count(words.as_str())
        );
        assert_eq!(
            c.count(&words),
            bpe_openai::cl100k_base().count(words.as_str())
        );
    }

    #[test]
    fn count_tail_tells_where_the_last_piece_starts() {
        // Texts of 0 to 40 pieces: within one batch of lookups, at its end and past it.
        for (name, bpe) in [
            ("cl100k", bpe_openai::cl100k_base()),
            ("o200k", bpe_openai::o200k_base()),
        ] {
            let c = counter(&TokenizerSpec::resolve(name, &[]).unwrap()).unwrap();
            let mut text = String::new();
            for i in 0..40 {
                let pieces: Vec<&str> = bpe.split(&text).collect();
                assert_eq!(pieces.len(), i, "{text:?}");
                let last = pieces.last().map(|p| text.len() - p.len());
                assert_eq!(c.count_tail(&text), (bpe.count(text.as_str()), last));
                text.push_str([" word", "!", " 東京のデータ", " supercalifragilistic"][i % 4]);
            }
        }
    }

    #[test]
    fn cache_keys_are_the_padded_bytes() {
        let bytes: Vec<u8> = (1..=CACHED_PIECE as u8).map(|b| b * 7).collect();
        for n in 1..=CACHED_PIECE {
            let mut padded = [0u8; CACHED_PIECE];
            padded[..n].copy_from_slice(&bytes[..n]);
            let words: Vec<u64> = padded
                .chunks(8)
                .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
                .collect();
            let key = Slot::key(&bytes[..n]);
            assert_eq!(key.words.to_vec(), words, "{n}");
            assert_eq!(key.len as usize, n);
            assert!(key.set(15) < CACHE_SETS);
            assert!(key.set(11) < FIRST_CACHE_SETS);
        }
    }

    #[test]
    fn files_setting_is_checked() {
        let files = parse_files("bge = /m/bge.json, mini=/m/mini.json").unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0], ("bge".to_owned(), PathBuf::from("/m/bge.json")));
        let spec = TokenizerSpec::resolve("mini", &files).unwrap();
        assert_eq!(spec.file.as_deref(), Some(Path::new("/m/mini.json")));
        assert!(TokenizerSpec::resolve("gpt2", &files).is_none());
        assert!(parse_files("cl100k=/x.json").is_err());
        assert!(parse_files("a=/x,a=/y").is_err());
        assert!(parse_files("noequals").is_err());
        assert!(parse_files("a b=/x").is_err());
        assert!(parse_files("").unwrap().is_empty());
    }

    /// A HuggingFace `tokenizer.json` of a word-level model: one token a word, unknown
    /// words included.
    const WORD_LEVEL: &str = r#"{"version":"1.0","truncation":null,"padding":null,
        "added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"Whitespace"},
        "post_processor":null,"decoder":null,
        "model":{"type":"WordLevel","vocab":{"[UNK]":0,"hello":1,"world":2},"unk_token":"[UNK]"}}"#;

    #[test]
    fn a_tokenizer_file_loads_once_for_every_thread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("words.json");
        std::fs::write(&path, WORD_LEVEL).unwrap();
        let spec = TokenizerSpec {
            name: "words".into(),
            file: Some(path),
        };
        preload(&spec);
        preload(&spec);
        let counters: Vec<Arc<dyn TokenCounter>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| counter(&spec).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for c in &counters {
            assert!(Arc::ptr_eq(c, &counters[0]));
            assert_eq!(c.count("hello world, unknown"), 4);
        }
    }

    #[test]
    fn a_tokenizer_file_that_failed_to_load_is_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("later.json");
        let spec = TokenizerSpec {
            name: "later".into(),
            file: Some(path.clone()),
        };
        preload(&spec);
        assert!(counter(&spec).is_err());
        std::fs::write(&path, WORD_LEVEL).unwrap();
        assert_eq!(counter(&spec).unwrap().count("hello world"), 2);
    }

    #[test]
    fn a_missing_file_is_a_clear_error() {
        let spec = TokenizerSpec {
            name: "x".into(),
            file: Some(PathBuf::from("/nonexistent/tokenizer.json")),
        };
        let e = counter(&spec).err().unwrap();
        assert_eq!(e, "The configured tokenizer file could not be loaded.");
    }
}
