// Parser errors in literals and attributes.
func.func @f() {
  // expect-error@+1: expected an integer, found 'x'
  %0 = stablehlo.iota dim = x : tensor<4xi32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: integer literal is too large
  %0 = stablehlo.iota dim = 99999999999999999999 : tensor<4xi32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: integer literal is too small
  %0 = stablehlo.broadcast_in_dim %a, dims = [-9999999999999999999] : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// expect-error@+1: expected a number, found 'x'
func.func @f(%a: tensor<!quant.uniform<i8:f32, x>>) {
  return
}

// -----

// expect-error@+1: malformed escape in string
func.func @f() attributes {s = "\q"} {
  return
}

// -----

func.func @f() {
  // expect-error@+1: expected a hex string "0x..." in dense literal
  %0 = stablehlo.constant dense<"abcd"> : tensor<2xi8>
  return
}

// -----

func.func @f() {
  // expect-error@+1: malformed hex string in dense literal
  %0 = stablehlo.constant dense<"0xABC"> : tensor<2xi8>
  return
}

// -----

func.func @f() {
  // expect-error@+1: expected an element literal, found 'foo'
  %0 = stablehlo.constant dense<[1, foo]> : tensor<2xi8>
  return
}

// -----

func.func @f() {
  // expect-error@+1: dense literal is not rectangular
  %0 = stablehlo.constant dense<[[1, 2], [3]]> : tensor<2x2xi8>
  return
}

// -----

func.func @f() {
  // expect-error@+1: dense literal is not rectangular
  %0 = stablehlo.constant dense<[[1, 2], 3]> : tensor<2x2xi8>
  return
}

// -----

func.func @f() {
  // expect-error@+1: dense literal needs a tensor type, found f32
  %0 = stablehlo.constant dense<1.0> : f32
  return
}

// -----

func.func @f() {
  // expect-error@+1: dense literal needs a statically shaped tensor type
  %0 = stablehlo.constant dense<1.0> : tensor<?xf32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: hex literal has 3 bytes; tensor<2xi16> needs 4
  %0 = stablehlo.constant dense<"0x010203"> : tensor<2xi16>
  return
}

// -----

func.func @f() {
  // expect-error@+1: empty dense literal for tensor<2xf32>
  %0 = stablehlo.constant dense<> : tensor<2xf32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: dense literal of shape [3] does not match tensor<2xf32>
  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<2xf32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: boolean literal for a non-i1 element type
  %0 = stablehlo.constant dense<true> : tensor<2xi32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: integer 2 does not fit in i1
  %0 = stablehlo.constant dense<2> : tensor<2xi1>
  return
}

// -----

func.func @f() {
  // expect-error@+1: negative value for unsigned type ui8
  %0 = stablehlo.constant dense<-1> : tensor<2xui8>
  return
}

// -----

func.func @f() {
  // expect-error@+1: integer 256 does not fit in ui8
  %0 = stablehlo.constant dense<256> : tensor<2xui8>
  return
}

// -----

func.func @f() {
  // expect-error@+1: integer -129 does not fit in i8
  %0 = stablehlo.constant dense<-129> : tensor<2xi8>
  return
}

// -----

func.func @f() {
  // expect-error@+1: integer 16 does not fit in i4
  %0 = stablehlo.constant dense<16> : tensor<2xi4>
  return
}

// -----

func.func @f() {
  // expect-error@+1: expected an integer literal for i32, found '1.5'
  %0 = stablehlo.constant dense<1.5> : tensor<2xi32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: hex literal 0x10000 is wider than f16
  %0 = stablehlo.constant dense<0x10000> : tensor<2xf16>
  return
}

// -----

func.func @f() {
  // expect-error@+1: malformed hex float literal
  %0 = stablehlo.constant dense<-0x3C00> : tensor<2xf16>
  return
}

// -----

func.func @f() {
  // expect-error@+1: expected a float literal, found 'true'
  %0 = stablehlo.constant dense<true> : tensor<2xf32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: complex element needs a (real, imaginary) pair
  %0 = stablehlo.constant dense<1.0> : tensor<2xcomplex<f32>>
  return
}

// -----

func.func @f() {
  // expect-error@+1: complex literal for non-complex type tensor<2xf32>
  %0 = stablehlo.constant dense<(1.0, 2.0)> : tensor<2xf32>
  return
}

// -----

// expect-error@+1: numeric attribute needs a scalar type
func.func @f() attributes {x = 1 : tensor<f32>} {
  return
}

// -----

// expect-error@+1: float literal with integer type i32
func.func @f() attributes {x = 1.5 : i32} {
  return
}

// -----

// expect-error@+1: expected an attribute name, found '5'
func.func @f() attributes {5 = 1} {
  return
}

// -----

// expect-error@+1: duplicate attribute 'a'
func.func @f() attributes {a = 1, a = 2} {
  return
}

// -----

// expect-error@+1: expected a number after '-', found 'x'
func.func @f() attributes {a = -x} {
  return
}

// -----

func.func @f() {
  // expect-error@+1: dense literal needs ': type'
  %0 = "stablehlo.constant"() {value = dense<1.0>} : () -> tensor<f32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: expected a resource name
  %0 = stablehlo.constant dense_resource<5> : tensor<f32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: unknown dense resource 'nope'
  %0 = stablehlo.constant dense_resource<nope> : tensor<f32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: dense resource blob is too short
  %0 = stablehlo.constant dense_resource<short> : tensor<f32>
  return
}
{-#
  dialect_resources: { builtin: { short: "0x0400" } }
#-}

// -----

// expect-error@+1: unsupported dense array element type 'tensor'
func.func @f() attributes {a = array<tensor: 1>} {
  return
}

// -----

// expect-error@+1: expected an attribute, found ')'
func.func @f() attributes {a = )} {
  return
}

// -----

// expect-error@+1: undefined attribute alias #nope
func.func @f() attributes {a = #nope} {
  return
}

// -----

// expect-error@+1: expected an enum value
func.func @f() attributes {a = #stablehlo<precision 1>} {
  return
}

// -----

// expect-error@+1: bad spatial dimension index
func.func @f() attributes {a = #stablehlo.conv<[b, 99999, f]x[0, i, o]->[b, 0, f]>} {
  return
}

// -----

// expect-error@+1: duplicate 'b'
func.func @f() attributes {a = #stablehlo.conv<[b, b, f]x[0, i, o]->[b, 0, f]>} {
  return
}

// -----

// expect-error@+1: duplicate 'f'
func.func @f() attributes {a = #stablehlo.conv<[b, f, f]x[0, i, o]->[b, 0, f]>} {
  return
}

// -----

// expect-error@+1: unexpected 'q' in convolution dimension numbers
func.func @f() attributes {a = #stablehlo.conv<[b, q, f]x[0, i, o]->[b, 0, f]>} {
  return
}

// -----

// expect-error@+1: convolution dimension numbers need 'i' and 'o'
func.func @f() attributes {a = #stablehlo.conv<[b, 0, f]x[0, i]->[b, 0, f]>} {
  return
}

// -----

// expect-error@+1: spatial dimension indices must be 0..N-1, each once
func.func @f() attributes {a = #stablehlo.conv<[b, 1, f]x[0, i, o]->[b, 0, f]>} {
  return
}

// -----

// expect-error@+1: expected 'x' between input and kernel
func.func @f() attributes {a = #stablehlo.conv<[b, 0, f]y[0, i, o]->[b, 0, f]>} {
  return
}

// -----

// expect-error@+1: expected '>' to close #stablehlo.gather
func.func @f() attributes {a = #stablehlo.gather<offset_dims = [1] index_vector_dim = 1>} {
  return
}

// -----

func.func @f() {
  return
}
// expect-error@+1: unterminated file metadata block
{-# dialect_resources: { builtin: { x: "0x04000000" } }

// -----

func.func @f() {
  return
}
// expect-error@+1: malformed resource blob
{-# dialect_resources: { builtin: { x: "zz" } } #-}

// -----

// Brackets in a dialect body nest as MLIR's scanner requires; '{-#' counts as a brace.
// expect-error@+1: unbalanced '>' in dialect attribute or type (open '{')
func.func @f(%a: tensor<8xf32> {sdy.sharding = #sdy.sharding<@me{-#sh, [{"x"}]>}) {
  return
}

// -----

// expect-error@+1: unbalanced ')' in dialect attribute or type (open '[')
func.func @f(%a: tensor<8xf32> {test.a = #test.body<[)>}) {
  return
}
