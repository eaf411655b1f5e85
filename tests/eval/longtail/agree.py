"""Agreement with LibreOffice on the long tail's office documents that ship no expected text.

    agree.py CACHE --quire BIN [--types docx,pptx,...] [--split dev|holdout|all] [--worst 25]

Most of the long tail's DOCX, PPTX, XLSX, XLS, ODS and RTF files (POI's, Tika's and
Open-XML-SDK's) come without an expected text, so score.py can only say whether they
convert. LibreOffice is an independent reader of all of them: its text is a second opinion,
not the truth. Writer documents are saved as UTF-8 text, spreadsheets as CSV (every sheet,
cells as shown), presentations as PDF read by pdftotext. Exports are cached under
CACHE/libreoffice (keyed by the document's bytes), so a second run only converts with quire.

Reported per type and per source, pooled over words (score.py's tokens and Markdown
stripping): recall, the share of LibreOffice's words that quire's Markdown holds, and
precision, the share of quire's words that LibreOffice's text holds. Recall is the signal:
LibreOffice's text exports leave out headers, footers, notes and comments, so precision
under 1 is often quire reading more. The documents with the lowest recall are listed, to be
read by hand; each is either a quire defect or a difference of convention.

Needs soffice (Debian: libreoffice-writer, -calc, -impress) and pdftotext (poppler-utils).
"""

import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score  # noqa: E402

WRITER = {"docx", "rtf", "odt", "doc"}
CALC = {"xlsx", "xlsm", "xls", "xlsb", "ods"}
IMPRESS = {"pptx", "pptm", "potx", "potm", "odp"}
# CSV filter options: comma, double quote, UTF-8, from line 1, no column formats, language
# default, quoted fields not as text, special numbers detected, cells saved as shown,
# formulas not exported, spaces kept, every sheet (-1: one file per sheet).
CSV = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1"
TEXT = "txt:Text (encoded):UTF8"
# Characters read of one exported sheet or text
READ_CAP = 4_000_000


def digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:20]


