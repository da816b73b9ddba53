// Reductions (fast and region paths), dot_general, comparisons, conversions, control flow and
// calls.
func.func @reduce_fast_paths() {
  %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
  check.expect_eq_const %s, dense<[6, 15]> : tensor<2xi32>
  %m = stablehlo.constant dense<-2147483648> : tensor<i32>
  %mx = stablehlo.reduce(%x init: %m) applies stablehlo.maximum across dimensions = [0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %mx, dense<[4, 5, 6]> : tensor<3xi32>
  %all = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<i32>
  check.expect_eq_const %all, dense<21> : tensor<i32>
  func.return
}

// -----

// argmax: a two-operand reduce whose body is a real region.
func.func @reduce_argmax() {
  %v = stablehlo.constant dense<[3.0, 9.0, 1.0, 9.0, 4.0]> : tensor<5xf32>
  %i = stablehlo.iota dim = 0 : tensor<5xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%v init: %ninf), (%i init: %zero) across dimensions = [0] : (tensor<5xf32>, tensor<5xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>) {
      %gt = stablehlo.compare GT, %b, %a : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %m = stablehlo.select %gt, %b, %a : tensor<i1>, tensor<f32>
      %mi = stablehlo.select %gt, %bi, %ai : tensor<i1>, tensor<i32>
      stablehlo.return %m, %mi : tensor<f32>, tensor<i32>
    }
  check.expect_eq_const %r#0, dense<9.0> : tensor<f32>
  check.expect_eq_const %r#1, dense<1> : tensor<i32>
  func.return
}

// -----

func.func @dot_general_batched_and_mixed() {
  %a = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]]> : tensor<2x2x2xf32>
  %b = stablehlo.constant dense<[[[5.0, 6.0], [7.0, 8.0]], [[2.0, 3.0], [4.0, 5.0]]]> : tensor<2x2x2xf32>
  %c = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  check.expect_eq_const %c, dense<[[[19.0, 22.0], [43.0, 50.0]], [[2.0, 3.0], [4.0, 5.0]]]> : tensor<2x2x2xf32>
  %x = stablehlo.constant dense<[[100, 100], [-100, 1]]> : tensor<2x2xi8>
  %y = stablehlo.constant dense<[[100, 1], [100, 1]]> : tensor<2x2xi8>
  %z = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<2x2xi8>, tensor<2x2xi8>) -> tensor<2x2xi32>
  check.expect_eq_const %z, dense<[[20000, 200], [-9900, -99]]> : tensor<2x2xi32>
  %v = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %o = stablehlo.dot_general %v, %v, contracting_dims = [] x [] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %o, dense<[[1.0, 2.0], [2.0, 4.0]]> : tensor<2x2xf32>
  %d = stablehlo.dot %v, %v : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  check.expect_eq_const %d, dense<5.0> : tensor<f32>
  func.return
}

// -----

// bf16 and f16 products accumulate in f32 and round once, as XLA's CPU backend computes them:
// 512 ones sum to 512 (rounding at every step would stop at 256 in bf16, 2048 + 1 in f16), and
// a product whose exact value needs f32 rounds to the nearest bf16. NaN from f32 to bf16 is the
// quiet NaN with its sign.
func.func @dot_general_bf16_f16_accumulate_in_f32() {
  %ones = stablehlo.constant dense<1.0> : tensor<1x512xbf16>
  %col = stablehlo.constant dense<1.0> : tensor<512x1xbf16>
  %s = stablehlo.dot_general %ones, %col, contracting_dims = [1] x [0] : (tensor<1x512xbf16>, tensor<512x1xbf16>) -> tensor<1x1xbf16>
  check.expect_eq_const %s, dense<512.0> : tensor<1x1xbf16>
  %h = stablehlo.constant dense<1.0> : tensor<1x4100xf16>
  %hc = stablehlo.constant dense<1.0> : tensor<4100x1xf16>
  %hs = stablehlo.dot_general %h, %hc, contracting_dims = [1] x [0] : (tensor<1x4100xf16>, tensor<4100x1xf16>) -> tensor<1x1xf16>
  check.expect_eq_const %hs, dense<4100.0> : tensor<1x1xf16>
  %a = stablehlo.constant dense<[[1.0, 0.00390625]]> : tensor<1x2xbf16>
  %b = stablehlo.constant dense<[[1.0], [1.0]]> : tensor<2x1xbf16>
  %ab = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x2xbf16>, tensor<2x1xbf16>) -> tensor<1x1xbf16>
  // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to even, 1.
  check.expect_eq_const %ab, dense<1.0> : tensor<1x1xbf16>
  %n = stablehlo.constant dense<[0x7FC00001, 0xFF800001, 3.0e38, -1.0e-40]> : tensor<4xf32>
  %nb = stablehlo.convert %n : (tensor<4xf32>) -> tensor<4xbf16>
  %nbits = stablehlo.bitcast_convert %nb : (tensor<4xbf16>) -> tensor<4xui16>
  check.expect_eq_const %nbits, dense<[32704, 65472, 32610, 32769]> : tensor<4xui16>
  func.return
}

