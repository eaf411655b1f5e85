//! What each control word does.

use super::{Dest, Field, InfoField, Interp};
use crate::pict::Pict;
use quire_plugin_api::{Inline, Style};

/// Destinations whose content is never text we show; skipped without tokenizing.
/// `\nonesttables` holds what a reader without nested tables shows in their place (Word
/// writes one after every nested row, repeating the row's text); the nested rows themselves
/// are read.
fn skipped_destination(w: &[u8]) -> bool {
    matches!(
        w,
        b"colortbl"
            | b"nonesttables"
            | b"listtable"
            | b"listoverridetable"
            | b"revtbl"
            | b"rsidtbl"
            | b"filetbl"
            | b"nonshppict"
            | b"shprslt"
            | b"sp"
            | b"pn"
            | b"pnseclvl"
            | b"xe"
            | b"tc"
            | b"tcn"
            | b"ftnsep"
            | b"ftnsepc"
            | b"aftnsep"
            | b"aftnsepc"
            | b"atnauthor"
            | b"annotation"
            | b"atnid"
            | b"atndate"
            | b"template"
            | b"do"
            | b"objdata"
            | b"pgdsctbl"
            | b"generator"
            | b"mmathPr"
            | b"latentstyles"
            | b"themedata"
            | b"colorschememapping"
            | b"datastore"
            | b"xmlnstbl"
            | b"userprops"
            | b"docvar"
            | b"bkmkstart"
            | b"bkmkend"
            | b"fchars"
            | b"lchars"
            | b"objclass"
            | b"objname"
            | b"private"
            | b"operator"
            | b"hlinkbase"
            | b"company"
            | b"category"
            | b"manager"
            | b"comment"
            | b"doccomm"
            | b"printim"
            | b"buptim"
            | b"blipuid"
            | b"falt"
            | b"panose"
            | b"fname"
            | b"wgrffmtfilter"
            | b"upr"
            | b"rxe"
            | b"txe"
            | b"bkmkcolf"
            | b"bkmkcoll"
            | b"factoidname"
            | b"password"
            | b"passwordhash"
            | b"protusertbl"
            | b"pxe"
            | b"oldcprops"
            | b"oldpprops"
            | b"oldsprops"
            | b"oldtprops"
            | b"listpicture"
            | b"stylesheet_unused"
    )
}

/// Starred destinations we understand (any other `\*\word` group is skipped).
fn known_starred(w: &[u8]) -> bool {
    matches!(
        w,
        b"shppict"
            | b"picprop"
            | b"shpinst"
            | b"fldinst"
            | b"shptxt"
            | b"ud"
            | b"footnote"
            | b"listtext"
            | b"pntext"
    )
}

