// SPMD partitioning (src/compiler/spmd) from text programs: sharding parsers, layouts and the
// OpSharding bytes PJRT reports, programs with GSPMD and Shardy shardings run on 4 partitions
// with per-partition shards, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "src/compiler/spmd/sharding.h"
#include "src/runtime/buffer.h"
#include "src/runtime/client.h"
#include "src/runtime/executable.h"

namespace openpjrt::runtime {
namespace {

using compiler::spmd::GspmdLayout;
using compiler::spmd::Layout;
using compiler::spmd::OpShardingProto;
using compiler::spmd::ParseSdyMesh;
using compiler::spmd::ParseSdySharding;
using compiler::spmd::SdyLayout;

std::string Hex(const std::string& s) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) out += {d[c >> 4], d[c & 15]};
  return out;
}

TEST(ShardingTest, SdyLayoutsOnA2x2MeshWithDeviceIds) {
  auto mesh = ParseSdyMesh(R"(#sdy.mesh<["a"=2, "b"=2], device_ids=[3, 2, 1, 0]>)");
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  auto s = ParseSdySharding(R"(#sdy.sharding<@mesh, [{"b", ?}p1, {"a"}], replicated={}>)");
  ASSERT_TRUE(s.ok()) << s.status();
  auto l = SdyLayout(*s, *mesh, 2, 4);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->tiles, (std::vector<int64_t>{2, 2}));
  // Mesh position (a, b) holds device 3 - (2a + b); its tile is (b, a).
  EXPECT_EQ(l->coords[3], (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(l->coords[2], (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(l->coords[1], (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(l->coords[0], (std::vector<int64_t>{1, 1}));
  // A sub-axis: "a":(1)2 of an axis of 4 is its minor factor.
  auto m4 = ParseSdyMesh(R"(#sdy.mesh<["a"=4]>)");
  auto sub = ParseSdySharding(R"(<@m, [{"a":(1)2}]>)");
  ASSERT_TRUE(sub.ok()) << sub.status();
  auto ls = SdyLayout(*sub, *m4, 1, 4);
  ASSERT_TRUE(ls.ok()) << ls.status();
  EXPECT_EQ(ls->tiles[0], 2);
  EXPECT_EQ(ls->coords[1][0], 1);
  EXPECT_EQ(ls->coords[2][0], 0);
}

TEST(ShardingTest, GspmdStringsAgreeWithTheirSdyForms) {
  auto iota = GspmdLayout("{devices=[2,2]<=[4]}", 2, 4);
  ASSERT_TRUE(iota.ok()) << iota.status();
  auto listed = GspmdLayout("{devices=[2,2]0,1,2,3}", 2, 4);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(*iota, *listed);
  auto transposed = GspmdLayout("{devices=[2,2]<=[2,2]T(1,0)}", 2, 4);
  auto explicit_t = GspmdLayout("{devices=[2,2]0,2,1,3}", 2, 4);
  ASSERT_TRUE(transposed.ok() && explicit_t.ok());
  EXPECT_EQ(*transposed, *explicit_t);
  auto rep = GspmdLayout("{devices=[2,1,2]<=[4] last_tile_dim_replicate}", 2, 4);
  ASSERT_TRUE(rep.ok()) << rep.status();
  EXPECT_EQ(rep->tiles, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(rep->coords[1][0], 0);
  EXPECT_EQ(rep->coords[2][0], 1);
  auto tuple = GspmdLayout("{{replicated}, {devices=[4]<=[4]}}", 1, 4, 1);
  ASSERT_TRUE(tuple.ok()) << tuple.status();
  EXPECT_EQ(tuple->tiles[0], 4);
  EXPECT_TRUE(GspmdLayout("{maximal device=1}", 2, 4)->replicated());
  // The bytes jaxlib's OpSharding gives {devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}.
  EXPECT_EQ(Hex(OpShardingProto(*rep)), "08031a030201022204000102033001");
  EXPECT_EQ(OpShardingProto(Layout::Replicated(2, 4)), "");
}

TEST(ShardingTest, UnreducedAxesNumberThePartialSums) {
  // Every partition an addend: Shardy's unreduced={"x"} over the whole mesh and GSPMD's
  // {unreduced} read the same, and report as XLA's OpSharding type UNREDUCED (6).
  auto mesh = ParseSdyMesh(R"(<["x"=4]>)");
  auto s = ParseSdySharding(R"(<@mesh, [{}, {}], unreduced={"x"}>)");
  auto l = SdyLayout(*s, *mesh, 2, 4);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_FALSE(l->replicated());
  EXPECT_EQ(l->partials, 4);
  EXPECT_EQ(l->partial, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_TRUE(l->Reduced().replicated());
  auto g = GspmdLayout("{unreduced}", 2, 4);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(*g, *l);
  EXPECT_EQ(Hex(OpShardingProto(*l)), "0806");
  // Rows over "y", addends over "x" on a 2x2 mesh: GSPMD's tile dims [2,1] and an unreduced
  // subgroup of 2 (last_tile_dims), the same devices.
  auto m22 = ParseSdyMesh(R"(<["x"=2, "y"=2]>)");
  auto rows = ParseSdySharding(R"(<@mesh, [{"y"}, {}], unreduced={"x"}>)");
  auto lr = SdyLayout(*rows, *m22, 2, 4);
  ASSERT_TRUE(lr.ok()) << lr.status();
  EXPECT_EQ(lr->tiles, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(lr->partial, (std::vector<int64_t>{0, 0, 1, 1}));
  auto gr = GspmdLayout("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dims={unreduced}}", 2, 4);
  ASSERT_TRUE(gr.ok()) << gr.status();
  EXPECT_EQ(*gr, *lr);
  // OTHER, tile dims [2,1,2], devices 0 2 1 3, last_tile_dims [UNREDUCED].
  EXPECT_EQ(Hex(OpShardingProto(*lr)), "08031a03020102220400020103420106");
  EXPECT_EQ(GspmdLayout("{devices=[2,1,2]<=[4] last_tile_dims={bogus}}", 2, 4).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ShardingTest, MalformedAndUnsupportedShardingsSayWhy) {
  EXPECT_EQ(ParseSdySharding(R"(#sdy.sharding<@mesh, [{"x"}, {})>)").status().code(),
            absl::StatusCode::kInvalidArgument);
  auto mesh = ParseSdyMesh(R"(<["x"=4]>)");
  auto s = ParseSdySharding(R"(<@mesh, [{"y"}]>)");
  auto l = SdyLayout(*s, *mesh, 1, 4);
  EXPECT_EQ(l.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(l.status().message().find("axis \"y\""), std::string::npos) << l.status();
  auto big = ParseSdyMesh(R"(<["x"=8]>)");
  auto s8 = ParseSdySharding(R"(<@mesh, [{"x"}]>)");
  auto l8 = SdyLayout(*s8, *big, 1, 4);
  EXPECT_EQ(l8.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(l8.status().message().find("8 devices"), std::string::npos) << l8.status();
  auto unreduced = ParseSdySharding(R"(<@mesh, [{}], unreduced={"x"}>)");
  ASSERT_TRUE(unreduced.ok());
  const std::vector<std::string> manual = {"x"};
  EXPECT_EQ(SdyLayout(*unreduced, *mesh, 1, 4, &manual).status().code(), absl::StatusCode::kUnimplemented);
  auto twice = ParseSdySharding(R"(<@mesh, [{"x"}], unreduced={"x"}>)");
  EXPECT_EQ(SdyLayout(*twice, *mesh, 1, 4).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GspmdLayout("{devices=[3]<=[3]}", 1, 4).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GspmdLayout("{devices=[2]0,0}", 1, 2).status().code(), absl::StatusCode::kInvalidArgument);
}

// ---- programs on 4 partitions ---------------------------------------------------------------

BufferRef Upload(Device* d, const std::vector<int64_t>& dims, const std::vector<float>& v) {
  cpu::ArrayType t{ir::ElemKind::kF32, dims};
  cpu::Array a = cpu::Array::Allocate(t);
  std::memcpy(a.mutable_data(), v.data(), v.size() * 4);
  return Buffer::CreateReady(d->default_memory(), BufferShape{t}, a);
}

BufferRef UploadPred(Device* d, bool v) {
  cpu::ArrayType t{ir::ElemKind::kI1, {}};
  cpu::Array a = cpu::Array::Allocate(t);
  *static_cast<uint8_t*>(a.mutable_data()) = v ? 1 : 0;
  return Buffer::CreateReady(d->default_memory(), BufferShape{t}, a);
}

std::vector<float> Fetch(const BufferRef& b) {
  EXPECT_TRUE(b->ready_event()->Await().ok());
  auto a = b->GetArray();
  EXPECT_TRUE(a.ok());
  const float* p = a->as<float>();
  return std::vector<float>(p, p + a->type().NumElements());
}

// Rows [r0, r0 + rows) and columns [c0, c0 + cols) of a row-major matrix with `width` columns.
std::vector<float> Block(const std::vector<float>& m, int64_t width, int64_t r0, int64_t rows, int64_t c0,
                         int64_t cols) {
  std::vector<float> out;
  for (int64_t r = r0; r < r0 + rows; ++r)
    for (int64_t c = c0; c < c0 + cols; ++c) out.push_back(m[r * width + c]);
  return out;
}

// A fresh folder that OPENPJRT_DUMP_DIR points at (empty when none could be made): compiles
// write their partitioned programs there.
std::string StartDumping() {
  char dir[] = "/tmp/opj_spmd_XXXXXX";
  if (!mkdtemp(dir)) return "";
  setenv("OPENPJRT_DUMP_DIR", dir, 1);
  return dir;
}

// The partitioned programs written to `dir` since StartDumping, concatenated; the folder is
// removed and dumping stops.
std::string TakePartitionedPrograms(const std::string& dir) {
  unsetenv("OPENPJRT_DUMP_DIR");
  std::string program;
  for (int k = 0; k < 64; ++k) {
    const std::string name = dir + "/partitioned-" + std::to_string(k) + ".mlir";
    if (FILE* f = std::fopen(name.c_str(), "rb")) {
      char buf[4096];
      for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) program.append(buf, n);
      std::fclose(f);
      std::remove(name.c_str());
    }
  }
  std::remove(dir.c_str());
  return program;
}

struct SpmdRun {
  absl::Status status;
  std::shared_ptr<Executable> exe;
  ExecuteResult result;
};

SpmdRun Execute(Client& client, const std::string& text, const std::vector<std::vector<BufferRef>>& args) {
  SpmdRun run;
  auto exe = Executable::Compile(text, "mlir", {});
  if (!exe.ok()) {
    run.status = exe.status();
    return run;
  }
  run.exe = *exe;
  auto le = LoadedExecutable::Load(&client, *exe);
  if (!le.ok()) {
    run.status = le.status();
    return run;
  }
  ExecuteRequest req;
  for (const auto& a : args) req.args.push_back(BufferList(a.begin(), a.end()));
  auto r = (*le)->Execute(std::move(req));
  if (!r.ok()) {
    run.status = r.status();
    return run;
  }
  run.result = *std::move(r);
  return run;
}

TEST(SpmdTest, GspmdRowShardedMatmulWithReplicatedAndShardedResults) {
  Client client(ClientOptions{});
  const char* text = R"(
module @gspmd attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<8x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                  %w: tensor<3x2xf32> {mhlo.sharding = "{replicated}"})
      -> (tensor<8x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<2xf32>, tensor<8x2xf32> {mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}) {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x3xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%y init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
    return %y, %s, %y : tensor<8x2xf32>, tensor<2xf32>, tensor<8x2xf32>
  }
})";
  std::vector<float> x(24), w = {1, 0, 0, 1, 1, 1};
  std::iota(x.begin(), x.end(), 0.0f);
  std::vector<float> y(16), sum(2, 0);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 2; ++c) {
      for (int k = 0; k < 3; ++k) y[r * 2 + c] += x[r * 3 + k] * w[k * 2 + c];
      sum[c] += y[r * 2 + c];
    }
  std::vector<std::vector<BufferRef>> args;
  for (int p = 0; p < 4; ++p)
    args.push_back({Upload(client.devices()[p], {2, 3}, Block(x, 3, 2 * p, 2, 0, 3)),
                    Upload(client.devices()[p], {3, 2}, w)});
  SpmdRun run = Execute(client, text, args);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_EQ(run.exe->arg_shapes()[0].type.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(run.exe->result_shapes()[2].type.dims, (std::vector<int64_t>{8, 1}));
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(Fetch(run.result.outputs[p][0]), Block(y, 2, 2 * p, 2, 0, 2)) << "partition " << p;
    EXPECT_EQ(Fetch(run.result.outputs[p][1]), sum) << "partition " << p;
    // Columns split in 2, tiles over devices transposed: devices 0 and 2 hold column 0.
    EXPECT_EQ(Fetch(run.result.outputs[p][2]), Block(y, 2, 0, 8, p % 2, 1)) << "partition " << p;
  }
  EXPECT_EQ(Hex(run.exe->param_shardings()[0]), Hex(OpShardingProto(*GspmdLayout("{devices=[4,1]<=[4]}", 2, 4))));
  EXPECT_EQ(run.exe->param_shardings()[1], "");
  EXPECT_EQ(run.exe->output_shardings()[1], "");
}

TEST(SpmdTest, GspmdUnreducedArgumentsAreSummedAndSplitProductsLeaveAsAddends) {
  Client client(ClientOptions{});
  // x's columns and w's rows split 4 ways: each partition's product is an addend of x @ w, which
  // leaves unreduced as it is (no exchange). u arrives as addends and is summed before use.
  const char* text = R"(
module @unreduced attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<2x8xf32> {mhlo.sharding = "{devices=[1,4]<=[4]}"},
                  %w: tensor<8x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                  %u: tensor<3xf32> {mhlo.sharding = "{unreduced}"})
      -> (tensor<2x3xf32> {mhlo.sharding = "{unreduced}"}, tensor<3xf32> {mhlo.sharding = "{replicated}"},
          tensor<3xf32> {mhlo.sharding = "{unreduced}"}) {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
    %v = stablehlo.add %u, %u : tensor<3xf32>
    return %y, %v, %v : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
  }
})";
  std::vector<float> x(16), w(24);
  std::iota(x.begin(), x.end(), 0.0f);
  std::iota(w.begin(), w.end(), 1.0f);
  std::vector<std::vector<BufferRef>> args;
  for (int p = 0; p < 4; ++p)
    args.push_back({Upload(client.devices()[p], {2, 2}, Block(x, 8, 0, 2, 2 * p, 2)),
                    Upload(client.devices()[p], {2, 3}, Block(w, 3, 2 * p, 2, 0, 3)),
                    Upload(client.devices()[p], {3}, {1.0f * p, 10.0f, p == 3 ? 1.0f : 0.0f})});
  const std::string dir = StartDumping();
  SpmdRun run = Execute(client, text, args);
  const std::string program = TakePartitionedPrograms(dir);
  ASSERT_TRUE(run.status.ok()) << run.status;
  {
    std::vector<float> sum(6, 0);
    for (int p = 0; p < 4; ++p) {
      std::vector<float> part(6, 0);
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c)
          for (int k = 2 * p; k < 2 * p + 2; ++k) part[r * 3 + c] += x[r * 8 + k] * w[k * 3 + c];
      EXPECT_EQ(Fetch(run.result.outputs[p][0]), part) << "partition " << p;
      // u sums to (6, 40, 1); the replicated result is twice that everywhere, and the unreduced
      // one twice that on partition 0 with zeros elsewhere.
      EXPECT_EQ(Fetch(run.result.outputs[p][1]), (std::vector<float>{12, 80, 2})) << "partition " << p;
      EXPECT_EQ(Fetch(run.result.outputs[p][2]), p == 0 ? (std::vector<float>{12, 80, 2}) : std::vector<float>(3, 0))
          << "partition " << p;
    }
    EXPECT_EQ(Hex(run.exe->output_shardings()[0]), "0806");
    EXPECT_EQ(Hex(run.exe->param_shardings()[2]), "0806");
    EXPECT_EQ(run.exe->output_shardings()[1], "");
  }
  // One exchange: u's sum. The product's partial sums are never exchanged.
  size_t sums = 0;
  for (size_t at = program.find("all_reduce"); at != std::string::npos; at = program.find("all_reduce", at + 1)) ++sums;
  EXPECT_EQ(sums, 1u) << program;
}

TEST(SpmdTest, ShardyTwoByTwoMeshAndAManualComputationOverOneAxis) {
  Client client(ClientOptions{});
  // x is tiled over both axes; the manual computation sums over "b" only (psum within rows of the
  // mesh) and the result leaves sharded over "a".
  const char* text = R"(
module @shardy attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func @main(%x: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {"b"}]>})
      -> (tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"a"}, {}]>}, tensor<4x4xf32>) {
    %r = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"a"}, {"b"}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a", "b"} (%s: tensor<2x2xf32>) {
      %t = "stablehlo.all_reduce"(%s) ({
        ^bb0(%l: tensor<f32>, %r: tensor<f32>):
          %sum = stablehlo.add %l, %r : tensor<f32>
          stablehlo.return %sum : tensor<f32>
      }) {replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "b">]>, use_global_device_ids} : (tensor<2x2xf32>) -> tensor<2x2xf32>
      sdy.return %t : tensor<2x2xf32>
    } : (tensor<4x4xf32>) -> tensor<4x2xf32>
    %d = stablehlo.add %x, %x : tensor<4x4xf32>
    return %r, %d : tensor<4x2xf32>, tensor<4x4xf32>
  }
})";
  std::vector<float> x(16);
  std::iota(x.begin(), x.end(), 1.0f);
  std::vector<std::vector<BufferRef>> args;
  for (int p = 0; p < 4; ++p)  // device p = (a, b) = (p / 2, p % 2)
    args.push_back({Upload(client.devices()[p], {2, 2}, Block(x, 4, 2 * (p / 2), 2, 2 * (p % 2), 2))});
  SpmdRun run = Execute(client, text, args);
  ASSERT_TRUE(run.status.ok()) << run.status;
  std::vector<float> twice(16);
  for (int i = 0; i < 16; ++i) twice[i] = 2 * x[i];
  for (int p = 0; p < 4; ++p) {
    const int a = p / 2;
    std::vector<float> want;
    for (int r = 2 * a; r < 2 * a + 2; ++r)
      for (int c = 0; c < 2; ++c) want.push_back(x[r * 4 + c] + x[r * 4 + c + 2]);
    EXPECT_EQ(Fetch(run.result.outputs[p][0]), want) << "partition " << p;
    // The unannotated result keeps its value's layout: the add ran on the shards.
    EXPECT_EQ(Fetch(run.result.outputs[p][1]), Block(twice, 4, 2 * (p / 2), 2, 2 * (p % 2), 2)) << "partition " << p;
  }
  EXPECT_EQ(run.exe->output_shardings()[1], run.exe->param_shardings()[0]);
}

