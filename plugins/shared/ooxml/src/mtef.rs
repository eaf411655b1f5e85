//! Equations made with Microsoft Equation Editor 3.0 (`Equation.3`, the equation tool of Word
//! 97–2003, still in countless Word and PowerPoint files): the OLE object's `Equation Native`
//! stream holds the formula as MTEF version 3 records, read here into LaTeX, the form the
//! Office Math (OMML) reader gives (`$…$`). Without this the formula is lost: its preview is a
//! WMF picture no browser shows, whose glyphs in drawing order are not text.
//!
//! MTEF 3 is a tree: a `LINE` (a slot) holds characters, templates and piles; a template
//! (`TMPL`, selected by number: fraction, radical, script, fence, integral, sum, …) holds its
//! slots in a fixed order; a `PILE` stacks lines and a `MATRIX` lays them in rows and columns.
//! A script template follows its base rather than holding it, which LaTeX's `x^{2}` matches.
//! Characters are Unicode, Greek letters and operators included; MathType's private-use
//! codes for spaces are spaces, its other private-use codes are left out.
//!
//! MathType's own MTEF 5 (`Equation.DSMT4`) is a different record layout and not read here:
//! such objects keep their preview picture. Every read is bounds-checked and nesting is
//! capped; a damaged stream gives `None`, and the picture stands.

use std::io::{Cursor, Read};

/// Whether an OLE object of this program id is an Equation Editor 3.0 formula.
pub fn is_equation(prog_id: &str) -> bool {
    prog_id.trim().starts_with("Equation.3")
}

/// The LaTeX of the Equation Editor 3.0 formula in an OLE object (`oleObjectN.bin`, a compound
/// file), or `None` when it holds none or the stream is damaged.
pub fn ole_latex(ole: &[u8]) -> Option<String> {
    let mut cfb = cfb::CompoundFile::open(Cursor::new(ole)).ok()?;
    let mut stream = cfb.open_stream("/Equation Native").ok()?;
    let mut data = Vec::new();
    stream
        .by_ref()
        .take(MAX_STREAM)
        .read_to_end(&mut data)
        .ok()?;
    native_latex(&data)
}

/// The LaTeX of an `Equation Native` stream: a header whose first two bytes give its length,
/// then MTEF.
pub fn native_latex(native: &[u8]) -> Option<String> {
    let header = u16::from_le_bytes([*native.first()?, *native.get(1)?]) as usize;
    mtef_latex(native.get(header..)?)
}

/// The LaTeX of MTEF version 3 data (five header bytes, then records).
pub fn mtef_latex(mtef: &[u8]) -> Option<String> {
    if mtef.first() != Some(&3) {
        return None;
    }
    let mut r = Reader {
        data: mtef,
        pos: 5.min(mtef.len()),
        records: 0,
    };
    let top = r.list(0)?;
    let tex = Tex.slot_text(&top, true);
    let tex = tex.trim().to_owned();
    (!tex.is_empty()).then_some(tex)
}

/// Bytes of an `Equation Native` stream read at most (a formula is a few hundred).
const MAX_STREAM: u64 = 1 << 20;

/// Nesting of records read at most (slots in templates in slots …).
const MAX_DEPTH: u32 = 48;

/// Records read per formula at most.
const MAX_RECORDS: u32 = 100_000;

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Char {
        code: u16,
        typeface: u8,
        embell: Vec<u8>,
    },
    Tmpl {
        selector: u8,
        variation: u8,
        slots: Vec<Vec<Node>>,
    },
    Pile(Vec<Vec<Node>>),
    Matrix {
        cols: usize,
        cells: Vec<Vec<Node>>,
    },
}

/// What a record read gives its list: a node, a slot (a `LINE`), or nothing to keep (sizes,
/// fonts, rulers).
enum Rec {
    End,
    Node(Node),
    Line(Vec<Node>),
    Other,
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    records: u32,
}

