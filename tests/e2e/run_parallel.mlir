// interpreter.run_parallel: the StableHLO reference interpreter's way of running a grid of
// processes (programs[replica][partition]) inside one program, used by its collective tests and
// by sharding tests that compare a partitioned function with the unpartitioned one. Operands
// and results are the processes' own, concatenated in process order (replica-major).
module @ids_of_a_two_by_two_grid {
  func.func private @ids() -> (tensor<ui32>, tensor<ui32>) {
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    func.return %r, %p : tensor<ui32>, tensor<ui32>
  }
  func.func @main() {
    %o:8 = "interpreter.run_parallel"() {programs = [[@ids, @ids], [@ids, @ids]]} : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>)
    check.expect_eq_const %o#0, dense<0> : tensor<ui32>
    check.expect_eq_const %o#1, dense<0> : tensor<ui32>
    check.expect_eq_const %o#2, dense<0> : tensor<ui32>
    check.expect_eq_const %o#3, dense<1> : tensor<ui32>
    check.expect_eq_const %o#4, dense<1> : tensor<ui32>
    check.expect_eq_const %o#5, dense<0> : tensor<ui32>
    check.expect_eq_const %o#6, dense<1> : tensor<ui32>
    check.expect_eq_const %o#7, dense<1> : tensor<ui32>
    func.return
  }
}

// -----

// all_reduce over three replicas, then over the groups {0, 2} and {1} with a max region;
// properties written as <{...}> (the generic form current tools print).
module @all_reduce_groups {
  func.func private @sum_then_max(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %r = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %r : tensor<i64>
    }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2xi64>) -> tensor<2xi64>
    %m = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %r = stablehlo.maximum %a, %b : tensor<i64>
      stablehlo.return %r : tensor<i64>
    }) {replica_groups = dense<[[0, 2], [1, -1]]> : tensor<2x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
    func.return %s, %m : tensor<2xi64>, tensor<2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 200]> : tensor<2xi64>
    %b = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
    %c = stablehlo.constant dense<[100, 2]> : tensor<2xi64>
    %o:6 = "interpreter.run_parallel"(%a, %b, %c) <{programs = [[@sum_then_max], [@sum_then_max], [@sum_then_max]]}> : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    check.expect_eq_const %o#0, dense<[111, 222]> : tensor<2xi64>
    check.expect_eq_const %o#1, dense<[100, 200]> : tensor<2xi64>
    check.expect_eq_const %o#2, dense<[111, 222]> : tensor<2xi64>
    check.expect_eq_const %o#3, dense<[10, 20]> : tensor<2xi64>
    check.expect_eq_const %o#4, dense<[111, 222]> : tensor<2xi64>
    check.expect_eq_const %o#5, dense<[100, 200]> : tensor<2xi64>
    func.return
  }
}

// -----

// all_gather with a channel: cross replica and partition, so replica group {0, 1} gathers all
// four processes, partition by partition and within each in the group's replica order (the
// specification's process groups); and with use_global_device_ids over flattened ids.
module @all_gather_across_the_grid {
  func.func private @gather(%x: tensor<1x2xf32>) -> (tensor<1x8xf32>, tensor<1x4xf32>) {
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<1x2xf32>) -> tensor<1x8xf32>
    %f = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[3, 0], [1, 2]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 0>, use_global_device_ids} : (tensor<1x2xf32>) -> tensor<1x4xf32>
    func.return %g, %f : tensor<1x8xf32>, tensor<1x4xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[[0.0, 0.5]]> : tensor<1x2xf32>
    %b = stablehlo.constant dense<[[1.0, 1.5]]> : tensor<1x2xf32>
    %c = stablehlo.constant dense<[[2.0, 2.5]]> : tensor<1x2xf32>
    %d = stablehlo.constant dense<[[3.0, -0.0]]> : tensor<1x2xf32>
    %o:8 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@gather, @gather], [@gather, @gather]]} : (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>) -> (tensor<1x8xf32>, tensor<1x4xf32>, tensor<1x8xf32>, tensor<1x4xf32>, tensor<1x8xf32>, tensor<1x4xf32>, tensor<1x8xf32>, tensor<1x4xf32>)
    check.expect_eq_const %o#0, dense<[[0.0, 0.5, 2.0, 2.5, 1.0, 1.5, 3.0, -0.0]]> : tensor<1x8xf32>
    check.expect_eq_const %o#6, dense<[[0.0, 0.5, 2.0, 2.5, 1.0, 1.5, 3.0, -0.0]]> : tensor<1x8xf32>
    check.expect_eq_const %o#1, dense<[[3.0, -0.0, 0.0, 0.5]]> : tensor<1x4xf32>
    check.expect_eq_const %o#3, dense<[[1.0, 1.5, 2.0, 2.5]]> : tensor<1x4xf32>
    check.expect_eq_const %o#5, dense<[[1.0, 1.5, 2.0, 2.5]]> : tensor<1x4xf32>
    check.expect_eq_const %o#7, dense<[[3.0, -0.0, 0.0, 0.5]]> : tensor<1x4xf32>
    func.return
  }
}

