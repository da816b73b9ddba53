// The collective hub and the collective kernels.
#include "src/cpu/comm/collectives.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "src/cpu/exec/strided.h"
#include "src/support/str.h"

namespace openpjrt::cpu {

CollectiveHub::CollectiveHub(int num_replicas, int num_partitions, const RemoteDevices* remote)
    : num_replicas_(num_replicas), num_partitions_(num_partitions), remote_(remote),
      deposits_(static_cast<size_t>(num_replicas * num_partitions)) {
  local_devices_ = num_devices();
  if (remote_) local_devices_ = static_cast<int>(std::count(remote_->process_of.begin(),
                                                            remote_->process_of.end(), remote_->self));
}

bool CollectiveHub::Barrier(std::unique_lock<std::mutex>& lock, bool cross) {
  if (left_ > 0) mismatched_ = aborted_ = true, cv_.notify_all();
  if (aborted_) return false;
  const uint64_t gen = generation_;
  if (++arrived_ == local_devices_) {
    arrived_ = 0;
    if (cross && remote_) {
      // The others wait on the generation; the deposits are this thread's until it moves on.
      const uint64_t seq = exchanges_++;
      lock.unlock();
      absl::Status s = SwapWithOtherProcesses(seq);
      lock.lock();
      if (!s.ok()) {
        remote_error_ = s;
        aborted_ = true;
        cv_.notify_all();
        return false;
      }
      if (aborted_) return false;
    }
    ++generation_;
    cv_.notify_all();
    return true;
  }
  cv_.wait(lock, [&] { return generation_ != gen || aborted_; });
  return !aborted_;
}

namespace {

// A deposit on the wire: per device, its index and values; per value, its kind and for an array
// its element kind, dimensions and bytes (row-major, as held).
void PutBytes(std::vector<char>* out, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  out->insert(out->end(), c, c + n);
}
template <typename T>
void Put(std::vector<char>* out, T v) { PutBytes(out, &v, sizeof(v)); }

struct Reader {
  const std::vector<char>& in;
  size_t at = 0;
  bool ok = true;
  template <typename T>
  T Get() {
    T v{};
    if (at + sizeof(T) > in.size()) {
      ok = false;
      return v;
    }
    std::memcpy(&v, in.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
};

}  // namespace

absl::Status CollectiveHub::SwapWithOtherProcesses(uint64_t seq) {
  // The header describes this process's deposits; each array travels as a segment from where it
  // lies. The copy of the deposits keeps those arrays alive as long as the transport needs them.
  auto out = std::make_shared<Outgoing>();
  auto kept = std::make_shared<std::vector<RtValue>>();
  for (int d = 0; d < num_devices(); ++d) {
    if (remote_->process_of[d] != remote_->self) continue;
    Put<int32_t>(&out->header, d);
    Put<uint32_t>(&out->header, static_cast<uint32_t>(deposits_[d].size()));
    for (const RtValue& v : deposits_[d]) {
      Put<uint8_t>(&out->header, static_cast<uint8_t>(v.kind));
      if (v.kind != RtValue::Kind::kArray) continue;
      Put<uint8_t>(&out->header, static_cast<uint8_t>(v.array.elem()));
      Put<uint8_t>(&out->header, static_cast<uint8_t>(v.array.dims().size()));
      for (int64_t x : v.array.dims()) Put<int64_t>(&out->header, x);
      out->segments.push_back({v.array.data(), static_cast<size_t>(v.array.ByteSize())});
      kept->push_back(v);
    }
  }
  out->keep_alive = kept;
  auto place = [&](int p, const std::vector<char>& header) -> Placement {
    Placement where;
    auto arrays = std::make_shared<std::vector<Array>>();
    where.keep_alive = arrays;
    Reader r{header};
    auto bad = [&](const char* what) {
      where.error = StrCat("process at position ", p, " sent ", what);
      return where;
    };
    while (r.ok && r.at < header.size()) {
      const int32_t d = r.Get<int32_t>();
      const uint32_t count = r.Get<uint32_t>();
      if (!r.ok || d < 0 || d >= num_devices() || remote_->process_of[d] != p)
        return bad("a device it does not run");
      std::vector<RtValue> values;
      for (uint32_t i = 0; i < count && r.ok; ++i) {
        RtValue v;
        v.kind = static_cast<RtValue::Kind>(r.Get<uint8_t>());
        if (v.kind == RtValue::Kind::kArray) {
          ArrayType t;
          t.elem = static_cast<ElemKind>(r.Get<uint8_t>());
          const uint8_t rank = r.Get<uint8_t>();
          for (uint8_t k = 0; k < rank && r.ok; ++k) {
            const int64_t x = r.Get<int64_t>();
            if (x < 0) return bad("a negative dimension");
            t.dims.push_back(x);
          }
          if (!r.ok) break;
          v.array = Array::Allocate(t);
          arrays->push_back(v.array);
          where.segments.push_back({v.array.mutable_data(), static_cast<size_t>(v.array.ByteSize())});
        }
        values.push_back(std::move(v));
      }
      if (!r.ok) return bad("a truncated header");
      deposits_[d] = std::move(values);
    }
    return where;
  };
  return remote_->exchange->Exchange(seq, std::move(out), place);
}

absl::Status CollectiveHub::remote_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return remote_error_;
}

bool CollectiveHub::Exchange(int device, std::vector<RtValue> values,
                             const std::function<void(const std::vector<std::vector<RtValue>>&)>& read) {
  std::unique_lock<std::mutex> lock(mu_);
  deposits_[device] = std::move(values);
  if (!Barrier(lock, /*cross=*/true)) return false;
  lock.unlock();
  read(deposits_);  // deposits are not written again until everyone passes the next barrier
  lock.lock();
  return Barrier(lock, /*cross=*/false);
}

void CollectiveHub::Abort(const absl::Status& why) {
  std::unique_lock<std::mutex> lock(mu_);
  aborted_ = true;
  cv_.notify_all();
  if (!remote_ || why.ok() || abandoned_) return;
  // The exchange this process will never make: the other processes learn why when they reach it.
  abandoned_ = true;
  const uint64_t seq = exchanges_++;
  lock.unlock();
  remote_->exchange->Abandon(seq, std::string(why.message()));
}

void CollectiveHub::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  ++left_;
  // Whoever waits now waits for an instance that will never come.
  if (arrived_ > 0) mismatched_ = aborted_ = true, cv_.notify_all();
}

bool CollectiveHub::mismatched() const {
  std::lock_guard<std::mutex> lock(mu_);
  return mismatched_;
}

namespace {

struct Member {
  int64_t replica, partition;
};

int64_t DeviceOf(const CollectiveHub& h, Member m) { return m.replica * h.num_partitions() + m.partition; }

// The process group that holds (replica, partition), in the specification's order.
std::vector<Member> GroupOf(const CollectiveParams& p, const CollectiveHub& h, int64_t r, int64_t q) {
  const int64_t nr = h.num_replicas(), np = h.num_partitions();
  auto all = [](int64_t n) {
    std::vector<int64_t> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = i;
    return v;
  };
  std::vector<std::vector<int64_t>> groups = p.groups;
  switch (p.mode) {
    case GroupMode::kCrossReplica:
      if (groups.empty()) groups = {all(nr)};
      for (const auto& g : groups)
        if (std::find(g.begin(), g.end(), r) != g.end()) {
          std::vector<Member> m;
          for (int64_t x : g) m.push_back({x, q});
          return m;
        }
      break;
    case GroupMode::kCrossPartition:
      if (groups.empty()) groups = {all(np)};
      for (const auto& g : groups)
        if (std::find(g.begin(), g.end(), q) != g.end()) {
          std::vector<Member> m;
          for (int64_t x : g) m.push_back({r, x});
          return m;
        }
      break;
    case GroupMode::kCrossReplicaAndPartition:
      if (groups.empty()) groups = {all(nr)};
      for (const auto& g : groups)
        if (std::find(g.begin(), g.end(), r) != g.end()) {
          std::vector<Member> m;
          for (int64_t part = 0; part < np; ++part)
            for (int64_t x : g) m.push_back({x, part});
          return m;
        }
      break;
    case GroupMode::kFlattenedIds:
      if (groups.empty()) groups = {all(nr * np)};
      for (const auto& g : groups)
        if (std::find(g.begin(), g.end(), r * np + q) != g.end()) {
          std::vector<Member> m;
          for (int64_t x : g) m.push_back({x / np, x % np});
          return m;
        }
      break;
  }
  return {};
}

// Runs a kernel on two arrays outside the program (the fast reduction).
Array Apply(KernelFn fn, const Array& a, const Array& b) {
  Step s;
  s.fn = fn;
  s.in = {0, 1};
  s.out = {2};
  s.out_types = {a.type()};
  ExecState st;
  st.slots.resize(3);
  st.slots[0] = RtValue::Of(a);
  st.slots[1] = RtValue::Of(b);
  fn(s, st);
  return st.slots[2].array;
}

// Elementwise reduction of `inputs` (one array per member, in order) with the op's region.
bool Reduce(const Step& s, ExecState& st, const CollectiveParams& p, const std::vector<Array>& inputs,
            const ArrayType& out_type, Array* out) {
  if (p.has_fast) {
    Array acc = inputs[0];
    for (size_t i = 1; i < inputs.size(); ++i) acc = Apply(p.fast, acc, inputs[i]);
    *out = acc.Reshaped(out_type);
    return true;
  }
  *out = Array::Allocate(out_type);
  const int64_t n = out->NumElements(), es = out_type.ElementSize();
  std::vector<RtValue> args, res;
  for (int64_t e = 0; e < n; ++e) {
    RtValue acc = RtValue::Of(ScalarAt(inputs[0], e));
    for (size_t i = 1; i < inputs.size(); ++i) {
      args = {acc, RtValue::Of(ScalarAt(inputs[i], e))};
      if (!CallRegion(*s.regions[0], st, args, &res)) return false;
      acc = res[0];
    }
    std::memcpy(out->mutable_data() + e * es, acc.array.data(), es);
  }
  return true;
}

// Concatenates arrays along `dim`.
Array Concat(const std::vector<Array>& parts, int64_t dim, const ArrayType& t) {
  Array r = Array::Allocate(t);
  std::vector<int64_t> out_stride = ByteStrides(t);
  int64_t offset = 0;
  for (const Array& a : parts) {
    StridedCopy(a.dims(), a.data(), ByteStrides(a.type()), r.mutable_data() + offset * out_stride[dim],
                out_stride, t.ElementSize());
    offset += a.dims()[dim];
  }
  return r;
}

// Part k of `n` equal parts of `a` along `dim`.
Array Part(const Array& a, int64_t dim, int64_t n, int64_t k) {
  ArrayType t = a.type();
  const int64_t len = t.dims[dim] / n;
  t.dims[dim] = len;
  Array r = Array::Allocate(t);
  std::vector<int64_t> in_stride = ByteStrides(a.type());
  StridedCopy(t.dims, a.data() + k * len * in_stride[dim], in_stride, r.mutable_data(), ByteStrides(t),
              t.ElementSize());
  return r;
}

void Collective(const Step& s, ExecState& st) {
  const CollectiveParams& p = s.Params<CollectiveParams>();
  CollectiveHub* hub = st.hub;
  const int64_t r = st.replica_id, q = st.partition_id;
  const int device = static_cast<int>(r * (hub ? hub->num_partitions() : 1) + q);
  std::vector<RtValue> mine;
  for (int in : s.in) mine.push_back(st.slots[in]);
  if (!hub) {
    // One device: every collective sees only itself.
    CollectiveHub solo(1, 1);
    st.hub = &solo;
    Collective(s, st);
    st.hub = nullptr;
    return;
  }
  std::vector<Member> group = GroupOf(p, *hub, r, q);
  int64_t my_pos = -1;
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i].replica < 0 || group[i].replica >= hub->num_replicas() || group[i].partition < 0 ||
        group[i].partition >= hub->num_partitions()) {
      st.Fail(s, absl::InvalidArgumentError(
                     StrCat("the groups name replica ", group[i].replica, " partition ",
                            group[i].partition, " but the execution has ", hub->num_replicas(),
                            " replicas x ", hub->num_partitions(), " partitions")));
      hub->Abort();
      return;
    }
    if (group[i].replica == r && group[i].partition == q) my_pos = static_cast<int64_t>(i);
  }
  // The shapes the exchange will write must match the group, or the op is malformed.
  const int64_t group_size = std::max<int64_t>(1, static_cast<int64_t>(group.size()));
  std::string shape_error;
  for (size_t i = 0; i < s.in.size() && shape_error.empty(); ++i) {
    const ArrayType& in = mine[i].array.type();
    const ArrayType& out = s.out_types[i];
    auto dim_ok = [&](int64_t d) { return d >= 0 && d < in.rank() && in.rank() == out.rank(); };
    switch (p.kind) {
      case CollectiveParams::kAllGather:
        if (!dim_ok(p.dim) || in.dims[p.dim] * group_size != out.dims[p.dim])
          shape_error = "all_gather result does not hold the group's operands";
        break;
      case CollectiveParams::kReduceScatter:
        if (!dim_ok(p.dim) || in.dims[p.dim] != out.dims[p.dim] * group_size)
          shape_error = "reduce_scatter result is not a 1/group share of the operand";
        break;
      case CollectiveParams::kAllToAll:
        if (!dim_ok(p.dim) || !dim_ok(p.concat_dim) || p.split_count != group_size ||
            in.dims[p.dim] % group_size != 0 ||
            out.dims[p.concat_dim] != (p.dim == p.concat_dim ? in.dims[p.dim]
                                                              : in.dims[p.concat_dim] * group_size))
          shape_error = "all_to_all split_count, group size and shapes disagree";
        break;
      default:
        if (in.NumElements() != out.NumElements()) shape_error = "operand and result sizes differ";
        break;
    }
  }
  if (!shape_error.empty()) {
    st.Fail(s, absl::InvalidArgumentError(shape_error));
    hub->Abort();
    return;
  }
  // An all-reduce with an elementwise reducer over a group of several devices is shared out: the
  // group's first member deposits one output array, each member reduces its share of the
  // elements into it (every element in group order, as a single reducer would), and after the
  // exchange's closing barrier every member holds the same array. Each member reads 1/N of the
  // inputs instead of all of them.
  const bool shared_reduce = p.kind == CollectiveParams::kAllReduce && p.has_fast && group.size() > 1 &&
                             !hub->spans_processes();
  const size_t num_in = s.in.size();
  if (shared_reduce) {
    for (size_t i = 0; i < num_in; ++i) {
      if (my_pos != 0) {
        mine.push_back(RtValue());
        continue;
      }
      ArrayType full = mine[i].array.type();
      full.elem = s.out_types[i].elem;
      mine.push_back(RtValue::Of(Array::Allocate(full)));
    }
  }
  std::vector<RtValue> results(s.out.size());
  bool ok = true;
  std::string error;
  bool exchanged = hub->Exchange(device, mine, [&](const std::vector<std::vector<RtValue>>& all) {
    auto member_value = [&](const Member& m, size_t operand) -> const Array& {
      return all[DeviceOf(*hub, m)][operand].array;
    };
    switch (p.kind) {
      case CollectiveParams::kAllReduce:
      case CollectiveParams::kReduceScatter:
      case CollectiveParams::kCollectiveReduce:
        if (shared_reduce) {
          for (size_t i = 0; i < num_in; ++i) {
            const Array& out = member_value(group[0], num_in + i);
            const int64_t n = out.NumElements(), es = out.type().ElementSize();
            const int64_t g = static_cast<int64_t>(group.size());
            const int64_t chunk = ((n + g - 1) / g + 15) / 16 * 16;  // 64-byte shares for 4-byte types
            const int64_t begin = std::min(n, my_pos * chunk), end = std::min(n, begin + chunk);
            if (begin < end) {
              auto view = [&](const Array& a) {
                return Array::Wrap(ArrayType{a.elem(), {end - begin}},
                                   std::shared_ptr<const uint8_t>(a.data() + begin * es, [](const uint8_t*) {}));
              };
              Array acc = Apply(p.fast, view(member_value(group[0], i)), view(member_value(group[1], i)));
              for (size_t k = 2; k < group.size(); ++k) acc = Apply(p.fast, acc, view(member_value(group[k], i)));
              std::memcpy(out.mutable_data() + begin * es, acc.data(), static_cast<size_t>((end - begin) * es));
            }
            results[i] = RtValue::Of(out.Reshaped(s.out_types[i]));
          }
          break;
        }
        for (size_t i = 0; i < s.in.size() && ok; ++i) {
          std::vector<Array> inputs;
          if (group.empty()) {
            inputs.push_back(mine[i].array);
          } else {
            for (const Member& m : group) inputs.push_back(member_value(m, i));
          }
          Array reduced;
          ArrayType full = mine[i].array.type();
          full.elem = s.out_types[i].elem;
          ok = Reduce(s, st, p, inputs, full, &reduced);
          if (!ok) break;
          if (p.kind == CollectiveParams::kReduceScatter) {
            int64_t n = std::max<int64_t>(1, static_cast<int64_t>(group.size()));
            reduced = Part(reduced, p.dim, n, std::max<int64_t>(my_pos, 0));
          }
          if (p.kind == CollectiveParams::kCollectiveReduce && my_pos > 0) {  // not the root
            reduced = Array::Allocate(reduced.type());
            std::memset(reduced.mutable_data(), 0, static_cast<size_t>(reduced.ByteSize()));
          }
          results[i] = RtValue::Of(reduced.Reshaped(s.out_types[i]));
        }
        break;
      case CollectiveParams::kAllGather:
        for (size_t i = 0; i < s.in.size(); ++i) {
          std::vector<Array> parts;
          for (const Member& m : group) parts.push_back(member_value(m, i));
          if (parts.empty()) parts.push_back(mine[i].array);
          results[i] = RtValue::Of(Concat(parts, p.dim, s.out_types[i]));
        }
        break;
      case CollectiveParams::kAllToAll:
        for (size_t i = 0; i < s.in.size(); ++i) {
          std::vector<Array> parts;
          for (const Member& m : group)
            parts.push_back(Part(member_value(m, i), p.dim, p.split_count, std::max<int64_t>(my_pos, 0)));
          if (parts.empty()) parts.push_back(mine[i].array);
          results[i] = RtValue::Of(Concat(parts, p.concat_dim, s.out_types[i]));
        }
        break;
      case CollectiveParams::kCollectivePermute: {
        const int64_t me = p.mode == GroupMode::kCrossPartition ? q : r;
        Array out = Array::Allocate(s.out_types[0]);
        std::memset(out.mutable_data(), 0, out.ByteSize());
        for (auto [src, dst] : p.pairs) {
          if (dst != me) continue;
          Member m = p.mode == GroupMode::kCrossPartition ? Member{r, src} : Member{src, q};
          if (m.replica < hub->num_replicas() && m.partition < hub->num_partitions()) {
            const Array& v = member_value(m, 0);
            std::memcpy(out.mutable_data(), v.data(), v.ByteSize());
          }
        }
        results[0] = RtValue::Of(std::move(out));
        break;
      }
      case CollectiveParams::kCollectiveBroadcast: {
        if (group.empty()) {
          results[0] = mine[0];
        } else {
          results[0] = RtValue::Of(member_value(group[0], 0));
        }
        break;
      }
    }
  });
  if (!exchanged) {
    if (absl::Status remote = hub->remote_error(); !remote.ok() && st.ok()) st.Fail(s, remote);
    if (st.ok())
      st.Fail(s, hub->mismatched()
                     ? absl::InvalidArgumentError(
                           "another device of this execution finished without reaching this collective "
                           "(every device must run the same collectives in the same order)")
                     : absl::AbortedError("another device of this execution failed"));
    return;
  }
  if (!ok) return;
  for (size_t i = 0; i < s.out.size(); ++i) st.slots[s.out[i]] = std::move(results[i]);
}