impl Reader<'_> {
    fn u8(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes([self.u8()?, self.u8()?]))
    }

    fn skip(&mut self, n: usize) -> Option<()> {
        let end = self.pos.checked_add(n)?;
        (end <= self.data.len()).then(|| self.pos = end)
    }

    /// Records up to an `END` (or the end of the data), each `LINE` a slot of its own (a
    /// template's slots, a pile's lines); a character or template directly in the list stands
    /// in a slot by itself.
    fn slots(&mut self, depth: u32) -> Option<Vec<Vec<Node>>> {
        let mut out = Vec::new();
        loop {
            match self.record(depth)? {
                Rec::End => return Some(out),
                Rec::Line(nodes) => out.push(nodes),
                Rec::Node(Node::Pile(lines)) => out.push(vec![Node::Pile(lines)]),
                Rec::Node(n) => out.push(vec![n]),
                Rec::Other => {}
            }
        }
    }

    /// Records up to an `END` as one run of nodes (a line's content): a `LINE` inside it
    /// contributes its nodes.
    fn list(&mut self, depth: u32) -> Option<Vec<Node>> {
        let mut out = Vec::new();
        loop {
            match self.record(depth)? {
                Rec::End => return Some(out),
                Rec::Line(nodes) => out.extend(nodes),
                Rec::Node(n) => out.push(n),
                Rec::Other => {}
            }
        }
    }

    fn record(&mut self, depth: u32) -> Option<Rec> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.records += 1;
        if self.records > MAX_RECORDS {
            return None;
        }
        // The end of the data ends every open list (a stream may stop before its last ENDs).
        let Some(tag) = self.u8() else {
            return Some(Rec::End);
        };
        let (kind, options) = (tag & 0x0F, tag >> 4);
        if options & 0x8 != 0 {
            // a nudge: two biased bytes, or two 16-bit offsets after a pair of 128s
            let (dx, dy) = (self.u8()?, self.u8()?);
            if dx == 128 && dy == 128 {
                self.skip(4)?;
            }
        }
        Some(match kind {
            0 => Rec::End,
            1 => {
                // LINE: xfNULL (an empty slot) has no list, not even its END
                if options & 0x1 != 0 {
                    return Some(Rec::Line(Vec::new()));
                }
                if options & 0x4 != 0 {
                    self.skip(2)?; // line spacing
                }
                if options & 0x2 != 0 {
                    self.record(depth + 1)?; // its ruler
                }
                Rec::Line(self.list(depth + 1)?)
            }
            2 => {
                let typeface = self.u8()?.wrapping_sub(128);
                let code = self.u16()?;
                let mut embell = Vec::new();
                if options & 0x2 != 0 {
                    loop {
                        let t = self.u8()?;
                        if t & 0x0F == 0 {
                            // Equation Editor writes one more zero byte after the list's END
                            if self.data.get(self.pos) == Some(&0) {
                                self.pos += 1;
                            }
                            break;
                        }
                        if t & 0x0F != 6 {
                            return None;
                        }
                        if t & 0x80 != 0 {
                            let (dx, dy) = (self.u8()?, self.u8()?);
                            if dx == 128 && dy == 128 {
                                self.skip(4)?;
                            }
                        }
                        embell.push(self.u8()?);
                    }
                }
                Rec::Node(Node::Char {
                    code,
                    typeface,
                    embell,
                })
            }
            3 => {
                let selector = self.u8()?;
                let variation = self.u8()?;
                self.u8()?; // template options
                let slots = self.slots(depth + 1)?;
                Rec::Node(Node::Tmpl {
                    selector,
                    variation,
                    slots,
                })
            }
            4 => {
                self.skip(2)?; // horizontal and vertical alignment
                if options & 0x2 != 0 {
                    self.record(depth + 1)?;
                }
                Rec::Node(Node::Pile(self.slots(depth + 1)?))
            }
            5 => {
                self.skip(3)?; // alignment and justification
                let rows = self.u8()? as usize;
                let cols = self.u8()? as usize;
                // two bits per partition line: rows + 1 and cols + 1 of them
                self.skip(((rows + 1) * 2).div_ceil(8))?;
                self.skip(((cols + 1) * 2).div_ceil(8))?;
                let cells = self.slots(depth + 1)?;
                Rec::Node(Node::Matrix {
                    cols: cols.max(1),
                    cells,
                })
            }
            6 => {
                self.u8()?;
                Rec::Other
            }
            7 => {
                let stops = self.u8()? as usize;
                self.skip(stops * 3)?;
                Rec::Other
            }
            8 => {
                self.skip(2)?; // typeface and style
                while self.u8()? != 0 {}
                Rec::Other
            }
            9 => {
                match self.u8()? {
                    101 => self.skip(2)?,
                    100 => self.skip(3)?,
                    _ => self.skip(1)?,
                }
                Rec::Other
            }
            10..=14 => Rec::Other,
            _ => return None,
        })
    }
}

