// rng_bit_generator: the generators match the published known-answer vectors of Threefry-2x32-20
// and Philox-4x32-10 (key 0, counter 0), the state advances by the blocks used, and the bits are
// uniform enough that the mean of 4096 uniform floats is close to 1/2. rng_xla.mlir checks the
// placement of the words and the new states against XLA's expansion of the op.
func.func @known_answers() {
  %s = stablehlo.constant dense<[0, 0]> : tensor<2xui64>
  %t_state, %t = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2xui32>)
  check.expect_eq_const %t, dense<[0x6B200159, 0x99BA4EFE]> : tensor<2xui32>
  check.expect_eq_const %t_state, dense<[0, 1]> : tensor<2xui64>
  %p_state, %p = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  check.expect_eq_const %p, dense<[0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]> : tensor<4xui32>
  check.expect_eq_const %p_state, dense<[0, 1]> : tensor<2xui64>
  func.return
}

// -----

func.func @uniform_floats() {
  %s = stablehlo.constant dense<[42, 7]> : tensor<2xui64>
  %ns, %bits = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4096xui32>)
  check.expect_eq_const %ns, dense<[42, 2055]> : tensor<2xui64>
  %nine = stablehlo.constant dense<9> : tensor<4096xui32>
  %m = stablehlo.shift_right_logical %bits, %nine : tensor<4096xui32>
  %f = stablehlo.convert %m : (tensor<4096xui32>) -> tensor<4096xf32>
  %scale = stablehlo.constant dense<1.1920929E-7> : tensor<4096xf32>
  %u = stablehlo.multiply %f, %scale : tensor<4096xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%u init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
  %n = stablehlo.constant dense<4096.0> : tensor<f32>
  %mean = stablehlo.divide %sum, %n : tensor<f32>
  check.expect_almost_eq_const %mean, dense<0.5>, tolerance = 0.02 : tensor<f32>
  // The same state gives the same bits.
  %ns2, %bits2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4096xui32>)
  check.expect_eq %bits, %bits2 : tensor<4096xui32>
  func.return
}

// -----

func.func @chlo_constant_like() {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi16>
  %c = "chlo.constant_like"(%x) {value = 7 : i32} : (tensor<3xi16>) -> tensor<3xi16>
  check.expect_eq_const %c, dense<7> : tensor<3xi16>
  %y = stablehlo.constant dense<0.0> : tensor<2xbf16>
  %d = "chlo.constant_like"(%y) {value = 0.1 : f32} : (tensor<2xbf16>) -> tensor<2xbf16>
  check.expect_eq_const %d, dense<0.1> : tensor<2xbf16>
  func.return
}

// -----

