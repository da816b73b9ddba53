// Every chunk here must FAIL in `openpjrt run`, with the text after expect-fail in its line.
// expect-fail: result #0 must have the operand's type
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<4xf32>
  %c = "sdy.sharding_constraint"(%x) {sharding = #sdy.sharding<@mesh, [{}]>} : (tensor<4xf32>) -> tensor<4xf64>
  func.return
}

// -----

// A shard smaller than the value needs the SPMD partitioner.
// expect-fail: splits operand #0 tensor<16x32xf32> into per-device shards tensor<8x32xf32> over the manual axes #sdy<manual_axes{"a"}>: SPMD partitioning is not supported
module attributes {mhlo.num_partitions = 1 : i32} {
  sdy.mesh @meshA = <["a"=2, "b"=2]>
  func.func @main() {
    %x = stablehlo.constant dense<1.0> : tensor<16x32xf32>
    %0 = sdy.manual_computation(%x) in_shardings=[<@meshA, [{"a", ?}, {?}]>] out_shardings=[<@meshA, [{"a", ?}, {?}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) {
      %1 = stablehlo.add %arg1, %arg1 : tensor<8x32xf32>
      sdy.return %1 : tensor<8x32xf32>
    } : (tensor<16x32xf32>) -> tensor<16x32xf32>
    func.return
  }
}

// -----

// expect-fail: splits result #0 tensor<32x32xf32> into per-device shards tensor<16x32xf32>
module attributes {mhlo.num_partitions = 1 : i32} {
  sdy.mesh @meshA = <["a"=2, "b"=2]>
  func.func @main() {
    %x = stablehlo.constant dense<1.0> : tensor<16x32xf32>
    %0 = sdy.manual_computation(%x) in_shardings=[<@meshA, [{?}, {?}], replicated={"a"}>] out_shardings=[<@meshA, [{"a", ?}, {?}]>] manual_axes={"a"} (%arg1: tensor<16x32xf32>) {
      sdy.return %arg1 : tensor<16x32xf32>
    } : (tensor<16x32xf32>) -> tensor<32x32xf32>
    func.return
  }
}

// -----

// expect-fail: operand #0 has type tensor<16x32xf32> but the body's is tensor<16xf32>: a shard must keep the rank and element type
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<16x32xf32>
  %0 = sdy.manual_computation(%x) in_shardings=[<@m, [{}, {}]>] out_shardings=[<@m, [{}]>] manual_axes={} (%arg1: tensor<16xf32>) {
    sdy.return %arg1 : tensor<16xf32>
  } : (tensor<16x32xf32>) -> tensor<16xf32>
  func.return
}

// -----

// expect-fail: body region argument #0 must be tensor<4xf32>, is tensor<4xi32>
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<4xf32>
  %0 = sdy.named_computation<"f">(%x) (%arg1: tensor<4xi32>) {
    sdy.return %arg1 : tensor<4xi32>
  } : (tensor<4xf32>) -> tensor<4xi32>
  func.return
}

// -----

// expect-fail: body region must end with 'sdy.return'
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<4xf32>
  %0 = "sdy.named_computation"(%x) ({
  ^bb0(%arg1: tensor<4xf32>):
    "stablehlo.return"(%arg1) : (tensor<4xf32>) -> ()
  }) {name = "f"} : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

// expect-fail: must end the body of an sdy.manual_computation or sdy.named_computation
func.func @main() -> tensor<4xf32> {
  %x = stablehlo.constant dense<1.0> : tensor<4xf32>
  "sdy.return"(%x) : (tensor<4xf32>) -> ()
}
