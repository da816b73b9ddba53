#!/usr/bin/python3
"""Prints the FlatBuffers descriptors used by the @ducc_fft / @dynamic_ducc_fft tests in
tests/e2e/custom_calls.mlir and tests/e2e/failing/custom_calls.mlir, as MLIR ui8 constants.

The two tables are jaxlib's (jaxlib/cpu/ducc_fft.fbs): DuccFftDescriptor has the fields
dtype:byte, fft_type:byte, shape:[uint64], strides_in:[uint64], strides_out:[uint64],
axes:[uint32], forward:bool, scale:double; DynamicDuccFftDescriptor has ndims:uint32, dtype:byte,
fft_type:byte, axes:[uint32], forward:bool. Enums: dtype COMPLEX64 = 0, COMPLEX128 = 1; fft_type
C2C = 0, C2R = 1, R2C = 2. The buffers are laid out by this script (vtable first, then the
table, then the vectors), not the way flatc's builder lays them out, so the reader in
src/compiler/lower_calls.cc is exercised on a second layout (JAX's own exports give the first).

    python3 tests/e2e/gen_ducc_fft.py
"""
import struct

_SCALARS = {"i8": "<b", "u8": "<B", "u32": "<I", "f64": "<d"}


def table(fields):
    """A FlatBuffers buffer whose root table has `fields`, a list of (kind, value) in field order:
    kind is i8, u8, u32, f64, vu32 or vu64 (vectors); value None leaves the field absent."""
    vtable_size = 4 + 2 * len(fields)
    start = (4 + vtable_size + 7) // 8 * 8  # the table, 8-aligned
    body = bytearray(4)  # the offset back to the vtable comes first
    offsets = [0] * len(fields)
    vectors = []

    def align(n):
        while (start + len(body)) % n:
            body.append(0)

    # One-byte scalars, then wider scalars, then vector offsets (each aligned to its size).
    for order in (("i8", "u8"), ("u32", "f64"), ("vu32", "vu64")):
        for i, (kind, value) in enumerate(fields):
            if value is None or kind not in order:
                continue
            if kind.startswith("v"):
                align(4)
                offsets[i] = len(body)
                vectors.append((len(body), kind, value))
                body += bytes(4)
            else:
                align(struct.calcsize(_SCALARS[kind]))
                offsets[i] = len(body)
                body += struct.pack(_SCALARS[kind], value)
    out = bytearray(struct.pack("<I", start))
    out += struct.pack("<HH", vtable_size, len(body)) + b"".join(struct.pack("<H", o) for o in offsets)
    out += bytes(start - len(out))
    struct.pack_into("<i", body, 0, start - 4)
    out += body
    for at, kind, values in vectors:
        size = 8 if kind == "vu64" else 4
        while (len(out) + 4) % size:
            out.append(0)
        struct.pack_into("<I", out, start + at, len(out) - (start + at))
        out += struct.pack("<I", len(values))
        out += b"".join(struct.pack("<Q" if size == 8 else "<I", v) for v in values)
    return bytes(out)


def row_major(shape):
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return strides


def static(dtype, fft_type, shape, in_shape, out_shape, axes, forward, scale):
    return table([("i8", dtype), ("i8", fft_type), ("vu64", shape), ("vu64", row_major(in_shape)),
                  ("vu64", row_major(out_shape)), ("vu32", axes), ("u8", forward), ("f64", scale)])


def dynamic(ndims, dtype, fft_type, axes, forward):
    return table([("u32", ndims), ("i8", dtype), ("i8", fft_type), ("vu32", axes), ("u8", forward)])


def constant(buf):
    return f'dense<"0x{buf.hex().upper()}"> : tensor<{len(buf)}xui8>'


if __name__ == "__main__":
    cases = {
        "c2c_fwd": static(None, None, [3, 4], [3, 4], [3, 4], [1], 1, 1.0),
        "r2c": static(0, 2, [2, 8], [2, 8], [2, 5], [1], 1, 1.0),
        "c2r": static(0, 1, [2, 8], [2, 5], [2, 8], [1], 0, 1 / 8),
        "c2c_bwd2d": static(1, 0, [2, 3, 4], [2, 3, 4], [2, 3, 4], [1, 2], 0, 1 / 12),
        "dyn_c2c": dynamic(2, 0, 0, [1], 1),
        "bad_axes": static(0, 0, [3, 4], [3, 4], [3, 4], [0], 1, 1.0),
        "bad_scale": static(0, 0, [3, 4], [3, 4], [3, 4], [1], 0, 1.0),
    }
    for name, buf in cases.items():
        print(name, constant(buf))
