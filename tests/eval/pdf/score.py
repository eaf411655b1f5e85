"""Scores Markdown (or plain text) conversions of generated PDFs against their truth.

usage: score.py DIR [--tools quire,pymupdf4llm,pdftotext] [--quire PATH] [--json OUT]
       [--dump DIR] [--misses] [--bars FILE]   (exit 1 when quire is below a bar in FILE, a JSON {measure: minimum})

Every tool converts every PDF in DIR in the same run, file by file. Measures, over all documents:
  word_f1         bag of words of the body text (furniture excluded from the truth)
  heading_p/r/f1  Markdown headings whose text equals a truth heading (normalised)
  heading_level   matched headings whose level rank equals the truth's
  list_items      truth list items found as Markdown list items (text equal, normalised)
  rows_ruled / rows_partial / rows_borderless
                  truth table rows found as Markdown table rows (every cell equal, normalised,
                  spaces inside a cell ignored)
  paragraphs      truth paragraphs found whole inside one output block (contiguous, in order)
  furniture       pages whose running header and footer/page number are both absent
  order           Kendall-style share of consecutive truth paragraphs found in the same order
and word_f1/paragraphs for rotated and upright documents apart. Structure scores are not
defined for plain text (pdftotext) and are shown as "-".
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time
import unicodedata

WORD = re.compile(r"[0-9a-z]+")


def norm(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).lower()
    s = s.replace("ﬁ", "fi").replace("ﬂ", "fl")
    return " ".join(WORD.findall(s))


def strip_inline(s: str) -> str:
    s = re.sub(r"<!--.*?-->", " ", s)
    s = re.sub(r"</?[a-zA-Z][^>]*>", " ", s)
    s = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", s)
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", s)
    s = s.replace("**", "").replace("__", "")
    s = re.sub(r"(?<![0-9a-zA-Z])[_*]|[_*](?![0-9a-zA-Z])", "", s)
    return s


LIST = re.compile(r"^\s*(?:[-*+•–]|\d{1,3}[.)])\s+(.*)$")
HEAD = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def parse_md(md: str) -> dict:
    """Headings, list items, table rows and blocks (paragraphs) of a Markdown text."""
    heads, items, rows, blocks = [], [], [], []
    cur: list[str] = []

    def flush():
        if cur:
            blocks.append(norm(strip_inline(" ".join(cur))))
            cur.clear()

    in_code = False
    for line in md.splitlines():
        if line.strip().startswith("```"):
            in_code = not in_code
            flush()
            continue
        if in_code:
            cur.append(line)
            continue
        m = HEAD.match(line)
        if m:
            flush()
            heads.append((len(m.group(1)), norm(strip_inline(m.group(2)))))
            blocks.append(norm(strip_inline(m.group(2))))
            continue
        if line.lstrip().startswith("|"):
            flush()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r":?-{2,}:?", c) or not c for c in cells):
                continue
            rows.append(tuple(norm(strip_inline(c)) for c in cells))
            continue
        m = LIST.match(line)
        if m:
            flush()
            text = m.group(1)
            # "9. 1. Text": in CommonMark an item whose content starts with a nested list.
            while (inner := LIST.match(text)) is not None:
                text = inner.group(1)
            items.append(norm(strip_inline(text)))
            cur.append(text)
            continue
        if not line.strip():
            flush()
            continue
        if items and line.startswith("  ") and cur:
            # continuation of a list item
            items[-1] = items[-1] + " " + norm(strip_inline(line))
        cur.append(line)
    flush()
    return {"heads": heads, "items": items, "rows": rows, "blocks": blocks}


def truth_words(t: dict) -> list[str]:
    out = []
    for b in t["blocks"]:
        if b["kind"] in ("heading", "para", "caption"):
            out += norm(b["text"]).split()
        elif b["kind"] == "list":
            for it in b["items"]:
                out += norm(it["text"]).split()
        elif b["kind"] == "table":
            for r in b["rows"]:
                for c in r:
                    out += norm(c).split()
    return out


def f1(truth: list[str], got: list[str]) -> float:
    a, b = collections.Counter(truth), collections.Counter(got)
    hit = sum((a & b).values())
    if not truth and not got:
        return 1.0
    p = hit / max(1, sum(b.values()))
    r = hit / max(1, sum(a.values()))
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


class Tally:
    def __init__(self):
        self.n = collections.Counter()
        self.d = collections.Counter()

    def add(self, key, hit, total=1):
        self.n[key] += hit
        self.d[key] += total

    def get(self, key):
        return self.n[key] / self.d[key] if self.d[key] else None


def score_doc(t: dict, md: str, structured: bool, tally: Tally, misses=None) -> None:
    """Adds one document's scores to `tally`; with `misses` (a list), also appends a line for
    every truth paragraph, heading, list item and table row not found, and every invented
    heading."""
    def miss(kind, text):
        if misses is not None:
            misses.append(f"  {kind}: {text[:150]}")

    parsed = parse_md(md) if structured else {"heads": [], "items": [], "rows": [],
                                              "blocks": [norm(b) for b in re.split(r"\n\s*\n", md)]}
    plain = norm(strip_inline(md))
    got_words = plain.split()
    wf1 = f1(truth_words(t), got_words)
    rot = "rotated" if t["rotate"] else "upright"
    tally.add("word_f1", wf1)
    tally.add(f"word_f1_{rot}", wf1)
    tally.add(f"word_f1_{t['style']['producer']}", wf1)

    # Paragraph integrity and order.
    joined = "\n".join(parsed["blocks"])
    paras = [norm(b["text"]) for b in t["blocks"] if b["kind"] in ("para", "caption")]
    found_at = []
    for p in paras:
        ok = any(p in blk for blk in parsed["blocks"])
        if not ok:
            miss("paragraph", p)
        tally.add("paragraphs", int(ok))
        tally.add(f"paragraphs_{rot}", int(ok))
        tally.add(f"paragraphs_{t['style']['producer']}", int(ok))
        if ok:
            found_at.append(joined.find(p))
    for a, b in zip(found_at, found_at[1:]):
        tally.add("order", int(a < b))

    # Furniture: the header and the page's footer must not stand in the output.
    lines = [norm(strip_inline(l)) for l in md.splitlines()]
    head_n = norm(t["header"])
    header_count = sum(l.count(head_n) for l in lines if head_n)
    footer_lines = collections.Counter(lines)
    for i, foot in enumerate(t["footers"]):
        fn = norm(foot)
        if fn.isdigit():  # "3", "- 3 -": a block that is only the number
            left = footer_lines[fn] > 0
        else:
            left = any(fn in l for l in lines)
        header_left = header_count > i
        tally.add("furniture", int(not left and not header_left))
        tally.add(f"furniture_{t['style']['producer']}", int(not left and not header_left))

    if not structured:
        return

    # Headings.
    truth_heads = [(b["level"], norm(b["text"])) for b in t["blocks"] if b["kind"] == "heading"]
    got = list(parsed["heads"])
    pool = collections.Counter(h for _, h in got)
    matched = []
    for lvl, h in truth_heads:
        if pool[h] > 0:
            pool[h] -= 1
            matched.append((lvl, h))
        else:
            miss("heading missed", h)
    for h, n in pool.items():
        for _ in range(n):
            miss("heading invented", h)
    tally.add("heading_r", len(matched), len(truth_heads))
    tally.add("heading_p", len(matched), len(got))
    tally.add(f"heading_r_{t['style']['producer']}", len(matched), len(truth_heads))
    tally.add(f"heading_p_{t['style']['producer']}", len(matched), len(got))
    if matched:
        got_level = {}
        for lvl, h in got:
            got_level.setdefault(h, lvl)
        truth_ranks = sorted({l for l, _ in truth_heads})
        got_ranks = sorted({got_level[h] for _, h in matched})
        for lvl, h in matched:
            tr = truth_ranks.index(lvl)
            gr = got_ranks.index(got_level[h])
            tally.add("heading_level", int(tr == gr))

    # List items.
    items = collections.Counter(parsed["items"])
    for b in t["blocks"]:
        if b["kind"] != "list":
            continue
        for it in b["items"]:
            k = norm(it["text"])
            ok = items[k] > 0
            if ok:
                items[k] -= 1
            else:
                miss("list item", k)
            tally.add("list_items", int(ok))
            tally.add(f"list_items_{t['style']['producer']}", int(ok))

    # Table rows. Cells compare without their spaces: a producer that breaks a long word
    # inside a narrow cell ("Ho ustras t") prints something the truth does not hold, and
    # no tool can know where the word was; word F1 measures the words themselves.
    def cell_key(c: str) -> str:
        return c.replace(" ", "")

    rows = collections.Counter(tuple(cell_key(c) for c in r if c) for r in parsed["rows"])
    for b in t["blocks"]:
        if b["kind"] != "table":
            continue
        key = {"full": "rows_ruled", "partial": "rows_partial", "none": "rows_borderless"}[b["rules"]]
        for r in b["rows"]:
            k = tuple(cell_key(norm(c)) for c in r if norm(c))
            ok = rows[k] > 0
            if ok:
                rows[k] -= 1
            else:
                miss(key, " | ".join(k))
            tally.add(key, int(ok))
            tally.add(f"{key}_{t['style']['producer']}", int(ok))


def run_tool(tool: str, pdf: str, quire: str) -> tuple[str, float]:
    t0 = time.perf_counter()
    if tool == "quire":
        out = subprocess.run([quire, "convert", pdf], capture_output=True, timeout=300)
        md = out.stdout.decode("utf-8", "replace")
    elif tool == "pdftotext":
        out = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, timeout=300)
        md = out.stdout.decode("utf-8", "replace")
    elif tool == "pymupdf4llm":
        import pymupdf4llm
        md = pymupdf4llm.to_markdown(pdf, show_progress=False)
    else:
        raise SystemExit(f"unknown tool {tool}")
    return md, time.perf_counter() - t0


MEASURES = ["word_f1", "word_f1_upright", "word_f1_rotated", "heading_p", "heading_r", "heading_level",
            "list_items", "rows_ruled", "rows_partial", "rows_borderless", "paragraphs",
            "paragraphs_upright", "paragraphs_rotated", "order", "furniture"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--tools", default="quire,pymupdf4llm,pdftotext")
    ap.add_argument("--quire", default=os.environ.get("QUIRE", "quire"))
    ap.add_argument("--json")
    ap.add_argument("--bars")
    ap.add_argument("--by-producer", action="store_true")
    ap.add_argument("--dump", help="write each tool's output here")
    ap.add_argument("--misses", action="store_true",
                    help="list, per document, what the first tool missed or invented")
    args = ap.parse_args()
    tools = args.tools.split(",")
    names = sorted(f[:-5] for f in os.listdir(args.dir) if f.endswith(".json"))
    tallies = {tool: Tally() for tool in tools}
    secs = collections.Counter()
    pages = 0
    for name in names:
        with open(os.path.join(args.dir, name + ".json")) as fh:
            t = json.load(fh)
        pdf = os.path.join(args.dir, name + ".pdf")
        pages += t["pages"]
        for tool in tools:  # interleaved, file by file
            md, s = run_tool(tool, pdf, args.quire)
            secs[tool] += s
            if args.dump:
                os.makedirs(os.path.join(args.dump, tool), exist_ok=True)
                with open(os.path.join(args.dump, tool, name + ".md"), "w") as out:
                    out.write(md)
            misses = [] if args.misses and tool == tools[0] else None
            score_doc(t, md, tool != "pdftotext", tallies[tool], misses)
            if misses:
                print(f"{name} ({tool}, rotate {t['rotate']}):")
                print("\n".join(misses))

    def fmt(v):
        return "-" if v is None else f"{v:.3f}"

    measures = list(MEASURES)
    if args.by_producer:
        for prod in ("chromium", "libreoffice", "reportlab"):
            measures += [f"{m}_{prod}" for m in ("word_f1", "heading_p", "heading_r", "list_items",
                                                  "rows_ruled", "rows_partial", "rows_borderless",
                                                  "paragraphs", "furniture")]
    result = {}
    print(f"{len(names)} documents, {pages} pages")
    print(f"{'measure':28}" + "".join(f"{tool:>14}" for tool in tools))
    for m in measures:
        vals = []
        for tool in tools:
            tl = tallies[tool]
            v = tl.get(m)
            if tool == "pdftotext" and m.startswith(("heading", "list", "rows")):
                v = None
            vals.append(v)
            result.setdefault(tool, {})[m] = v
        d = tallies[tools[0]].d[m]
        print(f"{m + f' ({d})':28}" + "".join(f"{fmt(v):>14}" for v in vals))
    for tool in tools:
        hp, hr = result[tool].get("heading_p"), result[tool].get("heading_r")
        result[tool]["heading_f1"] = (2 * hp * hr / (hp + hr)) if hp and hr else None
        result[tool]["pages_per_s"] = pages / secs[tool] if secs[tool] else None
    print(f"{'heading_f1':28}" + "".join(f"{fmt(result[t]['heading_f1']):>14}" for t in tools))
    print(f"{'pages/s (whole process)':28}" + "".join(f"{result[t]['pages_per_s']:>14.1f}" for t in tools))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(result, out, indent=1)
    if args.bars:
        with open(args.bars) as fh:
            bars = json.load(fh)
        failed = [f"{m}: {result['quire'].get(m)} < {v}" for m, v in bars.items()
                  if result["quire"].get(m) is None or result["quire"][m] < v]
        for f in failed:
            print(f"below the bar: {f}", file=sys.stderr)
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
