// chlo.ragged_dot programs that must be refused with a clear error.
// expect-fail: result shape tensor<3x3xf32> does not match the ragged dot of the operands
func.func @main() {
  %lhs = stablehlo.constant dense<1.0> : tensor<3x2xf32>
  %rhs = stablehlo.constant dense<1.0> : tensor<2x2x2xf32>
  %gs = stablehlo.constant dense<[2, 1]> : tensor<2xi32>
  %r = "chlo.ragged_dot"(%lhs, %rhs, %gs) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<3x2xf32>, tensor<2x2x2xf32>, tensor<2xi32>) -> tensor<3x3xf32>
  func.return
}

// -----

// expect-fail: rhs_group_dimensions must name one dimension exactly when the lhs ragged dimension is not a batch or contracting dimension
func.func @main() {
  %lhs = stablehlo.constant dense<1.0> : tensor<3x2xf32>
  %rhs = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %gs = stablehlo.constant dense<[2, 1]> : tensor<2xi32>
  %r = "chlo.ragged_dot"(%lhs, %rhs, %gs) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [0], rhs_group_dimensions = []>} : (tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  func.return
}
