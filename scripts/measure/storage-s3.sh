#!/usr/bin/env bash
# Issue 16's single-machine figures, in one run, with the quire binary given (default: the
# debug build):
#   - small-job throughput with Redis and local folders, then with Redis and an S3 bucket
#     (moto_server on this machine): N jobs of a 2 KB Markdown file submitted by 8 client
#     threads, timed from the first submission to the last completion;
#   - peak RSS (VmHWM) of the `quire serve` process while 8 clients upload 100 MB each with
#     STORAGE_URL set (no workers, so only the upload path is measured).
# Needs Redis at 127.0.0.1:6379, moto_server (scripts/setup.sh --test) and python3 with requests.
#
#   scripts/measure/storage-s3.sh [--jobs N] [--quire PATH]
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs=200
quire="${CARGO_TARGET_DIR:-target}/debug/quire"
while (( $# )); do
  case "$1" in
    --jobs) jobs=$2; shift 2 ;;
    --quire) quire=$2; shift 2 ;;
    *) echo "storage-s3: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "no answer from $1" >&2; return 1; }

moto_port=$(free_port)
moto_server -H 127.0.0.1 -p "$moto_port" >"$work/moto.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$moto_port/"
curl -sf -X PUT "http://127.0.0.1:$moto_port/quire-measure" -o /dev/null
export AWS_ACCESS_KEY_ID=measure AWS_SECRET_ACCESS_KEY=measure AWS_REGION=us-east-1

# $1: label; $2: workers; rest: extra environment. Starts a server; sets $port and $server.
start() {
  local label=$1 workers=$2; shift 2
  port=$(free_port)
  mkdir -p "$work/$label"
  env HOST=127.0.0.1 PORT="$port" WORKERS="$workers" REDIS_URL=redis://127.0.0.1:6379 \
    REDIS_KEY_PREFIX="quire-measure:$label:$$:" UPLOAD_DIR="$work/$label/up" \
    OUTPUT_DIR="$work/$label/out" DATA_DIR="$work/$label/data" LOG_LEVEL=warn \
    MAX_FILE_SIZE=209715200 "$@" "$quire" serve >"$work/$label.log" 2>&1 &
  server=$!
  pids+=("$server")
  wait_http "http://127.0.0.1:$port/api/v1/health"
}

throughput() {
  python3 - "$1" "$jobs" <<'PY'
import concurrent.futures, sys, time, requests
base, n = sys.argv[1], int(sys.argv[2])
doc = ("# Title\n\n" + "A line of a small document.\n" * 70).encode()
s = requests.Session()
def one(i):
    r = s.post(base + "/api/v1/jobs", files={"file": (f"d{i}.md", doc)}, data={"output_format": "md"})
    r.raise_for_status()
    return r.json()["id"]
t0 = time.time()
with concurrent.futures.ThreadPoolExecutor(8) as ex:
    ids = list(ex.map(one, range(n)))
left = set(ids)
while left:
    for i in list(left):
        st = s.get(f"{base}/api/v1/jobs/{i}").json()["status"]
        if st in ("completed", "failed"):
            assert st == "completed", st
            left.discard(i)
    time.sleep(0.05)
el = time.time() - t0
print(f"{n} jobs in {el:.2f} s: {n/el:.1f} jobs/s")
PY
}

echo "== small jobs ($jobs x 2 KB Markdown, 8 clients, WORKERS=2, Redis)"
start local 2
printf 'local folders: '; throughput "http://127.0.0.1:$port"
kill "$server"; wait "$server" 2>/dev/null || true
start s3 2 STORAGE_URL=s3://quire-measure/tp S3_ENDPOINT="http://127.0.0.1:$moto_port" S3_FORCE_PATH_STYLE=true
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
moto_before=$(cpu "${pids[0]}")
printf 'S3 (moto):     '; throughput "http://127.0.0.1:$port"
# moto is one Python process: CPU seconds near the elapsed time mean it was the bottleneck.
ticks=$(( $(cpu "${pids[0]}") - moto_before ))
awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "moto CPU during the S3 run: %.2f s\n", t / hz }'
kill "$server"; wait "$server" 2>/dev/null || true

echo "== peak RSS of the API process, 8 concurrent 100 MB uploads to S3"
head -c 104857600 /dev/zero | tr '\0' 'a' >"$work/big.txt"
start rss 0 STORAGE_URL=s3://quire-measure/rss S3_ENDPOINT="http://127.0.0.1:$moto_port" S3_FORCE_PATH_STYLE=true
before=$(awk '/VmHWM/ {print $2}' "/proc/$server/status")
uploads=()
for i in $(seq 8); do
  curl -s -o "$work/up$i.json" -w '%{http_code}\n' -F "file=@$work/big.txt" -F output_format=md \
    "http://127.0.0.1:$port/api/v1/jobs" >"$work/code$i" &
  uploads+=($!)
done
for p in "${uploads[@]}"; do wait "$p" || true; done
codes=$(cat "$work"/code* | sort | uniq -c | tr -s ' ')
after=$(awk '/VmHWM/ {print $2}' "/proc/$server/status")
echo "HTTP answers: $codes"
echo "VmHWM before: $((before / 1024)) MiB, after the uploads: $((after / 1024)) MiB"
objects=$(curl -s "http://127.0.0.1:$moto_port/quire-measure?list-type=2&prefix=rss/" | grep -o '<Key>' | wc -l)
echo "objects stored: $objects"
