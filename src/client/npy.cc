#include "src/client/npy.h"

#include <fstream>
#include <sstream>

#include "src/support/str.h"

namespace openpjrt::client {
namespace {

struct Dtype {
  const char* descr;  // numpy's dtype.str without the byte-order character
  PJRT_Buffer_Type type;
};
constexpr Dtype kDtypes[] = {
    {"b1", PJRT_Buffer_Type_PRED}, {"i1", PJRT_Buffer_Type_S8},   {"i2", PJRT_Buffer_Type_S16},
    {"i4", PJRT_Buffer_Type_S32},  {"i8", PJRT_Buffer_Type_S64},  {"u1", PJRT_Buffer_Type_U8},
    {"u2", PJRT_Buffer_Type_U16},  {"u4", PJRT_Buffer_Type_U32},  {"u8", PJRT_Buffer_Type_U64},
    {"f2", PJRT_Buffer_Type_F16},  {"f4", PJRT_Buffer_Type_F32},  {"f8", PJRT_Buffer_Type_F64},
    {"c8", PJRT_Buffer_Type_C64},  {"c16", PJRT_Buffer_Type_C128},
};

int64_t Bytes(PJRT_Buffer_Type t) {
  switch (t) {
    case PJRT_Buffer_Type_PRED: case PJRT_Buffer_Type_S8: case PJRT_Buffer_Type_U8: return 1;
    case PJRT_Buffer_Type_S16: case PJRT_Buffer_Type_U16: case PJRT_Buffer_Type_F16: return 2;
    case PJRT_Buffer_Type_S32: case PJRT_Buffer_Type_U32: case PJRT_Buffer_Type_F32: return 4;
    case PJRT_Buffer_Type_S64: case PJRT_Buffer_Type_U64: case PJRT_Buffer_Type_F64:
    case PJRT_Buffer_Type_C64: return 8;
    case PJRT_Buffer_Type_C128: return 16;
    default: return 0;
  }
}

// The value of 'key' in the header dict, as raw text up to the next top-level ',' or '}'.
std::string_view Field(std::string_view header, std::string_view key) {
  size_t k = header.find(StrCat("'", key, "'"));
  if (k == std::string_view::npos) return {};
  size_t colon = header.find(':', k);
  if (colon == std::string_view::npos) return {};
  size_t p = colon + 1;
  while (p < header.size() && header[p] == ' ') ++p;
  size_t e = p;
  int depth = 0;
  while (e < header.size()) {
    char c = header[e];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
    ++e;
  }
  if (e < header.size() && header[e] == ')') ++e;
  return header.substr(p, e - p);
}

}  // namespace

absl::StatusOr<HostArray> ParseNpy(std::string_view b, const std::string& name) {
  auto bad = [&](const std::string& why) { return absl::InvalidArgumentError(StrCat(name, ": ", why)); };
  if (b.size() < 10 || b.substr(0, 6) != "\x93NUMPY") return bad("not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<uint8_t>(b[6]);
  size_t header_len, at;
  if (major == 1) {
    header_len = static_cast<uint8_t>(b[8]) | (static_cast<uint8_t>(b[9]) << 8);
    at = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return bad("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<uint8_t>(b[8 + i])) << (8 * i);
    at = 12;
  } else {
    return bad(StrCat("unsupported .npy format version ", major));
  }
  if (header_len > b.size() - at) return bad("header runs past the end of the file");
  std::string_view header = b.substr(at, header_len);
  at += header_len;
  std::string_view descr = Field(header, "descr");
  std::string_view order = Field(header, "fortran_order");
  std::string_view shape = Field(header, "shape");
  if (descr.size() < 4 || shape.empty()) return bad(StrCat("malformed header: ", header));
  if (order.substr(0, 4) == "True") return bad("Fortran-order arrays are not supported (save a C-order copy)");
  std::string d(descr.substr(1, descr.size() - 2));  // strip quotes
  if (d[0] == '>') return bad(StrCat("big-endian dtype ", d, " is not supported"));
  std::string code = d[0] == '<' || d[0] == '|' || d[0] == '=' ? d.substr(1) : d;
  HostArray a;
  for (const Dtype& t : kDtypes)
    if (code == t.descr) a.type = t.type;
  if (a.type == PJRT_Buffer_Type_INVALID) return bad(StrCat("dtype '", d, "' has no PJRT element type"));
  int64_t count = 1;
  std::string dims(shape.substr(1, shape.size() - 2));
  std::stringstream ss(dims);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t f = item.find_first_not_of(' ');
    if (f == std::string::npos) continue;
    char* end = nullptr;
    long long v = std::strtoll(item.c_str() + f, &end, 10);
    if (v < 0 || end == item.c_str() + f) return bad(StrCat("malformed shape ", shape));
    a.dims.push_back(v);
    if (v && count > (int64_t{1} << 40) / v) return bad("the shape is too large");
    count *= v;
  }
  const int64_t need = count * Bytes(a.type);
  if (static_cast<int64_t>(b.size() - at) < need)
    return bad(StrCat("the data holds ", b.size() - at, " bytes; shape ", shape, " of ", d, " needs ", need));
  a.data.assign(b.begin() + at, b.begin() + at + need);
  return a;
}

absl::StatusOr<HostArray> ReadNpy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(StrCat("cannot read ", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ParseNpy(ss.str(), path);
}

absl::StatusOr<std::string> EncodeNpy(const HostArray& a) {
  const char* descr = nullptr;
  for (const Dtype& t : kDtypes)
    if (t.type == a.type) descr = t.descr;
  if (!descr) return absl::UnimplementedError("numpy has no dtype for this element type");
  std::string shape = "(";
  for (size_t i = 0; i < a.dims.size(); ++i) StrAppend(&shape, i ? ", " : "", a.dims[i]);
  if (a.dims.size() == 1) shape += ",";
  shape += ")";
  std::string header = StrCat("{'descr': '", a.type == PJRT_Buffer_Type_PRED ? "|" : "<", descr,
                              "', 'fortran_order': False, 'shape': ", shape, ", }");
  while ((10 + header.size() + 1) % 64) header.push_back(' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
  return out;
}

}  // namespace openpjrt::client
