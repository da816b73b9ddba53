// A minimal protobuf wire reader and writer for the few messages the runtime exchanges.
// Field numbers: CompileOptionsProto {executable_build_options = 3, compile_portable_executable =
// 4}; ExecutableBuildOptionsProto {num_replicas = 4, num_partitions = 5, device_assignment = 9};
// DeviceAssignmentProto {replica_count = 1, computation_count = 2, computation_devices = 3};
// ComputationDevice {replica_device_ids = 1}.
#include "src/runtime/compile_options.h"

#include "src/support/str.h"

namespace openpjrt::runtime {
namespace {

enum WireType { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// Reads one message's fields in order; offsets are reported from the start of the outermost
// message so errors point into the bytes the caller passed.
class WireReader {
 public:
  WireReader(std::string_view bytes, size_t base, const char* what)
      : data_(bytes), base_(base), what_(what) {}

  bool done() const { return pos_ >= data_.size(); }
  size_t offset() const { return base_ + pos_; }

  absl::Status Next(int* field, int* wire) {
    uint64_t tag;
    if (auto s = Varint(&tag); !s.ok()) return s;
    *field = static_cast<int>(tag >> 3);
    *wire = static_cast<int>(tag & 7);
    if (*field == 0) return Error("field number 0");
    return absl::OkStatus();
  }

  absl::Status Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Error("truncated varint");
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return absl::OkStatus();
    }
    return Error("varint longer than 10 bytes");
  }

  absl::Status Bytes(std::string_view* out, size_t* start) {
    uint64_t n;
    if (auto s = Varint(&n); !s.ok()) return s;
    if (n > data_.size() - pos_) return Error(StrCat("length ", n, " runs past the end"));
    *start = base_ + pos_;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return absl::OkStatus();
  }

  absl::Status Skip(int wire) {
    uint64_t v;
    std::string_view sv;
    size_t start = 0;
    switch (wire) {
      case kVarint: return Varint(&v);
      case kFixed64: return Advance(8);
      case kLen: return Bytes(&sv, &start);
      case kFixed32: return Advance(4);
      default: return Error(StrCat("unsupported wire type ", wire));
    }
  }

  absl::Status Error(const std::string& why) const {
    return absl::InvalidArgumentError(
        StrCat("compile_options: malformed ", what_, " at byte ", base_ + pos_, ": ", why));
  }

 private:
  absl::Status Advance(size_t n) {
    if (n > data_.size() - pos_) return Error("truncated fixed-width field");
    pos_ += n;
    return absl::OkStatus();
  }

