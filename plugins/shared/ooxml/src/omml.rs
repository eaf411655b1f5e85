//! Office Math (OMML, `m:oMath`) to LaTeX, the way Markdown readers expect formulas
//! (`Inline::Math`: `$...$` inline, `$$...$$` on their own), for Word (`w:p`) and PowerPoint
//! (`a14:m` in a text body) alike.
//!
//! A formula's subtree is read into a small tree first (it is short) by the plugin's own XML
//! reader ([`read`] for a plain quick-xml reader), then printed recursively by [`latex`].
//! Structures covered: fractions, scripts, radicals, delimiters, n-ary operators, functions,
//! accents, bars, limits, matrices and equation arrays; anything else prints its text. Letters
//! in the mathematical alphanumeric styles (`𝑥`, as PowerPoint writes them) read as the plain
//! letters they style.

use quick_xml::events::Event;
use quick_xml::Reader;

/// One OMML element: its local name, the characters its properties (`*Pr`) give, the text of
/// an `m:t`, its children.
#[derive(Debug, Default)]
pub struct Node {
    pub name: String,
    /// `m:chr`, `m:begChr`, `m:endChr`, `m:pos`, `m:type` values found in the *Pr child.
    pub chr: Option<String>,
    pub beg: Option<String>,
    pub end: Option<String>,
    pub text: String,
    pub children: Vec<Node>,
}

/// Formulas nested deeper than this are left out (bounds the recursion).
pub const MAX_DEPTH: u32 = 160;

/// Reads the OMML element named `name` whose start `reader` just returned (through its end)
/// and returns its LaTeX, trimmed.
pub fn read(reader: &mut Reader<&[u8]>, name: &str) -> String {
    let root = read_node(reader, name.to_owned(), 0);
    latex(&root).trim().to_owned()
}

/// The formula of a container whose start `reader` just returned (PowerPoint's `a14:m`),
/// read through its end: its LaTeX and whether it is a display formula. One `m:oMath` is
/// inline; an `m:oMathPara` stands on its own line, its equations joined by [`lines`].
pub fn read_formula(reader: &mut Reader<&[u8]>) -> Option<(String, bool)> {
    let mut parts = Vec::new();
    let mut display = false;
    let mut depth = 0u32;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => match e.local_name().as_ref() {
                b"oMath" => parts.push(read(reader, "oMath")),
                b"oMathPara" => {
                    display = true;
                    depth += 1;
                }
                _ => {
                    let _ = reader.read_to_end(e.name());
                }
            },
            Ok(Event::End(_)) => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => {}
        }
    }
    let tex = lines(parts);
    (!tex.is_empty()).then_some((tex, display))
}

/// The equations of an `m:oMathPara`, one LaTeX line each (empty ones left out).
pub fn lines(parts: Vec<String>) -> String {
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" \\\\ ")
}

fn read_node(reader: &mut Reader<&[u8]>, name: String, depth: u32) -> Node {
    let mut node = Node {
        name,
        ..Node::default()
    };
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                let n = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                if depth > MAX_DEPTH {
                    let _ = reader.read_to_end(e.name());
                } else if n.ends_with("Pr") {
                    // Properties: only the characters matter.
                    read_props(reader, &mut node);
                } else if n == "t" {
                    let mut text = String::new();
                    loop {
                        match reader.read_event() {
                            Ok(Event::Text(t)) => {
                                if let Ok(t) = t.unescape() {
                                    text.push_str(&t);
                                }
                            }
                            Ok(Event::End(_)) | Ok(Event::Eof) | Err(_) => break,
                            _ => {}
                        }
                    }
                    node.children.push(Node {
                        name: "t".into(),
                        text,
                        ..Node::default()
                    });
                } else {
                    node.children.push(read_node(reader, n, depth + 1));
                }
            }
            Ok(Event::End(_)) | Ok(Event::Eof) | Err(_) => return node,
            _ => {}
        }
    }
}

fn read_props(reader: &mut Reader<&[u8]>, node: &mut Node) {
    let mut depth = 0u32;
    loop {
        match reader.read_event() {
            Ok(Event::Start(_)) => depth += 1,
            Ok(Event::Empty(e)) => {
                let v = e
                    .attributes()
                    .flatten()
                    .find(|a| a.key.local_name().as_ref() == b"val")
                    .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()));
                set_prop(node, e.local_name().as_ref(), v);
            }
            Ok(Event::End(_)) => {
                if depth == 0 {
                    return;
                }
                depth -= 1;
            }
            Ok(Event::Eof) | Err(_) => return,
            _ => {}
        }
    }
}

/// Records a property element's value on `node` (`chr`, `begChr`, `endChr`, `pos="top"`).
pub fn set_prop(node: &mut Node, name: &[u8], v: Option<String>) {
    match name {
        b"chr" => node.chr = Some(v.unwrap_or_default()),
        b"begChr" => node.beg = Some(v.unwrap_or_default()),
        b"endChr" => node.end = Some(v.unwrap_or_default()),
        b"pos" if node.chr.is_none() && v.as_deref() == Some("top") => {
            node.chr = Some("top".into())
        }
        _ => {}
    }
}

