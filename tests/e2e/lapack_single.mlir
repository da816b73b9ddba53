// Hand-written: the LAPACK calls that work in single precision for float32 / complex64 (getrf,
// potrf, geqrf, orgqr: as LAPACK's sgetrf / cpotrf / sgeqrf / cungqr, their trailing products
// through the f32 GEMM; the reductions and back-transformations of syevd / heevd / gesdd), past
// their 32-column panels; the same checks as lapack_blocked.mlir's float64 / complex128
// programs, with single-precision tolerances; and rank-deficient QR.

// sgetrf in single precision past its 32-column panels (the trailing update through the f32
// matrix product): a 40 x 40 matrix, diagonally dominant by columns so that no rows are swapped
// (pivots 1..40), checked by L U = A; then with column 35 zero, info 36; then a batch of 16.
func.func @sgetrf_blocked_40x40_single() {
  %i = stablehlo.iota dim = 0 : tensor<40x40xi32>
  %j = stablehlo.iota dim = 1 : tensor<40x40xi32>
  %c7 = stablehlo.constant dense<7> : tensor<40x40xi32>
  %c8 = stablehlo.constant dense<8> : tensor<40x40xi32>
  %c13 = stablehlo.constant dense<13> : tensor<40x40xi32>
  %c17 = stablehlo.constant dense<17> : tensor<40x40xi32>
  %i7 = stablehlo.multiply %i, %c7 : tensor<40x40xi32>
  %j13 = stablehlo.multiply %j, %c13 : tensor<40x40xi32>
  %sum = stablehlo.add %i7, %j13 : tensor<40x40xi32>
  %r = stablehlo.remainder %sum, %c17 : tensor<40x40xi32>
  %bi = stablehlo.subtract %r, %c8 : tensor<40x40xi32>
  %b = stablehlo.convert %bi : (tensor<40x40xi32>) -> tensor<40x40xf32>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %big = stablehlo.constant dense<400.0> : tensor<40x40xf32>
  %one = stablehlo.constant dense<1.0> : tensor<40x40xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<40x40xf32>
  %d = stablehlo.select %eq, %big, %zero : tensor<40x40xi1>, tensor<40x40xf32>
  %a = stablehlo.add %b, %d : tensor<40x40xf32>
  %lu, %piv, %info = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<40x40xf32>) -> (tensor<40x40xf32>, tensor<40xi32>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %k = stablehlo.iota dim = 0 : tensor<40xi32>
  %ones = stablehlo.constant dense<1> : tensor<40xi32>
  %k1 = stablehlo.add %k, %ones : tensor<40xi32>
  check.expect_eq %piv, %k1 : tensor<40xi32>
  %below = stablehlo.compare GT, %i, %j, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %l_strict = stablehlo.select %below, %lu, %zero : tensor<40x40xi1>, tensor<40x40xf32>
  %diag1 = stablehlo.select %eq, %one, %zero : tensor<40x40xi1>, tensor<40x40xf32>
  %l = stablehlo.add %l_strict, %diag1 : tensor<40x40xf32>
  %u = stablehlo.select %below, %zero, %lu : tensor<40x40xi1>, tensor<40x40xf32>
  %prod = stablehlo.dot_general %l, %u, contracting_dims = [1] x [0] : (tensor<40x40xf32>, tensor<40x40xf32>) -> tensor<40x40xf32>
  check.expect_almost_eq %prod, %a, tolerance = 5.0e-3 : tensor<40x40xf32>
  %c35 = stablehlo.constant dense<35> : tensor<40x40xi32>
  %col35 = stablehlo.compare EQ, %j, %c35, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %a2 = stablehlo.select %col35, %zero, %a : tensor<40x40xi1>, tensor<40x40xf32>
  %lu2, %piv2, %info2 = stablehlo.custom_call @lapack_sgetrf_ffi(%a2) {mhlo.backend_config = {}} : (tensor<40x40xf32>) -> (tensor<40x40xf32>, tensor<40xi32>, tensor<i32>)
  check.expect_eq_const %info2, dense<36> : tensor<i32>
  // A batch of 16 (enough work to be spread over the intra-op threads), each matrix with its own
  // diagonal shift: every one still L U = A with no swaps.
  %ab = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<40x40xf32>) -> tensor<16x40x40xf32>
  %bk = stablehlo.iota dim = 0 : tensor<16x40x40xi32>
  %bri = stablehlo.iota dim = 1 : tensor<16x40x40xi32>
  %bj = stablehlo.iota dim = 2 : tensor<16x40x40xi32>
  %beq = stablehlo.compare EQ, %bri, %bj, SIGNED : (tensor<16x40x40xi32>, tensor<16x40x40xi32>) -> tensor<16x40x40xi1>
  %bkf = stablehlo.convert %bk : (tensor<16x40x40xi32>) -> tensor<16x40x40xf32>
  %bzero = stablehlo.constant dense<0.0> : tensor<16x40x40xf32>
  %bone = stablehlo.constant dense<1.0> : tensor<16x40x40xf32>
  %shift = stablehlo.select %beq, %bkf, %bzero : tensor<16x40x40xi1>, tensor<16x40x40xf32>
  %abs = stablehlo.add %ab, %shift : tensor<16x40x40xf32>
  %blu, %bpiv, %binfo = stablehlo.custom_call @lapack_sgetrf_ffi(%abs) {mhlo.backend_config = {}} : (tensor<16x40x40xf32>) -> (tensor<16x40x40xf32>, tensor<16x40xi32>, tensor<16xi32>)
  check.expect_eq_const %binfo, dense<0> : tensor<16xi32>
  %bbelow = stablehlo.compare GT, %bri, %bj, SIGNED : (tensor<16x40x40xi32>, tensor<16x40x40xi32>) -> tensor<16x40x40xi1>
  %bls = stablehlo.select %bbelow, %blu, %bzero : tensor<16x40x40xi1>, tensor<16x40x40xf32>
  %bd1 = stablehlo.select %beq, %bone, %bzero : tensor<16x40x40xi1>, tensor<16x40x40xf32>
  %bl = stablehlo.add %bls, %bd1 : tensor<16x40x40xf32>
  %bu = stablehlo.select %bbelow, %bzero, %blu : tensor<16x40x40xi1>, tensor<16x40x40xf32>
  %bprod = stablehlo.dot_general %bl, %bu, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<16x40x40xf32>, tensor<16x40x40xf32>) -> tensor<16x40x40xf32>
  check.expect_almost_eq %bprod, %abs, tolerance = 5.0e-3 : tensor<16x40x40xf32>
  func.return
}

