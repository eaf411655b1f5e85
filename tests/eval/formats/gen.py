"""Writes documents of every non-PDF type with random content and known structure.

usage: gen.py DIR [--count N] [--seed S] [--types docx,pptx,...] [--mode M] [--libreoffice]

Each document DIR/<name>.<ext> has its truth beside it in DIR/<name>.truth.json:
  {"type", "headings": [[level, text]], "items": [text], "rows": [[cell, …]], "text": str,
   "data": <the JSON value, json only>}
Content is pseudo-English from a seeded generator with some accented, Greek and CJK words and
numbers, so a decoding or escaping fault shows. Writers: python-docx (DOCX), python-pptx (PPTX),
openpyxl (XLSX), and Markdown, HTML, CSV, JSON and XML written here. With --libreoffice (and
`soffice` on PATH) LibreOffice also re-saves some of them: DOCX -> ODT -> DOCX, DOCX -> RTF,
PPTX -> ODP -> PPTX, XLSX -> ODS and XLSX -> XLS (BIFF8), so files written by another producer
are scored too.

--mode simple writes only the documents above; rich (see rich.py) gives every document the
long-tail features of its format (inline formatting across runs, three-level and restarting
lists, merged cells, notes, number formats, ...); mixed (the default) makes about half of them
rich. Rich documents draw from a random stream of their own, so the simple documents of a
seed are byte-identical in every mode.
"""

import argparse
import csv
import html
import io
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile

import rich

SYL = ["ka", "lo", "mi", "ne", "ru", "ta", "vi", "so", "pe", "dor", "lin", "mar", "quo", "sel",
       "tur", "ban", "col", "dex", "fi", "gra", "hu", "jen", "ost", "pla", "rim", "zu"]
EXTRA = ["café", "naïve", "Grüße", "straße", "λόγος", "όψη", "東京", "データ", "niño", "Ærø"]


