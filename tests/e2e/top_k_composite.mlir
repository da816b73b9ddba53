// lax.top_k as JAX 0.11 sends it: a chlo.top_k composite whose decomposition sorts whole rows
// (TOTALORDER, descending, stable) and slices. The compiler runs the top-k kernel instead; its
// values (bit for bit) and indices must equal the decomposition's (called here directly) with ties, NaNs of
// both signs, infinities and signed zeros, for a small k (the one-pass selection) and k = n
// (the partial sort). A composite whose k does not match its results (k = 8 into 3x4: the
// fuzzer's mutation, which the kernel had written past) runs its decomposition.
module @jit_top_k {
  func.func public @main() {
    %x = stablehlo.constant dense<[[1.0, 2.0, -3.0, 2.0, 0.0, 0x7FC00000, 1.0, -1.0, 3.0, -3.0, -2.0, -1.0, 0.0, -1.0, -3.0, -3.0, -3.0, 0x7FC00000, -2.0, 3.0, -2.0, 1.0, 2.0, -2.0, -2.0, 0.0, -2.0, 3.0, -2.0, 3.0, 2.0, 2.0, -3.0, -1.0, 1.0, 0.0, 1.0, 1.0, 1.0, -3.0], [3.0, 0.0, 3.0, 0xFFC00000, -1.0, 3.0, -2.0, -3.0, -1.0, 0x7F800000, -3.0, 3.0, -1.0, -2.0, 0.0, 3.0, 3.0, 3.0, -1.0, -3.0, 2.0, 1.0, 2.0, -3.0, -3.0, 0.0, -1.0, 0.0, 3.0, -2.0, 0.0, -1.0, -1.0, 2.0, -2.0, -1.0, -3.0, -2.0, -2.0, 1.0], [-0.0, 0.0, -2.0, 2.0, 2.0, -2.0, -3.0, -1.0, -2.0, 2.0, 0.0, 0.0, -1.0, 0.0, 3.0, -2.0, 2.0, -3.0, -1.0, 3.0, 3.0, -3.0, 2.0, 2.0, 0.0, -1.0, 3.0, 3.0, 1.0, -1.0, -2.0, 3.0, -2.0, 0.0, 1.0, -2.0, -1.0, 2.0, -2.0, 1.0]]> : tensor<3x40xf32>
    %v, %i = stablehlo.composite "chlo.top_k" %x {composite_attributes = {is_stable = true, k = 4 : i64}, decomposition = @top4} : (tensor<3x40xf32>) -> (tensor<3x4xf32>, tensor<3x4xi32>)
    %rv, %ri = func.call @top4(%x) : (tensor<3x40xf32>) -> (tensor<3x4xf32>, tensor<3x4xi32>)
    %vb = stablehlo.bitcast_convert %v : (tensor<3x4xf32>) -> tensor<3x4xi32>
    %rvb = stablehlo.bitcast_convert %rv : (tensor<3x4xf32>) -> tensor<3x4xi32>
    check.expect_eq %vb, %rvb : tensor<3x4xi32>
    check.expect_eq %i, %ri : tensor<3x4xi32>
    %av, %ai = stablehlo.composite "chlo.top_k" %x {composite_attributes = {is_stable = true, k = 40 : i64}, decomposition = @top40} : (tensor<3x40xf32>) -> (tensor<3x40xf32>, tensor<3x40xi32>)
    %bv, %bi = func.call @top40(%x) : (tensor<3x40xf32>) -> (tensor<3x40xf32>, tensor<3x40xi32>)
    %avb = stablehlo.bitcast_convert %av : (tensor<3x40xf32>) -> tensor<3x40xi32>
    %bvb = stablehlo.bitcast_convert %bv : (tensor<3x40xf32>) -> tensor<3x40xi32>
    check.expect_eq %avb, %bvb : tensor<3x40xi32>
    check.expect_eq %ai, %bi : tensor<3x40xi32>
    %mv, %mi = stablehlo.composite "chlo.top_k" %x {composite_attributes = {is_stable = true, k = 8 : i64}, decomposition = @top4} : (tensor<3x40xf32>) -> (tensor<3x4xf32>, tensor<3x4xi32>)
    %mvb = stablehlo.bitcast_convert %mv : (tensor<3x4xf32>) -> tensor<3x4xi32>
    check.expect_eq %mvb, %rvb : tensor<3x4xi32>
    check.expect_eq %mi, %ri : tensor<3x4xi32>
    return
  }
  func.func private @top4(%a: tensor<3x40xf32>) -> (tensor<3x4xf32>, tensor<3x4xi32>) {
    %s:2 = call @sorted(%a) : (tensor<3x40xf32>) -> (tensor<3x40xf32>, tensor<3x40xi32>)
    %v = stablehlo.slice %s#0 [0:3, 0:4] : (tensor<3x40xf32>) -> tensor<3x4xf32>
    %i = stablehlo.slice %s#1 [0:3, 0:4] : (tensor<3x40xi32>) -> tensor<3x4xi32>
    return %v, %i : tensor<3x4xf32>, tensor<3x4xi32>
  }
  func.func private @top40(%a: tensor<3x40xf32>) -> (tensor<3x40xf32>, tensor<3x40xi32>) {
    %s:2 = call @sorted(%a) : (tensor<3x40xf32>) -> (tensor<3x40xf32>, tensor<3x40xi32>)
    return %s#0, %s#1 : tensor<3x40xf32>, tensor<3x40xi32>
  }
  func.func private @sorted(%a: tensor<3x40xf32>) -> (tensor<3x40xf32>, tensor<3x40xi32>) {
    %iota = stablehlo.iota dim = 1 : tensor<3x40xi32>
    %v, %i = "stablehlo.sort"(%a, %iota) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>, %r: tensor<i32>, %t: tensor<i32>):
      %c = stablehlo.compare GT, %p, %q, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }) {dimension = 1 : i64, is_stable = true} : (tensor<3x40xf32>, tensor<3x40xi32>) -> (tensor<3x40xf32>, tensor<3x40xi32>)
    return %v, %i : tensor<3x40xf32>, tensor<3x40xi32>
  }
}
