// gather and scatter after the specification's definitions (sort is kernels_sort.cc's): each
// start index is read once and a window moved by a table of offsets; scatter's update
// computation runs per element, in place when it is elementwise (LaneRegion), else as region
// calls. Whole rows (embedding lookups and their gradients) take paths of their own.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <type_traits>

#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/kernels/fused.h"
#include "src/cpu/kernels/region_lanes.h"
#include "src/cpu/exec/strided.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Random rows of an array larger than the caches (embedding lookups and their gradients) are
// asked for this many rows before they are used, when a row is at most kPrefetchedRowBytes.
constexpr int64_t kRowsAhead = 8;
constexpr int64_t kPrefetchedRowBytes = 4096;
template <int kWrite>  // (a constant even in unoptimised builds)
inline void PrefetchRow(const uint8_t* p, int64_t bytes) {
  for (int64_t o = 0; o < bytes; o += 64) __builtin_prefetch(p + o, kWrite, 3);
  __builtin_prefetch(p + bytes - 1, kWrite, 3);
}

// Where batch position `bi` of a gather or scatter starts in the operand, unclamped: the start
// index read from `indices` (strides `is`; the index vector along `ivd`, unless ivd is past its
// rank) for the operand dimensions of `index_map`, plus the batch index for the batching
// dimensions (operand_batching[k] takes batch dimension indices_batching[k] of the indices).
void BatchStart(const Array& indices, int64_t ivd, const std::vector<int64_t>& is, const std::vector<int64_t>& bi,
                const std::vector<int64_t>& index_map, const std::vector<int64_t>& operand_batching,
                const std::vector<int64_t>& indices_batching, std::vector<int64_t>* xi) {
  const int64_t irank = indices.type().rank(), ies = indices.type().ElementSize();
  const int64_t nidx = ivd < irank ? indices.dims()[ivd] : 1;
  int64_t ib = 0;
  for (size_t k = 0; k < bi.size(); ++k) ib += bi[k] * is[static_cast<int64_t>(k) < ivd ? k : k + 1];
  std::fill(xi->begin(), xi->end(), 0);
  for (size_t k = 0; k < index_map.size() && static_cast<int64_t>(k) < nidx; ++k) {
    const int64_t at = ib + (ivd < irank ? static_cast<int64_t>(k) * is[ivd] : 0);
    (*xi)[index_map[k]] = ReadIndexAt(indices.elem(), indices.data() + at * ies);
  }
  for (size_t k = 0; k < operand_batching.size(); ++k) {
    const int64_t ds = indices_batching[k];
    (*xi)[operand_batching[k]] += bi[ds - (ds < ivd ? 0 : 1)];
  }
}

// The fused elementwise run that alone reads a gather's result (FusedGatherParams), evaluated on
// each block of rows as soon as they are copied, while they are in L1 or L2.
struct RowsEpilogue {
  const FusedParams* fp;
  const FusedInputs* in;
  std::vector<Array>* outs;
  bool in_place;  // an output shares the gathered rows' storage
};

// The embedding lookup (jnp.take along axis 0, x[ids]): whole rows of the operand, one per index,
// each start clamped as the specification says. Such a gather has start_index_map =
// collapsed_slice_dims = [0], no batching dimensions, slice_sizes = [1, every other dimension in
// full], offset_dims the result's trailing dimensions and one index component per start.
struct RowLookup {
  const uint8_t* idx = nullptr;
  ElemKind ik = ElemKind::kI32;
  int64_t n = 0;      // the operand's rows
  int64_t rows = 0;   // the indices: rows looked up
  int64_t row = 0;    // elements per row
  int64_t bytes = 0;  // bytes per row
  // The operand row that lookup i reads (its index clamped into [0, n)).
  int64_t RowOf(int64_t i) const {
    int64_t k;
    switch (ik) {
      case ElemKind::kI32: { int32_t v; std::memcpy(&v, idx + 4 * i, 4); k = v; break; }
      case ElemKind::kU32: { uint32_t v; std::memcpy(&v, idx + 4 * i, 4); k = v; break; }
      case ElemKind::kI64: { std::memcpy(&k, idx + 8 * i, 8); break; }
      default: {
        uint64_t v;
        std::memcpy(&v, idx + 8 * i, 8);
        k = v > static_cast<uint64_t>(n - 1) ? n - 1 : static_cast<int64_t>(v);
      }
    }
    return std::clamp<int64_t>(k, 0, n - 1);
  }
};

