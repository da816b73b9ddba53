// Verifier errors: each chunk breaks one rule of the StableHLO specification.
func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expect-error@+1: operand and result: shapes of tensor<3xf32> and tensor<2xf32> differ
  %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expect-error@+1: element types f64 and f32 differ
  %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xi1>) {
  // expect-error@+1: operands must have integer, float, complex, quantized elements
  %0 = stablehlo.subtract %a, %a : tensor<2xi1>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: operands must have boolean, integer elements
  %0 = stablehlo.and %a, %a : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: operands must have integer elements
  %0 = stablehlo.shift_left %a, %a : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xi32>) {
  // expect-error@+1: operands must have float, quantized elements
  %0 = stablehlo.floor %a : tensor<2xi32>
  return
}

// -----

func.func @f(%a: tensor<2xi32>) {
  // expect-error@+1: operands must have float, complex, quantized elements
  %0 = stablehlo.exponential %a : tensor<2xi32>
  return
}

// -----

func.func @f(%a: tensor<2xi1>) {
  // expect-error@+1: operand must have integer, float, complex, quantized elements
  %0 = stablehlo.abs %a : tensor<2xi1>
  return
}

// -----

func.func @f(%a: tensor<2xcomplex<f32>>) {
  // expect-error@+1: result of a complex abs must have the real part's element type
  %0 = "stablehlo.abs"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  return
}

// -----

func.func @f(%a: tensor<2xcomplex<f32>>) {
  // expect-error@+1: result element type must be f32
  %0 = "stablehlo.real"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  return
}

// -----

func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expect-error@+1: operands: shapes of tensor<2xf32> and tensor<3xf32> differ
  %0 = "stablehlo.complex"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xcomplex<f32>>
  return
}

// -----

func.func @f(%a: tensor<2xf16>) {
  // expect-error@+1: operands must be f32 or f64 and the result the matching complex type
  %0 = "stablehlo.complex"(%a, %a) : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xcomplex<f32>>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: result must have i1 elements
  %0 = "stablehlo.is_finite"(%a) : (tensor<2xf32>) -> tensor<2xi8>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: result must have i1 elements
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: requires 'comparison_direction' to be one of EQ, NE, GE, GT, LE, LT
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction XX>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: has an invalid 'compare_type'
  %0 = stablehlo.compare LT, %a, %a, WEIRD : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return
}

// -----

func.func @f(%p: tensor<2xi32>, %a: tensor<2xf32>) {
  // expect-error@+1: pred must have i1 elements
  %0 = stablehlo.select %p, %a, %a : tensor<2xi32>, tensor<2xf32>
  return
}

// -----

func.func @f(%p: tensor<3xi1>, %a: tensor<2xf32>) {
  // expect-error@+1: pred and on_true: shapes of tensor<3xi1> and tensor<2xf32> differ
  %0 = stablehlo.select %p, %a, %a : tensor<3xi1>, tensor<2xf32>
  return
}

// -----

