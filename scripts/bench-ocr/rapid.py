#!/usr/bin/env python3
"""The rapidocr peer: reads page images with rapidocr (onnxruntime, PP-OCR models, library
defaults) and prints their text, one page after the other. Timed as a whole process by bench.sh.

    python3 rapid.py PAGE.png...
"""
import sys

from rapidocr import RapidOCR


def main() -> None:
    engine = RapidOCR()
    for path in sys.argv[1:]:
        result = engine(path)
        print("\n".join(result.txts or ()))
        print()


if __name__ == "__main__":
    main()
