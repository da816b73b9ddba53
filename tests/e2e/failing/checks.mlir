// Every chunk here must FAIL in `openpjrt run`, with the text after expect-fail in its line.
// expect-fail: check.expect_eq_const failed: 1 of 2 elements differ; first at [1]: actual 2.0, expected 3.0
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %0, dense<[1.0, 3.0]> : tensor<2xf32>
  func.return
}

// -----

// expect-fail: check.expect_eq_const failed: 1 of 1 elements differ
func.func @main() {
  %0 = stablehlo.constant dense<0x7FC00000> : tensor<1xf32>
  check.expect_eq_const %0, dense<0x7FC00000> : tensor<1xf32>
  func.return
}

// -----

// expect-fail: check.expect_almost_eq_const failed
func.func @main() {
  %0 = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  check.expect_almost_eq_const %0, dense<[1.001]> : tensor<1xf32>
  func.return
}

// -----

// expect-fail: check.expect_almost_eq_const failed
func.func @main() {
  %0 = stablehlo.constant dense<[0x7F800000]> : tensor<1xf32>
  check.expect_almost_eq_const %0, dense<[3.0e38]> : tensor<1xf32>
  func.return
}

// -----

// expect-fail: check.expect_close failed
func.func @main() {
  %0 = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  %1 = stablehlo.constant dense<[1.0000002]> : tensor<1xf32>
  check.expect_close %0, %1, max_ulp_difference = 1 : tensor<1xf32>, tensor<1xf32>
  func.return
}

// -----

// expect-fail: check.expect_close failed
func.func @main() {
  %0 = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  check.expect_close %0, %0, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<1xf32>, tensor<1xf32>
  func.return
}

// -----

// expect-fail: stablehlo.custom_call failed
func.func @main() {
  %0 = stablehlo.constant dense<[5, 6]> : tensor<2xi32>
  %1 = stablehlo.constant dense<[5, 7]> : tensor<2xi32>
  stablehlo.custom_call @check.expect_eq(%0, %1) : (tensor<2xi32>, tensor<2xi32>) -> ()
  func.return
}

// -----

// expect-fail: custom_call target 'my.kernel' is not supported by the CPU plugin (No FFI handler registered for 'my.kernel'
func.func @main() {
  %0 = stablehlo.custom_call @my.kernel() : () -> tensor<f32>
  func.return
}

// -----

// expect-fail: argument #0 has the dynamic type tensor<?xf32>
func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

// -----

// expect-fail: @main takes 1 arguments; 'run' calls it with none (give them with --args or --input)
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}

// -----

// expect-fail: no entry function
func.func @a() {
  return
}
func.func @b() {
  return
}

// -----

// expect-fail: use of undefined value '%nope'
func.func @main() {
  check.expect_eq %nope, %nope : tensor<f32>
  func.return
}

// -----

// expect-fail: infeed and outfeed are not supported by the CPU plugin
func.func @main() {
  %t = stablehlo.create_token : !stablehlo.token
  %0:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
  func.return
}

// -----

// expect-fail: stablehlo.recv to/from the host on channel 7 needs a recv callback for that channel
func.func @main() {
  %t = stablehlo.create_token : !stablehlo.token
  %0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
  func.return
}

// -----

// expect-fail: device-to-device send/recv (is_host_transfer = false) is not supported
func.func @main() {
  %t = stablehlo.create_token : !stablehlo.token
  %0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>, is_host_transfer = false} : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
  func.return
}

// -----

// expect-fail: device 1: 
module @one_device_fails attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main() {
    %id = stablehlo.replica_id : tensor<ui32>
    %want = stablehlo.constant dense<0> : tensor<ui32>
    check.expect_eq %id, %want : tensor<ui32>
    func.return
  }
}

// -----

// expect-fail: the groups name replica 3 partition 0 but the execution has 2 replicas x 1 partitions
module @groups_out_of_range attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main() {
    %x = stablehlo.constant dense<1.0> : tensor<f32>
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %r = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) {replica_groups = dense<[[0, 3]]> : tensor<1x2xi64>} : (tensor<f32>) -> tensor<f32>
    func.return
  }
}

// -----

// expect-fail: all_gather result does not hold the group's operands
module @all_gather_wrong_shape attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main() {
    %x = stablehlo.constant dense<1.0> : tensor<2xf32>
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<6xf32>
    func.return
  }
}

// -----

// expect-fail: check.expect_serialized_eq failed: differs from recording 0 of "p" first at [1]: actual 3.0, recorded 2.0
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = interpreter.probe %0, probe_id = "p" : tensor<2xf32>
  %2 = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
  check.expect_serialized_eq %2, probe_id = "p" : tensor<2xf32>
  func.return
}

// -----

// expect-fail: check.expect_serialized_eq failed: probe_id "p" was recorded 1 times; iteration 1 asked
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = interpreter.probe %0, probe_id = "p" : tensor<2xf32>
  check.expect_serialized_eq %1, probe_id = "p", iter = 1 : tensor<2xf32>
  func.return
}

// -----

// expect-fail: check.expect_serialized_eq failed: no interpreter.probe recorded probe_id "q"
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_serialized_eq %0, probe_id = "q" : tensor<2xf32>
  func.return
}
