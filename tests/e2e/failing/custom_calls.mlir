// Custom calls that must be refused with a clear error: LAPACK calls we do not run or that are
// malformed (tests/e2e/lapack.mlir has the ones that run), and failing shape assertions.
// gees returns (t, vs, wr, wi, sdim, info): vs in the wrong place is refused by shape.
// expect-fail: @lapack_sgees_ffi: result #1 must be tensor<2x2xf32>, got tensor<2xf32>
func.func @main() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %t, %wr, %wi, %vs, %sdim, %info = stablehlo.custom_call @lapack_sgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>)
  func.return
}

// -----

// expect-fail: @lapack_sgeev_ffi: result #2 must be tensor<2x2xcomplex<f32>>, got tensor<2x2xf32>
func.func @main() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wr, %wi, %vl, %vr, %info = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<i32>)
  func.return
}

// -----

// expect-fail: @lapack_sgetrf_ffi: result #1 must be tensor<2xi32>, got tensor<3xi32>
func.func @main() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %lu, %piv, %info = stablehlo.custom_call @lapack_sgetrf_ffi(%a) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xi32>, tensor<i32>)
  func.return
}

// -----

// expect-fail: @lapack_dgetrf_ffi needs a matrix of f64 elements, got tensor<2x2xf32>
func.func @main() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %lu, %piv, %info = stablehlo.custom_call @lapack_dgetrf_ffi(%a) : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xi32>, tensor<i32>)
  func.return
}

// -----

// expect-fail: @lapack_spotrf_ffi needs square matrices, got tensor<2x3xf32>
func.func @main() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %f, %info = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i32>)
  func.return
}

// -----

// expect-fail: operand #0 (lower) must be a scalar integer constant
func.func @main(%lower: tensor<i32>) {
  %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 5.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<2> : tensor<i32>
  %r:2 = stablehlo.custom_call @lapack_spotrf(%lower, %b, %n, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<i32>)
  func.return
}

// -----

// expect-fail: @lapack_strsm_ffi with alpha other than the constant 1
func.func @main() {
  %a = stablehlo.constant dense<[[2.0, 0.0], [1.0, 4.0]]> : tensor<2x2xf32>
  %two = stablehlo.constant dense<2.0> : tensor<f32>
  %x = stablehlo.custom_call @lapack_strsm_ffi(%a, %a, %two) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  func.return
}

// -----

// expect-fail: @lapack_sgesdd_ffi with mode 'O'
func.func @main() {
  %a = stablehlo.constant dense<[[2.0, 0.0], [1.0, 4.0]]> : tensor<2x2xf32>
  %x, %s, %u, %vt, %info = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 79 : ui8}} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<i32>)
  func.return
}

// -----

// expect-fail: dimension 'b' must be 4, got 3
func.func @main() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<3xi32>) -> tensor<i32>
  %c = stablehlo.constant dense<4> : tensor<i32>
  %ok = stablehlo.compare EQ, %n, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n, %c) {api_version = 2 : i32, error_message = "dimension 'b' must be {1}, got {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
  func.return
}

// -----

// expect-fail: @shape_assertion takes a tensor<i1> predicate and integer scalars, and returns nothing
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<f32>
  %ok = stablehlo.constant dense<true> : tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %x) {error_message = "x"} : (tensor<i1>, tensor<f32>) -> ()
  func.return
}

// -----

// expect-fail: @SPMDFullToShardShape must not change the type of operand #0 (tensor<4xf32> -> tensor<2xf32>): SPMD partitioning is not supported by the CPU plugin
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %l = stablehlo.custom_call @SPMDFullToShardShape(%x) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<2xf32>
  func.return
}

// -----

// expect-fail: @lapack_sgtsv_ffi needs dl, d, du of shape [batch..., m] and b of [batch..., m, nrhs], all f32; got tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3x1xf32>
func.func @main() {
  %v = stablehlo.constant dense<1.0> : tensor<3xf32>
  %w = stablehlo.constant dense<1.0> : tensor<4xf32>
  %b = stablehlo.constant dense<1.0> : tensor<3x1xf32>
  %dl, %d, %du, %x, %info = stablehlo.custom_call @lapack_sgtsv_ffi(%v, %w, %v, %b) : (tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3x1xf32>) -> (tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3x1xf32>, tensor<i32>)
  func.return
}

