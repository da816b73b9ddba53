// interpreter.probe records its operand (once per execution) and passes it on;
// check.expect_serialized_eq compares a value bit for bit with recording `iter` (default 0).

func.func @probe_types() {
  %0 = stablehlo.constant dense<[[0], [0], [1]]> : tensor<3x1xi1>
  %1 = stablehlo.constant dense<[[1], [1], [1]]> : tensor<3x1xi1>
  %2 = stablehlo.add %0, %1 : tensor<3x1xi1>
  %3 = interpreter.probe %2, probe_id = "i1" : tensor<3x1xi1>
  check.expect_serialized_eq %3, probe_id = "i1" : tensor<3x1xi1>
  check.expect_eq_const %3, dense<true> : tensor<3x1xi1>
  %4 = stablehlo.constant dense<[[32766, 0], [0, 0]]> : tensor<2x2xui64>
  %5 = stablehlo.add %4, %4 : tensor<2x2xui64>
  %6 = interpreter.probe %5, probe_id = "probe/0" : tensor<2x2xui64>
  check.expect_serialized_eq %6, probe_id = "probe/0" : tensor<2x2xui64>
  %7 = stablehlo.constant dense<[(1.0, 2.0), (3.0, -0.0)]> : tensor<2xcomplex<f32>>
  %8 = interpreter.probe %7, probe_id = "c64" : tensor<2xcomplex<f32>>
  check.expect_serialized_eq %7, probe_id = "c64" : tensor<2xcomplex<f32>>
  %9 = stablehlo.constant dense<[1.0, 0x7FC1]> : tensor<2xbf16>
  %10 = interpreter.probe %9, probe_id = "nan" : tensor<2xbf16>
  check.expect_serialized_eq %10, probe_id = "nan" : tensor<2xbf16>
  func.return
}

// -----

// A probe inside a loop body records every iteration; its result feeds nothing.
func.func @probe_iterations() {
  %init_i = stablehlo.constant dense<0> : tensor<i64>
  %init_sum = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %r:2 = stablehlo.while(%i = %init_i, %sum = %init_sum) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s = stablehlo.add %sum, %i : tensor<i64>
    %unused = interpreter.probe %s, probe_id = "sums" : tensor<i64>
    %n = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %n, %s : tensor<i64>, tensor<i64>
  }
  %zero = stablehlo.constant dense<0> : tensor<i64>
  check.expect_serialized_eq %zero, probe_id = "sums", iter = 0 : tensor<i64>
  check.expect_serialized_eq %one, probe_id = "sums", iter = 1 : tensor<i64>
  check.expect_serialized_eq %three, probe_id = "sums", iter = 2 : tensor<i64>
  check.expect_eq_const %r#1, dense<3> : tensor<i64>
  func.return
}
