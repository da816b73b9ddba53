// Hand-written (not generated): the blocked paths of the LAPACK calls (matrices past 32 columns,
// where panels and block reflectors take over from the unblocked loops, past Eigen's 16-column
// Jacobi blocks in gesdd, and past the 32-row leaves of syevd's divide and conquer), checked by
// identities computed in the program itself.

// dgeqrf past its 32-column panels (the block reflector I - V T^H V^H applied through two
// matrix products): a 48 x 40 matrix built from iotas, checked by Q R = A with Q from dorgqr and
// Q^T Q = I.
func.func @geqrf_blocked_48x40() {
  %i = stablehlo.iota dim = 0 : tensor<48x40xi32>
  %j = stablehlo.iota dim = 1 : tensor<48x40xi32>
  %c7 = stablehlo.constant dense<7> : tensor<48x40xi32>
  %c8 = stablehlo.constant dense<8> : tensor<48x40xi32>
  %c13 = stablehlo.constant dense<13> : tensor<48x40xi32>
  %c17 = stablehlo.constant dense<17> : tensor<48x40xi32>
  %i7 = stablehlo.multiply %i, %c7 : tensor<48x40xi32>
  %j13 = stablehlo.multiply %j, %c13 : tensor<48x40xi32>
  %sum = stablehlo.add %i7, %j13 : tensor<48x40xi32>
  %r = stablehlo.remainder %sum, %c17 : tensor<48x40xi32>
  %bi = stablehlo.subtract %r, %c8 : tensor<48x40xi32>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<48x40xi32>, tensor<48x40xi32>) -> tensor<48x40xi1>
  %c20 = stablehlo.constant dense<20> : tensor<48x40xi32>
  %c0 = stablehlo.constant dense<0> : tensor<48x40xi32>
  %d = stablehlo.select %eq, %c20, %c0 : tensor<48x40xi1>, tensor<48x40xi32>
  %ai = stablehlo.add %bi, %d : tensor<48x40xi32>
  %a = stablehlo.convert %ai : (tensor<48x40xi32>) -> tensor<48x40xf64>
  %qr, %tau = stablehlo.custom_call @lapack_dgeqrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<48x40xf64>) -> (tensor<48x40xf64>, tensor<40xf64>)
  %q = stablehlo.custom_call @lapack_dorgqr_ffi(%qr, %tau) {mhlo.backend_config = {}} : (tensor<48x40xf64>, tensor<40xf64>) -> tensor<48x40xf64>
  %rows = stablehlo.slice %qr [0:40, 0:40] : (tensor<48x40xf64>) -> tensor<40x40xf64>
  %ri = stablehlo.iota dim = 0 : tensor<40x40xi32>
  %rj = stablehlo.iota dim = 1 : tensor<40x40xi32>
  %below = stablehlo.compare GT, %ri, %rj, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %zero = stablehlo.constant dense<0.0> : tensor<40x40xf64>
  %rr = stablehlo.select %below, %zero, %rows : tensor<40x40xi1>, tensor<40x40xf64>
  %rec = stablehlo.dot_general %q, %rr, contracting_dims = [1] x [0] : (tensor<48x40xf64>, tensor<40x40xf64>) -> tensor<48x40xf64>
  check.expect_almost_eq %rec, %a, tolerance = 1.0e-10 : tensor<48x40xf64>
  %qtq = stablehlo.dot_general %q, %q, contracting_dims = [0] x [0] : (tensor<48x40xf64>, tensor<48x40xf64>) -> tensor<40x40xf64>
  %rdiag = stablehlo.compare EQ, %ri, %rj, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %one = stablehlo.constant dense<1.0> : tensor<40x40xf64>
  %eye = stablehlo.select %rdiag, %one, %zero : tensor<40x40xi1>, tensor<40x40xf64>
  check.expect_almost_eq %qtq, %eye, tolerance = 1.0e-12 : tensor<40x40xf64>
  func.return
}

// -----

// dgetrf past its 32-column panels (the trailing update through a matrix product): a 40 x 40
// matrix, diagonally dominant by columns so that no rows are swapped (pivots 1..40), checked by
// L U = A; then with column 35 zero, info 36; then a batch of 16 such matrices.
func.func @getrf_blocked_40x40() {
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
  %b = stablehlo.convert %bi : (tensor<40x40xi32>) -> tensor<40x40xf64>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %big = stablehlo.constant dense<400.0> : tensor<40x40xf64>
  %one = stablehlo.constant dense<1.0> : tensor<40x40xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<40x40xf64>
  %d = stablehlo.select %eq, %big, %zero : tensor<40x40xi1>, tensor<40x40xf64>
  %a = stablehlo.add %b, %d : tensor<40x40xf64>
  %lu, %piv, %info = stablehlo.custom_call @lapack_dgetrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<40x40xf64>) -> (tensor<40x40xf64>, tensor<40xi32>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %k = stablehlo.iota dim = 0 : tensor<40xi32>
  %ones = stablehlo.constant dense<1> : tensor<40xi32>
  %k1 = stablehlo.add %k, %ones : tensor<40xi32>
  check.expect_eq %piv, %k1 : tensor<40xi32>
  %below = stablehlo.compare GT, %i, %j, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %l_strict = stablehlo.select %below, %lu, %zero : tensor<40x40xi1>, tensor<40x40xf64>
  %diag1 = stablehlo.select %eq, %one, %zero : tensor<40x40xi1>, tensor<40x40xf64>
  %l = stablehlo.add %l_strict, %diag1 : tensor<40x40xf64>
  %u = stablehlo.select %below, %zero, %lu : tensor<40x40xi1>, tensor<40x40xf64>
  %prod = stablehlo.dot_general %l, %u, contracting_dims = [1] x [0] : (tensor<40x40xf64>, tensor<40x40xf64>) -> tensor<40x40xf64>
  check.expect_almost_eq %prod, %a, tolerance = 1.0e-9 : tensor<40x40xf64>
  %c35 = stablehlo.constant dense<35> : tensor<40x40xi32>
  %col35 = stablehlo.compare EQ, %j, %c35, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %a2 = stablehlo.select %col35, %zero, %a : tensor<40x40xi1>, tensor<40x40xf64>
  %lu2, %piv2, %info2 = stablehlo.custom_call @lapack_dgetrf_ffi(%a2) {mhlo.backend_config = {}} : (tensor<40x40xf64>) -> (tensor<40x40xf64>, tensor<40xi32>, tensor<i32>)
  check.expect_eq_const %info2, dense<36> : tensor<i32>
  // A batch of 16 (enough work to be spread over the intra-op threads), each matrix with its own
  // diagonal shift: every one still L U = A with no swaps.
  %ab = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<40x40xf64>) -> tensor<16x40x40xf64>
  %bk = stablehlo.iota dim = 0 : tensor<16x40x40xi32>
  %bri = stablehlo.iota dim = 1 : tensor<16x40x40xi32>
  %bj = stablehlo.iota dim = 2 : tensor<16x40x40xi32>
  %beq = stablehlo.compare EQ, %bri, %bj, SIGNED : (tensor<16x40x40xi32>, tensor<16x40x40xi32>) -> tensor<16x40x40xi1>
  %bkf = stablehlo.convert %bk : (tensor<16x40x40xi32>) -> tensor<16x40x40xf64>
  %bzero = stablehlo.constant dense<0.0> : tensor<16x40x40xf64>
  %bone = stablehlo.constant dense<1.0> : tensor<16x40x40xf64>
  %shift = stablehlo.select %beq, %bkf, %bzero : tensor<16x40x40xi1>, tensor<16x40x40xf64>
  %abs = stablehlo.add %ab, %shift : tensor<16x40x40xf64>
  %blu, %bpiv, %binfo = stablehlo.custom_call @lapack_dgetrf_ffi(%abs) {mhlo.backend_config = {}} : (tensor<16x40x40xf64>) -> (tensor<16x40x40xf64>, tensor<16x40xi32>, tensor<16xi32>)
  check.expect_eq_const %binfo, dense<0> : tensor<16xi32>
  %bbelow = stablehlo.compare GT, %bri, %bj, SIGNED : (tensor<16x40x40xi32>, tensor<16x40x40xi32>) -> tensor<16x40x40xi1>
  %bls = stablehlo.select %bbelow, %blu, %bzero : tensor<16x40x40xi1>, tensor<16x40x40xf64>
  %bd1 = stablehlo.select %beq, %bone, %bzero : tensor<16x40x40xi1>, tensor<16x40x40xf64>
  %bl = stablehlo.add %bls, %bd1 : tensor<16x40x40xf64>
  %bu = stablehlo.select %bbelow, %bzero, %blu : tensor<16x40x40xi1>, tensor<16x40x40xf64>
  %bprod = stablehlo.dot_general %bl, %bu, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<16x40x40xf64>, tensor<16x40x40xf64>) -> tensor<16x40x40xf64>
  check.expect_almost_eq %bprod, %abs, tolerance = 1.0e-9 : tensor<16x40x40xf64>
  func.return
}

