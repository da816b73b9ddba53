// batch norm, cholesky, triangular_solve, fft, top_k and the dynamic-shape ops with static
// result types.
func.func @batch_norm_training_and_inference() {
  %x = stablehlo.constant dense<[[1.0, 10.0], [3.0, 30.0]]> : tensor<2x2xf32>
  %scale = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %offset = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %y, %mean, %var = "stablehlo.batch_norm_training"(%x, %scale, %offset) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_almost_eq_const %mean, dense<[2.0, 20.0]> : tensor<2xf32>
  check.expect_almost_eq_const %var, dense<[1.0, 100.0]> : tensor<2xf32>
  check.expect_almost_eq_const %y, dense<[[-1.0, -1.0], [1.0, 3.0]]> : tensor<2x2xf32>
  %z = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq %z, %y : tensor<2x2xf32>
  %dy = stablehlo.constant dense<[[1.0, 1.0], [1.0, -1.0]]> : tensor<2x2xf32>
  %dx, %dscale, %doffset = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %dy) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  check.expect_almost_eq_const %doffset, dense<[2.0, 0.0]> : tensor<2xf32>
  check.expect_almost_eq_const %dscale, dense<[0.0, -2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %dx, dense<[[0.0, 0.0], [0.0, 0.0]]> : tensor<2x2xf32>
  func.return
}

// -----

