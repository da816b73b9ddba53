// Hand-written: gesdd / gesvd (jnp.linalg.svd) past the smallest sizes, through the paths of the
// bidiagonal divide and conquer (lapack_svd.cc): merges with and without an extra column, the
// deflations (negligible weights, equal singular values rotated together, values at zero rotated
// into the zero pole), singular values alone, wide matrices (A^H), complex matrices and batches.
// Each is checked by identities computed in the program: U diag(s) V^H = A, orthonormal columns
// of U and rows of V^H, descending s.
// A 100 x 80 float64 matrix from iotas, thin factors; its singular values alone (mode 'N', the
// merges on two rows of V) agree with those of the full solve.
func.func @gesdd_dc_100x80_thin() {
  %i = stablehlo.iota dim = 0 : tensor<100x80xi32>
  %j = stablehlo.iota dim = 1 : tensor<100x80xi32>
  %ca = stablehlo.constant dense<7> : tensor<100x80xi32>
  %cb = stablehlo.constant dense<13> : tensor<100x80xi32>
  %cm = stablehlo.constant dense<17> : tensor<100x80xi32>
  %ia = stablehlo.multiply %i, %ca : tensor<100x80xi32>
  %jb = stablehlo.multiply %j, %cb : tensor<100x80xi32>
  %sum = stablehlo.add %ia, %jb : tensor<100x80xi32>
  %r = stablehlo.remainder %sum, %cm : tensor<100x80xi32>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<100x80xi32>, tensor<100x80xi32>) -> tensor<100x80xi1>
  %cd = stablehlo.constant dense<20> : tensor<100x80xi32>
  %c0 = stablehlo.constant dense<0> : tensor<100x80xi32>
  %d = stablehlo.select %eq, %cd, %c0 : tensor<100x80xi1>, tensor<100x80xi32>
  %ai = stablehlo.add %r, %d : tensor<100x80xi32>
  %a = stablehlo.convert %ai : (tensor<100x80xi32>) -> tensor<100x80xf64>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<100x80xf64>) -> (tensor<100x80xf64>, tensor<80xf64>, tensor<100x80xf64>, tensor<80x80xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<80xf64>) -> tensor<100x80xf64>
  %us = stablehlo.multiply %u, %sb : tensor<100x80xf64>
  %rec = stablehlo.dot_general %us, %vt, contracting_dims = [1] x [0] : (tensor<100x80xf64>, tensor<80x80xf64>) -> tensor<100x80xf64>
  check.expect_almost_eq %rec, %a, tolerance = 1.0e-11 : tensor<100x80xf64>
  %utu = stablehlo.dot_general %u, %u, contracting_dims = [0] x [0] : (tensor<100x80xf64>, tensor<100x80xf64>) -> tensor<80x80xf64>
  %eui = stablehlo.iota dim = 0 : tensor<80x80xi32>
  %euj = stablehlo.iota dim = 1 : tensor<80x80xi32>
  %eue = stablehlo.compare EQ, %eui, %euj, SIGNED : (tensor<80x80xi32>, tensor<80x80xi32>) -> tensor<80x80xi1>
  %eu1 = stablehlo.constant dense<1.0> : tensor<80x80xf64>
  %eu0 = stablehlo.constant dense<0.0> : tensor<80x80xf64>
  %eu = stablehlo.select %eue, %eu1, %eu0 : tensor<80x80xi1>, tensor<80x80xf64>
  check.expect_almost_eq %utu, %eu, tolerance = 1.0e-13 : tensor<80x80xf64>
  %vvt = stablehlo.dot_general %vt, %vt, contracting_dims = [1] x [1] : (tensor<80x80xf64>, tensor<80x80xf64>) -> tensor<80x80xf64>
  %evi = stablehlo.iota dim = 0 : tensor<80x80xi32>
  %evj = stablehlo.iota dim = 1 : tensor<80x80xi32>
  %eve = stablehlo.compare EQ, %evi, %evj, SIGNED : (tensor<80x80xi32>, tensor<80x80xi32>) -> tensor<80x80xi1>
  %ev1 = stablehlo.constant dense<1.0> : tensor<80x80xf64>
  %ev0 = stablehlo.constant dense<0.0> : tensor<80x80xf64>
  %ev = stablehlo.select %eve, %ev1, %ev0 : tensor<80x80xi1>, tensor<80x80xf64>
  check.expect_almost_eq %vvt, %ev, tolerance = 1.0e-13 : tensor<80x80xf64>
  %s_hi = stablehlo.slice %s [0:79] : (tensor<80xf64>) -> tensor<79xf64>
  %s_lo = stablehlo.slice %s [1:80] : (tensor<80xf64>) -> tensor<79xf64>
  %desc = stablehlo.compare GE, %s_hi, %s_lo : (tensor<79xf64>, tensor<79xf64>) -> tensor<79xi1>
  %t = stablehlo.constant dense<true> : tensor<79xi1>
  check.expect_eq %desc, %t : tensor<79xi1>
  %xn, %sn, %un, %vtn, %infon = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8}} : (tensor<100x80xf64>) -> (tensor<100x80xf64>, tensor<80xf64>, tensor<100x80xf64>, tensor<80x80xf64>, tensor<i32>)
  check.expect_eq_const %infon, dense<0> : tensor<i32>
  check.expect_almost_eq %sn, %s, tolerance = 1.0e-12 : tensor<80xf64>
  func.return
}

// -----

