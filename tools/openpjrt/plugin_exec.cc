#include "tools/openpjrt/plugin_exec.h"

#include <cstring>
#include <random>

#include "src/compiler/compile.h"
#include "src/ir/printer.h"
#include "src/support/str.h"

namespace openpjrt::tools {
namespace {
std::string Dims(const std::vector<int64_t>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) StrAppend(&s, i ? "," : "", d[i]);
  return s;
}
}  // namespace

absl::StatusOr<Signature> EntrySignature(const ir::Module& m, const std::string& entry) {
  const ir::Operation* f = compiler::FindEntry(m, entry);
  if (!f) return absl::InvalidArgumentError(entry.empty() ? "no @main (and not exactly one function)"
                                                          : StrCat("no function @", entry));
  Signature s;
  ir::Attribute name = f->attr("sym_name");
  s.name = name ? name->str : "main";
  ir::Type ft = ir::FuncType(*f);
  s.args.assign(ft.inputs().begin(), ft.inputs().end());
  s.results.assign(ft.results().begin(), ft.results().end());
  return s;
}

absl::Status ParseInputFlag(const std::string& value, std::map<int, std::string>* out) {
  size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
    return absl::InvalidArgumentError(StrCat("--input needs NAME=FILE.npy, got '", value, "'"));
  std::string name = value.substr(0, eq);
  if (name[0] == '%') name = name.substr(1);
  if (name.rfind("arg", 0) == 0) name = name.substr(3);
  char* end = nullptr;
  long v = std::strtol(name.c_str(), &end, 10);
  if (name.empty() || *end || v < 0 || v > 100000)
    return absl::InvalidArgumentError(StrCat("--input name '", value.substr(0, eq),
                                             "' is not an argument (use 0, arg0 or %arg0)"));
  (*out)[static_cast<int>(v)] = value.substr(eq + 1);
  return absl::OkStatus();
}

namespace {

PJRT_Buffer_Type PjrtType(const ir::Type& tensor) {
  return client::ElementFromName(ir::PrintType(tensor.element_type()));
}

}  // namespace

absl::Status CheckFits(const Signature& sig, size_t i, const client::HostArray& a, const std::string& what) {
  const ir::Type& t = sig.args[i];
  bool fits = t.IsTensor() && a.type == PjrtType(t) && a.dims.size() == t.shape().size();
  for (size_t d = 0; fits && d < a.dims.size(); ++d) fits = t.shape()[d] == ir::kDynamic || t.shape()[d] == a.dims[d];
  if (!fits)
    return absl::InvalidArgumentError(StrCat(what, " holds ", client::ElementName(a.type), " of shape [", Dims(a.dims),
                                             "]; argument #", i, " is ", ir::PrintType(t), " (@", sig.name, ")"));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<client::HostArray>> EntryInputs(const Signature& sig,
                                                           const std::map<int, std::string>& files,
                                                           bool random_rest) {
  for (const auto& [i, path] : files)
    if (i >= static_cast<int>(sig.args.size()))
      return absl::InvalidArgumentError(StrCat("--input for argument #", i, ", but @", sig.name, " takes ",
                                               sig.args.size()));
  std::vector<client::HostArray> out;
  std::mt19937_64 rng(42);
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const ir::Type& t = sig.args[i];
    const std::string tname = ir::PrintType(t);
    auto it = files.find(static_cast<int>(i));
    if (!t.IsTensor() || (!t.HasStaticShape() && it == files.end()))
      return absl::InvalidArgumentError(StrCat("argument #", i, " has type ", tname,
                                               t.IsTensor() ? "; a dynamic shape needs --input NAME=FILE.npy"
                                                            : "; only tensors can be supplied"));
    client::HostArray a;
    a.type = PjrtType(t);
    a.dims.assign(t.shape().begin(), t.shape().end());
    if (a.type == PJRT_Buffer_Type_INVALID)
      return absl::UnimplementedError(StrCat("argument #", i, ": no PJRT type for ", tname));
    if (it != files.end()) {
      auto f = client::ReadNpy(it->second);
      if (!f.ok()) return f.status();
      if (absl::Status s = CheckFits(sig, i, *f, it->second); !s.ok()) return s;
      out.push_back(std::move(*f));
      continue;
    }
    if (!random_rest)
      return absl::InvalidArgumentError(StrCat("@", sig.name, " argument #", i, " (", tname,
                                               ") has no --input NAME=FILE.npy"));
    int64_t count = 1;  // static here: a dynamic argument without a file was refused above
    for (int64_t d : a.dims) count *= d;
    const int64_t bytes = client::ElementBytes(a.type);
    a.data.resize(count * bytes);
    // Values that are valid for every type: small integers (as floats for float types).
    for (int64_t k = 0; k < count; ++k) {
      uint8_t* p = a.data.data() + k * bytes;
      int v = static_cast<int>(rng() % 7);
      switch (a.type) {
        case PJRT_Buffer_Type_F32: { float f = v * 0.25f - 0.75f; std::memcpy(p, &f, 4); break; }
        case PJRT_Buffer_Type_F64: { double f = v * 0.25 - 0.75; std::memcpy(p, &f, 8); break; }
        case PJRT_Buffer_Type_PRED: *p = v & 1; break;
        case PJRT_Buffer_Type_F16: case PJRT_Buffer_Type_BF16: {
          // 0.0, 0.5, 1.0, 1.5 ... as bit patterns of the two formats.
          static const uint16_t half[] = {0x0000, 0x3800, 0x3C00, 0x3E00, 0x4000, 0x4100, 0x4200};
          static const uint16_t bf[] = {0x0000, 0x3F00, 0x3F80, 0x3FC0, 0x4000, 0x4020, 0x4040};
          uint16_t h = a.type == PJRT_Buffer_Type_F16 ? half[v] : bf[v];
          std::memcpy(p, &h, 2);
          break;
        }
        default:
          std::memset(p, 0, bytes);
          *p = static_cast<uint8_t>(v);  // little-endian small value (0 for the f8 family's low bits)
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<client::Client>> OpenClient(const std::string& plugin_path, int min_devices,
                                                           const client::Options& extra) {
  auto plugin = client::Plugin::Load(plugin_path.empty() ? client::DefaultPluginPath() : plugin_path);
  if (!plugin.ok()) return plugin.status();
  auto c = client::Client::Create(*plugin, extra);
  if (!c.ok()) return c.status();
  if (static_cast<int>((*c)->devices().size()) >= min_devices) return c;
  if ((*c)->platform_name() != "cpu")
    return absl::FailedPreconditionError(StrCat("the program needs ", min_devices, " devices; the plugin has ",
                                                (*c)->devices().size()));
  client::Options more = extra;
  more["cpu_device_count"] = int64_t{min_devices};
  c->reset();
  return client::Client::Create(*plugin, more);
}

std::string FormatHost(ir::Context& ctx, const ir::Type& t, const std::vector<uint8_t>& bytes) {
  if (!t.IsTensor()) return ir::PrintType(t);
  auto data = std::make_shared<std::vector<uint8_t>>(bytes);
  return ir::PrintAttribute(ir::Attribute::Dense(t, data, false));
}

}  // namespace openpjrt::tools
