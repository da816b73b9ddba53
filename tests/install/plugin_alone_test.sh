#!/usr/bin/env bash
# The CPU plugin is one self-contained file: a copy of it alone in an empty folder needs nothing
# but the C and C++ runtimes of the system, and runs a program there (through the openpjrt CLI).
# Usage: plugin_alone_test.sh PLUGIN OPENPJRT PROGRAM.mlir
set -euo pipefail
plugin=$1 cli=$2 program=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp "$plugin" "$tmp/"
copy=$tmp/$(basename "$plugin")
needed=$(readelf -d "$copy" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in $needed; do
  case $lib in
    libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) ;;
    *) echo "FAIL: the plugin needs $lib, which is not part of the system's C/C++ runtime"; exit 1 ;;
  esac
done
if readelf -d "$copy" | grep -q 'R\(UN\)\?PATH'; then
  echo "FAIL: the plugin still carries a run path: $(readelf -d "$copy" | grep 'R\(UN\)\?PATH')"; exit 1
fi
# Anything beside the original must not be what makes it load: run from the empty folder with a
# clean library path.
out=$(cd "$tmp" && env -u LD_LIBRARY_PATH "$cli" run --plugin "$copy" "$program")
echo "$out" | head -3
echo "needed: $(echo $needed); size $(stat -c %s "$copy") bytes; stripped: $(strip -o "$tmp/s.so" "$copy" && stat -c %s "$tmp/s.so") bytes"
