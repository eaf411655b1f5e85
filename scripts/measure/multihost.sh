#!/usr/bin/env bash
# Issue 16's multi-host test: network namespaces joined by a bridge play a store host (Redis +
# moto_server as S3), an API host (`quire serve`, WORKERS=0), two worker hosts (`quire worker`)
# and a client host (the submitting client and a webhook receiver). The hosts share no folder:
# each has its own UPLOAD_DIR/OUTPUT_DIR/DATA_DIR, and nothing but Redis and the bucket in common.
# During the run every process of w1 is killed with SIGKILL at ~30 % submitted (and w1 is
# restarted 5 s later, as a supervisor would), and w2's link is cut for 10 s (--cut) at ~60 %.
# Then it waits until every job is final and prints completed/failed/lost/stuck, duplicate
# webhook deliveries, throughput and times to recover.
# Needs root (ip netns), redis-server, moto_server (scripts/setup.sh --test) and python3 with
# requests.
#
#   scripts/measure/multihost.sh [--jobs N] [--quire PATH] [--workers N] [--limit SECONDS]
#                                [--lease SECONDS] [--cut SECONDS] [--hook-delay MS] [--keep-logs DIR]
# (--cut: how long w2 is cut off, 10 s by default; longer than --lease, its jobs run again
# elsewhere and the attempt fencing must keep its late results out. --hook-delay: the webhook
# receiver waits that long before answering, so that the kill finds deliveries in flight.)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
jobs=500
workers=2
limit=1800
lease=30
cut=10
hook_delay=0
keep=""
quire="${CARGO_TARGET_DIR:-target}/debug/quire"
while (( $# )); do
  case "$1" in
    --jobs) jobs=$2; shift 2 ;;
    --quire) quire=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --lease) lease=$2; shift 2 ;;
    --cut) cut=$2; shift 2 ;;
    --hook-delay) hook_delay=$2; shift 2 ;;
    --keep-logs) keep=$2; shift 2 ;;
    *) echo "multihost: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
quire=$(realpath "$quire")
[[ -x $quire ]] || { echo "multihost: no quire binary at $quire" >&2; exit 2; }
(( EUID == 0 )) || { echo "multihost: needs root (ip netns)" >&2; exit 2; }

tag="qm$$"                      # namespaces qm<pid>-<host>, qm<pid>-sw (the switch)
net="10.231.$(( $$ % 200 + 20 ))"
hosts=(store api w1 w2 client)
declare -A ip=([store]=$net.1 [api]=$net.2 [w1]=$net.3 [w2]=$net.4 [client]=$net.5)
work=$(mktemp -d)
mkdir -p "$work/logs"

