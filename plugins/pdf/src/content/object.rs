//! PDF objects and the file's cross-reference: just enough of the format to find pages,
//! their resources and content streams without PDFium.
//!
//! Lazy: an object is parsed when it is asked for (and kept), so a document whose pages are
//! read in order touches each object once. Anything unexpected (a damaged table, an offset
//! that does not hold the object it should, an encrypted file) makes [`Doc::open`] or the
//! lookup fail, and the caller falls back to PDFium, which recovers damaged files.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A PDF object. Streams keep their dictionary and the range of their raw data.
#[derive(Debug, Clone, PartialEq)]
pub enum Obj {
    Null,
    Bool(bool),
    Int(i64),
    Real(f64),
    Name(Rc<[u8]>),
    Str(Rc<[u8]>),
    Array(Rc<[Obj]>),
    Dict(Rc<Dict>),
    Stream(Rc<Stream>),
    Ref(u32, u16),
}

#[derive(Debug, Default, PartialEq)]
pub struct Dict(pub Vec<(Rc<[u8]>, Obj)>);

impl Dict {
    pub fn get(&self, key: &[u8]) -> Option<&Obj> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }
}

#[derive(Debug, PartialEq)]
pub struct Stream {
    pub dict: Dict,
    /// The stream's raw bytes: a range of the file, or owned (inside an object stream no
    /// stream may live, so owned only for tests).
    pub data: std::ops::Range<usize>,
}

