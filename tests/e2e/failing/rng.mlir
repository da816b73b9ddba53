// stablehlo.rng programs the verifier must refuse, naming the rule.
// expect-fail: result must have float elements
func.func @main() {
  %a = stablehlo.constant dense<0> : tensor<i32>
  %b = stablehlo.constant dense<1> : tensor<i32>
  %s = stablehlo.constant dense<[4]> : tensor<1xi64>
  %r = stablehlo.rng %a, %b, %s, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<4xi32>
  func.return
}

// -----

// expect-fail: a and b must be 0-dimensional tensors
func.func @main() {
  %a = stablehlo.constant dense<[0.0]> : tensor<1xf32>
  %b = stablehlo.constant dense<1.0> : tensor<f32>
  %s = stablehlo.constant dense<[4]> : tensor<1xi64>
  %r = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<1xf32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  func.return
}

// -----

// expect-fail: shape has 2 entries but the result has rank 1
func.func @main() {
  %a = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.constant dense<1.0> : tensor<f32>
  %s = stablehlo.constant dense<[4, 1]> : tensor<2xi64>
  %r = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4xf32>
  func.return
}
