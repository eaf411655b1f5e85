"""Rich documents for gen.py: the long-tail features of each format, with their truth.

A rich document is drawn from its own random stream (see gen.py), so the simple documents of
a seed stay byte-identical. Blocks extend gen.py's simple ones:
  ("h", level, runs, style)   style: None, "setext", "custom" (a style based on Heading N)
  ("title", runs) / ("subtitle", runs)
  ("p", runs)                 runs: [{"t": text, "f": "b"/"i"/"u"/"c"/"bi"/"", "href": url}]
  ("list", ordered, [(depth, runs, [more paragraphs])], restart)
  ("table", grid, header, merges, extra)  merges [(row, col, rowspan, colspan)];
                                          extra {(row, col): ("paras" | "list", [texts])}
  ("quote", runs), ("code", [lines]), ("dl", [(term, definition)]), ("image", alt),
  ("pagebreak",), ("toc",), ("group", text)  (PPTX: a text box inside a group shape)
and document furniture: footnotes (a run {"fn": text}), speaker notes, header and footer.

Truth beyond gen.py's (score.py measures each):
  "inline": texts of paragraphs, items and headings that carry inline formatting; they must
            read as the same words (no space inserted or lost at a run boundary);
  "depths": [[item text, nesting depth]];
  "ostart": first items of ordered lists that restart numbering (must be numbered 1);
  "xrows":  table rows with merged or multi-paragraph cells, a covered position
            {"or": text} accepting either empty or the merged cell's text repeated;
  "notes":  footnotes, speaker notes, alt texts, header and footer texts (each must appear).
"""

import html
from html.entities import codepoint2name
import io
import re
import struct
import zipfile
import zlib

FMTS = ["b", "i", "u", "c", "bi"]
URL = "https://example.org/"


# ------------------------------------------------------------------ content


def run(t, f="", href=None):
    return {"t": t, "f": f, "href": href}


def plain(runs) -> str:
    return "".join(r["t"] for r in runs)


def inline(rng, words, lo, hi, end=".", fmt=0.3):
    """A phrase as runs: some words formatted, some split across two runs (one half
    formatted, or both plain as Word's revision marks leave them), some linked."""
    ws = [words.word() for _ in range(rng.randint(lo, hi))]
    ws[0] = ws[0][:1].upper() + ws[0][1:]
    out, i = [], 0
    while i < len(ws):
        w, r = ws[i], rng.random()
        if r < fmt * 0.4 and len(w) >= 4 and w.isalpha():
            cut = rng.randint(2, len(w) - 2)
            f = rng.choice(FMTS + [""])
            a, b = (run(w[:cut], f), run(w[cut:])) if rng.random() < 0.5 else (run(w[:cut]), run(w[cut:], f))
            out += [a, b]
        elif r < fmt * 0.8:
            out.append(run(w, rng.choice(FMTS)))
        elif r < fmt and i + 2 < len(ws):
            out.append(run(w + " " + ws[i + 1], rng.choice(["", "", "b"]), URL + w.lower()))
            i += 1
        else:
            out.append(run(w))
        i += 1
        out.append(run(" " if i < len(ws) else end))
    return merge_runs(out)


def merge_runs(runs):
    out = []
    for r in runs:
        if out and out[-1]["f"] == r["f"] and out[-1]["href"] == r["href"] and "fn" not in r \
                and "fn" not in out[-1]:
            out[-1] = dict(out[-1], t=out[-1]["t"] + r["t"])
        else:
            out.append(dict(r))
    return out


def formatted(runs) -> bool:
    return any(r["f"] or r["href"] for r in runs)


def sentences(rng, words, n, fmt=0.3):
    out = []
    for k in range(n):
        if k:
            out.append(run(" "))
        out += inline(rng, words, 5, 12, fmt=fmt)
    return merge_runs(out)


def rich_table(rng, words, typ):
    cols, nrows = rng.randint(3, 5), rng.randint(3, 6)
    grid = [[words.phrase(1, 2) for _ in range(cols)]]
    grid += [[words.cell() if rng.random() > 0.1 else "" for _ in range(cols)] for _ in range(nrows)]
    merges, extra = [], {}
    if typ != "md":
        if rng.random() < 0.6:  # horizontal, in a body row
            merges.append((rng.randint(1, nrows), rng.randint(1, cols - 2), 1, 2))
        if rng.random() < 0.6:  # vertical, in the first column
            r0 = rng.randint(1, nrows - 1)
            if not any(m[0] in (r0, r0 + 1) for m in merges):
                merges.append((r0, 0, 2, 1))
        if rng.random() < 0.5:
            r, c = rng.randint(1, nrows), rng.randint(0, cols - 1)
            if not any(m[0] <= r < m[0] + m[2] and m[1] <= c < m[1] + m[3] for m in merges):
                kind = rng.choice(["paras", "list"])
                extra[(r, c)] = (kind, [words.phrase(2, 4) for _ in range(rng.randint(2, 3))])
                grid[r][c] = " ".join(extra[(r, c)][1])
    elif rng.random() < 0.4:  # Markdown: a cell with an escaped pipe
        grid[rng.randint(1, nrows)][rng.randint(0, cols - 1)] = words.word() + " | " + words.word()
    return ("table", grid, rng.random() < 0.7, merges, extra)


