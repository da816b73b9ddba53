// The characters that open a file metadata block are plain text inside a string: this file has
// no metadata block, and parsing must not look for one.
module attributes {test.note = "see {-# here"} {
  func.func @main() -> tensor<2xi32> {
    %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    return %0 : tensor<2xi32>
  }
}
