#!/usr/bin/env python3
"""Every parser and verifier error has a test here.

Each file in invalid/ is split at `// -----`; every chunk must fail, and the chunk says how with a
comment `// expect-error@+N: TEXT` (or @-N, or @0 for its own line): the error must be reported at
that line, with TEXT somewhere in the message. `openpjrt opt` must exit 1 and never crash.
"""
import argparse
import pathlib
import re
import subprocess
import sys

EXPECT = re.compile(r"//\s*expect-error@([+-]?\d+):\s*(.*\S)")
DIAG = re.compile(r"^(.*?):(\d+):(\d+): error: (.*)$")


def chunks(text):
    out, start, lines = [], 1, text.split("\n")
    cur = []
    for i, line in enumerate(lines, 1):
        if "// -----" in line:
            out.append((start, cur))
            cur, start = [], i + 1
        else:
            cur.append(line)
    out.append((start, cur))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opt", required=True)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    passed = failed = 0
    for f in sorted(pathlib.Path(args.dir).glob("*.mlir")):
        for start, lines in chunks(f.read_text()):
            expects = []
            for j, line in enumerate(lines):
                m = EXPECT.search(line)
                if m:
                    expects.append((start + j + int(m.group(1)), m.group(2)))
            if not expects:
                continue
            chunk_file = pathlib.Path(f"/tmp/openpjrt_diag_{f.stem}_{start}.mlir")
            # Keep line numbers: pad with empty lines up to the chunk's first line.
            chunk_file.write_text("\n" * (start - 1) + "\n".join(lines))
            r = subprocess.run([args.opt, "opt", str(chunk_file)], capture_output=True, text=True)
            chunk_file.unlink()
            diags = [DIAG.match(l) for l in r.stderr.splitlines()]
            diags = [(int(d.group(2)), d.group(4)) for d in diags if d]
            line, text = expects[0]
            ok = r.returncode == 1 and any(l == line and text in msg for l, msg in diags)
            where = f"{f.name}:{line}"
            if ok:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {where}: expected '{text}' at line {line}; exit {r.returncode}, got:\n"
                      f"  {r.stderr.strip()}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
