// Data movement ops: broadcast, reshape, transpose, reverse, slice, pad, concatenate, iota,
// dynamic slices (with the spec's clamping of start indices).
func.func @broadcast_reshape_transpose() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %b, dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
  %c = stablehlo.broadcast_in_dim %x, dims = [0] : (tensor<3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %c, dense<[[1, 1], [2, 2], [3, 3]]> : tensor<3x2xi32>
  %t = stablehlo.transpose %b, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %t, dense<[[1, 1], [2, 2], [3, 3]]> : tensor<3x2xi32>
  %r = stablehlo.reshape %b : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %r, dense<[[1, 2], [3, 1], [2, 3]]> : tensor<3x2xi32>
  %s = stablehlo.constant dense<5> : tensor<i32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<i32>) -> tensor<2x2xi32>
  check.expect_eq_const %sb, dense<5> : tensor<2x2xi32>
  func.return
}

// -----

func.func @rank_five_transpose() {
  %i = stablehlo.iota dim = 0 : tensor<32xi64>
  %x = stablehlo.reshape %i : (tensor<32xi64>) -> tensor<2x2x2x2x2xi64>
  %t = stablehlo.transpose %x, dims = [4, 3, 2, 1, 0] : (tensor<2x2x2x2x2xi64>) -> tensor<2x2x2x2x2xi64>
  %f = stablehlo.reshape %t : (tensor<2x2x2x2x2xi64>) -> tensor<32xi64>
  %s = stablehlo.slice %f [0:4] : (tensor<32xi64>) -> tensor<4xi64>
  check.expect_eq_const %s, dense<[0, 16, 8, 24]> : tensor<4xi64>
  func.return
}

// -----

func.func @reverse_slice_pad_concat() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %r = stablehlo.reverse %x, dims = [0, 1] : tensor<2x3xf32>
  check.expect_eq_const %r, dense<[[6.0, 5.0, 4.0], [3.0, 2.0, 1.0]]> : tensor<2x3xf32>
  %s = stablehlo.slice %x [0:2, 0:3:2] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %s, dense<[[1.0, 3.0], [4.0, 6.0]]> : tensor<2x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.pad %x, %z, low = [1, -1], high = [0, 1], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
  check.expect_eq_const %p, dense<[[0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 3.0, 0.0], [0.0, 5.0, 0.0, 6.0, 0.0]]> : tensor<3x5xf32>
  %c = stablehlo.concatenate %x, %s, dim = 1 : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  check.expect_eq_const %c, dense<[[1.0, 2.0, 3.0, 1.0, 3.0], [4.0, 5.0, 6.0, 4.0, 6.0]]> : tensor<2x5xf32>
  func.return
}

// -----

func.func @iota_every_kind() {
  %a = stablehlo.iota dim = 1 : tensor<2x3xui8>
  check.expect_eq_const %a, dense<[[0, 1, 2], [0, 1, 2]]> : tensor<2x3xui8>
  %b = stablehlo.iota dim = 0 : tensor<3xbf16>
  check.expect_eq_const %b, dense<[0.0, 1.0, 2.0]> : tensor<3xbf16>
  %c = stablehlo.iota dim = 0 : tensor<2xcomplex<f64>>
  check.expect_eq_const %c, dense<[(0.0, 0.0), (1.0, 0.0)]> : tensor<2xcomplex<f64>>
  func.return
}

// -----

func.func @dynamic_slice_clamps_start_indices() {
  %x = stablehlo.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi32>
  %big = stablehlo.constant dense<10> : tensor<i64>
  %neg = stablehlo.constant dense<-3> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %a = stablehlo.dynamic_slice %x, %big, sizes = [2] : (tensor<5xi32>, tensor<i64>) -> tensor<2xi32>
  check.expect_eq_const %a, dense<[3, 4]> : tensor<2xi32>
  %b = stablehlo.dynamic_slice %x, %neg, sizes = [2] : (tensor<5xi32>, tensor<i64>) -> tensor<2xi32>
  check.expect_eq_const %b, dense<[0, 1]> : tensor<2xi32>
  %u = stablehlo.constant dense<[9, 9]> : tensor<2xi32>
  %c = stablehlo.dynamic_update_slice %x, %u, %big : (tensor<5xi32>, tensor<2xi32>, tensor<i64>) -> tensor<5xi32>
  check.expect_eq_const %c, dense<[0, 1, 2, 9, 9]> : tensor<5xi32>
  %d = stablehlo.dynamic_update_slice %x, %u, %one : (tensor<5xi32>, tensor<2xi32>, tensor<i64>) -> tensor<5xi32>
  check.expect_eq_const %d, dense<[0, 9, 9, 3, 4]> : tensor<5xi32>
  func.return
}

