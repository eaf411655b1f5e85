#!/usr/bin/env python3
"""What chunking adds to a conversion as a client sees it (issue 15's speed acceptance, at the
level of a job and of a CLI process; `host/examples/bench_chunks.rs` measures it in-process).

    python3 scripts/bench-chunks/jobs.py [QUIRE] [--corpus DIR] [--rounds 7] [--cli-rounds 7]
                                         [--poll SECONDS] [--csv FILE] [--no-cli]

QUIRE is the quire executable (default: the release build under $CARGO_TARGET_DIR or target/);
the corpus defaults to ../shared/corpus. Standard library only; nothing is downloaded.

1. Service: starts its own `quire serve` on 127.0.0.1 (a free port, the embedded store and its
   folders in a temporary directory, default settings otherwise, so WORKERS is the CPU count),
   and stops it at the end. A first pass sends every corpus file (`bad/` and `groundtruth/`
   left out) as an `md` job, one at a time: it warms the server and its conversion children and
   picks the documents exactly as bench_chunks does: the job completed, its metadata counts 10
   or more pages/slides/sheets/sections or the file has 100 KB or more, and it is no image
   (`frames`). A warm-up `chunks` job per document follows. Then ROUNDS rounds, one job at a
   time (concurrency 1): every document as `output_format=md` and as `output_format=chunks`,
   back to back, which goes first alternating by round and document. A job's time is the
   client's wall clock from the start of `POST /api/v1/jobs` until it reads the completed
   state on the job's event stream (`GET /api/v1/jobs/{id}/events`, pushed by the server, so
   no poll interval is added; `--poll S` polls `GET /api/v1/jobs/{id}` every S seconds
   instead). Also kept per job: the server's `completed_at - created_at` (millisecond
   timestamps), the job's `metadata.duration_ms` (inside the conversion child) and the time to
   download the result (reported apart: not part of "upload to completed").
2. CLI: `quire convert FILE --format md` against `--format chunks` on the same documents, each
   a whole process (start-up included) writing to /dev/null, interleaved the same way
   (`--rounds 0 --cli-rounds N`: the first pass picks the documents, then the CLI alone).

Reported per document: median md time, median chunks time, (chunks - md) / md; and over the
documents the median of those ratios and the total (sum of chunks medians / sum of md medians
- 1). The machine's 1-minute load average is printed at the start and the end of each phase:
the figures are meant as ratios of interleaved runs, not as absolute times.
"""
import argparse
import csv
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

root = Path(__file__).resolve().parents[2]
FORMATS = ("md", "chunks")


def parse_args():
    target = Path(os.environ.get("CARGO_TARGET_DIR", root / "target"))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("quire", nargs="?", default=str(target / "release" / "quire"))
    p.add_argument("--corpus", default=str(root.parent / "shared" / "corpus"))
    p.add_argument("--rounds", type=int, default=7,
                   help="timed service rounds (default 7; 0: the first pass only, for --cli)")
    p.add_argument("--cli-rounds", type=int, default=7, help="timed CLI rounds (default 7)")
    p.add_argument("--poll", type=float, default=0.0,
                   help="poll the job every S seconds instead of reading its event stream")
    p.add_argument("--csv", help="write every timed job and process to this CSV")
    p.add_argument("--no-cli", action="store_true")
    return p.parse_args()


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def candidates(corpus: Path):
    files = []
    for d in sorted(corpus.iterdir()):
        if d.is_dir() and d.name not in ("groundtruth", "bad"):
            files.extend(f for f in d.iterdir() if f.is_file())
    return sorted(files)


