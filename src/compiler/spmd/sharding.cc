// Reading Shardy and GSPMD shardings into Layouts (see sharding.h).
#include "src/compiler/spmd/sharding.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "absl/status/status.h"
#include "src/support/str.h"

namespace openpjrt::compiler::spmd {
namespace {

// A cursor over an attribute's text; every failure names the text and the position.
class Text {
 public:
  explicit Text(std::string_view s) : s_(s) {}

  void Space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Peek(char c) {
    Space();
    return i_ < s_.size() && s_[i_] == c;
  }
  bool Consume(char c) {
    if (!Peek(c)) return false;
    ++i_;
    return true;
  }
  bool Consume(std::string_view word) {
    Space();
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  absl::Status Expect(char c) {
    if (Consume(c)) return absl::OkStatus();
    return Bad(StrCat("expected '", std::string(1, c), "'"));
  }
  absl::Status Int(int64_t* v) {
    Space();
    size_t j = i_;
    bool neg = j < s_.size() && s_[j] == '-';
    if (neg) ++j;
    if (j >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[j]))) return Bad("expected an integer");
    int64_t x = 0;
    while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) {
      if (x > (int64_t{1} << 50)) return Bad("integer too large");
      x = x * 10 + (s_[j++] - '0');
    }
    i_ = j;
    *v = neg ? -x : x;
    return absl::OkStatus();
  }
  absl::Status Quoted(std::string* out) {
    if (!Consume('"')) return Bad("expected a quoted axis name");
    size_t j = s_.find('"', i_);
    if (j == std::string_view::npos) return Bad("unterminated string");
    *out = std::string(s_.substr(i_, j - i_));
    i_ = j + 1;
    return absl::OkStatus();
  }
  absl::Status Symbol(std::string* out) {
    if (!Consume('@')) return Bad("expected '@' and a mesh name");
    if (Peek('"')) return Quoted(out);
    size_t j = i_;
    while (j < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[j])) || s_[j] == '_' || s_[j] == '.' ||
                             s_[j] == '$' || s_[j] == '-'))
      ++j;
    if (j == i_) return Bad("expected a mesh name");
    *out = std::string(s_.substr(i_, j - i_));
    i_ = j;
    return absl::OkStatus();
  }
  bool AtEnd() {
    Space();
    return i_ == s_.size();
  }
  absl::Status Bad(const std::string& why) const {
    return absl::InvalidArgumentError(StrCat("sharding '", s_, "': ", why, " at offset ", i_));
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

#define SPMD_TRY(expr)                   \
  do {                                   \
    absl::Status _s = (expr);            \
    if (!_s.ok()) return _s;             \
  } while (0)

std::string_view StripPrefix(std::string_view s, std::string_view prefix) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (s.substr(0, prefix.size()) == prefix) s.remove_prefix(prefix.size());
  return s;
}

// The body of a mesh after its '<': [axes] [, device_ids=[...]] '>'.
absl::Status MeshBody(Text& t, Mesh* m) {
  SPMD_TRY(t.Expect('['));
  while (!t.Consume(']')) {
    if (!m->axes.empty()) SPMD_TRY(t.Expect(','));
    MeshAxis a;
    SPMD_TRY(t.Quoted(&a.name));
    SPMD_TRY(t.Expect('='));
    SPMD_TRY(t.Int(&a.size));
    if (a.size < 1) return t.Bad(StrCat("axis \"", a.name, "\" has size ", a.size));
    if (m->AxisIndex(a.name) >= 0) return t.Bad(StrCat("axis \"", a.name, "\" appears twice"));
    m->axes.push_back(a);
  }
  if (t.Consume(',')) {
    if (!t.Consume("device_ids")) return t.Bad("expected device_ids");
    SPMD_TRY(t.Expect('='));
    SPMD_TRY(t.Expect('['));
    while (!t.Consume(']')) {
      if (!m->device_ids.empty()) SPMD_TRY(t.Expect(','));
      int64_t d;
      SPMD_TRY(t.Int(&d));
      m->device_ids.push_back(d);
    }
  }
  SPMD_TRY(t.Expect('>'));
  const int64_t n = m->size();
  if (m->device_ids.empty()) {
    m->device_ids.resize(n);
    std::iota(m->device_ids.begin(), m->device_ids.end(), 0);
  } else if (static_cast<int64_t>(m->device_ids.size()) != n) {
    return t.Bad(StrCat("device_ids has ", m->device_ids.size(), " entries for a mesh of ", n, " devices"));
  }
  return absl::OkStatus();
}

