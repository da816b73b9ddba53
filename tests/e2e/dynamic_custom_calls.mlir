// The custom calls jax.export emits when a size is symbolic (stablehlo's dynamic experiments:
// @stablehlo.dynamic_top_k, dynamic_approx_top_k, dynamic_reduce_window,
// dynamic_rng_bit_generator). Once refinement or folding fixes their size operands they run as
// the static ops, and each result is checked against that static op.

// top_k with k = the row length - 1, computed the way JAX does (get_dimension_size, subtract),
// inside a function written for a dynamic row length.
module @dynamic_top_k attributes {jax.uses_shape_polymorphism = true} {
  func.func public @main() {
    %x = stablehlo.constant dense<[[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]]> : tensor<2x5xf32>
    %r:2 = call @top(%x) : (tensor<2x5xf32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)
    %v, %i = chlo.top_k(%x, k = 4) : tensor<2x5xf32> -> (tensor<2x4xf32>, tensor<2x4xi32>)
    %rv = stablehlo.reshape %r#0 : (tensor<2x?xf32>) -> tensor<2x4xf32>
    %ri = stablehlo.reshape %r#1 : (tensor<2x?xi32>) -> tensor<2x4xi32>
    check.expect_eq %rv, %v : tensor<2x4xf32>
    check.expect_eq %ri, %i : tensor<2x4xi32>
    check.expect_eq_const %rv, dense<[[5.0, 4.0, 3.0, 1.0], [9.0, 6.0, 5.0, 3.0]]> : tensor<2x4xf32>
    func.return
  }
  func.func private @top(%a: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xi32>) {
    %n = stablehlo.get_dimension_size %a, dim = 1 : (tensor<2x?xf32>) -> tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %k = stablehlo.subtract %n, %one : tensor<i32>
    %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%a, %k) {api_version = 2 : i32} : (tensor<2x?xf32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)
    return %r#0, %r#1 : tensor<2x?xf32>, tensor<2x?xi32>
  }
}

// -----

// With static types and a constant k (ui64), as stablehlo's own tests write it.
func.func @main() {
  %x = stablehlo.constant dense<[2, 7, -1, 7, 0, 8]> : tensor<6xi32>
  %k = stablehlo.constant dense<3> : tensor<ui64>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<6xi32>, tensor<ui64>) -> (tensor<3xi32>, tensor<3xi32>)
  check.expect_eq_const %r#0, dense<[8, 7, 7]> : tensor<3xi32>
  check.expect_eq_const %r#1, dense<[5, 1, 3]> : tensor<3xi32>
  func.return
}

// -----

// approx_max_k with a symbolic k: the CPU fallback sorts with the comparator and keeps k.
module @dynamic_approx_top_k attributes {jax.uses_shape_polymorphism = true} {
  func.func public @main() {
    %x = stablehlo.constant dense<[[0.5, 3.0, -1.0, 2.0, 7.0, 1.0, 0.0, 4.0], [1.0, 1.0, 2.0, 0x7F800000, -2.0, 0.0, 5.0, 3.0]]> : tensor<2x8xf32>
    %r:2 = call @approx(%x) : (tensor<2x8xf32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)
    %rv = stablehlo.reshape %r#0 : (tensor<2x?xf32>) -> tensor<2x3xf32>
    %ri = stablehlo.reshape %r#1 : (tensor<2x?xi32>) -> tensor<2x3xi32>
    check.expect_eq_const %rv, dense<[[7.0, 4.0, 3.0], [0x7F800000, 5.0, 3.0]]> : tensor<2x3xf32>
    check.expect_eq_const %ri, dense<[[4, 7, 1], [3, 6, 7]]> : tensor<2x3xi32>
    func.return
  }
  func.func private @approx(%a: tensor<2x8xf32>) -> (tensor<2x?xf32>, tensor<2x?xi32>) {
    %init0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %init1 = stablehlo.constant dense<-1> : tensor<i32>
    %iota = stablehlo.iota dim = 1 : tensor<2x8xi32>
    %n = stablehlo.get_dimension_size %a, dim = 1 : (tensor<2x8xf32>) -> tensor<i32>
    %five = stablehlo.constant dense<5> : tensor<i32>
    %k = stablehlo.subtract %n, %five : tensor<i32>
    %r:2 = stablehlo.custom_call @stablehlo.dynamic_approx_top_k(%a, %iota, %init0, %init1, %k) {
      called_computations = [@gt_comparator],
      mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.95 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64}
    } : (tensor<2x8xf32>, tensor<2x8xi32>, tensor<f32>, tensor<i32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)
    return %r#0, %r#1 : tensor<2x?xf32>, tensor<2x?xi32>
  }
  func.func private @gt_comparator(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<i1> {
    %0 = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    return %0 : tensor<i1>
  }
}

