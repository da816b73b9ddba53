// Every elementwise StableHLO op in pretty form, with the type signature both short and long.
func.func @unary(%f: tensor<2x3xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>, %c: tensor<2xcomplex<f32>>) -> tensor<2x3xf32> {
  %0 = stablehlo.abs %f : tensor<2x3xf32>
  %1 = stablehlo.cbrt %0 : tensor<2x3xf32>
  %2 = stablehlo.ceil %1 : tensor<2x3xf32>
  %3 = stablehlo.cosine %2 : tensor<2x3xf32>
  %4 = stablehlo.exponential %3 : tensor<2x3xf32>
  %5 = stablehlo.exponential_minus_one %4 : tensor<2x3xf32>
  %6 = stablehlo.floor %5 : tensor<2x3xf32>
  %7 = stablehlo.log %6 : tensor<2x3xf32>
  %8 = stablehlo.log_plus_one %7 : tensor<2x3xf32>
  %9 = stablehlo.logistic %8 : tensor<2x3xf32>
  %10 = stablehlo.negate %9 : tensor<2x3xf32>
  %11 = stablehlo.round_nearest_afz %10 : tensor<2x3xf32>
  %12 = stablehlo.round_nearest_even %11 : tensor<2x3xf32>
  %13 = stablehlo.rsqrt %12 : tensor<2x3xf32>
  %14 = stablehlo.sign %13 : tensor<2x3xf32>
  %15 = stablehlo.sine %14 : tensor<2x3xf32>
  %16 = stablehlo.sqrt %15 : tensor<2x3xf32>
  %17 = stablehlo.tan %16 : tensor<2x3xf32>
  %18 = stablehlo.tanh %17 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %19 = stablehlo.is_finite %18 : (tensor<2x3xf32>) -> tensor<2x3xi1>
  %20 = stablehlo.count_leading_zeros %i : tensor<4xi32>
  %21 = stablehlo.popcnt %20 : tensor<4xi32>
  %22 = stablehlo.not %b : tensor<4xi1>
  %23 = stablehlo.not %21 : tensor<4xi32>
  %24 = stablehlo.real %c : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %25 = stablehlo.imag %c : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %26 = stablehlo.complex %24, %25 : tensor<2xcomplex<f32>>
  %27 = stablehlo.abs %c : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %28 = stablehlo.exponential %18 {result_accuracy = #stablehlo.result_accuracy<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2x3xf32>
  %29 = stablehlo.real %c : tensor<2xcomplex<f32>>
  %30 = stablehlo.is_finite %18 : tensor<2x3xf32>
  return %28 : tensor<2x3xf32>
}

// -----

func.func @binary(%a: tensor<3xf64>, %b: tensor<3xf64>, %x: tensor<3xui8>, %y: tensor<3xui8>) -> (tensor<3xf64>, tensor<3xui8>) {
  %0 = stablehlo.add %a, %b : tensor<3xf64>
  %1 = stablehlo.subtract %0, %b : tensor<3xf64>
  %2 = stablehlo.multiply %1, %b : tensor<3xf64>
  %3 = stablehlo.divide %2, %b : tensor<3xf64>
  %4 = stablehlo.remainder %3, %b : tensor<3xf64>
  %5 = stablehlo.power %4, %b : tensor<3xf64>
  %6 = stablehlo.atan2 %5, %b : tensor<3xf64>
  %7 = stablehlo.maximum %6, %b : tensor<3xf64>
  %8 = stablehlo.minimum %7, %b : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %9 = stablehlo.and %x, %y : tensor<3xui8>
  %10 = stablehlo.or %9, %y : tensor<3xui8>
  %11 = stablehlo.xor %10, %y : tensor<3xui8>
  %12 = stablehlo.shift_left %11, %y : tensor<3xui8>
  %13 = stablehlo.shift_right_arithmetic %12, %y : tensor<3xui8>
  %14 = stablehlo.shift_right_logical %13, %y : tensor<3xui8>
  return %8, %14 : tensor<3xf64>, tensor<3xui8>
}

// -----

func.func @ternary_and_compare(%p: tensor<i1>, %a: tensor<4xbf16>, %b: tensor<4xbf16>, %lo: tensor<bf16>) -> tensor<4xbf16> {
  %0 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
  %1 = stablehlo.compare EQ, %a, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
  %2 = stablehlo.compare  GE, %a, %b,  TOTALORDER : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
  %3 = stablehlo.select %0, %a, %b : tensor<4xi1>, tensor<4xbf16>
  %4 = stablehlo.select %p, %3, %b : (tensor<i1>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %5 = stablehlo.clamp %lo, %4, %lo : (tensor<bf16>, tensor<4xbf16>, tensor<bf16>) -> tensor<4xbf16>
  %6 = stablehlo.clamp %a, %5, %b : tensor<4xbf16>
  return %6 : tensor<4xbf16>
}

// -----

func.func @conversions(%a: tensor<2x2xf32>, %i: tensor<2xi64>) -> tensor<2x2xf16> {
  %0 = stablehlo.convert %a : (tensor<2x2xf32>) -> tensor<2x2xf16>
  %1 = stablehlo.convert %i : (tensor<2xi64>) -> tensor<2xf8E4M3FN>
  %2 = stablehlo.bitcast_convert %a : (tensor<2x2xf32>) -> tensor<2x2xi32>
  %3 = stablehlo.bitcast_convert %i : (tensor<2xi64>) -> tensor<2x2xf32>
  %4 = stablehlo.bitcast_convert %a : (tensor<2x2xf32>) -> tensor<2xf64>
  %5 = stablehlo.reduce_precision %a, format = e5m10 : tensor<2x2xf32>
  %6 = stablehlo.convert %0 : tensor<2x2xf16>
  return %6 : tensor<2x2xf16>
}

// -----

// CHLO ops as JAX emits them.
func.func @chlo(%x: tensor<20x20xf16>, %y: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<20x20xf16> {
  %0 = chlo.acosh %x : tensor<20x20xf16> -> tensor<20x20xf16>
  %1 = chlo.acos %0 : tensor<20x20xf16> -> tensor<20x20xf16>
  %2 = chlo.asin %1 : tensor<20x20xf16> -> tensor<20x20xf16>
  %3 = chlo.asinh %2 : tensor<20x20xf16> -> tensor<20x20xf16>
  %4 = chlo.atan %3 : tensor<20x20xf16> -> tensor<20x20xf16>
  %5 = chlo.atanh %4 : tensor<20x20xf16> -> tensor<20x20xf16>
  %6 = chlo.cosh %5 : tensor<20x20xf16> -> tensor<20x20xf16>
  %7 = chlo.sinh %6 : tensor<20x20xf16> -> tensor<20x20xf16>
  %8 = chlo.tan %7 : tensor<20x20xf16> -> tensor<20x20xf16>
  %9 = chlo.erf %8 : tensor<20x20xf16> -> tensor<20x20xf16>
  %10 = chlo.erfc %9 : tensor<20x20xf16> -> tensor<20x20xf16>
  %11 = chlo.erf_inv %10 : tensor<20x20xf16> -> tensor<20x20xf16>
  %12 = chlo.lgamma %11 : tensor<20x20xf16> -> tensor<20x20xf16>
  %13 = chlo.digamma %12 : tensor<20x20xf16> -> tensor<20x20xf16>
  %14 = chlo.bessel_i1e %13 : tensor<20x20xf16> -> tensor<20x20xf16>
  %15 = chlo.square %14 : tensor<20x20xf16> -> tensor<20x20xf16>
  %16 = chlo.is_inf %15 : tensor<20x20xf16> -> tensor<20x20xi1>
  %17 = chlo.is_pos_inf %15 : tensor<20x20xf16> -> tensor<20x20xi1>
  %18 = chlo.is_neg_inf %15 : tensor<20x20xf16> -> tensor<20x20xi1>
  %19 = chlo.next_after %y, %z : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %20 = chlo.polygamma %y, %z : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %21 = chlo.zeta %y, %z : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %22 = chlo.broadcast_add %y, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %23 = chlo.broadcast_multiply %y, %z {broadcast_dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %24 = chlo.broadcast_compare %y, %z {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %25:2 = chlo.top_k(%y, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)
  %26 = chlo.conj %y : tensor<4xf32> -> tensor<4xf32>
  %27 = chlo.constant dense<1.0> : tensor<4xf32>
  %28 = chlo.constant_like %y {value = 2.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %15 : tensor<20x20xf16>
}