// A while loop with a row-split carried value and a whole one that the body makes split (a state
// zero-initialised outside), then an if on a predicate reduced over the split rows: both run on
// the shards, and the unannotated results leave as shards (their local shapes show it).
TEST(SpmdTest, LoopsAndBranchesRunOnShards) {
  Client client(ClientOptions{});
  const char* text = R"(
module @loop attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<8x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %flip: tensor<i1>)
      -> (tensor<8x2xf32>, tensor<f32>, tensor<8x2xf32>) {
    %z = stablehlo.constant dense<0.0> : tensor<8x2xf32>
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %r:3 = stablehlo.while(%i = %i0, %acc = %z, %v = %x) : tensor<i32>, tensor<8x2xf32>, tensor<8x2xf32>
      cond {
        %n = stablehlo.constant dense<3> : tensor<i32>
        %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %j = stablehlo.add %i, %one : tensor<i32>
        %a = stablehlo.add %acc, %v : tensor<8x2xf32>
        %two = stablehlo.constant dense<2.0> : tensor<8x2xf32>
        %w = stablehlo.multiply %v, %two : tensor<8x2xf32>
        stablehlo.return %j, %a, %w : tensor<i32>, tensor<8x2xf32>, tensor<8x2xf32>
      }
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%r#1 init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x2xf32>, tensor<f32>) -> tensor<f32>
    %p = stablehlo.compare GT, %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %o = "stablehlo.if"(%p) ({
      %n = stablehlo.negate %r#1 : tensor<8x2xf32>
      stablehlo.return %n : tensor<8x2xf32>
    }, {
      stablehlo.return %r#2 : tensor<8x2xf32>
    }) : (tensor<i1>) -> tensor<8x2xf32>
    %q = "stablehlo.if"(%flip) ({
      stablehlo.return %z : tensor<8x2xf32>
    }, {
      %t = stablehlo.tanh %r#2 : tensor<8x2xf32>
      stablehlo.return %t : tensor<8x2xf32>
    }) : (tensor<i1>) -> tensor<8x2xf32>
    return %o, %s, %q : tensor<8x2xf32>, tensor<f32>, tensor<8x2xf32>
  }
})";
  std::vector<float> x(16);
  std::iota(x.begin(), x.end(), 1.0f);
  for (const bool flip : {false, true}) {
    std::vector<std::vector<BufferRef>> args;
    for (int p = 0; p < 4; ++p)
      args.push_back({Upload(client.devices()[p], {2, 2}, Block(x, 2, 2 * p, 2, 0, 2)),
                      UploadPred(client.devices()[p], flip)});
    SpmdRun run = Execute(client, text, args);
    ASSERT_TRUE(run.status.ok()) << run.status;
    for (int k : {0, 2}) EXPECT_EQ(run.exe->result_shapes()[k].type.dims, (std::vector<int64_t>{2, 2})) << k;
    std::vector<float> neg7(16), tanh8(16, 0.0f);
    float sum = 0;
    for (int i = 0; i < 16; ++i) {
      neg7[i] = -7 * x[i];
      sum += 7 * x[i];
      if (!flip) tanh8[i] = std::tanh(8 * x[i]);
    }
    for (int p = 0; p < 4; ++p) {
      EXPECT_EQ(Fetch(run.result.outputs[p][0]), Block(neg7, 2, 2 * p, 2, 0, 2)) << "partition " << p;
      EXPECT_EQ(Fetch(run.result.outputs[p][1]), std::vector<float>{sum}) << "partition " << p;
      const std::vector<float> got = Fetch(run.result.outputs[p][2]), want = Block(tanh8, 2, 2 * p, 2, 0, 2);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "partition " << p;
    }
  }
}

