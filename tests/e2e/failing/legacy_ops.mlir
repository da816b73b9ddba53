// Every chunk here must FAIL in `openpjrt run`, with the text after expect-fail in its line.
// expect-fail: einsum_config "ab,bc" is not of the form "lhs,rhs->out"
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %z = "stablehlo.einsum"(%x, %x) {einsum_config = "ab,bc"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}

// -----

// expect-fail: einsum_config "...b,bc->c": the operands' '...' stand for dimensions but the output term has no '...'
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %z = "stablehlo.einsum"(%x, %x) {einsum_config = "...b,bc->c"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
  func.return
}

// -----

// expect-fail: einsum_config "...,...->...": the '...' dimensions of sizes 3 and 4 do not broadcast
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x3xf32>
  %y = stablehlo.constant dense<1.0> : tensor<4xf32>
  %z = "stablehlo.einsum"(%x, %y) {einsum_config = "...,...->..."} : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// expect-fail: einsum_config "abc...,c->...": term "abc..." has more labels than operand #0 of type tensor<2x2xf32> has dimensions
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %y = stablehlo.constant dense<1.0> : tensor<2xf32>
  %z = "stablehlo.einsum"(%x, %y) {einsum_config = "abc...,c->..."} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<f32>
  func.return
}

// -----

// expect-fail: einsum_config "a...b...,b->a": term "a...b..." may hold letters and one '...' only
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %y = stablehlo.constant dense<1.0> : tensor<2xf32>
  %z = "stablehlo.einsum"(%x, %y) {einsum_config = "a...b...,b->a"} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return
}

// -----

// expect-fail: label 'a' has two sizes in operand #0 of type tensor<2x3xf32>
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x3xf32>
  %z = "stablehlo.unary_einsum"(%x) {einsum_config = "aa->a"} : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return
}

// -----

// expect-fail: einsum_config "abc,bc->a" has 3 labels for operand #0 of type tensor<2x2xf32>
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %z = "stablehlo.einsum"(%x, %x) {einsum_config = "abc,bc->a"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
  func.return
}

// -----

// expect-fail: label 'b' has two sizes
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x3xf32>
  %z = "stablehlo.einsum"(%x, %x) {einsum_config = "ab,bc->ac"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

// expect-fail: einsum_config "ab,bc->ac" makes tensor<2x2xf32>; the result is tensor<3x3xf32>
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %z = "stablehlo.einsum"(%x, %x) {einsum_config = "ab,bc->ac"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<3x3xf32>
  func.return
}

// -----

// expect-fail: dim 5 and batch_dims 0 do not fit operand tensor<3x2xi32> and index tensor<2xi32>
func.func @main() {
  %x = stablehlo.constant dense<1> : tensor<3x2xi32>
  %i = stablehlo.constant dense<0> : tensor<2xi32>
  %r = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 5 : i64} : (tensor<3x2xi32>, tensor<2xi32>) -> tensor<3x2xi32>
  func.return
}

// -----

// expect-fail: result must be tensor<2x2xi32>, got tensor<3x2xi32>
func.func @main() {
  %x = stablehlo.constant dense<1> : tensor<3x2xi32>
  %i = stablehlo.constant dense<0> : tensor<2xi32>
  %r = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<3x2xi32>, tensor<2xi32>) -> tensor<3x2xi32>
  func.return
}

// -----

// expect-fail: einsum_config "a1,bc->ac": labels must be letters
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %z = "stablehlo.einsum"(%x, %x) {einsum_config = "a1,bc->ac"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}

// -----

// expect-fail: output label 'd' is repeated or in no operand
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %z = "stablehlo.einsum"(%x, %x) {einsum_config = "ab,bc->ad"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}

// -----

// expect-fail: index must be an integer tensor, got tensor<2xf32>
func.func @main() {
  %x = stablehlo.constant dense<1> : tensor<3x2xi32>
  %i = stablehlo.constant dense<0.0> : tensor<2xf32>
  %r = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<3x2xi32>, tensor<2xf32>) -> tensor<2x2xi32>
  func.return
}

// -----

// expect-fail: batch dimension 0 differs between operand and index
func.func @main() {
  %x = stablehlo.constant dense<1> : tensor<3x2xi32>
  %i = stablehlo.constant dense<0> : tensor<4x1xi32>
  %r = "stablehlo.torch_index_select"(%x, %i) {batch_dims = 1 : i64, dim = 1 : i64} : (tensor<3x2xi32>, tensor<4x1xi32>) -> tensor<3x1xi32>
  func.return
}

// -----

// expect-fail: einsum_config "aé->a": labels must be letters
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %z = "stablehlo.unary_einsum"(%x) {einsum_config = "aé->a"} : (tensor<2x2xf32>) -> tensor<2xf32>
  func.return
}

// -----

// expect-fail: einsum_config "...b,bc": '...' needs an explicit output term
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %z = "stablehlo.einsum"(%x, %x) {einsum_config = "...b,bc"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}
