#!/bin/sh
# Our CLI with the Debian libraries it was built against beside it, plus the CUDA wheels' lib dirs.
d=$(cd "$(dirname "$0")" && pwd)
NV=$(python3 -c 'import nvidia, os; print(" ".join(nvidia.__path__))' 2>/dev/null)
extra=""
for p in $NV; do for l in $(find "$p" -maxdepth 3 -type d -name lib 2>/dev/null); do extra="$extra:$l"; done; done
LD_LIBRARY_PATH="$d$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/openpjrt" "$@"