func.func @cholesky_and_solve() {
  %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 5.0]]> : tensor<2x2xf64>
  %l = stablehlo.cholesky %a, lower = true : tensor<2x2xf64>
  check.expect_almost_eq_const %l, dense<[[2.0, 0.0], [1.0, 2.0]]> : tensor<2x2xf64>
  %u = stablehlo.cholesky %a, lower = false : tensor<2x2xf64>
  check.expect_almost_eq_const %u, dense<[[2.0, 1.0], [0.0, 2.0]]> : tensor<2x2xf64>
  %b = stablehlo.constant dense<[[2.0], [5.0]]> : tensor<2x1xf64>
  %x = "stablehlo.triangular_solve"(%l, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>
  check.expect_almost_eq_const %x, dense<[[1.0], [2.0]]> : tensor<2x1xf64>
  %xt = "stablehlo.triangular_solve"(%l, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>
  check.expect_almost_eq_const %xt, dense<[[-0.25], [2.5]]> : tensor<2x1xf64>
  %r = stablehlo.constant dense<[[2.0, 5.0]]> : tensor<1x2xf64>
  %xr = "stablehlo.triangular_solve"(%l, %r) {left_side = false, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf64>, tensor<1x2xf64>) -> tensor<1x2xf64>
  check.expect_almost_eq_const %xr, dense<[[-0.25, 2.5]]> : tensor<1x2xf64>
  func.return
}

// -----

// Cholesky past Eigen's unblocked size (32): A = B B^T + 40 I for a 40 x 40 B built from iotas,
// checked by L L^T = A, a zero strict upper triangle, U = L^T and triangular solves with L and U
// that give them back; then A with a negative pivot
// at (35, 35): the first 35 columns are still A's factor and the rest of the lower triangle NaN (the upper
// one zero); then a batch of 32 such matrices.
func.func @cholesky_blocked_40x40() {
  %i = stablehlo.iota dim = 0 : tensor<40x40xi32>
  %j = stablehlo.iota dim = 1 : tensor<40x40xi32>
  %c7 = stablehlo.constant dense<7> : tensor<40x40xi32>
  %c13 = stablehlo.constant dense<13> : tensor<40x40xi32>
  %c17 = stablehlo.constant dense<17> : tensor<40x40xi32>
  %c8 = stablehlo.constant dense<8> : tensor<40x40xi32>
  %i7 = stablehlo.multiply %i, %c7 : tensor<40x40xi32>
  %j13 = stablehlo.multiply %j, %c13 : tensor<40x40xi32>
  %sum = stablehlo.add %i7, %j13 : tensor<40x40xi32>
  %r = stablehlo.remainder %sum, %c17 : tensor<40x40xi32>
  %bi = stablehlo.subtract %r, %c8 : tensor<40x40xi32>
  %b = stablehlo.convert %bi : (tensor<40x40xi32>) -> tensor<40x40xf64>
  %bbt = stablehlo.dot_general %b, %b, contracting_dims = [1] x [1] : (tensor<40x40xf64>, tensor<40x40xf64>) -> tensor<40x40xf64>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %forty = stablehlo.constant dense<40.0> : tensor<40x40xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<40x40xf64>
  %d = stablehlo.select %eq, %forty, %zero : tensor<40x40xi1>, tensor<40x40xf64>
  %a = stablehlo.add %bbt, %d : tensor<40x40xf64>
  %l = stablehlo.cholesky %a, lower = true : tensor<40x40xf64>
  %llt = stablehlo.dot_general %l, %l, contracting_dims = [1] x [1] : (tensor<40x40xf64>, tensor<40x40xf64>) -> tensor<40x40xf64>
  check.expect_almost_eq %llt, %a, tolerance = 1.0e-9 : tensor<40x40xf64>
  %above = stablehlo.compare GT, %j, %i, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %upper_part = stablehlo.select %above, %l, %zero : tensor<40x40xi1>, tensor<40x40xf64>
  check.expect_eq %upper_part, %zero : tensor<40x40xf64>
  %u = stablehlo.cholesky %a, lower = false : tensor<40x40xf64>
  %lt = stablehlo.transpose %l, dims = [1, 0] : (tensor<40x40xf64>) -> tensor<40x40xf64>
  check.expect_almost_eq %u, %lt, tolerance = 1.0e-12 : tensor<40x40xf64>
  // Solves past triangular_solve's 32-row blocks: L^-1 A = L^T, A L^-T = L, U^-T A = U.
  %x1 = "stablehlo.triangular_solve"(%l, %a) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<40x40xf64>, tensor<40x40xf64>) -> tensor<40x40xf64>
  check.expect_almost_eq %x1, %lt, tolerance = 1.0e-9 : tensor<40x40xf64>
  %x2 = "stablehlo.triangular_solve"(%l, %a) {left_side = false, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<40x40xf64>, tensor<40x40xf64>) -> tensor<40x40xf64>
  check.expect_almost_eq %x2, %l, tolerance = 1.0e-9 : tensor<40x40xf64>
  %x3 = "stablehlo.triangular_solve"(%u, %a) {left_side = true, lower = false, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<40x40xf64>, tensor<40x40xf64>) -> tensor<40x40xf64>
  check.expect_almost_eq %x3, %u, tolerance = 1.0e-9 : tensor<40x40xf64>
  // A negative pivot at (35, 35).
  %c35 = stablehlo.constant dense<35> : tensor<40x40xi32>
  %at35 = stablehlo.compare EQ, %i, %c35, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %pivot = stablehlo.and %at35, %eq : tensor<40x40xi1>
  %neg = stablehlo.constant dense<-1000.0> : tensor<40x40xf64>
  %bad = stablehlo.select %pivot, %neg, %a : tensor<40x40xi1>, tensor<40x40xf64>
  %lb = stablehlo.cholesky %bad, lower = true : tensor<40x40xf64>
  %good_cols = stablehlo.slice %lb [0:40, 0:35] : (tensor<40x40xf64>) -> tensor<40x35xf64>
  %want_cols = stablehlo.slice %l [0:40, 0:35] : (tensor<40x40xf64>) -> tensor<40x35xf64>
  check.expect_almost_eq %good_cols, %want_cols, tolerance = 1.0e-12 : tensor<40x35xf64>
  %tail = stablehlo.slice %lb [35:40, 35:40] : (tensor<40x40xf64>) -> tensor<5x5xf64>
  %finite = stablehlo.is_finite %tail : (tensor<5x5xf64>) -> tensor<5x5xi1>
  check.expect_eq_const %finite, dense<[[false, true, true, true, true], [false, false, true, true, true], [false, false, false, true, true], [false, false, false, false, true], [false, false, false, false, false]]> : tensor<5x5xi1>
  // A batch of 32 (enough work to be spread over the intra-op threads), each with its own
  // diagonal shift: L L^T = A and L^-1 A = L^T for every one.
  %ab = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<40x40xf64>) -> tensor<32x40x40xf64>
  %bk = stablehlo.iota dim = 0 : tensor<32x40x40xi32>
  %bri = stablehlo.iota dim = 1 : tensor<32x40x40xi32>
  %brj = stablehlo.iota dim = 2 : tensor<32x40x40xi32>
  %beq = stablehlo.compare EQ, %bri, %brj, SIGNED : (tensor<32x40x40xi32>, tensor<32x40x40xi32>) -> tensor<32x40x40xi1>
  %bkf = stablehlo.convert %bk : (tensor<32x40x40xi32>) -> tensor<32x40x40xf64>
  %bzero = stablehlo.constant dense<0.0> : tensor<32x40x40xf64>
  %shift = stablehlo.select %beq, %bkf, %bzero : tensor<32x40x40xi1>, tensor<32x40x40xf64>
  %abs = stablehlo.add %ab, %shift : tensor<32x40x40xf64>
  %bl = stablehlo.cholesky %abs, lower = true : tensor<32x40x40xf64>
  %bllt = stablehlo.dot_general %bl, %bl, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<32x40x40xf64>, tensor<32x40x40xf64>) -> tensor<32x40x40xf64>
  check.expect_almost_eq %bllt, %abs, tolerance = 1.0e-9 : tensor<32x40x40xf64>
  %bx = "stablehlo.triangular_solve"(%bl, %abs) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<32x40x40xf64>, tensor<32x40x40xf64>) -> tensor<32x40x40xf64>
  %blt = stablehlo.transpose %bl, dims = [0, 2, 1] : (tensor<32x40x40xf64>) -> tensor<32x40x40xf64>
  check.expect_almost_eq %bx, %blt, tolerance = 1.0e-9 : tensor<32x40x40xf64>
  func.return
}

