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
// row itself, wrapping every 5 elements; a broadcast over the leading dimension is not repeating
// and stays materialised. Both feed the same fused run.
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