// Whether the gather of x by `indices` into `r` (its result type) is a lookup of whole rows, and
// if so its RowLookup.
bool LookupOfRows(const GatherParams& p, const Array& x, const Array& indices, const ArrayType& r, RowLookup* w) {
  const int64_t xrank = x.type().rank(), rrank = r.rank(), irank = indices.type().rank();
  if (xrank < 1 || p.start_index_map != std::vector<int64_t>{0} || p.collapsed_slice_dims != std::vector<int64_t>{0} ||
      !p.operand_batching_dims.empty() || static_cast<int64_t>(p.slice_sizes.size()) != xrank || p.slice_sizes[0] != 1)
    return false;
  if (static_cast<int64_t>(p.offset_dims.size()) != xrank - 1) return false;
  for (int64_t d = 1; d < xrank; ++d)
    if (p.slice_sizes[d] != x.dims()[d] || p.offset_dims[d - 1] != rrank - xrank + d) return false;
  // One index component: an implicit trailing index dimension, or a last dimension of size 1.
  const bool implicit = p.index_vector_dim == irank;
  if (!implicit && !(p.index_vector_dim == irank - 1 && indices.dims()[irank - 1] == 1)) return false;
  const ElemKind ik = indices.type().elem;
  if (ik != ElemKind::kI32 && ik != ElemKind::kI64 && ik != ElemKind::kU32 && ik != ElemKind::kU64) return false;
  const int64_t rows = indices.NumElements(), n = x.dims()[0];
  if (n == 0) return false;  // no row to take: the general path reports it
  const int64_t row = x.NumElements() / n;
  if (rows * row != r.NumElements() || x.type().elem != r.elem) return false;
  *w = RowLookup{indices.data(), ik, n, rows, row, r.ElementSize() * row};
  return true;
}

// Rows of a table larger than the caches come from anywhere in memory: each row's lines are
// asked for kRowsAhead rows before they are copied, so that the misses overlap (an embedding
// lookup of 8192 rows of 512 bytes from 25.6 MB waited ~50 ns on each).
bool FetchAhead(const Array& table, int64_t bytes) {
  return table.ByteSize() >= (int64_t{4} << 20) && bytes <= kPrefetchedRowBytes;
}

// A lookup of whole rows (RowLookup) into r, the rows copied side by side by the intra-op
// threads. False when the gather is not of that form. With `epilogue`, its run is evaluated on
// every 16 KiB of rows just copied.
bool GatherRows(const Step& s, ExecState& st, const GatherParams& p, const Array& x, const Array& indices,
                Array& r, const RowsEpilogue* epilogue = nullptr) {
  RowLookup w;
  if (!LookupOfRows(p, x, indices, r.type(), &w)) return false;
  const int64_t rows = w.rows, row = w.row, bytes = w.bytes;
  const uint8_t* src = x.data();
  uint8_t* dst = r.mutable_data();
  const bool ahead = FetchAhead(x, bytes);
  auto copy_rows = [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      if (ahead && i + kRowsAhead < last) PrefetchRow<0>(src + w.RowOf(i + kRowsAhead) * bytes, bytes);
      std::memcpy(dst + i * bytes, src + w.RowOf(i) * bytes, static_cast<size_t>(bytes));
    }
  };
  // With an epilogue, 16 KiB of rows at a time, then the run over their elements.
  const int64_t block_rows = std::max<int64_t>(1, (int64_t{16} << 10) / std::max<int64_t>(bytes, 1));
  auto copy = [&](int64_t first, int64_t last) {
    if (!epilogue) return copy_rows(first, last);
    FusedBlockEval eval(*epilogue->fp, *epilogue->in, epilogue->outs, /*stream=*/false, epilogue->in_place);
    for (int64_t b = first; b < last; b += block_rows) {
      const int64_t e = std::min(last, b + block_rows);
      copy_rows(b, e);
      for (int64_t k = b * row, end = e * row; k < end; k += kFusedBlock) eval.Run(k, std::min(kFusedBlock, end - k));
    }
    eval.Finish();
  };
  const int64_t pieces = rows * bytes >= (int64_t{1} << 20) ? std::min<int64_t>(rows, st.threads()) : 1;
  if (pieces <= 1) {
    copy(0, rows);
  } else {
    st.ParallelFor(pieces, [&](int64_t k) { copy(rows * k / pieces, rows * (k + 1) / pieces); });
  }
  return true;
}

