#!/usr/bin/env bash
# Issue 16's single-machine figures, in one run, with the quire binary given (default: the
# debug build):
#   - small-job throughput with Redis and local folders beside Redis and an S3 bucket, the
#     two servers started together from the same binary and measured in alternation (ROUNDS
#     rounds of N jobs each: local, S3, local, S3, ...): N jobs of a 2 KB Markdown file
#     submitted by 8 client threads, timed from the first submission to the last completion.
#     The S3 server is moto_server (PyPI) or s3s-fs (crates.io, `--s3 s3s-fs`, found on PATH
#     or in $S3S_FS). Printed with it: the S3 server's CPU seconds over the S3 runs' elapsed
#     time (near 1.0 would mean the server was the bottleneck: both are single processes
#     here, moto one Python interpreter), and the S3 requests per job by method, from the
#     server's request log (moto only; s3s-fs logs no requests);
#   - peak RSS (VmHWM) of the `quire serve` process while 8 clients upload 100 MB each with
#     STORAGE_URL set (no workers, so only the upload path is measured).
# Needs Redis at 127.0.0.1:6379, moto_server (scripts/setup.sh --test) or s3s-fs, and python3
# with requests.
#
# --size B sets the Markdown file's size (default about 2 KB; past 65536 it goes through the
# bucket instead of travelling with the job in Redis).
#
#   scripts/measure/storage-s3.sh [--jobs N] [--rounds R] [--size B] [--s3 moto|s3s-fs] [--quire PATH] [--no-rss]
set -euo pipefail
cd "$(dirname "$0")/../.."
jobs=200
rounds=3
size=2000
s3kind=moto
rss=1
quire="${CARGO_TARGET_DIR:-target}/debug/quire"
while (( $# )); do
  case "$1" in
    --jobs) jobs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --s3) s3kind=$2; shift 2 ;;
    --quire) quire=$2; shift 2 ;;
    --no-rss) rss=0; shift ;;
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

s3_port=$(free_port)
export AWS_ACCESS_KEY_ID=measure AWS_SECRET_ACCESS_KEY=measure-secret AWS_REGION=us-east-1
case "$s3kind" in
  moto)
    moto_server -H 127.0.0.1 -p "$s3_port" >"$work/s3.log" 2>&1 &
    ;;
  s3s-fs)
    mkdir -p "$work/s3s/quire-measure"
    "${S3S_FS:-s3s-fs}" --host 127.0.0.1 --port "$s3_port" --access-key "$AWS_ACCESS_KEY_ID" \
      --secret-key "$AWS_SECRET_ACCESS_KEY" "$work/s3s" >"$work/s3.log" 2>&1 &
    ;;
  *) echo "storage-s3: --s3 moto or s3s-fs" >&2; exit 2 ;;
esac
s3_pid=$!
pids+=("$s3_pid")
for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$s3_port/" && break; sleep 0.1; done
if [[ $s3kind == moto ]]; then
  curl -sf -X PUT "http://127.0.0.1:$s3_port/quire-measure" -o /dev/null
fi

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
  python3 - "$1" "$jobs" "$size" <<'PY'