// Rank 5: a 64 x 64 matrix whose entries depend on (i mod 5, j mod 5) only, so 59 singular values are
// zero (deflated as negligible weights or rotated into the zero pole). Full factors.
func.func @gesdd_dc_rank_deficient_64() {
  %i = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %j = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %c5 = stablehlo.constant dense<5> : tensor<64x64xi32>
  %c3 = stablehlo.constant dense<3> : tensor<64x64xi32>
  %c11 = stablehlo.constant dense<11> : tensor<64x64xi32>
  %im = stablehlo.remainder %i, %c5 : tensor<64x64xi32>
  %jm = stablehlo.remainder %j, %c5 : tensor<64x64xi32>
  %one = stablehlo.constant dense<1> : tensor<64x64xi32>
  %p = stablehlo.multiply %im, %jm : tensor<64x64xi32>
  %p3 = stablehlo.multiply %p, %c3 : tensor<64x64xi32>
  %pi = stablehlo.multiply %p, %im : tensor<64x64xi32>
  %q1 = stablehlo.add %p3, %pi : tensor<64x64xi32>
  %q2 = stablehlo.add %q1, %jm : tensor<64x64xi32>
  %q = stablehlo.add %q2, %one : tensor<64x64xi32>
  %r = stablehlo.remainder %q, %c11 : tensor<64x64xi32>
  %a = stablehlo.convert %r : (tensor<64x64xi32>) -> tensor<64x64xf64>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<64x64xf64>) -> (tensor<64x64xf64>, tensor<64xf64>, tensor<64x64xf64>, tensor<64x64xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<64xf64>) -> tensor<64x64xf64>
  %us = stablehlo.multiply %u, %sb : tensor<64x64xf64>
  %rec = stablehlo.dot_general %us, %vt, contracting_dims = [1] x [0] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  check.expect_almost_eq %rec, %a, tolerance = 1.0e-11 : tensor<64x64xf64>
  %utu = stablehlo.dot_general %u, %u, contracting_dims = [0] x [0] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %eui = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %euj = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %eue = stablehlo.compare EQ, %eui, %euj, SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
  %eu1 = stablehlo.constant dense<1.0> : tensor<64x64xf64>
  %eu0 = stablehlo.constant dense<0.0> : tensor<64x64xf64>
  %eu = stablehlo.select %eue, %eu1, %eu0 : tensor<64x64xi1>, tensor<64x64xf64>
  check.expect_almost_eq %utu, %eu, tolerance = 1.0e-13 : tensor<64x64xf64>
  %vvt = stablehlo.dot_general %vt, %vt, contracting_dims = [1] x [1] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %evi = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %evj = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %eve = stablehlo.compare EQ, %evi, %evj, SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
  %ev1 = stablehlo.constant dense<1.0> : tensor<64x64xf64>
  %ev0 = stablehlo.constant dense<0.0> : tensor<64x64xf64>
  %ev = stablehlo.select %eve, %ev1, %ev0 : tensor<64x64xi1>, tensor<64x64xf64>
  check.expect_almost_eq %vvt, %ev, tolerance = 1.0e-13 : tensor<64x64xf64>
  %s_hi = stablehlo.slice %s [0:63] : (tensor<64xf64>) -> tensor<63xf64>
  %s_lo = stablehlo.slice %s [1:64] : (tensor<64xf64>) -> tensor<63xf64>
  %desc = stablehlo.compare GE, %s_hi, %s_lo : (tensor<63xf64>, tensor<63xf64>) -> tensor<63xi1>
  %t = stablehlo.constant dense<true> : tensor<63xi1>
  check.expect_eq %desc, %t : tensor<63xi1>
  %tail = stablehlo.slice %s [5:64] : (tensor<64xf64>) -> tensor<59xf64>
  check.expect_almost_eq_const %tail, dense<0.0>, tolerance = 1.0e-12 : tensor<59xf64>
  %head = stablehlo.slice %s [4:5] : (tensor<64xf64>) -> tensor<1xf64>
  %small = stablehlo.constant dense<0.1> : tensor<1xf64>
  %big = stablehlo.compare GT, %head, %small : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xi1>
  check.expect_eq_const %big, dense<true> : tensor<1xi1>
  func.return
}

// -----

// Equal singular values: a 96 x 96 block-diagonal matrix of twelve identical 8 x 8 blocks, so each
// of the block's eight singular values appears twelve times (pairs rotated together in the
// merges). s against the block's own singular values, each repeated.
func.func @gesdd_dc_repeated_96() {
  %i = stablehlo.iota dim = 0 : tensor<96x96xi32>
  %j = stablehlo.iota dim = 1 : tensor<96x96xi32>
  %c8 = stablehlo.constant dense<8> : tensor<96x96xi32>
  %bi = stablehlo.divide %i, %c8 : tensor<96x96xi32>
  %bj = stablehlo.divide %j, %c8 : tensor<96x96xi32>
  %same = stablehlo.compare EQ, %bi, %bj, SIGNED : (tensor<96x96xi32>, tensor<96x96xi32>) -> tensor<96x96xi1>
  %im = stablehlo.remainder %i, %c8 : tensor<96x96xi32>
  %jm = stablehlo.remainder %j, %c8 : tensor<96x96xi32>
  %c5 = stablehlo.constant dense<5> : tensor<96x96xi32>
  %c3 = stablehlo.constant dense<3> : tensor<96x96xi32>
  %c13 = stablehlo.constant dense<13> : tensor<96x96xi32>
  %i5 = stablehlo.multiply %im, %c5 : tensor<96x96xi32>
  %j3 = stablehlo.multiply %jm, %c3 : tensor<96x96xi32>
  %ij = stablehlo.multiply %im, %jm : tensor<96x96xi32>
  %s1 = stablehlo.add %i5, %j3 : tensor<96x96xi32>
  %s2 = stablehlo.add %s1, %ij : tensor<96x96xi32>
  %v = stablehlo.remainder %s2, %c13 : tensor<96x96xi32>
  %z = stablehlo.constant dense<0> : tensor<96x96xi32>
  %ai = stablehlo.select %same, %v, %z : tensor<96x96xi1>, tensor<96x96xi32>
  %a = stablehlo.convert %ai : (tensor<96x96xi32>) -> tensor<96x96xf64>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<96x96xf64>) -> (tensor<96x96xf64>, tensor<96xf64>, tensor<96x96xf64>, tensor<96x96xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<96xf64>) -> tensor<96x96xf64>
  %us = stablehlo.multiply %u, %sb : tensor<96x96xf64>
  %rec = stablehlo.dot_general %us, %vt, contracting_dims = [1] x [0] : (tensor<96x96xf64>, tensor<96x96xf64>) -> tensor<96x96xf64>
  check.expect_almost_eq %rec, %a, tolerance = 1.0e-11 : tensor<96x96xf64>
  %utu = stablehlo.dot_general %u, %u, contracting_dims = [0] x [0] : (tensor<96x96xf64>, tensor<96x96xf64>) -> tensor<96x96xf64>
  %eui = stablehlo.iota dim = 0 : tensor<96x96xi32>
  %euj = stablehlo.iota dim = 1 : tensor<96x96xi32>
  %eue = stablehlo.compare EQ, %eui, %euj, SIGNED : (tensor<96x96xi32>, tensor<96x96xi32>) -> tensor<96x96xi1>
  %eu1 = stablehlo.constant dense<1.0> : tensor<96x96xf64>
  %eu0 = stablehlo.constant dense<0.0> : tensor<96x96xf64>
  %eu = stablehlo.select %eue, %eu1, %eu0 : tensor<96x96xi1>, tensor<96x96xf64>
  check.expect_almost_eq %utu, %eu, tolerance = 1.0e-13 : tensor<96x96xf64>
  %vvt = stablehlo.dot_general %vt, %vt, contracting_dims = [1] x [1] : (tensor<96x96xf64>, tensor<96x96xf64>) -> tensor<96x96xf64>
  %evi = stablehlo.iota dim = 0 : tensor<96x96xi32>
  %evj = stablehlo.iota dim = 1 : tensor<96x96xi32>
  %eve = stablehlo.compare EQ, %evi, %evj, SIGNED : (tensor<96x96xi32>, tensor<96x96xi32>) -> tensor<96x96xi1>
  %ev1 = stablehlo.constant dense<1.0> : tensor<96x96xf64>
  %ev0 = stablehlo.constant dense<0.0> : tensor<96x96xf64>
  %ev = stablehlo.select %eve, %ev1, %ev0 : tensor<96x96xi1>, tensor<96x96xf64>
  check.expect_almost_eq %vvt, %ev, tolerance = 1.0e-13 : tensor<96x96xf64>
  %s_hi = stablehlo.slice %s [0:95] : (tensor<96xf64>) -> tensor<95xf64>
  %s_lo = stablehlo.slice %s [1:96] : (tensor<96xf64>) -> tensor<95xf64>
  %desc = stablehlo.compare GE, %s_hi, %s_lo : (tensor<95xf64>, tensor<95xf64>) -> tensor<95xi1>
  %t = stablehlo.constant dense<true> : tensor<95xi1>
  check.expect_eq %desc, %t : tensor<95xi1>
  %blk = stablehlo.slice %a [0:8, 0:8] : (tensor<96x96xf64>) -> tensor<8x8xf64>
  %xb, %sb8, %ub, %vtb, %infob = stablehlo.custom_call @lapack_dgesdd_ffi(%blk) {mhlo.backend_config = {mode = 78 : ui8}} : (tensor<8x8xf64>) -> (tensor<8x8xf64>, tensor<8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<i32>)
  %rep = stablehlo.broadcast_in_dim %sb8, dims = [0] : (tensor<8xf64>) -> tensor<8x12xf64>
  %want = stablehlo.reshape %rep : (tensor<8x12xf64>) -> tensor<96xf64>
  check.expect_almost_eq %s, %want, tolerance = 1.0e-11 : tensor<96xf64>
  func.return
}

