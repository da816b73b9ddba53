// Runs of elementwise ops become one fused kernel (src/compiler FuseElementwise); these programs
// check what the fusion absorbs: splat constants, and broadcasts of computed scalars, which the
// fused kernel reads from the scalar itself (also when the broadcast is needed elsewhere too).
func.func @scalar_broadcast_in_a_run() {
  %x = stablehlo.iota dim = 0 : tensor<4096xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
  %n = stablehlo.constant dense<4096.0> : tensor<f32>
  %mean = stablehlo.divide %sum, %n : tensor<f32>
  %b = stablehlo.broadcast_in_dim %mean, dims = [] : (tensor<f32>) -> tensor<4096xf32>
  %c = stablehlo.subtract %x, %b : tensor<4096xf32>
  %two = stablehlo.constant dense<2.0> : tensor<4096xf32>
  %d = stablehlo.multiply %c, %two : tensor<4096xf32>
  %first = stablehlo.slice %d [0:3] : (tensor<4096xf32>) -> tensor<3xf32>
  check.expect_eq_const %first, dense<[-4095.0, -4093.0, -4091.0]> : tensor<3xf32>
  %last = stablehlo.slice %d [4095:4096] : (tensor<4096xf32>) -> tensor<1xf32>
  check.expect_eq_const %last, dense<[4095.0]> : tensor<1xf32>
  func.return
}

// -----

func.func @scalar_broadcast_also_read_outside() {
  %x = stablehlo.iota dim = 0 : tensor<8xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %m = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<8xi32>, tensor<i32>) -> tensor<i32>
  %b = stablehlo.broadcast_in_dim %m, dims = [] : (tensor<i32>) -> tensor<8xi32>
  %c = stablehlo.subtract %b, %x : tensor<8xi32>
  %d = stablehlo.multiply %c, %c : tensor<8xi32>
  check.expect_eq_const %d, dense<[49, 36, 25, 16, 9, 4, 1, 0]> : tensor<8xi32>
  check.expect_eq_const %b, dense<7> : tensor<8xi32>
  %flag = stablehlo.constant dense<true> : tensor<i1>
  %fb = stablehlo.broadcast_in_dim %flag, dims = [] : (tensor<i1>) -> tensor<8xi1>
  %p = stablehlo.compare GT, %x, %c : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
  %q = stablehlo.and %p, %fb : tensor<8xi1>
  %r = stablehlo.not %q : tensor<8xi1>
  check.expect_eq_const %r, dense<[true, true, true, true, false, false, false, false]> : tensor<8xi1>
  func.return
}

// -----

// A bias row broadcast over the rows of a matrix (dims = the trailing dimensions) is read from the
// row itself, wrapping every 5 elements; a broadcast over the leading dimension is read from its
// operand too, each element repeated 5 times. Both feed the same fused run.
func.func @row_broadcast_in_a_run() {
  %m = stablehlo.iota dim = 0 : tensor<3x5xi32>
  %bias = stablehlo.iota dim = 0 : tensor<5xi32>
  %hundred = stablehlo.constant dense<100> : tensor<5xi32>
  %b100 = stablehlo.multiply %bias, %hundred : tensor<5xi32>
  %rows = stablehlo.broadcast_in_dim %b100, dims = [1] : (tensor<5xi32>) -> tensor<3x5xi32>
  %col = stablehlo.constant dense<[1000, 2000, 3000]> : tensor<3xi32>
  %c3 = stablehlo.add %col, %col : tensor<3xi32>
  %cols = stablehlo.broadcast_in_dim %c3, dims = [0] : (tensor<3xi32>) -> tensor<3x5xi32>
  %s = stablehlo.add %m, %rows : tensor<3x5xi32>
  %t = stablehlo.add %s, %cols : tensor<3x5xi32>
  check.expect_eq_const %t, dense<[[2000, 2100, 2200, 2300, 2400], [4001, 4101, 4201, 4301, 4401], [6002, 6102, 6202, 6302, 6402]]> : tensor<3x5xi32>
  %big = stablehlo.iota dim = 1 : tensor<300x1000xf32>
  %w = stablehlo.iota dim = 0 : tensor<1000xf32>
  %half = stablehlo.constant dense<0.5> : tensor<1000xf32>
  %wh = stablehlo.multiply %w, %half : tensor<1000xf32>
  %wb = stablehlo.broadcast_in_dim %wh, dims = [1] : (tensor<1000xf32>) -> tensor<300x1000xf32>
  %d = stablehlo.subtract %big, %wb : tensor<300x1000xf32>
  %e = stablehlo.multiply %d, %d : tensor<300x1000xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<300x1000xf32>, tensor<f32>) -> tensor<f32>
  // 300 * sum over j < 1000 of (j / 2)^2 = 300 * 332833500 / 4 (f32 sums: 1e6 of 2.5e10)
  check.expect_almost_eq_const %sum, dense<2.49625125e10>, tolerance = 1.0e6 : tensor<f32>
  func.return
}

