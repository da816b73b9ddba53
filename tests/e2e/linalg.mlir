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
// -----

// The FFT's lanes (eight lines per transform) and real pairs (two real lines per lane): 17
// real lines of 12 (a full group of 16 and one line alone), 9 complex lines of 30 (Bluestein;
// a group of 8 and one alone), 2-D over a strided dimension, and a real inverse whose
// spectrum has imaginary parts at points 0 and n/2 (ignored, as numpy's irfft ignores them).
// Inputs are cos/sin of iota expressions; expected values from numpy.fft, 17 digits.
func.func @fft_lanes_and_real_pairs() {
  %x_i = stablehlo.iota dim = 0 : tensor<17x12xf64>
  %x_j = stablehlo.iota dim = 1 : tensor<17x12xf64>
  %x_a = stablehlo.constant dense<0.3> : tensor<17x12xf64>
  %x_b = stablehlo.constant dense<0.7> : tensor<17x12xf64>
  %x_c = stablehlo.constant dense<0.2> : tensor<17x12xf64>
  %x_ij = stablehlo.multiply %x_i, %x_j : tensor<17x12xf64>
  %x_t1 = stablehlo.multiply %x_ij, %x_a : tensor<17x12xf64>
  %x_t2 = stablehlo.multiply %x_i, %x_b : tensor<17x12xf64>
  %x_t3 = stablehlo.multiply %x_j, %x_c : tensor<17x12xf64>
  %x_t4 = stablehlo.add %x_t1, %x_t2 : tensor<17x12xf64>
  %x_ph = stablehlo.add %x_t4, %x_t3 : tensor<17x12xf64>
  %x = stablehlo.cosine %x_ph : tensor<17x12xf64>
  %rx = stablehlo.fft %x, type = RFFT, length = [12] : (tensor<17x12xf64>) -> tensor<17x7xcomplex<f64>>
  check.expect_almost_eq_const %rx, dense<[[(4.2347475285491605, 0.0), (0.28033998067481253, -3.8086983274038015), (0.7289310166864108, -1.5671025264872054), (0.8002352751134606, -0.8863651484617209), (0.8233631477653168, -0.5082970984415904), (0.8323514807817065, -0.23527994986621503), (0.8348106694074247, 0.0)], [(-0.5434905509527677, 0.0), (4.8900755216693135, 3.234812563350858), (0.0771949861794281, 0.17149397795462462), (-0.00938687702869126, 0.08520050844487531), (-0.033118160094949056, 0.0470049036161001), (-0.041861987655932964, 0.021441310761183274), (-0.04421016777170578, 0.0)], [(-2.2652328033156337, 0.0), (-4.123106946058451, 0.2444228699352486), (3.703052502163612, -0.3644082531524632), (1.1049134781402714, -0.11880282096558892), (0.6778486226913603, -0.059899010991316726), (0.5384686055492514, -0.02648269711762391), (0.5024859931464384, 0.0)], [(-0.17387262465406123, 0.0), (-0.29744760631396683, 0.2503972762626271), (-4.272829158547748, 3.8546543323486833), (0.6647918713422822, -0.4553441446061973), (0.42451743904383465, -0.1875751249043227), (0.3640573579643098, -0.07825817249924782), (0.3495395624783543, 0.0)], [(-0.6308323218562699, 0.0), (-0.5911876495789834, -0.6011021384144541), (-0.3187847607273132, -2.1958229168041656), (-1.8426659314951457, 4.9233293204688655), (-1.0919860481625392, 1.0816854506936817), (-1.0018280323880961, 0.403865945191866), (-0.9829309214634709, 0.0)], [(-0.8943557777050435, 0.0), (-0.9294093253986261, -0.31866216551064064), (-1.101323468302092, -0.8732008667617195), (-2.9146282533063874, -4.92108565223378), (0.15763313849312238, 1.4794541614974785), (-0.23545611651937193, 0.4300537249985288), (-0.2967564197178021, 0.0)], [(0.5571476747307914, 0.0), (0.5888770851685259, 0.09885132269898245), (0.7228737455132181, 0.23962073493329017), (1.2868392265900601, 0.6091331748971963), (-4.874826835070361, -2.6180023417202665), (-0.7023813046939835, -0.281730295939703), (-0.48304136583411295, 0.0)], [(0.27700619313259434, 0.0), (0.3135198480080592, -0.045881878432090906), (0.45604439717908307, -0.10441062035451776), (0.9037973655699046, -0.211038264805265), (4.044379792739407, -0.7323461431729165), (-3.6242921333926756, 0.35196538194304705), (-2.225756300269251, 0.0)], [(0.055599740710598644, 0.0), (0.0539644010482343, 0.02223854822472804), (0.047850218732827576, 0.04890873795633399), (0.031056906709606258, 0.08942843378510629), (-0.03279115799130383, 0.185950708303247), (4.350763200169067, -4.193561954167038), (0.3495036640755353, 0.0)], [(0.96663241202661, 0.0), (0.9654230320374563, 0.26761664071645663), (0.960995837205802, 0.5788668674975473), (0.9495540948472768, 1.0126231786592226), (0.9138177479883839, 1.8079927439194794), (0.6717478454398852, 4.684975077123191), (2.1085941095367664, 0.0)], [(0.29586383128093274, 0.0), (0.29551607317728773, 0.08064683681046425), (0.29424892233003846, 0.17380857558616428), (0.29101634594256387, 0.30121669256516137), (0.28129649225560577, 0.522615314145571), (0.22759325593474838, 1.136707032019928), (5.971621041558236, 0.0)], [(-0.20744495750873249, 0.0), (-0.19718524786813063, -0.09583400692011312), (-0.15939853672505555, -0.2082853369127627), (-0.060045503008004264, -0.3689205993909396), (0.2669430249290331, -0.685504137718981), (3.4496439670511725, -2.452590277925199), (-4.551984106794914, 0.0)], [(0.3964422379350776, 0.0), (0.41596296335227523, 0.04677466306425848), (0.48995024992239533, 0.10398641810626441), (0.7016780205405484, 0.19597587491663465), (1.6410733705787413, 0.46136771454663994), (-5.605841848739656, -1.0326096200884234), (-1.9135515986438942, 0.0)], [(-0.5567579782333059, 0.0), (-0.5728138834441644, -0.1332833311103243), (-0.6370853549694044, -0.30946939581878263), (-0.8571553037061141, -0.6681739763859222), (-4.018395277988898, -4.4454366918125885), (0.5497509477947963, 0.6594788461956431), (0.25549649728752916, 0.0)], [(-1.0015851165581893, 0.0), (-1.0072656916520144, -0.4056025724359885), (-1.032396972456596, -1.0210319526519802), (-1.1634644759223893, -3.0970792955577955), (-0.6142524555737243, 4.278429105067714), (-0.8354179659273688, 0.8518408702996901), (-0.8579350256346715, 0.0)], [(0.02295093809632931, 0.0), (0.016914720734506283, 0.035591319237506636), (-0.015669054602614862, 0.10568284182255783), (-3.171654598042129, 5.047181333767675), (0.1446981881653176, -0.11105297603821718), (0.10946488956519806, -0.03662437898155364), (0.10309763431120444, 0.0)], [(-0.8907634982693905, 0.0), (-1.17560863828735, 0.2982730884868374), (-3.75242236364206, 1.3907087842410621), (3.474182247837187, -1.2247192939456562), (1.4792054872261438, -0.3839191230874073), (1.1188752841983987, -0.1510873713644929), (1.0383578294297582, 0.0)]]>, tolerance = 1.0e-12 : tensor<17x7xcomplex<f64>>
  %bx = stablehlo.fft %rx, type = IRFFT, length = [12] : (tensor<17x7xcomplex<f64>>) -> tensor<17x12xf64>
  check.expect_almost_eq %bx, %x, tolerance = 1.0e-12 : tensor<17x12xf64>
  %y_i = stablehlo.iota dim = 0 : tensor<9x30xf64>
  %y_j = stablehlo.iota dim = 1 : tensor<9x30xf64>
  %y_a = stablehlo.constant dense<0.11> : tensor<9x30xf64>
  %y_b = stablehlo.constant dense<0.5> : tensor<9x30xf64>
  %y_c = stablehlo.constant dense<0.37> : tensor<9x30xf64>
  %y_ij = stablehlo.multiply %y_i, %y_j : tensor<9x30xf64>
  %y_t1 = stablehlo.multiply %y_ij, %y_a : tensor<9x30xf64>
  %y_t2 = stablehlo.multiply %y_i, %y_b : tensor<9x30xf64>
  %y_t3 = stablehlo.multiply %y_j, %y_c : tensor<9x30xf64>
  %y_t4 = stablehlo.add %y_t1, %y_t2 : tensor<9x30xf64>
  %y_ph = stablehlo.add %y_t4, %y_t3 : tensor<9x30xf64>
  %y_re = stablehlo.cosine %y_ph : tensor<9x30xf64>
  %y_im = stablehlo.sine %y_ph : tensor<9x30xf64>
  %y = stablehlo.complex %y_re, %y_im : tensor<9x30xcomplex<f64>>
  %fy = stablehlo.fft %y, type = FFT, length = [30] : (tensor<9x30xcomplex<f64>>) -> tensor<9x30xcomplex<f64>>
  check.expect_almost_eq_const %fy, dense<[[(-2.2093624130800897, 2.8905773917496145), (-5.733059961883743, 6.0642671029593), (20.79105905086048, -17.825218996160547), (4.276550457397144, -2.95109166745348), (2.535184011141891, -1.382694636385243), (1.8599524731887525, -0.7745336478197633), (1.4951301840552602, -0.44594904899798926), (1.2625423573623715, -0.23646410248819072), (1.0982857733407534, -0.08852307648133562), (0.973731761507469, 0.02365902211546289), (0.8740950915270647, 0.11339881107191607), (0.7909263268934489, 0.1883064468595954), (0.7190026621542613, 0.25308595520665766), (0.6548752700531013, 0.3108435923759617), (0.5961238347790603, 0.36375926492321076), (0.5409421931136912, 0.41345973040739714), (0.4878894344186526, 0.4612427742384121), (0.4357263772493773, 0.5082244903336468), (0.3832945942243997, 0.5554482398246458), (0.32941148744223736, 0.6039791535123494), (0.2727606204465103, 0.6550029066084374), (0.2117548552252809, 0.7099489871745283), (0.14433989523597313, 0.7706676390838861), (0.06768168991375784, 0.8397114074951422), (-0.02237344466105262, 0.9208213921300975), (-0.13230597527196652, 1.019834356919187), (-0.2729685963067764, 1.1465250013195638), (-0.46419789129653877, 1.3187595468744002), (-0.7467640836402418, 1.5732585227247466), (-1.220228035390531, 1.999693439878392)], [(1.2817011437879817, 3.0831100259391406), (1.6786017981107497, 5.640290326386488), (4.766216416906433, 25.533397562578386), (-0.8541513745405798, -10.677915371839674), (0.11104699891048903, -4.459265340072009), (0.3666210642590639, -2.812634229499043), (0.4867201099183749, -2.038851394128009), (0.5577213612455575, -1.5813993863685476), (0.6054893754120287, -1.2736361627819952), (0.6404815386286209, -1.048186117605859), (0.6677442336278319, -0.872536050442213), (0.6900222022141286, -0.7290019398722218), (0.7089469575577108, -0.6070721546014783), (0.7255602147203, -0.5000350573335657), (0.7405702200088977, -0.40332750743269485), (0.7544885196537385, -0.3136536777731544), (0.7677087944862588, -0.22847713296270566), (0.7805561483536955, -0.14570327037295805), (0.7933212085810222, -0.06345961521185334), (0.8062871967282403, 0.02007859291351105), (0.8197555449040024, 0.10685344263854801), (0.8340751241713753, 0.19911266573231273), (0.8496814317060557, 0.299662114960333), (0.867155882762988, 0.4122477746644331), (0.8873240499909418, 0.5421887041382026), (0.9114316148236336, 0.697510670001698), (0.9414855447041741, 0.8911443075493266), (0.9809799012543248, 1.1456014102245613), (1.036634328421364, 1.504175787047067), (1.123299305401772, 2.0625471816500625)], [(-1.8540472470345128, -0.2428118843028932), (-2.7954414635173253, -0.669122913440169), (-5.998263722347863, -2.119523212697513), (25.62089919419607, 12.19923682151282), (3.7529928265479855, 2.296340133343375), (1.904257604261812, 1.4591390953343102), (1.2060679020395897, 1.1429634005234361), (0.8330543348428682, 0.9740439458151584), (0.5967659881842038, 0.8670406028229466), (0.4306041056884957, 0.7917940781578705), (0.30499389844895, 0.734911407985431), (0.20475261680831558, 0.6895170735078717), (0.12124218335704717, 0.6516993153307282), (0.04914232284917619, 0.6190488430890337), (-0.01504909294281348, 0.5899797155663427), (-0.07378232941579407, 0.563382328364513), (-0.1288800744975799, 0.5384312759810399), (-0.18179126768074635, 0.5144704051536515), (-0.233757018450384, 0.4909376785842587), (-0.2859325061717659, 0.4673099724896295), (-0.33949176823403976, 0.4430556232172201), (-0.39573618721505854, 0.41758529875675193), (-0.4562287795277712, 0.39019118603279224), (-0.5229857905842691, 0.35996022690076074), (-0.5987801731977254, 0.3256366877404193), (-0.6876636827122883, 0.2853857283112681), (-0.7959369818029036, 0.23635408911567246), (-0.9341107130584063, 0.17378201830845108), (-1.1213007391383991, 0.08901288411880126), (-1.3965242636506772, -0.03562228138708462)], [(-1.5616141515734963, 2.0354418016266353), (-2.4935167942613115, 2.6280013495256482), (-4.774399804664456, 4.0783234578060075), (-20.23115027048128, 13.906651706340147), (11.232342643986119, -6.099722653697247), (4.705130223449919, -1.9493298296161152), (3.070006935554175, -0.9096204524218364), (2.314316928605901, -0.4291074585134359), (1.8713013507293013, -0.14741160476884874), (1.5747981718837472, 0.041122885379813345), (1.3583812415413945, 0.1787337392684608), (1.190226599504512, 0.28565653795814605), (1.0531139463537482, 0.3728409798091936), (0.9368479362135458, 0.44676987672270985), (0.8349405735236026, 0.511568685092824), (0.7429942571626913, 0.5700336632547582), (0.6578424929852089, 0.6241782579500612), (0.5770565078437424, 0.6755468286989788), (0.4986381417531817, 0.7254099253670825), (0.4208086156592972, 0.7748986022768983), (0.3418421702330195, 0.8251102006323066), (0.25991012534486496, 0.8772075048499923), (0.17290455844352798, 0.9325308584130454), (0.0782035926251532, 0.9927474077824969), (-0.027681879355694994, 1.0600757364425273), (-0.14969111599434992, 1.137656520947635), (-0.2952535476518594, 1.23021383835719), (-0.4762969150019898, 1.345332061005099), (-0.713497265854846, 1.4961582591768936), (-1.0463892185262835, 1.7078309124545656)], [(-0.39230388431345453, -0.9485326998507303), (-0.3876489484764531, -1.311242818588917), (-0.3782100523488114, -2.0467165727038745), (-0.3474336058445059, -4.444800876499842), (-0.7783400540402, 29.131199838132847), (-0.4479670568435166, 3.388712028032651), (-0.42726371417024034, 1.7755186044862867), (-0.4196605442551377, 1.1830836581721305), (-0.41564541172586394, 0.8702266720760431), (-0.41311866400819713, 0.6733438369982163), (-0.4113494912113237, 0.5354908358627425), (-0.4100162678240706, 0.43160678030881927), (-0.40895488339935315, 0.34890427178961925), (-0.40807238895104153, 0.28014077486021494), (-0.4073117432742423, 0.22087166924754814), (-0.4066355171293611, 0.16818048855328274), (-0.4060176025526576, 0.12003291416446826), (-0.405438640129855, 0.07492047084230999), (-0.4048832943796291, 0.03164822605580264), (-0.40433848165197933, -0.010803291227560352), (-0.40379207701550074, -0.05337884919728203), (-0.40323181244472384, -0.09703436585874362), (-0.40264414694997497, -0.14282494790877687), (-0.4020128794997875, -0.19201297108046841), (-0.4013171821902748, -0.2462213345399995), (-0.4005284991570042, -0.3076750960236664), (-0.3996052323731785, -0.37961555159858607), (-0.39848290636425804, -0.46706659586872123), (-0.39705437738715577, -0.578376812174835), (-0.39512573650252, -0.7286554816905282)], [(-2.1071867314227286, -0.27985424130760017), (-2.6372343388825294, -0.6363162857049892), (-3.586282503837624, -1.2745601799331734), (-5.857956195215105, -2.8022822879771705), (-19.559317892664808, -12.016578009652157), (11.769643669633776, 9.052445848154631), (4.081743516424407, 3.8822600626376293), (2.269778938926854, 2.6636966947812795), (1.4467901165932426, 2.110228904347985), (0.9684764205928862, 1.7885584061890265), (0.6500460501674188, 1.5744109612377066), (0.41847787525720515, 1.418679166802367), (0.23904552453756922, 1.298009208729976), (0.093056082640537, 1.1998299241022456), (-0.03051323378507592, 1.1167283865461006), (-0.13865343938873637, 1.0440030723884404), (-0.23608856377595022, 0.9784770269042833), (-0.32620970906825386, 0.9178697017466763), (-0.4116092979755889, 0.8604376680497502), (-0.49441216260760223, 0.8047519560622272), (-0.5765019609848925, 0.749545787895593), (-0.6596981054115811, 0.6935955915152401), (-0.7459200525973875, 0.6356105140746069), (-0.8373713752155822, 0.574108632046401), (-0.9367830159280979, 0.5072533605829412), (-1.0477774800350301, 0.4326085305044549), (-1.175467271715629, 0.3467359342497883), (-1.3275184893026966, 0.24448004796450906), (-1.516195887298601, 0.11759270789422871), (-1.7626689540684102, -0.04816276771430461)], [(0.31602740475820756, -0.4103728297841466), (0.44107362049729626, -0.4631760775048517), (0.6458074560610563, -0.5496290051059518), (1.055151829038359, -0.7224827952158046), (2.338242940384591, -1.2642934961650307), (-27.430082775612913, 11.305973166618564), (-2.164311259945239, 0.6369994251014968), (-1.1599784547296679, 0.21289995440278817), (-0.8019329064609172, 0.06170811170059562), (-0.6151146232532981, -0.017179618157219856), (-0.4983381833347469, -0.06649078881931861), (-0.41693380315698386, -0.10086540484965195), (-0.3557833579348194, -0.12668739464928747), (-0.30722039711423627, -0.147194069202393), (-0.26692258430531823, -0.1642106208811126), (-0.23224705273017915, -0.1788530526635162), (-0.2014651183262854, -0.19185133572266874), (-0.1733746310932147, -0.20371310176808857), (-0.14708699688786042, -0.21481357732212192), (-0.12190078434366475, -0.22544895570808052), (-0.09721992230467658, -0.23587093980814244), (-0.07249440727572458, -0.24631177951991307), (-0.04717022271688305, -0.25700541932885246), (-0.02063847167775837, -0.26820897806354094), (0.007826550200584537, -0.28022889880032026), (0.039154616383255125, -0.29345779684793594), (0.0746165155161792, -0.3084322879470568), (0.1160578107599162, -0.32593169779075026), (0.16632976843250646, -0.3471600302013058), (0.2301525431590728, -0.37411046420036637)], [(-0.6939000350554068, -1.6864061310857492), (-0.6179874698657315, -2.1044138822171234), (-0.5018735255472486, -2.743787991342518), (-0.29600354780020993, -3.8773980361156744), (0.18644341698696854, -6.533961811651232), (2.8185141360139783, -21.027293176891245), (-3.979900471150427, 16.407747966815467), (-2.037148445103197, 5.71010649751536), (-1.609155029036804, 3.353387752707291), (-1.418262148720781, 2.3022481500799445), (-1.3083003404440943, 1.6967503899497425), (-1.2354913042149909, 1.295832025247837), (-1.1827409134212061, 1.0053653261985047), (-1.1419807386979528, 0.7809219955164391), (-1.1088905906049404, 0.5987131825957959), (-1.0809332954388433, 0.44476810050177584), (-1.0565051306285849, 0.31025595207035855), (-1.034525743339386, 0.18922784257287734), (-1.014221986490789, 0.07742648638647043), (-0.9950047569041458, -0.02839197597767884), (-0.976392998537401, -0.13087644926676711), (-0.9579620260472353, -0.23236543653160857), (-0.9393034541994659, -0.3351076853006348), (-0.9199883370203924, -0.4414651595170905), (-0.8995262472243197, -0.5541383660900436), (-0.8773115963267897, -0.6764619398047462), (-0.8525436992245456, -0.8128448026693578), (-0.8240959761112004, -0.9694903953153295), (-0.7902843801546994, -1.1556718153823855), (-0.7484239844140476, -1.3861734436872788)], [(0.16835237552918159, 0.022669752631341744), (0.19427059277306732, 0.04724716072861382), (0.231834560540455, 0.08286785781917755), (0.29288855233669153, 0.14076338582651526), (0.41331814091989216, 0.25496287407620344), (0.7771963442415003, 0.6000168188203112), (-21.664392354900677, -20.680616745591813), (-0.5965624931737982, -0.7026743059851843), (-0.26546165222894225, -0.38870207507599275), (-0.1510949326427341, -0.2802518096288308), (-0.09216061230272449, -0.2243662975852317), (-0.05557547857457079, -0.18967379719181604), (-0.030186505087252957, -0.1655982538511247), (-0.011175911424046461, -0.1475711220374068), (0.0038840658288215174, -0.13329023213682212), (0.01635587380462629, -0.12146361954816218), (0.027069505102035298, -0.11130422910388856), (0.03656612002396408, -0.10229889597149758), (0.04522090733553119, -0.09409184076588817), (0.05331032269916862, -0.08642090951357362), (0.06105183288802861, -0.0790798854990572), (0.06862951386761151, -0.07189421543102417), (0.07621248277444193, -0.06470353099241481), (0.08397033193415024, -0.05734701325969105), (0.09208865601608451, -0.04964866880374075), (0.10078779591122797, -0.04139955547598395), (0.11034908310976219, -0.032332895712993), (0.12115583318767881, -0.022085203737463394), (0.1337630441182439, -0.010130192901138202), (0.14902537948422467, 0.0043425866607207375)]]>, tolerance = 1.0e-12 : tensor<9x30xcomplex<f64>>
  %iy = stablehlo.fft %fy, type = IFFT, length = [30] : (tensor<9x30xcomplex<f64>>) -> tensor<9x30xcomplex<f64>>
  check.expect_almost_eq %iy, %y, tolerance = 1.0e-12 : tensor<9x30xcomplex<f64>>
  %z_i = stablehlo.iota dim = 1 : tensor<3x5x16xf64>
  %z_j = stablehlo.iota dim = 2 : tensor<3x5x16xf64>
  %z_a = stablehlo.constant dense<0.23> : tensor<3x5x16xf64>
  %z_b = stablehlo.constant dense<0.9> : tensor<3x5x16xf64>
  %z_c = stablehlo.constant dense<0.41> : tensor<3x5x16xf64>
  %z_ij = stablehlo.multiply %z_i, %z_j : tensor<3x5x16xf64>
  %z_t1 = stablehlo.multiply %z_ij, %z_a : tensor<3x5x16xf64>
  %z_t2 = stablehlo.multiply %z_i, %z_b : tensor<3x5x16xf64>
  %z_t3 = stablehlo.multiply %z_j, %z_c : tensor<3x5x16xf64>
  %z_t4 = stablehlo.add %z_t1, %z_t2 : tensor<3x5x16xf64>
  %z_ph = stablehlo.add %z_t4, %z_t3 : tensor<3x5x16xf64>
  %z_re = stablehlo.cosine %z_ph : tensor<3x5x16xf64>
  %z_im = stablehlo.sine %z_ph : tensor<3x5x16xf64>
  %z = stablehlo.complex %z_re, %z_im : tensor<3x5x16xcomplex<f64>>
  %fz = stablehlo.fft %z, type = FFT, length = [5, 16] : (tensor<3x5x16xcomplex<f64>>) -> tensor<3x5x16xcomplex<f64>>
  check.expect_almost_eq_const %fz, dense<[[[(-3.2950908505181427, 0.48317194406610786), (6.792894629601973, 3.345058602820073), (1.1329234190683017, 0.04438436510733368), (-0.7202719522998811, -1.6846590564020563), (0.13117383732994042, 9.144683813563491), (0.10148583894702767, 3.8592794313449064), (-0.15079330195799867, 2.584094087624823), (-0.3681346859192564, 1.997317736457363), (-0.5546864632070423, 1.6463486471366773), (-0.7244848881326706, 1.40111687539979), (-0.8897709723521784, 1.210092242493265), (-1.062349157353589, 1.0483277271403464), (-1.2566029491284607, 0.9018305447503167), (-1.4947222728382048, 0.7621445666413323), (-1.8187079860881523, 0.6258757458827735), (-2.3256252015297596, 0.5034763650879646)], [(4.446648427628546, 1.8004950914638804), (21.295505704575024, 8.962990556952843), (19.745419345492913, -11.978688327687298), (7.2923935871531125, -22.370761782362738), (-8.40844693237285, -4.291686866284059), (-2.763663004415103, -3.523524111543871), (-1.1632735779364378, -2.9354197045922272), (-0.32662834535499113, -2.5243169069420066), (0.2300647337279242, -2.2035076001745377), (0.6585131880111499, -1.9279323585200152), (1.0255251483160317, -1.6704394547188044), (1.3694653199828821, -1.410037622653122), (1.7199751204583584, -1.1246303442741843), (2.109440254003742, -0.7826881304357661), (2.5874732160706095, -0.3260164184594868), (3.2575931591662783, 0.38279986125260135)], [(2.455539801680742, 0.1213903041973689), (20.787044605195195, 3.3016722398929637), (-25.229152931257495, -13.19052091913361), (16.689530995763874, 22.058135317812685), (-2.3331713563801673, -5.193177035344757), (-0.5719248308746697, -1.9582624002282545), (-0.1714174303020061, -1.3121953540708324), (0.03839037870639947, -1.0332978491057367), (0.18652079976686464, -0.8693057294362084), (0.30945924512003126, -0.7538147466473792), (0.4237861003338722, -0.6614511464492226), (0.5408688331965298, -0.579594313021331), (0.6726291827178742, -0.49994154066728114), (0.8372071350069369, -0.41460096583740264), (1.071456580461865, -0.3120202391042189), (1.4745142737650163, -0.16618336624918806)], [(3.700585297736845, -0.6046146173520675), (22.34185725455995, -0.32788229308644334), (-1.4756307898585366, 25.92417604972001), (-26.04101415082765, 4.217208914379894), (1.5351246006952337, -7.322358733291326), (0.13151624373900264, -3.3147847248009743), (0.1958649745969748, -2.30368627552253), (0.3565983356947887, -1.8246991791498803), (0.5206156847437896, -1.5325650900063081), (0.6810920593526031, -1.3255736032766534), (0.8439727175754194, -1.162654384578413), (1.0191632212619934, -1.023649685229021), (1.2213329472382828, -0.8972289285734927), (1.4753686494188671, -0.7768784674552545), (1.8316061718999206, -0.6615138086457226), (2.4172031918242016, -0.5670109221120757)], [(-3.9264872537129905, -2.0259389235672094), (7.858122885334988, -4.963282319386505), (2.3244202534414597, -1.9836654441255162), (1.1838455415996965, -3.138665420129737), (8.128563155513415, 6.834167649763274), (2.502602172916445, 4.157225426769784), (0.9196719769038469, 3.2191844481003655), (0.10499366546094663, 2.661373768072501), (-0.4294001094392433, 2.256008857349861), (-0.8353171238418513, 1.9221480357587057), (-1.1785704198932543, 1.619296908375806), (-1.4958709187182262, 1.3201821898163293), (-1.8141401188304525, 0.9991462388166183), (-2.1606078385247303, 0.6223309148230646), (-2.573029414062545, 0.13024525679826573), (-3.11857663482915, -0.6120536149986582)]], [[(-3.2950908505181427, 0.48317194406610786), (6.792894629601973, 3.345058602820073), (1.1329234190683017, 0.04438436510733368), (-0.7202719522998811, -1.6846590564020563), (0.13117383732994042, 9.144683813563491), (0.10148583894702767, 3.8592794313449064), (-0.15079330195799867, 2.584094087624823), (-0.3681346859192564, 1.997317736457363), (-0.5546864632070423, 1.6463486471366773), (-0.7244848881326706, 1.40111687539979), (-0.8897709723521784, 1.210092242493265), (-1.062349157353589, 1.0483277271403464), (-1.2566029491284607, 0.9018305447503167), (-1.4947222728382048, 0.7621445666413323), (-1.8187079860881523, 0.6258757458827735), (-2.3256252015297596, 0.5034763650879646)], [(4.446648427628546, 1.8004950914638804), (21.295505704575024, 8.962990556952843), (19.745419345492913, -11.978688327687298), (7.2923935871531125, -22.370761782362738), (-8.40844693237285, -4.291686866284059), (-2.763663004415103, -3.523524111543871), (-1.1632735779364378, -2.9354197045922272), (-0.32662834535499113, -2.5243169069420066), (0.2300647337279242, -2.2035076001745377), (0.6585131880111499, -1.9279323585200152), (1.0255251483160317, -1.6704394547188044), (1.3694653199828821, -1.410037622653122), (1.7199751204583584, -1.1246303442741843), (2.109440254003742, -0.7826881304357661), (2.5874732160706095, -0.3260164184594868), (3.2575931591662783, 0.38279986125260135)], [(2.455539801680742, 0.1213903041973689), (20.787044605195195, 3.3016722398929637), (-25.229152931257495, -13.19052091913361), (16.689530995763874, 22.058135317812685), (-2.3331713563801673, -5.193177035344757), (-0.5719248308746697, -1.9582624002282545), (-0.1714174303020061, -1.3121953540708324), (0.03839037870639947, -1.0332978491057367), (0.18652079976686464, -0.8693057294362084), (0.30945924512003126, -0.7538147466473792), (0.4237861003338722, -0.6614511464492226), (0.5408688331965298, -0.579594313021331), (0.6726291827178742, -0.49994154066728114), (0.8372071350069369, -0.41460096583740264), (1.071456580461865, -0.3120202391042189), (1.4745142737650163, -0.16618336624918806)], [(3.700585297736845, -0.6046146173520675), (22.34185725455995, -0.32788229308644334), (-1.4756307898585366, 25.92417604972001), (-26.04101415082765, 4.217208914379894), (1.5351246006952337, -7.322358733291326), (0.13151624373900264, -3.3147847248009743), (0.1958649745969748, -2.30368627552253), (0.3565983356947887, -1.8246991791498803), (0.5206156847437896, -1.5325650900063081), (0.6810920593526031, -1.3255736032766534), (0.8439727175754194, -1.162654384578413), (1.0191632212619934, -1.023649685229021), (1.2213329472382828, -0.8972289285734927), (1.4753686494188671, -0.7768784674552545), (1.8316061718999206, -0.6615138086457226), (2.4172031918242016, -0.5670109221120757)], [(-3.9264872537129905, -2.0259389235672094), (7.858122885334988, -4.963282319386505), (2.3244202534414597, -1.9836654441255162), (1.1838455415996965, -3.138665420129737), (8.128563155513415, 6.834167649763274), (2.502602172916445, 4.157225426769784), (0.9196719769038469, 3.2191844481003655), (0.10499366546094663, 2.661373768072501), (-0.4294001094392433, 2.256008857349861), (-0.8353171238418513, 1.9221480357587057), (-1.1785704198932543, 1.619296908375806), (-1.4958709187182262, 1.3201821898163293), (-1.8141401188304525, 0.9991462388166183), (-2.1606078385247303, 0.6223309148230646), (-2.573029414062545, 0.13024525679826573), (-3.11857663482915, -0.6120536149986582)]], [[(-3.2950908505181427, 0.48317194406610786), (6.792894629601973, 3.345058602820073), (1.1329234190683017, 0.04438436510733368), (-0.7202719522998811, -1.6846590564020563), (0.13117383732994042, 9.144683813563491), (0.10148583894702767, 3.8592794313449064), (-0.15079330195799867, 2.584094087624823), (-0.3681346859192564, 1.997317736457363), (-0.5546864632070423, 1.6463486471366773), (-0.7244848881326706, 1.40111687539979), (-0.8897709723521784, 1.210092242493265), (-1.062349157353589, 1.0483277271403464), (-1.2566029491284607, 0.9018305447503167), (-1.4947222728382048, 0.7621445666413323), (-1.8187079860881523, 0.6258757458827735), (-2.3256252015297596, 0.5034763650879646)], [(4.446648427628546, 1.8004950914638804), (21.295505704575024, 8.962990556952843), (19.745419345492913, -11.978688327687298), (7.2923935871531125, -22.370761782362738), (-8.40844693237285, -4.291686866284059), (-2.763663004415103, -3.523524111543871), (-1.1632735779364378, -2.9354197045922272), (-0.32662834535499113, -2.5243169069420066), (0.2300647337279242, -2.2035076001745377), (0.6585131880111499, -1.9279323585200152), (1.0255251483160317, -1.6704394547188044), (1.3694653199828821, -1.410037622653122), (1.7199751204583584, -1.1246303442741843), (2.109440254003742, -0.7826881304357661), (2.5874732160706095, -0.3260164184594868), (3.2575931591662783, 0.38279986125260135)], [(2.455539801680742, 0.1213903041973689), (20.787044605195195, 3.3016722398929637), (-25.229152931257495, -13.19052091913361), (16.689530995763874, 22.058135317812685), (-2.3331713563801673, -5.193177035344757), (-0.5719248308746697, -1.9582624002282545), (-0.1714174303020061, -1.3121953540708324), (0.03839037870639947, -1.0332978491057367), (0.18652079976686464, -0.8693057294362084), (0.30945924512003126, -0.7538147466473792), (0.4237861003338722, -0.6614511464492226), (0.5408688331965298, -0.579594313021331), (0.6726291827178742, -0.49994154066728114), (0.8372071350069369, -0.41460096583740264), (1.071456580461865, -0.3120202391042189), (1.4745142737650163, -0.16618336624918806)], [(3.700585297736845, -0.6046146173520675), (22.34185725455995, -0.32788229308644334), (-1.4756307898585366, 25.92417604972001), (-26.04101415082765, 4.217208914379894), (1.5351246006952337, -7.322358733291326), (0.13151624373900264, -3.3147847248009743), (0.1958649745969748, -2.30368627552253), (0.3565983356947887, -1.8246991791498803), (0.5206156847437896, -1.5325650900063081), (0.6810920593526031, -1.3255736032766534), (0.8439727175754194, -1.162654384578413), (1.0191632212619934, -1.023649685229021), (1.2213329472382828, -0.8972289285734927), (1.4753686494188671, -0.7768784674552545), (1.8316061718999206, -0.6615138086457226), (2.4172031918242016, -0.5670109221120757)], [(-3.9264872537129905, -2.0259389235672094), (7.858122885334988, -4.963282319386505), (2.3244202534414597, -1.9836654441255162), (1.1838455415996965, -3.138665420129737), (8.128563155513415, 6.834167649763274), (2.502602172916445, 4.157225426769784), (0.9196719769038469, 3.2191844481003655), (0.10499366546094663, 2.661373768072501), (-0.4294001094392433, 2.256008857349861), (-0.8353171238418513, 1.9221480357587057), (-1.1785704198932543, 1.619296908375806), (-1.4958709187182262, 1.3201821898163293), (-1.8141401188304525, 0.9991462388166183), (-2.1606078385247303, 0.6223309148230646), (-2.573029414062545, 0.13024525679826573), (-3.11857663482915, -0.6120536149986582)]]]>, tolerance = 1.0e-12 : tensor<3x5x16xcomplex<f64>>
  %s = stablehlo.constant dense<[[(1.0, 2.0), (0.5, -1.0), (2.0, 0.25), (-1.0, 1.0), (3.0, -4.0)], [(0.0, 1.0), (1.0, 1.0), (-2.0, 0.5), (0.5, 0.5), (1.0, 7.0)], [(2.0, -3.0), (0.0, 0.0), (1.0, -1.0), (4.0, 2.0), (-1.0, 0.5)]]> : tensor<3x5xcomplex<f64>>
  %is = stablehlo.fft %s, type = IRFFT, length = [8] : (tensor<3x5xcomplex<f64>>) -> tensor<3x8xf64>
  check.expect_almost_eq_const %is, dense<[[0.875, -0.047334957055044646, 0.5, -0.45266504294495535, 1.125, -0.5776650429449554, -0.5, 0.07766504294495535], [0.0, -0.4267766952966369, 0.5, -0.3535533905932738, -0.75, -0.07322330470336308, 0.75, 0.3535533905932738], [1.375, -0.4356601717798214, 0.375, 0.4785533905932738, -0.625, 1.6856601717798214, -0.625, -0.2285533905932738]]>, tolerance = 1.0e-12 : tensor<3x8xf64>
  func.return
}

