// Compile, serialize and execute. Executions are chained on their arguments' ready events and
// run on the client's pool (or inline for a synchronous client).
#include "src/runtime/executable.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <span>

#include "src/ir/bytecode.h"
#include "src/ir/hlo_proto.h"

#include <cstring>

#include "src/compiler/compile.h"
#include "src/cpu/comm/collectives.h"
#include "src/compiler/spmd/spmd.h"
#include "src/ir/parser.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"
#include "src/support/str.h"

namespace openpjrt::runtime {
namespace {

constexpr char kMagic[8] = {'O', 'P', 'J', 'R', 'T', 'E', 'X', 'E'};
constexpr uint32_t kSerialVersion = 1;
constexpr char kCompilerVersion[] = "openpjrt-cpu-0.1.0";

uint64_t Fnv1a(std::string_view bytes, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string Hex64(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = digits[v & 15];
  return s;
}

bool IsTranscendental(std::string_view op) {
  static const char* names[] = {"exponential", "exponential_minus_one", "log", "log_plus_one",
                                "logistic", "tanh", "sine", "cosine", "tan", "sqrt", "rsqrt",
                                "cbrt", "power", "atan2", "erf", "erf_inv", "erfc", "lgamma",
                                "digamma", "asin", "acos", "atan", "sinh", "cosh", "asinh",
                                "acosh", "atanh"};
  size_t dot = op.find('.');
  std::string_view base = dot == std::string_view::npos ? op : op.substr(dot + 1);
  for (const char* n : names)
    if (base == n) return true;
  return false;
}

int64_t Bytes(ir::Type t) {
  if (!t.IsTensor() || !t.HasStaticShape()) return 0;
  return t.NumElements() * ir::ByteSize(t.element_type().IsQuant() ? ir::ElemKind::kI8 : t.element_type().elem());
}

// An estimate from the program text: 2 flops per multiply-add in dot_general and convolution,
// one per result element elsewhere.
// A scalar integer constant's value.
bool ConstantInt(const ir::Value* v, int64_t* out) {
  std::vector<int64_t> vals;
  if (!v || !v->def || v->def->name() != "stablehlo.constant" || !ir::GetI64List(v->def->attr("value"), &vals) ||
      vals.size() != 1)
    return false;
  *out = vals[0];
  return true;
}

// The iterations of a while loop of the form jax.lax.fori_loop and scan emit: a counter that
// starts at a constant, is compared LT against a constant in the condition and grows by a
// positive constant in the body. -1 for any other loop.
int64_t TripCount(const ir::Operation& w) {
  if (w.regions.size() != 2) return -1;
  const ir::Block* cond = w.regions[0]->front();
  const ir::Block* body = w.regions[1]->front();
  if (!cond || !body || cond->ops.empty() || body->ops.empty()) return -1;
  const ir::Operation& cret = *cond->ops.back();
  if (cret.operands.size() != 1 || !cret.operands[0]->def) return -1;
  const ir::Operation& cmp = *cret.operands[0]->def;
  ir::Attribute dir = cmp.attr("comparison_direction");
  if (cmp.name() != "stablehlo.compare" || cmp.operands.size() != 2 || !dir || dir.kind() != ir::AttrKind::kEnum ||
      dir->str != "LT")
    return -1;
  const ir::Value* counter = cmp.operands[0];
  int64_t limit = 0, init = 0, step = 0;
  if (counter->def || counter->block != cond || !ConstantInt(cmp.operands[1], &limit)) return -1;
  const size_t i = counter->index;
  const ir::Operation& bret = *body->ops.back();
  if (i >= w.operands.size() || i >= bret.operands.size() || !ConstantInt(w.operands[i], &init)) return -1;
  const ir::Operation* add = bret.operands[i]->def;
  if (!add || add->name() != "stablehlo.add" || add->operands.size() != 2) return -1;
  const ir::Value* arg = body->args.size() > i ? body->args[i].get() : nullptr;
  const bool lhs = add->operands[0] == arg && ConstantInt(add->operands[1], &step);
  const bool rhs = add->operands[1] == arg && ConstantInt(add->operands[0], &step);
  if (!(lhs || rhs) || step <= 0) return -1;
  return limit <= init ? 0 : (limit - init + step - 1) / step;
}

// The work of the loops in `op`, in flop-equivalents: each iteration's ops (counted as Accumulate
// counts them) plus a fixed cost per iteration for the executor's own overhead (about a
// microsecond: the slots a body fills and clears). -1 when some loop's trip count is unknown.
constexpr double kFlopsPerIteration = 1e4;
void Accumulate(const ir::Operation& op, CostAnalysis* cost);
double LoopWork(const ir::Operation& op) {
  double work = 0;
  for (const auto& region : op.regions)
    for (const auto& block : region->blocks)
      for (const auto& inner : block->ops) {
        const double nested = LoopWork(*inner);  // loops inside: once per iteration of this one
        if (nested < 0) return -1;
        if (inner->name() != "stablehlo.while") {
          work += nested;
          continue;
        }
        const int64_t trips = TripCount(*inner);
        if (trips < 0) return -1;
        CostAnalysis body;
        for (const auto& r : inner->regions)
          for (const auto& b : r->blocks)
            for (const auto& o : b->ops) Accumulate(*o, &body);
        work += static_cast<double>(trips) * (body.flops + kFlopsPerIteration + nested);
      }
  return work;
}

void Accumulate(const ir::Operation& op, CostAnalysis* cost) {
  std::string_view name = op.name();
  const bool structural = name == "func.func" || name == "func.return" || name == "builtin.module" ||
                          name == "stablehlo.return" || name == "stablehlo.constant";
  if (!structural && op.num_results() == 1) {
    const ir::Type out = op.result(0)->type;
    const double elems = out.IsTensor() && out.HasStaticShape() ? out.NumElements() : 0;
    double flops = elems;
    if (name == "stablehlo.dot_general" || name == "stablehlo.dot") {
      ir::Type lhs = op.operands[0]->type, rhs = op.operands[1]->type;
      std::vector<int64_t> contracting;
      ir::Attribute dn = op.attr("dot_dimension_numbers");
      if (dn) ir::GetI64List(dn.Field("lhs_contracting_dimensions"), &contracting);
      else if (lhs.rank() > 0) contracting = {lhs.rank() - 1};
      double k = 1;
      for (int64_t d : contracting)
        if (d >= 0 && d < lhs.rank()) k *= static_cast<double>(lhs.shape()[d]);
      flops = 2 * elems * k;
      (void)rhs;
    } else if (name == "stablehlo.convolution" && op.operands.size() == 2) {
      ir::Type kernel = op.operands[1]->type;
      if (kernel.IsTensor() && kernel.HasStaticShape() && kernel.rank() > 0) {
        int64_t out_features = 1;
        for (int64_t d : kernel.shape()) out_features = std::max(out_features, d);
        ir::Attribute dn = op.attr("dimension_numbers");
        int64_t idx = -1;
        if (dn && ir::GetInt(dn.Field("kernel_output_feature_dimension"), &idx) && idx >= 0 &&
            idx < kernel.rank())
          out_features = kernel.shape()[idx];
        flops = 2 * elems * static_cast<double>(kernel.NumElements()) /
                static_cast<double>(std::max<int64_t>(1, out_features));
      }
    }
    cost->flops += flops;
    if (IsTranscendental(name)) cost->transcendentals += elems;
  }
  if (!structural) {
    for (const ir::Value* v : op.operands) cost->bytes_accessed += Bytes(v->type);
    for (size_t i = 0; i < op.num_results(); ++i) cost->bytes_accessed += Bytes(op.result(i)->type);
  }
  for (const auto& region : op.regions)
    for (const auto& block : region->blocks)
      for (const auto& inner : block->ops) Accumulate(*inner, cost);
}

// The ABI shape of a parameter or result; dynamic dimensions (only in an entry point that is
// specialised at Execute) read as -1.
absl::StatusOr<BufferShape> ShapeOf(ir::Type t, const char* what, size_t i) {
  if (t.IsToken()) return BufferShape{{}, true};
  if (t.IsTensor() && !t.element_type().IsQuant() && t.element_type().IsElement()) {
    BufferShape s;
    s.type.elem = t.element_type().elem();
    for (int64_t d : t.shape()) s.type.dims.push_back(d == ir::kDynamic ? -1 : d);
    return s;
  }
  return absl::UnimplementedError(StrCat("the plugin cannot pass ", what, " #", i, " of type ",
                                         ir::PrintType(t), " (tuples and quantized types are not "
                                         "supported at the ABI yet)"));
}

bool IsDonor(const ir::Attribute& dict) {
  if (!dict || dict.kind() != ir::AttrKind::kDictionary) return false;
  if (dict.Field("tf.aliasing_output")) return true;
  ir::Attribute donor = dict.Field("jax.buffer_donor");
  return donor && donor.kind() == ir::AttrKind::kBool && donor->int_value != 0;
}

void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutField(std::string* out, std::string_view s) {
  PutU64(out, s.size());
  out->append(s);
}

}  // namespace

absl::StatusOr<std::shared_ptr<Executable>> Executable::Compile(std::string_view code,
                                                                std::string_view format,
                                                                CompileOptions options) {
  return Build(code, format, std::move(options), nullptr);
}

absl::StatusOr<std::shared_ptr<Executable>> Executable::Build(std::string_view code, std::string_view format,
                                                              CompileOptions options,
                                                              const std::vector<BufferShape>* specialise) {
  auto exe = std::make_shared<Executable>();
  exe->format_ = std::string(format);
  exe->code_ = std::string(code);
  ir::HloDevices devices;
  if (options.num_replicas > 0) devices.num_replicas = options.num_replicas;
  if (options.num_partitions > 0) devices.num_partitions = options.num_partitions;
  auto module = ir::ParseProgramOfFormat(exe->code_, format, "<program>", devices);
  if (!module.ok()) {
    // An HLO opcode without a conversion stays UNIMPLEMENTED; everything else is the caller's input.
    if (module.status().code() == absl::StatusCode::kUnimplemented) return module.status();
    return absl::InvalidArgumentError(module.status().message());
  }
  exe->module_ = std::move(*module);
  if (absl::Status s = ir::VerifyModule(*exe->module_); !s.ok())
    return absl::InvalidArgumentError(s.message());
  ir::Operation* entry = const_cast<ir::Operation*>(compiler::FindEntry(*exe->module_, ""));
  bool dynamic = false;
  if (entry && !entry->regions.empty() && entry->regions[0]->front()) {
    ir::Block& body = *entry->regions[0]->front();
    for (const auto& a : body.args) dynamic = dynamic || (a->type.IsTensor() && !a->type.HasStaticShape());
    if (dynamic && specialise) {
      // The arguments' static types replace the dynamic ones; refinement does the rest.
      std::vector<std::vector<int64_t>> dims;
      for (const BufferShape& s : *specialise) dims.emplace_back(s.type.dims.begin(), s.type.dims.end());
      if (absl::Status s = compiler::SpecialiseEntry(*exe->module_, *entry, dims); !s.ok()) return s;
      dynamic = false;
    }
  }
  int64_t v = 0;
  const int64_t attr_replicas = ir::GetInt(exe->module_->op->attr("mhlo.num_replicas"), &v) ? v : 1;
  const int64_t attr_partitions =
      ir::GetInt(exe->module_->op->attr("mhlo.num_partitions"), &v) ? v : 1;
  int64_t replicas = options.num_replicas ? options.num_replicas : attr_replicas;
  int64_t partitions = options.num_partitions ? options.num_partitions : attr_partitions;
  if (replicas < 1 || partitions < 1 || replicas * partitions > 4096)
    return absl::InvalidArgumentError(StrCat("unusable device count: ", replicas, " replicas x ",
                                             partitions, " partitions"));
  // A program for several partitions becomes the program each partition runs on its shards.
  compiler::spmd::PartitionInfo shards;
  if (entry && !dynamic) {
    if (absl::Status s = compiler::spmd::PartitionModule(*exe->module_, *entry, partitions, replicas, &shards);
        !s.ok())
      return s;
    // OPENPJRT_DUMP_DIR=DIR also writes each partitioned program to DIR/partitioned-N.mlir.
    if (const char* dir = std::getenv("OPENPJRT_DUMP_DIR"); dir && *dir && !shards.params.empty()) {
      static std::atomic<int> counter{0};
      std::ofstream(StrCat(dir, "/partitioned-", counter++, ".mlir")) << ir::PrintModule(*exe->module_);
    }
    // The partitioner's own ops are checked like the program's: a malformed one is its bug,
    // reported as such rather than run.
    if (!shards.params.empty())
      if (absl::Status s = ir::VerifyModule(*exe->module_); !s.ok())
        return absl::InternalError(StrCat("the partitioned program is malformed: ", s.message()));
  }
  if (!dynamic) {
    auto program = compiler::Compile(*exe->module_);
    if (!program.ok()) return program.status();
    exe->program_ = *program;
    exe->name_ = exe->program_->name;
  } else {
    // Compiled at Execute for each set of argument shapes (Specialise).
    exe->dynamic_entry_ = true;
    exe->name_ = std::string(ir::FuncName(*entry));
  }

  ir::Type ft = ir::FuncType(*entry);
  ir::Attribute arg_attrs = entry->attr("arg_attrs");
  for (size_t i = 0; i < ft.inputs().size(); ++i) {
    auto s = ShapeOf(ft.inputs()[i], "argument", i);
    if (!s.ok()) return s.status();
    exe->arg_shapes_.push_back(*s);
    bool donor = arg_attrs && arg_attrs.kind() == ir::AttrKind::kArray &&
                 i < arg_attrs->elements.size() && IsDonor(arg_attrs->elements[i]);
    exe->donated_args_.push_back(donor);
  }
  for (size_t i = 0; i < ft.results().size(); ++i) {
    auto s = ShapeOf(ft.results()[i], "result", i);
    if (!s.ok()) return s.status();
    exe->result_shapes_.push_back(*s);
  }
  exe->param_shardings_.resize(ft.inputs().size());
  exe->output_shardings_.resize(ft.results().size());
  for (size_t i = 0; i < shards.params.size() && i < ft.inputs().size(); ++i)
    exe->param_shardings_[i] = compiler::spmd::OpShardingProto(shards.params[i]);
  for (size_t i = 0; i < shards.results.size() && i < ft.results().size(); ++i)
    exe->output_shardings_[i] = compiler::spmd::OpShardingProto(shards.results[i]);

  if (!options.device_assignment.empty() &&
      (static_cast<int64_t>(options.device_assignment.size()) != replicas ||
       static_cast<int64_t>(options.device_assignment[0].size()) != partitions))
    return absl::InvalidArgumentError(
        StrCat("compile_options: the device assignment is ", options.device_assignment.size(), "x",
               options.device_assignment[0].size(), " but the program needs ", replicas,
               " replicas x ", partitions, " partitions"));
  exe->num_replicas_ = static_cast<int>(replicas);
  exe->num_partitions_ = static_cast<int>(partitions);
  options.num_replicas = replicas;
  options.num_partitions = partitions;
  if (options.serialized.empty()) options.serialized = SerializeCompileOptions(options);
  exe->options_ = std::move(options);

  Accumulate(*exe->module_->op, &exe->cost_);
  // Handing a run to the pool costs a thread wake-up at the start and another for the waiting
  // caller at the end, and on a VM whose idle vCPU sleeps the second is slow: an MLP training
  // step (410 MFLOP, 36 MB of traffic, ~1.5 ms of work at 2 threads) measured 90 us from
  // Execute to the start of the run and 135 us from its end to the caller's return, 570 us in a
  // quarter of the runs (median 1.80 ms through the pool, 1.44 ms on the caller's thread). So
  // every program of up to ~10 GFLOP and 1 GiB of memory traffic (tens of milliseconds) runs on
  // the thread that makes it runnable, which also takes its share of the intra-op pieces. Loops
  // count each iteration (LoopWork: fori_loop and scan have constant trip counts); programs with
  // a loop whose trip count is unknown, and larger ones, go to the pool, where the handoff costs
  // a few percent at most. (A 200-step scan RNN on one core: 549 us through the pool, 438 us
  // inline.)
  const double loops = LoopWork(*exe->module_->op);
  exe->runs_inline_ = !exe->dynamic_entry_ && loops >= 0 && exe->cost_.flops + loops < 1e10 &&
                      exe->cost_.bytes_accessed < (int64_t{1} << 30);
  exe->optimized_text_ = ir::PrintModule(*exe->module_);
  uint64_t h = Fnv1a(kCompilerVersion);
  h = Fnv1a(exe->format_, h);
  h = Fnv1a(exe->code_, h);
  h = Fnv1a(exe->options_.serialized, h);
  exe->fingerprint_ = Hex64(h);
  exe->code_size_ = exe->program_ ? static_cast<int64_t>(exe->program_->program->steps.size()) * 64 : 0;
  return exe;
}

absl::StatusOr<std::shared_ptr<const Executable>> Executable::Specialise(
    const std::vector<BufferShape>& args) const {
  if (args.size() != arg_shapes_.size())
    return absl::InvalidArgumentError(StrCat("@", name_, " takes ", arg_shapes_.size(), " arguments, got ", args.size()));
  std::string key;
  for (size_t i = 0; i < args.size(); ++i) {
    const BufferShape& want = arg_shapes_[i];
    bool fits = args[i].token == want.token && args[i].type.elem == want.type.elem &&
                args[i].type.dims.size() == want.type.dims.size();
    for (size_t d = 0; fits && d < want.type.dims.size(); ++d)
      fits = want.type.dims[d] == -1 || want.type.dims[d] == args[i].type.dims[d];
    if (!fits)
      return absl::InvalidArgumentError(StrCat("argument #", i, " is ", args[i].ToString(), ", @", name_,
                                               " expects ", want.ToString(), " (-1: any size)"));
    StrAppend(&key, args[i].ToString(), ";");
  }
  std::lock_guard<std::mutex> lock(specialised_mu_);
  auto it = specialised_.find(key);
  if (it != specialised_.end()) return it->second;
  if (specialised_.size() >= 64) specialised_.clear();  // bound the cache; entries are shared
  auto exe = Build(code_, format_, options_, &args);
  if (!exe.ok()) return exe.status();
  std::shared_ptr<const Executable> result = *std::move(exe);
  specialised_.emplace(key, result);
  return result;
}

std::string Executable::Serialize() const {
  std::string out(kMagic, sizeof(kMagic));
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(kSerialVersion >> (8 * i)));
  PutField(&out, kCompilerVersion);
  PutField(&out, format_);
  PutField(&out, code_);
  PutField(&out, options_.serialized);
  PutU64(&out, Fnv1a(out));
  return out;
}

absl::StatusOr<std::shared_ptr<Executable>> Executable::Deserialize(std::string_view bytes) {
  auto bad = [](const std::string& why) {
    return absl::InvalidArgumentError(StrCat("serialized executable: ", why));
  };
  if (bytes.size() < sizeof(kMagic) + 4 + 8 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)))
    return bad("not an openpjrt CPU executable (the magic bytes 'OPJRTEXE' are missing)");
  size_t pos = sizeof(kMagic);
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i) version |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[pos + i])) << (8 * i);
  pos += 4;
  if (version != kSerialVersion)
    return bad(StrCat("format version ", version, " is not the supported version ", kSerialVersion));
  const std::string_view body = bytes.substr(0, bytes.size() - 8);
  uint64_t sum = 0;
  for (int i = 0; i < 8; ++i)
    sum |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[bytes.size() - 8 + i])) << (8 * i);
  if (sum != Fnv1a(body)) return bad("checksum mismatch (the bytes are corrupt or truncated)");
  std::string_view fields[4];
  for (auto& f : fields) {
    if (body.size() - pos < 8) return bad("truncated field header");
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= static_cast<uint64_t>(static_cast<uint8_t>(body[pos + i])) << (8 * i);
    pos += 8;
    if (n > body.size() - pos) return bad("field runs past the end");
    f = body.substr(pos, n);
    pos += n;
  }
  if (fields[0] != kCompilerVersion)
    return bad(StrCat("written by '", fields[0], "', this is '", kCompilerVersion, "'"));
  auto options = ParseCompileOptions(fields[3]);
  if (!options.ok()) return options.status();
  return Compile(fields[2], fields[1], *options);
}

