// reduce with one binary op over every arrangement of kept and reduced dimensions (contiguous
// runs, strided columns, outer and inner reductions, the index-mapped fallback) and long rows that
// take the 16-lane path. Expected values computed with numpy; the data are small integers, so
// every order of accumulation gives the exact result.
func.func @reduce_add_i32_dims_3() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.add %xi, %zero : tensor<2x3x4x40xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [3] : (tensor<2x3x4x40xi32>, tensor<i32>) -> tensor<2x3x4xi32>
  check.expect_eq_const %r, dense<[[[-51, -15, 21, 34], [-45, -9, 27, 17], [-39, -3, 33, 0]], [[-33, 3, 39, -17], [-27, 9, 45, -34], [-21, 15, 51, -51]]]> : tensor<2x3x4xi32>
  func.return
}

// -----

func.func @reduce_add_f32_dims_3() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.convert %xi : (tensor<2x3x4x40xi32>) -> tensor<2x3x4x40xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [3] : (tensor<2x3x4x40xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  check.expect_eq_const %r, dense<[[[-51, -15, 21, 34], [-45, -9, 27, 17], [-39, -3, 33, 0]], [[-33, 3, 39, -17], [-27, 9, 45, -34], [-21, 15, 51, -51]]]> : tensor<2x3x4xf32>
  func.return
}

// -----

func.func @reduce_maximum_f32_dims_3() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.convert %xi : (tensor<2x3x4x40xi32>) -> tensor<2x3x4x40xf32>
  %z = stablehlo.constant dense<-1000.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [3] : (tensor<2x3x4x40xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  check.expect_eq_const %r, dense<[[[11, 11, 11, 11], [11, 11, 11, 11], [11, 11, 11, 11]], [[11, 11, 11, 11], [11, 11, 11, 11], [11, 11, 11, 11]]]> : tensor<2x3x4xf32>
  func.return
}

// -----

func.func @reduce_add_i32_dims_0() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.add %xi, %zero : tensor<2x3x4x40xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2x3x4x40xi32>, tensor<i32>) -> tensor<3x4x40xi32>
  check.expect_eq_const %r, dense<[[[-2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7], [9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5], [-3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17], [-15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17]], [[19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5], [7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7], [-5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19], [-17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15]], [[17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3], [5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9], [-7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2], [-19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, -2, 0, 2, -19, -17, -15, -13, -11, -9, -7, -5, -3, -1, 1, 3, 5, 7, 9, 11, 13]]]> : tensor<3x4x40xi32>
  func.return
}

// -----

func.func @reduce_add_i32_dims_1_2() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.add %xi, %zero : tensor<2x3x4x40xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1, 2] : (tensor<2x3x4x40xi32>, tensor<i32>) -> tensor<2x40xi32>
  check.expect_eq_const %r, dense<[[1, -10, -21, -9, 3, 15, 4, -7, -18, -6, 6, 18, 7, -4, -15, -3, 9, 21, 10, -1, -12, 0, 12, 1, -10, -21, -9, 3, 15, 4, -7, -18, -6, 6, 18, 7, -4, -15, -3, 9], [-12, 0, 12, 1, -10, -21, -9, 3, 15, 4, -7, -18, -6, 6, 18, 7, -4, -15, -3, 9, 21, 10, -1, -12, 0, 12, 1, -10, -21, -9, 3, 15, 4, -7, -18, -6, 6, 18, 7, -4]]> : tensor<2x40xi32>
  func.return
}

// -----

func.func @reduce_add_f32_dims_0_2() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.convert %xi : (tensor<2x3x4x40xi32>) -> tensor<2x3x4x40xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 2] : (tensor<2x3x4x40xf32>, tensor<f32>) -> tensor<3x40xf32>
  check.expect_eq_const %r, dense<[[-11, -3, 5, -10, -2, 6, -9, -1, 7, -8, 0, 8, -7, 1, 9, -6, 2, 10, -5, 3, 11, -4, 4, -11, -3, 5, -10, -2, 6, -9, -1, 7, -8, 0, 8, -7, 1, 9, -6, 2], [4, -11, -3, 5, -10, -2, 6, -9, -1, 7, -8, 0, 8, -7, 1, 9, -6, 2, 10, -5, 3, 11, -4, 4, -11, -3, 5, -10, -2, 6, -9, -1, 7, -8, 0, 8, -7, 1, 9, -6], [-4, 4, -11, -3, 5, -10, -2, 6, -9, -1, 7, -8, 0, 8, -7, 1, 9, -6, 2, 10, -5, 3, 11, -4, 4, -11, -3, 5, -10, -2, 6, -9, -1, 7, -8, 0, 8, -7, 1, 9]]> : tensor<3x40xf32>
  func.return
}

