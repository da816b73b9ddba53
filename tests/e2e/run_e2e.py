#!/usr/bin/env python3
"""Runs tests/e2e/*.mlir through `openpjrt run --split-input-file` (every module must pass), and
tests/e2e/failing/*.mlir module by module (each must fail with the text of its expect-fail
comment, and `run` must exit 1)."""
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
        for chunk in f.read_text().split("// -----"):
            m = re.search(r"expect-fail: (.*\S)", chunk)
            if not m:
                continue
            with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as t:
                t.write(chunk)
            r = subprocess.run([args.openpjrt, "run", *extra, t.name], capture_output=True, text=True)
            pathlib.Path(t.name).unlink()
            if r.returncode == 1 and "FAIL" in r.stdout and m.group(1) in r.stdout:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {f.name}: expected a failure with '{m.group(1)}', got exit "
                      f"{r.returncode}:\n{r.stdout}{r.stderr}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