absl::StatusOr<std::unique_ptr<LoadedExecutable>> LoadedExecutable::Load(
    Client* client, std::shared_ptr<const Executable> executable) {
  auto le = std::make_unique<LoadedExecutable>();
  le->client_ = client;
  const int r = executable->num_replicas(), p = executable->num_partitions();
  le->assignment_ = executable->options().device_assignment;
  if (le->assignment_.empty()) {
    if (r * p > static_cast<int>(client->devices().size()))
      return absl::InvalidArgumentError(
          StrCat("the program needs ", r, " replicas x ", p, " partitions = ", r * p,
                 " devices; the client has ", client->devices().size(),
                 " (raise the create option cpu_device_count)"));
    le->assignment_.assign(r, std::vector<int64_t>(p));
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < p; ++j) le->assignment_[i][j] = i * p + j;
  }
  for (const auto& row : le->assignment_)
    for (int64_t id : row) {
      Device* d = client->LookupDevice(static_cast<int>(id));
      if (!d)
        return absl::InvalidArgumentError(StrCat("compile_options: the device assignment names device ",
                                                 id, "; the client has devices 0..",
                                                 client->devices().size() - 1));
      le->devices_.push_back(d);
    }
  for (size_t i = 0; i < le->devices_.size(); ++i) {
    Device* d = le->devices_[i];
    if (d->addressable()) {
      le->addressable_.push_back(d);
      le->addressable_index_.push_back(static_cast<int>(i));
    }
    if (std::find(le->processes_.begin(), le->processes_.end(), d->process_index()) == le->processes_.end())
      le->processes_.push_back(d->process_index());
  }
  std::sort(le->processes_.begin(), le->processes_.end());
  for (Device* d : le->devices_)
    le->process_position_.push_back(static_cast<int>(
        std::lower_bound(le->processes_.begin(), le->processes_.end(), d->process_index()) - le->processes_.begin()));
  le->executable_ = std::move(executable);
  return le;
}

