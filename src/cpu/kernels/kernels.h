// Kernel selection for the compiler: each function returns the kernel specialised for the given
// element kinds (whole-tensor loops, no per-element dispatch), or an UNIMPLEMENTED /
// INVALID_ARGUMENT status naming what is not supported. Kernel parameters are the structs below,
// stored in Step::params.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/cpu/exec/program.h"

namespace openpjrt::cpu {

// ---- elementwise (kernels_elementwise.cc)
enum class UnaryOp : uint8_t {
  kAbs, kCbrt, kCeil, kCos, kExp, kExpm1, kFloor, kLog, kLog1p, kLogistic, kNegate, kNot,
  kPopcnt, kClz, kRoundAfz, kRoundEven, kRsqrt, kSign, kSin, kSqrt, kTan, kTanh, kIsFinite,
  kReal, kImag, kAcos, kAcosh, kAsin, kAsinh, kAtan, kAtanh, kCosh, kSinh, kErf, kErfc, kErfInv,
  kLgamma, kDigamma, kSquare, kConj, kIsInf, kIsPosInf, kIsNegInf, kBesselI1e, kCopy,
};
enum class BinaryOp : uint8_t {
  kAdd, kSub, kMul, kDiv, kRem, kPow, kAtan2, kMax, kMin, kAnd, kOr, kXor, kShl, kShrA, kShrL,
  kComplex, kNextAfter, kPolygamma, kZeta, kMulHi,
};
const char* UnaryOpName(UnaryOp op);
const char* BinaryOpName(BinaryOp op);

absl::StatusOr<KernelFn> SelectUnary(UnaryOp op, ElemKind in, ElemKind out);
absl::StatusOr<KernelFn> SelectBinary(BinaryOp op, ElemKind in, ElemKind out);
// The same loops over raw elements (for fusion); null when not supported.
RawUnaryFn RawUnary(UnaryOp op, ElemKind in, ElemKind out);
RawBinaryFn RawBinary(BinaryOp op, ElemKind in, ElemKind out);
// The binary loop with operand `scalar_operand` (0 or 1) one element read once (f32 and f64
// arithmetic, max and min); null otherwise.
RawBinaryFn RawBinarySplat(BinaryOp op, ElemKind in, ElemKind out, int scalar_operand);
// The op as the register evaluator of fused runs knows it (fused_vec.h); kNone unless f32 -> f32
// and one it evaluates.
VecOp VecUnaryOf(UnaryOp op, ElemKind in, ElemKind out);
VecOp VecBinaryOf(BinaryOp op, ElemKind in, ElemKind out);

// What FusedSmall (fused.h) works out about a run once, at its first execution (fused_small.cc),
// kept with the run's params. A copy starts without it: the compiler's passes change copies.
struct SmallRunLayout;
struct FusedParams;
class SmallRunLayoutSlot {
 public:
  SmallRunLayoutSlot() = default;
  SmallRunLayoutSlot(const SmallRunLayoutSlot&) {}
  SmallRunLayoutSlot& operator=(const SmallRunLayoutSlot&);
  ~SmallRunLayoutSlot();
  // The layout of `p`, made the first time (when threads race, one's is kept).
  const SmallRunLayout& Get(const FusedParams& p) const {
    if (const SmallRunLayout* layout = layout_.load(std::memory_order_acquire)) return *layout;
    return Make(p);
  }

