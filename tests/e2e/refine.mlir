// Shape refinement: functions written for dynamic sizes (JAX's shape-polymorphic exports) run
// once the entry point's static argument types and the program's shape arithmetic fix them.

// The pattern jax.export emits: @main has static types, computes the dimension variable with
// get_dimension_size and passes it to a function that builds shapes from it.
module @jit_f attributes {jax.uses_shape_polymorphism = true} {
  func.func public @main() {
    %x = stablehlo.iota dim = 0 : tensor<3x4xf32>
    %r = call @poly(%x) : (tensor<3x4xf32>) -> tensor<?x4xf32>
    %s = call @poly(%x) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    check.expect_eq_const %s, dense<[[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0]]> : tensor<3x4xf32>
    %n = stablehlo.get_dimension_size %r, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    check.expect_eq_const %n, dense<3> : tensor<i32>
    func.return
  }
  func.func private @poly(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<i64>
    %2 = call @_wrapped_jax_export_main(%1, %arg0) : (tensor<i64>, tensor<?x4xf32>) -> tensor<?x4xf32>
    return %2 : tensor<?x4xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i64> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    %0 = stablehlo.convert %arg0 : (tensor<i64>) -> tensor<i32>
    %1 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
    %c4 = stablehlo.constant dense<4> : tensor<1xi32>
    %2 = stablehlo.concatenate %1, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %3 = stablehlo.dynamic_broadcast_in_dim %c, %2, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x4xf32>
    %4 = stablehlo.add %arg1, %3 : tensor<?x4xf32>
    return %4 : tensor<?x4xf32>
  }
}

// -----

