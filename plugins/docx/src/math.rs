//! Office Math (OMML, `m:oMath`) to LaTeX, the way Markdown readers expect formulas
//! (`$...$` inline, `$$...$$` on their own).
//!
//! The subtree is read into a small tree first (it is short), then printed recursively.
//! Structures covered: fractions, scripts, radicals, delimiters, n-ary operators, functions,
//! accents, bars, limits, matrices and equation arrays; anything else prints its text.

use crate::xml::{attr, name, Ev, Xml};
use quire_plugin_api::Result;

#[derive(Debug, Default)]
struct Node {
    name: String,
    /// `m:chr`, `m:begChr`, `m:endChr`, `m:pos`, `m:type` values found in the *Pr child.
    chr: Option<String>,
    beg: Option<String>,
    end: Option<String>,
    text: String,
    children: Vec<Node>,
}

/// Reads the math element whose start was just read and returns its LaTeX.
pub(crate) fn read(x: &mut Xml<'_>) -> Result<String> {
    let root = read_node(x, "oMath".into())?;
    Ok(latex(&root).trim().to_owned())
}

/// Formulas nested deeper than this are left out (bounds the recursion).
const MAX_MATH_DEPTH: u32 = 160;

fn read_node(x: &mut Xml<'_>, node_name: String) -> Result<Node> {
    let mut node = Node {
        name: node_name,
        ..Node::default()
    };
    if x.depth() > MAX_MATH_DEPTH {
        x.skip()?;
        return Ok(node);
    }
    loop {
        match x.next()? {
            Ev::Start(e) => {
                let n = String::from_utf8_lossy(name(&e)).into_owned();
                if n.ends_with("Pr") {
                    // Properties: only the characters matter.
                    read_props(x, &mut node)?;
                } else if n == "t" {
                    node.children.push(Node {
                        name: "t".into(),
                        text: x.text()?,
                        ..Node::default()
                    });
                } else {
                    node.children.push(read_node(x, n)?);
                }
            }
            Ev::Empty(_) | Ev::Text(_) => {}
            Ev::End | Ev::Eof => return Ok(node),
        }
    }
}

fn read_props(x: &mut Xml<'_>, node: &mut Node) -> Result<()> {
    let mut depth = 0u32;
    loop {
        match x.next()? {
            Ev::Start(_) => depth += 1,
            Ev::Empty(e) => {
                let v = attr(&e, b"val");
                match name(&e) {
                    b"chr" => node.chr = Some(v.unwrap_or_default()),
                    b"begChr" => node.beg = Some(v.unwrap_or_default()),
                    b"endChr" => node.end = Some(v.unwrap_or_default()),
                    b"pos" if node.chr.is_none() && v.as_deref() == Some("top") => {
                        node.chr = Some("top".into())
                    }
                    _ => {}
                }
            }
            Ev::End => {
                if depth == 0 {
                    return Ok(());
                }
                depth -= 1;
            }
            Ev::Eof => return Ok(()),
            Ev::Text(_) => {}
        }
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

fn latex(node: &Node) -> String {
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
        let mut x = Xml::new(xml.as_bytes(), 64, "t");
        assert!(matches!(x.next().unwrap(), Ev::Start(_)));
        read(&mut x).unwrap()
    }

    #[test]
    fn prints_latex() {
        assert_eq!(
            conv("<m:oMath><m:r><m:t>m</m:t></m:r><m:r><m:t>=1</m:t></m:r></m:oMath>"),
            "m=1"
        );
        assert_eq!(
            conv("<m:oMath><m:f><m:num><m:r><m:t>a</m:t></m:r></m:num><m:den><m:r><m:t>b</m:t></m:r></m:den></m:f></m:oMath>"),
            "\\frac{a}{b}"
        );
        assert_eq!(
            conv("<m:oMath><m:r><m:t>sin\u{2061}</m:t></m:r><m:r><m:t>x</m:t></m:r></m:oMath>"),
            "\\sin x"
        );
        assert_eq!(
            conv("<m:oMath><m:sSup><m:sSupPr><m:ctrlPr/></m:sSupPr><m:e><m:r><m:t>x</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup></m:oMath>"),
            "x^{2}"
        );
    }
}
