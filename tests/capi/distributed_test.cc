// Clients spanning processes, through the C API only: the test forks 2 processes that share a
// key-value store (files in a temporary folder, the PJRT kv callbacks over them), each creates a
// client with node_id / num_nodes, and they run collectives over devices of both processes.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>

#include "include/openpjrt/c/pjrt_c_api_cross_host_transfers_extension.h"
#include "tests/capi/capi_fixture.h"
#include "tests/support/file_kv.h"

namespace capi {
namespace {

openpjrt::testing::FileKv* g_kv = nullptr;

PJRT_Error* KvPut(PJRT_KeyValuePutCallback_Args* a) {
  static_cast<openpjrt::testing::FileKv*>(a->user_arg)->Put(std::string(a->key, a->key_size),
                                                          std::string(a->value, a->value_size));
  return nullptr;
}

PJRT_Error* KvGet(PJRT_KeyValueGetCallback_Args* a) {
  const std::string key(a->key, a->key_size);
  auto v = static_cast<openpjrt::testing::FileKv*>(a->user_arg)->Get(key, a->timeout_in_ms);
  if (!v) {
    std::string m = "no key " + key;
    return (*a->callback_error)(PJRT_Error_Code_DEADLINE_EXCEEDED, m.data(), m.size());
  }
  a->value = new char[v->size() + 1];
  std::memcpy(a->value, v->data(), v->size());
  a->value_size = v->size();
  a->value_deleter_callback = [](char* p) { delete[] p; };
  return nullptr;
}

class DistributedTest : public PluginTest {
 public:
  void SetUp() override {
    api = Api();
    ASSERT_NE(api, nullptr) << "set PJRT_PLUGIN to a loadable plugin";
    char tmpl[] = "/tmp/opj_kv_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    g_kv = new openpjrt::testing::FileKv(tmpl);
  }
  void TearDown() override {
    std::string cmd = "rm -rf " + g_kv->dir();
    (void)std::system(cmd.c_str());
    delete g_kv;
    g_kv = nullptr;
  }

  // A client of `nodes` processes, this one `rank`, with `devices` devices each.
  PJRT_Error* TryCreate(int rank, int nodes, int devices, PJRT_Client** out, int timeout_ms = 20000,
                        bool with_kv = true) {
    std::vector<PJRT_NamedValue> o = {IntOption("node_id", rank), IntOption("num_nodes", nodes),
                                      IntOption("cpu_device_count", devices),
                                      IntOption("collectives_timeout_ms", timeout_ms)};
    auto a = Args<PJRT_Client_Create_Args>();
    a.create_options = o.data();
    a.num_options = o.size();
    if (with_kv) {
      a.kv_get_callback = &KvGet;
      a.kv_get_user_arg = g_kv;
      a.kv_put_callback = &KvPut;
      a.kv_put_user_arg = g_kv;
    }
    PJRT_Error* e = api->PJRT_Client_Create(&a);
    *out = a.client;
    return e;
  }

