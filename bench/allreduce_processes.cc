// All-reduce across 2 processes: openpjrt's cross-process collective (a 2-replica all_reduce
// program, one device per process, through the runtime and the Gloo mesh) against Gloo's own
// ring all-reduce on the same two processes and loopback, and against memcpy of the same bytes.
//
//   build/bin/allreduce_processes [max_mib]     (sizes 1 KiB .. max_mib MiB, default 256)
//
// The processes are forked; they meet through a key-value store in a temporary folder. Each row
// is the median of several calls, measured in process 0, after a warm-up call.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/timing.h"
#include "gloo/allreduce_ring.h"
#include "gloo/rendezvous/context.h"
#include "gloo/rendezvous/file_store.h"
#include "gloo/transport/tcp/device.h"
#include "src/distributed/distributed.h"
#include "src/runtime/client.h"
#include "src/runtime/executable.h"
#include "src/support/str.h"
#include "tests/support/file_kv.h"

using namespace openpjrt;

namespace {

class Store : public distributed::KvStore {
 public:
  explicit Store(std::string dir) : kv_(std::move(dir)) {}
  absl::Status Set(const std::string& key, const std::string& value) override {
    kv_.Put(key, value);
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> Get(const std::string& key, int timeout_ms) override {
    auto v = kv_.Get(key, timeout_ms);
    if (!v) return absl::DeadlineExceededError(key);
    return *v;
  }

 private:
  testing::FileKv kv_;
};

int Reps(int64_t bytes) { return bytes >= (64 << 20) ? 5 : bytes >= (4 << 20) ? 11 : 51; }

std::string Program(int64_t n) {
  return StrCat("module attributes {mhlo.num_replicas = 2 : i32} {\n"
                "func.func @main(%x: tensor<", n, "xf32>) -> tensor<", n, "xf32> {\n"
                "  %0 = \"stablehlo.all_reduce\"(%x) ({\n"
                "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                "    %s = stablehlo.add %a, %b : tensor<f32>\n"
                "    stablehlo.return %s : tensor<f32>\n"
                "  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<", n, "xf32>) -> tensor<", n,
                "xf32>\n  return %0 : tensor<", n, "xf32>\n}}\n");
}

int Worker(int rank, const std::string& dir, const std::vector<int64_t>& sizes) {
  distributed::Options o;
  o.node_id = rank;
  o.num_nodes = 2;
  o.local_devices = 1;
  o.timeout_ms = 60000;
  auto coordinator = distributed::Coordinator::Connect(std::make_shared<Store>(dir), o);
  if (!coordinator.ok()) {
    std::fprintf(stderr, "process %d: %s\n", rank, std::string(coordinator.status().message()).c_str());
    return 1;
  }
  runtime::ClientOptions co;
  co.device_count = 1;
  co.intra_op_threads = 1;
  runtime::Client client(co, *std::move(coordinator));

  // Gloo's own ring all-reduce, over its own mesh between the same processes.
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore store(dir);
  auto gloo_context = std::make_shared<gloo::rendezvous::Context>(rank, 2);
  gloo_context->connectFullMesh(store, device);

  if (rank == 0)
    std::printf("%10s %12s %12s %12s %9s %9s %10s\n", "bytes", "openpjrt_ms", "gloo_ms", "memcpy_ms",
                "gloo/ours", "memcpy/us", "ours_GB/s");
  for (int64_t bytes : sizes) {
    const int64_t n = bytes / 4;
    auto exe = runtime::Executable::Compile(Program(n), "mlir", runtime::CompileOptions());
    if (!exe.ok()) {
      std::fprintf(stderr, "%s\n", std::string(exe.status().message()).c_str());
      return 1;
    }
    auto loaded = runtime::LoadedExecutable::Load(&client, *exe);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", std::string(loaded.status().message()).c_str());
      return 1;
    }
    runtime::Device* mine = client.addressable_devices()[0];
    cpu::Array input = cpu::Array::Allocate(cpu::ArrayType{ir::ElemKind::kF32, {n}});
    float* in = input.mutable_as<float>();
    for (int64_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 7 + rank);
    runtime::BufferRef arg = runtime::Buffer::CreateReady(mine->default_memory(),
                                                          runtime::BufferShape{input.type()}, input);
    bool ok = true;
    auto ours = [&] {
      runtime::ExecuteRequest req;
      req.args.resize(1);
      req.args[0].push_back(arg);
      auto r = (*loaded)->Execute(std::move(req));
      if (!r.ok() || !r->device_done[0]->Await().ok()) ok = false;
    };
    ours();
    const int reps = Reps(bytes);
    const double t_ours = bench::MedianSeconds(reps, ours);

    std::vector<float> g(static_cast<size_t>(n));
    std::vector<float*> ptrs = {g.data()};
    gloo::AllreduceRing<float> ring(gloo_context, ptrs, static_cast<int>(n));
    auto gloo_call = [&] {
      std::memcpy(g.data(), in, static_cast<size_t>(bytes));
      ring.run();
    };
    gloo_call();
    const double t_gloo = bench::MedianSeconds(reps, gloo_call);
    const float want = static_cast<float>(2 * (0 % 7) + 1);
    if (g[0] != want) ok = false;

    std::vector<char> dst(static_cast<size_t>(bytes));
    const double t_copy = bench::MedianSeconds(reps, [&] { std::memcpy(dst.data(), in, static_cast<size_t>(bytes)); });
    if (!ok) {
      std::fprintf(stderr, "process %d: the all-reduce of %lld bytes failed\n", rank, static_cast<long long>(bytes));
      return 1;
    }
    if (rank == 0)
      std::printf("%10lld %12.4f %12.4f %12.4f %9.2f %9.2f %10.2f\n", static_cast<long long>(bytes), t_ours * 1e3,
                  t_gloo * 1e3, t_copy * 1e3, t_gloo / t_ours, t_copy / t_ours, bytes / t_ours / 1e9);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t max_mib = argc > 1 ? std::atoll(argv[1]) : 256;
  std::vector<int64_t> sizes;
  for (int64_t b = 1024; b <= max_mib * (1 << 20); b *= 4) sizes.push_back(b);
  char tmpl[] = "/tmp/opj_allreduce_XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  setenv("OPENPJRT_GLOO_HOSTNAME", "127.0.0.1", 0);
  std::printf("all-reduce (f32 sum) across 2 processes on loopback, 1 device each; median of 5-51 calls\n");
  std::fflush(stdout);
  std::vector<pid_t> pids;
  for (int r = 0; r < 2; ++r) {
    pid_t pid = fork();
    if (pid == 0) _exit(Worker(r, tmpl, sizes));
    pids.push_back(pid);
  }
  int failed = 0;
  for (pid_t p : pids) {
    int status = 0;
    waitpid(p, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  std::string cmd = std::string("rm -rf ") + tmpl;
  (void)std::system(cmd.c_str());
  return failed ? 1 : 0;
}
