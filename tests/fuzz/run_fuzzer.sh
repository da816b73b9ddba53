#!/usr/bin/env bash
# Runs a libFuzzer binary over the .mlir corpus, bounded. Usage: run_fuzzer.sh BIN LIMIT
#   LIMIT = N      fuzz for N seconds with a random seed (exploration, run by hand)
#   LIMIT = runs:N exactly N inputs from seed 1: deterministic, so CI sees what a developer saw
set -euo pipefail
bin=$1
limit=${2:-60}
if [[ $limit == runs:* ]]; then
  bound=(-runs="${limit#runs:}" -seed=1)
else
  bound=(-max_total_time="$limit")
fi
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
max_len=8192
dict=(-dict="$here/mlir.dict")
if [[ $(basename "$bin") == bytecode_fuzzer ]]; then
  # Seed corpus: the StableHLO portable artifacts of every version (bytecode 0-6).
  mkdir -p "$work/seed"
  cp "$here/../../../shared/testdata/stablehlo-vhlo/"*.bc "$work/seed/"
  echo "seed corpus: $(ls "$work/seed" | wc -l) inputs"
  max_len=32768
  dict=()
elif [[ $(basename "$bin") == hlo_fuzzer ]]; then
  python3 "$here/hlo_seeds.py" "$work/seed"
  dict=()
else
# Seed corpus: every split chunk of our own .mlir files (front-end corpus and e2e programs).
python3 - "$here/.." "$work/seed" <<'PY'
import os, sys, pathlib
src, dst = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
dst.mkdir(parents=True)
n = 0
for f in sorted(list((src / "ir").rglob("*.mlir")) + list((src / "e2e").rglob("*.mlir"))):
    for chunk in f.read_text().split("// -----"):
        if len(chunk) < 8000:
            (dst / f"seed{n}.mlir").write_text(chunk)
            n += 1
print(f"seed corpus: {n} inputs")
PY
fi
mkdir -p "$work/corpus"
if ! "$bin" "$work/corpus" "$work/seed" "${dict[@]}" "${bound[@]}" \
    -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" > "$work/log" 2>&1; then
  # The report's start says what went wrong; the end holds the input that did it.
  grep -m1 -B2 -A45 -E "ERROR: |runtime error|printed module|print is not|no longer verifies|deadly signal" "$work/log" || true
  tail -n 12 "$work/log"
  mkdir -p fuzz-findings && cp "$work"/crash-* "$work"/timeout-* "$work"/oom-* fuzz-findings/ 2>/dev/null || true
  echo "fuzzer: FINDING (inputs copied to fuzz-findings/)"
  exit 1
fi
tail -n 8 "$work/log"
echo "fuzzer: no findings ($limit)"