def rich_list(rng, words, ordered, typ, restart=False):
    items, depth = [], 0
    for i in range(rng.randint(3, 7)):
        depth = 0 if i == 0 else rng.choice([0, depth, min(depth + 1, 2), min(depth + 1, 2)])
        more = [words.sentence()] if typ in ("md", "html", "docx") and rng.random() < 0.15 else []
        items.append((depth, inline(rng, words, 2, 7, end="", fmt=0.25), more))
    return ("list", ordered, items, restart)


def rich_structure(rng, words, typ) -> list[tuple]:
    blocks, level = [], 0
    if typ == "docx":
        if rng.random() < 0.5:
            blocks.append(("title", inline(rng, words, 2, 5, end="", fmt=0)))
            if rng.random() < 0.5:
                blocks.append(("subtitle", inline(rng, words, 3, 6, end="", fmt=0)))
        if rng.random() < 0.3:
            blocks.append(("toc",))
    extras = {"md": ["quote", "code", "html"], "html": ["quote", "code", "dl", "br"],
              "docx": ["image", "pagebreak", "footnote"], "pptx": ["group"],
              "xml": ["quote", "code"]}.get(typ, [])
    for _ in range(rng.randint(3, 6)):
        level = rng.randint(1, min(3, level + 1))
        style = None
        if typ == "md" and level <= 2 and rng.random() < 0.3:
            style = "setext"
        if typ == "docx" and rng.random() < 0.25:
            style = "custom"
        blocks.append(("h", level, inline(rng, words, 2, 5, end="", fmt=0.15), style))
        for _ in range(rng.randint(1, 3)):
            kind = rng.random()
            if kind < 0.3:
                blocks.append(("p", sentences(rng, words, rng.randint(1, 3))))
            elif kind < 0.55:
                ordered = rng.random() < 0.5
                blocks.append(rich_list(rng, words, ordered, typ))
                if ordered and rng.random() < 0.4 and typ != "pptx":  # a second list, from 1 again
                    blocks.append(("p", sentences(rng, words, 1)))
                    blocks.append(rich_list(rng, words, True, typ, restart=True))
            elif kind < 0.75 and typ != "pptx" or kind < 0.62:
                blocks.append(rich_table(rng, words, typ))
            elif extras:
                e = rng.choice(extras)
                if e == "quote":
                    blocks.append(("quote", sentences(rng, words, rng.randint(1, 2))))
                elif e == "code":
                    blocks.append(("code", [" ".join(words.word() for _ in range(rng.randint(2, 6)))
                                            for _ in range(rng.randint(1, 4))]))
                elif e == "dl":
                    blocks.append(("dl", [(words.phrase(1, 2), words.sentence())
                                          for _ in range(rng.randint(2, 4))]))
                elif e == "html":
                    blocks.append(("htmlblock", words.sentence()))
                elif e == "br":
                    blocks.append(("br", [words.sentence() for _ in range(rng.randint(2, 3))]))
                elif e == "image":
                    blocks.append(("image", words.phrase(2, 5)))
                elif e == "pagebreak":
                    blocks.append(("pagebreak",))
                elif e == "footnote":
                    runs = sentences(rng, words, 1, fmt=0)
                    runs.append({"t": "", "f": "", "href": None, "fn": words.sentence()})
                    blocks.append(("p", runs))
                elif e == "group":
                    blocks.append(("group", words.sentence()))
            else:
                blocks.append(("p", sentences(rng, words, 1)))
    return blocks


