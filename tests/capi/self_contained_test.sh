#!/usr/bin/env bash
# The plugin is self-contained: copied to an empty directory, it loads and runs with an empty
# environment, resolves every non-runtime library inside that directory, and exports nothing but
# GetPjrtApi. With --alone (abseil linked statically, cmake/abseil.cmake) the plugin is copied by
# itself: one file that needs nothing but the system's C/C++ runtime and carries no run path.
# Usage: self_contained_test.sh PLUGIN HELLO_PJRT [--alone]
set -euo pipefail
plugin_dir=$(dirname "$1"); hello=$2; alone=${3:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
plugin=$tmp/pjrt_c_api_cpu_plugin.so
if [ "$alone" = --alone ]; then
  cp "$1" "$plugin"
  if readelf -d "$plugin" | grep -qE '\((RPATH|RUNPATH)\)'; then
    echo "a run path is left: $(readelf -d "$plugin" | grep -E '\((RPATH|RUNPATH)\)')"; exit 1
  fi
else
  cp -a "$plugin_dir"/pjrt_c_api_cpu_plugin.so "$plugin_dir"/*.so.* "$tmp"/ 2>/dev/null || cp -a "$1" "$plugin"
fi
# Global and weak symbols only: gold lists the thread-local variables its TLS relocations name in
# the dynamic symbol table with local binding (nm's lower-case types), which exports nothing.
exports=$(nm -D --defined-only "$plugin" | awk '$2 ~ /^[A-Z]$/ {print $3}' | grep -v '^$' | sort -u)
if [ "$exports" != "GetPjrtApi" ]; then echo "unexpected exports: $exports"; exit 1; fi
outside=$(ldd "$plugin" | awk '/=>/ {print $1, $3}' \
  | grep -vE '^(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libatomic)\.so|^lib[a-z]*san\.so' \
  | grep -v " $tmp/" || true)
if [ -n "$outside" ]; then echo "libraries resolved outside the plugin folder:"; echo "$outside"; exit 1; fi
env -i "$hello" "$plugin"
echo "self-contained: $(ls "$tmp" | wc -l) file(s), plugin $(stat -c %s "$plugin") bytes," \
     "needs: $(readelf -d "$plugin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