def soffice(files: list[str], target: str, outdir: str, profile: str, timeout: float) -> None:
    """Convert `files` in one LibreOffice process; a hang is killed (its files stay absent)."""
    cmd = ["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
           "--convert-to", target, "--outdir", outdir, *files]
    try:
        subprocess.run(cmd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pass


def export(recs: list[dict], cache: str, profile: str) -> dict[str, str | None]:
    """The LibreOffice text of each record (None when LibreOffice produced none)."""
    store = os.path.join(cache, "libreoffice")
    os.makedirs(store, exist_ok=True)
    texts, todo = {}, collections.defaultdict(list)
    for rec in recs:
        path = os.path.join(cache, rec["path"])
        key = digest(path)
        out = os.path.join(store, key + ".txt")
        rec["_key"] = key
        if os.path.exists(out) or os.path.exists(out + ".none"):
            continue
        kind = "writer" if rec["type"] in WRITER else "calc" if rec["type"] in CALC else "impress"
        todo[kind].append((rec, path, out))
    for kind, items in todo.items():
        print(f"agree: LibreOffice exports {len(items)} {kind} documents", file=sys.stderr)
        for i in range(0, len(items), 40):
            batch = items[i:i + 40]
            with tempfile.TemporaryDirectory() as tmp:
                # a copy named by key: LibreOffice names its outputs after the input's stem
                ins = []
                for rec, path, _ in batch:
                    ext = os.path.splitext(path)[1]
                    dst = os.path.join(tmp, rec["_key"] + ext)
                    shutil.copyfile(path, dst)
                    ins.append(dst)
                outdir = os.path.join(tmp, "out")
                os.makedirs(outdir)
                target = TEXT if kind == "writer" else CSV if kind == "calc" else "pdf"
                soffice(ins, target, outdir, profile, 60 + 15 * len(ins))
                for rec, _, out in batch:
                    key = rec["_key"]
                    made = sorted(n for n in os.listdir(outdir)
                                  if n == key + ".txt" or n.startswith(key + "-") or n == key + ".csv"
                                  or n == key + ".pdf")
                    text = None
                    if kind == "impress" and made:
                        p = subprocess.run(["pdftotext", "-enc", "UTF-8",
                                            os.path.join(outdir, made[0]), "-"],
                                           capture_output=True, timeout=120)
                        text = p.stdout.decode("utf-8", "replace") if p.returncode == 0 else None
                    elif made:
                        # a sheet's CSV can run to gigabytes of empty fields (a used range of
                        # a million rows): read each to a cap, and drop the empty fields
                        parts = []
                        for n in made:
                            with open(os.path.join(outdir, n), encoding="utf-8",
                                      errors="replace") as f:
                                parts.append(re.sub(r",{2,}", ",", f.read(READ_CAP)))
                        text = "\n".join(parts)
                    # an empty marker file says LibreOffice gave nothing (not tried again)
                    with open(out + ("" if text is not None else ".none"), "w",
                              encoding="utf-8") as f:
                        f.write(text or "")
    for rec in recs:
        out = os.path.join(store, rec["_key"] + ".txt")
        if os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                texts[rec["path"]] = f.read()
        else:
            texts[rec["path"]] = None
    return texts


def calc_text(text: str) -> str:
    """A CSV export's cells as words: the separators and quotes are not text."""
    return text.replace('","', " ").replace('"', " ").replace(",", " ")


def measure(rec: dict, cache: str, quire: str, lo: str) -> dict:
    path = os.path.join(cache, rec["path"])
    rc, out, err, _ = score.convert(quire, path, "md", 120)
    md = out.decode("utf-8", "replace") if rc == 0 else ""
    q = score.tokens(score.strip_markup(score.strip_md(md)))
    ref = calc_text(lo) if rec["type"] in CALC else lo
    e = score.tokens(ref)
    tp = sum((q & e).values())
    return dict(rec, rc=rc, tp=tp, nq=sum(q.values()), ne=sum(e.values()))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("--quire", required=True)
    ap.add_argument("--types", default="docx,rtf,pptx,pptm,potx,potm,xlsx,xlsm,xls,xlsb,ods")
    ap.add_argument("--split", choices=("all", "dev", "holdout"), default="all")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--worst", type=int, default=25)
    ap.add_argument("--min-words", type=int, default=20)
    ap.add_argument("--json")
    args = ap.parse_args()
    if not shutil.which("soffice") or not shutil.which("pdftotext"):
        print("agree: needs soffice and pdftotext", file=sys.stderr)
        return 2
    types = set(args.types.split(","))
    recs = []
    with open(os.path.join(args.cache, "manifest.jsonl"), encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec["type"] not in types or rec["expected"] or rec["verdict"] != "valid":
                continue
            if args.split != "all" and score.held_out(rec) != (args.split == "holdout"):
                continue
            recs.append(rec)
    profile = tempfile.mkdtemp(prefix="quire-agree-lo-")
    try:
        texts = export(recs, args.cache, profile)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    recs = [r for r in recs if texts.get(r["path"]) is not None]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        rows = list(ex.map(lambda r: measure(r, args.cache, args.quire, texts[r["path"]]), recs))
    for key in ("type", "source"):
        agg = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
        for r in rows:
            a = agg[r[key]]
            a[0] += 1
            a[1] += r["rc"] == 0
            a[2] += r["tp"]
            a[3] += r["nq"]
            a[4] += r["ne"]
        print(f"\n{key:8} files converted  recall precision")
        for k, (n, ok, tp, nq, ne) in sorted(agg.items()):
            rec = tp / ne if ne else 1.0
            pre = tp / nq if nq else 1.0
            print(f"{k:8} {n:5} {ok:9} {rec:7.3f} {pre:9.3f}")
    low = sorted((r for r in rows if r["ne"] >= args.min_words),
                 key=lambda r: r["tp"] / r["ne"])
    print(f"\nlowest recall (of {len(low)} documents with {args.min_words}+ LibreOffice words):")
    for r in low[:args.worst]:
        print(f"  {r['tp'] / r['ne']:.3f} {r['tp'] / r['nq'] if r['nq'] else 0:.3f} "
              f"{r['ne']:6} {r['type']:5} {r['path']}  [{r['_key']}]")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