  // Runs body(rank) in `n` forked processes; each must exit 0 (no failed expectation) within
  // `limit_s` seconds. The parent never creates a client, so the children fork no threads.
  void RunProcesses(int n, const std::function<void(int)>& body, int limit_s = 60) {
    std::vector<pid_t> pids;
    for (int r = 0; r < n; ++r) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        body(r);
        std::fflush(nullptr);
        _exit(::testing::Test::HasFailure() ? 1 : 0);
      }
      pids.push_back(pid);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
    for (int r = 0; r < n; ++r) {
      int status = 0;
      while (waitpid(pids[r], &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          for (pid_t p : pids) kill(p, SIGKILL);
          waitpid(pids[r], &status, 0);
          ADD_FAILURE() << "process " << r << " did not finish within " << limit_s << " s";
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "process " << r << " failed (status " << status << ")";
    }
  }

  // Runs `exe` on one device with argument `arg`, expecting it to fail: the error, whether the
  // call returns it or the output's ready event carries it.
  std::string ErrorOfExecution(PJRT_LoadedExecutable* exe, PJRT_Buffer* arg) {
    std::vector<std::vector<PJRT_Buffer*>> outs;
    PJRT_Error* run = TryExecute(exe, {{arg}}, 1, &outs);
    if (run) return Message(run);
    auto ev = Args<PJRT_Buffer_ReadyEvent_Args>();
    ev.buffer = outs[0][0];
    PJRT_Error* e = api->PJRT_Buffer_ReadyEvent(&ev);
    std::string why = e ? Message(e) : Message(Await(ev.event));
    Destroy(outs[0][0]);
    return why;
  }

  void DestroyClient(PJRT_Client* c) {
    auto d = Args<PJRT_Client_Destroy_Args>();
    d.client = c;
    EXPECT_EQ(api->PJRT_Client_Destroy(&d), nullptr);
  }
};

// CompileOptionsProto{executable_build_options{num_replicas: 4}}
const std::string kFourReplicas("\x1a\x02\x20\x04", 4);

// Every collective over 4 replicas, 2 in each process; each replica's input is (r, 10 + r, ...).
const char* kCollectives = R"(
module attributes {mhlo.num_replicas = 4 : i32} {
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<4xf32>) {
  %sum = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %all = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<16xf32>
  %a2a = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %perm = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %rs = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xf32>) -> tensor<1xf32>
  %pairs = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %sum, %all, %a2a, %perm, %rs, %pairs : tensor<4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<4xf32>
}})";

// CompileOptionsProto{executable_build_options{num_replicas: 2}}
const std::string kTwoReplicas("\x1a\x02\x20\x02", 4);

// Two replicas sum their inputs, then sum the sums (two exchanges).
const char* kPairSumTwice = R"(
module attributes {mhlo.num_replicas = 2 : i32} {
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "stablehlo.all_reduce"(%0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}})";

std::vector<float> InputOf(int r) { return {float(r), 10.f + r, 20.f + r * r, -1.f * r}; }

TEST_F(DistributedTest, EveryProcessSeesTheGlobalDevicesInTheSameOrder) {
  RunProcesses(2, [&](int rank) {
    PJRT_Client* c = nullptr;
    PJRT_Error* e = TryCreate(rank, 2, rank == 0 ? 2 : 3, &c);
    ASSERT_EQ(e, nullptr) << Message(e);
    auto pi = Args<PJRT_Client_ProcessIndex_Args>();
    pi.client = c;
    CAPI_OK(api->PJRT_Client_ProcessIndex(&pi));
    EXPECT_EQ(pi.process_index, rank);
    auto all = Args<PJRT_Client_Devices_Args>();
    all.client = c;
    CAPI_OK(api->PJRT_Client_Devices(&all));
    ASSERT_EQ(all.num_devices, 5u);
    auto mine = Args<PJRT_Client_AddressableDevices_Args>();
    mine.client = c;
    CAPI_OK(api->PJRT_Client_AddressableDevices(&mine));
    EXPECT_EQ(mine.num_addressable_devices, rank == 0 ? 2u : 3u);
    for (size_t i = 0; i < all.num_devices; ++i) {
      auto gd = Args<PJRT_Device_GetDescription_Args>();
      gd.device = all.devices[i];
      CAPI_OK(api->PJRT_Device_GetDescription(&gd));
      auto id = Args<PJRT_DeviceDescription_Id_Args>();
      id.device_description = gd.device_description;
      CAPI_OK(api->PJRT_DeviceDescription_Id(&id));
      EXPECT_EQ(id.id, static_cast<int>(i));
      auto proc = Args<PJRT_DeviceDescription_ProcessIndex_Args>();
      proc.device_description = gd.device_description;
      CAPI_OK(api->PJRT_DeviceDescription_ProcessIndex(&proc));
      const int owner = i < 2 ? 0 : 1;
      EXPECT_EQ(proc.process_index, owner) << "device " << i;
      auto ia = Args<PJRT_Device_IsAddressable_Args>();
      ia.device = all.devices[i];
      CAPI_OK(api->PJRT_Device_IsAddressable(&ia));
      EXPECT_EQ(ia.is_addressable, owner == rank) << "device " << i;
      auto hw = Args<PJRT_Device_LocalHardwareId_Args>();
      hw.device = all.devices[i];
      CAPI_OK(api->PJRT_Device_LocalHardwareId(&hw));
      EXPECT_EQ(hw.local_hardware_id, owner == rank ? static_cast<int>(i) - (owner ? 2 : 0) : -1);
    }
    // Another process's device holds no buffer of this one.
    PJRT_Device* remote = all.devices[rank == 0 ? 4 : 0];
    float v = 1;
    auto h = Args<PJRT_Client_BufferFromHostBuffer_Args>();
    h.client = c;
    h.data = &v;
    h.type = PJRT_Buffer_Type_F32;
    h.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
    h.device = remote;
    PJRT_Error* refused = api->PJRT_Client_BufferFromHostBuffer(&h);
    std::string m = Message(refused);
    EXPECT_NE(m.find("belongs to process"), std::string::npos) << m;
    DestroyClient(c);
  });
}

