"""Scores quire's Markdown and JSON output of generated documents against their truth.

usage: score.py DIR [--quire PATH] [--json OUT] [--bars FILE]

For every document gen.py wrote, quire converts it to Markdown and to JSON. The JSON is read
back into the same shape as the Markdown (a structured document's sections become headings and
their Markdown content, a presentation's slides their text, a spreadsheet's rows table rows), so
both outputs are measured alike, per type (the LibreOffice copies as their own types):

  word_f1    bag of words of all text against the truth's text
  head_r     truth headings found as headings with the same text (normalised)
  head_p     output headings that are truth headings (nothing else became a heading)
  head_lvl   found headings whose level rank equals the truth's
  items      truth list items found as list items with the same text
  rows       truth table rows found as table rows with every cell equal (normalised)
  data       JSON documents whose output data equals the input value exactly (json only)
  inline     texts with inline formatting (rich documents) found as the same words once the
             Markdown's emphasis, code, link and tag marks are taken out
  depth      truth list items found at their nesting depth
  ostart     ordered lists that restart numbering found numbered from 1
  xrows      rows with merged or multi-paragraph cells found (a merged position may be empty
             or repeat the merged text; list marks inside a cell are ignored)
  notes      footnotes, speaker notes, alt texts, header and footer texts found
  ok         conversions that succeeded
--bars FILE: JSON {"<type>": {"<measure>": minimum}} applied to both outputs; exit 1 below a bar.
"""

import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import unicodedata

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
TOKEN = re.compile(rf"[{CJK}]|[^\W_{CJK}]+")
MEASURES = ["ok", "word_f1", "head_r", "head_p", "head_lvl", "items", "rows", "data", "inline",
            "depth", "ostart", "xrows", "notes"]


def norm(s: str) -> str:
    s = unicodedata.normalize("NFKC", s)
    s = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~&])", r"\1", s)
    s = re.sub(r"<br\s*/?>", " ", s)
    s = s.replace("**", "").replace("__", "")
    return " ".join(s.lower().split())


def tokens(s: str) -> collections.Counter:
    return collections.Counter(TOKEN.findall(norm(s)))


def plain(s: str) -> str:
    """Markdown without inline marks: links and images keep their text, footnote marks,
    emphasis, code ticks and tags go."""
    s = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"\[\^[^\]]*\]:?", " ", s)
    s = re.sub(r"<br\s*/?>", " ", s)
    s = re.sub(r"</?[a-zA-Z][^>]*>", "", s)
    return norm(re.sub(r"[*_`~]", "", s))


HEAD = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
ITEM = re.compile(r"^(\s*)(?:[-*+]|(\d{1,9})[.)])\s+(.*)$")


def split_row(line: str) -> list[str]:
    cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
    return [norm(c) for c in cells]


def parse_md(md: str) -> dict:
    heads, items, rows, depth, number, indents = [], [], [], {}, {}, []
    for line in md.splitlines():
        if line.strip() and not line[0].isspace() and not ITEM.match(line):
            indents = []  # a line at the margin that is no item ends the list
        if m := HEAD.match(line):
            heads.append((len(m.group(1)), plain(m.group(2))))
        elif m := ITEM.match(line):
            text, n = plain(m.group(3)), len(m.group(1))
            while indents and n < indents[-1]:
                indents.pop()
            if not indents or n > indents[-1]:
                indents.append(n)
            items.append(text)
            depth.setdefault(text, len(indents) - 1)
            number.setdefault(text, int(m.group(2)) if m.group(2) else None)
        elif line.strip().startswith("|") and line.strip().endswith("|"):
            cells = split_row(line)
            if not all(re.fullmatch(r":?-{3,}:?", c or "") for c in cells):
                rows.append(tuple(cells))
    return {"heads": heads, "items": items, "rows": rows, "depth": depth, "number": number}