absl::Status AxisRefBody(Text& t, AxisRef* a) {
  SPMD_TRY(t.Quoted(&a->name));
  if (t.Consume(':')) {
    SPMD_TRY(t.Expect('('));
    SPMD_TRY(t.Int(&a->pre));
    SPMD_TRY(t.Expect(')'));
    SPMD_TRY(t.Int(&a->size));
    if (a->pre < 1 || a->size < 1) return t.Bad("a sub-axis needs a positive pre-size and size");
  }
  return absl::OkStatus();
}

// {"x", "y":(1)2, ?} with an optional priority suffix p<N>.
absl::Status DimBody(Text& t, std::vector<AxisRef>* axes) {
  SPMD_TRY(t.Expect('{'));
  bool first = true;
  while (!t.Consume('}')) {
    if (!first) SPMD_TRY(t.Expect(','));
    first = false;
    if (t.Consume('?')) continue;  // open dimension
    AxisRef a;
    SPMD_TRY(AxisRefBody(t, &a));
    axes->push_back(a);
  }
  if (t.Consume('p')) {
    int64_t prio;
    SPMD_TRY(t.Int(&prio));
  }
  return absl::OkStatus();
}

absl::Status AxisSet(Text& t, std::vector<AxisRef>* axes) { return DimBody(t, axes); }

// The body of a sharding after its '<': mesh, dims and the optional trailing fields, then '>'.
absl::Status ShardingBody(Text& t, SdySharding* s) {
  if (t.Peek('@')) {
    SPMD_TRY(t.Symbol(&s->mesh_name));
  } else if (t.Consume("mesh") || t.Consume("#sdy.mesh")) {
    SPMD_TRY(t.Expect('<'));
    Mesh m;
    SPMD_TRY(MeshBody(t, &m));
    s->inline_mesh = std::move(m);
  } else {
    return t.Bad("expected a mesh name or an inline mesh");
  }
  SPMD_TRY(t.Expect(','));
  SPMD_TRY(t.Expect('['));
  while (!t.Consume(']')) {
    if (!s->dims.empty()) SPMD_TRY(t.Expect(','));
    s->dims.emplace_back();
    SPMD_TRY(DimBody(t, &s->dims.back()));
  }
  while (t.Consume(',')) {
    if (t.Consume("replicated")) {
      SPMD_TRY(t.Expect('='));
      SPMD_TRY(AxisSet(t, &s->replicated));
    } else if (t.Consume("unreduced")) {
      SPMD_TRY(t.Expect('='));
      SPMD_TRY(AxisSet(t, &s->unreduced));
    } else if (t.Consume("reduction")) {
      return absl::UnimplementedError("a sharding with a reduction kind for unreduced axes is not supported");
    } else {
      return t.Bad("expected replicated= or unreduced=");
    }
  }
  return t.Expect('>');
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// The coordinate along `a` of mesh position `pos`, and the size of that (sub-)axis.
absl::Status RefCoord(const Mesh& mesh, const AxisRef& a, int64_t pos, int64_t* coord, int64_t* size) {
  const int axis = mesh.AxisIndex(a.name);
  if (axis < 0) return absl::InvalidArgumentError(StrCat("the sharding names axis \"", a.name, "\", which the mesh lacks"));
  const int64_t full = mesh.axes[axis].size;
  int64_t c = mesh.Coord(pos, axis);
  if (a.size == 0) {
    *coord = c;
    *size = full;
    return absl::OkStatus();
  }
  if (full % (a.pre * a.size) != 0)
    return absl::InvalidArgumentError(StrCat("sub-axis \"", a.name, "\":(", a.pre, ")", a.size, " does not divide the axis of size ", full));
  // The axis splits into (major, this, minor=pre): this sub-axis is the factor just above the
  // first `pre`, so its coordinate is (c / pre) % size.
  *coord = (c / a.pre) % a.size;
  *size = a.size;
  return absl::OkStatus();
}

}  // namespace