cleanup() {
  set +e
  # Every process inside our namespaces is ours (started below); kill them, then the namespaces.
  for h in "${hosts[@]}"; do
    local pids
    pids=$(ip netns pids "$tag-$h" 2>/dev/null)
    [[ -n $pids ]] && kill -9 $pids 2>/dev/null
  done
  sleep 0.3
  for h in "${hosts[@]}" sw; do ip netns del "$tag-$h" 2>/dev/null; done
  [[ -n $keep ]] && { mkdir -p "$keep"; cp -r "$work/logs/." "$keep/"; }
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- network: a switch namespace holding a bridge, one veth pair per host ---------------------
ip netns add "$tag-sw"
ip -n "$tag-sw" link add br0 type bridge
ip -n "$tag-sw" link set br0 up
for h in "${hosts[@]}"; do
  ns="$tag-$h"
  ip netns add "$ns"
  ip -n "$tag-sw" link add "p-$h" type veth peer name eth0 netns "$ns"
  ip -n "$tag-sw" link set "p-$h" master br0 up
  ip -n "$ns" addr add "${ip[$h]}/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  mkdir -p "$work/$h"
done
in_ns() { local h=$1; shift; ip netns exec "$tag-$h" "$@"; }
wait_http() { # $1 host, $2 url
  for _ in $(seq 600); do in_ns "$1" curl -s -o /dev/null --max-time 2 "$2" && return 0; sleep 0.1; done
  echo "multihost: no answer from $2" >&2; return 1
}
in_ns client python3 -c "import socket,sys; s=socket.socket(); s.settimeout(3); r=s.connect_ex((sys.argv[1], 9)); sys.exit(0 if r in (0, 111) else 1)" "${ip[store]}" || { echo "multihost: the bridge does not forward" >&2; exit 1; }

# --- store host: Redis and moto -----------------------------------------------------------------
in_ns store redis-server --bind "${ip[store]}" --port 6379 --protected-mode no --save '' \
  --appendonly yes --appendfsync always --dir "$work/store" >"$work/logs/redis.log" 2>&1 &
in_ns store moto_server -H "${ip[store]}" -p 5000 >"$work/logs/moto.log" 2>&1 &
for _ in $(seq 100); do in_ns store redis-cli -h "${ip[store]}" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
wait_http store "http://${ip[store]}:5000/"
in_ns store curl -sf -X PUT "http://${ip[store]}:5000/quire-mh" -o /dev/null

# --- quire hosts --------------------------------------------------------------------------------
# Writes $work/<host>.env: the environment of that host's quire process.
for h in api w1 w2; do
  cat >"$work/$h.env" <<EOF
HOST=${ip[$h]}
PORT=8000
REDIS_URL=redis://${ip[store]}:6379
REDIS_KEY_PREFIX=quire-mh:
STORAGE_URL=s3://quire-mh/run
S3_ENDPOINT=http://${ip[store]}:5000
S3_FORCE_PATH_STYLE=true
AWS_ACCESS_KEY_ID=multihost
AWS_SECRET_ACCESS_KEY=multihost
AWS_REGION=us-east-1
UPLOAD_DIR=$work/$h/up
OUTPUT_DIR=$work/$h/out
DATA_DIR=$work/$h/data
LOG_FORMAT=json
LOG_LEVEL=info
MAX_FILE_SIZE=104857600
JOB_LEASE_SECONDS=$lease
WEBHOOK_BACKOFF_SECONDS=1
WEBHOOK_MAX_RETRIES=5
EOF
done
echo "WORKERS=0" >>"$work/api.env"
echo "WORKERS=$workers" >>"$work/w1.env"
echo "WORKERS=$workers" >>"$work/w2.env"
# start_host <host> <log name>: `quire serve` on api, `quire worker` on the others.
cat >"$work/start.sh" <<EOF
#!/usr/bin/env bash
h=\$1; log=\$2
cmd=worker; [[ \$h == api ]] && cmd=serve
cd "$root"
setsid ip netns exec "$tag-\$h" env \$(cat "$work/\$h.env") "$quire" \$cmd >"$work/logs/\$log" 2>&1 </dev/null &
EOF
# The fault hooks the client calls at 30 % and 60 % submitted.
cat >"$work/kill_w1.sh" <<EOF
#!/usr/bin/env bash
date +%s.%N >"$work/t_kill"          # the kill ordered
kill -9 \$(ip netns pids "$tag-w1")
# The kill's time is when w1's processes are gone (a process can still send until then).
while [[ -n \$(ip netns pids "$tag-w1") ]]; do sleep 0.005; done
date +%s.%N >"$work/t_killed"
sleep 5
date +%s.%N >"$work/t_restart"
bash "$work/start.sh" w1 w1-restarted.log
EOF
cat >"$work/cut_w2.sh" <<EOF
#!/usr/bin/env bash
ip -n "$tag-sw" link set p-w2 down   # the cable pulled at the switch: w2 keeps its address and routes
date +%s.%N >"$work/t_cut"
sleep $cut
ip -n "$tag-sw" link set p-w2 up
date +%s.%N >"$work/t_restore"
EOF
bash "$work/start.sh" api api.log
bash "$work/start.sh" w1 w1.log
bash "$work/start.sh" w2 w2.log
wait_http api "http://${ip[api]}:8000/api/v1/health"
for _ in $(seq 100); do
  in_ns client curl -sf -o /dev/null "http://${ip[api]}:8000/api/v1/ready" && break
  sleep 0.2
done

# --- inputs -------------------------------------------------------------------------------------
python3 - "$work/inputs" "$jobs" <<'PY'
import os, random, sys
out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(out, exist_ok=True)
rng = random.Random(16)
words = "the quick brown fox jumps over a lazy dog while seven wizards quietly box".split()
def text(size):
    parts, total = [], 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(12)) + ".\n"
        parts.append(line); total += len(line)
    return "".join(parts)[:size]
