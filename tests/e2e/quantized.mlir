// Uniform quantization: quantize, dequantize, and ops on quantized tensors computed as
// dequantize -> op -> quantize.
func.func @quantize_round_trip() {
  %x = stablehlo.constant dense<[0.0, 1.0, -1.0, 0.26, 100.0, -100.0]> : tensor<6xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<6xf32>) -> tensor<6x!quant.uniform<i8:f32, 0.5:2>>
  %i = stablehlo.bitcast_convert %q : (tensor<6x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<6xi8>
  // x / 0.5 + 2, rounded to even and clamped to [-128, 127].
  check.expect_eq_const %i, dense<[2, 4, 0, 3, 127, -128]> : tensor<6xi8>
  %d = stablehlo.uniform_dequantize %q : (tensor<6x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<6xf32>
  check.expect_eq_const %d, dense<[0.0, 1.0, -1.0, 0.5, 62.5, -65.0]> : tensor<6xf32>
  func.return
}

// -----

func.func @per_axis_and_requantize() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [1.0, 2.0]]> : tensor<2x2xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.25:1}>>
  %i = stablehlo.bitcast_convert %q : (tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.25:1}>>) -> tensor<2x2xi8>
  check.expect_eq_const %i, dense<[[2, 4], [5, 9]]> : tensor<2x2xi8>
  %r = stablehlo.uniform_quantize %q : (tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.25:1}>>) -> tensor<2x2x!quant.uniform<u8:f32, 1.0:10>>
  %j = stablehlo.bitcast_convert %r : (tensor<2x2x!quant.uniform<u8:f32, 1.0:10>>) -> tensor<2x2xui8>
  check.expect_eq_const %j, dense<[[11, 12], [11, 12]]> : tensor<2x2xui8>
  func.return
}

// -----

func.func @quantized_add_and_dot() {
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %qa = stablehlo.uniform_quantize %a : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5>>
  %sum = stablehlo.add %qa, %qa : tensor<3x!quant.uniform<i8:f32, 0.5>>
  %ds = stablehlo.uniform_dequantize %sum : (tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<3xf32>
  check.expect_eq_const %ds, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
  %dot = stablehlo.dot_general %qa, %qa, contracting_dims = [0] x [0] : (tensor<3x!quant.uniform<i8:f32, 0.5>>, tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i32:f32, 0.25>>
  %dd = stablehlo.uniform_dequantize %dot : (tensor<!quant.uniform<i32:f32, 0.25>>) -> tensor<f32>
  check.expect_eq_const %dd, dense<14.0> : tensor<f32>
  %t = stablehlo.transpose %qa, dims = [0] : (tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<3x!quant.uniform<i8:f32, 0.5>>
  check.expect_eq %t, %qa : tensor<3x!quant.uniform<i8:f32, 0.5>>
  func.return
}
