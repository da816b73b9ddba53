// What a JAX export looks like: module attributes, result info, locations and their aliases,
// Shardy meshes and shardings, resources in the file metadata.
#loc1 = loc("x")
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.frontend_attributes = {xla.sdy.meshes = "{}"}, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=1]>
  func.func public @main(%arg0: tensor<8xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}", sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>} loc("x")) -> (tensor<8xf32> {jax.result_info = "result", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.constant dense_resource<blob1> : tensor<2xf32> loc(#loc3)
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32> loc(#loc)
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32> loc(#loc4)
    %c = sdy.sharding_constraint %arg0 <@mesh, [{"x", ?}]> {mhlo.frontend_attributes = {a = "b"}} : tensor<8xf32> loc(#loc4)
    %r = sdy.reshard %c <@mesh, [{}], replicated={"x"}> : tensor<8xf32> loc(#loc4)
    %2 = stablehlo.multiply %r, %1 : tensor<8xf32> loc(#loc4)
    %3 = call @helper(%2) : (tensor<8xf32>) -> tensor<8xf32> loc(#loc5)
    return %3 : tensor<8xf32> loc(#loc)
  } loc(#loc)
  func.func private @helper(%arg0: tensor<8xf32> loc("x")) -> tensor<8xf32> {
    %0 = stablehlo.sine %arg0 : tensor<8xf32> loc(#loc6)
    return %0 : tensor<8xf32> loc(#loc)
  } loc(#loc)
  func.func private @total(%arg0: tensor<8xf32> loc("x")) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %0 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
     reducer(%arg1: tensor<f32> loc("reduce:"(#loc2)), %arg2: tensor<f32> loc("reduce:"(#loc2)))  {
      %1 = stablehlo.add %arg1, %arg2 : tensor<f32> loc(#loc4)
      stablehlo.return %1 : tensor<f32> loc(#loc)
    } loc(#loc3)
    return %0 : tensor<f32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("/tmp/x.py":3:0)
#loc3 = loc("jit(f)/jit(main)/mul"(#loc2))
#loc4 = loc(fused[#loc2, #loc3])
#loc5 = loc(callsite(#loc3 at #loc2))
#loc6 = loc("/tmp/x.py":4:1 to 4:10)
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}
