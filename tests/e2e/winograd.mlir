// Winograd F(2x2, 3x3) (src/cpu/kernels/conv_winograd.h): 3x3 stride-1 NHWC convolutions with at least
// 32 features and 192 output tiles take it. On small integers every transform and product is
// exact, so the f32 result must equal the i32 direct loop's. Odd output sizes (dropped edge
// outputs), uneven and negative padding, several images, output features > 32, a fused bias +
// ReLU epilogue (run on each block's outputs as they finish), a reversed HWOI kernel (a backward
// pass's input gradient; Winograd reads the HWIO copy the GEMM paths make); the last case
// checks that an infinity in the input propagates as in the direct sum (the Winograd path refuses
// such inputs; its transforms would turn inf - inf into NaN): both convolutions (HWIO and OIHW
// kernels) must give the same bits, and +inf around the infinity.

// -----

func.func @winograd_odd_uneven_pad() {
  %x_iota = stablehlo.iota dim = 0 : tensor<28768xi32>
  %x_m = stablehlo.constant dense<7> : tensor<28768xi32>
  %x_q = stablehlo.constant dense<11> : tensor<28768xi32>
  %x_h = stablehlo.constant dense<5> : tensor<28768xi32>
  %x_1 = stablehlo.multiply %x_iota, %x_m : tensor<28768xi32>
  %x_2 = stablehlo.remainder %x_1, %x_q : tensor<28768xi32>
  %x_3 = stablehlo.subtract %x_2, %x_h : tensor<28768xi32>
  %xi = stablehlo.reshape %x_3 : (tensor<28768xi32>) -> tensor<1x29x31x32xi32>
  %xf = stablehlo.convert %xi : (tensor<1x29x31x32xi32>) -> tensor<1x29x31x32xf32>
  %w_iota = stablehlo.iota dim = 0 : tensor<13824xi32>
  %w_m = stablehlo.constant dense<5> : tensor<13824xi32>
  %w_q = stablehlo.constant dense<7> : tensor<13824xi32>
  %w_h = stablehlo.constant dense<3> : tensor<13824xi32>
  %w_1 = stablehlo.multiply %w_iota, %w_m : tensor<13824xi32>
  %w_2 = stablehlo.remainder %w_1, %w_q : tensor<13824xi32>
  %w_3 = stablehlo.subtract %w_2, %w_h : tensor<13824xi32>
  %wi = stablehlo.reshape %w_3 : (tensor<13824xi32>) -> tensor<3x3x32x48xi32>
  %wf = stablehlo.convert %wi : (tensor<3x3x32x48xi32>) -> tensor<3x3x32x48xf32>
  %ri = stablehlo.convolution(%xi, %wi) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [2, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x29x31x32xi32>, tensor<3x3x32x48xi32>) -> tensor<1x29x31x48xi32>
  %rf = stablehlo.convolution(%xf, %wf) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [2, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x29x31x32xf32>, tensor<3x3x32x48xf32>) -> tensor<1x29x31x48xf32>
  %rc = stablehlo.convert %ri : (tensor<1x29x31x48xi32>) -> tensor<1x29x31x48xf32>
  check.expect_eq %rf, %rc : tensor<1x29x31x48xf32>
  func.return
}

// -----