/// Typefaces (CHAR records name one of these styles).
const TF_TEXT: u8 = 1;
const TF_FUNCTION: u8 = 2;
const TF_VECTOR: u8 = 7;
const TF_TEXT_FE: u8 = 12;

struct Tex;

impl Tex {
    /// The LaTeX of a run of nodes. `top`: the formula's outermost run, where a pile's lines
    /// are the formula's lines.
    fn slot_text(&self, nodes: &[Node], top: bool) -> String {
        let mut out = String::new();
        let mut i = 0;
        while i < nodes.len() {
            match &nodes[i] {
                Node::Char { typeface, .. }
                    if matches!(*typeface, TF_TEXT | TF_TEXT_FE | TF_FUNCTION) =>
                {
                    // a run of text or of a function name's letters
                    let tf = *typeface;
                    let mut word = String::new();
                    let mut embellished = false;
                    while let Some(Node::Char {
                        code,
                        typeface,
                        embell,
                    }) = nodes.get(i)
                    {
                        if *typeface != tf || !embell.is_empty() {
                            embellished = !embell.is_empty() && word.is_empty();
                            break;
                        }
                        if let Some(c) = char::from_u32(*code as u32) {
                            word.push(space_or(c));
                        }
                        i += 1;
                    }
                    if embellished {
                        // an embellished first letter: as a lone symbol
                        push(&mut out, &self.node(&nodes[i]));
                        i += 1;
                        continue;
                    }
                    push(&mut out, &word_tex(&word, tf == TF_FUNCTION));
                    continue;
                }
                Node::Pile(lines) if top && nodes.len() == 1 => {
                    let lines: Vec<String> =
                        lines.iter().map(|l| self.slot_text(l, false)).collect();
                    out.push_str(
                        &lines
                            .iter()
                            .map(|l| l.trim())
                            .filter(|l| !l.is_empty())
                            .collect::<Vec<_>>()
                            .join(" \\\\ "),
                    );
                }
                Node::Tmpl {
                    selector: 15 | 44, ..
                } if out.trim().is_empty() => {
                    // a script with nothing before it in its slot
                    out.push_str("{}");
                    push(&mut out, &self.node(&nodes[i]));
                }
                n => push(&mut out, &self.node(n)),
            }
            i += 1;
        }
        out
    }

    fn node(&self, n: &Node) -> String {
        match n {
            Node::Char {
                code,
                typeface,
                embell,
            } => {
                let base = char_tex(*code);
                let mut s = if *typeface == TF_VECTOR && !base.is_empty() {
                    format!("\\mathbf{{{base}}}")
                } else {
                    base
                };
                for e in embell {
                    s = embellish(&s, *e);
                }
                s
            }
            Node::Tmpl {
                selector,
                variation,
                slots,
            } => self.template(*selector, *variation, slots),
            Node::Pile(lines) => {
                let lines: Vec<String> = lines
                    .iter()
                    .map(|l| self.slot_text(l, false).trim().to_owned())
                    .collect();
                format!("\\begin{{matrix}} {} \\end{{matrix}}", lines.join(" \\\\ "))
            }
            Node::Matrix { cols, cells } => {
                let rows: Vec<String> = cells
                    .chunks(*cols)
                    .map(|row| {
                        row.iter()
                            .map(|c| self.slot_text(c, false).trim().to_owned())
                            .collect::<Vec<_>>()
                            .join(" & ")
                    })
                    .collect();
                format!("\\begin{{matrix}} {} \\end{{matrix}}", rows.join(" \\\\ "))
            }
        }
    }