// -----

// A wide 30 x 70 complex128 matrix (solved as its conjugate transpose), full factors: V^H is
// 70 x 70 and unitary.
func.func @zgesdd_dc_wide_30x70_full() {
  %i = stablehlo.iota dim = 0 : tensor<30x70xi32>
  %j = stablehlo.iota dim = 1 : tensor<30x70xi32>
  %ca = stablehlo.constant dense<7> : tensor<30x70xi32>
  %cb = stablehlo.constant dense<13> : tensor<30x70xi32>
  %cm = stablehlo.constant dense<17> : tensor<30x70xi32>
  %ia = stablehlo.multiply %i, %ca : tensor<30x70xi32>
  %jb = stablehlo.multiply %j, %cb : tensor<30x70xi32>
  %sum = stablehlo.add %ia, %jb : tensor<30x70xi32>
  %r = stablehlo.remainder %sum, %cm : tensor<30x70xi32>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<30x70xi32>, tensor<30x70xi32>) -> tensor<30x70xi1>
  %cd = stablehlo.constant dense<20> : tensor<30x70xi32>
  %c0 = stablehlo.constant dense<0> : tensor<30x70xi32>
  %d = stablehlo.select %eq, %cd, %c0 : tensor<30x70xi1>, tensor<30x70xi32>
  %ai = stablehlo.add %r, %d : tensor<30x70xi32>
  %re = stablehlo.convert %ai : (tensor<30x70xi32>) -> tensor<30x70xf64>
  %i2 = stablehlo.iota dim = 0 : tensor<30x70xi32>
  %j2 = stablehlo.iota dim = 1 : tensor<30x70xi32>
  %c9 = stablehlo.constant dense<9> : tensor<30x70xi32>
  %c4 = stablehlo.constant dense<4> : tensor<30x70xi32>
  %c19 = stablehlo.constant dense<19> : tensor<30x70xi32>
  %i9 = stablehlo.multiply %i2, %c9 : tensor<30x70xi32>
  %j4 = stablehlo.multiply %j2, %c4 : tensor<30x70xi32>
  %s94 = stablehlo.add %i9, %j4 : tensor<30x70xi32>
  %imi = stablehlo.remainder %s94, %c19 : tensor<30x70xi32>
  %im = stablehlo.convert %imi : (tensor<30x70xi32>) -> tensor<30x70xf64>
  %a = stablehlo.complex %re, %im : tensor<30x70xcomplex<f64>>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_zgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<30x70xcomplex<f64>>) -> (tensor<30x70xcomplex<f64>>, tensor<30xf64>, tensor<30x30xcomplex<f64>>, tensor<70x70xcomplex<f64>>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %vk = stablehlo.slice %vt [0:30, 0:70] : (tensor<70x70xcomplex<f64>>) -> tensor<30x70xcomplex<f64>>
  %sc = stablehlo.convert %s : (tensor<30xf64>) -> tensor<30xcomplex<f64>>
  %sb = stablehlo.broadcast_in_dim %sc, dims = [1] : (tensor<30xcomplex<f64>>) -> tensor<30x30xcomplex<f64>>
  %us = stablehlo.multiply %u, %sb : tensor<30x30xcomplex<f64>>
  %rec = stablehlo.dot_general %us, %vk, contracting_dims = [1] x [0] : (tensor<30x30xcomplex<f64>>, tensor<30x70xcomplex<f64>>) -> tensor<30x70xcomplex<f64>>
  check.expect_almost_eq %rec, %a, tolerance = 1.0e-11 : tensor<30x70xcomplex<f64>>
  %uc = stablehlo.real %u : (tensor<30x30xcomplex<f64>>) -> tensor<30x30xf64>
  %ui = stablehlo.imag %u : (tensor<30x30xcomplex<f64>>) -> tensor<30x30xf64>
  %uin = stablehlo.negate %ui : tensor<30x30xf64>
  %uconj = stablehlo.complex %uc, %uin : tensor<30x30xcomplex<f64>>
  %utu = stablehlo.dot_general %uconj, %u, contracting_dims = [0] x [0] : (tensor<30x30xcomplex<f64>>, tensor<30x30xcomplex<f64>>) -> tensor<30x30xcomplex<f64>>
  %eui = stablehlo.iota dim = 0 : tensor<30x30xi32>
  %euj = stablehlo.iota dim = 1 : tensor<30x30xi32>
  %eue = stablehlo.compare EQ, %eui, %euj, SIGNED : (tensor<30x30xi32>, tensor<30x30xi32>) -> tensor<30x30xi1>
  %eu1 = stablehlo.constant dense<(1.0, 0.0)> : tensor<30x30xcomplex<f64>>
  %eu0 = stablehlo.constant dense<(0.0, 0.0)> : tensor<30x30xcomplex<f64>>
  %eu = stablehlo.select %eue, %eu1, %eu0 : tensor<30x30xi1>, tensor<30x30xcomplex<f64>>
  check.expect_almost_eq %utu, %eu, tolerance = 1.0e-13 : tensor<30x30xcomplex<f64>>
  %vc = stablehlo.real %vt : (tensor<70x70xcomplex<f64>>) -> tensor<70x70xf64>
  %vi = stablehlo.imag %vt : (tensor<70x70xcomplex<f64>>) -> tensor<70x70xf64>
  %vin = stablehlo.negate %vi : tensor<70x70xf64>
  %vconj = stablehlo.complex %vc, %vin : tensor<70x70xcomplex<f64>>
  %vvt = stablehlo.dot_general %vt, %vconj, contracting_dims = [1] x [1] : (tensor<70x70xcomplex<f64>>, tensor<70x70xcomplex<f64>>) -> tensor<70x70xcomplex<f64>>
  %evi = stablehlo.iota dim = 0 : tensor<70x70xi32>
  %evj = stablehlo.iota dim = 1 : tensor<70x70xi32>
  %eve = stablehlo.compare EQ, %evi, %evj, SIGNED : (tensor<70x70xi32>, tensor<70x70xi32>) -> tensor<70x70xi1>
  %ev1 = stablehlo.constant dense<(1.0, 0.0)> : tensor<70x70xcomplex<f64>>
  %ev0 = stablehlo.constant dense<(0.0, 0.0)> : tensor<70x70xcomplex<f64>>
  %ev = stablehlo.select %eve, %ev1, %ev0 : tensor<70x70xi1>, tensor<70x70xcomplex<f64>>
  check.expect_almost_eq %vvt, %ev, tolerance = 1.0e-13 : tensor<70x70xcomplex<f64>>
  %s_hi = stablehlo.slice %s [0:29] : (tensor<30xf64>) -> tensor<29xf64>
  %s_lo = stablehlo.slice %s [1:30] : (tensor<30xf64>) -> tensor<29xf64>
  %desc = stablehlo.compare GE, %s_hi, %s_lo : (tensor<29xf64>, tensor<29xf64>) -> tensor<29xi1>
  %t = stablehlo.constant dense<true> : tensor<29xi1>
  check.expect_eq %desc, %t : tensor<29xi1>
  func.return
}