// -----

// compare, select, clamp and convert join fused runs (their loops read operands block by block
// like the arithmetic ops), also when an unrelated step sits between them in the program: the
// compiler moves elementwise steps next to the run they extend. NaN, infinities and signed zeros
// go through every one of them.
func.func @compare_select_clamp_convert_in_a_run() {
  %x = stablehlo.constant dense<[1.5, -2.5, 0x7F800000, 0x7FC00000, -0.0, 0.0, 0xFF800000, 3.0]> : tensor<8xf32>
  %y = stablehlo.constant dense<[1.5, 2.0, 1.0, 1.0, 0.0, -0.0, 0.0, 0x7FC00000]> : tensor<8xf32>
  %two = stablehlo.constant dense<2.0> : tensor<8xf32>
  %s = stablehlo.add %x, %two : tensor<8xf32>
  %gt = stablehlo.compare GT, %s, %y, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %a = stablehlo.iota dim = 0 : tensor<3x4xf32>
  %b = stablehlo.iota dim = 1 : tensor<4x2xf32>
  %m = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %ge_total = stablehlo.compare GE, %x, %y, TOTALORDER : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %sel = stablehlo.select %gt, %s, %y : tensor<8xi1>, tensor<8xf32>
  %lo = stablehlo.constant dense<-1.0> : tensor<8xf32>
  %hi = stablehlo.constant dense<2.5> : tensor<8xf32>
  %cl = stablehlo.clamp %lo, %sel, %hi : tensor<8xf32>
  %i = stablehlo.convert %cl : (tensor<8xf32>) -> tensor<8xi32>
  %d = stablehlo.convert %cl : (tensor<8xf32>) -> tensor<8xf64>
  %z = stablehlo.select %gt, %y, %x : tensor<8xi1>, tensor<8xf32>
  %zbits = stablehlo.bitcast_convert %z : (tensor<8xf32>) -> tensor<8xi32>
  check.expect_eq_const %gt, dense<[true, false, true, false, true, true, false, false]> : tensor<8xi1>
  // Total order: -inf < ... < -0 < +0 < ... < +inf < +NaN.
  check.expect_eq_const %ge_total, dense<[true, false, true, true, false, true, false, false]> : tensor<8xi1>
  check.expect_almost_eq_const %cl, dense<[2.5, 2.0, 2.5, 1.0, 2.0, 2.0, 0.0, 0x7FC00000]> : tensor<8xf32>
  check.expect_eq_const %i, dense<[2, 2, 2, 1, 2, 2, 0, 0]> : tensor<8xi32>
  check.expect_almost_eq_const %d, dense<[2.5, 2.0, 2.5, 1.0, 2.0, 2.0, 0.0, 0x7FF8000000000000]> : tensor<8xf64>
  // [1.5, -2.5, 1.0, NaN, +0, -0, -inf, 3.0]
  check.expect_eq_const %zbits, dense<[1069547520, -1071644672, 1065353216, 2143289344, 0, -2147483648, -8388608, 1077936128]> : tensor<8xi32>
  check.expect_eq_const %m, dense<[[0.0, 0.0], [0.0, 4.0], [0.0, 8.0]]> : tensor<3x2xf32>
  func.return
}

// -----

