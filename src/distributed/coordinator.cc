// The coordinator: the global device list from the key-value store, and one Gloo mesh per set of
// processes that executions span (distributed.h).
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "src/distributed/distributed.h"
#include "src/support/str.h"

namespace openpjrt::distributed {

struct Coordinator::MeshSlot {
  std::mutex mu;              // held while connecting
  Mesh* mesh = nullptr;       // owned; a failed mesh is kept alive (its transfers may be pending)
  std::string error;          // why connecting failed
  std::atomic<uint64_t> next_launch{0};
};

namespace {

std::atomic<uint64_t> g_epochs{0};

// libopenpjrt_gloo.so: beside the library this code is linked into (the plugin), else wherever
// the dynamic loader finds it; OPENPJRT_GLOO_LIBRARY names it outright.
absl::StatusOr<ConnectMeshFn> LoadGloo() {
  static std::mutex mu;
  static ConnectMeshFn fn = nullptr;
  static std::string error;
  std::lock_guard<std::mutex> lock(mu);
  if (fn) return fn;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("OPENPJRT_GLOO_LIBRARY")) candidates.push_back(env);
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&LoadGloo), &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos) {
      candidates.push_back(self.substr(0, slash + 1) + kGlooLibrary);
      candidates.push_back(self.substr(0, slash + 1) + "lib/" + kGlooLibrary);
      candidates.push_back(self.substr(0, slash + 1) + "../lib/" + kGlooLibrary);
    }
  }
  candidates.push_back(kGlooLibrary);
  std::string tried;
  for (const std::string& path : candidates) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* e = dlerror();
      StrAppend(&tried, tried.empty() ? "" : "; ", e ? e : path);
      continue;
    }
    fn = reinterpret_cast<ConnectMeshFn>(dlsym(handle, kConnectMeshSymbol));
    if (fn) return fn;
    StrAppend(&tried, tried.empty() ? "" : "; ", path, " lacks ", kConnectMeshSymbol);
  }
  return absl::FailedPreconditionError(
      StrCat("collectives across processes need ", kGlooLibrary,
             " (built when libgloo-dev is installed) beside the plugin or set in OPENPJRT_GLOO_LIBRARY: ",
             tried));
}

class LaunchExchange : public cpu::ProcessExchange {
 public:
  LaunchExchange(Coordinator* c, void* slot, std::vector<int> processes, uint64_t launch)
      : coordinator_(c), slot_(slot), processes_(std::move(processes)), launch_(launch) {}

  absl::Status Exchange(uint64_t seq, std::shared_ptr<const cpu::Outgoing> mine, const cpu::PlaceFn& place) override;
  void Abandon(uint64_t seq, const std::string& why) override;

 private:
  // Tags repeat after 2^24 launches or 2^20 exchanges of one execution, long after the earlier
  // ones with the same tag completed.
  uint64_t Tag(uint64_t seq) const {
    return ((launch_ & ((uint64_t{1} << 24) - 1)) << 20) | (seq & ((uint64_t{1} << 20) - 1));
  }

  Coordinator* coordinator_;
  void* slot_;
  std::vector<int> processes_;
  uint64_t launch_;
};

}  // namespace

// Friend of Coordinator: reaches MeshFor.
class LaunchExchangeAccess {
 public:
  static absl::StatusOr<Mesh*> MeshFor(Coordinator* c, void* slot, const std::vector<int>& processes) {
    return c->MeshFor(*static_cast<Coordinator::MeshSlot*>(slot), processes);
  }
  // The mesh if it is connected already (null otherwise: nothing is connected just to say goodbye).
  static Mesh* Connected(void* slot) {
    auto* s = static_cast<Coordinator::MeshSlot*>(slot);
    std::lock_guard<std::mutex> lock(s->mu);
    return s->mesh;
  }
};

absl::Status LaunchExchange::Exchange(uint64_t seq, std::shared_ptr<const cpu::Outgoing> mine,
                                      const cpu::PlaceFn& place) {
  if (absl::Status s = coordinator_->CheckReachable(processes_); !s.ok()) return s;
  absl::StatusOr<Mesh*> mesh = LaunchExchangeAccess::MeshFor(coordinator_, slot_, processes_);
  if (!mesh.ok()) return mesh.status();
  std::string error = (*mesh)->Exchange(Tag(seq), std::move(mine), place);
  if (!error.empty()) return absl::UnavailableError(error);
  return absl::OkStatus();
}