 private:
  const SmallRunLayout& Make(const FusedParams& p) const;
  mutable std::atomic<SmallRunLayout*> layout_{nullptr};
};

// A run of elementwise steps fused into one kernel that walks the elements in cache-sized blocks,
// each op writing a small block buffer (or, for values used after the run, the output array).
// Values 0..num_inputs-1 are step.in; op k defines value num_inputs + k.
struct FusedParams {
  struct Op {
    RawUnaryFn unary = nullptr;
    RawBinaryFn binary = nullptr;
    // binary with operand splat_operand (0 or 1) a splat input, passed as its one element
    RawBinaryFn binary_splat = nullptr;
    int splat_operand = -1;
    // binary with operand i passed as one element (null where there is no such loop): per-row
    // values along rows are read a row at a time (FusedBlockEval) instead of copied out
    RawBinaryFn binary_with_scalar[2] = {nullptr, nullptr};
    RawOpFn general = nullptr;            // with the step's parameters, up to three operands
    std::shared_ptr<const void> params;  // for general
    int in0 = 0, in1 = 0, in2 = 0;
    int output = -1;      // index into step.out, or -1 when only the run uses it
    int elem_bytes = 0;   // of its result
    VecOp vec = VecOp::kNone;  // the f32 op as the register evaluator knows it (fused_vec.h)
  };
  std::vector<Op> ops;
  std::vector<int> input_bytes;  // per input
  // Inputs that are splat constants: their one element (empty for ordinary inputs). The kernel
  // repeats it in a block buffer and does not read the input slot.
  std::vector<std::vector<uint8_t>> input_splat;
  // Inputs that stand for their broadcast (a broadcast_in_dim the run absorbed): element e of
  // the run reads element e % period of the input. 0: an ordinary input.
  std::vector<int64_t> input_period;
  // With input_period: element e reads element (e / inner) % period (a broadcast over leading
  // and trailing dimensions). 1 when the input repeats only as a whole.
  std::vector<int64_t> input_inner;
  // Inputs that are a window of a larger array: a dynamic_slice the run absorbed (a scan body's
  // xs[i]; compiler::AbsorbDynamicSlices). The input's slot holds the whole array, and the run
  // reads the window's num_elements consecutive elements where the slice would have started
  // them (start indices clamped as dynamic_slice clamps, read from the scalar slots
  // step.in[first_index + d], which follow the run's inputs). Only windows that are one
  // contiguous run of the array: unit sizes, then one dimension in part, then whole ones.
  struct Window {
    std::vector<int64_t> dims;   // the whole array's
    std::vector<int64_t> sizes;  // the slice's; empty: an ordinary input
    int first_index = -1;
  };
  std::vector<Window> input_window;  // per input, or empty when the run has no window
  int64_t num_elements = 0;
  SmallRunLayoutSlot small_layout;  // runs of at most a block (fused_small.cc)
  bool HasWindows() const { return !input_window.empty(); }
};
KernelFn FusedElementwiseKernel();

struct CompareParams {
  enum Dir : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt } dir;
  bool total_order;
};
absl::StatusOr<KernelFn> SelectCompare(ElemKind k, const CompareParams& p);
KernelFn SelectKernel();     // select(pred, on_true, on_false); pred may be a scalar
// Raw loops (for fusion) whose operands all have the result's element count; null when the
// kinds are not supported. RawCompare's loop reads its CompareParams from the params argument.
RawOpFn RawCompare(ElemKind k, const CompareParams& p);
RawOpFn RawSelect(int64_t elem_bytes);
RawOpFn RawClamp(ElemKind k);
RawOpFn RawConvert(ElemKind from, ElemKind to);
absl::StatusOr<KernelFn> SelectClamp(ElemKind k);  // min/max may be scalars
absl::StatusOr<KernelFn> SelectConvert(ElemKind from, ElemKind to);
absl::StatusOr<KernelFn> SelectBitcastConvert(ElemKind from, ElemKind to);
struct ReducePrecisionParams {
  int exponent_bits, mantissa_bits;
};
absl::StatusOr<KernelFn> SelectReducePrecision(ElemKind k);

// ---- data movement (kernels_shape.cc); element-size generic
struct BroadcastParams { std::vector<int64_t> dims; };
struct TransposeParams { std::vector<int64_t> perm; };
struct ReverseParams { std::vector<int64_t> dims; };
struct ConcatParams { int64_t dim; };
struct SliceParams { std::vector<int64_t> start, limit, strides; };
struct PadParams { std::vector<int64_t> low, high, interior; };
struct DynamicSliceParams {
  std::vector<int64_t> sizes;
  std::vector<int64_t> operand_dims;  // of the operand at compile time (fused windows)
};
struct IotaParams { int64_t dim; };
struct ConstantParams { RtValue value; };
// A splat constant: one element, expanded to the full array on first use (once per executable);
// fused elementwise kernels read the element directly and the array is never built.
struct SplatConstantParams {
  ArrayType type;
  std::vector<uint8_t> element;
  mutable std::once_flag once;
  mutable RtValue value;
};
KernelFn SplatConstantKernel();
struct GetDimSizeParams { int64_t dim; };
KernelFn BroadcastInDimKernel();
KernelFn ReshapeKernel();
KernelFn TransposeKernel();
KernelFn ReverseKernel();
KernelFn ConcatenateKernel();
KernelFn SliceKernel();
KernelFn PadKernel();
KernelFn DynamicPadKernel();        // in: operand, value, low, high, interior
KernelFn RealDynamicSliceKernel();  // in: operand, start, limit, strides
KernelFn DynamicSliceKernel();
KernelFn DynamicUpdateSliceKernel();
absl::StatusOr<KernelFn> SelectIota(ElemKind k);
KernelFn ConstantKernel();
KernelFn CopyKernel();  // outputs alias inputs (optimization_barrier, identity)
KernelFn TupleKernel();
struct GetTupleElementParams { int64_t index; };
KernelFn GetTupleElementKernel();
KernelFn TokenKernel();  // after_all, create_token
// stablehlo.send / stablehlo.recv with is_host_transfer = true, through ExecState::host.
struct HostTransferParams { int64_t channel = 0; };
KernelFn HostSendKernel();  // in: data, token -> out: token
KernelFn HostRecvKernel();  // in: token -> out: data, token
KernelFn ReplicaIdKernel();
KernelFn PartitionIdKernel();

