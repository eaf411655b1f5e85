"""Three PDF producers for one content model (content.py): headless Chromium printing HTML,
LibreOffice converting a DOCX written with python-docx, and reportlab drawing pages.

Each producer varies what real documents vary: fonts, sizes, margins, columns, heading style
(by size, or by weight only), bullet glyphs and drawn bullets, table rules, running header
and footer with page numbers, a vertical margin line. Rotation (/Rotate 90/180/270) is applied
afterwards to whole documents by gen.py.
"""

import html
import os
import random
import subprocess
import tempfile

from content import footer_text

SERIF = ["DejaVu Serif", "Liberation Serif", "Noto Serif"]
SANS = ["DejaVu Sans", "Liberation Sans", "Noto Sans"]


# --- Chromium ----------------------------------------------------------------------------------

def chromium_html(doc: dict, rng: random.Random) -> tuple[str, dict]:
    font = rng.choice(SERIF + SANS)
    size = rng.choice([9.5, 10, 10.5, 11, 12])
    columns = rng.choice([1, 1, 1, 2, 2, 3]) if size <= 11 else 1
    weight_only = rng.random() < 0.25
    bullet = rng.choice(["disc", "disc", "circle", "square", "dash"])
    h_sizes = {1: 2.0, 2: 1.5, 3: 1.2} if not weight_only else {1: 1.6, 2: 1.0, 3: 1.0}
    css = f"""
    body {{ font-family: '{font}'; font-size: {size}pt; line-height: {rng.choice([1.2, 1.35, 1.5])}; }}
    main {{ column-count: {columns}; column-gap: 2em; }}
    h1 {{ font-size: {h_sizes[1]}em; column-span: all; }}
    h2 {{ font-size: {h_sizes[2]}em; font-weight: bold; }}
    h3 {{ font-size: {h_sizes[3]}em; font-weight: bold; {'font-style: italic;' if weight_only else ''} }}
    p {{ margin: 0 0 {rng.choice([0.4, 0.6, 0.8, 1.0])}em 0; {'text-indent: 1.5em;' if rng.random() < 0.2 else ''} text-align: {rng.choice(['left', 'justify'])}; }}
    table {{ border-collapse: collapse; margin: 0.5em 0 0.8em 0; font-size: 0.92em; break-inside: avoid; }}
    table.wide {{ column-span: all; }}
    /* A table in a column fits the column, as an author would make it (wider, Chromium lets it
       run over the next column's text, which no reader could take apart). */
    main table:not(.wide) {{ width: 100%; table-layout: fixed; overflow-wrap: break-word; }}
    td, th {{ padding: 2pt 8pt; text-align: left; vertical-align: top; }}
    table.full td, table.full th {{ border: 0.75pt solid #333; }}
    table.partial {{ border-top: 1pt solid #000; border-bottom: 1pt solid #000; }}
    table.partial th {{ border-bottom: 0.75pt solid #000; }}
    th {{ font-weight: bold; }}
    ul {{ list-style-type: {'none' if bullet == 'dash' else bullet}; }}
    ul.dash > li::before {{ content: "\\2013\\00a0"; }}
    li {{ margin: 0.15em 0; }}
    .caption {{ font-size: 0.9em; font-style: italic; }}
    """
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(doc['header'])}</title>",
             f"<style>{css}</style></head><body><main>"]
    for b in doc["blocks"]:
        k = b["kind"]
        if k == "heading":
            parts.append(f"<h{b['level']}>{html.escape(b['text'])}</h{b['level']}>")
        elif k == "para":
            parts.append(f"<p>{html.escape(b['text'])}</p>")
        elif k == "caption":
            parts.append(f"<p class=caption>{html.escape(b['text'])}</p>")
        elif k == "list":
            tag = "ol" if b["ordered"] else "ul"
            cls = " class=dash" if (bullet == "dash" and not b["ordered"]) else ""
            out, depth = [f"<{tag}{cls}>"], 0
            for i, it in enumerate(b["items"]):
                if it["depth"] > depth:
                    out.append(f"<{tag}{cls}>")
                elif it["depth"] < depth:
                    out.append(f"</li></{tag}></li>")
                elif i:
                    out.append("</li>")
                depth = it["depth"]
                out.append(f"<li>{html.escape(it['text'])}")
            out.append("</li>" + (f"</{tag}></li>" if depth else "") + f"</{tag}>")
            parts.append("".join(out))
        elif k == "table":
            rows = b["rows"]
            # In columns, a table of more than three columns spans the page, as such tables do.
            wide = " wide" if columns > 1 and len(rows[0]) > 3 else ""
            t = [f"<table class='{b['rules']}{wide}'>"]
            t.append("<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in rows[0]) + "</tr>")
            for r in rows[1:]:
                t.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>")
            t.append("</table>")
            parts.append("".join(t))
    parts.append("</main></body></html>")
    style = {"producer": "chromium", "font": font, "size": size, "columns": columns,
             "weight_only_headings": weight_only, "bullet": bullet}
    return "".join(parts), style


def chromium_batch(jobs: list[tuple[str, str, dict, random.Random]]) -> None:
    """Prints every (html, pdf_path, doc, rng) with one browser."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                                    args=["--no-sandbox"])
        page = browser.new_page()
        for markup, pdf_path, doc, rng in jobs:
            page.set_content(markup, wait_until="load")
            st = doc["footer_style"]
            num = {"page": "Page <span class=pageNumber></span>",
                   "page_of": "Page <span class=pageNumber></span> of <span class=totalPages></span>",
                   "dash": "- <span class=pageNumber></span> -",
                   "bare": "<span class=pageNumber></span>",
                   "name_page": html.escape(doc["footer_name"]) + " | <span class=pageNumber></span>"}[st]
            fs = "font-size:8pt; width:100%; padding: 0 1.5cm; font-family: sans-serif;"
            header = f"<div style='{fs} text-align:{rng.choice(['left', 'right', 'center'])}'>{html.escape(doc['header'])}</div>"
            footer = f"<div style='{fs} text-align:{rng.choice(['center', 'right'])}'>{num}</div>"
            margin = f"{rng.choice([1.6, 2.0, 2.5])}cm"
            page.pdf(path=pdf_path, format=rng.choice(["A4", "Letter"]), display_header_footer=True,
                     header_template=header, footer_template=footer, print_background=True,
                     margin={"top": margin, "bottom": margin, "left": f"{rng.choice([1.5, 2.0, 2.5])}cm",
                             "right": f"{rng.choice([1.5, 2.0, 2.5])}cm"})
        browser.close()


# --- LibreOffice --------------------------------------------------------------------------------

def libreoffice_docx(doc: dict, rng: random.Random, path: str) -> dict:
    import docx
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    from docx.shared import Pt, Cm

    d = docx.Document()
    font = rng.choice(SERIF + SANS)
    size = rng.choice([10, 10.5, 11, 12])
    normal = d.styles["Normal"]
    normal.font.name = font
    normal.font.size = Pt(size)
    for lvl in (1, 2, 3):
        st = d.styles[f"Heading {lvl}"]
        st.font.name = font
    columns = rng.choice([1, 1, 2])
    sec = d.sections[0]
    m = Cm(rng.choice([1.8, 2.2, 2.54]))
    sec.left_margin = sec.right_margin = sec.top_margin = sec.bottom_margin = m
    if columns > 1:
        cols = sec._sectPr.find(qn("w:cols"))
        if cols is None:
            cols = OxmlElement("w:cols")
            sec._sectPr.append(cols)
        cols.set(qn("w:num"), str(columns))
        cols.set(qn("w:space"), "567")

    def field(par, instr):
        run = par.add_run()
        for kind, text in (("begin", None), (None, instr), ("separate", None), (None, "1"), ("end", None)):
            if kind:
                el = OxmlElement("w:fldChar")
                el.set(qn("w:fldCharType"), kind)
                run._r.append(el)
            elif text == "1":
                t = OxmlElement("w:t")
                t.text = "1"
                run._r.append(t)
            else:
                el = OxmlElement("w:instrText")
                el.set(qn("xml:space"), "preserve")
                el.text = f" {text} "
                run._r.append(el)
        return par

    hp = sec.header.paragraphs[0]
    hp.text = doc["header"]
    hp.alignment = rng.choice([WD_ALIGN_PARAGRAPH.LEFT, WD_ALIGN_PARAGRAPH.RIGHT, WD_ALIGN_PARAGRAPH.CENTER])
    fp = sec.footer.paragraphs[0]
    fp.alignment = WD_ALIGN_PARAGRAPH.CENTER
    st = doc["footer_style"]
    pre = {"page": "Page ", "page_of": "Page ", "dash": "- ", "bare": "",
           "name_page": doc["footer_name"] + " | "}[st]
    if pre:
        fp.add_run(pre)
    field(fp, "PAGE")
    if st == "page_of":
        fp.add_run(" of ")
        field(fp, "NUMPAGES")
    elif st == "dash":
        fp.add_run(" -")

    for b in doc["blocks"]:
        k = b["kind"]
        if k == "heading":
            d.add_heading(b["text"], level=b["level"])
        elif k == "para":
            d.add_paragraph(b["text"])
        elif k == "caption":
            d.add_paragraph(b["text"], style="Caption")
        elif k == "list":
            base = "List Number" if b["ordered"] else "List Bullet"
            for it in b["items"]:
                d.add_paragraph(it["text"], style=base + (" 2" if it["depth"] else ""))
        elif k == "table":
            rows = b["rows"]
            style = {"full": "Table Grid", "partial": "Light Shading", "none": None}[b["rules"]]
            if columns > 1:
                # A table in a column fits the column, as an author would make it.
                rows = [r[:3] for r in rows]
                b["rows"] = rows
            t = d.add_table(rows=len(rows), cols=len(rows[0]))
            if style:
                t.style = d.styles[style]
            if columns > 1:
                t.autofit = False
                col_w = (sec.page_width - sec.left_margin - sec.right_margin - Cm(1)) / columns
                for col in t.columns:
                    col.width = int(col_w / len(rows[0]))
                for row in t.rows:
                    for cell in row.cells:
                        cell.width = int(col_w / len(rows[0]))
            for i, r in enumerate(rows):
                for j, c in enumerate(r):
                    cell = t.cell(i, j)
                    cell.text = c
                    if i == 0 and b["rules"] == "none":
                        for run in cell.paragraphs[0].runs:
                            run.bold = True
            d.add_paragraph("")
    d.save(path)
    return {"producer": "libreoffice", "font": font, "size": size, "columns": columns}


def libreoffice_batch(docx_paths: list[str], outdir: str) -> None:
    if not docx_paths:
        return
    with tempfile.TemporaryDirectory() as profile:
        for i in range(0, len(docx_paths), 20):
            subprocess.run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless",
                            "--convert-to", "pdf", "--outdir", outdir, *docx_paths[i:i + 20]],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)


# --- reportlab ----------------------------------------------------------------------------------

def reportlab_pdf(doc: dict, rng: random.Random, path: str) -> dict:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, letter
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import cm
    from reportlab.platypus import (BaseDocTemplate, Frame, ListFlowable, ListItem, PageTemplate,
                                    Paragraph, Spacer, Table, TableStyle)
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    fonts = {
        "Times": ("Times-Roman", "Times-Bold"),
        "Helvetica": ("Helvetica", "Helvetica-Bold"),
    }
    ttf_dir = "/usr/share/fonts/truetype/dejavu"
    if os.path.exists(f"{ttf_dir}/DejaVuSans.ttf"):
        for name, fn in (("DejaVuSans", "DejaVuSans.ttf"), ("DejaVuSans-Bold", "DejaVuSans-Bold.ttf"),
                         ("DejaVuSerif", "DejaVuSerif.ttf"), ("DejaVuSerif-Bold", "DejaVuSerif-Bold.ttf")):
            try:
                pdfmetrics.getFont(name)
            except KeyError:
                pdfmetrics.registerFont(TTFont(name, f"{ttf_dir}/{fn}"))
        from reportlab.lib.fonts import addMapping
        for fam in ("DejaVuSans", "DejaVuSerif"):
            addMapping(fam, 0, 0, fam)
            addMapping(fam, 1, 0, fam + "-Bold")
            addMapping(fam, 0, 1, fam)
            addMapping(fam, 1, 1, fam + "-Bold")
        fonts["DejaVuSans"] = ("DejaVuSans", "DejaVuSans-Bold")
        fonts["DejaVuSerif"] = ("DejaVuSerif", "DejaVuSerif-Bold")
    family = rng.choice(sorted(fonts))
    regular, bold = fonts[family]
    size = rng.choice([9, 10, 10.5, 11])
    pagesize = rng.choice([A4, letter])
    columns = rng.choice([1, 1, 2])
    weight_only = rng.random() < 0.25
    margin = rng.choice([1.8, 2.2, 2.5]) * cm
    body = ParagraphStyle("body", fontName=regular, fontSize=size, leading=size * rng.choice([1.2, 1.3]),
                          spaceAfter=size * rng.choice([0.3, 0.6]),
                          firstLineIndent=size * 1.5 if rng.random() < 0.2 else 0)
    hs = {}
    for lvl, scale in ((1, 1.8), (2, 1.4), (3, 1.15)):
        s = 1.0 if (weight_only and lvl > 1) else scale
        hs[lvl] = ParagraphStyle(f"h{lvl}", fontName=bold, fontSize=size * s, leading=size * s * 1.25,
                                 spaceBefore=size * 0.8, spaceAfter=size * 0.4)
    caption = ParagraphStyle("cap", parent=body, fontSize=size * 0.9, leading=size * 1.1)
    bullet_glyph = rng.choice(["•", "–"])
    W, H = pagesize
    gap = 0.8 * cm
    fw = (W - 2 * margin - gap * (columns - 1)) / columns
    frames = [Frame(margin + i * (fw + gap), margin, fw, H - 2 * margin, id=f"c{i}") for i in range(columns)]
    pages_total = {"n": 0}

    def on_page(canv, d):
        canv.saveState()
        canv.setFont(regular, 8)
        canv.drawString(margin, H - margin * 0.55, doc["header"])
        page = canv.getPageNumber()
        canv.drawCentredString(W / 2, margin * 0.45, footer_text(doc, page, pages_total["n"] or page))
        if doc.get("margin_line") and page == 1:
            canv.setFont(regular, 14)
            canv.setFillColor(colors.grey)
            canv.translate(margin * 0.45, H * 0.3)
            canv.rotate(90)
            canv.drawString(0, 0, doc["margin_line"])
        canv.restoreState()

    def story():
        out = []
        for b in doc["blocks"]:
            k = b["kind"]
            if k == "heading":
                out.append(Paragraph(html.escape(b["text"]), hs[b["level"]]))
            elif k == "para":
                out.append(Paragraph(html.escape(b["text"]), body))
            elif k == "caption":
                out.append(Paragraph(html.escape(b["text"]), caption))
            elif k == "list":
                def flow(items, depth):
                    lis, i = [], 0
                    while i < len(items):
                        it = items[i]
                        lis.append(ListItem(Paragraph(html.escape(it["text"]), body)))
                        j = i + 1
                        sub = []
                        while j < len(items) and items[j]["depth"] > depth:
                            sub.append(items[j])
                            j += 1
                        if sub:
                            lis.append(flow(sub, depth + 1))
                        i = j
                    if b["ordered"]:
                        return ListFlowable(lis, bulletType="1", bulletFontName=regular, bulletFontSize=size,
                                            leftIndent=size * 2)
                    return ListFlowable(lis, bulletType="bullet", start=bullet_glyph, bulletFontName=regular,
                                        bulletFontSize=size, leftIndent=size * 1.8)
                out.append(flow(b["items"], 0))
                out.append(Spacer(1, size * 0.5))
            elif k == "table":
                data = [[Paragraph(("<b>%s</b>" if i == 0 else "%s") % html.escape(c), body) for c in r]
                        for i, r in enumerate(b["rows"])]
                t = Table(data, hAlign="LEFT", colWidths=[fw / len(b["rows"][0])] * len(b["rows"][0]))
                cmds = [("FONTNAME", (0, 0), (-1, 0), bold), ("VALIGN", (0, 0), (-1, -1), "TOP")]
                if b["rules"] == "full":
                    cmds.append(("GRID", (0, 0), (-1, -1), 0.6, colors.black))
                elif b["rules"] == "partial":
                    cmds += [("LINEABOVE", (0, 0), (-1, 0), 1, colors.black),
                             ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
                             ("LINEBELOW", (0, -1), (-1, -1), 1, colors.black)]
                t.setStyle(TableStyle(cmds))
                out.append(t)
                out.append(Spacer(1, size * 0.6))
        return out

    def build(target):
        d = BaseDocTemplate(target, pagesize=pagesize, leftMargin=margin, rightMargin=margin,
                            topMargin=margin, bottomMargin=margin)
        d.addPageTemplates([PageTemplate(id="p", frames=frames, onPage=on_page)])
        d.build(story())
        return d.page

    pages_total["n"] = build(path)  # first pass counts pages for "Page n of N"
    build(path)
    return {"producer": "reportlab", "font": family, "size": size, "columns": columns,
            "weight_only_headings": weight_only, "bullet": bullet_glyph}
