// Hand-written (not generated): the blocked paths of the LAPACK calls (matrices past 32 columns,
// where panels and block reflectors take over from the unblocked loops, and past Eigen's
// 16-column Jacobi blocks in gesdd), checked by identities computed in the program itself.

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
