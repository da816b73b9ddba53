#!/usr/bin/env bash
# Reads every StableHLO portable artifact of ../shared/testdata/stablehlo-vhlo (bytecode versions
# 0-6, StableHLO 0.9.0-1.20.0) and compares it with the text module it was serialized from:
#  - the artifact converts, parses and verifies;
#  - the printed op sequence is identical to the text's;
#  - at most 2% of printed lines differ (what remains: attribute order and explicitly written
#    defaults that the text keeps and bytecode cannot carry, e.g. api_version = 1);
#  - the future-version artifact and truncated artifacts fail with a message, never a crash.
set -u
OPJ=${1:?usage: vhlo_golden_test.sh OPENPJRT_BIN DATA_DIR}
DATA=${2:?usage: vhlo_golden_test.sh OPENPJRT_BIN DATA_DIR}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0 pairs=0
for bc in "$DATA"/stablehlo_legalize_to_vhlo.*.mlir.bc; do
  txt=${bc%.bc}
  name=$(basename "$txt" .mlir)
  pairs=$((pairs + 1))
  if ! "$OPJ" opt "$bc" > "$TMP/bc.mlir" 2> "$TMP/err"; then
    echo "FAIL $name: $(head -c 400 "$TMP/err")"; fail=1; continue
  fi
  "$OPJ" opt "$txt" > "$TMP/txt.mlir" 2>&1 || { echo "FAIL $name: the text does not parse"; fail=1; continue; }
  ops() { grep -oE '(= |^ +|")(stablehlo|func|chlo)\.[a-z_]+' "$1" | grep -oE '(stablehlo|func|chlo)\.[a-z_]+'; }
  if ! diff <(ops "$TMP/txt.mlir") <(ops "$TMP/bc.mlir") > "$TMP/opdiff"; then
    echo "FAIL $name: op sequences differ"; head -20 "$TMP/opdiff"; fail=1; continue
  fi
  total=$(wc -l < "$TMP/txt.mlir")
  differ=$(diff "$TMP/txt.mlir" "$TMP/bc.mlir" | grep -c '^<')
  if [ $((differ * 100)) -gt $((total * 2)) ]; then
    echo "FAIL $name: $differ of $total printed lines differ"; diff "$TMP/txt.mlir" "$TMP/bc.mlir" | head -20; fail=1
  else
    echo "ok   $name: $((total - differ))/$total lines identical"
  fi
done
[ "$pairs" -ge 30 ] || { echo "FAIL: only $pairs golden pairs found in $DATA"; fail=1; }

# A producer newer than the reader: a clear rejection.
if "$OPJ" opt "$DATA/invalid_vhlo_future.mlir.bc" > /dev/null 2> "$TMP/err"; then
  echo "FAIL invalid_vhlo_future: accepted"; fail=1
elif ! grep -q "StableHLO_v2.0.0" "$TMP/err"; then
  echo "FAIL invalid_vhlo_future: message does not name the producer: $(cat "$TMP/err")"; fail=1
else
  echo "ok   invalid_vhlo_future: $(cat "$TMP/err")"
fi

# Truncations and a flipped byte: exit 1 with a message naming a byte offset, never a crash.
src="$DATA/stablehlo_legalize_to_vhlo.1_20_0.mlir.bc"
size=$(wc -c < "$src")
for n in 5 12 100 1000 4000 9000 15000 $((size - 1)); do
  head -c "$n" "$src" > "$TMP/cut.bc"
  "$OPJ" opt "$TMP/cut.bc" > /dev/null 2> "$TMP/err"
  rc=$?
  if [ $rc -ne 1 ] || ! grep -q "offset\|error" "$TMP/err"; then
    echo "FAIL truncated at $n: rc=$rc $(head -c 300 "$TMP/err")"; fail=1
  fi
done
echo "ok   truncations rejected"
exit $fail