// -----

// cpotrf in single precision past its 32-column panels, from the upper triangle: A = B B^H + 40 I
// for a 40 x 40 complex B built from iotas; U^H U = A, the strict lower triangle is left as it
// was, and a negative pivot at (35, 35) reports info 36 with the rows before it unchanged.
func.func @cpotrf_blocked_40x40_upper_single() {
  %i = stablehlo.iota dim = 0 : tensor<40x40xi32>
  %j = stablehlo.iota dim = 1 : tensor<40x40xi32>
  %c3 = stablehlo.constant dense<3> : tensor<40x40xi32>
  %c5 = stablehlo.constant dense<5> : tensor<40x40xi32>
  %c7 = stablehlo.constant dense<7> : tensor<40x40xi32>
  %c11 = stablehlo.constant dense<11> : tensor<40x40xi32>
  %c13 = stablehlo.constant dense<13> : tensor<40x40xi32>
  %c17 = stablehlo.constant dense<17> : tensor<40x40xi32>
  %i7 = stablehlo.multiply %i, %c7 : tensor<40x40xi32>
  %j13 = stablehlo.multiply %j, %c13 : tensor<40x40xi32>
  %s1 = stablehlo.add %i7, %j13 : tensor<40x40xi32>
  %r1 = stablehlo.remainder %s1, %c17 : tensor<40x40xi32>
  %re_i = stablehlo.subtract %r1, %c7 : tensor<40x40xi32>
  %i5 = stablehlo.multiply %i, %c5 : tensor<40x40xi32>
  %j3 = stablehlo.multiply %j, %c3 : tensor<40x40xi32>
  %s2 = stablehlo.add %i5, %j3 : tensor<40x40xi32>
  %r2 = stablehlo.remainder %s2, %c11 : tensor<40x40xi32>
  %im_i = stablehlo.subtract %r2, %c5 : tensor<40x40xi32>
  %re = stablehlo.convert %re_i : (tensor<40x40xi32>) -> tensor<40x40xf32>
  %im = stablehlo.convert %im_i : (tensor<40x40xi32>) -> tensor<40x40xf32>
  %b = stablehlo.complex %re, %im : tensor<40x40xcomplex<f32>>
  %nim = stablehlo.negate %im : tensor<40x40xf32>
  %bc = stablehlo.complex %re, %nim : tensor<40x40xcomplex<f32>>
  %bbh = stablehlo.dot_general %b, %bc, contracting_dims = [1] x [1] : (tensor<40x40xcomplex<f32>>, tensor<40x40xcomplex<f32>>) -> tensor<40x40xcomplex<f32>>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %forty = stablehlo.constant dense<(40.0, 0.0)> : tensor<40x40xcomplex<f32>>
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<40x40xcomplex<f32>>
  %d = stablehlo.select %eq, %forty, %zero : tensor<40x40xi1>, tensor<40x40xcomplex<f32>>
  %a = stablehlo.add %bbh, %d : tensor<40x40xcomplex<f32>>
  %f, %info = stablehlo.custom_call @lapack_cpotrf_ffi(%a) {mhlo.backend_config = {uplo = 85 : ui8}} : (tensor<40x40xcomplex<f32>>) -> (tensor<40x40xcomplex<f32>>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %below = stablehlo.compare LT, %j, %i, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %u = stablehlo.select %below, %zero, %f : tensor<40x40xi1>, tensor<40x40xcomplex<f32>>
  %ure = stablehlo.real %u : (tensor<40x40xcomplex<f32>>) -> tensor<40x40xf32>
  %uim = stablehlo.imag %u : (tensor<40x40xcomplex<f32>>) -> tensor<40x40xf32>
  %nuim = stablehlo.negate %uim : tensor<40x40xf32>
  %uc = stablehlo.complex %ure, %nuim : tensor<40x40xcomplex<f32>>
  %uhu = stablehlo.dot_general %uc, %u, contracting_dims = [0] x [0] : (tensor<40x40xcomplex<f32>>, tensor<40x40xcomplex<f32>>) -> tensor<40x40xcomplex<f32>>
  check.expect_almost_eq %uhu, %a, tolerance = 5.0e-2 : tensor<40x40xcomplex<f32>>
  %kept = stablehlo.select %below, %f, %zero : tensor<40x40xi1>, tensor<40x40xcomplex<f32>>
  %orig = stablehlo.select %below, %a, %zero : tensor<40x40xi1>, tensor<40x40xcomplex<f32>>
  check.expect_eq %kept, %orig : tensor<40x40xcomplex<f32>>
  %c35 = stablehlo.constant dense<35> : tensor<40x40xi32>
  %at35 = stablehlo.compare EQ, %i, %c35, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %pivot = stablehlo.and %at35, %eq : tensor<40x40xi1>
  %neg = stablehlo.constant dense<(-1000.0, 0.0)> : tensor<40x40xcomplex<f32>>
  %bad = stablehlo.select %pivot, %neg, %a : tensor<40x40xi1>, tensor<40x40xcomplex<f32>>
  %fb, %info_b = stablehlo.custom_call @lapack_cpotrf_ffi(%bad) {mhlo.backend_config = {uplo = 85 : ui8}} : (tensor<40x40xcomplex<f32>>) -> (tensor<40x40xcomplex<f32>>, tensor<i32>)
  check.expect_eq_const %info_b, dense<36> : tensor<i32>
  %rows_b = stablehlo.slice %fb [0:35, 0:40] : (tensor<40x40xcomplex<f32>>) -> tensor<35x40xcomplex<f32>>
  %rows = stablehlo.slice %f [0:35, 0:40] : (tensor<40x40xcomplex<f32>>) -> tensor<35x40xcomplex<f32>>
  check.expect_almost_eq %rows_b, %rows, tolerance = 1.0e-6 : tensor<35x40xcomplex<f32>>
  func.return
}

// -----

// cgeqrf + cungqr of a 24 x 24 complex64 matrix whose last 12 columns repeat its first: the
// trailing columns left after the first reflectors decay by about eps per step, and larfg's
// beta goes below safmin (smallest normal / eps) after a few; without larfg's rescaling,
// 1 / (alpha - beta) overflowed and Q and R filled with NaN. Q R = A.
func.func @cgeqrf_rank_deficient_24x24_single() {
  %i = stablehlo.iota dim = 0 : tensor<24x24xf32>
  %j = stablehlo.iota dim = 1 : tensor<24x24xf32>
  %ii = stablehlo.multiply %i, %i : tensor<24x24xf32>
  %ij = stablehlo.multiply %i, %j : tensor<24x24xf32>
  %k1 = stablehlo.constant dense<0.37> : tensor<24x24xf32>
  %k2 = stablehlo.constant dense<1.91> : tensor<24x24xf32>
  %k3 = stablehlo.constant dense<0.13> : tensor<24x24xf32>
  %t1 = stablehlo.multiply %ii, %k1 : tensor<24x24xf32>
  %t2 = stablehlo.multiply %j, %k2 : tensor<24x24xf32>
  %t3 = stablehlo.multiply %ij, %k3 : tensor<24x24xf32>
  %t12 = stablehlo.add %t1, %t2 : tensor<24x24xf32>
  %t = stablehlo.add %t12, %t3 : tensor<24x24xf32>
  %base = stablehlo.sine %t : tensor<24x24xf32>
  %col0 = stablehlo.slice %base [0:24, 0:1] : (tensor<24x24xf32>) -> tensor<24x1xf32>
  %c0 = stablehlo.reshape %col0 : (tensor<24x1xf32>) -> tensor<24xf32>
  %dup = stablehlo.broadcast_in_dim %c0, dims = [0] : (tensor<24xf32>) -> tensor<24x24xf32>
  %half = stablehlo.constant dense<12.0> : tensor<24x24xf32>
  %right = stablehlo.compare GE, %j, %half, FLOAT : (tensor<24x24xf32>, tensor<24x24xf32>) -> tensor<24x24xi1>
  %re = stablehlo.select %right, %dup, %base : tensor<24x24xi1>, tensor<24x24xf32>
  %cb = stablehlo.cosine %t : tensor<24x24xf32>
  %cd = stablehlo.cosine %dup : tensor<24x24xf32>
  %im = stablehlo.select %right, %cd, %cb : tensor<24x24xi1>, tensor<24x24xf32>
  %a = stablehlo.complex %re, %im : tensor<24x24xcomplex<f32>>
  %qr, %tau, %info = stablehlo.custom_call @lapack_cgeqrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<24x24xcomplex<f32>>) -> (tensor<24x24xcomplex<f32>>, tensor<24xcomplex<f32>>, tensor<i32>)
  %q, %info2 = stablehlo.custom_call @lapack_corgqr_ffi(%qr, %tau) {mhlo.backend_config = {}} : (tensor<24x24xcomplex<f32>>, tensor<24xcomplex<f32>>) -> (tensor<24x24xcomplex<f32>>, tensor<i32>)
  %le = stablehlo.compare LE, %i, %j, FLOAT : (tensor<24x24xf32>, tensor<24x24xf32>) -> tensor<24x24xi1>
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<24x24xcomplex<f32>>
  %r = stablehlo.select %le, %qr, %zero : tensor<24x24xi1>, tensor<24x24xcomplex<f32>>
  %prod = stablehlo.dot_general %q, %r, contracting_dims = [1] x [0] : (tensor<24x24xcomplex<f32>>, tensor<24x24xcomplex<f32>>) -> tensor<24x24xcomplex<f32>>
  check.expect_almost_eq %prod, %a, tolerance = 1.0e-3 : tensor<24x24xcomplex<f32>>
  func.return
}