// The exchanges a data-parallel step needs, reduced: a weight gradient contracted over split rows
// and transposed (the sum moves after the transpose), a bias gradient (a reduce over the split
// rows), and a gradient summed over a loop's iterations into a zero accumulator, the loop reading
// the split values it captures (the partial sums are carried and summed once after the loop). Values checked on every partition; the partitioned program (OPENPJRT_DUMP_DIR) read for
// its all-reduces.
TEST(SpmdTest, GradientSumsAreExchangedOnceAndOutsideLoops) {
  const std::string dir = StartDumping();
  ASSERT_FALSE(dir.empty());
  Client client(ClientOptions{});
  const char* text = R"(
module @sums attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<8x2xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, %w: tensor<2x3xf32>)
      -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2x3xf32>) {
    %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x2xf32>, tensor<2x3xf32>) -> tensor<8x3xf32>
    %g = stablehlo.dot_general %y, %x, contracting_dims = [0] x [0] : (tensor<8x3xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
    %gt = stablehlo.transpose %g, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %b = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
    %z = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %i0, %acc = %z) : tensor<i32>, tensor<2x3xf32>
      cond {
        %n = stablehlo.constant dense<3> : tensor<i32>
        %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %j = stablehlo.add %i, %one : tensor<i32>
        %d = stablehlo.dot_general %x, %y, contracting_dims = [0] x [0] : (tensor<8x2xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
        %a = stablehlo.add %acc, %d : tensor<2x3xf32>
        stablehlo.return %j, %a : tensor<i32>, tensor<2x3xf32>
      }
    return %gt, %b, %r#1 : tensor<2x3xf32>, tensor<2xf32>, tensor<2x3xf32>
  }
})";
  std::vector<float> x(16), w = {1, 0, 2, 0, 1, -1};
  std::iota(x.begin(), x.end(), 1.0f);
  std::vector<std::vector<BufferRef>> args;
  for (int p = 0; p < 4; ++p)
    args.push_back({Upload(client.devices()[p], {2, 2}, Block(x, 2, 2 * p, 2, 0, 2)), Upload(client.devices()[p], {2, 3}, w)});
  SpmdRun run = Execute(client, text, args);
  const std::string program = TakePartitionedPrograms(dir);
  ASSERT_TRUE(run.status.ok()) << run.status;
  // y = x w; gt = (y^T x)^T = x^T y; b = column sums of x; the loop adds x^T y three times.
  std::vector<float> y(24, 0), xty(6, 0), b(2, 0), acc(6);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 2; ++k) y[r * 3 + c] += x[r * 2 + k] * w[k * 3 + c];
  for (int i = 0; i < 2; ++i)
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 8; ++r) xty[i * 3 + c] += x[r * 2 + i] * y[r * 3 + c];
  for (int r = 0; r < 8; ++r)
    for (int i = 0; i < 2; ++i) b[i] += x[r * 2 + i];
  for (int i = 0; i < 6; ++i) acc[i] = 3 * xty[i];
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(Fetch(run.result.outputs[p][0]), xty) << "partition " << p;
    EXPECT_EQ(Fetch(run.result.outputs[p][1]), b) << "partition " << p;
    EXPECT_EQ(Fetch(run.result.outputs[p][2]), acc) << "partition " << p;
  }
  // The loop reads the split x and y it captures on shards and carries partial sums; the three
  // sums (the transposed weight gradient, the bias gradient, the loop's total) are then one
  // all-reduce of three operands after the loop, none inside it.
  ASSERT_FALSE(program.empty()) << "no partitioned program in " << dir;
  std::vector<std::string> reduces;
  for (size_t at = program.find("\"stablehlo.all_reduce\"("); at != std::string::npos;
       at = program.find("\"stablehlo.all_reduce\"(", at + 1)) {
    const size_t line = program.rfind('\n', at) + 1;
    reduces.push_back(program.substr(line, program.find(')', at) - line + 1));
  }
  ASSERT_EQ(reduces.size(), 1u) << program;
  EXPECT_EQ(reduces[0].rfind("    %", 0), 0u) << "an all-reduce inside a nested block: " << reduces[0];
  EXPECT_EQ(std::count(reduces[0].begin(), reduces[0].end(), ','), 2) << reduces[0];
  EXPECT_EQ(program.find("all_gather"), std::string::npos) << program;
}

