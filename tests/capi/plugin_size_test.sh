#!/usr/bin/env bash
# The plugin, stripped, stays under a byte budget (issue 42: < 10 MB, what a wheel carries).
# Registered for optimised x86-64 builds without sanitizers, where the budget was measured.
# Usage: plugin_size_test.sh PLUGIN MAX_BYTES
set -euo pipefail
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
strip -o "$tmp" "$1"
size=$(stat -c %s "$tmp")
echo "stripped plugin: $size bytes (budget $2)"
if [ "$size" -ge "$2" ]; then
  echo "over budget by $((size - $2)) bytes: nm -S --size-sort -C on the plugin shows the largest functions"
  exit 1
fi
