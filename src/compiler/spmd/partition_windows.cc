// The SPMD rewrite's rules for windowed ops (partitioner.h): convolutions and reduce_windows on
// shards, including tiles of the dimensions their windows slide along, which take halos of their
// neighbours' edge rows (collective_permute) so that each tile's window sees what the whole
// value's would: the end tiles get the padding value instead (zeros for convolutions, the init
// value for reduce_window), and the op runs without padding along that dimension.
#include <algorithm>
#include <cstring>
#include <memory>
#include <map>
#include <string>
#include <vector>

#include "src/compiler/spmd/partitioner.h"
#include "src/support/str.h"

namespace openpjrt::compiler::spmd::internal {

bool Partitioner::TryReduceWindow(std::unique_ptr<Operation>& holder) {
  Operation& op = *holder;
  if (op.code != OpCode::kReduceWindow) return false;
  const size_t n = op.operands.size() / 2;
  if (n == 0 || op.num_results() != n) return false;
  const Sharded* lead = LeadOf(op, n);
  if (!lead) return false;
  const Layout l = lead->layout;
  const size_t rank = l.tiles.size();
  auto list_or = [&](const char* name, int64_t dflt, size_t len) {
    std::vector<int64_t> v;
    if (!ir::GetI64List(op.attr(name), &v) || v.empty()) v.assign(len, dflt);
    return v;
  };
  const std::vector<int64_t> dims = list_or("window_dimensions", 1, rank), strides = list_or("window_strides", 1, rank),
                             bd = list_or("base_dilations", 1, rank), wd = list_or("window_dilations", 1, rank),
                             pad = list_or("padding", 0, 2 * rank);
  if (dims.size() != rank || strides.size() != rank || pad.size() != 2 * rank) return false;
  // Tiled dimensions with windows of one need nothing from other tiles; larger windows whose
  // output tiles stay aligned with the input's (pooling with "SAME" or no padding, strided too)
  // take halos of the neighbours' edge rows, the edge tiles the init value (the padding's).
  struct Halo {
    size_t dim;
    int64_t low, high;
  };
  std::vector<Halo> halos;
  const Type gt = lead->global_type, rt0 = op.result(0)->type;
  if (!rt0.IsTensor() || !rt0.HasStaticShape()) return false;
  for (size_t d = 0; d < rank; ++d) {
    if (l.tiles[d] == 1) continue;
    if (dims[d] == 1 && strides[d] == 1 && bd[d] == 1 && wd[d] == 1 && pad[2 * d] == 0 && pad[2 * d + 1] == 0)
      continue;
    const int64_t extent = (dims[d] - 1) * wd[d] + 1, stride = strides[d], size = gt.shape()[d];
    const int64_t tile = size / l.tiles[d], low = pad[2 * d], high = std::max<int64_t>(0, extent - stride - low);
    if (bd[d] != 1 || stride < 1 || low < 0 || size % l.tiles[d] != 0 || tile % stride != 0 ||
        rt0.shape()[d] * stride != size || std::max(low, high) > tile ||
        (tile + low + high - extent) / stride + 1 != tile / stride)
      return false;
    halos.push_back({d, low, high});
  }
  Layout out = l;  // the output's tiles: the input's, on a dimension `stride` times shorter
  std::vector<Value*> operands;
  std::vector<Type> types;
  for (size_t i = 0; i < n; ++i) {
    if (!SameShape(LayoutOf(op.operands[i]).second, lead->global_type)) return false;
    Value* local = AsLayout(op.operands[i], l, op);
    Value* init = AsLayout(op.operands[n + i], Layout::Replicated(0, partitions_), op);
    for (const Halo& h : halos) local = WithHalo(local, l, static_cast<int64_t>(h.dim), h.low, h.high, init);
    operands.push_back(local);
    types.push_back(ShardType(ctx_, op.result(i)->type, out));
  }
  for (size_t i = n; i < op.operands.size(); ++i)
    operands.push_back(AsLayout(op.operands[i], Layout::Replicated(0, partitions_), op));
  Operation* c = ReemitAll(holder, operands, types, std::vector<Layout>(n, out));
  if (!halos.empty()) {
    std::vector<int64_t> local_pad = pad;
    for (const Halo& h : halos) local_pad[2 * h.dim] = local_pad[2 * h.dim + 1] = 0;
    auto data = std::make_shared<std::vector<uint8_t>>(local_pad.size() * 8);
    std::memcpy(data->data(), local_pad.data(), data->size());
    c->SetAttr("padding", Attribute::Dense(Tensor({static_cast<int64_t>(rank), 2}, I64()), data, false));
  }
  return true;
}

bool Partitioner::TryConvolution(std::unique_ptr<Operation>& holder) {
  Operation& op = *holder;
  if (op.code != OpCode::kConvolution || op.operands.size() != 2 || op.num_results() != 1) return false;
  auto [L, it_type] = LayoutOf(op.operands[0]);
  auto [K, kt_type] = LayoutOf(op.operands[1]);
  if (L.replicated() && K.replicated()) return false;
  int64_t fg = 1, bg = 1;
  if (Attribute a = op.attr("feature_group_count")) ir::GetInt(a, &fg);
  if (Attribute a = op.attr("batch_group_count")) ir::GetInt(a, &bg);
  Attribute dn = op.attr("dimension_numbers");
  int64_t ib = -1, ob = -1, ifeat = -1, ofeat = -1, ki = -1, ko = -1;
  if (fg != 1 || bg != 1 || !dn || dn.kind() != AttrKind::kStruct || !ir::GetInt(dn.Field("input_batch_dimension"), &ib) ||
      !ir::GetInt(dn.Field("output_batch_dimension"), &ob) || !ir::GetInt(dn.Field("input_feature_dimension"), &ifeat) ||
      !ir::GetInt(dn.Field("output_feature_dimension"), &ofeat) ||
      !ir::GetInt(dn.Field("kernel_input_feature_dimension"), &ki) ||
      !ir::GetInt(dn.Field("kernel_output_feature_dimension"), &ko))
    return false;
  std::vector<int64_t> is, ks, os;
  ir::GetI64List(dn.Field("input_spatial_dimensions"), &is);
  ir::GetI64List(dn.Field("kernel_spatial_dimensions"), &ks);
  ir::GetI64List(dn.Field("output_spatial_dimensions"), &os);
  const size_t ns = is.size();
  if (ks.size() != ns || os.size() != ns) return false;
  auto list_or = [&](const char* name, int64_t dflt) {
    std::vector<int64_t> v;
    if (!ir::GetI64List(op.attr(name), &v) || v.empty()) v.assign(ns, dflt);
    return v;
  };
  const std::vector<int64_t> strides = list_or("window_strides", 1), lhs_dil = list_or("lhs_dilation", 1),
                             rhs_dil = list_or("rhs_dilation", 1);
  std::vector<int64_t> pad = list_or("padding", 0);
  if (pad.size() != 2 * ns || strides.size() != ns || lhs_dil.size() != ns || rhs_dil.size() != ns) return false;
  Type rt = op.result(0)->type;
  if (!rt.IsTensor() || !rt.HasStaticShape() || !kt_type.IsTensor() || !kt_type.HasStaticShape() ||
      !it_type.HasStaticShape())
    return false;
  for (int64_t d : ks)
    if (K.tiles[d] > 1) return false;  // a split window
  // The input features and the kernel's input features are contracted: tiles on either split
  // the sum (the other operand is cut to match), and partial results are added up.
  const bool split_sum = L.tiles[ifeat] > 1 || K.tiles[ki] > 1;
  const Layout& sum_from = L.tiles[ifeat] > 1 ? L : K;
  const int64_t sum_dim = L.tiles[ifeat] > 1 ? ifeat : ki;
  Layout in = Layout::Replicated(it_type.rank(), partitions_), kern = Layout::Replicated(kt_type.rank(), partitions_);
  auto copy_dim = [&](Layout& to, int64_t td, const Layout& from, int64_t fd) {
    to.tiles[td] = from.tiles[fd];
    for (int64_t p = 0; p < partitions_; ++p) to.coords[p][td] = from.coords[p][fd];
  };
  copy_dim(in, ib, L, ib);
  copy_dim(kern, ko, K, ko);
  if (split_sum) {
    copy_dim(in, ifeat, sum_from, sum_dim);
    copy_dim(kern, ki, sum_from, sum_dim);
  }
  std::vector<int> src(rt.rank(), -1);
  Layout out = Layout::Replicated(rt.rank(), partitions_);
  copy_dim(out, ob, in, ib);
  copy_dim(out, ofeat, kern, ko);
  // Spatial dimensions may be tiled where the window keeps the output's tiles aligned with the
  // input's (no input dilation, each output tile `stride` times smaller than its input tile:
  // "SAME" convolutions, strided ones too): each tile then needs `low` rows of the tile before it
  // and `high` of the one after (a halo), and the edge tiles take the padding's zeros instead.
  struct Halo {
    size_t spatial;
    int64_t dim, low, high;
  };
  std::vector<Halo> halos;
  for (size_t i = 0; i < ns; ++i) {
    const int64_t d = is[i];
    if (L.tiles[d] == 1) continue;
    // Output tile j (To points) reads inputs [j Ti - low, (j + 1) Ti - 1 + extent - stride - low]
    // when Ti = To * stride: the tile's own rows, `low` before them and extent - stride - low
    // after (none when negative: the window never reaches past the tile).
    const int64_t extent = (kt_type.shape()[ks[i]] - 1) * rhs_dil[i] + 1, stride = strides[i];
    const int64_t low = pad[2 * i], size = it_type.shape()[d], tile = size / L.tiles[d];
    const int64_t high = std::max<int64_t>(0, extent - stride - low);
    if (stride < 1 || lhs_dil[i] != 1 || low < 0 || size % L.tiles[d] != 0 || tile % stride != 0 ||
        rt.shape()[os[i]] * stride != size ||
        std::max(low, high) > tile || (tile + low + high - extent) / stride + 1 != tile / stride)
      return false;
    halos.push_back({i, d, low, high});
    copy_dim(in, d, L, d);
    copy_dim(out, os[i], L, d);
  }
  // Every tile combination must be held alike (tiles of the input and of the kernel from
  // different mesh axes), with the split sum's tiles beside the result's.
  Layout both = out;
  if (split_sum) {
    both.tiles.push_back(sum_from.tiles[sum_dim]);
    for (int64_t p = 0; p < partitions_; ++p) both.coords[p].push_back(sum_from.coords[p][sum_dim]);
  }
  if (!Valid(in) || !Valid(kern) || !Valid(out) || !Valid(both)) return false;
  Value* input = AsLayout(op.operands[0], in, op);
  Value* kernel = AsLayout(op.operands[1], kern, op);
  for (const Halo& h : halos) {
    input = WithHalo(input, in, h.dim, h.low, h.high);
    pad[2 * h.spatial] = pad[2 * h.spatial + 1] = 0;
  }
  const std::vector<Layout> results = {out};
  Operation* c = ReemitAll(holder, {input, kernel}, {ShardType(ctx_, rt, out)}, results);
  if (!halos.empty()) {
    auto data = std::make_shared<std::vector<uint8_t>>(pad.size() * 8);
    std::memcpy(data->data(), pad.data(), data->size());
    c->SetAttr("padding", Attribute::Dense(Tensor({static_cast<int64_t>(ns), 2}, I64()), data, false));
  }
  if (split_sum) {
    // Partial sums over the split input features meet among the partitions of one result tile.
    Value* summed = AllReduce(c->result(0), both, {static_cast<int>(rt.rank())}, OpCode::kAdd, op);
    Retarget(c->result(0), summed);
  }
  return true;
}

Value* Partitioner::WithHalo(Value* local, const Layout& l, int64_t dim, int64_t low, int64_t high, Value* edge) {
  // The partitions holding the next tile along `dim` (the same tiles elsewhere; among copies of
  // a tile, the k-th holder pairs with the k-th).
  std::map<std::vector<int64_t>, std::vector<int64_t>> holders;
  for (int64_t p = 0; p < partitions_; ++p) holders[l.coords[p]].push_back(p);
  std::vector<std::pair<int64_t, int64_t>> forward;  // (tile c, tile c + 1)
  for (const auto& [coords, ps] : holders) {
    if (coords[dim] + 1 >= l.tiles[dim]) continue;
    std::vector<int64_t> next = coords;
    ++next[dim];
    const std::vector<int64_t>& qs = holders[next];
    for (size_t k = 0; k < ps.size() && k < qs.size(); ++k) forward.emplace_back(ps[k], qs[k]);
  }
  const std::vector<int64_t> shape = Dims(local->type);
  const int64_t size = shape[dim];
  auto rows = [&](int64_t start, int64_t count) {
    std::vector<int64_t> begin(shape.size(), 0), limit = shape, step(shape.size(), 1), dims = shape;
    begin[dim] = start;
    limit[dim] = start + count;
    dims[dim] = count;
    Operation* cut = Emit(OpCode::kSlice, {local}, {Tensor(dims, local->type.element_type())});
    cut->SetAttr("start_indices", Attribute::DenseI64(I64(), begin));
    cut->SetAttr("limit_indices", Attribute::DenseI64(I64(), limit));
    cut->SetAttr("strides", Attribute::DenseI64(I64(), step));
    return cut->result(0);
  };
  // A partition no one sends to receives zeros: the first tile's low halo, the last's high one.
  auto permute = [&](Value* v, bool ahead) {
    std::vector<int64_t> pairs;
    for (const auto& [a, b] : forward) {
      pairs.push_back(ahead ? a : b);
      pairs.push_back(ahead ? b : a);
    }
    auto data = std::make_shared<std::vector<uint8_t>>(pairs.size() * 8);
    std::memcpy(data->data(), pairs.data(), data->size());
    Operation* cp = Emit(OpCode::kCollectivePermute, {v}, {v->type});
    cp->SetAttr("source_target_pairs",
                Attribute::Dense(Tensor({static_cast<int64_t>(forward.size()), 2}, I64()), data, false));
    cp->SetAttr("channel_handle", Attribute::Struct("stablehlo.channel_handle",
                                                    {{"handle", Attribute::Integer(I64(), next_channel_++)},
                                                     {"type", Attribute::Integer(I64(), 1)}}));
    return cp->result(0);
  };
  // With `edge`, the end tiles' halos (the partitions nothing was sent to) hold it instead.
  auto at_end = [&](Value* halo, int64_t end_tile) {
    if (!edge) return halo;
    std::vector<int64_t> flags(partitions_);
    for (int64_t p = 0; p < partitions_; ++p) flags[p] = l.coords[p][dim] == end_tile ? 1 : 0;
    Operation* pick = Emit(OpCode::kDynamicSlice, {ConstI64(flags, {partitions_}), PartitionIndex()}, {Tensor({1}, I64())});
    pick->SetAttr("slice_sizes", Attribute::DenseI64(I64(), {1}));
    Type pred_type = Tensor({}, ctx_.Element(ElemKind::kI1));
    Value* flag = Emit(OpCode::kReshape, {pick->result(0)}, {Tensor({}, I64())})->result(0);
    Value* pred = Emit(OpCode::kConvert, {flag}, {pred_type})->result(0);
    const std::vector<int64_t> hd = Dims(halo->type);
    Operation* mask = Emit(OpCode::kBroadcastInDim, {pred}, {Tensor(hd, ctx_.Element(ElemKind::kI1))});
    mask->SetAttr("broadcast_dimensions", Attribute::DenseI64(I64(), {}));
    Operation* fill = Emit(OpCode::kBroadcastInDim, {edge}, {halo->type});
    fill->SetAttr("broadcast_dimensions", Attribute::DenseI64(I64(), {}));
    return Emit(OpCode::kSelect, {mask->result(0), fill->result(0), halo}, {halo->type})->result(0);
  };
  std::vector<Value*> parts;
  if (low > 0) parts.push_back(at_end(permute(rows(size - low, low), /*ahead=*/true), 0));
  parts.push_back(local);
  if (high > 0) parts.push_back(at_end(permute(rows(0, high), /*ahead=*/false), l.tiles[dim] - 1));
  if (parts.size() == 1) return local;
  std::vector<int64_t> dims = shape;
  dims[dim] = size + low + high;
  Operation* cat = Emit(OpCode::kConcatenate, parts, {Tensor(dims, local->type.element_type())});
  cat->SetAttr("dimension", Attribute::Integer(I64(), dim));
  return cat->result(0);
}

}  // namespace openpjrt::compiler::spmd::internal