import concurrent.futures, sys, time, requests
base, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
doc = ("# Title\n\n" + "A line of a small document.\n" * (size // 28)).encode()
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

echo "== small jobs ($rounds x $jobs x $size B Markdown, 8 clients, WORKERS=2, Redis; S3: $s3kind)"
s3env=(STORAGE_URL=s3://quire-measure/tp S3_ENDPOINT="http://127.0.0.1:$s3_port" S3_FORCE_PATH_STYLE=true)
start local 2; local_port=$port; local_pid=$server
start s3 2 "${s3env[@]}"; s3_port_q=$port; s3_quire=$server
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# CPU ticks of a process and its children (the long-lived conversion children report theirs
# to the parent only when they exit).
cpu_tree() {
  local total; total=$(cpu "$1")
  for c in $(ps -o pid= --ppid "$1"); do total=$(( total + $(cpu "$c" 2>/dev/null || echo 0) )); done
  echo "$total"
}
hz=$(getconf CLK_TCK)
s3_cpu=0; s3_time=0; local_sum=0; s3_sum=0; s3_jobs=0; local_quire_cpu=0; s3_quire_cpu=0
requests_before=$(wc -l <"$work/s3.log")
for r in $(seq "$rounds"); do
  q0=$(cpu_tree "$local_pid")
  out=$(throughput "http://127.0.0.1:$local_port"); echo "round $r local: $out"
  local_quire_cpu=$(( local_quire_cpu + $(cpu_tree "$local_pid") - q0 ))
  local_sum=$(awk -v a="$local_sum" -v b="${out##*: }" 'BEGIN { print a + b }')
  before=$(cpu "$s3_pid"); t0=$(date +%s.%N); q0=$(cpu_tree "$s3_quire")
  out=$(throughput "http://127.0.0.1:$s3_port_q"); echo "round $r S3:    $out"
  s3_quire_cpu=$(( s3_quire_cpu + $(cpu_tree "$s3_quire") - q0 ))
  s3_time=$(awk -v a="$s3_time" -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { print a + t1 - t0 }')
  s3_cpu=$(( s3_cpu + $(cpu "$s3_pid") - before ))
  s3_sum=$(awk -v a="$s3_sum" -v b="${out##*: }" 'BEGIN { print a + b }')
  s3_jobs=$(( s3_jobs + jobs ))
done
awk -v l="$local_sum" -v s="$s3_sum" -v n="$rounds" 'BEGIN {
  printf "mean: local %.1f jobs/s, S3 %.1f jobs/s, S3/local %.2f\n", l / n, s / n, s / l }'
awk -v c="$s3_cpu" -v hz="$hz" -v t="$s3_time" -v name="$s3kind" 'BEGIN {
  printf "%s CPU during the S3 runs: %.2f s over %.2f s elapsed (%.0f%% of one core)\n", name, c / hz, t, 100 * c / hz / t }'
awk -v l="$local_quire_cpu" -v q="$s3_quire_cpu" -v c="$s3_cpu" -v hz="$hz" -v n="$s3_jobs" -v name="$s3kind" 'BEGIN {
  printf "CPU per job: quire %.1f ms with local folders; quire %.1f ms + %s %.1f ms with S3\n", 1000 * l / hz / n, 1000 * q / hz / n, name, 1000 * c / hz / n }'
if [[ $s3kind == moto ]]; then
  # moto logs one line per request: "127.0.0.1 - - [date] \"PUT /bucket/key HTTP/1.1\" 200 -".
  tail -n +"$((requests_before + 1))" "$work/s3.log" | grep -ao '"[A-Z]* /quire-measure/tp[^ ]*' |
    awk -v n="$s3_jobs" '{ m[substr($1, 2)]++ } END {
      printf "S3 requests per job:"; for (k in m) printf " %s %.2f", k, m[k] / n; printf "\n" }'
fi
kill "$local_pid" "$s3_quire"; wait "$local_pid" "$s3_quire" 2>/dev/null || true

[[ $rss == 1 ]] || exit 0
echo "== peak RSS of the API process, 8 concurrent 100 MB uploads to S3"
head -c 104857600 /dev/zero | tr '\0' 'a' >"$work/big.txt"
start rss 0 STORAGE_URL=s3://quire-measure/rss S3_ENDPOINT="http://127.0.0.1:$s3_port" S3_FORCE_PATH_STYLE=true
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
if [[ $s3kind == moto ]]; then
  objects=$(curl -s "http://127.0.0.1:$s3_port/quire-measure?list-type=2&prefix=rss/" | grep -o '<Key>' | wc -l)
  echo "objects stored: $objects"
fi