// clamp with scalar bounds (jnp.clip) reads them as broadcasts inside the run; a NaN operand or
// bound gives NaN; 3,000 elements span several blocks of the fused loop.
func.func @clamp_with_scalar_bounds_in_a_run() {
  %x = stablehlo.constant dense<[-2.0, 0.5, 3.0, 0x7FC00000, 0xFF800000, 0x7F800000]> : tensor<6xf32>
  %one = stablehlo.constant dense<1.0> : tensor<6xf32>
  %y = stablehlo.multiply %x, %one : tensor<6xf32>
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %c = stablehlo.clamp %lo, %y, %hi : (tensor<f32>, tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
  check.expect_almost_eq_const %c, dense<[0.0, 0.5, 1.0, 0x7FC00000, 0.0, 1.0]> : tensor<6xf32>
  %cn = stablehlo.clamp %lo, %y, %nan : (tensor<f32>, tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
  check.expect_almost_eq_const %cn, dense<0x7FC00000> : tensor<6xf32>
  %i = stablehlo.iota dim = 0 : tensor<3000xf32>
  %one_big = stablehlo.constant dense<1.0> : tensor<3000xf32>
  %j = stablehlo.add %i, %one_big : tensor<3000xf32>
  %a = stablehlo.constant dense<101.0> : tensor<f32>
  %b = stablehlo.constant dense<2001.0> : tensor<f32>
  %ci = stablehlo.clamp %a, %j, %b : (tensor<f32>, tensor<3000xf32>, tensor<f32>) -> tensor<3000xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%ci init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3000xf32>, tensor<f32>) -> tensor<f32>
  // 101 * 101 + (102 + ... + 2000) + 2001 * 1000
  check.expect_eq_const %sum, dense<4007050.0> : tensor<f32>
  %k = stablehlo.constant dense<[5, -7, 300]> : tensor<3xi32>
  %klo = stablehlo.constant dense<-3> : tensor<i32>
  %khi = stablehlo.constant dense<100> : tensor<i32>
  %kc = stablehlo.clamp %klo, %k, %khi : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %kc, dense<[5, -3, 100]> : tensor<3xi32>
  func.return
}

// -----

// Lone ops of 4 Ki+ elements that read a splat constant or a repeating broadcast run as fused
// kernels reading it in place: a softmax-style division by broadcast row sums, a scaling.
func.func @lone_ops_read_broadcasts_in_place() {
  %x = stablehlo.iota dim = 1 : tensor<8x1024xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x1024xf32>, tensor<f32>) -> tensor<8xf32>
  %sb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<8xf32>) -> tensor<8x1024xf32>
  %p = stablehlo.divide %x, %sb : tensor<8x1024xf32>
  %p_last = stablehlo.slice %p [3:4, 1023:1024] : (tensor<8x1024xf32>) -> tensor<1x1xf32>
  check.expect_eq_const %p_last, dense<0.001953125> : tensor<1x1xf32>
  %p_some = stablehlo.slice %p [7:8, 700:701] : (tensor<8x1024xf32>) -> tensor<1x1xf32>
  check.expect_eq_const %p_some, dense<0.0013364491751417518> : tensor<1x1xf32>
  %rows = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x1024xf32>, tensor<f32>) -> tensor<8xf32>
  check.expect_almost_eq_const %rows, dense<1.0> : tensor<8xf32>
  %i = stablehlo.iota dim = 0 : tensor<4096xf32>
  %eighth = stablehlo.constant dense<0.125> : tensor<4096xf32>
  %q = stablehlo.multiply %i, %eighth : tensor<4096xf32>
  %qs = stablehlo.reduce(%q init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
  check.expect_eq_const %qs, dense<1048320.0> : tensor<f32>
  func.return
}

// -----

// select over every element size (1, 2, 8 and 16 bytes) inside a run, and a select with a scalar
// predicate (which repeats one operand, so it stays outside the run) between run members.
func.func @select_element_sizes_in_runs() {
  %i = stablehlo.iota dim = 0 : tensor<6xi8>
  %three = stablehlo.constant dense<3> : tensor<6xi8>
  %p = stablehlo.compare LT, %i, %three, SIGNED : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi1>
  %neg = stablehlo.negate %i : tensor<6xi8>
  %s8 = stablehlo.select %p, %i, %neg : tensor<6xi1>, tensor<6xi8>
  check.expect_eq_const %s8, dense<[0, 1, 2, -3, -4, -5]> : tensor<6xi8>
  %h = stablehlo.convert %i : (tensor<6xi8>) -> tensor<6xf16>
  %hn = stablehlo.negate %h : tensor<6xf16>
  %s16 = stablehlo.select %p, %hn, %h : tensor<6xi1>, tensor<6xf16>
  check.expect_eq_const %s16, dense<[-0.0, -1.0, -2.0, 3.0, 4.0, 5.0]> : tensor<6xf16>
  %f = stablehlo.convert %i : (tensor<6xi8>) -> tensor<6xf64>
  %fh = stablehlo.multiply %f, %f : tensor<6xf64>
  %s64 = stablehlo.select %p, %fh, %f : tensor<6xi1>, tensor<6xf64>
  check.expect_eq_const %s64, dense<[0.0, 1.0, 4.0, 3.0, 4.0, 5.0]> : tensor<6xf64>
  %c = stablehlo.complex %f, %fh : tensor<6xcomplex<f64>>
  %cc = stablehlo.negate %c : tensor<6xcomplex<f64>>
  %s128 = stablehlo.select %p, %c, %cc : tensor<6xi1>, tensor<6xcomplex<f64>>
  %re = stablehlo.real %s128 : (tensor<6xcomplex<f64>>) -> tensor<6xf64>
  %im = stablehlo.imag %s128 : (tensor<6xcomplex<f64>>) -> tensor<6xf64>
  check.expect_eq_const %re, dense<[0.0, 1.0, 2.0, -3.0, -4.0, -5.0]> : tensor<6xf64>
  check.expect_eq_const %im, dense<[0.0, 1.0, 4.0, -9.0, -16.0, -25.0]> : tensor<6xf64>
  %t = stablehlo.constant dense<true> : tensor<i1>
  %one = stablehlo.constant dense<1> : tensor<6xi8>
  %a = stablehlo.add %i, %one : tensor<6xi8>
  %st = stablehlo.select %t, %a, %i : tensor<i1>, tensor<6xi8>
  %b = stablehlo.multiply %st, %three : tensor<6xi8>
  check.expect_eq_const %b, dense<[3, 6, 9, 12, 15, 18]> : tensor<6xi8>
  func.return
}