void RunParallel(const Step& s, ExecState& st) {
  const auto& p = *static_cast<const RunParallelParams*>(s.params.get());
  const int n = p.num_replicas * p.num_partitions;
  CollectiveHub hub(p.num_replicas, p.num_partitions);
  std::vector<ExecState> procs(static_cast<size_t>(n));
  std::vector<std::vector<CheckFailure>> checks(static_cast<size_t>(n));
  size_t next_in = 0;
  for (int d = 0; d < n; ++d) {
    const Program& prog = *s.regions[p.program_of[d]];
    ExecState& e = procs[d];
    e.slots.resize(st.slots.size());  // the regions number their slots within the executable's
    e.replica_id = static_cast<uint32_t>(d / p.num_partitions);
    e.partition_id = static_cast<uint32_t>(d % p.num_partitions);
    e.hub = &hub;
    e.ffi_user_data = st.ffi_user_data;
    e.step_budget = st.step_budget;
    e.check_failures = &checks[d];
    for (int a : prog.args) e.slots[a] = st.slots[s.in[next_in++]];
  }
  auto run = [&](int d) {
    RunProgram(*s.regions[p.program_of[d]], procs[d]);
    if (procs[d].ok()) {
      hub.Leave();
    } else {
      hub.Abort();
    }
  };
  if (n == 1) {
    run(0);
  } else {
    std::vector<std::thread> threads;
    for (int d = 0; d < n; ++d) threads.emplace_back(run, d);
    for (std::thread& t : threads) t.join();
  }
  auto where = [&](int d) {
    return StrCat("process (replica ", d / p.num_partitions, ", partition ", d % p.num_partitions, "): ");
  };
  for (int d = 0; d < n; ++d) {
    st.checks_run += procs[d].checks_run;
    if (st.check_failures)
      for (CheckFailure& f : checks[d]) {
        f.message = StrCat(where(d), f.message);
        st.check_failures->push_back(std::move(f));
      }
  }
  // The root cause, not the processes aborted because of it.
  int failed = -1;
  for (int d = 0; d < n; ++d)
    if (!procs[d].ok() && (failed < 0 || (procs[failed].status.code() == absl::StatusCode::kAborted &&
                                          procs[d].status.code() != absl::StatusCode::kAborted)))
      failed = d;
  if (failed >= 0) {
    const absl::Status& e = procs[failed].status;
    st.Fail(s, absl::Status(e.code(), StrCat(where(failed), e.message())));
    return;
  }
  size_t next_out = 0;
  for (int d = 0; d < n; ++d)
    for (int r : s.regions[p.program_of[d]]->results) st.slots[s.out[next_out++]] = procs[d].slots[r];
}

}  // namespace

KernelFn CollectiveKernel() { return &Collective; }
KernelFn RunParallelKernel() { return &RunParallel; }

}  // namespace openpjrt::cpu
