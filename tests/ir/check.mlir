// The check dialect, pretty and as custom calls.
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.constant dense<[1.0, 2.00001]> : tensor<2xf32>
  check.expect_eq %0, %0 : tensor<2xf32>
  check.expect_eq_const %0, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq %0, %1 : tensor<2xf32>
  check.expect_almost_eq %0, %1, tolerance = 1.0e-3 : tensor<2xf32>
  // An overflowing tolerance is infinite, printed as its bits and read back as them.
  check.expect_almost_eq %0, %1, tolerance = 3.0e609 : tensor<2xf32>
  check.expect_almost_eq_const %1, dense<[1.0, 2.0]>, tolerance = 0x7FF0000000000000 : tensor<2xf32>
  check.expect_almost_eq_const %1, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_close %0, %1, max_ulp_difference = 200 : tensor<2xf32>, tensor<2xf32>
  check.expect_close %0, %1, max_ulp_difference = 10, min_ulp_difference = 0 : tensor<2xf32>, tensor<2xf32>
  stablehlo.custom_call @check.expect_eq(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  stablehlo.custom_call @check.expect_almost_eq(%0, %1) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  %2 = stablehlo.custom_call @check.eq(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
  func.return
}
