// Two-phase launch, output memory reservations, execution streams and control dependencies.
#include <chrono>
#include <cstring>
#include <thread>

#include "gtest/gtest.h"
#include "src/runtime/executable.h"
#include "src/runtime/test_util.h"
#include "src/support/str.h"

namespace openpjrt::runtime {
namespace {

using test_util::Floats;

constexpr char kAdd[] = R"(
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
})";

// The same, donating its first argument.
constexpr char kAddDonating[] = R"(
func.func @main(%a: tensor<4xf32> {jax.buffer_donor = true}, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
})";

std::unique_ptr<LoadedExecutable> Load(Client* client, const char* text) {
  auto exe = Executable::Compile(text, "mlir", {});
  EXPECT_TRUE(exe.ok()) << exe.status();
  auto le = LoadedExecutable::Load(client, *exe);
  EXPECT_TRUE(le.ok()) << le.status();
  return std::move(*le);
}

float First(const BufferRef& b) {
  EXPECT_TRUE(b->ready_event()->Await().ok()) << b->ready_event()->status();
  auto a = b->GetArray();
  return a.ok() ? a->as<float>()[0] : -1.0f;
}

TEST(LaunchTest, APreparationReservesOutputMemoryAndDroppingItGivesItBack) {
  ClientOptions o;
  o.memory_limit_bytes = 64;  // four 16-byte arrays
  Client client(o);
  Device* d0 = client.devices()[0];
  auto le = Load(&client, kAddDonating);
  BufferRef a = Floats(d0, {1, 2, 3, 4}), b = Floats(d0, {10, 20, 30, 40});
  MemoryStats& stats = d0->stats();
  EXPECT_EQ(stats.bytes_in_use.load(), 32);
  {
    ExecuteRequest req;
    req.args = {{a, b}};
    req.non_donatable = {0};  // nothing donated: the output needs its own 16 bytes
    auto p = le->Prepare(std::move(req));
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->reserved_bytes(), 16);
    EXPECT_EQ(stats.bytes_reserved.load(), 16);
    // Dropped unlaunched: the reservation comes back, the arguments were never touched.
  }
  EXPECT_EQ(stats.bytes_reserved.load(), 0);
  EXPECT_FALSE(a->IsDeleted());
  // A donating preparation needs nothing beyond what the donated argument already holds.
  ExecuteRequest req;
  req.args = {{a, b}};
  auto p = le->Prepare(std::move(req));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->reserved_bytes(), 0);
  EXPECT_FALSE(a->IsDeleted());  // marked only at launch
  ExecuteResult r = le->Launch(*std::move(p));
  EXPECT_TRUE(a->IsDeleted());
  EXPECT_EQ(First(r.outputs[0][0]), 11.0f);
  EXPECT_EQ(stats.bytes_reserved.load(), 0);
  EXPECT_EQ(stats.bytes_in_use.load(), 32);  // b and the output; a's storage went to the run
}

TEST(LaunchTest, AFailedPreparationMarksNothingAndARetryWaitsForFrees) {
  for (int timeout_ms : {20, 10000}) {
    ClientOptions o;
    o.memory_limit_bytes = 48;
    o.oom_retry_timeout_ms = timeout_ms;
    Client client(o);
    Device* d0 = client.devices()[0];
    auto le = Load(&client, kAddDonating);
    BufferRef a = Floats(d0, {1, 2, 3, 4}), b = Floats(d0, {10, 20, 30, 40});
    BufferRef filler = Floats(d0, {0, 0, 0, 0});  // 48 of 48 bytes in use
    ExecuteRequest req;
    req.args = {{a, b}};
    req.non_donatable = {0};
    if (timeout_ms == 20) {  // nothing frees memory: RESOURCE_EXHAUSTED after the wait, nothing marked
      auto p = le->Prepare(req);
      ASSERT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted) << p.status();
      EXPECT_NE(p.status().message().find("the outputs need 16 bytes; 48 of the 48-byte limit are in use"),
                std::string::npos) << p.status();
      EXPECT_FALSE(a->IsDeleted());
      EXPECT_EQ(d0->stats().bytes_reserved.load(), 0);
      continue;
    }
    // Another thread frees memory while the preparation waits: it goes through.
    std::thread freer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      filler.reset();
    });
    auto p = le->Prepare(req);
    freer.join();
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(First(le->Launch(*std::move(p)).outputs[0][0]), 11.0f);
  }
}

