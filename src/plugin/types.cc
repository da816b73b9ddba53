// PJRT_Buffer_Type <-> StableHLO element kinds.
#include "src/plugin/plugin.h"

namespace openpjrt::plugin {

using ir::ElemKind;

namespace {
struct Pair {
  PJRT_Buffer_Type t;
  ElemKind k;
  const char* name;
};
constexpr Pair kPairs[] = {
    {PJRT_Buffer_Type_PRED, ElemKind::kI1, "PRED"},
    {PJRT_Buffer_Type_S8, ElemKind::kI8, "S8"},
    {PJRT_Buffer_Type_S16, ElemKind::kI16, "S16"},
    {PJRT_Buffer_Type_S32, ElemKind::kI32, "S32"},
    {PJRT_Buffer_Type_S64, ElemKind::kI64, "S64"},
    {PJRT_Buffer_Type_U8, ElemKind::kU8, "U8"},
    {PJRT_Buffer_Type_U16, ElemKind::kU16, "U16"},
    {PJRT_Buffer_Type_U32, ElemKind::kU32, "U32"},
    {PJRT_Buffer_Type_U64, ElemKind::kU64, "U64"},
    {PJRT_Buffer_Type_F16, ElemKind::kF16, "F16"},
    {PJRT_Buffer_Type_F32, ElemKind::kF32, "F32"},
    {PJRT_Buffer_Type_F64, ElemKind::kF64, "F64"},
    {PJRT_Buffer_Type_BF16, ElemKind::kBF16, "BF16"},
    {PJRT_Buffer_Type_C64, ElemKind::kC64, "C64"},
    {PJRT_Buffer_Type_C128, ElemKind::kC128, "C128"},
    {PJRT_Buffer_Type_F8E5M2, ElemKind::kF8E5M2, "F8E5M2"},
    {PJRT_Buffer_Type_F8E4M3FN, ElemKind::kF8E4M3FN, "F8E4M3FN"},
    {PJRT_Buffer_Type_F8E4M3B11FNUZ, ElemKind::kF8E4M3B11FNUZ, "F8E4M3B11FNUZ"},
    {PJRT_Buffer_Type_F8E5M2FNUZ, ElemKind::kF8E5M2FNUZ, "F8E5M2FNUZ"},
    {PJRT_Buffer_Type_F8E4M3FNUZ, ElemKind::kF8E4M3FNUZ, "F8E4M3FNUZ"},
    {PJRT_Buffer_Type_S4, ElemKind::kI4, "S4"},
    {PJRT_Buffer_Type_U4, ElemKind::kU4, "U4"},
    {PJRT_Buffer_Type_S2, ElemKind::kI2, "S2"},
    {PJRT_Buffer_Type_U2, ElemKind::kU2, "U2"},
    {PJRT_Buffer_Type_F8E4M3, ElemKind::kF8E4M3, "F8E4M3"},
    {PJRT_Buffer_Type_F8E3M4, ElemKind::kF8E3M4, "F8E3M4"},
    {PJRT_Buffer_Type_F8E8M0FNU, ElemKind::kF8E8M0FNU, "F8E8M0FNU"},
    {PJRT_Buffer_Type_F4E2M1FN, ElemKind::kF4E2M1FN, "F4E2M1FN"},
    {PJRT_Buffer_Type_F6E2M3FN, ElemKind::kF6E2M3FN, "F6E2M3FN"},
    {PJRT_Buffer_Type_F6E3M2FN, ElemKind::kF6E3M2FN, "F6E3M2FN"},
};
}  // namespace

bool ToElemKind(int t, ElemKind* out) {
  for (const Pair& p : kPairs)
    if (static_cast<int>(p.t) == t) {
      *out = p.k;
      return true;
    }
  return false;
}

PJRT_Buffer_Type ToBufferType(ElemKind k) {
  if (k == ElemKind::kIndex) return PJRT_Buffer_Type_S64;
  for (const Pair& p : kPairs)
    if (p.k == k) return p.t;
  return PJRT_Buffer_Type_INVALID;
}

PJRT_Buffer_Type ToBufferType(const runtime::BufferShape& s) {
  return s.token ? PJRT_Buffer_Type_TOKEN : ToBufferType(s.type.elem);
}

const char* BufferTypeName(int t) {
  if (t == PJRT_Buffer_Type_TOKEN) return "TOKEN";
  if (t == PJRT_Buffer_Type_S1) return "S1";
  if (t == PJRT_Buffer_Type_U1) return "U1";
  for (const Pair& p : kPairs)
    if (static_cast<int>(p.t) == t) return p.name;
  return "INVALID";
}

}  // namespace openpjrt::plugin