// -----

// zpotrf past Eigen's unblocked size (32) from the upper triangle: A = B B^H + 40 I for a 40 x 40
// complex B built from iotas; U^H U = A, the strict lower triangle is left as it was, and a
// negative pivot at (35, 35) reports info 36.
func.func @potrf_blocked_40x40_upper() {
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
  %re = stablehlo.convert %re_i : (tensor<40x40xi32>) -> tensor<40x40xf64>
  %im = stablehlo.convert %im_i : (tensor<40x40xi32>) -> tensor<40x40xf64>
  %b = stablehlo.complex %re, %im : tensor<40x40xcomplex<f64>>
  %nim = stablehlo.negate %im : tensor<40x40xf64>
  %bc = stablehlo.complex %re, %nim : tensor<40x40xcomplex<f64>>
  %bbh = stablehlo.dot_general %b, %bc, contracting_dims = [1] x [1] : (tensor<40x40xcomplex<f64>>, tensor<40x40xcomplex<f64>>) -> tensor<40x40xcomplex<f64>>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %forty = stablehlo.constant dense<(40.0, 0.0)> : tensor<40x40xcomplex<f64>>
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<40x40xcomplex<f64>>
  %d = stablehlo.select %eq, %forty, %zero : tensor<40x40xi1>, tensor<40x40xcomplex<f64>>
  %a = stablehlo.add %bbh, %d : tensor<40x40xcomplex<f64>>
  %f, %info = stablehlo.custom_call @lapack_zpotrf_ffi(%a) {mhlo.backend_config = {uplo = 85 : ui8}} : (tensor<40x40xcomplex<f64>>) -> (tensor<40x40xcomplex<f64>>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %below = stablehlo.compare LT, %j, %i, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %u = stablehlo.select %below, %zero, %f : tensor<40x40xi1>, tensor<40x40xcomplex<f64>>
  %ure = stablehlo.real %u : (tensor<40x40xcomplex<f64>>) -> tensor<40x40xf64>
  %uim = stablehlo.imag %u : (tensor<40x40xcomplex<f64>>) -> tensor<40x40xf64>
  %nuim = stablehlo.negate %uim : tensor<40x40xf64>
  %uc = stablehlo.complex %ure, %nuim : tensor<40x40xcomplex<f64>>
  %uhu = stablehlo.dot_general %uc, %u, contracting_dims = [0] x [0] : (tensor<40x40xcomplex<f64>>, tensor<40x40xcomplex<f64>>) -> tensor<40x40xcomplex<f64>>
  check.expect_almost_eq %uhu, %a, tolerance = 1.0e-9 : tensor<40x40xcomplex<f64>>
  %kept = stablehlo.select %below, %f, %zero : tensor<40x40xi1>, tensor<40x40xcomplex<f64>>
  %orig = stablehlo.select %below, %a, %zero : tensor<40x40xi1>, tensor<40x40xcomplex<f64>>
  check.expect_eq %kept, %orig : tensor<40x40xcomplex<f64>>
  %c35 = stablehlo.constant dense<35> : tensor<40x40xi32>
  %at35 = stablehlo.compare EQ, %i, %c35, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %pivot = stablehlo.and %at35, %eq : tensor<40x40xi1>
  %neg = stablehlo.constant dense<(-1000.0, 0.0)> : tensor<40x40xcomplex<f64>>
  %bad = stablehlo.select %pivot, %neg, %a : tensor<40x40xi1>, tensor<40x40xcomplex<f64>>
  %fb, %info_b = stablehlo.custom_call @lapack_zpotrf_ffi(%bad) {mhlo.backend_config = {uplo = 85 : ui8}} : (tensor<40x40xcomplex<f64>>) -> (tensor<40x40xcomplex<f64>>, tensor<i32>)
  check.expect_eq_const %info_b, dense<36> : tensor<i32>
  %rows_b = stablehlo.slice %fb [0:35, 0:40] : (tensor<40x40xcomplex<f64>>) -> tensor<35x40xcomplex<f64>>
  %rows = stablehlo.slice %f [0:35, 0:40] : (tensor<40x40xcomplex<f64>>) -> tensor<35x40xcomplex<f64>>
  check.expect_almost_eq %rows_b, %rows, tolerance = 1.0e-12 : tensor<35x40xcomplex<f64>>
  func.return
}

// -----

// gesdd beyond Eigen's 16-column Jacobi blocks (the bidiagonal divide-and-conquer path): a
// 24 x 20 matrix built from iotas, checked by its reconstruction U diag(S) V^T and U's
// orthonormal columns.
func.func @gesdd_divide_and_conquer_24x20() {
  %i = stablehlo.iota dim = 0 : tensor<24x20xi32>
  %j = stablehlo.iota dim = 1 : tensor<24x20xi32>
  %c7 = stablehlo.constant dense<7> : tensor<24x20xi32>
  %c13 = stablehlo.constant dense<13> : tensor<24x20xi32>
  %c17 = stablehlo.constant dense<17> : tensor<24x20xi32>
  %i7 = stablehlo.multiply %i, %c7 : tensor<24x20xi32>
  %j13 = stablehlo.multiply %j, %c13 : tensor<24x20xi32>
  %sum = stablehlo.add %i7, %j13 : tensor<24x20xi32>
  %r = stablehlo.remainder %sum, %c17 : tensor<24x20xi32>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<24x20xi32>, tensor<24x20xi32>) -> tensor<24x20xi1>
  %c20 = stablehlo.constant dense<20> : tensor<24x20xi32>
  %c0 = stablehlo.constant dense<0> : tensor<24x20xi32>
  %d = stablehlo.select %eq, %c20, %c0 : tensor<24x20xi1>, tensor<24x20xi32>
  %ai = stablehlo.add %r, %d : tensor<24x20xi32>
  %a = stablehlo.convert %ai : (tensor<24x20xi32>) -> tensor<24x20xf32>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<24x20xf32>) -> (tensor<24x20xf32>, tensor<20xf32>, tensor<24x20xf32>, tensor<20x20xf32>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<20xf32>) -> tensor<24x20xf32>
  %us = stablehlo.multiply %u, %sb : tensor<24x20xf32>
  %rec = stablehlo.dot_general %us, %vt, contracting_dims = [1] x [0] : (tensor<24x20xf32>, tensor<20x20xf32>) -> tensor<24x20xf32>
  check.expect_almost_eq %rec, %a, tolerance = 1.0e-3 : tensor<24x20xf32>
  %utu = stablehlo.dot_general %u, %u, contracting_dims = [0] x [0] : (tensor<24x20xf32>, tensor<24x20xf32>) -> tensor<20x20xf32>
  %ei = stablehlo.iota dim = 0 : tensor<20x20xi32>
  %ej = stablehlo.iota dim = 1 : tensor<20x20xi32>
  %eeq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<20x20xi32>, tensor<20x20xi32>) -> tensor<20x20xi1>
  %one = stablehlo.constant dense<1.0> : tensor<20x20xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<20x20xf32>
  %eye = stablehlo.select %eeq, %one, %zero : tensor<20x20xi1>, tensor<20x20xf32>
  check.expect_almost_eq %utu, %eye, tolerance = 1.0e-5 : tensor<20x20xf32>
  func.return
}

// -----

