// Every chunk here must FAIL in `openpjrt run`, with the text after expect-fail in its line.
// expect-fail: result #0 must have the operand's type
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<4xf32>
  %c = "sdy.sharding_constraint"(%x) {sharding = #sdy.sharding<@mesh, [{}]>} : (tensor<4xf32>) -> tensor<4xf64>
  func.return
}
