// Verifier errors in control flow, functions, calls, tuples and the remaining ops.
func.func @f(%x: tensor<i32>) {
  // expect-error@+1: cond region result #0 must be tensor<i1>, is tensor<i32>
  %0 = stablehlo.while(%it = %x) : tensor<i32>
    cond {
      stablehlo.return %it : tensor<i32>
    } do {
      stablehlo.return %it : tensor<i32>
    }
  return
}

// -----

func.func @f(%x: tensor<i32>) {
  // expect-error@+1: result #0 must have the operand's type tensor<i32>
  %0 = "stablehlo.while"(%x) ({
  ^bb0(%i: tensor<i32>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>):
    stablehlo.return %i : tensor<i32>
  }) : (tensor<i32>) -> tensor<i64>
  return
}

// -----

func.func @f(%x: tensor<i32>) {
  // expect-error@+1: expects one result per operand
  %0:2 = "stablehlo.while"(%x) ({
  ^bb0(%i: tensor<i32>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%i: tensor<i32>):
    stablehlo.return %i : tensor<i32>
  }) : (tensor<i32>) -> (tensor<i32>, tensor<i32>)
  return
}

// -----

func.func @f(%x: tensor<i32>) {
  // expect-error@+1: body region argument #0 must be tensor<i32>, is tensor<i64>
  %0 = "stablehlo.while"(%x) ({
  ^bb0(%i: tensor<i32>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%i: tensor<i64>):
    stablehlo.return %x : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return
}

// -----

func.func @f(%p: tensor<2xi1>, %x: tensor<f32>) {
  // expect-error@+1: pred must be tensor<i1>
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<f32>
  }, {
    stablehlo.return %x : tensor<f32>
  }) : (tensor<2xi1>) -> tensor<f32>
  return
}

// -----

func.func @f(%p: tensor<i1>, %x: tensor<f32>, %y: tensor<i32>) {
  // expect-error@+1: branch region result #0 must be tensor<f32>, is tensor<i32>
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<f32>
  }, {
    stablehlo.return %y : tensor<i32>
  }) : (tensor<i1>) -> tensor<f32>
  return
}

// -----

func.func @f(%k: tensor<i64>, %x: tensor<f32>) {
  // expect-error@+1: index must be tensor<i32>
  %0 = "stablehlo.case"(%k) ({
    stablehlo.return %x : tensor<f32>
  }) : (tensor<i64>) -> tensor<f32>
  return
}

// -----

func.func @f(%k: tensor<i32>, %x: tensor<f32>) {
  // expect-error@+1: needs at least one branch
  %0 = "stablehlo.case"(%k) : (tensor<i32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: result #0 must have the operand's type
  %0 = "stablehlo.optimization_barrier"(%x) : (tensor<f32>) -> tensor<i32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: expects one result per operand
  %0:2 = "stablehlo.optimization_barrier"(%x) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: result must be tuple<tensor<f32>>
  %0 = "stablehlo.tuple"(%x) : (tensor<f32>) -> tuple<tensor<i32>>
  return
}

// -----

func.func @f(%t: tuple<tensor<f32>>) {
  // expect-error@+1: index 1 is out of range for tuple<tensor<f32>>
  %0 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>>) -> tensor<f32>
  return
}

// -----

func.func @f(%t: tuple<tensor<f32>>) {
  // expect-error@+1: result must be tensor<f32>
  %0 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>>) -> tensor<i32>
  return
}

// -----

func.func @f(%t: tensor<f32>) {
  // expect-error@+1: operand must be a tuple
  %0 = "stablehlo.get_tuple_element"(%t) {index = 0 : i32} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+2: 'stablehlo.return' must be the last op of its block
  stablehlo.return %x : tensor<f32>
  return
}

// -----

// expect-error@+1: must be inside a region
stablehlo.return

// -----

func.func @f(%x: tensor<f32>) -> tensor<f32> {
  // expect-error@+1: returns 0 values but @f declares 1
  return
}

// -----

func.func @f(%x: tensor<f32>) -> tensor<i32> {
  // expect-error@+1: result #0 has type tensor<f32> but @f declares tensor<i32>
  return %x : tensor<f32>
}

// -----

func.func @f(%x: tensor<f32>) -> tensor<i32> {
  // expect-error@+2: 'func.return' must be the last op of its block
  return %x : tensor<f32>
  %0 = stablehlo.abs %x : tensor<f32>
}

// -----

