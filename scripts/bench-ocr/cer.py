#!/usr/bin/env python3
"""Character error rate of OCR output against reference text: edit distance / reference length,
whitespace folded to single spaces and Markdown escapes removed (so reading order counts).
Prints CER and the word counts.

    python3 cer.py REFERENCE.txt HYPOTHESIS.txt
"""
import re
import sys

import numpy as np


def fold(text: str) -> str:
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)  # quire's page markers
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!<>|])", r"\1", text)
    return " ".join(text.split())


def distance(a: str, b: str) -> int:
    """Levenshtein distance, one row at a time; insertions through a running minimum."""
    bb = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    idx = np.arange(len(b) + 1, dtype=np.int64)
    prev = idx.copy()
    aa = np.frombuffer(a.encode("utf-32-le"), dtype=np.uint32)
    for i in range(1, len(aa) + 1):
        cur = np.empty_like(prev)
        cur[0] = i
        sub = prev[:-1] + (bb != aa[i - 1])
        cur[1:] = np.minimum(sub, prev[1:] + 1)
        cur = np.minimum.accumulate(cur - idx) + idx
        prev = cur
    return int(prev[-1])


def main() -> None:
    ref = fold(open(sys.argv[1], encoding="utf-8").read())
    hyp = fold(open(sys.argv[2], encoding="utf-8").read())
    d = distance(ref, hyp)
    print(f"cer={d / max(1, len(ref)):.4f} ref_words={len(ref.split())} hyp_words={len(hyp.split())}")


if __name__ == "__main__":
    main()
