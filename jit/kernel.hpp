#pragma once
// One compiled variant: the generated pieces it runs, with the workload and config it was
// built for. Their code stays mapped for as long as the Kernel object lives.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "jit/gemm_config.hpp"
#include "jit/gemm_pieces.hpp"
#include "jit/space.hpp"
#include "jit/workload.hpp"

namespace livetune {

// The arguments of one call. The kernel computes tiles [begin, end) of the split dimension,
// so several threads may each take a range.
struct GemmArgs {
  const float* a;
  const float* b;
  float* c;
  const float* bias;
  float* workspace;  // gemm_workspace_floats() floats, 64-byte aligned
  int64_t begin;
  int64_t end;
  // All of B packed once (pack_whole_b) for a kernel that packs B; null: pack per call.
  const float* b_packed = nullptr;
  int64_t m = 0;  // rows of this call, in [workload.least_m(), workload.m]; 0: workload.m
  // Columns of this call: 0, the workload's N, but for the swapped form, whose computed N is
  // the call's M.
  int64_t n = 0;
  // The row of C that `c` points at: 0, but for the swapped form's buffer of C^T's rows.
  int64_t c_first_row = 0;
};

struct Piece;  // piece_cache.hpp

// Owned through KernelPtr: a job queued for a kernel holds it (shared_from_this).
struct Kernel : std::enable_shared_from_this<Kernel> {
  Workload workload;
  Config config;
  GemmConfig gemm;
  // What the pieces compute: the workload, or in the swapped form C^T (swapped_workload).
  Workload computed;
  TileFn tile = nullptr;
  // [r]: the tile of r rows, where compiled (edge_tile_rows): the last M mod mr rows, or
  // balanced_rows; a remainder without one of its own runs the tiles of its binary digits.
  std::array<TileFn, 16> edge_tiles{};
  // The height of the tiles that run M's last rows in place of its short remainder, where
  // compiled (balanced_edge_rows); 0: none.
  int64_t balanced_rows = 0;
  // The tile of mr rows and the last N mod nr columns, n_edge_columns wide, where compiled
  // (n_edge_columns()); else the main tile runs them.
  TileFn n_edge_tile = nullptr;
  int64_t n_edge_columns = 0;
  // The dot edge (dot_edge_columns), where there is one, the copy of B's columns it reads (B
  // not transposed) and where that starts in the workspace.
  TileFn dot_edge = nullptr;
  ColumnRunsFn column_runs = nullptr;
  int64_t dot_edge_columns = 0;
  int64_t dot_edge_offset = 0;
  PackAFn pack_a = nullptr;      // with config pack_a only
  PackBFn pack_b = nullptr;      // with config pack_b only
  EpilogueFn epilogue = nullptr;  // with a bias or an activation only
  TransposeOutFn transpose_out = nullptr;  // the swapped form's write of C^T into C
  int64_t swap_rows_offset = 0;  // where the swapped form's rows of C^T start in the workspace
  int64_t c_buffer_offset = 0;  // where the partial sums of C start in the workspace (c_buf)
  int64_t columns_per_tile = 0;  // of the computed product (tile_columns): nr, or nr / phases
  int64_t tiles = 0;  // threading tiles at the workload's largest M (tiles_for)
  int64_t workspace_floats = 0;
  int64_t packed_a_floats = 0;  // of the workspace, before the packed B block
  // B read in place: the tile at the N edge moves left (its loads of B stay whole).
  bool edge_moves_left = false;
  bool tile_sweeps_n = false;  // TileSpec::sweep_n of its tile
  double compile_ms = 0;    // IR generation to callable, pieces found in the cache included
  int pieces_compiled = 0;  // how many of its pieces this compile generated (the rest were shared)
  std::vector<std::shared_ptr<const Piece>> pieces;
  // packed_b_layout_key(): kernels with equal ones read one packed B (empty where it takes none).
  std::string b_layout;
  size_t b_layout_hash = 0;  // of b_layout: compared first on the call path

  // A small kernel's whole call (one thread, the workload's rows) as the driver walks it,
  // recorded once (plan_calls) and replayed: a 4×4×4 call took 9 ns instead of the walk's 23,
  // of which its tile 5–7 (Zen 5; with random:300, 17³ went from 0.83x to 0.93x LIBXSMM, 24³
  // from 0.91x to 0.997x). Empty where the walk packs, copies B or depends on the addresses,
  // and in a kernel that is its whole call.
  std::vector<PlannedCall> plan;
  // A small kernel of a fixed M: its plan as one generated function (emit_whole_call), which is
  // all it has — no other pieces, no plan, one threading tile (compile.cpp, kWholeCallFlops).
  WholeCallFn whole_call = nullptr;

  // Whether B packed ahead (pack_whole_b of the caller's B) can serve it: its pack_b piece
  // packs B (in the swapped form it packs A).
  bool takes_packed_b() const { return pack_b && !gemm.swap; }

  // The driver (gemm_driver.cpp): the cache-block loop nest around the pieces.
  void run(const GemmArgs& args) const;
  // Threading tiles of a call of m rows (the workload's own M, the common call, without a
  // division; the swapped form splits N, whatever M).
  int64_t tiles_for(int64_t m) const {
    return gemm.split == Split::m && m != workload.m && !gemm.swap ? (m + gemm.mr - 1) / gemm.mr : tiles;
  }
};

using KernelPtr = std::shared_ptr<const Kernel>;

// The plan of a compiled kernel (Kernel::plan), or none.
std::vector<PlannedCall> plan_calls(const Kernel& k);

// B that stays the same from call to call (a layer's weights) need not be packed by every
// call: a kernel whose config packs B reads it from a copy packed once, in the layout of its
// pack_b piece, k block after k block. Same copy for every kernel with the same layout_key.
std::string packed_b_layout_key(const Workload& w, const GemmConfig& g);
// Packs share `part` of `parts` (all of it by default), so that threads can split the work.
void pack_whole_b(const Kernel& k, const float* b, float* dst, int64_t part = 0, int64_t parts = 1);

// Runs the whole kernel on this thread, with this thread's scratch (thread_workspace): for
// validation and measurement. m: rows of the call (0: the workload's).
void run_gemm_serial(const Kernel& k, const float* a, const float* b, const float* bias, float* c, int64_t m = 0);

}  // namespace livetune
