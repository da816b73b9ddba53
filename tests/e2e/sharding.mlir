// Shardy's sharding annotations on values (jax.lax.with_sharding_constraint under Shardy) pass
// their operand through: the program's values are global.
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1, "y"=1]>
  func.func public @main() -> (tensor<2x4xf32> {jax.result_info = "result"}) {
    %x = stablehlo.iota dim = 1 : tensor<2x4xf32>
    %0 = sdy.sharding_constraint %x <@mesh, [{"x"}, {"y", ?}]> : tensor<2x4xf32>
    %1 = stablehlo.multiply %0, %0 : tensor<2x4xf32>
    %2 = sdy.reshard %1 <@mesh, [{}, {"x"}], replicated={"y"}> : tensor<2x4xf32>
    check.expect_eq_const %2, dense<[[0.0, 1.0, 4.0, 9.0], [0.0, 1.0, 4.0, 9.0]]> : tensor<2x4xf32>
    return %2 : tensor<2x4xf32>
  }
}

// -----

// shard_map under Shardy (jax.jit(...).lower(...).as_text()): on a mesh of one device each shard
// is the whole value, so the body runs in place of the op; its collectives see one participant.
// Also a nested manual computation, one without operands, several results, and a body that
// returns an argument as it is.
module @jit_shard_map attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1, "y"=1]>
  func.func public @main() -> (tensor<2x4xf32>, tensor<4xi32>) {
    %x = stablehlo.iota dim = 1 : tensor<2x4xf32>
    %k = stablehlo.iota dim = 0 : tensor<4xi32>
    %0:3 = sdy.manual_computation(%x, %k) in_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}]>] out_shardings=[<@mesh, [{"x"}, {}]>, <@mesh, [{}], replicated={"x"}>, <@mesh, [{}]>] manual_axes={"x", "y"} (%arg0: tensor<2x4xf32>, %arg1: tensor<4xi32>) {
      %1 = stablehlo.add %arg0, %arg0 : tensor<2x4xf32>
      %2 = "stablehlo.all_reduce"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<0> : tensor<1x1xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
      %3 = sdy.manual_computation(%arg1) in_shardings=[<@mesh, [{"y"}]>] out_shardings=[<@mesh, [{"y"}]>] manual_axes={"y"} (%arg2: tensor<4xi32>) {
        %4 = stablehlo.multiply %arg2, %arg2 : tensor<4xi32>
        sdy.return %4 : tensor<4xi32>
      } : (tensor<4xi32>) -> tensor<4xi32>
      sdy.return %2, %3, %arg1 : tensor<2x4xf32>, tensor<4xi32>, tensor<4xi32>
    } : (tensor<2x4xf32>, tensor<4xi32>) -> (tensor<2x4xf32>, tensor<4xi32>, tensor<4xi32>)
    sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {
      sdy.return
    } : () -> ()
    check.expect_eq_const %0#0, dense<[[0.0, 2.0, 4.0, 6.0], [0.0, 2.0, 4.0, 6.0]]> : tensor<2x4xf32>
    check.expect_eq_const %0#1, dense<[0, 1, 4, 9]> : tensor<4xi32>
    check.expect_eq_const %0#2, dense<[0, 1, 2, 3]> : tensor<4xi32>
    return %0#0, %0#1 : tensor<2x4xf32>, tensor<4xi32>
  }
}

// -----

// sdy.named_computation (a call kept inline for sharding propagation), sdy.propagation_barrier
// (the identity) and sdy.sharding_group (no effect on values), in pretty and generic form.
module @jit_named attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["a"=1]>
  func.func public @main() -> tensor<3xf32> {
    %x = stablehlo.constant dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
    %t = stablehlo.create_token : !stablehlo.token
    %0:2 = sdy.named_computation<"foo">(%x, %t) in_shardings=[<@mesh, [{"a"}]>, <@mesh, []>] out_shardings=[<@mesh, [{}]>, <@mesh, []>] (%arg0: tensor<3xf32>, %arg1: !stablehlo.token) {
      %1 = stablehlo.multiply %arg0, %arg0 : tensor<3xf32>
      sdy.return %1, %arg1 : tensor<3xf32>, !stablehlo.token
    } {mhlo.frontend_attributes = {backend_config = "x"}} : (tensor<3xf32>, !stablehlo.token) -> (tensor<3xf32>, !stablehlo.token)
    %2 = sdy.named_computation<"bar">(%0#0) (%arg0: tensor<3xf32>) {
      %3 = stablehlo.negate %arg0 : tensor<3xf32>
      sdy.return %3 : tensor<3xf32>
    } : (tensor<3xf32>) -> tensor<3xf32>
    %4 = sdy.propagation_barrier %2 allowed_direction=BACKWARD : tensor<3xf32>
    %5 = "sdy.propagation_barrier"(%4) {allowed_direction = #sdy<propagation_direction NONE>} : (tensor<3xf32>) -> tensor<3xf32>
    sdy.sharding_group %5 group_id=21 : tensor<3xf32>
    sdy.sharding_group %x group_id = 21 {sdy.foo} : tensor<3xf32>
    %6 = "sdy.named_computation"(%5) ({
    ^bb0(%arg0: tensor<3xf32>):
      %7 = stablehlo.abs %arg0 : tensor<3xf32>
      "sdy.return"(%7) : (tensor<3xf32>) -> ()
    }) {name = "generic"} : (tensor<3xf32>) -> tensor<3xf32>
    check.expect_eq_const %5, dense<[-1.0, -4.0, -9.0]> : tensor<3xf32>
    check.expect_eq_const %6, dense<[1.0, 4.0, 9.0]> : tensor<3xf32>
    return %6 : tensor<3xf32>
  }
}
