// `openpjrt run`: compiles each module and executes its entry function with no arguments (or
// those of --args), evaluating the check.* ops. One line per module, then `N passed, N failed`.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "src/compiler/compile.h"
#include "src/compiler/spmd/spmd.h"
#include "src/ir/bytecode.h"
#include "src/ir/hlo_proto.h"
#include "src/ir/parser.h"
#include "src/ir/printer.h"
#include "src/ir/verifier.h"
#include "src/support/str.h"
#include "tools/openpjrt/plugin_exec.h"
#include "tools/openpjrt/verbs.h"

namespace openpjrt::tools {
namespace {

// True when a manual computation cuts a value into per-device shards: such a module runs
// partitioned (each device on its shards) instead of replicated on whole values.
bool SplitsValues(const ir::Operation& op) {
  if (op.code == ir::OpCode::kSdyManualComputation && !op.regions.empty() && op.regions[0]->front()) {
    const ir::Block& body = *op.regions[0]->front();
    for (size_t i = 0; i < op.operands.size() && i < body.args.size(); ++i)
      if (op.operands[i]->type != body.args[i]->type) return true;
  }
  for (const auto& r : op.regions)
    for (const auto& b : r->blocks)
      for (const auto& o : b->ops)
        if (SplitsValues(*o)) return true;
  return false;
}

// Copies between a whole array and the shard of `layout` that partition `p` holds.
void CopyShard(const cpu::Array& whole, const cpu::Array& shard, const compiler::spmd::Layout& layout, int64_t p,
               bool to_shard) {
  const int64_t rank = whole.type().rank(), esize = whole.type().ElementSize();
  if (rank == 0 || whole.NumElements() == 0) {
    if (to_shard) std::memcpy(shard.mutable_data(), whole.data(), whole.ByteSize());
    else std::memcpy(whole.mutable_data(), shard.data(), shard.ByteSize());
    return;
  }
  const auto& wd = whole.dims();
  const auto& sd = shard.dims();
  std::vector<int64_t> wstride(rank, 1), sstride(rank, 1), offset(rank);
  for (int64_t d = rank - 2; d >= 0; --d) {
    wstride[d] = wstride[d + 1] * wd[d + 1];
    sstride[d] = sstride[d + 1] * sd[d + 1];
  }
  for (int64_t d = 0; d < rank; ++d) offset[d] = layout.coords[p][d] * sd[d];
  std::vector<int64_t> idx(rank, 0);
  const int64_t rows = shard.NumElements() / sd[rank - 1];
  for (int64_t r = 0; r < rows; ++r) {
    int64_t w = 0, s = 0;
    for (int64_t d = 0; d < rank; ++d) {
      w += (idx[d] + offset[d]) * wstride[d];
      s += idx[d] * sstride[d];
    }
    uint8_t* dst = to_shard ? shard.mutable_data() + s * esize : whole.mutable_data() + w * esize;
    const uint8_t* src = to_shard ? whole.data() + w * esize : shard.data() + s * esize;
    std::memcpy(dst, src, sd[rank - 1] * esize);
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++idx[d] < sd[d]) break;
      idx[d] = 0;
    }
  }
}