class Server:
    """`quire serve` on loopback with its state in a temporary directory."""

    def __init__(self, quire: str):
        self.dir = Path(tempfile.mkdtemp(prefix="quire-chunk-bench-"))
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(self.port),
               "DATA_DIR": str(self.dir / "data"), "UPLOAD_DIR": str(self.dir / "uploads"),
               "OUTPUT_DIR": str(self.dir / "outputs"), "LOG_LEVEL": "warn",
               "OMP_THREAD_LIMIT": os.environ.get("OMP_THREAD_LIMIT", "1")}
        env.pop("REDIS_URL", None)
        env.pop("QUIRE_CONFIG", None)
        self.log = open(self.dir / "server.log", "wb")
        # The working directory holds no config.toml: built-in defaults and the variables above.
        self.proc = subprocess.Popen([quire, "serve"], cwd=self.dir, env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(300):
            if self.proc.poll() is not None:
                break
            try:
                if self.request("GET", "/api/v1/health")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        sys.exit(f"the server did not start; its log is {self.dir / 'server.log'}")

    def request(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            return r.status, r.read()
        finally:
            c.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def job(self, path: Path, fmt: str, poll: float) -> dict:
        """Runs one job; returns its times (seconds) and its final state."""
        data = path.read_bytes()
        boundary = uuid.uuid4().hex
        body = b"".join([
            f'--{boundary}\r\nContent-Disposition: form-data; name="output_format"\r\n\r\n'
            f"{fmt}\r\n".encode(),
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="{path.name}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode(),
            data, f"\r\n--{boundary}--\r\n".encode()])
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        t0 = time.perf_counter()
        status, answer = self.request("POST", "/api/v1/jobs", body, headers)
        if status != 202:
            return {"status": f"http {status}", "client_s": None}
        job_id = json.loads(answer)["id"]
        state = self.wait_sse(job_id) if poll <= 0 else self.wait_poll(job_id, poll)
        t1 = time.perf_counter()
        out = {"status": state["status"], "client_s": t1 - t0, "state": state}
        if state["status"] == "completed":
            created = datetime.fromisoformat(state["created_at"].replace("Z", "+00:00"))
            done = datetime.fromisoformat(state["completed_at"].replace("Z", "+00:00"))
            out["server_s"] = (done - created).total_seconds()
            out["child_ms"] = (state.get("metadata") or {}).get("duration_ms")
            t2 = time.perf_counter()
            code, result = self.request("GET", f"/api/v1/jobs/{job_id}/result")
            out["download_s"] = time.perf_counter() - t2
            out["out_bytes"] = len(result) if code == 200 else None
        self.request("DELETE", f"/api/v1/jobs/{job_id}")
        return out

    def wait_poll(self, job_id: str, every: float) -> dict:
        while True:
            status, body = self.request("GET", f"/api/v1/jobs/{job_id}")
            state = json.loads(body)
            if state["status"] in ("completed", "failed"):
                return state
            time.sleep(every)

    def wait_sse(self, job_id: str) -> dict:
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        try:
            c.request("GET", f"/api/v1/jobs/{job_id}/events",
                      headers={"Accept": "text/event-stream"})
            r = c.getresponse()
            if r.status != 200:
                sys.exit(f"event stream of job {job_id}: HTTP {r.status}")
            while True:
                line = r.readline()
                if not line:
                    sys.exit(f"event stream of job {job_id} ended without a final state")
                if line.startswith(b"data:"):
                    state = json.loads(line[5:])
                    if state["status"] in ("completed", "failed"):
                        return state
        finally:
            c.close()


def report(title: str, docs, times, key: str):
    """times[(file, fmt)] = list of seconds under `key`; prints the per-document table."""
    print(f"\n{title}")
    print(f"{'document':58} {'md ms':>9} {'chunks ms':>10} {'ratio':>7}")
    ratios, sum_md, sum_ch = [], 0.0, 0.0
    for d in docs:
        md = statistics.median(times[(d, "md")][key])
        ch = statistics.median(times[(d, "chunks")][key])
        sum_md += md
        sum_ch += ch
        ratios.append((ch - md) / md)
        print(f"{d:58} {md * 1e3:9.2f} {ch * 1e3:10.2f} {ratios[-1]:+7.3f}")
    ratios.sort()
    over = sum(r >= 0.10 for r in ratios)
    print(f"{len(docs)} documents: median ratio {statistics.median(ratios):+.3f}, total "
          f"{sum_ch / sum_md - 1:+.3f} ({sum_ch * 1e3:.1f} ms / {sum_md * 1e3:.1f} ms), "
          f"min {ratios[0]:+.3f}, max {ratios[-1]:+.3f}, {over} at or over +0.10")


def service(args, corpus: Path, rows: list):
    srv = Server(args.quire)
    try:
        print(f"service: quire serve on 127.0.0.1:{srv.port}, load {load()}; first pass (md, "
              "every corpus file) picks the documents", flush=True)
        docs = []
        for f in candidates(corpus):
            r = srv.job(f, "md", args.poll)
            if r["status"] != "completed":
                continue
            meta = r["state"].get("metadata") or {}
            parts = next((meta[k] for k in ("pages", "slides", "sheets", "sections")
                          if k in meta), None)
            if "frames" in meta or parts is None:
                continue
            if parts >= 10 or f.stat().st_size >= 100 * 1024:
                docs.append(f)
        names = [str(f.relative_to(corpus)) for f in docs]
        print(f"{len(docs)} documents of >= 10 parts or >= 100 KB", flush=True)
        if args.rounds == 0:
            return docs, names
        for f in docs:  # warm-up: the chunks path and its tokenizer in the children
            srv.job(f, "chunks", args.poll)
        times = {(n, fmt): {"client_s": [], "server_s": [], "download_s": []}
                 for n in names for fmt in FORMATS}
        for rnd in range(args.rounds):
            for i, (f, n) in enumerate(zip(docs, names)):
                order = FORMATS if (rnd + i) % 2 == 0 else FORMATS[::-1]
                for fmt in order:
                    r = srv.job(f, fmt, args.poll)
                    if r["status"] != "completed":
                        sys.exit(f"{n} as {fmt}: {r['status']}")
                    for k in ("client_s", "server_s", "download_s"):
                        times[(n, fmt)][k].append(r[k])
                    rows.append(["service", rnd, n, fmt, f"{r['client_s']:.6f}",
                                 f"{r['server_s']:.3f}", r["child_ms"],
                                 f"{r['download_s']:.6f}", r["out_bytes"]])
            print(f"  round {rnd + 1}/{args.rounds} done, load {load()}", flush=True)
    finally:
        srv.stop()
    how = f"polled every {args.poll} s" if args.poll > 0 else "read on the job's event stream"
    report(f"Service, concurrency 1, {args.rounds} rounds: upload to completed ({how}), "
           "client wall clock, medians", names, times, "client_s")
    report("Service: completed_at - created_at (server timestamps, ms resolution), medians",
           names, times, "server_s")
    dl = {fmt: statistics.median(sum((times[(n, fmt)]["download_s"] for n in names), []))
          for fmt in FORMATS}
    print(f"result download (not included above), median over all jobs: md "
          f"{dl['md'] * 1e3:.2f} ms, chunks {dl['chunks'] * 1e3:.2f} ms")
    return docs, names


def cli(args, docs, names, rows: list):
    def once(f: Path, fmt: str) -> float:
        t = time.perf_counter()
        subprocess.run([args.quire, "convert", str(f), "--format", fmt], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - t

    print(f"\nCLI: quire convert FILE --format md|chunks > /dev/null, load {load()}", flush=True)
    for f in docs:  # page cache
        for fmt in FORMATS:
            once(f, fmt)
    times = {(n, fmt): {"wall_s": []} for n in names for fmt in FORMATS}
    for rnd in range(args.cli_rounds):
        for i, (f, n) in enumerate(zip(docs, names)):
            order = FORMATS if (rnd + i) % 2 == 0 else FORMATS[::-1]
            for fmt in order:
                t = once(f, fmt)
                times[(n, fmt)]["wall_s"].append(t)
                rows.append(["cli", rnd, n, fmt, f"{t:.6f}", "", "", "", ""])
        print(f"  round {rnd + 1}/{args.cli_rounds} done, load {load()}", flush=True)
    report(f"CLI, {args.cli_rounds} rounds: whole process wall clock, medians", names, times,
           "wall_s")


def main():
    args = parse_args()
    corpus = Path(args.corpus).resolve()
    if not Path(args.quire).is_file():
        sys.exit(f"no quire executable at {args.quire} (build it: cargo build --release -p quire)")
    rows = []
    docs, names = service(args, corpus, rows)
    if not args.no_cli:
        cli(args, docs, names, rows)
    print(f"\nload at the end {load()}")
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["level", "round", "file", "format", "seconds", "server_s", "child_ms",
                        "download_s", "out_bytes"])
            w.writerows(rows)


if __name__ == "__main__":
    main()