    fn template(&self, selector: u8, variation: u8, slots: &[Vec<Node>]) -> String {
        let s = |i: usize| -> String {
            slots
                .get(i)
                .map(|n| self.slot_text(n, false).trim().to_owned())
                .unwrap_or_default()
        };
        // `_{…}` / `^{…}` when the slot has content
        let sub = |i: usize| -> String {
            let t = s(i);
            if t.is_empty() {
                t
            } else {
                format!("_{{{t}}}")
            }
        };
        let sup = |i: usize| -> String {
            let t = s(i);
            if t.is_empty() {
                t
            } else {
                format!("^{{{t}}}")
            }
        };
        let fence = |l: &str, r: &str| -> String {
            let (l, r) = match variation {
                1 => (l, "."),
                2 => (".", r),
                _ => (l, r),
            };
            format!("\\left{l} {} \\right{r}", s(0))
        };
        // big operators: body in slot 0, lower limit in slot 1, upper in slot 2
        let big = |op: &str, lower: bool, upper: bool| -> String {
            let mut t = op.to_owned();
            if lower {
                t.push_str(&sub(1));
            }
            if upper {
                t.push_str(&sup(2));
            }
            let body = s(0);
            if !body.is_empty() {
                t.push(' ');
                t.push_str(&body);
            }
            t
        };
        match selector {
            0 => fence("\\langle", "\\rangle"),
            1 => fence("(", ")"),
            2 => fence("\\{", "\\}"),
            3 => fence("[", "]"),
            4 => fence("|", "|"),
            5 => fence("\\|", "\\|"),
            6 => format!("\\left\\lfloor {} \\right\\rfloor", s(0)),
            7 => format!("\\left\\lceil {} \\right\\rceil", s(0)),
            8 => format!("\\left[ {} \\right[", s(0)),
            9 => format!("\\left] {} \\right]", s(0)),
            10 => format!("\\left] {} \\right[", s(0)),
            11 => format!("\\left[ {} \\right)", s(0)),
            12 => format!("\\left( {} \\right]", s(0)),
            13 => match (variation, s(1)) {
                (1, index) if !index.is_empty() => format!("\\sqrt[{index}]{{{}}}", s(0)),
                _ => format!("\\sqrt{{{}}}", s(0)),
            },
            14 => format!("\\frac{{{}}}{{{}}}", s(0), s(1)),
            15 | 44 => {
                // subscript then superscript: the script follows what it scripts (a third
                // slot, when one is written first, is that base)
                let (base, lo, hi) = if slots.len() >= 3 {
                    (s(0), sub(1), sup(2))
                } else {
                    (String::new(), sub(0), sup(1))
                };
                format!("{base}{lo}{hi}")
            }
            16 if variation == 1 => format!("\\underline{{\\underline{{{}}}}}", s(0)),
            16 => format!("\\underline{{{}}}", s(0)),
            17 if variation == 1 => format!("\\overline{{\\overline{{{}}}}}", s(0)),
            17 => format!("\\overline{{{}}}", s(0)),
            18 => format!("\\xleftarrow{{{}}}", s(0)),
            19 => format!("\\xrightarrow{{{}}}", s(0)),
            20 => format!("\\xleftrightarrow{{{}}}", s(0)),
            21 => match variation {
                0 => big("\\int", false, false),
                1 => big("\\int", true, false),
                2 => big("\\int", true, true),
                3 => big("\\oint", false, false),
                _ => big("\\oint", true, false),
            },
            22 => match variation {
                0 => big("\\iint", false, false),
                1 => big("\\iint", true, false),
                2 => big("\\oiint", false, false),
                _ => big("\\oiint", true, false),
            },
            23 => match variation {
                0 => big("\\iiint", false, false),
                1 => big("\\iiint", true, false),
                2 => big("\\oiiint", false, false),
                _ => big("\\oiiint", true, false),
            },
            24 => big("\\oint", true, variation == 0),
            25 => big(
                if variation == 0 { "\\oiint" } else { "\\iint" },
                true,
                false,
            ),
            26 => big(
                if variation == 0 {
                    "\\oiiint"
                } else {
                    "\\iiint"
                },
                true,
                false,
            ),
            27 => format!("\\overbrace{{{}}}{}", s(0), sup(1)),
            28 => format!("\\underbrace{{{}}}{}", s(0), sub(1)),
            29 | 31 | 33 | 35 | 37 => {
                let op = match selector {
                    29 => "\\sum",
                    31 => "\\prod",
                    33 => "\\coprod",
                    35 => "\\bigcup",
                    _ => "\\bigcap",
                };
                // variations: lower limit only, both limits, none
                match variation {
                    0 => big(op, true, false),
                    1 => big(op, true, true),
                    _ => big(op, false, false),
                }
            }
            30 | 32 | 34 | 36 | 38 => {
                let op = match selector {
                    30 => "\\sum",
                    32 => "\\prod",
                    34 => "\\coprod",
                    36 => "\\bigcup",
                    _ => "\\bigcap",
                };
                big(op, true, variation == 1)
            }
            39 => match variation {
                0 => format!("{}{}", s(0), sup(2)),
                1 => format!("{}{}", s(0), sub(1)),
                _ => format!("{}{}{}", s(0), sub(1), sup(2)),
            },
            40 => format!("{} \\overline{{)\\, {}}}", s(1), s(0)),
            41 => format!("{{{}}}/{{{}}}", s(0), s(1)),
            42 | 43 => {
                // an operator of the user's choosing in slot 3
                let mut t = s(3);
                match variation {
                    0 => t.push_str(&sup(2)),
                    1 => t.push_str(&sub(1)),
                    _ => {
                        t.push_str(&sub(1));
                        t.push_str(&sup(2));
                    }
                }
                let body = s(0);
                if !body.is_empty() {
                    t.push(' ');
                    t.push_str(&body);
                }
                t
            }
            45 => match variation {
                1 => format!("\\langle {} \\mid", s(0)),
                2 => format!("\\mid {} \\rangle", s(1)),
                _ => format!("\\langle {} \\mid {} \\rangle", s(0), s(1)),
            },
            46 => format!("\\underrightarrow{{{}}}", s(0)),
            47 => match variation {
                0 => format!("\\overleftarrow{{{}}}", s(0)),
                2 => format!("\\overleftrightarrow{{{}}}", s(0)),
                _ => format!("\\overrightarrow{{{}}}", s(0)),
            },
            48 => format!("\\overset{{\\frown}}{{{}}}", s(0)),
            // unknown: its slots in order
            _ => (0..slots.len())
                .map(s)
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// Appends `piece`, with a space where a command's name would run into a letter
/// (`\alpha` then `x`).
fn push(out: &mut String, piece: &str) {
    if piece.is_empty() {
        return;
    }
    let starts_letter = piece.starts_with(|c: char| c.is_ascii_alphabetic());
    if starts_letter && ends_with_command(out) {
        out.push(' ');
    }
    out.push_str(piece);
}

fn ends_with_command(s: &str) -> bool {
    let trimmed = s.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    trimmed.len() < s.len() && trimmed.ends_with('\\') && !trimmed.ends_with("\\\\")
}

/// MathType's private-use spaces (thin, thick, em …) and the ordinary ones as a space.
fn space_or(c: char) -> char {
    match c as u32 {
        0xEB00..=0xEB08 | 0x2000..=0x200B => ' ',
        _ => c,
    }
}

/// A run of text (`\text{…}`) or of a function name's letters (`\sin`, `\operatorname{sh}`).
fn word_tex(word: &str, function: bool) -> String {
    if word.trim().is_empty() {
        return if word.is_empty() {
            String::new()
        } else {
            "\\ ".into()
        };
    }
    if function {
        const KNOWN: &[&str] = &[
            "arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "deg", "det",
            "dim", "exp", "gcd", "hom", "inf", "ker", "lg", "lim", "liminf", "limsup", "ln", "log",
            "max", "min", "Pr", "sec", "sin", "sinh", "sup", "tan", "tanh",
        ];
        let w = word.trim();
        if KNOWN.contains(&w) {
            return format!("\\{w}");
        }
        if w.chars().all(|c| c.is_ascii_alphabetic()) {
            return format!("\\operatorname{{{w}}}");
        }
        // digits or signs typed in the function style
        return w.chars().map(|c| char_tex(c as u16)).collect();
    }
    let escaped: String = word
        .chars()
        .map(|c| match c {
            '\\' => "\\textbackslash{}".to_owned(),
            '{' | '}' | '$' | '&' | '#' | '%' | '_' => format!("\\{c}"),
            c => c.to_string(),
        })
        .collect();
    format!("\\text{{{escaped}}}")
}

/// A character as LaTeX math.
fn char_tex(code: u16) -> String {
    let Some(c) = char::from_u32(code as u32) else {
        return String::new();
    };
    let named = match c {
        '{' => "\\{",
        '}' => "\\}",
        '\\' => "\\backslash",
        '#' => "\\#",
        '$' => "\\$",
        '%' => "\\%",
        '&' => "\\&",
        '_' => "\\_",
        '~' => "\\sim",
        '^' => "\\hat{}",
        'α' => "\\alpha",
        'β' => "\\beta",
        'γ' => "\\gamma",
        'δ' => "\\delta",
        'ε' => "\\varepsilon",
        'ϵ' => "\\epsilon",
        'ζ' => "\\zeta",
        'η' => "\\eta",
        'θ' => "\\theta",
        'ϑ' => "\\vartheta",
        'ι' => "\\iota",
        'κ' => "\\kappa",
        'λ' => "\\lambda",
        'μ' => "\\mu",
        'ν' => "\\nu",
        'ξ' => "\\xi",
        'π' => "\\pi",
        'ϖ' => "\\varpi",
        'ρ' => "\\rho",
        'σ' => "\\sigma",
        'ς' => "\\varsigma",
        'τ' => "\\tau",
        'υ' => "\\upsilon",
        'φ' => "\\varphi",
        'ϕ' => "\\phi",
        'χ' => "\\chi",
        'ψ' => "\\psi",
        'ω' => "\\omega",
        'Γ' => "\\Gamma",
        'Δ' => "\\Delta",
        'Θ' => "\\Theta",
        'Λ' => "\\Lambda",
        'Ξ' => "\\Xi",
        'Π' => "\\Pi",
        'Σ' => "\\Sigma",
        'Υ' => "\\Upsilon",
        'Φ' => "\\Phi",
        'Ψ' => "\\Psi",
        'Ω' => "\\Omega",
        '∑' => "\\sum",
        '∏' => "\\prod",
        '∐' => "\\coprod",
        '∫' => "\\int",
        '∬' => "\\iint",
        '∭' => "\\iiint",
        '∮' => "\\oint",
        '∂' => "\\partial",
        '∇' => "\\nabla",
        '∞' => "\\infty",
        '±' => "\\pm",
        '∓' => "\\mp",
        '×' => "\\times",
        '÷' => "\\div",
        '·' | '⋅' => "\\cdot",
        '∙' | '•' => "\\bullet",
        '∘' => "\\circ",
        '≤' => "\\le",
        '≥' => "\\ge",
        '≠' => "\\ne",
        '≈' => "\\approx",
        '≡' => "\\equiv",
        '≅' => "\\cong",
        '∼' => "\\sim",
        '≃' => "\\simeq",
        '∝' => "\\propto",
        '≪' => "\\ll",
        '≫' => "\\gg",
        '∈' => "\\in",
        '∉' => "\\notin",
        '∋' => "\\ni",
        '⊂' => "\\subset",
        '⊃' => "\\supset",
        '⊆' => "\\subseteq",
        '⊇' => "\\supseteq",
        '∪' => "\\cup",
        '∩' => "\\cap",
        '∅' => "\\emptyset",
        '∀' => "\\forall",
        '∃' => "\\exists",
        '¬' => "\\neg",
        '∧' => "\\wedge",
        '∨' => "\\vee",
        '⊕' => "\\oplus",
        '⊗' => "\\otimes",
        '⊥' => "\\perp",
        '∥' => "\\parallel",
        '∠' => "\\angle",
        '△' => "\\triangle",
        '°' => "^{\\circ}",
        '′' => "'",
        '″' => "''",
        '→' => "\\to",
        '←' => "\\leftarrow",
        '↔' => "\\leftrightarrow",
        '⇒' => "\\Rightarrow",
        '⇐' => "\\Leftarrow",
        '⇔' => "\\Leftrightarrow",
        '↑' => "\\uparrow",
        '↓' => "\\downarrow",
        '…' => "\\ldots",
        '⋯' => "\\cdots",
        '⋮' => "\\vdots",
        '⋱' => "\\ddots",
        '∴' => "\\therefore",
        '∵' => "\\because",
        '√' => "\\surd",
        'ℏ' => "\\hbar",
        'ℓ' => "\\ell",
        'ℜ' => "\\Re",
        'ℑ' => "\\Im",
        'ℵ' => "\\aleph",
        '〈' | '⟨' => "\\langle",
        '〉' | '⟩' => "\\rangle",
        '−' => "-",
        c if (c as u32) >= 0xE000 && (c as u32) <= 0xF8FF => {
            return if space_or(c) == ' ' {
                "\\,".into()
            } else {
                String::new()
            };
        }
        c if c.is_control() => return String::new(),
        c => return space_or(c).to_string(),
    };
    named.to_owned()
}

/// A character with an embellishment (dot, prime, hat, arrow …).
fn embellish(base: &str, kind: u8) -> String {
    match kind {
        2 => format!("\\dot{{{base}}}"),
        3 => format!("\\ddot{{{base}}}"),
        4 => format!("\\dddot{{{base}}}"),
        5 => format!("{base}'"),
        6 => format!("{base}''"),
        7 => format!("{{}}'{base}"),
        8 => format!("\\tilde{{{base}}}"),
        9 => format!("\\hat{{{base}}}"),
        10 => format!("\\not{base}"),
        11 | 14 => format!("\\vec{{{base}}}"),
        12 | 15 => format!("\\overleftarrow{{{base}}}"),
        13 => format!("\\overleftrightarrow{{{base}}}"),
        16 => format!("\\bar{{{base}}}"),
        17 => format!("\\overline{{{base}}}"),
        18 => format!("{base}'''"),
        19 => format!("\\overset{{\\frown}}{{{base}}}"),
        20 => format!("\\overset{{\\smile}}{{{base}}}"),
        _ => base.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MTEF 3 bytes for tests: header, then the records given.
    fn mtef(records: &[u8]) -> Vec<u8> {
        let mut v = vec![3, 1, 1, 3, 0];
        v.extend_from_slice(records);
        v
    }

    /// A CHAR record: typeface (unbiased), code.
    fn ch(tf: u8, c: char) -> Vec<u8> {
        let code = c as u16;
        vec![0x02, tf + 128, code as u8, (code >> 8) as u8]
    }

    fn line(items: &[Vec<u8>]) -> Vec<u8> {
        let mut v = vec![0x01];
        for i in items {
            v.extend_from_slice(i);
        }
        v.push(0);
        v
    }

    const NULL_LINE: u8 = 0x11;

    fn tmpl(selector: u8, variation: u8, slots: &[Vec<u8>]) -> Vec<u8> {
        let mut v = vec![0x03, selector, variation, 0];
        for s in slots {
            v.extend_from_slice(s);
        }
        v.push(0);
        v
    }

    #[test]
    fn fractions_scripts_roots_and_greek_read_as_latex() {
        // x^2 + \frac{a}{b} = \sqrt{\alpha} with a size record and a font record before
        let mut body = vec![0x0A]; // FULL
        body.extend_from_slice(&[0x08, 3, 0]);
        body.extend_from_slice(b"Times New Roman\0");
        let eq = line(&[
            ch(3, 'x'),
            tmpl(
                15,
                0,
                &[vec![NULL_LINE], vec![NULL_LINE], line(&[ch(8, '2')])],
            ),
            ch(6, '+'),
            tmpl(14, 0, &[line(&[ch(3, 'a')]), line(&[ch(3, 'b')])]),
            ch(6, '='),
            tmpl(13, 0, &[line(&[ch(4, 'α')]), vec![NULL_LINE]]),
        ]);
        body.extend_from_slice(&eq);
        body.push(0);
        assert_eq!(
            mtef_latex(&mtef(&body)).as_deref(),
            Some("x^{2}+\\frac{a}{b}=\\sqrt{\\alpha}")
        );
    }

    #[test]
    fn sums_fences_functions_text_and_embellishments() {
        let eq = line(&[
            tmpl(
                29,
                1,
                &[
                    line(&[
                        ch(3, 'a'),
                        tmpl(
                            15,
                            1,
                            &[vec![NULL_LINE], line(&[ch(3, 'i')]), vec![NULL_LINE]],
                        ),
                    ]),
                    line(&[ch(3, 'i'), ch(6, '='), ch(8, '1')]),
                    line(&[ch(3, 'n')]),
                ],
            ),
            ch(6, '≤'),
            tmpl(
                1,
                0,
                &[line(&[ch(2, 's'), ch(2, 'i'), ch(2, 'n'), ch(3, 'x')])],
            ),
            ch(1, ' '),
            ch(1, 'i'),
            ch(1, 'f'),
            // x with a dot over it: xfEMBELL, then EMBELL records, END and a zero byte
            vec![0x22, 3 + 128, b'x', 0, 0x06, 2, 0x00, 0x00],
        ]);
        let mut body = eq;
        body.push(0);
        assert_eq!(
            mtef_latex(&mtef(&body)).as_deref(),
            Some("\\sum_{i=1}^{n} a_{i}\\le\\left( \\sin x \\right)\\text{ if}\\dot{x}")
        );
    }

    #[test]
    fn a_matrix_and_a_pile_of_lines() {
        let m = {
            let mut v = vec![0x05, 1, 2, 1, 2, 2, 0, 0];
            for c in ['a', 'b', 'c', 'd'] {
                v.extend_from_slice(&line(&[ch(3, c)]));
            }
            v.push(0);
            v
        };
        let eq = line(&[tmpl(3, 0, &[line(&[m])])]);
        let mut body = eq;
        body.push(0);
        assert_eq!(
            mtef_latex(&mtef(&body)).as_deref(),
            Some("\\left[ \\begin{matrix} a & b \\\\ c & d \\end{matrix} \\right]")
        );
        // a formula that is a pile: its lines
        let mut pile = vec![0x04, 1, 1];
        pile.extend_from_slice(&line(&[ch(3, 'y'), ch(6, '='), ch(8, '1')]));
        pile.extend_from_slice(&line(&[ch(3, 'z'), ch(6, '='), ch(8, '2')]));
        pile.push(0);
        let mut body = pile;
        body.push(0);
        assert_eq!(mtef_latex(&mtef(&body)).as_deref(), Some("y=1 \\\\ z=2"));
    }

    #[test]
    fn damaged_or_foreign_data_gives_nothing() {
        assert_eq!(mtef_latex(&[]), None);
        assert_eq!(
            mtef_latex(&[5, 0, 0, 0, 0, 1, 2]),
            None,
            "MTEF 5 is not read"
        );
        // an unknown record type
        assert_eq!(mtef_latex(&mtef(&[0x01, 0x0F, 0])), None);
        // a record cut short
        assert_eq!(mtef_latex(&mtef(&[0x01, 0x02, 131])), None);
        // nesting beyond the cap
        let mut deep = Vec::new();
        for _ in 0..200 {
            deep.extend_from_slice(&[0x03, 14, 0, 0, 0x01]);
        }
        assert_eq!(mtef_latex(&mtef(&deep)), None);
        assert_eq!(native_latex(&[28, 0, 1]), None);
        assert_eq!(ole_latex(b"not a compound file"), None);
    }
}
