// The lowering of products, indexing and windowed ops: dot_general, dot, chlo.ragged_dot, gather,
// scatter, convolution, reduce_window, select_and_scatter and the batch norm ops (split from
// compile.cc).
#include <algorithm>

#include "src/compiler/lowerer.h"
#include "src/cpu/kernels/kernels_indexing.h"
#include "src/cpu/lapack/kernels_linalg.h"

namespace openpjrt::compiler::internal {

void Lowerer::LowerProduct(const Operation& op, Env& env, Program& prog) {
  const OpCode c = op.code;
  auto kind_of = [&](const Value* v) { return ToArrayType(op, v->type).elem; };
  switch (c) {
    case OpCode::kDotGeneral:
    case OpCode::kDot: {
      auto p = std::make_shared<cpu::DotParams>();
      if (c == OpCode::kDotGeneral) {
        Attribute dn = op.attr("dot_dimension_numbers");
        ir::GetI64List(dn.Field("lhs_batching_dimensions"), &p->lhs_batch);
        ir::GetI64List(dn.Field("rhs_batching_dimensions"), &p->rhs_batch);
        ir::GetI64List(dn.Field("lhs_contracting_dimensions"), &p->lhs_contract);
        ir::GetI64List(dn.Field("rhs_contracting_dimensions"), &p->rhs_contract);
      } else {
        p->lhs_contract = {op.operands[0]->type.rank() - 1};
        p->rhs_contract = {0};
      }
      ElemKind out = kind_of(op.result(0));
      const ElemKind work = ProductWork(out);
      cpu::PlanDot(*p, ToArrayType(op, op.operands[0]->type), ToArrayType(op, op.operands[1]->type));
      std::vector<int> in = Operands(op, env);
      in.resize(2);  // dynamic_conv's padding was read above
      for (size_t i = 0; i < 2; ++i)
        in[i] = ConvertTo(op, prog, in[i], ToArrayType(op, op.operands[i]->type), work);
      if (work != out) {
        ArrayType wide = ToArrayType(op, op.result(0)->type);
        wide.elem = work;
        const int product = AddHelperStep(op, prog, Check(op, cpu::SelectDotGeneral(work, work, work)), in, wide, p);
        AddStep(op, env, prog, Check(op, cpu::SelectConvert(work, out)), {product});
        return;
      }
      AddStep(op, env, prog, Check(op, cpu::SelectDotGeneral(out, out, out)), in).params = p;
      return;
    }
    case OpCode::kChloRaggedDot:
    case OpCode::kCustomCall: {  // @chlo.ragged_dot, the serialized form of chlo.ragged_dot
      auto p = std::make_shared<cpu::RaggedDotParams>();
      std::vector<int64_t> ragged, group;
      if (c == OpCode::kCustomCall) {
        // mhlo.attributes.ragged_dot_dimension_numbers: the six lists as integer tensors, in the
        // struct's order.
        Attribute attrs = op.attr("mhlo.attributes");
        Attribute dn = attrs && attrs.kind() == AttrKind::kDictionary ? attrs.Field("ragged_dot_dimension_numbers")
                                                                      : Attribute();
        if (!dn || dn.kind() != AttrKind::kArray || dn->elements.size() != 6 || op.operands.size() != 3 ||
            op.num_results() != 1)
          Fail(op, absl::StatusCode::kInvalidArgument,
               "@chlo.ragged_dot takes (lhs, rhs, group_sizes) and mhlo.attributes.ragged_dot_dimension_numbers "
               "as six integer lists");
        std::vector<int64_t>* lists[] = {&p->lhs_batch, &p->rhs_batch, &p->lhs_contract, &p->rhs_contract, &ragged, &group};
        for (size_t i = 0; i < 6; ++i)
          if (!ir::GetI64List(dn->elements[i], lists[i]))
            Fail(op, absl::StatusCode::kInvalidArgument,
                 StrCat("ragged_dot_dimension_numbers entry #", i, " is not a list of integers"));
      } else {
        Attribute dn = op.attr("ragged_dot_dimension_numbers");
        if (!dn || dn.kind() != AttrKind::kStruct)
          Fail(op, absl::StatusCode::kInvalidArgument, "missing ragged_dot_dimension_numbers");
        ir::GetI64List(dn.Field("lhs_batching_dimensions"), &p->lhs_batch);
        ir::GetI64List(dn.Field("rhs_batching_dimensions"), &p->rhs_batch);
        ir::GetI64List(dn.Field("lhs_contracting_dimensions"), &p->lhs_contract);
        ir::GetI64List(dn.Field("rhs_contracting_dimensions"), &p->rhs_contract);
        ir::GetI64List(dn.Field("lhs_ragged_dimensions"), &ragged);
        ir::GetI64List(dn.Field("rhs_group_dimensions"), &group);
      }
      ArrayType lt = ToArrayType(op, op.operands[0]->type), rt = ToArrayType(op, op.operands[1]->type),
                gt = ToArrayType(op, op.operands[2]->type), ot = ToArrayType(op, op.result(0)->type);
      auto in_range = [](const std::vector<int64_t>& v, int64_t rank) {
        for (int64_t d : v) if (d < 0 || d >= rank) return false;
        return true;
      };
      if (ragged.size() != 1 || group.size() > 1 || p->lhs_batch.size() != p->rhs_batch.size() ||
          p->lhs_contract.size() != p->rhs_contract.size() || !in_range(p->lhs_batch, lt.rank()) ||
          !in_range(p->lhs_contract, lt.rank()) || !in_range(ragged, lt.rank()) ||
          !in_range(p->rhs_batch, rt.rank()) || !in_range(p->rhs_contract, rt.rank()) || !in_range(group, rt.rank()))
        Fail(op, absl::StatusCode::kInvalidArgument,
             "ragged_dot_dimension_numbers: one lhs ragged dimension, at most one rhs group dimension, "
             "matching batch and contracting lists, all within the operands' ranks");
      p->lhs_ragged = ragged[0];
      p->rhs_group = group.empty() ? -1 : group[0];
      auto has = [](const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
      p->mode = has(p->lhs_contract, p->lhs_ragged) ? cpu::RaggedDotParams::kContracting
                : has(p->lhs_batch, p->lhs_ragged)  ? cpu::RaggedDotParams::kBatch
                                                    : cpu::RaggedDotParams::kNonContracting;
      if ((p->mode == cpu::RaggedDotParams::kNonContracting) != (p->rhs_group >= 0))
        Fail(op, absl::StatusCode::kInvalidArgument,
             "rhs_group_dimensions must name one dimension exactly when the lhs ragged dimension is not "
             "a batch or contracting dimension");
      for (size_t i = 0; i < p->lhs_batch.size(); ++i)
        if (lt.dims[p->lhs_batch[i]] != rt.dims[p->rhs_batch[i]])
          Fail(op, absl::StatusCode::kInvalidArgument, "batch dimension sizes differ");
      for (size_t i = 0; i < p->lhs_contract.size(); ++i)
        if (lt.dims[p->lhs_contract[i]] != rt.dims[p->rhs_contract[i]])
          Fail(op, absl::StatusCode::kInvalidArgument, "contracting dimension sizes differ");
      if (gt.rank() < 1 || !ir::IsInteger(gt.elem) || gt.elem == ElemKind::kI1 ||
          gt.rank() - 1 > static_cast<int64_t>(p->lhs_batch.size()))
        Fail(op, absl::StatusCode::kInvalidArgument,
             StrCat("group_sizes ", gt.ToString(), " must be an integer tensor [lhs batch dims..., groups]"));
      for (int64_t i = 0; i + 1 < gt.rank(); ++i)
        if (gt.dims[i] != lt.dims[p->lhs_batch[i]])
          Fail(op, absl::StatusCode::kInvalidArgument, "group_sizes' leading dimensions must be the lhs batch dimensions");
      const int64_t groups = gt.dims.back();
      std::vector<int64_t> want;
      if (p->mode == cpu::RaggedDotParams::kContracting) want.push_back(groups);
      if (p->mode == cpu::RaggedDotParams::kNonContracting && rt.dims[p->rhs_group] != groups)
        Fail(op, absl::StatusCode::kInvalidArgument, "the rhs group dimension must have one entry per group");
      for (int64_t d : p->lhs_batch) want.push_back(lt.dims[d]);
      for (int64_t d = 0; d < lt.rank(); ++d)
        if (!has(p->lhs_batch, d) && !has(p->lhs_contract, d)) want.push_back(lt.dims[d]);
      for (int64_t d = 0; d < rt.rank(); ++d)
        if (d != p->rhs_group && !has(p->rhs_batch, d) && !has(p->rhs_contract, d)) want.push_back(rt.dims[d]);
      if (want != ot.dims)
        Fail(op, absl::StatusCode::kInvalidArgument,
             StrCat("result shape ", ot.ToString(), " does not match the ragged dot of the operands"));
      std::vector<int> in = Operands(op, env);
      const ElemKind work = ProductWork(ot.elem);
      for (size_t i = 0; i < 2; ++i)
        in[i] = ConvertTo(op, prog, in[i], ToArrayType(op, op.operands[i]->type), work);
      if (work != ot.elem) {
        ArrayType wide = ot;
        wide.elem = work;
        const int product = AddHelperStep(op, prog, Check(op, cpu::SelectRaggedDot(work)), in, wide, p);
        AddStep(op, env, prog, Check(op, cpu::SelectConvert(work, ot.elem)), {product});
        return;
      }
      AddStep(op, env, prog, Check(op, cpu::SelectRaggedDot(ot.elem)), in).params = p;
      return;
    }
    default:
      Fail(op, absl::StatusCode::kInternal, "not a product");
  }
}

void Lowerer::LowerIndexed(const Operation& op, Env& env, Program& prog, int depth) {
  const OpCode c = op.code;
  auto kind_of = [&](const Value* v) { return ToArrayType(op, v->type).elem; };
  switch (c) {
    case OpCode::kGather:
    case OpCode::kDynamicGather: {
      auto p = std::make_shared<cpu::GatherParams>();
      Attribute dn = op.attr("dimension_numbers");
      ir::GetI64List(dn.Field("offset_dims"), &p->offset_dims);
      ir::GetI64List(dn.Field("collapsed_slice_dims"), &p->collapsed_slice_dims);
      ir::GetI64List(dn.Field("operand_batching_dims"), &p->operand_batching_dims);
      ir::GetI64List(dn.Field("start_indices_batching_dims"), &p->start_indices_batching_dims);
      ir::GetI64List(dn.Field("start_index_map"), &p->start_index_map);
      p->index_vector_dim = 0;  // the attribute's default
      ir::GetInt(dn.Field("index_vector_dim"), &p->index_vector_dim);
      if (c == OpCode::kGather) p->slice_sizes = I64s(op, "slice_sizes");
      AddStep(op, env, prog, c == OpCode::kGather ? cpu::GatherKernel() : cpu::DynamicGatherKernel(),
              Operands(op, env)).params = p;
      return;
    }
    case OpCode::kScatter: {
      auto p = std::make_shared<cpu::ScatterParams>();
      Attribute dn = op.attr("scatter_dimension_numbers");
      ir::GetI64List(dn.Field("update_window_dims"), &p->update_window_dims);
      ir::GetI64List(dn.Field("inserted_window_dims"), &p->inserted_window_dims);
      ir::GetI64List(dn.Field("input_batching_dims"), &p->input_batching_dims);
      ir::GetI64List(dn.Field("scatter_indices_batching_dims"), &p->scatter_indices_batching_dims);
      ir::GetI64List(dn.Field("scatter_dims_to_operand_dims"), &p->scatter_dims_to_operand_dims);
      const size_t n = (op.operands.size() - 1) / 2;
      p->index_vector_dim = 0;  // the attribute's default
      ir::GetInt(dn.Field("index_vector_dim"), &p->index_vector_dim);
      // The common "replace" update computation returns its second argument(s).
      const ir::Block* body = op.regions[0]->front();
      if (body && body->ops.size() == 1 && body->args.size() == 2 * n &&
          body->ops[0]->operands.size() == n) {
        p->assign = true;
        for (size_t i = 0; i < n; ++i)
          p->assign &= body->ops[0]->operands[i] == body->args[n + i].get();
      }
      std::vector<ElemKind> want;
      for (size_t i = 0; i < n; ++i) want.push_back(kind_of(op.result(i)));
      want.push_back(kind_of(op.operands[n]));  // indices keep their kind
      for (size_t i = 0; i < n; ++i) want.push_back(kind_of(op.result(i)));
      std::vector<int> in = OperandsAs(op, env, prog, want);
      // Scattering into a broadcast scalar (the zeros of an embedding gradient): the kernel
      // fills its result from the scalar itself, a block at a time just before the updates
      // into that block, instead of a broadcast step filling the whole array first (which then
      // goes unread, and DropUnreadSteps removes it when nothing else reads it).
      const ir::Operation* init = op.operands[0]->def;
      if (n == 1 && init && init->code == OpCode::kBroadcastInDim && init->operands.size() == 1 &&
          init->operands[0]->type.IsTensor() && init->operands[0]->type.rank() == 0 &&
          kind_of(init->operands[0]) == want[0]) {
        in[0] = Use(op, env, init->operands[0]);
        p->fill = true;
      }
      BinaryOp fold_op;
      if (n == 1 && !p->assign && body && FastRegion(*body, &fold_op) &&
          kind_of(body->args[0].get()) == kind_of(op.result(0)) && kind_of(body->args[1].get()) == kind_of(op.result(0)))
        p->fold = cpu::TypedFold(fold_op, kind_of(op.result(0)));
      std::shared_ptr<Program> region = p->assign ? nullptr : LowerRegion(op, 0, env, depth);
      Step& s = AddStep(op, env, prog, cpu::ScatterKernel(), in);
      s.params = p;
      if (region) s.regions.push_back(region);
      return;
    }
    default:
      Fail(op, absl::StatusCode::kInternal, "not an indexing op");
  }
}

void Lowerer::LowerWindowed(const Operation& op, Env& env, Program& prog, int depth) {
  const OpCode c = op.code;
  auto kind_of = [&](const Value* v) { return ToArrayType(op, v->type).elem; };
  switch (c) {
    case OpCode::kReduceWindow:
    case OpCode::kSelectAndScatter: {
      auto p = std::make_shared<cpu::WindowParams>();
      p->dims = I64s(op, "window_dimensions");
      const size_t rank = p->dims.size();
      if (static_cast<int64_t>(rank) != op.operands[0]->type.rank())
        Fail(op, absl::StatusCode::kInvalidArgument, "window_dimensions must match the operand rank");
      auto list_or = [&](const char* name, int64_t dflt) {
        std::vector<int64_t> v;
        if (!ir::GetI64List(op.attr(name), &v) || v.empty()) v.assign(rank, dflt);
        return v;
      };
      p->strides = list_or("window_strides", 1);
      // select_and_scatter has no dilations: attributes of those names on it are discardable
      // extras (a base dilation of 0 there had reached a division by zero).
      const bool dilated = c == OpCode::kReduceWindow;
      p->base_dilations = dilated ? list_or("base_dilations", 1) : std::vector<int64_t>(rank, 1);
      p->window_dilations = dilated ? list_or("window_dilations", 1) : std::vector<int64_t>(rank, 1);
      std::vector<int64_t> pad = list_or("padding", 0);
      if (pad.size() == 2 * rank) {
        for (size_t d = 0; d < rank; ++d) {
          p->pad_low.push_back(pad[2 * d]);
          p->pad_high.push_back(pad[2 * d + 1]);
        }
      } else {
        p->pad_low.assign(rank, 0);
        p->pad_high.assign(rank, 0);
      }
      std::vector<ElemKind> want;
      if (c == OpCode::kReduceWindow) {
        for (size_t i = 0; i < op.num_results(); ++i) want.push_back(kind_of(op.result(i)));
        std::vector<ElemKind> inits = want;
        want.insert(want.end(), inits.begin(), inits.end());
      } else {
        // select_and_scatter: the operand keeps its kind (select compares it); the source
        // and init are summed into the result's kind.
        want = {kind_of(op.operands[0]), kind_of(op.result(0)), kind_of(op.result(0))};
      }
      std::vector<int> in = OperandsAs(op, env, prog, want);
      if (KernelFn fast = FastWindowKernel(op)) {
        AddStep(op, env, prog, fast, in).params = p;
        return;
      }
      std::vector<std::shared_ptr<Program>> regions;
      for (size_t r = 0; r < op.regions.size(); ++r) regions.push_back(LowerRegion(op, r, env, depth));
      Step& s = AddStep(op, env, prog,
                        c == OpCode::kReduceWindow ? cpu::ReduceWindowKernel()
                                                   : cpu::SelectAndScatterKernel(), in);
      s.params = p;
      s.regions = std::move(regions);
      return;
    }
    case OpCode::kConvolution:
    case OpCode::kDynamicConv: {
      auto p = std::make_shared<cpu::ConvParams>();
      Attribute dn = op.attr("dimension_numbers");
      auto gi = [&](const char* n) {
        int64_t v = 0;
        ir::GetInt(dn.Field(n), &v);
        return v;
      };
      p->in_batch = gi("input_batch_dimension");
      p->in_feature = gi("input_feature_dimension");
      p->k_in = gi("kernel_input_feature_dimension");
      p->k_out = gi("kernel_output_feature_dimension");
      p->out_batch = gi("output_batch_dimension");
      p->out_feature = gi("output_feature_dimension");
      ir::GetI64List(dn.Field("input_spatial_dimensions"), &p->in_spatial);
      ir::GetI64List(dn.Field("kernel_spatial_dimensions"), &p->k_spatial);
      ir::GetI64List(dn.Field("output_spatial_dimensions"), &p->out_spatial);
      const size_t ns = p->in_spatial.size();
      auto list_or = [&](const char* name, int64_t dflt) {
        std::vector<int64_t> v;
        if (!ir::GetI64List(op.attr(name), &v) || v.empty()) v.assign(ns, dflt);
        return v;
      };
      p->strides = list_or("window_strides", 1);
      p->lhs_dilation = list_or("lhs_dilation", 1);
      p->rhs_dilation = list_or("rhs_dilation", 1);
      std::vector<int64_t> pad = list_or("padding", 0);
      if (op.code == OpCode::kDynamicConv) {
        // The padding operand must be a constant: the result's static shape was computed from it.
        pad = ConstantInts(op, 2, "padding");
        if (pad.size() != 2 * ns)
          Fail(op, absl::StatusCode::kInvalidArgument, StrCat("padding needs ", 2 * ns, " values, got ", pad.size()));
        const ArrayType xa = ToArrayType(op, op.operands[0]->type), wa = ToArrayType(op, op.operands[1]->type);
        const ArrayType ra = ToArrayType(op, op.result(0)->type);
        for (size_t d = 0; d < ns; ++d) {
          const int64_t xi = xa.dims[p->in_spatial[d]], wi = wa.dims[p->k_spatial[d]];
          const int64_t dil_in = xi == 0 ? 0 : (xi - 1) * p->lhs_dilation[d] + 1;
          const int64_t padded = dil_in + pad[2 * d] + pad[2 * d + 1];
          const int64_t dil_w = wi == 0 ? 0 : (wi - 1) * p->rhs_dilation[d] + 1;
          const int64_t want = padded < dil_w ? 0 : (padded - dil_w) / p->strides[d] + 1;
          if (ra.dims[p->out_spatial[d]] != want)
            Fail(op, absl::StatusCode::kInvalidArgument,
                 StrCat("with padding ", pad[2 * d], ", ", pad[2 * d + 1], " spatial dimension ", d,
                        " of the result must be ", want, ", got ", ra.dims[p->out_spatial[d]]));
        }
      }
      if (pad.size() == 2 * ns) {
        for (size_t d = 0; d < ns; ++d) {
          p->pad_low.push_back(pad[2 * d]);
          p->pad_high.push_back(pad[2 * d + 1]);
        }
      } else {
        p->pad_low.assign(ns, 0);
        p->pad_high.assign(ns, 0);
      }
      std::vector<int64_t> rev = list_or("window_reversal", 0);
      for (int64_t r : rev) p->reversal.push_back(r != 0);
      p->feature_groups = Int(op, "feature_group_count", 1);
      p->batch_groups = Int(op, "batch_group_count", 1);
      ElemKind out = kind_of(op.result(0));
      // The 4-, 6- and 8-bit floats and the narrower integers in their wide kind (cpu::WideKind:
      // f32 rounded once at the end; i32 / i64, whose wrapping sums agree with theirs).
      const ElemKind work = cpu::WideKind(out);
      std::vector<int> in = Operands(op, env);
      for (size_t i = 0; i < 2; ++i)
        in[i] = ConvertTo(op, prog, in[i], ToArrayType(op, op.operands[i]->type), work);
      cpu::KernelFn gemm = p->batch_groups == 1 ? cpu::ConvolutionGemmKernel(work) : nullptr;
      cpu::KernelFn fn = gemm ? gemm : Check(op, cpu::SelectConvolution(work));
      if (work != out) {
        ArrayType wide = ToArrayType(op, op.result(0)->type);
        wide.elem = work;
        const int product = AddHelperStep(op, prog, fn, in, wide, p);
        AddStep(op, env, prog, Check(op, cpu::SelectConvert(work, out)), {product});
        return;
      }
      AddStep(op, env, prog, fn, in).params = p;
      return;
    }
    case OpCode::kBatchNormInference:
    case OpCode::kBatchNormTraining:
    case OpCode::kBatchNormGrad: {
      auto p = std::make_shared<cpu::BatchNormParams>();
      Attribute eps = op.attr("epsilon");
      p->epsilon = eps && eps.kind() == AttrKind::kFloat ? eps->float_value : 0.0;
      p->feature_index = Int(op, "feature_index", 0);
      ElemKind k = kind_of(op.operands[0]);
      if (!ir::IsFloat(k)) Unimplemented(op, StrCat("batch norm on ", ir::ElemKindName(k)));
      KernelFn fn = c == OpCode::kBatchNormInference ? cpu::BatchNormInferenceKernel()
                    : c == OpCode::kBatchNormTraining ? cpu::BatchNormTrainingKernel()
                                                      : cpu::BatchNormGradKernel();
      AddStep(op, env, prog, fn, Operands(op, env)).params = p;
      return;
    }
    default:
      Fail(op, absl::StatusCode::kInternal, "not a windowed op");
  }
}

}  // namespace openpjrt::compiler::internal