// -----

// The same for sgeqrf + sorgqr of a real 48 x 48 matrix (past the 32-column panel).
func.func @sgeqrf_rank_deficient_48x48_single() {
  %i = stablehlo.iota dim = 0 : tensor<48x48xf32>
  %j = stablehlo.iota dim = 1 : tensor<48x48xf32>
  %ii = stablehlo.multiply %i, %i : tensor<48x48xf32>
  %ij = stablehlo.multiply %i, %j : tensor<48x48xf32>
  %k1 = stablehlo.constant dense<0.37> : tensor<48x48xf32>
  %k2 = stablehlo.constant dense<1.91> : tensor<48x48xf32>
  %k3 = stablehlo.constant dense<0.13> : tensor<48x48xf32>
  %t1 = stablehlo.multiply %ii, %k1 : tensor<48x48xf32>
  %t2 = stablehlo.multiply %j, %k2 : tensor<48x48xf32>
  %t3 = stablehlo.multiply %ij, %k3 : tensor<48x48xf32>
  %t12 = stablehlo.add %t1, %t2 : tensor<48x48xf32>
  %t = stablehlo.add %t12, %t3 : tensor<48x48xf32>
  %base = stablehlo.sine %t : tensor<48x48xf32>
  %col0 = stablehlo.slice %base [0:48, 0:1] : (tensor<48x48xf32>) -> tensor<48x1xf32>
  %c0 = stablehlo.reshape %col0 : (tensor<48x1xf32>) -> tensor<48xf32>
  %dup = stablehlo.broadcast_in_dim %c0, dims = [0] : (tensor<48xf32>) -> tensor<48x48xf32>
  %half = stablehlo.constant dense<24.0> : tensor<48x48xf32>
  %right = stablehlo.compare GE, %j, %half, FLOAT : (tensor<48x48xf32>, tensor<48x48xf32>) -> tensor<48x48xi1>
  %re = stablehlo.select %right, %dup, %base : tensor<48x48xi1>, tensor<48x48xf32>
  %a = stablehlo.add %re, %re : tensor<48x48xf32>
  %qr, %tau, %info = stablehlo.custom_call @lapack_sgeqrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<48x48xf32>) -> (tensor<48x48xf32>, tensor<48xf32>, tensor<i32>)
  %q, %info2 = stablehlo.custom_call @lapack_sorgqr_ffi(%qr, %tau) {mhlo.backend_config = {}} : (tensor<48x48xf32>, tensor<48xf32>) -> (tensor<48x48xf32>, tensor<i32>)
  %le = stablehlo.compare LE, %i, %j, FLOAT : (tensor<48x48xf32>, tensor<48x48xf32>) -> tensor<48x48xi1>
  %zero = stablehlo.constant dense<0.0> : tensor<48x48xf32>
  %r = stablehlo.select %le, %qr, %zero : tensor<48x48xi1>, tensor<48x48xf32>
  %prod = stablehlo.dot_general %q, %r, contracting_dims = [1] x [0] : (tensor<48x48xf32>, tensor<48x48xf32>) -> tensor<48x48xf32>
  check.expect_almost_eq %prod, %a, tolerance = 1.0e-3 : tensor<48x48xf32>
  func.return
}