func.func @winograd_batch_negative_pad() {
  %x_iota = stablehlo.iota dim = 0 : tensor<57600xi32>
  %x_m = stablehlo.constant dense<7> : tensor<57600xi32>
  %x_q = stablehlo.constant dense<11> : tensor<57600xi32>
  %x_h = stablehlo.constant dense<5> : tensor<57600xi32>
  %x_1 = stablehlo.multiply %x_iota, %x_m : tensor<57600xi32>
  %x_2 = stablehlo.remainder %x_1, %x_q : tensor<57600xi32>
  %x_3 = stablehlo.subtract %x_2, %x_h : tensor<57600xi32>
  %xi = stablehlo.reshape %x_3 : (tensor<57600xi32>) -> tensor<2x30x30x32xi32>
  %xf = stablehlo.convert %xi : (tensor<2x30x30x32xi32>) -> tensor<2x30x30x32xf32>
  %w_iota = stablehlo.iota dim = 0 : tensor<9216xi32>
  %w_m = stablehlo.constant dense<5> : tensor<9216xi32>
  %w_q = stablehlo.constant dense<7> : tensor<9216xi32>
  %w_h = stablehlo.constant dense<3> : tensor<9216xi32>
  %w_1 = stablehlo.multiply %w_iota, %w_m : tensor<9216xi32>
  %w_2 = stablehlo.remainder %w_1, %w_q : tensor<9216xi32>
  %w_3 = stablehlo.subtract %w_2, %w_h : tensor<9216xi32>
  %wi = stablehlo.reshape %w_3 : (tensor<9216xi32>) -> tensor<3x3x32x32xi32>
  %wf = stablehlo.convert %wi : (tensor<3x3x32x32xi32>) -> tensor<3x3x32x32xf32>
  %ri = stablehlo.convolution(%xi, %wi) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[-1, 2], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x30x30x32xi32>, tensor<3x3x32x32xi32>) -> tensor<2x29x28x32xi32>
  %rf = stablehlo.convolution(%xf, %wf) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[-1, 2], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x30x30x32xf32>, tensor<3x3x32x32xf32>) -> tensor<2x29x28x32xf32>
  %rc = stablehlo.convert %ri : (tensor<2x29x28x32xi32>) -> tensor<2x29x28x32xf32>
  check.expect_eq %rf, %rc : tensor<2x29x28x32xf32>
  func.return
}

// -----

func.func @winograd_wide_rows() {
  %x_iota = stablehlo.iota dim = 0 : tensor<332800xi32>
  %x_m = stablehlo.constant dense<7> : tensor<332800xi32>
  %x_q = stablehlo.constant dense<11> : tensor<332800xi32>
  %x_h = stablehlo.constant dense<5> : tensor<332800xi32>
  %x_1 = stablehlo.multiply %x_iota, %x_m : tensor<332800xi32>
  %x_2 = stablehlo.remainder %x_1, %x_q : tensor<332800xi32>
  %x_3 = stablehlo.subtract %x_2, %x_h : tensor<332800xi32>
  %xi = stablehlo.reshape %x_3 : (tensor<332800xi32>) -> tensor<1x26x200x64xi32>
  %xf = stablehlo.convert %xi : (tensor<1x26x200x64xi32>) -> tensor<1x26x200x64xf32>
  %w_iota = stablehlo.iota dim = 0 : tensor<18432xi32>
  %w_m = stablehlo.constant dense<5> : tensor<18432xi32>
  %w_q = stablehlo.constant dense<7> : tensor<18432xi32>
  %w_h = stablehlo.constant dense<3> : tensor<18432xi32>
  %w_1 = stablehlo.multiply %w_iota, %w_m : tensor<18432xi32>
  %w_2 = stablehlo.remainder %w_1, %w_q : tensor<18432xi32>
  %w_3 = stablehlo.subtract %w_2, %w_h : tensor<18432xi32>
  %wi = stablehlo.reshape %w_3 : (tensor<18432xi32>) -> tensor<3x3x64x32xi32>
  %wf = stablehlo.convert %wi : (tensor<3x3x64x32xi32>) -> tensor<3x3x64x32xf32>
  %ri = stablehlo.convolution(%xi, %wi) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x26x200x64xi32>, tensor<3x3x64x32xi32>) -> tensor<1x26x200x32xi32>
  %rf = stablehlo.convolution(%xf, %wf) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x26x200x64xf32>, tensor<3x3x64x32xf32>) -> tensor<1x26x200x32xf32>
  %rc = stablehlo.convert %ri : (tensor<1x26x200x32xi32>) -> tensor<1x26x200x32xf32>
  check.expect_eq %rf, %rc : tensor<1x26x200x32xf32>
  func.return
}

