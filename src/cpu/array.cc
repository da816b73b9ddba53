// Aligned allocation for arrays.
#include "src/cpu/array.h"

#include <cstdlib>
#include <new>

#include "src/support/str.h"

namespace openpjrt::cpu {

std::string ArrayType::ToString() const {
  std::string s = "tensor<";
  for (int64_t d : dims) StrAppend(&s, d, "x");
  StrAppend(&s, ir::ElemKindName(elem), ">");
  return s;
}

Array Array::Allocate(ArrayType type) {
  size_t bytes = static_cast<size_t>(type.ByteSize());
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw std::bad_alloc();
  Array a;
  a.type_ = std::move(type);
  a.data_ = std::shared_ptr<const uint8_t>(static_cast<const uint8_t*>(p),
                                           [](const uint8_t* q) { std::free(const_cast<uint8_t*>(q)); });
  return a;
}

Array Array::Wrap(ArrayType type, std::shared_ptr<const uint8_t> data) {
  Array a;
  a.type_ = std::move(type);
  a.data_ = std::move(data);
  return a;
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

}  // namespace openpjrt::cpu
