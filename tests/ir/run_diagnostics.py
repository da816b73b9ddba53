#!/usr/bin/env python3
"""Every parser and verifier error has a test here.

Each file in invalid/ is split at `// -----`; every chunk must fail, and the chunk says how with a
comment `// expect-error@+N: TEXT` (or @-N, or @0 for its own line): the error must be reported at
that line, with TEXT somewhere in the message. `openpjrt opt` must exit 1 and never crash.

A file goes through one `openpjrt opt --split-input-file` process (each chunk is parsed and
verified on its own, diagnostics keep the file's line numbers); a chunk with no diagnostic in its
lines from that process (it crashed or stopped early) is run in a process of its own.
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


def diagnostics(stderr):
    diags = [DIAG.match(l) for l in stderr.splitlines()]
    return [(int(d.group(2)), d.group(4)) for d in diags if d]


def run_chunk_alone(opt, f, start, lines):
    chunk_file = pathlib.Path(f"/tmp/openpjrt_diag_{f.stem}_{start}.mlir")
    # Keep line numbers: pad with empty lines up to the chunk's first line.
    chunk_file.write_text("\n" * (start - 1) + "\n".join(lines))
    r = subprocess.run([opt, "opt", str(chunk_file)], capture_output=True, text=True)
    chunk_file.unlink()
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opt", required=True)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    passed = failed = 0
    for f in sorted(pathlib.Path(args.dir).glob("*.mlir")):
        cases = []  # (start, lines, expected line, expected text)
        for start, lines in chunks(f.read_text()):
            expects = []
            for j, line in enumerate(lines):
                m = EXPECT.search(line)
                if m:
                    expects.append((start + j + int(m.group(1)), m.group(2)))
            if expects:
                cases.append((start, lines) + expects[0])
        whole = subprocess.run([args.opt, "opt", "--split-input-file", str(f)], capture_output=True, text=True)
        batched = whole.returncode == 1
        diags = diagnostics(whole.stderr)
        for start, lines, line, text in cases:
            if batched and any(start <= l < start + len(lines) for l, _ in diags):
                rc, got = 1, diags
            else:  # no error of its own (the file's process crashed or stopped early): alone
                r = run_chunk_alone(args.opt, f, start, lines)
                rc, got = r.returncode, diagnostics(r.stderr)
            if rc == 1 and any(l == line and text in msg for l, msg in got):
                passed += 1
            else:
                failed += 1
                own = [f"{f.name}:{l}: {msg}" for l, msg in got if start <= l < start + len(lines)]
                print(f"FAIL {f.name}:{line}: expected '{text}' at line {line}; exit {rc}, got:\n  "
                      + ("\n  ".join(own) or "(no error in this chunk)"))
        if not batched:
            failed += 1
            print(f"FAIL {f.name}: `opt --split-input-file` exited {whole.returncode} (expected 1):\n"
                  f"{whole.stderr[-2000:]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
