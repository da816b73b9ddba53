// Programs for 4 partitions whose manual computations cut values into per-device shards
// (pmap and shard_map as JAX lowers them): the module is partitioned, every device runs on its
// shards, and the checks see the whole values put back together.

// pmap over "i": psum, a ring permute and the device's index, one row per device.
module @pmap_like attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["i"=4]>
  func.func @main() {
    %x = stablehlo.iota dim = 0 : tensor<4x2xf32>
    %r:3 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"i"}, {}]>] out_shardings=[<@mesh, [{"i"}, {}]>, <@mesh, [{"i"}, {}]>, <@mesh, [{"i"}]>] manual_axes={"i"} (%s: tensor<1x2xf32>) {
      %t = "stablehlo.all_reduce"(%s) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %c = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %c : tensor<f32>
      }) {replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "i">]>, use_global_device_ids} : (tensor<1x2xf32>) -> tensor<1x2xf32>
      %p = "stablehlo.collective_permute"(%s) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
      %pid = stablehlo.partition_id : tensor<ui32>
      %i = stablehlo.convert %pid : (tensor<ui32>) -> tensor<i32>
      %v = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<1xi32>
      sdy.return %t, %p, %v : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1xi32>
    } : (tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4xi32>)
    check.expect_eq_const %r#0, dense<6.0> : tensor<4x2xf32>
    check.expect_eq_const %r#1, dense<[[3.0, 3.0], [0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]> : tensor<4x2xf32>
    check.expect_eq_const %r#2, dense<[0, 1, 2, 3]> : tensor<4xi32>
    return
  }
}

// -----

// shard_map over a 2x2 mesh: a block per device, summed over "b" and gathered over "a"; the
// result is replicated over "b" (out_shardings name "a" only).
module @shard_map_2x2 attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func @main() {
    %x = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %r = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"a"}, {"b"}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"a", "b"} (%s: tensor<2x2xi32>) {
      %t = "stablehlo.all_reduce"(%s) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %c = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %c : tensor<i32>
      }) {replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "b">]>, use_global_device_ids} : (tensor<2x2xi32>) -> tensor<2x2xi32>
      %g = "stablehlo.all_gather"(%t) {all_gather_dim = 0 : i64, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "a">]>, use_global_device_ids} : (tensor<2x2xi32>) -> tensor<4x2xi32>
      sdy.return %g : tensor<4x2xi32>
    } : (tensor<4x4xi32>) -> tensor<4x2xi32>
    check.expect_eq_const %r, dense<[[2, 4], [2, 4], [2, 4], [2, 4]]> : tensor<4x2xi32>
    return
  }
}
