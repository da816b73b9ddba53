// Parser errors in ops, values, regions and the module structure.
func.func @f(%a: tensor<f32>) {
  // expect-error@+1: malformed result index
  %0 = stablehlo.abs %a#1x : tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<f32>) {
  // expect-error@+1: result index is too large
  %0 = stablehlo.abs %a#99999999999 : tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<f32>) {
  // expect-error@+1: result index 1 is out of range for '%a' with 1 results
  %0 = stablehlo.abs %a#1 : tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  %0:2 = stablehlo.optimization_barrier %a, %b : tensor<2xf32>, tensor<2xi32>
  // expect-error@+1: '%0' has 2 results; use '%0#N'
  %1 = stablehlo.abs %0 : tensor<2xf32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: use of undefined value '%nope'
  %0 = stablehlo.abs %nope : tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<f32>) {
  // expect-error@+1: '%a' has type tensor<f32> but is used as tensor<i32>
  %0 = "stablehlo.abs"(%a) : (tensor<i32>) -> tensor<i32>
  return
}

// -----

func.func @f(%a: tensor<f32>) {
  %0 = stablehlo.abs %a : tensor<f32>
  // expect-error@+1: redefinition of '%0'
  %0 = stablehlo.abs %a : tensor<f32>
  return
}

// -----