class Words:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def word(self) -> str:
        r = self.rng.random()
        if r < 0.05:
            return self.rng.choice(EXTRA)
        if r < 0.10:
            return str(self.rng.randint(2, 9999))
        return "".join(self.rng.choice(SYL) for _ in range(self.rng.randint(1, 3)))

    def phrase(self, lo: int, hi: int) -> str:
        w = [self.word() for _ in range(self.rng.randint(lo, hi))]
        w[0] = w[0][:1].upper() + w[0][1:]
        return " ".join(w)

    def sentence(self) -> str:
        return self.phrase(6, 16) + "."

    def cell(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            return str(self.rng.randint(0, 99999))
        return self.phrase(1, 3)


def structure(rng: random.Random, words: Words) -> list[tuple]:
    """A document as blocks: ("h", level, text), ("p", text), ("list", ordered, [(depth, text)]),
    ("table", [[cells]]). Levels never skip (1, then at most one deeper)."""
    blocks, level = [], 0
    for _ in range(rng.randint(3, 7)):
        level = rng.randint(1, min(3, level + 1))
        blocks.append(("h", level, words.phrase(2, 5)))
        for _ in range(rng.randint(1, 3)):
            kind = rng.random()
            if kind < 0.5:
                blocks.append(("p", " ".join(words.sentence() for _ in range(rng.randint(1, 4)))))
            elif kind < 0.8:
                items, depth = [], 0
                for i in range(rng.randint(2, 6)):
                    depth = 0 if i == 0 else rng.choice([0, 0, min(depth + 1, 1)])
                    items.append((depth, words.phrase(2, 8)))
                blocks.append(("list", rng.random() < 0.4, items))
            else:
                cols = rng.randint(2, 5)
                rows = [[words.phrase(1, 2) for _ in range(cols)]]
                rows += [[words.cell() for _ in range(cols)] for _ in range(rng.randint(2, 6))]
                blocks.append(("table", rows))
    return blocks


def truth_of(blocks, typ: str) -> dict:
    t = {"type": typ, "headings": [], "items": [], "rows": [], "text": []}
    for b in blocks:
        if b[0] == "h":
            t["headings"].append([b[1], b[2]])
            t["text"].append(b[2])
        elif b[0] == "p":
            t["text"].append(b[1])
        elif b[0] == "list":
            for _, text in b[2]:
                t["items"].append(text)
                t["text"].append(text)
        elif b[0] == "table":
            t["rows"].extend(b[1])
            t["text"].extend(" ".join(r) for r in b[1])
    t["text"] = "\n".join(t["text"])
    return t


# ------------------------------------------------------------------ writers


def write_md(blocks, path):
    out = []
    for b in blocks:
        if b[0] == "h":
            out.append("#" * b[1] + " " + b[2])
        elif b[0] == "p":
            out.append(b[1])
        elif b[0] == "list":
            lines, n = [], 0
            for depth, text in b[2]:
                if b[1]:
                    n = n + 1 if depth == 0 else n
                    lines.append(("   " * depth) + (f"{n}. " if depth == 0 else "1. ") + text)
                else:
                    lines.append(("  " * depth) + "- " + text)
            out.append("\n".join(lines))
        elif b[0] == "table":
            rows = b[1]
            lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
            lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
            out.append("\n".join(lines))
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n\n".join(out) + "\n")


def write_html(blocks, path, rng):
    e = html.escape
    out = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>Generated</title></head><body>"]
    for b in blocks:
        if b[0] == "h":
            out.append(f"<h{b[1]}>{e(b[2])}</h{b[1]}>")
        elif b[0] == "p":
            out.append(f"<p>{e(b[1])}</p>")
        elif b[0] == "list":
            tag = "ol" if b[1] else "ul"
            out.append(f"<{tag}>")
            depth_open = 0
            for i, (depth, text) in enumerate(b[2]):
                if depth > depth_open:
                    out.append(f"<{tag}>")
                elif depth < depth_open:
                    out.append(f"</li></{tag}></li>")
                elif i:
                    out.append("</li>")
                depth_open = depth
                out.append(f"<li>{e(text)}")
            out.append("</li>" + (f"</{tag}></li>" if depth_open else "") + f"</{tag}>")
        elif b[0] == "table":
            rows = b[1]
            border = " border='1'" if rng.random() < 0.5 else ""
            out.append(f"<table{border}><thead><tr>" + "".join(f"<th>{e(c)}</th>" for c in rows[0])
                       + "</tr></thead><tbody>")
            out += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows[1:]]
            out.append("</tbody></table>")
    out.append("</body></html>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


def write_xml(blocks, path):
    e = html.escape
    title = next((b[1] for b in blocks if b[0] == "t"), "Untitled")
    out = ["<?xml version='1.0' encoding='UTF-8'?>",
           f"<article><front><article-meta><title-group><article-title>{e(title)}"
           "</article-title></title-group></article-meta></front><body>"]
    open_secs = 0
    for b in blocks:
        if b[0] == "t":
            continue
        if b[0] == "h":
            while open_secs >= b[1]:
                out.append("</sec>")
                open_secs -= 1
            out.append(f"<sec><title>{e(b[2])}</title>")
            open_secs += 1
        elif b[0] == "p":
            out.append(f"<p>{e(b[1])}</p>")
        elif b[0] == "list":
            kind = "order" if b[1] else "bullet"
            out.append(f"<list list-type='{kind}'>")
            for depth, text in b[2]:  # nesting is not kept in XML lists: items stay flat
                out.append(f"<list-item><p>{e(text)}</p></list-item>")
            out.append("</list>")
        elif b[0] == "table":
            rows = b[1]
            out.append("<table-wrap><table><thead><tr>" + "".join(f"<th>{e(c)}</th>" for c in rows[0])
                       + "</tr></thead><tbody>")
            out += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows[1:]]
            out.append("</tbody></table></table-wrap>")
    out.append("</sec>" * open_secs + "</body></article>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


def write_docx(blocks, path):
    import docx
    d = docx.Document()
    for b in blocks:
        if b[0] == "h":
            d.add_heading(b[2], b[1])
        elif b[0] == "p":
            d.add_paragraph(b[1])
        elif b[0] == "list":
            base = "List Number" if b[1] else "List Bullet"
            for depth, text in b[2]:
                d.add_paragraph(text, style=base + (" 2" if depth else ""))
        elif b[0] == "table":
            rows = b[1]
            t = d.add_table(rows=len(rows), cols=len(rows[0]))
            t.style = "Table Grid"
            for i, r in enumerate(rows):
                for j, c in enumerate(r):
                    t.cell(i, j).text = c
    d.save(path)


def write_pptx(blocks, path):
    """One slide per heading: its text the title, lists and paragraphs in the body placeholder
    (paragraphs there are bulleted by the layout, so they count as list items), a table on a
    slide of its own titled after the section."""
    import pptx
    from pptx.util import Inches
    prs = pptx.Presentation()
    slide, body, title = None, None, ""
    for b in blocks:
        if b[0] == "h":
            slide = prs.slides.add_slide(prs.slide_layouts[1])
            slide.shapes.title.text = b[2]
            title = b[2]
            body = slide.placeholders[1].text_frame
            body.text = ""
            first = True
        elif b[0] in ("p", "list"):
            entries = [(0, b[1])] if b[0] == "p" else b[2]
            for depth, text in entries:
                para = body.paragraphs[0] if first else body.add_paragraph()
                first = False
                para.text = text
                para.level = depth
        elif b[0] == "table":
            rows = b[1]
            ts = prs.slides.add_slide(prs.slide_layouts[5])
            ts.shapes.title.text = title + " table"
            shape = ts.shapes.add_table(len(rows), len(rows[0]), Inches(0.5), Inches(1.5),
                                        Inches(9), Inches(0.4) * len(rows))
            for i, r in enumerate(rows):
                for j, c in enumerate(r):
                    shape.table.cell(i, j).text = c
    prs.save(path)


def pptx_truth(blocks) -> dict:
    t = {"type": "pptx", "headings": [], "items": [], "rows": [], "text": []}
    title = ""
    for b in blocks:
        if b[0] == "h":
            title = b[2]
            t["headings"].append([1, b[2]])
            t["text"].append(b[2])
        elif b[0] == "p":
            t["items"].append(b[1])
            t["text"].append(b[1])
        elif b[0] == "list":
            for _, text in b[2]:
                t["items"].append(text)
                t["text"].append(text)
        elif b[0] == "table":
            t["headings"].append([1, title + " table"])
            t["rows"].extend(b[1])
            t["text"].append(title + " table")
            t["text"].extend(" ".join(r) for r in b[1])
    t["text"] = "\n".join(t["text"])
    return t


def tables_only(rng, words) -> list[list[list[str]]]:
    out = []
    for _ in range(rng.randint(1, 3)):
        cols = rng.randint(2, 6)
        rows = [[words.phrase(1, 2) for _ in range(cols)]]
        rows += [[words.cell() for _ in range(cols)] for _ in range(rng.randint(2, 12))]
        out.append(rows)
    return out


def write_xlsx(tables, path):
    import openpyxl
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for k, rows in enumerate(tables):
        ws = wb.create_sheet(f"Data {k + 1}")
        for r in rows:
            ws.append([int(c) if c.isdigit() and not c.startswith("0") else c for c in r])
    wb.save(path)


def write_csv(rows, path, rng):
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=rng.choice([",", ",", ";", "\t"]), lineterminator="\r\n")
    w.writerows(rows)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(buf.getvalue())


