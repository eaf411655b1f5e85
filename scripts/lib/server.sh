# Shared by the scripts that start a quire server of their own on loopback.
# Source it: . "$root/scripts/lib/server.sh"

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_until_up URL PID LOG [TENTHS]: waits (default 20 s) until URL answers. Returns 1, with
# LOG's tail on standard error, when the process PID has exited or the time is up.
wait_until_up() {
  local url="$1" pid="$2" log="$3" tries="${4:-200}"
  for _ in $(seq "$tries"); do
    curl -s -o /dev/null "$url" && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "the server exited; its log ends:" >&2
      tail -20 "$log" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "the server did not answer $url within $((tries / 10)) s; its log ends:" >&2
  tail -20 "$log" >&2
  return 1
}

# stop_server PID: stops a server this script started (never anything else) and reaps it.
stop_server() {
  [[ -n "${1:-}" ]] || return 0
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
