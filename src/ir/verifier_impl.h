// Shared state of the verifier: verifier.cc walks the module and checks structure; verifier_ops.cc
// holds the per-op rules.
#pragma once

#include <stdexcept>
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

  // Helpers for the rules.
  Type TensorOperand(const Operation& op, size_t i) const;  // fails unless a tensor
  Type TensorResult(const Operation& op, size_t i) const;
  void CheckElem(const Operation& op, Type tensor, unsigned cats, const char* what) const;
  void CheckSameShape(const Operation& op, Type a, Type b, const char* what) const;
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

}  // namespace openpjrt::ir
