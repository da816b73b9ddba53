// dynamic_conv programs that cannot run, refused with the reason.
// expect-fail: operand #2 (padding) must be an integer constant
func.func @main(%p: tensor<1x2xi64>) {
  %x = stablehlo.constant dense<1.0> : tensor<1x1x4xf32>
  %w = stablehlo.constant dense<1.0> : tensor<1x1x2xf32>
  %d = stablehlo.dynamic_conv(%x, %w, %p) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x4xf32>, tensor<1x1x2xf32>, tensor<1x2xi64>) -> tensor<1x1x3xf32>
  func.return
}

// -----

// expect-fail: with padding 1, 1 spatial dimension 0 of the result must be 5, got 3
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<1x1x4xf32>
  %w = stablehlo.constant dense<1.0> : tensor<1x1x2xf32>
  %p = stablehlo.constant dense<1> : tensor<1x2xi64>
  %d = stablehlo.dynamic_conv(%x, %w, %p) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x4xf32>, tensor<1x1x2xf32>, tensor<1x2xi64>) -> tensor<1x1x3xf32>
  func.return
}

// -----

// expect-fail: padding must be a [spatial dimensions, 2] tensor, got tensor<2x2xi64>
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<1x1x4xf32>
  %w = stablehlo.constant dense<1.0> : tensor<1x1x2xf32>
  %p = stablehlo.constant dense<1> : tensor<2x2xi64>
  %d = stablehlo.dynamic_conv(%x, %w, %p) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x4xf32>, tensor<1x1x2xf32>, tensor<2x2xi64>) -> tensor<1x1x5xf32>
  func.return
}
