// Internal to the HloModuleProto reader (hlo_proto.cc, hlo_proto_ops.cc): the field numbers it
// reads, the value and type helpers, and the Converter, which writes one computation's
// instructions as StableHLO ops in the generic form. Its per-opcode conversion,
// Converter::Convert, is hlo_proto_ops.cc.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "src/ir/hlo_proto.h"
#include "src/ir/proto_wire.h"
#include "src/support/str.h"

namespace openpjrt::ir::hlo_convert {

using proto_wire::Msg;

#define OPJ_TRY_ASSIGN(lhs, expr)            \
  auto lhs##_or = (expr);                    \
  if (!lhs##_or.ok()) return lhs##_or.status(); \
  auto lhs = std::move(*lhs##_or)

// Field numbers.
namespace f {
// HloModuleProto
constexpr int kModuleEntryName = 2, kModuleComputations = 3, kModuleEntryId = 6;
// HloComputationProto
constexpr int kCompName = 1, kCompInstructions = 2, kCompId = 5, kCompRootId = 6;
// HloInstructionProto
constexpr int kName = 1, kOpcode = 2, kShape = 3, kLiteral = 8, kParameterNumber = 9, kTupleIndex = 13,
              kDimensions = 14, kWindow = 15, kConvDims = 16, kSliceDims = 17, kExponentBits = 18,
              kMantissaBits = 19, kDynamicSliceSizes = 20, kPaddingConfig = 21, kEpsilon = 24,
              kFeatureIndex = 25, kDotDims = 30, kFftType = 31, kFftLength = 32, kGatherDims = 33,
              kGatherSliceSizes = 34, kId = 35, kOperandIds = 36, kCalledIds = 38, kIsHostTransfer = 47,
              kScatterDims = 48, kFeatureGroups = 50, kBatchGroups = 58, kTriangularOptions = 59,
              kIsStable = 60, kCholeskyOptions = 62, kComparisonDirection = 63, kIndicesSorted = 67,
              kUniqueIndices = 69, kCustomCallTarget = 28, kDistribution = 23, kRngAlgorithm = 70, kComparisonType = 72, kK = 81, kLargest = 85,
              kChannelId = 26, kBackendConfig = 43, kReplicaGroups = 49, kSourceTargetPairs = 52,
              kHasSideEffect = 65, kUseGlobalDeviceIds = 71, kApiVersion = 77, kDeviceList = 87;
// CollectiveDeviceListProto and IotaReplicaGroupListProto
constexpr int kListGroups = 1, kListIota = 2, kIotaGroups = 1, kIotaPerGroup = 2, kIotaDims = 3, kIotaPerm = 4;
// ShapeProto
constexpr int kElementType = 2, kShapeDims = 3, kTupleShapes = 4;
}  // namespace f

// ---- Types ----------------------------------------------------------------------------------

// xla.PrimitiveType -> the MLIR element type; empty for TUPLE, TOKEN and unknown values.
inline std::string ElementName(int64_t t) {
  switch (t) {
    case 1: return "i1";
    case 2: return "i8";
    case 3: return "i16";
    case 4: return "i32";
    case 5: return "i64";
    case 6: return "ui8";
    case 7: return "ui16";
    case 8: return "ui32";
    case 9: return "ui64";
    case 10: return "f16";
    case 11: return "f32";
    case 12: return "f64";
    case 15: return "complex<f32>";
    case 16: return "bf16";
    case 18: return "complex<f64>";
    case 19: return "f8E5M2";
    case 20: return "f8E4M3FN";
    case 21: return "i4";
    case 22: return "ui4";
    case 23: return "f8E4M3B11FNUZ";
    case 24: return "f8E5M2FNUZ";
    case 25: return "f8E4M3FNUZ";
    case 26: return "i2";
    case 27: return "ui2";
    case 28: return "f8E4M3";
    case 29: return "f8E3M4";
    case 32: return "f4E2M1FN";
    case 33: return "f8E8M0FNU";
    default: return "";
  }
}

// The bytes per element of a literal's data field, and that field's number (0: none).
inline void LiteralField(int64_t t, int* field, size_t* width) {
  struct Row {
    int64_t type;
    int field;
    size_t width;
  };
  static const Row kRows[] = {{1, 2, 1},   {2, 15, 1},  {3, 17, 2},  {4, 4, 4},   {5, 5, 8},   {6, 3, 1},
                              {7, 16, 2},  {8, 6, 4},   {9, 7, 8},   {10, 11, 2}, {11, 8, 4},  {12, 9, 8},
                              {15, 12, 8}, {16, 13, 2}, {18, 18, 16}, {19, 19, 1}, {20, 20, 1}, {23, 23, 1},
                              {24, 24, 1}, {25, 25, 1}, {28, 28, 1},  {29, 29, 1}, {33, 33, 1},
                              // Sub-byte types: one element per byte.
                              {21, 21, 1}, {22, 22, 1}, {26, 26, 1}, {27, 27, 1}, {32, 32, 1}};
  *field = 0;
  *width = 0;
  for (const Row& r : kRows)
    if (r.type == t) *field = r.field, *width = r.width;
}

// One array (or token) value of the converted program.
struct Leaf {
  std::string name;  // SSA name, e.g. %v12 or %v12#1
  std::string type;  // MLIR type
};
using Value = std::vector<Leaf>;  // the leaves of an HLO value, in tuple order

inline std::string Join(const std::vector<std::string>& v, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? std::string(sep) : "") + v[i];
  return out;
}

// An MLIR string literal: quotes, backslashes and bytes outside printable ASCII escaped as \XX.
inline std::string Quote(std::string_view bytes) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
      out += '\\';
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

inline std::string IntList(const std::vector<int64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += StrCat(i ? ", " : "", v[i]);
  return out;
}
inline std::string Array64(const std::vector<int64_t>& v) {
  return v.empty() ? "array<i64>" : StrCat("array<i64: ", IntList(v), ">");
}

class Converter {
 public:
  explicit Converter(HloDevices devices) : devices_(devices) {}
  absl::StatusOr<std::string> Run(std::string_view bytes);

 private:
  absl::Status Unimplemented(const Msg& in, const Msg& comp, std::string_view what) {
    return absl::UnimplementedError(StrCat("HloModuleProto: instruction '", in.Bytes(f::kName), "' (opcode '",
                                           in.Bytes(f::kOpcode), "') in computation '", comp.Bytes(f::kCompName),
                                           "': ", what, " is not supported"));
  }
  absl::Status Invalid(const Msg& in, const Msg& comp, std::string_view what) {
    return absl::InvalidArgumentError(StrCat("HloModuleProto: instruction '", in.Bytes(f::kName), "' (opcode '",
                                             in.Bytes(f::kOpcode), "') in computation '",
                                             comp.Bytes(f::kCompName), "': ", what));
  }

  // The leaf types of a shape (names left empty).
  absl::StatusOr<Value> Leaves(const Msg& shape, const Msg& in, int depth = 0);

  struct Groups {
    std::string text;        // the replica_groups attribute
    int64_t group_size = 0;  // members per group; 0 when no groups are given (all devices)
  };
  // A collective's process groups: collective_device_list (explicit groups or an iota list)
  // when present, else the older replica_groups field. Ragged groups are padded with -1.
  absl::StatusOr<Groups> ReplicaGroups(const Msg& in, const Msg& comp);

  // The groups of an iota list: iota(groups * per_group) reshaped to iota_reshape_dims,
  // transposed by iota_transpose_perm, read in order as `groups` rows of `per_group`.
  absl::StatusOr<std::vector<std::vector<int64_t>>> IotaGroups(const Msg& iota, const Msg& in, const Msg& comp);

  std::string Fresh() { return StrCat("%v", next_++); }

  // Names the results of an op that produces `types`: %vN for one, %vN#i for several.
  Value Results(const std::string& base, const Value& types) {
    Value out = types;
    for (size_t i = 0; i < out.size(); ++i) out[i].name = types.size() == 1 ? base : StrCat(base, "#", i);
    return out;
  }

  // Writes `%r = "name"(operands) regions {attrs} : (operand types) -> (result types)`.
  Value Emit(std::string* out, const std::string& indent, const std::string& name, const Value& operands,
             const Value& result_types, const std::string& attrs, const std::string& regions = "");

  // A region holding computation `id` with block arguments for each leaf of `arg_types`; when
  // `args` is false the region takes no arguments and the computation's parameters are `captured`.
  absl::StatusOr<std::string> Region(int64_t id, const std::vector<Value>& param_types, const std::string& indent,
                                     const std::vector<Value>* captured = nullptr);

  // Scalar types of a value's leaves (reduction regions take scalars of the operands' types).
  static Value Scalars(const Value& v);

  // Emits the instructions of `comp` with its parameters bound to `params`; returns its root.
  absl::StatusOr<Value> Inline(const Msg& comp, const std::vector<Value>& params, std::string* out,
                               const std::string& indent);

  // One instruction (hlo_proto_ops.cc): writes its ops after `out` and returns its value's leaves.
  absl::StatusOr<Value> Convert(const Msg& in, const Msg& comp, const std::vector<Value>& ops,
                                const std::vector<std::vector<size_t>>& op_counts, const std::vector<Value>& params,
                                std::string* out, const std::string& indent);

  // The tuple form of all-to-all, written with the array form (hlo_proto_ops.cc).
  absl::StatusOr<Value> TupleAllToAll(const Msg& in, const Msg& comp, const Value& flat, int64_t split,
                                      const std::string& attrs, std::string* out, const std::string& indent);

  // For a tuple shape, the number of leaves of each element; empty for an array.
  absl::StatusOr<std::vector<size_t>> ElementLeafCounts(const Msg& shape, const Msg& in);

  HloDevices devices_;
  std::vector<Msg> comps_;
  std::unordered_map<int64_t, size_t> comp_by_id_;
  int next_ = 0;
  int depth_ = 0;
};

// Elementwise opcodes and their StableHLO (or CHLO) ops.
const std::unordered_map<std::string_view, std::string_view>& ElementwiseOps();
// "0x" and the bytes in upper-case hex, as dense<"0x..."> takes them.
std::string Hex(std::string_view bytes);
// The rank of a ranked tensor type's text ("tensor<2x3xf32>" -> 2).
int64_t Rank(const std::string& type);

}  // namespace openpjrt::ir::hlo_convert
