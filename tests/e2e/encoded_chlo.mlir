// CHLO ops that XLA's serializer keeps whole as custom calls, their attributes in mhlo.attributes:
// @mhlo.erf (and the other functions of one operand), @mhlo.topk and @chlo.ragged_dot give what
// the ops themselves give.
func.func @erf_and_functions_of_one_operand() {
  %x = stablehlo.constant dense<[0.5, -1.0, 2.0, 0.0]> : tensor<4xf32>
  %e = stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %e_want = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_eq %e, %e_want : tensor<4xf32>
  check.expect_almost_eq_const %e, dense<[0.5204999, -0.8427008, 0.9953223, 0.0]> : tensor<4xf32>
  %h = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xbf16>
  %t = stablehlo.custom_call @mhlo.asinh(%h) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<4xbf16>) -> tensor<4xbf16>
  %t_want = chlo.asinh %h : tensor<4xbf16> -> tensor<4xbf16>
  check.expect_eq %t, %t_want : tensor<4xbf16>
  %l = stablehlo.custom_call @chlo.lgamma(%x) {mhlo.attributes = {}} : (tensor<4xf32>) -> tensor<4xf32>
  %l_want = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_eq %l, %l_want : tensor<4xf32>
  func.return
}

// -----

func.func @topk() {
  %m = stablehlo.constant dense<[[1.0, 5.0, 3.0, 4.0], [9.0, 2.0, 8.0, 0.0]]> : tensor<2x4xf32>
  %t:2 = stablehlo.custom_call @mhlo.topk(%m) {mhlo.attributes = {k = 2 : i64, largest = true}, mhlo.version = 1 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  check.expect_eq_const %t#0, dense<[[5.0, 4.0], [9.0, 8.0]]> : tensor<2x2xf32>
  check.expect_eq_const %t#1, dense<[[1, 3], [0, 2]]> : tensor<2x2xi32>
  %u:2 = stablehlo.custom_call @mhlo.topk(%m) {mhlo.attributes = {k = 3 : i64}, mhlo.version = 1 : i64} : (tensor<2x4xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  check.expect_eq_const %u#0, dense<[[5.0, 4.0, 3.0], [9.0, 8.0, 2.0]]> : tensor<2x3xf32>
  // largest = false: the k smallest in increasing order, ties to the lower index, NaN last.
  %n = stablehlo.constant dense<[[3.0, 0x7FC00000, 1.0, 1.0, -2.0]]> : tensor<1x5xf32>
  %s:2 = stablehlo.custom_call @mhlo.topk(%n) {mhlo.attributes = {k = 4 : i64, largest = false}, mhlo.version = 1 : i64} : (tensor<1x5xf32>) -> (tensor<1x4xf32>, tensor<1x4xi32>)
  check.expect_eq_const %s#0, dense<[[-2.0, 1.0, 1.0, 3.0]]> : tensor<1x4xf32>
  check.expect_eq_const %s#1, dense<[[4, 2, 3, 0]]> : tensor<1x4xi32>
  %c:2 = chlo.top_k(%n, k = 5) {largest = false} : tensor<1x5xf32> -> (tensor<1x5xf32>, tensor<1x5xi32>)
  check.expect_eq_const %c#1, dense<[[4, 2, 3, 0, 1]]> : tensor<1x5xi32>
  // k = 0 picks nothing (a fuzzer found the row scan reading before its buffer).
  %z:2 = stablehlo.custom_call @mhlo.topk(%m) {mhlo.attributes = {k = 0 : i64}, mhlo.version = 1 : i64} : (tensor<2x4xf32>) -> (tensor<2x0xf32>, tensor<2x0xi32>)
  %z2:2 = chlo.top_k(%n, k = 0) : tensor<1x5xf32> -> (tensor<1x0xf32>, tensor<1x0xi32>)
  check.expect_eq_const %z2#1, dense<> : tensor<1x0xi32>
  func.return
}

// -----

func.func @ragged_dot() {
  %lhs = stablehlo.constant dense<[[2.0, -3.0, -2.0], [-2.0, -2.0, 2.0], [3.0, 1.0, -3.0], [-3.0, -1.0, 0.0], [1.0, 0.0, -2.0], [-2.0, 1.0, 2.0], [-3.0, -3.0, 0.0]]> : tensor<7x3xf32>
  %rhs = stablehlo.constant dense<[[[-1.0, 3.0], [0.0, -1.0], [0.0, 1.0]], [[1.0, -2.0], [2.0, 2.0], [3.0, 2.0]], [[-2.0, -1.0], [1.0, 1.0], [1.0, 3.0]]]> : tensor<3x3x2xf32>
  %gs = stablehlo.constant dense<[2, 0, 3]> : tensor<3xi32>
  %r = stablehlo.custom_call @chlo.ragged_dot(%lhs, %rhs, %gs) {mhlo.attributes = {precision_config = ["DEFAULT", "DEFAULT"], ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, dense<1> : tensor<1xi64>, dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}, mhlo.version = 1 : i64} : (tensor<7x3xf32>, tensor<3x3x2xf32>, tensor<3xi32>) -> tensor<7x2xf32>
  check.expect_eq_const %r, dense<[[-2.0, 7.0], [2.0, -2.0], [-8.0, -11.0], [5.0, 2.0], [-4.0, -7.0], [0.0, 0.0], [0.0, 0.0]]> : tensor<7x2xf32>
  func.return
}
