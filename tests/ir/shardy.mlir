// Shardy's ops as jax.jit(...).lower(...).as_text() prints them: meshes, value shardings, shard_map
// bodies (sdy.manual_computation), named computations, propagation barriers, sharding groups.
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @meshA = <["a"=2, "b"=2]>
  sdy.mesh @maximal = <[], device_ids=[0]>
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@meshA, [{"a"}, {}]>}) -> (tensor<8x32xf32>, tensor<16x32xf32>) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@meshA, [{"a", ?}, {?}]>] out_shardings=[<@meshA, [{?}, {?}], replicated={"a"}>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) {
      %1 = sdy.manual_computation(%arg1) in_shardings=[<@meshA, [{"b", ?}, {?}]>] out_shardings=[<@meshA, [{"b", ?}, {?}]>] manual_axes={"b"} (%arg2: tensor<4x32xf32>) {
        %2 = stablehlo.add %arg2, %arg2 : tensor<4x32xf32>
        sdy.return %2 : tensor<4x32xf32>
      } : (tensor<8x32xf32>) -> tensor<8x32xf32>
      sdy.return %1 : tensor<8x32xf32>
    } : (tensor<16x32xf32>) -> tensor<8x32xf32>
    %3 = sdy.manual_computation(%arg0) in_shardings=[<@meshA, [{"a":(1)2}, {}]>] out_shardings=[<@meshA, [{"a":(1)2}, {}]>] manual_axes={} (%arg1: tensor<16x32xf32>) {
      sdy.return %arg1 : tensor<16x32xf32>
    } {mhlo.frontend_attributes = {xla.sdy.manual_axes = "a"}} : (tensor<16x32xf32>) -> tensor<16x32xf32>
    sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {
      sdy.return
    } : () -> ()
    %4:2 = sdy.named_computation<"two">(%3, %arg0) out_shardings=[<@meshA, [{"a"}, {}]>, <@meshA, []>] (%arg1: tensor<16x32xf32>, %arg2: tensor<16x32xf32>) {
      sdy.return %arg2, %arg1 : tensor<16x32xf32>, tensor<16x32xf32>
    } : (tensor<16x32xf32>, tensor<16x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>)
    %5 = sdy.propagation_barrier %4#0 allowed_direction=FORWARD {sdy.sharding = #sdy.sharding_per_value<[<@meshA, [{"a", ?}, {}]>]>} : tensor<16x32xf32>
    sdy.sharding_group %5 group_id=7 : tensor<16x32xf32>
    return %0, %5 : tensor<8x32xf32>, tensor<16x32xf32>
  }
}