def random_json(rng, words, depth=0):
    r = rng.random()
    if depth >= 3 or r < 0.35:
        choice = rng.random()
        if choice < 0.5:
            return words.phrase(1, 5)
        if choice < 0.75:
            return rng.randint(-1000, 100000)
        if choice < 0.85:
            return round(rng.uniform(-100, 100), 3)
        return rng.choice([True, False, None])
    if r < 0.65:
        return {words.word().lower() + str(i): random_json(rng, words, depth + 1)
                for i in range(rng.randint(1, 5))}
    return [random_json(rng, words, depth + 1) for _ in range(rng.randint(1, 5))]


def json_text(v) -> list[str]:
    if isinstance(v, dict):
        return [s for k, x in v.items() for s in [k, *json_text(x)]]
    if isinstance(v, list):
        return [s for x in v for s in json_text(x)]
    if v is None or isinstance(v, bool):
        return [json.dumps(v)]
    return [str(v)]


# ------------------------------------------------------------------ driver

TYPES = ["md", "html", "xml", "docx", "pptx", "xlsx", "csv", "json"]


def generate(out: str, count: int, seed: int, types: list[str], mode: str = "simple") -> list[str]:
    rng = random.Random(seed)
    words = Words(rng)
    made = []
    for k in range(count):
        typ = types[k % len(types)]
        name = f"{typ}_{k:04d}"
        path = os.path.join(out, f"{name}.{typ}")
        if typ in ("xlsx", "csv"):
            tables = tables_only(rng, words)
            if typ == "csv":
                tables = tables[:1]
                write_csv(tables[0], path, rng)
            else:
                write_xlsx(tables, path)
            # sheet names (the file's stem for CSV) are headings in the output
            names = [f"Data {k + 1}" for k in range(len(tables))] if typ == "xlsx" else [name]
            truth = {"type": typ, "headings": [], "items": [], "rows": [r for t in tables for r in t],
                     "text": "\n".join(names + [" ".join(r) for t in tables for r in t])}
        elif typ == "json":
            data = {words.word().lower() + "root": random_json(rng, words)}
            with open(path, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]))
            truth = {"type": typ, "headings": [], "items": [], "rows": [],
                     "text": "\n".join(json_text(data)), "data": data}
        else:
            blocks = structure(rng, words)
            if typ == "pptx":
                write_pptx(blocks, path)
                truth = pptx_truth(blocks)
            else:
                if typ == "xml":  # a JATS article has its title in <front>, above the sections
                    blocks = [("t", words.phrase(3, 6))] + blocks
                    write_xml(blocks, path)
                    truth = truth_of([("h", 0, blocks[0][1])] + blocks[1:], typ)
                else:
                    {"md": write_md, "docx": write_docx}.get(
                        typ, lambda b, p: write_html(b, p, rng))(blocks, path)
                    truth = truth_of(blocks, typ)
        rrng = random.Random(f"{seed}:{k}")
        if mode == "rich" or mode == "mixed" and rrng.random() < 0.5:
            truth = generate_rich(rrng, typ, name, path)
        with open(os.path.join(out, f"{name}.truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, ensure_ascii=False)
        made.append(path)
    return made


def generate_rich(rng: random.Random, typ: str, name: str, path: str) -> dict:
    """Overwrites the simple document at path with a rich one; returns its truth."""
    words = Words(rng)
    if typ == "xlsx":
        names, tables = rich.write_xlsx(rng, words, path)
        rows = [r for t in tables for r in t]
        return {"type": typ, "headings": [], "items": [], "rows": [r for r in rows if all(isinstance(c, str) for c in r)],
                "xrows": [r for r in rows if not all(isinstance(c, str) for c in r)],
                "text": "\n".join(names + [" ".join(c for c in r if isinstance(c, str)) for r in rows])}
    if typ == "csv":
        rows = rich.write_csv(rng, words, path, name)
        return {"type": typ, "headings": [], "items": [], "rows": rows,
                "text": "\n".join([name] + [" ".join(r) for r in rows])}
    if typ == "json":
        data = {words.word().lower() + "root": {"records": rich.records(rng, words),
                                                 "meta": random_json(rng, words)}}
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2, 4, "\t"]))
        return {"type": typ, "headings": [], "items": [], "rows": [],
                "text": "\n".join(json_text(data)), "data": data}
    blocks = rich.rich_structure(rng, words, typ)
    if typ == "pptx":
        notes = rich.write_pptx(blocks, path, rng, words)
        return rich.pptx_rich_truth(blocks, notes)
    if typ == "xml":
        title = rich.inline(rng, words, 3, 6, end="", fmt=0)
        rich.write_xml([("title", title)] + blocks, path, rng)
        return rich.rich_truth([("h", 0, title, None)] + blocks, typ)
    if typ == "docx":
        furniture = [words.phrase(2, 5) if rng.random() < 0.3 else "" for _ in range(2)]
        rich.write_docx(blocks, path, rng, furniture)
        return rich.rich_truth(blocks, typ, [f for f in furniture if f])
    {"md": rich.write_md, "html": rich.write_html}[typ](blocks, path, rng)
    return rich.rich_truth(blocks, typ)


