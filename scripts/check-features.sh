#!/usr/bin/env bash
# Every plugin subset builds and runs: `--no-default-features` alone, then each plugin feature
# alone; `quire plugins --json` must list exactly the plugin of that feature.
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A expect=(
  [text]=text [markdown]=markdown [html]=html [xml]=xml [json]=json [rtf]=rtf
  [docx]=docx [pptx]=pptx [spreadsheet]=spreadsheet [pdf]=pdf [image]=image
  [ocr-tesseract]=provider_one [ocr-ppocr]=provider_two [ocr-vision]=provider_three
)
bin=${CARGO_TARGET_DIR:-target}/debug/quire
listed() {
  "$bin" plugins --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
ids = [c["id"] for c in d["converters"]] + [p["id"] for p in d["ocr_providers"] if p["built_in"]]
print(" ".join(sorted(ids)))'
}
fail=0
cargo build --locked -q -p quire --no-default-features
got=$(listed)
if [[ -n "$got" ]]; then echo "no features: expected an empty registry, got: $got"; fail=1; else echo "no features: empty registry"; fi
for feature in "${!expect[@]}"; do
  cargo build --locked -q -p quire --no-default-features --features "$feature"
  got=$(listed)
  if [[ "$got" == "${expect[$feature]}" ]]; then
    echo "$feature: registry lists exactly $got"
  else
    echo "$feature: expected ${expect[$feature]}, registry lists: ${got:-nothing}"; fail=1
  fi
done
exit $fail