// Runs kCollectives (4 replicas, replica r on device r) on client `c`, whose devices are replicas
// first .. first + local - 1, twice, checking each output against what the replicas' inputs give.
void CheckCollectives(DistributedTest* t, PJRT_Client* c, int first, int local) {
  const PJRT_Api* api = t->api;
  PJRT_LoadedExecutable* exe = t->Compile(kCollectives, c, kFourReplicas);
  ASSERT_NE(exe, nullptr);
  auto ad = Args<PJRT_LoadedExecutable_AddressableDevices_Args>();
  ad.executable = exe;
  CAPI_OK(api->PJRT_LoadedExecutable_AddressableDevices(&ad));
  ASSERT_EQ(ad.num_addressable_devices, static_cast<size_t>(local));
  // Twice: the second execution reuses the processes' mesh under a new launch number.
  for (int round = 0; round < 2; ++round) {
    std::vector<std::vector<PJRT_Buffer*>> args;
    for (int l = 0; l < local; ++l) args.push_back({t->Upload(InputOf(first + l), {4}, l, c)});
    auto outs = t->Execute(exe, args, 6);
    ASSERT_EQ(outs.size(), static_cast<size_t>(local));
    for (int l = 0; l < local; ++l) {
      const int r = first + l;
      std::vector<float> sum(4, 0), all, a2a, rs(1, -1e30f), pairs(4, 1);
      for (int k = 0; k < 4; ++k) {
        std::vector<float> in = InputOf(k);
        for (int j = 0; j < 4; ++j) sum[j] += in[j];
        all.insert(all.end(), in.begin(), in.end());
        a2a.push_back(in[r]);
        rs[0] = std::max(rs[0], in[r]);
      }
      const int partner = r == 0 ? 3 : r == 3 ? 0 : r == 1 ? 2 : 1;
      const int lo = std::min(r, partner), hi = std::max(r, partner);
      for (int j = 0; j < 4; ++j) pairs[j] = InputOf(lo)[j] * InputOf(hi)[j];
      EXPECT_EQ(t->Download(outs[l][0]), sum) << "replica " << r;
      EXPECT_EQ(t->Download(outs[l][1]), all) << "replica " << r;
      EXPECT_EQ(t->Download(outs[l][2]), a2a) << "replica " << r;
      EXPECT_EQ(t->Download(outs[l][3]), InputOf((r + 3) % 4)) << "replica " << r;
      EXPECT_EQ(t->Download(outs[l][4]), rs) << "replica " << r;
      EXPECT_EQ(t->Download(outs[l][5]), pairs) << "replica " << r;
      for (PJRT_Buffer* b : outs[l]) t->Destroy(b);
      t->Destroy(args[l][0]);
    }
  }
  t->Destroy(exe);
}

TEST_F(DistributedTest, CollectivesAcrossProcessesMatchOneProcess) {
  RunProcesses(2, [&](int rank) {
    PJRT_Client* c = nullptr;
    PJRT_Error* e = TryCreate(rank, 2, 2, &c);
    ASSERT_EQ(e, nullptr) << Message(e);
    CheckCollectives(this, c, 2 * rank, 2);
    DestroyClient(c);
  });
}

