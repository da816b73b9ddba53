// Dense literals in every form, for every element type.
func.func @splats() -> (tensor<2x3xf32>, tensor<4xi1>, tensor<2xcomplex<f64>>) {
  %0 = stablehlo.constant dense<1.5> : tensor<2x3xf32>
  %1 = stablehlo.constant dense<true> : tensor<4xi1>
  %2 = stablehlo.constant dense<(1.5,-2.5)> : tensor<2xcomplex<f64>>
  %3 = stablehlo.constant dense<0> : tensor<0xi32>
  %4 = stablehlo.constant dense<-7> : tensor<i8>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4xi1>, tensor<2xcomplex<f64>>
}

// -----

func.func @nested() -> tensor<2x2x2xi32> {
  %0 = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, -8]]]> : tensor<2x2x2xi32>
  %1 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = stablehlo.constant dense<[[(1.0, 2.0), (3.0, -4.0)]]> : tensor<1x2xcomplex<f32>>
  %3 = stablehlo.constant dense<> : tensor<0xf32>
  %4 = stablehlo.constant dense<[]> : tensor<0xf32>
  %5 = stablehlo.constant dense<[[], []]> : tensor<2x0xi64>
  %6 = stablehlo.constant dense<[[1]]> : tensor<1x1xui64>
  return %0 : tensor<2x2x2xi32>
}

// -----

func.func @integer_ranges() -> tensor<4xi8> {
  %0 = stablehlo.constant dense<[-128, 127, 255, 0]> : tensor<4xi8>
  %1 = stablehlo.constant dense<[0, 255]> : tensor<2xui8>
  %2 = stablehlo.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  %3 = stablehlo.constant dense<[0, 18446744073709551615]> : tensor<2xui64>
  %4 = stablehlo.constant dense<[-8, 7, 15]> : tensor<3xi4>
  %5 = stablehlo.constant dense<[0, 15]> : tensor<2xui4>
  %6 = stablehlo.constant dense<[-2, 1, 3]> : tensor<3xi2>
  %7 = stablehlo.constant dense<[0, 3]> : tensor<2xui2>
  %8 = stablehlo.constant dense<[0x7F, 0x10]> : tensor<2xi8>
  %9 = stablehlo.constant dense<[-32768, 65535]> : tensor<2xi16>
  %10 = stablehlo.constant dense<[1, 0]> : tensor<2xi1>
  return %0 : tensor<4xi8>
}

// -----

// Decimals round to nearest-even in the element type; hex patterns give exact bits.
func.func @floats() -> tensor<3xf8E4M3FN> {
  %0 = stablehlo.constant dense<[0.1, 448.0, -0.0]> : tensor<3xf8E4M3FN>
  %1 = stablehlo.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001]> : tensor<4xf32>
  %2 = stablehlo.constant dense<[0x7C00, 0xFC00, 0x0001, 65504.0, 1.0e-8]> : tensor<5xf16>
  %3 = stablehlo.constant dense<[0x7F80, 3.140625, 1.0e+38]> : tensor<3xbf16>
  %4 = stablehlo.constant dense<[0x7FF0000000000000, 0.1, 1.7976931348623157e+308, 4.9406564584124654e-324]> : tensor<4xf64>
  %5 = stablehlo.constant dense<[1.5, -6.0, 0.5]> : tensor<3xf4E2M1FN>
  %6 = stablehlo.constant dense<[7.5, -0.125]> : tensor<2xf6E2M3FN>
  %7 = stablehlo.constant dense<[28.0, 0.0625]> : tensor<2xf6E3M2FN>
  %8 = stablehlo.constant dense<[15.5, 0.25]> : tensor<2xf8E3M4>
  %9 = stablehlo.constant dense<[240.0, 0x7F]> : tensor<2xf8E4M3>
  %10 = stablehlo.constant dense<[240.0, 0x80]> : tensor<2xf8E4M3FNUZ>
  %11 = stablehlo.constant dense<[30.0, 0x80]> : tensor<2xf8E4M3B11FNUZ>
  %12 = stablehlo.constant dense<[57344.0, 0x7C]> : tensor<2xf8E5M2>
  %13 = stablehlo.constant dense<[57344.0, 0x80]> : tensor<2xf8E5M2FNUZ>
  %14 = stablehlo.constant dense<[1.0, 0.5, 0xFF]> : tensor<3xf8E8M0FNU>
  %15 = stablehlo.constant dense<[1e3, 2.5E-2, 3.]> : tensor<3xf32>
  return %0 : tensor<3xf8E4M3FN>
}

// -----

// Hex blobs: raw little-endian bytes; one element's worth is a splat.
func.func @hex_blobs() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %1 = stablehlo.constant dense<"0x0000803F"> : tensor<3xf32>
  %2 = stablehlo.constant dense<"0x0100"> : tensor<2xi1>
  %3 = stablehlo.constant dense<"0x0000803F00000000"> : tensor<1xcomplex<f32>>
  %4 = stablehlo.constant dense<"0x0F01"> : tensor<2xi4>
  return %0 : tensor<2xf32>
}

// -----

func.func @attribute_forms() -> tensor<f32> attributes {
    i = 3 : i32, neg = -5, f = 1.5 : f16, f64 = 2.0, h = 0x7FC00000 : f32, s = "a\"b\\c\0A", u,
    b = true, arr = [1, "x", [2]], darr = array<i64: 1, -2>, dempty = array<i32>,
    dbool = array<i1: true, false>, dfloat = array<f32: 1.5, 2.0>, sym = @foo, nsym = @foo::@bar,
    dict = {a = 1 : i8, "quoted key" = unit}, ty = tensor<2xf32>, e = #stablehlo<precision HIGHEST>,
    other = #sdy.sharding<@mesh, [{"x"}, {}]>, gather = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    conv = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>,
    ch = #stablehlo.channel_handle<handle = 1, type = 2>, dense2d = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>,
    alg = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false>} {
  %0 = stablehlo.constant dense<0.0> : tensor<f32>
  return %0 : tensor<f32>
}
