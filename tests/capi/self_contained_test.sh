#!/usr/bin/env bash
# The plugin is self-contained: copied alone with its folder's libraries to an empty directory,
# it loads and runs with an empty environment, resolves every non-runtime library inside that
# directory, and exports nothing but GetPjrtApi.
set -euo pipefail
plugin_dir=$(dirname "$1"); hello=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -a "$plugin_dir"/pjrt_c_api_cpu_plugin.so "$plugin_dir"/*.so.* "$tmp"/ 2>/dev/null || cp -a "$plugin_dir"/pjrt_c_api_cpu_plugin.so "$tmp"/
exports=$(nm -D --defined-only "$tmp/pjrt_c_api_cpu_plugin.so" | awk '{print $3}' | grep -v '^$' | sort -u)
if [ "$exports" != "GetPjrtApi" ]; then echo "unexpected exports: $exports"; exit 1; fi
outside=$(ldd "$tmp/pjrt_c_api_cpu_plugin.so" | awk '/=>/ {print $1, $3}' \
  | grep -vE '^(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libatomic)\.so|^lib[a-z]*san\.so' \
  | grep -v " $tmp/" || true)
if [ -n "$outside" ]; then echo "libraries resolved outside the plugin folder:"; echo "$outside"; exit 1; fi
env -i "$hello" "$tmp/pjrt_c_api_cpu_plugin.so"
echo "self-contained: $(ls "$tmp" | wc -l) files, plugin $(stat -c %s "$tmp/pjrt_c_api_cpu_plugin.so") bytes"