// Gather as the specification defines it, organised for speed: for each batch position (the
// result's non-offset dimensions) the start index is read once and the slice is copied by a
// table of (operand, result) offsets computed once, a run at a time where the slice's last
// dimension is the innermost of both (an embedding lookup copies whole rows).
void GatherWith(const Step& s, ExecState& st, const GatherParams& p) {
  const Array& x = st.slots[s.in[0]].array;
  const Array& indices = st.slots[s.in[1]].array;
  Array r = st.NewArray(s.out_types[0]);
  const int64_t es = r.type().ElementSize();
  const int64_t rrank = r.type().rank(), xrank = x.type().rank();
  const std::vector<int64_t> xs = RowMajorStrides(x.dims()), rs = RowMajorStrides(r.dims());
  const std::vector<int64_t> is = RowMajorStrides(indices.dims());
  std::vector<int64_t> batch_dims;
  for (int64_t d = 0; d < rrank; ++d)
    if (!Contains(p.offset_dims, d)) batch_dims.push_back(d);
  if (r.NumElements() == 0 || GatherRows(s, st, p, x, indices, r)) {
    st.slots[s.out[0]] = RtValue::Of(std::move(r));
    return;
  }
  // The operand dimensions the slice spans in the result, in order (offset_dims is sorted).
  std::vector<int64_t> slice_dims;
  for (int64_t d = 0; d < xrank; ++d)
    if (!Contains(p.collapsed_slice_dims, d) && !Contains(p.operand_batching_dims, d)) slice_dims.push_back(d);
  if (slice_dims.size() != p.offset_dims.size()) {
    st.Fail(s, absl::InvalidArgumentError("offset_dims do not match the slice's dimensions"));
    return;
  }
  for (int64_t d = 0; d < xrank; ++d)
    if (p.slice_sizes[d] > x.dims()[d]) {
      st.Fail(s, absl::InvalidArgumentError(StrCat("the result shape reaches past the operand in dimension ", d)));
      return;
    }
  // Runs of `run` elements along the last slice dimension when it is innermost in both arrays.
  int64_t run = 1;
  const size_t ns = slice_dims.size();
  if (ns > 0 && slice_dims.back() == xrank - 1 && p.offset_dims.back() == rrank - 1) run = r.dims()[rrank - 1];
  std::vector<int64_t> x_off, r_off;
  {
    std::vector<int64_t> sizes(ns), idx(ns, 0);
    for (size_t j = 0; j < ns; ++j) sizes[j] = r.dims()[p.offset_dims[j]];
    if (run > 1) sizes.back() = 1;
    bool any = true;
    for (int64_t v : sizes) any &= v > 0;
    if (any) do {
        int64_t xo = 0, ro = 0;
        for (size_t j = 0; j < ns; ++j) {
          xo += idx[j] * xs[slice_dims[j]];
          ro += idx[j] * rs[p.offset_dims[j]];
        }
        x_off.push_back(xo);
        r_off.push_back(ro);
      } while (NextIndex(idx, sizes));
  }
  const int64_t nb = static_cast<int64_t>(batch_dims.size());
  std::vector<int64_t> bsizes(nb), bi(nb, 0), xi(xrank);
  for (int64_t k = 0; k < nb; ++k) bsizes[k] = r.dims()[batch_dims[k]];
  do {
    int64_t rb = 0;
    for (int64_t k = 0; k < nb; ++k) rb += bi[k] * rs[batch_dims[k]];
    BatchStart(indices, p.index_vector_dim, is, bi, p.start_index_map, p.operand_batching_dims,
               p.start_indices_batching_dims, &xi);
    // Starts are clamped so that the slice fits (batching dimensions are never in the map).
    for (int64_t d : p.start_index_map) xi[d] = std::clamp<int64_t>(xi[d], 0, x.dims()[d] - p.slice_sizes[d]);
    int64_t xb = 0;
    for (int64_t d = 0; d < xrank; ++d) {
      if (xi[d] < 0 || xi[d] + (Contains(slice_dims, d) ? p.slice_sizes[d] : 1) > x.dims()[d]) {
        st.Fail(s, absl::InvalidArgumentError(StrCat("the result shape reaches past the operand in dimension ", d)));
        return;
      }
      xb += xi[d] * xs[d];
    }
    const uint8_t* src = x.data() + xb * es;
    uint8_t* dst = r.mutable_data() + rb * es;
    for (size_t k = 0; k < x_off.size(); ++k)
      std::memcpy(dst + r_off[k] * es, src + x_off[k] * es, static_cast<size_t>(run * es));
  } while (nb > 0 && NextIndex(bi, bsizes));
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void Gather(const Step& s, ExecState& st) { GatherWith(s, st, s.Params<GatherParams>()); }

// FusedGatherParams: a gather of whole rows (GatherRows) with its epilogue evaluated block by
// block as the rows arrive; any other gather runs as the two steps. An embedding lookup times a
// constant wrote and read back its rows once more (JAX's embedding gradient: 4 MB of rows, the
// multiply a pass of 200 us).
void FusedGather(const Step& s, ExecState& st) {
  const FusedGatherParams& p = s.Params<FusedGatherParams>();
  const Step& gather = p.gather;
  const Step& epilogue = p.epilogue;
  const FusedParams& fp = epilogue.Params<FusedParams>();
  const int rows_slot = epilogue.in[static_cast<size_t>(p.gather_input)];
  const Array& x = st.slots[gather.in[0]].array;
  const Array& indices = st.slots[gather.in[1]].array;
  Array c = st.NewArray(gather.out_types[0]);
  if (c.NumElements() > 0 && fp.num_elements == c.NumElements()) {
    st.slots[rows_slot] = RtValue::Of(c);  // the run reads the rows through their slot
    FusedInputs in;
    if (PrepareFusedInputs(fp, epilogue, st, epilogue.in.size(), &in).ok()) {
      bool in_place;
      std::vector<Array> outs = EpilogueOutputs(epilogue, c, &in_place);
      const RowsEpilogue rows_epilogue{&fp, &in, &outs, in_place};
      if (GatherRows(gather, st, gather.Params<GatherParams>(), x, indices, c, &rows_epilogue)) {
        st.slots[rows_slot] = RtValue();
        for (size_t j = 0; j < outs.size(); ++j) st.slots[s.out[j]] = RtValue::Of(std::move(outs[j]));
        return;
      }
    }
    st.slots[rows_slot] = RtValue();
  }
  c = Array();
  gather.fn(gather, st);
  if (st.ok()) epilogue.fn(epilogue, st);
  st.slots[rows_slot] = RtValue();
}

// dynamic_gather: slice_sizes is the third operand.
void DynamicGather(const Step& s, ExecState& st) {
  GatherParams p = s.Params<GatherParams>();
  p.slice_sizes = ReadIndexVector(st.slots[s.in[2]].array);
  const Array& x = st.slots[s.in[0]].array;
  for (size_t d = 0; d < p.slice_sizes.size(); ++d) {
    if (p.slice_sizes[d] < 0 || p.slice_sizes[d] > x.dims()[d]) {
      st.Fail(s, absl::InvalidArgumentError(StrCat("slice size ", p.slice_sizes[d],
                                                   " is out of range for dimension ", d)));
      return;
    }
  }
  GatherWith(s, st, p);
}

// Update rows that are not an array (FusedScatterParams): update row i is row RowOf(i) of a
// lookup's operand `table`, passed through `epilogue` when there is one: a fused elementwise run
// whose input `input` is the looked-up rows, whose one output is the update, and whose other
// inputs are the same at every position (splats, broadcast scalars), so that it may run on the
// rows wherever they are put.
struct LookedUpUpdates {
  const RowLookup* lookup = nullptr;
  const Array* table = nullptr;
  const Step* epilogue = nullptr;
  int input = 0;
  ArrayType type;  // the updates' type (the lookup's result, or the epilogue's output)
};

// Scatter of whole rows with a typed fold (an embedding gradient, zeros.at[ids].add(u)): one
// index per update row picks an operand row (inserted_window_dims = scatter_dims_to_operand_dims
// = [0], no batching dimensions, the window every other operand dimension in full, trailing in
// the updates). A row whose index is outside [0, rows) is skipped, as the specification skips
// windows out of bounds. The result is first made the operand (filled with the scalar at
// `fill`, or copied from `from`) a block of kBlockBytes at a time, and that block's updates are
// applied while it is in the cache: the updates are bucketed by block, keeping their order
// within each (a row receives its updates in the order of the updates, so the bits equal the
// one-at-a-time result and do not depend on the thread count, the intra-op threads taking whole
// blocks). A fill of the whole result before the updates had written 25.6 MB that the updates
// then read back from memory at random (JAX's embedding gradient of 8192 rows of 512 bytes into
// 50000: fill 1.0 ms + scatter 0.9 ms). The updates are the rows of `u`, or with `looked_up`
// rows of a table, each made when its block takes it. False when the scatter is not of that form.
bool ScatterRows(ExecState& st, const ScatterParams& p, const Array& indices, const Array* u,
                 const LookedUpUpdates* looked_up, const uint8_t* fill, const Array* from, Array& r) {
  const int64_t xrank = r.type().rank(), irank = indices.type().rank();
  if (!p.fold || xrank < 1 || p.inserted_window_dims != std::vector<int64_t>{0} ||
      p.scatter_dims_to_operand_dims != std::vector<int64_t>{0} || !p.input_batching_dims.empty() ||
      static_cast<int64_t>(p.update_window_dims.size()) != xrank - 1)
    return false;
  {
    const ArrayType& ut = u ? u->type() : looked_up->type;
    const int64_t urank = ut.rank();
    if (urank < xrank - 1) return false;
    for (int64_t j = 0; j + 1 < xrank; ++j)
      if (p.update_window_dims[j] != urank - xrank + 1 + j || ut.dims[urank - xrank + 1 + j] != r.dims()[1 + j])
        return false;
  }
  const bool implicit = p.index_vector_dim == irank;
  if (!implicit && !(p.index_vector_dim == irank - 1 && indices.dims()[irank - 1] == 1)) return false;
  const ElemKind ik = indices.type().elem;
  if (ik != ElemKind::kI32 && ik != ElemKind::kI64 && ik != ElemKind::kU32 && ik != ElemKind::kU64) return false;
  const int64_t n = r.dims()[0], rows = indices.NumElements(), es = r.type().ElementSize();
  if (n == 0) return false;
  const int64_t row = r.NumElements() / n, bytes = row * es;
  if (row == 0 || (u && rows * row != u->NumElements())) return false;
  // Looked-up rows: as many as the updates have, each one update window; without an epilogue,
  // of the result's element type.
  if (looked_up && (looked_up->lookup->rows != rows || looked_up->lookup->row != row ||
                    (!looked_up->epilogue && looked_up->table->type().elem != r.type().elem)))
    return false;
  // The epilogue's inputs, checked here once; each thread prepares its own below.
  const FusedParams* fp = looked_up && looked_up->epilogue ? &looked_up->epilogue->Params<FusedParams>() : nullptr;
  if (fp) {
    const Step& e = *looked_up->epilogue;
    FusedInputs in;
    if (e.out.size() != 1 || e.out_types[0].elem != r.type().elem ||
        !PrepareFusedInputs(*fp, e, st, e.in.size(), &in, looked_up->input).ok())
      return false;
    for (size_t v = 0; v < e.in.size(); ++v)
      if (static_cast<int>(v) != looked_up->input && !in.splat[v]) return false;
  }
  const uint8_t* idx = indices.data();
  auto target = [&](int64_t i) -> int64_t {  // the operand row of update row i; -1 when outside
    switch (ik) {
      case ElemKind::kI32: { int32_t v; std::memcpy(&v, idx + 4 * i, 4); return v >= 0 && v < n ? v : -1; }
      case ElemKind::kU32: { uint32_t v; std::memcpy(&v, idx + 4 * i, 4); return v < n ? int64_t{v} : -1; }
      case ElemKind::kI64: { int64_t v; std::memcpy(&v, idx + 8 * i, 8); return v >= 0 && v < n ? v : -1; }
      default: { uint64_t v; std::memcpy(&v, idx + 8 * i, 8); return v < static_cast<uint64_t>(n) ? static_cast<int64_t>(v) : -1; }
    }
  };
  constexpr int64_t kBlockBytes = int64_t{256} << 10;
  const int64_t block_rows = std::max<int64_t>(1, kBlockBytes / bytes), blocks = (n + block_rows - 1) / block_rows;
  // Counting sort of the update rows by block: start[b] .. start[b + 1] in `order`.
  Array held;
  int64_t* start = AllocateScratch<int64_t>(blocks + 1 + 2 * rows, &held);
  int64_t* order = start + blocks + 1;
  int64_t* dest = order + rows;
  std::fill(start, start + blocks + 1, 0);
  for (int64_t i = 0; i < rows; ++i) {
    dest[i] = target(i);
    if (dest[i] >= 0) ++start[dest[i] / block_rows + 1];
  }
  for (int64_t b = 0; b < blocks; ++b) start[b + 1] += start[b];
  {
    std::vector<int64_t> next(start, start + blocks);
    for (int64_t i = 0; i < rows; ++i)
      if (dest[i] >= 0) order[next[dest[i] / block_rows]++] = i;
  }
  uint8_t* y = r.mutable_data();
  // Where update row i is: in u, or in the table (row_bytes apart).
  const uint8_t* rows_at = u ? u->data() : looked_up->table->data();
  const int64_t row_bytes = u ? bytes : looked_up->lookup->bytes;
  auto source = [&](int64_t i) { return rows_at + (u ? i : looked_up->lookup->RowOf(i)) * row_bytes; };
  const bool ahead = row_bytes <= kPrefetchedRowBytes && (u || FetchAhead(*looked_up->table, row_bytes));
  // Rows through an epilogue: up to `chunk` of them at a time are copied side by side, the run
  // evaluated over them, and its values folded in (16 KiB each way, in L1).
  const int64_t chunk = std::max<int64_t>(1, (int64_t{16} << 10) / std::max(row_bytes, bytes));
  auto run_blocks = [&](int64_t b0, int64_t b1) {
    FusedInputs in;
    Array rows_held;
    std::vector<Array> outs;
    std::optional<FusedBlockEval> eval;
    uint8_t* rows_in = nullptr;
    if (fp) {
      const Step& e = *looked_up->epilogue;
      (void)PrepareFusedInputs(*fp, e, st, e.in.size(), &in, looked_up->input);  // succeeded above
      rows_held = Array::Allocate({looked_up->table->type().elem, {chunk * row}});
      rows_in = rows_held.mutable_data();
      in.ptr[static_cast<size_t>(looked_up->input)] = rows_in;
      outs.push_back(Array::Allocate({r.type().elem, {chunk * row}}));
      eval.emplace(*fp, in, &outs);
    }
    // Rows are asked for kRowsAhead ahead across blocks (this thread's updates are one run of
    // `order`), and a block's first ones before its fill, which they arrive during.
    const int64_t last = start[b1];
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t first = b * block_rows, count = std::min(n, first + block_rows) - first;
      if (ahead && b == b0)
        for (int64_t k = start[b]; k < std::min(last, start[b] + kRowsAhead); ++k) PrefetchRow<0>(source(order[k]), row_bytes);
      if (fill) FillRepeated(y + first * bytes, fill, es, count * row);
      else if (from) std::memcpy(y + first * bytes, from->data() + first * bytes, static_cast<size_t>(count * bytes));
      const int64_t end = start[b + 1];
      if (!fp) {
        for (int64_t k = start[b]; k < end; ++k) {
          if (ahead && k + kRowsAhead < last) PrefetchRow<0>(source(order[k + kRowsAhead]), row_bytes);
          const int64_t i = order[k];
          p.fold(y + dest[i] * bytes, source(i), row);
        }
        continue;
      }
      for (int64_t k0 = start[b]; k0 < end; k0 += chunk) {
        const int64_t k1 = std::min(end, k0 + chunk);
        for (int64_t k = k0; k < k1; ++k) {
          if (ahead && k + kRowsAhead < last) PrefetchRow<0>(source(order[k + kRowsAhead]), row_bytes);
          std::memcpy(rows_in + (k - k0) * row_bytes, source(order[k]), static_cast<size_t>(row_bytes));
        }
        for (int64_t e = 0, m = (k1 - k0) * row; e < m; e += kFusedBlock) eval->Run(e, std::min(kFusedBlock, m - e));
        const uint8_t* values = outs[0].data();
        for (int64_t k = k0; k < k1; ++k) p.fold(y + dest[order[k]] * bytes, values + (k - k0) * bytes, row);
      }
    }
    if (eval) eval->Finish();
  };
  const int64_t pieces = r.ByteSize() >= (int64_t{1} << 20) ? std::min<int64_t>(blocks, st.threads()) : 1;
  if (pieces <= 1) {
    run_blocks(0, blocks);
  } else {
    st.ParallelFor(pieces, [&](int64_t k) { run_blocks(blocks * k / pieces, blocks * (k + 1) / pieces); });
  }
  return true;
}