def json_to_md(doc: dict) -> str:
    c = doc.get("content", {})
    kind = c.get("type")
    out = []
    if kind == "structured_document":
        for s in c.get("sections", []):
            if s.get("heading") and s.get("level", 0) > 0:
                out.append("#" * s["level"] + " " + s["heading"])
            out.append(s.get("content", ""))
    elif kind == "presentation":
        for s in c.get("slides", []):
            out.append(s.get("text", ""))
            if s.get("notes"):
                out.append(s["notes"] if isinstance(s["notes"], str) else json.dumps(s["notes"]))
    elif kind == "spreadsheet":
        for sh in c.get("sheets", []):
            out.append("## " + str(sh.get("sheet_name", "")))
            for r in sh.get("rows", []):
                cells = [" ".join(("" if v is None else str(v)).split()).replace("|", "\\|") for v in r.get("cells", [])]
                out.append("| " + " | ".join(cells) + " |")
    elif isinstance(c.get("data"), list) and c["data"] and isinstance(c["data"][0], str):
        out.append(" ".join(jsonml_text(c["data"])))  # XML: JsonML, text without tag names
    else:
        out.append(" ".join(json_strings(c.get("data", c))))
    return "\n\n".join(out)


INLINE_TAGS = {"bold", "italic", "underline", "monospace", "ext-link", "sup", "sub", "sc", "xref",
               "b", "i", "u", "em", "strong", "code", "a", "span", "emphasis", "link"}


def jsonml_text(node) -> list[str]:
    """The text of a JsonML tree; an inline element's text joins its neighbours' unspaced."""
    def text(n) -> str:
        if isinstance(n, str):
            return n
        if isinstance(n, list) and n:
            inner = "".join(text(c) for c in n[1:] if not isinstance(c, dict))
            return inner if isinstance(n[0], str) and n[0].split(":")[-1] in INLINE_TAGS else f" {inner} "
        return ""
    return [text(node)]


def json_strings(v) -> list[str]:
    if isinstance(v, dict):
        return [s for k, x in v.items() for s in [k, *json_strings(x)]]
    if isinstance(v, list):
        return [s for x in v for s in json_strings(x)]
    return [json.dumps(v)] if v is None or isinstance(v, bool) else [str(v)]


def level_ranks(levels: list[int]) -> dict[int, int]:
    return {lv: i for i, lv in enumerate(sorted(set(levels)))}


def score_one(truth: dict, md: str) -> dict:
    md = re.sub(r"<!--.*?-->", " ", md, flags=re.S)  # page and slide markers
    md = re.sub(r"(?m)^#{1,6} Notes$", "", md)  # the speaker notes' label
    got = parse_md(md)
    res = {}
    bare = re.sub(r"(?m)^(\s*)\d{1,9}[.)](?=\s)", r"\1", md)  # list numbers are not words
    bare = re.sub(r"[*`~]|</?(?!br\b)[a-zA-Z][^>]*>", "", re.sub(r"\]\([^)]*\)", "]", bare))
    o, e = tokens(bare), tokens(truth["text"])
    tp = sum((o & e).values())
    p = tp / max(1, sum(o.values()))
    r = tp / max(1, sum(e.values()))
    res["word_f1"] = 2 * p * r / (p + r) if p + r else 0.0
    th = [(lv, plain(t)) for lv, t in truth["headings"]]
    if th:
        got_texts = collections.Counter(t for _, t in got["heads"])
        found = [(lv, t) for lv, t in th if got_texts[t] > 0]
        res["head_r"] = len(found) / len(th)
        tt = collections.Counter(t for _, t in th)
        res["head_p"] = (sum(1 for _, t in got["heads"] if tt[t] > 0) / len(got["heads"])
                         if got["heads"] else 0.0)
        if found:
            tr, gr = level_ranks([lv for lv, _ in th]), level_ranks([lv for lv, _ in got["heads"]])
            glevel = {t: lv for lv, t in got["heads"]}
            res["head_lvl"] = sum(1 for lv, t in found if gr[glevel[t]] == tr[lv]) / len(found)
    if truth["items"]:
        got_items = collections.Counter(got["items"])
        res["items"] = sum(1 for t in truth["items"] if got_items[plain(t)] > 0) / len(truth["items"])
    if truth["rows"]:
        got_rows = collections.Counter(got["rows"])
        res["rows"] = sum(1 for r in truth["rows"] if got_rows[tuple(norm(c) for c in r)] > 0) / len(truth["rows"])
    flat = " " + plain(" ".join(md.split())) + " "
    if truth.get("inline"):
        res["inline"] = sum(1 for t in truth["inline"] if f" {plain(t)}" in flat) / len(truth["inline"])
    if truth.get("depths"):
        found = [(plain(t), d) for t, d in truth["depths"] if plain(t) in got["depth"]]
        if found:
            res["depth"] = sum(1 for t, d in found if got["depth"][t] == d) / len(found)
    if truth.get("ostart"):
        res["ostart"] = sum(1 for t in truth["ostart"] if got["number"].get(plain(t)) == 1) / len(truth["ostart"])
    if truth.get("xrows"):
        rows = [[cell_norm(c) for c in r] for r in got["rows"]]
        res["xrows"] = sum(1 for r in truth["xrows"] if any(row_fits(r, g) for g in rows)) / len(truth["xrows"])
    if truth.get("notes"):
        res["notes"] = sum(1 for t in truth["notes"] if plain(t) in flat) / len(truth["notes"])
    return res