TEST(LaunchTest, ExecutionsOnOneStreamRunInLaunchOrder) {
  Client client(ClientOptions{});
  Device* d0 = client.devices()[0];
  auto le = Load(&client, kAdd);
  auto pending = Buffer::CreatePending(d0->default_memory(), BufferShape{{ir::ElemKind::kF32, {4}}});
  BufferRef one = Floats(d0, {1, 1, 1, 1});
  ExecuteRequest first;
  first.args = {{pending, one}};
  first.stream_id = 7;
  auto r1 = le->Execute(std::move(first));
  ASSERT_TRUE(r1.ok()) << r1.status();
  // Same stream: ready arguments, but it waits for the first execution.
  ExecuteRequest second;
  second.args = {{one, one}};
  second.stream_id = 7;
  auto r2 = le->Execute(second);
  ASSERT_TRUE(r2.ok()) << r2.status();
  // Another stream and no stream: they run at once.
  ExecuteRequest other = second;
  other.stream_id = 8;
  auto r3 = le->Execute(other);
  other.stream_id = 0;
  auto r4 = le->Execute(other);
  ASSERT_TRUE(r3.ok() && r4.ok());
  EXPECT_EQ(First(r3->outputs[0][0]), 2.0f);
  EXPECT_EQ(First(r4->outputs[0][0]), 2.0f);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(r2->device_done[0]->IsReady());
  EXPECT_FALSE(r2->outputs[0][0]->ready_event()->IsReady());
  // The first one fails (its argument does): the second runs after it, unharmed.
  pending->Fail(absl::DataLossError("never came"));
  EXPECT_EQ(r1->outputs[0][0]->ready_event()->Await().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(First(r2->outputs[0][0]), 2.0f);
  EXPECT_TRUE(r2->device_done[0]->Await().ok());
}

TEST(LaunchTest, WaitForEventsAreControlDependencies) {
  Client client(ClientOptions{});
  Device* d0 = client.devices()[0];
  auto le = Load(&client, kAdd);
  BufferRef one = Floats(d0, {1, 1, 1, 1});
  EventRef gate = Event::Create();
  ExecuteRequest req;
  req.args = {{one, one}};
  req.wait_for = {gate};
  auto r = le->Execute(req);
  ASSERT_TRUE(r.ok()) << r.status();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(r->outputs[0][0]->ready_event()->IsReady());
  gate->Set(absl::OkStatus());
  EXPECT_EQ(First(r->outputs[0][0]), 2.0f);
  // A dependency's error is every output's error, and the arguments stay usable.
  EventRef broken = Event::Create();
  req.wait_for = {broken};
  auto r2 = le->Execute(req);
  ASSERT_TRUE(r2.ok());
  broken->Set(absl::AbortedError("upstream transfer failed"));
  absl::Status s = r2->outputs[0][0]->ready_event()->Await();
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(s.message(), "upstream transfer failed");
  EXPECT_EQ(r2->device_done[0]->Await().code(), absl::StatusCode::kAborted);
  EXPECT_FALSE(one->IsDeleted());
  req.wait_for = {nullptr};
  EXPECT_EQ(le->Execute(req).status().code(), absl::StatusCode::kInvalidArgument);
}

// Small programs run on the caller's thread; a loop counts once per iteration when its trip count
// is a constant (fori_loop, scan), and a loop of unknown length sends the program to the pool.
TEST(LaunchTest, LoopsWithConstantTripCountsRunInlineWhenSmall) {
  auto loop = [](int64_t trips, const char* cond_rhs) {
    return StrCat(R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
  cond {
    %n = stablehlo.constant dense<)", trips, R"(> : tensor<i32>
    %p = stablehlo.compare LT, %i, )", cond_rhs, R"(, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %w = stablehlo.add %v, %v : tensor<4xf32>
    stablehlo.return %j, %w : tensor<i32>, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
})");
  };
  auto inline_run = [](const std::string& text) {
    auto exe = Executable::Compile(text, "mlir", {});
    EXPECT_TRUE(exe.ok()) << exe.status();
    return exe.ok() && (*exe)->runs_inline();
  };
  EXPECT_TRUE(inline_run(loop(200, "%n")));
  EXPECT_FALSE(inline_run(loop(int64_t{1} << 30, "%n")));  // ~1e13 flop-equivalents: the pool
  EXPECT_FALSE(inline_run(loop(200, "%i")));                // not a constant bound: unknown length
  EXPECT_TRUE(inline_run(kAdd));
}

}  // namespace
}  // namespace openpjrt::runtime