impl Interp<'_, '_> {
    pub(super) fn word(&mut self, w: &[u8], p: Option<i32>) {
        let on = p != Some(0);
        let param = p.unwrap_or(0);
        if self.star {
            self.star = false;
            if !known_starred(w) {
                self.skip_group();
                return;
            }
        }
        // A picture's properties (`\*\picprop{\sp{\sn …}{\sv …}}`) are read for its alt text.
        let picture_property = self.cur.dest == Dest::Pict && w == b"sp";
        if self.at_group_start && skipped_destination(w) && !picture_property {
            self.skip_group();
            return;
        }
        let dest = self.cur.dest;
        match dest {
            Dest::FontTable => return self.font_table_word(w, p),
            Dest::Stylesheet => return self.stylesheet_word(w, p),
            Dest::Info | Dest::InfoText(_) if self.info_word(w, param) => return,
            Dest::Pict => {
                self.pict_word(w, p);
                return;
            }
            _ => {}
        }
        match w {
            // Destinations.
            b"fonttbl" => self.cur.dest = Dest::FontTable,
            b"stylesheet" => self.cur.dest = Dest::Stylesheet,
            b"info" => self.cur.dest = Dest::Info,
            b"pict" => {
                if self.images >= self.max_images {
                    self.images_skipped += 1;
                    self.skip_group();
                } else {
                    self.cur.dest = Dest::Pict;
                    self.pict = Some(Pict::default());
                }
            }
            b"field" => {
                self.fields.push(Field::default());
                self.cur.field = Some(self.fields.len() - 1);
            }
            b"fldinst" => self.cur.dest = Dest::FieldInstruction,
            b"fldrslt" => {
                self.cur.dest = Dest::Body;
                let depth = self.flows.len();
                let paragraphs = self.paragraphs;
                let mark = self.flow().mark();
                if let Some(f) = self.cur.field.and_then(|i| self.fields.get_mut(i)) {
                    f.result = Some((depth, mark, paragraphs));
                }
            }
            b"footnote" if self.flows.len() < 8 => {
                self.flows.push(Default::default());
                self.cur.footnote = Some(self.flows.len());
                self.cur.dest = Dest::Body;
                self.cur.in_table = false;
                self.cur.list = 0;
            }
            b"listtext" | b"pntext" => {
                self.marker.clear();
                self.cur.dest = Dest::Marker;
            }
            // Code pages.
            b"ansicpg" => self.doc_cp = param,
            b"ansi" => self.doc_cp = 1252,
            b"mac" => self.doc_cp = 10000,
            b"pc" | b"pca" => self.doc_cp = 1252,
            b"deff" => self.default_font = p,
            b"f" => self.cur.font = p,
            // Character formatting.
            b"b" => self.cur.style.bold = on,
            b"i" => self.cur.style.italic = on,
            b"strike" | b"striked" => self.cur.style.strike = on,
            // every kind of underline; `\ulc` is its colour
            b"ul" | b"uld" | b"uldash" | b"uldashd" | b"uldashdd" | b"uldb" | b"ulhwave"
            | b"ulldash" | b"ulth" | b"ulthd" | b"ulthdash" | b"ulthdashd" | b"ulthdashdd"
            | b"ulthldash" | b"ululdbwave" | b"ulw" | b"ulwave" => self.cur.underline = on,
            b"ulnone" => self.cur.underline = false,
            b"plain" => {
                // Character formatting back to defaults, the font included (\deff).
                self.cur.style = Style::PLAIN;
                self.cur.underline = false;
                self.cur.hidden = false;
                self.cur.font = None;
                self.cur.size = super::DEFAULT_SIZE;
            }
            b"fs" => self.cur.size = p.unwrap_or(super::DEFAULT_SIZE),
            b"v" => self.cur.hidden = on,
            b"uc" => self.cur.uc = param.clamp(0, 16) as u32,
            b"u" => self.unicode(param),
            b"bin" => {
                let data = self.lexer.take_binary(usize::try_from(param).unwrap_or(0));
                if let (Dest::Pict, Some(pict)) = (self.cur.dest, self.pict.as_mut()) {
                    pict.binary(data);
                }
            }
            // Paragraphs and structure.
            b"par" | b"sect" | b"page" if self.cur.dest == Dest::Body => {
                let props = self.para_props();
                self.flow().end_paragraph(&props);
                self.paragraphs += 1;
            }
            b"line" if self.cur.dest == Dest::Body && !self.cur.hidden => {
                self.flow().inline(Inline::Break);
            }
            b"tab" if self.cur.dest == Dest::Body => {
                self.emit("\t");
            }
            b"pard" => {
                self.cur.para_style = 0;
                self.cur.outline = None;
                self.cur.in_table = false;
                self.cur.list = 0;
                self.cur.list_level = 0;
                self.cur.indent = None;
                self.cur.first_indent = 0;
            }
            b"s" => self.cur.para_style = param,
            b"outlinelevel" => self.cur.outline = u8::try_from(param).ok(),
            b"intbl" => self.cur.in_table = true,
            b"itap" => self.cur.in_table = param > 0,
            b"ls" => self.cur.list = param,
            b"ilvl" => self.cur.list_level = u8::try_from(param.clamp(0, 8)).unwrap_or(0),
            b"li" | b"lin" => self.cur.indent = Some(param),
            b"fi" => self.cur.first_indent = param,
            b"cell" if self.cur.dest == Dest::Body => {
                self.flow().end_cell();
            }
            b"trowd" => self.cell_edges.clear(),
            b"cellx" if self.cell_edges.len() < 1000 => self.cell_edges.push(param),
            b"row" if self.cur.dest == Dest::Body => {
                let edges = std::mem::take(&mut self.cell_edges);
                self.flow().set_row_bounds(&edges);
                self.flow().end_row();
                self.cell_edges = edges;
            }
            b"nestcell" => self.emit(" "),
            b"nestrow" if self.cur.dest == Dest::Body => {
                self.flow().inline(Inline::Break);
            }
            b"trhdr" => self.flow().row_is_header(),
            // Special characters.
            b"emdash" => self.emit("\u{2014}"),
            b"endash" => self.emit("\u{2013}"),
            b"lquote" => self.emit("\u{2018}"),
            b"rquote" => self.emit("\u{2019}"),
            b"ldblquote" => self.emit("\u{201C}"),
            b"rdblquote" => self.emit("\u{201D}"),
            b"bullet" => self.emit("\u{2022}"),
            b"emspace" | b"enspace" | b"qmspace" => self.emit(" "),
            b"zwj" => self.emit("\u{200D}"),
            b"zwnj" => self.emit("\u{200C}"),
            _ => {}
        }
    }

