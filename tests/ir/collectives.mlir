// Collectives, tokens and host I/O.
func.func @collectives(%x: tensor<4x8xf32>, %t: !stablehlo.token) -> tensor<4x8xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x8xf32>) -> tensor<4x16xf32>
  %2 = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %3 = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %4 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = stablehlo.replica_id : tensor<ui32>
  %7 = stablehlo.partition_id : tensor<ui32>
  %8 = stablehlo.after_all %t, %t : !stablehlo.token
  %9 = stablehlo.create_token : !stablehlo.token
  %10:2 = "stablehlo.infeed"(%8) {infeed_config = "", layout = [[1, 0]]} : (!stablehlo.token) -> (tensor<4x8xf32>, !stablehlo.token)
  %11 = "stablehlo.outfeed"(%x, %8) {outfeed_config = ""} : (tensor<4x8xf32>, !stablehlo.token) -> !stablehlo.token
  %12 = "stablehlo.send"(%x, %8) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true} : (tensor<4x8xf32>, !stablehlo.token) -> !stablehlo.token
  %13:2 = "stablehlo.recv"(%8) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<4x8xf32>, !stablehlo.token)
  %14 = stablehlo.after_all : !stablehlo.token
  return %0 : tensor<4x8xf32>
}