// Wide matrices past a panel: dgetrf of 33 x 100 (the last panel's trailing columns solved with
// its unit lower triangle but no rows below it; diagonally dominant, so no swaps: L U = A) and
// dgeqrf of the same with Q from dorgqr of its first 33 columns (33 reflectors: blocked): Q R = A.
func.func @wide_getrf_geqrf_33x100() {
  %i = stablehlo.iota dim = 0 : tensor<33x100xi32>
  %j = stablehlo.iota dim = 1 : tensor<33x100xi32>
  %c7 = stablehlo.constant dense<7> : tensor<33x100xi32>
  %c8 = stablehlo.constant dense<8> : tensor<33x100xi32>
  %c13 = stablehlo.constant dense<13> : tensor<33x100xi32>
  %c17 = stablehlo.constant dense<17> : tensor<33x100xi32>
  %i7 = stablehlo.multiply %i, %c7 : tensor<33x100xi32>
  %j13 = stablehlo.multiply %j, %c13 : tensor<33x100xi32>
  %sum = stablehlo.add %i7, %j13 : tensor<33x100xi32>
  %r = stablehlo.remainder %sum, %c17 : tensor<33x100xi32>
  %bi = stablehlo.subtract %r, %c8 : tensor<33x100xi32>
  %b = stablehlo.convert %bi : (tensor<33x100xi32>) -> tensor<33x100xf64>
  %eq = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<33x100xi32>, tensor<33x100xi32>) -> tensor<33x100xi1>
  %big = stablehlo.constant dense<400.0> : tensor<33x100xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<33x100xf64>
  %d = stablehlo.select %eq, %big, %zero : tensor<33x100xi1>, tensor<33x100xf64>
  %a = stablehlo.add %b, %d : tensor<33x100xf64>
  %lu, %piv, %info = stablehlo.custom_call @lapack_dgetrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<33x100xf64>) -> (tensor<33x100xf64>, tensor<33xi32>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %below = stablehlo.compare GT, %i, %j, SIGNED : (tensor<33x100xi32>, tensor<33x100xi32>) -> tensor<33x100xi1>
  %u = stablehlo.select %below, %zero, %lu : tensor<33x100xi1>, tensor<33x100xf64>
  %lpart = stablehlo.slice %lu [0:33, 0:33] : (tensor<33x100xf64>) -> tensor<33x33xf64>
  %si = stablehlo.iota dim = 0 : tensor<33x33xi32>
  %sj = stablehlo.iota dim = 1 : tensor<33x33xi32>
  %sbelow = stablehlo.compare GT, %si, %sj, SIGNED : (tensor<33x33xi32>, tensor<33x33xi32>) -> tensor<33x33xi1>
  %seq = stablehlo.compare EQ, %si, %sj, SIGNED : (tensor<33x33xi32>, tensor<33x33xi32>) -> tensor<33x33xi1>
  %szero = stablehlo.constant dense<0.0> : tensor<33x33xf64>
  %sone = stablehlo.constant dense<1.0> : tensor<33x33xf64>
  %ls = stablehlo.select %sbelow, %lpart, %szero : tensor<33x33xi1>, tensor<33x33xf64>
  %eye = stablehlo.select %seq, %sone, %szero : tensor<33x33xi1>, tensor<33x33xf64>
  %l = stablehlo.add %ls, %eye : tensor<33x33xf64>
  %lu_prod = stablehlo.dot_general %l, %u, contracting_dims = [1] x [0] : (tensor<33x33xf64>, tensor<33x100xf64>) -> tensor<33x100xf64>
  check.expect_almost_eq %lu_prod, %a, tolerance = 1.0e-9 : tensor<33x100xf64>
  %qr, %tau = stablehlo.custom_call @lapack_dgeqrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<33x100xf64>) -> (tensor<33x100xf64>, tensor<33xf64>)
  %rr = stablehlo.select %below, %zero, %qr : tensor<33x100xi1>, tensor<33x100xf64>
  %v = stablehlo.slice %qr [0:33, 0:33] : (tensor<33x100xf64>) -> tensor<33x33xf64>
  %q = stablehlo.custom_call @lapack_dorgqr_ffi(%v, %tau) {mhlo.backend_config = {}} : (tensor<33x33xf64>, tensor<33xf64>) -> tensor<33x33xf64>
  %qr_prod = stablehlo.dot_general %q, %rr, contracting_dims = [1] x [0] : (tensor<33x33xf64>, tensor<33x100xf64>) -> tensor<33x100xf64>
  check.expect_almost_eq %qr_prod, %a, tolerance = 1.0e-9 : tensor<33x100xf64>
  func.return
}

// -----

// dsyevd past the 32-row leaves of its divide and conquer (two levels of merges, the secular
// equation and Gu and Eisenstat's vectors): a symmetric 100 x 100 matrix built from iotas, the
// upper triangle 99s (only the lower one is read). Checked by A V = V diag(w), V^T V = I,
// ascending w, and the eigenvalues-only mode (QL on the whole tridiagonal) against w.
func.func @syevd_dc_100x100() {
  %s_i = stablehlo.iota dim = 0 : tensor<100x100xi32>
  %s_j = stablehlo.iota dim = 1 : tensor<100x100xi32>
  %s_a = stablehlo.constant dense<7> : tensor<100x100xi32>
  %s_b = stablehlo.constant dense<13> : tensor<100x100xi32>
  %s_m = stablehlo.constant dense<17> : tensor<100x100xi32>
  %s_s = stablehlo.constant dense<16> : tensor<100x100xi32>
  %s_ai = stablehlo.multiply %s_i, %s_a : tensor<100x100xi32>
  %s_bj = stablehlo.multiply %s_j, %s_b : tensor<100x100xi32>
  %s_aj = stablehlo.multiply %s_j, %s_a : tensor<100x100xi32>
  %s_bi = stablehlo.multiply %s_i, %s_b : tensor<100x100xi32>
  %s_x1 = stablehlo.add %s_ai, %s_bj : tensor<100x100xi32>
  %s_x2 = stablehlo.add %s_aj, %s_bi : tensor<100x100xi32>
  %s_r1 = stablehlo.remainder %s_x1, %s_m : tensor<100x100xi32>
  %s_r2 = stablehlo.remainder %s_x2, %s_m : tensor<100x100xi32>
  %s_sum = stablehlo.add %s_r1, %s_r2 : tensor<100x100xi32>
  %s = stablehlo.subtract %s_sum, %s_s : tensor<100x100xi32>
  %a = stablehlo.convert %s : (tensor<100x100xi32>) -> tensor<100x100xf64>
  %in_gi = stablehlo.iota dim = 0 : tensor<100x100xi32>
  %in_gj = stablehlo.iota dim = 1 : tensor<100x100xi32>
  %in_gm = stablehlo.compare LT, %in_gi, %in_gj, SIGNED : (tensor<100x100xi32>, tensor<100x100xi32>) -> tensor<100x100xi1>
  %in_g99 = stablehlo.constant dense<99.0> : tensor<100x100xf64>
  %in = stablehlo.select %in_gm, %in_g99, %a : tensor<100x100xi1>, tensor<100x100xf64>
  %v, %w, %info = stablehlo.custom_call @lapack_dsyevd_ffi(%in) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<100x100xf64>) -> (tensor<100x100xf64>, tensor<100xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<100x100xf64>, tensor<100x100xf64>) -> tensor<100x100xf64>
  %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<100xf64>) -> tensor<100x100xf64>
  %vw = stablehlo.multiply %v, %wb : tensor<100x100xf64>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-9 : tensor<100x100xf64>
  %vhv = stablehlo.dot_general %v, %v, contracting_dims = [0] x [0] : (tensor<100x100xf64>, tensor<100x100xf64>) -> tensor<100x100xf64>
  %ei = stablehlo.iota dim = 0 : tensor<100x100xi32>
  %ej = stablehlo.iota dim = 1 : tensor<100x100xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<100x100xi32>, tensor<100x100xi32>) -> tensor<100x100xi1>
  %one = stablehlo.constant dense<1.0> : tensor<100x100xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<100x100xf64>
  %eye = stablehlo.select %eq, %one, %zero : tensor<100x100xi1>, tensor<100x100xf64>
  check.expect_almost_eq %vhv, %eye, tolerance = 1.0e-12 : tensor<100x100xf64>
  %wlo = stablehlo.slice %w [0:99] : (tensor<100xf64>) -> tensor<99xf64>
  %whi = stablehlo.slice %w [1:100] : (tensor<100xf64>) -> tensor<99xf64>
  %asc = stablehlo.compare LE, %wlo, %whi, FLOAT : (tensor<99xf64>, tensor<99xf64>) -> tensor<99xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %all = stablehlo.reduce(%asc init: %true) applies stablehlo.and across dimensions = [0] : (tensor<99xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %all, dense<true> : tensor<i1>
  %v2, %w2, %info2 = stablehlo.custom_call @lapack_dsyevd_ffi(%in) {mhlo.backend_config = {mode = 78 : ui8, uplo = 76 : ui8}} : (tensor<100x100xf64>) -> (tensor<100x100xf64>, tensor<100xf64>, tensor<i32>)
  check.expect_eq_const %info2, dense<0> : tensor<i32>
  check.expect_almost_eq %w2, %w, tolerance = 1.0e-9 : tensor<100xf64>
  func.return
}

// -----

