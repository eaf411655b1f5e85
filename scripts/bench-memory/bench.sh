#!/usr/bin/env bash
# Peak memory and time of converting large text-like files (issue 13), quire beside peers in
# one run, interleaved file by file.
#
#   scripts/bench-memory/bench.sh [RUNS]        (default 1 run per file and tool)
#
# Inputs come from gen.py (about SIZE_MB each, default 100): plain text as long paragraphs,
# short lines and one line; a CSV file; a Markdown file. Each tool converts to Markdown into
# a file; peak RSS (`/usr/bin/time -f %M`) and wall time are printed per file and tool, with
# the peak as a multiple of the input size. With QUIRE_BEFORE set, that binary's output must
# be byte-identical to the current one's (checked on every file).
#
# Environment: QUIRE_BIN (default ${CARGO_TARGET_DIR:-target}/release/quire), QUIRE_BEFORE (an
# older quire to run beside it), MARKITDOWN (a markitdown executable; default: none), PANDOC
# (default: pandoc if installed), PEER_FILES (the inputs the peers run on, default all: a slow
# peer on a 100 MB CSV takes minutes), OUT (work folder, default /tmp/quire-memory-bench),
# SIZE_MB.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${1:-1}"
quire="${QUIRE_BIN:-${CARGO_TARGET_DIR:-$root/target}/release/quire}"
out="${OUT:-/tmp/quire-memory-bench}"
size="${SIZE_MB:-100}"
pandoc="${PANDOC:-$(command -v pandoc || true)}"
mkdir -p "$out"
[ -f "$out/big.md" ] || python3 "$here/gen.py" "$out" "$size"

# run NAME INPUT CMD...: CMD's stdout goes to $out/NAME.out; prints peak RSS and time.
run() {
  local name="$1" input="$2"; shift 2
  local in_bytes; in_bytes=$(stat -c %s "$input")
  /usr/bin/time -f "%M %e" -o "$out/time" "$@" > "$out/$name.out" 2>>"$out/stderr.log" || {
    echo "  $name failed (see $out/stderr.log)"; return; }
  read -r kb secs < "$out/time"
  printf '  %-14s peak %6.0f MB  %5.2fx input  %6.2f s\n' "$name" "$((kb / 1024))" \
    "$(echo "$kb * 1024 / $in_bytes" | bc -l)" "$secs"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
  for f in long-paras.txt short-lines.txt one-line.txt big.csv big.md; do
    input="$out/$f"
    echo "$f ($(( $(stat -c %s "$input") >> 20 )) MB), run $i"
    run quire "$input" "$quire" convert "$input"
    if [ -n "${QUIRE_BEFORE:-}" ]; then
      run quire-before "$input" "$QUIRE_BEFORE" convert "$input"
      cmp -s "$out/quire.out" "$out/quire-before.out" && echo "  output identical" ||
        echo "  OUTPUT DIFFERS from QUIRE_BEFORE"
    fi
    case " ${PEER_FILES:-$f} " in *" $f "*) ;; *) continue ;; esac
    [ -n "${MARKITDOWN:-}" ] && run markitdown "$input" "$MARKITDOWN" "$input"
    if [ -n "$pandoc" ]; then
      case "$f" in
        *.txt|*.md) run pandoc "$input" "$pandoc" -f markdown -t gfm "$input" ;;
      esac
    fi
  done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
