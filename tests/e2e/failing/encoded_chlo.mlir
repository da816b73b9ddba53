// Every chunk here must FAIL in `openpjrt run`, with the text after expect-fail in its line.
// expect-fail: @mhlo.topk takes one operand and mhlo.attributes = {k = K}, and returns (values, indices)
func.func @main() {
  %m = stablehlo.constant dense<1.0> : tensor<2x4xf32>
  %t:2 = stablehlo.custom_call @mhlo.topk(%m) {mhlo.version = 1 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  func.return
}

// -----

// expect-fail: @chlo.ragged_dot takes (lhs, rhs, group_sizes) and mhlo.attributes.ragged_dot_dimension_numbers as six integer lists
func.func @main() {
  %l = stablehlo.constant dense<1.0> : tensor<7x3xf32>
  %r = stablehlo.constant dense<1.0> : tensor<3x3x2xf32>
  %g = stablehlo.constant dense<1> : tensor<3xi32>
  %o = stablehlo.custom_call @chlo.ragged_dot(%l, %r, %g) {mhlo.attributes = {}} : (tensor<7x3xf32>, tensor<3x3x2xf32>, tensor<3xi32>) -> tensor<7x2xf32>
  func.return
}
