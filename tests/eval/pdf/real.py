"""Real PDFs from public test suites, converted and tallied per source.

usage: real.py [--mirrors DIR] [--corpus DIR] [--cache DIR] [--quire PATH]
               [--tools quire,pymupdf4llm] [--sources a,b] [--split all|dev|holdout]
               [--show N] [--json OUT] [--per-file OUT]

The documents come from bare git mirrors of the projects (DIR/<owner>+<name>/repo, default
$QUIRE_MIRRORS or /work/.mirror): pdf.js's test/pdfs, pdfminer.six's samples, PDFBox's test
resources, poppler's test files when mirrored, and docling's test PDFs with the Markdown its
authors checked by hand (tests/data/pdf/groundtruth and the ODF documents printed to PDF). They
are copied into a cache (never committed) and every tool converts every file in one run, file
by file.

Per source it prints:
  files, converted (exit 0 within 60 s), failed with a clear message, crashed/timed out;
  empty: files where pdftotext reads >= 50 words and the tool gives almost nothing (< 10 %);
  agree: word F1 of the tool's text against pdftotext's (a reference for the text layer only:
         pdftotext keeps running headers and page numbers that quire drops, so 0.9x is normal);
  warned: files with at least one warning (quire);
  fewer10: files where the tool gives more than 10 % fewer words than pdftotext (of those
         pdftotext reads >= 50 words from);
and, where the source ships hand-checked Markdown (docling), word F1, heading precision and
recall against it, for quire and the other tools side by side.
Sources are kept apart so a gain on one that costs another shows.

The source "corpus" is ../shared/corpus/pdf with its own hand-checked Markdown
(groundtruth/pdf/<stem>.md); only the files that have such a truth are converted.

--split keeps half of the files apart while tuning: a file is in the holdout half when the
SHA-1 of its own file name is odd (`--split dev` converts the other half only), so figures can be
given on files nobody looked at. --show N prints, per file with ground truth, the headings
missed and the headings invented (at most N of each) and the word F1: for the dev half only.
Word F1 is also given over left-to-right documents alone (truth_word_f1_ltr), the figure the
bar applies to.
`--per-file OUT` writes one JSON line per file and tool (its half, words, pdftotext's words,
agreement, warnings).
"""

import argparse
import collections
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score import f1, norm, parse_md, strip_inline  # noqa: E402

SOURCES = {
    # name: (mirror, path prefixes of PDFs, ground-truth function or None)
    "pdf.js": ("mozilla+pdf.js", ["test/pdfs/"]),
    "pdfminer": ("pdfminer+pdfminer.six", ["samples/"]),
    "pdfbox": ("apache+pdfbox", ["pdfbox/src/test/resources/", "examples/src/test/resources/"]),
    "poppler": ("freedesktop+poppler", [""]),
    "docling": ("docling-project+docling", ["tests/data/pdf/", "tests/data/odf/sources/"]),
    "corpus": ("", []),
}


def held_out(path: str) -> bool:
    """Half the files, by a hash of the file's own name (without the source prefix the cache
    adds, so the corpus's copy of a docling file falls in the same half): the half kept apart."""
    name = os.path.basename(path).rsplit("__", 1)[-1]
    return int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) % 2 == 1


def rtl(md: str) -> bool:
    """Mostly Hebrew/Arabic letters: the word-F1 bar is for left-to-right documents."""
    letters = [c for c in md if c.isalpha()]
    rtl_letters = sum(1 for c in letters if "\u0590" <= c <= "\u08ff" or "\ufb1d" <= c <= "\ufeff")
    return bool(letters) and rtl_letters > 0.3 * len(letters)


def gather_corpus(corpus: str, cache: str) -> list[tuple[str, str | None]]:
    docs = []
    gt_dir = os.path.join(corpus, "groundtruth", "pdf")
    if not os.path.isdir(gt_dir):
        print(f"corpus: no ground truth at {gt_dir}, skipped", file=sys.stderr)
        return docs
    for md in sorted(os.listdir(gt_dir)):
        pdf = os.path.join(corpus, "pdf", md[:-3] + ".pdf")
        if md.endswith(".md") and os.path.isfile(pdf):
            with open(os.path.join(gt_dir, md), encoding="utf-8", errors="replace") as f:
                docs.append((pdf, f.read()))
    return docs


def git(mirror: str, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={mirror}", *args], capture_output=True,
                          check=True).stdout