// -----

// A batch of three 40 x 40 float32 matrices (the batch shared out over the intra-op threads).
func.func @sgesdd_dc_batch_3x40x40() {
  %i = stablehlo.iota dim = 1 : tensor<3x40x40xi32>
  %j = stablehlo.iota dim = 2 : tensor<3x40x40xi32>
  %b = stablehlo.iota dim = 0 : tensor<3x40x40xi32>
  %c7 = stablehlo.constant dense<7> : tensor<3x40x40xi32>
  %c13 = stablehlo.constant dense<13> : tensor<3x40x40xi32>
  %c17 = stablehlo.constant dense<17> : tensor<3x40x40xi32>
  %i7 = stablehlo.multiply %i, %c7 : tensor<3x40x40xi32>
  %jb = stablehlo.multiply %j, %b : tensor<3x40x40xi32>
  %j13 = stablehlo.multiply %j, %c13 : tensor<3x40x40xi32>
  %s1 = stablehlo.add %i7, %j13 : tensor<3x40x40xi32>
  %s2 = stablehlo.add %s1, %jb : tensor<3x40x40xi32>
  %r = stablehlo.remainder %s2, %c17 : tensor<3x40x40xi32>
  %a = stablehlo.convert %r : (tensor<3x40x40xi32>) -> tensor<3x40x40xf32>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<3x40x40xf32>) -> (tensor<3x40x40xf32>, tensor<3x40xf32>, tensor<3x40x40xf32>, tensor<3x40x40xf32>, tensor<3xi32>)
  check.expect_eq_const %info, dense<0> : tensor<3xi32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0, 2] : (tensor<3x40xf32>) -> tensor<3x40x40xf32>
  %us = stablehlo.multiply %u, %sb : tensor<3x40x40xf32>
  %rec = stablehlo.dot_general %us, %vt, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x40x40xf32>, tensor<3x40x40xf32>) -> tensor<3x40x40xf32>
  check.expect_almost_eq %rec, %a, tolerance = 2.0e-4 : tensor<3x40x40xf32>
  %utu = stablehlo.dot_general %u, %u, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<3x40x40xf32>, tensor<3x40x40xf32>) -> tensor<3x40x40xf32>
  %ei = stablehlo.iota dim = 1 : tensor<3x40x40xi32>
  %ej = stablehlo.iota dim = 2 : tensor<3x40x40xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<3x40x40xi32>, tensor<3x40x40xi32>) -> tensor<3x40x40xi1>
  %one = stablehlo.constant dense<1.0> : tensor<3x40x40xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<3x40x40xf32>
  %eye = stablehlo.select %eq, %one, %zero : tensor<3x40x40xi1>, tensor<3x40x40xf32>
  check.expect_almost_eq %utu, %eye, tolerance = 2.0e-6 : tensor<3x40x40xf32>
  %vvt = stablehlo.dot_general %vt, %vt, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<3x40x40xf32>, tensor<3x40x40xf32>) -> tensor<3x40x40xf32>
  check.expect_almost_eq %vvt, %eye, tolerance = 2.0e-6 : tensor<3x40x40xf32>
  func.return
}

// -----

