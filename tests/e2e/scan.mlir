// chlo.scan: inputs sliced along `dimension`, carries threaded through the body, outputs stacked
// back along the dimension; reverse scans, several inputs and carries, no carries (a map over
// slices), no inputs (outputs from the carries alone), an empty scan, the generic form, and a
// body that reads a value from outside.
func.func @running_product_along_dim1() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [0.5, -2.0, 4.0]]> : tensor<2x3xf32>
  %one = stablehlo.constant dense<1.0> : tensor<2xf32>
  %r:2 = chlo.scan(%x) inits(%one) dimension=1 {
  ^bb0(%v: tensor<2xf32>, %acc: tensor<2xf32>):
    %p = stablehlo.multiply %acc, %v : tensor<2xf32>
    stablehlo.return %p, %p : tensor<2xf32>, tensor<2xf32>
  } : (tensor<2x3xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>)
  check.expect_eq_const %r#0, dense<[[1.0, 2.0, 6.0], [0.5, -1.0, -4.0]]> : tensor<2x3xf32>
  check.expect_eq_const %r#1, dense<[6.0, -4.0]> : tensor<2xf32>
  func.return
}

// -----

// A reverse scan over the middle dimension of a rank-3 input: suffix maxima.
func.func @suffix_max_reverse() {
  %x = stablehlo.constant dense<[[[1, 7], [5, 2], [3, 9]], [[4, 0], [8, 6], [2, 1]]]> : tensor<2x3x2xi32>
  %lo = stablehlo.constant dense<-2147483648> : tensor<2x2xi32>
  %r:2 = chlo.scan (%x) inits (%lo) dimension = 1 attributes {is_reverse = true} {
  ^bb0(%v: tensor<2x2xi32>, %m: tensor<2x2xi32>):
    %n = stablehlo.maximum %v, %m : tensor<2x2xi32>
    stablehlo.return %n, %n : tensor<2x2xi32>, tensor<2x2xi32>
  } : (tensor<2x3x2xi32>, tensor<2x2xi32>) -> (tensor<2x3x2xi32>, tensor<2x2xi32>)
  check.expect_eq_const %r#0, dense<[[[5, 9], [5, 9], [3, 9]], [[8, 6], [8, 6], [2, 1]]]> : tensor<2x3x2xi32>
  check.expect_eq_const %r#1, dense<[[5, 9], [8, 6]]> : tensor<2x2xi32>
  func.return
}

// -----

// Two inputs, two carries, outputs of other element types than the inputs: a running count of
// the positions where a > b (i64) and whether a > b there (i1), with the last difference as carry.
func.func @two_inputs_two_carries_mixed_types() {
  %a = stablehlo.constant dense<[3, 1, 4, 1, 5]> : tensor<5xi32>
  %b = stablehlo.constant dense<[2, 2, 2, 2, 2]> : tensor<5xi32>
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %d0 = stablehlo.constant dense<0> : tensor<i32>
  %r:4 = chlo.scan(%a, %b) inits(%c0, %d0) dimension=0 {
  ^bb0(%x: tensor<i32>, %y: tensor<i32>, %count: tensor<i64>, %last: tensor<i32>):
    %gt = stablehlo.compare GT, %x, %y : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %inc = stablehlo.convert %gt : (tensor<i1>) -> tensor<i64>
    %next = stablehlo.add %count, %inc : tensor<i64>
    %diff = stablehlo.subtract %x, %y : tensor<i32>
    stablehlo.return %next, %gt, %next, %diff : tensor<i64>, tensor<i1>, tensor<i64>, tensor<i32>
  } : (tensor<5xi32>, tensor<5xi32>, tensor<i64>, tensor<i32>) -> (tensor<5xi64>, tensor<5xi1>, tensor<i64>, tensor<i32>)
  check.expect_eq_const %r#0, dense<[1, 1, 2, 2, 3]> : tensor<5xi64>
  check.expect_eq_const %r#1, dense<[true, false, true, false, true]> : tensor<5xi1>
  check.expect_eq_const %r#2, dense<3> : tensor<i64>
  check.expect_eq_const %r#3, dense<3> : tensor<i32>
  func.return
}

// -----

// No carries: a map over the rows; the body reads %scale from outside.
func.func @map_over_rows_with_a_captured_value() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf64>
  %scale = stablehlo.constant dense<[10.0, 100.0]> : tensor<2xf64>
  %r = chlo.scan(%x) inits() dimension=0 {
  ^bb0(%row: tensor<2xf64>):
    %s = stablehlo.multiply %row, %scale : tensor<2xf64>
    stablehlo.return %s : tensor<2xf64>
  } : (tensor<3x2xf64>) -> tensor<3x2xf64>
  check.expect_eq_const %r, dense<[[10.0, 200.0], [30.0, 400.0], [50.0, 600.0]]> : tensor<3x2xf64>
  func.return
}

// -----

// No inputs: the length comes from the output; powers of two from a doubling carry, reversed.
func.func @outputs_from_the_carry_alone_reversed() {
  %one = stablehlo.constant dense<1> : tensor<ui16>
  %r:2 = chlo.scan() inits(%one) dimension=0 attributes {is_reverse = true} {
  ^bb0(%c: tensor<ui16>):
    %d = stablehlo.add %c, %c : tensor<ui16>
    stablehlo.return %c, %d : tensor<ui16>, tensor<ui16>
  } : (tensor<ui16>) -> (tensor<4xui16>, tensor<ui16>)
  check.expect_eq_const %r#0, dense<[8, 4, 2, 1]> : tensor<4xui16>
  check.expect_eq_const %r#1, dense<16> : tensor<ui16>
  func.return
}