// -----

func.func @reduce_maximum_i32_dims_0_3() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.add %xi, %zero : tensor<2x3x4x40xi32>
  %z = stablehlo.constant dense<-1000> : tensor<i32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [0, 3] : (tensor<2x3x4x40xi32>, tensor<i32>) -> tensor<3x4xi32>
  check.expect_eq_const %r, dense<[[11, 11, 11, 11], [11, 11, 11, 11], [11, 11, 11, 11]]> : tensor<3x4xi32>
  func.return
}

// -----

func.func @reduce_add_f32_dims_1_3() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.convert %xi : (tensor<2x3x4x40xi32>) -> tensor<2x3x4x40xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1, 3] : (tensor<2x3x4x40xf32>, tensor<f32>) -> tensor<2x4xf32>
  check.expect_eq_const %r, dense<[[-135, -27, 81, 51], [-81, 27, 135, -102]]> : tensor<2x4xf32>
  func.return
}

// -----

func.func @reduce_add_f32_dims_0_1_2_3() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.convert %xi : (tensor<2x3x4x40xi32>) -> tensor<2x3x4x40xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<2x3x4x40xf32>, tensor<f32>) -> tensor<f32>
  check.expect_eq_const %r, dense<-51.0> : tensor<f32>
  func.return
}

// -----

func.func @reduce_add_i32_dims_0_2_3() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.add %xi, %zero : tensor<2x3x4x40xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 2, 3] : (tensor<2x3x4x40xi32>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %r, dense<[-19, -17, -15]> : tensor<3xi32>
  func.return
}

// -----

func.func @reduce_minimum_i32_dims_2() {
  %i = stablehlo.iota dim = 0 : tensor<960xi32>
  %c23 = stablehlo.constant dense<23> : tensor<960xi32>
  %c11 = stablehlo.constant dense<11> : tensor<960xi32>
  %m = stablehlo.remainder %i, %c23 : tensor<960xi32>
  %s = stablehlo.subtract %m, %c11 : tensor<960xi32>
  %xi = stablehlo.reshape %s : (tensor<960xi32>) -> tensor<2x3x4x40xi32>
  %zero = stablehlo.constant dense<0> : tensor<2x3x4x40xi32>
  %x = stablehlo.add %xi, %zero : tensor<2x3x4x40xi32>
  %z = stablehlo.constant dense<1000> : tensor<i32>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.minimum across dimensions = [2] : (tensor<2x3x4x40xi32>, tensor<i32>) -> tensor<2x3x40xi32>
  check.expect_eq_const %r, dense<[[[-11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7], [-7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8], [-8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9]], [[-9, -8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10], [-10, -9, -8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11], [-11, -10, -9, -8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -11, -10, -9, -8, -7, -6, -11, -10, -9, -8, -7, -6]]]> : tensor<2x3x40xi32>
  func.return
}

// -----

func.func @reduce_and_or_i1_long_rows() {
  %x = stablehlo.constant dense<[[true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true], [true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true, true, false, true, true, true, true, true]]> : tensor<2x50xi1>
  %t = stablehlo.constant dense<true> : tensor<i1>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %a = stablehlo.reduce(%x init: %t) applies stablehlo.and across dimensions = [1] : (tensor<2x50xi1>, tensor<i1>) -> tensor<2xi1>
  %o = stablehlo.reduce(%x init: %f) applies stablehlo.or across dimensions = [0] : (tensor<2x50xi1>, tensor<i1>) -> tensor<50xi1>
  check.expect_eq_const %a, dense<[false, false]> : tensor<2xi1>
  check.expect_eq_const %o, dense<true> : tensor<50xi1>
  func.return
}

// -----

func.func @reduce_f16_init_applied_once() {
  %x = stablehlo.constant dense<[[-4, -3, -2, -1, 0, 1, 2, 3, 4, -4, -3, -2, -1, 0, 1, 2, 3, 4, -4, -3, -2, -1, 0, 1, 2, 3, 4, -4, -3, -2, -1, 0, 1, 2, 3, 4, -4, -3, -2, -1, 0, 1, 2, 3, 4, -4, -3, -2, -1, 0, 1, 2, 3, 4, -4, -3, -2, -1, 0, 1, 2, 3, 4, -4]]> : tensor<1x64xf16>
  %z = stablehlo.constant dense<100.0> : tensor<f16>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<1x64xf16>, tensor<f16>) -> tensor<1xf16>
  check.expect_eq_const %r, dense<96.0> : tensor<1xf16>
  func.return
}