namespace {

// What a thread keeps between fast-path executions, so that a tiny program's dispatch does not
// allocate vectors and slot tables each time.
struct FastScratch {
  cpu::ExecState state;
  std::vector<cpu::RtValue> args, out;
  std::vector<cpu::CheckFailure> checks;
  bool busy = false;  // an FFI handler may execute another program on this thread
};

}  // namespace

MemoryReservation& MemoryReservation::operator=(MemoryReservation&& o) noexcept {
  if (this != &o) {
    Release();
    held_ = std::move(o.held_);
    o.held_.clear();
  }
  return *this;
}

void MemoryReservation::Release() {
  for (auto& [stats, bytes] : held_) stats->Unreserve(bytes);
  held_.clear();
}

int64_t MemoryReservation::bytes() const {
  int64_t n = 0;
  for (const auto& h : held_) n += h.second;
  return n;
}

ExecuteResult LoadedExecutable::ExecuteNow(const Executable& exe, Device* device, ExecuteRequest& req,
                                           const std::vector<bool>& donate) {
  thread_local FastScratch tls;
  std::optional<FastScratch> local;  // only when an FFI handler runs a program from inside one
  FastScratch& x = tls.busy ? local.emplace() : tls;
  x.busy = true;
  x.args.clear();
  x.out.clear();
  x.checks.clear();
  absl::Status status;
  for (size_t i = 0; i < req.args[0].size() && status.ok(); ++i) {
    Buffer& b = *req.args[0][i];
    if (b.shape().token) {
      x.args.push_back(cpu::RtValue::Token());
      continue;
    }
    absl::StatusOr<cpu::Array> a = absl::UnknownError("");
    if (donate[i]) {
      b.MarkDonated();
      a = b.TakeDonated();
    } else {
      a = b.GetArray();
    }
    if (a.ok()) x.args.push_back(cpu::RtValue::Of(*std::move(a)));
    else status = absl::Status(a.status().code(), StrCat("argument #", i, ": ", a.status().message()));
  }
  if (status.ok()) {
    cpu::ExecState& st = x.state;
    st.status = absl::OkStatus();
    st.check_failures = &x.checks;
    st.checks_run = 0;
    st.host = nullptr;
    st.step_budget = -1;
    st.parallel = client_->parallel();
    st.ffi_user_data = req.ffi_user_data.get();
    status = exe.program().RunWith(st, std::span<cpu::RtValue>(x.args), &x.out);
    st.ffi_user_data = nullptr;
  }
  x.args.clear();
  if (status.ok() && !x.checks.empty()) {
    std::string why;
    for (const auto& c : x.checks)
      StrAppend(&why, why.empty() ? "" : "; ", "<program>:", c.loc.line, ":", c.loc.col, ": ", c.message);
    status = absl::FailedPreconditionError(StrCat("check failed: ", why));
  }
  const auto& shapes = exe.result_shapes();
  ExecuteResult result;
  result.outputs.resize(1);
  result.outputs[0].reserve(shapes.size());
  Memory* memory = device->default_memory();
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!status.ok()) {
      result.outputs[0].push_back(Buffer::CreateError(memory, shapes[i], status));
      continue;
    }
    cpu::RtValue& v = x.out[i];
    result.outputs[0].push_back(Buffer::CreateReady(
        memory, shapes[i], v.kind == cpu::RtValue::Kind::kArray ? std::move(v.array) : cpu::Array()));
  }
  result.device_done.push_back(Event::Ready(status));
  x.out.clear();
  x.busy = false;
  return result;
}