// Uneven tiles of the entry's arguments and results, as XLA lays them out: every partition holds
// ceil(size / tiles) along the dimension, the last tiles padded. An op reading such a value runs
// on the whole value (gathered, the padding cut off), except elementwise ones, which run on the
// shards (padding and all, as on XLA:CPU); a result is cut from the whole padded with zeros; a
// value passed straight through keeps its shards.
TEST(SpmdTest, UnevenTilesAreCeilShardsPadded) {
  Client client(ClientOptions{});
  const std::string dir = StartDumping();
  const char* text = R"(
module @uneven attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<10x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"})
      -> (tensor<10x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<3xf32>,
          tensor<10x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
          tensor<10x3xf32> {mhlo.sharding = "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"}) {
    %y = stablehlo.add %x, %x : tensor<10x3xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<10x3xf32>, tensor<f32>) -> tensor<3xf32>
    return %y, %s, %x, %y : tensor<10x3xf32>, tensor<3xf32>, tensor<10x3xf32>, tensor<10x3xf32>
  }
})";
  std::vector<float> x(30), y(30), sum(3, 0);
  for (int i = 0; i < 30; ++i) {
    x[i] = static_cast<float>(i % 7) - 2.5f;
    y[i] = 2 * x[i];
    sum[i % 3] += x[i];
  }
  // Rows 3p..3p+2 on partition p; partition 3 holds row 9 and two rows of padding (NaN here:
  // nothing may read them).
  std::vector<std::vector<BufferRef>> args;
  for (int p = 0; p < 4; ++p) {
    std::vector<float> rows = p < 3 ? Block(x, 3, 3 * p, 3, 0, 3) : Block(x, 3, 9, 1, 0, 3);
    rows.resize(9, std::numeric_limits<float>::quiet_NaN());
    args.push_back({Upload(client.devices()[p], {3, 3}, rows)});
  }
  SpmdRun run = Execute(client, text, args);
  const std::string program = TakePartitionedPrograms(dir);
  ASSERT_TRUE(run.status.ok()) << run.status;
  // The add runs on the 3x3 shards; x is gathered for the sum, y for its column tiles.
  EXPECT_NE(program.find("stablehlo.add %arg0, %arg0 : tensor<3x3xf32>"), std::string::npos) << program;
  size_t gathers = 0;
  for (size_t at = program.find("stablehlo.all_gather"); at != std::string::npos; at = program.find("stablehlo.all_gather", at + 1)) ++gathers;
  EXPECT_EQ(gathers, 2u) << program;
  EXPECT_EQ(run.exe->arg_shapes()[0].type.dims, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(run.exe->result_shapes()[0].type.dims, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(run.exe->result_shapes()[3].type.dims, (std::vector<int64_t>{10, 2}));
  for (int p = 0; p < 4; ++p) {
    const int rows = p < 3 ? 3 : 1;
    std::vector<float> y0 = Fetch(run.result.outputs[p][0]), x2 = Fetch(run.result.outputs[p][2]);
    EXPECT_EQ(std::vector<float>(y0.begin(), y0.begin() + 3 * rows), Block(y, 3, 3 * p, rows, 0, 3)) << p;
    EXPECT_EQ(Fetch(run.result.outputs[p][1]), sum) << "partition " << p;
    EXPECT_EQ(std::vector<float>(x2.begin(), x2.begin() + 3 * rows), Block(x, 3, 3 * p, rows, 0, 3)) << p;
    // Columns in 2 tiles of 2: partitions 0 and 1 hold columns 0-1, partitions 2 and 3 column 2
    // and a column of zeros.
    std::vector<float> y3 = Fetch(run.result.outputs[p][3]), want;
    for (int r = 0; r < 10; ++r) {
      want.push_back(p < 2 ? y[r * 3] : y[r * 3 + 2]);
      want.push_back(p < 2 ? y[r * 3 + 1] : 0.0f);
    }
    EXPECT_EQ(y3, want) << "partition " << p;
  }
}

// A loop body that needs the whole of a split value it captures (reverse has no shard rule) gets
// it gathered once, before the loop, not in every iteration.
TEST(SpmdTest, CapturedValuesAreGatheredOnceOutsideTheLoop) {
  const std::string dir = StartDumping();
  ASSERT_FALSE(dir.empty());
  Client client(ClientOptions{});
  const char* text = R"(
module @captured attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<8xf32> {mhlo.sharding = "{devices=[4]<=[4]}"}) -> tensor<8xf32> {
    %i0 = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %i0, %acc = %x) : tensor<i32>, tensor<8xf32>
      cond {
        %n = stablehlo.constant dense<3> : tensor<i32>
        %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %j = stablehlo.add %i, %one : tensor<i32>
        %rev = stablehlo.reverse %x, dims = [0] : tensor<8xf32>
        %a = stablehlo.add %acc, %rev : tensor<8xf32>
        stablehlo.return %j, %a : tensor<i32>, tensor<8xf32>
      }
    return %r#1 : tensor<8xf32>
  }
})";
  std::vector<float> x(8);
  std::iota(x.begin(), x.end(), 1.0f);
  std::vector<std::vector<BufferRef>> args;
  for (int p = 0; p < 4; ++p) args.push_back({Upload(client.devices()[p], {2}, Block(x, 1, 2 * p, 2, 0, 1))});
  SpmdRun run = Execute(client, text, args);
  const std::string program = TakePartitionedPrograms(dir);
  ASSERT_TRUE(run.status.ok()) << run.status;
  std::vector<float> want(8);
  for (int i = 0; i < 8; ++i) want[i] = x[i] + 3 * x[7 - i];
  for (int p = 0; p < 4; ++p)
    EXPECT_EQ(Fetch(run.result.outputs[p][0]), Block(want, 1, 2 * p, 2, 0, 1)) << "partition " << p;
  const size_t gather = program.find("\"stablehlo.all_gather\"");
  ASSERT_NE(gather, std::string::npos) << program;
  EXPECT_LT(gather, program.find("stablehlo.while")) << program;
  EXPECT_EQ(program.find("\"stablehlo.all_gather\"", gather + 1), std::string::npos) << program;
}