// -----

func.func @fft_all_types() {
  %c = stablehlo.constant dense<[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0)]> : tensor<4xcomplex<f32>>
  %f = stablehlo.fft %c, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %f, dense<[(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0), (-2.0, -2.0)]> : tensor<4xcomplex<f32>>
  %i = stablehlo.fft %f, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  check.expect_almost_eq %i, %c : tensor<4xcomplex<f32>>
  %r = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %rf = stablehlo.fft %r, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  check.expect_almost_eq_const %rf, dense<[(10.0, 0.0), (-2.0, 2.0), (-2.0, 0.0)]> : tensor<3xcomplex<f32>>
  %ir = stablehlo.fft %rf, type = IRFFT, length = [4] : (tensor<3xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq %ir, %r : tensor<4xf32>
  %m = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %m2 = stablehlo.fft %m, type = RFFT, length = [2, 2] : (tensor<2x2xf64>) -> tensor<2x2xcomplex<f64>>
  check.expect_almost_eq_const %m2, dense<[[(10.0, 0.0), (-2.0, 0.0)], [(-4.0, 0.0), (0.0, 0.0)]]> : tensor<2x2xcomplex<f64>>
  %back = stablehlo.fft %m2, type = IRFFT, length = [2, 2] : (tensor<2x2xcomplex<f64>>) -> tensor<2x2xf64>
  check.expect_almost_eq %back, %m : tensor<2x2xf64>
  func.return
}

// -----

func.func @top_k() {
  %x = stablehlo.constant dense<[[1.0, 7.0, 3.0, 7.0], [0x7FC00000, 2.0, -1.0, 5.0]]> : tensor<2x4xf32>
  %v, %i = chlo.top_k(%x, k = 2) : tensor<2x4xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)
  check.expect_eq_const %i, dense<[[1, 3], [0, 3]]> : tensor<2x2xi32>
  %s = stablehlo.slice %v [0:1, 0:2] : (tensor<2x2xf32>) -> tensor<1x2xf32>
  check.expect_eq_const %s, dense<[[7.0, 7.0]]> : tensor<1x2xf32>
  // The total order of XLA's CPU top_k: +NaN first, +0 above -0, -NaN last; int64 beyond 2^53
  // ordered exactly.
  %y = stablehlo.constant dense<[-0.0, 0.0, 0xFFC00000, 0x7FC00000, 0xFF800000]> : tensor<5xf32>
  %yv, %yi = chlo.top_k(%y, k = 5) : tensor<5xf32> -> (tensor<5xf32>, tensor<5xi32>)
  check.expect_eq_const %yi, dense<[3, 1, 0, 4, 2]> : tensor<5xi32>
  // The same order for f64 (whose keys, like f32's, are ordered bit patterns), NaN payloads
  // of one sign tied (lower index first).
  %z = stablehlo.constant dense<[-0.0, 0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001, 0xFFF0000000000000, 0.0]> : tensor<6xf64>
  %zv, %zi = chlo.top_k(%z, k = 6) : tensor<6xf64> -> (tensor<6xf64>, tensor<6xi32>)
  check.expect_eq_const %zi, dense<[1, 3, 5, 0, 4, 2]> : tensor<6xi32>
  %big = stablehlo.constant dense<[9007199254740992, 9007199254740993, 9007199254740994]> : tensor<3xi64>
  %bv, %bi = chlo.top_k(%big, k = 3) : tensor<3xi64> -> (tensor<3xi64>, tensor<3xi32>)
  check.expect_eq_const %bi, dense<[2, 1, 0]> : tensor<3xi32>
  func.return
}

