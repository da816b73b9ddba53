#!/usr/bin/env python3
"""The CLI's exit statuses and messages for each verb and its error paths."""
import argparse
import os
import struct
import subprocess
import sys
import tempfile


def write_npy(path, descr, shape, data):
    """A .npy file without numpy (the CLI test runs under any python3)."""
    dims = "".join(f"{d}, " for d in shape) if len(shape) != 1 else f"{shape[0]},"
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims.rstrip(', ') if len(shape) > 1 else dims}), }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--openpjrt", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    exe, root = args.openpjrt, args.root
    ok_mlir = f"{root}/tests/e2e/shapes.mlir"
    # A two-argument program and .npy inputs for the plugin-backed verbs.
    tmp = tempfile.mkdtemp()
    axpy = f"{tmp}/axpy.mlir"
    with open(axpy, "w") as f:
        f.write("func.func @main(%a: tensor<f32>, %x: tensor<4xf32>) -> tensor<4xf32> {\n"
                "  %b = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<4xf32>\n"
                "  %m = stablehlo.multiply %b, %x : tensor<4xf32>\n"
                "  return %m : tensor<4xf32>\n}\n")
    write_npy(f"{tmp}/a.npy", "<f4", (), struct.pack("<f", 3.0))
    write_npy(f"{tmp}/x.npy", "<f4", (4,), struct.pack("<4f", 0, 1, 2, 3))
    write_npy(f"{tmp}/xi.npy", "<i4", (4,), struct.pack("<4i", 0, 1, 2, 3))
    # An entry point with a dynamic argument (a shape-polymorphic export): compiled for the shape
    # of the file given.
    poly = f"{tmp}/poly.mlir"
    with open(poly, "w") as f:
        f.write("func.func @main(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {\n"
                "  %y = stablehlo.add %x, %x : tensor<?x2xf32>\n"
                "  return %y : tensor<?x2xf32>\n}\n")
    write_npy(f"{tmp}/m32.npy", "<f4", (3, 2), struct.pack("<6f", 0, 1, 2, 3, 4, 5))
    write_npy(f"{tmp}/m23.npy", "<f4", (2, 3), struct.pack("<6f", 0, 1, 2, 3, 4, 5))
    # An HloModuleProtoWithConfig (tests/python/hlo_builder.py): main() = all-reduce of the
    # replica ids, its config asking for 2 replicas.
    sys.path.insert(0, f"{root}/tests/python")
    from hlo_builder import Module, S, field_bytes, field_varint
    m = Module()
    add = m.scalar_computation("add", "add", "s32")
    e = m.computation("main")
    ids = e.add("convert", S("s32"), [e.add("replica-id", S("u32"))])
    e.add("all-reduce", S("s32"), [ids], f38=[add.id])
    with_config = f"{tmp}/two_replicas.bin"
    with open(with_config, "wb") as f:
        f.write(field_bytes(1, m.serialize()) + field_bytes(2, field_varint(4, 2)))
    # --args: literals, a file holding them, .npy files; a dynamic entry and a token argument.
    axpy_args = "[dense<3.0> : tensor<f32>, dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>]"
    with open(f"{tmp}/axpy.args", "w") as f:
        f.write(axpy_args + "\n")
    poly_tok = f"{tmp}/poly_tok.mlir"
    with open(poly_tok, "w") as f:
        f.write("func.func @main(%t: !stablehlo.token, %x: tensor<?x2xf32>) -> (!stablehlo.token, tensor<i32>) {\n"
                "  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>\n"
                "  return %t, %n : !stablehlo.token, tensor<i32>\n}\n")
    # Subnormals: `run` keeps them (the specification's IEEE semantics) in process and through
    # the plugin; --flush-denormals flushes them to zero as XLA:CPU (and the plugin's default) does.
    subnormal = f"{tmp}/subnormal.mlir"
    with open(subnormal, "w") as f:
        f.write("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
                "  %y = stablehlo.add %x, %x : tensor<2xf32>\n"
                "  return %y : tensor<2xf32>\n}\n")
    sub_args = "[dense<[1.0e-39, 1.0]> : tensor<2xf32>]"
    checked = f"{tmp}/checked.mlir"
    with open(checked, "w") as f:
        f.write("func.func @main(%x: tensor<2xi32>) {\n"
                "  %y = stablehlo.multiply %x, %x : tensor<2xi32>\n"
                "  check.expect_eq_const %y, dense<[4, 9]> : tensor<2xi32>\n"
                "  return\n}\n")
    # An old-style shape-polymorphic export: the size is an argument's value.
    by_value = f"{tmp}/by_value.mlir"
    with open(by_value, "w") as f:
        f.write("func.func @main(%n: tensor<i64>, %x: tensor<?x2xf32>) -> tensor<?x2xf32> {\n"
                "  %0 = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>\n"
                "  %c = stablehlo.constant dense<2> : tensor<1xi64>\n"
                "  %s = stablehlo.concatenate %0, %c, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>\n"
                "  %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2xi64>) -> tensor<?x2xf32>\n"
                "  %y = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x2xf32>, tensor<2xi64>) -> tensor<?x2xf32>\n"
                "  %r = stablehlo.add %i, %y : tensor<?x2xf32>\n"
                "  return %r : tensor<?x2xf32>\n}\n")
    axpy_want = "result #0 = dense<[0.0, 3.0, 6.0, 9.0]> : tensor<4xf32>"
    # A shard_map over 2 partitions with a sharded argument and result: the whole --args value is
    # cut into the devices' shards and each device prints the whole result.
    sharded = f"{tmp}/sharded.mlir"
    with open(sharded, "w") as f:
        f.write('module attributes {mhlo.num_partitions = 2 : i32} {\n'
                '  sdy.mesh @mesh = <["x"=2]>\n'
                '  func.func @main(%a: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {\n'
                '    %r = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] '
                'manual_axes={"x"} (%s: tensor<2xf32>) {\n'
                '      %p = stablehlo.partition_id : tensor<ui32>\n'
                '      %f = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>\n'
                '      %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<2xf32>\n'
                '      %t = stablehlo.add %s, %b : tensor<2xf32>\n'
                '      sdy.return %t : tensor<2xf32>\n'
                '    } : (tensor<4xf32>) -> tensor<4xf32>\n'
                '    return %r : tensor<4xf32>\n  }\n}\n')
    sharded_want = "device 1 result #0 = dense<[10.0, 20.0, 31.0, 41.0]> : tensor<4xf32>"
    # What 'run' cannot put together (in programs that it runs partitioned, having a manual
    # computation): an argument cut into uneven tiles (6 over 4 partitions), a result likewise,
    # and an unreduced result (each device holds an addend).
    def sharded_program(name, arg, result, arg_sharding, result_sharding):
        path = f"{tmp}/{name}.mlir"
        with open(path, "w") as f:
            f.write('module attributes {mhlo.num_partitions = 4 : i32} {\n'
                    '  sdy.mesh @mesh = <["x"=4]>\n'
                    f'  func.func @main(%a: {arg} {{sdy.sharding = #sdy.sharding<@mesh, {arg_sharding}>}}, '
                    '%b: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> '
                    f'({result} {{sdy.sharding = #sdy.sharding<@mesh, {result_sharding}>}}, tensor<4xf32>) {{\n'
                    f'    %r = stablehlo.reshape %a : ({arg}) -> {result}\n'
                    '    %m = sdy.manual_computation(%b) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] '
                    'manual_axes={"x"} (%s: tensor<1xf32>) {\n'
                    '      sdy.return %s : tensor<1xf32>\n'
                    '    } : (tensor<4xf32>) -> tensor<4xf32>\n'
                    f'    return %r, %m : {result}, tensor<4xf32>\n  }}\n}}\n')
        return path
    uneven_arg = sharded_program("uneven_arg", "tensor<6xf32>", "tensor<6xf32>", '[{"x"}]', '[{}]')
    uneven_result = sharded_program("uneven_result", "tensor<6xf32>", "tensor<2x3xf32>", '[{}]', '[{}, {"x"}]')
    unreduced_result = sharded_program("unreduced_result", "tensor<4xf32>", "tensor<4xf32>", '[{}]',
                                       '[{}], unreduced={"x"}')
    two_args = ", dense<1.0> : tensor<4xf32>]"
    args_cases = [
        (["run", "--args", "[dense<1.0> : tensor<6xf32>" + two_args, uneven_arg], None, 1,
         "argument #0 is cut into uneven tiles; 'run' passes even shards only"),
        (["run", "--args", "[dense<1.0> : tensor<6xf32>" + two_args, uneven_result], None, 1,
         "result #0 is cut into uneven tiles; 'run' puts even shards together only"),
        (["run", "--args", "[dense<1.0> : tensor<4xf32>" + two_args, unreduced_result], None, 1,
         "result #0 is unreduced (addends per device)"),
        (["run", "--print", "--args", "[dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>]", sharded], None, 0,
         sharded_want),
        (["run", "--print", "--args", axpy_args, axpy], None, 0, axpy_want),
        (["run", "--print", f"--args={axpy_args}", axpy], None, 0, axpy_want),
        (["run", "--print", "--plugin", "cpu", "--args", axpy_args, axpy], None, 0, axpy_want),
        (["run", "--print", f"--args=@{tmp}/axpy.args", axpy], None, 0, axpy_want),
        (["run", "--print", f"--args=@{tmp}/a.npy,@{tmp}/x.npy", axpy], None, 0, axpy_want),
        (["run", "--args", "[dense<[2, 3]> : tensor<2xi32>]", checked], None, 0, "1 checks"),
        (["run", "--print", "--args", sub_args, subnormal], None, 0, "dense<[2e-39, 2.0]>"),
        (["run", "--print", "--plugin", "cpu", "--args", sub_args, subnormal], None, 0, "dense<[2e-39, 2.0]>"),
        (["run", "--print", "--flush-denormals", "--args", sub_args, subnormal], None, 0, "dense<[0.0, 2.0]>"),
        (["run", "--print", "--flush-denormals", "--plugin", "cpu", "--args", sub_args, subnormal], None, 0,
         "dense<[0.0, 2.0]>"),
        (["run", "--args", "[dense<[2, 4]> : tensor<2xi32>]", checked], None, 1, "0 passed, 1 failed"),
        (["run", "--print", "--args", "[dense<1.0> : tensor<5x2xf32>]", poly_tok], None, 0,
         "result #1 = dense<5> : tensor<i32>"),
        (["run", "--print", "--plugin", "cpu", "--args", "[dense<1.0> : tensor<5x2xf32>]", poly_tok], None, 0,
         "result #1 = dense<5> : tensor<i32>"),
        (["run", "--args", "[dense<1.0> : tensor<5x3xf32>]", poly_tok], None, 1,
         "--args element #0 holds f32 of shape [5,3]; argument #1 is tensor<?x2xf32>"),
        (["run", "--args", "not_array", axpy], None, 2, "--args: expected a list of dense literals"),
        (["run", "--args", "[4.0 : f32]", axpy], None, 2, "element #0 of the list is 4.0 : f32, not a dense literal"),
        (["run", "--args", "[dense<1> : tensor<2xi32>", axpy], None, 2, "--args:1:26: error: expected ']'"),
        (["run", f"--args=@{tmp}/missing.args", axpy], None, 2, "failed to read args file"),
        (["run", f"--args=@{tmp}/missing.npy", axpy], None, 2, "failed to read NumPy args file"),
        (["run", f"--args=@{tmp}/a.npy,@{tmp}/axpy.args", axpy], None, 2, "cannot mix .npy and non-.npy args files"),
        (["run", f"--args=@{tmp}/axpy.args,@{tmp}/axpy.args", axpy], None, 2,
         "give one file holding the list, or one .npy file per argument"),
        (["run", f"--args=@{tmp}/a.npy,{tmp}/x.npy", axpy], None, 2, f"'{tmp}/x.npy' is not @FILE"),
        (["run", "--args", "[dense<1.0> : tensor<f32>]", axpy], None, 1, "--args gives 1 arrays; @main takes 2"),
        (["run", "--args", "[dense<1> : tensor<i32>, dense<1.0> : tensor<4xf32>]", axpy], None, 1,
         "--args element #0 holds i32 of shape []; argument #0 is tensor<f32>"),
        (["run", "--args", axpy_args, "--input", f"0={tmp}/a.npy", axpy], None, 2, "with --args or with --input, not both"),
        (["run", axpy], None, 1, "give them with --args or --input"),
        (["run", "--print", "--args", "[dense<3> : tensor<i64>, dense<0.5> : tensor<1x2xf32>]", by_value], None, 0,
         "result #0 = dense<[[0.5, 0.5], [1.5, 1.5], [2.5, 2.5]]> : tensor<3x2xf32>"),
        (["run", "--args", "[dense<3> : tensor<i64>, dense<0.5> : tensor<2x2xf32>]", by_value], None, 1,
         "operand dimension 0 (2) is neither 1 nor result dimension 0 (3)"),
        (["run", "--plugin", "cpu", "--args", "[dense<3> : tensor<i64>, dense<0.5> : tensor<1x2xf32>]", by_value], None, 1,
         "must be refined to a static shape"),
    ]
    cases = args_cases + [
        # (argv, stdin, expected exit, text expected in stdout+stderr)
        (["opt", "--format", "hlo_with_config", "--converted", with_config], None, 0, "mhlo.num_replicas = 2 : i32"),
        (["opt", "--format", "hlo_with_config", with_config], None, 0, "stablehlo.all_reduce"),
        (["opt", "--format", "protobuf", with_config], None, 2, "--format takes mlir, hlo or hlo_with_config"),
        (["run", "--format", "hlo_with_config", "--print", with_config], None, 0, "device 1 result #0 = dense<1> : tensor<i32>"),
        (["run", "--format", "hlo", with_config], None, 1, "HloModuleProto"),
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
        (["run", "--split-input-file", ok_mlir], None, 0, "8 passed, 0 failed"),
        (["run", "-"], "func.func @main() -> tensor<f32> {\n  %0 = stablehlo.constant dense<1.5> : tensor<f32>\n  return %0 : tensor<f32>\n}\n", 0, "1 passed, 0 failed"),
        (["run", "--print", "-"], "func.func @main() -> tensor<2xi8> {\n  %0 = stablehlo.constant dense<[1, -2]> : tensor<2xi8>\n  return %0 : tensor<2xi8>\n}\n", 0, "result #0 = dense<[1, -2]> : tensor<2xi8>"),
        (["run", "--entry", "g", "-"], "func.func @f() {\n  return\n}\n", 1, "no function @g"),
        (["run", "-"], "// only a comment\n", 1, "0 passed, 0 failed"),
        # Through the plugin, with inputs.
        (["run", "--input", "0=/nonexistent.npy", axpy], None, 1, "cannot read /nonexistent.npy"),
        (["run", "--input", "zero=a.npy", axpy], None, 2, "--input name 'zero' is not an argument"),
        (["run", "--input", "0", axpy], None, 2, "--input needs NAME=FILE.npy"),
        (["run", "--plugin", "/nonexistent/p.so", ok_mlir], None, 1, "cannot load PJRT plugin /nonexistent/p.so"),
        (["run", "--plugin", "cpu", "--split-input-file", ok_mlir], None, 0, "8 passed, 0 failed"),
        (["run", "--input", f"0={tmp}/a.npy", "--input", f"%arg1={tmp}/x.npy", "--print", axpy], None, 0,
         "result #0 = dense<[0.0, 3.0, 6.0, 9.0]> : tensor<4xf32>"),
        (["run", "--input", f"0={tmp}/a.npy", "--input", f"arg1={tmp}/xi.npy", axpy], None, 1,
         "holds i32 of shape [4]; argument #1 is tensor<4xf32>"),
        (["run", "--input", f"0={tmp}/a.npy", axpy], None, 1, "argument #1 (tensor<4xf32>) has no --input"),
        (["run", "--print", "--input", f"0={tmp}/m32.npy", poly], None, 0,
         "result #0 = dense<[[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]> : tensor<3x2xf32>"),
        (["run", "--input", f"0={tmp}/m23.npy", poly], None, 1, "argument #0 is tensor<?x2xf32>"),
        (["run", poly], None, 1, "argument #0 has the dynamic type tensor<?x2xf32>"),
        (["run", "--output", f"{tmp}/out1", "--input", f"0={tmp}/a.npy", "--input", f"1={tmp}/x.npy", axpy], None, 0,
         "1 passed"),
        (["run", "--output", f"{tmp}/out2", "--args", "[dense<[2, 3]> : tensor<2xi64>]", "-"],
         "func.func @main(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<i1>) {\n"
         "  %c = stablehlo.constant dense<true> : tensor<i1>\n  %y = stablehlo.negate %x : tensor<2xi64>\n"
         "  return %y, %c : tensor<2xi64>, tensor<i1>\n}\n", 0, "1 passed"),
        (["run", "--output", "/nonexistent/dir", "--input", f"0={tmp}/a.npy", "--input", f"1={tmp}/x.npy", axpy],
         None, 1, "cannot write /nonexistent/dir/result0.npy"),
        # bench and info.
        (["bench", "--help"], None, 0, "median_us=X p10_us=Y p90_us=Z compile_ms=W"),
        (["bench", "--iters", "0", axpy], None, 2, "--iters needs a number >= 1"),
        (["bench", "--iters", "5", "--warmup", "1", axpy], None, 0, "median_us="),
        (["bench", "--threads", "1", "--iters", "3", "--input", f"1={tmp}/x.npy", axpy], None, 0, "compile_ms="),
        (["bench", "/nonexistent.mlir"], None, 1, "cannot open '/nonexistent.mlir'"),
        (["bench", "--plugin", "nosuchplugin", axpy], None, 1, "pjrt_c_api_nosuchplugin_plugin.so"),
        (["info", "--help"], None, 0, "usage: openpjrt info"),
        (["info"], None, 0, "PJRT C API: 0.114"),
        (["info"], None, 0, "stablehlo_current_version = ["),
        (["info", "--plugin", "/nonexistent/p.so"], None, 1, "cannot load PJRT plugin"),
        (["info", "--bogus"], None, 2, "unknown argument '--bogus'"),
    ]
    os.makedirs(f"{tmp}/out1", exist_ok=True)
    os.makedirs(f"{tmp}/out2", exist_ok=True)
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
    # What the --output cases wrote.
    outputs = {"out1/result0.npy": ("<f4", (4,), struct.pack("<4f", 0, 3, 6, 9)),
               "out2/result0.npy": ("<i8", (2,), struct.pack("<2q", -2, -3)), "out2/result1.npy": ("|b1", (), b"\x01")}
    for name, (descr, shape, data) in outputs.items():
        write_npy(f"{tmp}/want.npy", descr, shape, data)
        got = open(f"{tmp}/{name}", "rb").read() if os.path.exists(f"{tmp}/{name}") else b""
        want = open(f"{tmp}/want.npy", "rb").read()
        if got.endswith(data) and f"'descr': '{descr}'".encode() in got and len(got) == len(want):
            passed += 1
        else:
            failed += 1
            print(f"FAIL run --output: {name} is {got!r}, want {want!r}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