int64_t Mesh::size() const {
  int64_t n = 1;
  for (const MeshAxis& a : axes) n *= a.size;
  return n;
}

int Mesh::AxisIndex(std::string_view name) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return static_cast<int>(i);
  return -1;
}

int64_t Mesh::Coord(int64_t pos, int axis) const {
  int64_t stride = 1;
  for (size_t i = axis + 1; i < axes.size(); ++i) stride *= axes[i].size;
  return (pos / stride) % axes[axis].size;
}

Layout Layout::Replicated(int64_t rank, int64_t partitions) {
  Layout l;
  l.tiles.assign(rank, 1);
  l.coords.assign(partitions, std::vector<int64_t>(rank, 0));
  return l;
}

bool Layout::replicated() const {
  if (partials > 1) return false;
  for (int64_t t : tiles)
    if (t != 1) return false;
  return true;
}

Layout Layout::Reduced() const {
  Layout l = *this;
  l.partials = 1;
  l.partial.clear();
  return l;
}

std::string Layout::ToString() const {
  if (replicated()) return "replicated";
  std::string s = "[";
  for (size_t i = 0; i < tiles.size(); ++i) StrAppend(&s, i ? "," : "", tiles[i]);
  s += "]";
  if (partials > 1) StrAppend(&s, " unreduced over ", partials);
  return s;
}

absl::StatusOr<Mesh> ParseSdyMesh(std::string_view text) {
  std::string_view body = StripPrefix(StripPrefix(text, "#sdy.mesh"), "mesh");
  Text t(body);
  SPMD_TRY(t.Expect('<'));
  Mesh m;
  SPMD_TRY(MeshBody(t, &m));
  if (!t.AtEnd()) return t.Bad("trailing text after the mesh");
  return m;
}

absl::StatusOr<SdySharding> ParseSdySharding(std::string_view text) {
  Text t(StripPrefix(text, "#sdy.sharding"));
  SPMD_TRY(t.Expect('<'));
  SdySharding s;
  SPMD_TRY(ShardingBody(t, &s));
  if (!t.AtEnd()) return t.Bad("trailing text after the sharding");
  return s;
}

absl::StatusOr<std::vector<SdySharding>> ParseSdyShardingPerValue(std::string_view text) {
  Text t(StripPrefix(text, "#sdy.sharding_per_value"));
  SPMD_TRY(t.Expect('<'));
  SPMD_TRY(t.Expect('['));
  std::vector<SdySharding> out;
  while (!t.Consume(']')) {
    if (!out.empty()) SPMD_TRY(t.Expect(','));
    SPMD_TRY(t.Expect('<'));
    out.emplace_back();
    SPMD_TRY(ShardingBody(t, &out.back()));
  }
  SPMD_TRY(t.Expect('>'));
  if (!t.AtEnd()) return t.Bad("trailing text after the shardings");
  return out;
}

absl::StatusOr<std::vector<std::string>> ParseManualAxes(std::string_view text) {
  Text t(StripPrefix(StripPrefix(text, "#sdy<"), "manual_axes"));
  SPMD_TRY(t.Expect('{'));
  std::vector<std::string> out;
  while (!t.Consume('}')) {
    if (!out.empty()) SPMD_TRY(t.Expect(','));
    out.emplace_back();
    SPMD_TRY(t.Quoted(&out.back()));
  }
  t.Consume('>');
  if (!t.AtEnd()) return t.Bad("trailing text after the manual axes");
  return out;
}