// -----

// collective_permute around a ring of three replicas, a pair list that leaves replica 0 without a
// source (it gets zeros), reduce_scatter and collective_broadcast.
module @permute_scatter_broadcast {
  func.func private @f(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<1xi32>, tensor<4xi32>) {
    %ring = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>} : (tensor<4xi32>) -> tensor<4xi32>
    %some = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : (tensor<4xi32>) -> tensor<4xi32>
    %x3 = stablehlo.slice %x [0:3] : (tensor<4xi32>) -> tensor<3xi32>
    %rs = "stablehlo.reduce_scatter"(%x3) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %r = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %r : tensor<i32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[2, 0, 1]]> : tensor<1x3xi64>} : (tensor<3xi32>) -> tensor<1xi32>
    %bc = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[1, 0, 2]]> : tensor<1x3xi64>} : (tensor<4xi32>) -> tensor<4xi32>
    func.return %ring, %some, %rs, %bc : tensor<4xi32>, tensor<4xi32>, tensor<1xi32>, tensor<4xi32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
    %b = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi32>
    %c = stablehlo.constant dense<[100, 200, 300, 400]> : tensor<4xi32>
    %o:12 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@f], [@f], [@f]]} : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<1xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<1xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<1xi32>, tensor<4xi32>)
    check.expect_eq_const %o#0, dense<[100, 200, 300, 400]> : tensor<4xi32>
    check.expect_eq_const %o#4, dense<[1, 2, 3, 4]> : tensor<4xi32>
    check.expect_eq_const %o#8, dense<[10, 20, 30, 40]> : tensor<4xi32>
    check.expect_eq_const %o#1, dense<0> : tensor<4xi32>
    check.expect_eq_const %o#5, dense<[1, 2, 3, 4]> : tensor<4xi32>
    check.expect_eq_const %o#9, dense<[10, 20, 30, 40]> : tensor<4xi32>
    // Group [2, 0, 1]: the sum's parts go to replicas 2, 0 and 1 in that order.
    check.expect_eq_const %o#10, dense<[111]> : tensor<1xi32>
    check.expect_eq_const %o#2, dense<[222]> : tensor<1xi32>
    check.expect_eq_const %o#6, dense<[333]> : tensor<1xi32>
    check.expect_eq_const %o#3, dense<[10, 20, 30, 40]> : tensor<4xi32>
    check.expect_eq_const %o#7, dense<[10, 20, 30, 40]> : tensor<4xi32>
    check.expect_eq_const %o#11, dense<[10, 20, 30, 40]> : tensor<4xi32>
    func.return
  }
}

// -----

// Different programs per process, checks inside a process, interpreter.print passing its operand
// on, and a sharded product compared with the unsharded one (the pattern sharding tests use).
module @programs_per_process {
  func.func private @double(%x: tensor<3xf32>) -> tensor<3xf32> {
    %y = stablehlo.add %x, %x : tensor<3xf32>
    check.expect_eq_const %y, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
    func.return %y : tensor<3xf32>
  }
  func.func private @square(%x: tensor<3xf32>) -> tensor<3xf32> {
    %y = stablehlo.multiply %x, %x : tensor<3xf32>
    %p = interpreter.print %y : tensor<3xf32>
    func.return %p : tensor<3xf32>
  }
  func.func private @sharded_matvec(%w: tensor<2x4xf32>, %v: tensor<4xf32>) -> tensor<4xf32> {
    %part = stablehlo.dot_general %w, %v, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2xf32>
    %all = "stablehlo.all_gather"(%part) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<4xf32>
    func.return %all : tensor<4xf32>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %o:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@double], [@square]]} : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    check.expect_eq_const %o#0, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>
    check.expect_eq_const %o#1, dense<[1.0, 4.0, 9.0]> : tensor<3xf32>
    %w = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 1.0], [2.0, 0.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<4x4xf32>
    %v = stablehlo.constant dense<[1.0, -1.0, 0.5, 2.0]> : tensor<4xf32>
    %full = stablehlo.dot_general %w, %v, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %w0 = stablehlo.slice %w [0:2, 0:4] : (tensor<4x4xf32>) -> tensor<2x4xf32>
    %w1 = stablehlo.slice %w [2:4, 0:4] : (tensor<4x4xf32>) -> tensor<2x4xf32>
    %s:2 = "interpreter.run_parallel"(%w0, %v, %w1, %v) {programs = [[@sharded_matvec, @sharded_matvec]]} : (tensor<2x4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    check.expect_eq %s#0, %full : tensor<4xf32>
    check.expect_eq %s#1, %full : tensor<4xf32>
    check.expect_eq_const %full, dense<[8.5, 1.0, 3.0, 2.5]> : tensor<4xf32>
    func.return
  }
}
