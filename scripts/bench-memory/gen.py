#!/usr/bin/env python3
"""Writes large generated inputs for the memory bench (bench.sh): about SIZE_MB each (default
100) of plain text in three shapes (long paragraphs, short lines, one line), a CSV file and a
Markdown file. Deterministic.

    python3 gen.py OUT [SIZE_MB]
"""
import random
import sys
from pathlib import Path

out = Path(sys.argv[1] if len(sys.argv) > 1 else "bench-memory")
out.mkdir(parents=True, exist_ok=True)
rng = random.Random(7)
words = ("the committee reviewed annual budget proposals and agreed that funding for public libraries "
 "should increase next year while road maintenance remains at current levels several members asked "
 "for a detailed report on energy costs before the final vote in March * _ # 1. <b> &amp; ~~ [x](y)").split()
target = int(float(sys.argv[2]) if len(sys.argv) > 2 else 100) * 1024 * 1024
def w(n): return " ".join(rng.choice(words) for _ in range(n))
with open(out / "long-paras.txt", "w") as f:
    n = 0
    while n < target:
        p = w(rng.randint(50, 400)) + "\n\n"; f.write(p); n += len(p)
with open(out / "short-lines.txt", "w") as f:
    n = 0
    while n < target:
        p = w(rng.randint(2, 12)) + ("\n\n" if rng.random() < 0.1 else "\n"); f.write(p); n += len(p)
with open(out / "one-line.txt", "w") as f:
    n = 0
    while n < target:
        p = w(1000) + " "; f.write(p); n += len(p)
    f.write("\n")
with open(out / "big.csv", "w") as f:
    f.write("id,name,amount,date,comment\n"); n = 0; i = 0
    while n < target:
        i += 1
        p = f'{i},{rng.choice(words)} {rng.choice(words)},{rng.randint(0,99999)/100},2024-{rng.randint(1,12):02}-{rng.randint(1,28):02},"{w(rng.randint(1,8))}"\n'
        f.write(p); n += len(p)
with open(out / "big.md", "w") as f:
    n = 0; i = 0
    while n < target:
        i += 1
        r = rng.random()
        if r < 0.1: p = f"## Section {i} {w(3)}\n\n"
        elif r < 0.3: p = "".join(f"- {w(rng.randint(3,10))} **{w(2)}** item\n" for _ in range(rng.randint(2,6))) + "\n"
        elif r < 0.35: p = "| a | b | c |\n|---|---|---|\n" + "".join(f"| {w(2)} | {rng.randint(0,999)} | {w(1)} |\n" for _ in range(rng.randint(2,20))) + "\n"
        else: p = w(rng.randint(20, 150)).replace(" * ", " ").replace(" _ ", " ") + f" with *emphasis {w(2)}* and `code` [link](http://x.y/{i}).\n\n"
        f.write(p); n += len(p)
