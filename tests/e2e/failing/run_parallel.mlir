// interpreter.run_parallel programs that must be refused with a clear error.
// expect-fail: programs[1] has 1 programs, programs[0] has 2
module @ragged_grid {
  func.func private @f() -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    func.return %c : tensor<i32>
  }
  func.func @main() {
    %o:3 = "interpreter.run_parallel"() {programs = [[@f, @f], [@f]]} : () -> (tensor<i32>, tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

// expect-fail: has 1 operands but the programs take 2
module @missing_operand {
  func.func private @f(%x: tensor<i32>) -> tensor<i32> {
    func.return %x : tensor<i32>
  }
  func.func @main() {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %o:2 = "interpreter.run_parallel"(%c) {programs = [[@f], [@f]]} : (tensor<i32>) -> (tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

// expect-fail: programs[0][1] names undefined function '@nowhere'
module @undefined_program {
  func.func private @f() -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    func.return %c : tensor<i32>
  }
  func.func @main() {
    %o:2 = "interpreter.run_parallel"() {programs = [[@f, @nowhere]]} : () -> (tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

// expect-fail: result #1 has type tensor<2xi32> but @f (programs[1][0]) returns tensor<i32>
module @wrong_result_type {
  func.func private @f() -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    func.return %c : tensor<i32>
  }
  func.func @main() {
    %o:2 = "interpreter.run_parallel"() {programs = [[@f], [@f]]} : () -> (tensor<i32>, tensor<2xi32>)
    func.return
  }
}

// -----

// Replica 1 runs a program without the all_reduce replica 0 waits in: an error, not a hang.
// expect-fail: finished without reaching this collective
module @collectives_differ {
  func.func private @reduce(%x: tensor<i32>) -> tensor<i32> {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %r = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %r : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i32>) -> tensor<i32>
    func.return %s : tensor<i32>
  }
  func.func private @skip(%x: tensor<i32>) -> tensor<i32> {
    func.return %x : tensor<i32>
  }
  func.func @main() {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %o:2 = "interpreter.run_parallel"(%c, %c) {programs = [[@reduce], [@skip]]} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

// expect-fail: infeed (the interpreter's infeed queues for run_parallel) is not supported
module @infeed_queues {
  func.func private @f() -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    func.return %c : tensor<i32>
  }
  func.func private @queue() -> tensor<i32> {
    %c = stablehlo.constant dense<2> : tensor<i32>
    func.return %c : tensor<i32>
  }
  func.func @main() {
    %o = "interpreter.run_parallel"() {infeed = [@queue], programs = [[@f]]} : () -> tensor<i32>
    func.return
  }
}

// -----

// A check that fails inside a process names the process.
// expect-fail: process (replica 1, partition 0): check.expect_eq_const failed
module @failing_check_in_a_process {
  func.func private @f() -> tensor<ui32> {
    %r = stablehlo.replica_id : tensor<ui32>
    check.expect_eq_const %r, dense<0> : tensor<ui32>
    func.return %r : tensor<ui32>
  }
  func.func @main() {
    %o:2 = "interpreter.run_parallel"() {programs = [[@f], [@f]]} : () -> (tensor<ui32>, tensor<ui32>)
    func.return
  }
}

// -----

// One thread per process: a grid of more than 256 is refused.
// expect-fail: runs 1 x 257 processes; at most 256 are supported
module @too_many_processes {
  func.func private @f() -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    func.return %c : tensor<i32>
  }
  func.func @main() {
    %o:257 = "interpreter.run_parallel"() {programs = [[@f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f, @f]]} : () -> (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
    func.return
  }
}