const PJRT_CrossHostTransfers_Extension* CrossHost(const PJRT_Api* api) {
  for (const PJRT_Extension_Base* e = api->extension_start; e; e = e->next)
    if (e->type == PJRT_Extension_Type_CrossHostTransfers) return reinterpret_cast<const PJRT_CrossHostTransfers_Extension*>(e);
  return nullptr;
}

// Cross-host transfers between two processes of one device each (global devices 0 and 1):
// process 0 sends two arrays, process 1 posts their receives in the other order; process 1
// sends one back, which process 0 posts before its own sends (any order completes). Then the
// errors: a device of this process as the destination, and a receive whose size differs from
// what was sent (the buffer fails naming both sizes; the sender completes).
TEST_F(DistributedTest, CrossHostTransfersInAnyOrder) {
  RunProcesses(2, [&](int rank) {
    const PJRT_CrossHostTransfers_Extension* x = CrossHost(api);
    ASSERT_NE(x, nullptr);
    ASSERT_GE(x->base.struct_size, PJRT_CrossHostTransfers_Extension_STRUCT_SIZE);
    PJRT_Client* c = nullptr;
    PJRT_Error* e = TryCreate(rank, 2, 1, &c);
    ASSERT_EQ(e, nullptr) << Message(e);
    const std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {-1, 0.5f, 1e30f}, back = {42, 43};
    auto send = [&](std::vector<PJRT_Buffer*> bufs, std::vector<int64_t> keys, int32_t dst) {
      std::vector<int32_t> dsts(bufs.size(), dst);
      std::vector<PJRT_Event*> events(bufs.size());
      auto s = Args<PJRT_Transfers_PJRT_Client_CrossHostSendBuffers_Args>();
      s.client = c;
      s.num_buffers = bufs.size();
      s.buffers = bufs.data();
      s.dst_global_device_ids = dsts.data();
      s.transfer_keys = keys.data();
      s.send_events = events.data();
      PJRT_Error* err = x->PJRT_Transfers_PJRT_Client_CrossHostSendBuffers(&s);
      return std::make_pair(err, events);
    };
    auto receive = [&](std::vector<std::vector<int64_t>> dims, std::vector<int64_t> keys, int32_t src) {
      std::vector<size_t> ranks;
      std::vector<const int64_t*> dim_ptrs;
      std::vector<PJRT_Buffer_Type> types(dims.size(), PJRT_Buffer_Type_F32);
      for (auto& d : dims) ranks.push_back(d.size()), dim_ptrs.push_back(d.data());
      std::vector<int32_t> srcs(dims.size(), src);
      std::vector<PJRT_Buffer*> out(dims.size());
      auto r = Args<PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers_Args>();
      r.client = c;
      r.num_shapes = dims.size();
      r.shape_num_dims = ranks.data();
      r.num_dims = dim_ptrs.data();
      r.element_types = types.data();
      r.device = Device(0, c);
      r.src_global_device_ids = srcs.data();
      r.transfer_keys = keys.data();
      r.buffers = out.data();
      PJRT_Error* err = x->PJRT_Transfers_PJRT_Client_CrossHostReceiveBuffers(&r);
      EXPECT_EQ(err, nullptr) << Message(err);
      return out;
    };
    if (rank == 0) {
      std::vector<PJRT_Buffer*> got = receive({{2}}, {11}, 1);  // posted before this side sends
      PJRT_Buffer* ba = Upload(a, {2, 3}, 0, c);
      PJRT_Buffer* bb = Upload(b, {3}, 0, c);
      auto [err, events] = send({ba, bb}, {7, 9}, 1);
      ASSERT_EQ(err, nullptr) << Message(err);
      for (PJRT_Event* ev : events) EXPECT_EQ(Message(Await(ev)), "");
      EXPECT_EQ(Download(got[0]), back);
      // Errors: this process's own device; then a size the receiver does not expect.
      auto [own, none] = send({ba}, {21}, 0);
      std::string m = Message(own);
      EXPECT_NE(m.find("is a device of this process"), std::string::npos) << m;
      auto [err2, events2] = send({bb}, {13}, 1);
      ASSERT_EQ(err2, nullptr) << Message(err2);
      EXPECT_EQ(Message(Await(events2[0])), "");
      for (PJRT_Buffer* p : {ba, bb, got[0]}) Destroy(p);
    } else {
      std::vector<PJRT_Buffer*> got = receive({{3}, {2, 3}}, {9, 7}, 0);
      PJRT_Buffer* bk = Upload(back, {2}, 0, c);
      auto [err, events] = send({bk}, {11}, 0);
      ASSERT_EQ(err, nullptr) << Message(err);
      EXPECT_EQ(Message(Await(events[0])), "");
      EXPECT_EQ(Download(got[0]), b);
      EXPECT_EQ(Download(got[1]), a);
      std::vector<PJRT_Buffer*> wrong = receive({{4}}, {13}, 0);
      auto ev = Args<PJRT_Buffer_ReadyEvent_Args>();
      ev.buffer = wrong[0];
      ASSERT_EQ(api->PJRT_Buffer_ReadyEvent(&ev), nullptr);
      std::string m = Message(Await(ev.event));
      EXPECT_NE(m.find("sent 12 bytes; the receiving buffer holds 16"), std::string::npos) << m;
      for (PJRT_Buffer* p : {bk, got[0], got[1], wrong[0]}) Destroy(p);
    }
    DestroyClient(c);
  });
}

