// StableHLO's deprecated ops run on the kernels of their modern forms: einsum (sums over labels
// only one operand has, dot_general, transpose), unary_einsum (a sum and a transpose) and
// torch_index_select (a gather with batching dimensions).
func.func @einsum_matmul() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %y = stablehlo.constant dense<[[1.0, 0.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %z = "stablehlo.einsum"(%x, %y) {einsum_config = "ab,bc->ac"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %z, dense<[[3.0, 2.0], [7.0, 4.0]]> : tensor<2x2xf32>
  %t = "stablehlo.einsum"(%x, %y) {einsum_config = "ab,bc->ca"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %t, dense<[[3.0, 7.0], [2.0, 4.0]]> : tensor<2x2xf32>
  func.return
}

// -----

func.func @einsum_batch_sum_and_outer() {
  %a = stablehlo.iota dim = 0 : tensor<2x3x4xi32>
  %b = stablehlo.iota dim = 2 : tensor<2x4x5xi32>
  // batch b, contract k, lhs free i, rhs free j
  %r = "stablehlo.einsum"(%a, %b) {einsum_config = "bik,bkj->bij"} : (tensor<2x3x4xi32>, tensor<2x4x5xi32>) -> tensor<2x3x5xi32>
  %r0 = stablehlo.slice %r [1:2, 0:1, 0:5] : (tensor<2x3x5xi32>) -> tensor<1x1x5xi32>
  check.expect_eq_const %r0, dense<[[[0, 4, 8, 12, 16]]]> : tensor<1x1x5xi32>
  // labels only one side has and the output lacks are summed first; outer product
  %v = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %w = stablehlo.constant dense<[[1.0, 1.0], [2.0, 0.5]]> : tensor<2x2xf32>
  %o = "stablehlo.einsum"(%v, %w) {einsum_config = "i,jk->ij"} : (tensor<3xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  check.expect_eq_const %o, dense<[[2.0, 2.5], [4.0, 5.0], [6.0, 7.5]]> : tensor<3x2xf32>
  func.return
}

// -----

func.func @unary_einsum() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %t = "stablehlo.unary_einsum"(%x) {einsum_config = "ab->ba"} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %t, dense<[[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
  %s = "stablehlo.unary_einsum"(%x) {einsum_config = ",ab->b"} : (tensor<2x3xi32>) -> tensor<3xi32>
  check.expect_eq_const %s, dense<[5, 7, 9]> : tensor<3xi32>
  %a = "stablehlo.unary_einsum"(%x) {einsum_config = "ab->"} : (tensor<2x3xi32>) -> tensor<i32>
  check.expect_eq_const %a, dense<21> : tensor<i32>
  %i = "stablehlo.unary_einsum"(%x) {einsum_config = "ab->ab"} : (tensor<2x3xi32>) -> tensor<2x3xi32>
  check.expect_eq %i, %x : tensor<2x3xi32>
  func.return
}

// -----

func.func @torch_index_select() {
  %x = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]], [[9, 10], [11, 12]]]> : tensor<3x2x2xi32>
  %i = stablehlo.constant dense<[1, 0, 1]> : tensor<3xi32>
  %r = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 1 : i64} : (tensor<3x2x2xi32>, tensor<3xi32>) -> tensor<3x3x2xi32>
  check.expect_eq_const %r, dense<[[[3, 4], [1, 2], [3, 4]], [[7, 8], [5, 6], [7, 8]], [[11, 12], [9, 10], [11, 12]]]> : tensor<3x3x2xi32>
  %s = stablehlo.constant dense<2> : tensor<i64>
  %r0 = "stablehlo.torch_index_select"(%x, %s) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<3x2x2xi32>, tensor<i64>) -> tensor<2x2xi32>
  check.expect_eq_const %r0, dense<[[9, 10], [11, 12]]> : tensor<2x2xi32>
  %y = stablehlo.constant dense<[[[100, 101], [110, 111]], [[200, 201], [210, 211]]]> : tensor<2x2x2xi32>
  %j = stablehlo.constant dense<[[[0, 1], [1, 0]], [[0, 0], [1, 1]]]> : tensor<2x2x2xi32>
  %b = "stablehlo.torch_index_select"(%y, %j) {batch_dims = -1 : i64, dim = -1 : i64} : (tensor<2x2x2xi32>, tensor<2x2x2xi32>) -> tensor<2x2x2xi32>
  check.expect_eq_const %b, dense<[[[100, 101], [111, 110]], [[200, 200], [211, 211]]]> : tensor<2x2x2xi32>
  func.return
}