func.func @f(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expect-error@+1: on_true and on_false differ
  %0 = "stablehlo.select"(%p, %a, %b) : (tensor<i1>, tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%m: tensor<3xf32>, %a: tensor<2xf32>) {
  // expect-error@+1: min and operand: shapes
  %0 = "stablehlo.clamp"(%m, %a, %m) : (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: operand and result: shapes of tensor<2xf32> and tensor<3xf32> differ
  %0 = stablehlo.convert %a : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: operand must have a trailing dimension of 2
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @f(%a: tensor<2xf64>) {
  // expect-error@+1: result must add a trailing dimension of 2
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf64>) -> tensor<2xi32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: exponent_bits must be at least 1, is 0
  %0 = stablehlo.reduce_precision %a, format = e0m10 : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: mantissa_bits must be non-negative, is -1
  %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = -1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: requires attribute 'exponent_bits'
  %0 = "stablehlo.reduce_precision"(%a) {mantissa_bits = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: attribute 'exponent_bits' must be an integer, got "x"
  %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = "x", mantissa_bits = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: requires attribute 'value'
  %0 = "stablehlo.constant"() : () -> tensor<f32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: 'value' must be a dense elements attribute
  %0 = "stablehlo.constant"() {value = 1.0 : f32} : () -> tensor<f32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: value type tensor<f32> differs from result type tensor<f64>
  %0 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f64>
  return
}

// -----

func.func @f() {
  // expect-error@+1: result must have rank at least 1
  %0 = stablehlo.iota dim = 0 : tensor<i32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: iota_dimension 2 is out of range for rank 1
  %0 = stablehlo.iota dim = 2 : tensor<4xi32>
  return
}

// -----

func.func @f(%n: tensor<1xi64>) {
  // expect-error@+1: iota_dimension 1 is out of range for rank 1
  %0 = stablehlo.dynamic_iota %n, dim = 1 : (tensor<1xi64>) -> tensor<3xi32>
  return
}

// -----

func.func @f(%n: tensor<2xi64>) {
  // expect-error@+1: output_shape tensor<2xi64> must be a 1-D tensor of 1 sizes
  %0 = stablehlo.dynamic_iota %n, dim = 0 : (tensor<2xi64>) -> tensor<3xi32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: result must have integer, float, complex, quantized elements
  %0 = stablehlo.iota dim = 0 : tensor<4xi1>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: broadcast_dimensions has 2 entries but the operand has rank 1
  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: broadcast_dimensions [2] out of range for rank 2
  %0 = stablehlo.broadcast_in_dim %a, dims = [2] : (tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x2xf32>) {
  // expect-error@+1: broadcast_dimensions [0, 0] repeats
  %0 = stablehlo.broadcast_in_dim %a, dims = [0, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: operand dimension 0 (2) is neither 1 nor result dimension 1 (3)
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: requires attribute 'broadcast_dimensions'
  %0 = "stablehlo.broadcast_in_dim"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: attribute 'broadcast_dimensions' must be a list of integers, got "x"
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = "x"} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: result rank must be operand rank plus the number of broadcast sizes
  %0 = stablehlo.broadcast %a, sizes = [3] : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expect-error@+1: operand has 6 elements but the result has 5
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expect-error@+1: permutation [0, 0] is not a permutation of rank 2
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expect-error@+1: result dimension 0 must be 3
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expect-error@+1: result rank differs from operand rank
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expect-error@+1: dimensions [2] must be unique and in [0, 2)
  %0 = stablehlo.reverse %a, dims = [2] : tensor<2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expect-error@+1: dimension 2 is out of range for rank 2
  %0 = stablehlo.concatenate %a, %a, dim = 2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expect-error@+1: operands differ in dimension 1
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expect-error@+1: operands must have the same rank
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expect-error@+1: result dimension 0 must be 4
  %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expect-error@+1: result rank differs from operand rank
  %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3x1xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: start_indices, limit_indices and strides must have one entry per dimension
  %0 = stablehlo.slice %a [0:2, 0:1] : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: slice [3:2:1] is invalid for dimension 0 of size 4
  %0 = stablehlo.slice %a [3:2] : (tensor<4xf32>) -> tensor<0xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: result dimension 0 must be 2
  %0 = stablehlo.slice %a [0:4:2] : (tensor<4xf32>) -> tensor<3xf32>
  return
}

// -----

// A result of lower rank (found by the HloModuleProto fuzzer: the check read past its shape).
func.func @f(%a: tensor<3x2xf32>) {
  // expect-error@+1: result rank differs from operand rank
  %0 = stablehlo.slice %a [0:1, 0:2] : (tensor<3x2xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<3x2xf32>, %v: tensor<f32>) {
  // expect-error@+1: result rank differs from operand rank
  %0 = stablehlo.pad %a, %v, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<3x2xf32>, tensor<f32>) -> tensor<6xf32>
  return
}

// -----

func.func @f(%a: tensor<3x2xf32>, %i: tensor<i32>) {
  // expect-error@+1: result rank differs from operand rank
  %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [1, 2] : (tensor<3x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %v: tensor<1xf32>) {
  // expect-error@+1: padding value must be a rank-0 tensor
  %0 = stablehlo.pad %a, %v, low = [0], high = [0], interior = [0] : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %v: tensor<f32>) {
  // expect-error@+1: padding lists must have one entry per dimension
  %0 = stablehlo.pad %a, %v, low = [0, 0], high = [0], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %v: tensor<f32>) {
  // expect-error@+1: interior_padding must be non-negative
  %0 = stablehlo.pad %a, %v, low = [0], high = [0], interior = [-1] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %v: tensor<f32>) {
  // expect-error@+1: padding makes dimension 0 negative
  %0 = stablehlo.pad %a, %v, low = [-5], high = [0], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<0xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %v: tensor<f32>) {
  // expect-error@+1: result dimension 0 must be 9
  %0 = stablehlo.pad %a, %v, low = [1], high = [1], interior = [1] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %i: tensor<i32>) {
  // expect-error@+1: expects 1 start indices, has 2
  %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [1] : (tensor<4xf32>, tensor<i32>, tensor<i32>) -> tensor<1xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %i: tensor<i32>) {
  // expect-error@+1: slice_sizes must have one entry per dimension
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [1, 1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %i: tensor<1xi32>) {
  // expect-error@+1: start indices must be rank-0 tensors
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [1] : (tensor<4xf32>, tensor<1xi32>) -> tensor<1xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %i: tensor<f32>) {
  // expect-error@+1: start indices must have integer elements
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [1] : (tensor<4xf32>, tensor<f32>) -> tensor<1xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %i: tensor<i32>) {
  // expect-error@+1: slice size 5 is out of range for dimension 0 of size 4
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [5] : (tensor<4xf32>, tensor<i32>) -> tensor<5xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %i: tensor<i32>) {
  // expect-error@+1: result dimension 0 must be 2
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [2] : (tensor<4xf32>, tensor<i32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %u: tensor<2x1xf32>, %i: tensor<i32>) {
  // expect-error@+1: update must have the operand's rank
  %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<4xf32>, tensor<2x1xf32>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %u: tensor<5xf32>, %i: tensor<i32>) {
  // expect-error@+1: update dimension 0 (5) exceeds operand (4)
  %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<4xf32>, tensor<5xf32>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) {
  // expect-error@+1: expects 1 start indices, has 2
  %0 = stablehlo.dynamic_update_slice %a, %u, %i, %i : (tensor<4xf32>, tensor<2xf32>, tensor<i32>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: dimension 1 is out of range for rank 1
  %0 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<4xf32>) -> tensor<i32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: result must be tensor<i32>
  %0 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<4xf32>) -> tensor<i64>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: requires a #stablehlo.dot 'dot_dimension_numbers' attribute
  %0 = "stablehlo.dot_general"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: lhs and rhs must have the same number of batching dims
  %0 = stablehlo.dot_general %a, %a, batching_dims = [0] x [], contracting_dims = [] x [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: lhs and rhs must have the same number of contracting dims
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: lhs batching/contracting dims [1] out of range for rank 1
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: lhs batching and contracting dims [0, 0] repeat
  %0 = stablehlo.dot_general %a, %a, batching_dims = [0] x [0], contracting_dims = [0] x [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x2xf32>, %b: tensor<3x2xf32>) {
  // expect-error@+1: batching dimension sizes differ: lhs 4 vs rhs 3
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expect-error@+1: contracting dimension sizes differ: lhs 4 vs rhs 3
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<4xf32>, tensor<3xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<4x2xf32>, %b: tensor<2x3xf32>) {
  // expect-error@+1: result shape must be [4, 3], is tensor<3x4xf32>
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: precision_config must have 0 or 2 entries
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0], precision = [DEFAULT] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: precision must be DEFAULT, HIGH or HIGHEST
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0], precision = [DEFAULT, FAST] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>) {
  // expect-error@+1: requires a #stablehlo.conv 'dimension_numbers' attribute
  %0 = "stablehlo.convolution"(%x, %w) : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>) {
  // expect-error@+1: dimension numbers lack 'input_feature_dimension'
  %0 = "stablehlo.convolution"(%x, %w) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0>} : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2xf32>) {
  // expect-error@+1: input, kernel and result must have one rank
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, i, o]->[b, 0, 1, f], window = {} : (tensor<1x4x4x2xf32>, tensor<3x3x2xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>) {
  // expect-error@+1: group counts must be positive
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f, 1]x[0, 1, i, o]->[b, 0, 1, f], window = {} {feature_group_count = 0 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>) {
  // expect-error@+1: window attributes need one entry per spatial dimension
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1]} : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>) {
  // expect-error@+1: window strides and dilations must be positive
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [0, 1]} : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x3x1xf32>) {
  // expect-error@+1: kernel input features (3) must be input features (2) / feature_group_count (1)
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} : (tensor<1x4x4x2xf32>, tensor<3x3x3x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>) {
  // expect-error@+1: result spatial dimension 0 must be 2
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x3x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x1xf32>) {
  // expect-error@+1: result features must be 1
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x2x2x5xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x3xf32>, %w: tensor<3x3x1x1xf32>) {
  // expect-error@+1: input features must be divisible by feature_group_count
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {feature_group_count = 2 : i64} : (tensor<1x4x4x3xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>, %z: tensor<f32>) {
  // expect-error@+1: dimensions [2] must be unique and in [0, 2)
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [2] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>, %z: tensor<f32>) {
  // expect-error@+1: result #0 must have shape [4]
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<8xf32>
  return
}

// -----

func.func @f(%x: tensor<4x8xf32>, %z: tensor<1xf32>) {
  // expect-error@+1: init values must be rank-0 tensors
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: body region result #0 must be tensor<f32>, is tensor<f64>
  %0 = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %s = stablehlo.add %a, %b : tensor<f32>
    %c = stablehlo.convert %s : (tensor<f32>) -> tensor<f64>
    stablehlo.return %c : tensor<f64>
  }
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: body region must return 1 values, returns 2
  %0 = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    stablehlo.return %a, %b : tensor<f32>, tensor<f32>
  }
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: body region must take 2 arguments, takes 1
  %0 = "stablehlo.reduce"(%x, %z) ({
  ^bb0(%a: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: body region must end with 'stablehlo.return'
  %0 = "stablehlo.reduce"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: body region must have exactly one block
  %0 = "stablehlo.reduce"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  ^bb1:
    stablehlo.return %a : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: expects 1 regions, has 0
  %0 = "stablehlo.reduce"(%x, %z) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: window_dimensions must have one entry per dimension
  %0 = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>} : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: window_dimensions must be positive
  %0 = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {window_dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: window_strides must be positive
  %0 = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: base_dilations must match the rank
  %0 = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {window_dimensions = array<i64: 2>, base_dilations = array<i64: 1, 1>} : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %s: tensor<2xf32>, %z: tensor<1xf32>) {
  // expect-error@+1: init value must be a rank-0 tensor
  %0 = "stablehlo.select_and_scatter"(%x, %s, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<4xf32>, tensor<2xf32>, tensor<1xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %y: tensor<5xf32>) {
  // expect-error@+1: inputs: shapes of tensor<5xf32> and tensor<4xf32> differ
  %0 = "stablehlo.map"(%x, %y) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expect-error@+1: dimension 1 is out of range for rank 1
  %0 = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expect-error@+1: comparator region result #0 must be tensor<i1>, is tensor<f32>
  %0 = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expect-error@+1: expects one result per operand
  %0:2 = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: offset_dims must be sorted and unique
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 0], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: collapsed_slice_dims must be sorted and unique
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [1, 0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: collapsed_slice_dims and operand_batching_dims must be unique operand dims
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [2], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: start_index_map must hold unique operand dims
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [5], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: index_vector_dim is out of range
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 3>, slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: operand_batching_dims and start_indices_batching_dims differ in size
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], operand_batching_dims = [1], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: start_index_map has 2 entries but the index vector has 1
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: slice_sizes must have one entry per operand dimension
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: slice size 5 is out of range for dimension 1
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 5>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: collapsed and batching dims must have slice size 0 or 1
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 2, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: result must have rank 2 with 1 offset dims
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: result dimension 1 must be 4
  %0 = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: requires a #stablehlo.gather 'dimension_numbers' attribute
  %0 = "stablehlo.gather"(%x, %i) {slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expect-error@+1: update_window_dims must be sorted and unique
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 0], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expect-error@+1: inserted_window_dims must be sorted and unique
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [1, 0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expect-error@+1: inserted_window_dims and input_batching_dims must be unique operand dims
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [7], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expect-error@+1: scatter_dims_to_operand_dims must hold unique operand dims
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [9], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expect-error@+1: index_vector_dim is out of range
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 4>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expect-error@+1: scatter_dims_to_operand_dims must match the index vector size
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expect-error@+1: update_window_dims must be dims of the updates
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expect-error@+1: operand rank must equal update_window_dims plus inserted and batching dims
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4xf32>) {
  // expect-error@+1: requires a #stablehlo.scatter 'scatter_dimension_numbers' attribute
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

// chlo.scan: the inputs' lengths along the dimension differ.
func.func @f(%a: tensor<3xf32>, %b: tensor<4xf32>, %c: tensor<f32>) {
  // expect-error@+1: input #1 has length 4 along dimension 0; the scan's length is 3
  %0:3 = chlo.scan(%a, %b) inits(%c) dimension=0 {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %z: tensor<f32>):
    stablehlo.return %x, %y, %z : tensor<f32>, tensor<f32>, tensor<f32>
  } : (tensor<3xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<f32>)
  return
}

// -----

// chlo.scan: the dimension is past the input's rank.
func.func @f(%a: tensor<3xf32>, %c: tensor<f32>) {
  // expect-error@+1: input #0 (tensor<3xf32>) has no dimension 1
  %0:2 = chlo.scan(%a) inits(%c) dimension=1 {
  ^bb0(%x: tensor<f32>, %z: tensor<f32>):
    stablehlo.return %x, %z : tensor<f32>, tensor<f32>
  } : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
  return
}

// -----

// chlo.scan: a final carry whose type is not its init's.
func.func @f(%a: tensor<3xf32>, %c: tensor<f32>) {
  // expect-error@+1: carry result #0 must have its init's type tensor<f32>, is tensor<f64>
  %0:2 = chlo.scan(%a) inits(%c) dimension=0 {
  ^bb0(%x: tensor<f32>, %z: tensor<f32>):
    stablehlo.return %x, %z : tensor<f32>, tensor<f32>
  } : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f64>)
  return
}

// -----

// chlo.scan: the body takes whole inputs instead of their slices.
func.func @f(%a: tensor<3x2xf32>, %c: tensor<2xf32>) {
  // expect-error@+1: body region argument #0 must be tensor<2xf32>, is tensor<3x2xf32>
  %0:2 = chlo.scan(%a) inits(%c) dimension=0 {
  ^bb0(%x: tensor<3x2xf32>, %z: tensor<2xf32>):
    stablehlo.return %z, %z : tensor<2xf32>, tensor<2xf32>
  } : (tensor<3x2xf32>, tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>)
  return
}

// -----

// chlo.scan: an output slice of the wrong type.
func.func @f(%a: tensor<3xi32>, %c: tensor<i32>) {
  // expect-error@+1: body region result #0 must be tensor<i32>, is tensor<i1>
  %0:2 = chlo.scan(%a) inits(%c) dimension=0 {
  ^bb0(%x: tensor<i32>, %z: tensor<i32>):
    %p = stablehlo.compare GT, %x, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p, %z : tensor<i1>, tensor<i32>
  } : (tensor<3xi32>, tensor<i32>) -> (tensor<3xi32>, tensor<i32>)
  return
}

// -----

// chlo.scan in the generic form: the result groups do not give one carry per init.
func.func @f(%a: tensor<3xi32>, %c: tensor<i32>) {
  // expect-error@+1: resultSegmentSizes must split the 2 results into outputs and one carry per init (1)
  %0:2 = "chlo.scan"(%a, %c) <{dimension = 0 : i64, operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 2, 0>}> ({
  ^bb0(%x: tensor<i32>, %z: tensor<i32>):
    stablehlo.return %x, %z : tensor<i32>, tensor<i32>
  }) : (tensor<3xi32>, tensor<i32>) -> (tensor<3xi32>, tensor<i32>)
  return
}

// -----

// chlo.scan with neither inputs nor outputs has no length.
func.func @f(%c: tensor<i32>) {
  // expect-error@+1: needs an input or an output to take its length from
  %0 = chlo.scan() inits(%c) dimension=0 {
  ^bb0(%z: tensor<i32>):
    stablehlo.return %z : tensor<i32>
  } : (tensor<i32>) -> tensor<i32>
  return
}

// -----

// chlo.scan in the generic form: operand groups that do not add up to the operands.
func.func @f(%a: tensor<3xi32>, %c: tensor<i32>) {
  // expect-error@+1: operandSegmentSizes must split the 2 operands into inputs and inits
  %0:2 = "chlo.scan"(%a, %c) <{dimension = 0 : i64, operandSegmentSizes = array<i32: 2, 1>, resultSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%x: tensor<i32>, %z: tensor<i32>):
    stablehlo.return %x, %z : tensor<i32>, tensor<i32>
  }) : (tensor<3xi32>, tensor<i32>) -> (tensor<3xi32>, tensor<i32>)
  return
}
