#!/usr/bin/env python3
"""The CLI's exit statuses and messages for each verb and its error paths."""
import argparse
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openpjrt", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    exe, root = args.openpjrt, args.root
    ok_mlir = f"{root}/tests/e2e/shapes.mlir"
    cases = [
        # (argv, stdin, expected exit, text expected in stdout+stderr)
        ([], None, 2, "usage: openpjrt <command>"),
        (["--help"], None, 0, "commands:"),
        (["frobnicate"], None, 2, "unknown command 'frobnicate'"),
        (["opt", "--help"], None, 0, "usage: openpjrt opt"),
        (["opt"], None, 2, "no input file"),
        (["opt", "/nonexistent.mlir"], None, 1, "cannot open '/nonexistent.mlir'"),
        (["opt", "a.mlir", "b.mlir"], None, 2, "more than one input file"),
        (["opt", "--bogus", "a.mlir"], None, 2, "unknown option '--bogus'"),
        (["opt", "-"], "func.func @f() {\n  return\n}\n", 0, "func.func @f()"),
        (["opt", "-"], "func.func @f() {\n  %0 = stablehlo.nope\n}\n", 1, "<stdin>:2:8: error: unknown operation"),
        (["opt", "--generic", "-"], "func.func @f() {\n  return\n}\n", 0, '"func.return"()'),
        (["run", "--help"], None, 0, "usage: openpjrt run"),
        (["run"], None, 2, "no input file"),
        (["run", "--replicas", "0", ok_mlir], None, 2, "--replicas needs a number from 1 to 1024"),
        (["run", "--partitions", "x", ok_mlir], None, 2, "--partitions needs a number"),
        (["run", "--split-input-file", ok_mlir], None, 0, "7 passed, 0 failed"),
        (["run", "-"], "func.func @main() -> tensor<f32> {\n  %0 = stablehlo.constant dense<1.5> : tensor<f32>\n  return %0 : tensor<f32>\n}\n", 0, "1 passed, 0 failed"),
        (["run", "--print", "-"], "func.func @main() -> tensor<2xi8> {\n  %0 = stablehlo.constant dense<[1, -2]> : tensor<2xi8>\n  return %0 : tensor<2xi8>\n}\n", 0, "result #0 = dense<[1, -2]> : tensor<2xi8>"),
        (["run", "--entry", "g", "-"], "func.func @f() {\n  return\n}\n", 1, "no function @g"),
        (["run", "-"], "// only a comment\n", 1, "0 passed, 0 failed"),
    ]
    passed = failed = 0
    for argv, stdin, code, text in cases:
        r = subprocess.run([exe, *argv], input=stdin, capture_output=True, text=True)
        out = r.stdout + r.stderr
        if r.returncode == code and text in out:
            passed += 1
        else:
            failed += 1
            print(f"FAIL openpjrt {' '.join(argv)}: exit {r.returncode} (want {code}), "
                  f"wanted '{text}' in:\n{out}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