absl::StatusOr<Layout> SdyLayout(const SdySharding& s, const Mesh& mesh, int64_t rank, int64_t partitions,
                                 const std::vector<std::string>* only_axes) {
  if (static_cast<int64_t>(s.dims.size()) != rank)
    return absl::InvalidArgumentError(
        StrCat("the sharding has ", s.dims.size(), " dimensions for a value of rank ", rank));
  if (!s.unreduced.empty() && only_axes)
    return absl::UnimplementedError("unreduced axes in a manual computation's sharding are not supported");
  const int64_t n = mesh.size();
  if (n > partitions)
    return absl::InvalidArgumentError(
        StrCat("the mesh has ", n, " devices but the program runs on ", partitions, " partitions"));
  for (int64_t d : mesh.device_ids)
    if (d < 0 || d >= partitions)
      return absl::InvalidArgumentError(StrCat("the mesh names device ", d, "; the program has ", partitions, " partitions"));
  Layout l = Layout::Replicated(rank, partitions);
  // A mesh of one device (a maximal sharding) leaves the value whole on every partition.
  if (n == 1) return l;
  if (n != partitions)
    return absl::InvalidArgumentError(
        StrCat("the mesh has ", n, " devices but the program runs on ", partitions, " partitions"));
  std::vector<bool> used(mesh.axes.size(), false);
  // Folds axis `a` into every partition's coordinate (mixed radix, this axis minor) and returns
  // its size through *size.
  auto fold_axis = [&](const AxisRef& a, auto&& coord_of, int64_t* size) -> absl::Status {
    const int axis = mesh.AxisIndex(a.name);
    if (axis < 0) return absl::InvalidArgumentError(StrCat("the sharding names axis \"", a.name, "\", which the mesh lacks"));
    if (a.size == 0 && used[axis])
      return absl::InvalidArgumentError(StrCat("the sharding uses axis \"", a.name, "\" twice"));
    used[axis] = true;
    int64_t coord = 0;
    for (int64_t pos = 0; pos < n; ++pos) {
      SPMD_TRY(RefCoord(mesh, a, pos, &coord, size));
      int64_t& c = coord_of(mesh.device_ids[pos]);
      c = c * *size + coord;
    }
    return absl::OkStatus();
  };
  for (int64_t d = 0; d < rank; ++d) {
    for (const AxisRef& a : s.dims[d]) {
      if (only_axes && std::find(only_axes->begin(), only_axes->end(), a.name) == only_axes->end()) continue;
      int64_t size = 1;
      SPMD_TRY(fold_axis(a, [&](int64_t p) -> int64_t& { return l.coords[p][d]; }, &size));
      l.tiles[d] *= size;
    }
  }
  if (!s.unreduced.empty()) {
    l.partial.assign(partitions, 0);
    for (const AxisRef& a : s.unreduced) {
      int64_t size = 1;
      SPMD_TRY(fold_axis(a, [&](int64_t p) -> int64_t& { return l.partial[p]; }, &size));
      l.partials *= size;
    }
    if (l.partials == 1) l.partial.clear();
  }
  return l;
}