// ---- reductions and regions (kernels_reduce.cc)
// The reducer region of reduce: when it is one binary op (add, multiply, max, min, and, or,
// xor), `fast` says which and the region is not run per element.
// The reducer of JAX's argmax and argmin over (value, index) pairs, (v1, i1) the accumulator
// and (v2, i2) the element: p = v1 `dir` v2, or v1 is NaN (when `nan`); q = p, or v1 == v2 and
// i1 < i2; the result is (p ? v1 : v2, q ? i1 : i2) (the value chosen by q when `by_q`). The
// direction is spelled as 0/1 flags (gt, lt, eq: GE is gt + eq) for branch-free loops.
struct ArgReducer {
  uint8_t gt = 0, lt = 0, eq = 0, nan = 0, by_q = 0;
};
struct ReduceParams {
  std::vector<int64_t> dims;
  bool has_fast = false;
  BinaryOp fast = BinaryOp::kAdd;
  bool has_arg = false;  // the reducer is `arg` (two inputs: values, then integer indices)
  ArgReducer arg;
  // With has_arg: the indices are an iota along the one reduced dimension, so an element's index
  // is its position there; the step's index input is then the init index again and not read.
  bool arg_positions = false;
};
absl::StatusOr<KernelFn> SelectReduce(const ReduceParams& p, const std::vector<ElemKind>& kinds);
// Whether `fn` (from SelectReduce) is an arg reducer's loop, the only kernel that may take its
// indices as positions (ReduceParams::arg_positions); the generic reduction reads them.
bool IsArgReduceKernel(KernelFn fn);
// Whether `s` is a reduce step with a single-op reducer over one input (a candidate for
// absorbing the elementwise run that produces its input).
bool IsFastReduce(const Step& s);
// A reduce that computes its input with an absorbed elementwise run instead of reading it: in =
// the run's inputs, then the init value. The arrangement of input_dims and reduce.dims must be
// contiguous blocks (checked by the compiler with ReduceIsContiguous).
struct FusedReduceParams {
  FusedParams producer;   // the run; op input_op computes the reduction's input (no output)
  size_t input_op = 0;
  ReduceParams reduce;
  std::vector<int64_t> input_dims;
};
KernelFn FusedReduceKernel(const ReduceParams& p, ElemKind k);
bool ReduceIsContiguous(const std::vector<int64_t>& input_dims, const std::vector<int64_t>& dims);