absl::Status LoadedExecutable::Reserve(const Executable& exe, std::span<Device* const> devices,
                                       const ExecuteRequest& req, const std::vector<bool>& donate,
                                       MemoryReservation* out) {
  const int64_t limit = client_->options().memory_limit_bytes;
  if (limit <= 0) return absl::OkStatus();
  int64_t outputs = 0;
  for (const BufferShape& s : exe.result_shapes()) outputs += s.token ? 0 : s.type.ByteSize();
  if (outputs == 0) return absl::OkStatus();
  if (outputs > limit)
    return absl::ResourceExhaustedError(StrCat("device ", devices[0]->id(), ": the outputs need ", outputs,
                                               " bytes; the ", limit, "-byte limit can never hold them"));
  // Donated arguments' storage is reused or freed by the run itself: it does not have to fit twice.
  std::vector<int64_t> need(devices.size(), outputs);
  for (size_t d = 0; d < devices.size(); ++d) {
    for (size_t i = 0; i < req.args[d].size() && i < donate.size(); ++i)
      if (donate[i]) need[d] -= req.args[d][i]->on_device_size();
    need[d] = std::max<int64_t>(need[d], 0);
  }
  auto try_all = [&](MemoryReservation* r, uint64_t* seen) -> size_t {  // the failing device, or size()
    for (size_t d = 0; d < devices.size(); ++d) {
      MemoryStats& stats = *devices[d]->stats_ptr();
      if (seen) *seen = stats.free_epoch();
      if (!stats.TryReserve(need[d], limit)) {
        r->Release();  // all or nothing: no device keeps a partial reservation while this one waits
        return d;
      }
      r->Add(devices[d]->stats_ptr(), need[d]);
    }
    return devices.size();
  };
  if (try_all(out, nullptr) == devices.size()) return absl::OkStatus();
  // OOM retry: wait for frees and for in-flight executions to turn reservations into outputs.
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(client_->options().oom_retry_timeout_ms);
  for (Device* d : devices) d->stats_ptr()->BeginWait();
  absl::Status result;
  for (;;) {
    uint64_t seen = 0;
    const size_t failed = try_all(out, &seen);
    if (failed == devices.size()) break;
    MemoryStats& stats = *devices[failed]->stats_ptr();
    if (!stats.WaitForFree(seen, deadline) && Clock::now() >= deadline) {
      const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
      result = absl::ResourceExhaustedError(StrCat(
          "device ", devices[failed]->id(), ": the outputs need ", need[failed], " bytes; ",
          stats.bytes_in_use.load(), " of the ", limit, "-byte limit are in use and ", stats.bytes_reserved.load(),
          " reserved by executions in flight, and waiting ", waited, " ms (oom_retry_timeout_ms) freed too little"));
      break;
    }
  }
  for (Device* d : devices) d->stats_ptr()->EndWait();
  return result;
}