// -----

func.func @winograd_bias_relu_epilogue() {
  %x_iota = stablehlo.iota dim = 0 : tensor<29435xi32>
  %x_m = stablehlo.constant dense<7> : tensor<29435xi32>
  %x_q = stablehlo.constant dense<11> : tensor<29435xi32>
  %x_h = stablehlo.constant dense<5> : tensor<29435xi32>
  %x_1 = stablehlo.multiply %x_iota, %x_m : tensor<29435xi32>
  %x_2 = stablehlo.remainder %x_1, %x_q : tensor<29435xi32>
  %x_3 = stablehlo.subtract %x_2, %x_h : tensor<29435xi32>
  %xi = stablehlo.reshape %x_3 : (tensor<29435xi32>) -> tensor<1x29x29x35xi32>
  %xs = stablehlo.slice %xi [0:1, 0:29, 0:29, 0:32] : (tensor<1x29x29x35xi32>) -> tensor<1x29x29x32xi32>
  %xf = stablehlo.convert %xs : (tensor<1x29x29x32xi32>) -> tensor<1x29x29x32xf32>
  %w_iota = stablehlo.iota dim = 0 : tensor<9216xi32>
  %w_m = stablehlo.constant dense<5> : tensor<9216xi32>
  %w_q = stablehlo.constant dense<7> : tensor<9216xi32>
  %w_h = stablehlo.constant dense<3> : tensor<9216xi32>
  %w_1 = stablehlo.multiply %w_iota, %w_m : tensor<9216xi32>
  %w_2 = stablehlo.remainder %w_1, %w_q : tensor<9216xi32>
  %w_3 = stablehlo.subtract %w_2, %w_h : tensor<9216xi32>
  %wi = stablehlo.reshape %w_3 : (tensor<9216xi32>) -> tensor<3x3x32x32xi32>
  %wf = stablehlo.convert %wi : (tensor<3x3x32x32xi32>) -> tensor<3x3x32x32xf32>
  %b_iota = stablehlo.iota dim = 0 : tensor<32xi32>
  %b_h = stablehlo.constant dense<16> : tensor<32xi32>
  %bi = stablehlo.subtract %b_iota, %b_h : tensor<32xi32>
  %bf = stablehlo.convert %bi : (tensor<32xi32>) -> tensor<32xf32>
  %ri = stablehlo.convolution(%xs, %wi) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x29x29x32xi32>, tensor<3x3x32x32xi32>) -> tensor<1x29x29x32xi32>
  %bbi = stablehlo.broadcast_in_dim %bi, dims = [3] : (tensor<32xi32>) -> tensor<1x29x29x32xi32>
  %si = stablehlo.add %ri, %bbi : tensor<1x29x29x32xi32>
  %zi = stablehlo.constant dense<0> : tensor<1x29x29x32xi32>
  %yi = stablehlo.maximum %si, %zi : tensor<1x29x29x32xi32>
  %rf = stablehlo.convolution(%xf, %wf) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x29x29x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x29x29x32xf32>
  %bbf = stablehlo.broadcast_in_dim %bf, dims = [3] : (tensor<32xf32>) -> tensor<1x29x29x32xf32>
  %sf = stablehlo.add %rf, %bbf : tensor<1x29x29x32xf32>
  %zf = stablehlo.constant dense<0.0> : tensor<1x29x29x32xf32>
  %yf = stablehlo.maximum %sf, %zf : tensor<1x29x29x32xf32>
  %yc = stablehlo.convert %yi : (tensor<1x29x29x32xi32>) -> tensor<1x29x29x32xf32>
  check.expect_eq %yf, %yc : tensor<1x29x29x32xf32>
  func.return
}

// -----

