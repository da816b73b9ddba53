// rng_bit_generator: the generators match the published known-answer vectors of Threefry-2x32-20
// and Philox-4x32-10 (key 0, counter 0), the state advances by the blocks used, and the bits are
// uniform enough that the mean of 4096 uniform floats is close to 1/2.
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
