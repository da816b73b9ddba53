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