// A graded upper bidiagonal 48 x 48: diagonal 2^-(i/2), superdiagonal 2^-(i/2) / 3, singular values
// from 1 down to about 1e-7 (merges of blocks with very different scales).
func.func @gesdd_dc_graded_bidiagonal_48() {
  %i = stablehlo.iota dim = 0 : tensor<48x48xi32>
  %j = stablehlo.iota dim = 1 : tensor<48x48xi32>
  %one = stablehlo.constant dense<1> : tensor<48x48xi32>
  %j1 = stablehlo.subtract %j, %one : tensor<48x48xi32>
  %on = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<48x48xi32>, tensor<48x48xi32>) -> tensor<48x48xi1>
  %sup = stablehlo.compare EQ, %i, %j1, SIGNED : (tensor<48x48xi32>, tensor<48x48xi32>) -> tensor<48x48xi1>
  %fi = stablehlo.convert %i : (tensor<48x48xi32>) -> tensor<48x48xf64>
  %half = stablehlo.constant dense<-0.34657359027997264> : tensor<48x48xf64>
  %ex = stablehlo.multiply %fi, %half : tensor<48x48xf64>
  %g = stablehlo.exponential %ex : tensor<48x48xf64>
  %third = stablehlo.constant dense<0.3333333333333333> : tensor<48x48xf64>
  %g3 = stablehlo.multiply %g, %third : tensor<48x48xf64>
  %z = stablehlo.constant dense<0.0> : tensor<48x48xf64>
  %t1 = stablehlo.select %sup, %g3, %z : tensor<48x48xi1>, tensor<48x48xf64>
  %a = stablehlo.select %on, %g, %t1 : tensor<48x48xi1>, tensor<48x48xf64>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<48x48xf64>) -> (tensor<48x48xf64>, tensor<48xf64>, tensor<48x48xf64>, tensor<48x48xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<48xf64>) -> tensor<48x48xf64>
  %us = stablehlo.multiply %u, %sb : tensor<48x48xf64>
  %rec = stablehlo.dot_general %us, %vt, contracting_dims = [1] x [0] : (tensor<48x48xf64>, tensor<48x48xf64>) -> tensor<48x48xf64>
  check.expect_almost_eq %rec, %a, tolerance = 2.0e-15 : tensor<48x48xf64>
  %utu = stablehlo.dot_general %u, %u, contracting_dims = [0] x [0] : (tensor<48x48xf64>, tensor<48x48xf64>) -> tensor<48x48xf64>
  %eui = stablehlo.iota dim = 0 : tensor<48x48xi32>
  %euj = stablehlo.iota dim = 1 : tensor<48x48xi32>
  %eue = stablehlo.compare EQ, %eui, %euj, SIGNED : (tensor<48x48xi32>, tensor<48x48xi32>) -> tensor<48x48xi1>
  %eu1 = stablehlo.constant dense<1.0> : tensor<48x48xf64>
  %eu0 = stablehlo.constant dense<0.0> : tensor<48x48xf64>
  %eu = stablehlo.select %eue, %eu1, %eu0 : tensor<48x48xi1>, tensor<48x48xf64>
  check.expect_almost_eq %utu, %eu, tolerance = 1.0e-13 : tensor<48x48xf64>
  %vvt = stablehlo.dot_general %vt, %vt, contracting_dims = [1] x [1] : (tensor<48x48xf64>, tensor<48x48xf64>) -> tensor<48x48xf64>
  %evi = stablehlo.iota dim = 0 : tensor<48x48xi32>
  %evj = stablehlo.iota dim = 1 : tensor<48x48xi32>
  %eve = stablehlo.compare EQ, %evi, %evj, SIGNED : (tensor<48x48xi32>, tensor<48x48xi32>) -> tensor<48x48xi1>
  %ev1 = stablehlo.constant dense<1.0> : tensor<48x48xf64>
  %ev0 = stablehlo.constant dense<0.0> : tensor<48x48xf64>
  %ev = stablehlo.select %eve, %ev1, %ev0 : tensor<48x48xi1>, tensor<48x48xf64>
  check.expect_almost_eq %vvt, %ev, tolerance = 1.0e-13 : tensor<48x48xf64>
  %s_hi = stablehlo.slice %s [0:47] : (tensor<48xf64>) -> tensor<47xf64>
  %s_lo = stablehlo.slice %s [1:48] : (tensor<48xf64>) -> tensor<47xf64>
  %desc = stablehlo.compare GE, %s_hi, %s_lo : (tensor<47xf64>, tensor<47xf64>) -> tensor<47xi1>
  %t = stablehlo.constant dense<true> : tensor<47xi1>
  check.expect_eq %desc, %t : tensor<47xi1>
  func.return
}

// -----

// A NaN or an infinity in the input: info is -4 (LAPACK's code for a NaN argument) and the
// singular values are NaN, with and without vectors.
func.func @gesdd_non_finite_input() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 0x7FF8000000000000, 6.0]]> : tensor<2x3xf64>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2xf64>, tensor<2x2xf64>, tensor<3x3xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<-4> : tensor<i32>
  %nan = stablehlo.compare NE, %s, %s : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>
  check.expect_eq_const %nan, dense<true> : tensor<2xi1>
  %b = stablehlo.constant dense<[[1.0, 0x7F800000], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %x2, %s2, %u2, %vt2, %info2 = stablehlo.custom_call @lapack_sgesdd_ffi(%b) {mhlo.backend_config = {mode = 78 : ui8}} : (tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<i32>)
  check.expect_eq_const %info2, dense<-4> : tensor<i32>
  %nan2 = stablehlo.compare NE, %s2, %s2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  check.expect_eq_const %nan2, dense<true> : tensor<2xi1>
  func.return
}

// -----

