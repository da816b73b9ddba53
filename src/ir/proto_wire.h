// A reader of the protobuf wire format for the messages openpjrt takes from PJRT clients: one
// message decoded at a time into its fields (payloads point into the caller's bytes), with the
// accessors a conversion needs. Used by the HloModuleProto reader (hlo_proto.cc).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "src/support/str.h"

namespace openpjrt::ir::proto_wire {

enum Wire { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

struct Field {
  int num;
  int wire;
  uint64_t value;          // varint and fixed values
  std::string_view bytes;  // length-delimited payload
};

// One decoded message: its fields in order, payloads pointing into the caller's bytes.
class Msg {
 public:
  static absl::StatusOr<Msg> Parse(std::string_view data, const char* what) {
    Msg m;
    size_t pos = 0;
    auto bad = [&](std::string_view why) {
      return absl::InvalidArgumentError(StrCat("HloModuleProto: ", why, " in ", what, " at byte ", pos));
    };
    while (pos < data.size()) {
      uint64_t tag;
      if (!Varint(data, &pos, &tag)) return bad("truncated field tag");
      Field f{static_cast<int>(tag >> 3), static_cast<int>(tag & 7), 0, {}};
      if (f.num == 0) return bad("field number 0");
      switch (f.wire) {
        case kVarint:
          if (!Varint(data, &pos, &f.value)) return bad("truncated varint");
          break;
        case kFixed64:
        case kFixed32: {
          const size_t n = f.wire == kFixed64 ? 8 : 4;
          if (data.size() - pos < n) return bad("truncated fixed-width value");
          std::memcpy(&f.value, data.data() + pos, n);
          pos += n;
          break;
        }
        case kLen: {
          uint64_t len;
          if (!Varint(data, &pos, &len)) return bad("truncated length");
          if (len > data.size() - pos) return bad(StrCat("length ", len, " past the end of the message"));
          f.bytes = data.substr(pos, len);
          pos += len;
          break;
        }
        default:
          return bad(StrCat("unsupported wire type ", f.wire, " of field ", f.num));
      }
      m.fields_.push_back(f);
    }
    return m;
  }

  bool Has(int num) const {
    for (const Field& f : fields_)
      if (f.num == num) return true;
    return false;
  }
  int64_t Int(int num) const {
    int64_t v = 0;
    for (const Field& f : fields_)
      if (f.num == num && f.wire == kVarint) v = static_cast<int64_t>(f.value);
    return v;
  }
  std::string_view Bytes(int num) const {
    std::string_view v;
    for (const Field& f : fields_)
      if (f.num == num && f.wire == kLen) v = f.bytes;
    return v;
  }
  // A repeated integer field, packed or not.
  std::vector<int64_t> Ints(int num) const {
    std::vector<int64_t> out;
    for (const Field& f : fields_) {
      if (f.num != num) continue;
      if (f.wire == kVarint) {
        out.push_back(static_cast<int64_t>(f.value));
      } else if (f.wire == kLen) {
        size_t pos = 0;
        uint64_t v;
        while (pos < f.bytes.size() && Varint(f.bytes, &pos, &v)) out.push_back(static_cast<int64_t>(v));
      }
    }
    return out;
  }
  // A repeated fixed-width field (float, double), packed or not, as raw little-endian bytes.
  std::string Fixed(int num, size_t width) const {
    std::string out;
    for (const Field& f : fields_) {
      if (f.num != num) continue;
      if (f.wire == kLen) out.append(f.bytes);
      else if ((f.wire == kFixed32 && width == 4) || (f.wire == kFixed64 && width == 8))
        out.append(reinterpret_cast<const char*>(&f.value), width);
    }
    return out;
  }
  absl::StatusOr<Msg> Sub(int num, const char* what) const { return Parse(Bytes(num), what); }
  absl::StatusOr<std::vector<Msg>> Subs(int num, const char* what) const {
    std::vector<Msg> out;
    for (const Field& f : fields_) {
      if (f.num != num || f.wire != kLen) continue;
      auto m = Parse(f.bytes, what);
      if (!m.ok()) return m.status();
      out.push_back(std::move(*m));
    }
    return out;
  }

 private:
  static bool Varint(std::string_view data, size_t* pos, uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && *pos < data.size(); shift += 7) {
      const uint8_t b = static_cast<uint8_t>(data[(*pos)++]);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  std::vector<Field> fields_;
};

}  // namespace openpjrt::ir::proto_wire