// One polymorphic function called with two shapes gets one copy per shape.
func.func @main() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %ra = func.call @total(%a) : (tensor<2xf32>) -> tensor<f32>
  %rb = func.call @total(%b) : (tensor<5xf32>) -> tensor<f32>
  check.expect_eq_const %ra, dense<3.0> : tensor<f32>
  check.expect_eq_const %rb, dense<15.0> : tensor<f32>
  %da = func.call @double(%a) : (tensor<2xf32>) -> tensor<?xf32>
  %db = func.call @double(%b) : (tensor<5xf32>) -> tensor<?xf32>
  %sa = stablehlo.get_dimension_size %da, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %sb = stablehlo.get_dimension_size %db, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  check.expect_eq_const %sa, dense<4> : tensor<i32>
  check.expect_eq_const %sb, dense<10> : tensor<i32>
  func.return
}
func.func private @total(%x: tensor<?xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<?xf32>, tensor<f32>) -> tensor<f32>
  return %s : tensor<f32>
}
// concatenate x with itself, through dynamic ops: the length is computed, not declared.
func.func private @double(%x: tensor<?xf32>) -> tensor<?xf32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %m = stablehlo.multiply %n, %two : tensor<i32>
  %m1 = stablehlo.reshape %m : (tensor<i32>) -> tensor<1xi32>
  %io = stablehlo.dynamic_iota %m1, dim = 0 : (tensor<1xi32>) -> tensor<?xf32>
  %c = stablehlo.concatenate %x, %x, dim = 0 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %r = stablehlo.add %c, %io : tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Shape arithmetic as jax.export writes x.reshape(b // 2, 2 * 3): floor division through sign,
// select and compare, then dynamic_reshape; dot_general, transpose, slice and pad on the result.
func.func @main() {
  %x = stablehlo.iota dim = 0 : tensor<4x3xf32>
  %r = func.call @f(%x) : (tensor<4x3xf32>) -> tensor<?x?xf32>
  %n0 = stablehlo.get_dimension_size %r, dim = 0 : (tensor<?x?xf32>) -> tensor<i32>
  %n1 = stablehlo.get_dimension_size %r, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  check.expect_eq_const %n0, dense<6> : tensor<i32>
  check.expect_eq_const %n1, dense<6> : tensor<i32>
  %t = func.call @g(%x) : (tensor<4x3xf32>) -> tensor<3x6xf32>
  check.expect_eq_const %t, dense<[[0.0, 0.0, 0.0, 1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0, 2.0, 3.0]]> : tensor<3x6xf32>
  func.return
}
func.func private @f(%arg0: tensor<?x3xf32>) -> tensor<?x?xf32> {
  %b = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %b64 = stablehlo.convert %b : (tensor<i32>) -> tensor<i64>
  %two = stablehlo.constant dense<2> : tensor<i64>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %q = stablehlo.divide %b64, %two : tensor<i64>
  %sa = stablehlo.sign %b64 : tensor<i64>
  %sb = stablehlo.sign %two : tensor<i64>
  %ne = stablehlo.compare NE, %sa, %sb, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %rem = stablehlo.remainder %b64, %two : tensor<i64>
  %rnz = stablehlo.compare NE, %rem, %zero, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %adj = stablehlo.and %ne, %rnz : tensor<i1>
  %qm1 = stablehlo.subtract %q, %one : tensor<i64>
  %fd = stablehlo.select %adj, %qm1, %q : tensor<i1>, tensor<i64>
  %fd1 = stablehlo.reshape %fd : (tensor<i64>) -> tensor<1xi64>
  %six = stablehlo.constant dense<6> : tensor<1xi64>
  %shape = stablehlo.concatenate %fd1, %six, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %y = stablehlo.dynamic_reshape %arg0, %shape : (tensor<?x3xf32>, tensor<2xi64>) -> tensor<?x6xf32>
  %yt = stablehlo.transpose %y, dims = [1, 0] : (tensor<?x6xf32>) -> tensor<6x?xf32>
  %d = stablehlo.dot_general %yt, %y, contracting_dims = [1] x [0] : (tensor<6x?xf32>, tensor<?x6xf32>) -> tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}
func.func private @g(%arg0: tensor<?x3xf32>) -> tensor<3x?xf32> {
  %t = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<?x3xf32>) -> tensor<3x?xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.pad %t, %z, low = [0, 1], high = [0, 1], interior = [0, 0] : (tensor<3x?xf32>, tensor<f32>) -> tensor<3x?xf32>
  %s = stablehlo.slice %p [0:3, 0:6] : (tensor<3x?xf32>) -> tensor<3x?xf32>
  %n = stablehlo.get_dimension_size %s, dim = 1 : (tensor<3x?xf32>) -> tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %z32 = stablehlo.constant dense<0> : tensor<i32>
  %lo = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
  %hi = stablehlo.constant dense<[0, 0]> : tensor<2xi32>
  %in = stablehlo.constant dense<[0, 0]> : tensor<2xi32>
  %q = stablehlo.dynamic_pad %s, %z, %lo, %hi, %in : (tensor<3x?xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<3x?xf32>
  %st = stablehlo.constant dense<[0, 0]> : tensor<2xi32>
  %nm1 = stablehlo.add %n, %z32 : tensor<i32>
  %nm11 = stablehlo.reshape %nm1 : (tensor<i32>) -> tensor<1xi32>
  %three = stablehlo.constant dense<[3]> : tensor<1xi32>
  %lim = stablehlo.concatenate %three, %nm11, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %str = stablehlo.constant dense<[1, 1]> : tensor<2xi32>
  %r = stablehlo.real_dynamic_slice %q, %st, %lim, %str : (tensor<3x?xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// -----

// Loops, conditionals, gathers, windows and convolutions over dynamic sizes; a shape assertion
// that holds.
func.func @main() {
  %x = stablehlo.iota dim = 0 : tensor<5xf32>
  %r:2 = func.call @loop(%x) : (tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>)
  check.expect_eq_const %r#0, dense<[0.0, 3.0, 6.0, 9.0, 12.0]> : tensor<5xf32>
  check.expect_eq_const %r#1, dense<[0.0, 1.0, 3.0, 6.0, 10.0]> : tensor<5xf32>
  %img = stablehlo.constant dense<1.0> : tensor<1x4x4x1xf32>
  %c = func.call @conv(%img) : (tensor<1x4x4x1xf32>) -> tensor<1x2x2x1xf32>
  check.expect_eq_const %c, dense<[[[[4.0], [4.0]], [[4.0], [4.0]]]]> : tensor<1x2x2x1xf32>
  func.return
}
func.func private @loop(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %ok = stablehlo.compare GT, %n, %i0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {error_message = "expected a non-empty vector, got {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %w:2 = stablehlo.while(%i = %i0, %acc = %x) : tensor<i32>, tensor<?xf32>
  cond {
    %three = stablehlo.constant dense<2> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %ni = stablehlo.add %i, %one : tensor<i32>
    %na = stablehlo.add %acc, %x : tensor<?xf32>
    stablehlo.return %ni, %na : tensor<i32>, tensor<?xf32>
  }
  // Inclusive prefix sums through reduce_window over the dynamic length.
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %cs = "stablehlo.reduce_window"(%x, %z) <{window_dimensions = array<i64: 5>, padding = dense<[[4, 0]]> : tensor<1x2xi64>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %pos = stablehlo.compare GT, %n, %i0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %sel = "stablehlo.if"(%pos) ({
    stablehlo.return %cs : tensor<?xf32>
  }, {
    stablehlo.return %x : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  return %w#1, %sel : tensor<?xf32>, tensor<?xf32>
}
func.func private @conv(%x: tensor<1x?x?x1xf32>) -> tensor<1x?x?x1xf32> {
  %k = stablehlo.constant dense<1.0> : tensor<2x2x1x1xf32>
  %y = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x?x?x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x?x?x1xf32>
  return %y : tensor<1x?x?x1xf32>
}

// -----

// dynamic_gather with a computed slice size, and chlo's implicit broadcasting.
func.func @main() {
  %x = stablehlo.iota dim = 0 : tensor<6xi32>
  %r = func.call @g(%x) : (tensor<6xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %r, dense<[[4, 5, 6], [2, 3, 4]]> : tensor<2x3xi32>
  func.return
}
func.func private @g(%x: tensor<?xi32>) -> tensor<?x?xi32> {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xi32>) -> tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %half = stablehlo.divide %n, %two : tensor<i32>
  %sz = stablehlo.reshape %half : (tensor<i32>) -> tensor<1xi32>
  %idx = stablehlo.constant dense<[[3], [1]]> : tensor<2x1xi32>
  %g = "stablehlo.dynamic_gather"(%x, %idx, %sz) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>}> : (tensor<?xi32>, tensor<2x1xi32>, tensor<1xi32>) -> tensor<?x?xi32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %b = chlo.broadcast_add %g, %one : (tensor<?x?xi32>, tensor<i32>) -> tensor<?x?xi32>
  return %b : tensor<?x?xi32>
}