def gather(mirrors: str, corpus: str, cache: str, only: set[str] | None) -> dict[str, list[tuple[str, str | None]]]:
    """Copies each source's PDFs to cache/<source>/; returns (pdf, truth markdown or None)."""
    out: dict[str, list[tuple[str, str | None]]] = {}
    for name, (repo, prefixes) in SOURCES.items():
        if only and name not in only:
            continue
        if name == "corpus":
            out[name] = gather_corpus(corpus, cache)
            continue
        mirror = os.path.join(mirrors, repo, "repo")
        if not os.path.isdir(mirror):
            print(f"{name}: no mirror at {mirror}, skipped", file=sys.stderr)
            continue
        listing = git(mirror, "ls-tree", "-r", "HEAD").decode("utf-8", "replace").splitlines()
        blobs = {}
        for line in listing:
            meta, path = line.split("\t", 1)
            blobs[path] = meta.split()[2]
        dest = os.path.join(cache, name)
        os.makedirs(dest, exist_ok=True)
        docs = []
        for path, sha in sorted(blobs.items()):
            if not path.lower().endswith(".pdf") or not any(path.startswith(p) for p in prefixes):
                continue
            if name == "docling" and "/sources/" not in path:
                continue
            try:
                data = git(mirror, "cat-file", "blob", sha)
            except subprocess.CalledProcessError:
                continue  # a blob the mirror does not hold (large files)
            if not data.startswith(b"%PDF") and b"%PDF" not in data[:1024]:
                continue  # an LFS pointer or a deliberately broken file that is not a PDF
            local = os.path.join(dest, path.replace("/", "__"))
            with open(local, "wb") as f:
                f.write(data)
            truth = None
            if name == "docling":
                # sources/X.pdf (and sources/Y.odt.pdf) beside groundtruth/X.md (Y.odt.md).
                folder, stem = path.split("/sources/")[0], os.path.basename(path)[:-4]
                md = blobs.get(f"{folder}/groundtruth/{stem}.md")
                if md:
                    truth = git(mirror, "cat-file", "blob", md).decode("utf-8", "replace")
            docs.append((local, truth))
        out[name] = docs
    return out


def words(md: str) -> list[str]:
    return norm(strip_inline(md)).split()