// The descriptor-based API: process 1 makes receive buffers, its notifier publishes their
// descriptors (here through the test's file store, as a framework would through its own channel);
// process 0 reads them and copies its buffers there with CopyToRemoteDevice, each event set once
// the descriptor is written. A third receive is cancelled through the cancel notifier: its buffer
// fails with the reason given.
struct Notified {
  std::mutex mu;
  std::vector<std::string> descriptors;
  PJRT_Transfers_CrossHostSendCancelNotifier cancel = nullptr;
  void* cancel_arg = nullptr;
};

TEST_F(DistributedTest, DescriptorTransfersAndCancellation) {
  RunProcesses(2, [&](int rank) {
    const PJRT_CrossHostTransfers_Extension* x = CrossHost(api);
    ASSERT_NE(x, nullptr);
    PJRT_Client* c = nullptr;
    PJRT_Error* e = TryCreate(rank, 2, 1, &c);
    ASSERT_EQ(e, nullptr) << Message(e);
    const std::vector<float> a = {3, 1, 4, 1, 5}, b = {2.5f, -7};
    if (rank == 1) {
      static Notified notified;
      std::vector<int64_t> d0 = {5}, d1 = {2}, d2 = {3};
      std::vector<const int64_t*> dims = {d0.data(), d1.data(), d2.data()};
      std::vector<size_t> ranks = {1, 1, 1};
      std::vector<PJRT_Buffer_Type> types(3, PJRT_Buffer_Type_F32);
      std::vector<PJRT_Buffer*> out(3);
      auto m = Args<PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers_Args>();
      m.client = c;
      m.num_shapes = 3;
      m.shape_num_dims = ranks.data();
      m.num_dims = dims.data();
      m.element_types = types.data();
      m.device = Device(0, c);
      m.buffers = out.data();
      m.allow_cancel_notifier = true;
      m.notifier.user_arg = &notified;
      m.notifier.notifier = [](PJRT_Error* err, const char** ds, size_t* sizes, size_t n, void* arg,
                               PJRT_Transfers_CrossHostSendCancelNotifier cancel, void* cancel_arg) {
        EXPECT_EQ(err, nullptr);
        auto* nt = static_cast<Notified*>(arg);
        std::lock_guard<std::mutex> lock(nt->mu);
        for (size_t i = 0; i < n; ++i) nt->descriptors.emplace_back(ds[i], sizes[i]);
        nt->cancel = cancel;
        nt->cancel_arg = cancel_arg;
        g_kv->Put("descriptors", nt->descriptors[0] + "\n" + nt->descriptors[1]);
      };
      PJRT_Error* err = x->PJRT_Transfers_PJRT_Client_MakeCrossHostReceiveBuffers(&m);
      ASSERT_EQ(err, nullptr) << Message(err);
      ASSERT_EQ(m.num_buffers, 3u);
      ASSERT_TRUE(g_kv->Get("descriptors", 20000).has_value());
      PJRT_Transfers_CrossHostSendCancelNotifier cancel;
      std::string third;
      void* cancel_arg;
      {
        std::lock_guard<std::mutex> lock(notified.mu);
        cancel = notified.cancel;
        cancel_arg = notified.cancel_arg;
        third = notified.descriptors[2];
      }
      ASSERT_NE(cancel, nullptr);
      std::string canceled = "(not called)";
      const std::string reason = "the step was abandoned";
      cancel(third.data(), third.size(), PJRT_Error_Code_ABORTED, reason.data(), reason.size(),
             [](PJRT_Error* err, void* arg) { *static_cast<std::string*>(arg) = Message(err); }, &canceled,
             cancel_arg);
      EXPECT_EQ(canceled, "");
      EXPECT_EQ(Download(out[0]), a);
      EXPECT_EQ(Download(out[1]), b);
      // Cancelling a transfer that has completed, or with a descriptor that is not ours: errors
      // through on_canceled.
      const std::string first = notified.descriptors[0], bogus = "not-a-descriptor";
      for (const auto& [d, expected] : {std::pair{first, "is not waiting"}, std::pair{bogus, "not one of this plugin's"}}) {
        canceled = "(not called)";
        cancel(d.data(), d.size(), PJRT_Error_Code_ABORTED, reason.data(), reason.size(),
               [](PJRT_Error* err, void* arg) { *static_cast<std::string*>(arg) = Message(err); }, &canceled,
               cancel_arg);
        EXPECT_NE(canceled.find(expected), std::string::npos) << canceled;
      }
      auto ev = Args<PJRT_Buffer_ReadyEvent_Args>();
      ev.buffer = out[2];
      ASSERT_EQ(api->PJRT_Buffer_ReadyEvent(&ev), nullptr);
      PJRT_Error* failed = Await(ev.event);
      EXPECT_EQ(Code(failed), PJRT_Error_Code_ABORTED);
      for (PJRT_Buffer* p : out) Destroy(p);
    } else {
      auto all = g_kv->Get("descriptors", 20000);
      ASSERT_TRUE(all.has_value());
      static std::string desc[2];
      desc[0] = all->substr(0, all->find('\n'));
      desc[1] = all->substr(all->find('\n') + 1);
      struct Done {
        std::mutex mu;
        int calls = 0;
        std::string errors;
      };
      static Done done;
      std::vector<PJRT_Buffer*> bufs = {Upload(a, {5}, 0, c), Upload(b, {2}, 0, c)};
      for (int i = 0; i < 2; ++i) {
        static char* data[2];
        static size_t size[2];
        auto ce = Args<PJRT_Event_Create_Args>();
        ASSERT_EQ(api->PJRT_Event_Create(&ce), nullptr);
        auto copy = Args<PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice_Args>();
        copy.buffer = bufs[i];
        copy.event = ce.event;
        copy.serialized_descriptor = &data[i];
        copy.serialized_descriptor_size = &size[i];
        copy.on_done.user_arg = &done;
        copy.on_done.on_done = [](PJRT_Error* err, bool enqueued, void* arg) {
          auto* d = static_cast<Done*>(arg);
          std::lock_guard<std::mutex> lock(d->mu);
          ++d->calls;
          if (err || !enqueued) d->errors += Message(err) + ";";
        };
        copy.descriptor_destructor = [](char** p, size_t* n) { *p = nullptr, *n = 0; };
        x->PJRT_Transfers_PJRT_Buffer_CopyToRemoteDevice(&copy);
        // The descriptor arrives after the call, as it does from a framework's channel.
        data[i] = desc[i].data();
        size[i] = desc[i].size();
        auto set = Args<PJRT_Event_Set_Args>();
        set.event = ce.event;
        set.error_code = PJRT_Error_Code_OK;
        ASSERT_EQ(api->PJRT_Event_Set(&set), nullptr);
      }
      for (int spin = 0; spin < 2000; ++spin) {
        {
          std::lock_guard<std::mutex> lock(done.mu);
          if (done.calls == 2) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      std::lock_guard<std::mutex> lock(done.mu);
      EXPECT_EQ(done.calls, 2);
      EXPECT_EQ(done.errors, "");
      for (PJRT_Buffer* p : bufs) Destroy(p);
    }
    DestroyClient(c);
  });
}

TEST_F(DistributedTest, ThreeProcessesWithUnevenDeviceCounts) {
  // Processes of 1, 2 and 1 devices: replica 0 in process 0, replicas 1-2 in process 1, 3 in 2.
  RunProcesses(3, [&](int rank) {
    const int local = rank == 1 ? 2 : 1, first = rank == 0 ? 0 : rank == 1 ? 1 : 3;
    PJRT_Client* c = nullptr;
    PJRT_Error* e = TryCreate(rank, 3, local, &c);
    ASSERT_EQ(e, nullptr) << Message(e);
    CheckCollectives(this, c, first, local);
    DestroyClient(c);
  });
}

TEST_F(DistributedTest, ADeadPeerFailsTheSurvivorNamingIt) {
  RunProcesses(2, [&](int rank) {
    PJRT_Client* c = nullptr;
    PJRT_Error* e = TryCreate(rank, 2, 1, &c, /*timeout_ms=*/20000);
    ASSERT_EQ(e, nullptr) << Message(e);
    client = c;
    PJRT_LoadedExecutable* exe = Compile(kPairSumTwice, c, kTwoReplicas);
    ASSERT_NE(exe, nullptr);
    PJRT_Buffer* in = Upload({float(rank), 1}, {2}, 0, c);
    auto outs = Execute(exe, {{in}}, 1);
    EXPECT_EQ(Download(outs[0][0]), (std::vector<float>{2, 4}));
    Destroy(outs[0][0]);
    if (rank == 1) _exit(0);  // dies without a word, its connections closing
    const auto start = std::chrono::steady_clock::now();
    const std::string why = ErrorOfExecution(exe, in);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_NE(why.find("process 1"), std::string::npos) << why;
    EXPECT_LT(waited, 15.0) << "a closed connection should fail the exchange at once";
    // Nothing was lost: the client still works for programs of its own devices, and is destroyed
    // cleanly.
    Destroy(in);
    Destroy(exe);
    client = nullptr;
    DestroyClient(c);
  });
}

TEST_F(DistributedTest, AHungPeerFailsTheSurvivorWithinTheTimeout) {
  RunProcesses(2, [&](int rank) {
    PJRT_Client* c = nullptr;
    PJRT_Error* e = TryCreate(rank, 2, 1, &c, /*timeout_ms=*/1000);
    ASSERT_EQ(e, nullptr) << Message(e);
    client = c;
    const std::string prog = R"(
module attributes {mhlo.num_replicas = 2 : i32} {
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<4xf32>
  %1 = stablehlo.slice %0 [1:3] : (tensor<4xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}})";
    PJRT_LoadedExecutable* exe = Compile(prog, c, kTwoReplicas);
    ASSERT_NE(exe, nullptr);
    PJRT_Buffer* in = Upload({float(rank), 5}, {2}, 0, c);
    auto first = Execute(exe, {{in}}, 1);  // connects the mesh
    EXPECT_EQ(Download(first[0][0]), (std::vector<float>{5, 1}));
    Destroy(first[0][0]);
    if (rank == 1) {
      // Never joins the next collective, but stays alive (its connections open) past the timeout.
      std::this_thread::sleep_for(std::chrono::seconds(4));
      _exit(0);
    }
    const auto start = std::chrono::steady_clock::now();
    const std::string why = ErrorOfExecution(exe, in);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_NE(why.find("process 1"), std::string::npos) << why;
    EXPECT_LT(waited, 3.5) << why;
    Destroy(in);
    Destroy(exe);
    client = nullptr;
    // The mesh failed with transfers pending: the client is still destroyed cleanly.
    DestroyClient(c);
  });
}

TEST_F(DistributedTest, AProcessThatFailsTellsTheOthersAtOnce) {
  RunProcesses(2, [&](int rank) {
    PJRT_Client* c = nullptr;
    PJRT_Error* e = TryCreate(rank, 2, 1, &c, /*timeout_ms=*/30000);
    ASSERT_EQ(e, nullptr) << Message(e);
    PJRT_LoadedExecutable* exe = Compile(kPairSumTwice, c, kTwoReplicas);
    ASSERT_NE(exe, nullptr);
    // Both run once (the mesh connects); then process 1's argument is an error buffer, so its
    // execution fails before the program starts.
    PJRT_Buffer* in = Upload({1, 2}, {2}, 0, c);
    auto first = Execute(exe, {{in}}, 1);
    EXPECT_EQ(Download(first[0][0]), (std::vector<float>{4, 8}));
    Destroy(first[0][0]);
    PJRT_Buffer* arg = in;
    if (rank == 1) {
      int64_t dims[1] = {2};
      auto eb = Args<PJRT_Client_CreateErrorBuffer_Args>();
      eb.client = c;
      eb.error_code = PJRT_Error_Code_DATA_LOSS;
      eb.error_message = "the input never arrived";
      eb.error_message_size = std::strlen(eb.error_message);
      eb.shape_dims = dims;
      eb.shape_num_dims = 1;
      eb.shape_element_type = PJRT_Buffer_Type_F32;
      auto dm = Args<PJRT_Device_DefaultMemory_Args>();
      dm.device = Device(0, c);
      CAPI_OK(api->PJRT_Device_DefaultMemory(&dm));
      eb.memory = dm.memory;
      CAPI_OK(api->PJRT_Client_CreateErrorBuffer(&eb));
      arg = eb.buffer;
    }
    const auto start = std::chrono::steady_clock::now();
    const std::string why = ErrorOfExecution(exe, arg);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_NE(why.find("the input never arrived"), std::string::npos) << why;
    if (rank == 0) EXPECT_NE(why.find("process 1 failed"), std::string::npos) << why;
    EXPECT_LT(waited, 10.0) << "the survivor waited for the 30 s timeout: " << why;
    if (arg != in) Destroy(arg);
    // The mesh is still good: both run the program again.
    auto again = Execute(exe, {{in}}, 1);
    EXPECT_EQ(Download(again[0][0]), (std::vector<float>{4, 8}));
    Destroy(again[0][0]);
    Destroy(in);
    Destroy(exe);
    DestroyClient(c);
  });
}

TEST_F(DistributedTest, AMissingProcessOrStoreIsAClearError) {
  PJRT_Client* c = nullptr;
  // No key-value store at all.
  PJRT_Error* e = TryCreate(0, 2, 1, &c, 1000, /*with_kv=*/false);
  std::string m = Message(e);
  EXPECT_NE(m.find("kv_get_callback is null"), std::string::npos) << m;
  // A store nobody else writes to: process 1 never publishes (the store's timeout passes).
  RunProcesses(1, [&](int) {
    PJRT_Client* lone = nullptr;
    const auto start = std::chrono::steady_clock::now();
    PJRT_Error* err = TryCreate(0, 2, 1, &lone, 800);
    std::string why = Message(err);
    EXPECT_NE(why.find("process 1 of 2 did not publish its devices"), std::string::npos) << why;
    EXPECT_EQ(lone, nullptr);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
  });
  // node_id outside num_nodes.
  e = TryCreate(3, 2, 1, &c);
  m = Message(e);
  EXPECT_NE(m.find("node_id is 3 but num_nodes is 2"), std::string::npos) << m;
}

}  // namespace
}  // namespace capi