    fn font_table_word(&mut self, w: &[u8], p: Option<i32>) {
        match w {
            b"f" => {
                if self.pending_font.0.is_some() {
                    self.commit_font();
                }
                self.pending_font.0 = p;
            }
            b"fcharset" => {
                if let Some(cp) = p.and_then(crate::codepage::for_charset) {
                    self.pending_font.1 = Some(cp);
                }
            }
            b"cpg" => {
                if let Some(cp) = p.filter(|&c| c > 0) {
                    self.pending_font.1 = Some(cp);
                }
            }
            _ => {}
        }
    }

    fn stylesheet_word(&mut self, w: &[u8], p: Option<i32>) {
        match w {
            b"s" => self.pending_style.0 = p.unwrap_or(0),
            // Character, section and table styles never make headings.
            b"cs" | b"ds" | b"ts" => self.pending_style.0 = -1,
            b"outlinelevel" => self.pending_style.1 = p.and_then(|l| u8::try_from(l).ok()),
            b"sbasedon" => self.pending_based_on = p,
            b"u" => self.unicode(p.unwrap_or(0)),
            _ => {}
        }
    }

    /// Words inside `\info`; returns false for words handled as in the body.
    fn info_word(&mut self, w: &[u8], param: i32) -> bool {
        let field = match w {
            b"title" => InfoField::Title,
            b"author" => InfoField::Author,
            b"subject" => InfoField::Subject,
            b"keywords" => InfoField::Keywords,
            b"creatim" => InfoField::Created,
            b"revtim" => InfoField::Modified,
            b"yr" | b"mo" | b"dy" | b"hr" | b"min" => {
                let i = match w {
                    b"yr" => 0,
                    b"mo" => 1,
                    b"dy" => 2,
                    b"hr" => 3,
                    _ => 4,
                };
                self.date[i] = param;
                return true;
            }
            b"u" | b"uc" | b"f" => return false,
            _ => InfoField::Other,
        };
        self.info_text.clear();
        self.date = [0; 5];
        self.cur.dest = Dest::InfoText(field);
        true
    }

    fn pict_word(&mut self, w: &[u8], p: Option<i32>) {
        match w {
            b"sn" => {
                self.cur.dest = Dest::ShapeName;
                self.shape_name.clear();
                return;
            }
            b"sv" => {
                self.cur.dest = Dest::ShapeValue;
                self.shape_value.clear();
                return;
            }
            _ => {}
        }
        let Some(pict) = self.pict.as_mut() else {
            return;
        };
        match w {
            b"pngblip" => pict.kind = Some("png"),
            b"jpegblip" => pict.kind = Some("jpeg"),
            b"emfblip" => pict.kind = Some("emf"),
            b"wmetafile" => pict.kind = Some("wmf"),
            b"dibitmap" | b"wbitmap" => pict.kind = Some("bmp"),
            b"macpict" => pict.kind = Some("pict"),
            b"picwgoal" => pict.goal_w = p,
            b"pichgoal" => pict.goal_h = p,
            b"bin" => {
                let data = self
                    .lexer
                    .take_binary(usize::try_from(p.unwrap_or(0)).unwrap_or(0));
                if let Some(pict) = self.pict.as_mut() {
                    pict.binary(data);
                }
            }
            _ => {}
        }
    }
}