absl::Status LoadedExecutable::PrepareIn(ExecuteRequest& req, PreparedExecution::State& p) {
  if (deleted_)
    return absl::FailedPreconditionError("PJRT_LoadedExecutable_Execute: the executable was deleted");
  p.exe = executable_;
  if (p.exe->dynamic_entry() && !req.args.empty()) {
    // An entry point with dynamic argument types: compiled for these arguments' shapes (cached).
    std::vector<BufferShape> shapes;
    for (const BufferRef& b : req.args[0]) {
      if (!b) return absl::InvalidArgumentError("a null argument");
      shapes.push_back(b->shape());
    }
    auto s = p.exe->Specialise(shapes);
    if (!s.ok()) return s.status();
    p.exe = *std::move(s);
  }
  const Executable& exe = *p.exe;
  // The devices to run on: the executable's own, or the one execute_device names.
  std::span<Device* const> devices(addressable_);
  p.spans_processes = processes_.size() > 1 && !req.execute_device;
  if (p.spans_processes && addressable_.empty())
    return absl::InvalidArgumentError(StrCat("the executable runs on no device of process ",
                                             client_->process_index(), "; nothing to execute here"));
  if (p.spans_processes && !client_->coordinator())
    return absl::InternalError("an execution spans processes but the client has no coordinator");
  if (req.execute_device) {
    if (!req.execute_device->addressable())
      return absl::InvalidArgumentError(StrCat("PJRT_LoadedExecutable_Execute_Args.execute_device is device ",
                                               req.execute_device->id(), " of process ",
                                               req.execute_device->process_index(), ", not this process's"));
    if (devices_.size() != 1 && !exe.options().compile_portable_executable)
      return absl::InvalidArgumentError(StrCat(
          "PJRT_LoadedExecutable_Execute_Args.execute_device is set, but the executable runs on ",
          devices_.size(), " devices and was not compiled portable (compile_portable_executable)"));
    devices = std::span<Device* const>(&req.execute_device, 1);
  }
  const size_t n = devices.size();
  if (req.args.size() != n)
    return absl::InvalidArgumentError(StrCat("PJRT_LoadedExecutable_Execute_Args.num_devices is ",
                                             req.args.size(), ", the executable runs on ", n,
                                             " devices"));
  if (!req.hosts.empty() && req.hosts.size() != n)
    return absl::InvalidArgumentError(StrCat("host transfer callbacks for ", req.hosts.size(),
                                             " devices; the execution has ", n));
  for (size_t i = 0; i < req.wait_for.size(); ++i)
    if (!req.wait_for[i]) return absl::InvalidArgumentError(StrCat("wait_for[", i, "] is null"));
  const auto& arg_shapes = exe.arg_shapes();
  for (size_t d = 0; d < n; ++d) {
    if (req.args[d].size() != arg_shapes.size())
      return absl::InvalidArgumentError(StrCat("PJRT_LoadedExecutable_Execute_Args.num_args is ",
                                               req.args[d].size(), ", @", exe.name(), " takes ",
                                               arg_shapes.size()));
    for (size_t i = 0; i < arg_shapes.size(); ++i) {
      const BufferRef& b = req.args[d][i];
      if (!(b->shape() == arg_shapes[i]))
        return absl::InvalidArgumentError(StrCat("argument #", i, " for device ", d, " is ",
                                                 b->shape().ToString(), ", @", exe.name(),
                                                 " expects ", arg_shapes[i].ToString()));
      if (b->device() != devices[d])
        return absl::InvalidArgumentError(StrCat("argument #", i, " for device ", d, " lives on device ",
                                                 b->device()->id(), ", the execution runs on device ",
                                                 devices[d]->id()));
      if (b->IsDeleted())
        return absl::FailedPreconditionError(
            StrCat("argument #", i, " for device ", d, " was deleted or donated"));
    }
  }
  // The donation flags: the executable's own unless the caller excluded some arguments.
  if (!req.non_donatable.empty()) {
    p.adjusted_donate = exe.donated_args();
    for (int64_t i : req.non_donatable)
      if (i >= 0 && i < static_cast<int64_t>(p.adjusted_donate.size())) p.adjusted_donate[i] = false;
  }
  const std::vector<bool>& donate = req.non_donatable.empty() ? exe.donated_args() : p.adjusted_donate;
  return Reserve(exe, devices, req, donate, &p.reservation);
}