def soffice_run(cmd: list[str], timeout: int) -> None:
    """Runs soffice in a session of its own, killed whole on timeout (soffice.bin outlives
    its launcher, and one document can hang a batch)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def convert_all(soffice, profile, ext, outdir, srcs) -> None:
    """Converts a batch; documents missing afterwards (a hang or crash) are retried one by
    one with a short timeout, so one bad document costs only itself."""
    if not srcs:
        return  # soffice given no documents waits for ever
    soffice_run([soffice, profile, "--headless", "--convert-to", ext, "--outdir", outdir, *srcs],
                timeout=60 + 10 * len(srcs))
    for src in srcs:
        stem = os.path.basename(src).rsplit(".", 1)[0]
        if os.path.isdir(outdir) and not os.path.exists(os.path.join(outdir, f"{stem}.{ext}")):
            soffice_run([soffice, profile, "--headless", "--convert-to", ext, "--outdir", outdir, src],
                        timeout=60)


def libreoffice(out: str, made: list[str]) -> None:
    """Re-saves DOCX, PPTX and XLSX through LibreOffice: the copies keep the truth."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if not soffice:
        print("gen: soffice not found; LibreOffice round trips skipped")
        return
    plan = [("docx", "odt", "docx", "lo-docx"), ("docx", "rtf", None, "lo-rtf"),
            ("pptx", "odp", "pptx", "lo-pptx"), ("xlsx", "ods", None, "lo-ods"),
            ("xlsx", "xls", None, "lo-xls")]
    with tempfile.TemporaryDirectory() as tmp:
        profile = f"-env:UserInstallation=file://{tmp}/profile"
        for src_ext, mid, back, tag in plan:
            srcs = [p for p in made if p.endswith("." + src_ext)]
            if srcs:
                resave(soffice, profile, tmp, tag, srcs, mid, back, out,
                       lambda stem, tag=tag: f"{tag}_{stem}", "gen")


