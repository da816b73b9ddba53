// `--args` of `openpjrt run`: the entry function's arguments given as literals or NumPy files,
// the way stablehlo-translate --interpret takes them, and their conversion to executor values.
#include <cstring>

#include "src/ir/parser.h"
#include "src/ir/printer.h"
#include "src/support/str.h"
#include "tools/openpjrt/plugin_exec.h"
#include "tools/openpjrt/verbs.h"

namespace openpjrt::tools {
namespace {

constexpr char kArgsForm[] = "--args=[dense<1> : tensor<2xi32>, ...], --args=@FILE or --args=@a.npy,@b.npy";

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// One dense literal as a host array (a splat expanded to every element).
absl::StatusOr<client::HostArray> FromDense(const ir::Attribute& a, size_t index, const std::string& source) {
  if (a.kind() != ir::AttrKind::kDenseElements || !a->type.IsTensor() || !a->type.HasStaticShape() || !a->data)
    return absl::InvalidArgumentError(StrCat(source, ": element #", index, " of the list is ", ir::PrintAttribute(a),
                                             ", not a dense literal of static shape; expected ", kArgsForm));
  const ir::Type et = a->type.element_type();
  const ir::ElemKind kind = ir::StorageKind(et);
  client::HostArray h;
  h.type = client::ElementFromName(ir::ElemKindName(kind));
  if (h.type == PJRT_Buffer_Type_INVALID)
    return absl::UnimplementedError(StrCat(source, ": element #", index, ": no PJRT type for ", ir::PrintType(et)));
  h.dims.assign(a->type.shape().begin(), a->type.shape().end());
  int64_t count = 1;
  for (int64_t d : h.dims) count *= d;
  const size_t bytes = static_cast<size_t>(ir::ByteSize(kind));
  const std::vector<uint8_t>& raw = *a->data;
  if (a->splat) {
    if (raw.size() < bytes) return absl::InternalError("splat literal without its element");
    h.data.resize(static_cast<size_t>(count) * bytes);
    for (int64_t i = 0; i < count; ++i) std::memcpy(h.data.data() + i * bytes, raw.data(), bytes);
  } else {
    if (raw.size() != static_cast<size_t>(count) * bytes)
      return absl::InternalError(StrCat("literal holds ", raw.size(), " bytes for ", count, " elements"));
    h.data = raw;
  }
  return h;
}

absl::StatusOr<std::vector<client::HostArray>> ParseList(std::string_view text, const std::string& source) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '[')
    return absl::InvalidArgumentError(StrCat(source, ": expected a list of dense literals; use ", kArgsForm));
  ir::Context ctx;
  ir::ParseOptions opts;
  opts.source_name = source;
  auto list = ir::ParseAttributeText(text, ctx, opts);
  if (!list.ok()) return list.status();
  if (list->kind() != ir::AttrKind::kArray)
    return absl::InvalidArgumentError(StrCat(source, ": expected a list of dense literals, got ",
                                             ir::PrintAttribute(*list), "; use ", kArgsForm));
  std::vector<client::HostArray> out;
  for (size_t i = 0; i < (*list)->elements.size(); ++i) {
    auto h = FromDense((*list)->elements[i], i, source);
    if (!h.ok()) return h.status();
    out.push_back(std::move(*h));
  }
  return out;
}

// The executor's element kind of a PJRT type.
bool KindOf(PJRT_Buffer_Type t, ir::ElemKind* out) {
  const std::string name = client::ElementName(t);
  if (name == "complex<f32>") return *out = ir::ElemKind::kC64, true;
  if (name == "complex<f64>") return *out = ir::ElemKind::kC128, true;
  return ir::ElemKindFromName(name, out);
}

}  // namespace