// -----

func.func @compare_select_clamp() {
  %a = stablehlo.constant dense<[-0.0, 0x7FC00000, 1.0, -1.0]> : tensor<4xf32>
  %b = stablehlo.constant dense<[0.0, 0x7FC00000, 2.0, -1.0]> : tensor<4xf32>
  %eq = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %eq, dense<[true, false, false, true]> : tensor<4xi1>
  %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  check.expect_eq_const %lt, dense<[true, false, true, false]> : tensor<4xi1>
  %u = stablehlo.constant dense<[200, 1]> : tensor<2xui8>
  %v = stablehlo.constant dense<[100, 2]> : tensor<2xui8>
  %gt = stablehlo.compare GT, %u, %v, UNSIGNED : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  check.expect_eq_const %gt, dense<[true, false]> : tensor<2xi1>
  %s = stablehlo.select %gt, %u, %v : tensor<2xi1>, tensor<2xui8>
  check.expect_eq_const %s, dense<[200, 2]> : tensor<2xui8>
  %lo = stablehlo.constant dense<50> : tensor<ui8>
  %hi = stablehlo.constant dense<150> : tensor<ui8>
  %c = stablehlo.clamp %lo, %u, %hi : (tensor<ui8>, tensor<2xui8>, tensor<ui8>) -> tensor<2xui8>
  check.expect_eq_const %c, dense<[150, 50]> : tensor<2xui8>
  func.return
}

// -----

func.func @convert_edge_cases() {
  %f = stablehlo.constant dense<[1.9, -1.9, 1.0e10, -1.0e10, 0x7FC00000]> : tensor<5xf32>
  %i = stablehlo.convert %f : (tensor<5xf32>) -> tensor<5xi32>
  check.expect_eq_const %i, dense<[1, -1, 2147483647, -2147483648, 0]> : tensor<5xi32>
  %u = stablehlo.convert %f : (tensor<5xf32>) -> tensor<5xui8>
  check.expect_eq_const %u, dense<[1, 0, 255, 0, 0]> : tensor<5xui8>
  %n = stablehlo.constant dense<[300, -1]> : tensor<2xi32>
  %w = stablehlo.convert %n : (tensor<2xi32>) -> tensor<2xi8>
  check.expect_eq_const %w, dense<[44, -1]> : tensor<2xi8>
  %big = stablehlo.constant dense<16777217> : tensor<i64>
  %bf = stablehlo.convert %big : (tensor<i64>) -> tensor<f32>
  check.expect_eq_const %bf, dense<16777216.0> : tensor<f32>
  %d = stablehlo.constant dense<[0.1, 1.0e-8]> : tensor<2xf64>
  %h = stablehlo.convert %d : (tensor<2xf64>) -> tensor<2xf16>
  check.expect_eq_const %h, dense<[0x2E66, 0.0]> : tensor<2xf16>
  %b = stablehlo.convert %f : (tensor<5xf32>) -> tensor<5xi1>
  check.expect_eq_const %b, dense<[true, true, true, true, true]> : tensor<5xi1>
  %c = stablehlo.convert %f : (tensor<5xf32>) -> tensor<5xcomplex<f64>>
  %re = stablehlo.real %c : (tensor<5xcomplex<f64>>) -> tensor<5xf64>
  %back = stablehlo.convert %re : (tensor<5xf64>) -> tensor<5xf32>
  %s = stablehlo.slice %back [0:4] : (tensor<5xf32>) -> tensor<4xf32>
  check.expect_eq_const %s, dense<[1.9, -1.9, 1.0e10, -1.0e10]> : tensor<4xf32>
  %bits = stablehlo.bitcast_convert %f : (tensor<5xf32>) -> tensor<5xi32>
  %b0 = stablehlo.slice %bits [2:3] : (tensor<5xi32>) -> tensor<1xi32>
  check.expect_eq_const %b0, dense<1343554297> : tensor<1xi32>
  func.return
}

// -----

func.func @while_factorial() {
  %n = stablehlo.constant dense<10> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %c1, %acc = %c1) : tensor<i64>, tensor<i64>
    cond {
      %le = stablehlo.compare LE, %i, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %le : tensor<i1>
    } do {
      %next = stablehlo.add %i, %c1 : tensor<i64>
      %prod = stablehlo.multiply %acc, %i : tensor<i64>
      stablehlo.return %next, %prod : tensor<i64>, tensor<i64>
    }
  check.expect_eq_const %r#1, dense<3628800> : tensor<i64>
  func.return
}