// stablehlo.rng: the numbers are the implementation's choice, their range and distribution are
// not. 4096 uniform f32 on [2, 3) stay inside it with mean 2.5; normal ones (mean 1, deviation 3)
// have about that mean and deviation; integers stay in [-5, 5) and reach both ends; a >= b gives
// a; two executions of the op draw different numbers.
func.func @rng_distributions() {
  %lo = stablehlo.constant dense<2.0> : tensor<f32>
  %hi = stablehlo.constant dense<3.0> : tensor<f32>
  %shape = stablehlo.constant dense<[4096]> : tensor<1xi64>
  %u = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4096xf32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %umin = stablehlo.reduce(%u init: %inf) applies stablehlo.minimum across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
  %umax = stablehlo.reduce(%u init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
  %in_lo = stablehlo.compare GE, %umin, %lo : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %in_hi = stablehlo.compare LT, %umax, %hi : (tensor<f32>, tensor<f32>) -> tensor<i1>
  check.expect_eq_const %in_lo, dense<true> : tensor<i1>
  check.expect_eq_const %in_hi, dense<true> : tensor<i1>
  %usum = stablehlo.reduce(%u init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
  %count = stablehlo.constant dense<4096.0> : tensor<f32>
  %umean = stablehlo.divide %usum, %count : tensor<f32>
  check.expect_almost_eq_const %umean, dense<2.5>, tolerance = 0.02 : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %three = stablehlo.constant dense<3.0> : tensor<f32>
  %g = stablehlo.rng %one, %three, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4096xf32>
  %gsum = stablehlo.reduce(%g init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
  %gmean = stablehlo.divide %gsum, %count : tensor<f32>
  check.expect_almost_eq_const %gmean, dense<1.0>, tolerance = 0.2 : tensor<f32>
  %ones = stablehlo.constant dense<1.0> : tensor<4096xf32>
  %dev = stablehlo.subtract %g, %ones : tensor<4096xf32>
  %sq = stablehlo.multiply %dev, %dev : tensor<4096xf32>
  %sqsum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
  %var = stablehlo.divide %sqsum, %count : tensor<f32>
  %sd = stablehlo.sqrt %var : tensor<f32>
  check.expect_almost_eq_const %sd, dense<3.0>, tolerance = 0.2 : tensor<f32>
  %ilo = stablehlo.constant dense<-5> : tensor<i32>
  %ihi = stablehlo.constant dense<5> : tensor<i32>
  %ishape = stablehlo.constant dense<[64, 64]> : tensor<2xi64>
  %i = stablehlo.rng %ilo, %ihi, %ishape, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<64x64xi32>
  %imax0 = stablehlo.constant dense<-2147483648> : tensor<i32>
  %imin0 = stablehlo.constant dense<2147483647> : tensor<i32>
  %imin = stablehlo.reduce(%i init: %imin0) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<64x64xi32>, tensor<i32>) -> tensor<i32>
  %imax = stablehlo.reduce(%i init: %imax0) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<64x64xi32>, tensor<i32>) -> tensor<i32>
  check.expect_eq_const %imin, dense<-5> : tensor<i32>
  check.expect_eq_const %imax, dense<4> : tensor<i32>
  %same = stablehlo.rng %ihi, %ilo, %ishape, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<64x64xi32>
  %fives = stablehlo.constant dense<5> : tensor<64x64xi32>
  check.expect_eq %same, %fives : tensor<64x64xi32>
  %u2 = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4096xf32>
  %differ = stablehlo.compare NE, %u, %u2 : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xi1>
  %false = stablehlo.constant dense<false> : tensor<i1>
  %any = stablehlo.reduce(%differ init: %false) applies stablehlo.or across dimensions = [0] : (tensor<4096xi1>, tensor<i1>) -> tensor<i1>
  check.expect_eq_const %any, dense<true> : tensor<i1>
  func.return
}

// -----

func.func @rng_narrow_and_wide() {
  %lo = stablehlo.constant dense<-1.0> : tensor<bf16>
  %hi = stablehlo.constant dense<1.0> : tensor<bf16>
  %shape = stablehlo.constant dense<[2048]> : tensor<1xi64>
  %u = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM : (tensor<bf16>, tensor<bf16>, tensor<1xi64>) -> tensor<2048xbf16>
  %ninf = stablehlo.constant dense<0xFF80> : tensor<bf16>
  %umax = stablehlo.reduce(%u init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<2048xbf16>, tensor<bf16>) -> tensor<bf16>
  %in_hi = stablehlo.compare LT, %umax, %hi : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
  check.expect_eq_const %in_hi, dense<true> : tensor<i1>
  %big_lo = stablehlo.constant dense<18446744073709551000> : tensor<ui64>
  %big_hi = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %s1 = stablehlo.constant dense<[256]> : tensor<1xi64>
  %w = stablehlo.rng %big_lo, %big_hi, %s1, distribution = UNIFORM : (tensor<ui64>, tensor<ui64>, tensor<1xi64>) -> tensor<256xui64>
  %wmin0 = stablehlo.constant dense<18446744073709551615> : tensor<ui64>
  %wmin = stablehlo.reduce(%w init: %wmin0) applies stablehlo.minimum across dimensions = [0] : (tensor<256xui64>, tensor<ui64>) -> tensor<ui64>
  %ok = stablehlo.compare GE, %wmin, %big_lo : (tensor<ui64>, tensor<ui64>) -> tensor<i1>
  check.expect_eq_const %ok, dense<true> : tensor<i1>
  func.return
}