void Scatter(const Step& s, ExecState& st) {
  const ScatterParams& p = s.Params<ScatterParams>();
  const size_t n = (s.in.size() - 1) / 2;
  const Array& indices = st.slots[s.in[n]].array;
  std::vector<Array> results(n);
  std::vector<const Array*> updates(n);
  for (size_t i = 0; i < n; ++i) updates[i] = &st.slots[s.in[n + 1 + i]].array;
  for (size_t i = 0; i < n; ++i) {
    const Array& x = st.slots[s.in[i]].array;
    if (p.fill) {  // x: the scalar the result is filled with (one operand)
      results[i] = st.NewArray(s.out_types[i]);
      if (ScatterRows(st, p, indices, updates[0], nullptr, x.data(), nullptr, results[0])) {
        st.slots[s.out[0]] = RtValue::Of(std::move(results[0]));
        return;
      }
      FillRepeated(results[i].mutable_data(), x.data(), x.type().ElementSize(), results[i].NumElements());
      continue;
    }
    // The operand's own storage when this is its last use and nothing else holds it (a scan's
    // carried buffer): only the updates are written.
    const bool steal = x.Unique() && std::find(s.release.begin(), s.release.end(), s.in[i]) != s.release.end() &&
                       std::count(s.in.begin(), s.in.end(), s.in[i]) == 1;
    if (steal) {
      results[i] = st.slots[s.in[i]].array.Reshaped(s.out_types[i]);
      st.slots[s.in[i]] = RtValue();
    } else {
      results[i] = st.NewArray(s.out_types[i]);
      if (n == 1 && ScatterRows(st, p, indices, updates[0], nullptr, nullptr, &x, results[0])) {
        st.slots[s.out[0]] = RtValue::Of(std::move(results[0]));
        return;
      }
      std::memcpy(results[i].mutable_data(), x.data(), x.ByteSize());
    }
  }
  const Array& u0 = *updates[0];
  const int64_t urank = u0.type().rank(), xrank = results[0].type().rank();
  std::vector<int64_t> xs = RowMajorStrides(results[0].dims());
  std::vector<int64_t> scatter_dims;
  for (int64_t d = 0; d < urank; ++d)
    if (!Contains(p.update_window_dims, d)) scatter_dims.push_back(d);
  const Program* body = s.regions.empty() ? nullptr : s.regions[0].get();
  std::vector<RtValue> args, out;
  // An elementwise update computation (scatter-add and the like) is evaluated in place, one lane
  // per element of a window (distinct positions); windows may overlap, so they go one at a time.
  std::unique_ptr<LaneRegion> lanes;
  std::vector<int> es(n);
  for (size_t i = 0; i < n; ++i) es[i] = static_cast<int>(results[i].type().ElementSize());
  if (body && !p.assign && !p.fold) lanes = LaneRegion::MakeFold(*body, st, es);
  // Batch by batch (the updates' scatter dimensions): the start index is read once, then every
  // element of the update window is applied, each checked against the bounds unless the whole
  // window is inside. The elements are applied batch-major, window elements in order: a
  // permutation of the update index space, which the specification leaves to the implementation.
  const std::vector<int64_t> us = RowMajorStrides(u0.dims()), is = RowMajorStrides(indices.dims());
  const std::vector<int64_t>& xdims = results[0].dims();
  // The operand dimensions the window spans, in order (update_window_dims is sorted).
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < xrank; ++d)
    if (!Contains(p.inserted_window_dims, d) && !Contains(p.input_batching_dims, d)) window_operand_dims.push_back(d);
  if (window_operand_dims.size() != p.update_window_dims.size()) {
    st.Fail(s, absl::InvalidArgumentError("update_window_dims do not match the operand's window dimensions"));
    return;
  }
  const size_t nw = p.update_window_dims.size();
  std::vector<int64_t> wsizes(nw);
  for (size_t j = 0; j < nw; ++j) wsizes[j] = u0.dims()[p.update_window_dims[j]];
  // Per window element: its offset in the updates, in the operand, and its index per window dim.
  std::vector<int64_t> w_u, w_x, w_idx;
  bool window_empty = false;
  for (int64_t v : wsizes) window_empty |= v == 0;
  if (!window_empty && u0.NumElements() > 0) {
    std::vector<int64_t> idx(nw, 0);
    do {
      int64_t uo = 0, xo = 0;
      for (size_t j = 0; j < nw; ++j) {
        uo += idx[j] * us[p.update_window_dims[j]];
        xo += idx[j] * xs[window_operand_dims[j]];
      }
      w_u.push_back(uo);
      w_x.push_back(xo);
      w_idx.insert(w_idx.end(), idx.begin(), idx.end());
    } while (NextIndex(idx, wsizes));
  }
  const int64_t nb = static_cast<int64_t>(scatter_dims.size());
  std::vector<int64_t> bsizes(nb), bi(nb, 0), xi(xrank);
  bool batches_empty = false;
  for (int64_t k = 0; k < nb; ++k) batches_empty |= (bsizes[k] = u0.dims()[scatter_dims[k]]) == 0;
  // A typed update loop (p.fold) goes over runs of window elements consecutive in both the
  // updates and the operand (a window's rows). It stays on one thread: 65536 embedding-gradient
  // rows of 64 f32 into 1024 took 1.36 ms on one and 1.74 ms with the operand's rows split
  // between two (each applying its rows' updates in order), bound by reading the 16 MiB of
  // updates, which both cores' prefetchers then read whole.
  struct Run {
    int64_t u, x, len;
  };
  std::vector<Run> runs;
  for (size_t k = 0; p.fold && k < w_u.size(); ++k) {
    if (!runs.empty() && runs.back().u + runs.back().len == w_u[k] && runs.back().x + runs.back().len == w_x[k])
      ++runs.back().len;
    else
      runs.push_back({w_u[k], w_x[k], 1});
  }
  std::vector<int64_t> lane_x(lanes ? LaneRegion::kLanes : 0), lane_u(lanes ? LaneRegion::kLanes : 0);
  // A typed fold into an operand larger than the caches asks for the window of the batch
  // kRowsAhead positions ahead (the windows it adds into lie anywhere: an embedding gradient's
  // 8192 rows of 512 bytes into 25.6 MB waited on each row's misses).
  int64_t window_bytes = 0;
  for (const Run& r : runs) window_bytes += r.len * es[0];
  const bool ahead = p.fold && nb > 0 && results[0].ByteSize() >= (int64_t{4} << 20) && window_bytes <= kPrefetchedRowBytes;
  std::vector<int64_t> bi_ahead(nb, 0), xi_ahead(xrank);
  bool more_ahead = true;
  for (int64_t k = 0; ahead && more_ahead && k < kRowsAhead; ++k) more_ahead = NextIndex(bi_ahead, bsizes);
  if (!w_u.empty() && !batches_empty) do {
      if (ahead && more_ahead) {
        BatchStart(indices, p.index_vector_dim, is, bi_ahead, p.scatter_dims_to_operand_dims, p.input_batching_dims,
                   p.scatter_indices_batching_dims, &xi_ahead);
        int64_t xa = 0;
        bool fits = true;
        for (int64_t d = 0; d < xrank; ++d) {
          fits &= xi_ahead[d] >= 0 && xi_ahead[d] < xdims[d];
          xa += xi_ahead[d] * xs[d];
        }
        if (fits)
          for (const Run& r : runs)
            if ((xa + r.x + r.len) * es[0] <= results[0].ByteSize())
              PrefetchRow<1>(results[0].data() + (xa + r.x) * es[0], r.len * es[0]);
        more_ahead = NextIndex(bi_ahead, bsizes);
      }
      int64_t ub = 0;
      for (int64_t k = 0; k < nb; ++k) ub += bi[k] * us[scatter_dims[k]];
      BatchStart(indices, p.index_vector_dim, is, bi, p.scatter_dims_to_operand_dims, p.input_batching_dims,
                 p.scatter_indices_batching_dims, &xi);
      // Inside as a whole? Then no element needs its own check.
      bool inside = true;
      int64_t xb = 0;
      for (int64_t d = 0; d < xrank; ++d) {
        const auto it = std::find(window_operand_dims.begin(), window_operand_dims.end(), d);
        const int64_t extent = it == window_operand_dims.end() ? 1 : wsizes[it - window_operand_dims.begin()];
        inside &= xi[d] >= 0 && xi[d] + extent <= xdims[d];
        xb += xi[d] * xs[d];
      }
      // Window element k in bounds (when the window as a whole is not).
      auto element_in_bounds = [&](size_t k) {
        for (size_t j = 0; j < nw; ++j) {
          const int64_t d = window_operand_dims[j], v = xi[d] + w_idx[k * nw + j];
          if (v < 0 || v >= xdims[d]) return false;
        }
        for (int64_t d = 0; d < xrank; ++d)
          if (!Contains(window_operand_dims, d) && (xi[d] < 0 || xi[d] >= xdims[d])) return false;
        return true;
      };
      if (p.fold) {
        uint8_t* y = results[0].mutable_data();
        const uint8_t* u = updates[0]->data();
        const int64_t e = es[0];
        if (inside) {
          for (const Run& r : runs) p.fold(y + (xb + r.x) * e, u + (ub + r.u) * e, r.len);
        } else {
          for (size_t k = 0; k < w_u.size(); ++k)
            if (element_in_bounds(k)) p.fold(y + (xb + w_x[k]) * e, u + (ub + w_u[k]) * e, 1);
        }
        continue;
      }
      if (lanes) {
        // The elements of one window are distinct positions of the result: up to kLanes of them
        // (those in bounds) are updated by one evaluation of the computation.
        for (size_t k0 = 0; k0 < w_u.size();) {
          int64_t count = 0;
          size_t k = k0;
          for (; k < w_u.size() && count < LaneRegion::kLanes; ++k) {
            if (!inside && !element_in_bounds(k)) continue;
            lane_x[count] = xb + w_x[k];
            lane_u[count] = ub + w_u[k];
            ++count;
          }
          k0 = k;
          if (count == 0) continue;
          for (size_t i = 0; i < n; ++i) {
            const int e = es[i];
            for (int64_t t = 0; t < count; ++t) {
              CopyElement(lanes->arg(i) + t * e, results[i].data() + lane_x[t] * e, e);
              CopyElement(lanes->arg(n + i) + t * e, updates[i]->data() + lane_u[t] * e, e);
            }
          }
          lanes->Run(count);
          for (size_t i = 0; i < n; ++i) {
            const int e = es[i];
            for (int64_t t = 0; t < count; ++t)
              CopyElement(results[i].mutable_data() + lane_x[t] * e, lanes->result(i) + t * e, e);
          }
        }
        continue;
      }
      for (size_t k = 0; k < w_u.size(); ++k) {
        if (!inside && !element_in_bounds(k)) continue;
        const int64_t x_lin = xb + w_x[k], u_lin = ub + w_u[k];
        if (p.assign) {
          for (size_t i = 0; i < n; ++i)
            CopyElement(results[i].mutable_data() + x_lin * es[i], updates[i]->data() + u_lin * es[i], es[i]);
        } else {
          args.clear();
          for (size_t i = 0; i < n; ++i) args.push_back(RtValue::Of(ScalarAt(results[i], x_lin)));
          for (size_t i = 0; i < n; ++i) args.push_back(RtValue::Of(ScalarAt(*updates[i], u_lin)));
          if (!CallRegion(*body, st, args, &out)) return;
          for (size_t i = 0; i < n; ++i) std::memcpy(results[i].mutable_data() + x_lin * es[i], out[i].array.data(), es[i]);
        }
      }
    } while (nb > 0 && NextIndex(bi, bsizes));
  for (size_t i = 0; i < n; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(results[i]));
}

