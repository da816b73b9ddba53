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

// -----

// expect-fail: @mhlo.topk: result #0 must be tensor<2x3xf32> for k = 3
func.func @main() {
  %m = stablehlo.constant dense<1.0> : tensor<2x4xf32>
  %t:2 = stablehlo.custom_call @mhlo.topk(%m) {mhlo.attributes = {k = 3 : i64}} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  func.return
}

// -----

// expect-fail: @mhlo.topk: k = 5 is outside [0, 4] for tensor<2x4xf32>
func.func @main() {
  %m = stablehlo.constant dense<1.0> : tensor<2x4xf32>
  %t:2 = stablehlo.custom_call @mhlo.topk(%m) {mhlo.attributes = {k = 5 : i64}} : (tensor<2x4xf32>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
  func.return
}

// -----

// expect-fail: @mhlo.erf takes one operand and returns one result
func.func @main() {
  %m = stablehlo.constant dense<1.0> : tensor<4xf32>
  %t = stablehlo.custom_call @mhlo.erf(%m, %m) {mhlo.attributes = {}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

// expect-fail: @mhlo.erf: mhlo.attributes must be a dictionary
func.func @main() {
  %m = stablehlo.constant dense<1.0> : tensor<4xf32>
  %t = stablehlo.custom_call @mhlo.erf(%m) {mhlo.attributes = [1, 2]} : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

// expect-fail: ragged_dot_dimension_numbers entry #2 is not a list of integers
func.func @main() {
  %l = stablehlo.constant dense<1.0> : tensor<7x3xf32>
  %r = stablehlo.constant dense<1.0> : tensor<3x3x2xf32>
  %g = stablehlo.constant dense<1> : tensor<3xi32>
  %o = stablehlo.custom_call @chlo.ragged_dot(%l, %r, %g) {mhlo.attributes = {ragged_dot_dimension_numbers = [dense<> : tensor<0xi64>, dense<> : tensor<0xi64>, "x", dense<1> : tensor<1xi64>, dense<0> : tensor<1xi64>, dense<0> : tensor<1xi64>]}} : (tensor<7x3xf32>, tensor<3x3x2xf32>, tensor<3xi32>) -> tensor<7x2xf32>
  func.return
}

