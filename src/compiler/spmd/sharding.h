// Shardings as the partitioner sees them: a mesh of devices with named axes (Shardy's
// #sdy.mesh), a value's sharding over such a mesh (#sdy.sharding, GSPMD's mhlo.sharding string),
// and the one form both reduce to, a Layout: how many tiles each dimension of a value is cut into
// and which tile every partition holds.
//
// Contract: every parser takes the attribute's text exactly as the IR keeps it (the generic
// spelling, `#sdy.sharding<@mesh, [{"x"}, {}]>` or `{devices=[4,1]<=[4]}`), returns
// INVALID_ARGUMENT naming what is wrong for text it cannot read, and UNIMPLEMENTED for forms it
// reads but the partitioner cannot honour (uneven tiles are checked by the caller).
// Nothing here touches the IR; spmd.h's pass does.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace openpjrt::compiler::spmd {

struct MeshAxis {
  std::string name;
  int64_t size = 1;
};

// A Shardy mesh: named axes, major to minor, and the device (partition) at each mesh position in
// row-major order (iota when the text gives no device_ids).
struct Mesh {
  std::vector<MeshAxis> axes;
  std::vector<int64_t> device_ids;

  int64_t size() const;
  int AxisIndex(std::string_view name) const;  // -1 if absent
  // The coordinate of mesh position `pos` along axis `axis`.
  int64_t Coord(int64_t pos, int axis) const;
};

// One entry of a dimension's axis list: a whole axis, or the sub-axis "x":(pre)size, the factor of
// size `size` after the first `pre` of axis x.
struct AxisRef {
  std::string name;
  int64_t pre = 1;
  int64_t size = 0;  // 0: the whole axis
};

struct SdySharding {
  std::string mesh_name;             // empty when the mesh is written inline
  std::optional<Mesh> inline_mesh;
  std::vector<std::vector<AxisRef>> dims;  // major-to-minor axes per dimension
  std::vector<AxisRef> replicated;
  std::vector<AxisRef> unreduced;
};

// How a value of rank R lies over P partitions: dimension d is cut into tiles[d] equal tiles and
// partition p holds tile coords[p][d] of it. Partitions holding the same tiles are replicas,
// unless the layout has unreduced axes (partials > 1): then partitions that hold the same tiles
// but different partial[p] (in [0, partials)) hold addends of them, and the value is their sum.
struct Layout {
  std::vector<int64_t> tiles;
  std::vector<std::vector<int64_t>> coords;
  int64_t partials = 1;
  std::vector<int64_t> partial;  // per partition; empty when partials == 1

  static Layout Replicated(int64_t rank, int64_t partitions);
  // Whole on every partition: no tiles and no partial sums.
  bool replicated() const;
  // The same tiles with the partial sums added up (what an all-reduce over them leaves).
  Layout Reduced() const;
  bool operator==(const Layout& o) const = default;
  std::string ToString() const;  // "[4,1]", "[1,1] unreduced over 4" or "replicated", for messages
};

// `#sdy.mesh<["x"=2, "y"=2], device_ids=[...]>`, `mesh<...>` or `<...>`.
absl::StatusOr<Mesh> ParseSdyMesh(std::string_view text);
// `#sdy.sharding<@mesh, [{"x"}, {"y", ?}p1], replicated={"z"}>`, or the body of one element of
// a sharding_per_value list (`<@mesh, [...]>`).
absl::StatusOr<SdySharding> ParseSdySharding(std::string_view text);
// `#sdy.sharding_per_value<[<@mesh, [...]>, ...]>`.
absl::StatusOr<std::vector<SdySharding>> ParseSdyShardingPerValue(std::string_view text);
// `#sdy<manual_axes{"x", "y"}>`.
absl::StatusOr<std::vector<std::string>> ParseManualAxes(std::string_view text);

// The layout of a rank-`rank` value sharded by `s` over `mesh` on `partitions` partitions; its
// unreduced axes number the partial sums (mixed radix, in the order listed). With `only_axes`,
// axes outside that set are ignored (they are free axes of a manual computation), and unreduced
// axes are refused (UNIMPLEMENTED).
absl::StatusOr<Layout> SdyLayout(const SdySharding& s, const Mesh& mesh, int64_t rank, int64_t partitions,
                                 const std::vector<std::string>* only_axes = nullptr);

// GSPMD's sharding string: {replicated}, {maximal device=N}, {manual},
// {devices=[a,b,...]<=[N]} (iota, optionally reshaped and transposed: <=[2,2]T(1,0)),
// {devices=[a,b]0,1,2,3}, with last_tile_dim_replicate or last_tile_dims={...} (replicated and
// unreduced subgroups), {unreduced} (every partition an addend). A tuple sharding
// {{...}, {...}} yields `element` of it.
// A partially manual sharding (last_tile_dims naming manual subgroups: inside GSPMD's shard_map
// over some of the mesh's axes) is refused (UNIMPLEMENTED) unless `manual` is given: then its
// manual subgroups hold copies in the layout, and manual[p] is partition p's coordinate along
// them (empty for a sharding without any).
absl::StatusOr<Layout> GspmdLayout(std::string_view text, int64_t rank, int64_t partitions, int element = -1,
                                   std::vector<int64_t>* manual = nullptr);

// The layout as a serialized xla.OpSharding (xla_data.proto): REPLICATED (an empty message),
// UNREDUCED (partial sums on every partition, no tiles) or OTHER with the tile assignment (tile
// dimensions, then an unreduced subgroup dimension and a replicated one where the layout has
// them, named by last_tile_dims; a lone replicated one by replicate_on_last_tile_dim) and its
// devices in row-major order.
std::string OpShardingProto(const Layout& layout);

// Device groups for collectives over mesh axes (#stablehlo.replica_group_mesh_axes): each group
// holds the devices that agree on every other axis, ordered by their mixed-radix index along
// `axes` (the first axis major).
absl::StatusOr<std::vector<std::vector<int64_t>>> MeshAxesGroups(const Mesh& mesh, const std::vector<AxisRef>& axes);

// The groups that all-gather dimension `dim` of a value with `layout`: one device of each tile
// along `dim`, in tile order, among devices that agree on the dimensions in `pending` (those not
// gathered yet). Fails if the replicas do not divide evenly.
absl::StatusOr<std::vector<std::vector<int64_t>>> GatherGroups(const Layout& layout, int dim,
                                                               const std::vector<bool>& pending);

}  // namespace openpjrt::compiler::spmd
