// Internals of the bytecode reader shared by its files (bytecode.cc, bytecode_sdy.cc): the
// bounds-checked cursor over a byte range, the error helper that names the byte offset, and the
// interface through which a dialect's attribute decoder reads references to other attributes and
// to the string table. Not part of the IR's public surface.
#ifndef OPENPJRT_IR_BYTECODE_INTERNAL_H_
#define OPENPJRT_IR_BYTECODE_INTERNAL_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "src/ir/bytecode.h"
#include "src/support/str.h"

namespace openpjrt::ir::bc {

// The sections of the container, by id.
enum Section { kString = 0, kDialect, kAttrType, kAttrTypeOffset, kIR, kResource, kResourceOffset,
               kDialectVersions, kProperties, kNumSections };

inline absl::Status Error(size_t offset, const std::string& what) {
  return absl::InvalidArgumentError(StrCat("bytecode offset ", offset, ": ", what));
}

#define BC_TRY(expr)                      \
  do {                                    \
    if (absl::Status _s = (expr); !_s.ok()) return _s; \
  } while (0)

// A cursor over a byte range that knows its absolute offset in the file.
class Cursor {
 public:
  Cursor(std::string_view data, size_t base) : d_(data), base_(base) {}
  bool empty() const { return p_ == d_.size(); }
  size_t offset() const { return base_ + p_; }
  size_t remaining() const { return d_.size() - p_; }
  absl::Status Fail(const std::string& what) const { return Error(offset(), what); }

  absl::Status Byte(uint8_t* b) {
    if (empty()) return Fail("unexpected end of data (expected a byte)");
    *b = static_cast<uint8_t>(d_[p_++]);
    return absl::OkStatus();
  }
  // Prefix varint: the count of trailing zero bits of the first byte is the number of extra bytes.
  absl::Status VarInt(uint64_t* v) {
    uint8_t first = 0;
    BC_TRY(Byte(&first));
    if (first & 1) {
      *v = first >> 1;
      return absl::OkStatus();
    }
    int extra = first == 0 ? 8 : __builtin_ctz(first);
    if (remaining() < static_cast<size_t>(extra)) return Fail("truncated varint");
    uint64_t value = 0;
    for (int i = 0; i < extra; ++i) value |= uint64_t(uint8_t(d_[p_ + i])) << (8 * i);
    p_ += extra;
    if (first == 0) {
      *v = value;
    } else {
      *v = (value << (8 - extra - 1)) | (uint64_t(first) >> (extra + 1));
    }
    return absl::OkStatus();
  }
  absl::Status SignedVarInt(int64_t* v) {
    uint64_t u;
    BC_TRY(VarInt(&u));
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return absl::OkStatus();
  }
  absl::Status VarIntFlag(uint64_t* v, bool* flag) {
    BC_TRY(VarInt(v));
    *flag = *v & 1;
    *v >>= 1;
    return absl::OkStatus();
  }
  absl::Status Bytes(uint64_t n, std::string_view* out, size_t* out_base = nullptr) {
    if (n > remaining()) return Fail(StrCat("expected ", n, " bytes, only ", remaining(), " remain"));
    if (out_base) *out_base = offset();
    *out = d_.substr(p_, n);
    p_ += n;
    return absl::OkStatus();
  }
  absl::Status CString(std::string_view* out) {
    size_t end = d_.find('\0', p_);
    if (end == std::string_view::npos) return Fail("string without a terminating NUL");
    *out = d_.substr(p_, end - p_);
    p_ = end + 1;
    return absl::OkStatus();
  }
  // A section: id byte (high bit = aligned), length, optional alignment and 0xCB padding.
  absl::Status Section(int* id, std::string_view* data, size_t* data_base) {
    uint8_t b = 0;
    uint64_t length = 0;
    BC_TRY(Byte(&b));
    BC_TRY(VarInt(&length));
    *id = b & 0x7f;
    if (*id >= kNumSections) return Fail(StrCat("unknown section id ", *id));
    if (b & 0x80) {
      uint64_t align;
      BC_TRY(VarInt(&align));
      if (align == 0 || (align & (align - 1)) || align > 4096)
        return Fail(StrCat("section alignment ", align, " is not a power of two up to 4096"));
      while (offset() % align) {
        uint8_t pad;
        BC_TRY(Byte(&pad));
        if (pad != 0xCB) return Fail("expected alignment padding byte 0xCB");
      }
    }
    return Bytes(length, data, data_base);
  }

 private:
  std::string_view d_;
  size_t base_;
  size_t p_ = 0;
};

// What a dialect's attribute decoder needs from the reader: references into the attribute table
// (decoded on demand, depth-limited) and into the string table.
class AttrSource {
 public:
  virtual ~AttrSource() = default;
  // The attribute at table index `index`, referenced from byte offset `at`.
  virtual absl::Status AttrAt(uint64_t index, size_t at, int depth, AttrP* out) = 0;
  virtual absl::Status StringRef(Cursor& c, std::string_view* out) = 0;
};

// Decodes the body of a Shardy (`sdy` dialect) attribute whose code was read at `at`: meshes,
// axis references, dimension and tensor shardings (all three versions), shardings per value,
// manual axes, sharding rules and the collective parameter lists. The result is a kOther
// attribute holding the attribute's text form (what the text parser reads), with the form used
// inside another sdy attribute in `nested`.
absl::Status DecodeSdyAttr(Cursor& c, uint64_t code, size_t at, int depth, AttrSource& src, AttrP* out);

}  // namespace openpjrt::ir::bc

#endif  // OPENPJRT_IR_BYTECODE_INTERNAL_H_