absl::StatusOr<std::vector<client::HostArray>> ParseArgsFlag(const std::string& value) {
  if (value.empty() || value[0] != '@') return ParseList(value, "--args");
  // @FILE (one file holding the list), or @a.npy,@b.npy,... (one NumPy file per argument).
  std::vector<std::string> files;
  for (size_t p = 0; p <= value.size();) {
    size_t e = value.find(',', p);
    if (e == std::string::npos) e = value.size();
    std::string part = value.substr(p, e - p);
    if (part.size() < 2 || part[0] != '@')
      return absl::InvalidArgumentError(StrCat("--args: '", part, "' is not @FILE; expected ", kArgsForm));
    files.push_back(part.substr(1));
    p = e + 1;
  }
  size_t npy = 0;
  for (const std::string& f : files) npy += EndsWith(f, ".npy") ? 1 : 0;
  if (npy > 0 && npy < files.size())
    return absl::InvalidArgumentError("--args: cannot mix .npy and non-.npy args files");
  if (npy == 0) {
    if (files.size() > 1)
      return absl::InvalidArgumentError("--args: give one file holding the list, or one .npy file per argument");
    std::string text, error;
    if (!ReadFile(files[0], &text, &error)) return absl::NotFoundError(StrCat("--args: failed to read args file: ", error));
    return ParseList(text, files[0]);
  }
  std::vector<client::HostArray> out;
  for (const std::string& f : files) {
    auto h = client::ReadNpy(f);
    if (!h.ok()) return absl::Status(h.status().code(), StrCat("--args: failed to read NumPy args file: ", h.status().message()));
    out.push_back(std::move(*h));
  }
  return out;
}

absl::StatusOr<std::vector<client::HostArray>> ArgsInputs(const Signature& sig,
                                                          const std::vector<client::HostArray>& given) {
  size_t tensors = 0;
  for (const ir::Type& t : sig.args) tensors += t.IsToken() ? 0 : 1;
  if (given.size() != tensors)
    return absl::InvalidArgumentError(StrCat("--args gives ", given.size(), " arrays; @", sig.name, " takes ", tensors,
                                             tensors == sig.args.size() ? "" : " besides its tokens"));
  std::vector<client::HostArray> out;
  size_t next = 0;
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const ir::Type& t = sig.args[i];
    if (t.IsToken()) {
      client::HostArray token;
      token.type = PJRT_Buffer_Type_TOKEN;
      out.push_back(std::move(token));
      continue;
    }
    const client::HostArray& a = given[next++];
    if (absl::Status s = CheckFits(sig, i, a, StrCat("--args element #", next - 1)); !s.ok()) return s;
    out.push_back(a);
  }
  return out;
}

absl::StatusOr<std::vector<cpu::RtValue>> ToRtValues(const std::vector<client::HostArray>& inputs) {
  std::vector<cpu::RtValue> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const client::HostArray& h = inputs[i];
    if (h.type == PJRT_Buffer_Type_TOKEN) {
      out.push_back(cpu::RtValue::Token());
      continue;
    }
    cpu::ArrayType t;
    if (!KindOf(h.type, &t.elem))
      return absl::UnimplementedError(StrCat("argument #", i, ": no executor type for ", client::ElementName(h.type)));
    t.dims = h.dims;
    if (static_cast<size_t>(t.ByteSize()) != h.data.size())
      return absl::InvalidArgumentError(StrCat("argument #", i, " holds ", h.data.size(), " bytes; ", t.ToString(),
                                               " needs ", t.ByteSize()));
    cpu::Array a = cpu::Array::Allocate(t);
    if (!h.data.empty()) std::memcpy(a.mutable_data(), h.data.data(), h.data.size());
    out.push_back(cpu::RtValue::Of(std::move(a)));
  }
  return out;
}

std::map<size_t, std::vector<int64_t>> IntegerArgValues(const std::vector<client::HostArray>& inputs) {
  std::map<size_t, std::vector<int64_t>> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ir::ElemKind k;
    const client::HostArray& h = inputs[i];
    if (h.type == PJRT_Buffer_Type_TOKEN || !KindOf(h.type, &k) || !ir::IsInteger(k)) continue;
    const size_t bytes = static_cast<size_t>(ir::ByteSize(k));
    const size_t count = h.data.size() / bytes;
    if (count > 4096) continue;  // refinement folds only small integer tensors
    const int bits = ir::BitWidth(k);
    std::vector<int64_t> v(count);
    for (size_t e = 0; e < count; ++e) {
      uint64_t u = 0;
      std::memcpy(&u, h.data.data() + e * bytes, bytes);  // little-endian
      if (bits < 64) {
        u &= (uint64_t{1} << bits) - 1;
        if (!ir::IsUnsigned(k) && k != ir::ElemKind::kI1 && (u >> (bits - 1)) & 1) u |= ~((uint64_t{1} << bits) - 1);
      }
      v[e] = static_cast<int64_t>(u);
    }
    out[i] = std::move(v);
  }
  return out;
}

}  // namespace openpjrt::tools
