// Shared state of the verifier: verifier.cc walks the module and checks structure; verifier_ops.cc
// holds the per-op rules.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <set>
#include <stdexcept>
#include <string_view>
#include <string>
#include <vector>

#include "src/ir/ir.h"

namespace openpjrt::ir {

class VerifyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Element categories for type checks.
enum ElemCat : unsigned {
  kCatBool = 1, kCatInt = 2, kCatFloat = 4, kCatComplex = 8, kCatQuant = 16,
  kCatAnyNum = kCatInt | kCatFloat | kCatComplex | kCatQuant,
  kCatAll = kCatBool | kCatAnyNum,
};

class Verifier {
 public:
  explicit Verifier(const Module& m) : m_(m) {}
  void Run();

  [[noreturn]] void Fail(const Operation& op, const std::string& msg) const;
  void VerifyOp(const Operation& op);
  void VerifyOpRules(const Operation& op);  // verifier_ops.cc
  // dot_general, convolution, reduce, windows, map, sort, gather, scatter (verifier_windows.cc).
  void VerifyProductOrIndexingOp(const Operation& op);
  void VerifyScan(const Operation& op);  // chlo.scan (verifier_ops.cc)

  // Helpers for the rules.
  Type TensorOperand(const Operation& op, size_t i) const;  // fails unless a tensor
  Type TensorResult(const Operation& op, size_t i) const;
  void CheckElem(const Operation& op, Type tensor, unsigned cats, const char* what) const;
  void CheckSameShape(const Operation& op, Type a, Type b, const char* what) const;
  void CheckSameElem(const Operation& op, Type a, Type b, const char* what) const;
  void CheckCompatible(const Operation& op, Type a, Type b, const char* what) const;
  std::vector<int64_t> I64List(const Operation& op, const char* attr, bool required = true) const;
  int64_t IntAttr(const Operation& op, const char* attr, bool required, int64_t dflt) const;
  // Checks the single block of region `r`: arguments' types and the types its terminator returns.
  void CheckRegion(const Operation& op, size_t r, const std::vector<Type>& args,
                   const std::vector<Type>* returns, const char* what) const;
  Type ScalarTensor(ElemKind k) const;

  const Module& m_;
};

std::string TypeStr(Type t);
bool DimsCompatible(int64_t a, int64_t b);
std::string ListStr(const std::vector<int64_t>& v);

// Small predicates the per-op rules share.
namespace verifier_rules {

inline bool IsUnique(const std::vector<int64_t>& v) {
  std::set<int64_t> s(v.begin(), v.end());
  return s.size() == v.size();
}

inline bool InRange(const std::vector<int64_t>& v, int64_t lo, int64_t hi) {
  for (int64_t x : v)
    if (x < lo || x >= hi) return false;
  return true;
}

inline bool IsSorted(const std::vector<int64_t>& v) { return std::is_sorted(v.begin(), v.end()); }

inline bool IsEnum(const Attribute& a, std::string_view name, std::initializer_list<std::string_view> ok) {
  if (!a || a.kind() != AttrKind::kEnum || a->enum_name != name) return false;
  for (auto v : ok)
    if (a->str == v) return true;
  return false;
}

// Element type of a tensor, quantized types reduced to their storage kind for comparisons.
inline Type Elem(Type t) { return t.element_type(); }

// Equal types, or tensors that differ only where one has a dynamic dimension: calls and returns
// accept these, so a static value can be passed to a function written for dynamic sizes (shape
// refinement then specialises the callee).
inline bool ShapeCompatible(Type a, Type b) {
  if (a == b) return true;
  if (!a.IsTensor() || !b.IsTensor() || a.element_type() != b.element_type() || a.rank() != b.rank())
    return false;
  for (int64_t i = 0; i < a.rank(); ++i)
    if (!DimsCompatible(a.shape()[i], b.shape()[i])) return false;
  return true;
}

}  // namespace verifier_rules

}  // namespace openpjrt::ir
