// dynamic_conv takes its padding as an operand; with a constant padding it computes what
// convolution computes with that padding as an attribute (checked against it here, f32 and i32,
// with strides, dilations and asymmetric, negative padding).
func.func @dynamic_conv_matches_convolution_f32() {
  %x = stablehlo.iota dim = 1 : tensor<1x7x6x2xf32>
  %xs = stablehlo.iota dim = 2 : tensor<1x7x6x2xf32>
  %x2 = stablehlo.multiply %x, %xs : tensor<1x7x6x2xf32>
  %w = stablehlo.iota dim = 0 : tensor<3x2x2x3xf32>
  %pad = stablehlo.constant dense<[[2, 1], [-1, 3]]> : tensor<2x2xi64>
  %d = stablehlo.dynamic_conv(%x2, %w, %pad) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x7x6x2xf32>, tensor<3x2x2x3xf32>, tensor<2x2xi64>) -> tensor<1x4x6x3xf32>
  %c = stablehlo.convolution(%x2, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[2, 1], [-1, 3]], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x7x6x2xf32>, tensor<3x2x2x3xf32>) -> tensor<1x4x6x3xf32>
  check.expect_eq %d, %c : tensor<1x4x6x3xf32>
  func.return
}

// -----

func.func @dynamic_conv_matches_convolution_i32() {
  %x = stablehlo.iota dim = 2 : tensor<2x3x8xi32>
  %w = stablehlo.constant dense<[[[1, -1, 2]], [[0, 3, 1]], [[2, 2, -1]]]> : tensor<3x1x3xi32>
  %pad = stablehlo.constant dense<1> : tensor<1x2xi32>
  %d = stablehlo.dynamic_conv(%x, %w, %pad) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 3 : i64} : (tensor<2x3x8xi32>, tensor<3x1x3xi32>, tensor<1x2xi32>) -> tensor<2x3x15xi32>
  %c = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[1, 1]], lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 3 : i64} : (tensor<2x3x8xi32>, tensor<3x1x3xi32>) -> tensor<2x3x15xi32>
  check.expect_eq %d, %c : tensor<2x3x15xi32>
  func.return
}