// ssyevd of 160 x 160 (from iotas as above, the upper triangle 99s): through the plugin its
// divide and conquer's halves, its last merge and the back-transformation run on the intra-op
// threads (one matrix of at least 128 rows); the same identities at f32 tolerances.
func.func @ssyevd_dc_160x160_threads() {
  %s_i = stablehlo.iota dim = 0 : tensor<160x160xi32>
  %s_j = stablehlo.iota dim = 1 : tensor<160x160xi32>
  %s_a = stablehlo.constant dense<7> : tensor<160x160xi32>
  %s_b = stablehlo.constant dense<13> : tensor<160x160xi32>
  %s_m = stablehlo.constant dense<17> : tensor<160x160xi32>
  %s_s = stablehlo.constant dense<16> : tensor<160x160xi32>
  %s_ai = stablehlo.multiply %s_i, %s_a : tensor<160x160xi32>
  %s_bj = stablehlo.multiply %s_j, %s_b : tensor<160x160xi32>
  %s_aj = stablehlo.multiply %s_j, %s_a : tensor<160x160xi32>
  %s_bi = stablehlo.multiply %s_i, %s_b : tensor<160x160xi32>
  %s_x1 = stablehlo.add %s_ai, %s_bj : tensor<160x160xi32>
  %s_x2 = stablehlo.add %s_aj, %s_bi : tensor<160x160xi32>
  %s_r1 = stablehlo.remainder %s_x1, %s_m : tensor<160x160xi32>
  %s_r2 = stablehlo.remainder %s_x2, %s_m : tensor<160x160xi32>
  %s_sum = stablehlo.add %s_r1, %s_r2 : tensor<160x160xi32>
  %s = stablehlo.subtract %s_sum, %s_s : tensor<160x160xi32>
  %a = stablehlo.convert %s : (tensor<160x160xi32>) -> tensor<160x160xf32>
  %in_gi = stablehlo.iota dim = 0 : tensor<160x160xi32>
  %in_gj = stablehlo.iota dim = 1 : tensor<160x160xi32>
  %in_gm = stablehlo.compare LT, %in_gi, %in_gj, SIGNED : (tensor<160x160xi32>, tensor<160x160xi32>) -> tensor<160x160xi1>
  %in_g99 = stablehlo.constant dense<99.0> : tensor<160x160xf32>
  %in = stablehlo.select %in_gm, %in_g99, %a : tensor<160x160xi1>, tensor<160x160xf32>
  %v, %w, %info = stablehlo.custom_call @lapack_ssyevd_ffi(%in) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<160x160xf32>) -> (tensor<160x160xf32>, tensor<160xf32>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<160x160xf32>, tensor<160x160xf32>) -> tensor<160x160xf32>
  %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<160xf32>) -> tensor<160x160xf32>
  %vw = stablehlo.multiply %v, %wb : tensor<160x160xf32>
  check.expect_almost_eq %av, %vw, tolerance = 2.0e-2 : tensor<160x160xf32>
  %vhv = stablehlo.dot_general %v, %v, contracting_dims = [0] x [0] : (tensor<160x160xf32>, tensor<160x160xf32>) -> tensor<160x160xf32>
  %ei = stablehlo.iota dim = 0 : tensor<160x160xi32>
  %ej = stablehlo.iota dim = 1 : tensor<160x160xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<160x160xi32>, tensor<160x160xi32>) -> tensor<160x160xi1>
  %one = stablehlo.constant dense<1.0> : tensor<160x160xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<160x160xf32>
  %eye = stablehlo.select %eq, %one, %zero : tensor<160x160xi1>, tensor<160x160xf32>
  check.expect_almost_eq %vhv, %eye, tolerance = 2.0e-5 : tensor<160x160xf32>
  %wlo = stablehlo.slice %w [0:159] : (tensor<160xf32>) -> tensor<159xf32>
  %whi = stablehlo.slice %w [1:160] : (tensor<160xf32>) -> tensor<159xf32>
  %asc = stablehlo.compare LE, %wlo, %whi, FLOAT : (tensor<159xf32>, tensor<159xf32>) -> tensor<159xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %all = stablehlo.reduce(%asc init: %true) applies stablehlo.and across dimensions = [0] : (tensor<159xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %all, dense<true> : tensor<i1>
  %v2, %w2, %info2 = stablehlo.custom_call @lapack_ssyevd_ffi(%in) {mhlo.backend_config = {mode = 78 : ui8, uplo = 76 : ui8}} : (tensor<160x160xf32>) -> (tensor<160x160xf32>, tensor<160xf32>, tensor<i32>)
  check.expect_eq_const %info2, dense<0> : tensor<i32>
  check.expect_almost_eq %w2, %w, tolerance = 2.0e-3 : tensor<160xf32>
  func.return
}

// -----

// zheevd past the leaves, from the upper triangle: A = S + i K for a symmetric S and an
// antisymmetric K built from iotas (the lower triangle 99s). The tridiagonal is real; the
// vectors are the reflectors' complex Q times its real ones. A V = V diag(w), V^H V = I.
func.func @heevd_dc_70x70_upper() {
  %s_i = stablehlo.iota dim = 0 : tensor<70x70xi32>
  %s_j = stablehlo.iota dim = 1 : tensor<70x70xi32>
  %s_a = stablehlo.constant dense<5> : tensor<70x70xi32>
  %s_b = stablehlo.constant dense<11> : tensor<70x70xi32>
  %s_m = stablehlo.constant dense<13> : tensor<70x70xi32>
  %s_s = stablehlo.constant dense<12> : tensor<70x70xi32>
  %s_ai = stablehlo.multiply %s_i, %s_a : tensor<70x70xi32>
  %s_bj = stablehlo.multiply %s_j, %s_b : tensor<70x70xi32>
  %s_aj = stablehlo.multiply %s_j, %s_a : tensor<70x70xi32>
  %s_bi = stablehlo.multiply %s_i, %s_b : tensor<70x70xi32>
  %s_x1 = stablehlo.add %s_ai, %s_bj : tensor<70x70xi32>
  %s_x2 = stablehlo.add %s_aj, %s_bi : tensor<70x70xi32>
  %s_r1 = stablehlo.remainder %s_x1, %s_m : tensor<70x70xi32>
  %s_r2 = stablehlo.remainder %s_x2, %s_m : tensor<70x70xi32>
  %s_sum = stablehlo.add %s_r1, %s_r2 : tensor<70x70xi32>
  %s = stablehlo.subtract %s_sum, %s_s : tensor<70x70xi32>
  %t_i = stablehlo.iota dim = 0 : tensor<70x70xi32>
  %t_j = stablehlo.iota dim = 1 : tensor<70x70xi32>
  %t_a = stablehlo.constant dense<3> : tensor<70x70xi32>
  %t_b = stablehlo.constant dense<7> : tensor<70x70xi32>
  %t_m = stablehlo.constant dense<11> : tensor<70x70xi32>
  %t_s = stablehlo.constant dense<10> : tensor<70x70xi32>
  %t_ai = stablehlo.multiply %t_i, %t_a : tensor<70x70xi32>
  %t_bj = stablehlo.multiply %t_j, %t_b : tensor<70x70xi32>
  %t_aj = stablehlo.multiply %t_j, %t_a : tensor<70x70xi32>
  %t_bi = stablehlo.multiply %t_i, %t_b : tensor<70x70xi32>
  %t_x1 = stablehlo.add %t_ai, %t_bj : tensor<70x70xi32>
  %t_x2 = stablehlo.add %t_aj, %t_bi : tensor<70x70xi32>
  %t_r1 = stablehlo.remainder %t_x1, %t_m : tensor<70x70xi32>
  %t_r2 = stablehlo.remainder %t_x2, %t_m : tensor<70x70xi32>
  %t_sum = stablehlo.add %t_r1, %t_r2 : tensor<70x70xi32>
  %t = stablehlo.subtract %t_sum, %t_s : tensor<70x70xi32>
  %k1 = stablehlo.subtract %t_r1, %t_r2 : tensor<70x70xi32>
  %sr = stablehlo.convert %s : (tensor<70x70xi32>) -> tensor<70x70xf64>
  %ki = stablehlo.convert %k1 : (tensor<70x70xi32>) -> tensor<70x70xf64>
  %a = stablehlo.complex %sr, %ki : tensor<70x70xcomplex<f64>>
  %in_gi = stablehlo.iota dim = 0 : tensor<70x70xi32>
  %in_gj = stablehlo.iota dim = 1 : tensor<70x70xi32>
  %in_gm = stablehlo.compare GT, %in_gi, %in_gj, SIGNED : (tensor<70x70xi32>, tensor<70x70xi32>) -> tensor<70x70xi1>
  %in_g99 = stablehlo.constant dense<(99.0, 99.0)> : tensor<70x70xcomplex<f64>>
  %in = stablehlo.select %in_gm, %in_g99, %a : tensor<70x70xi1>, tensor<70x70xcomplex<f64>>
  %v, %w, %info = stablehlo.custom_call @lapack_zheevd_ffi(%in) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}} : (tensor<70x70xcomplex<f64>>) -> (tensor<70x70xcomplex<f64>>, tensor<70xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<70x70xcomplex<f64>>, tensor<70x70xcomplex<f64>>) -> tensor<70x70xcomplex<f64>>
  %wr = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<70xf64>) -> tensor<70x70xf64>
  %wz = stablehlo.constant dense<0.0> : tensor<70x70xf64>
  %wb = stablehlo.complex %wr, %wz : tensor<70x70xcomplex<f64>>
  %vre = stablehlo.real %v : (tensor<70x70xcomplex<f64>>) -> tensor<70x70xf64>
  %vim = stablehlo.imag %v : (tensor<70x70xcomplex<f64>>) -> tensor<70x70xf64>
  %vimn = stablehlo.negate %vim : tensor<70x70xf64>
  %vc = stablehlo.complex %vre, %vimn : tensor<70x70xcomplex<f64>>
  %vw = stablehlo.multiply %v, %wb : tensor<70x70xcomplex<f64>>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-9 : tensor<70x70xcomplex<f64>>
  %vhv = stablehlo.dot_general %vc, %v, contracting_dims = [0] x [0] : (tensor<70x70xcomplex<f64>>, tensor<70x70xcomplex<f64>>) -> tensor<70x70xcomplex<f64>>
  %ei = stablehlo.iota dim = 0 : tensor<70x70xi32>
  %ej = stablehlo.iota dim = 1 : tensor<70x70xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<70x70xi32>, tensor<70x70xi32>) -> tensor<70x70xi1>
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<70x70xcomplex<f64>>
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<70x70xcomplex<f64>>
  %eye = stablehlo.select %eq, %one, %zero : tensor<70x70xi1>, tensor<70x70xcomplex<f64>>
  check.expect_almost_eq %vhv, %eye, tolerance = 1.0e-12 : tensor<70x70xcomplex<f64>>
  %wlo = stablehlo.slice %w [0:69] : (tensor<70xf64>) -> tensor<69xf64>
  %whi = stablehlo.slice %w [1:70] : (tensor<70xf64>) -> tensor<69xf64>
  %asc = stablehlo.compare LE, %wlo, %whi, FLOAT : (tensor<69xf64>, tensor<69xf64>) -> tensor<69xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %all = stablehlo.reduce(%asc init: %true) applies stablehlo.and across dimensions = [0] : (tensor<69xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %all, dense<true> : tensor<i1>
  func.return
}