TEST(SpmdTest, RefusalsNameTheProblemAndItsLocation) {
  Client client(ClientOptions{});
  auto compile = [](const std::string& sharding, int partitions, const std::string& type = "tensor<8xf32>") {
    std::string text = "module attributes {mhlo.num_partitions = " + std::to_string(partitions) +
                       " : i32} {\n  sdy.mesh @mesh = <[\"x\"=4]>\n  func.func @main(%x: " + type +
                       " {sdy.sharding = " + sharding + "}) -> " + type + " {\n    return %x : " + type + "\n  }\n}";
    return Executable::Compile(text, "mlir", {}).status();
  };
  absl::Status s = compile(R"(#sdy.sharding<@mesh, [{"y"}]>)", 4);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("axis \"y\""), std::string::npos) << s;
  EXPECT_NE(s.message().find("<program>:3:"), std::string::npos) << s;
  EXPECT_NE(s.message().find("argument #0"), std::string::npos) << s;
  s = compile(R"(#sdy.sharding<@mesh, [{"x"}]>)", 2);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("4 devices"), std::string::npos) << s;
  s = compile(R"(#sdy.sharding<@nomesh, [{"x"}]>)", 4);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("@nomesh"), std::string::npos) << s;
  // Uneven tiles of the entry's values are padded (SpmdTest.UnevenTilesAreCeilShardsPadded).
  EXPECT_TRUE(compile(R"(#sdy.sharding<@mesh, [{"x"}]>)", 4, "tensor<6xf32>").ok());
  s = compile(R"(#sdy.sharding<@mesh, [{"x"}, {}]>)", 4);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("rank 1"), std::string::npos) << s;
}

