"""Writes generated PDFs with known structure and their truth.

usage: gen.py OUTDIR [--count N] [--seed S] [--producers chromium,libreoffice,reportlab]

For every document OUTDIR holds NAME.pdf and NAME.json (the content blocks, the running header,
the footer text of every page, the producer's choices and the /Rotate applied). Content is new
for every seed; the default seed is time-based, so a run is never the same twice unless asked.
"""

import argparse
import json
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import content  # noqa: E402
import produce  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--producers", default="chromium,libreoffice,reportlab")
    ap.add_argument("--rotated-share", type=float, default=0.15)
    # Every page of every document turned by this much after the random draws, so a run with
    # it and one without (same seed, --rotated-share 0) hold the same content, upright and
    # turned: rotation's own cost, document by document.
    ap.add_argument("--force-rotate", type=int, choices=[0, 90, 180, 270], default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    producers = args.producers.split(",")
    os.makedirs(args.outdir, exist_ok=True)
    master = random.Random(seed)
    print(f"gen: seed {seed}, {args.count} documents", file=sys.stderr)

    chromium_jobs, docx_jobs, done = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.count):
            rng = random.Random(master.getrandbits(64))
            producer = producers[i % len(producers)]
            name = f"{producer}-{seed}-{i:03d}"
            doc = content.document(rng, target_pages=rng.choice([1, 2, 3, 4]))
            pdf = os.path.join(args.outdir, name + ".pdf")
            if producer == "chromium":
                markup, style = produce.chromium_html(doc, rng)
                chromium_jobs.append((markup, pdf, doc, rng))
            elif producer == "libreoffice":
                docx_path = os.path.join(tmp, name + ".docx")
                style = produce.libreoffice_docx(doc, rng, docx_path)
                docx_jobs.append(docx_path)
            else:
                style = produce.reportlab_pdf(doc, rng, pdf)
            if producer != "reportlab":
                doc["margin_line"] = None  # only reportlab draws the margin line
            rotate = rng.choice([90, 180, 270]) if rng.random() < args.rotated_share else 0
            if args.force_rotate is not None:
                rotate = args.force_rotate
            done.append((name, pdf, doc, style, rotate))
        if chromium_jobs:
            produce.chromium_batch(chromium_jobs)
        produce.libreoffice_batch(docx_jobs, args.outdir)

    import pymupdf as fitz  # page count, /Rotate
    written = 0
    for name, pdf, doc, style, rotate in done:
        if not os.path.exists(pdf):
            print(f"gen: {name} was not produced", file=sys.stderr)
            continue
        with fitz.open(pdf) as f:
            pages = f.page_count
            if rotate:
                for p in f:
                    p.set_rotation(rotate)
                # A full save, so the rotation is written whatever the file's structure.
                f.save(pdf + ".tmp")
        if rotate:
            os.replace(pdf + ".tmp", pdf)
        truth = {
            "name": name,
            "seed": seed,
            "style": style,
            "rotate": rotate,
            "pages": pages,
            "blocks": doc["blocks"],
            "header": doc["header"],
            "footers": [content.footer_text(doc, p, pages) for p in range(1, pages + 1)],
            "footer_style": doc["footer_style"],
            "margin_line": doc.get("margin_line"),
        }
        with open(os.path.join(args.outdir, name + ".json"), "w") as out:
            json.dump(truth, out, indent=1)
        written += 1
    print(f"gen: wrote {written} PDFs to {args.outdir}", file=sys.stderr)
    return 0 if written == len(done) else 1


if __name__ == "__main__":
    sys.exit(main())