// -----

// Merges that deflate: 96 x 96 with A_ij = 1 where i - j is a multiple of 8 (eigenvalues 12,
// eight times, and 0, 88 times: equal poles rotated together, negligible z components), then
// a diagonal matrix (a tridiagonal with no couplings: everything deflates). Checked by the
// same identities and by the eigenvalues themselves.
func.func @syevd_dc_deflation_96x96() {
  %i = stablehlo.iota dim = 0 : tensor<96x96xi32>
  %j = stablehlo.iota dim = 1 : tensor<96x96xi32>
  %c8 = stablehlo.constant dense<8> : tensor<96x96xi32>
  %c0 = stablehlo.constant dense<0> : tensor<96x96xi32>
  %df = stablehlo.subtract %i, %j : tensor<96x96xi32>
  %rm = stablehlo.remainder %df, %c8 : tensor<96x96xi32>
  %hit = stablehlo.compare EQ, %rm, %c0, SIGNED : (tensor<96x96xi32>, tensor<96x96xi32>) -> tensor<96x96xi1>
  %o = stablehlo.constant dense<1.0> : tensor<96x96xf64>
  %z = stablehlo.constant dense<0.0> : tensor<96x96xf64>
  %a = stablehlo.select %hit, %o, %z : tensor<96x96xi1>, tensor<96x96xf64>
  %v, %w, %info = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<96x96xf64>) -> (tensor<96x96xf64>, tensor<96xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<96x96xf64>, tensor<96x96xf64>) -> tensor<96x96xf64>
  %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<96xf64>) -> tensor<96x96xf64>
  %vw = stablehlo.multiply %v, %wb : tensor<96x96xf64>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-10 : tensor<96x96xf64>
  %vhv = stablehlo.dot_general %v, %v, contracting_dims = [0] x [0] : (tensor<96x96xf64>, tensor<96x96xf64>) -> tensor<96x96xf64>
  %ei = stablehlo.iota dim = 0 : tensor<96x96xi32>
  %ej = stablehlo.iota dim = 1 : tensor<96x96xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<96x96xi32>, tensor<96x96xi32>) -> tensor<96x96xi1>
  %one = stablehlo.constant dense<1.0> : tensor<96x96xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<96x96xf64>
  %eye = stablehlo.select %eq, %one, %zero : tensor<96x96xi1>, tensor<96x96xf64>
  check.expect_almost_eq %vhv, %eye, tolerance = 1.0e-12 : tensor<96x96xf64>
  %wlo = stablehlo.slice %w [0:95] : (tensor<96xf64>) -> tensor<95xf64>
  %whi = stablehlo.slice %w [1:96] : (tensor<96xf64>) -> tensor<95xf64>
  %asc = stablehlo.compare LE, %wlo, %whi, FLOAT : (tensor<95xf64>, tensor<95xf64>) -> tensor<95xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %all = stablehlo.reduce(%asc init: %true) applies stablehlo.and across dimensions = [0] : (tensor<95xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %all, dense<true> : tensor<i1>
  check.expect_almost_eq_const %w, dense<[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 12.0, 12.0, 12.0, 12.0, 12.0, 12.0, 12.0, 12.0]>, tolerance = 1.0e-10 : tensor<96xf64>
  %fi = stablehlo.convert %i : (tensor<96x96xi32>) -> tensor<96x96xf64>
  %eqd = stablehlo.compare EQ, %i, %j, SIGNED : (tensor<96x96xi32>, tensor<96x96xi32>) -> tensor<96x96xi1>
  %c5 = stablehlo.constant dense<5> : tensor<96x96xi32>
  %m5 = stablehlo.remainder %i, %c5 : tensor<96x96xi32>
  %f5 = stablehlo.convert %m5 : (tensor<96x96xi32>) -> tensor<96x96xf64>
  %dg = stablehlo.select %eqd, %f5, %z : tensor<96x96xi1>, tensor<96x96xf64>
  %v2, %w2, %info2 = stablehlo.custom_call @lapack_dsyevd_ffi(%dg) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}} : (tensor<96x96xf64>) -> (tensor<96x96xf64>, tensor<96xf64>, tensor<i32>)
  check.expect_eq_const %info2, dense<0> : tensor<i32>
  check.expect_almost_eq_const %w2, dense<[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0]>, tolerance = 1.0e-12 : tensor<96xf64>
  %av2 = stablehlo.dot_general %dg, %v2, contracting_dims = [1] x [0] : (tensor<96x96xf64>, tensor<96x96xf64>) -> tensor<96x96xf64>
  %wb2 = stablehlo.broadcast_in_dim %w2, dims = [1] : (tensor<96xf64>) -> tensor<96x96xf64>
  %vw2 = stablehlo.multiply %v2, %wb2 : tensor<96x96xf64>
  check.expect_almost_eq %av2, %vw2, tolerance = 1.0e-12 : tensor<96x96xf64>
  func.return
}

// -----

