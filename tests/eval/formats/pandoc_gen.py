"""Documents of known structure written by another producer: pandoc (and LibreOffice after it).

usage: pandoc_gen.py DIR [--count N] [--seed S] [--producers pd-docx,...] [--no-libreoffice]

gen.py and rich.py write every format with writers quire was tuned on. This generator writes a
random pandoc Markdown document per count (headings of levels 1-4, paragraphs with emphasis,
strong, code, underline and links, some split inside a word, footnotes, bullet and ordered
lists nested up to three levels, pipe and grid tables with a header row, block quotes, fenced
code, definition lists, sometimes a title) and lets pandoc write it in each target format;
LibreOffice then re-saves the pandoc DOCX as RTF, as HTML and, through ODT, as DOCX. Every file gets
its truth in gen.py's format (score.py scores it unchanged):

  DIR/<type>_<k>.<ext> and DIR/<type>_<k>.truth.json, the Markdown source in DIR/src/

Types and what their truth says (what a careful reader of the produced file calls its
structure; pandoc's own conventions per writer):
  pd-docx   pandoc DOCX: Heading N styles are headings of level N, the title (Title style) is
            a level-1 heading as in rich.py; list items at their depth; every table row
            (header row included).
  pd-rtf    pandoc RTF: no heading styles, but each heading paragraph carries
            \\outlinelevel and is bold at a size per level; the title is centred bold text
            of the level-1 size and is a level-1 heading. Lists are paragraphs with a hanging
            indent that start with a bullet or number and a tab: list items, their depth by
            indent.
  pd-html   pandoc standalone HTML: h1-h4 are headings, the title is <h1 class="title">
            (level 1); footnotes are an ordered list at the end (their text is counted as
            notes, not as items).
  pd-dbk    pandoc DocBook 5: nested <section>s are headings of their depth, the document
            title (<info><title>) a level-0 heading above them; footnotes are inline
            <footnote> elements.
  pd-jats   pandoc JATS: <sec><title> as DocBook, the title is <article-title> (level 0).
  pd-tei    pandoc TEI: <div><head> as DocBook, the title (teiHeader) is level 0; the header's
            "Produced by pandoc." is text; table captions are not written by pandoc, so not
            in the truth.
  pd-md     pandoc's own Markdown (-t markdown -s): what pandoc reads back from it. The title
            is YAML front matter (a level-1 heading, as pandoc reads it); tables are simple,
            grid or pipe tables, lists keep their marker styles (a., i., (1), A)).
  pd-gfm    pandoc's GitHub Markdown: the same truth; tables are pipe tables, markers 1. only.
  pd-pptx   pandoc PPTX with --slide-level 1 from a copy of the source whose headings are all
            of level 1: each heading titles a slide (level 1), the title slide's title too;
            lists are items; paragraphs, quotes, code and definitions are text; tables rows.
  lo-pd-rtf   pandoc DOCX re-saved by LibreOffice as RTF: the pd-docx truth.
  lo-pd-docx  pandoc DOCX re-saved by LibreOffice as ODT then DOCX: the pd-docx truth.
  lo-pd-html  pandoc DOCX saved by LibreOffice as HTML: the pd-docx truth.
Footnote texts are in "notes" and "text" everywhere; definition terms and definitions,
quotes and code lines are text only.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen import Words, resave  # noqa: E402
from rich import formatted, inline, merge_runs, plain, run  # noqa: E402

PRODUCERS = ["pd-docx", "pd-rtf", "pd-html", "pd-dbk", "pd-jats", "pd-tei", "pd-md", "pd-gfm",
             "pd-pptx", "lo-pd-rtf", "lo-pd-docx", "lo-pd-html"]
PANDOC = {"pd-docx": ("docx", "docx"), "pd-rtf": ("rtf", "rtf"), "pd-html": ("html5", "html"),
          "pd-dbk": ("docbook5", "xml"), "pd-jats": ("jats", "xml"), "pd-tei": ("tei", "xml"),
          "pd-md": ("markdown", "md"), "pd-gfm": ("gfm", "md"), "pd-pptx": ("pptx", "pptx")}


# ------------------------------------------------------------------ content


def sentences(rng, words, n, fmt=0.3):
    """Sentences as runs; now and then a whole word struck out, raised or lowered."""
    out = []
    for k in range(n):
        if k:
            out.append(run(" "))
        out += inline(rng, words, 5, 12, fmt=fmt)
        if rng.random() < fmt * 0.3:
            last = out.pop()  # the full stop
            out += [run(" "), run(words.word().lower(), rng.choice(["s", "sup", "sub"])), last]
    return merge_runs(out)


ORDERED = ["1.", "1.", "1.", "1)", "(1)", "a.", "A)", "i.", "I."]


def a_list(rng, words):
    """("list", [marker style per depth: None (bullet) or an ORDERED style], start,
    [(depth, runs, more)]): depth 0..2, never deeper than one step; `more` a second paragraph
    of the item (a loose list), `start` the first number of the outer list."""
    items, depth = [], 0
    kinds = [rng.choice(ORDERED) if rng.random() < 0.45 else None for _ in range(3)]
    loose = rng.random() < 0.15
    for i in range(rng.randint(2, 7)):
        depth = 0 if i == 0 else rng.choice([0, depth, min(depth + 1, 2), min(depth + 1, 2)])
        more = [words.sentence()] if loose and rng.random() < 0.5 else []
        items.append((depth, inline(rng, words, 2, 7, end="", fmt=0.25), more))
    start = rng.choice([1, 1, 1, rng.randint(2, 9)]) if kinds[0] in ("1.", "1)") else 1
    return ("list", kinds, start, items)


def a_table(rng, words):
    cols, nrows = rng.randint(2, 5), rng.randint(2, 6)
    grid = [[words.phrase(1, 3) for _ in range(cols)]]
    grid += [[words.cell() if rng.random() > 0.08 else "" for _ in range(cols)]
             for _ in range(nrows)]
    for r in grid[1:]:
        if not any(r):
            r[0] = words.cell()
    caption = words.phrase(2, 5) if rng.random() < 0.3 else None
    return ("table", grid, rng.choice(["pipe", "pipe", "grid", "simple"]), caption)


def structure(rng, words) -> list[tuple]:
    blocks, level = [], 0
    if rng.random() < 0.5:
        blocks.append(("title", words.phrase(2, 6)))
    for _ in range(rng.randint(3, 8)):
        level = rng.randint(1, min(4, level + 1))
        blocks.append(("h", level, inline(rng, words, 2, 5, end="", fmt=0.1)))
        for _ in range(rng.randint(1, 3)):
            k = rng.random()
            if blocks[-1][0] == "list" or k < 0.35:  # a list never follows a list: they would merge
                runs = sentences(rng, words, rng.randint(1, 3))
                if rng.random() < 0.2:
                    runs.append({"t": "", "f": "", "href": None, "fn": words.sentence()})
                blocks.append(("p", runs))
            elif k < 0.6:
                blocks.append(a_list(rng, words))
            elif k < 0.75:
                blocks.append(a_table(rng, words))
            elif k < 0.83:
                blocks.append(("quote", sentences(rng, words, rng.randint(1, 2), fmt=0.2),
                               rng.random() < 0.2))
            elif k < 0.91:
                blocks.append(("code", [" ".join(words.word() for _ in range(rng.randint(2, 6)))
                                        for _ in range(rng.randint(1, 4))]))
            else:
                blocks.append(("dl", [(words.phrase(1, 3), words.sentence())
                                      for _ in range(rng.randint(1, 3))]))
    return blocks


# ------------------------------------------------------------------ Markdown


def md_runs(runs) -> str:
    out = []
    for r in runs:
        if "fn" in r:
            continue
        body, f = r["t"], r["f"]
        if body.strip():
            body = {"c": f"`{body}`", "b": f"**{body}**", "i": f"*{body}*", "bi": f"***{body}***",
                    "u": f"[{body}]{{.underline}}", "s": f"~~{body}~~", "sup": f"^{body}^",
                    "sub": f"~{body}~"}.get(f, body)
            if r["href"]:
                body = f"[{body}]({r['href']})"
        out.append(body)
    return "".join(out)


def width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def grid_table(grid) -> str:
    ws = [max(3, max(width(r[j]) for r in grid)) for j in range(len(grid[0]))]
    line = lambda ch: "+" + "+".join(ch * (w + 2) for w in ws) + "+"  # noqa: E731
    row = lambda r: "|" + "|".join(f" {c}{' ' * (w - width(c))} " for c, w in zip(r, ws)) + "|"  # noqa: E731
    out = [line("-"), row(grid[0]), line("=")]
    for r in grid[1:]:
        out += [row(r), line("-")]
    return "\n".join(out)


def roman(n: int) -> str:
    out = ""
    for v, r in [(10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]:
        while n >= v:
            out, n = out + r, n - v
    return out


def marker(style, n: int) -> str:
    if style is None:
        return "-"
    core = {"1": str(n), "a": chr(ord("a") + n - 1), "A": chr(ord("A") + n - 1), "i": roman(n),
            "I": roman(n).upper()}[style.strip("().")]
    return style.replace(style.strip("().")[0], core, 1)


def simple_table(grid) -> str:
    ws = [max(3, max(width(r[j]) for r in grid)) for j in range(len(grid[0]))]
    row = lambda r: "  ".join(c + " " * (w - width(c)) for c, w in zip(r, ws)).rstrip()  # noqa: E731
    return "\n".join([row(grid[0]), "  ".join("-" * w for w in ws)] + [row(r) for r in grid[1:]])


def write_md(blocks, path, flat_headings=False):
    out, notes = [], []
    title = next((b[1] for b in blocks if b[0] == "title"), None)
    if title:
        out.append(f"---\ntitle: \"{title}\"\n---")
    for b in blocks:
        k = b[0]
        if k == "h":
            out.append("#" * (1 if flat_headings else b[1]) + " " + md_runs(b[2]))
        elif k == "p":
            text = md_runs(b[1])
            for r in b[1]:
                if "fn" in r:
                    notes.append(r["fn"])
                    text += f"[^{len(notes)}]"
            out.append(text)
        elif k == "quote":
            out.append(("> > " if b[2] else "> ") + md_runs(b[1]))
        elif k == "code":
            out.append("```\n" + "\n".join(b[1]) + "\n```")
        elif k == "dl":
            out.append("\n\n".join(f"{t}\n:   {d}" for t, d in b[1]))
        elif k == "list":
            lines, counters, cols = [], [b[2] - 1, 0, 0], [0]
            loose = any(more for _, _, more in b[3])
            for depth, runs, more in b[3]:
                counters[depth] += 1
                for d in range(depth + 1, 3):
                    counters[d] = 0
                m = marker(b[1][depth], counters[depth])
                # upper-case letters with a period need two spaces in pandoc's Markdown
                m += "  " if m[0].isupper() and m.endswith(".") else " "
                cols = cols[:depth + 1]
                lines.append(" " * cols[depth] + m + md_runs(runs))
                cols.append(cols[depth] + len(m))
                for extra in more:
                    lines += ["", " " * cols[depth + 1] + extra]
                if loose:
                    lines.append("")
            out.append("\n".join(lines).rstrip("\n"))
        elif k == "table":
            grid = b[1]
            if b[2] == "grid":
                out.append(grid_table(grid))
            elif b[2] == "simple":
                out.append(simple_table(grid))
            else:
                lines = ["| " + " | ".join(grid[0]) + " |", "|" + "---|" * len(grid[0])]
                lines += ["| " + " | ".join(r) + " |" for r in grid[1:]]
                out.append("\n".join(lines))
            if b[3]:
                out.append(f"Table: {b[3]}")
    out += [f"[^{n + 1}]: {t}" for n, t in enumerate(notes)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n\n".join(out) + "\n")


# ------------------------------------------------------------------ truth


def truth_of(blocks, typ: str) -> dict:
    title_level = 0 if typ in ("pd-dbk", "pd-jats", "pd-tei") else 1
    t = {"type": typ, "headings": [], "items": [], "rows": [], "text": [], "inline": [],
         "depths": [], "notes": []}
    for b in blocks:
        k = b[0]
        if k == "title":
            t["headings"].append([title_level, b[1]])
            t["text"].append(b[1])
        elif k == "h":
            t["headings"].append([1 if typ == "pd-pptx" else b[1], plain(b[2])])
            t["text"].append(plain(b[2]))
            if formatted(b[2]):
                t["inline"].append(plain(b[2]))
        elif k in ("p", "quote"):
            t["text"].append(plain(b[1]))
            if formatted(b[1]):
                t["inline"].append(plain(b[1]))
            for r in b[1]:
                if "fn" in r:
                    t["notes"].append(r["fn"])
                    t["text"].append(r["fn"])
        elif k == "list":
            for depth, runs, more in b[3]:
                t["items"].append(plain(runs))
                t["depths"].append([plain(runs), depth])
                t["text"] += [plain(runs)] + more
                if formatted(runs):
                    t["inline"].append(plain(runs))
        elif k == "table":
            t["rows"] += [list(r) for r in b[1]]
            t["text"] += [" ".join(r) for r in b[1]]
            if b[3] and typ != "pd-tei":  # pandoc's TEI writer leaves table captions out
                t["text"].append(b[3])
        elif k == "code":
            t["text"] += b[1]
        elif k == "dl":
            t["text"] += [x for pair in b[1] for x in pair]
    if typ == "pd-tei":  # the header's source description pandoc writes
        t["text"].append("Produced by pandoc.")
    t["text"] = "\n".join(t["text"])
    return t


# ------------------------------------------------------------------ driver


def pandoc(src, typ, dest, has_title, stem):
    fmt, _ = PANDOC[typ]
    cmd = ["pandoc", src, "-f", "markdown", "-t", fmt, "-o", dest]
    if typ != "pd-docx" and typ != "pd-pptx":
        cmd.append("-s")
    if typ == "pd-pptx":
        cmd += ["--slide-level", "1"]
    if not has_title and typ in ("pd-html", "pd-dbk", "pd-jats"):
        cmd += ["--metadata", f"pagetitle={stem}"]
    subprocess.run(cmd, check=True, capture_output=True)


def generate(out: str, count: int, seed: int, producers: list[str]) -> list[str]:
    src_dir = os.path.join(out, "src")
    os.makedirs(src_dir, exist_ok=True)
    made = []
    for k in range(count):
        rng = random.Random(f"pandoc:{seed}:{k}")
        blocks = structure(rng, Words(rng))
        has_title = blocks[0][0] == "title"
        src = os.path.join(src_dir, f"{k:04d}.md")
        write_md(blocks, src)
        flat = os.path.join(src_dir, f"{k:04d}.flat.md")
        write_md(blocks, flat, flat_headings=True)
        for typ in producers:
            if typ not in PANDOC:
                continue
            name = f"{typ}_{k:04d}"
            path = os.path.join(out, f"{name}.{PANDOC[typ][1]}")
            pandoc(flat if typ == "pd-pptx" else src, typ, path, has_title, name)
            with open(os.path.join(out, f"{name}.truth.json"), "w", encoding="utf-8") as f:
                json.dump(truth_of(blocks, typ), f, ensure_ascii=False)
            made.append(path)
    return made


def libreoffice(out: str, made: list[str], producers: list[str]) -> None:
    """Re-saves the pandoc DOCX through LibreOffice: DOCX -> RTF, DOCX -> ODT -> DOCX and
    DOCX -> HTML."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if not soffice:
        print("pandoc_gen: soffice not found; LibreOffice copies skipped")
        return
    srcs = [p for p in made if os.path.basename(p).startswith("pd-docx_")]
    plan = [("lo-pd-rtf", "rtf", None), ("lo-pd-docx", "odt", "docx"), ("lo-pd-html", "html", None)]
    with tempfile.TemporaryDirectory() as tmp:
        profile = f"-env:UserInstallation=file://{tmp}/profile"
        for tag, mid, back in plan:
            if tag in producers and srcs:
                resave(soffice, profile, tmp, tag, srcs, mid, back, out,
                       lambda stem, tag=tag: tag + stem[len("pd-docx"):], "pandoc_gen")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--producers", default=",".join(PRODUCERS))
    ap.add_argument("--no-libreoffice", action="store_true")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1 << 30)
    producers = a.producers.split(",")
    if any(p.startswith("lo-") for p in producers) and "pd-docx" not in producers:
        producers.append("pd-docx")  # the LibreOffice copies are made from it
    os.makedirs(a.out, exist_ok=True)
    made = generate(a.out, a.count, seed, producers)
    if not a.no_libreoffice:
        libreoffice(a.out, made, producers)
    print(f"pandoc_gen: {a.count} sources, {len(made)} pandoc documents, seed {seed}")


if __name__ == "__main__":
    main()
