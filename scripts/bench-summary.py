#!/usr/bin/env python3
"""Median seconds per file by type: quire beside each peer, with the speed-up (peer / quire).
Usage: bench-summary.py QUIRE_CSV PEERS_CSV"""
import csv
import statistics
import sys
from collections import defaultdict


def load(path, key_prefix=""):
    rows = defaultdict(dict)  # type -> peer -> {file: seconds}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("exit_ok") != "1":
                continue
            file = r["file"].split("corpus/")[-1]
            rows[r["type"]].setdefault(r["peer"], {})[file] = float(r["seconds"])
    return rows


quire = load(sys.argv[1])
peers = load(sys.argv[2])
print("| type | files | quire median ms | peer | peer median ms (same files) | speed-up |")
print("|---|---|---|---|---|---|")
for t in sorted(quire):
    q = quire[t].get("quire-lib", {})
    for peer, files in sorted(peers.get(t, {}).items()):
        common = sorted(set(q) & set(files))
        if not common:
            continue
        qm = statistics.median(q[f] for f in common) * 1000
        pm = statistics.median(files[f] for f in common) * 1000
        print(f"| {t} | {len(common)} | {qm:.2f} | {peer} | {pm:.1f} | {pm / qm if qm else float('inf'):.0f}x |")