// -----

// Windows that are one run of bytes (a unit dimension, then whole ones: a scan's row) and ones
// that are not, at clamped and in-range starts, read and written.
func.func @dynamic_slice_contiguous_and_strided_windows() {
  %x = stablehlo.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7]], [[8, 9, 10, 11], [12, 13, 14, 15]], [[16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<3x2x4xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  %big = stablehlo.constant dense<9> : tensor<i32>
  %row = stablehlo.dynamic_slice %x, %one, %zero, %zero, sizes = [1, 2, 4] : (tensor<3x2x4xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x4xi32>
  check.expect_eq_const %row, dense<[[[8, 9, 10, 11], [12, 13, 14, 15]]]> : tensor<1x2x4xi32>
  %last = stablehlo.dynamic_slice %x, %big, %big, %big, sizes = [1, 2, 4] : (tensor<3x2x4xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x4xi32>
  check.expect_eq_const %last, dense<[[[16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<1x2x4xi32>
  %inner = stablehlo.dynamic_slice %x, %two, %one, %big, sizes = [1, 1, 4] : (tensor<3x2x4xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x1x4xi32>
  check.expect_eq_const %inner, dense<[[[20, 21, 22, 23]]]> : tensor<1x1x4xi32>
  %two_rows = stablehlo.dynamic_slice %x, %big, %zero, %zero, sizes = [2, 2, 4] : (tensor<3x2x4xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x2x4xi32>
  check.expect_eq_const %two_rows, dense<[[[8, 9, 10, 11], [12, 13, 14, 15]], [[16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x2x4xi32>
  %strided = stablehlo.dynamic_slice %x, %one, %zero, %big, sizes = [1, 2, 2] : (tensor<3x2x4xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x2xi32>
  check.expect_eq_const %strided, dense<[[[10, 11], [14, 15]]]> : tensor<1x2x2xi32>
  %u = stablehlo.constant dense<[[[-1, -2, -3, -4], [-5, -6, -7, -8]]]> : tensor<1x2x4xi32>
  %w = stablehlo.dynamic_update_slice %x, %u, %big, %one, %zero : (tensor<3x2x4xi32>, tensor<1x2x4xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<3x2x4xi32>
  check.expect_eq_const %w, dense<[[[0, 1, 2, 3], [4, 5, 6, 7]], [[8, 9, 10, 11], [12, 13, 14, 15]], [[-1, -2, -3, -4], [-5, -6, -7, -8]]]> : tensor<3x2x4xi32>
  %v = stablehlo.constant dense<[[[-9, -9]], [[-7, -7]]]> : tensor<2x1x2xi32>
  %w2 = stablehlo.dynamic_update_slice %x, %v, %zero, %one, %one : (tensor<3x2x4xi32>, tensor<2x1x2xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<3x2x4xi32>
  check.expect_eq_const %w2, dense<[[[0, 1, 2, 3], [4, -9, -9, 7]], [[8, 9, 10, 11], [12, -7, -7, 15]], [[16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<3x2x4xi32>
  func.return
}

// -----

func.func @empty_and_rank_zero() {
  %e = stablehlo.constant dense<> : tensor<0x3xf32>
  %t = stablehlo.transpose %e, dims = [1, 0] : (tensor<0x3xf32>) -> tensor<3x0xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x0xf32>, tensor<f32>) -> tensor<3xf32>
  check.expect_eq_const %s, dense<0.0> : tensor<3xf32>
  %p = stablehlo.pad %e, %z, low = [1, 0], high = [0, 0], interior = [0, 0] : (tensor<0x3xf32>, tensor<f32>) -> tensor<1x3xf32>
  check.expect_eq_const %p, dense<0.0> : tensor<1x3xf32>
  %a = stablehlo.constant dense<2.5> : tensor<f32>
  %m = stablehlo.multiply %a, %a : tensor<f32>
  check.expect_eq_const %m, dense<6.25> : tensor<f32>
  func.return
}

// -----

func.func @get_dimension_size_and_tuples() {
  %x = stablehlo.constant dense<0.0> : tensor<4x7xf32>
  %d = stablehlo.get_dimension_size %x, dim = 1 : (tensor<4x7xf32>) -> tensor<i32>
  check.expect_eq_const %d, dense<7> : tensor<i32>
  %t = stablehlo.tuple %d, %x : tuple<tensor<i32>, tensor<4x7xf32>>
  %e = stablehlo.get_tuple_element %t[0] : (tuple<tensor<i32>, tensor<4x7xf32>>) -> tensor<i32>
  check.expect_eq %e, %d : tensor<i32>
  func.return
}
