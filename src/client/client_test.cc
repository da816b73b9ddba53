// The client library against our CPU plugin ($OPENPJRT_PLUGIN), and the .npy codec.
#include "src/client/client.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "src/client/npy.h"

namespace openpjrt::client {
namespace {

constexpr char kAxpy[] = R"(
func.func @main(%a: tensor<f32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %b = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.multiply %b, %x : tensor<4xf32>
  %r = stablehlo.add %m, %y : tensor<4xf32>
  return %r : tensor<4xf32>
})";

std::vector<float> Floats(const Buffer& b) {
  auto bytes = b.ToHost();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  std::vector<float> v(bytes.ok() ? bytes->size() / 4 : 0);
  if (!v.empty()) std::memcpy(v.data(), bytes->data(), bytes->size());
  return v;
}

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = Plugin::Load(DefaultPluginPath());
    ASSERT_TRUE(p.ok()) << p.status();
    plugin = *p;
    auto c = Client::Create(plugin, {{"cpu_device_count", int64_t{2}}});
    ASSERT_TRUE(c.ok()) << c.status();
    client = std::move(*c);
  }
  std::shared_ptr<Plugin> plugin;
  std::unique_ptr<Client> client;
};

TEST_F(ClientTest, PluginVersionAttributesAndDevices) {
  EXPECT_EQ(plugin->major_version(), 0);
  EXPECT_EQ(plugin->minor_version(), PJRT_API_MINOR);
  auto attrs = plugin->Attributes();
  ASSERT_TRUE(attrs.ok()) << attrs.status();
  ASSERT_TRUE(attrs->count("stablehlo_current_version"));
  EXPECT_EQ(std::get<std::vector<int64_t>>(attrs->at("stablehlo_current_version")).size(), 3u);
  EXPECT_EQ(client->platform_name(), "cpu");
  ASSERT_EQ(client->devices().size(), 2u);
  EXPECT_EQ(client->devices()[1].id, 1);
  EXPECT_EQ(client->devices()[0].kind, "cpu");
  EXPECT_EQ(client->devices()[0].default_memory.kind, "device");
  EXPECT_EQ(client->devices()[0].memories.size(), 3u);
  EXPECT_FALSE(client->device(7).ok());
}

TEST_F(ClientTest, CompileUploadExecuteDownload) {
  auto exe = client->Compile(kAxpy);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->num_outputs(), 1u);
  EXPECT_EQ(exe->name(), "main");
  float a = 2;
  std::vector<float> x = {1, 2, 3, 4}, y = {10, 20, 30, 40};
  auto ba = client->Upload(&a, PJRT_Buffer_Type_F32, {});
  auto bx = client->Upload(x.data(), PJRT_Buffer_Type_F32, {4});
  auto by = client->Upload(y.data(), PJRT_Buffer_Type_F32, {4});
  ASSERT_TRUE(ba.ok() && bx.ok() && by.ok());
  auto out = exe->Execute({{&*ba, &*bx, &*by}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  Buffer& r = (*out)[0][0];
  EXPECT_TRUE(r.Ready().Await().ok());
  EXPECT_EQ(r.element_type(), PJRT_Buffer_Type_F32);
  EXPECT_EQ(r.dims(), (std::vector<int64_t>{4}));
  EXPECT_EQ(r.device_id(), 0);
  EXPECT_EQ(Floats(r), (std::vector<float>{12, 24, 36, 48}));

  // OnReady runs (at once here: the buffer is ready).
  bool called = false;
  r.Ready().OnReady([&](absl::Status s) { called = s.ok(); });
  EXPECT_TRUE(called);

  // The single-device form: the same answer, a completion future, and null arguments refused.
  const Buffer* args[] = {&*ba, &*bx, &*by};
  Future done;
  auto one = exe->ExecuteOne(args, {}, &done);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->size(), 1u);
  EXPECT_TRUE(done.valid());
  EXPECT_TRUE(done.Await().ok());
  EXPECT_EQ(Floats((*one)[0]), (std::vector<float>{12, 24, 36, 48}));
  const Buffer* with_null[] = {&*ba, nullptr, &*by};
  auto bad = exe->ExecuteOne(with_null);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("argument #1 is null"), std::string::npos) << bad.status();

  // Stream ids and control dependencies (openpjrt's execute-order extension): the second run
  // waits for the first's completion future; an empty future is refused.
  Future first;
  auto run1 = exe->ExecuteOne(args, {}, &first);
  ASSERT_TRUE(run1.ok()) << run1.status();
  ExecuteOptions ordered;
  ordered.stream_id = 5;
  ordered.wait_for = {&first};
  Future second;
  auto run2 = exe->ExecuteOne(args, ordered, &second);
  ASSERT_TRUE(run2.ok()) << run2.status();
  EXPECT_TRUE(second.Await().ok());
  EXPECT_TRUE(first.IsReady()) << "the second execution finished before the one it waits for";
  EXPECT_EQ(Floats((*run2)[0]), (std::vector<float>{12, 24, 36, 48}));
  Future empty;
  ordered.wait_for = {&empty};
  auto refused = exe->ExecuteOne(args, ordered);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("empty future"), std::string::npos) << refused.status();
}