// ssyevd on a batch of three 40 x 40 matrices (reduction and vectors in single precision, the
// tridiagonal's divide and conquer in double): S, S + 3 I and -S for
// the S of the iotas; each checked by A V = V diag(w) and V^T V = I.
func.func @syevd_dc_batch_3x40x40_f32() {
  %s_i = stablehlo.iota dim = 0 : tensor<40x40xi32>
  %s_j = stablehlo.iota dim = 1 : tensor<40x40xi32>
  %s_a = stablehlo.constant dense<7> : tensor<40x40xi32>
  %s_b = stablehlo.constant dense<3> : tensor<40x40xi32>
  %s_m = stablehlo.constant dense<19> : tensor<40x40xi32>
  %s_s = stablehlo.constant dense<18> : tensor<40x40xi32>
  %s_ai = stablehlo.multiply %s_i, %s_a : tensor<40x40xi32>
  %s_bj = stablehlo.multiply %s_j, %s_b : tensor<40x40xi32>
  %s_aj = stablehlo.multiply %s_j, %s_a : tensor<40x40xi32>
  %s_bi = stablehlo.multiply %s_i, %s_b : tensor<40x40xi32>
  %s_x1 = stablehlo.add %s_ai, %s_bj : tensor<40x40xi32>
  %s_x2 = stablehlo.add %s_aj, %s_bi : tensor<40x40xi32>
  %s_r1 = stablehlo.remainder %s_x1, %s_m : tensor<40x40xi32>
  %s_r2 = stablehlo.remainder %s_x2, %s_m : tensor<40x40xi32>
  %s_sum = stablehlo.add %s_r1, %s_r2 : tensor<40x40xi32>
  %s = stablehlo.subtract %s_sum, %s_s : tensor<40x40xi32>
  %a0 = stablehlo.convert %s : (tensor<40x40xi32>) -> tensor<40x40xf32>
  %e3 = stablehlo.constant dense<3.0> : tensor<40x40xf32>
  %ii = stablehlo.iota dim = 0 : tensor<40x40xi32>
  %jj = stablehlo.iota dim = 1 : tensor<40x40xi32>
  %dd = stablehlo.compare EQ, %ii, %jj, SIGNED : (tensor<40x40xi32>, tensor<40x40xi32>) -> tensor<40x40xi1>
  %zz = stablehlo.constant dense<0.0> : tensor<40x40xf32>
  %i3 = stablehlo.select %dd, %e3, %zz : tensor<40x40xi1>, tensor<40x40xf32>
  %a1 = stablehlo.add %a0, %i3 : tensor<40x40xf32>
  %a2 = stablehlo.negate %a0 : tensor<40x40xf32>
  %b0 = stablehlo.reshape %a0 : (tensor<40x40xf32>) -> tensor<1x40x40xf32>
  %b1 = stablehlo.reshape %a1 : (tensor<40x40xf32>) -> tensor<1x40x40xf32>
  %b2 = stablehlo.reshape %a2 : (tensor<40x40xf32>) -> tensor<1x40x40xf32>
  %ab = stablehlo.concatenate %b0, %b1, %b2, dim = 0 : (tensor<1x40x40xf32>, tensor<1x40x40xf32>, tensor<1x40x40xf32>) -> tensor<3x40x40xf32>
  %v, %w, %info = stablehlo.custom_call @lapack_ssyevd_ffi(%ab) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<3x40x40xf32>) -> (tensor<3x40x40xf32>, tensor<3x40xf32>, tensor<3xi32>)
  check.expect_eq_const %info, dense<0> : tensor<3xi32>
  %av = stablehlo.dot_general %ab, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x40x40xf32>, tensor<3x40x40xf32>) -> tensor<3x40x40xf32>
  %wb = stablehlo.broadcast_in_dim %w, dims = [0, 2] : (tensor<3x40xf32>) -> tensor<3x40x40xf32>
  %vw = stablehlo.multiply %v, %wb : tensor<3x40x40xf32>
  check.expect_almost_eq %av, %vw, tolerance = 2.0e-3 : tensor<3x40x40xf32>
  %vtv = stablehlo.dot_general %v, %v, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<3x40x40xf32>, tensor<3x40x40xf32>) -> tensor<3x40x40xf32>
  %o = stablehlo.constant dense<1.0> : tensor<40x40xf32>
  %eye = stablehlo.select %dd, %o, %zz : tensor<40x40xi1>, tensor<40x40xf32>
  %eyes = stablehlo.broadcast_in_dim %eye, dims = [1, 2] : (tensor<40x40xf32>) -> tensor<3x40x40xf32>
  check.expect_almost_eq %vtv, %eyes, tolerance = 1.0e-5 : tensor<3x40x40xf32>
  func.return
}

// -----

// The 100 x 100 second-difference matrix (tridiagonal 2, -1): its halves are mirror images, so
// every merge meets pairs of equal poles with non-zero weights, which deflation rotates into
// one. Eigenvalues 2 - 2 cos(k pi / 101), k = 1..100; A V = V diag(w), V^T V = I.
func.func @syevd_dc_second_difference_100() {
  %i = stablehlo.iota dim = 0 : tensor<100x100xi32>
  %j = stablehlo.iota dim = 1 : tensor<100x100xi32>
  %df = stablehlo.subtract %i, %j : tensor<100x100xi32>
  %df2 = stablehlo.multiply %df, %df : tensor<100x100xi32>
  %c0 = stablehlo.constant dense<0> : tensor<100x100xi32>
  %c1 = stablehlo.constant dense<1> : tensor<100x100xi32>
  %isd = stablehlo.compare EQ, %df2, %c0, SIGNED : (tensor<100x100xi32>, tensor<100x100xi32>) -> tensor<100x100xi1>
  %iso = stablehlo.compare EQ, %df2, %c1, SIGNED : (tensor<100x100xi32>, tensor<100x100xi32>) -> tensor<100x100xi1>
  %two = stablehlo.constant dense<2.0> : tensor<100x100xf64>
  %m1 = stablehlo.constant dense<-1.0> : tensor<100x100xf64>
  %z = stablehlo.constant dense<0.0> : tensor<100x100xf64>
  %off = stablehlo.select %iso, %m1, %z : tensor<100x100xi1>, tensor<100x100xf64>
  %a = stablehlo.select %isd, %two, %off : tensor<100x100xi1>, tensor<100x100xf64>
  %v, %w, %info = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<100x100xf64>) -> (tensor<100x100xf64>, tensor<100xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<100x100xf64>, tensor<100x100xf64>) -> tensor<100x100xf64>
  %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<100xf64>) -> tensor<100x100xf64>
  %vw = stablehlo.multiply %v, %wb : tensor<100x100xf64>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-12 : tensor<100x100xf64>
  %vhv = stablehlo.dot_general %v, %v, contracting_dims = [0] x [0] : (tensor<100x100xf64>, tensor<100x100xf64>) -> tensor<100x100xf64>
  %ei = stablehlo.iota dim = 0 : tensor<100x100xi32>
  %ej = stablehlo.iota dim = 1 : tensor<100x100xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<100x100xi32>, tensor<100x100xi32>) -> tensor<100x100xi1>
  %one = stablehlo.constant dense<1.0> : tensor<100x100xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<100x100xf64>
  %eye = stablehlo.select %eq, %one, %zero : tensor<100x100xi1>, tensor<100x100xf64>
  check.expect_almost_eq %vhv, %eye, tolerance = 1.0e-12 : tensor<100x100xf64>
  %wlo = stablehlo.slice %w [0:99] : (tensor<100xf64>) -> tensor<99xf64>
  %whi = stablehlo.slice %w [1:100] : (tensor<100xf64>) -> tensor<99xf64>
  %asc = stablehlo.compare LE, %wlo, %whi, FLOAT : (tensor<99xf64>, tensor<99xf64>) -> tensor<99xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %all = stablehlo.reduce(%asc init: %true) applies stablehlo.and across dimensions = [0] : (tensor<99xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %all, dense<true> : tensor<i1>
  check.expect_almost_eq_const %w, dense<[0.000967435416023843, 0.0038688057328113423, 0.008701304061962789, 0.015460255273447077, 0.024139120518486656, 0.03472950355547266, 0.047221158872785995, 0.061602001600667755, 0.07785811920255092, 0.09597378493454012, 0.1159314730600216, 0.13771187580468092, 0.1612939220355274, 0.1866547976458548, 0.21376996762641687, 0.24261319980146245, 0.27315659020667304, 0.305370590084445, 0.33922403447040494, 0.3746841723434995, 0.41171669831049296, 0.4502857857942202, 0.4903541216934859, 0.5318829424810798, 0.5748320717049862, 0.6191599588565067, 0.6648237195676927, 0.7117791770992044, 0.7599809050784496, 0.8093822714466679, 0.8599354835724344, 0.9115916344879453, 0.9643007502033494, 1.0180118380533556, 1.0726729360293454, 1.1282311630492576, 1.1846327701166224, 1.241823192319241, 1.2997471016172184, 1.3583484603692644, 1.4175705755454955, 1.4773561535742785, 1.5376473557700605, 1.5983858542885627, 1.6595128885552026, 1.7209693221121538, 1.782695699829051, 1.8446323054219875, 1.9067192192251647, 1.9688963761592984, 2.031103623840701, 2.0932807807748355, 2.155367694578012, 2.217304300170949, 2.279030677887846, 2.340487111444797, 2.4016141457114366, 2.4623526442299393, 2.522643846425721, 2.582429424454504, 2.641651539630735, 2.700252898382781, 2.758176807680759, 2.8153672298833774, 2.871768836950742, 2.927327063970655, 2.981988161946644, 3.035699249796651, 3.088408365512054, 3.1400645164275653, 3.190617728553332, 3.24001909492155, 3.2882208229007954, 3.3351762804323073, 3.380840041143493, 3.425167928295014, 3.4681170575189206, 3.5096458783065136, 3.5497142142057796, 3.588283301689507, 3.6253158276565003, 3.6607759655295946, 3.694629409915555, 3.726843409793327, 3.7573868001985375, 3.7862300323735827, 3.813345202354145, 3.8387060779644724, 3.8622881241953193, 3.884068526939978, 3.9040262150654597, 3.922141880797449, 3.9383979983993322, 3.952778841127214, 3.9652704964445276, 3.9758608794815133, 3.984539744726553, 3.9912986959380374, 3.9961311942671887, 3.999032564583976]>, tolerance = 1.0e-12 : tensor<100xf64>
  func.return
}