func.func @winograd_reversed_hwoi_kernel() {
  %x_iota = stablehlo.iota dim = 0 : tensor<25088xi32>
  %x_m = stablehlo.constant dense<7> : tensor<25088xi32>
  %x_q = stablehlo.constant dense<11> : tensor<25088xi32>
  %x_h = stablehlo.constant dense<5> : tensor<25088xi32>
  %x_1 = stablehlo.multiply %x_iota, %x_m : tensor<25088xi32>
  %x_2 = stablehlo.remainder %x_1, %x_q : tensor<25088xi32>
  %x_3 = stablehlo.subtract %x_2, %x_h : tensor<25088xi32>
  %xi = stablehlo.reshape %x_3 : (tensor<25088xi32>) -> tensor<1x28x28x32xi32>
  %xf = stablehlo.convert %xi : (tensor<1x28x28x32xi32>) -> tensor<1x28x28x32xf32>
  %w_iota = stablehlo.iota dim = 0 : tensor<13824xi32>
  %w_m = stablehlo.constant dense<5> : tensor<13824xi32>
  %w_q = stablehlo.constant dense<7> : tensor<13824xi32>
  %w_h = stablehlo.constant dense<3> : tensor<13824xi32>
  %w_1 = stablehlo.multiply %w_iota, %w_m : tensor<13824xi32>
  %w_2 = stablehlo.remainder %w_1, %w_q : tensor<13824xi32>
  %w_3 = stablehlo.subtract %w_2, %w_h : tensor<13824xi32>
  %wi = stablehlo.reshape %w_3 : (tensor<13824xi32>) -> tensor<3x3x48x32xi32>
  %wf = stablehlo.convert %wi : (tensor<3x3x48x32xi32>) -> tensor<3x3x48x32xf32>
  %ri = stablehlo.convolution(%xi, %wi) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], reverse = [true, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x28x28x32xi32>, tensor<3x3x48x32xi32>) -> tensor<1x28x28x48xi32>
  %rf = stablehlo.convolution(%xf, %wf) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], reverse = [true, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x28x28x32xf32>, tensor<3x3x48x32xf32>) -> tensor<1x28x28x48xf32>
  %rc = stablehlo.convert %ri : (tensor<1x28x28x48xi32>) -> tensor<1x28x28x48xf32>
  check.expect_eq %rf, %rc : tensor<1x28x28x48xf32>
  func.return
}

// -----

func.func @winograd_infinity_as_direct() {
  %one = stablehlo.constant dense<1.0> : tensor<1x28x28x32xf32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<1x1x1x1xf32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %i5 = stablehlo.constant dense<5> : tensor<i32>
  %i7 = stablehlo.constant dense<7> : tensor<i32>
  %i3 = stablehlo.constant dense<3> : tensor<i32>
  %x = stablehlo.dynamic_update_slice %one, %inf, %i0, %i5, %i7, %i3 : (tensor<1x28x28x32xf32>, tensor<1x1x1x1xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x28x28x32xf32>
  %w = stablehlo.constant dense<0.5> : tensor<3x3x32x32xf32>
  %wt = stablehlo.transpose %w, dims = [3, 2, 0, 1] : (tensor<3x3x32x32xf32>) -> tensor<32x32x3x3xf32>
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x28x28x32xf32>, tensor<3x3x32x32xf32>) -> tensor<1x28x28x32xf32>
  %d = stablehlo.convolution(%x, %wt) dim_numbers = [b, 0, 1, f]x[o, i, 0, 1]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x28x28x32xf32>, tensor<32x32x3x3xf32>) -> tensor<1x28x28x32xf32>
  check.expect_eq %r, %d : tensor<1x28x28x32xf32>
  %c = stablehlo.slice %r [0:1, 4:7, 6:9, 0:32] : (tensor<1x28x28x32xf32>) -> tensor<1x3x3x32xf32>
  %infs = stablehlo.constant dense<0x7F800000> : tensor<1x3x3x32xf32>
  check.expect_eq %c, %infs : tensor<1x3x3x32xf32>
  func.return
}