def convert(tool: str, pdf: str, quire: str) -> tuple[str, str, list[str]]:
    """(status, markdown, warnings): status ok, error (a clear refusal) or crash."""
    if tool == "quire":
        try:
            p = subprocess.run([quire, "convert", pdf], capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return "crash", "", []
        err = p.stderr.decode("utf-8", "replace")
        warns = [l for l in err.splitlines() if l.startswith("quire: warning:")]
        if p.returncode == 0:
            return "ok", p.stdout.decode("utf-8", "replace"), warns
        # A refusal has a one-line message and a documented exit status; anything else crashed.
        clear = p.returncode in (1, 2, 3, 4, 5, 6) and "panicked" not in err and err.strip()
        return ("error" if clear else "crash"), "", warns
    if tool == "pdftotext":
        try:
            p = subprocess.run(["pdftotext", "-enc", "UTF-8", pdf, "-"], capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return "crash", "", []
        return ("ok" if p.returncode == 0 else "error"), p.stdout.decode("utf-8", "replace"), []
    if tool == "pymupdf4llm":
        code = ("import sys, pymupdf4llm; sys.stdout.write(pymupdf4llm.to_markdown(sys.argv[1], "
                "show_progress=False))")
        try:
            p = subprocess.run([sys.executable, "-c", code, pdf], capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:
            return "crash", "", []
        return ("ok" if p.returncode == 0 else "error"), p.stdout.decode("utf-8", "replace"), []
    raise SystemExit(f"unknown tool {tool}")


def heading_diff(truth_md: str, md: str) -> tuple[int, int, int, list[str], list[str]]:
    """(hit, got, wanted, missed, invented)."""
    t = collections.Counter(h for _, h in parse_md(truth_md)["heads"] if h)
    g = collections.Counter(h for _, h in parse_md(md)["heads"] if h)
    hit = sum((t & g).values())
    return hit, sum(g.values()), sum(t.values()), list((t - g).elements()), list((g - t).elements())


def heading_pr(truth_md: str, md: str) -> tuple[int, int, int]:
    return heading_diff(truth_md, md)[:3]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", default=os.environ.get("QUIRE_MIRRORS", "/work/.mirror"))
    ap.add_argument("--corpus", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "shared", "corpus"))
    ap.add_argument("--cache", default=None)
    ap.add_argument("--split", choices=("all", "dev", "holdout"), default="all")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--quire", required=True)
    ap.add_argument("--tools", default="quire")
    ap.add_argument("--sources", default="")
    ap.add_argument("--json", default=None)
    ap.add_argument("--per-file", default=None)
    args = ap.parse_args()
    tools = [t for t in args.tools.split(",") if t]
    cache = args.cache or tempfile.mkdtemp(prefix="quire-real-pdf-")
    only = set(s for s in args.sources.split(",") if s) or None
    sources = gather(args.mirrors, args.corpus, cache, only)
    if args.split != "all":
        for name in sources:
            sources[name] = [d for d in sources[name] if held_out(d[0]) == (args.split == "holdout")]
    per_file = open(args.per_file, "w") if args.per_file else None
    report: dict = {}
    for name, docs in sources.items():
        t = {tool: collections.Counter() for tool in tools}
        f1s = {tool: [] for tool in tools}
        gt = {tool: {"f1": [], "ltr": [], "hit": 0, "got": 0, "want": 0} for tool in tools}
        secs = collections.Counter()
        for pdf, truth in docs:
            _, ref, _ = convert("pdftotext", pdf, args.quire)
            ref_words = words(ref)
            for tool in tools:
                t0 = time.perf_counter()
                status, md, warns = convert(tool, pdf, args.quire)
                secs[tool] += time.perf_counter() - t0
                t[tool]["files"] += 1
                t[tool][status] += 1
                t[tool]["warned"] += bool(warns)
                got = words(md)
                agree = f1(ref_words, got) if status == "ok" and ref_words else None
                if per_file:
                    per_file.write(json.dumps({
                        "source": name, "split": "holdout" if held_out(pdf) else "dev", "file": os.path.basename(pdf), "tool": tool, "status": status,
                        "words": len(got), "ref_words": len(ref_words), "agree": agree,
                        "warnings": warns}) + "\n")
                if len(ref_words) >= 50:
                    t[tool]["with_text"] += 1
                    t[tool]["fewer10"] += status == "ok" and len(got) < 0.9 * len(ref_words)
                    if status == "ok" and len(got) < 0.1 * len(ref_words):
                        t[tool]["empty"] += 1
                        print(f"  {tool} empty: {os.path.basename(pdf)}", file=sys.stderr)
                    if status == "ok":
                        f1s[tool].append(agree)
                if status == "crash":
                    print(f"  {tool} crashed: {os.path.basename(pdf)}", file=sys.stderr)
                if truth is not None:
                    wf = f1(words(truth), got)
                    gt[tool]["f1"].append(wf)
                    if not rtl(truth):
                        gt[tool]["ltr"].append(wf)
                    hit, g, w, missed, invented = heading_diff(truth, md)
                    if args.show:
                        print(f"  {tool} {os.path.basename(pdf)}: word F1 {wf:.3f}, headings "
                              f"{hit}/{g} got, {w} wanted", file=sys.stderr)
                        for h in missed[:args.show]:
                            print(f"     missed: {h!r}", file=sys.stderr)
                        for h in invented[:args.show]:
                            print(f"   invented: {h!r}", file=sys.stderr)
                    gt[tool]["hit"] += hit
                    gt[tool]["got"] += g
                    gt[tool]["want"] += w
        report[name] = {}
        for tool in tools:
            c = t[tool]
            row = {
                "files": c["files"], "converted": c["ok"], "refused": c["error"], "crashed": c["crash"],
                "with_text": c["with_text"], "empty": c["empty"], "fewer10": c["fewer10"],
                "warned": c["warned"],
                "agree_f1_mean": round(sum(f1s[tool]) / len(f1s[tool]), 3) if f1s[tool] else None,
                "agree_f1_low": sum(1 for x in f1s[tool] if x < 0.8),
                "seconds": round(secs[tool], 1),
            }
            g = gt[tool]
            if g["f1"]:
                row["truth_files"] = len(g["f1"])
                row["truth_word_f1"] = round(sum(g["f1"]) / len(g["f1"]), 3)
                if g["ltr"]:
                    row["truth_word_f1_ltr"] = round(sum(g["ltr"]) / len(g["ltr"]), 3)
                row["heading_p"] = round(g["hit"] / g["got"], 3) if g["got"] else None
                row["heading_r"] = round(g["hit"] / g["want"], 3) if g["want"] else None
            report[name][tool] = row
            print(f"{name:9} {tool:12} " + " ".join(f"{k}={v}" for k, v in row.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
