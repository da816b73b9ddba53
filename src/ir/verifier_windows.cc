// Per-op rules for products, windows and indexing (dot_general, convolution, reduce,
// reduce_window, select_and_scatter, map, sort, gather, scatter), split from verifier_ops.cc.
#include <algorithm>
#include <numeric>
#include <set>

#include "src/support/str.h"
#include "src/ir/printer.h"
#include "src/ir/verifier_impl.h"

namespace openpjrt::ir {

using namespace verifier_rules;

void Verifier::VerifyProductOrIndexingOp(const Operation& op) {
  auto operand = [&](size_t i) { return TensorOperand(op, i); };
  auto result = [&](size_t i) { return TensorResult(op, i); };
  auto same_elem = [&](Type a, Type b, const char* what) { CheckSameElem(op, a, b, what); };
  switch (op.code) {
    case OpCode::kDotGeneral: {
      Type a = operand(0), b = operand(1), r = result(0);
      Attribute dn = op.attr("dot_dimension_numbers");
      if (!dn || dn.kind() != AttrKind::kStruct)
        Fail(op, "requires a #stablehlo.dot 'dot_dimension_numbers' attribute");
      std::vector<int64_t> lb, rb, lc, rc;
      auto field = [&](const char* n, std::vector<int64_t>* v) {
        Attribute f = dn.Field(n);
        if (f && !GetI64List(f, v)) Fail(op, StrCat("'", n, "' must be a list of integers"));
      };
      field("lhs_batching_dimensions", &lb);
      field("rhs_batching_dimensions", &rb);
      field("lhs_contracting_dimensions", &lc);
      field("rhs_contracting_dimensions", &rc);
      if (lb.size() != rb.size()) Fail(op, "lhs and rhs must have the same number of batching dims");
      if (lc.size() != rc.size())
        Fail(op, "lhs and rhs must have the same number of contracting dims");
      auto check_side = [&](const char* side, Type t, const std::vector<int64_t>& bd,
                            const std::vector<int64_t>& cd) {
        std::vector<int64_t> all = bd;
        all.insert(all.end(), cd.begin(), cd.end());
        if (!InRange(all, 0, t.rank()))
          Fail(op, StrCat(side, " batching/contracting dims ", ListStr(all),
                                " out of range for rank ", t.rank()));
        if (!IsUnique(all))
          Fail(op, StrCat(side, " batching and contracting dims ", ListStr(all), " repeat"));
      };
      check_side("lhs", a, lb, lc);
      check_side("rhs", b, rb, rc);
      for (size_t i = 0; i < lb.size(); ++i)
        if (!DimsCompatible(a.shape()[lb[i]], b.shape()[rb[i]]))
          Fail(op, StrCat("batching dimension sizes differ: lhs ", a.shape()[lb[i]], " vs rhs ",
                                b.shape()[rb[i]]));
      for (size_t i = 0; i < lc.size(); ++i)
        if (!DimsCompatible(a.shape()[lc[i]], b.shape()[rc[i]]))
          Fail(op, StrCat("contracting dimension sizes differ: lhs ", a.shape()[lc[i]],
                                " vs rhs ", b.shape()[rc[i]]));
      std::vector<int64_t> want;
      for (int64_t d : lb) want.push_back(a.shape()[d]);
      for (int64_t i = 0; i < a.rank(); ++i)
        if (std::find(lb.begin(), lb.end(), i) == lb.end() &&
            std::find(lc.begin(), lc.end(), i) == lc.end())
          want.push_back(a.shape()[i]);
      for (int64_t i = 0; i < b.rank(); ++i)
        if (std::find(rb.begin(), rb.end(), i) == rb.end() &&
            std::find(rc.begin(), rc.end(), i) == rc.end())
          want.push_back(b.shape()[i]);
      bool ok = static_cast<int64_t>(want.size()) == r.rank();
      for (size_t i = 0; ok && i < want.size(); ++i) ok = DimsCompatible(want[i], r.shape()[i]);
      if (!ok) Fail(op, StrCat("result shape must be ", ListStr(want), ", is ", TypeStr(r)));
      if (Attribute p = op.attr("precision_config")) {
        if (p.kind() != AttrKind::kArray || (p->elements.size() != 0 && p->elements.size() != 2))
          Fail(op, "precision_config must have 0 or 2 entries");
        for (const auto& e : p->elements)
          if (!IsEnum(e, "stablehlo.precision", {"DEFAULT", "HIGH", "HIGHEST"}))
            Fail(op, "precision must be DEFAULT, HIGH or HIGHEST");
      }
      break;
    }
    case OpCode::kConvolution:
    case OpCode::kDynamicConv: {
      Type x = operand(0), w = operand(1), r = result(0);
      const bool dynamic = op.code == OpCode::kDynamicConv;  // padding is operand 2
      if (dynamic) {
        Type pad = operand(2);
        CheckElem(op, pad, kCatInt, "padding");
        if (pad.rank() != 2 || (pad.shape()[1] != kDynamic && pad.shape()[1] != 2) ||
            (pad.shape()[0] != kDynamic && pad.shape()[0] != x.rank() - 2))
          Fail(op, StrCat("padding must be a [spatial dimensions, 2] tensor, got ", pad.ToString()));
        if (op.attr("padding")) Fail(op, "takes its padding as an operand, not an attribute");
      }
      Attribute dn = op.attr("dimension_numbers");
      if (!dn || dn.kind() != AttrKind::kStruct)
        Fail(op, "requires a #stablehlo.conv 'dimension_numbers' attribute");
      auto gi = [&](const char* n) {
        int64_t v;
        if (!GetInt(dn.Field(n), &v)) Fail(op, StrCat("dimension numbers lack '", n, "'"));
        return v;
      };
      auto gl = [&](const char* n) {
        std::vector<int64_t> v;
        if (!GetI64List(dn.Field(n), &v)) Fail(op, StrCat("dimension numbers lack '", n, "'"));
        return v;
      };
      int64_t ib = gi("input_batch_dimension"), iff = gi("input_feature_dimension");
      int64_t ki = gi("kernel_input_feature_dimension"), ko = gi("kernel_output_feature_dimension");
      int64_t ob = gi("output_batch_dimension"), of = gi("output_feature_dimension");
      auto is = gl("input_spatial_dimensions"), ks = gl("kernel_spatial_dimensions"),
           os = gl("output_spatial_dimensions");
      int64_t n = x.rank();
      if (w.rank() != n || r.rank() != n) Fail(op, "input, kernel and result must have one rank");
      size_t ns = static_cast<size_t>(n - 2);
      if (is.size() != ns || ks.size() != ns || os.size() != ns)
        Fail(op, StrCat("expects ", ns, " spatial dimensions"));
      auto perm_ok = [&](int64_t a, int64_t b, const std::vector<int64_t>& s, const char* what) {
        std::vector<int64_t> all = s;
        all.push_back(a);
        all.push_back(b);
        if (!InRange(all, 0, n) || !IsUnique(all))
          Fail(op, StrCat(what, " dimension numbers ", ListStr(all), " are not a permutation"));
      };
      perm_ok(ib, iff, is, "input");
      perm_ok(ki, ko, ks, "kernel");
      perm_ok(ob, of, os, "output");
      int64_t fgc = IntAttr(op, "feature_group_count", false, 1);
      int64_t bgc = IntAttr(op, "batch_group_count", false, 1);
      if (fgc < 1 || bgc < 1) Fail(op, "group counts must be positive");
      if (fgc > 1 && bgc > 1) Fail(op, "feature_group_count and batch_group_count can't both exceed 1");
      auto strides = I64List(op, "window_strides", false);
      auto lhs_d = I64List(op, "lhs_dilation", false), rhs_d = I64List(op, "rhs_dilation", false);
      for (auto* v : {&strides, &lhs_d, &rhs_d}) {
        if (v->empty()) v->assign(ns, 1);
        if (v->size() != ns) Fail(op, "window attributes need one entry per spatial dimension");
        for (int64_t s : *v)
          if (s < 1) Fail(op, "window strides and dilations must be positive");
      }
      auto reversal = I64List(op, "window_reversal", false);
      if (!reversal.empty() && reversal.size() != ns)
        Fail(op, "window_reversal needs one entry per spatial dimension");
      std::vector<int64_t> pad = I64List(op, "padding", false);
      if (pad.empty()) pad.assign(2 * ns, 0);
      if (pad.size() != 2 * ns) Fail(op, "padding needs [low, high] per spatial dimension");
      int64_t in_f = x.shape()[iff], in_b = x.shape()[ib], k_in = w.shape()[ki], k_out = w.shape()[ko];
      if (in_f != kDynamic && k_in != kDynamic && in_f % fgc == 0 && in_f / fgc != k_in)
        Fail(op, StrCat("kernel input features (", k_in, ") must be input features (", in_f,
                              ") / feature_group_count (", fgc, ")"));
      if (in_f != kDynamic && in_f % fgc != 0)
        Fail(op, "input features must be divisible by feature_group_count");
      if (k_out != kDynamic && (k_out % fgc != 0 || k_out % bgc != 0))
        Fail(op, "kernel output features must be divisible by the group counts");
      if (in_b != kDynamic && in_b % bgc != 0)
        Fail(op, "input batch must be divisible by batch_group_count");
      // Result shape.
      auto rs = r.shape();
      if (in_b != kDynamic && !DimsCompatible(rs[ob], in_b / bgc))
        Fail(op, StrCat("result batch must be ", in_b / bgc));
      if (!DimsCompatible(rs[of], k_out)) Fail(op, StrCat("result features must be ", k_out));
      for (size_t i = 0; i < ns && !dynamic; ++i) {  // dynamic_conv's depend on the padding's values
        int64_t xi = x.shape()[is[i]], wi = w.shape()[ks[i]];
        if (xi == kDynamic || wi == kDynamic) continue;
        int64_t dil_in = xi == 0 ? 0 : (xi - 1) * lhs_d[i] + 1;
        int64_t padded = dil_in + pad[2 * i] + pad[2 * i + 1];
        int64_t dil_w = wi == 0 ? 0 : (wi - 1) * rhs_d[i] + 1;
        int64_t want = padded < dil_w ? 0 : (padded - dil_w) / strides[i] + 1;
        if (!DimsCompatible(rs[os[i]], want))
          Fail(op, StrCat("result spatial dimension ", i, " must be ", want));
      }
      break;
    }

    // ---- reductions
    case OpCode::kReduce: {
      size_t n = op.operands.size() / 2;
      if (op.operands.size() % 2) Fail(op, "expects as many init values as inputs");
      auto dims = I64List(op, "dimensions");
      Type x0 = operand(0);
      if (!InRange(dims, 0, x0.rank()) || !IsUnique(dims))
        Fail(op, StrCat("dimensions ", ListStr(dims), " must be unique and in [0, ", x0.rank(),
                              ")"));
      std::vector<Type> args(2 * n), rets(n);
      if (op.num_results() != n) Fail(op, StrCat("expects ", n, " results"));
      for (size_t i = 0; i < n; ++i) {
        Type x = operand(i), init = operand(n + i), r = result(i);
        CheckSameShape(op, x, x0, "inputs");
        if (init.rank() != 0) Fail(op, "init values must be rank-0 tensors");
        std::vector<int64_t> want;
        for (int64_t d = 0; d < x.rank(); ++d)
          if (std::find(dims.begin(), dims.end(), d) == dims.end()) want.push_back(x.shape()[d]);
        bool ok = static_cast<int64_t>(want.size()) == r.rank();
        for (size_t j = 0; ok && j < want.size(); ++j) ok = DimsCompatible(want[j], r.shape()[j]);
        if (!ok) Fail(op, StrCat("result #", i, " must have shape ", ListStr(want)));
        // The body works in the result's element type (inputs may be promoted to it).
        Type s = ScalarTensor(StorageKind(Elem(r)));
        args[i] = args[n + i] = rets[i] = Elem(r).IsQuant() ? Type() : s;
      }
      CheckRegion(op, 0, args, &rets, "body");
      break;
    }
    case OpCode::kReduceWindow: {
      size_t n = op.operands.size() / 2;
      if (op.operands.size() % 2) Fail(op, "expects as many init values as inputs");
      Type x0 = operand(0);
      auto wd = I64List(op, "window_dimensions");
      if (static_cast<int64_t>(wd.size()) != x0.rank())
        Fail(op, "window_dimensions must have one entry per dimension");
      for (const char* a : {"window_strides", "base_dilations", "window_dilations"}) {
        auto v = I64List(op, a, false);
        if (!v.empty() && v.size() != wd.size()) Fail(op, StrCat(a, " must match the rank"));
        for (int64_t s : v)
          if (s < 1) Fail(op, StrCat(a, " must be positive"));
      }
      for (int64_t s : wd)
        if (s < 1) Fail(op, "window_dimensions must be positive");
      std::vector<int64_t> pad = I64List(op, "padding", false);
      if (!pad.empty() && pad.size() != 2 * wd.size()) Fail(op, "padding needs [low, high] per dimension");
      std::vector<Type> args(2 * n), rets(n);
      for (size_t i = 0; i < n; ++i) {
        Type init = operand(n + i), r = result(i);
        if (init.rank() != 0) Fail(op, "init values must be rank-0 tensors");
        Type s = ScalarTensor(StorageKind(Elem(r)));
        args[i] = args[n + i] = rets[i] = Elem(r).IsQuant() ? Type() : s;
      }
      CheckRegion(op, 0, args, &rets, "body");
      break;
    }
    case OpCode::kSelectAndScatter: {
      Type x = operand(0), init = operand(2);
      auto wd = I64List(op, "window_dimensions", false);
      if (wd.empty()) wd.assign(x.rank(), 1);
      if (static_cast<int64_t>(wd.size()) != x.rank())
        Fail(op, "window_dimensions must have one entry per dimension");
      for (int64_t v : wd)
        if (v < 1) Fail(op, "window_dimensions must be positive");
      auto ws = I64List(op, "window_strides", false);
      if (!ws.empty() && ws.size() != wd.size()) Fail(op, "window_strides must match the rank");
      for (int64_t v : ws)
        if (v < 1) Fail(op, "window_strides must be positive");
      std::vector<int64_t> pad = I64List(op, "padding", false);
      if (!pad.empty() && pad.size() != 2 * wd.size()) Fail(op, "padding needs [low, high] per dimension");
      CheckSameShape(op, x, result(0), "operand and result");
      Type s = ScalarTensor(StorageKind(Elem(x)));
      if (init.rank() != 0) Fail(op, "init value must be a rank-0 tensor");
      std::vector<Type> pred = {ScalarTensor(ElemKind::kI1)};
      CheckRegion(op, 0, {s, s}, &pred, "select");
      // The scatter computation works in the result's element type (promotion allowed).
      Type rs = ScalarTensor(StorageKind(Elem(result(0))));
      std::vector<Type> rets = {rs};
      CheckRegion(op, 1, {rs, rs}, &rets, "scatter");
      break;
    }
    case OpCode::kMap: {
      CheckSameShape(op, operand(0), result(0), "inputs and result");
      std::vector<Type> args;
      for (size_t i = 0; i < op.operands.size(); ++i) {
        Type t = operand(i);
        CheckSameShape(op, t, operand(0), "inputs");
        args.push_back(ScalarTensor(StorageKind(Elem(t))));
      }
      CheckRegion(op, 0, args, nullptr, "computation");
      break;
    }
    case OpCode::kSort: {
      Type x0 = operand(0);
      int64_t d = IntAttr(op, "dimension", false, -1);
      if (d < -x0.rank() || d >= x0.rank())
        Fail(op, StrCat("dimension ", d, " is out of range for rank ", x0.rank()));
      std::vector<Type> args;
      if (op.num_results() != op.operands.size()) Fail(op, "expects one result per operand");
      for (size_t i = 0; i < op.operands.size(); ++i) {
        Type t = operand(i);
        CheckSameShape(op, t, x0, "operands");
        CheckCompatible(op, t, result(i), "operand and result differ");
        Type s = ScalarTensor(StorageKind(Elem(t)));
        args.push_back(s);
        args.push_back(s);
      }
      // Quantized operands take quantized scalars; accept any argument types for them.
      for (size_t i = 0; i < op.operands.size(); ++i)
        if (Elem(operand(i)).IsQuant()) args[2 * i] = args[2 * i + 1] = Type();
      std::vector<Type> pred = {ScalarTensor(ElemKind::kI1)};
      CheckRegion(op, 0, args, &pred, "comparator");
      break;
    }
    case OpCode::kGather: {
      Type x = operand(0), idx = operand(1), r = result(0);
      Attribute dn = op.attr("dimension_numbers");
      if (!dn || dn.kind() != AttrKind::kStruct)
        Fail(op, "requires a #stablehlo.gather 'dimension_numbers' attribute");
      std::vector<int64_t> offset, collapsed, obd, sibd, sim;
      GetI64List(dn.Field("offset_dims"), &offset);
      GetI64List(dn.Field("collapsed_slice_dims"), &collapsed);
      GetI64List(dn.Field("operand_batching_dims"), &obd);
      GetI64List(dn.Field("start_indices_batching_dims"), &sibd);
      GetI64List(dn.Field("start_index_map"), &sim);
      int64_t ivd;
      if (!GetInt(dn.Field("index_vector_dim"), &ivd)) ivd = 0;  // the attribute's default
      auto sizes = I64List(op, "slice_sizes");
      if (!IsSorted(offset) || !IsUnique(offset)) Fail(op, "offset_dims must be sorted and unique");
      if (!IsSorted(collapsed) || !IsUnique(collapsed))
        Fail(op, "collapsed_slice_dims must be sorted and unique");
      std::vector<int64_t> all = collapsed;
      all.insert(all.end(), obd.begin(), obd.end());
      if (!InRange(all, 0, x.rank()) || !IsUnique(all))
        Fail(op, "collapsed_slice_dims and operand_batching_dims must be unique operand dims");
      if (!InRange(sim, 0, x.rank()) || !IsUnique(sim))
        Fail(op, "start_index_map must hold unique operand dims");
      if (ivd < 0 || ivd > idx.rank()) Fail(op, "index_vector_dim is out of range");
      if (obd.size() != sibd.size())
        Fail(op, "operand_batching_dims and start_indices_batching_dims differ in size");
      if (!InRange(sibd, 0, idx.rank()) || !IsUnique(sibd) ||
          std::find(sibd.begin(), sibd.end(), ivd) != sibd.end())
        Fail(op, "start_indices_batching_dims must be unique dims of the indices other than index_vector_dim");
      int64_t ivs = ivd < idx.rank() ? idx.shape()[ivd] : 1;
      if (ivs != kDynamic && static_cast<int64_t>(sim.size()) != ivs)
        Fail(op, StrCat("start_index_map has ", sim.size(), " entries but the index vector has ",
                              ivs));
      if (static_cast<int64_t>(sizes.size()) != x.rank())
        Fail(op, "slice_sizes must have one entry per operand dimension");
      for (int64_t i = 0; i < x.rank(); ++i)
        if (sizes[i] < 0 || (x.shape()[i] != kDynamic && sizes[i] > x.shape()[i]))
          Fail(op, StrCat("slice size ", sizes[i], " is out of range for dimension ", i));
      for (int64_t c : all)
        if (sizes[c] > 1) Fail(op, "collapsed and batching dims must have slice size 0 or 1");
      // Result shape: batch dims from the indices, offset dims from the slice.
      std::vector<int64_t> batch;
      for (int64_t i = 0; i < idx.rank(); ++i)
        if (i != ivd) batch.push_back(idx.shape()[i]);
      std::vector<int64_t> offs;
      for (int64_t i = 0; i < x.rank(); ++i)
        if (std::find(all.begin(), all.end(), i) == all.end()) offs.push_back(sizes[i]);
      int64_t rank = static_cast<int64_t>(batch.size() + offs.size());
      if (r.rank() != rank || static_cast<int64_t>(offset.size()) != static_cast<int64_t>(offs.size()))
        Fail(op, StrCat("result must have rank ", rank, " with ", offs.size(), " offset dims"));
      if (!InRange(offset, 0, rank)) Fail(op, "offset_dims are out of range");
      size_t bi = 0, oi = 0;
      for (int64_t i = 0; i < rank; ++i) {
        bool is_off = std::find(offset.begin(), offset.end(), i) != offset.end();
        int64_t want = is_off ? offs[oi++] : batch[bi++];
        if (!DimsCompatible(r.shape()[i], want))
          Fail(op, StrCat("result dimension ", i, " must be ", want));
      }
      same_elem(x, r, "operand and result");
      break;
    }
    case OpCode::kScatter: {
      size_t n = (op.operands.size() - 1) / 2;
      if (op.operands.size() % 2 == 0) Fail(op, "expects N inputs, indices and N updates");
      Type idx = operand(n);
      Attribute dn = op.attr("scatter_dimension_numbers");
      if (!dn || dn.kind() != AttrKind::kStruct)
        Fail(op, "requires a #stablehlo.scatter 'scatter_dimension_numbers' attribute");
      std::vector<int64_t> uwd, iwd, ibd, sibd, sdod;
      GetI64List(dn.Field("update_window_dims"), &uwd);
      GetI64List(dn.Field("inserted_window_dims"), &iwd);
      GetI64List(dn.Field("input_batching_dims"), &ibd);
      GetI64List(dn.Field("scatter_indices_batching_dims"), &sibd);
      GetI64List(dn.Field("scatter_dims_to_operand_dims"), &sdod);
      int64_t ivd;
      if (!GetInt(dn.Field("index_vector_dim"), &ivd)) ivd = 0;  // the attribute's default
      Type x0 = operand(0);
      if (!IsSorted(uwd) || !IsUnique(uwd)) Fail(op, "update_window_dims must be sorted and unique");
      if (!InRange(uwd, 0, operand(n + 1).rank()))
        Fail(op, "update_window_dims must be dims of the updates");
      if (!IsSorted(iwd) || !IsUnique(iwd)) Fail(op, "inserted_window_dims must be sorted and unique");
      std::vector<int64_t> all = iwd;
      all.insert(all.end(), ibd.begin(), ibd.end());
      if (!InRange(all, 0, x0.rank()) || !IsUnique(all))
        Fail(op, "inserted_window_dims and input_batching_dims must be unique operand dims");
      if (!InRange(sdod, 0, x0.rank()) || !IsUnique(sdod))
        Fail(op, "scatter_dims_to_operand_dims must hold unique operand dims");
      if (ibd.size() != sibd.size())
        Fail(op, "input_batching_dims and scatter_indices_batching_dims differ in size");
      if (!InRange(sibd, 0, idx.rank()) || !IsUnique(sibd) ||
          std::find(sibd.begin(), sibd.end(), ivd) != sibd.end())
        Fail(op, "scatter_indices_batching_dims must be unique dims of the indices other than index_vector_dim");
      if (ivd < 0 || ivd > idx.rank()) Fail(op, "index_vector_dim is out of range");
      int64_t ivs = ivd < idx.rank() ? idx.shape()[ivd] : 1;
      if (ivs != kDynamic && static_cast<int64_t>(sdod.size()) != ivs)
        Fail(op, "scatter_dims_to_operand_dims must match the index vector size");
      if (op.num_results() != n) Fail(op, StrCat("expects ", n, " results"));
      std::vector<Type> args(2 * n), rets(n);
      for (size_t i = 0; i < n; ++i) {
        Type x = operand(i), u = operand(n + 1 + i);
        CheckSameShape(op, x, x0, "inputs");
        CheckSameShape(op, x, result(i), "input and result");
        int64_t want_rank = static_cast<int64_t>(uwd.size()) + idx.rank() - (ivd < idx.rank() ? 1 : 0);
        if (u.rank() != want_rank)
          Fail(op, StrCat("updates must have rank ", want_rank, ", have ", u.rank()));
        if (x.rank() != static_cast<int64_t>(uwd.size() + all.size()))
          Fail(op, "operand rank must equal update_window_dims plus inserted and batching dims");
        // The updates' scatter dims are the indices' batch dims, in order.
        std::vector<int64_t> batch;
        for (int64_t d = 0; d < idx.rank(); ++d)
          if (d != ivd) batch.push_back(idx.shape()[d]);
        for (int64_t d = 0, k = 0; d < u.rank(); ++d) {
          if (std::find(uwd.begin(), uwd.end(), d) != uwd.end()) continue;
          if (k < static_cast<int64_t>(batch.size()) && !DimsCompatible(u.shape()[d], batch[k]))
            Fail(op, StrCat("updates dimension ", d, " must be ", batch[k], " (the indices' batch size)"));
          ++k;
        }
        Type s = ScalarTensor(StorageKind(Elem(result(i))));
        args[i] = args[n + i] = rets[i] = Elem(x).IsQuant() ? Type() : s;
      }
      CheckRegion(op, 0, args, &rets, "update computation");
      break;
    }

    // ---- control flow and functions
    default:
      Fail(op, "is not a product, window or indexing op");
  }
}

}  // namespace openpjrt::ir
