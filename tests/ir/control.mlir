// Regions: reduce, while, if, case, map, reduce_window, select_and_scatter, calls.
func.func @reduces(%x: tensor<4x8xf32>, %y: tensor<4x8xi32>, %z: tensor<f32>, %w: tensor<i32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1:2 = stablehlo.reduce(%x init: %z), (%y init: %w) across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<4x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>)  {
    %m = stablehlo.maximum %a, %b : tensor<f32>
    %n = stablehlo.add %c, %d : tensor<i32>
    stablehlo.return %m, %n : tensor<f32>, tensor<i32>
  }
  %2 = "stablehlo.reduce"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = func.call @max(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%r) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, padding = dense<0> : tensor<2x2xi64>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<2x4xf32>
  %4 = "stablehlo.select_and_scatter"(%x, %3, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x8xf32>, tensor<2x4xf32>, tensor<f32>) -> tensor<4x8xf32>
  %5 = "stablehlo.map"(%x, %x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4xf32>
}

func.func private @max(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.maximum %a, %b : tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @loops(%n: tensor<i64>) -> tensor<i64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %0:2 = stablehlo.while(%iterArg = %c0, %iterArg_1 = %c1) : tensor<i64>, tensor<i64>
   cond {
    %lt = stablehlo.compare  LT, %iterArg, %n,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %next = stablehlo.add %iterArg, %c1 : tensor<i64>
    %prod = stablehlo.multiply %iterArg_1, %next : tensor<i64>
    stablehlo.return %next, %prod : tensor<i64>, tensor<i64>
  }
  %1 = "stablehlo.while"(%c0) ({
  ^bb0(%i: tensor<i64>):
    %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%lt) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i64>):
    %next = stablehlo.add %i, %c1 : tensor<i64>
    "stablehlo.return"(%next) : (tensor<i64>) -> ()
  }) : (tensor<i64>) -> tensor<i64>
  return %0#1 : tensor<i64>
}

// -----

func.func @branches(%p: tensor<i1>, %k: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<2xf32>
  }, {
    %n = stablehlo.negate %x : tensor<2xf32>
    stablehlo.return %n : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  %1:2 = "stablehlo.case"(%k) ({
    stablehlo.return %0, %p : tensor<2xf32>, tensor<i1>
  }, {
    stablehlo.return %x, %p : tensor<2xf32>, tensor<i1>
  }, {
    %a = stablehlo.abs %x : tensor<2xf32>
    stablehlo.return %a, %p : tensor<2xf32>, tensor<i1>
  }) : (tensor<i32>) -> (tensor<2xf32>, tensor<i1>)
  return %1#0 : tensor<2xf32>
}

// -----

func.func @calls(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = call @id(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = func.call @id(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = stablehlo.custom_call @my_target(%0, %1) {backend_config = "cfg", has_side_effect = true, api_version = 2 : i32} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = stablehlo.custom_call @"quoted.target"() : () -> tensor<f32>
  %4 = stablehlo.composite "my.op" %x {composite_attributes = {k = 1 : i64}, decomposition = @id, version = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  %5:2 = stablehlo.optimization_barrier %x, %0 : tensor<2xf32>, tensor<2xf32>
  %t = stablehlo.tuple %x, %3 : tuple<tensor<2xf32>, tensor<f32>>
  %6 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>, tensor<f32>>) -> tensor<2xf32>
  %7 = "stablehlo.custom_call"(%x) {call_target_name = "foo", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<2xf32>) -> tensor<2xf32>
  "stablehlo.return"(%6, %4) : (tensor<2xf32>, tensor<2xf32>) -> ()
}

func.func @id(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// chlo.scan in both forms, with is_reverse and no inits; a composite carrying a body (composite_v2).
func.func @scans(%x: tensor<4x2xf32>, %c: tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<4x2xf32>) {
  %0:2 = chlo.scan (%x) inits (%c) dimension = 0 attributes {is_reverse = true} {
  ^bb0(%v: tensor<2xf32>, %acc: tensor<2xf32>):
    %s = stablehlo.add %v, %acc : tensor<2xf32>
    stablehlo.return %s, %s : tensor<2xf32>, tensor<2xf32>
  } : (tensor<4x2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>)
  %1 = "chlo.scan"(%x) <{dimension = 0 : i64, operandSegmentSizes = array<i32: 1, 0>, resultSegmentSizes = array<i32: 1, 0>}> ({
  ^bb0(%v: tensor<2xf32>):
    %n = stablehlo.negate %v : tensor<2xf32>
    stablehlo.return %n : tensor<2xf32>
  }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %2 = stablehlo.composite "chlo.scan" %1 ({
  ^bb0(%v: tensor<2xf32>):
    stablehlo.return %v : tensor<2xf32>
  }) {composite_attributes = {dimension = 0 : i64}, decomposition = @scan_impl, version = 1 : i32} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0#0, %0#1, %2 : tensor<4x2xf32>, tensor<2xf32>, tensor<4x2xf32>
}

func.func private @scan_impl(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  return %x : tensor<4x2xf32>
}