/// A letter or digit of the mathematical alphanumeric styles (U+1D400–U+1D7FF: bold, italic,
/// script, fraktur, double-struck … `𝑥`) as the plain letter or digit it styles; Planck's `ℎ`
/// (italic h's place) as h.
fn plain_letter(c: char) -> char {
    let u = c as u32;
    match u {
        0x210E => 'h',
        0x1D400..=0x1D6A3 => {
            let i = (u - 0x1D400) % 52;
            if i < 26 {
                char::from(b'A' + i as u8)
            } else {
                char::from(b'a' + (i - 26) as u8)
            }
        }
        0x1D6A8..=0x1D7C9 => {
            const GREEK: [char; 58] = [
                'Α', 'Β', 'Γ', 'Δ', 'Ε', 'Ζ', 'Η', 'Θ', 'Ι', 'Κ', 'Λ', 'Μ', 'Ν', 'Ξ', 'Ο', 'Π',
                'Ρ', 'ϴ', 'Σ', 'Τ', 'Υ', 'Φ', 'Χ', 'Ψ', 'Ω', '∇', 'α', 'β', 'γ', 'δ', 'ε', 'ζ',
                'η', 'θ', 'ι', 'κ', 'λ', 'μ', 'ν', 'ξ', 'ο', 'π', 'ρ', 'ς', 'σ', 'τ', 'υ', 'φ',
                'χ', 'ψ', 'ω', '∂', 'ϵ', 'ϑ', 'ϰ', 'ϕ', 'ϱ', 'ϖ',
            ];
            GREEK[((u - 0x1D6A8) % 58) as usize]
        }
        0x1D7CE..=0x1D7FF => char::from(b'0' + ((u - 0x1D7CE) % 10) as u8),
        _ => c,
    }
}

fn child<'n>(node: &'n Node, n: &str) -> Option<&'n Node> {
    node.children.iter().find(|c| c.name == n)
}

fn arg(node: &Node, n: &str) -> String {
    child(node, n).map(latex).unwrap_or_default()
}

fn all(node: &Node) -> String {
    node.children.iter().map(latex).collect()
}

/// Function names Word marks with U+2061 (function application) that LaTeX spells `\name`.
const FUNCTIONS: &[&str] = &[
    "sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
    "log", "ln", "exp", "lim", "max", "min", "det",
];

fn text_latex(t: &str) -> String {
    let t: String = t.chars().map(plain_letter).collect();
    let t = t.as_str();
    if let Some(name) = t.trim().strip_suffix('\u{2061}') {
        if FUNCTIONS.contains(&name) {
            return format!("\\{name} ");
        }
    }
    let mut out = String::new();
    for c in t.chars() {
        let s = match c {
            'α' => "\\alpha ",
            'β' => "\\beta ",
            'γ' => "\\gamma ",
            'δ' => "\\delta ",
            'ε' => "\\epsilon ",
            'θ' => "\\theta ",
            'λ' => "\\lambda ",
            'μ' => "\\mu ",
            'π' => "\\pi ",
            'σ' => "\\sigma ",
            'τ' => "\\tau ",
            'φ' => "\\phi ",
            'ω' => "\\omega ",
            'Δ' => "\\Delta ",
            'Σ' => "\\Sigma ",
            'Ω' => "\\Omega ",
            '×' => "\\times ",
            '÷' => "\\div ",
            '±' => "\\pm ",
            '≤' => "\\leq ",
            '≥' => "\\geq ",
            '≠' => "\\neq ",
            '≈' => "\\approx ",
            '∞' => "\\infty ",
            '→' => "\\rightarrow ",
            '∈' => "\\in ",
            '∂' => "\\partial ",
            '·' | '⋅' => "\\cdot ",
            '\u{2061}' => "",
            '\u{2212}' => "-",
            '{' => "\\{",
            '}' => "\\}",
            _ => {
                out.push(c);
                continue;
            }
        };
        out.push_str(s);
    }
    out
}

fn nary_op(chr: Option<&str>) -> &'static str {
    match chr {
        None => "\\int",
        Some("∑") => "\\sum",
        Some("∏") => "\\prod",
        Some("∐") => "\\coprod",
        Some("∬") => "\\iint",
        Some("∭") => "\\iiint",
        Some("∮") => "\\oint",
        Some("⋃") => "\\bigcup",
        Some("⋂") => "\\bigcap",
        Some(_) => "\\int",
    }
}

fn delim(c: &str, open: bool) -> String {
    match c {
        "" => ".".into(),
        "{" => "\\{".into(),
        "}" => "\\}".into(),
        "|" | "(" | ")" | "[" | "]" => c.into(),
        "‖" => "\\|".into(),
        "⟨" | "〈" => "\\langle".into(),
        "⟩" | "〉" => "\\rangle".into(),
        _ if open => "(".into(),
        _ => ")".into(),
    }
}