// The manual boundaries' refusals: a body whose shard type disagrees with its sharding, and
// GSPMD's shard_map custom calls whose shapes or shardings do not fit.
TEST(SpmdTest, ManualBoundariesThatDoNotFitAreRefused) {
  const std::string body_mismatch = R"(
module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func @main(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %r = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%s: tensor<4x4xf32>) {
      sdy.return %s : tensor<4x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
})";
  absl::Status s = Executable::Compile(body_mismatch, "mlir", {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("operand #0"), std::string::npos) << s;
  EXPECT_NE(s.message().find("not tensor<4x4xf32>"), std::string::npos) << s;

  const std::string full_to_shard = R"(
module attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> tensor<8x4xf32> {
    %m = stablehlo.custom_call @SPMDFullToShardShape(%x) {mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %f = stablehlo.custom_call @SPMDShardToFullShape(%m) {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"} : (tensor<4x4xf32>) -> tensor<8x4xf32>
    return %f : tensor<8x4xf32>
  }
})";
  s = Executable::Compile(full_to_shard, "mlir", {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("@SPMDFullToShardShape"), std::string::npos) << s;

  const std::string shard_to_full = R"(
module attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> tensor<8x4xf32> {
    %m = stablehlo.custom_call @SPMDFullToShardShape(%x) {mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<2x4xf32>
    %f = stablehlo.custom_call @SPMDShardToFullShape(%m) {mhlo.sharding = "{manual}"} : (tensor<2x4xf32>) -> tensor<8x4xf32>
    return %f : tensor<8x4xf32>
  }
})";
  s = Executable::Compile(shard_to_full, "mlir", {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("needs the full value's mhlo.sharding"), std::string::npos) << s;

  // Uneven tiles where a manual computation takes its operand (6 rows over 4 partitions): its body
  // would see shards of different sizes.
  const std::string uneven_manual = R"(
module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func @main(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
    %r = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%s: tensor<2x4xf32>) {
      sdy.return %s : tensor<2x4xf32>
    } : (tensor<6x4xf32>) -> tensor<6x4xf32>
    return %r : tensor<6x4xf32>
  }
})";
  s = Executable::Compile(uneven_manual, "mlir", {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("cut into 4 uneven tiles along dimension 0"), std::string::npos) << s;
  EXPECT_NE(s.message().find("<program>:5:"), std::string::npos) << s;

  // A nested manual computation over an axis its enclosing one made manual already.
  const std::string nested_again = R"(
module attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func @main(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %r = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%s: tensor<4x4xf32>) {
      %t = sdy.manual_computation(%s) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%u: tensor<2x4xf32>) {
        sdy.return %u : tensor<2x4xf32>
      } : (tensor<4x4xf32>) -> tensor<4x4xf32>
      sdy.return %t : tensor<4x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
})";
  s = Executable::Compile(nested_again, "mlir", {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("axis \"a\" is manual in an enclosing manual computation"), std::string::npos) << s;

  // A partially manual sharding on the entry's argument (only GSPMD's shard_map bodies have them).
  const std::string partial_arg = R"(
module attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dims={manual}}"}) -> tensor<8x4xf32> {
    return %x : tensor<8x4xf32>
  }
})";
  s = Executable::Compile(partial_arg, "mlir", {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << s;
  EXPECT_NE(s.message().find("partially manual"), std::string::npos) << s;
}

// shard_map inside shard_map (Shardy's nested manual computations): the inner one cuts each
// partition's "a"-shard along "b", sums over "b" within it, and its result is gathered back along
// "b" among the partitions of one "a"-shard.
TEST(SpmdTest, NestedManualComputationsStayWithinTheirEnclosingShards) {
  Client client(ClientOptions{});
  const char* text = R"(
module @nested attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["a"=2, "b"=2]>
  func.func @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %r = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%s: tensor<2x4xf32>) {
      %t = sdy.manual_computation(%s) in_shardings=[<@mesh, [{}, {"b"}]>] out_shardings=[<@mesh, [{}, {"b"}]>] manual_axes={"b"} (%u: tensor<2x2xf32>) {
        %v = "stablehlo.all_reduce"(%u) ({
        ^bb0(%p: tensor<f32>, %q: tensor<f32>):
          %w = stablehlo.add %p, %q : tensor<f32>
          stablehlo.return %w : tensor<f32>
        }) {replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "b">]>, use_global_device_ids} : (tensor<2x2xf32>) -> tensor<2x2xf32>
        sdy.return %v : tensor<2x2xf32>
      } : (tensor<2x4xf32>) -> tensor<2x4xf32>
      sdy.return %t : tensor<2x4xf32>
    } : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %r : tensor<4x4xf32>
  }
})";
  std::vector<float> x(16);
  std::iota(x.begin(), x.end(), 0.0f);
  std::vector<std::vector<BufferRef>> args;
  for (int p = 0; p < 4; ++p) args.push_back({Upload(client.devices()[p], {4, 4}, x)});
  SpmdRun run = Execute(client, text, args);
  ASSERT_TRUE(run.status.ok()) << run.status;
  // Row r, column c: x[r][c % 2] + x[r][c % 2 + 2] (the two "b" halves of the row added); the
  // result leaves as the outer computation lays it out, rows split over "a" (partitions 0 and 1
  // hold rows 0-1, partitions 2 and 3 rows 2-3).
  std::vector<float> want(16);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) want[r * 4 + c] = x[r * 4 + c % 2] + x[r * 4 + c % 2 + 2];
  for (int p = 0; p < 4; ++p) EXPECT_EQ(Fetch(run.result.outputs[p][0]), Block(want, 4, 2 * (p / 2), 2, 0, 4)) << p;
}

}  // namespace
}  // namespace openpjrt::runtime
