//! Office Math (OMML, `m:oMath`) in a Word part: read with the part's reader into
//! [`quire_ooxml::omml::Node`]s and printed as LaTeX by [`quire_ooxml::omml::latex`], which
//! PowerPoint's formulas share.

use crate::xml::{attr, name, Ev, Xml};
use quire_ooxml::omml::{latex, set_prop, Node, MAX_DEPTH};
use quire_plugin_api::Result;

/// Reads the math element whose start was just read and returns its LaTeX.
pub(crate) fn read(x: &mut Xml<'_>) -> Result<String> {
    let root = read_node(x, "oMath".into())?;
    Ok(latex(&root).trim().to_owned())
}

fn read_node(x: &mut Xml<'_>, node_name: String) -> Result<Node> {
    let mut node = Node {
        name: node_name,
        ..Node::default()
    };
    if x.depth() > MAX_DEPTH {
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
            Ev::Empty(e) => set_prop(node, name(&e), attr(&e, b"val")),
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