// -----

// Wilkinson's W+ of order 101 (tridiagonal, d_i = |i - 50|, couplings 1): its eigenvalues come
// in pairs equal to many digits, so secular roots sit next to their poles; the vectors stay
// orthogonal only through Gu and Eisenstat's recomputed weights.
func.func @syevd_dc_wilkinson_101() {
  %i = stablehlo.iota dim = 0 : tensor<101x101xi32>
  %j = stablehlo.iota dim = 1 : tensor<101x101xi32>
  %df = stablehlo.subtract %i, %j : tensor<101x101xi32>
  %df2 = stablehlo.multiply %df, %df : tensor<101x101xi32>
  %c0 = stablehlo.constant dense<0> : tensor<101x101xi32>
  %c1 = stablehlo.constant dense<1> : tensor<101x101xi32>
  %c50 = stablehlo.constant dense<50> : tensor<101x101xi32>
  %isd = stablehlo.compare EQ, %df2, %c0, SIGNED : (tensor<101x101xi32>, tensor<101x101xi32>) -> tensor<101x101xi1>
  %iso = stablehlo.compare EQ, %df2, %c1, SIGNED : (tensor<101x101xi32>, tensor<101x101xi32>) -> tensor<101x101xi1>
  %dm = stablehlo.subtract %i, %c50 : tensor<101x101xi32>
  %da = stablehlo.abs %dm : tensor<101x101xi32>
  %dd = stablehlo.convert %da : (tensor<101x101xi32>) -> tensor<101x101xf64>
  %one = stablehlo.constant dense<1.0> : tensor<101x101xf64>
  %z = stablehlo.constant dense<0.0> : tensor<101x101xf64>
  %off = stablehlo.select %iso, %one, %z : tensor<101x101xi1>, tensor<101x101xf64>
  %a = stablehlo.select %isd, %dd, %off : tensor<101x101xi1>, tensor<101x101xf64>
  %v, %w, %info = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}} : (tensor<101x101xf64>) -> (tensor<101x101xf64>, tensor<101xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<101x101xf64>, tensor<101x101xf64>) -> tensor<101x101xf64>
  %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<101xf64>) -> tensor<101x101xf64>
  %vw = stablehlo.multiply %v, %wb : tensor<101x101xf64>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-12 : tensor<101x101xf64>
  %vhv = stablehlo.dot_general %v, %v, contracting_dims = [0] x [0] : (tensor<101x101xf64>, tensor<101x101xf64>) -> tensor<101x101xf64>
  %ei = stablehlo.iota dim = 0 : tensor<101x101xi32>
  %ej = stablehlo.iota dim = 1 : tensor<101x101xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<101x101xi32>, tensor<101x101xi32>) -> tensor<101x101xi1>
  %one1 = stablehlo.constant dense<1.0> : tensor<101x101xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<101x101xf64>
  %eye = stablehlo.select %eq, %one1, %zero : tensor<101x101xi1>, tensor<101x101xf64>
  check.expect_almost_eq %vhv, %eye, tolerance = 1.0e-13 : tensor<101x101xf64>
  %wlo = stablehlo.slice %w [0:100] : (tensor<101xf64>) -> tensor<100xf64>
  %whi = stablehlo.slice %w [1:101] : (tensor<101xf64>) -> tensor<100xf64>
  %asc = stablehlo.compare LE, %wlo, %whi, FLOAT : (tensor<100xf64>, tensor<100xf64>) -> tensor<100xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %all = stablehlo.reduce(%asc init: %true) applies stablehlo.and across dimensions = [0] : (tensor<100xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %all, dense<true> : tensor<i1>
  func.return
}

// -----

// A cluster: I + 1e-10 S for the S of the iotas (all eigenvalues within ~1e-8 of 1, yet far
// apart for deflation). Roots this close together give orthogonal vectors only from Gu and
// Eisenstat's weights (the plain z loses orthogonality to about 1e-6 here).
func.func @syevd_dc_cluster_100() {
  %s_i = stablehlo.iota dim = 0 : tensor<100x100xi32>
  %s_j = stablehlo.iota dim = 1 : tensor<100x100xi32>
  %s_a = stablehlo.constant dense<7> : tensor<100x100xi32>
  %s_b = stablehlo.constant dense<13> : tensor<100x100xi32>
  %s_m = stablehlo.constant dense<17> : tensor<100x100xi32>
  %s_s = stablehlo.constant dense<16> : tensor<100x100xi32>
  %s_ai = stablehlo.multiply %s_i, %s_a : tensor<100x100xi32>
  %s_bj = stablehlo.multiply %s_j, %s_b : tensor<100x100xi32>
  %s_aj = stablehlo.multiply %s_j, %s_a : tensor<100x100xi32>
  %s_bi = stablehlo.multiply %s_i, %s_b : tensor<100x100xi32>
  %s_x1 = stablehlo.add %s_ai, %s_bj : tensor<100x100xi32>
  %s_x2 = stablehlo.add %s_aj, %s_bi : tensor<100x100xi32>
  %s_r1 = stablehlo.remainder %s_x1, %s_m : tensor<100x100xi32>
  %s_r2 = stablehlo.remainder %s_x2, %s_m : tensor<100x100xi32>
  %s_sum = stablehlo.add %s_r1, %s_r2 : tensor<100x100xi32>
  %s = stablehlo.subtract %s_sum, %s_s : tensor<100x100xi32>
  %sf = stablehlo.convert %s : (tensor<100x100xi32>) -> tensor<100x100xf64>
  %tiny = stablehlo.constant dense<1.0e-10> : tensor<100x100xf64>
  %ts = stablehlo.multiply %sf, %tiny : tensor<100x100xf64>
  %ci = stablehlo.iota dim = 0 : tensor<100x100xi32>
  %cj = stablehlo.iota dim = 1 : tensor<100x100xi32>
  %cd = stablehlo.compare EQ, %ci, %cj, SIGNED : (tensor<100x100xi32>, tensor<100x100xi32>) -> tensor<100x100xi1>
  %c1 = stablehlo.constant dense<1.0> : tensor<100x100xf64>
  %c0 = stablehlo.constant dense<0.0> : tensor<100x100xf64>
  %id = stablehlo.select %cd, %c1, %c0 : tensor<100x100xi1>, tensor<100x100xf64>
  %a = stablehlo.add %id, %ts : tensor<100x100xf64>
  %v, %w, %info = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<100x100xf64>) -> (tensor<100x100xf64>, tensor<100xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<100x100xf64>, tensor<100x100xf64>) -> tensor<100x100xf64>
  %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<100xf64>) -> tensor<100x100xf64>
  %vw = stablehlo.multiply %v, %wb : tensor<100x100xf64>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-13 : tensor<100x100xf64>
  %vhv = stablehlo.dot_general %v, %v, contracting_dims = [0] x [0] : (tensor<100x100xf64>, tensor<100x100xf64>) -> tensor<100x100xf64>
  %ei = stablehlo.iota dim = 0 : tensor<100x100xi32>
  %ej = stablehlo.iota dim = 1 : tensor<100x100xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<100x100xi32>, tensor<100x100xi32>) -> tensor<100x100xi1>
  %one = stablehlo.constant dense<1.0> : tensor<100x100xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<100x100xf64>
  %eye = stablehlo.select %eq, %one, %zero : tensor<100x100xi1>, tensor<100x100xf64>
  check.expect_almost_eq %vhv, %eye, tolerance = 1.0e-12 : tensor<100x100xf64>
  %wlo = stablehlo.slice %w [0:99] : (tensor<100xf64>) -> tensor<99xf64>
  %whi = stablehlo.slice %w [1:100] : (tensor<100xf64>) -> tensor<99xf64>
  %asc = stablehlo.compare LE, %wlo, %whi, FLOAT : (tensor<99xf64>, tensor<99xf64>) -> tensor<99xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %all = stablehlo.reduce(%asc init: %true) applies stablehlo.and across dimensions = [0] : (tensor<99xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %all, dense<true> : tensor<i1>
  func.return
}