void LaunchExchange::Abandon(uint64_t seq, const std::string& why) {
  if (Mesh* mesh = LaunchExchangeAccess::Connected(slot_)) mesh->Abandon(Tag(seq), why);
}

absl::StatusOr<std::unique_ptr<Coordinator>> Coordinator::Connect(std::shared_ptr<KvStore> kv, Options options) {
  if (options.num_nodes < 1 || options.node_id < 0 || options.node_id >= options.num_nodes)
    return absl::InvalidArgumentError(StrCat("node_id ", options.node_id, " is not one of the ", options.num_nodes,
                                             " processes (num_nodes)"));
  auto c = std::unique_ptr<Coordinator>(new Coordinator());
  c->kv_ = std::move(kv);
  c->options_ = options;
  c->epoch_ = g_epochs++;
  auto key = [&](int node) { return StrCat("openpjrt/", c->epoch_, "/devices/", node); };
  if (absl::Status s = c->kv_->Set(key(options.node_id), StrCat(options.local_devices)); !s.ok())
    return absl::Status(s.code(), StrCat("publishing this process's devices in the key-value store: ", s.message()));
  for (int p = 0; p < options.num_nodes; ++p) {
    absl::StatusOr<std::string> v = c->kv_->Get(key(p), options.timeout_ms);
    if (!v.ok())
      return absl::Status(v.status().code(),
                          StrCat("process ", p, " of ", options.num_nodes, " did not publish its devices under '",
                                 key(p), "' within ", options.timeout_ms, " ms: ", v.status().message()));
    char* end = nullptr;
    long n = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || n < 1 || n > 4096)
      return absl::InvalidArgumentError(
          StrCat("the key-value store holds '", *v, "' under '", key(p), "', not a device count"));
    c->devices_per_process_.push_back(static_cast<int>(n));
  }
  return c;
}

Coordinator::~Coordinator() {
  for (auto& [processes, slot] : meshes_)
    if (slot->mesh && !slot->mesh->failed()) delete slot->mesh;
}

std::unique_ptr<cpu::ProcessExchange> Coordinator::BeginExecution(const std::vector<int>& processes) {
  MeshSlot* slot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& s = meshes_[processes];
    if (!s) s = std::make_unique<MeshSlot>();
    slot = s.get();
  }
  return std::make_unique<LaunchExchange>(this, slot, processes, slot->next_launch++);
}

void Coordinator::UpdateProcessInfo(int process, ProcessInfo info) {
  std::lock_guard<std::mutex> lock(mu_);
  process_info_[process] = std::move(info);
}