// -----

// cheevd of a 40 x 40 complex64 Hermitian matrix in single precision (the reduction's row
// updates eight complex values to a vector, the back-transformation past its 32-column panel in
// complex64; the tridiagonal's divide and conquer in double): A = S + i K for the symmetric S
// and antisymmetric K of the iotas; A V = V diag(w), V^H V = I, w ascending.
func.func @cheevd_40x40_single() {
  %i = stablehlo.iota dim = 0 : tensor<40x40xi32>
  %j = stablehlo.iota dim = 1 : tensor<40x40xi32>
  %c7 = stablehlo.constant dense<7> : tensor<40x40xi32>
  %c3 = stablehlo.constant dense<3> : tensor<40x40xi32>
  %c19 = stablehlo.constant dense<19> : tensor<40x40xi32>
  %c18 = stablehlo.constant dense<18> : tensor<40x40xi32>
  %c11 = stablehlo.constant dense<11> : tensor<40x40xi32>
  %i7 = stablehlo.multiply %i, %c7 : tensor<40x40xi32>
  %j3 = stablehlo.multiply %j, %c3 : tensor<40x40xi32>
  %j7 = stablehlo.multiply %j, %c7 : tensor<40x40xi32>
  %i3 = stablehlo.multiply %i, %c3 : tensor<40x40xi32>
  %x1 = stablehlo.add %i7, %j3 : tensor<40x40xi32>
  %x2 = stablehlo.add %j7, %i3 : tensor<40x40xi32>
  %r1 = stablehlo.remainder %x1, %c19 : tensor<40x40xi32>
  %r2 = stablehlo.remainder %x2, %c19 : tensor<40x40xi32>
  %sum = stablehlo.add %r1, %r2 : tensor<40x40xi32>
  %s = stablehlo.subtract %sum, %c18 : tensor<40x40xi32>
  %q1 = stablehlo.remainder %x1, %c11 : tensor<40x40xi32>
  %q2 = stablehlo.remainder %x2, %c11 : tensor<40x40xi32>
  %k = stablehlo.subtract %q1, %q2 : tensor<40x40xi32>
  %sf = stablehlo.convert %s : (tensor<40x40xi32>) -> tensor<40x40xf32>
  %kf = stablehlo.convert %k : (tensor<40x40xi32>) -> tensor<40x40xf32>
  %a = stablehlo.complex %sf, %kf : tensor<40x40xcomplex<f32>>
  %v, %w, %info = stablehlo.custom_call @lapack_cheevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<40x40xcomplex<f32>>) -> (tensor<40x40xcomplex<f32>>, tensor<40xf32>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<40x40xcomplex<f32>>, tensor<40x40xcomplex<f32>>) -> tensor<40x40xcomplex<f32>>
  %wz = stablehlo.constant dense<0.0> : tensor<40xf32>
  %wc = stablehlo.complex %w, %wz : tensor<40xcomplex<f32>>
  %wb = stablehlo.broadcast_in_dim %wc, dims = [1] : (tensor<40xcomplex<f32>>) -> tensor<40x40xcomplex<f32>>
  %vw = stablehlo.multiply %v, %wb : tensor<40x40xcomplex<f32>>
  check.expect_almost_eq %av, %vw, tolerance = 2.0e-3 : tensor<40x40xcomplex<f32>>
  %vr = stablehlo.real %v : (tensor<40x40xcomplex<f32>>) -> tensor<40x40xf32>
  %vi = stablehlo.imag %v : (tensor<40x40xcomplex<f32>>) -> tensor<40x40xf32>
  %vin = stablehlo.negate %vi : tensor<40x40xf32>
  %vc = stablehlo.complex %vr, %vin : tensor<40x40xcomplex<f32>>
  %vhv = stablehlo.dot_general %vc, %v, contracting_dims = [0] x [0] : (tensor<40x40xcomplex<f32>>, tensor<40x40xcomplex<f32>>) -> tensor<40x40xcomplex<f32>>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<40x40xcomplex<f32>>
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<40x40xcomplex<f32>>
  %eye = stablehlo.select %eq, %one, %zero : tensor<40x40xi1>, tensor<40x40xcomplex<f32>>
  check.expect_almost_eq %vhv, %eye, tolerance = 1.0e-5 : tensor<40x40xcomplex<f32>>
  %w0 = stablehlo.slice %w [0:39] : (tensor<40xf32>) -> tensor<39xf32>
  %w1 = stablehlo.slice %w [1:40] : (tensor<40xf32>) -> tensor<39xf32>
  %asc = stablehlo.compare LE, %w0, %w1, FLOAT : (tensor<39xf32>, tensor<39xf32>) -> tensor<39xi1>
  check.expect_eq_const %asc, dense<true> : tensor<39xi1>
  func.return
}