/// The LaTeX of an OMML element (the tree [`Node`] describes).
pub fn latex(node: &Node) -> String {
    match node.name.as_str() {
        "t" => text_latex(&node.text),
        "f" => format!("\\frac{{{}}}{{{}}}", arg(node, "num"), arg(node, "den")),
        "sSup" => format!("{}^{{{}}}", arg(node, "e"), arg(node, "sup")),
        "sSub" => format!("{}_{{{}}}", arg(node, "e"), arg(node, "sub")),
        "sSubSup" => format!(
            "{}_{{{}}}^{{{}}}",
            arg(node, "e"),
            arg(node, "sub"),
            arg(node, "sup")
        ),
        "sPre" => format!(
            "{{}}_{{{}}}^{{{}}}{}",
            arg(node, "sub"),
            arg(node, "sup"),
            arg(node, "e")
        ),
        "rad" => {
            let deg = arg(node, "deg");
            if deg.trim().is_empty() {
                format!("\\sqrt{{{}}}", arg(node, "e"))
            } else {
                format!("\\sqrt[{deg}]{{{}}}", arg(node, "e"))
            }
        }
        "d" => {
            let beg = delim(node.beg.as_deref().unwrap_or("("), true);
            let end = delim(node.end.as_deref().unwrap_or(")"), false);
            let inner: Vec<String> = node
                .children
                .iter()
                .filter(|c| c.name == "e")
                .map(latex)
                .collect();
            format!("\\left{beg}{}\\right{end}", inner.join(","))
        }
        "nary" => {
            let sub = arg(node, "sub");
            let sup = arg(node, "sup");
            let mut s = nary_op(node.chr.as_deref()).to_owned();
            if !sub.is_empty() {
                s.push_str(&format!("_{{{sub}}}"));
            }
            if !sup.is_empty() {
                s.push_str(&format!("^{{{sup}}}"));
            }
            format!("{s} {}", arg(node, "e"))
        }
        "func" => format!("{}{{{}}}", arg(node, "fName").trim(), arg(node, "e")),
        "acc" => {
            let cmd = match node.chr.as_deref() {
                Some("̃") | Some("~") => "\\tilde",
                Some("̄") | Some("¯") => "\\bar",
                Some("̇") => "\\dot",
                Some("⃗") | Some("→") => "\\vec",
                _ => "\\hat",
            };
            format!("{cmd}{{{}}}", arg(node, "e"))
        }
        "bar" => {
            let cmd = if node.chr.as_deref() == Some("top") {
                "\\overline"
            } else {
                "\\underline"
            };
            format!("{cmd}{{{}}}", arg(node, "e"))
        }
        "limLow" => format!("{}_{{{}}}", arg(node, "e"), arg(node, "lim")),
        "limUpp" => format!("{}^{{{}}}", arg(node, "e"), arg(node, "lim")),
        "m" => {
            let rows: Vec<String> = node
                .children
                .iter()
                .filter(|c| c.name == "mr")
                .map(|r| {
                    r.children
                        .iter()
                        .filter(|c| c.name == "e")
                        .map(latex)
                        .collect::<Vec<_>>()
                        .join(" & ")
                })
                .collect();
            format!("\\begin{{matrix}}{}\\end{{matrix}}", rows.join(" \\\\ "))
        }
        "eqArr" => {
            let rows: Vec<String> = node
                .children
                .iter()
                .filter(|c| c.name == "e")
                .map(latex)
                .collect();
            format!("\\begin{{array}}{{l}}{}\\end{{array}}", rows.join(" \\\\ "))
        }
        _ => all(node),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(xml: &str) -> String {
        let mut reader = Reader::from_str(xml);
        let Ok(Event::Start(e)) = reader.read_event() else {
            panic!("a start tag");
        };
        let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
        read(&mut reader, &name)
    }

    #[test]
    fn reads_powerpoint_formulas_with_styled_letters() {
        // As PowerPoint writes `a14:m`: run properties inside, letters in math italic.
        let xml = "<m:oMath><m:rad><m:radPr><m:degHide m:val=\"on\"/><m:ctrlPr><a:rPr i=\"1\"/></m:ctrlPr></m:radPr>\
                   <m:deg/><m:e><m:r><a:rPr i=\"1\"/><m:t>\u{1D465}</m:t></m:r><m:r><m:t>+1</m:t></m:r></m:e></m:rad>\
                   <m:r><m:t>\u{2212}</m:t></m:r><m:rad><m:radPr><m:degHide m:val=\"on\"/></m:radPr><m:deg/>\
                   <m:e><m:r><m:t>\u{1D465}</m:t></m:r></m:e></m:rad></m:oMath>";
        assert_eq!(conv(xml), "\\sqrt{x+1}-\\sqrt{x}");
        assert_eq!(plain_letter('\u{1D6FC}'), 'α');
        assert_eq!(plain_letter('\u{1D7CF}'), '1');
        assert_eq!(plain_letter('\u{1D400}'), 'A');
    }
}