impl Obj {
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Obj::Int(i) => Some(*i as f64),
            Obj::Real(r) => Some(*r),
            _ => None,
        }
    }
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Obj::Int(i) => Some(*i),
            Obj::Real(r) if r.fract() == 0.0 => Some(*r as i64),
            _ => None,
        }
    }
    pub fn as_name(&self) -> Option<&[u8]> {
        match self {
            Obj::Name(n) => Some(n),
            _ => None,
        }
    }
    pub fn as_dict(&self) -> Option<&Dict> {
        match self {
            Obj::Dict(d) => Some(d),
            Obj::Stream(s) => Some(&s.dict),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Obj]> {
        match self {
            Obj::Array(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&[u8]> {
        match self {
            Obj::Str(s) => Some(s),
            _ => None,
        }
    }
}

pub fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t' | b'\x0c' | b'\0')
}

pub fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// A token of the PDF syntax (objects and content streams share it).
#[derive(Debug, Clone, PartialEq)]
pub enum Tok<'a> {
    Int(i64),
    Real(f64),
    Name(&'a [u8]),
    Str(Vec<u8>),
    ArrayOpen,
    ArrayClose,
    DictOpen,
    DictClose,
    /// A bare word: operator, `true`, `null`, `R`, `obj`, ...
    Word(&'a [u8]),
}

/// A lexer over a byte slice; `None` at the end or on bytes that are no token.
pub struct Lexer<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
}

/// Nesting of arrays and dictionaries and lengths of strings are bounded by the input's
/// length; nothing here recurses on the input except [`Parser::object`] (bounded).
impl<'a> Lexer<'a> {
    pub fn new(buf: &'a [u8], pos: usize) -> Lexer<'a> {
        Lexer { buf, pos }
    }

    pub fn skip_white(&mut self) {
        let b = self.buf;
        while self.pos < b.len() {
            let c = b[self.pos];
            if is_white(c) {
                self.pos += 1;
            } else if c == b'%' {
                while self.pos < b.len() && b[self.pos] != b'\n' && b[self.pos] != b'\r' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    pub fn next_tok(&mut self) -> Option<Tok<'a>> {
        self.skip_white();
        let b = self.buf;
        let c = *b.get(self.pos)?;
        match c {
            b'[' => {
                self.pos += 1;
                Some(Tok::ArrayOpen)
            }
            b']' => {
                self.pos += 1;
                Some(Tok::ArrayClose)
            }
            b'<' if b.get(self.pos + 1) == Some(&b'<') => {
                self.pos += 2;
                Some(Tok::DictOpen)
            }
            b'>' if b.get(self.pos + 1) == Some(&b'>') => {
                self.pos += 2;
                Some(Tok::DictClose)
            }
            b'<' => {
                self.pos += 1;
                Some(Tok::Str(self.hex_string()))
            }
            b'(' => {
                self.pos += 1;
                Some(Tok::Str(self.literal_string()))
            }
            b'/' => {
                self.pos += 1;
                let start = self.pos;
                while self.pos < b.len() && !is_white(b[self.pos]) && !is_delim(b[self.pos]) {
                    self.pos += 1;
                }
                Some(Tok::Name(&b[start..self.pos]))
            }
            b'0'..=b'9' | b'+' | b'-' | b'.' => Some(self.number()),
            b')' | b'>' | b'{' | b'}' => {
                self.pos += 1;
                Some(Tok::Word(&b[self.pos - 1..self.pos]))
            }
            _ => {
                let start = self.pos;
                while self.pos < b.len() && !is_white(b[self.pos]) && !is_delim(b[self.pos]) {
                    self.pos += 1;
                }
                Some(Tok::Word(&b[start..self.pos]))
            }
        }
    }

    fn number(&mut self) -> Tok<'a> {
        let b = self.buf;
        let start = self.pos;
        let mut neg = false;
        let mut int: i64 = 0;
        let mut frac = 0.0f64;
        let mut scale = 1.0f64;
        let mut real = false;
        let mut digits = 0;
        if b[self.pos] == b'+' || b[self.pos] == b'-' {
            neg = b[self.pos] == b'-';
            self.pos += 1;
        }
        // Producers write "--1" or "-.5"; PDFium and poppler read what they can.
        while self.pos < b.len() && (b[self.pos] == b'-' || b[self.pos] == b'+') {
            self.pos += 1;
        }
        while self.pos < b.len() {
            let c = b[self.pos];
            if c.is_ascii_digit() {
                digits += 1;
                if real {
                    scale /= 10.0;
                    frac += f64::from(c - b'0') * scale;
                } else {
                    int = int.saturating_mul(10).saturating_add(i64::from(c - b'0'));
                }
            } else if c == b'.' && !real {
                real = true;
            } else {
                break;
            }
            self.pos += 1;
        }
        if digits == 0 {
            // A lone sign or dot: a word (an unknown operator for the caller).
            if self.pos == start {
                self.pos += 1;
            }
            return Tok::Word(&b[start..self.pos]);
        }
        if real {
            let v = int as f64 + frac;
            Tok::Real(if neg { -v } else { v })
        } else {
            Tok::Int(if neg { -int } else { int })
        }
    }

    fn hex_string(&mut self) -> Vec<u8> {
        let b = self.buf;
        let mut out = Vec::new();
        let mut hi: Option<u8> = None;
        while self.pos < b.len() {
            let c = b[self.pos];
            self.pos += 1;
            let v = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                b'>' => break,
                _ => continue,
            };
            match hi.take() {
                Some(h) => out.push(h << 4 | v),
                None => hi = Some(v),
            }
        }
        if let Some(h) = hi {
            out.push(h << 4);
        }
        out
    }

    fn literal_string(&mut self) -> Vec<u8> {
        let b = self.buf;
        let mut out = Vec::new();
        let mut depth = 1usize;
        while self.pos < b.len() {
            let c = b[self.pos];
            self.pos += 1;
            match c {
                b'(' => {
                    depth += 1;
                    out.push(c);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    out.push(c);
                }
                b'\\' => {
                    let Some(&e) = b.get(self.pos) else { break };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match b.get(self.pos) {
                                    Some(&d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push(v as u8);
                        }
                        b'\r' => {
                            if b.get(self.pos) == Some(&b'\n') {
                                self.pos += 1;
                            }
                        }
                        b'\n' => {}
                        other => out.push(other),
                    }
                }
                b'\r' => {
                    // An end of line in a string reads as a line feed.
                    if b.get(self.pos) == Some(&b'\n') {
                        self.pos += 1;
                    }
                    out.push(b'\n');
                }
                _ => out.push(c),
            }
        }
        out
    }
}

/// Decodes `#xx` escapes of a name.
fn name_bytes(raw: &[u8]) -> Rc<[u8]> {
    if !raw.contains(&b'#') {
        return Rc::from(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'#' && i + 2 < raw.len() {
            let h = std::str::from_utf8(&raw[i + 1..i + 3])
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok());
            if let Some(v) = h {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(raw[i]);
        i += 1;
    }
    Rc::from(out)
}

/// Deepest nesting of arrays and dictionaries accepted.
const MAX_DEPTH: u32 = 64;

/// Parses one object from a token stream (references `n g R` recognised by look-ahead).
pub fn parse_object(lx: &mut Lexer<'_>, depth: u32) -> Option<Obj> {
    if depth > MAX_DEPTH {
        return None;
    }
    let tok = lx.next_tok()?;
    token_object(lx, tok, depth)
}

pub fn token_object(lx: &mut Lexer<'_>, tok: Tok<'_>, depth: u32) -> Option<Obj> {
    Some(match tok {
        Tok::Int(i) => {
            // `n g R`?
            let save = lx.pos;
            if let (Ok(n), Some(Tok::Int(g))) = (u32::try_from(i), lx.next_tok()) {
                if let Some(Tok::Word(b"R")) = lx.next_tok() {
                    return Some(Obj::Ref(n, g.clamp(0, 65535) as u16));
                }
            }
            lx.pos = save;
            Obj::Int(i)
        }
        Tok::Real(r) => Obj::Real(r),
        Tok::Name(n) => Obj::Name(name_bytes(n)),
        Tok::Str(s) => Obj::Str(Rc::from(s)),
        Tok::ArrayOpen => {
            let mut items = Vec::new();
            loop {
                let t = lx.next_tok()?;
                if t == Tok::ArrayClose {
                    break;
                }
                items.push(token_object(lx, t, depth + 1)?);
            }
            Obj::Array(Rc::from(items))
        }
        Tok::DictOpen => Obj::Dict(Rc::new(parse_dict_body(lx, depth)?)),
        Tok::Word(b"true") => Obj::Bool(true),
        Tok::Word(b"false") => Obj::Bool(false),
        Tok::Word(b"null") => Obj::Null,
        _ => return None,
    })
}

/// The entries of a dictionary after its `<<`, up to and with its `>>`.
pub fn parse_dict_body(lx: &mut Lexer<'_>, depth: u32) -> Option<Dict> {
    let mut entries = Vec::new();
    loop {
        match lx.next_tok()? {
            Tok::DictClose => break,
            Tok::Name(k) => {
                let v = parse_object(lx, depth + 1)?;
                entries.push((name_bytes(k), v));
            }
            _ => return None,
        }
    }
    Some(Dict(entries))
}

/// Where an object is stored.
#[derive(Debug, Clone, Copy)]
enum Loc {
    Offset(usize),
    /// In object stream `stream`, at `index`.
    InStream(u32, u32),
}

/// A decoded object stream: its data and the offsets of its objects.
type ObjStm = (Vec<u8>, Vec<usize>);

/// Objects resolved at most this many references deep in one lookup chain.
const MAX_CHAIN: u32 = 16;
/// Bytes of decoded stream data one document may hold at once in caches.
const MAX_STREAM: usize = 256 << 20;

/// A PDF file's objects.
pub struct Doc<'a> {
    pub bytes: &'a [u8],
    xref: HashMap<u32, Loc>,
    pub trailer: Dict,
    cache: RefCell<HashMap<u32, Obj>>,
    /// Decoded object streams: (first offset, data, offsets of the objects).
    objstms: RefCell<HashMap<u32, Rc<ObjStm>>>,
    /// Decoded-bytes budget (the document's inflate limit).
    pub max_inflated: u64,
    /// A reference could not be followed: what was read may be incomplete, so nothing more
    /// is read here (sticky for the document).
    pub broken: std::cell::Cell<bool>,
}

impl<'a> Doc<'a> {
    /// Reads the cross-reference chain; `None` when the file is damaged, encrypted or uses
    /// anything not read here.
    pub fn open(bytes: &'a [u8], max_inflated: u64) -> Option<Doc<'a>> {
        let tail_from = bytes.len().saturating_sub(2048);
        let Some(at) = memchr::memmem::rfind(&bytes[tail_from..], b"startxref") else {
            return Doc::without_xref(bytes, max_inflated);
        };
        let at = at + tail_from;
        let mut lx = Lexer::new(bytes, at + 9);
        let Some(Tok::Int(mut off)) = lx.next_tok() else {
            return None;
        };
        let mut doc = Doc {
            bytes,
            xref: HashMap::new(),
            trailer: Dict::default(),
            cache: RefCell::new(HashMap::new()),
            objstms: RefCell::new(HashMap::new()),
            max_inflated,
            broken: std::cell::Cell::new(false),
        };
        let mut seen = Vec::new();
        let mut first = true;
        loop {
            let o = usize::try_from(off).ok()?;
            if o >= bytes.len() || seen.contains(&o) || seen.len() > 64 {
                return None;
            }
            seen.push(o);
            let trailer = doc.read_section(o)?;
            // A hybrid file's cross-reference stream.
            if let Some(x) = trailer.get(b"XRefStm").and_then(Obj::as_i64) {
                let x = usize::try_from(x).ok()?;
                if x < bytes.len() {
                    doc.read_section(x)?;
                }
            }
            let prev = trailer.get(b"Prev").and_then(Obj::as_i64);
            if first {
                doc.trailer = trailer;
                first = false;
            }
            match prev {
                Some(p) => off = p,
                None => break,
            }
        }
        if doc.trailer.get(b"Encrypt").is_some() {
            return None;
        }
        Some(doc)
    }

    /// A file with no cross-reference at all (no `startxref` anywhere, as hand-written test
    /// files have it): its objects where a line starts with `n g obj`, the last of each
    /// number, and the last `trailer` dictionary, as PDFium rebuilds such a file. A file
    /// whose cross-reference is there but damaged is not read here.
    fn without_xref(bytes: &'a [u8], max_inflated: u64) -> Option<Doc<'a>> {
        if memchr::memmem::find(bytes, b"startxref").is_some() {
            return None;
        }
        let mut xref = HashMap::new();
        let starts =
            std::iter::once(0).chain(memchr::memchr2_iter(b'\n', b'\r', bytes).map(|i| i + 1));
        for p in starts {
            if !bytes.get(p).is_some_and(u8::is_ascii_digit) {
                continue;
            }
            let mut lx = Lexer::new(bytes, p);
            if let (Some(Tok::Int(num)), Some(Tok::Int(_)), Some(Tok::Word(b"obj"))) =
                (lx.next_tok(), lx.next_tok(), lx.next_tok())
            {
                xref.insert(u32::try_from(num).ok()?, Loc::Offset(p));
            }
        }
        let at = memchr::memmem::rfind(bytes, b"trailer")?;
        let mut lx = Lexer::new(bytes, at + 7);
        let Some(Tok::DictOpen) = lx.next_tok() else {
            return None;
        };
        let trailer = parse_dict_body(&mut lx, 0)?;
        if trailer.get(b"Encrypt").is_some() || trailer.get(b"Root").is_none() {
            return None;
        }
        Some(Doc {
            bytes,
            xref,
            trailer,
            cache: RefCell::new(HashMap::new()),
            objstms: RefCell::new(HashMap::new()),
            max_inflated,
            broken: std::cell::Cell::new(false),
        })
    }

    /// One cross-reference section at `o` (table or stream); its entries are added where
    /// no later section gave the object. Returns the section's trailer dictionary.
    fn read_section(&mut self, o: usize) -> Option<Dict> {
        let mut lx = Lexer::new(self.bytes, o);
        match lx.next_tok()? {
            Tok::Word(b"xref") => {
                loop {
                    match lx.next_tok()? {
                        Tok::Int(start) => {
                            let Some(Tok::Int(count)) = lx.next_tok() else {
                                return None;
                            };
                            let start = u32::try_from(start).ok()?;
                            let count = u32::try_from(count).ok()?;
                            if count as usize > self.bytes.len() / 18 + 1 {
                                return None;
                            }
                            lx.skip_white();
                            for k in 0..count {
                                // "nnnnnnnnnn ggggg n\r\n": read the three fields.
                                let Some(Tok::Int(offset)) = lx.next_tok() else {
                                    return None;
                                };
                                let Some(Tok::Int(_gen)) = lx.next_tok() else {
                                    return None;
                                };
                                let kind = match lx.next_tok()? {
                                    Tok::Word(w) => w,
                                    _ => return None,
                                };
                                let num = start.checked_add(k)?;
                                if kind == b"n" && offset > 0 {
                                    self.xref
                                        .entry(num)
                                        .or_insert(Loc::Offset(usize::try_from(offset).ok()?));
                                } else if kind != b"f" && kind != b"n" {
                                    return None;
                                }
                            }
                        }
                        Tok::Word(b"trailer") => {
                            let Some(Tok::DictOpen) = lx.next_tok() else {
                                return None;
                            };
                            return parse_dict_body(&mut lx, 0);
                        }
                        _ => return None,
                    }
                }
            }
            Tok::Int(_) => {
                // `n g obj << /Type /XRef ... >> stream`
                let obj = self.parse_at(o)?;
                let Obj::Stream(s) = obj else { return None };
                if s.dict.get(b"Type").and_then(Obj::as_name) != Some(b"XRef") {
                    return None;
                }
                let data = self.decode(&s)?;
                let w: Vec<usize> = s
                    .dict
                    .get(b"W")?
                    .as_array()?
                    .iter()
                    .map(|v| v.as_i64().and_then(|v| usize::try_from(v).ok()))
                    .collect::<Option<_>>()?;
                if w.len() != 3 || w.iter().any(|&x| x > 8) {
                    return None;
                }
                let size = s.dict.get(b"Size")?.as_i64()?;
                let index: Vec<i64> = match s.dict.get(b"Index").and_then(Obj::as_array) {
                    Some(a) => a.iter().map(Obj::as_i64).collect::<Option<_>>()?,
                    None => vec![0, size],
                };
                let row = w[0] + w[1] + w[2];
                if row == 0 {
                    return None;
                }
                let mut rows = data.chunks_exact(row);
                for pair in index.chunks(2) {
                    let [start, count] = pair else { return None };
                    for k in 0..*count {
                        let Some(r) = rows.next() else {
                            return Some(s.dict.clone_shallow());
                        };
                        let field = |from: usize, len: usize| {
                            r[from..from + len]
                                .iter()
                                .fold(0u64, |a, &b| a << 8 | u64::from(b))
                        };
                        let kind = if w[0] == 0 { 1 } else { field(0, w[0]) };
                        let f2 = field(w[0], w[1]);
                        let f3 = field(w[0] + w[1], w[2]);
                        let num = u32::try_from(start + k).ok()?;
                        let loc = match kind {
                            1 => Loc::Offset(usize::try_from(f2).ok()?),
                            2 => Loc::InStream(u32::try_from(f2).ok()?, f3 as u32),
                            _ => continue,
                        };
                        self.xref.entry(num).or_insert(loc);
                    }
                }
                Some(s.dict.clone_shallow())
            }
            _ => None,
        }
    }

    /// Parses `n g obj ...` at a file offset.
    fn parse_at(&self, o: usize) -> Option<Obj> {
        let mut lx = Lexer::new(self.bytes, o);
        let Some(Tok::Int(_)) = lx.next_tok() else {
            return None;
        };
        let Some(Tok::Int(_)) = lx.next_tok() else {
            return None;
        };
        let Some(Tok::Word(b"obj")) = lx.next_tok() else {
            return None;
        };
        let obj = parse_object(&mut lx, 0)?;
        let Obj::Dict(dict) = obj else {
            return Some(obj);
        };
        if let Some(Tok::Word(b"stream")) = lx.next_tok() {
            let mut p = lx.pos;
            if self.bytes.get(p) == Some(&b'\r') {
                p += 1;
            }
            if self.bytes.get(p) == Some(&b'\n') {
                p += 1;
            }
            let len = match dict.get(b"Length") {
                Some(Obj::Int(n)) => usize::try_from(*n).ok(),
                Some(Obj::Ref(n, _)) => self
                    .get_loc(*n, 0)
                    .and_then(|l| l.as_i64())
                    .and_then(|l| usize::try_from(l).ok()),
                _ => None,
            };
            // The length must be right: "endstream" follows. Otherwise (or with no length)
            // the data ends before the next "endstream", as PDFium reads it.
            let stated = len.and_then(|len| p.checked_add(len)).filter(|&end| {
                end <= self.bytes.len()
                    && matches!(
                        Lexer::new(self.bytes, end).next_tok(),
                        Some(Tok::Word(b"endstream"))
                    )
            });
            let end = match stated {
                Some(end) => end,
                None => {
                    let at = memchr::memmem::find(&self.bytes[p..], b"endstream")? + p;
                    let mut end = at;
                    if end > p && self.bytes[end - 1] == b'\n' {
                        end -= 1;
                    }
                    if end > p && self.bytes[end - 1] == b'\r' {
                        end -= 1;
                    }
                    end
                }
            };
            let dict = Rc::try_unwrap(dict).unwrap_or_else(|d| d.clone_shallow());
            return Some(Obj::Stream(Rc::new(Stream { dict, data: p..end })));
        }
        Some(Obj::Dict(dict))
    }

    /// An object by number (the generation is not checked).
    pub fn get(&self, num: u32) -> Option<Obj> {
        let got = self.get_loc(num, 0);
        if got.is_none() {
            self.broken.set(true);
        }
        got
    }

    fn get_loc(&self, num: u32, depth: u32) -> Option<Obj> {
        if depth > 2 {
            return None;
        }
        if let Some(o) = self.cache.borrow().get(&num) {
            return Some(o.clone());
        }
        let obj = match *self.xref.get(&num)? {
            Loc::Offset(o) => {
                if o >= self.bytes.len() {
                    return None;
                }
                self.parse_at(o)?
            }
            Loc::InStream(s, i) => self.in_stream(s, i, depth)?,
        };
        self.cache.borrow_mut().insert(num, obj.clone());
        Some(obj)
    }

    fn in_stream(&self, s: u32, index: u32, depth: u32) -> Option<Obj> {
        let cached = self.objstms.borrow().get(&s).cloned();
        let stm = match cached {
            Some(c) => c,
            None => {
                let Obj::Stream(st) = self.get_loc(s, depth + 1)? else {
                    return None;
                };
                let data = self.decode(&st)?;
                let n = st.dict.get(b"N")?.as_i64()?;
                let first = usize::try_from(st.dict.get(b"First")?.as_i64()?).ok()?;
                let mut lx = Lexer::new(&data, 0);
                let mut offsets = Vec::new();
                for _ in 0..n.clamp(0, 1 << 20) {
                    let Some(Tok::Int(_)) = lx.next_tok() else {
                        return None;
                    };
                    let Some(Tok::Int(off)) = lx.next_tok() else {
                        return None;
                    };
                    offsets.push(first.checked_add(usize::try_from(off).ok()?)?);
                }
                let c = Rc::new((data, offsets));
                self.objstms.borrow_mut().insert(s, c.clone());
                c
            }
        };
        let off = *stm.1.get(index as usize)?;
        if off >= stm.0.len() {
            return None;
        }
        let mut lx = Lexer::new(&stm.0, off);
        parse_object(&mut lx, 0)
    }

    /// Follows references.
    pub fn resolve(&self, obj: &Obj) -> Option<Obj> {
        let mut cur = obj.clone();
        for _ in 0..MAX_CHAIN {
            match cur {
                Obj::Ref(n, _) => cur = self.get(n).unwrap_or(Obj::Null),
                other => return Some(other),
            }
        }
        None
    }

    /// A dictionary entry, references followed.
    pub fn get_in(&self, dict: &Dict, key: &[u8]) -> Option<Obj> {
        self.resolve(dict.get(key)?)
    }

    /// The names of a stream's filters, in order (none for a stream stored as is); `None`
    /// when `/Filter` is not a name or an array of names.
    pub fn filters(&self, s: &Stream) -> Option<Vec<Rc<[u8]>>> {
        match s
            .dict
            .get(b"Filter")
            .map(|f| self.resolve(f).unwrap_or(Obj::Null))
        {
            None | Some(Obj::Null) => Some(Vec::new()),
            Some(Obj::Name(n)) => Some(vec![n]),
            Some(Obj::Array(a)) => a
                .iter()
                .map(|f| match f {
                    Obj::Name(n) => Some(n.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// A stream's decoded bytes: no filter or Flate (with its PNG predictors); anything else
    /// is `None`.
    pub fn decode(&self, s: &Stream) -> Option<Vec<u8>> {
        let raw = self.bytes.get(s.data.clone())?;
        let parms = s.dict.get(b"DecodeParms").and_then(|p| self.resolve(p));
        let names = self.filters(s)?;
        let limit = (self.max_inflated as usize).min(MAX_STREAM);
        let mut data: Vec<u8> = raw.to_vec();
        for (i, name) in names.iter().enumerate() {
            data = match &**name {
                b"FlateDecode" | b"Fl" => {
                    let out = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&data, limit)
                        .ok()?;
                    let p = match &parms {
                        Some(Obj::Dict(d)) if i == 0 => Some(d.clone()),
                        Some(Obj::Array(a)) => match a.get(i).and_then(|o| self.resolve(o)) {
                            Some(Obj::Dict(d)) => Some(d),
                            _ => None,
                        },
                        _ => None,
                    };
                    match p {
                        Some(d) => predict(out, &d)?,
                        None => out,
                    }
                }
                b"ASCII85Decode" | b"A85" => ascii85(&data)?,
                _ => return None,
            };
        }
        Some(data)
    }
}

/// ASCII base-85 (`<~ ... ~>`; `z` for four zero bytes).
fn ascii85(data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() * 4 / 5 + 4);
    let body = data.strip_prefix(b"<~").unwrap_or(data);
    let mut group = [0u8; 5];
    let mut n = 0;
    for &c in body {
        match c {
            b'~' => break,
            b'z' if n == 0 => out.extend_from_slice(&[0; 4]),
            b'!'..=b'u' => {
                group[n] = c - b'!';
                n += 1;
                if n == 5 {
                    let v = group.iter().fold(0u64, |a, &d| a * 85 + u64::from(d));
                    out.extend_from_slice(&u32::try_from(v).ok()?.to_be_bytes());
                    n = 0;
                }
            }
            c if is_white(c) => {}
            _ => return None,
        }
    }
    if n == 1 {
        return None;
    }
    if n > 1 {
        for g in group.iter_mut().skip(n) {
            *g = 84;
        }
        let v = group.iter().fold(0u64, |a, &d| a * 85 + u64::from(d));
        let bytes = u32::try_from(v).ok()?.to_be_bytes();
        out.extend_from_slice(&bytes[..n - 1]);
    }
    Some(out)
}

impl Dict {
    fn clone_shallow(&self) -> Dict {
        Dict(self.0.clone())
    }
}

/// PNG predictors (`/Predictor` 10–15) of a Flate stream; TIFF and none pass or refuse.
fn predict(data: Vec<u8>, parms: &Dict) -> Option<Vec<u8>> {
    let predictor = parms.get(b"Predictor").and_then(Obj::as_i64).unwrap_or(1);
    if predictor == 1 {
        return Some(data);
    }
    if predictor < 10 {
        return None;
    }
    let colors = parms
        .get(b"Colors")
        .and_then(Obj::as_i64)
        .unwrap_or(1)
        .clamp(1, 32) as usize;
    let bpc = parms
        .get(b"BitsPerComponent")
        .and_then(Obj::as_i64)
        .unwrap_or(8)
        .clamp(1, 16) as usize;
    let columns = parms
        .get(b"Columns")
        .and_then(Obj::as_i64)
        .unwrap_or(1)
        .clamp(1, 1 << 20) as usize;
    let bpp = (colors * bpc).div_ceil(8).max(1);
    let row = (colors * bpc * columns).div_ceil(8);
    let mut out = Vec::with_capacity(data.len());
    let mut prev = vec![0u8; row];
    for chunk in data.chunks(row + 1) {
        if chunk.len() < row + 1 {
            break;
        }
        let kind = chunk[0];
        let mut cur = chunk[1..].to_vec();
        for i in 0..row {
            let a = if i >= bpp { cur[i - bpp] } else { 0 };
            let b = prev[i];
            let c = if i >= bpp { prev[i - bpp] } else { 0 };
            cur[i] = match kind {
                0 => cur[i],
                1 => cur[i].wrapping_add(a),
                2 => cur[i].wrapping_add(b),
                3 => cur[i].wrapping_add(((u16::from(a) + u16::from(b)) / 2) as u8),
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    let pred = if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    };
                    cur[i].wrapping_add(pred)
                }
                _ => return None,
            };
        }
        out.extend_from_slice(&cur);
        prev = cur;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii85_decodes() {
        assert_eq!(ascii85(b"87cURD]j7BEbo80~>").unwrap(), b"Hello world!");
        assert_eq!(ascii85(b"z~>").unwrap(), vec![0; 4]);
    }

    #[test]
    fn tokens_and_objects() {
        let mut lx = Lexer::new(
            b"<< /A 1 0 R /B [1 2.5 (a\\(b\\)c) <4142>] /C#20D true >>",
            0,
        );
        let o = parse_object(&mut lx, 0).unwrap();
        let d = o.as_dict().unwrap();
        assert_eq!(d.get(b"A"), Some(&Obj::Ref(1, 0)));
        let b = d.get(b"B").unwrap().as_array().unwrap();
        assert_eq!(b[1], Obj::Real(2.5));
        assert_eq!(b[2].as_str(), Some(&b"a(b)c"[..]));
        assert_eq!(b[3].as_str(), Some(&b"AB"[..]));
        assert_eq!(d.get(b"C D"), Some(&Obj::Bool(true)));
    }
}
