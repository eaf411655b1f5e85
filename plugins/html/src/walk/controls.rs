//! What form controls, SVG and MathML show a reader.
//!
//! Form controls read as a browser draws them: a button's label, a select's chosen option (the
//! `selected` one, else the first), a submit/reset/button input's `value`, a textarea's
//! initial text; never what is typed into a text field (`value` of other inputs) nor a
//! select's other options (a country list would bury the page) nor a `datalist`. In SVG only
//! what is drawn as text counts: `<text>` and the HTML inside `<foreignObject>`, not text
//! loose among shapes (never drawn), nor `<title>` and `<desc>` (an icon's tooltip is noise).
//! A MathML formula whose TeX the page carries (a TeX `annotation`, as KaTeX, MathJax and
//! MediaWiki write, or an `alttext` in TeX) is that LaTeX (`Inline::Math`); otherwise it shows
//! the text of its token elements (`mi`, `mn`, `mo`, `mtext` …) unless `alttext` stands for
//! the whole formula, and never its annotations (other encodings of the same formula).

use super::{is_hidden, Flow, Walker};
use crate::dom::{Element, NodeData, NodeId};
use html5ever::ns;
use quire_plugin_api::{Inline, Result};

impl Walker<'_> {
    /// An SVG or MathML element.
    pub(super) fn foreign(
        &mut self,
        id: NodeId,
        element: &Element,
        flow: &mut Flow,
        depth: usize,
    ) -> Result<()> {
        if depth >= self.max_depth {
            self.depth_cut = true;
            return Ok(());
        }
        let local = &*element.name.local;
        let hides_text = if element.name.ns == ns!(svg) {
            match local {
                "text" | "foreignObject" => false,
                // Within a text they are drawn, within graphics not.
                "tspan" | "textPath" | "a" | "switch" => self.svg_hides_text,
                "title" | "desc" | "metadata" | "style" | "script" => return Ok(()),
                _ => true,
            }
        } else if element.name.ns == ns!(mathml) {
            if local == "math" {
                if let Some(tex) = self.math_tex(id, element) {
                    let display = element
                        .attr("display")
                        .is_some_and(|d| d.trim().eq_ignore_ascii_case("block"));
                    if display {
                        self.flush(flow);
                    }
                    // a formula stands apart from the words around it, as below
                    flow.inlines.soft_space();
                    flow.inlines.atom(Inline::Math { tex, display });
                    flow.inlines.soft_space();
                    return Ok(());
                }
            }
            if let Some(alt) = element.attr("alttext").filter(|a| !a.trim().is_empty()) {
                self.inline_label(alt, flow);
                return Ok(());
            }
            if matches!(local, "annotation" | "annotation-xml") {
                return Ok(());
            }
            false
        } else {
            return Ok(());
        };
        // A drawn text or a formula stands apart from the words around it.
        let apart = matches!(local, "text" | "math");
        if apart {
            flow.inlines.soft_space();
        }
        let saved = std::mem::replace(&mut self.svg_hides_text, hides_text);
        let result = self.children(id, flow, depth);
        self.svg_hides_text = saved;
        if apart {
            flow.inlines.soft_space();
        }
        result
    }

    /// A MathML formula's TeX, when the page carries it: a TeX `annotation` (KaTeX, MathJax and
    /// MediaWiki write one), else an `alttext` written in TeX (a backslash, brace or script
    /// mark in it; plain words stay the formula's spoken text).
    fn math_tex(&self, id: NodeId, element: &Element) -> Option<String> {
        let mut found = None;
        self.dom.walk_subtree(id, |child, node| {
            if found.is_some() {
                return false;
            }
            if let NodeData::Element(e) = &node.data {
                if e.name.ns == ns!(mathml) && &*e.name.local == "annotation" {
                    let tex_encoding = e.attr("encoding").is_some_and(|enc| {
                        let enc = enc.trim().to_ascii_lowercase();
                        matches!(
                            enc.as_str(),
                            "application/x-tex"
                                | "text/x-tex"
                                | "tex"
                                | "latex"
                                | "application/x-latex"
                        )
                    });
                    if tex_encoding {
                        found = Some(self.text_content(child));
                    }
                    return false;
                }
            }
            true
        });
        let tex = found.or_else(|| {
            element
                .attr("alttext")
                .filter(|a| a.contains(['\\', '{', '^', '_']))
                .map(str::to_owned)
        })?;
        let tex = bare_tex(&tex);
        (!tex.is_empty()).then_some(tex)
    }

    /// Text a control shows, as a word group of its own on the current line.
    pub(super) fn inline_label(&mut self, text: &str, flow: &mut Flow) {
        flow.inlines.soft_space();
        flow.inlines.text(text, self.style());
        flow.inlines.soft_space();
    }

    /// A select reads as the option a browser shows in it: every `selected` one, else the
    /// first; an option's `label` attribute is its text where given.
    pub(super) fn select(&mut self, id: NodeId, flow: &mut Flow) {
        let mut options = Vec::new();
        self.dom.walk_subtree(id, |child, node| match &node.data {
            NodeData::Element(e) if !is_hidden(e) => {
                if e.html_name().is_some_and(|n| &**n == "option") {
                    options.push((child, e.attr("selected").is_some()));
                    false
                } else {
                    true
                }
            }
            _ => false,
        });
        let chosen: Vec<NodeId> = if options.iter().any(|&(_, selected)| selected) {
            options
                .iter()
                .filter(|&&(_, selected)| selected)
                .map(|&(o, _)| o)
                .collect()
        } else {
            options.first().map(|&(o, _)| o).into_iter().collect()
        };
        for option in chosen {
            let label = self
                .dom
                .element(option)
                .and_then(|e| e.attr("label"))
                .filter(|l| !l.trim().is_empty())
                .map_or_else(|| self.text_content(option), str::to_owned);
            self.inline_label(&label, flow);
        }
    }
}

/// TeX without MediaWiki's wrapper (`{\displaystyle …}`, `{\textstyle …}`), whitespace folded.
pub(super) fn bare_tex(tex: &str) -> String {
    let t = tex.trim();
    let inner = ["{\\displaystyle", "{\\textstyle"]
        .iter()
        .find_map(|w| t.strip_prefix(w))
        .and_then(|r| r.strip_suffix('}'))
        .unwrap_or(t);
    quire_plugin_api::text::fold_whitespace(inner)
}
