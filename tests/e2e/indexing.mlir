// gather, scatter, sort, reduce_window, select_and_scatter, convolution and map.
func.func @gather_rows() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
  %i = stablehlo.constant dense<[[2], [0], [5]]> : tensor<3x1xi32>
  %g = "stablehlo.gather"(%x, %i) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 3>
  } : (tensor<3x3xi32>, tensor<3x1xi32>) -> tensor<3x3xi32>
  // The out-of-range start 5 is clamped to 2.
  check.expect_eq_const %g, dense<[[7, 8, 9], [1, 2, 3], [7, 8, 9]]> : tensor<3x3xi32>
  func.return
}

// -----

func.func @gather_windows_with_batching_dims() {
  %x = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]> : tensor<2x3x2xi32>
  %i = stablehlo.constant dense<[[1], [2]]> : tensor<2x1xi64>
  %g = "stablehlo.gather"(%x, %i) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 1, 2>
  } : (tensor<2x3x2xi32>, tensor<2x1xi64>) -> tensor<2x2xi32>
  check.expect_eq_const %g, dense<[[3, 4], [11, 12]]> : tensor<2x2xi32>
  func.return
}

// -----

func.func @scatter_add_and_replace() {
  %x = stablehlo.constant dense<[0.0, 0.0, 0.0, 0.0]> : tensor<4xf32>
  %i = stablehlo.constant dense<[[1], [3], [1], [9]]> : tensor<4x1xi32>
  %u = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %add = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<4xf32>
  // Index 9 is out of bounds: that update is skipped.
  check.expect_eq_const %add, dense<[0.0, 4.0, 0.0, 2.0]> : tensor<4xf32>
  %set = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<4xf32>
  check.expect_eq_const %set, dense<[0.0, 3.0, 0.0, 2.0]> : tensor<4xf32>
  func.return
}

// -----

func.func @sort_stable_with_payload() {
  %k = stablehlo.constant dense<[[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 0x7FC00000, 5.0]]> : tensor<2x4xf32>
  %v = stablehlo.iota dim = 1 : tensor<2x4xi32>
  %s:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x4xf32>, tensor<2x4xi32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  check.expect_eq_const %s#1, dense<[[1, 3, 2, 0], [1, 0, 3, 2]]> : tensor<2x4xi32>
  func.return
}

// -----

func.func @reduce_window_max_pool() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]> : tensor<3x4xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<2x2xf32>
  check.expect_eq_const %r, dense<[[6.0, 8.0], [10.0, 12.0]]> : tensor<2x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3>, window_dilations = array<i64: 1, 2>, padding = dense<[[0, 0], [2, 2]]> : tensor<2x2xi64>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  check.expect_eq_const %s, dense<[[4.0, 6.0, 4.0, 6.0], [12.0, 14.0, 12.0, 14.0], [20.0, 22.0, 20.0, 22.0]]> : tensor<3x4xf32>
  func.return
}

// -----

func.func @select_and_scatter_max_pool_grad() {
  %x = stablehlo.constant dense<[[1.0, 5.0], [3.0, 2.0]]> : tensor<2x2xf32>
  %src = stablehlo.constant dense<[[10.0]]> : tensor<1x1xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.select_and_scatter"(%x, %src, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %ge = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %ge : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<2x2xf32>, tensor<1x1xf32>, tensor<f32>) -> tensor<2x2xf32>
  check.expect_eq_const %r, dense<[[0.0, 10.0], [0.0, 0.0]]> : tensor<2x2xf32>
  func.return
}

// -----