// -----

// expect-fail: @ApproxTopK (its comparator) needs its function in called_computations
func.func @main() {
  %x = stablehlo.constant dense<[3.0, 1.0, 4.0]> : tensor<3xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = stablehlo.custom_call @ApproxTopK(%x, %ninf) {mhlo.backend_config = {reduction_dim = 0 : i64, top_k = 2 : i64}} : (tensor<3xf32>, tensor<f32>) -> tensor<2xf32>
  func.return
}

// -----

// expect-fail: they must match except along reduction_dim 0, where the result is no longer
module {
  func.func private @gt(%a: tensor<f32>, %b: tensor<f32>) -> tensor<i1> {
    %0 = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    return %0 : tensor<i1>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[3.0, 1.0, 4.0]> : tensor<3xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %r = stablehlo.custom_call @ApproxTopK(%x, %ninf) {called_computations = [@gt], mhlo.backend_config = {reduction_dim = 0 : i64, top_k = 4 : i64}} : (tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
    func.return
  }
}

// -----

// expect-fail: @lapack_sgehrd_ffi: low = 2, high = 5 do not fit 4x4 matrices (1 <= low <= high <= n)
func.func @main() {
  %a = stablehlo.constant dense<1.0> : tensor<4x4xf32>
  %h, %tau, %info = stablehlo.custom_call @lapack_sgehrd_ffi(%a) {mhlo.backend_config = {high = 5 : i32, low = 2 : i32}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<3xf32>, tensor<i32>)
  func.return
}

// -----

// expect-fail: @lapack_chetrd_ffi: result #1 must be tensor<3xf32>, got tensor<3xcomplex<f32>>
func.func @main() {
  %a = stablehlo.constant dense<(1.0, 0.0)> : tensor<3x3xcomplex<f32>>
  %c, %d, %e, %tau, %info = stablehlo.custom_call @lapack_chetrd_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<2xf32>, tensor<2xcomplex<f32>>, tensor<i32>)
  func.return
}

// -----

// expect-fail: @lapack_sgees_ffi with eigenvalue sorting (sort = 'S') is not supported by the CPU executor yet
func.func @main() {
  %a = stablehlo.constant dense<1.0> : tensor<3x3xf32>
  %t, %z, %wr, %wi, %sdim, %info = stablehlo.custom_call @lapack_sgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 83 : ui8}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i32>, tensor<i32>)
  func.return
}

// -----

