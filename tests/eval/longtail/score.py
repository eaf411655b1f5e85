"""Converts the long-tail development corpus with quire and scores it per type and per source.

usage: score.py CACHE [--quire PATH] [--jobs N] [--json OUT] [--bars FILE] [--types a,b]
                [--sources a,b] [--show-failures N]

CACHE is what gather.py built. Every document goes through `quire convert` twice (Markdown and
JSON), file by file. Per type and per source:

  files      documents; `valid` of them are readable documents of their type by the source's
             verdict or an independent reader (gather.py `judge`), the rest are expected failures
  converted  valid documents for which both conversions exit 0 and the JSON parses (rate = of
             valid); an expected failure that converts anyway is counted apart, not as an error
  warned     converted documents with at least one warning (each message is listed, numbers
             folded, so a warning without cause stands out)
  empty      converted documents whose Markdown holds no word although the expected text has
  f1 / mf1   word F1 of quire's Markdown text against the expected text the source ships,
             pooled over the type's words (f1) and the mean over documents (mf1); documents whose
             expected text has no word are left out. Markup is no text on either side: link
             destinations and titles, and tag-shaped strings (`<span …>`, `</div>`, `<?…?>`,
             `<!DOCTYPE …>`) in the output and in the expected text alike. Words of the
             document properties a source lists apart from the body (pandoc's Meta: title,
             author, date, keywords) are optional: neither missed when absent nor extra when
             present
--bars FILE is a JSON {"<type>": {"rate": min, "f1": min}}; exit 1 when a type is below one.
"""

import argparse
import collections
import concurrent.futures
import html
import json
import os
import re
import subprocess
import sys
import time
import unicodedata

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
TOKEN = re.compile(rf"[{CJK}]|[^\W_{CJK}]+")


# A Markdown link's destination (bare, or in angle brackets with spaces) and its optional
# title in double quotes, single quotes or parentheses: attributes, not reading text.
LINK_TARGET = re.compile(
    r"\]\(\s*(?:<[^<>\n]*>|(?:[^()\s]|\([^)]*\))*)"
    r"(?:\s+(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)))?\s*\)")
# Markup in either text: HTML tags, processing instructions, declarations and CDATA brackets.
# The expected text of an HTML rendering (CommonMark's) has lost its tags already; quire
# shows a Markdown source's raw HTML verbatim (inline as text, blocks as ```html code), so a
# tag-shaped string is dropped from the output and from the expected text alike.
MARKUP = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|<\?.*?\?>|<![A-Za-z][^<>]*>"
                    r"|<!\[CDATA\[|\]\]>", re.S)


def strip_markup(s: str) -> str:
    return MARKUP.sub(" ", s)


def strip_md(s: str) -> str:
    """The reading text of Markdown: no comments, URLs, data URIs, escapes or entities."""
    s = re.sub(r"<!--.*?-->", " ", s, flags=re.S)
    s = LINK_TARGET.sub("] ", s)
    s = re.sub(r"\(data:[^)]*\)", " ", s)
    s = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~&])", r"\1", s)
    # character references with their semicolon, outside code spans (CommonMark's rule)
    parts = re.split(r"(`+[^`]*`+)", s)
    ref = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")
    return "".join(p if i % 2 else ref.sub(lambda m: html.unescape(m.group(0)), p)
                   for i, p in enumerate(parts))


def tokens(s: str) -> collections.Counter:
    return collections.Counter(TOKEN.findall(unicodedata.normalize("NFKC", s).lower()))


def f1_counts(out: str, exp: str, optional: str = "") -> tuple[int, int, int]:
    """(true positives, output words, expected words). Words of `optional` (document
    properties the source lists apart from the body) are neither required nor penalised: an
    output word matching none of the body's words but one of them counts as a true positive
    and as expected, a property word the output lacks is not missed."""
    o, e = tokens(strip_markup(out)), tokens(strip_markup(exp))
    tp = o & e
    extra = (o - tp) & tokens(strip_markup(optional)) if optional else collections.Counter()
    return (sum(tp.values()) + sum(extra.values()), sum(o.values()),
            sum(e.values()) + sum(extra.values()))