def rich_truth(blocks, typ, furniture=()) -> dict:
    t = {"type": typ, "headings": [], "items": [], "rows": [], "text": [], "inline": [],
         "depths": [], "ostart": [], "xrows": [], "notes": list(furniture)}
    t["text"] += list(furniture)
    heads = [b for b in blocks if b[0] == "h"]
    for b in blocks:
        k = b[0]
        if k in ("h", "title"):
            runs = b[2] if k == "h" else b[1]
            t["headings"].append([b[1] if k == "h" else 1, plain(runs)])
            t["text"].append(plain(runs))
            if formatted(runs):
                t["inline"].append(plain(runs))
        elif k in ("subtitle", "p", "quote"):
            t["text"].append(plain(b[1]))
            if formatted(b[1]):
                t["inline"].append(plain(b[1]))
            t["notes"] += [r["fn"] for r in b[1] if "fn" in r]
            t["text"] += [r["fn"] for r in b[1] if "fn" in r]
        elif k == "list":
            for n, (depth, runs, more) in enumerate(b[2]):
                t["items"].append(plain(runs))
                t["depths"].append([plain(runs), depth])
                t["text"] += [plain(runs)] + more
                if formatted(runs):
                    t["inline"].append(plain(runs))
            if b[3]:
                t["ostart"].append(plain(b[2][0][1]))
        elif k == "table":
            grid, _, merges, extra = b[1], b[2], b[3], b[4]
            rows = [list(r) for r in grid]
            complex_rows = {r for (r, _) in extra}
            for (r0, c0, rs, cs) in merges:
                for r in range(r0, r0 + rs):
                    complex_rows.add(r)
                    for c in range(c0, c0 + cs):
                        if (r, c) != (r0, c0):
                            rows[r][c] = {"or": grid[r0][c0]}
            for i, r in enumerate(rows):
                (t["xrows"] if i in complex_rows else t["rows"]).append(r)
            t["text"] += [" ".join(c for c in r if isinstance(c, str)) for r in rows]
        elif k == "code":
            t["text"] += b[1]
        elif k == "dl":
            t["text"] += [x for pair in b[1] for x in pair]
        elif k in ("htmlblock", "group"):
            t["text"].append(b[1])
        elif k == "br":
            t["text"] += b[1]
        elif k == "image":
            t["notes"].append(b[1])
            t["text"].append(b[1])
        elif k == "toc":
            t["text"].append("Contents")
            t["text"] += [plain(h[2]) + f" {n + 1}" for n, h in enumerate(heads)]
    t["text"] = "\n".join(t["text"])
    return t


# ------------------------------------------------------------------ Markdown


def md_runs(runs) -> str:
    out = []
    for r in runs:
        if "fn" in r:
            continue
        s = r["t"]
        lead, body, trail = re.match(r"^(\s*)(.*?)(\s*)$", s, re.S).groups()
        if body:
            f = r["f"]
            if f == "c":
                body = f"`{body}`"
            elif f == "b":
                body = f"**{body}**"
            elif f == "i":
                body = f"*{body}*"
            elif f == "bi":
                body = f"***{body}***"
            elif f == "u":
                body = f"<u>{body}</u>"
            if r["href"]:
                body = f"[{body}]({r['href']})"
        out.append(lead + body + trail)
    return "".join(out)


def write_md(blocks, path, rng):
    out = []
    for b in blocks:
        k = b[0]
        if k == "h":
            text = md_runs(b[2])
            if b[3] == "setext":
                out.append(text + "\n" + ("=" if b[1] == 1 else "-") * rng.randint(3, len(text) + 3))
            else:
                out.append("#" * b[1] + " " + text)
        elif k == "p":
            out.append(md_runs(b[1]))
        elif k == "quote":
            out.append("> " + md_runs(b[1]))
        elif k == "code":
            fence = rng.choice(["```", "~~~"])
            out.append(fence + rng.choice(["", "python", "text"]) + "\n" + "\n".join(b[1]) + "\n" + fence)
        elif k == "htmlblock":
            tag = rng.choice(["div", "p"])
            out.append(f'<{tag} align="center">\n{html.escape(b[1])}\n</{tag}>')
        elif k == "list":
            lines, indents, n = [], [0], 0
            loose = any(more for _, _, more in b[2])
            bullet = rng.choice("-*+")
            for depth, runs, more in b[2]:
                indents = indents[:depth + 1]
                while len(indents) <= depth:
                    indents.append(indents[-1] + width)
                if b[1]:
                    n = n + 1 if depth == 0 else n
                    marker = f"{n}. " if depth == 0 else "1. "
                else:
                    marker = bullet + " "
                width = len(marker)
                pad = " " * indents[depth]
                lines.append(pad + marker + md_runs(runs))
                for m in more:
                    lines.append("")
                    lines.append(pad + " " * width + m)
                if loose:
                    lines.append("")
            out.append("\n".join(lines).rstrip("\n"))
        elif k == "table":
            grid = b[1]
            cells = [[c.replace("|", "\\|") for c in r] for r in grid]
            align = [rng.choice(["---", ":---", ":---:", "---:"]) for _ in grid[0]]
            lines = ["| " + " | ".join(cells[0]) + " |", "| " + " | ".join(align) + " |"]
            lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
            out.append("\n".join(lines))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n\n".join(out) + "\n")


# ------------------------------------------------------------------ HTML


def html_text(s, rng) -> str:
    e = html.escape(s, quote=False)
    if rng.random() < 0.3:  # entities for non-ASCII letters, named where HTML has a name
        e = "".join(ch if ord(ch) < 128 or rng.random() < 0.5 else
                    f"&{codepoint2name[ord(ch)]};" if ord(ch) in codepoint2name else f"&#{ord(ch)};"
                    for ch in e)
    return e


