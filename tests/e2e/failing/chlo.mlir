// CHLO ops the verifier must refuse.
// expect-fail: 'chlo.mulhi' op result must have integer elements
func.func @main() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = "chlo.mulhi"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return
}
