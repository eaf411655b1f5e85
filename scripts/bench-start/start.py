#!/usr/bin/env python3
"""Start-up of `quire convert` on a tiny text file beside `pdftotext` on a one-page PDF
(issue 13's acceptance: no slower, median of 20 each), interleaved run by run so machine load
hits both alike. Also reports whether converting the text file loaded any OCR library.

    python3 scripts/bench-start/start.py QUIRE [RUNS] [OUT]

QUIRE is the quire executable (a release build for the figures); RUNS defaults to 20; OUT is a
work folder (default /tmp/quire-start-bench). Both commands write to /dev/null; each time is
the wall time of one whole process, measured the same way for both.
"""
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

here = Path(__file__).resolve().parent
quire = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
out = Path(sys.argv[3] if len(sys.argv) > 3 else "/tmp/quire-start-bench")
out.mkdir(parents=True, exist_ok=True)
tiny = out / "tiny.txt"
tiny.write_text("tiny text file\n")
pdf = out / "one-page.pdf"
if not pdf.exists():
    subprocess.run([sys.executable, str(here.parent / "bench-ocr" / "one_page_pdf.py"), str(pdf)],
                   check=True, stdout=subprocess.DEVNULL)

commands = {
    "quire convert tiny.txt": [quire, "convert", str(tiny)],
    "pdftotext one-page.pdf": ["pdftotext", str(pdf), "-"],
}


def once(cmd: list) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


for cmd in commands.values():  # warm the page cache
    for _ in range(3):
        once(cmd)
times = {name: [] for name in commands}
for _ in range(runs):
    for name, cmd in commands.items():
        times[name].append(once(cmd))
print(f"load {os.getloadavg()[0]:.1f}; {runs} interleaved runs each, wall time of one process:")
for name, ts in times.items():
    print(f"  {name:24} median {statistics.median(ts) * 1000:6.2f} ms  "
          f"min {min(ts) * 1000:6.2f}  max {max(ts) * 1000:6.2f}")

# Which shared libraries the text conversion loaded (the dynamic loader's own trace).
trace = subprocess.run([quire, "convert", str(tiny)], env={**os.environ,
                       "LD_DEBUG": "libs"}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True).stderr
loaded = sorted({line.split("calling init: ")[1].strip() for line in trace.splitlines()
                 if "calling init: " in line})
ocr = [lib for lib in loaded if any(k in lib for k in ("tesseract", "lept", "onnx"))]
print(f"  shared libraries initialised: {len(loaded)}; OCR among them: {ocr or 'none'}")