// -----

// A graded spectrum in a full basis: A = Q diag(g) Q^T with g_k = +-10^(-12 + 15 k / 64) (signs
// alternating) and Q from dgeqrf + dorgqr of the iota matrix. Eigenvalues spanning 15 decades
// put roots next to poles; only Gu and Eisenstat's weights keep V orthogonal.
func.func @syevd_dc_graded_64() {
  %s_i = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %s_j = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %s_a = stablehlo.constant dense<7> : tensor<64x64xi32>
  %s_b = stablehlo.constant dense<13> : tensor<64x64xi32>
  %s_m = stablehlo.constant dense<17> : tensor<64x64xi32>
  %s_s = stablehlo.constant dense<16> : tensor<64x64xi32>
  %s_ai = stablehlo.multiply %s_i, %s_a : tensor<64x64xi32>
  %s_bj = stablehlo.multiply %s_j, %s_b : tensor<64x64xi32>
  %s_aj = stablehlo.multiply %s_j, %s_a : tensor<64x64xi32>
  %s_bi = stablehlo.multiply %s_i, %s_b : tensor<64x64xi32>
  %s_x1 = stablehlo.add %s_ai, %s_bj : tensor<64x64xi32>
  %s_x2 = stablehlo.add %s_aj, %s_bi : tensor<64x64xi32>
  %s_r1 = stablehlo.remainder %s_x1, %s_m : tensor<64x64xi32>
  %s_r2 = stablehlo.remainder %s_x2, %s_m : tensor<64x64xi32>
  %s_sum = stablehlo.add %s_r1, %s_r2 : tensor<64x64xi32>
  %s = stablehlo.subtract %s_sum, %s_s : tensor<64x64xi32>
  %sf = stablehlo.convert %s : (tensor<64x64xi32>) -> tensor<64x64xf64>
  %qr, %tau = stablehlo.custom_call @lapack_dgeqrf_ffi(%sf) {mhlo.backend_config = {}} : (tensor<64x64xf64>) -> (tensor<64x64xf64>, tensor<64xf64>)
  %q = stablehlo.custom_call @lapack_dorgqr_ffi(%qr, %tau) {mhlo.backend_config = {}} : (tensor<64x64xf64>, tensor<64xf64>) -> tensor<64x64xf64>
  %k = stablehlo.iota dim = 0 : tensor<64xi32>
  %kf = stablehlo.convert %k : (tensor<64xi32>) -> tensor<64xf64>
  %step = stablehlo.constant dense<0.5396683811704795> : tensor<64xf64>
  %base = stablehlo.constant dense<-27.63102111592855> : tensor<64xf64>
  %ks = stablehlo.multiply %kf, %step : tensor<64xf64>
  %ex = stablehlo.add %ks, %base : tensor<64xf64>
  %mag = stablehlo.exponential %ex : tensor<64xf64>
  %two = stablehlo.constant dense<2> : tensor<64xi32>
  %zero_i = stablehlo.constant dense<0> : tensor<64xi32>
  %par = stablehlo.remainder %k, %two : tensor<64xi32>
  %even = stablehlo.compare EQ, %par, %zero_i, SIGNED : (tensor<64xi32>, tensor<64xi32>) -> tensor<64xi1>
  %neg = stablehlo.negate %mag : tensor<64xf64>
  %g = stablehlo.select %even, %mag, %neg : tensor<64xi1>, tensor<64xf64>
  %gb = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<64xf64>) -> tensor<64x64xf64>
  %qg = stablehlo.multiply %q, %gb : tensor<64x64xf64>
  %a = stablehlo.dot_general %qg, %q, contracting_dims = [1] x [1] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %v, %w, %info = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<64x64xf64>) -> (tensor<64x64xf64>, tensor<64xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %av = stablehlo.dot_general %a, %v, contracting_dims = [1] x [0] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %wb = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<64xf64>) -> tensor<64x64xf64>
  %vw = stablehlo.multiply %v, %wb : tensor<64x64xf64>
  check.expect_almost_eq %av, %vw, tolerance = 1.0e-11 : tensor<64x64xf64>
  %vhv = stablehlo.dot_general %v, %v, contracting_dims = [0] x [0] : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  %ei = stablehlo.iota dim = 0 : tensor<64x64xi32>
  %ej = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %eq = stablehlo.compare EQ, %ei, %ej, SIGNED : (tensor<64x64xi32>, tensor<64x64xi32>) -> tensor<64x64xi1>
  %one = stablehlo.constant dense<1.0> : tensor<64x64xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<64x64xf64>
  %eye = stablehlo.select %eq, %one, %zero : tensor<64x64xi1>, tensor<64x64xf64>
  check.expect_almost_eq %vhv, %eye, tolerance = 1.0e-12 : tensor<64x64xf64>
  %wlo = stablehlo.slice %w [0:63] : (tensor<64xf64>) -> tensor<63xf64>
  %whi = stablehlo.slice %w [1:64] : (tensor<64xf64>) -> tensor<63xf64>
  %asc = stablehlo.compare LE, %wlo, %whi, FLOAT : (tensor<63xf64>, tensor<63xf64>) -> tensor<63xi1>
  %true = stablehlo.constant dense<true> : tensor<i1>
  %all = stablehlo.reduce(%asc init: %true) applies stablehlo.and across dimensions = [0] : (tensor<63xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %all, dense<true> : tensor<i1>
  func.return
}

// -----

// dsyevd on subnormal entries (scaled by a power of two first; 2^1030 itself would overflow):
// [[2, 1], [1, 2]] x 1e-310 has eigenvalues 1e-310 and 3e-310, vectors (1, -1) / sqrt 2 and
// (1, 1) / sqrt 2 up to sign.
func.func @syevd_subnormal_2x2() {
  %a = stablehlo.constant dense<[[2.0e-310, 1.0e-310], [1.0e-310, 2.0e-310]]> : tensor<2x2xf64>
  %v, %w, %info = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<0> : tensor<i32>
  %scale = stablehlo.constant dense<1.0e155> : tensor<2xf64>
  %w1 = stablehlo.multiply %w, %scale : tensor<2xf64>
  %ws = stablehlo.multiply %w1, %scale : tensor<2xf64>
  check.expect_almost_eq_const %ws, dense<[1.0, 3.0]>, tolerance = 1.0e-6 : tensor<2xf64>
  %av = stablehlo.abs %v : tensor<2x2xf64>
  check.expect_almost_eq_const %av, dense<[[0.70710678118654757, 0.70710678118654757], [0.70710678118654757, 0.70710678118654757]]>, tolerance = 1.0e-12 : tensor<2x2xf64>
  func.return
}

// -----

// dsyevd on a matrix with a NaN (and zheevd with an infinity): info 1 and NaN eigenvalues, as
// LAPACK's callers (JAX) expect for input it cannot reduce; nothing is read past the matrix.
func.func @syevd_non_finite_input() {
  %a = stablehlo.constant dense<[[1.0, 0x7FF8000000000000], [0x7FF8000000000000, 2.0]]> : tensor<2x2xf64>
  %v, %w, %info = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2xf64>, tensor<i32>)
  check.expect_eq_const %info, dense<1> : tensor<i32>
  %nan = stablehlo.compare NE, %w, %w, FLOAT : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>
  check.expect_eq_const %nan, dense<true> : tensor<2xi1>
  %c = stablehlo.constant dense<[[(1.0, 0.0), (0.0, 0.0)], [(0x7FF0000000000000, 0.0), (3.0, 0.0)]]> : tensor<2x2xcomplex<f64>>
  %cv, %cw, %cinfo = stablehlo.custom_call @lapack_zheevd_ffi(%c) {mhlo.backend_config = {mode = 78 : ui8, uplo = 76 : ui8}} : (tensor<2x2xcomplex<f64>>) -> (tensor<2x2xcomplex<f64>>, tensor<2xf64>, tensor<i32>)
  check.expect_eq_const %cinfo, dense<1> : tensor<i32>
  %cnan = stablehlo.compare NE, %cw, %cw, FLOAT : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xi1>
  check.expect_eq_const %cnan, dense<true> : tensor<2xi1>
  func.return
}