// -----

// Column reductions of f32 (the vectorized row-fold path, 20 columns > one vector): NaN
// propagates, -0 < +0 for maximum/minimum, inf + -inf is NaN, -0 + -0 is -0.
func.func @main() {
  %x = stablehlo.constant dense<[[-5.5, -2.5, 0.5, 1.0, -4.5, -0.0, 1.5, 4.5, -3.5, -0.5, 2.5, -0.0, -2.5, 0.5, 3.5, -4.5, -1.5, 0xFF800000, 4.5, -3.5], [1.5, 4.5, -3.5, 0x7FC00000, 2.5, 0.0, -2.5, 0.5, 3.5, -4.5, -1.5, -0.0, 4.5, -3.5, -0.5, 2.5, -5.5, 5.0, 0.5, 3.5], [-2.5, 0.5, 3.5, 2.0, -1.5, -0.0, 4.5, -3.5, -0.5, 2.5, -5.5, -0.0, 0.5, 3.5, -4.5, -1.5, 1.5, 0x7F800000, -3.5, -0.5]]> : tensor<3x20xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %pinf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %nz = stablehlo.constant dense<-0.0> : tensor<f32>
  %mx = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<3x20xf32>, tensor<f32>) -> tensor<20xf32>
  %mn = stablehlo.reduce(%x init: %pinf) applies stablehlo.minimum across dimensions = [0] : (tensor<3x20xf32>, tensor<f32>) -> tensor<20xf32>
  %sm = stablehlo.reduce(%x init: %nz) applies stablehlo.add across dimensions = [0] : (tensor<3x20xf32>, tensor<f32>) -> tensor<20xf32>
  check.expect_almost_eq_const %mx, dense<[1.5, 4.5, 3.5, 0x7FC00000, 2.5, 0.0, 4.5, 4.5, 3.5, 2.5, 2.5, -0.0, 4.5, 3.5, 3.5, 2.5, 1.5, 0x7F800000, 4.5, 3.5]>, tolerance = 0.0 : tensor<20xf32>
  check.expect_almost_eq_const %mn, dense<[-5.5, -2.5, -3.5, 0x7FC00000, -4.5, -0.0, -2.5, -3.5, -3.5, -4.5, -5.5, -0.0, -2.5, -3.5, -4.5, -4.5, -5.5, 0xFF800000, -3.5, -3.5]>, tolerance = 0.0 : tensor<20xf32>
  check.expect_almost_eq_const %sm, dense<[-6.5, 2.5, 0.5, 0x7FC00000, -3.5, 0.0, 3.5, 1.5, -0.5, -2.5, -4.5, -0.0, 2.5, 0.5, -1.5, -3.5, -5.5, 0x7FC00000, 1.5, -0.5]>, tolerance = 0.0 : tensor<20xf32>
  func.return
}

// -----

// Row max and min over rows long enough for the 64-lane fold (300): signed zeros ordered
// (max(-0, +0) = +0, min = -0, checked bit by bit) and a NaN anywhere in a row wins.
func.func @main() {
  %neg0 = stablehlo.constant dense<-0.0> : tensor<2x300xf32>
  %iota = stablehlo.iota dim = 1 : tensor<2x300xi32>
  %at200 = stablehlo.constant dense<200> : tensor<2x300xi32>
  %is200 = stablehlo.compare EQ, %iota, %at200 : (tensor<2x300xi32>, tensor<2x300xi32>) -> tensor<2x300xi1>
  %pos0 = stablehlo.constant dense<0.0> : tensor<2x300xf32>
  %zeros = stablehlo.select %is200, %pos0, %neg0 : tensor<2x300xi1>, tensor<2x300xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %mx = stablehlo.reduce(%zeros init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x300xf32>, tensor<f32>) -> tensor<2xf32>
  %mn = stablehlo.reduce(%zeros init: %inf) applies stablehlo.minimum across dimensions = [1] : (tensor<2x300xf32>, tensor<f32>) -> tensor<2xf32>
  %mxb = stablehlo.bitcast_convert %mx : (tensor<2xf32>) -> tensor<2xi32>
  %mnb = stablehlo.bitcast_convert %mn : (tensor<2xf32>) -> tensor<2xi32>
  check.expect_eq_const %mxb, dense<0> : tensor<2xi32>
  check.expect_eq_const %mnb, dense<-2147483648> : tensor<2xi32>
  %f = stablehlo.convert %iota : (tensor<2x300xi32>) -> tensor<2x300xf32>
  %nan = stablehlo.constant dense<0x7FC00000> : tensor<2x300xf32>
  %at150 = stablehlo.constant dense<150> : tensor<2x300xi32>
  %is150 = stablehlo.compare EQ, %iota, %at150 : (tensor<2x300xi32>, tensor<2x300xi32>) -> tensor<2x300xi1>
  %withnan = stablehlo.select %is150, %nan, %f : tensor<2x300xi1>, tensor<2x300xf32>
  %mx2 = stablehlo.reduce(%withnan init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x300xf32>, tensor<f32>) -> tensor<2xf32>
  %mn2 = stablehlo.reduce(%f init: %inf) applies stablehlo.minimum across dimensions = [1] : (tensor<2x300xf32>, tensor<f32>) -> tensor<2xf32>
  %mx3 = stablehlo.reduce(%f init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x300xf32>, tensor<f32>) -> tensor<2xf32>
  %isnan = stablehlo.compare NE, %mx2, %mx2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  check.expect_eq_const %isnan, dense<true> : tensor<2xi1>
  check.expect_eq_const %mn2, dense<0.0> : tensor<2xf32>
  check.expect_eq_const %mx3, dense<299.0> : tensor<2xf32>
  return
}

