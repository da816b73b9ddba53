// Every element type, every tensor form, tokens, tuples, quantized and function types.
func.func @integers(%a: tensor<2xi1>, %b: tensor<2xi2>, %c: tensor<2xi4>, %d: tensor<2xi8>, %e: tensor<2xi16>, %f: tensor<2xi32>, %g: tensor<2xi64>) -> (tensor<2xi1>, tensor<2xi2>, tensor<2xi4>, tensor<2xi8>, tensor<2xi16>, tensor<2xi32>, tensor<2xi64>) {
  return %a, %b, %c, %d, %e, %f, %g : tensor<2xi1>, tensor<2xi2>, tensor<2xi4>, tensor<2xi8>, tensor<2xi16>, tensor<2xi32>, tensor<2xi64>
}

func.func @unsigned(%b: tensor<2xui2>, %c: tensor<2xui4>, %d: tensor<2xui8>, %e: tensor<2xui16>, %f: tensor<2xui32>, %g: tensor<2xui64>) -> tensor<2xui64> {
  return %g : tensor<2xui64>
}

func.func @floats(%a: tensor<f4E2M1FN>, %b: tensor<f6E2M3FN>, %c: tensor<f6E3M2FN>, %d: tensor<f8E3M4>, %e: tensor<f8E4M3>, %f: tensor<f8E4M3FN>, %g: tensor<f8E4M3FNUZ>, %h: tensor<f8E4M3B11FNUZ>, %i: tensor<f8E5M2>, %j: tensor<f8E5M2FNUZ>, %k: tensor<f8E8M0FNU>, %l: tensor<f16>, %m: tensor<bf16>, %n: tensor<f32>, %o: tensor<f64>) -> tensor<f64> {
  return %o : tensor<f64>
}

func.func @complex(%a: tensor<3xcomplex<f32>>, %b: tensor<3xcomplex<f64>>) -> tensor<3xcomplex<f64>> {
  return %b : tensor<3xcomplex<f64>>
}

// -----

func.func @shapes(%a: tensor<f32>, %b: tensor<0x2xi8>, %c: tensor<1x2x3x4x5x6xf32>, %d: tensor<?x4xf32>, %e: tensor<?x?xf32, #stablehlo.bounds<16, ?>>, %f: tensor<?xf32, #stablehlo.type_extensions<bounds = [8]>>) -> tensor<0x2xi8> {
  return %b : tensor<0x2xi8>
}

func.func @token_tuple(%t: !stablehlo.token, %u: tuple<tensor<f32>, tuple<tensor<i32>, !stablehlo.token>>, %v: tuple<>) -> !stablehlo.token {
  return %t : !stablehlo.token
}

// -----

func.func @quantized(%a: tensor<4x!quant.uniform<i8:f32, 0.0039:-128>>, %b: tensor<!quant.uniform<i32:f32, 1.5E-5>>, %c: tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>, %d: tensor<!quant.uniform<i8<-127:127>:f32, 2.0:3>>, %e: tensor<!quant.uniform<ui8:f16, 0.5:7>>) -> tensor<4x!quant.uniform<i8:f32, 0.0039:-128>> {
  %0 = stablehlo.add %a, %a : tensor<4x!quant.uniform<i8:f32, 0.0039:-128>>
  %1 = stablehlo.uniform_dequantize %a : (tensor<4x!quant.uniform<i8:f32, 0.0039:-128>>) -> tensor<4xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.0039:-128>>
  %3 = stablehlo.uniform_quantize %0 : (tensor<4x!quant.uniform<i8:f32, 0.0039:-128>>) -> tensor<4x!quant.uniform<i8:f32, 5.0E-3:-100>>
  return %2 : tensor<4x!quant.uniform<i8:f32, 0.0039:-128>>
}

// -----

// Type aliases and a function type as an attribute.
!my_tensor = tensor<4xf32>
func.func @aliases(%a: !my_tensor) -> !my_tensor attributes {signature = (tensor<4xf32>) -> tensor<4xf32>, unit_attr, ty = f32} {
  return %a : !my_tensor
}

// -----

func.func private @declaration(tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<i1>)
func.func nested @nested_visibility() {
  return
}