// ---- linear algebra (kernels_dot.cc)
struct PackedSgemmB;
// An f32 product's extents (batch B, free M and N, contracting K) and the element strides of
// its operands' merged dimensions, for operands of dimensions lhs and rhs.
struct DotGeometry {
  Dims lhs, rhs;
  int64_t B = 0, M = 0, K = 0, N = 0;
  int64_t lb_s = 0, m_s = 0, lk_s = 0, rb_s = 0, rk_s = 0, n_s = 0;
};
struct DotParams {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
  // A constant right operand packed at compile time for the f32 kernel (no packing per run).
  std::shared_ptr<const PackedSgemmB> packed_rhs;
  // The geometry for the operand types the program gives (PlanDot), which the f32 kernel takes
  // when the operands have those dimensions instead of working it out on every run (a tenth of
  // a loop body's 1x64 @ 64x64 step). Null: none (the operands' dimensions do not merge).
  std::shared_ptr<const DotGeometry> geometry;
};
// Sets p.geometry for operands of types lhs and rhs (after the dimension lists are final).
void PlanDot(DotParams& p, const ArrayType& lhs, const ArrayType& rhs);
// Packs `rhs`, the constant right operand of the f32 dot_general step `s`, into its parameters
// when the fast kernel will take the product; false (nothing changed) otherwise.
bool PrepackDotRhs(Step& s, const Array& rhs);
absl::StatusOr<KernelFn> SelectDotGeneral(ElemKind lhs, ElemKind rhs, ElemKind out);
// chlo.ragged_dot (in: lhs, rhs, group_sizes; operands in the result's kind). The lhs ragged
// dimension is a free dimension (rhs then has a group dimension), a contracting dimension (the
// result gains a leading group dimension) or a batch dimension. group_sizes is [groups] or has
// the lhs batch dimensions first. A reference loop, not a fast path.
struct RaggedDotParams {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract;
  int64_t lhs_ragged = 0, rhs_group = -1;
  enum Mode : uint8_t { kNonContracting, kContracting, kBatch } mode = kNonContracting;
};
absl::StatusOr<KernelFn> SelectRaggedDot(ElemKind out);

// An f32 dot_general or convolution whose result only an elementwise run reads, with the run as
// its epilogue (bias, activation): each region of the product is finished by the run on the
// thread that computed it, while it is in cache. in = the product's operands, then the run's
// other inputs; out = the run's outputs. `product` and `epilogue` are the two original steps
// (the run's input product_input is the product's result), which run one after the other when
// the product does not take the fast kernel: the same results either way.
struct FusedProductParams {
  Step product, epilogue;
  int product_input = 0;
};
KernelFn FusedProductKernel();
// A gather whose result only a fused elementwise run reads (an embedding lookup scaled or
// shifted): for a gather of whole rows the run is evaluated on each block of rows as they are
// copied; other gathers run as the two steps (kernels_indexing.cc). epilogue.in[gather_input]
// is gather.out[0].
struct FusedGatherParams {
  Step gather, epilogue;
  int gather_input = 0;
};
KernelFn FusedGatherKernel();
// A scatter whose updates only a gather, or a FusedGatherParams step, makes (JAX's gradient of an
// embedding lookup scaled by constants): for a lookup of whole rows scattered as whole rows with
// a typed fold, each update row is read from the table, through the epilogue, when its block of
// the result takes it, and the gathered rows are never stored; otherwise the two steps run one
// after the other. in: updates.in, then the scatter's operand and indices; out: the scatter's.
// The epilogue's other inputs must be the same at every position (splats, broadcast scalars).
struct FusedScatterParams {
  Step updates, scatter;
};
KernelFn FusedScatterKernel();
// Whether `s` may be a FusedProductParams product (f32 dot_general or convolution steps).
bool IsEpilogueProduct(const Step& s);

// ---- control flow (kernels_control.cc)
KernelFn WhileKernel();
KernelFn IfKernel();
KernelFn CaseKernel();
// chlo.scan: in = num_inputs inputs, then the initial carries; out = the outputs, then the final
// carries; regions[0] maps (input slices, carries) to (output slices, next carries).
struct ScanParams {
  int64_t dimension = 0;
  size_t num_inputs = 0;
  bool reverse = false;
};
KernelFn ScanKernel();

// ---- checks (kernels_check.cc)
struct CheckParams {
  enum Kind : uint8_t { kEq, kAlmostEq, kClose, kEqResult } kind;
  double tolerance = 1e-4;
  int64_t max_ulp = 1, min_ulp = 0;
  bool has_expected_const = false;
  Array expected;  // for the *_const forms
};
KernelFn CheckKernel();
KernelFn PrintKernel();  // interpreter.print: the operand to stdout, then passed on
// interpreter.probe records a copy of its operand under probe_id (one per execution of the op)
// and passes it on; check.expect_serialized_eq compares its operand bit for bit with recording
// number `iter` of probe_id.
struct ProbeParams {
  std::string id;
  int64_t iter = 0;
};
KernelFn ProbeKernel();
KernelFn SerializedEqKernel();
// custom_call @shape_assertion(pred, ints...): fails the execution with error_message, its {i}
// replaced by integer operand i + 1, when pred is false (jax.export's shape checks).
struct ShapeAssertionParams { std::string message; };
KernelFn ShapeAssertionKernel();

}  // namespace openpjrt::cpu