// select_and_scatter has no dilations: attributes of those names are discardable extras and
// change nothing (a base dilation of 0 on it once reached a division by zero; found by the
// exec fuzzer). Both the compare-select kernel (f32, GE) and the region path (i32, GT).
func.func @select_and_scatter_ignores_dilation_attributes() {
  %x = stablehlo.constant dense<[[1.0, 5.0, 4.0], [3.0, 2.0, 6.0]]> : tensor<2x3xf32>
  %src = stablehlo.constant dense<[[10.0, 20.0]]> : tensor<1x2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.select_and_scatter"(%x, %src, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %ge = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %ge : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>,
      base_dilations = array<i64: 0, 0>, window_dilations = array<i64: 0, 3>} : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<f32>) -> tensor<2x3xf32>
  check.expect_eq_const %r, dense<[[0.0, 10.0, 0.0], [0.0, 0.0, 20.0]]> : tensor<2x3xf32>
  %xi = stablehlo.constant dense<[[1, 5, 4], [3, 2, 6]]> : tensor<2x3xi32>
  %si = stablehlo.constant dense<[[10, 20]]> : tensor<1x2xi32>
  %zi = stablehlo.constant dense<0> : tensor<i32>
  %ri = "stablehlo.select_and_scatter"(%xi, %si, %zi) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %gt = stablehlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %a1 = stablehlo.add %a, %one : tensor<i32>
    %ge = stablehlo.compare GE, %a1, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %both = stablehlo.and %gt, %ge : tensor<i1>
    stablehlo.return %both : tensor<i1>
  }, {
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 1>,
      base_dilations = array<i64: 0, 0>, window_dilations = array<i64: 0, 3>} : (tensor<2x3xi32>, tensor<1x2xi32>, tensor<i32>) -> tensor<2x3xi32>
  check.expect_eq_const %ri, dense<[[0, 10, 0], [0, 0, 20]]> : tensor<2x3xi32>
  func.return
}

// -----

func.func @convolution_nhwc_same() {
  %x = stablehlo.constant dense<[[[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]], [[7.0], [8.0], [9.0]]]]> : tensor<1x3x3x1xf32>
  %w = stablehlo.constant dense<1.0> : tensor<3x3x1x1xf32>
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x3x1xf32>
  check.expect_eq_const %y, dense<[[[[12.0], [21.0], [16.0]], [[27.0], [45.0], [33.0]], [[24.0], [39.0], [28.0]]]]> : tensor<1x3x3x1xf32>
  func.return
}

// -----

func.func @convolution_grouped_dilated_strided() {
  %x = stablehlo.iota dim = 1 : tensor<1x6x2xf32>
  %w = stablehlo.constant dense<[[[1.0, 0.0]], [[0.0, 1.0]]]> : tensor<2x1x2xf32>
  // Two groups of one input and one output feature; kernel 2 dilated by 2, stride 2.
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], rhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x6x2xf32>, tensor<2x1x2xf32>) -> tensor<1x2x2xf32>
  check.expect_eq_const %y, dense<[[[0.0, 2.0], [2.0, 4.0]]]> : tensor<1x2x2xf32>
  %xi = stablehlo.constant dense<[[[1], [2], [3]]]> : tensor<1x3x1xi32>
  %wi = stablehlo.constant dense<[[[1]], [[-1]]]> : tensor<2x1x1xi32>
  %yi = stablehlo.convolution(%xi, %wi) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {lhs_dilate = [2], reverse = [true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x1xi32>, tensor<2x1x1xi32>) -> tensor<1x4x1xi32>
  check.expect_eq_const %yi, dense<[[[-1], [2], [-2], [3]]]> : tensor<1x4x1xi32>
  func.return
}

// -----

func.func @map_elementwise() {
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[4.0, 5.0, 6.0]> : tensor<3xf32>
  %r = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.multiply %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  check.expect_eq_const %r, dense<[4.0, 10.0, 18.0]> : tensor<3xf32>
  func.return
}

// -----

// A scatter writes into its operand's storage only at the operand's last use: here the zeros
// (a splat broadcast, as JAX's embedding gradient starts) are scattered into twice, and the
// first result is read after the second scatter.
func.func @scatter_in_place_only_at_last_use() {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %z0 = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<4x2xf32>
  %z = stablehlo.optimization_barrier %z0 : tensor<4x2xf32>
  %idx = stablehlo.constant dense<[[1], [3], [1]]> : tensor<3x1xi32>
  %u = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %a = "stablehlo.scatter"(%z, %idx, %u) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x2xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %b = "stablehlo.scatter"(%z, %idx, %u) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.multiply %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x2xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %c = "stablehlo.scatter"(%a, %idx, %u) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x2xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  check.expect_eq_const %a, dense<[[0.0, 0.0], [6.0, 8.0], [0.0, 0.0], [3.0, 4.0]]> : tensor<4x2xf32>
  check.expect_eq_const %b, dense<0.0> : tensor<4x2xf32>
  check.expect_eq_const %c, dense<[[0.0, 0.0], [12.0, 16.0], [0.0, 0.0], [6.0, 8.0]]> : tensor<4x2xf32>
  func.return
}
