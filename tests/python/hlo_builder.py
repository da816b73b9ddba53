"""Builds serialized xla.HloModuleProto messages for the tests of the "hlo" program format, the
way XlaBuilder-based clients (gopjrt) hand them to PJRT: one computation per function, an
instruction per op with unique ids, operands by id, a tuple root for several results.

Field numbers are those of the published xla/service/hlo.proto and xla/xla_data.proto; the
protobuf encoding is written out here (varints, length-delimited fields, packed repeats) so that
the tests need no protobuf package.
"""
import struct

# xla.PrimitiveType
TYPES = {"pred": 1, "s8": 2, "s16": 3, "s32": 4, "s64": 5, "u8": 6, "u16": 7, "u32": 8, "u64": 9,
         "f16": 10, "f32": 11, "f64": 12, "c64": 15, "bf16": 16, "c128": 18, "s4": 21, "u4": 22, "s2": 26,
         "u2": 27}
TUPLE, TOKEN = 13, 17


def varint(v):
    v &= (1 << 64) - 1  # negative numbers: two's complement over 64 bits, as protobuf writes int32/int64
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(int(v))


def field_bytes(num, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(num << 3 | 2) + varint(len(data)) + bytes(data)


def field_packed(num, values):
    return field_bytes(num, b"".join(varint(int(v)) for v in values)) if len(values) else b""


class Shape:
    def __init__(self, type_name, dims=(), tuple_shapes=None):
        self.type_name, self.dims, self.tuple_shapes = type_name, tuple(dims), tuple_shapes

    def encode(self):
        if self.tuple_shapes is not None:
            return field_varint(2, TUPLE) + b"".join(field_bytes(4, s.encode()) for s in self.tuple_shapes)
        if self.type_name == "token":
            return field_varint(2, TOKEN)
        # XLA writes a row-major layout (minor_to_major = rank-1 ... 0) with every array shape.
        layout = field_packed(1, list(range(len(self.dims) - 1, -1, -1)))
        return field_varint(2, TYPES[self.type_name]) + field_packed(3, self.dims) + field_bytes(5, layout)


def S(type_name, *dims):
    return Shape(type_name, dims)


def T(*shapes):
    return Shape(None, (), tuple(shapes))


def _flatten(values):
    if hasattr(values, "reshape"):  # a numpy array
        return list(values.reshape(-1).tolist())
    if isinstance(values, (list, tuple)):
        return [x for v in values for x in _flatten(v)]
    return [values]


def literal(shape, values):
    """A LiteralProto of `shape` holding `values` (a scalar, nested lists or an array), or the
    scalar repeated when there is one value for several elements."""
    flat = _flatten(values)
    count = 1
    for d in shape.dims:
        count *= d
    if len(flat) == 1 and count != 1:
        flat = flat * count
    t = shape.type_name
    body = field_bytes(1, shape.encode())
    if t == "pred":
        return body + field_packed(2, [int(bool(x)) for x in flat])
    if t in ("s32", "s64", "u32", "u64"):
        return body + field_packed({"s32": 4, "s64": 5, "u32": 6, "u64": 7}[t], [int(x) for x in flat])
    if t in ("f32", "f64"):
        return body + field_bytes(8 if t == "f32" else 9, struct.pack("<%d%s" % (len(flat), "f" if t == "f32" else "d"), *flat))
    if t == "c64":
        parts = [p for z in flat for p in (complex(z).real, complex(z).imag)]
        return body + field_bytes(12, struct.pack("<%df" % len(parts), *parts))
    # Sub-byte integers take one byte per element.
    fmt = {"u8": "B", "s8": "b", "f16": "e", "u16": "H", "s16": "h", "s4": "b", "u4": "B", "s2": "b", "u2": "B"}[t]
    num = {"u8": 3, "s8": 15, "f16": 11, "u16": 16, "s16": 17, "s4": 21, "u4": 22, "s2": 26, "u2": 27}[t]
    return body + field_bytes(num, struct.pack("<%d%s" % (len(flat), fmt), *flat))


class Computation:
    def __init__(self, module, name):
        self.module, self.name, self.instructions, self.params = module, name, [], []
        self.id = module.next_id()
        self.root = None

    def add(self, opcode, shape, operands=(), **extra):
        """Adds an instruction; `extra` maps a field number (as f<N>) to encoded bytes or a value."""
        iid = self.module.next_id()
        body = field_bytes(1, f"{opcode}.{iid}") + field_bytes(2, opcode) + field_bytes(3, shape.encode())
        body += field_varint(35, iid) + field_packed(36, [o for o in operands])
        for key, value in extra.items():
            num = int(key[1:])
            if isinstance(value, bytes):
                body += field_bytes(num, value)
            elif isinstance(value, (list, tuple)) and value and isinstance(value[0], bytes):
                body += b"".join(field_bytes(num, v) for v in value)  # a repeated message
            elif isinstance(value, (list, tuple)):
                body += field_packed(num, value)
            elif isinstance(value, str):
                body += field_bytes(num, value)
            else:
                body += field_varint(num, value)
        self.instructions.append((iid, body, shape))
        self.root = iid
        return iid

    def param(self, n, shape):
        p = self.add("parameter", shape, f9=n)
        self.params.append(shape)
        return p

    def constant(self, shape, values):
        return self.add("constant", shape, f8=literal(shape, values))

    def shape_of(self, iid):
        return next(s for i, _, s in self.instructions if i == iid)

    def encode(self):
        root_shape = self.shape_of(self.root)
        program_shape = b"".join(field_bytes(1, s.encode()) for s in self.params) + field_bytes(2, root_shape.encode())
        return (field_bytes(1, self.name) + b"".join(field_bytes(2, body) for _, body, _ in self.instructions)
                + field_bytes(4, program_shape) + field_varint(5, self.id) + field_varint(6, self.root))


class Module:
    def __init__(self, name="test"):
        self.name, self.computations, self._id = name, [], 0

    def next_id(self):
        self._id += 1
        return self._id

    def computation(self, name):
        c = Computation(self, name)
        self.computations.append(c)
        return c

    def scalar_computation(self, name, opcode, type_name="f32"):
        """(x, y) -> opcode(x, y) on scalars: the to_apply of reductions."""
        c = self.computation(name)
        x, y = c.param(0, S(type_name)), c.param(1, S(type_name))
        c.add(opcode, S(type_name), [x, y])
        return c

    def serialize(self, entry=None):
        entry = entry or self.computations[-1]
        return (field_bytes(1, self.name) + field_bytes(2, entry.name)
                + b"".join(field_bytes(3, c.encode()) for c in self.computations) + field_varint(6, entry.id))


def window(*dims):
    """dims: dicts with size, stride, lo, hi, window_dilation, base_dilation."""
    out = b""
    for d in dims:
        w = (field_varint(1, d.get("size", 1)) + field_varint(2, d.get("stride", 1)) + field_varint(3, d.get("lo", 0))
             + field_varint(4, d.get("hi", 0)) + field_varint(5, d.get("window_dilation", 1))
             + field_varint(6, d.get("base_dilation", 1)))
        out += field_bytes(1, w)
    return out


def dot_dims(lhs_contract, rhs_contract, lhs_batch=(), rhs_batch=()):
    return field_packed(1, lhs_contract) + field_packed(2, rhs_contract) + field_packed(3, lhs_batch) + field_packed(4, rhs_batch)


def replica_groups(*groups):
    """ReplicaGroup messages (the repeated field 49 of an instruction)."""
    return [field_packed(1, g) or b"" for g in groups]


def iota_device_list(num_groups, per_group, reshape_dims=(), perm=()):
    """A CollectiveDeviceListProto holding an IotaReplicaGroupListProto (field 87)."""
    iota = (field_varint(1, num_groups) + field_varint(2, per_group) + field_packed(3, reshape_dims)
            + field_packed(4, perm))
    return field_bytes(2, iota)


def source_target_pairs(*pairs):
    return [field_varint(1, s) + field_varint(2, t) for s, t in pairs]


def collectives_module(groups_field):
    """all-reduce (sum), all-gather (dim 0), reduce-scatter (dim 0), collective-permute (swap),
    all-to-all (dim 0) and collective-broadcast (from the group's first member) over replicas
    {0, 1}, the groups given by `groups_field` (f49 or f87 and its value)."""
    m = Module()
    add = m.scalar_computation("add", "add")
    e = m.computation("main")
    x = e.param(0, S("f32", 4))
    ar = e.add("all-reduce", S("f32", 4), [x], f38=[add.id], **groups_field)
    ag = e.add("all-gather", S("f32", 8), [x], f14=[0], **groups_field)
    rs = e.add("reduce-scatter", S("f32", 2), [x], f14=[0], f38=[add.id], **groups_field)
    cp = e.add("collective-permute", S("f32", 4), [x], f52=source_target_pairs((0, 1), (1, 0)))
    a2a = e.add("all-to-all", S("f32", 4), [x], f14=[0], **groups_field)
    cb = e.add("collective-broadcast", S("f32", 4), [x], **groups_field)
    e.add("tuple", T(S("f32", 4), S("f32", 8), S("f32", 2), S("f32", 4), S("f32", 4), S("f32", 4)),
          [ar, ag, rs, cp, a2a, cb])
    return m


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]