absl::StatusOr<PreparedExecution> LoadedExecutable::Prepare(ExecuteRequest req) {
  PreparedExecution p;
  p.req_ = std::move(req);
  if (absl::Status s = PrepareIn(p.req_, p.state_); !s.ok()) return s;
  return p;
}

ExecuteResult LoadedExecutable::Launch(PreparedExecution&& p) { return LaunchIn(p.req_, p.state_); }

absl::StatusOr<ExecuteResult> LoadedExecutable::Execute(ExecuteRequest req) {
  PreparedExecution::State st;
  if (absl::Status s = PrepareIn(req, st); !s.ok()) return s;
  return LaunchIn(req, st);
}

ExecuteResult LoadedExecutable::LaunchIn(ExecuteRequest& req, PreparedExecution::State& p) {
  std::shared_ptr<const Executable> chosen = std::move(p.exe);
  const Executable& exe = *chosen;
  std::span<Device* const> devices = req.execute_device ? std::span<Device* const>(&req.execute_device, 1)
                                                        : std::span<Device* const>(addressable_);
  const size_t n = devices.size();
  const std::vector<bool>& donate = req.non_donatable.empty() ? exe.donated_args() : p.adjusted_donate;
  const auto& arg_shapes = exe.arg_shapes();
  const bool spans_processes = p.spans_processes;
  const bool single = n == 1 && !spans_processes;
  Client* client = client_;
  // Small single-device programs run on the thread that makes them runnable (usually the
  // caller's), without a sleep/wake handoff; the rest go to the client's pool.
  const bool inline_run = !client->options().asynchronous ||
                          (single && exe.runs_inline() && req.hosts.empty());
  // The stream's previous execution, and the control dependencies, come before this one.
  std::vector<EventRef> waits = std::move(req.wait_for);
  std::vector<EventRef> done_events;
  if (req.stream_id != 0) {
    for (size_t d = 0; d < n; ++d) done_events.push_back(Event::Create());
    // Order only: the previous execution's failure is its own, not this one's.
    for (EventRef& e : client->SwapStreamTail(req.stream_id, done_events)) {
      if (e->IsReady()) continue;
      EventRef finished = Event::Create();
      e->OnReady([finished](const absl::Status&) { finished->Set(absl::OkStatus()); });
      waits.push_back(std::move(finished));
    }
  }
  if (single && inline_run && req.hosts.empty()) {
    bool defined = true;
    for (const BufferRef& b : req.args[0])
      defined = defined && b->ready_event()->IsReady() && b->ready_event()->status().ok();
    for (const EventRef& e : waits) defined = defined && e->IsReady() && e->status().ok();
    if (defined) {
      ExecuteResult r = ExecuteNow(exe, devices[0], req, donate);
      p.reservation.Release();  // the outputs exist (or failed): their bytes are counted as in use
      if (!done_events.empty()) {
        done_events[0]->Set(r.device_done[0]->status());
        r.device_done[0] = done_events[0];
      }
      return r;
    }
  }
  for (size_t d = 0; d < n; ++d)
    for (const BufferRef& b : req.args[d]) waits.push_back(b->ready_event());
  ExecuteResult result;
  result.outputs.resize(n);
  for (size_t d = 0; d < n; ++d) {
    for (const BufferShape& s : exe.result_shapes())
      result.outputs[d].push_back(Buffer::CreatePending(devices[d]->default_memory(), s));
    result.device_done.push_back(done_events.empty() ? Event::Create() : done_events[d]);
  }
  for (size_t d = 0; d < n; ++d)
    for (size_t i = 0; i < arg_shapes.size(); ++i)
      if (donate[i]) req.args[d][i]->MarkDonated();
      else req.args[d][i]->Hold();

  auto self = chosen;
  auto args = std::make_shared<std::vector<BufferList>>(std::make_move_iterator(req.args.begin()),
                                                        std::make_move_iterator(req.args.end()));
  auto outs = result.outputs;
  auto done = result.device_done;
  auto hosts = std::make_shared<std::vector<std::shared_ptr<cpu::HostTransfers>>>(std::move(req.hosts));
  auto reservation = std::make_shared<MemoryReservation>(std::move(p.reservation));
  cpu::Parallel* parallel = client_->parallel();  // the client outlives its executions
  std::shared_ptr<const cpu::FfiUserData> ffi = req.ffi_user_data;
  // Across processes: the launch number is taken now, in launch order, which every process shares.
  std::shared_ptr<cpu::RemoteDevices> remote;
  std::shared_ptr<cpu::ProcessExchange> exchange;
  if (spans_processes) {
    exchange = client_->coordinator()->BeginExecution(processes_);
    remote = std::make_shared<cpu::RemoteDevices>();
    remote->exchange = exchange.get();
    remote->process_of = process_position_;
    remote->self = static_cast<int>(std::lower_bound(processes_.begin(), processes_.end(), client_->process_index()) -
                                    processes_.begin());
  }
  auto run = [self, args, outs, done, donate, single, hosts, parallel, ffi, remote, exchange,
              reservation](absl::Status ready) {
    bool ran = false;
    auto finish = [&](const absl::Status& s) {
      // Failing before the program ran: the other processes would wait at its first exchange.
      if (exchange && !ran) exchange->Abandon(0, StrCat("before running: ", s.message()));
      for (size_t d = 0; d < outs.size(); ++d)
        for (const BufferRef& o : outs[d]) o->Fail(s);
      reservation->Release();
      for (size_t d = 0; d < outs.size(); ++d) done[d]->Set(s);
    };
    if (!ready.ok()) return finish(ready);
    std::vector<std::vector<cpu::RtValue>> values(args->size());
    for (size_t d = 0; d < args->size(); ++d) {
      for (size_t i = 0; i < (*args)[d].size(); ++i) {
        Buffer& b = *(*args)[d][i];
        if (b.shape().token) {
          values[d].push_back(cpu::RtValue::Token());
          continue;
        }
        auto a = donate[i] ? b.TakeDonated() : b.TakeHeld();
        if (!a.ok())
          return finish(absl::Status(a.status().code(),
                                     StrCat("argument #", i, ": ", a.status().message())));
        values[d].push_back(cpu::RtValue::Of(*a));
      }
    }
    std::vector<cpu::CheckFailure> checks;
    absl::StatusOr<std::vector<std::vector<cpu::RtValue>>> results =
        absl::UnknownError("not run");
    std::vector<cpu::HostTransfers*> host_ptrs;
    for (const auto& h : *hosts) host_ptrs.push_back(h.get());
    if (single) {
      auto r = self->program().Run(std::move(values[0]), &checks, nullptr, -1,
                                   host_ptrs.empty() ? nullptr : host_ptrs[0], parallel, ffi.get());
      if (r.ok()) results = std::vector<std::vector<cpu::RtValue>>{std::move(*r)};
      else results = r.status();
    } else {
      ran = true;
      results = self->program().RunReplicated(self->num_replicas(), self->num_partitions(),
                                              std::move(values), &checks, nullptr,
                                              host_ptrs.empty() ? nullptr : &host_ptrs, parallel, ffi.get(),
                                              remote.get());
    }
    if (!results.ok()) return finish(results.status());
    if (!checks.empty()) {
      std::string why;
      for (const auto& c : checks)
        StrAppend(&why, why.empty() ? "" : "; ", "<program>:", c.loc.line, ":", c.loc.col, ": ", c.message);
      return finish(absl::FailedPreconditionError(StrCat("check failed: ", why)));
    }
    for (size_t d = 0; d < outs.size(); ++d)
      for (size_t i = 0; i < outs[d].size(); ++i) {
        cpu::RtValue& v = (*results)[d][i];
        if (v.kind == cpu::RtValue::Kind::kArray) outs[d][i]->Fulfil(std::move(v.array));
        else outs[d][i]->Fulfil(cpu::Array());
      }
    reservation->Release();  // the outputs' bytes are now counted as in use
    for (size_t d = 0; d < outs.size(); ++d) done[d]->Set(absl::OkStatus());
  };
  WhenAllReady(waits, [client, run, inline_run](absl::Status ready) {
    if (inline_run) run(ready);
    else client->pool().Schedule([run, ready] { run(ready); });
  });
  return result;
}

}  // namespace openpjrt::runtime
