#!/usr/bin/env bash
# Regenerates the test files of the per-job options (issue 14) in host/tests/fixtures/options/:
# - encrypted.pdf: three pages (AES-256, PyMuPDF) and encrypted.docx (ECMA-376 agile
#   encryption, msoffcrypto-tool, what Office 2010+ writes), both with PASSWORD below;
# - pages.pdf: three pages, one sentence each;
# - layered.pdf: one page whose picture shows words its (invisible) text layer does not hold,
#   so OCR of the page and its text layer read different text (force_ocr).
# The tests only read the committed files; this script is how they were made.
# Python packages go into a virtualenv under ~/.cache/quire on first use (PyPI).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/host/tests/fixtures/options"
venv="${QUIRE_CACHE_DIR:-$HOME/.cache/quire}/options-venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "msoffcrypto-tool==6.1.0" "python-docx==1.2.0" "pymupdf==2.0"
fi
mkdir -p "$out"
PASSWORD="Quire-opt-7391-secret" OUT="$out" "$venv/bin/python" - <<'PY'
import io, os
import docx, pymupdf as fitz
from msoffcrypto.format.ooxml import OOXMLFile
password, out = os.environ["PASSWORD"], os.environ["OUT"]

# A three-page PDF, one sentence a page, AES-256 with a user password.
pdf = fitz.open()
for n, word in enumerate(["alpha", "bravo", "charlie"], start=1):
    page = pdf.new_page(width=595, height=842)
    page.insert_text((72, 100), f"Secret page {n} says {word}.", fontsize=14)
pdf.save(os.path.join(out, "encrypted.pdf"), encryption=fitz.PDF_ENCRYPT_AES_256,
         user_pw=password, owner_pw=password + "-owner", garbage=4, deflate=True)

# Three plain pages.
plain_pdf = fitz.open()
for n, word in enumerate(["alpha", "bravo", "charlie"], start=1):
    page = plain_pdf.new_page(width=595, height=842)
    page.insert_text((72, 100), f"Page {n} says {word}.", fontsize=14)
plain_pdf.save(os.path.join(out, "pages.pdf"), garbage=4, deflate=True)

# A picture of text with a different, invisible text layer over it.
src = fitz.open()
page = src.new_page(width=595, height=200)
page.insert_text((40, 110), "Picture words: lighthouse harbour", fontsize=30)
pix = page.get_pixmap(dpi=200, colorspace=fitz.csGRAY)
layered = fitz.open()
page = layered.new_page(width=595, height=200)
page.insert_image(page.rect, pixmap=pix)
page.insert_text((40, 60), "Hiddenlayer quokka zeppelin marmalade", fontsize=12, render_mode=3)
layered.save(os.path.join(out, "layered.pdf"), garbage=4, deflate=True)

# A DOCX with a heading and a paragraph, encrypted (agile, AES-256, SHA-512).
d = docx.Document()
d.add_heading("Encrypted report", level=1)
d.add_paragraph("The quarterly figures are confidential.")
plain = io.BytesIO()
d.save(plain)
plain.seek(0)
office = OOXMLFile(plain)
with open(os.path.join(out, "encrypted.docx"), "wb") as f:
    office.encrypt(password, f)
PY
ls -l "$out"