constexpr char kRunUsage[] =
    "usage: openpjrt run FILE [--split-input-file] [--print] [--entry NAME] [--flush-denormals]\n"
    "                         [--replicas N] [--partitions M]\n"
    "                         [--args LIST | --args @FILE | --args @A.npy,@B.npy,...]\n"
    "                         [--plugin PATH] [--input NAME=FILE.npy ...] [--format mlir|hlo|hlo_with_config]\n"
    "\n"
    "Compiles FILE (MLIR text or bytecode, or a serialized HloModuleProto; '-' reads standard\n"
    "input) for the CPU and runs its entry function (@main, else the only function) with no\n"
    "arguments (or those of --args), evaluating check.* ops and @check.* custom calls.\n"
    "Prints one line per module and closes with 'N passed, N failed';\n"
    "exits 0 only if every module passed.\n"
    "\n"
    "  --split-input-file  treat '// -----' lines as separators between independent modules\n"
    "  --print             print the entry function's results\n"
    "  --flush-denormals   flush subnormal floats to zero, as XLA:CPU does (and the plugin does by\n"
    "                      default for JAX); without it they are kept, as the specification says\n"
    "  --entry NAME        run @NAME instead\n"
    "  --args LIST         the entry function's arguments, in order: a list of dense literals\n"
    "                      ('[dense<1> : tensor<2xi32>, dense<[1.5, 2.0]> : tensor<2xf32>]'),\n"
    "                      @FILE holding such a list, or @A.npy,@B.npy,... (token arguments are\n"
    "                      supplied); a dynamic entry point is compiled for their shapes\n"
    "  --replicas N        run N replicas (default: the module's mhlo.num_replicas, else 1)\n"
    "  --partitions M      run M partitions each (default: mhlo.num_partitions, else 1)\n"
    "\n"
    "  --plugin PATH       run through a PJRT plugin (a path, or a name such as 'cpu'\n"
    "                      found as pjrt_c_api_<name>_plugin.so) with the client library\n"
    "  --input NAME=FILE   pass FILE.npy as argument NAME (0, arg0 or %arg0); implies --plugin\n"
    "                      with the CPU plugin of this build unless one is given\n"
    "  --output DIR        write the results as DIR/result<i>.npy (DIR/device<d>_result<i>.npy\n"
    "                      with several devices); implies --plugin like --input\n"
    "  --format F          the program format: mlir (StableHLO), hlo (HloModuleProto) or\n"
    "                      hlo_with_config (HloModuleProtoWithConfig);\n"
    "                      default hlo for files named *.pb, else mlir\n"
    "\n"
    "With several devices, one instance runs per replica x partition and collectives\n"
    "exchange between them; --print shows every device's results. Without --plugin/--input\n"
    "the program runs on the in-process executor (the same compiler and kernels the CPU\n"
    "plugin embeds), which also counts the checks it evaluated.\n";

// The module attribute `name` (an integer), or `dflt`.
int64_t ModuleInt(const ir::Module& m, const char* name, int64_t dflt) {
  int64_t v;
  return ir::GetInt(m.op->attr(name), &v) ? v : dflt;
}

std::string FormatResult(ir::Context& ctx, const cpu::RtValue& v) {
  if (v.kind == cpu::RtValue::Kind::kToken) return "!stablehlo.token";
  if (v.kind == cpu::RtValue::Kind::kTuple) {
    std::string s = "(";
    for (size_t i = 0; i < v.tuple.size(); ++i) StrAppend(&s, i ? ", " : "", FormatResult(ctx, v.tuple[i]));
    return s + ")";
  }
  const cpu::Array& a = v.array;
  ir::Type t = ctx.Tensor(a.dims(), ctx.Element(a.elem()));
  auto data = std::make_shared<std::vector<uint8_t>>(a.data(), a.data() + a.ByteSize());
  return ir::PrintAttribute(ir::Attribute::Dense(t, data, false));
}

// The in-process path's execution environment: one thread, subnormals kept unless
// --flush-denormals asks for XLA:CPU's mode.
class SerialParallel : public cpu::Parallel {
 public:
  explicit SerialParallel(bool flush) : flush_(flush) {}
  int threads() const override { return 1; }
  bool deterministic() const override { return true; }
  bool flush_denormals() const override { return flush_; }
  void For(int64_t n, cpu::PieceFn fn) override {
    for (int64_t i = 0; i < n; ++i) fn(i);
  }

 private:
  bool flush_;
};

