//! Paragraph, run, drawing and table content for [`PartParser`].

use super::*;

impl<'s, 'z, 'b, 'c, 'x> PartParser<'s, 'z, 'b, 'c, 'x> {
    pub(super) fn para<'a>(&mut self, x: &mut Xml<'a>) -> Result<Para> {
        let mut p = Para::default();
        let mut fmt = FmtDelta::default();
        let old = self.new_sink();
        self.para_children(x, &mut p, &mut fmt)?;
        self.sink = old;
        Ok(p)
    }

    /// Paragraph content until the end of the current element.
    fn para_children<'a>(
        &mut self,
        x: &mut Xml<'a>,
        p: &mut Para,
        fmt: &mut FmtDelta,
    ) -> Result<()> {
        if !self.enter(x)? {
            return Ok(());
        }
        loop {
            match x.next()? {
                Ev::Start(e) => match name(&e) {
                    b"pPr" => {
                        self.ppr(x, p)?;
                        let styles = &self.sh.styles;
                        *fmt = if styles
                            .heading_level(p.style.as_deref(), p.outline)
                            .is_some()
                        {
                            FmtDelta::default()
                        } else {
                            styles.fmt(p.style.as_deref())
                        };
                    }
                    b"r" => self.run(x, p, *fmt)?,
                    b"hyperlink" => {
                        let href = self.link_href(attr(&e, b"id"), attr(&e, b"anchor"));
                        self.linked(x, p, fmt, href)?;
                    }
                    b"fldSimple" => {
                        let href = attr(&e, b"instr").and_then(|i| field_link(&i));
                        self.linked(x, p, fmt, href)?;
                    }
                    b"ins" | b"moveTo" | b"smartTag" | b"customXml" | b"sdt" | b"sdtContent"
                    | b"bdo" | b"dir" | b"ruby" | b"rubyBase" => self.para_children(x, p, fmt)?,
                    b"oMathPara" => {
                        let mut parts = Vec::new();
                        loop {
                            match x.next()? {
                                Ev::Start(m) if name(&m) == b"oMath" => {
                                    parts.push(crate::math::read(x)?)
                                }
                                Ev::Start(_) => x.skip()?,
                                Ev::End | Ev::Eof => break,
                                _ => {}
                            }
                        }
                        let tex = quire_ooxml::omml::lines(parts);
                        if !tex.is_empty() && !self.suppressed() {
                            p.inlines.push(Inline::Math { tex, display: true });
                        }
                    }
                    b"oMath" => {
                        let tex = crate::math::read(x)?;
                        if !tex.is_empty() && !self.suppressed() {
                            p.inlines.push(Inline::Math {
                                tex,
                                display: false,
                            });
                        }
                    }
                    b"AlternateContent" => self.alternate(x, |s, x| s.para_children(x, p, fmt))?,
                    _ => x.skip()?,
                },
                Ev::End | Ev::Eof => return Ok(()),
                _ => {}
            }
        }
    }

    /// Content wrapped in a link (a `w:hyperlink` or a `HYPERLINK` simple field).
    fn linked<'a>(
        &mut self,
        x: &mut Xml<'a>,
        p: &mut Para,
        fmt: &mut FmtDelta,
        href: Option<String>,
    ) -> Result<()> {
        let Some(href) = href.filter(|h| safe_href(h)) else {
            return self.para_children(x, p, fmt);
        };
        let saved = std::mem::take(&mut p.inlines);
        let old = self.new_sink();
        self.links += 1;
        let read = self.para_children(x, p, fmt);
        self.links -= 1;
        self.sink = old;
        read?;
        let content = std::mem::replace(&mut p.inlines, saved);
        if !content.is_empty() {
            p.inlines.push(Inline::link(href, None, content));
        }
        Ok(())
    }

    fn link_href(&self, id: Option<String>, anchor: Option<String>) -> Option<String> {
        let anchor = anchor.filter(|a| !a.is_empty());
        match id.and_then(|id| self.rels.get(&id)) {
            Some(rel) => Some(match anchor {
                Some(a) => format!("{}#{a}", rel.target),
                None => rel.target.clone(),
            }),
            None => anchor.map(|a| format!("#{a}")),
        }
    }

    fn ppr<'a>(&mut self, x: &mut Xml<'a>, p: &mut Para) -> Result<()> {
        loop {
            match x.next()? {
                Ev::Empty(e) => match name(&e) {
                    b"pStyle" => p.style = attr(&e, b"val"),
                    b"framePr" => {
                        p.drop_cap =
                            matches!(attr(&e, b"dropCap").as_deref(), Some("drop" | "margin"))
                    }
                    b"outlineLvl" => {
                        p.outline = attr(&e, b"val").and_then(|v| v.trim().parse().ok())
                    }
                    b"ind" => p.indent = crate::xml::indent(&e).or(p.indent),
                    _ => {}
                },
                Ev::Start(e) => match name(&e) {
                    b"numPr" => loop {
                        match x.next()? {
                            Ev::Empty(n) => match name(&n) {
                                b"ilvl" => {
                                    p.ilvl = attr(&n, b"val").and_then(|v| v.trim().parse().ok())
                                }
                                b"numId" => p.num_id = attr(&n, b"val"),
                                _ => {}
                            },
                            Ev::Start(_) => x.skip()?,
                            Ev::End | Ev::Eof => break,
                            _ => {}
                        }
                    },
                    b"sectPr" => self.sect_pr(x)?,
                    _ => x.skip()?,
                },
                Ev::End | Ev::Eof => return Ok(()),
                _ => {}
            }
        }
    }

    fn rpr<'a>(&mut self, x: &mut Xml<'a>, pfmt: FmtDelta) -> Result<FmtDelta> {
        let mut direct = FmtDelta::default();
        let mut char_style = FmtDelta::default();
        loop {
            match x.next()? {
                Ev::Empty(e) => {
                    if name(&e) == b"rStyle" {
                        char_style = self.sh.styles.fmt(attr(&e, b"val").as_deref());
                    } else {
                        direct.apply(&e);
                    }
                }
                Ev::Start(_) => x.skip()?,
                Ev::End | Ev::Eof => return Ok(direct.over(char_style).over(pfmt)),
                _ => {}
            }
        }
    }

    fn run<'a>(&mut self, x: &mut Xml<'a>, p: &mut Para, pfmt: FmtDelta) -> Result<()> {
        let mut fmt = pfmt;
        self.run_children(x, p, &mut fmt, pfmt)
    }

    fn run_children<'a>(
        &mut self,
        x: &mut Xml<'a>,
        p: &mut Para,
        fmt: &mut FmtDelta,
        pfmt: FmtDelta,
    ) -> Result<()> {
        if !self.enter(x)? {
            return Ok(());
        }
        loop {
            let visible = !self.suppressed() && fmt.hidden != Some(true);
            match x.next()? {
                Ev::Start(e) => match name(&e) {
                    b"rPr" => *fmt = self.rpr(x, pfmt)?,
                    b"t" => {
                        let t = x.text()?;
                        if visible {
                            push_text(&mut p.inlines, &t, to_style(*fmt, self.in_link()));
                        }
                    }
                    b"instrText" => {
                        let t = x.text()?;
                        if let Some(f) = self.fields.last_mut().filter(|f| !f.in_result) {
                            if f.instr.len() < 4096 {
                                f.instr.push_str(&t);
                            }
                        }
                    }
                    b"drawing" | b"pict" | b"object" => {
                        let mut alt = None;
                        let start = p.inlines.len();
                        self.object = None;
                        self.graphic(x, p, &mut alt)?;
                        // a worksheet or document shown in the page: its content, not the
                        // picture of it; an Equation Editor 3.0 formula: its LaTeX, as Office
                        // Math reads
                        if let Some(object) = self.object.take().filter(|_| !self.suppressed()) {
                            let (Object::Document(id) | Object::Equation(id)) = &object;
                            if let Some((name, bytes)) = self.object_part(id)? {
                                match object {
                                    Object::Document(_) => {
                                        if let Some(blocks) = quire_ooxml::embedded::object_blocks(
                                            &bytes,
                                            &name,
                                            self.sh.ctx,
                                        )? {
                                            p.inlines.truncate(start);
                                            p.after.push(Item::Blocks(blocks));
                                        }
                                    }
                                    Object::Equation(_) => {
                                        if let Some(tex) = quire_ooxml::mtef::ole_latex(&bytes) {
                                            p.inlines.truncate(start);
                                            p.inlines.push(Inline::Math {
                                                tex,
                                                display: false,
                                            });
                                        }
                                    }
                                }
                            }
                        }
                    }
                    b"AlternateContent" => {
                        self.alternate(x, |s, x| s.run_children(x, p, fmt, pfmt))?
                    }
                    _ => x.skip()?,
                },
                Ev::Empty(e) => match name(&e) {
                    b"tab" | b"ptab" if visible => {
                        push_text(&mut p.inlines, "\t", to_style(*fmt, self.in_link()))
                    }
                    b"br" | b"cr" if visible => {
                        let kind = attr(&e, b"type");
                        if !matches!(kind.as_deref(), Some("page" | "column")) {
                            p.inlines.push(Inline::Break);
                        }
                    }
                    b"noBreakHyphen" if visible => {
                        push_text(&mut p.inlines, "-", to_style(*fmt, self.in_link()))
                    }
                    b"sym" if visible => {
                        let font = attr(&e, b"font");
                        if let Some(c) =
                            attr(&e, b"char").and_then(|c| sym_char(font.as_deref(), &c))
                        {
                            push_text(
                                &mut p.inlines,
                                c.encode_utf8(&mut [0; 4]),
                                to_style(*fmt, self.in_link()),
                            );
                        }
                    }
                    b"fldChar" => self.fld_char(attr(&e, b"fldCharType").as_deref(), p),
                    b"footnoteReference" | b"endnoteReference" | b"commentReference"
                        if !self.suppressed() =>
                    {
                        let kind = match name(&e) {
                            b"footnoteReference" => NoteKind::Foot,
                            b"endnoteReference" => NoteKind::End,
                            _ => NoteKind::Comment,
                        };
                        if let Some(id) = attr(&e, b"id") {
                            let label = self.sh.notes.label(kind, &id);
                            p.inlines.push(Inline::NoteRef(label));
                        }
                    }
                    _ => {}
                },
                Ev::End | Ev::Eof => return Ok(()),
                Ev::Text(_) => {}
            }
        }
    }

    fn fld_char(&mut self, kind: Option<&str>, p: &mut Para) {
        match kind {
            Some("begin") if self.fields.len() < 64 => self.fields.push(Field {
                instr: String::new(),
                in_result: false,
                link: None,
            }),
            Some("separate") => {
                let sink = self.sink;
                if let Some(f) = self.fields.last_mut() {
                    f.in_result = true;
                    if let Some(href) = field_link(&f.instr).filter(|h| safe_href(h)) {
                        f.link = Some((href, sink, p.inlines.len()));
                    }
                }
            }
            Some("end") => {
                if let Some(Field {
                    link: Some((href, sink, start)),
                    ..
                }) = self.fields.pop()
                {
                    if sink == self.sink && start <= p.inlines.len() {
                        let content = p.inlines.split_off(start);
                        if !content.is_empty() {
                            p.inlines.push(Inline::link(href, None, content));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Walks a `w:drawing`, `w:pict` or `w:object` for pictures and text boxes.
    fn graphic<'a>(
        &mut self,
        x: &mut Xml<'a>,
        p: &mut Para,
        alt: &mut Option<String>,
    ) -> Result<()> {
        if !self.enter(x)? {
            return Ok(());
        }
        loop {
            match x.next()? {
                Ev::Start(e) => match name(&e) {
                    b"txbxContent" => {
                        let mut items = Vec::new();
                        self.blocks(x, &mut items, None)?;
                        p.after.append(&mut items);
                    }
                    b"AlternateContent" => self.alternate(x, |s, x| s.graphic(x, p, alt))?,
                    b"txBody" => {
                        let mut items = Vec::new();
                        self.drawing_text(x, &mut items)?;
                        p.after.append(&mut items);
                    }
                    b"docPr" | b"cNvPr" | b"blip" | b"imagedata" | b"chart" | b"relIds"
                    | b"OLEObject" => {
                        self.graphic_leaf(&e, p, alt)?;
                        x.skip()?;
                    }
                    _ => self.graphic(x, p, alt)?,
                },
                Ev::Empty(e) => self.graphic_leaf(&e, p, alt)?,
                Ev::End | Ev::Eof => return Ok(()),
                Ev::Text(_) => {}
            }
        }
    }

    fn graphic_leaf(
        &mut self,
        e: &quick_xml::events::BytesStart<'_>,
        p: &mut Para,
        alt: &mut Option<String>,
    ) -> Result<()> {
        match name(e) {
            b"docPr" | b"cNvPr" if alt.is_none() => {
                *alt = attr(e, b"descr")
                    .or_else(|| attr(e, b"title"))
                    .map(|a| a.trim().to_owned())
                    .filter(|a| !a.is_empty());
            }
            b"blip" => {
                let id = attr(e, b"embed").filter(|i| !i.is_empty());
                let link = attr(e, b"link").filter(|i| !i.is_empty());
                self.image(p, id, link, alt.clone())?;
            }
            b"imagedata" => {
                let id = attr(e, b"id").filter(|i| !i.is_empty());
                let title = attr(e, b"title").filter(|t| !t.trim().is_empty());
                if id.is_some() {
                    self.image(p, id, None, alt.clone().or(title))?;
                }
            }
            b"chart" => self.chart(p, attr(e, b"id"))?,
            b"relIds" => self.diagram(p, attr(e, b"dm")),
            // a workbook, Word document or Equation Editor 3.0 formula embedded and shown as
            // its content (not an icon)
            b"OLEObject" if attr(e, b"DrawAspect").as_deref() != Some("Icon") => {
                let id = attr(e, b"id").filter(|i| !i.is_empty());
                self.object = match (attr(e, b"ProgID"), id) {
                    (Some(p), Some(id)) if quire_ooxml::embedded::converts(&p) => {
                        Some(Object::Document(id))
                    }
                    (Some(p), Some(id)) if quire_ooxml::mtef::is_equation(&p) => {
                        Some(Object::Equation(id))
                    }
                    _ => None,
                };
            }
            _ => {}
        }
        Ok(())
    }

    /// A SmartArt diagram's data part (`dgm:relIds r:dm`): the text of its points, after the
    /// paragraph. A missing or unreadable part leaves the diagram out (its picture, when the
    /// file has one, is not in the data part either).
    fn diagram(&mut self, p: &mut Para, dm: Option<String>) {
        if self.suppressed() {
            return;
        }
        let Some(target) = dm
            .and_then(|id| self.rels.get(&id))
            .filter(|r| !r.external)
            .map(|r| r.target.clone())
        else {
            return;
        };
        if let Ok(Some(xml)) = self.sh.zip.read(&target) {
            let texts = quire_ooxml::diagram::nodes(&xml);
            if !texts.is_empty() {
                p.after.push(Item::Diagram(texts));
            }
        }
    }

    /// DrawingML text (`a:txBody`, `wps:txBody`): its paragraphs (`a:p`) of runs, fields and
    /// breaks, until the end of the current element.
    fn drawing_text<'a>(&mut self, x: &mut Xml<'a>, out: &mut Vec<Item>) -> Result<()> {
        if !self.enter(x)? {
            return Ok(());
        }
        loop {
            match x.next()? {
                Ev::Start(e) if name(&e) == b"p" => {
                    let mut para = Para::default();
                    self.drawing_para(x, &mut para)?;
                    if !self.suppressed() {
                        out.push(Item::Para(para));
                    }
                }
                Ev::Start(_) => x.skip()?,
                Ev::End | Ev::Eof => return Ok(()),
                _ => {}
            }
        }
    }

    /// One DrawingML paragraph: the text of its runs (`a:r`) and fields (`a:fld`), `a:br` as
    /// a line break, bold and italic from each run's `a:rPr b`/`i`.
    fn drawing_para<'a>(&mut self, x: &mut Xml<'a>, para: &mut Para) -> Result<()> {
        if !self.enter(x)? {
            return Ok(());
        }
        let mut style = Style::default();
        loop {
            match x.next()? {
                Ev::Start(e) => match name(&e) {
                    b"r" | b"fld" => self.drawing_para(x, para)?,
                    b"rPr" => {
                        style = drawing_style(&e);
                        x.skip()?;
                    }
                    b"t" => {
                        let t = x.text()?;
                        push_text(&mut para.inlines, &t, style);
                    }
                    _ => x.skip()?,
                },
                Ev::Empty(e) => match name(&e) {
                    b"rPr" => style = drawing_style(&e),
                    b"br" => para.inlines.push(Inline::Break),
                    _ => {}
                },
                Ev::End | Ev::Eof => return Ok(()),
                Ev::Text(_) => {}
            }
        }
    }

    /// A chart part (`c:chart r:id`, also `cx:chart`): title and cached data, after the
    /// paragraph. A missing or damaged part is left out with a warning.
    fn chart(&mut self, p: &mut Para, id: Option<String>) -> Result<()> {
        if self.suppressed() {
            return Ok(());
        }
        let Some(target) = id
            .and_then(|id| self.rels.get(&id))
            .filter(|r| !r.external)
            .map(|r| r.target.clone())
        else {
            return Ok(());
        };
        match self.sh.zip.read(&target) {
            Ok(Some(xml)) => p.after.push(Item::Chart(chart::read(&xml))),
            Ok(None) => self
                .sh
                .ctx
                .warn("A chart's part is missing from the file; the chart was left out."),
            Err(e) if e.kind() == quire_plugin_api::ErrorKind::Malformed => self
                .sh
                .ctx
                .warn(format!("A chart could not be read: {}", e.message())),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    fn image(
        &mut self,
        p: &mut Para,
        embed: Option<String>,
        link: Option<String>,
        alt: Option<String>,
    ) -> Result<()> {
        if self.suppressed() {
            return Ok(());
        }
        let rel = embed.as_ref().and_then(|id| self.rels.get(id)).cloned();
        let linked = link.as_ref().and_then(|id| self.rels.get(id)).cloned();
        let mut image = match rel {
            Some(rel) if !rel.external => {
                let part_name = rel.target.clone();
                let name = media::file_name(&part_name).to_owned();
                if self.sh.images >= self.sh.ctx.limits.max_images {
                    let mut img = Image::new(name, media::mime(&[], &part_name), Vec::new());
                    img.skipped = Some(format!(
                        "more than {} images in the document",
                        self.sh.ctx.limits.max_images
                    ));
                    img
                } else {
                    match self.sh.zip.read(&part_name) {
                        Ok(Some(data)) => {
                            self.sh.images += 1;
                            let mime = media::mime(&data, &part_name);
                            Image::new(name, mime, data)
                        }
                        Ok(None) => {
                            let mut img =
                                Image::new(name, media::mime(&[], &part_name), Vec::new());
                            img.skipped = Some("the image part is missing from the file".into());
                            img
                        }
                        Err(e) if e.kind() == quire_plugin_api::ErrorKind::Malformed => {
                            self.sh
                                .ctx
                                .warn(format!("An image could not be read: {}", e.message()));
                            let mut img =
                                Image::new(name, media::mime(&[], &part_name), Vec::new());
                            img.skipped = Some("the image part is damaged".into());
                            img
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
            other => {
                // A linked picture (r:link) or an external target: never fetched.
                let Some(target) = other.or(linked).map(|r| r.target) else {
                    return Ok(());
                };
                let name = media::file_name(&target).to_owned();
                let mut img = Image::new(name, media::mime(&[], &target), Vec::new());
                img.skipped = Some("linked image outside the document; not fetched".into());
                img
            }
        };
        image.alt = alt;
        p.inlines.push(Inline::Image(Box::new(image)));
        Ok(())
    }

    pub(super) fn table<'a>(&mut self, x: &mut Xml<'a>) -> Result<TableIr> {
        let mut t = TableIr::default();
        self.table_children(x, &mut t)?;
        Ok(t)
    }

    fn table_children<'a>(&mut self, x: &mut Xml<'a>, t: &mut TableIr) -> Result<()> {
        if !self.enter(x)? {
            return Ok(());
        }
        loop {
            match x.next()? {
                Ev::Start(e) => match name(&e) {
                    b"tr" => {
                        let mut row = RowIr::default();
                        self.row_children(x, &mut row)?;
                        if !row.deleted {
                            t.rows.push(row);
                        }
                    }
                    b"sdt" | b"sdtContent" | b"customXml" | b"ins" | b"moveTo" => {
                        self.table_children(x, t)?
                    }
                    b"AlternateContent" => self.alternate(x, |s, x| s.table_children(x, t))?,
                    _ => x.skip()?,
                },
                Ev::End | Ev::Eof => return Ok(()),
                _ => {}
            }
        }
    }

    fn row_children<'a>(&mut self, x: &mut Xml<'a>, row: &mut RowIr) -> Result<()> {
        if !self.enter(x)? {
            return Ok(());
        }
        loop {
            match x.next()? {
                Ev::Start(e) => match name(&e) {
                    b"trPr" => loop {
                        match x.next()? {
                            Ev::Empty(p) => match name(&p) {
                                b"tblHeader" => row.header = on_off(&p),
                                b"gridBefore" => {
                                    row.grid_before = attr(&p, b"val")
                                        .and_then(|v| v.trim().parse().ok())
                                        .unwrap_or(0)
                                        .min(1000)
                                }
                                b"del" => row.deleted = true,
                                _ => {}
                            },
                            Ev::Start(p) => {
                                if name(&p) == b"del" {
                                    row.deleted = true;
                                }
                                x.skip()?
                            }
                            Ev::End | Ev::Eof => break,
                            _ => {}
                        }
                    },
                    b"tc" => {
                        let mut cell = CellIr {
                            span: 1,
                            ..CellIr::default()
                        };
                        let mut items = Vec::new();
                        self.blocks(x, &mut items, Some(&mut cell))?;
                        cell.items = items;
                        row.cells.push(cell);
                    }
                    b"sdt" | b"sdtContent" | b"customXml" | b"ins" | b"moveTo" => {
                        self.row_children(x, row)?
                    }
                    b"AlternateContent" => self.alternate(x, |s, x| s.row_children(x, row))?,
                    _ => x.skip()?,
                },
                Ev::End | Ev::Eof => return Ok(()),
                _ => {}
            }
        }
    }
}

/// Bold and italic of a DrawingML run (`a:rPr b="1" i="1"`).
fn drawing_style(e: &quick_xml::events::BytesStart<'_>) -> Style {
    let on = |k: &[u8]| matches!(attr(e, k).as_deref(), Some("1" | "true"));
    Style {
        bold: on(b"b"),
        italic: on(b"i"),
        strike: matches!(attr(e, b"strike").as_deref(), Some(v) if v != "noStrike"),
    }
}
