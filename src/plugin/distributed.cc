// A client spanning processes: the PJRT key-value callbacks as the coordinator's store, and the
// create options jax.distributed passes (node_id, num_nodes).
#include "src/distributed/distributed.h"
#include "src/plugin/slots.h"
#include "src/support/str.h"

namespace openpjrt::plugin {
namespace {

class CallbackKvStore : public distributed::KvStore {
 public:
  explicit CallbackKvStore(const PJRT_Client_Create_Args& a)
      : get_(a.kv_get_callback), get_arg_(a.kv_get_user_arg), put_(a.kv_put_callback),
        put_arg_(a.kv_put_user_arg) {}

  absl::Status Set(const std::string& key, const std::string& value) override {
    PJRT_KeyValuePutCallback_Args a{};
    a.struct_size = PJRT_KeyValuePutCallback_Args_STRUCT_SIZE;
    a.key = key.data();
    a.key_size = key.size();
    a.value = value.data();
    a.value_size = value.size();
    a.callback_error = &kCallbackError;
    a.user_arg = put_arg_;
    return TakeError(put_(&a));
  }

  absl::StatusOr<std::string> Get(const std::string& key, int timeout_ms) override {
    PJRT_KeyValueGetCallback_Args a{};
    a.struct_size = PJRT_KeyValueGetCallback_Args_STRUCT_SIZE;
    a.key = key.data();
    a.key_size = key.size();
    a.timeout_in_ms = timeout_ms;
    a.callback_error = &kCallbackError;
    a.user_arg = get_arg_;
    if (absl::Status s = TakeError(get_(&a)); !s.ok()) return s;
    std::string value = a.value ? std::string(a.value, a.value_size) : std::string();
    if (a.value && a.value_deleter_callback) a.value_deleter_callback(a.value);
    return value;
  }

 private:
  PJRT_KeyValueGetCallback get_;
  void* get_arg_;
  PJRT_KeyValuePutCallback put_;
  void* put_arg_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<distributed::Coordinator>> ConnectProcesses(const PJRT_Client_Create_Args& args,
                                                                          const runtime::ClientOptions& options,
                                                                          int node_id, int num_nodes) {
  if (num_nodes <= 1) return std::unique_ptr<distributed::Coordinator>();
  if (!args.kv_get_callback || !args.kv_put_callback)
    return absl::InvalidArgumentError(StrCat(
        "PJRT_Client_Create_Args: num_nodes is ", num_nodes, " but kv_", args.kv_get_callback ? "put" : "get",
        "_callback is null; a client spanning processes needs the key-value store the processes share"));
  distributed::Options o;
  o.node_id = node_id;
  o.num_nodes = num_nodes;
  o.local_devices = options.device_count;
  o.timeout_ms = options.collectives_timeout_ms;
  if (o.timeout_ms <= 0) {
    o.timeout_ms = 300000;
    if (const char* env = std::getenv("OPENPJRT_COLLECTIVES_TIMEOUT_MS")) {
      const long v = std::strtol(env, nullptr, 10);
      if (v > 0 && v < (1L << 31)) o.timeout_ms = static_cast<int>(v);
    }
  }
  return distributed::Coordinator::Connect(std::make_shared<CallbackKvStore>(args), o);
}

PJRT_Error* RefuseRemote(PJRT_Memory* memory, const char* where) {
  const runtime::Device* d = Impl(memory)->memory->device();
  if (d->addressable()) return nullptr;
  return InvalidArgument(StrCat(where, " is memory of device ", d->id(), ", which belongs to process ",
                                d->process_index(), "; this client is process ",
                                d->client()->process_index(), " and addresses only its own devices"));
}

}  // namespace openpjrt::plugin

// What JAX's distributed runtime learns about the processes (it calls this whenever the
// coordination service's view changes): kept by the coordinator, which fails exchanges with a
// process reported disconnected or in error at once.
using namespace openpjrt;

PJRT_Error* OPJ_Client_UpdateGlobalProcessInfo(PJRT_Client_UpdateGlobalProcessInfo_Args* args) {
  OPJ_CHECK_ARGS(PJRT_Client_UpdateGlobalProcessInfo_Args, args);
  OPJ_REQUIRE(PJRT_Client_UpdateGlobalProcessInfo_Args, args, client);
  if (args->num_process_infos && !args->process_infos)
    return plugin::InvalidArgument(StrCat("PJRT_Client_UpdateGlobalProcessInfo_Args.process_infos is null but "
                                          "num_process_infos is ", args->num_process_infos));
  distributed::Coordinator* c = args->client->client->coordinator();
  const int nodes = c ? c->num_nodes() : 1;
  for (size_t i = 0; i < args->num_process_infos; ++i) {
    const PJRT_ProcessInfo& p = args->process_infos[i];
    if (p.struct_size < PJRT_STRUCT_SIZE(PJRT_ProcessInfo, state))
      return plugin::InvalidArgument(StrCat("PJRT_Client_UpdateGlobalProcessInfo_Args.process_infos[", i,
                                            "].struct_size is ", p.struct_size, ", expected at least ",
                                            static_cast<size_t>(PJRT_ProcessInfo_STRUCT_SIZE)));
    const int state = static_cast<int>(p.state);
    if (state < PJRT_ProcessState_kUnspecified || state > PJRT_ProcessState_kError)
      return plugin::InvalidArgument(StrCat("PJRT_Client_UpdateGlobalProcessInfo_Args.process_infos[", i,
                                            "].state is ", state, ", not a PJRT_ProcessState"));
    if (p.task_id < 0 || p.task_id >= nodes)
      return plugin::InvalidArgument(StrCat("PJRT_Client_UpdateGlobalProcessInfo_Args.process_infos[", i,
                                            "].task_id is ", p.task_id, "; the client spans ", nodes,
                                            " process", nodes == 1 ? "" : "es"));
  }
  if (!c) return nullptr;  // one process: nobody to reach
  for (size_t i = 0; i < args->num_process_infos; ++i) {
    const PJRT_ProcessInfo& p = args->process_infos[i];
    distributed::Coordinator::ProcessInfo info;
    info.state = static_cast<distributed::Coordinator::ProcessState>(static_cast<int>(p.state));
    info.incarnation = p.incarnation_id;
    if (p.struct_size >= PJRT_STRUCT_SIZE(PJRT_ProcessInfo, error_message_size) && p.error_message)
      info.error.assign(p.error_message, p.error_message_size);
    c->UpdateProcessInfo(p.task_id, std::move(info));
  }
  return nullptr;
}