def pdf(lines):
    # A one-page PDF with Helvetica text, offsets computed for the xref table.
    content = "BT /F1 11 Tf 56 780 Td 14 TL " + " ".join(
        "(" + l.replace("\\", "").replace("(", "").replace(")", "") + ") '" for l in lines) + " ET"
    objs = ["<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
            "/Resources << /Font << /F1 5 0 R >> >> >>",
            f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    b = bytearray(b"%PDF-1.4\n")
    offs = []
    for i, o in enumerate(objs, 1):
        offs.append(len(b)); b += f"{i} 0 obj\n{o}\nendobj\n".encode()
    x = len(b)
    b += f"xref\n0 {len(objs)+1}\n0000000000 65535 f \n".encode()
    for o in offs: b += f"{o:010d} 00000 n \n".encode()
    b += f"trailer\n<< /Size {len(objs)+1} /Root 1 0 R >>\nstartxref\n{x}\n%%EOF\n".encode()
    return bytes(b)
# A fixed plan scaled to n: large texts (10-100 MB) and PDFs spread over the run, the rest
# small Markdown and text from 1 KB to 64 KB.
large = [10, 25, 50, 100] if n >= 100 else [10, 100]
large_at = {int(n * f): mb for f, mb in zip([0.1, 0.35, 0.55, 0.8], large)}
pdf_at = set(range(3, n, max(1, n // 8)))
plan = []
for i in range(n):
    if i in large_at:
        name, data = f"big{i}.txt", None; size = large_at[i] * 1000 * 1000
        with open(os.path.join(out, name), "w") as f:
            chunk = text(1 << 20)
            left = size
            while left > 0:
                f.write(chunk[:left]); left -= len(chunk)
    elif i in pdf_at:
        name, data = f"doc{i}.pdf", pdf([text(70).strip() for _ in range(rng.randint(5, 40))])
    elif i % 2:
        name, data = f"doc{i}.md", ("# Document %d\n\n" % i + text(rng.choice([1000, 2000, 8000, 64000]))).encode()
    else:
        name, data = f"doc{i}.txt", text(rng.choice([1024, 4096, 30000])).encode()
    if data is not None:
        with open(os.path.join(out, name), "wb") as f: f.write(data)
    plan.append(name)
with open(os.path.join(out, "plan"), "w") as f: f.write("\n".join(plan) + "\n")
PY

# --- webhook receiver on the client host ---------------------------------------------------------
in_ns client python3 - "${ip[client]}" "$work/deliveries.jsonl" "$hook_delay" >"$work/logs/receiver.log" 2>&1 <<'PY' &
import http.server, json, sys, threading, time
host, path, delay = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1000
lock = threading.Lock()
out = open(path, "a", buffering=1)
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        t = time.time()
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            p = json.loads(body)
        except Exception:
            p = {}
        answered = True
        if delay:
            time.sleep(delay)
        try:
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")
            self.wfile.flush()
        except Exception:
            answered = False
        rec = {"t": t, "job_id": p.get("job_id"), "status": p.get("status"), "peer": self.client_address[0],
               "webhook_id": self.headers.get("webhook-id"), "answered": answered, "answer": 200}
        with lock:
            out.write(json.dumps(rec) + "\n")
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer.daemon_threads = True
http.server.ThreadingHTTPServer((host, 9000), H).serve_forever()
PY
for _ in $(seq 100); do in_ns client curl -s -o /dev/null "http://${ip[client]}:9000/" && break; sleep 0.1; done

# --- client: submit, fault hooks, wait, report ----------------------------------------------------
echo "== multi-host run: $jobs jobs; webhook receiver answers after ${hook_delay} ms; API ${ip[api]} (WORKERS=0, which is one worker per CPU: $(nproc)), workers w1 ${ip[w1]} and w2 ${ip[w2]} ($workers each), store ${ip[store]}; JOB_LEASE_SECONDS=$lease"
in_ns client python3 - "http://${ip[api]}:8000" "$work" "http://${ip[client]}:9000/hook" "$limit" \
  "${ip[api]}" "${ip[w1]}" "${ip[w2]}" "${ip[store]}" <<'PY'
import collections, concurrent.futures, datetime, glob, json, os, subprocess, sys, threading, time
import requests
base, work, hook, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
peer_name = {sys.argv[5]: "api", sys.argv[6]: "w1", sys.argv[7]: "w2"}
redis_host = sys.argv[8]
inputs = os.path.join(work, "inputs")
plan = open(os.path.join(inputs, "plan")).read().split()
n = len(plan)
sizes = [os.path.getsize(os.path.join(inputs, p)) for p in plan]
ids = [None] * n
submit_errors = []
submitted = 0
lock = threading.Lock()
hooks = {}
def fire(name, frac):
    with lock:
        if name in hooks or submitted < frac * n:
            return
        hooks[name] = subprocess.Popen(["bash", os.path.join(work, name + ".sh")])
def one(i):
    global submitted
    name = plan[i]
    for attempt in range(30):
        try:
            with open(os.path.join(inputs, name), "rb") as f:
                r = requests.post(base + "/api/v1/jobs", files={"file": (name, f)},
                                  data={"output_format": "md", "webhook_url": hook}, timeout=600)
            if r.status_code in (429, 503):
                time.sleep(float(r.headers.get("Retry-After", "1"))); continue
            r.raise_for_status()
            ids[i] = r.json()["id"]
            break
        except requests.RequestException as e:
            # A connection error on POST is ambiguous (the job may exist): record it, no retry.
            submit_errors.append((name, repr(e)[:200])); return
    else:
        submit_errors.append((name, "still 429/503 after 30 tries")); return
    with lock:
        submitted += 1
    fire("kill_w1", 0.3)
    fire("cut_w2", 0.6)
t0 = time.time()
with concurrent.futures.ThreadPoolExecutor(4) as ex:
    list(ex.map(one, range(n)))
t_sub = time.time()
s = requests.Session()
final, status, last = {}, {}, {}
left = {i for i in range(n) if ids[i]}
deadline = t0 + limit
while left and time.time() < deadline:
    for i in list(left):
        try:
            r = s.get(f"{base}/api/v1/jobs/{ids[i]}", timeout=10)
        except requests.RequestException:
            continue
        if r.status_code == 404:
            status[i] = "missing"; left.discard(i); continue
        j = r.json(); status[i] = j["status"]; last[i] = j
        if j["status"] in ("completed", "failed"):
            final[i] = time.time(); left.discard(i)
    time.sleep(0.2)
# The poller sees an end late (it starts after the last submission): take each job's own
# completed_at from its record (the API host's clock; all hosts share this machine's clock).
def iso(v):
    return datetime.datetime.fromisoformat(v.replace("Z", "+00:00")).timestamp()
for i in final:
    if last[i].get("completed_at"):
        final[i] = iso(last[i]["completed_at"])
t_end = max(final.values()) if final else time.time()
for h in hooks.values():
    h.wait()
# Let the last webhook deliveries land (retries back off from 1 s).
wait_hooks = time.time() + 60
def deliveries():
    out = []
    with open(os.path.join(work, "deliveries.jsonl")) as f:
        for line in f:
            out.append(json.loads(line))
    return out
want = {ids[i] for i in final}
while time.time() < wait_hooks and not want <= {d["job_id"] for d in deliveries()}:
    time.sleep(0.5)
# Then until no delivery is scheduled or leased: a delivery whose sender died is sent again
# only when its lease (WEBHOOK_TIMEOUT + 60 s) runs out, and must be counted too.
def hooks_pending():
    try:
        out = subprocess.run(["redis-cli", "-h", redis_host, "zcard", "quire-mh:hooks"],
                             capture_output=True, text=True, timeout=5).stdout.strip()
        return int(out)
    except (ValueError, subprocess.SubprocessError):
        return -1
t_hooks_wait = time.time()
pending = hooks_pending()
while pending != 0 and time.time() < t0 + limit:
    time.sleep(1)
    pending = hooks_pending()
time.sleep(1)
dl = deliveries()
print(f"deliveries pending in Redis: {pending} (waited {time.time() - t_hooks_wait:.0f} s for leased ones)")

def ts(path):
    try: return float(open(os.path.join(work, path)).read())
    except OSError: return None
t_kill, t_killed, t_restart, t_cut, t_restore = (ts(p) for p in ("t_kill", "t_killed", "t_restart", "t_cut", "t_restore"))
def logs(name):
    out = []
    for line in open(os.path.join(work, "logs", name), errors="replace"):
        try: e = json.loads(line)
        except ValueError: continue
        f = e.get("fields", e)
        t = datetime.datetime.fromisoformat(e["timestamp"].replace("Z", "+00:00")).timestamp()
        out.append((t, f.get("message", ""), f.get("job"), e.get("level"), f))
    return out
L = {h: logs(h + ".log") for h in ("api", "w1", "w2")}
if os.path.exists(os.path.join(work, "logs", "w1-restarted.log")):
    L["w1-restarted"] = logs("w1-restarted.log")

completed = sum(1 for i in final if status[i] == "completed")
failed = [i for i in final if status[i] == "failed"]
missing = [i for i in range(n) if status.get(i) == "missing"]
stuck = [i for i in range(n) if ids[i] and i not in final and status.get(i) != "missing"]
accepted = sum(1 for x in ids if x)
print(f"submitted: {accepted}/{n} accepted ({len(submit_errors)} submission errors) in {t_sub - t0:.1f} s")
print(f"jobs: {completed} completed, {len(failed)} failed, {len(missing)} lost (record gone), "
      f"{len(stuck)} stuck (not final after {limit:.0f} s)")
for i in failed:
    print(f"  failed {plan[i]} ({sizes[i]} B): {last[i].get('error_message', '')[:160]}")
for i in stuck:
    print(f"  stuck {plan[i]} {ids[i]}: {status.get(i)}")
for name, e in submit_errors:
    print(f"  submission error {name}: {e}")

# Webhooks: a job delivered twice with a final status is a duplicate unless
# - the first delivery was not answered (the receiver records whether its 200 was written), or
# - its sender was stopped while the request was in flight: the first delivery came from w1
#   no later than w1's processes were gone (t_killed, taken after `kill -9` has finished), or
#   from w2 during its cut; and the process that sent it again logged that an earlier claim of
#   this delivery ended with nothing recorded (the store's own account, `unrecorded`).
# Everything else (including a repeat of a delivery whose answer was recorded) is a duplicate.
resent_unrecorded = {e[2]: (h, e[0]) for h, ev in L.items() for e in ev
                     if e[1].startswith("webhook sent again after its sender stopped")}
by_job = collections.defaultdict(list)
for d in dl:
    if d["status"] in ("completed", "failed"):
        by_job[d["job_id"]].append(d)
dups, explained = [], []
for jid, ds in by_job.items():
    ds.sort(key=lambda d: d["t"])
    for a, b in zip(ds, ds[1:]):
        who = peer_name.get(a["peer"], a["peer"])
        flagged = resent_unrecorded.get(jid)
        by = peer_name.get(b["peer"], b["peer"])
        if not a["answered"]:
            explained.append((jid, f"first delivery (from {who}"
                              + (f", {(a['t'] - t_kill) * 1000:+.0f} ms from the kill order" if t_kill else "")
                              + f") not answered: its sender was gone; sent again by {by}"
                              + (", flagged as unrecorded" if flagged else "")))
        elif who == "w1" and t_kill and flagged and a["t"] <= t_killed:
            explained.append((jid, f"in flight on w1 when it was killed: first delivery at "
                                   f"{(a['t'] - t_kill) * 1000:+.0f} ms from the kill order, w1 gone at "
                                   f"{(t_killed - t_kill) * 1000:+.0f} ms; sent again by {by} "
                                   f"{b['t'] - t_kill:.1f} s after the kill, flagged as unrecorded"))
        elif who == "w2" and t_cut and flagged and t_cut - 1 <= a["t"] <= t_restore + 1:
            explained.append((jid, f"in flight on w2 during its cut; sent again by {by}, flagged as unrecorded"))
        else:
            dups.append((jid, a, b, bool(flagged)))
no_hook = [ids[i] for i in final if ids[i] not in by_job]
print(f"webhooks: {len(dl)} deliveries for {len(by_job)} jobs; {len(dups)} duplicates; "
      f"{len(explained)} repeats of a delivery whose sender was stopped mid-request or not answered; "
      f"{len(no_hook)} final jobs never delivered; {len(resent_unrecorded)} resends flagged as unrecorded by the store")
for jid, a, b, flagged in dups:
    print(f"  duplicate {jid}: {a['status']} from {peer_name.get(a['peer'])} at +{a['t'] - t0:.2f} s, "
          f"{b['status']} from {peer_name.get(b['peer'])} at +{b['t'] - t0:.2f} s"
          + ("; the resend was flagged as unrecorded" if flagged else "; the first send had been recorded"))
for jid, why in explained:
    print(f"  repeat {jid}: {why}")
for jid in no_hook[:20]:
    print(f"  no webhook for {jid}")

el = t_end - t0
mb = sum(sizes[i] for i in final) / 1e6
print(f"throughput: {len(final)} jobs in {el:.1f} s (first submission to last final) = {len(final) / el:.2f} jobs/s, "
      f"{mb:.1f} MB of input = {mb / el:.2f} MB/s")
by = collections.Counter()
for h, ev in L.items():
    by[h.split("-")[0]] += sum(1 for e in ev if e[1] in ("job finished", "job failed"))
print("conversions ended per host (including superseded attempts): " + ", ".join(f"{h} {c}" for h, c in sorted(by.items())))

# A requeued job is put down to the partition when w2 logged anything about it (a job in
# flight on the killed w1 leaves no line: its process is gone).
w2_jobs = {e[2] for e in L["w2"] if e[2]}
requeued = sorted((e[0], e[2], h) for h, ev in L.items() for e in ev if e[1] == "worker lost; job requeued")
lost_failed = sorted((e[0], e[2], h) for h, ev in L.items() for e in ev if e[1].startswith("worker lost on the last"))
if t_kill:
    rs = [e for e in L.get("w1-restarted", []) if e[1] in ("job finished", "job failed")]
    first = rs[0][0] if rs else None
    print(f"kill -9 of w1 at +{t_kill - t0:.1f} s (at 30 % submitted; its processes gone "
          f"{(t_killed - t_kill) * 1000:.0f} ms after the order), restarted at +{t_restart - t0:.1f} s: "
          + (f"first job finished by the new w1 {first - t_restart:.1f} s after the restart "
             f"({first - t_kill:.1f} s after the kill)" if first else "the new w1 finished no job"))
    rq_kill = [r for r in requeued if t_kill <= r[0] and r[1] not in w2_jobs]
    if rq_kill:
        ends = []
        idx = {ids[i]: i for i in range(n) if ids[i]}
        for r in rq_kill:
            i = idx.get(r[1])
            if i is not None and i in final:
                ends.append(final[i])
        print(f"  jobs requeued by lease expiry after the kill: {len(rq_kill)} (by "
              + ", ".join(sorted({r[2] for r in rq_kill})) + f"), first at +{rq_kill[0][0] - t_kill:.1f} s, "
              f"last at +{rq_kill[-1][0] - t_kill:.1f} s after the kill"
              + (f"; the last of them final {max(ends) - t_kill:.1f} s after the kill" if ends else ""))
    else:
        print("  no job requeued by lease expiry after the kill")
    if lost_failed:
        print(f"  jobs failed by lease expiry on their last attempt: {len(lost_failed)}")
if t_cut:
    w2 = [e for e in L["w2"] if e[1] in ("job finished", "job failed") and e[0] >= t_restore]
    during = collections.Counter(h.split("-")[0] for h, ev in L.items() for e in ev
                                 if e[1] in ("job finished", "job failed") and t_cut <= e[0] <= t_restore)
    print(f"w2's link down at +{t_cut - t0:.1f} s for {t_restore - t_cut:.1f} s: conversions ended meanwhile: "
          + (", ".join(f"{h} {c}" for h, c in sorted(during.items())) or "none") + "; "
          + (f"first job finished by w2 {w2[0][0] - t_restore:.1f} s after the link came back" if w2 else "w2 finished no job after the cut"))
    warn = collections.Counter(e[1] for e in L["w2"] if e[3] in ("WARN", "ERROR") and t_cut <= e[0] <= t_restore + 30)
    if warn:
        print("  w2 warnings from the cut to 30 s after: " + "; ".join(f"{m} x{c}" for m, c in warn.most_common(6)))
    rq_cut = [r for r in requeued if r[0] >= t_cut and r[1] in w2_jobs]
    print(f"  jobs requeued by lease expiry after the cut: {len(rq_cut)}")
# Time-line: jobs final per 10 s window.
if final:
    buckets = collections.Counter(int((t - t0) // 10) for t in final.values())
    print("final per 10 s: " + " ".join(str(buckets.get(k, 0)) for k in range(max(buckets) + 1)))
bad = len(missing) + len(stuck) + len(dups) + len(submit_errors)
sys.exit(1 if bad else 0)
PY