// expect-error@+1: redefinition of '%a'
func.func @f(%a: tensor<f32>, %a: tensor<f32>) {
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: expected a tensor type, found f32
  %0 = stablehlo.is_finite %a : f32
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: expected one type or a function type for 'stablehlo.add'
  %0 = stablehlo.add %a, %a : tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: 'stablehlo.real' short form needs a complex tensor type
  %0 = stablehlo.real %a : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: 'stablehlo.complex' short form needs a complex tensor type
  %0 = stablehlo.complex %a, %a : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: expected one type
  %0 = stablehlo.is_finite %a : tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @f(%p: tensor<i1>, %a: tensor<2xf32>) {
  // expect-error@+1: expected 'pred_type, type' or a function type for 'stablehlo.select'
  %0 = stablehlo.select %p, %a, %a : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: expected one tuple type
  %0 = stablehlo.tuple %a : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: 'stablehlo.negate' has 1 operands but its type signature lists 2
  %0 = stablehlo.negate %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: operand #0 of 'stablehlo.negate' has type tensor<2xf32> but the signature says tensor<3xf32>
  %0 = stablehlo.negate %a : tensor<3xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: bad result count
  %0:0 = stablehlo.negate %a : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: expected an operation, found '5'
  %0 = 5
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: 'stablehlo.negate' has 1 results but 2 names were given
  %0, %1 = stablehlo.negate %a : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: malformed op name
  %0 = "stablehlo.ne\qgate"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: op name 'negate' needs a dialect prefix
  %0 = "negate"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: block successors are not supported
  "cf.br"() [^bb1] : () -> ()
^bb1:
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: expected '<{' for properties
  %0 = "stablehlo.negate"(%a) <x> : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: duplicate attribute 'x'
  %0 = "stablehlo.negate"(%a) <{x = 1}> {x = 2} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: generic op needs a function type, found tensor<2xf32>
  %0 = "stablehlo.negate"(%a) : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: 'stablehlo.negate' has 1 operands but its type lists 0
  %0 = "stablehlo.negate"(%a) : () -> tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>) {
  // expect-error@+1: unknown operation 'stablehlo.frobnicate'
  %0 = stablehlo.frobnicate %a : tensor<2xf32>
  return
}

// -----

func.func @f(%a: tensor<2xf32>, %i: tensor<2x1xi32>) {
  // expect-error@+1: 'stablehlo.gather' has no pretty form
  %0 = stablehlo.gather %a, %i : (tensor<2xf32>, tensor<2x1xi32>) -> tensor<2xf32>
  return
}

// -----

module {
}
// expect-error@+1: unexpected operation after the module
func.func @g() {
  return
}

// -----

func.func @g() {
  return
}
// expect-error@+1: only one top-level module is supported per input
module {
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: expected 'dims' in 'stablehlo.broadcast_in_dim', found 'dimz'
  %0 = stablehlo.broadcast_in_dim %a, dimz = [0] : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: expected an operand in 'stablehlo.negate', found 'dims'
  %0 = stablehlo.negate %a, dims = [0] : tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: duplicate 'dims'
  %0 = stablehlo.reverse %a, dims = [0], dims = [0] : tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x4xf32>) {
  // expect-error@+1: expected 'true' or 'false'
  %0 = stablehlo.cholesky %a, lower = yes : tensor<4x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: expected a format such as e5m10, found 'e5x10'
  %0 = stablehlo.reduce_precision %a, format = e5x10 : tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: expected a comparison direction
  %0 = stablehlo.compare %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @f() {
  // expect-error@+1: expected '() -> type'
  %0 = stablehlo.constant() <{value = dense<1.0> : tensor<f32>}> : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f() {
  // expect-error@+1: 'stablehlo.constant' needs a dense elements value
  %0 = stablehlo.constant 1.0 : f32
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: expected ':' in slice range
  %0 = stablehlo.slice %a [1] : (tensor<4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: expected 'x' between the dimension lists
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [0] y [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expect-error@+1: unexpected 'batch_dims' in 'stablehlo.dot_general'
  %0 = stablehlo.dot_general %a, %a, batch_dims = [0] x [0] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expect-error@+1: each padding entry needs [low, high]
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1], [1, 1]]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32>
  return
}

// -----

func.func @f(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expect-error@+1: unknown window field 'strides'
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {strides = [1, 1]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: 'stablehlo.negate' cannot be applied by reduce
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.negate across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @f(%x: tensor<4xf32>, %z: tensor<f32>) {
  // expect-error@+1: 'applies' needs exactly one input
  %0:2 = stablehlo.reduce(%x init: %z), (%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return
}

// -----

func.func @f(%x: tensor<i32>) {
  // expect-error@+1: 'stablehlo.while' has 1 operands but 2 types
  %0 = stablehlo.while(%it = %x) : tensor<i32>, tensor<i32>
    cond {
      %c = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      stablehlo.return %it : tensor<i32>
    }
  return
}

// -----

func.func @f(%x: tensor<i32>) {
  // expect-error@+1: loop variable type tensor<i64> does not match its initial value's type tensor<i32>
  %0 = stablehlo.while(%it = %x) : tensor<i64>
    cond {
      %c = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      stablehlo.return %it : tensor<i64>
    }
  return
}

// -----

// expect-error@+1: either every argument is named or none is
func.func private @f(%a: tensor<f32>, tensor<f32>)

// -----

// expect-error@+1: a function with a body needs named arguments
func.func @f(tensor<f32>) {
  return
}

// -----

func.func @f(%a: tensor<f32>) {
  // expect-error@+1: expected '@target'
  %0 = stablehlo.custom_call target(%a) : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// A stray character the lexer cannot read.
func.func @f(%a: tensor<f32>) {
  // expect-error@+1: expected an operation, found '$'
  $
  return
}

// -----

func.func @f(%a: tensor<f32>) {
  // expect-error@+1: unterminated location
  %0 = stablehlo.abs %a : tensor<f32> loc("x"

// -----

func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expect-error@+1: unknown propagation direction 'SIDEWAYS' (expected FORWARD, BACKWARD or NONE)
  %0 = sdy.propagation_barrier %a allowed_direction=SIDEWAYS : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expect-error@+1: expected 'manual_axes'
  %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{}]>] out_shardings=[<@m, [{}]>] (%arg1: tensor<8xf32>) {
    sdy.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expect-error@+1: unbalanced ')' in dialect attribute or type (open '[')
  %0 = sdy.named_computation<"g">(%a) in_shardings=[<@m, [{}]>) (%arg1: tensor<8xf32>) {
    sdy.return %arg1 : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.named_computation<"g">(%a) (%arg1: tensor<8xf32>) {
    // expect-error@+1: use of undefined value '%a'
    sdy.return %a : tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @f(%a: tensor<8xf32>) {
  // expect-error@+1: expected 'group_id'
  sdy.sharding_group %a : tensor<8xf32>
  return
}

// -----

// A return without operands followed by an op without a result name on the same line: printed
// back, the op's result would read as the return's operand.
func.func @f(%x: tensor<f32>) -> tensor<i32> {
  // expect-error@+1: 'func.return' must be the last op of its block, found 'stablehlo.abs'
  return  stablehlo.abs %x : tensor<f32>
}

// -----

func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = sdy.named_computation<"g">(%a) (%arg1: tensor<8xf32>) {
    sdy.return
    // expect-error@+1: 'sdy.return' must be the last op of its block, found '"stablehlo.abs"'
    "stablehlo.abs"(%arg1) : (tensor<8xf32>) -> tensor<8xf32>
  } : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The same at the top level of an implicit module (found by the parse fuzzer).
return
// expect-error@+1: 'func.return' must be the last op of its block, found 'func.func'
func.func @main() {
  return
}

// -----

func.func @f(%a: tensor<3xf32>, %c: tensor<f32>) {
  // expect-error@+1: expected 'dimension'
  %0:2 = chlo.scan(%a) inits(%c) {
  ^bb0(%x: tensor<f32>, %z: tensor<f32>):
    stablehlo.return %x, %z : tensor<f32>, tensor<f32>
  } : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
  return
}

// -----

func.func @f(%a: tensor<3xf32>, %c: tensor<f32>) {
  // expect-error@+1: expected '{' and the scan's body
  %0:2 = chlo.scan(%a) inits(%c) dimension=0 : (tensor<3xf32>, tensor<f32>) -> (tensor<3xf32>, tensor<f32>)
  return
}
