// Shape refinement errors: each names the op, its location and the sizes involved.
// expect-fail: shape assertion failed: expected a non-empty vector, got 0
func.func @main() {
  %x = stablehlo.constant dense<> : tensor<0xf32>
  %r = func.call @f(%x) : (tensor<0xf32>) -> tensor<?xf32>
  func.return
}
func.func private @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %ok = stablehlo.compare GT, %n, %i0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "expected a non-empty vector, got {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  return %x : tensor<?xf32>
}

// -----

// expect-fail: result #0 has type tensor<?x4xf32> but its operands make it 3x5 (dimension 1)
func.func @main() {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %s = stablehlo.constant dense<[3, 5]> : tensor<2xi64>
  %b = stablehlo.dynamic_broadcast_in_dim %c, %s, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x4xf32>
  func.return
}

// -----

// expect-fail: would get the negative size -2 in dimension 0
func.func @main() {
  %s = stablehlo.constant dense<[-2]> : tensor<1xi32>
  %b = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  func.return
}

// -----

// A size that depends on data computed at run time cannot be refined.
// expect-fail: dynamic shape tensor<?xf32> must be refined to a static shape before execution
func.func @main() {
  %f = stablehlo.constant dense<3.0> : tensor<f32>
  %i = stablehlo.convert %f : (tensor<f32>) -> tensor<i32>
  %s = stablehlo.reshape %i : (tensor<i32>) -> tensor<1xi32>
  %b = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  func.return
}

// -----

// A call whose argument contradicts the callee's static dimension is refused by the verifier.
// expect-fail: argument #0 has type tensor<3x5xf32> but @f takes tensor<?x4xf32>
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<3x5xf32>
  %r = func.call @f(%x) : (tensor<3x5xf32>) -> tensor<?x4xf32>
  func.return
}
func.func private @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