// ducc_fft over a leading axis (JAX only transforms trailing axes, which is stablehlo.fft).
// expect-fail: @ducc_fft: axes must be the trailing 1 dimensions in order (axis #0 is 0)
func.func @main() {
  %c = stablehlo.constant dense<(1.0, 0.0)> : tensor<3x4xcomplex<f32>>
  %d = stablehlo.constant dense<"0x1800000014002000040005001000140018001C00060008001400000000000100000000000000F03F14000000280000003C0000004C0000000000000002000000030000000000000004000000000000000000000002000000040000000000000001000000000000000000000002000000040000000000000001000000000000000100000000000000"> : tensor<136xui8>
  %f = stablehlo.custom_call @ducc_fft(%d, %c) {api_version = 2 : i32} : (tensor<136xui8>, tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
  func.return
}

// -----

// A backward C2C transform must scale by 1/N.
// expect-fail: @ducc_fft: scale 1 (only 1 forward and 1/N backward are supported)
func.func @main() {
  %c = stablehlo.constant dense<(1.0, 0.0)> : tensor<3x4xcomplex<f32>>
  %d = stablehlo.constant dense<"0x1800000014002000040005001000140018001C00060008001400000000000000000000000000F03F14000000280000003C0000004C0000000000000002000000030000000000000004000000000000000000000002000000040000000000000001000000000000000000000002000000040000000000000001000000000000000100000001000000"> : tensor<136xui8>
  %f = stablehlo.custom_call @ducc_fft(%d, %c) {api_version = 2 : i32} : (tensor<136xui8>, tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
  func.return
}

// -----

// A truncated descriptor.
// expect-fail: @ducc_fft: the descriptor (6 bytes) is not a valid DuccFftDescriptor flatbuffer
func.func @main() {
  %c = stablehlo.constant dense<(1.0, 0.0)> : tensor<3x4xcomplex<f32>>
  %d = stablehlo.constant dense<[24, 0, 0, 0, 20, 0]> : tensor<6xui8>
  %f = stablehlo.custom_call @ducc_fft(%d, %c) {api_version = 2 : i32} : (tensor<6xui8>, tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
  func.return
}

// -----

// The descriptor says COMPLEX64, the operand is complex<f64>.
// expect-fail: @ducc_fft: descriptor dtype COMPLEX64 for a transform of tensor<3x4xcomplex<f64>>
func.func @main() {
  %c = stablehlo.constant dense<(1.0, 0.0)> : tensor<3x4xcomplex<f64>>
  %d = stablehlo.constant dense<"0x1800000014002000000000001000140018001C00040008001400000001000000000000000000F03F14000000280000003C0000004C0000000000000002000000030000000000000004000000000000000000000002000000040000000000000001000000000000000000000002000000040000000000000001000000000000000100000001000000"> : tensor<136xui8>
  %f = stablehlo.custom_call @ducc_fft(%d, %c) {api_version = 2 : i32} : (tensor<136xui8>, tensor<3x4xcomplex<f64>>) -> tensor<3x4xcomplex<f64>>
  func.return
}

// -----

// A size operand nothing at compile time determines (a reduce has a region, so it is not folded).
// expect-fail: operand #1 (k) must be an integer constant or computed from constants
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %ks = stablehlo.constant dense<[1, 1]> : tensor<2xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %k = stablehlo.reduce(%ks init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xi32>, tensor<i32>) -> tensor<i32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<3xf32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
  func.return
}

// -----

// expect-fail: result #0 must have the shape tensor<2xf32> for k = 2
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %k = stablehlo.constant dense<2> : tensor<i32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<3xf32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
  func.return
}

// -----

// expect-fail: result #0 dimension 0 must be 2 for these window parameters
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %w = stablehlo.constant dense<2> : tensor<1xi64>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %p = stablehlo.constant dense<0> : tensor<1x2xi64>
  %r = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %z, %w, %one, %one, %one, %p) {called_computations = [@sum]} : (tensor<3xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1x2xi64>) -> tensor<3xf32>
  func.return
}
func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expect-fail: @stablehlo.dynamic_reduce_window needs its function in called_computations
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %w = stablehlo.constant dense<2> : tensor<1xi64>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %p = stablehlo.constant dense<0> : tensor<1x2xi64>
  %r = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %z, %w, %one, %one, %one, %p) : (tensor<3xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1x2xi64>) -> tensor<2xf32>
  func.return
}

// -----

// expect-fail: result #1 must have the shape output_shape gives
func.func @main() {
  %state = stablehlo.constant dense<[7, 12345]> : tensor<2xui64>
  %shape = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
  %d:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%state, %shape) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<2xi64>) -> (tensor<2xui64>, tensor<2x3xui32>)
  func.return
}

// -----

// expect-fail: k = 4 is outside [0, 3]
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %k = stablehlo.constant dense<4> : tensor<i32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) : (tensor<3xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
  func.return
}

// -----

// expect-fail: the window parameters must have 1 entries (padding 2)
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %w = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %p = stablehlo.constant dense<0> : tensor<1x2xi64>
  %r = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %z, %w, %one, %one, %one, %p) {called_computations = [@sum]} : (tensor<3xf32>, tensor<f32>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1x2xi64>) -> tensor<2xf32>
  func.return
}
func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expect-fail: the reducer must take 2 arguments
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %w = stablehlo.constant dense<2> : tensor<1xi64>
  %one = stablehlo.constant dense<1> : tensor<1xi64>
  %p = stablehlo.constant dense<0> : tensor<1x2xi64>
  %r = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %z, %w, %one, %one, %one, %p) {called_computations = [@neg]} : (tensor<3xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1x2xi64>) -> tensor<2xf32>
  func.return
}
func.func private @neg(%a: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.negate %a : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// expect-fail: @stablehlo.dynamic_top_k: takes (operand, k) and returns (values, indices)
func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = stablehlo.custom_call @stablehlo.dynamic_top_k(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return
}