absl::StatusOr<Layout> GspmdLayout(std::string_view text, int64_t rank, int64_t partitions, int element,
                                   std::vector<int64_t>* manual) {
  if (manual) manual->clear();
  Text t(text);
  SPMD_TRY(t.Expect('{'));
  if (t.Peek('{')) {
    // A tuple sharding: pick the element.
    int index = 0;
    std::string_view rest = text.substr(text.find('{') + 1);
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < rest.size(); ++i) {
      if (rest[i] == '{') {
        if (depth++ == 0) start = i;
      } else if (rest[i] == '}') {
        if (--depth == 0) {
          if (index == element) return GspmdLayout(rest.substr(start, i - start + 1), rank, partitions, -1, manual);
          ++index;
        } else if (depth < 0) {
          break;
        }
      }
    }
    return absl::InvalidArgumentError(StrCat("sharding '", text, "' has no tuple element ", element));
  }
  Layout l = Layout::Replicated(rank, partitions);
  if (t.Consume("replicated") || t.Consume("maximal") || t.Consume("manual") || t.Consume("unknown")) return l;
  if (t.Consume("unreduced")) {  // every partition holds an addend of the whole value
    if (partitions > 1) {
      l.partials = partitions;
      l.partial.resize(partitions);
      std::iota(l.partial.begin(), l.partial.end(), 0);
    }
    return l;
  }
  if (!t.Consume("devices=")) return t.Bad("expected replicated, maximal, manual or devices=");
  SPMD_TRY(t.Expect('['));
  std::vector<int64_t> tile_dims;
  while (!t.Consume(']')) {
    if (!tile_dims.empty()) SPMD_TRY(t.Expect(','));
    int64_t v;
    SPMD_TRY(t.Int(&v));
    if (v < 1) return t.Bad("a tile dimension must be positive");
    tile_dims.push_back(v);
  }
  const int64_t total = Product(tile_dims);
  std::vector<int64_t> devices;
  if (t.Consume("<=")) {
    // Iota: reshape [0, total) to `shape`, transpose by `perm`, flatten.
    std::vector<int64_t> shape, perm;
    SPMD_TRY(t.Expect('['));
    while (!t.Consume(']')) {
      if (!shape.empty()) SPMD_TRY(t.Expect(','));
      int64_t v;
      SPMD_TRY(t.Int(&v));
      shape.push_back(v);
    }
    if (Product(shape) != total) return t.Bad("the iota's shape does not hold the tile assignment");
    perm.resize(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    if (t.Consume('T')) {
      SPMD_TRY(t.Expect('('));
      for (size_t i = 0; i < perm.size(); ++i) {
        if (i) SPMD_TRY(t.Expect(','));
        SPMD_TRY(t.Int(&perm[i]));
      }
      SPMD_TRY(t.Expect(')'));
      std::vector<int64_t> sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      for (size_t i = 0; i < sorted.size(); ++i)
        if (sorted[i] != static_cast<int64_t>(i)) return t.Bad("the transpose is not a permutation");
    }
    std::vector<int64_t> tshape(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) tshape[i] = shape[perm[i]];
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * shape[i + 1];
    devices.resize(total);
    std::vector<int64_t> idx(tshape.size(), 0);
    for (int64_t k = 0; k < total; ++k) {
      int64_t src = 0;
      for (size_t i = 0; i < idx.size(); ++i) src += idx[i] * strides[perm[i]];
      devices[k] = src;
      for (int i = static_cast<int>(idx.size()) - 1; i >= 0; --i) {
        if (++idx[i] < tshape[i]) break;
        idx[i] = 0;
      }
    }
  } else {
    while (static_cast<int64_t>(devices.size()) < total) {
      if (!devices.empty()) SPMD_TRY(t.Expect(','));
      int64_t v;
      SPMD_TRY(t.Int(&v));
      devices.push_back(v);
    }
  }
  int64_t extra = static_cast<int64_t>(tile_dims.size()) - rank;  // trailing subgroup dims
  std::vector<bool> unreduced(tile_dims.size(), false);            // per tile dim: an unreduced subgroup
  std::vector<bool> manual_dim(tile_dims.size(), false);           // per tile dim: a manual subgroup
  if (t.Consume("last_tile_dim_replicate")) {
    if (extra != 1) return t.Bad("last_tile_dim_replicate needs one tile dimension beyond the rank");
  } else if (t.Consume("last_tile_dims=")) {
    SPMD_TRY(t.Expect('{'));
    int64_t count = 0;
    while (!t.Consume('}')) {
      if (count) SPMD_TRY(t.Expect(','));
      if (t.Consume("manual")) {
        if (!manual)
          return absl::UnimplementedError(StrCat("sharding '", text, "': partially manual GSPMD shardings are supported "
                                                 "inside GSPMD's shard_map only"));
        if (rank + count < static_cast<int64_t>(manual_dim.size())) manual_dim[rank + count] = true;
      } else if (t.Consume("unreduced")) {
        if (rank + count < static_cast<int64_t>(unreduced.size())) unreduced[rank + count] = true;
      } else if (!t.Consume("replicated")) {
        return t.Bad("expected manual, unreduced or replicated");
      }
      ++count;
    }
    if (count != extra) return t.Bad("last_tile_dims does not match the extra tile dimensions");
  } else if (extra != 0) {
    return absl::InvalidArgumentError(
        StrCat("sharding '", text, "' has ", tile_dims.size(), " tile dimensions for a value of rank ", rank));
  }
  if (total != partitions && total != 1)
    return absl::InvalidArgumentError(
        StrCat("sharding '", text, "' assigns ", total, " devices but the program runs on ", partitions, " partitions"));
  std::vector<bool> seen(partitions, false);
  for (size_t dim = 0; dim < tile_dims.size(); ++dim)
    if (unreduced[dim]) l.partials *= tile_dims[dim];
  if (l.partials > 1) l.partial.assign(partitions, 0);
  if (manual && std::find(manual_dim.begin(), manual_dim.end(), true) != manual_dim.end()) manual->assign(partitions, 0);
  for (int64_t k = 0; k < total; ++k) {
    const int64_t d = devices[k];
    if (d < 0 || d >= partitions || seen[d])
      return absl::InvalidArgumentError(StrCat("sharding '", text, "' names device ", d, " out of range or twice"));
    seen[d] = true;
    int64_t rest = k, scale = 1;
    for (int64_t dim = static_cast<int64_t>(tile_dims.size()) - 1; dim >= 0; --dim) {
      const int64_t c = rest % tile_dims[dim];
      rest /= tile_dims[dim];
      if (dim < rank) {
        l.coords[d][dim] = c;
      } else if (unreduced[dim]) {
        l.partial[d] += c * scale;  // several unreduced subgroups: mixed radix, the first major
        scale *= tile_dims[dim];
      } else if (manual_dim[dim]) {
        (*manual)[d] = c;  // (one manual subgroup: GSPMD merges them)
      }
    }
  }
  for (int64_t d = 0; d < rank; ++d) l.tiles[d] = tile_dims[d];
  return l;
}