TEST_F(ClientTest, TwoReplicasAndPortableExecution) {
  const char* prog = R"(
module attributes {mhlo.num_replicas = 2 : i32} {
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}})";
  CompileOptions two;
  two.num_replicas = 2;
  auto exe = client->Compile(prog, two);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->num_devices(), 2u);
  auto from_attr = client->Compile(prog);  // counts not given: the module's attribute
  ASSERT_TRUE(from_attr.ok()) << from_attr.status();
  EXPECT_EQ(from_attr->num_devices(), 2u);
  std::vector<float> v0 = {1, 2}, v1 = {10, 20};
  auto b0 = client->Upload(v0.data(), PJRT_Buffer_Type_F32, {2}, &client->devices()[0]);
  auto b1 = client->Upload(v1.data(), PJRT_Buffer_Type_F32, {2}, &client->devices()[1]);
  auto out = exe->Execute({{&*b0}, {&*b1}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Floats((*out)[1][0]), (std::vector<float>{11, 22}));
  EXPECT_EQ((*out)[1][0].device_id(), 1);

  CompileOptions portable;
  portable.portable = true;
  auto p = client->Compile("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }",
                           portable);
  ASSERT_TRUE(p.ok()) << p.status();
  ExecuteOptions on1;
  on1.execute_device = &client->devices()[1];
  auto po = p->Execute({{&*b1}}, on1);
  ASSERT_TRUE(po.ok()) << po.status();
  EXPECT_EQ((*po)[0][0].device_id(), 1);
}

// Plugins such as XLA's take the counts of the compile options literally (0 replicas aborts the
// process there), so the client resolves "not given" itself.
TEST(CompileOptionsTest, DeviceCountsNotGivenAreResolved) {
  CompileOptions none;
  const char* two = "module @m attributes {mhlo.num_partitions = 3 : i32, mhlo.num_replicas = 2 : i32} {\n"
                    "func.func @main() {\n return\n}\n}";
  CompileOptions r = ResolveDeviceCounts(two, none);
  EXPECT_EQ(r.num_replicas, 2);
  EXPECT_EQ(r.num_partitions, 3);
  // Given counts win; an attribute inside a function is not the module's.
  CompileOptions given;
  given.num_replicas = 4;
  r = ResolveDeviceCounts(two, given);
  EXPECT_EQ(r.num_replicas, 4);
  EXPECT_EQ(r.num_partitions, 3);
  r = ResolveDeviceCounts("func.func @main() attributes {mhlo.num_replicas = 5} {\n return\n}", none);
  EXPECT_EQ(r.num_replicas, 1);
  EXPECT_EQ(r.num_partitions, 1);
  // Bytecode and plain HLO: 1 each.
  r = ResolveDeviceCounts(std::string_view("ML\xefR\x01mhlo.num_replicas = 2", 26), none);
  EXPECT_EQ(r.num_replicas, 1);
  CompileOptions hlo;
  hlo.format = "hlo";
  EXPECT_EQ(ResolveDeviceCounts("anything", hlo).num_replicas, 1);
  // HloModuleProtoWithConfig: config (2) {replica_count (4) = 2, num_partitions (5) = 3}, after a module (1).
  CompileOptions with_config;
  with_config.format = "hlo_with_config";
  const std::string proto = std::string("\x0a\x02\x08\x01") + "\x12\x04\x20\x02\x28\x03";
  r = ResolveDeviceCounts(proto, with_config);
  EXPECT_EQ(r.num_replicas, 2);
  EXPECT_EQ(r.num_partitions, 3);
  EXPECT_EQ(ResolveDeviceCounts("\x12\xff", with_config).num_replicas, 1);  // truncated: 1, no overrun
  // What Compile sends for default options: replicas 1, partitions 1 (field 3 {4: 1, 5: 1}).
  EXPECT_EQ(SerializeCompileOptions(ResolveDeviceCounts("func.func @main() {\n return\n}", none)),
            std::string("\x1a\x04\x20\x01\x28\x01"));
}

