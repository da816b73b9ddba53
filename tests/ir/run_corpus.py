#!/usr/bin/env python3
"""Round-trip test over the .mlir corpus through `openpjrt opt`.

For every file (split at `// -----`): parse + verify + print (pretty) must succeed; printing that
output again must give the same text (a fixed point); printing generically and reading that back
must give the same pretty text. Files that must fail live in invalid/ and are not read here.
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile


def opt(binary, path, *flags):
    r = subprocess.run([binary, "opt", str(path), *flags], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def check(binary, path, tmp):
    split = ["--split-input-file"]
    rc, pretty, err = opt(binary, path, *split)
    if rc != 0:
        return f"does not parse/verify:\n{err}"
    again = tmp / "again.mlir"
    again.write_text(pretty)
    rc, pretty2, err = opt(binary, again, *split)
    if rc != 0:
        return f"printed output does not parse:\n{err}"
    if pretty2 != pretty:
        return "print -> parse -> print is not a fixed point"
    rc, generic, err = opt(binary, path, *split, "--generic")
    if rc != 0:
        return f"generic print failed:\n{err}"
    gen = tmp / "generic.mlir"
    gen.write_text(generic)
    rc, from_generic, err = opt(binary, gen, *split)
    if rc != 0:
        return f"generic output does not parse:\n{err}"
    if from_generic != pretty:
        return "generic form does not read back to the same module"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--opt", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--shared-testdata")
    args = ap.parse_args()
    files = sorted(pathlib.Path(args.corpus).glob("*.mlir"))
    if args.shared_testdata and pathlib.Path(args.shared_testdata).is_dir():
        files += sorted(p for p in pathlib.Path(args.shared_testdata).glob("stablehlo_legalize_to_vhlo.*.mlir"))
    else:
        print("note: shared StableHLO golden files not found; checking our corpus only")
    passed = failed = 0
    with tempfile.TemporaryDirectory() as d:
        for f in files:
            msg = check(args.opt, f, pathlib.Path(d))
            if msg:
                failed += 1
                print(f"FAIL {f.name}: {msg}")
            else:
                passed += 1
                print(f"ok   {f.name}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
