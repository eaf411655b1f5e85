#!/usr/bin/env python3
"""Writes a 3-page A4 "scan" at 200 dpi with known text, for the OCR benchmark.

OUT/scan.pdf (three JPEG pages, 200 dpi, slight skew, paper noise), OUT/page-N.png (the same
page images, for engines that take images) and OUT/page-N.txt (the text on each page).
Deterministic: the same text, skew and noise on every run. Needs Pillow (the bench venv has it).

    python3 gen_scan.py OUT [SEED]

SEED (default 13, the bench's pages) draws other text, skew and noise: a development set that
the bench pages are not, for tuning without tuning on the figures reported.
"""
import random
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFilter, ImageFont

DPI = 200
W, H = 1654, 2339  # A4 at 200 dpi
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"

WORDS = (
    "the committee reviewed annual budget proposals and agreed that funding for public libraries "
    "should increase next year while road maintenance remains at current levels several members "
    "asked for a detailed report on energy costs before the final vote in March the mayor thanked "
    "volunteers who organised the spring festival and noted that attendance doubled compared with "
    "last season a new bicycle lane along the river will open in June after two years of planning "
    "residents may submit written comments until the end of the month at the town hall or online "
    "meeting minutes are published within ten working days and archived for public inspection"
).split()


def page_text(rng: random.Random, n_words: int) -> str:
    words = []
    for i in range(n_words):
        w = rng.choice(WORDS)
        if i % 17 == 0:
            w = w.capitalize()
        if i % 23 == 22:
            w += str(rng.randint(10, 2099))
        words.append(w)
    return " ".join(words) + "."


def wrap(draw: ImageDraw.ImageDraw, font, text: str, width: int) -> list[str]:
    lines, cur = [], ""
    for word in text.split():
        trial = f"{cur} {word}".strip()
        if draw.textlength(trial, font=font) <= width:
            cur = trial
        else:
            lines.append(cur)
            cur = word
    if cur:
        lines.append(cur)
    return lines


def render(text: str, seed: int) -> Image.Image:
    rng = random.Random(seed)
    img = Image.new("L", (W, H), 255)
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, 30)  # about 11 pt at 200 dpi
    y = 160
    for para in text.split("\n\n"):
        for line in wrap(draw, font, para, W - 300):
            draw.text((150, y), line, fill=25, font=font)
            y += 44
        y += 30
    img = img.rotate(rng.uniform(-0.8, 0.8), resample=Image.BICUBIC, fillcolor=255)
    # Uneven paper and speckle.
    px = img.load()
    for yy in range(0, H, 1):
        shade = int(12 * yy / H)
        for xx in range(0, W, 7):
            v = px[xx, yy] - shade - rng.randint(0, 18)
            px[xx, yy] = max(0, v)
    return img.filter(ImageFilter.GaussianBlur(0.6))


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "ocr-bench")
    out.mkdir(parents=True, exist_ok=True)
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 13
    rng = random.Random(seed)
    pages = []
    for n in range(1, 4):
        paras = [page_text(rng, rng.randint(60, 90)) for _ in range(5)]
        text = "\n\n".join(paras)
        img = render(text, n if seed == 13 else seed * 10 + n)
        img.save(out / f"page-{n}.png")
        (out / f"page-{n}.txt").write_text(text + "\n")
        pages.append(img.convert("RGB"))
    pages[0].save(out / "scan.pdf", save_all=True, append_images=pages[1:], resolution=DPI,
                  quality=80)
    print(out / "scan.pdf")


if __name__ == "__main__":
    main()
