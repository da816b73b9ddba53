// gather, scatter and sort, written index by index after the specification's definitions.
// Regions (scatter's update computation, sort's comparator) run per element.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "src/cpu/kernels_indexing.h"
#include "src/cpu/strided.h"
#include "src/support/str.h"

namespace openpjrt::cpu {
namespace {

int64_t Linear(const std::vector<int64_t>& idx, const std::vector<int64_t>& strides) {
  int64_t o = 0;
  for (size_t i = 0; i < idx.size(); ++i) o += idx[i] * strides[i];
  return o;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The start index vector for batch index `batch` (indices' dims without index_vector_dim).
std::vector<int64_t> StartIndex(const Array& indices, int64_t ivd, const std::vector<int64_t>& batch) {
  std::vector<int64_t> strides = RowMajorStrides(indices.dims());
  const int64_t rank = indices.type().rank();
  std::vector<int64_t> idx;
  for (int64_t d = 0, b = 0; d < rank; ++d) idx.push_back(d == ivd ? 0 : batch[b++]);
  const int64_t n = ivd < rank ? indices.dims()[ivd] : 1;
  const int64_t es = indices.type().ElementSize();
  std::vector<int64_t> out(n);
  ArrayType scalar{indices.elem(), {}};
  for (int64_t i = 0; i < n; ++i) {
    if (ivd < rank) idx[ivd] = i;
    Array one = Array::Allocate(scalar);
    std::memcpy(one.mutable_data(), indices.data() + Linear(idx, strides) * es, es);
    out[i] = ReadIndex(one);
  }
  return out;
}

void GatherWith(const Step& s, ExecState& st, const GatherParams& p) {
  const Array& x = st.slots[s.in[0]].array;
  const Array& indices = st.slots[s.in[1]].array;
  Array r = Array::Allocate(s.out_types[0]);
  const int64_t es = r.type().ElementSize();
  const int64_t rrank = r.type().rank(), xrank = x.type().rank();
  std::vector<int64_t> xs = RowMajorStrides(x.dims());
  std::vector<int64_t> batch_dims;
  for (int64_t d = 0; d < rrank; ++d)
    if (!Contains(p.offset_dims, d)) batch_dims.push_back(d);
  if (r.NumElements() == 0) {
    st.slots[s.out[0]] = RtValue::Of(std::move(r));
    return;
  }
  std::vector<int64_t> ri(rrank, 0);
  int64_t o = 0;
  do {
    std::vector<int64_t> batch;
    for (int64_t d : batch_dims) batch.push_back(ri[d]);
    std::vector<int64_t> start = StartIndex(indices, p.index_vector_dim, batch);
    std::vector<int64_t> xi(xrank, 0);
    for (size_t k = 0; k < p.start_index_map.size(); ++k) {
      int64_t d = p.start_index_map[k];
      xi[d] = std::clamp<int64_t>(start[k], 0, x.dims()[d] - p.slice_sizes[d]);
    }
    for (size_t k = 0; k < p.operand_batching_dims.size(); ++k) {
      int64_t ds = p.start_indices_batching_dims[k];
      xi[p.operand_batching_dims[k]] += batch[ds - (ds < p.index_vector_dim ? 0 : 1)];
    }
    for (int64_t d = 0, od = 0; d < xrank; ++d) {
      if (Contains(p.collapsed_slice_dims, d) || Contains(p.operand_batching_dims, d)) continue;
      xi[d] += ri[p.offset_dims[od++]];
    }
    for (int64_t d = 0; d < xrank; ++d) {
      if (xi[d] < 0 || xi[d] >= x.dims()[d]) {
        st.Fail(s, absl::InvalidArgumentError(StrCat("the result shape reaches past the operand in dimension ", d)));
        return;
      }
    }
    std::memcpy(r.mutable_data() + o * es, x.data() + Linear(xi, xs) * es, es);
    ++o;
  } while (NextIndex(ri, r.dims()));
  st.slots[s.out[0]] = RtValue::Of(std::move(r));
}

void Gather(const Step& s, ExecState& st) { GatherWith(s, st, s.Params<GatherParams>()); }

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

void Scatter(const Step& s, ExecState& st) {
  const ScatterParams& p = s.Params<ScatterParams>();
  const size_t n = (s.in.size() - 1) / 2;
  const Array& indices = st.slots[s.in[n]].array;
  std::vector<Array> results(n);
  std::vector<const Array*> updates(n);
  for (size_t i = 0; i < n; ++i) {
    const Array& x = st.slots[s.in[i]].array;
    results[i] = Array::Allocate(s.out_types[i]);
    std::memcpy(results[i].mutable_data(), x.data(), x.ByteSize());
    updates[i] = &st.slots[s.in[n + 1 + i]].array;
  }
  const Array& u0 = *updates[0];
  const int64_t urank = u0.type().rank(), xrank = results[0].type().rank();
  std::vector<int64_t> xs = RowMajorStrides(results[0].dims());
  std::vector<int64_t> scatter_dims;
  for (int64_t d = 0; d < urank; ++d)
    if (!Contains(p.update_window_dims, d)) scatter_dims.push_back(d);
  const Program* body = s.regions.empty() ? nullptr : s.regions[0].get();
  std::vector<RtValue> args, out;
  if (u0.NumElements() > 0) {
    std::vector<int64_t> ui(urank, 0);
    int64_t u_lin = 0;
    do {
      std::vector<int64_t> batch;
      for (int64_t d : scatter_dims) batch.push_back(ui[d]);
      std::vector<int64_t> start = StartIndex(indices, p.index_vector_dim, batch);
      std::vector<int64_t> xi(xrank, 0);
      for (size_t k = 0; k < p.scatter_dims_to_operand_dims.size(); ++k)
        xi[p.scatter_dims_to_operand_dims[k]] = start[k];
      for (size_t k = 0; k < p.input_batching_dims.size(); ++k) {
        int64_t ds = p.scatter_indices_batching_dims[k];
        xi[p.input_batching_dims[k]] += batch[ds - (ds < p.index_vector_dim ? 0 : 1)];
      }
      for (int64_t d = 0, wd = 0; d < xrank; ++d) {
        if (Contains(p.inserted_window_dims, d) || Contains(p.input_batching_dims, d)) continue;
        xi[d] += ui[p.update_window_dims[wd++]];
      }
      bool in_bounds = true;
      for (int64_t d = 0; d < xrank; ++d) in_bounds &= xi[d] >= 0 && xi[d] < results[0].dims()[d];
      if (in_bounds) {
        const int64_t x_lin = Linear(xi, xs);
        if (p.assign) {
          for (size_t i = 0; i < n; ++i) {
            const int64_t es = results[i].type().ElementSize();
            std::memcpy(results[i].mutable_data() + x_lin * es, updates[i]->data() + u_lin * es, es);
          }
        } else {
          args.clear();
          for (size_t i = 0; i < n; ++i) args.push_back(RtValue::Of(ScalarAt(results[i], x_lin)));
          for (size_t i = 0; i < n; ++i) args.push_back(RtValue::Of(ScalarAt(*updates[i], u_lin)));
          if (!CallRegion(*body, st, args, &out)) return;
          for (size_t i = 0; i < n; ++i) {
            const int64_t es = results[i].type().ElementSize();
            std::memcpy(results[i].mutable_data() + x_lin * es, out[i].array.data(), es);
          }
        }
      }
      ++u_lin;
    } while (NextIndex(ui, u0.dims()));
  }
  for (size_t i = 0; i < n; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(results[i]));
}

void Sort(const Step& s, ExecState& st) {
  const SortParams& p = s.Params<SortParams>();
  const size_t n = s.in.size();
  std::vector<const Array*> in(n);
  std::vector<Array> out(n);
  for (size_t i = 0; i < n; ++i) {
    in[i] = &st.slots[s.in[i]].array;
    out[i] = Array::Allocate(s.out_types[i]);
  }
  const std::vector<int64_t>& dims = in[0]->dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t dim = p.dimension < 0 ? p.dimension + rank : p.dimension;
  const int64_t len = rank == 0 ? 1 : dims[dim];
  std::vector<int64_t> strides = RowMajorStrides(dims);
  const int64_t stride = rank == 0 ? 1 : strides[dim];
  const int64_t total = in[0]->NumElements();
  const Program& cmp = *s.regions[0];
  std::vector<int64_t> perm(len);
  std::vector<RtValue> args, res;
  bool ok = true;
  // Every line along `dim` starts at an index whose coordinate there is zero.
  for (int64_t base = 0; base < total && ok; ++base) {
    if (rank > 0 && (base / stride) % len != 0) continue;
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      if (!ok) return false;
      args.clear();
      for (size_t i = 0; i < n; ++i) {
        args.push_back(RtValue::Of(ScalarAt(*in[i], base + a * stride)));
        args.push_back(RtValue::Of(ScalarAt(*in[i], base + b * stride)));
      }
      if (!CallRegion(cmp, st, args, &res)) {
        ok = false;
        return false;
      }
      return res[0].array.data()[0] != 0;
    });
    for (size_t i = 0; i < n; ++i) {
      const int64_t es = out[i].type().ElementSize();
      for (int64_t k = 0; k < len; ++k)
        std::memcpy(out[i].mutable_data() + (base + k * stride) * es,
                    in[i]->data() + (base + perm[k] * stride) * es, es);
    }
  }
  if (!ok) return;
  for (size_t i = 0; i < n; ++i) st.slots[s.out[i]] = RtValue::Of(std::move(out[i]));
}

}  // namespace

KernelFn GatherKernel() { return &Gather; }
KernelFn DynamicGatherKernel() { return &DynamicGather; }
KernelFn ScatterKernel() { return &Scatter; }
KernelFn SortKernel() { return &Sort; }

}  // namespace openpjrt::cpu