def resave(soffice, profile, tmp, tag, srcs, mid, back, out, name_of, who) -> None:
    """LibreOffice's copies of `srcs`: saved as `mid`, then (when `back` is given) saved again
    as `back`, each copied to `out` as `name_of(stem)` with the final extension, beside a copy
    of the source's truth whose type is `tag`."""
    d1 = os.path.join(tmp, tag + "-1")
    convert_all(soffice, profile, mid, d1, srcs)
    final_dir, final_ext = d1, mid
    if back:
        d2 = os.path.join(tmp, tag + "-2")
        mids = [os.path.join(d1, os.path.basename(p).rsplit(".", 1)[0] + "." + mid) for p in srcs]
        convert_all(soffice, profile, back, d2, [m for m in mids if os.path.exists(m)])
        final_dir, final_ext = d2, back
    for p in srcs:
        stem = os.path.basename(p).rsplit(".", 1)[0]
        got = os.path.join(final_dir, f"{stem}.{final_ext}")
        if not os.path.exists(got):
            print(f"{who}: LibreOffice made no {final_ext} of {os.path.basename(p)}")
            continue
        name = name_of(stem)
        shutil.copy(got, os.path.join(out, f"{name}.{final_ext}"))
        with open(os.path.join(out, f"{stem}.truth.json"), encoding="utf-8") as f:
            truth = json.load(f)
        truth["type"] = tag
        with open(os.path.join(out, f"{name}.truth.json"), "w", encoding="utf-8") as f:
            json.dump(truth, f, ensure_ascii=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=80)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--types", default=",".join(TYPES))
    ap.add_argument("--mode", choices=["simple", "rich", "mixed"], default="mixed")
    ap.add_argument("--libreoffice", action="store_true")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 30)
    os.makedirs(a.out, exist_ok=True)
    made = generate(a.out, a.count, seed, a.types.split(","), a.mode)
    if a.libreoffice:
        libreoffice(a.out, made)
    print(f"gen: {len(made)} documents, seed {seed}, mode {a.mode}")


if __name__ == "__main__":
    main()