namespace {
void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutPacked(std::string* out, int field, const std::vector<int64_t>& values) {
  std::string body;
  for (int64_t v : values) PutVarint(&body, static_cast<uint64_t>(v));
  PutVarint(out, (static_cast<uint64_t>(field) << 3) | 2);
  PutVarint(out, body.size());
  out->append(body);
}
}  // namespace

std::string OpShardingProto(const Layout& layout) {
  constexpr int kOther = 3, kUnreduced = 6, kReplicated = 0;  // xla.OpSharding.Type
  if (layout.replicated()) return std::string();
  const int64_t partitions = static_cast<int64_t>(layout.coords.size());
  const int64_t tiles = Product(layout.tiles) * layout.partials;
  const int64_t copies = tiles ? partitions / tiles : 1;
  std::string out;
  if (tiles == partitions && tiles == layout.partials) {  // nothing tiled, an addend everywhere
    PutVarint(&out, (1 << 3) | 0);
    PutVarint(&out, kUnreduced);
    return out;
  }
  // Devices of each tile (row-major index over the tiles, then the partial sum), in device order.
  std::vector<std::vector<int64_t>> holders(tiles);
  for (int64_t p = 0; p < partitions; ++p) {
    int64_t index = 0;
    for (size_t d = 0; d < layout.tiles.size(); ++d) index = index * layout.tiles[d] + layout.coords[p][d];
    if (layout.partials > 1) index = index * layout.partials + layout.partial[p];
    holders[index].push_back(p);
  }
  std::vector<int64_t> dims = layout.tiles, devices, subgroups;
  if (layout.partials > 1) {
    dims.push_back(layout.partials);
    subgroups.push_back(kUnreduced);
  }
  if (copies > 1) {
    dims.push_back(copies);
    subgroups.push_back(kReplicated);
  }
  for (const auto& h : holders)
    for (int64_t p : h) devices.push_back(p);
  PutVarint(&out, (1 << 3) | 0);  // type
  PutVarint(&out, kOther);
  PutPacked(&out, 3, dims);
  PutPacked(&out, 4, devices);
  if (layout.partials > 1) {
    PutPacked(&out, 8, subgroups);  // last_tile_dims
  } else if (copies > 1) {
    PutVarint(&out, (6 << 3) | 0);  // replicate_on_last_tile_dim
    PutVarint(&out, 1);
  }
  return out;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> MeshAxesGroups(const Mesh& mesh, const std::vector<AxisRef>& axes) {
  std::map<std::vector<int64_t>, std::vector<std::pair<int64_t, int64_t>>> buckets;  // key -> (index, device)
  const int64_t n = mesh.size();
  for (int64_t pos = 0; pos < n; ++pos) {
    std::vector<int64_t> key;
    for (size_t ax = 0; ax < mesh.axes.size(); ++ax) {
      bool listed = false;
      for (const AxisRef& a : axes) listed |= a.name == mesh.axes[ax].name;
      if (!listed) key.push_back(mesh.Coord(pos, static_cast<int>(ax)));
    }
    int64_t index = 0;
    for (const AxisRef& a : axes) {
      int64_t coord = 0, size = 0;
      absl::Status st = RefCoord(mesh, a, pos, &coord, &size);
      if (!st.ok()) return st;
      index = index * size + coord;
      if (a.size != 0) {
        // A sub-axis: the rest of its axis stays in the key.
        const int axis = mesh.AxisIndex(a.name);
        key.push_back(mesh.Coord(pos, axis) / (a.pre * a.size));
        key.push_back(mesh.Coord(pos, axis) % a.pre);
      }
    }
    buckets[key].emplace_back(index, mesh.device_ids[pos]);
  }
  std::vector<std::vector<int64_t>> groups;
  for (auto& [key, members] : buckets) {
    std::sort(members.begin(), members.end());
    groups.emplace_back();
    for (auto& [index, device] : members) groups.back().push_back(device);
  }
  return groups;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> GatherGroups(const Layout& layout, int dim,
                                                               const std::vector<bool>& pending) {
  const int64_t partitions = static_cast<int64_t>(layout.coords.size());
  const int64_t tiles = layout.tiles[dim];
  // Devices that agree on the pending dimensions share a bucket; within it, the k-th device of
  // each tile (in device order) joins group k.
  std::map<std::vector<int64_t>, std::vector<std::vector<int64_t>>> buckets;  // key -> per tile devices
  for (int64_t p = 0; p < partitions; ++p) {
    std::vector<int64_t> key;
    for (size_t d = 0; d < layout.tiles.size(); ++d)
      if (static_cast<int>(d) != dim && pending[d]) key.push_back(layout.coords[p][d]);
    auto& per_tile = buckets[key];
    per_tile.resize(tiles);
    per_tile[layout.coords[p][dim]].push_back(p);
  }
  std::vector<std::vector<int64_t>> groups;
  for (auto& [key, per_tile] : buckets) {
    const size_t copies = per_tile[0].size();
    for (const auto& devices : per_tile)
      if (devices.size() != copies || copies == 0)
        return absl::UnimplementedError("a layout whose tiles have unequal numbers of replicas");
    for (size_t k = 0; k < copies; ++k) {
      groups.emplace_back();
      for (int64_t t = 0; t < tiles; ++t) groups.back().push_back(per_tile[t][k]);
    }
  }
  return groups;
}

}  // namespace openpjrt::compiler::spmd