// -----

func.func @dynamic_ops_with_static_results() {
  %x = stablehlo.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %r = stablehlo.dynamic_reshape %x, %shape : (tensor<6xi32>, tensor<2xi64>) -> tensor<2x3xi32>
  check.expect_eq_const %r, dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %row = stablehlo.constant dense<[7, 8, 9]> : tensor<3xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %row, %shape, dims = [1] : (tensor<3xi32>, tensor<2xi64>) -> tensor<2x3xi32>
  check.expect_eq_const %b, dense<[[7, 8, 9], [7, 8, 9]]> : tensor<2x3xi32>
  %n = stablehlo.constant dense<[3]> : tensor<1xi64>
  %io = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi64>) -> tensor<3xi32>
  check.expect_eq_const %io, dense<[0, 1, 2]> : tensor<3xi32>
  %start = stablehlo.constant dense<[1]> : tensor<1xi64>
  %limit = stablehlo.constant dense<[6]> : tensor<1xi64>
  %step = stablehlo.constant dense<[2]> : tensor<1xi64>
  %sl = stablehlo.real_dynamic_slice %x, %start, %limit, %step : (tensor<6xi32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi32>
  check.expect_eq_const %sl, dense<[2, 4, 6]> : tensor<3xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<[1]> : tensor<1xi64>
  %zero = stablehlo.constant dense<[0]> : tensor<1xi64>
  %p = stablehlo.dynamic_pad %row, %z, %one, %zero, %one : (tensor<3xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<6xi32>
  check.expect_eq_const %p, dense<[0, 7, 0, 8, 0, 9]> : tensor<6xi32>
  func.return
}
// -----

// Lengths that are not powers of two (Bluestein's transform) and longer powers of two, in one and
// two dimensions; expected values from numpy.fft (float64), printed to 9 (f32) or 17 (f64) digits.
func.func @fft_lengths_beyond_powers_of_two() {
  %a = stablehlo.constant dense<[(1, 0), (2, -1), (0, 3), (-1, 1), (4, 0), (2, 2)]> : tensor<6xcomplex<f32>>
  %fa = stablehlo.fft %a, type = FFT, length = [6] : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  check.expect_almost_eq_const %fa, dense<[(8, 5), (2, 1.46410162), (-9.19615242, -4.46410162), (2, 1), (1.19615242, 2.46410162), (2, -5.46410162)]> : tensor<6xcomplex<f32>>
  %ia = stablehlo.fft %fa, type = IFFT, length = [6] : (tensor<6xcomplex<f32>>) -> tensor<6xcomplex<f32>>
  check.expect_almost_eq %ia, %a : tensor<6xcomplex<f32>>
  %b = stablehlo.constant dense<[(1, 0), (-2, 0), (3, 0), (0, 0.5), (-1, -1), (2, 0), (0, 0), (1, 3)]> : tensor<8xcomplex<f32>>
  %fb = stablehlo.fft %b, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  check.expect_almost_eq_const %fb, dense<[(4, 2.5), (-1.8890873, 3.30330086), (-6.5, 0), (2.35355339, 5.76776695), (2, -4.5), (5.8890873, -7.30330086), (0.5, -2), (1.64644661, 2.23223305)]> : tensor<8xcomplex<f32>>
  %ib = stablehlo.fft %b, type = IFFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  check.expect_almost_eq_const %ib, dense<[(0.5, 0.3125), (0.205805826, 0.279029131), (0.0625, -0.25), (0.736135912, -0.912912607), (0.25, -0.5625), (0.294194174, 0.720970869), (-0.8125, 0), (-0.236135912, 0.412912607)]> : tensor<8xcomplex<f32>>
  %m = stablehlo.constant dense<[[(0, -3), (1, -2.5), (2, -2), (3, -1.5), (4, -1)], [(5, -0.5), (6, 0), (7, 0.5), (8, 1), (9, 1.5)], [(10, 2), (11, 2.5), (12, 3), (13, 3.5), (14, 4)]]> : tensor<3x5xcomplex<f64>>
  %fm = stablehlo.fft %m, type = FFT, length = [3, 5] : (tensor<3x5xcomplex<f64>>) -> tensor<3x5xcomplex<f64>>
  check.expect_almost_eq_const %fm, dense<[[(105, 7.5), (-12.661432201766901, 6.5728644035337993), (-8.7184488608733979, -1.313102278253202), (-6.2815511391266021, -6.1868977217467975), (-2.3385677982330999, -14.072864403533801)], [(-48.325317547305481, 2.9006350946109656), (0, -4.4408920985006262e-16), (-3.8459253727671276e-16, 1.3163255441818197e-15), (-3.8459253727671276e-16, 1.0942809392567884e-15), (0, -8.8817841970012523e-16)], [(-26.674682452694519, -40.400635094610962), (0, -4.4408920985006262e-16), (3.8459253727671276e-16, -1.7604147540318824e-15), (3.8459253727671276e-16, -1.9824593589569137e-15), (0, -8.8817841970012523e-16)]]>, tolerance = 1.0e-11 : tensor<3x5xcomplex<f64>>
  %im = stablehlo.fft %m, type = IFFT, length = [5] : (tensor<3x5xcomplex<f64>>) -> tensor<3x5xcomplex<f64>>
  check.expect_almost_eq_const %im, dense<[[(2, -2), (-0.15590451988220666, -0.9381909602355869), (-0.41877007594177346, -0.4124598481164532), (-0.5812299240582266, -0.08754015188354683), (-0.84409548011779345, 0.43819096023558662)], [(7, 0.5), (-0.15590451988220666, -0.93819096023558668), (-0.41877007594177362, -0.4124598481164532), (-0.58122992405822671, -0.08754015188354683), (-0.84409548011779345, 0.43819096023558668)], [(12, 3), (-0.15590451988220666, -0.93819096023558668), (-0.41877007594177329, -0.41245984811645314), (-0.58122992405822638, -0.087540151883546746), (-0.84409548011779345, 0.43819096023558668)]]>, tolerance = 1.0e-13 : tensor<3x5xcomplex<f64>>
  %r = stablehlo.constant dense<[3, -1, 4, 1, -5, 9, 2]> : tensor<7xf32>
  %fr = stablehlo.fft %r, type = RFFT, length = [7] : (tensor<7xf32>) -> tensor<4xcomplex<f32>>
  check.expect_almost_eq_const %fr, dense<[(13, 0), (4.33459313, 4.61683157), (-11.4290754, 5.44635394), (11.0944823, -8.45707367)]> : tensor<4xcomplex<f32>>
  %br = stablehlo.fft %fr, type = IRFFT, length = [7] : (tensor<4xcomplex<f32>>) -> tensor<7xf32>
  check.expect_almost_eq %br, %r : tensor<7xf32>
  %h = stablehlo.constant dense<[(6, 0), (1, -2), (-3, 1), (2, 0)]> : tensor<4xcomplex<f32>>
  %ih = stablehlo.fft %h, type = IRFFT, length = [6] : (tensor<4xcomplex<f32>>) -> tensor<6xf32>
  check.expect_almost_eq_const %ih, dense<[0.666666667, 1.62200847, 2.53269207, -0.666666667, 0.800641263, 1.0446582]> : tensor<6xf32>
  %p = stablehlo.constant dense<[[(2, -1)], [(0.5, 3)]]> : tensor<2x1xcomplex<f32>>
  %fp = stablehlo.fft %p, type = IFFT, length = [1] : (tensor<2x1xcomplex<f32>>) -> tensor<2x1xcomplex<f32>>
  check.expect_eq %fp, %p : tensor<2x1xcomplex<f32>>
  func.return
}