// Singular values equal to working precision in a generic basis: A = H1 H2 diag(s) H3 H4 with
// Householder reflectors H from sines and s = 1, 1/2, 1/4, 1/8 sixteen times each (64 x 64). The
// merges meet singular values within tolerance of each other and rotate them together (without
// that the secular equation has coincident poles). s against the exact values.
func.func @gesdd_dc_equal_values_generic_64() {
  %h1_i = stablehlo.iota dim = 0 : tensor<64xf64>
  %h1_c1 = stablehlo.constant dense<0.7> : tensor<64xf64>
  %h1_c2 = stablehlo.constant dense<0.3> : tensor<64xf64>
  %h1_t = stablehlo.multiply %h1_i, %h1_c1 : tensor<64xf64>
  %h1_u = stablehlo.add %h1_t, %h1_c2 : tensor<64xf64>
  %h1_v = stablehlo.sine %h1_u : tensor<64xf64>
  %h1_vv = stablehlo.dot_general %h1_v, %h1_v, contracting_dims = [0] x [0] : (tensor<64xf64>, tensor<64xf64>) -> tensor<f64>
  %h1_two = stablehlo.constant dense<2.0> : tensor<f64>
  %h1_f = stablehlo.divide %h1_two, %h1_vv : tensor<f64>
  %h1_fb = stablehlo.broadcast_in_dim %h1_f, dims = [] : (tensor<f64>) -> tensor<64x64xf64>
  %h1_o = stablehlo.dot_general %h1_v, %h1_v, contracting_dims = [] x [] : (tensor<64xf64>, tensor<64xf64>) -> tensor<64x64xf64>
  %h1_s = stablehlo.multiply %h1_o, %h1_fb : tensor<64x64xf64>
  %h1_ei = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %h1_ej = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %h1_ee = stablehlo.compare EQ, %h1_ei, %h1_ej, SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
  %h1_e1 = stablehlo.constant dense<1.0> : tensor<64x64xf64>
  %h1_e0 = stablehlo.constant dense<0.0> : tensor<64x64xf64>
  %h1_e = stablehlo.select %h1_ee, %h1_e1, %h1_e0 : tensor<64x64xi1>, tensor<64x64xf64>
  %h1 = stablehlo.subtract %h1_e, %h1_s : tensor<64x64xf64>
  %h2_i = stablehlo.iota dim = 0 : tensor<64xf64>
  %h2_c1 = stablehlo.constant dense<1.9> : tensor<64xf64>
  %h2_c2 = stablehlo.constant dense<-0.4> : tensor<64xf64>
  %h2_t = stablehlo.multiply %h2_i, %h2_c1 : tensor<64xf64>
  %h2_u = stablehlo.add %h2_t, %h2_c2 : tensor<64xf64>
  %h2_v = stablehlo.sine %h2_u : tensor<64xf64>
  %h2_vv = stablehlo.dot_general %h2_v, %h2_v, contracting_dims = [0] x [0] : (tensor<64xf64>, tensor<64xf64>) -> tensor<f64>
  %h2_two = stablehlo.constant dense<2.0> : tensor<f64>
  %h2_f = stablehlo.divide %h2_two, %h2_vv : tensor<f64>
  %h2_fb = stablehlo.broadcast_in_dim %h2_f, dims = [] : (tensor<f64>) -> tensor<64x64xf64>
  %h2_o = stablehlo.dot_general %h2_v, %h2_v, contracting_dims = [] x [] : (tensor<64xf64>, tensor<64xf64>) -> tensor<64x64xf64>
  %h2_s = stablehlo.multiply %h2_o, %h2_fb : tensor<64x64xf64>
  %h2_ei = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %h2_ej = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %h2_ee = stablehlo.compare EQ, %h2_ei, %h2_ej, SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
  %h2_e1 = stablehlo.constant dense<1.0> : tensor<64x64xf64>
  %h2_e0 = stablehlo.constant dense<0.0> : tensor<64x64xf64>
  %h2_e = stablehlo.select %h2_ee, %h2_e1, %h2_e0 : tensor<64x64xi1>, tensor<64x64xf64>
  %h2 = stablehlo.subtract %h2_e, %h2_s : tensor<64x64xf64>
  %h3_i = stablehlo.iota dim = 0 : tensor<64xf64>
  %h3_c1 = stablehlo.constant dense<2.3> : tensor<64xf64>
  %h3_c2 = stablehlo.constant dense<1.1> : tensor<64xf64>
  %h3_t = stablehlo.multiply %h3_i, %h3_c1 : tensor<64xf64>
  %h3_u = stablehlo.add %h3_t, %h3_c2 : tensor<64xf64>
  %h3_v = stablehlo.sine %h3_u : tensor<64xf64>
  %h3_vv = stablehlo.dot_general %h3_v, %h3_v, contracting_dims = [0] x [0] : (tensor<64xf64>, tensor<64xf64>) -> tensor<f64>
  %h3_two = stablehlo.constant dense<2.0> : tensor<f64>
  %h3_f = stablehlo.divide %h3_two, %h3_vv : tensor<f64>
  %h3_fb = stablehlo.broadcast_in_dim %h3_f, dims = [] : (tensor<f64>) -> tensor<64x64xf64>
  %h3_o = stablehlo.dot_general %h3_v, %h3_v, contracting_dims = [] x [] : (tensor<64xf64>, tensor<64xf64>) -> tensor<64x64xf64>
  %h3_s = stablehlo.multiply %h3_o, %h3_fb : tensor<64x64xf64>
  %h3_ei = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %h3_ej = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %h3_ee = stablehlo.compare EQ, %h3_ei, %h3_ej, SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
  %h3_e1 = stablehlo.constant dense<1.0> : tensor<64x64xf64>
  %h3_e0 = stablehlo.constant dense<0.0> : tensor<64x64xf64>
  %h3_e = stablehlo.select %h3_ee, %h3_e1, %h3_e0 : tensor<64x64xi1>, tensor<64x64xf64>
  %h3 = stablehlo.subtract %h3_e, %h3_s : tensor<64x64xf64>
  %h4_i = stablehlo.iota dim = 0 : tensor<64xf64>
  %h4_c1 = stablehlo.constant dense<0.37> : tensor<64xf64>
  %h4_c2 = stablehlo.constant dense<2.0> : tensor<64xf64>
  %h4_t = stablehlo.multiply %h4_i, %h4_c1 : tensor<64xf64>
  %h4_u = stablehlo.add %h4_t, %h4_c2 : tensor<64xf64>
  %h4_v = stablehlo.sine %h4_u : tensor<64xf64>
  %h4_vv = stablehlo.dot_general %h4_v, %h4_v, contracting_dims = [0] x [0] : (tensor<64xf64>, tensor<64xf64>) -> tensor<f64>
  %h4_two = stablehlo.constant dense<2.0> : tensor<f64>
  %h4_f = stablehlo.divide %h4_two, %h4_vv : tensor<f64>
  %h4_fb = stablehlo.broadcast_in_dim %h4_f, dims = [] : (tensor<f64>) -> tensor<64x64xf64>
  %h4_o = stablehlo.dot_general %h4_v, %h4_v, contracting_dims = [] x [] : (tensor<64xf64>, tensor<64xf64>) -> tensor<64x64xf64>
  %h4_s = stablehlo.multiply %h4_o, %h4_fb : tensor<64x64xf64>
  %h4_ei = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %h4_ej = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %h4_ee = stablehlo.compare EQ, %h4_ei, %h4_ej, SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
  %h4_e1 = stablehlo.constant dense<1.0> : tensor<64x64xf64>
  %h4_e0 = stablehlo.constant dense<0.0> : tensor<64x64xf64>
  %h4_e = stablehlo.select %h4_ee, %h4_e1, %h4_e0 : tensor<64x64xi1>, tensor<64x64xf64>
  %h4 = stablehlo.subtract %h4_e, %h4_s : tensor<64x64xf64>
  %k = stablehlo.iota dim = 0 : tensor<64xi32>
  %c4 = stablehlo.constant dense<4> : tensor<64xi32>
  %km = stablehlo.remainder %k, %c4 : tensor<64xi32>
  %kf = stablehlo.convert %km : (tensor<64xi32>) -> tensor<64xf64>
  %half = stablehlo.constant dense<0.5> : tensor<64xf64>
  %sv = stablehlo.power %half, %kf : tensor<64xf64>
  %dg = stablehlo.broadcast_in_dim %sv, dims = [1] : (tensor<64xf64>) -> tensor<64x64xf64>
  %h12 = stablehlo.dot_general %h1, %h2, contracting_dims = [1] x [0] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %h34 = stablehlo.dot_general %h3, %h4, contracting_dims = [1] x [0] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %h12d = stablehlo.multiply %h12, %dg : tensor<64x64xf64>
  %a = stablehlo.dot_general %h12d, %h34, contracting_dims = [1] x [0] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<64x64xf64>) -> (tensor<64x64xf64>, tensor<64xf64>, tensor<64x64xf64>, tensor<64x64xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<64xf64>) -> tensor<64x64xf64>
  %us = stablehlo.multiply %u, %sb : tensor<64x64xf64>
  %rec = stablehlo.dot_general %us, %vt, contracting_dims = [1] x [0] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  check.expect_almost_eq %rec, %a, tolerance = 1.0e-13 : tensor<64x64xf64>
  %utu = stablehlo.dot_general %u, %u, contracting_dims = [0] x [0] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %eui = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %euj = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %eue = stablehlo.compare EQ, %eui, %euj, SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
  %eu1 = stablehlo.constant dense<1.0> : tensor<64x64xf64>
  %eu0 = stablehlo.constant dense<0.0> : tensor<64x64xf64>
  %eu = stablehlo.select %eue, %eu1, %eu0 : tensor<64x64xi1>, tensor<64x64xf64>
  check.expect_almost_eq %utu, %eu, tolerance = 1.0e-13 : tensor<64x64xf64>
  %vvt = stablehlo.dot_general %vt, %vt, contracting_dims = [1] x [1] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %evi = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %evj = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %eve = stablehlo.compare EQ, %evi, %evj, SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
  %ev1 = stablehlo.constant dense<1.0> : tensor<64x64xf64>
  %ev0 = stablehlo.constant dense<0.0> : tensor<64x64xf64>
  %ev = stablehlo.select %eve, %ev1, %ev0 : tensor<64x64xi1>, tensor<64x64xf64>
  check.expect_almost_eq %vvt, %ev, tolerance = 1.0e-13 : tensor<64x64xf64>
  %s_hi = stablehlo.slice %s [0:63] : (tensor<64xf64>) -> tensor<63xf64>
  %s_lo = stablehlo.slice %s [1:64] : (tensor<64xf64>) -> tensor<63xf64>
  %desc = stablehlo.compare GE, %s_hi, %s_lo : (tensor<63xf64>, tensor<63xf64>) -> tensor<63xi1>
  %t = stablehlo.constant dense<true> : tensor<63xi1>
  check.expect_eq %desc, %t : tensor<63xi1>
  check.expect_almost_eq_const %s, dense<[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125]>, tolerance = 1.0e-13 : tensor<64xf64>
  func.return
}