def f1(tp: int, no: int, ne: int) -> float:
    if ne == 0 and no == 0:
        return 1.0
    p = tp / no if no else 0.0
    r = tp / ne if ne else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def convert(quire: str, path: str, fmt: str, timeout: float):
    t0 = time.perf_counter()
    try:
        p = subprocess.run([quire, "convert", path, "-f", fmt], capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, b"", "timed out", time.perf_counter() - t0
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"), time.perf_counter() - t0


def run_one(rec: dict, cache: str, quire: str, timeout: float) -> dict:
    path = os.path.join(cache, rec["path"])
    res = dict(rec)
    rc, out, err, secs = convert(quire, path, "md", timeout)
    res["seconds"] = secs
    res["md_rc"] = rc
    warnings = [ln[len("quire: warning: "):] for ln in err.splitlines()
                if ln.startswith("quire: warning: ")]
    errors = [ln[len("quire: "):] for ln in err.splitlines()
              if ln.startswith("quire: ") and not ln.startswith("quire: warning: ")]
    if rc != 0 and not errors:
        errors = [err.strip()[-300:] or f"exit {rc}"]
    res["warnings"], res["errors"] = warnings, errors
    md = out.decode("utf-8", "replace")
    if rec["type"] == "csv":  # quire names the one sheet of a CSV after the file
        stem = os.path.splitext(os.path.basename(path))[0]
        md = re.sub(rf"\A## {re.escape(stem)}\n", "", md)
    res["words"] = sum(tokens(strip_md(md)).values())
    rc_j, out_j, err_j, _ = convert(quire, path, "json", timeout)
    json_ok = rc_j == 0
    if json_ok:
        try:
            json.loads(out_j)
        except ValueError:
            json_ok = False
            res["errors"].append("JSON output does not parse")
    elif rc == 0:
        res["errors"].append("JSON: " + (err_j.strip().splitlines() or ["?"])[-1])
    res["ok"] = rc == 0 and json_ok
    if rec.get("expected") and rc == 0 and not rec["verdict"].startswith("invalid"):
        with open(os.path.join(cache, rec["expected"]), encoding="utf-8") as f:
            exp = f.read()
        if rec["source"] in ("docling", "markitdown"):
            exp = strip_md(exp)
        optional = ""
        if rec.get("optional"):
            with open(os.path.join(cache, rec["optional"]), encoding="utf-8") as f:
                optional = f.read()
        tp, no, ne = f1_counts(strip_md(md), exp, optional)
        if ne:
            res["f1"] = (tp, no, ne)
        res["exp_words"] = ne
    return res


def fold(msg: str) -> str:
    return re.sub(r"\d+", "N", msg)[:160]


def summarise(rows: list[dict], key: str) -> list[tuple]:
    groups = collections.defaultdict(list)
    for r in rows:
        groups[r[key]].append(r)
    table = []
    for k in sorted(groups):
        g = groups[k]
        valid = [r for r in g if not r["verdict"].startswith("invalid")]
        conv = [r for r in valid if r["ok"]]
        inval = [r for r in g if r["verdict"].startswith("invalid")]
        warned = [r for r in g if r["ok"] and r["warnings"]]
        empty = [r for r in conv if r["words"] == 0 and r.get("exp_words", 0) > 0]
        scored = [r for r in g if "f1" in r]
        tp = sum(r["f1"][0] for r in scored)
        no = sum(r["f1"][1] for r in scored)
        ne = sum(r["f1"][2] for r in scored)
        # documents with expected text that failed count as F1 0 in the mean
        failed_exp = [r for r in valid if r.get("expected") and not r["ok"]]
        per = [f1(*r["f1"]) for r in scored] + [0.0] * len(failed_exp)
        table.append((k, len(g), len(valid), len(conv), len(inval),
                      sum(1 for r in inval if r["ok"]), len(warned), len(empty),
                      len(scored), f1(tp, no, ne) if scored else None,
                      sum(per) / len(per) if per else None))
    return table


def print_table(title: str, table: list[tuple]) -> None:
    print(f"\n{title:<14} {'files':>6} {'valid':>6} {'conv':>6} {'rate':>7} {'invalid':>8} "
          f"{'inv.conv':>8} {'warned':>7} {'empty':>6} {'w/exp':>6} {'f1':>6} {'mf1':>6}")
    for k, n, valid, conv, inval, inval_ok, warned, empty, scored, pooled, mean in table:
        rate = conv / valid if valid else 1.0
        fmt = lambda x: "-" if x is None else f"{x:.3f}"  # noqa: E731
        print(f"{k:<14} {n:>6} {valid:>6} {conv:>6} {rate:>7.1%} {inval:>8} {inval_ok:>8} "
              f"{warned:>7} {empty:>6} {scored:>6} {fmt(pooled):>6} {fmt(mean):>6}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("--quire", default=os.environ.get("QUIRE", "target/release/quire"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--json")
    ap.add_argument("--bars")
    ap.add_argument("--types", default="")
    ap.add_argument("--sources", default="")
    ap.add_argument("--show-failures", type=int, default=15)
    a = ap.parse_args()
    with open(os.path.join(a.cache, "manifest.jsonl")) as f:
        recs = [json.loads(ln) for ln in f]
    types = set(filter(None, a.types.split(",")))
    sources = set(filter(None, a.sources.split(",")))
    recs = [r for r in recs if (not types or r["type"] in types)
            and (not sources or r["source"] in sources)]
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        rows = list(ex.map(lambda r: run_one(r, a.cache, a.quire, a.timeout), recs))
    print(f"{len(rows)} documents in {time.time() - t0:.0f} s")
    by_type = summarise(rows, "type")
    print_table("type", by_type)
    print_table("source", summarise(rows, "source"))
    total = summarise([dict(r, all="all") for r in rows], "all")
    print_table("", total)

    fails = [r for r in rows if not r["ok"] and not r["verdict"].startswith("invalid")]
    print(f"\nfailures of valid documents: {len(fails)}")
    grouped = collections.defaultdict(list)
    for r in fails:
        grouped[(r["type"], fold((r["errors"] or ["?"])[0]))].append(r["origin"])
    for (t, msg), origins in sorted(grouped.items(), key=lambda kv: -len(kv[1]))[:a.show_failures]:
        print(f"  {t:<5} {len(origins):>4}x {msg}\n        e.g. {origins[0]}")
    warn = collections.Counter()
    for r in rows:
        if r["ok"]:
            for w in set(map(fold, r["warnings"])):
                warn[(r["type"], w)] += 1
    print("\nwarnings (type, documents, message with numbers folded):")
    for (t, w), n in warn.most_common(40):
        print(f"  {t:<5} {n:>4}x {w}")
    low = sorted((f1(*r["f1"]), r["origin"], r["type"]) for r in rows if "f1" in r)
    print("\nlowest word F1:")
    for v, origin, t in low[:a.show_failures]:
        print(f"  {t:<5} {v:.3f} {origin}")
    secs = sorted(r["seconds"] for r in rows if r["ok"])
    if secs:
        print(f"\nper-file wall time (Markdown, process start included): median "
              f"{secs[len(secs) // 2] * 1000:.1f} ms, p95 {secs[int(len(secs) * .95)] * 1000:.1f} ms")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "by_type": by_type}, f)
    status = 0
    if a.bars:
        with open(a.bars) as f:
            bars = json.load(f)
        for k, n, valid, conv, *_rest, pooled, _mean in by_type:
            bar = bars.get(k, {})
            rate = conv / valid if valid else 1.0
            if rate < bar.get("rate", 0):
                print(f"BELOW BAR: {k} conversion rate {rate:.3f} < {bar['rate']}")
                status = 1
            if pooled is not None and pooled < bar.get("f1", 0):
                print(f"BELOW BAR: {k} word F1 {pooled:.3f} < {bar['f1']}")
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