// FusedScatterParams: the updates made by a lookup of whole rows (through its epilogue) are read
// from the table as each block of the result takes them (ScatterRows); the gathered rows are
// never stored. JAX's embedding gradient of 8192 rows of 512 bytes wrote and read back 4 MB of
// them. Any other pair runs as the two steps.
void FusedScatter(const Step& s, ExecState& st) {
  const FusedScatterParams& p = s.Params<FusedScatterParams>();
  const Step& producer = p.updates;
  const Step& scatter = p.scatter;
  const Step* gather = &producer;
  const Step* epilogue = nullptr;
  int input = 0;
  if (producer.fn == &FusedGather) {
    const FusedGatherParams& g = producer.Params<FusedGatherParams>();
    gather = &g.gather;
    epilogue = &g.epilogue;
    input = g.gather_input;
  }
  const ScatterParams& sp = scatter.Params<ScatterParams>();
  const Array& table = st.slots[gather->in[0]].array;
  RowLookup w;
  if (scatter.in.size() == 3 &&
      LookupOfRows(gather->Params<GatherParams>(), table, st.slots[gather->in[1]].array, gather->out_types[0], &w)) {
    const LookedUpUpdates looked_up{&w, &table, epilogue, input, producer.out_types[0]};
    const Array& x = st.slots[scatter.in[0]].array;
    // An operand that dies here and that nothing else holds takes the updates in place (a
    // scan's carried gradient), as Scatter's own path does.
    const bool steal = !sp.fill && x.Unique() &&
                       std::find(s.release.begin(), s.release.end(), scatter.in[0]) != s.release.end() &&
                       std::count(s.in.begin(), s.in.end(), scatter.in[0]) == 1;
    Array r = steal ? x.Reshaped(scatter.out_types[0]) : st.NewArray(scatter.out_types[0]);
    if (ScatterRows(st, sp, st.slots[scatter.in[1]].array, nullptr, &looked_up, sp.fill ? x.data() : nullptr,
                    sp.fill || steal ? nullptr : &x, r)) {
      if (steal) st.slots[scatter.in[0]] = RtValue();
      st.slots[scatter.out[0]] = RtValue::Of(std::move(r));
      return;
    }
  }
  producer.fn(producer, st);
  if (st.ok()) scatter.fn(scatter, st);
  st.slots[producer.out[0]] = RtValue();
}

}  // namespace

KernelFn GatherKernel() { return &Gather; }
KernelFn DynamicGatherKernel() { return &DynamicGather; }
KernelFn ScatterKernel() { return &Scatter; }
KernelFn FusedGatherKernel() { return &FusedGather; }
KernelFn FusedScatterKernel() { return &FusedScatter; }

}  // namespace openpjrt::cpu