// -----

// Transforms large enough to be spread over the intra-op threads (groups of lines per thread):
// round trips of 32 x 2048 complex (radix 2), 24 x 3000 complex (Bluestein) and 64 x 1024 real.
func.func @fft_round_trips_over_threads() {
  %u_i = stablehlo.iota dim = 0 : tensor<32x2048xf64>
  %u_j = stablehlo.iota dim = 1 : tensor<32x2048xf64>
  %u_a = stablehlo.constant dense<0.013> : tensor<32x2048xf64>
  %u_b = stablehlo.constant dense<0.7> : tensor<32x2048xf64>
  %u_c = stablehlo.constant dense<0.29> : tensor<32x2048xf64>
  %u_ij = stablehlo.multiply %u_i, %u_j : tensor<32x2048xf64>
  %u_t1 = stablehlo.multiply %u_ij, %u_a : tensor<32x2048xf64>
  %u_t2 = stablehlo.multiply %u_i, %u_b : tensor<32x2048xf64>
  %u_t3 = stablehlo.multiply %u_j, %u_c : tensor<32x2048xf64>
  %u_t4 = stablehlo.add %u_t1, %u_t2 : tensor<32x2048xf64>
  %u_ph = stablehlo.add %u_t4, %u_t3 : tensor<32x2048xf64>
  %u_re = stablehlo.cosine %u_ph : tensor<32x2048xf64>
  %u_im = stablehlo.sine %u_ph : tensor<32x2048xf64>
  %u = stablehlo.complex %u_re, %u_im : tensor<32x2048xcomplex<f64>>
  %fu = stablehlo.fft %u, type = FFT, length = [2048] : (tensor<32x2048xcomplex<f64>>) -> tensor<32x2048xcomplex<f64>>
  %bu = stablehlo.fft %fu, type = IFFT, length = [2048] : (tensor<32x2048xcomplex<f64>>) -> tensor<32x2048xcomplex<f64>>
  check.expect_almost_eq %bu, %u, tolerance = 1.0e-12 : tensor<32x2048xcomplex<f64>>
  %v_i = stablehlo.iota dim = 0 : tensor<24x3000xf64>
  %v_j = stablehlo.iota dim = 1 : tensor<24x3000xf64>
  %v_a = stablehlo.constant dense<0.013> : tensor<24x3000xf64>
  %v_b = stablehlo.constant dense<0.7> : tensor<24x3000xf64>
  %v_c = stablehlo.constant dense<0.29> : tensor<24x3000xf64>
  %v_ij = stablehlo.multiply %v_i, %v_j : tensor<24x3000xf64>
  %v_t1 = stablehlo.multiply %v_ij, %v_a : tensor<24x3000xf64>
  %v_t2 = stablehlo.multiply %v_i, %v_b : tensor<24x3000xf64>
  %v_t3 = stablehlo.multiply %v_j, %v_c : tensor<24x3000xf64>
  %v_t4 = stablehlo.add %v_t1, %v_t2 : tensor<24x3000xf64>
  %v_ph = stablehlo.add %v_t4, %v_t3 : tensor<24x3000xf64>
  %v_re = stablehlo.cosine %v_ph : tensor<24x3000xf64>
  %v_im = stablehlo.sine %v_ph : tensor<24x3000xf64>
  %v = stablehlo.complex %v_re, %v_im : tensor<24x3000xcomplex<f64>>
  %fv = stablehlo.fft %v, type = FFT, length = [3000] : (tensor<24x3000xcomplex<f64>>) -> tensor<24x3000xcomplex<f64>>
  %bv = stablehlo.fft %fv, type = IFFT, length = [3000] : (tensor<24x3000xcomplex<f64>>) -> tensor<24x3000xcomplex<f64>>
  check.expect_almost_eq %bv, %v, tolerance = 1.0e-12 : tensor<24x3000xcomplex<f64>>
  %w_i = stablehlo.iota dim = 0 : tensor<64x1024xf64>
  %w_j = stablehlo.iota dim = 1 : tensor<64x1024xf64>
  %w_a = stablehlo.constant dense<0.013> : tensor<64x1024xf64>
  %w_b = stablehlo.constant dense<0.7> : tensor<64x1024xf64>
  %w_c = stablehlo.constant dense<0.29> : tensor<64x1024xf64>
  %w_ij = stablehlo.multiply %w_i, %w_j : tensor<64x1024xf64>
  %w_t1 = stablehlo.multiply %w_ij, %w_a : tensor<64x1024xf64>
  %w_t2 = stablehlo.multiply %w_i, %w_b : tensor<64x1024xf64>
  %w_t3 = stablehlo.multiply %w_j, %w_c : tensor<64x1024xf64>
  %w_t4 = stablehlo.add %w_t1, %w_t2 : tensor<64x1024xf64>
  %w_ph = stablehlo.add %w_t4, %w_t3 : tensor<64x1024xf64>
  %w = stablehlo.cosine %w_ph : tensor<64x1024xf64>
  %fw = stablehlo.fft %w, type = RFFT, length = [1024] : (tensor<64x1024xf64>) -> tensor<64x513xcomplex<f64>>
  %bw = stablehlo.fft %fw, type = IRFFT, length = [1024] : (tensor<64x513xcomplex<f64>>) -> tensor<64x1024xf64>
  check.expect_almost_eq %bw, %w, tolerance = 1.0e-12 : tensor<64x1024xf64>
  func.return
}
