// The collective hub's side of an execution spanning processes, without Gloo: two hubs in one
// process stand for two processes (one device each), joined by an in-memory ProcessExchange.
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <thread>

#include "gtest/gtest.h"
#include "src/cpu/comm/collectives.h"

namespace openpjrt::cpu {
namespace {

// What two processes' exchanges meet on: per exchange number, each side's outgoing data or the
// reason it gave up.
struct Wire {
  struct Side {
    std::shared_ptr<const Outgoing> out;
    std::string abandoned;
    bool present = false;
  };
  std::mutex mu;
  std::condition_variable cv;
  std::map<uint64_t, Side[2]> sides;
};

class Loopback : public ProcessExchange {
 public:
  Loopback(Wire* wire, int self, bool lie = false) : wire_(wire), self_(self), lie_(lie) {}

  absl::Status Exchange(uint64_t seq, std::shared_ptr<const Outgoing> mine, const PlaceFn& place) override {
    Wire::Side theirs;
    {
      std::unique_lock<std::mutex> lock(wire_->mu);
      auto& slot = wire_->sides[seq][self_];
      slot.out = std::move(mine);
      slot.present = true;
      wire_->cv.notify_all();
      if (!wire_->cv.wait_for(lock, std::chrono::seconds(5), [&] { return wire_->sides[seq][1 - self_].present; }))
        return absl::DeadlineExceededError("the other side never came");
      theirs = wire_->sides[seq][1 - self_];
    }
    if (!theirs.abandoned.empty()) return absl::UnavailableError("process gave up: " + theirs.abandoned);
    std::vector<char> header = theirs.out->header;
    if (lie_) header[0] ^= 1;  // names a device the other side does not run
    Placement where = place(1 - self_, header);
    if (!where.error.empty()) return absl::InternalError(where.error);
    if (where.segments.size() != theirs.out->segments.size()) return absl::InternalError("segment count");
    for (size_t i = 0; i < where.segments.size(); ++i) {
      if (where.segments[i].second != theirs.out->segments[i].second) return absl::InternalError("segment size");
      std::memcpy(where.segments[i].first, theirs.out->segments[i].first, where.segments[i].second);
    }
    return absl::OkStatus();
  }

  void Abandon(uint64_t seq, const std::string& why) override {
    std::lock_guard<std::mutex> lock(wire_->mu);
    auto& slot = wire_->sides[seq][self_];
    slot.abandoned = why;
    slot.present = true;
    wire_->cv.notify_all();
  }

 private:
  Wire* wire_;
  int self_;
  bool lie_;
};

Array Vec(std::vector<float> v) {
  Array a = Array::Allocate(ArrayType{ElemKind::kF32, {static_cast<int64_t>(v.size())}});
  std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(float));
  return a;
}

std::vector<float> Values(const Array& a) {
  std::vector<float> v(static_cast<size_t>(a.NumElements()));
  std::memcpy(v.data(), a.data(), v.size() * sizeof(float));
  return v;
}

TEST(HubAcrossProcesses, EachSideReadsTheOthersDeposits) {
  Wire wire;
  Loopback ex0(&wire, 0), ex1(&wire, 1);
  RemoteDevices r0{&ex0, {0, 1}, 0}, r1{&ex1, {0, 1}, 1};
  CollectiveHub h0(2, 1, &r0), h1(2, 1, &r1);
  std::vector<float> seen0, seen1;
  // Two exchanges in a row, as two collectives of one program.
  auto run = [](CollectiveHub& h, int device, float base, std::vector<float>* seen) {
    for (int round = 0; round < 2; ++round) {
      const bool ok = h.Exchange(device, {RtValue::Of(Vec({base + round, base + 10 * round}))},
                                 [&](const std::vector<std::vector<RtValue>>& all) {
                                   for (const auto& d : all) {
                                     std::vector<float> v = Values(d[0].array);
                                     seen->insert(seen->end(), v.begin(), v.end());
                                   }
                                 });
      EXPECT_TRUE(ok) << h.remote_error();
    }
  };
  std::thread t0(run, std::ref(h0), 0, 1.f, &seen0);
  std::thread t1(run, std::ref(h1), 1, 5.f, &seen1);
  t0.join();
  t1.join();
  const std::vector<float> want = {1, 1, 5, 5, 2, 11, 6, 15};
  EXPECT_EQ(seen0, want);
  EXPECT_EQ(seen1, want);
}

TEST(HubAcrossProcesses, AHeaderNamingAnotherProcesssDeviceIsAnError) {
  Wire wire;
  Loopback ex0(&wire, 0, /*lie=*/true), ex1(&wire, 1);
  RemoteDevices r0{&ex0, {0, 1}, 0}, r1{&ex1, {0, 1}, 1};
  CollectiveHub h0(2, 1, &r0), h1(2, 1, &r1);
  bool ok0 = true;
  std::thread t1([&] { h1.Exchange(1, {RtValue::Of(Vec({1}))}, [](const auto&) {}); });
  ok0 = h0.Exchange(0, {RtValue::Of(Vec({2}))}, [](const auto&) {});
  t1.join();
  EXPECT_FALSE(ok0);
  EXPECT_NE(std::string(h0.remote_error().message()).find("a device it does not run"), std::string::npos)
      << h0.remote_error();
}

TEST(HubAcrossProcesses, AnAbortTellsTheOtherProcessWhy) {
  Wire wire;
  Loopback ex0(&wire, 0), ex1(&wire, 1);
  RemoteDevices r0{&ex0, {0, 1}, 0}, r1{&ex1, {0, 1}, 1};
  CollectiveHub h0(2, 1, &r0), h1(2, 1, &r1);
  h0.Abort(absl::InternalError("device 0: out of luck"));
  EXPECT_FALSE(h1.Exchange(1, {RtValue::Of(Vec({1}))}, [](const auto&) {}));
  EXPECT_NE(std::string(h1.remote_error().message()).find("device 0: out of luck"), std::string::npos)
      << h1.remote_error();
  // An abort without a reason (a collective's own failure, reported by its instance later)
  // says nothing across processes yet.
  Wire quiet;
  Loopback q0(&quiet, 0);
  RemoteDevices rq{&q0, {0, 1}, 0};
  CollectiveHub hq(2, 1, &rq);
  hq.Abort();
  EXPECT_TRUE(quiet.sides.empty());
}

}  // namespace
}  // namespace openpjrt::cpu