  std::string_view data_;
  size_t base_;
  const char* what_;
  size_t pos_ = 0;
};

// Appends int64 values of a repeated field, packed or not.
absl::Status ReadInts(WireReader& r, int wire, std::vector<int64_t>* out) {
  uint64_t v;
  if (wire == kVarint) {
    if (auto s = r.Varint(&v); !s.ok()) return s;
    out->push_back(static_cast<int64_t>(v));
    return absl::OkStatus();
  }
  if (wire != kLen) return r.Error("repeated int64 field with the wrong wire type");
  std::string_view packed;
  size_t start = 0;
  if (auto s = r.Bytes(&packed, &start); !s.ok()) return s;
  WireReader inner(packed, start, "packed int64 list");
  while (!inner.done()) {
    if (auto s = inner.Varint(&v); !s.ok()) return s;
    out->push_back(static_cast<int64_t>(v));
  }
  return absl::OkStatus();
}

absl::Status ReadDeviceAssignment(std::string_view bytes, size_t base, CompileOptions* out) {
  WireReader r(bytes, base, "DeviceAssignmentProto");
  std::vector<std::vector<int64_t>> by_computation;
  int64_t replica_count = 0, computation_count = 0;
  while (!r.done()) {
    int field, wire;
    if (auto s = r.Next(&field, &wire); !s.ok()) return s;
    uint64_t v;
    if ((field == 1 || field == 2) && wire == kVarint) {
      if (auto s = r.Varint(&v); !s.ok()) return s;
      (field == 1 ? replica_count : computation_count) = static_cast<int64_t>(v);
    } else if (field == 3 && wire == kLen) {
      std::string_view sub;
      size_t start = 0;
      if (auto s = r.Bytes(&sub, &start); !s.ok()) return s;
      WireReader cr(sub, start, "ComputationDevice");
      std::vector<int64_t> ids;
      while (!cr.done()) {
        int f, w;
        if (auto s = cr.Next(&f, &w); !s.ok()) return s;
        if (f == 1) {
          if (auto s = ReadInts(cr, w, &ids); !s.ok()) return s;
        } else if (auto s = cr.Skip(w); !s.ok()) {
          return s;
        }
      }
      by_computation.push_back(std::move(ids));
    } else if (auto s = r.Skip(wire); !s.ok()) {
      return s;
    }
  }
  if (by_computation.empty()) return absl::OkStatus();
  if (computation_count && computation_count != static_cast<int64_t>(by_computation.size()))
    return absl::InvalidArgumentError(
        StrCat("compile_options: device assignment declares ", computation_count,
               " computations but lists ", by_computation.size()));
  const size_t replicas = by_computation[0].size();
  if (replica_count && replica_count != static_cast<int64_t>(replicas))
    return absl::InvalidArgumentError(StrCat("compile_options: device assignment declares ",
                                             replica_count, " replicas but lists ", replicas));
  for (const auto& c : by_computation)
    if (c.size() != replicas)
      return absl::InvalidArgumentError(
          "compile_options: device assignment computations list different replica counts");
  out->device_assignment.assign(replicas, std::vector<int64_t>(by_computation.size()));
  for (size_t p = 0; p < by_computation.size(); ++p)
    for (size_t rep = 0; rep < replicas; ++rep) out->device_assignment[rep][p] = by_computation[p][rep];
  return absl::OkStatus();
}

absl::Status ReadBuildOptions(std::string_view bytes, size_t base, CompileOptions* out) {
  WireReader r(bytes, base, "ExecutableBuildOptionsProto");
  while (!r.done()) {
    int field, wire;
    if (auto s = r.Next(&field, &wire); !s.ok()) return s;
    uint64_t v;
    if ((field == 4 || field == 5) && wire == kVarint) {
      if (auto s = r.Varint(&v); !s.ok()) return s;
      int64_t n = static_cast<int64_t>(v);
      if (n < 0 || n > 1 << 20)
        return absl::InvalidArgumentError(StrCat("compile_options: ",
                                                 field == 4 ? "num_replicas" : "num_partitions",
                                                 " must be from 0 to 1048576, got ", n));
      (field == 4 ? out->num_replicas : out->num_partitions) = n;
    } else if (field == 9 && wire == kLen) {
      std::string_view sub;
      size_t start = 0;
      if (auto s = r.Bytes(&sub, &start); !s.ok()) return s;
      if (auto s = ReadDeviceAssignment(sub, start, out); !s.ok()) return s;
    } else if (auto s = r.Skip(wire); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutTag(std::string* out, int field, int wire) { PutVarint(out, (field << 3) | wire); }

void PutBytes(std::string* out, int field, const std::string& bytes) {
  PutTag(out, field, kLen);
  PutVarint(out, bytes.size());
  out->append(bytes);
}

}  // namespace

absl::StatusOr<CompileOptions> ParseCompileOptions(std::string_view bytes) {
  CompileOptions out;
  out.serialized = std::string(bytes);
  WireReader r(bytes, 0, "CompileOptionsProto");
  while (!r.done()) {
    int field, wire;
    if (auto s = r.Next(&field, &wire); !s.ok()) return s;
    uint64_t v;
    if (field == 3 && wire == kLen) {
      std::string_view sub;
      size_t start = 0;
      if (auto s = r.Bytes(&sub, &start); !s.ok()) return s;
      if (auto s = ReadBuildOptions(sub, start, &out); !s.ok()) return s;
    } else if (field == 4 && wire == kVarint) {
      if (auto s = r.Varint(&v); !s.ok()) return s;
      out.compile_portable_executable = v != 0;
    } else if (auto s = r.Skip(wire); !s.ok()) {
      return s;
    }
  }
  return out;
}

std::string SerializeDeviceAssignment(const std::vector<std::vector<int64_t>>& assignment) {
  std::string out;
  const size_t replicas = assignment.size();
  const size_t partitions = replicas ? assignment[0].size() : 0;
  PutTag(&out, 1, kVarint);
  PutVarint(&out, replicas);
  PutTag(&out, 2, kVarint);
  PutVarint(&out, partitions);
  for (size_t p = 0; p < partitions; ++p) {
    std::string ids, computation;
    for (size_t r = 0; r < replicas; ++r) PutVarint(&ids, static_cast<uint64_t>(assignment[r][p]));
    PutBytes(&computation, 1, ids);
    PutBytes(&out, 3, computation);
  }
  return out;
}

std::string SerializeCompileOptions(const CompileOptions& options) {
  std::string build;
  PutTag(&build, 4, kVarint);
  PutVarint(&build, options.num_replicas);
  PutTag(&build, 5, kVarint);
  PutVarint(&build, options.num_partitions);
  if (!options.device_assignment.empty())
    PutBytes(&build, 9, SerializeDeviceAssignment(options.device_assignment));
  std::string out;
  PutBytes(&out, 3, build);
  if (options.compile_portable_executable) {
    PutTag(&out, 4, kVarint);
    PutVarint(&out, 1);
  }
  return out;
}

}  // namespace openpjrt::runtime
