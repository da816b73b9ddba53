// Shape and data-movement ops.
func.func @shape_ops(%x: tensor<2x3xf32>, %v: tensor<f32>, %i: tensor<i32>, %u: tensor<1x2xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %1 = stablehlo.broadcast_in_dim %v, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %2 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %3 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %4 = stablehlo.reverse %x, dims = [0, 1] : tensor<2x3xf32>
  %5 = stablehlo.concatenate %x, %x, %4, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
  %6 = stablehlo.slice %x [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %7 = stablehlo.pad %x, %v, low = [1, -1], high = [1, -1], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %8 = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  %9 = stablehlo.dynamic_update_slice %x, %u, %i, %i : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %10 = stablehlo.iota dim = 1 : tensor<2x3xi64>
  %11 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
  %12 = stablehlo.broadcast %v, sizes = [2, 3] : (tensor<f32>) -> tensor<2x3xf32>
  %13 = "stablehlo.slice"(%x) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  %14 = "stablehlo.broadcast_in_dim"(%x) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %15 = stablehlo.slice %v [] : (tensor<f32>) -> tensor<f32>
  return %9 : tensor<2x3xf32>
}

// -----

func.func @gather_scatter(%operand: tensor<3x4x2xi32>, %idx: tensor<2x3x2xi64>, %upd: tensor<2x3x2x2xi32>) -> tensor<3x4x2xi32> {
  %0 = "stablehlo.gather"(%operand, %idx) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32>
  %1 = "stablehlo.scatter"(%operand, %idx, %upd) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false, unique_indices = false
  } : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<2x3x2x2xi32>) -> tensor<3x4x2xi32>
  return %1 : tensor<3x4x2xi32>
}

// -----

func.func @batched_gather(%operand: tensor<2x3x4x2xi32>, %idx: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2xi32> {
  %0 = "stablehlo.gather"(%operand, %idx) <{
    dimension_numbers = #stablehlo.gather<offset_dims = [3], collapsed_slice_dims = [1, 2], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 1, 2>}> : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2xi32>
  return %0 : tensor<2x2x3x2xi32>
}

// -----

func.func @sort(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %0:2 = "stablehlo.sort"(%a, %b) ({
  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %y0: tensor<i32>, %y1: tensor<i32>):
    %c = stablehlo.compare GT, %x0, %x1, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<2x3xf32>, tensor<2x3xi32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}

// -----

func.func @dynamic(%x: tensor<?x4xf32>, %s: tensor<2xi64>, %n: tensor<1xi64>) -> tensor<?x4xf32> {
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  %1 = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
  %2 = stablehlo.dynamic_reshape %x, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %3 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  return %0 : tensor<?x4xf32>
}