// -----

// reduce_window with every window parameter an operand: stablehlo's example (strides, both
// dilations, low and high padding) against the static op, and jax.numpy's cumsum-like window
// whose sizes JAX builds with reshapes and concatenations.
module @dynamic_reduce_window attributes {jax.uses_shape_polymorphism = true} {
  func.func public @main() {
    %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %w = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
    %s = stablehlo.constant dense<[4, 1]> : tensor<2xi64>
    %bd = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
    %wd = stablehlo.constant dense<[3, 1]> : tensor<2xi64>
    %p = stablehlo.constant dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>
    %d = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %z, %w, %s, %bd, %wd, %p) {called_computations = [@sum]} : (tensor<3x2xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2x2xi64>) -> tensor<2x2xf32>
    %r = "stablehlo.reduce_window"(%x, %z) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %0 = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %0 : tensor<f32>
    }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>, base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 3, 1>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> tensor<2x2xf32>
    check.expect_eq %d, %r : tensor<2x2xf32>
    check.expect_eq_const %d, dense<[[0.0, 0.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %y = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi32>
    %c = call @prefix(%y) : (tensor<3x4xi32>) -> tensor<?x4xi32>
    %cs = stablehlo.reshape %c : (tensor<?x4xi32>) -> tensor<3x4xi32>
    check.expect_eq_const %cs, dense<[[1, 2, 3, 4], [6, 8, 10, 12], [15, 18, 21, 24]]> : tensor<3x4xi32>
    func.return
  }
  func.func private @prefix(%a: tensor<?x4xi32>) -> tensor<?x4xi32> {
    %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x4xi32>) -> tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
    %o1 = stablehlo.reshape %one : (tensor<i32>) -> tensor<1xi32>
    %win = stablehlo.concatenate %n1, %o1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %ones = stablehlo.concatenate %o1, %o1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %lo = stablehlo.subtract %n, %one : tensor<i32>
    %lo1 = stablehlo.reshape %lo : (tensor<i32>) -> tensor<1xi32>
    %z1 = stablehlo.reshape %zero : (tensor<i32>) -> tensor<1xi32>
    %pad4 = stablehlo.concatenate %lo1, %z1, %z1, %z1, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
    %pad = stablehlo.reshape %pad4 : (tensor<4xi32>) -> tensor<2x2xi32>
    %r = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%a, %zero, %win, %ones, %ones, %ones, %pad) {api_version = 2 : i32, called_computations = [@isum]} : (tensor<?x4xi32>, tensor<i32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x4xi32>
    return %r : tensor<?x4xi32>
  }
  func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.add %a, %b : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @isum(%a: tensor<i32>, %b: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.add %a, %b : tensor<i32>
    return %0 : tensor<i32>
  }
}

// -----

// rng_bit_generator whose output shape is an operand, against the static op on the same state.
func.func @main() {
  %state = stablehlo.constant dense<[7, 12345]> : tensor<2xui64>
  %shape = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
  %d:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%state, %shape) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<2xi64>) -> (tensor<2xui64>, tensor<3x2xui32>)
  %s0, %s1 = stablehlo.rng_bit_generator %state, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x2xui32>)
  check.expect_eq %d#0, %s0 : tensor<2xui64>
  check.expect_eq %d#1, %s1 : tensor<3x2xui32>
  %p3 = stablehlo.constant dense<[3, 1, 4]> : tensor<3xui64>
  %dp:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%p3, %shape) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>, tensor<2xi64>) -> (tensor<3xui64>, tensor<3x2xui64>)
  %sp0, %sp1 = stablehlo.rng_bit_generator %p3, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<3x2xui64>)
  check.expect_eq %dp#0, %sp0 : tensor<3xui64>
  check.expect_eq %dp#1, %sp1 : tensor<3x2xui64>
  func.return
}