def html_runs(runs, rng) -> str:
    out = []
    for r in runs:
        if "fn" in r:
            continue
        body = html_text(r["t"], rng)
        tag = {"b": rng.choice(["b", "strong"]), "i": rng.choice(["i", "em"]), "u": "u",
               "c": "code", "bi": None, "": None}[r["f"]]
        if r["f"] == "bi":
            body = f"<b><i>{body}</i></b>"
        elif tag:
            body = f"<{tag}>{body}</{tag}>"
        if r["href"]:
            body = f'<a href="{r["href"]}">{body}</a>'
        out.append(body)
    return "".join(out)


def html_list(b, rng) -> str:
    tag = "ol" if b[1] else "ul"
    out, open_depth = [f"<{tag}>"], 0
    for i, (depth, runs, more) in enumerate(b[2]):
        if depth > open_depth:
            out += [f"<{tag}>"] * (depth - open_depth)
        else:
            if i:
                out.append("</li>")
            out += [f"</{tag}></li>"] * (open_depth - depth)
        open_depth = depth
        body = html_runs(runs, rng)
        if more:
            body = f"<p>{body}</p>" + "".join(f"<p>{html.escape(m)}</p>" for m in more)
        out.append(f"<li>{body}")
    out.append("</li>" + f"</{tag}></li>" * open_depth + f"</{tag}>")
    return "\n".join(out)