absl::Status Coordinator::CheckReachable(const std::vector<int>& processes) {
  std::lock_guard<std::mutex> lock(mu_);
  for (int p : processes) {
    auto it = process_info_.find(p);
    if (it == process_info_.end() || p == options_.node_id) continue;
    const ProcessInfo& i = it->second;
    if (i.state == ProcessState::kDisconnected || i.state == ProcessState::kError)
      return absl::UnavailableError(StrCat("process ", p, " (incarnation ", i.incarnation, ") is ",
                                           i.state == ProcessState::kError ? "in error" : "disconnected",
                                           i.error.empty() ? "" : ": ", i.error,
                                           "; collectives with it cannot complete"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Mesh*> Coordinator::PairMesh(int peer, int* rank) {
  if (peer < 0 || peer >= options_.num_nodes || peer == options_.node_id)
    return absl::InvalidArgumentError(StrCat("process ", peer, " is not another process of the ", options_.num_nodes,
                                             " (this one is ", options_.node_id, ")"));
  if (absl::Status s = CheckReachable({peer}); !s.ok()) return s;
  const std::vector<int> pair = {std::min(peer, options_.node_id), std::max(peer, options_.node_id)};
  *rank = peer == pair[0] ? 0 : 1;
  MeshSlot* slot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& s = meshes_[pair];
    if (!s) s = std::make_unique<MeshSlot>();
    slot = s.get();
  }
  return MeshFor(*slot, pair);
}

absl::Status Coordinator::SendTo(int to, uint64_t key, const void* data, size_t bytes, std::shared_ptr<void> owner) {
  int rank;
  absl::StatusOr<Mesh*> mesh = PairMesh(to, &rank);
  if (!mesh.ok()) return mesh.status();
  std::string error = (*mesh)->Send(rank, key, data, bytes, std::move(owner));
  return error.empty() ? absl::OkStatus() : absl::UnavailableError(error);
}

absl::Status Coordinator::ReceiveFrom(int from, uint64_t key, void* data, size_t bytes, std::shared_ptr<void> owner) {
  int rank;
  absl::StatusOr<Mesh*> mesh = PairMesh(from, &rank);
  if (!mesh.ok()) return mesh.status();
  std::string error = (*mesh)->Receive(rank, key, data, bytes, std::move(owner));
  return error.empty() ? absl::OkStatus() : absl::UnavailableError(error);
}

absl::Status Coordinator::AnnounceSender(int receiver, uint64_t key) {
  return kv_->Set(StrCat("openpjrt/", epoch_, "/transfer/", receiver, "/", key), StrCat(options_.node_id));
}

absl::StatusOr<int> Coordinator::AwaitSender(uint64_t key, int timeout_ms) {
  const std::string name = StrCat("openpjrt/", epoch_, "/transfer/", options_.node_id, "/", key);
  absl::StatusOr<std::string> v = kv_->Get(name, timeout_ms);
  if (!v.ok()) return v.status();
  char* end = nullptr;
  const long sender = std::strtol(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || sender < 0 || sender >= options_.num_nodes)
    return absl::InvalidArgumentError(StrCat("the key-value store holds '", *v, "' under '", name,
                                             "', not a process index"));
  return static_cast<int>(sender);
}

absl::StatusOr<Mesh*> Coordinator::MeshFor(MeshSlot& slot, const std::vector<int>& processes) {
  std::lock_guard<std::mutex> lock(slot.mu);
  if (slot.mesh) return slot.mesh;
  if (!slot.error.empty()) return absl::UnavailableError(slot.error);
  absl::StatusOr<ConnectMeshFn> connect = LoadGloo();
  if (!connect.ok()) {
    slot.error = std::string(connect.status().message());
    return connect.status();
  }
  MeshConfig config;
  config.size = static_cast<int>(processes.size());
  config.process_ids = processes;
  for (size_t i = 0; i < processes.size(); ++i)
    if (processes[i] == options_.node_id) config.rank = static_cast<int>(i);
  std::string set;
  for (int p : processes) StrAppend(&set, set.empty() ? "" : ",", p);
  config.key_prefix = StrCat("openpjrt/", epoch_, "/gloo/", set, "/");
  if (const char* h = std::getenv("OPENPJRT_GLOO_HOSTNAME")) config.hostname = h;
  if (const char* i = std::getenv("OPENPJRT_GLOO_IFACE")) config.iface = i;
  config.timeout_ms = options_.timeout_ms;
  std::shared_ptr<KvStore> kv = kv_;
  config.kv_set = [kv](const std::string& key, const std::string& value) -> std::string {
    absl::Status s = kv->Set(key, value);
    return s.ok() ? "" : StrCat("key-value store put of '", key, "': ", s.message());
  };
  config.kv_get = [kv](const std::string& key, int timeout_ms, std::string* value) -> std::string {
    absl::StatusOr<std::string> v = kv->Get(key, timeout_ms);
    if (!v.ok()) return StrCat("key-value store get of '", key, "' (", timeout_ms, " ms): ", v.status().message());
    *value = *std::move(v);
    return "";
  };
  std::string error;
  Mesh* mesh = (*connect)(&config, &error);
  if (!mesh) {
    slot.error = StrCat("processes ", set, ": ", error);
    return absl::UnavailableError(slot.error);
  }
  slot.mesh = mesh;
  return mesh;
}

}  // namespace openpjrt::distributed
