// A dialect attribute's body is kept as text, and the characters that open and close a file
// metadata block may appear in it, balanced like braces. They belong to the body: this file has no
// metadata block, and the printed module must read back the same.
module attributes {test.note = #test.body<{-# x, [{"y"}] #-}>} {
  func.func @main(%arg0: tensor<2xi32> {test.arg = #test.body<a{-#b}>}) -> tensor<2xi32> {
    return %arg0 : tensor<2xi32>
  }
}