// -----

// Small matrices (bidiagonals of up to 8 rows go by one-sided Jacobi) that are rank-deficient, so
// some columns come out zero and U is completed from the unit vectors: a 6 x 6 of rank 2, a 3 x 3
// zero matrix, a 7 x 4 with a zero column and a repeated one (full U: 7 x 7).
func.func @gesdd_small_rank_deficient() {
  %ar2 = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2.0, 4.0, 6.0, 8.0, 10.0, 12.0], [1.0, 0.0, 1.0, 0.0, 1.0, 0.0], [3.0, 4.0, 7.0, 8.0, 11.0, 12.0], [0.0, 2.0, 2.0, 4.0, 4.0, 6.0], [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0]]> : tensor<6x6xf64>
  %xr2, %sr2, %ur2, %vtr2, %infor2 = stablehlo.custom_call @lapack_dgesdd_ffi(%ar2) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<6x6xf64>) -> (tensor<6x6xf64>, tensor<6xf64>, tensor<6x6xf64>, tensor<6x6xf64>, tensor<i32>)
  check.expect_eq_const %infor2, dense<0> : tensor<i32>
  %sbr2 = stablehlo.broadcast_in_dim %sr2, dims = [1] : (tensor<6xf64>) -> tensor<6x6xf64>
  %usr2 = stablehlo.multiply %ur2, %sbr2 : tensor<6x6xf64>
  %recr2 = stablehlo.dot_general %usr2, %vtr2, contracting_dims = [1] x [0] : (tensor<6x6xf64>, tensor<6x6xf64>) -> tensor<6x6xf64>
  check.expect_almost_eq %recr2, %ar2, tolerance = 1.0e-13 : tensor<6x6xf64>
  %utur2 = stablehlo.dot_general %ur2, %ur2, contracting_dims = [0] x [0] : (tensor<6x6xf64>, tensor<6x6xf64>) -> tensor<6x6xf64>
  %euir2 = stablehlo.iota dim = 0 : tensor<6x6xi32>
  %eujr2 = stablehlo.iota dim = 1 : tensor<6x6xi32>
  %euer2 = stablehlo.compare EQ, %euir2, %eujr2, SIGNED : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
  %eu1r2 = stablehlo.constant dense<1.0> : tensor<6x6xf64>
  %eu0r2 = stablehlo.constant dense<0.0> : tensor<6x6xf64>
  %eur2 = stablehlo.select %euer2, %eu1r2, %eu0r2 : tensor<6x6xi1>, tensor<6x6xf64>
  check.expect_almost_eq %utur2, %eur2, tolerance = 1.0e-14 : tensor<6x6xf64>
  %vvtr2 = stablehlo.dot_general %vtr2, %vtr2, contracting_dims = [1] x [1] : (tensor<6x6xf64>, tensor<6x6xf64>) -> tensor<6x6xf64>
  %evir2 = stablehlo.iota dim = 0 : tensor<6x6xi32>
  %evjr2 = stablehlo.iota dim = 1 : tensor<6x6xi32>
  %ever2 = stablehlo.compare EQ, %evir2, %evjr2, SIGNED : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
  %ev1r2 = stablehlo.constant dense<1.0> : tensor<6x6xf64>
  %ev0r2 = stablehlo.constant dense<0.0> : tensor<6x6xf64>
  %evr2 = stablehlo.select %ever2, %ev1r2, %ev0r2 : tensor<6x6xi1>, tensor<6x6xf64>
  check.expect_almost_eq %vvtr2, %evr2, tolerance = 1.0e-14 : tensor<6x6xf64>
  %s_hir2 = stablehlo.slice %sr2 [0:5] : (tensor<6xf64>) -> tensor<5xf64>
  %s_lor2 = stablehlo.slice %sr2 [1:6] : (tensor<6xf64>) -> tensor<5xf64>
  %descr2 = stablehlo.compare GE, %s_hir2, %s_lor2 : (tensor<5xf64>, tensor<5xf64>) -> tensor<5xi1>
  %tr2 = stablehlo.constant dense<true> : tensor<5xi1>
  check.expect_eq %descr2, %tr2 : tensor<5xi1>
  %az3 = stablehlo.constant dense<0.0> : tensor<3x3xf64>
  %xz3, %sz3, %uz3, %vtz3, %infoz3 = stablehlo.custom_call @lapack_dgesdd_ffi(%az3) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>, tensor<i32>)
  check.expect_eq_const %infoz3, dense<0> : tensor<i32>
  %sbz3 = stablehlo.broadcast_in_dim %sz3, dims = [1] : (tensor<3xf64>) -> tensor<3x3xf64>
  %usz3 = stablehlo.multiply %uz3, %sbz3 : tensor<3x3xf64>
  %recz3 = stablehlo.dot_general %usz3, %vtz3, contracting_dims = [1] x [0] : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  check.expect_almost_eq %recz3, %az3, tolerance = 1.0e-13 : tensor<3x3xf64>
  %utuz3 = stablehlo.dot_general %uz3, %uz3, contracting_dims = [0] x [0] : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  %euiz3 = stablehlo.iota dim = 0 : tensor<3x3xi32>
  %eujz3 = stablehlo.iota dim = 1 : tensor<3x3xi32>
  %euez3 = stablehlo.compare EQ, %euiz3, %eujz3, SIGNED : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
  %eu1z3 = stablehlo.constant dense<1.0> : tensor<3x3xf64>
  %eu0z3 = stablehlo.constant dense<0.0> : tensor<3x3xf64>
  %euz3 = stablehlo.select %euez3, %eu1z3, %eu0z3 : tensor<3x3xi1>, tensor<3x3xf64>
  check.expect_almost_eq %utuz3, %euz3, tolerance = 1.0e-14 : tensor<3x3xf64>
  %vvtz3 = stablehlo.dot_general %vtz3, %vtz3, contracting_dims = [1] x [1] : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  %eviz3 = stablehlo.iota dim = 0 : tensor<3x3xi32>
  %evjz3 = stablehlo.iota dim = 1 : tensor<3x3xi32>
  %evez3 = stablehlo.compare EQ, %eviz3, %evjz3, SIGNED : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
  %ev1z3 = stablehlo.constant dense<1.0> : tensor<3x3xf64>
  %ev0z3 = stablehlo.constant dense<0.0> : tensor<3x3xf64>
  %evz3 = stablehlo.select %evez3, %ev1z3, %ev0z3 : tensor<3x3xi1>, tensor<3x3xf64>
  check.expect_almost_eq %vvtz3, %evz3, tolerance = 1.0e-14 : tensor<3x3xf64>
  %s_hiz3 = stablehlo.slice %sz3 [0:2] : (tensor<3xf64>) -> tensor<2xf64>
  %s_loz3 = stablehlo.slice %sz3 [1:3] : (tensor<3xf64>) -> tensor<2xf64>
  %descz3 = stablehlo.compare GE, %s_hiz3, %s_loz3 : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>
  %tz3 = stablehlo.constant dense<true> : tensor<2xi1>
  check.expect_eq %descz3, %tz3 : tensor<2xi1>
  %ac7 = stablehlo.constant dense<[[1.0, 0.0, 2.0, 1.0], [3.0, 0.0, -1.0, 3.0], [0.0, 0.0, 4.0, 0.0], [2.0, 0.0, 1.0, 2.0], [-1.0, 0.0, 0.5, -1.0], [5.0, 0.0, 0.0, 5.0], [1.0, 0.0, 1.0, 1.0]]> : tensor<7x4xf64>
  %xc7, %sc7, %uc7, %vtc7, %infoc7 = stablehlo.custom_call @lapack_dgesdd_ffi(%ac7) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<7x4xf64>) -> (tensor<7x4xf64>, tensor<4xf64>, tensor<7x7xf64>, tensor<4x4xf64>, tensor<i32>)
  check.expect_eq_const %infoc7, dense<0> : tensor<i32>
  %ukc7 = stablehlo.slice %uc7 [0:7, 0:4] : (tensor<7x7xf64>) -> tensor<7x4xf64>
  %sbc7 = stablehlo.broadcast_in_dim %sc7, dims = [1] : (tensor<4xf64>) -> tensor<7x4xf64>
  %usc7 = stablehlo.multiply %ukc7, %sbc7 : tensor<7x4xf64>
  %recc7 = stablehlo.dot_general %usc7, %vtc7, contracting_dims = [1] x [0] : (tensor<7x4xf64>, tensor<4x4xf64>) -> tensor<7x4xf64>
  check.expect_almost_eq %recc7, %ac7, tolerance = 1.0e-13 : tensor<7x4xf64>
  %utuc7 = stablehlo.dot_general %uc7, %uc7, contracting_dims = [0] x [0] : (tensor<7x7xf64>, tensor<7x7xf64>) -> tensor<7x7xf64>
  %euic7 = stablehlo.iota dim = 0 : tensor<7x7xi32>
  %eujc7 = stablehlo.iota dim = 1 : tensor<7x7xi32>
  %euec7 = stablehlo.compare EQ, %euic7, %eujc7, SIGNED : (tensor<7x7xi32>, tensor<7x7xi32>) -> tensor<7x7xi1>
  %eu1c7 = stablehlo.constant dense<1.0> : tensor<7x7xf64>
  %eu0c7 = stablehlo.constant dense<0.0> : tensor<7x7xf64>
  %euc7 = stablehlo.select %euec7, %eu1c7, %eu0c7 : tensor<7x7xi1>, tensor<7x7xf64>
  check.expect_almost_eq %utuc7, %euc7, tolerance = 1.0e-14 : tensor<7x7xf64>
  %vvtc7 = stablehlo.dot_general %vtc7, %vtc7, contracting_dims = [1] x [1] : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  %evic7 = stablehlo.iota dim = 0 : tensor<4x4xi32>
  %evjc7 = stablehlo.iota dim = 1 : tensor<4x4xi32>
  %evec7 = stablehlo.compare EQ, %evic7, %evjc7, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
  %ev1c7 = stablehlo.constant dense<1.0> : tensor<4x4xf64>
  %ev0c7 = stablehlo.constant dense<0.0> : tensor<4x4xf64>
  %evc7 = stablehlo.select %evec7, %ev1c7, %ev0c7 : tensor<4x4xi1>, tensor<4x4xf64>
  check.expect_almost_eq %vvtc7, %evc7, tolerance = 1.0e-14 : tensor<4x4xf64>
  %s_hic7 = stablehlo.slice %sc7 [0:3] : (tensor<4xf64>) -> tensor<3xf64>
  %s_loc7 = stablehlo.slice %sc7 [1:4] : (tensor<4xf64>) -> tensor<3xf64>
  %descc7 = stablehlo.compare GE, %s_hic7, %s_loc7 : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
  %tc7 = stablehlo.constant dense<true> : tensor<3xi1>
  check.expect_eq %descc7, %tc7 : tensor<3xi1>
  func.return
}