// -----

func.func @if_and_case() {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %x = stablehlo.constant dense<2.0> : tensor<f32>
  %r = "stablehlo.if"(%t) ({
    %d = stablehlo.add %x, %x : tensor<f32>
    stablehlo.return %d : tensor<f32>
  }, {
    stablehlo.return %x : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  check.expect_eq_const %r, dense<4.0> : tensor<f32>
  %k = stablehlo.constant dense<7> : tensor<i32>
  %c = "stablehlo.case"(%k) ({
    %a = stablehlo.constant dense<10.0> : tensor<f32>
    stablehlo.return %a : tensor<f32>
  }, {
    %b = stablehlo.constant dense<20.0> : tensor<f32>
    stablehlo.return %b : tensor<f32>
  }) : (tensor<i32>) -> tensor<f32>
  // An out-of-range index runs the last branch.
  check.expect_eq_const %c, dense<20.0> : tensor<f32>
  func.return
}

// -----

func.func private @square(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

func.func private @reducer(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}

func.func @main() {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %s = call @square(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %t = func.call @square(%s) : (tensor<3xf32>) -> tensor<3xf32>
  check.expect_eq_const %t, dense<[1.0, 16.0, 81.0]> : tensor<3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce"(%t, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = func.call @reducer(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %c : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  check.expect_eq_const %r, dense<98.0> : tensor<f32>
  %cmp = stablehlo.composite "my.square" %x {decomposition = @square} : (tensor<3xf32>) -> tensor<3xf32>
  stablehlo.custom_call @check.expect_eq(%cmp, %s) : (tensor<3xf32>, tensor<3xf32>) -> ()
  stablehlo.custom_call @check.expect_almost_eq(%cmp, %s) : (tensor<3xf32>, tensor<3xf32>) -> ()
  func.return
}

// -----

func.func @chlo_broadcasting() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %c = chlo.broadcast_add %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %c, dense<[[11.0, 22.0], [13.0, 24.0]]> : tensor<2x2xf32>
  %d = chlo.broadcast_multiply %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %d, dense<[[10.0, 20.0], [60.0, 80.0]]> : tensor<2x2xf32>
  func.return
}

// -----

// Sharding annotations pass values through on one device.
func.func @sharding_annotations() {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
  %p = stablehlo.custom_call @annotate_device_placement(%s) {has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq %p, %x : tensor<2xf32>
  // shard_map over one device and host offloading keep the type: the value passes through.
  %l = stablehlo.custom_call @SPMDFullToShardShape(%p) {mhlo.sharding = "{manual}"} : (tensor<2xf32>) -> tensor<2xf32>
  %g = stablehlo.custom_call @SPMDShardToFullShape(%l) {mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
  %h = stablehlo.custom_call @MoveToHost(%g) : (tensor<2xf32>) -> tensor<2xf32>
  %d = stablehlo.custom_call @MoveToDevice(%h) : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq %d, %x : tensor<2xf32>
  func.return
}

// -----

// Promotable reductions compute in the result's element type.
func.func @promoted_reduce() {
  %x = stablehlo.constant dense<[16777216.0, 1.0, 1.0]> : tensor<3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %r = "stablehlo.reduce"(%x, %z) ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %s = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %s : tensor<f64>
  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f64>) -> tensor<f64>
  // In f32 the two ones would vanish against 2^24.
  check.expect_eq_const %r, dense<16777218.0> : tensor<f64>
  func.return
}

// -----

// bitcast_convert with sub-byte kinds: elements form a little-endian bit stream, so the first
// element of a trailing group lands in the lowest bits.
func.func @bitcast_sub_byte() {
  %a = stablehlo.constant dense<[-1, -8, 7, 0]> : tensor<4xi4>
  %au = stablehlo.bitcast_convert %a : (tensor<4xi4>) -> tensor<4xui4>
  check.expect_eq_const %au, dense<[15, 8, 7, 0]> : tensor<4xui4>
  %as = stablehlo.bitcast_convert %au : (tensor<4xui4>) -> tensor<4xi4>
  check.expect_eq_const %as, dense<[-1, -8, 7, 0]> : tensor<4xi4>
  %p = stablehlo.constant dense<[[1, 2], [-1, 7], [0, -8]]> : tensor<3x2xi4>
  %packed = stablehlo.bitcast_convert %p : (tensor<3x2xi4>) -> tensor<3xi8>
  check.expect_eq_const %packed, dense<[33, 127, -128]> : tensor<3xi8>
  %unpacked = stablehlo.bitcast_convert %packed : (tensor<3xi8>) -> tensor<3x2xi4>
  check.expect_eq_const %unpacked, dense<[[1, 2], [-1, 7], [0, -8]]> : tensor<3x2xi4>
  %b = stablehlo.constant dense<228> : tensor<ui8>
  %crumbs = stablehlo.bitcast_convert %b : (tensor<ui8>) -> tensor<4xui2>
  check.expect_eq_const %crumbs, dense<[0, 1, 2, 3]> : tensor<4xui2>
  %signed_crumbs = stablehlo.bitcast_convert %b : (tensor<ui8>) -> tensor<4xi2>
  check.expect_eq_const %signed_crumbs, dense<[0, 1, -2, -1]> : tensor<4xi2>
  %n = stablehlo.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xui4>
  %w = stablehlo.bitcast_convert %n : (tensor<8xui4>) -> tensor<i32>
  check.expect_eq_const %w, dense<-2023406815> : tensor<i32>
  %nib = stablehlo.bitcast_convert %w : (tensor<i32>) -> tensor<8xui4>
  check.expect_eq_const %nib, dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xui4>
  %fi = stablehlo.constant dense<[1, 2, 7, -6]> : tensor<4xi4>
  %f = stablehlo.bitcast_convert %fi : (tensor<4xi4>) -> tensor<4xf4E2M1FN>
  check.expect_eq_const %f, dense<[0.5, 1.0, 6.0, -1.0]> : tensor<4xf4E2M1FN>
  %fb = stablehlo.bitcast_convert %f : (tensor<4xf4E2M1FN>) -> tensor<4xi4>
  check.expect_eq_const %fb, dense<[1, 2, 7, -6]> : tensor<4xi4>
  %bits = stablehlo.constant dense<[true, false, false, false, false, false, false, true]> : tensor<8xi1>
  %byte = stablehlo.bitcast_convert %bits : (tensor<8xi1>) -> tensor<ui8>
  check.expect_eq_const %byte, dense<129> : tensor<ui8>
  %back = stablehlo.bitcast_convert %byte : (tensor<ui8>) -> tensor<8xi1>
  check.expect_eq_const %back, dense<[true, false, false, false, false, false, false, true]> : tensor<8xi1>
  func.return
}

// -----

// A scan (while + dynamic_update_slice of a carried buffer): from its second iteration the
// buffer is updated in place (held by the loop alone); a buffer still read after the update, or
// held outside the loop, keeps its old values.
func.func @scan_updates_carried_buffer() {
  %iota = stablehlo.iota dim = 0 : tensor<4x2xi32>
  %one2 = stablehlo.constant dense<1> : tensor<4x2xi32>
  %start = stablehlo.add %iota, %one2 : tensor<4x2xi32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %i0, %buf = %start, %old = %start) : tensor<i32>, tensor<4x2xi32>, tensor<4x2xi32>
   cond {
    %n = stablehlo.constant dense<4> : tensor<i32>
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %buf, %i, %z, sizes = [1, 2] : (tensor<4x2xi32>, tensor<i32>, tensor<i32>) -> tensor<1x2xi32>
    %ten = stablehlo.constant dense<10> : tensor<1x2xi32>
    %new = stablehlo.multiply %row, %ten : tensor<1x2xi32>
    %b2 = stablehlo.dynamic_update_slice %buf, %new, %i, %z : (tensor<4x2xi32>, tensor<1x2xi32>, tensor<i32>, tensor<i32>) -> tensor<4x2xi32>
    // %old is replaced by a copy that must still read the values before this iteration's update.
    %o2 = stablehlo.dynamic_update_slice %old, %row, %i, %z : (tensor<4x2xi32>, tensor<1x2xi32>, tensor<i32>, tensor<i32>) -> tensor<4x2xi32>
    %keep = stablehlo.add %o2, %buf : tensor<4x2xi32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i1, %b2, %keep : tensor<i32>, tensor<4x2xi32>, tensor<4x2xi32>
  }
  check.expect_eq_const %r#1, dense<[[10, 10], [20, 20], [30, 30], [40, 40]]> : tensor<4x2xi32>
  // The loop's initial buffer is unchanged after it.
  check.expect_eq_const %start, dense<[[1, 1], [2, 2], [3, 3], [4, 4]]> : tensor<4x2xi32>
  check.expect_eq_const %r#2, dense<[[32, 32], [44, 44], [36, 36], [8, 8]]> : tensor<4x2xi32>
  func.return
}

// -----

// JAX's ordered effects thread a token through @main; `run` supplies fresh tokens.
func.func @main(%t: !stablehlo.token {jax.token = true}) -> !stablehlo.token {
  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %y = stablehlo.add %x, %x : tensor<2xi32>
  check.expect_eq_const %y, dense<[2, 4]> : tensor<2xi32>
  %u = stablehlo.after_all %t : !stablehlo.token
  return %u : !stablehlo.token
}
