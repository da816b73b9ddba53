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