// -----

// Per-row statistics broadcast over rows that do not divide the fused kernel's 1,024-element
// blocks (777 elements a row): x - max(row), times a per-row scale, read from the [5] vectors
// with each element repeated 777 times across block boundaries.
func.func @per_row_broadcasts_across_blocks() {
  %x = stablehlo.iota dim = 1 : tensor<5x777xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<5x777xf32>, tensor<f32>) -> tensor<5xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<5xf32>) -> tensor<5x777xf32>
  %r = stablehlo.iota dim = 0 : tensor<5xf32>
  %one = stablehlo.constant dense<1.0> : tensor<5xf32>
  %s = stablehlo.add %r, %one : tensor<5xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<5xf32>) -> tensor<5x777xf32>
  %d = stablehlo.subtract %x, %mb : tensor<5x777xf32>
  %y = stablehlo.multiply %d, %sb : tensor<5x777xf32>
  %c0 = stablehlo.slice %y [0:5, 0:1] : (tensor<5x777xf32>) -> tensor<5x1xf32>
  check.expect_eq_const %c0, dense<[[-776.0], [-1552.0], [-2328.0], [-3104.0], [-3880.0]]> : tensor<5x1xf32>
  %c1 = stablehlo.slice %y [0:5, 246:248] : (tensor<5x777xf32>) -> tensor<5x2xf32>
  check.expect_eq_const %c1, dense<[[-530.0, -529.0], [-1060.0, -1058.0], [-1590.0, -1587.0], [-2120.0, -2116.0], [-2650.0, -2645.0]]> : tensor<5x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<5x777xf32>, tensor<f32>) -> tensor<f32>
  // sum over rows r of (r + 1) * sum over j < 777 of (j - 776) = 15 * -301476
  check.expect_eq_const %sum, dense<-4522140.0> : tensor<f32>
  func.return
}

// -----

// A product whose result only an elementwise run reads takes the run as its epilogue (bias and
// relu here), computed on each finished region of the product.
func.func @dot_bias_relu_epilogue() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]> : tensor<2x3xf32>
  %w = stablehlo.constant dense<[[1.0, -1.0], [0.0, 2.0], [1.0, 0.5]]> : tensor<3x2xf32>
  %b = stablehlo.constant dense<[-3.0, 0.25]> : tensor<2xf32>
  %p = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
  %s = stablehlo.add %p, %bb : tensor<2x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<2x2xf32>
  %h = stablehlo.maximum %s, %z : tensor<2x2xf32>
  check.expect_eq_const %h, dense<[[1.0, 4.75], [0.0, 3.25]]> : tensor<2x2xf32>
  check.expect_eq_const %s, dense<[[1.0, 4.75], [-2.0, 3.25]]> : tensor<2x2xf32>
  func.return
}

// -----

func.func @convolution_bias_relu_epilogue() {
  %x = stablehlo.constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
  %w = stablehlo.constant dense<[[[[1.0, 0.0]], [[0.0, 1.0]]], [[[0.0, 1.0]], [[-1.0, 0.0]]]]> : tensor<2x2x1x2xf32>
  %b = stablehlo.constant dense<[5.0, -10.0]> : tensor<2xf32>
  %p = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x2x2xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %s = stablehlo.add %p, %bb : tensor<1x2x2x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<1x2x2x2xf32>
  %h = stablehlo.maximum %s, %z : tensor<1x2x2x2xf32>
  check.expect_eq_const %h, dense<[[[[1.0, 0.0], [1.0, 0.0]], [[1.0, 2.0], [1.0, 4.0]]]]> : tensor<1x2x2x2xf32>
  func.return
}
