// Parser errors in types. Each chunk must fail with the error below it.
// expect-error@+1: unsupported complex element type 'i32'
func.func @f(%a: tensor<complex<i32>>) {
  return
}

// -----

// expect-error@+1: signed integer type 'si32' is not supported
func.func @f(%a: tensor<si32>) {
  return
}

// -----

// expect-error@+1: unknown type 'flot32'
func.func @f(%a: tensor<flot32>) {
  return
}

// -----

// expect-error@+1: expected '->' in function type
func.func @f() attributes {t = (f32)} {
  return
}

// -----

// expect-error@+1: undefined type alias '!nope'
func.func @f(%a: !nope) {
  return
}

// -----

// expect-error@+1: expected a type, found '5'
func.func @f(%a: 5) {
  return
}

// -----

func.func @f(%a: tensor<f32>) {
  // expect-error@+1: expected '->' after the operand types
  %0 = stablehlo.abs %a : (tensor<f32>)
  return
}

// -----

// expect-error@+1: unranked tensors are not supported
func.func @f(%a: tensor<*xf32>) {
  return
}

// -----

// expect-error@+1: tensor dimension is too large
func.func @f(%a: tensor<99999999999999999999999x2xf32>) {
  return
}

// -----

// Each extent fits, but the element count does not.
// expect-error@+1: tensor type has too many elements
func.func @f(%a: tensor<999999x9999999999999999x2xf32>) {
  return
}

// -----

// A zero extent does not make the others safe: strides still multiply them.
// expect-error@+1: tensor type has too many elements
func.func @f(%a: tensor<0x4294967296x4294967296xi8>) {
  return
}

// -----

// expect-error@+1: invalid tensor element type !stablehlo.token
func.func @f(%a: tensor<2x!stablehlo.token>) {
  return
}

// -----

// expect-error@+1: expected an integer storage type, found 'f32'
func.func @f(%a: tensor<!quant.uniform<f32:f32, 1.0>>) {
  return
}

// -----

// expect-error@+1: expected a float expressed type, found 'i32'
func.func @f(%a: tensor<!quant.uniform<i8:i32, 1.0>>) {
  return
}

// -----

// expect-error@+1: quantization scale must be positive and finite
func.func @f(%a: tensor<!quant.uniform<i8:f32, -1.0>>) {
  return
}

// -----

// expect-error@+1: zero point 300 is outside the storage range
func.func @f(%a: tensor<!quant.uniform<i8:f32, 1.0:300>>) {
  return
}

// -----

// expect-error@+1: storage range is empty
func.func @f(%a: tensor<!quant.uniform<i8<10:-10>:f32, 1.0>>) {
  return
}

// -----

// expect-error@+1: expected '>' to close the tensor type
func.func @f(%a: tensor<2xf32) {
  return
}

// -----

// expect-error@+1: unterminated '<' in dialect attribute or type
func.func @f(%a: !foo.bar<1, 2