// -----

// cgesdd of a wide 40 x 70 complex64 matrix in single precision (solved as its 70 x 40 conjugate
// transpose: the bidiagonalisation and the vectors' back-transformation past their 32-column
// panels in complex64, the bidiagonal's divide and conquer in double), mode 'S':
// U diag(s) V^H = A, U^H U = I, V^H V = I, s descending.
func.func @cgesdd_wide_40x70_single() {
  %i = stablehlo.iota dim = 0 : tensor<40x70xi32>
  %j = stablehlo.iota dim = 1 : tensor<40x70xi32>
  %c7 = stablehlo.constant dense<7> : tensor<40x70xi32>
  %c13 = stablehlo.constant dense<13> : tensor<40x70xi32>
  %c17 = stablehlo.constant dense<17> : tensor<40x70xi32>
  %c8 = stablehlo.constant dense<8> : tensor<40x70xi32>
  %c5 = stablehlo.constant dense<5> : tensor<40x70xi32>
  %c11 = stablehlo.constant dense<11> : tensor<40x70xi32>
  %i7 = stablehlo.multiply %i, %c7 : tensor<40x70xi32>
  %j13 = stablehlo.multiply %j, %c13 : tensor<40x70xi32>
  %s1 = stablehlo.add %i7, %j13 : tensor<40x70xi32>
  %r1 = stablehlo.remainder %s1, %c17 : tensor<40x70xi32>
  %re = stablehlo.subtract %r1, %c8 : tensor<40x70xi32>
  %i5 = stablehlo.multiply %i, %c5 : tensor<40x70xi32>
  %s2 = stablehlo.add %i5, %j : tensor<40x70xi32>
  %r2 = stablehlo.remainder %s2, %c11 : tensor<40x70xi32>
  %im = stablehlo.subtract %r2, %c5 : tensor<40x70xi32>
  %ref = stablehlo.convert %re : (tensor<40x70xi32>) -> tensor<40x70xf32>
  %imf = stablehlo.convert %im : (tensor<40x70xi32>) -> tensor<40x70xf32>
  %a = stablehlo.complex %ref, %imf : tensor<40x70xcomplex<f32>>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_cgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<40x70xcomplex<f32>>) -> (tensor<40x70xcomplex<f32>>, tensor<40xf32>, tensor<40x40xcomplex<f32>>, tensor<40x70xcomplex<f32>>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %sz = stablehlo.constant dense<0.0> : tensor<40xf32>
  %sc = stablehlo.complex %s, %sz : tensor<40xcomplex<f32>>
  %sb = stablehlo.broadcast_in_dim %sc, dims = [1] : (tensor<40xcomplex<f32>>) -> tensor<40x40xcomplex<f32>>
  %us = stablehlo.multiply %u, %sb : tensor<40x40xcomplex<f32>>
  %rec = stablehlo.dot_general %us, %vt, contracting_dims = [1] x [0] : (tensor<40x40xcomplex<f32>>, tensor<40x70xcomplex<f32>>) -> tensor<40x70xcomplex<f32>>
  check.expect_almost_eq %rec, %a, tolerance = 2.0e-3 : tensor<40x70xcomplex<f32>>
  %ur = stablehlo.real %u : (tensor<40x40xcomplex<f32>>) -> tensor<40x40xf32>
  %ui = stablehlo.imag %u : (tensor<40x40xcomplex<f32>>) -> tensor<40x40xf32>
  %uin = stablehlo.negate %ui : tensor<40x40xf32>
  %uc = stablehlo.complex %ur, %uin : tensor<40x40xcomplex<f32>>
  %uhu = stablehlo.dot_general %uc, %u, contracting_dims = [0] x [0] : (tensor<40x40xcomplex<f32>>, tensor<40x40xcomplex<f32>>) -> tensor<40x40xcomplex<f32>>
  %vr = stablehlo.real %vt : (tensor<40x70xcomplex<f32>>) -> tensor<40x70xf32>
  %vi = stablehlo.imag %vt : (tensor<40x70xcomplex<f32>>) -> tensor<40x70xf32>
  %vin = stablehlo.negate %vi : tensor<40x70xf32>
  %vc = stablehlo.complex %vr, %vin : tensor<40x70xcomplex<f32>>
  %vvh = stablehlo.dot_general %vt, %vc, contracting_dims = [1] x [1] : (tensor<40x70xcomplex<f32>>, tensor<40x70xcomplex<f32>>) -> tensor<40x40xcomplex<f32>>
  %ei = stablehlo.iota dim = 0 : tensor<40x40xi32>
  %ej = stablehlo.iota dim = 1 : tensor<40x40xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<40x40xcomplex<f32>>
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<40x40xcomplex<f32>>
  %eye = stablehlo.select %eq, %one, %zero : tensor<40x40xi1>, tensor<40x40xcomplex<f32>>
  check.expect_almost_eq %uhu, %eye, tolerance = 1.0e-5 : tensor<40x40xcomplex<f32>>
  check.expect_almost_eq %vvh, %eye, tolerance = 1.0e-5 : tensor<40x40xcomplex<f32>>
  %s0 = stablehlo.slice %s [0:39] : (tensor<40xf32>) -> tensor<39xf32>
  %s1s = stablehlo.slice %s [1:40] : (tensor<40xf32>) -> tensor<39xf32>
  %desc = stablehlo.compare GE, %s0, %s1s, FLOAT : (tensor<39xf32>, tensor<39xf32>) -> tensor<39xi1>
  check.expect_eq_const %desc, dense<true> : tensor<39xi1>
  func.return
}