// expect-error@+1: body must end with 'func.return'
func.func @f(%x: tensor<f32>) {
  %0 = stablehlo.abs %x : tensor<f32>
}

// -----

func.func @f(%x: tensor<f32>) -> tensor<i32> {
  // expect-error@+1: returned types do not match the function type
  stablehlo.return %x : tensor<f32>
}

// -----

// expect-error@+1: entry block arguments must match the function type
"func.func"() ({
^bb0(%a: tensor<f32>, %b: tensor<f32>):
  "func.return"() : () -> ()
}) {sym_name = "f", function_type = (tensor<f32>) -> ()} : () -> ()

// -----

// expect-error@+1: requires a 'sym_name' string attribute
"func.func"() ({
  "func.return"() : () -> ()
}) {function_type = () -> ()} : () -> ()

// -----

// expect-error@+1: requires a 'function_type' attribute holding a function type
"func.func"() ({
  "func.return"() : () -> ()
}) {sym_name = "f", function_type = tensor<f32>} : () -> ()

// -----

func.func @f() {
  return
}
// expect-error@+1: redefines symbol '@f'
func.func @f() {
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: calls undefined function '@g'
  %0 = call @g(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @g(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @f(%x: tensor<f32>) {
  // expect-error@+1: passes 2 arguments to @g which takes 1
  %0 = call @g(%x, %x) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @g(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @f(%x: tensor<i32>) {
  // expect-error@+1: argument #0 has type tensor<i32> but @g takes tensor<f32>
  %0 = call @g(%x) : (tensor<i32>) -> tensor<f32>
  return
}

// -----

func.func @g(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @f(%x: tensor<f32>) {
  // expect-error@+1: @g returns 1 values
  %0:2 = call @g(%x) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @g(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @f(%x: tensor<f32>) {
  // expect-error@+1: result #0 must be tensor<f32>
  %0 = call @g(%x) : (tensor<f32>) -> tensor<i32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: requires a 'callee' symbol
  %0 = "func.call"(%x) {callee = "g"} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: requires a 'decomposition' symbol
  %0 = stablehlo.composite "x" %x : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: decomposition '@nope' is not defined
  %0 = stablehlo.composite "x" %x {decomposition = @nope} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @g(%x: tensor<f32>) -> tensor<i32> {
  %0 = stablehlo.convert %x : (tensor<f32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func @f(%x: tensor<f32>) {
  // expect-error@+1: types do not match decomposition @g
  %0 = stablehlo.composite "x" %x {decomposition = @g} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: requires a 'call_target_name' string
  %0 = "stablehlo.custom_call"(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%s: tensor<2xui64>) {
  // expect-error@+1: requires 'rng_algorithm' DEFAULT, THREE_FRY or PHILOX
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = MERSENNE : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return
}

// -----

func.func @f(%s: tensor<2xui64>) {
  // expect-error@+1: initial state and output state differ
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  return
}

// -----

func.func @f(%c: tensor<4xcomplex<f32>>) {
  // expect-error@+1: requires 'fft_type' FFT, IFFT, RFFT or IRFFT
  %0 = stablehlo.fft %c, type = DCT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @f(%c: tensor<4xcomplex<f32>>) {
  // expect-error@+1: fft_length must have 1 to 3 entries
  %0 = stablehlo.fft %c, type = FFT, length = [] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @f(%c: tensor<4xcomplex<f32>>) {
  // expect-error@+1: fft_length exceeds the operand rank
  %0 = stablehlo.fft %c, type = FFT, length = [4, 4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @f(%a: tensor<3x4xf32>) {
  // expect-error@+1: operand must be a batch of square matrices
  %0 = stablehlo.cholesky %a, lower = true : tensor<3x4xf32>
  return
}

// -----

func.func @f(%a: tensor<3x3xi32>) {
  // expect-error@+1: operand must have float, complex elements
  %0 = stablehlo.cholesky %a, lower = true : tensor<3x3xi32>
  return
}

// -----

func.func @f(%a: tensor<3x4xf32>, %b: tensor<3x2xf32>) {
  // expect-error@+1: a must be a batch of square matrices with b's rank
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x4xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expect-error@+1: feature_index 2 is out of range for rank 2
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expect-error@+1: result must have a quantized element type
  %0 = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2xi8>
  return
}

// -----

func.func @f(%x: tensor<2xi8>) {
  // expect-error@+1: operand must have a quantized element type
  %0 = stablehlo.uniform_dequantize %x : (tensor<2xi8>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%x: tensor<2x!quant.uniform<i8:f32, 1.0>>) {
  // expect-error@+1: result element type must be the quantized type's expressed type
  %0 = stablehlo.uniform_dequantize %x : (tensor<2x!quant.uniform<i8:f32, 1.0>>) -> tensor<2xf16>
  return
}

// -----

func.func @f() {
  // expect-error@+1: result must be tensor<ui32>
  %0 = stablehlo.replica_id : tensor<i32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expect-error@+1: computation region argument #0 must be tensor<f32>, is tensor<i32>
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %a : tensor<i32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %y: tensor<5xf32>) {
  // expect-error@+1: actual and expected differ
  check.expect_eq %x, %y : tensor<4xf32>, tensor<5xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expect-error@+1: requires a dense 'value'
  "check.expect_eq_const"(%x) : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expect-error@+1: value type differs from the operand type
  "check.expect_eq_const"(%x) {value = dense<1.0> : tensor<4xf64>} : (tensor<4xf32>) -> ()
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expect-error@+1: k = 5 exceeds the last dimension 4
  %0:2 = chlo.top_k(%x, k = 5) : tensor<4xf32> -> (tensor<5xf32>, tensor<5xi32>)
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: operand must have rank at least 1
  %0:2 = chlo.top_k(%x, k = 1) : tensor<f32> -> (tensor<1xf32>, tensor<1xi32>)
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: expects 2 operands, has 1
  %0 = "stablehlo.add"(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: expects at least 1 operands, has 0
  %0 = "stablehlo.concatenate"() {dimension = 0 : i64} : () -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: expects 1 results, has 2
  %0:2 = "stablehlo.abs"(%x) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: is not a known operation
  %0 = "stablehlo.frobnicate"(%x) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: !stablehlo.token) {
  // expect-error@+1: operand #0 must be a tensor, got !stablehlo.token
  %0 = "stablehlo.abs"(%x) : (!stablehlo.token) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<f32>) {
  // expect-error@+1: result #0 must be a tensor, got !stablehlo.token
  %0 = "stablehlo.abs"(%x) : (tensor<f32>) -> !stablehlo.token
  return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expect-error@+1: does not convert quantized types
  %0 = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

// expect-error@+1: must be inside a function
%0 = stablehlo.constant dense<1.0> : tensor<f32>

// -----

func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x1xf32>) {
  // expect-error@+1: b's columns must match a's size 2
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = false, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x1xf32>) {
  // expect-error@+1: requires a boolean 'left_side'
  %0 = "stablehlo.triangular_solve"(%a, %b) {lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x1xf32>) {
  // expect-error@+1: requires 'transpose_a' NO_TRANSPOSE, TRANSPOSE or ADJOINT
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false} : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<2x3x2xi32>, %i: tensor<2x1xi64>) {
  // expect-error@+1: start_indices_batching_dims must be unique dims of the indices other than index_vector_dim
  %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [5], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1, 2>} : (tensor<2x3x2xi32>, tensor<2x1xi64>) -> tensor<2x2xi32>
  return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) {
  // expect-error@+1: scatter_indices_batching_dims must be unique dims of the indices other than index_vector_dim
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>} : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%x: tensor<2x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) {
  // expect-error@+1: input_batching_dims and scatter_indices_batching_dims differ in size
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>} : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expect-error@+1: operand and result: shapes of tensor<4xf32> and tensor<3xf32> differ
  %0 = chlo.erf %x : tensor<4xf32> -> tensor<3xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>) {
  // expect-error@+1: result must have i1 elements
  %0 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %i: tensor<2x1xi32>, %u: tensor<3xf32>) {
  // expect-error@+1: updates dimension 0 must be 2 (the indices' batch size)
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xf32>, tensor<2x1xi32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<4x2xf32>, %i: tensor<2x1xi32>, %u: tensor<2x2xf32>) {
  // expect-error@+1: update_window_dims must be dims of the updates
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [7], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x2xf32>, tensor<2x1xi32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x1xf32>, %w: tensor<2x1x1xf32>) {
  // expect-error@+1: window_reversal needs one entry per spatial dimension
  %0 = "stablehlo.convolution"(%x, %w) {dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, window_reversal = array<i1: true, false>} : (tensor<1x4x1xf32>, tensor<2x1x1xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

func.func @f(%x: tensor<3x4xf32>, %i: tensor<2x1xi32>, %u: tensor<2x4x1xf32>) {
  // expect-error@+1: updates must have rank 2, have 3
  %0 = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2x4x1xf32>) -> tensor<3x4xf32>
  return
}
