// custom_call targets other than check.* and LAPACK: shape assertions (jax.export) and placement
// annotations.
func.func @main() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<3xi32>) -> tensor<i32>
  %c = stablehlo.constant dense<3> : tensor<i32>
  %ok = stablehlo.compare EQ, %n, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {api_version = 2 : i32, error_message = "want 3, got {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  func.return
}


// -----

func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
  %z = stablehlo.custom_call @annotate_device_placement(%y) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %z, dense<[1.0, 2.0]> : tensor<2xf32>
  func.return
}

// -----

// custom_call @ApproxTopK (jax.lax.approx_max_k / approx_min_k exported for TPU) is computed
// exactly: sorted with the comparator, first result-size elements kept; ties keep index order.
module {
  func.func private @gt(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<i1> {
    %0 = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    return %0 : tensor<i1>
  }
  func.func private @lt(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<i1> {
    %0 = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    return %0 : tensor<i1>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[3.0, 1.0, 4.0, 2.0, 5.0, 6.0, 7.0]> : tensor<7xf32>
    %i = stablehlo.iota dim = 0 : tensor<7xi32>
    %m1 = stablehlo.constant dense<-1> : tensor<i32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %r:2 = stablehlo.custom_call @ApproxTopK(%x, %i, %ninf, %m1) {called_computations = [@gt], mhlo.backend_config = {aggregate_to_topk = true, recall_target = 0.949999988 : f32, reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64, top_k = 3 : i64}} : (tensor<7xf32>, tensor<7xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
    check.expect_eq_const %r#0, dense<[7.0, 6.0, 5.0]> : tensor<3xf32>
    check.expect_eq_const %r#1, dense<[6, 5, 4]> : tensor<3xi32>
    // approx_min_k over the rows of a matrix, with a tie.
    %y = stablehlo.constant dense<[[2.0, 0.5, 2.0, 9.0], [-1.0, 8.0, -3.0, -1.0]]> : tensor<2x4xf32>
    %j = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %s:2 = stablehlo.custom_call @ApproxTopK(%y, %j, %inf, %m1) {called_computations = [@lt], mhlo.backend_config = {aggregate_to_topk = true, recall_target = 0.949999988 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64, top_k = 3 : i64}} : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
    check.expect_eq_const %s#0, dense<[[0.5, 2.0, 2.0], [-3.0, -1.0, -1.0]]> : tensor<2x3xf32>
    check.expect_eq_const %s#1, dense<[[1, 0, 2], [2, 0, 3]]> : tensor<2x3xi32>
    func.return
  }
}

// -----

// Shardy's round-trip export form (jax.export with shardy, a shard_map over a one-device mesh):
// the shape and sharding custom calls pass values through, ShardingGroup does nothing, and the
// manual computation body is an ordinary call.
module @jit_f attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22x\22=1]>}"}} {
  func.func public @main() {
    %x = stablehlo.iota dim = 0 : tensor<4xf32>
    %0 = stablehlo.custom_call @xla.sdy.GlobalToLocalShape(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = call @xla.sdy.manual_computation_body(%0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = stablehlo.custom_call @xla.sdy.LocalToGlobalShape(%1) : (tensor<4xf32>) -> tensor<4xf32>
    %3 = stablehlo.custom_call @xla.sdy.FuncResultSharding(%2) {has_side_effect = true, mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding_per_value<[<@mesh, [{}]>]>"}} : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.custom_call @xla.sdy.ShardingGroup(%3) {has_side_effect = true, mhlo.frontend_attributes = {xla.sdy.sharding_group_id = "0 : i64"}} : (tensor<4xf32>) -> ()
    %4 = stablehlo.custom_call @local_xla.sdy.GlobalToLocalShape(%3) : (tensor<4xf32>) -> tensor<4xf32>
    %5 = stablehlo.custom_call @local_xla.sdy.FuncResultSharding(%4) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
    check.expect_eq_const %5, dense<[0.0, 2.0, 4.0, 6.0]> : tensor<4xf32>
    func.return
  }
  func.func private @xla.sdy.manual_computation_body(%a: tensor<4xf32>) -> tensor<4xf32> {
    %r = stablehlo.add %a, %a : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

// jaxlib's FFT custom calls of 2022-2024 CPU exports, with hand-built FlatBuffers descriptors
// (tests/e2e/gen_ducc_fft.py): DuccFftDescriptor (dtype, fft_type, shape, strides_in,
// strides_out, axes, forward, scale) and DynamicDuccFftDescriptor (ndims, dtype, fft_type, axes,
// forward). Each result equals stablehlo.fft of the same operand.
func.func @main() {
  %r = stablehlo.iota dim = 1 : tensor<3x4xf32>
  %rows = stablehlo.iota dim = 0 : tensor<3x4xf32>
  %four = stablehlo.constant dense<4.0> : tensor<3x4xf32>
  %r4 = stablehlo.multiply %rows, %four : tensor<3x4xf32>
  %x = stablehlo.add %r, %r4 : tensor<3x4xf32>
  %c = stablehlo.convert %x : (tensor<3x4xf32>) -> tensor<3x4xcomplex<f32>>
  // C2C forward over the last axis; dtype and fft_type are absent (their defaults, COMPLEX64 and C2C).
  %d0 = stablehlo.constant dense<"0x1800000014002000000000001000140018001C00040008001400000001000000000000000000F03F14000000280000003C0000004C0000000000000002000000030000000000000004000000000000000000000002000000040000000000000001000000000000000000000002000000040000000000000001000000000000000100000001000000"> : tensor<136xui8>
  %f0 = stablehlo.custom_call @ducc_fft(%d0, %c) {api_version = 2 : i32} : (tensor<136xui8>, tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
  check.expect_almost_eq_const %f0, dense<[[(6.0,0.0), (-2.0,2.0), (-2.0,0.0), (-2.0,-2.0)], [(22.0,0.0), (-2.0,2.0), (-2.0,0.0), (-2.0,-2.0)], [(38.0,0.0), (-2.0,2.0), (-2.0,0.0), (-2.0,-2.0)]]> : tensor<3x4xcomplex<f32>>
  // R2C of a 2x8 real array, and C2R back with scale 1/8.
  %s = stablehlo.iota dim = 1 : tensor<2x8xf32>
  %sq = stablehlo.multiply %s, %s : tensor<2x8xf32>
  %d1 = stablehlo.constant dense<"0x1800000014002000040005001000140018001C00060008001400000000020100000000000000F03F14000000280000003C0000004C0000000000000002000000020000000000000008000000000000000000000002000000080000000000000001000000000000000000000002000000050000000000000001000000000000000100000001000000"> : tensor<136xui8>
  %f1 = stablehlo.custom_call @ducc_fft(%d1, %sq) {api_version = 2 : i32} : (tensor<136xui8>, tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>>
  %g1 = stablehlo.fft %sq, type = RFFT, length = [8] : (tensor<2x8xf32>) -> tensor<2x5xcomplex<f32>>
  check.expect_almost_eq %f1, %g1 : tensor<2x5xcomplex<f32>>
  %d2 = stablehlo.constant dense<"0x1800000014002000040005001000140018001C00060008001400000000010000000000000000C03F14000000280000003C0000004C0000000000000002000000020000000000000008000000000000000000000002000000050000000000000001000000000000000000000002000000080000000000000001000000000000000100000001000000"> : tensor<136xui8>
  %f2 = stablehlo.custom_call @ducc_fft(%d2, %f1) {api_version = 2 : i32} : (tensor<136xui8>, tensor<2x5xcomplex<f32>>) -> tensor<2x8xf32>
  check.expect_almost_eq %f2, %sq, tolerance = 1.0e-3 : tensor<2x8xf32>
  // C2C backward over the last two axes of a complex128 array (scale 1/12).
  %z = stablehlo.iota dim = 2 : tensor<2x3x4xf64>
  %w = stablehlo.iota dim = 1 : tensor<2x3x4xf64>
  %zc = stablehlo.complex %z, %w : tensor<2x3x4xcomplex<f64>>
  %d3 = stablehlo.constant dense<"0x1800000014002000040005001000140018001C00060008001400000001000000555555555555B53F14000000300000004C00000064000000000000000300000002000000000000000300000000000000040000000000000000000000030000000C000000000000000400000000000000010000000000000000000000030000000C0000000000000004000000000000000100000000000000020000000100000002000000"> : tensor<164xui8>
  %f3 = stablehlo.custom_call @ducc_fft(%d3, %zc) {api_version = 2 : i32} : (tensor<164xui8>, tensor<2x3x4xcomplex<f64>>) -> tensor<2x3x4xcomplex<f64>>
  %g3 = stablehlo.fft %zc, type = IFFT, length = [3, 4] : (tensor<2x3x4xcomplex<f64>>) -> tensor<2x3x4xcomplex<f64>>
  check.expect_almost_eq %f3, %g3 : tensor<2x3x4xcomplex<f64>>
  // dynamic_ducc_fft: the sizes come from the operand's (refined) type; shape, strides and scale
  // are operands.
  %d4 = stablehlo.constant dense<"0x180000000E0010000800040005000C000600000000000000140000000000010002000000040000000100000001000000"> : tensor<48xui8>
  %shape = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %strides = stablehlo.constant dense<[4, 1]> : tensor<2xi64>
  %one = stablehlo.constant dense<1.0> : tensor<f64>
  %f4 = stablehlo.custom_call @dynamic_ducc_fft(%d4, %c, %shape, %strides, %strides, %one) {api_version = 2 : i32} : (tensor<48xui8>, tensor<3x4xcomplex<f32>>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<f64>) -> tensor<3x4xcomplex<f32>>
  check.expect_almost_eq %f4, %f0 : tensor<3x4xcomplex<f32>>
  func.return
}