// -----

// argmax over values without an arg loop of their own (i8, f8E4M3FN) takes the generic
// reduction, which must read the iota's indices (the arg loops take them as positions).
func.func @argmax_rows_generic_kinds_read_the_iota() {
  %x = stablehlo.constant dense<[[1, 5, 3, 7, 2, 7, 0, 4], [9, 1, 9, 3, 2, 8, 0, 4]]> : tensor<2x8xi8>
  %iota = stablehlo.iota dim = 1 : tensor<2x8xi32>
  %initv = stablehlo.constant dense<-128> : tensor<i8>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %initv), (%iota init: %zero) across dimensions = [1] : (tensor<2x8xi8>, tensor<2x8xi32>, tensor<i8>, tensor<i32>) -> (tensor<2xi8>, tensor<2xi32>)
   reducer(%a: tensor<i8>, %c: tensor<i8>) (%b: tensor<i32>, %d: tensor<i32>) {
    %p = stablehlo.compare GT, %a, %c, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a, %c, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
    %lt = stablehlo.compare LT, %b, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %an = stablehlo.and %eq, %lt : tensor<i1>
    %q = stablehlo.or %p, %an : tensor<i1>
    %v = stablehlo.select %p, %a, %c : tensor<i1>, tensor<i8>
    %i = stablehlo.select %q, %b, %d : tensor<i1>, tensor<i32>
    stablehlo.return %v, %i : tensor<i8>, tensor<i32>
  }
  check.expect_eq_const %r#0, dense<[7, 9]> : tensor<2xi8>
  check.expect_eq_const %r#1, dense<[3, 0]> : tensor<2xi32>
  %f = stablehlo.convert %x : (tensor<2x8xi8>) -> tensor<2x8xf8E4M3FN>
  %finit = stablehlo.constant dense<-448.0> : tensor<f8E4M3FN>
  %s:2 = stablehlo.reduce(%f init: %finit), (%iota init: %zero) across dimensions = [1] : (tensor<2x8xf8E4M3FN>, tensor<2x8xi32>, tensor<f8E4M3FN>, tensor<i32>) -> (tensor<2xf8E4M3FN>, tensor<2xi32>)
   reducer(%a: tensor<f8E4M3FN>, %c: tensor<f8E4M3FN>) (%b: tensor<i32>, %d: tensor<i32>) {
    %p = stablehlo.compare GT, %a, %c, FLOAT : (tensor<f8E4M3FN>, tensor<f8E4M3FN>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a, %c, FLOAT : (tensor<f8E4M3FN>, tensor<f8E4M3FN>) -> tensor<i1>
    %lt = stablehlo.compare LT, %b, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %an = stablehlo.and %eq, %lt : tensor<i1>
    %q = stablehlo.or %p, %an : tensor<i1>
    %v = stablehlo.select %p, %a, %c : tensor<i1>, tensor<f8E4M3FN>
    %i = stablehlo.select %q, %b, %d : tensor<i1>, tensor<i32>
    stablehlo.return %v, %i : tensor<f8E4M3FN>, tensor<i32>
  }
  check.expect_eq_const %s#1, dense<[3, 0]> : tensor<2xi32>
  func.return
}
