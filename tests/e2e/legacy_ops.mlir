// StableHLO's deprecated ops run on the kernels of their modern forms: einsum and unary_einsum
// (diagonals, sums over labels only one operand has, dot_general, transpose; '...') and
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

// -----

// '...' stands for the dimensions an operand's letters leave, aligned to the right and broadcast
// as numpy does (a size-1 dimension against a larger one); expected values from numpy.einsum.
func.func @einsum_ellipsis() {
  %a0 = stablehlo.constant dense<[[[ 3,  1,  1,  3],  [ 1,  2,  2, -2],  [-3, -1, -2,  3]], [[ 3, -3,  0,  2],  [-3,  2, -3,  0],  [ 2, -1, -1, -2]]]> : tensor<2x3x4xi32>
  %b0 = stablehlo.constant dense<[[ 2, -2,  3,  0,  0], [ 0,  1,  0,  0,  3], [ 2,  2,  1,  1, -1], [ 3,  0, -2,  2, -2]]> : tensor<4x5xi32>
  %r0 = "stablehlo.einsum"(%a0, %b0) {einsum_config = "...ij,jk->...ik"} : (tensor<2x3x4xi32>, tensor<4x5xi32>) -> tensor<2x3x5xi32>
  check.expect_eq_const %r0, dense<[[[ 17,  -3,   4,   7,  -4],  [  0,   4,   9,  -2,   8],  [ -1,   1, -17,   4,  -7]], [[ 12,  -9,   5,   4, -13],  [-12,   2, -12,  -3,   9],  [ -4,  -7,   9,  -5,   2]]]> : tensor<2x3x5xi32>
  %a1 = stablehlo.constant dense<[[[ 3,  1, -3, -3,  0]], [[-3, -3,  0,  3,  0]], [[ 2,  3,  2,  1,  0]]]> : tensor<3x1x5xi32>
  %b1 = stablehlo.constant dense<[[[ 0],  [-2],  [ 0],  [-1]], [[-2],  [ 3],  [-3],  [-3]], [[-2],  [ 3],  [ 1],  [ 3]]]> : tensor<3x4x1xi32>
  %r1 = "stablehlo.einsum"(%a1, %b1) {einsum_config = "i...,i...->..."} : (tensor<3x1x5xi32>, tensor<3x4x1xi32>) -> tensor<4x5xi32>
  check.expect_eq_const %r1, dense<[[ 2,  0, -4, -8,  0], [-9, -2, 12, 18,  0], [11, 12,  2, -8,  0], [12, 17,  9, -3,  0]]> : tensor<4x5xi32>
  %a2 = stablehlo.constant dense<[[[-2,  2, -1],  [ 0, -3,  1]], [[ 2,  1, -2],  [ 0, -2,  3]], [[ 3, -2,  0],  [ 3,  2,  1]]]> : tensor<3x2x3xi32>
  %b2 = stablehlo.constant dense<[[ 1, -3,  2,  0], [-3, -2,  0,  2], [ 0,  1,  3,  1]]> : tensor<3x4xi32>
  %r2 = "stablehlo.einsum"(%a2, %b2) {einsum_config = "...ab,...bc->...ac"} : (tensor<3x2x3xi32>, tensor<3x4xi32>) -> tensor<3x2x4xi32>
  check.expect_eq_const %r2, dense<[[[ -8,   1,  -7,   3],  [  9,   7,   3,  -5]], [[ -1, -10,  -2,   0],  [  6,   7,   9,  -1]], [[  9,  -5,   6,  -4],  [ -3, -12,   9,   5]]]> : tensor<3x2x4xi32>
  %a3 = stablehlo.constant dense<[[-1,  1,  1], [-3, -3,  1]]> : tensor<2x3xi32>
  %b3 = stablehlo.constant dense<[-1,  1, -1]> : tensor<3xi32>
  %r3 = "stablehlo.einsum"(%a3, %b3) {einsum_config = "...,...->..."} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %r3, dense<[[ 1,  1, -1], [ 3, -3, -1]]> : tensor<2x3xi32>
  %a4 = stablehlo.constant dense<[[[-2, -2, -1,  2],  [-1, -1,  1,  3],  [-1,  1,  0,  1]], [[ 0,  1,  0,  1],  [ 3, -2,  0,  0],  [-1, -2, -3, -1]]]> : tensor<2x3x4xi32>
  %b4 = stablehlo.constant dense<[ 2, -3, -1,  3]> : tensor<4xi32>
  %r4 = "stablehlo.einsum"(%a4, %b4) {einsum_config = "a...c,c->...a"} : (tensor<2x3x4xi32>, tensor<4xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %r4, dense<[[ 9,  0], [ 9, 12], [-2,  4]]> : tensor<3x2xi32>
  %u0 = stablehlo.constant dense<[[[ 3, -2, -3],  [ 1, -3, -1]], [[ 0,  3, -3],  [ 1,  0, -3]]]> : tensor<2x2x3xi32>
  %v0 = "stablehlo.unary_einsum"(%u0) {einsum_config = "...ij->...ji"} : (tensor<2x2x3xi32>) -> tensor<2x3x2xi32>
  check.expect_eq_const %v0, dense<[[[ 3,  1],  [-2, -3],  [-3, -1]], [[ 0,  1],  [ 3,  0],  [-3, -3]]]> : tensor<2x3x2xi32>
  %u1 = stablehlo.constant dense<[[[ 2,  2],  [ 0,  3]], [[ 1,  3],  [ 3,  0]], [[-2, -2],  [ 0, -2]]]> : tensor<3x2x2xi32>
  %v1 = "stablehlo.unary_einsum"(%u1) {einsum_config = "a...->..."} : (tensor<3x2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %v1, dense<[[1, 3], [3, 1]]> : tensor<2x2xi32>
  %u2 = stablehlo.constant dense<[2, 3]> : tensor<2xi32>
  %v2 = "stablehlo.unary_einsum"(%u2) {einsum_config = "...->..."} : (tensor<2xi32>) -> tensor<2xi32>
  check.expect_eq_const %v2, dense<[2, 3]> : tensor<2xi32>
  func.return
}

// -----

// A label repeated in one term reads the diagonal (a trace when it is summed too); expected values
// from numpy.einsum.
func.func @einsum_diagonal() {
  %u0 = stablehlo.constant dense<[[-3, -3,  2], [ 0,  1,  1], [ 1, -3,  0]]> : tensor<3x3xi32>
  %v0 = "stablehlo.unary_einsum"(%u0) {einsum_config = "aa->a"} : (tensor<3x3xi32>) -> tensor<3xi32>
  check.expect_eq_const %v0, dense<[-3,  1,  0]> : tensor<3xi32>
  %u1 = stablehlo.constant dense<[[-2, -1,  3], [ 0, -3,  0], [-3,  2,  3]]> : tensor<3x3xi32>
  %v1 = "stablehlo.unary_einsum"(%u1) {einsum_config = "aa->"} : (tensor<3x3xi32>) -> tensor<i32>
  check.expect_eq_const %v1, dense<-2> : tensor<i32>
  %u2 = stablehlo.constant dense<[[[ 3,  1],  [ 3, -1],  [-2,  0]], [[ 0,  1],  [ 3, -2],  [ 2, -3]]]> : tensor<2x3x2xi32>
  %v2 = "stablehlo.unary_einsum"(%u2) {einsum_config = "aba->ab"} : (tensor<2x3x2xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %v2, dense<[[ 3,  3, -2], [ 1, -2, -3]]> : tensor<2x3xi32>
  %u3 = stablehlo.constant dense<[[[-1,  2],  [-2,  1]], [[ 0,  0],  [ 3,  2]]]> : tensor<2x2x2xi32>
  %v3 = "stablehlo.unary_einsum"(%u3) {einsum_config = "aaa->a"} : (tensor<2x2x2xi32>) -> tensor<2xi32>
  check.expect_eq_const %v3, dense<[-1,  2]> : tensor<2xi32>
  %u4 = stablehlo.constant dense<[[[ 2,  0,  3],  [ 3, -3, -2],  [-1,  0,  2]], [[ 0,  3, -1],  [ 3,  1,  2],  [-2,  1,  2]]]> : tensor<2x3x3xi32>
  %v4 = "stablehlo.unary_einsum"(%u4) {einsum_config = "...aa->...a"} : (tensor<2x3x3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %v4, dense<[[ 2, -3,  2], [ 0,  1,  2]]> : tensor<2x3xi32>
  %u5 = stablehlo.constant dense<[[[[ 3,  3,  3],   [-3,  2,  0]],  [[ 1, -2, -3],   [-3,  3,  3]],  [[-1,  0, -2],   [-2,  3,  1]]], [[[-3, -2,  0],   [ 3,  3, -2]],  [[ 1, -3, -2],   [-2,  0, -1]],  [[ 2,  0, -1],   [ 3,  1,  1]]]]> : tensor<2x3x2x3xi32>
  %v5 = "stablehlo.unary_einsum"(%u5) {einsum_config = "abab->ba"} : (tensor<2x3x2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %v5, dense<[[ 3,  3], [-2,  0], [-2,  1]]> : tensor<3x2xi32>
  %a0 = stablehlo.constant dense<[[[ 2, -1],  [ 3, -3],  [-1, -2]], [[-3,  3],  [-3,  0],  [ 2,  1]], [[ 2, -3],  [ 0, -3],  [-2,  2]]]> : tensor<3x3x2xi32>
  %b0 = stablehlo.constant dense<[-3,  1]> : tensor<2xi32>
  %r0 = "stablehlo.einsum"(%a0, %b0) {einsum_config = "iij,j->i"} : (tensor<3x3x2xi32>, tensor<2xi32>) -> tensor<3xi32>
  check.expect_eq_const %r0, dense<[-7,  9,  8]> : tensor<3xi32>
  %a1 = stablehlo.constant dense<[[-3, -1], [ 3, -1]]> : tensor<2x2xi32>
  %b1 = stablehlo.constant dense<[[-1, -3,  2], [-2,  0, -3], [-3,  2, -3]]> : tensor<3x3xi32>
  %r1 = "stablehlo.einsum"(%a1, %b1) {einsum_config = "ii,jj->ij"} : (tensor<2x2xi32>, tensor<3x3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %r1, dense<[[3, 0, 9], [1, 0, 3]]> : tensor<2x3xi32>
  func.return
}