def cell_norm(c: str) -> str:
    return " ".join(w for w in plain(c).split() if not re.fullmatch(r"[-*•◦▪‣·]|\d{1,3}[.)]", w))


def row_fits(truth: list, got: list[str]) -> bool:
    if len(truth) != len(got):
        return False
    for t, g in zip(truth, got):
        if isinstance(t, dict):
            if g not in ("", cell_norm(t["or"])):
                return False
        elif g != cell_norm(t):
            return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--quire", default=os.environ.get("QUIRE", "target/release/quire"))
    ap.add_argument("--json")
    ap.add_argument("--bars")
    a = ap.parse_args()
    scores = collections.defaultdict(lambda: collections.defaultdict(list))
    worst = []
    for tpath in sorted(glob.glob(os.path.join(a.dir, "*.truth.json"))):
        name = tpath[:-len(".truth.json")]
        docs = [p for p in glob.glob(name + ".*") if not p.endswith(".truth.json")]
        if not docs:
            continue
        with open(tpath, encoding="utf-8") as f:
            truth = json.load(f)
        for fmt in ("md", "json"):
            key = (truth["type"], fmt)
            p = subprocess.run([a.quire, "convert", docs[0], "-f", fmt], capture_output=True, timeout=120)
            ok = p.returncode == 0
            scores[key]["ok"].append(1.0 if ok else 0.0)
            if not ok:
                worst.append((0.0, fmt, docs[0], p.stderr.decode(errors="replace").strip()[-200:]))
                continue
            text = p.stdout.decode("utf-8", "replace")
            if fmt == "json":
                doc = json.loads(text)
                if "data" in truth:
                    scores[key]["data"].append(
                        1.0 if doc.get("content", {}).get("data") == truth["data"] else 0.0)
                text = json_to_md(doc)
            for k, v in score_one(truth, text).items():
                if fmt == "json" and doc.get("content", {}).get("type") == "structured_data" \
                        and k != "word_f1":
                    continue  # JSON of XML and JSON is the data tree by contract: text only
                scores[key][k].append(v)
                if v < 0.9:
                    worst.append((v, fmt, docs[0], k))
    print(f"{'type':<9} {'out':<5} {'docs':>5} " + " ".join(f"{m:>8}" for m in MEASURES))
    table = {}
    for (typ, fmt) in sorted(scores):
        s = scores[(typ, fmt)]
        row = {m: (sum(v) / len(v) if v else None) for m, v in s.items()}
        table[f"{typ}/{fmt}"] = row
        print(f"{typ:<9} {fmt:<5} {len(s['ok']):>5} " + " ".join(
            f"{row[m]:>8.3f}" if row.get(m) is not None else f"{'-':>8}" for m in MEASURES))
    worst.sort(key=lambda w: w[0])
    if worst:
        print("\nweakest documents:")
        for v, fmt, doc, what in worst[:int(os.environ.get("SCORE_WORST", "12"))]:
            print(f"  {v:.2f} {fmt:<4} {os.path.basename(doc)} {what}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)
    status = 0
    if a.bars:
        with open(a.bars) as f:
            bars = json.load(f)
        for key, row in table.items():
            typ = key.split("/")[0]
            for m, lo in bars.get(typ, {}).items():
                if row.get(m) is not None and row[m] < lo:
                    print(f"BELOW BAR: {key} {m} {row[m]:.3f} < {lo}")
                    status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