// The plugin path: compile the chunk with the client library, upload the inputs to every device,
// execute, wait, and print. Locations the plugin reports as <program>:L:C are moved to the file.
bool RunViaPlugin(ir::Module& m, const ir::SourceChunk& chunk, const std::string& name,
                  const std::string& entry, const std::string& plugin_path,
                  const std::map<int, std::string>& input_files, const std::vector<client::HostArray>* given,
                  int replicas, int partitions, bool print, const std::string& output_dir,
                  const std::string& format, bool flush_denormals, const std::string& where, std::string* why) {
  if (!entry.empty() && entry != "main") {
    *why = "--entry is not supported with --plugin (PJRT runs @main)";
    return false;
  }
  const int n = replicas * partitions;
  // One client per plugin and device count, kept for the process (never torn down at exit,
  // while the plugin's own statics may already be gone).
  static auto* clients = new std::map<std::string, std::unique_ptr<client::Client>>;
  const std::string key = StrCat(plugin_path, "#", n, flush_denormals ? "#flush" : "");
  if (!clients->count(key)) {
    auto c = OpenClient(plugin_path, n);
    // An openpjrt plugin is asked to keep IEEE subnormals unless --flush-denormals (its default,
    // for JAX, is to flush them as XLA:CPU does); another plugin keeps its own behaviour.
    if (c.ok() && (*c)->platform_version().rfind("openpjrt", 0) == 0 && !flush_denormals) {
      c->reset();
      c = OpenClient(plugin_path, n, client::Options{{"flush_denormals", false}});
    }
    if (!c.ok()) return *why = StrCat("plugin: ", c.status().message()), false;
    (*clients)[key] = std::move(*c);
  }
  client::Client& c = *(*clients)[key];
  client::CompileOptions co;
  co.num_replicas = replicas;
  co.num_partitions = partitions;
  co.format = format;
  auto relocate = [&](std::string msg) {
    for (size_t p = msg.find("<program>:"); p != std::string::npos; p = msg.find("<program>:", p)) {
      size_t q = p + 10;
      size_t e = msg.find(':', q);
      long line = std::strtol(msg.c_str() + q, nullptr, 10);
      std::string repl = StrCat(name, ":", line + static_cast<long>(chunk.first_line) - 1);
      msg.replace(p, e == std::string::npos ? msg.size() - p : e - p, repl);
      p += repl.size();
    }
    return msg;
  };
  auto t0 = std::chrono::steady_clock::now();
  auto exe = c.Compile(chunk.text, co);
  if (!exe.ok()) return *why = relocate(std::string(exe.status().message())), false;
  auto sig = EntrySignature(m, entry);
  if (!sig.ok()) return *why = std::string(sig.status().message()), false;
  // Token arguments (JAX's ordered effects) get fresh token buffers; others need --input, and a
  // dynamic one says so (the plugin compiles @main for the shape of the array given).
  size_t tokens = 0;
  for (size_t i = 0; i < sig->args.size(); ++i) {
    const ir::Type t = sig->args[i];
    tokens += t.IsToken() ? 1 : 0;
    if (!given && t.IsTensor() && !t.HasStaticShape() && !input_files.count(static_cast<int>(i)))
      return *why = StrCat("argument #", i, " has the dynamic type ", t.ToString(),
                           ": give it with --input NAME=FILE.npy (@", sig->name, " is compiled for its shape)"),
             false;
  }
  const bool only_tokens = !given && input_files.empty() && tokens == sig->args.size();
  if (!given && input_files.empty() && !only_tokens)
    return *why = StrCat("@", sig->name, " takes ", sig->args.size(),
                         " arguments; 'run' calls it with none (give them with --args or --input)"), false;
  absl::StatusOr<std::vector<client::HostArray>> inputs = std::vector<client::HostArray>();
  if (given) inputs = ArgsInputs(*sig, *given);
  else if (!only_tokens) inputs = EntryInputs(*sig, input_files, /*random_rest=*/false);
  if (!inputs.ok()) return *why = std::string(inputs.status().message()), false;
  std::vector<std::vector<client::Buffer>> uploaded(n);
  std::vector<std::vector<const client::Buffer*>> args(n);
  const uint8_t no_data = 0;
  for (int d = 0; d < n; ++d) {
    for (size_t i = 0; only_tokens && i < tokens; ++i) {
      auto b = c.Upload(&no_data, PJRT_Buffer_Type_TOKEN, {}, &c.devices()[d]);
      if (!b.ok()) return *why = StrCat("upload of a token: ", b.status().message()), false;
      uploaded[d].push_back(std::move(*b));
    }
    for (const client::HostArray& a : *inputs) {
      auto b = c.Upload(a.data.empty() ? &no_data : a.data.data(), a.type, a.dims, &c.devices()[d]);
      if (!b.ok()) return *why = StrCat("upload: ", b.status().message()), false;
      uploaded[d].push_back(std::move(*b));
    }
    for (const client::Buffer& b : uploaded[d]) args[d].push_back(&b);
  }
  std::vector<client::Future> done;
  auto outs = exe->Execute(args, {}, &done);
  if (!outs.ok()) return *why = relocate(std::string(outs.status().message())), false;
  for (client::Future& f : done)
    if (f.valid())
      if (absl::Status s = f.Await(); !s.ok()) return *why = relocate(StrCat("runtime error: ", s.message())), false;
  std::vector<std::vector<std::vector<uint8_t>>> host(n);
  for (int d = 0; d < n; ++d)
    for (const client::Buffer& b : (*outs)[d]) {
      if (absl::Status s = b.Ready().Await(); !s.ok()) return *why = relocate(StrCat("runtime error: ", s.message())), false;
      auto h = print || !output_dir.empty() ? b.ToHost() : absl::StatusOr<std::vector<uint8_t>>(std::vector<uint8_t>());
      if (!h.ok()) return *why = StrCat("download: ", h.status().message()), false;
      host[d].push_back(std::move(*h));
    }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (int d = 0; d < n && !output_dir.empty(); ++d)
    for (size_t i = 0; i < host[d].size(); ++i) {
      const client::Buffer& b = (*outs)[d][i];
      client::HostArray a{b.element_type(), b.dims(), std::move(host[d][i])};
      const std::string path = StrCat(output_dir, n > 1 ? StrCat("/device", d, "_") : "/", "result", i, ".npy");
      auto bytes = client::EncodeNpy(a);
      if (!bytes.ok()) return *why = StrCat(path, ": ", bytes.status().message()), false;
      std::ofstream f(path, std::ios::binary);
      if (!f.write(bytes->data(), static_cast<std::streamsize>(bytes->size())) || !f.flush())
        return *why = StrCat("cannot write ", path), false;
      host[d][i] = std::move(a.data);
    }
  std::string devices = n > 1 ? StrCat(", ", replicas, " replicas x ", partitions, " partitions") : std::string();
  std::printf("PASS %s: @%s%s via %s, %.3f ms\n", where.c_str(), sig->name.c_str(), devices.c_str(),
              c.plugin().path().c_str(), ms);
  if (print)
    for (int d = 0; d < n; ++d)
      for (size_t i = 0; i < host[d].size() && i < sig->results.size(); ++i) {
        std::string label = n > 1 ? StrCat("device ", d, " result #", i) : StrCat("result #", i);
        ir::Type t = sig->results[i];
        if (t.IsTensor() && !t.HasStaticShape()) {  // a specialised dynamic result: the buffer's shape
          const std::vector<int64_t> dims = (*outs)[d][i].dims();
          t = m.ctx->Tensor(dims, t.element_type());
        }
        std::printf("  %s = %s\n", label.c_str(), FormatHost(*m.ctx, t, host[d][i]).c_str());
      }
  return true;
}

}  // namespace