// -----

// cheevd with a NaN in the imaginary part of an entry of the stored triangle: info 1 and NaN
// eigenvalues; a NaN in the unreferenced triangle or in a diagonal entry's imaginary part (which
// Hermitian input ignores) is not read: eigenvalues 1 and 3 of [[2, -i], [i, 2]].
func.func @cheevd_nan_in_imaginary_part() {
  %a = stablehlo.constant dense<[[(1.0, 0.0), (0.0, 0.0)], [(2.0, 0x7FC00000), (3.0, 0.0)]]> : tensor<2x2xcomplex<f32>>
  %v, %w, %info = stablehlo.custom_call @lapack_cheevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<2x2xcomplex<f32>>) -> (tensor<2x2xcomplex<f32>>, tensor<2xf32>, tensor<i32>)
  check.expect_eq_const %info, dense<1> : tensor<i32>
  %nan = stablehlo.compare NE, %w, %w, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  check.expect_eq_const %nan, dense<true> : tensor<2xi1>
  %b = stablehlo.constant dense<[[(2.0, 0x7FC00000), (0x7FC00000, 0x7FC00000)], [(0.0, 1.0), (2.0, 0.0)]]> : tensor<2x2xcomplex<f32>>
  %bv, %bw, %binfo = stablehlo.custom_call @lapack_cheevd_ffi(%b) {mhlo.backend_config = {mode = 78 : ui8, uplo = 76 : ui8}} : (tensor<2x2xcomplex<f32>>) -> (tensor<2x2xcomplex<f32>>, tensor<2xf32>, tensor<i32>)
  check.expect_eq_const %binfo, dense<0> : tensor<i32>
  check.expect_almost_eq_const %bw, dense<[1.0, 3.0]> : tensor<2xf32>
  func.return
}
