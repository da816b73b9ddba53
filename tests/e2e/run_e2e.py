#!/usr/bin/env python3
"""Runs tests/e2e/*.mlir through `openpjrt run --split-input-file` (every module must pass), and
tests/e2e/failing/*.mlir (each module must fail with the text of its expect-fail comment, and
`run` must exit 1)."""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openpjrt", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--via-plugin", help="run through this PJRT plugin (openpjrt run --plugin)")
    args = ap.parse_args()
    extra = ["--plugin", args.via_plugin] if args.via_plugin else []
    root = pathlib.Path(args.dir)
    passed = failed = 0
    for f in sorted(root.glob("*.mlir")):
        r = subprocess.run([args.openpjrt, "run", *extra, "--split-input-file", str(f)],
                           capture_output=True, text=True)
        bad = [l for l in r.stdout.splitlines() if l.startswith("FAIL")]
        if r.returncode == 0 and not bad:
            passed += 1
            print(f"ok   {f.name}: {r.stdout.strip().splitlines()[-1]}")
        else:
            failed += 1
            print(f"FAIL {f.name} (exit {r.returncode}):\n" + "\n".join(bad) + r.stderr)
    for f in sorted((root / "failing").glob("*.mlir")):
        # One process per file: `run --split-input-file` reports each failing module on lines
        # starting "FAIL <file>:<first line of the module>:". A module without such a line (the
        # process crashed or stopped before it) is run in a process of its own, which names it.
        whole = subprocess.run([args.openpjrt, "run", *extra, "--split-input-file", str(f)],
                               capture_output=True, text=True)
        batched = whole.returncode == 1
        reports = {}
        head = re.compile(r"^FAIL " + re.escape(str(f)) + r":(\d+):")
        current = None
        for line in whole.stdout.splitlines():
            h = head.match(line)
            if h:
                current = int(h.group(1))
            if current is not None:
                reports[current] = reports.get(current, "") + line + "\n"
        start = 1
        for k, chunk in enumerate(f.read_text().split("// -----")):
            # a module starts on the line after its separator
            chunk_start, start = start + (k > 0), start + chunk.count("\n")
            m = re.search(r"expect-fail: (.*\S)", chunk)
            if not m:
                continue
            if batched and chunk_start in reports:
                rc, out = 1, reports[chunk_start]
            else:  # no report of its own (the file's process crashed, or stopped early): alone
                with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as t:
                    t.write(chunk)
                r = subprocess.run([args.openpjrt, "run", *extra, t.name], capture_output=True, text=True)
                pathlib.Path(t.name).unlink()
                rc, out = r.returncode, r.stdout + r.stderr
            if rc == 1 and "FAIL" in out and m.group(1) in out:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {f.name}:{chunk_start}: expected a failure with '{m.group(1)}', got exit "
                      f"{rc}:\n{out}")
        if not batched:
            failed += 1
            print(f"FAIL {f.name}: `run --split-input-file` exited {whole.returncode} (expected 1):\n"
                  f"{whole.stderr[-2000:]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
