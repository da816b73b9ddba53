// Collectives across the devices of one execution. The module attributes give the device count;
// every device checks its own share.
module @all_reduce_sum attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main() {
    %id = stablehlo.replica_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %x = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %r = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    check.expect_eq_const %s, dense<6.0> : tensor<2xf32>
    // Two groups, and a reducer that is a real region (max via compare and select).
    %m = "stablehlo.all_reduce"(%f) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %r = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : (tensor<f32>) -> tensor<f32>
    %expected_even = stablehlo.constant dense<2.0> : tensor<f32>
    %expected_odd = stablehlo.constant dense<3.0> : tensor<f32>
    %one = stablehlo.constant dense<1> : tensor<ui32>
    %parity = stablehlo.and %id, %one : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %is_even = stablehlo.compare EQ, %parity, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %want = stablehlo.select %is_even, %expected_even, %expected_odd : tensor<i1>, tensor<f32>
    check.expect_eq %m, %want : tensor<f32>
    func.return
  }
}

// -----

module @gather_scatter_permute attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main() {
    %id = stablehlo.replica_id : tensor<ui32>
    %i = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %x = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<1x2xi32>
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1x2xi32>) -> tensor<2x2xi32>
    check.expect_eq_const %g, dense<[[0, 0], [1, 1]]> : tensor<2x2xi32>
    %io = stablehlo.iota dim = 0 : tensor<4xi32>
    %rs = "stablehlo.reduce_scatter"(%io) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %r = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %r : tensor<i32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xi32>) -> tensor<2xi32>
    %table = stablehlo.constant dense<[[0, 2], [4, 6]]> : tensor<2x2xi32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %mine = stablehlo.dynamic_slice %table, %i, %zero, sizes = [1, 2] : (tensor<2x2xi32>, tensor<i32>, tensor<i32>) -> tensor<1x2xi32>
    %want = stablehlo.reshape %mine : (tensor<1x2xi32>) -> tensor<2xi32>
    check.expect_eq %rs, %want : tensor<2xi32>
    %p = "stablehlo.collective_permute"(%i) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<i32>) -> tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %other = stablehlo.subtract %one, %i : tensor<i32>
    check.expect_eq %p, %other : tensor<i32>
    %b = "stablehlo.collective_broadcast"(%i) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
    check.expect_eq_const %b, dense<1> : tensor<i32>
    %a2a = "stablehlo.all_to_all"(%g) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi32>) -> tensor<1x4xi32>
    %row = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<1x4xi32>
    check.expect_eq %a2a, %row : tensor<1x4xi32>
    func.return
  }
}

// -----

module @partitions attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 2 : i32} {
  func.func @main() {
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    %two = stablehlo.constant dense<2> : tensor<ui32>
    %rr = stablehlo.multiply %r, %two : tensor<ui32>
    %flat = stablehlo.add %rr, %p : tensor<ui32>
    // Flattened ids: everyone in one group sums 0 + 1 + 2 + 3.
    %s = "stablehlo.all_reduce"(%flat) ({
    ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
      %x = stablehlo.add %a, %b : tensor<ui32>
      stablehlo.return %x : tensor<ui32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids} : (tensor<ui32>) -> tensor<ui32>
    check.expect_eq_const %s, dense<6> : tensor<ui32>
    // Cross-replica (no channel): groups over replicas within one partition: r0 + r1 of it.
    %c = "stablehlo.all_reduce"(%flat) ({
    ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
      %x = stablehlo.add %a, %b : tensor<ui32>
      stablehlo.return %x : tensor<ui32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<ui32>) -> tensor<ui32>
    %four = stablehlo.multiply %p, %two : tensor<ui32>
    %want = stablehlo.add %four, %two : tensor<ui32>
    check.expect_eq %c, %want : tensor<ui32>
    func.return
  }
}

// -----

// collective_reduce: the group's first member gets the reduction, the others zeros. Groups
// [1, 0] and [2, 3]: replica 1 gets 2 + 1, replica 2 gets 3 + 4, replicas 0 and 3 get 0.
module @collective_reduce attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main() {
    %id = stablehlo.replica_id : tensor<ui32>
    %one = stablehlo.constant dense<1> : tensor<ui32>
    %v = stablehlo.add %id, %one : tensor<ui32>
    %x = stablehlo.broadcast_in_dim %v, dims = [] : (tensor<ui32>) -> tensor<3xui32>
    %r = "stablehlo.collective_reduce"(%x) ({
    ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
      %s = stablehlo.add %a, %b : tensor<ui32>
      stablehlo.return %s : tensor<ui32>
    }) {replica_groups = dense<[[1, 0], [2, 3]]> : tensor<2x2xi64>} : (tensor<3xui32>) -> tensor<3xui32>
    %table = stablehlo.constant dense<[0, 3, 7, 0]> : tensor<4xui32>
    %i = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %want1 = stablehlo.dynamic_slice %table, %i, sizes = [1] : (tensor<4xui32>, tensor<i32>) -> tensor<1xui32>
    %want = stablehlo.broadcast_in_dim %want1, dims = [0] : (tensor<1xui32>) -> tensor<3xui32>
    check.expect_eq %r, %want : tensor<3xui32>
    func.return
  }
}

// -----

// An all-reduce large enough that the three devices each reduce a share of the elements into
// one shared result (1000 elements: shares of 336, 336 and 328), also over two of the three.
module @all_reduce_shared_out attributes {mhlo.num_replicas = 3 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main() {
    %id = stablehlo.replica_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %k = stablehlo.constant dense<1000.0> : tensor<f32>
    %off = stablehlo.multiply %f, %k : tensor<f32>
    %b = stablehlo.broadcast_in_dim %off, dims = [] : (tensor<f32>) -> tensor<1000xf32>
    %i = stablehlo.iota dim = 0 : tensor<1000xf32>
    %x = stablehlo.add %i, %b : tensor<1000xf32>
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %r = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<1000xf32>) -> tensor<1000xf32>
    %three = stablehlo.constant dense<3.0> : tensor<1000xf32>
    %t = stablehlo.multiply %i, %three : tensor<1000xf32>
    %c3 = stablehlo.constant dense<3000.0> : tensor<1000xf32>
    %want = stablehlo.add %t, %c3 : tensor<1000xf32>
    check.expect_eq %s, %want : tensor<1000xf32>
    // Max over replicas {0, 2} (replica 1 alone): each member's share, the same result.
    %m = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %r = stablehlo.maximum %a, %c : tensor<f32>
      stablehlo.return %r : tensor<f32>
    }) {replica_groups = dense<[[0, 2], [1, -1]]> : tensor<2x2xi64>} : (tensor<1000xf32>) -> tensor<1000xf32>
    %two = stablehlo.constant dense<2000.0> : tensor<f32>
    %one = stablehlo.constant dense<1> : tensor<ui32>
    %is1 = stablehlo.compare EQ, %id, %one : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %top = stablehlo.select %is1, %off, %two : tensor<i1>, tensor<f32>
    %tb = stablehlo.broadcast_in_dim %top, dims = [] : (tensor<f32>) -> tensor<1000xf32>
    %mwant = stablehlo.add %i, %tb : tensor<1000xf32>
    check.expect_eq %m, %mwant : tensor<1000xf32>
    return
  }
}
