#!/usr/bin/env python3
"""The ABI layout of our PJRT C API 0.114 headers, pinned.

Compiles the headers with clang, reads the layout clang gives every struct (size and the offset
of each member) and every Name_STRUCT_SIZE constant, and compares them with
abi_layout_0_114.txt, so that no edit of a header can move a field silently. The sizes named in
shared/PJRT_FACTS.md (what 0.114 clients send) are checked on their own as well.

    abi_layout.py --check            # compare (the ctest)
    abi_layout.py --write            # regenerate the table after a deliberate ABI change
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADERS = ["pjrt_c_api.h", "pjrt_c_api_ffi_extension.h", "pjrt_c_api_layouts_extension.h",
           "pjrt_c_api_memory_descriptions_extension.h", "pjrt_c_api_shardings_extension.h",
           "pjrt_c_api_cross_host_transfers_extension.h", "openpjrt_execute_order_extension.h"]
TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "abi_layout_0_114.txt")

# Published 0.114 sizes clients depend on (LP64), from shared/PJRT_FACTS.md.
KNOWN = {
    "PJRT_Client_Create_Args_STRUCT_SIZE": 88, "PJRT_Client_Compile_Args_STRUCT_SIZE": 56,
    "PJRT_Program_STRUCT_SIZE": 48, "PJRT_ExecuteOptions_STRUCT_SIZE": 144,
    "PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE": 80, "PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE": 120,
    "PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE": 56, "PJRT_NamedValue_STRUCT_SIZE": 56,
    "PJRT_Plugin_Attributes_Args_STRUCT_SIZE": 32, "PJRT_Api_Version_STRUCT_SIZE": 24,
    "PJRT_Extension_Base_STRUCT_SIZE": 24, "PJRT_Buffer_MemoryLayout_STRUCT_SIZE": 76,
    "PJRT_FFI_Type_Register_Args_STRUCT_SIZE": 48, "PJRT_FFI_UserData_Add_Args_STRUCT_SIZE": 40,
    "PJRT_FFI_Register_Handler_Args_STRUCT_SIZE": 52, "sizeof(PJRT_Api)": 1144,
}


def layout(cxx):
    inc = "".join('#include "include/openpjrt/c/%s"\n' % h for h in HEADERS)
    names = []
    for h in HEADERS:
        text = open(os.path.join(ROOT, "include", "openpjrt", "c", h)).read()
        names += [n for n in re.findall(r"PJRT_DEFINE_STRUCT_TRAITS\(\s*(\w+)\s*,", text) if n != "name"]
        names += re.findall(r"enum \{ (\w+)_STRUCT_SIZE =", text)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "layout.cc")
        with open(src, "w") as f:
            f.write(inc + "#include <cstdio>\nint main() {\n")
            f.write('  std::printf("sizeof(PJRT_Api) %zu\\n", sizeof(PJRT_Api));\n')
            for n in names:
                f.write('  std::printf("%s_STRUCT_SIZE %%zu\\n", (size_t)%s_STRUCT_SIZE);\n' % (n, n))
            f.write("}\n")
        dump = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-I", ROOT, "-Xclang", "-fdump-record-layouts", src],
                              capture_output=True, text=True, check=True).stdout
        exe = os.path.join(tmp, "layout")
        subprocess.run([cxx, "-std=c++17", "-I", ROOT, src, "-o", exe], check=True)
        sizes = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.splitlines()
    lines, seen = [], set()
    for block in dump.split("*** Dumping AST Record Layout")[1:]:
        rows = [r for r in block.splitlines() if "|" in r]
        if not rows:
            continue
        head = re.match(r"\s*0 \| (?:struct|union) (\w+)", rows[0])
        if not head or not head.group(1).startswith(("PJRT_", "XLA_FFI_")) or head.group(1) in seen:
            continue
        seen.add(head.group(1))
        fields = []
        for r in rows[1:]:
            m = re.match(r"\s*(\d+) \|   (?! )(.*?)\s*$", r)  # members of this record only
            if m:
                fields.append("%s@%s" % (m.group(2).split()[-1], m.group(1)))
        total = re.search(r"sizeof=(\d+)", block).group(1)
        lines.append("%s sizeof=%s %s" % (head.group(1), total, " ".join(fields)))
    return sorted(lines) + sorted(sizes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", default="clang++")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    now = layout(args.cxx)
    values = dict(l.rsplit(" ", 1) for l in now if "_STRUCT_SIZE " in l or l.startswith("sizeof("))
    bad = ["%s is %s, 0.114 has %d" % (k, values.get(k), v) for k, v in KNOWN.items() if values.get(k) != str(v)]
    if args.write:
        with open(TABLE, "w") as f:
            f.write("# PJRT C API 0.114 as our headers lay it out on LP64 (tests/capi/abi_layout.py --write)\n")
            f.write("\n".join(now) + "\n")
    else:
        want = [l for l in open(TABLE).read().splitlines() if l and not l.startswith("#")]
        missing = sorted(set(want) - set(now))
        extra = sorted(set(now) - set(want))
        for l in missing:
            print("expected: " + l)
        for l in extra:
            print("now:      " + l)
        if missing or extra:
            bad.append("%d layout lines differ from %s" % (len(missing) + len(extra), os.path.basename(TABLE)))
    for b in bad:
        print("ABI: " + b)
    print("%d passed, %d failed" % (len(now), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