// -----

// An empty scan: no steps; the outputs are empty and the carry is the init.
func.func @empty_scan_keeps_the_init() {
  %x = stablehlo.constant dense<> : tensor<0x3xbf16>
  %init = stablehlo.constant dense<[1.5, -2.0, 0.25]> : tensor<3xbf16>
  %r:2 = chlo.scan(%x) inits(%init) dimension=0 {
  ^bb0(%v: tensor<3xbf16>, %c: tensor<3xbf16>):
    %s = stablehlo.add %v, %c : tensor<3xbf16>
    stablehlo.return %s, %s : tensor<3xbf16>, tensor<3xbf16>
  } : (tensor<0x3xbf16>, tensor<3xbf16>) -> (tensor<0x3xbf16>, tensor<3xbf16>)
  check.expect_eq_const %r#1, dense<[1.5, -2.0, 0.25]> : tensor<3xbf16>
  func.return
}

// -----

// The generic form, with the operand and result groups as properties.
func.func @generic_form_cumulative_sum() {
  %x = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi8>
  %z = stablehlo.constant dense<0> : tensor<i8>
  %r:2 = "chlo.scan"(%x, %z) <{dimension = 0 : i64, operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%v: tensor<i8>, %c: tensor<i8>):
    %s = stablehlo.add %v, %c : tensor<i8>
    stablehlo.return %s, %s : tensor<i8>, tensor<i8>
  }) : (tensor<4xi8>, tensor<i8>) -> (tensor<4xi8>, tensor<i8>)
  check.expect_eq_const %r#0, dense<[1, 3, 6, 10]> : tensor<4xi8>
  check.expect_eq_const %r#1, dense<10> : tensor<i8>
  func.return
}

// -----

// A scan inside a scan's body: running sums of running sums, row by row.
func.func @nested_scans() {
  %x = stablehlo.constant dense<[[1, 1, 1], [2, 0, 1]]> : tensor<2x3xi32>
  %z = stablehlo.constant dense<0> : tensor<3xi32>
  %r:2 = chlo.scan(%x) inits(%z) dimension=0 {
  ^bb0(%row: tensor<3xi32>, %acc: tensor<3xi32>):
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %cum:2 = chlo.scan(%row) inits(%zero) dimension=0 {
    ^bb0(%v: tensor<i32>, %c: tensor<i32>):
      %s = stablehlo.add %v, %c : tensor<i32>
      stablehlo.return %s, %s : tensor<i32>, tensor<i32>
    } : (tensor<3xi32>, tensor<i32>) -> (tensor<3xi32>, tensor<i32>)
    %next = stablehlo.add %acc, %cum#0 : tensor<3xi32>
    stablehlo.return %next, %next : tensor<3xi32>, tensor<3xi32>
  } : (tensor<2x3xi32>, tensor<3xi32>) -> (tensor<2x3xi32>, tensor<3xi32>)
  check.expect_eq_const %r#0, dense<[[1, 2, 3], [3, 4, 6]]> : tensor<2x3xi32>
  check.expect_eq_const %r#1, dense<[3, 4, 6]> : tensor<3xi32>
  func.return
}

// -----

// A composite "chlo.scan" that carries a body (VHLO composite_v2) runs its decomposition.
func.func @main() {
  %x = stablehlo.constant dense<[2.0, 3.0, 4.0]> : tensor<3xf32>
  %r = stablehlo.composite "chlo.scan" %x ({
  ^bb0(%v: tensor<f32>):
    stablehlo.return %v : tensor<f32>
  }) {composite_attributes = {dimension = 0 : i64}, decomposition = @scan_squares, version = 1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  check.expect_eq_const %r, dense<[4.0, 9.0, 16.0]> : tensor<3xf32>
  func.return
}

func.func private @scan_squares(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = chlo.scan(%x) inits() dimension=0 {
  ^bb0(%v: tensor<f32>):
    %s = stablehlo.multiply %v, %v : tensor<f32>
    stablehlo.return %s : tensor<f32>
  } : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// A scan over a dynamically shaped argument, refined from the caller's static type.
func.func @main() {
  %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %r = call @cumsum_rows(%x) : (tensor<2x3xf32>) -> tensor<?x?xf32>
  %s = stablehlo.reshape %r : (tensor<?x?xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %s, dense<[[1.0, 3.0, 6.0], [4.0, 9.0, 15.0]]> : tensor<2x3xf32>
  func.return
}

func.func private @cumsum_rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x?xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %zb = stablehlo.dynamic_broadcast_in_dim %z, %n1, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
  %r:2 = chlo.scan(%x) inits(%zb) dimension=1 {
  ^bb0(%v: tensor<?xf32>, %c: tensor<?xf32>):
    %s = stablehlo.add %v, %c : tensor<?xf32>
    stablehlo.return %s, %s : tensor<?xf32>, tensor<?xf32>
  } : (tensor<?x?xf32>, tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>)
  return %r#0 : tensor<?x?xf32>
}
