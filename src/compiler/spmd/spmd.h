// SPMD partitioning: from a program written for the whole mesh to the one program every partition
// runs on its own shards.
//
// What arrives. A module compiled for num_partitions = P > 1 (and num_replicas = R) whose values are
// global: @main's arguments and results have the whole arrays' types, and shardings say how they
// lie over the partitions, either Shardy's (`sdy.mesh` symbols, `sdy.sharding` argument/result
// attributes, `sdy.manual_computation` regions whose bodies see per-device shards and talk through
// collectives over mesh axes) or GSPMD's (`mhlo.sharding` strings on arguments and results). PJRT
// hands each partition only its shard of every argument and expects its shard of every result
// back.
//
// What leaves. The same module, rewritten so that every value has the type a partition holds:
//   * @main's arguments take their shard types; where a whole value is needed it is rebuilt with
//     all-gathers along each tiled dimension (groups from the layout, one device per tile);
//   * every sdy.manual_computation is inlined: each operand is cut to the partition's shard
//     (a dynamic_slice at offsets looked up by partition_id), the body runs as written, its
//     collectives' `#stablehlo.replica_group_mesh_axes` become explicit device groups, and the
//     results are gathered back along the manual axes;
//   * @main's results are cut to the partition's shard of each result sharding.
// A value that is only moved between a shard-typed argument, a manual computation and a result of
// the same layout is never gathered or sliced: pmap and shard_map programs run on their shards
// with no added traffic.
//
// What runs partitioned. Ops whose shards can be computed from shards run on them (partition.cc
// names each rule): elementwise ops, transposes, broadcasts, reshapes that keep tiles whole,
// reductions (an all-reduce completes tiled reduced dimensions; argmax-like variadic ones gather
// each partition's winner and reduce again), sorts and reduce_windows along untiled dimensions,
// convolutions over a tiled batch, over "SAME" tiled spatial dimensions (halos of the
// neighbours' edge rows by collective_permute) and over tiled features (split input features
// all-reduced), gathers and scatters on dimensions they take whole, and dots
// led by their tiled operand (partial products over a tiled contraction, all-reduced). Sharding
// constraints reshard. Every other op runs on whole values rebuilt by all-gathers: every program
// runs correctly, and each rule only makes it cheaper. A conflict between operands' layouts is
// resolved in favour of the first sharded operand; the others are cut (or gathered and cut) to it.
// A value whose tiles move from one dimension to another over the same partitions moves by one
// all_to_all instead of a gather and a cut; a whole elementwise result needed as a shard is
// recomputed from its operands' shards, and a sum needed as shards becomes a reduce_scatter (FSDP's
// gradients). Ops the rewrite leaves unread (those sums, their transposes) are dropped.
//
// Unreduced axes (Shardy's unreduced={...}, GSPMD's {unreduced} and last_tile_dims={unreduced}):
// the partitions that differ only along them hold addends of the value. Such an argument is
// summed (one all-reduce) on arrival; inside the program values are always summed, so an
// unreduced constraint keeps only its tiles; an unreduced result leaves as each partition's
// addend: a product over a split contraction as its partial products (the all-reduce that would
// complete them is dropped), anything else whole on the first partition of each group and zeros
// on the others.
//
// Uneven tiles (a dimension of 10 over 4 partitions) of @main's arguments and results lie as XLA
// lays them out: every partition holds ceil(10 / 4) = 3, the last tiles padded. Elementwise ops
// run on such shards (the padding computes values nobody reads); any other op that reads such a
// value runs on the whole value (all-gathered, the padding sliced off); a result is cut
// from its whole value padded with zeros; a value passed straight through keeps its shards. A
// sharding constraint that would cut unevenly is a hint this pass does not take (the value stays
// whole).
//
// Nested manual computations (shard_map in shard_map): an inner computation over other axes cuts
// the values its enclosing body holds (the partition's shards along the enclosing axes) along its
// own axes and gathers its results back among the partitions that share the enclosing
// coordinates. GSPMD spells the same with partially manual shardings (last_tile_dims={manual})
// on the Sharding custom calls inside its shard_map bodies: their tiles over the automatic axes
// are read like any constraint's.
//
// Refusals. A sharding naming an axis the mesh lacks, a mesh larger than P, a shard type that does
// not match its sharding, a nested manual computation over an axis already manual: INVALID_ARGUMENT
// with the op's location. Uneven tiles at a manual computation's boundary, unreduced axes in a
// manual computation, partially manual GSPMD shardings on @main's arguments and results, meshes
// whose device order would pair partitions of different manual shards: UNIMPLEMENTED with the name.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "src/compiler/spmd/sharding.h"
#include "src/ir/ir.h"

namespace openpjrt::compiler::spmd {

// How the entry's arguments and results lie over the partitions (what PJRT's parameter and
// output shardings report). Empty when nothing was partitioned: everything is whole.
struct PartitionInfo {
  std::vector<Layout> params;
  std::vector<Layout> results;
};

// Rewrites `module` in place for `num_partitions` partitions x `num_replicas` replicas. A module
// with nothing to partition (P == 1, no shardings, no manual computations) is left as it is.
// `entry` is the function PJRT executes.
absl::Status PartitionModule(ir::Module& module, ir::Operation& entry, int64_t num_partitions,
                             int64_t num_replicas, PartitionInfo* info = nullptr);

}  // namespace openpjrt::compiler::spmd