def html_table(b, rng) -> str:
    grid, header, merges, extra = b[1], b[2], b[3], b[4]
    covered, span = set(), {}
    for (r0, c0, rs, cs) in merges:
        span[(r0, c0)] = (rs, cs)
        covered |= {(r, c) for r in range(r0, r0 + rs) for c in range(c0, c0 + cs)} - {(r0, c0)}
    out = ["<table border='1'>" if rng.random() < 0.5 else "<table>"]
    for i, row in enumerate(grid):
        if i == 0 and header:
            out.append("<thead>")
        if i == 1 and header:
            out.append("</thead><tbody>")
        cells = []
        for j, c in enumerate(row):
            if (i, j) in covered:
                continue
            cell = "th" if i == 0 and header else "td"
            attrs = ""
            if (i, j) in span:
                rs, cs = span[(i, j)]
                attrs = (f" rowspan='{rs}'" if rs > 1 else "") + (f" colspan='{cs}'" if cs > 1 else "")
            if (i, j) in extra:
                kind, texts = extra[(i, j)]
                body = ("".join(f"<p>{html.escape(x)}</p>" for x in texts) if kind == "paras"
                        else "<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in texts) + "</ul>")
            else:
                body = html_text(c, rng)
            cells.append(f"<{cell}{attrs}>{body}</{cell}>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>" if header else "</table>")
    return "\n".join(out)


def write_html(blocks, path, rng):
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>Generated</title></head><body>"]
    for b in blocks:
        k = b[0]
        if k == "h":
            out.append(f"<h{b[1]}>{html_runs(b[2], rng)}</h{b[1]}>")
        elif k == "p":
            out.append(f"<p>{html_runs(b[1], rng)}</p>")
        elif k == "br":
            out.append("<p>" + "<br>".join(html.escape(s) for s in b[1]) + "</p>")
        elif k == "quote":
            out.append(f"<blockquote><p>{html_runs(b[1], rng)}</p></blockquote>")
        elif k == "code":
            out.append("<pre><code>" + html.escape("\n".join(b[1])) + "</code></pre>")
        elif k == "dl":
            out.append("<dl>" + "".join(f"<dt>{html.escape(t)}</dt><dd>{html.escape(d)}</dd>"
                                        for t, d in b[1]) + "</dl>")
        elif k == "list":
            out.append(html_list(b, rng))
        elif k == "table":
            out.append(html_table(b, rng))
    out.append("</body></html>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


# ------------------------------------------------------------------ XML (JATS)


def xml_runs(runs) -> str:
    out = []
    for r in runs:
        body = html.escape(r["t"], quote=False)
        tag = {"b": "bold", "i": "italic", "u": "underline", "c": "monospace", "bi": None, "": None}[r["f"]]
        if r["f"] == "bi":
            body = f"<bold><italic>{body}</italic></bold>"
        elif tag:
            body = f"<{tag}>{body}</{tag}>"
        if r["href"]:
            body = f'<ext-link ext-link-type="uri" xlink:href="{r["href"]}">{body}</ext-link>'
        out.append(body)
    return "".join(out)


def xml_list(b) -> str:
    kind = "order" if b[1] else "bullet"
    out, open_depth = [f"<list list-type='{kind}'>"], 0
    for i, (depth, runs, more) in enumerate(b[2]):
        if depth > open_depth:
            out += [f"<list list-type='{kind}'>"] * (depth - open_depth)
        else:
            if i:
                out.append("</list-item>")
            out += ["</list></list-item>"] * (open_depth - depth)
        open_depth = depth
        out.append(f"<list-item><p>{xml_runs(runs)}</p>")
    out.append("</list-item>" + "</list></list-item>" * open_depth + "</list>")
    return "\n".join(out)


def write_xml(blocks, path, rng):
    title = next(plain(b[1]) for b in blocks if b[0] == "title")
    out = ["<?xml version='1.0' encoding='UTF-8'?>",
           "<article xmlns:xlink='http://www.w3.org/1999/xlink'><front><article-meta><title-group>"
           f"<article-title>{html.escape(title)}</article-title></title-group></article-meta></front><body>"]
    open_secs = 0
    for b in blocks:
        k = b[0]
        if k == "h":
            while open_secs >= b[1]:
                out.append("</sec>")
                open_secs -= 1
            out.append(f"<sec><title>{xml_runs(b[2])}</title>")
            open_secs += 1
        elif k == "p":
            out.append(f"<p>{xml_runs(b[1])}</p>")
        elif k == "quote":
            out.append(f"<disp-quote><p>{xml_runs(b[1])}</p></disp-quote>")
        elif k == "code":
            out.append("<preformat>" + html.escape("\n".join(b[1])) + "</preformat>")
        elif k == "list":
            out.append(xml_list(b))
        elif k == "table":
            body = html_table(b, rng).replace("<table border='1'>", "<table>")
            out.append(f"<table-wrap>{body}</table-wrap>")
    out.append("</sec>" * open_secs + "</body></article>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


# ------------------------------------------------------------------ DOCX


def png(rgb=(200, 40, 40), size=8) -> bytes:
    raw = b"".join(b"\x00" + bytes(rgb) * size for _ in range(size))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def docx_runs(p, runs, notes):
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.oxml import OxmlElement, parse_xml
    from docx.oxml.ns import nsdecls, qn
    for r in runs:
        if "fn" in r:
            notes.append(r["fn"])
            p._p.append(parse_xml(f'<w:r {nsdecls("w")}><w:rPr><w:vertAlign w:val="superscript"/></w:rPr>'
                                  f'<w:footnoteReference w:id="{len(notes)}"/></w:r>'))
            continue
        if r["href"]:
            rid = p.part.relate_to(r["href"], RT.HYPERLINK, is_external=True)
            h = OxmlElement("w:hyperlink")
            h.set(qn("r:id"), rid)
            bold = "<w:b/>" if "b" in r["f"] else ""
            h.append(parse_xml(f'<w:r {nsdecls("w")}><w:rPr>{bold}<w:color w:val="0563C1"/><w:u w:val="single"/>'
                               f'</w:rPr><w:t xml:space="preserve">{html.escape(r["t"])}</w:t></w:r>'))
            p._p.append(h)
            continue
        x = p.add_run(r["t"])
        x.bold = "b" in r["f"] or None
        x.italic = "i" in r["f"] or None
        x.underline = "u" in r["f"] or None
        if r["f"] == "c":
            x.font.name = "Courier New"


def docx_restart(d, style):
    """A new w:num for the list style's abstract numbering, restarting level 0 at 1."""
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls, qn
    ppr = d.styles[style]._element.find(qn("w:pPr"))
    num_id = ppr.find(qn("w:numPr")).find(qn("w:numId")).get(qn("w:val"))
    numbering = d.part.numbering_part.element
    nums = numbering.findall(qn("w:num"))
    abstract = next(n for n in nums if n.get(qn("w:numId")) == num_id).find(qn("w:abstractNumId")).get(qn("w:val"))
    new = max(int(n.get(qn("w:numId"))) for n in nums) + 1
    numbering.append(parse_xml(f'<w:num {nsdecls("w")} w:numId="{new}"><w:abstractNumId w:val="{abstract}"/>'
                               '<w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>'))
    return new


def docx_table(d, b):
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls
    grid, header, merges, extra = b[1], b[2], b[3], b[4]
    t = d.add_table(rows=len(grid), cols=len(grid[0]))
    t.style = "Table Grid"
    for i, r in enumerate(grid):
        for j, c in enumerate(r):
            if (i, j) in extra:
                kind, texts = extra[(i, j)]
                cell = t.cell(i, j)
                style = "List Bullet" if kind == "list" else None
                cell.paragraphs[0].text = texts[0]
                if style:
                    cell.paragraphs[0].style = style
                for x in texts[1:]:
                    cell.add_paragraph(x, style=style)
            else:
                t.cell(i, j).text = c
    for (r0, c0, rs, cs) in merges:
        a = t.cell(r0, c0)
        a.merge(t.cell(r0 + rs - 1, c0 + cs - 1))
        a.text = grid[r0][c0]
    if header:
        t.rows[0]._tr.get_or_add_trPr().append(parse_xml(f'<w:tblHeader {nsdecls("w")}/>'))


def docx_toc(d, heads):
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls
    d.add_paragraph("Contents", style="TOC Heading")
    ns = nsdecls("w")
    for n, h in enumerate(heads):
        begin = (f'<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve">'
                 f' TOC \\o "1-3" \\h \\z \\u </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
                 if n == 0 else "")
        end = '<w:r><w:fldChar w:fldCharType="end"/></w:r>' if n == len(heads) - 1 else ""
        d.element.body.sectPr.addprevious(parse_xml(
            f'<w:p {ns}><w:pPr><w:pStyle w:val="TOC{h[1]}"/><w:tabs><w:tab w:val="right" w:leader="dot" w:pos="9350"/>'
            f'</w:tabs></w:pPr>{begin}<w:r><w:t xml:space="preserve">{html.escape(plain(h[2]))}</w:t></w:r>'
            f'<w:r><w:tab/></w:r><w:r><w:t>{n + 1}</w:t></w:r>{end}</w:p>'))


def write_docx(blocks, path, rng, furniture):
    import docx
    from docx.enum.style import WD_STYLE_TYPE
    from docx.enum.text import WD_BREAK
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls
    d = docx.Document()
    notes = []
    header, footer = furniture
    if header:
        d.sections[0].header.paragraphs[0].text = header
    if footer:
        d.sections[0].footer.paragraphs[0].text = footer
    heads = [b for b in blocks if b[0] == "h"]
    prev = None
    for b in blocks:
        k = b[0]
        if k == "table" and prev == "table":
            d.add_paragraph()  # Word keeps a paragraph between tables, else they are one table
        prev = k
        if k in ("title", "subtitle"):
            docx_runs(d.add_paragraph(style=k.capitalize()), b[1], notes)
        elif k == "toc":
            docx_toc(d, heads)
        elif k == "h":
            if b[3] == "custom":
                name = f"Report Heading {b[1]}"
                if name not in [s.name for s in d.styles]:
                    st = d.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
                    st.base_style = d.styles[f"Heading {b[1]}"]
                p = d.add_paragraph(style=name)
            else:
                p = d.add_paragraph(style=f"Heading {b[1]}")
            docx_runs(p, b[2], notes)
        elif k == "p":
            docx_runs(d.add_paragraph(), b[1], notes)
        elif k == "list":
            base = "List Number" if b[1] else "List Bullet"
            num = docx_restart(d, base) if b[3] else None
            for depth, runs, more in b[2]:
                p = d.add_paragraph(style=base + (f" {depth + 1}" if depth else ""))
                if num and depth == 0:
                    p._p.get_or_add_pPr().append(parse_xml(
                        f'<w:numPr {nsdecls("w")}><w:ilvl w:val="0"/><w:numId w:val="{num}"/></w:numPr>'))
                docx_runs(p, runs, notes)
                for m in more:
                    d.add_paragraph(m, style="List Continue" + (f" {depth + 1}" if depth else ""))
        elif k == "table":
            docx_table(d, b)
        elif k == "pagebreak":
            d.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
        elif k == "image":
            shape = d.add_picture(io.BytesIO(png((rng.randrange(256), 80, 160))))
            shape._inline.docPr.set("descr", b[1])
    if notes:
        from docx.opc.constants import RELATIONSHIP_TYPE as RT
        from docx.opc.packuri import PackURI
        from docx.opc.part import Part
        body = "".join(
            f'<w:footnote w:id="{n + 1}"><w:p><w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr>'
            f'<w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> {html.escape(t)}</w:t></w:r></w:p></w:footnote>'
            for n, t in enumerate(notes))
        xml = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes xmlns:w="{W}">'
               '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
               '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/>'
               f'</w:r></w:p></w:footnote>{body}</w:footnotes>')
        part = Part(PackURI("/word/footnotes.xml"),
                    "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml",
                    xml.encode(), d.part.package)
        d.part.relate_to(part, RT.FOOTNOTES)
    d.save(path)


# ------------------------------------------------------------------ PPTX


def pptx_runs(para, runs):
    para.text = ""
    for r in runs:
        x = para.add_run()
        x.text = r["t"]
        f = x.font
        f.bold = "b" in r["f"] or None
        f.italic = "i" in r["f"] or None
        f.underline = "u" in r["f"] or None
        if r["f"] == "c":
            f.name = "Courier New"
        if r["href"]:
            x.hyperlink.address = r["href"]


def write_pptx(blocks, path, rng, words):
    """As gen.py's writer, plus formatted runs, three bullet levels, numbered bullets,
    tables with merged cells, speaker notes and text boxes inside group shapes."""
    import pptx
    from pptx.oxml.ns import qn
    from pptx.util import Inches, Pt
    prs = pptx.Presentation()
    slide, body, title, first, notes = None, None, "", True, []
    for b in blocks:
        k = b[0]
        if k == "h":
            slide = prs.slides.add_slide(prs.slide_layouts[1])
            pptx_runs(slide.shapes.title.text_frame.paragraphs[0], b[2])
            title = plain(b[2])
            body = slide.placeholders[1].text_frame
            body.text = ""
            first = True
            if rng.random() < 0.4:
                note = words.sentence()
                slide.notes_slide.notes_text_frame.text = note
                notes.append(note)
        elif k in ("p", "list"):
            entries = [(0, b[1], [])] if k == "p" else b[2]
            for depth, runs, _ in entries:
                para = body.paragraphs[0] if first else body.add_paragraph()
                first = False
                pptx_runs(para, runs)
                para.level = depth
                if k == "list" and b[1]:
                    ppr = para._p.get_or_add_pPr()
                    ppr.insert(0, ppr.makeelement(qn("a:buAutoNum"), {"type": "arabicPeriod"}))
        elif k == "group":
            grp = slide.shapes.add_group_shape()
            grp.shapes.add_shape(1, Inches(6), Inches(6), Inches(0.5), Inches(0.5))
            tb = grp.shapes.add_textbox(Inches(1), Inches(6.2), Inches(5), Inches(0.8))
            tb.text_frame.text = b[1]
            tb.text_frame.paragraphs[0].runs[0].font.size = Pt(12)
        elif k == "table":
            grid, header, merges = b[1], b[2], b[3]
            ts = prs.slides.add_slide(prs.slide_layouts[5])
            ts.shapes.title.text = title + " table"
            shape = ts.shapes.add_table(len(grid), len(grid[0]), Inches(0.5), Inches(1.5),
                                        Inches(9), Inches(0.4) * len(grid))
            shape.table.first_row = header
            for i, r in enumerate(grid):
                for j, c in enumerate(r):
                    texts = b[4].get((i, j), (None, [c]))[1]
                    shape.table.cell(i, j).text = "\n".join(texts)
            for (r0, c0, rs, cs) in merges:
                shape.table.cell(r0, c0).merge(shape.table.cell(r0 + rs - 1, c0 + cs - 1))
                shape.table.cell(r0, c0).text = grid[r0][c0]  # merging moved the others' text in
                for r in range(r0, r0 + rs):
                    for c in range(c0, c0 + cs):
                        if (r, c) != (r0, c0):
                            shape.table.cell(r, c).text = ""
    prs.save(path)
    return notes


def pptx_rich_truth(blocks, notes) -> dict:
    t = rich_truth([], "pptx", notes)
    t["text"] = [t["text"]] if t["text"] else []
    title, numbered = "", False  # numbering continues over numbered paragraphs in a row
    for b in blocks:
        k = b[0]
        if k == "h":
            title, numbered = plain(b[2]), False
            t["headings"].append([1, title])
            t["text"].append(title)
            if formatted(b[2]):
                t["inline"].append(title)
        elif k in ("p", "list"):
            entries = [(0, b[1], [])] if k == "p" else b[2]
            for depth, runs, _ in entries:
                t["items"].append(plain(runs))
                t["depths"].append([plain(runs), depth])
                t["text"].append(plain(runs))
                if formatted(runs):
                    t["inline"].append(plain(runs))
            if k == "list" and b[1] and not numbered:
                t["ostart"].append(plain(b[2][0][1]))
            numbered = k == "list" and b[1]
        elif k == "group":
            t["text"].append(b[1])
        elif k == "table":
            t["headings"].append([1, title + " table"])
            t["text"].append(title + " table")
            sub = rich_truth([b], "pptx")
            t["rows"] += sub["rows"]
            t["xrows"] += sub["xrows"]
            t["text"].append(sub["text"])
    t["text"] = "\n".join(t["text"])
    return t


# ------------------------------------------------------------------ XLSX, CSV, JSON


def xlsx_sheet(rng, words, ws, tables, cached):
    """One or two tables on a sheet, below each other with a blank row between, some with a
    merged title row above. Columns are typed: text, thousands, percent, currency, date, and a
    formula column (its cached value written into the file after saving)."""
    import datetime
    from openpyxl.utils import get_column_letter
    row0 = 1
    for _ in range(rng.randint(1, 2)):
        kinds = ["text"] + [rng.choice(["int", "thousands", "percent", "currency", "date", "text"])
                            for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.5:
            kinds.append("formula")
        ncols, nrows = len(kinds), rng.randint(2, 8)
        rows = []
        if rng.random() < 0.4:
            title = words.phrase(2, 4)
            ws.cell(row=row0, column=1, value=title)
            ws.merge_cells(start_row=row0, start_column=1, end_row=row0, end_column=ncols)
            rows.append([title] + [{"or": title}] * (ncols - 1))
            row0 += 1
        head = [words.phrase(1, 2) for _ in kinds]
        for j, h in enumerate(head):
            ws.cell(row=row0, column=j + 1, value=h)
        rows.append(head)
        for i in range(nrows):
            r = row0 + 1 + i
            shown = []
            for j, kind in enumerate(kinds):
                c = ws.cell(row=r, column=j + 1)
                if kind == "text":
                    c.value = words.phrase(1, 3)
                    shown.append(c.value)
                elif kind == "int":
                    c.value = rng.randint(0, 999)
                    shown.append(str(c.value))
                elif kind == "thousands":
                    c.value = rng.randint(1000, 9_999_999)
                    c.number_format = "#,##0"
                    shown.append(f"{c.value:,}")
                elif kind == "percent":
                    v = rng.randint(0, 1000) / 1000
                    c.value = v
                    c.number_format = "0.0%"
                    shown.append(f"{v * 100:.1f}%")
                elif kind == "currency":
                    v = rng.randint(0, 10_000_000) / 100
                    c.value = v
                    c.number_format = '"$"#,##0.00'
                    shown.append(f"${v:,.2f}")
                elif kind == "date":
                    v = datetime.date(2000, 1, 1) + datetime.timedelta(days=rng.randint(0, 9000))
                    c.value = v
                    c.number_format = "yyyy-mm-dd"
                    shown.append(v.isoformat())
                else:
                    nums = [k for k, kk in enumerate(kinds[:j]) if kk in ("int", "thousands")]
                    if nums:
                        src = [ws.cell(row=r, column=k + 1).value for k in nums]
                        c.value = "=" + "+".join(f"{get_column_letter(k + 1)}{r}" for k in nums)
                        v = sum(src)
                    else:
                        c.value = f"=LEN(A{r})"
                        v = len(ws.cell(row=r, column=1).value)
                    cached[(ws.title, c.coordinate)] = v
                    shown.append(str(v))
            rows.append(shown)
        tables.append(rows)
        row0 += nrows + 2


def write_xlsx(rng, words, path):
    import openpyxl
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    tables, cached, names = [], {}, []
    for k in range(rng.randint(1, 3)):
        name = rng.choice([f"Data {k + 1}", words.phrase(1, 2)[:20] + f" {k + 1}"])
        names.append(name)
        xlsx_sheet(rng, words, wb.create_sheet(name), tables, cached)
    wb.save(path)
    # openpyxl writes formulas without values; Excel would have cached them
    sheet_of = {ws.title: f"xl/worksheets/sheet{n + 1}.xml" for n, ws in enumerate(wb.worksheets)}
    with zipfile.ZipFile(path) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    for (title, ref), v in cached.items():
        part = sheet_of[title]
        parts[part] = re.sub(rf'(<c r="{ref}"[^>]*><f>[^<]*</f>)<v\s*/?>(</v>)?'.encode(),
                             rb"\g<1><v>" + str(v).encode() + b"</v>", parts[part])
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in parts.items():
            z.writestr(n, data)
    return names, tables


def write_csv(rng, words, path, name):
    delim = rng.choice([",", ";", ";", "\t", "|"])
    rows = [[words.phrase(1, 2) for _ in range(rng.randint(2, 6))]]
    for _ in range(rng.randint(2, 12)):
        row = []
        for _ in rows[0]:
            r = rng.random()
            if r < 0.08:
                row.append(words.phrase(1, 3) + "\n" + words.phrase(1, 3))
            elif r < 0.14:
                row.append(words.word() + delim + " " + words.word())
            elif r < 0.2:
                row.append(f'{words.word()} "{words.word()}"')
            elif r < 0.26:
                row.append("")
            else:
                row.append(words.cell())
        rows.append(row)
    eol = rng.choice(["\r\n", "\n"])

    def q(c):
        return '"' + c.replace('"', '""') + '"' if any(x in c for x in (delim, '"', "\n")) or (
            rng.random() < 0.1) else c
    text = eol.join(delim.join(q(c) for c in r) for r in rows) + (eol if rng.random() < 0.8 else "")
    with open(path, "w", encoding="utf-8-sig" if rng.random() < 0.4 else "utf-8", newline="") as f:
        f.write(text)
    return rows


def records(rng, words, depth=0):
    keys = [words.word().lower() + str(i) for i in range(rng.randint(2, 6))]
    out = []
    for n in range(rng.randint(2, 8)):
        rec = {"id": n + 1}
        for k in keys:
            r = rng.random()
            if r < 0.3:
                rec[k] = words.phrase(1, 4)
            elif r < 0.5:
                rec[k] = rng.randint(-10**12, 10**12)
            elif r < 0.6:
                rec[k] = rng.choice([1.5e-7, 2.25e21, -0.0001, 3.14159, 1e100, 0.1])
            elif r < 0.7:
                rec[k] = rng.choice([True, False, None, "", [], {}])
            elif r < 0.8:
                rec[k] = words.word() + rng.choice(['"', "\\", "\n", "\t", "/", "\u2028"]) + words.word()
            elif depth < 2:
                rec[k] = records(rng, words, depth + 1) if rng.random() < 0.5 else {
                    "nested": {"deeper": {"deepest": [words.word(), {"leaf": words.phrase(1, 2)}]}}}
            else:
                rec[k] = [words.word() for _ in range(rng.randint(0, 3))]
        out.append(rec)
    return out