int RunMain(int argc, char** argv) {
  std::string file, entry, plugin_path, format, output_dir;
  std::map<int, std::string> inputs;
  std::vector<client::HostArray> given;
  bool split = false, print = false, via_plugin = false, args_given = false, flush_denormals = false;
  int64_t replicas_flag = 0, partitions_flag = 0;
  auto positive = [&](const char* flag, const char* text, int64_t* out) {
    char* end = nullptr;
    long long v = std::strtoll(text, &end, 10);
    if (!end || *end || v < 1 || v > 1024) {
      std::fprintf(stderr, "openpjrt run: %s needs a number from 1 to 1024, got '%s'\n", flag, text);
      return false;
    }
    *out = v;
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kRunUsage, stdout);
      return 0;
    } else if (a == "--split-input-file") {
      split = true;
    } else if (a == "--flush-denormals") {
      flush_denormals = true;
    } else if (a == "--print") {
      print = true;
    } else if (a == "--plugin" && i + 1 < argc) {
      plugin_path = argv[++i];
      via_plugin = true;
    } else if (a == "--input" && i + 1 < argc) {
      if (absl::Status s = ParseInputFlag(argv[++i], &inputs); !s.ok()) {
        std::fprintf(stderr, "openpjrt run: %s\n", std::string(s.message()).c_str());
        return 2;
      }
      via_plugin = true;
    } else if ((a == "--args" && i + 1 < argc) || a.rfind("--args=", 0) == 0) {
      auto v = ParseArgsFlag(a == "--args" ? std::string(argv[++i]) : a.substr(7));
      if (!v.ok()) {
        std::fprintf(stderr, "openpjrt run: %s\n", std::string(v.status().message()).c_str());
        return 2;
      }
      given = std::move(*v);
      args_given = true;
    } else if (a == "--output" && i + 1 < argc) {
      output_dir = argv[++i];
      via_plugin = true;
    } else if (a == "--entry" && i + 1 < argc) {
      entry = argv[++i];
    } else if (a == "--format" && i + 1 < argc) {
      format = argv[++i];
      if (format != "mlir" && format != "hlo" && format != "hlo_with_config") {
        std::fprintf(stderr, "openpjrt run: --format takes mlir, hlo or hlo_with_config, got '%s'\n", format.c_str());
        return 2;
      }
    } else if (a == "--replicas" && i + 1 < argc) {
      if (!positive("--replicas", argv[++i], &replicas_flag)) return 2;
    } else if (a == "--partitions" && i + 1 < argc) {
      if (!positive("--partitions", argv[++i], &partitions_flag)) return 2;
    } else if (int rc = TakeInputArg("run", a, &file, kRunUsage)) {
      return rc;
    }
  }
  if (args_given && !inputs.empty()) {
    std::fprintf(stderr, "openpjrt run: give the arguments with --args or with --input, not both\n");
    return 2;
  }
  std::string text;
  std::vector<ir::SourceChunk> chunks;
  if (format.empty()) format = file.size() > 3 && file.compare(file.size() - 3, 3, ".pb") == 0 ? "hlo" : "mlir";
  if (format != "mlir") split = false;  // one binary module
  if (int rc = LoadInput("run", file, split, kRunUsage, &text, &chunks)) return rc;
  const std::string name = file == "-" ? "<stdin>" : file;
  int passed = 0, failed = 0;
  for (const ir::SourceChunk& chunk : chunks) {
    // Skip chunks that hold nothing but comments and whitespace.
    bool empty = true;
    for (size_t p = 0; p < chunk.text.size() && empty;) {
      size_t e = chunk.text.find('\n', p);
      std::string_view line = chunk.text.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p);
      size_t f = line.find_first_not_of(" \t\r");
      if (f != std::string_view::npos && line.substr(f, 2) != "//") empty = false;
      if (e == std::string_view::npos) break;
      p = e + 1;
    }
    if (empty) continue;
    const std::string where = StrCat(name, ":", chunk.first_line);
    auto fail = [&](const std::string& why) {
      ++failed;
      std::printf("FAIL %s: %s\n", where.c_str(), why.c_str());
    };
    ir::ParseOptions opts;
    opts.source_name = name;
    opts.first_line = chunk.first_line;
    auto m = format != "mlir"               ? ir::ParseHloProto(chunk.text, opts.source_name, {}, format == "hlo_with_config")
             : ir::IsBytecode(chunk.text) ? ir::ParseBytecode(chunk.text, opts.source_name)
                                          : ir::ParseModule(chunk.text, opts);
    if (!m.ok()) {
      fail(std::string(m.status().message()));
      continue;
    }
    if (absl::Status st = ir::VerifyModule(**m); !st.ok()) {
      fail(std::string(st.message()));
      continue;
    }
    if (via_plugin) {
      const int64_t replicas = replicas_flag ? replicas_flag : ModuleInt(**m, "mhlo.num_replicas", 1);
      const int64_t partitions = partitions_flag ? partitions_flag : ModuleInt(**m, "mhlo.num_partitions", 1);
      std::string why;
      if (RunViaPlugin(**m, chunk, name, entry, plugin_path, inputs, args_given ? &given : nullptr,
                       static_cast<int>(replicas),
                       static_cast<int>(partitions), print, output_dir, format, flush_denormals, where, &why)) {
        ++passed;
      } else {
        fail(why);
      }
      continue;
    }
    // --args: the entry's arguments, checked against its signature; a dynamic entry point is
    // specialised for their shapes before compiling.
    std::vector<cpu::RtValue> arg_values;
    compiler::CompileOptions copts;
    copts.entry = entry;
    if (args_given) {
      auto sig = EntrySignature(**m, entry);
      auto host = sig.ok() ? ArgsInputs(*sig, given) : sig.status();
      absl::Status st = host.status();
      if (st.ok()) {
        std::vector<std::vector<int64_t>> dims;
        for (const client::HostArray& h : *host) dims.push_back(h.dims);
        ir::Operation* f = const_cast<ir::Operation*>(compiler::FindEntry(**m, entry));
        st = compiler::SpecialiseEntry(**m, *f, dims);
      }
      // Compiled for these arguments only: sizes computed from integer arguments are known.
      if (st.ok()) copts.entry_arg_values = IntegerArgValues(*host);
      auto values = st.ok() ? ToRtValues(*host) : absl::StatusOr<std::vector<cpu::RtValue>>(st);
      if (!values.ok()) {
        fail(std::string(values.status().message()));
        continue;
      }
      arg_values = std::move(*values);
    }
    const int64_t replicas = replicas_flag ? replicas_flag : ModuleInt(**m, "mhlo.num_replicas", 1);
    const int64_t partitions = partitions_flag ? partitions_flag : ModuleInt(**m, "mhlo.num_partitions", 1);
    if (replicas < 1 || partitions < 1 || replicas * partitions > 1024) {
      fail(StrCat("unusable device count: ", replicas, " replicas x ", partitions, " partitions"));
      continue;
    }
    // A module whose manual computations cut values into shards runs partitioned: each device
    // gets its shards of the arguments, and the results' shards are put back together.
    compiler::spmd::PartitionInfo shards;
    const bool partitioned = partitions > 1 && SplitsValues(*(*m)->op);
    std::vector<ir::Type> whole_results;  // the entry's result types before partitioning
    if (partitioned) {
      ir::Operation* f = const_cast<ir::Operation*>(compiler::FindEntry(**m, entry));
      if (f) {
        ir::Type ft = ir::FuncType(*f);
        whole_results.assign(ft.results().begin(), ft.results().end());
      }
      absl::Status st = f ? compiler::spmd::PartitionModule(**m, *f, partitions, replicas, &shards)
                          : absl::InvalidArgumentError("no entry function");
      for (size_t i = 0; st.ok() && i < shards.results.size(); ++i)
        if (shards.results[i].partials > 1)
          st = absl::UnimplementedError(StrCat("result #", i, " is unreduced (addends per device); 'run' prints "
                                               "whole results only"));
      if (!st.ok()) {
        fail(std::string(st.message()));
        continue;
      }
    }
    auto exe = compiler::Compile(**m, copts);
    if (!exe.ok()) {
      fail(std::string(exe.status().message()));
      continue;
    }
    // Token arguments (JAX's ordered effects thread a !stablehlo.token through @main) get fresh
    // tokens; any other argument needs --args.
    size_t tokens = 0;
    if (const ir::Operation* f = compiler::FindEntry(**m, entry)) {
      for (ir::Type t : ir::FuncType(*f).inputs()) tokens += t.IsToken() ? 1 : 0;
    }
    if (!args_given && tokens != (*exe)->arg_types.size()) {
      fail(StrCat("@", (*exe)->name, " takes ", (*exe)->arg_types.size(),
                  " arguments; 'run' calls it with none (give them with --args or --input)"));
      continue;
    }
    if (!args_given) arg_values.assign(tokens, cpu::RtValue::Token());
    std::vector<std::vector<cpu::RtValue>> args(replicas * partitions, arg_values);
    std::string uneven;
    for (size_t i = 0; partitioned && i < arg_values.size() && i < shards.params.size(); ++i)
      for (int64_t k = 0; arg_values[i].kind == cpu::RtValue::Kind::kArray && k < arg_values[i].array.type().rank(); ++k)
        if (arg_values[i].array.dims()[k] % shards.params[i].tiles[k] != 0)
          uneven = StrCat("argument #", i, " is cut into uneven tiles; 'run' passes even shards only");
    for (size_t i = 0; i < whole_results.size() && i < shards.results.size(); ++i)
      for (int64_t k = 0; whole_results[i].IsTensor() && k < whole_results[i].rank(); ++k)
        if (whole_results[i].shape()[k] % shards.results[i].tiles[k] != 0)
          uneven = StrCat("result #", i, " is cut into uneven tiles; 'run' puts even shards together only");
    if (!uneven.empty()) {
      fail(uneven);
      continue;
    }
    if (partitioned) {
      for (int64_t d = 0; d < replicas * partitions; ++d)
        for (size_t i = 0; i < args[d].size() && i < shards.params.size(); ++i) {
          if (args[d][i].kind != cpu::RtValue::Kind::kArray || shards.params[i].replicated()) continue;
          const cpu::Array& whole = arg_values[i].array;
          cpu::ArrayType t = whole.type();
          for (int64_t k = 0; k < t.rank(); ++k) t.dims[k] /= shards.params[i].tiles[k];
          cpu::Array part = cpu::Array::Allocate(t);
          const compiler::spmd::Layout& l = shards.params[i];
          if (l.partials > 1 && l.partial[d % partitions] != 0) {
            std::memset(part.mutable_data(), 0, part.ByteSize());  // unreduced: one addend holds the value
          } else {
            CopyShard(whole, part, l, d % partitions, true);
          }
          args[d][i] = cpu::RtValue::Of(part);
        }
    }
    std::vector<cpu::CheckFailure> checks;
    int64_t checks_run = 0;
    auto t0 = std::chrono::steady_clock::now();
    SerialParallel serial(flush_denormals);
    auto results = (*exe)->RunReplicated(static_cast<int>(replicas), static_cast<int>(partitions),
                                         std::move(args), &checks, &checks_run, nullptr,
                                         flush_denormals ? &serial : nullptr);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!results.ok()) {
      fail(StrCat("runtime error: ", results.status().message()));
      continue;
    }
    if (partitioned) {
      // Each device shows the whole results of its replica.
      std::vector<std::vector<cpu::RtValue>> wholes = *results;
      for (int64_t d = 0; d < replicas * partitions; ++d)
        for (size_t i = 0; i < wholes[d].size() && i < shards.results.size(); ++i) {
          const compiler::spmd::Layout& l = shards.results[i];
          if ((*results)[d][i].kind != cpu::RtValue::Kind::kArray || l.replicated()) continue;
          cpu::ArrayType t = (*results)[d][i].array.type();
          for (int64_t k = 0; k < t.rank(); ++k) t.dims[k] *= l.tiles[k];
          cpu::Array whole = cpu::Array::Allocate(t);
          const int64_t first = d - d % partitions;
          for (int64_t p = 0; p < partitions; ++p) CopyShard(whole, (*results)[first + p][i].array, l, p, false);
          wholes[d][i] = cpu::RtValue::Of(whole);
        }
      *results = std::move(wholes);
    }
    if (!checks.empty()) {
      std::string why;
      for (const auto& c : checks)
        StrAppend(&why, why.empty() ? "" : "; ", name, ":", c.loc.line, ":", c.loc.col, ": ", c.message);
      fail(why);
      continue;
    }
    ++passed;
    std::string devices = replicas * partitions > 1
        ? StrCat(", ", replicas, " replicas x ", partitions, " partitions") : std::string();
    std::printf("PASS %s: @%s%s, %lld checks, %.3f ms\n", where.c_str(), (*exe)->name.c_str(),
                devices.c_str(), static_cast<long long>(checks_run), ms);
    if (print) {
      for (size_t d = 0; d < results->size(); ++d) {
        for (size_t i = 0; i < (*results)[d].size(); ++i) {
          std::string label = results->size() > 1 ? StrCat("device ", d, " result #", i) : StrCat("result #", i);
          std::printf("  %s = %s\n", label.c_str(), FormatResult(*(*m)->ctx, (*results)[d][i]).c_str());
        }
      }
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace openpjrt::tools