TEST_F(ClientTest, ErrorsCarryCodesAndMessages) {
  auto bad = client->Compile("func.func @main() -> tensor<f32> {\n  %0 = stablehlo.bogus : tensor<f32>\n}");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find(":2:"), std::string::npos) << bad.status();

  auto exe = client->Compile(kAxpy);
  ASSERT_TRUE(exe.ok());
  float a = 1;
  auto ba = client->Upload(&a, PJRT_Buffer_Type_F32, {});
  auto wrong = exe->Execute({{&*ba, &*ba, &*ba}});  // scalars where tensor<4xf32> is expected
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.status().message().find("argument #1"), std::string::npos) << wrong.status();

  auto no_type = client->Upload(&a, PJRT_Buffer_Type_INVALID, {});
  EXPECT_EQ(no_type.status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<int32_t> ints = {1, 2, 3};
  auto wrong_size = client->Upload(std::span<const int32_t>(ints), {4});
  EXPECT_NE(wrong_size.status().message().find("holds 3 elements"), std::string::npos);
  auto typed = client->Upload(std::span<const int32_t>(ints), {3});
  ASSERT_TRUE(typed.ok()) << typed.status();
  EXPECT_EQ(typed->element_type(), PJRT_Buffer_Type_S32);
  auto missing = client->CompileFile("/nonexistent.mlir");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);

  // A failed computation: its output's ready future reports the error through ReadyStatus as
  // through Await; a good one reports OK; an empty future refuses.
  auto failing = client->Compile(
      "func.func @main() -> tensor<f32> {\n  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n"
      "  check.expect_eq_const %0, dense<2.0> : tensor<f32>\n  return %0 : tensor<f32>\n}");
  ASSERT_TRUE(failing.ok()) << failing.status();
  auto failed = failing->ExecuteOne({});
  ASSERT_TRUE(failed.ok()) << failed.status();
  Future f = (*failed)[0].Ready();
  EXPECT_EQ(f.Await().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(f.IsReady());
  const absl::Status why = f.ReadyStatus();
  EXPECT_EQ(why.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(why.message().find("check failed"), std::string::npos) << why;
  EXPECT_TRUE(typed->Ready().ReadyStatus().ok());
  EXPECT_EQ(Future().ReadyStatus().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(PluginLoad, ByNameByPathAndFailures) {
  // By name through PJRT_PLUGIN_LIBRARY_PATH.
  std::filesystem::path plugin = DefaultPluginPath();
  setenv("PJRT_PLUGIN_LIBRARY_PATH", plugin.parent_path().c_str(), 1);
  auto by_name = Plugin::Load("cpu");
  ASSERT_TRUE(by_name.ok()) << by_name.status();
  EXPECT_EQ(std::filesystem::path((*by_name)->path()).filename(), "pjrt_c_api_cpu_plugin.so");

  auto missing = Plugin::Load("no_such_device");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("pjrt_c_api_no_such_device_plugin.so"), std::string::npos);
  auto not_plugin = Plugin::Load("libm.so.6");
  EXPECT_FALSE(not_plugin.ok());
  EXPECT_NE(not_plugin.status().message().find("GetPjrtApi"), std::string::npos) << not_plugin.status();
  auto bad_path = Plugin::Load("/nonexistent/pjrt.so");
  EXPECT_EQ(bad_path.status().code(), absl::StatusCode::kNotFound);
}

TEST(Npy, RoundTripAndErrors) {
  HostArray a;
  a.type = PJRT_Buffer_Type_S32;
  a.dims = {2, 3};
  for (int i = 0; i < 6; ++i) {
    int32_t v = i * 7 - 3;
    a.data.insert(a.data.end(), reinterpret_cast<uint8_t*>(&v), reinterpret_cast<uint8_t*>(&v) + 4);
  }
  auto bytes = EncodeNpy(a);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ((bytes->size() - a.data.size()) % 64, 0u);  // the header is padded to 64 bytes
  auto back = ParseNpy(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->type, PJRT_Buffer_Type_S32);
  EXPECT_EQ(back->dims, a.dims);
  EXPECT_EQ(back->data, a.data);

  HostArray scalar;
  scalar.type = PJRT_Buffer_Type_F64;
  scalar.data.assign(8, 0);
  auto sb = EncodeNpy(scalar);
  ASSERT_TRUE(sb.ok());
  auto sback = ParseNpy(*sb);
  ASSERT_TRUE(sback.ok()) << sback.status();
  EXPECT_TRUE(sback->dims.empty());

  EXPECT_FALSE(ParseNpy("hello").ok());
  std::string fortran = *bytes;
  size_t f = fortran.find("False");
  fortran.replace(f, 5, "True ");
  EXPECT_NE(ParseNpy(fortran).status().message().find("Fortran"), std::string::npos);
  EXPECT_FALSE(ParseNpy(bytes->substr(0, bytes->size() - 1)).ok());  // truncated data
}

}  // namespace
}  // namespace openpjrt::client
