#pragma once
// A GEMM variant is a few generated pieces run by a precompiled driver (gemm_driver.cpp):
// the register tile, the packing of A and of B, the bias/activation epilogue. Each piece is
// specialised only to what its code depends on, so that variants which differ in the cache
// blocks or the loop order share it, and a piece is compiled once per process while some
// kernel uses it (piece_cache.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "jit/gemm_config.hpp"
#include "jit/workload.hpp"

namespace livetune {

// C(tile) = A(tile)·B(tile) over kb steps, + beta·C on the first K block and + C after it,
// for `count` tiles one below the other (rows·count rows; packed A: the next panel), or with
// TileSpec::sweep_n side by side (nr·count columns of B read in place; whole tiles); all that
// for `panels` panels of B side by side (nr columns each; more than one only of whole tiles).
// Only columns [skip_cols, cols) are written (cols < nr at the N edge of packed B; skip_cols
// > 0 at the N edge of B read in place, where the tile moves left to end at the last column).
using TileFn = void (*)(const float* a, const float* b, float* c, int64_t kb, int64_t first, int64_t cols,
                        int64_t skip_cols, int64_t count, int64_t panels);
// Copies rows [0, mb) × columns [0, kb) of A (from `src`) into panels of mr rows; the last
// panel, if short, is moved up so that it holds mr real rows.
using PackAFn = void (*)(const float* src, float* dst, int64_t mb, int64_t kb);
// Copies rows [0, kb) × columns [0, nb) of B (from `src`) into panels of nr columns,
// zero-padded past nb.
using PackBFn = void (*)(const float* src, float* dst, int64_t kb, int64_t nb);
// Copies the first `columns` columns of B's k rows (from `src`) into runs of k floats, one per
// column (ColumnRunsSpec).
using ColumnRunsFn = void (*)(const float* src, float* runs);
// C = act(C + bias) over rows × cols of a finished tile.
using EpilogueFn = void (*)(float* c, const float* bias, int64_t rows, int64_t cols);
// The swapped form's write: C(i, j) = act(t(j, i) + bias(j) + beta·C(i, j)) for i < rows,
// j < cols; t holds C^T's rows (W rows at a time are read whole: its rows and their length
// rounded up to whole vectors must be readable).
using TransposeOutFn = void (*)(const float* t, float* c, const float* bias, int64_t rows, int64_t cols);

// One call the driver makes in a whole call of a small kernel (Kernel::plan): of a tile, with
// its arguments, or (no tile) of the epilogue on `rows` × `cols` of C, the bias from column `col`.
struct PlannedCall {
  TileFn tile = nullptr;
  int64_t a = 0, b = 0, c = 0;  // offsets from the call's A, B and C
  int64_t kb = 0, first = 0, cols = 0, skip = 0, count = 0, panels = 0;
  int64_t col = 0, rows = 0;
  // The dot edge's copy of B's last columns into runs along K (Kernel::column_runs): from B at
  // offset b into the workspace at offset c.
  bool column_runs = false;
  // The tile reads those runs: b is an offset into the workspace, not into B.
  bool b_in_workspace = false;
  bool uses_workspace() const { return column_runs || b_in_workspace; }
};

// A small kernel's whole call: the code of its plan's tiles and epilogue one after another in
// one function, every size, offset and mask a constant (emit_whole_call).
using WholeCallFn = void (*)(const float* a, const float* b, float* c, const float* bias);

// K loops this short (in values of K) whose bounds are known are emitted as straight code: at
// K = 1..8 the loop's overhead and its unrolled body for longer blocks cost more than the
// few FMAs per tile.
constexpr int64_t kStraightK = 8;

struct TileSpec {
  int vec = 0;  // floats per vector (GemmConfig::vec)
  int rows = 0, nr = 0, unroll = 1, prefetch = 0, prefetch_n = 0, prefetch_c = 0;
  // Floats ahead along A's rows read in place, into L2 (0: none): the swapped form's A is the
  // caller's B, rows × K streamed from memory once (GemmConfig::prefetch_n).
  int prefetch_a = 0;
  // Rows of a packed A panel (the main tile's mr): the edge tile reads the last `rows` of it.
  int a_panel = 0;
  // Floats of a row of a packed B panel (the main tile's nr): the N-edge tile, narrower,
  // reads the first `nr` of each.
  int b_panel = 0;
  bool pack_a = false, pack_b = false;
  bool tail = false;  // a K step loop after the unrolled one (some K block is not a multiple)
  // K fits one block: every call is the first, C is not read unless beta != 0.
  bool one_k_block = false;
  // Every call's kb where that is K, one block of at most kStraightK: the K loop is straight
  // code (0: kb comes with each call).
  int64_t k = 0;
  // B read in place and narrower than the tile: loads of B masked (else the N-edge tile
  // moves left and every load is whole).
  bool masked_loads = false;
  // M is one band of tiles and B is read in place: one call runs a row of tiles across N (a
  // call per tile cost more instructions than the tile's FMAs at M = 1).
  bool sweep_n = false;
  // Swept with prefetch_n where the next call reads the next K block of the same columns:
  // fetching past the call's last column goes on in those rows, from its first.
  bool fetch_wraps = false;
  // Packed B: the tiles of a call fetch the next panel (kb·nr floats on) into L2 between them.
  bool next_panel = false;
  // B transposed read in place: the dot tile (gemm_dot_tile.cpp); unroll and tail count
  // vectors along K.
  bool dot = false;
  // The dot edge: `count` counts rows, not tiles; a last tile short of rows repeats its last.
  bool counts_rows = false;
  // gemm_phases: each K step is `phases` values of k, a packed row of B nr lanes for nr / phases
  // columns of C; the tile sums each group of lanes before its update of C.
  int phases = 1;
  // Rows of B (values along A's row) from one K step to the next: 1, or K / kc where the K
  // steps of a block are spread over K (GemmConfig::k_spread); then the next block starts one
  // row on.
  int64_t k_stride = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;  // lda/ldb only when that operand is read unpacked
  float beta = 0.0f;
  // GemmConfig::c_buf: C is the buffer of partial sums — a tile's rows nr floats apart, the
  // tiles of a sweep one after another, no beta — and B's rows are fetched ahead for one use
  // (prefetchnta), so that they do not push the buffer out of L1.
  bool c_buffer = false;
  std::string key() const;
};

struct PackASpec {
  int mr = 0;
  int64_t lda = 0;
  std::string key() const;
};

struct PackBSpec {
  int vec = 0;  // floats per vector of the panels' rows (GemmConfig::vec)
  int nr = 0;
  int64_t ldb = 0;
  bool trans_b = false;
  // gemm_phases: panels of nr / phases columns, a row of nr floats per `phases` rows of B,
  // column j's values at j·phases + i (B transposed only).
  int phases = 1;
  std::string key() const;
};

// The dot edge's copy of B's columns (B not transposed).
struct ColumnRunsSpec {
  int columns = 0;
  int64_t k = 0, ldb = 0;
  std::string key() const;
};

struct EpilogueSpec {
  int64_t ldc = 0;
  bool bias = false;
  ActivationKind act = ActivationKind::none;
  std::string key() const;
};

struct TransposeOutSpec {
  int64_t ldt = 0, ldc = 0;  // floats from row to row of C^T and of C
  float beta = 0.0f;
  bool bias = false;
  ActivationKind act = ActivationKind::none;
  std::string key() const;
};

// Kernel::plan's calls, each of tiles[tile_of[i]] (-1: of the epilogue; PlannedCall::tile
// is not read).
struct WholeCallSpec {
  std::vector<TileSpec> tiles;
  std::vector<int> tile_of;
  std::vector<PlannedCall> calls;
  EpilogueSpec epilogue;  // where a call is of the epilogue
  std::string key() const;
};

TileSpec tile_spec(const Workload& w, const GemmConfig& c);
// The row counts of the edge tiles, the tiles of the last M mod mr rows: every row they
// compute is one of C's (a tile of mr rows moved up over the rows above would compute up to
// mr - 1 rows twice: 3% of a 64³ GEMM with mr = 6). One count for a fixed M, and mr - 1 where
// a short remainder merges with the tiles above it (balanced_edge_rows); for a bucket of M,
// each remainder its Ms can leave, or where those are more than the powers of two below mr,
// those powers, which the driver combines (a remainder of 5 runs the tiles of 4 and 1).
std::vector<int> edge_tile_rows(const Workload& w, const GemmConfig& c);
// The height of the tiles that run M's last rows where its remainder r is too short a tile to
// keep the FMA units busy (r × nr / vec accumulators, fewer than the 8 FMAs in flight that two
// units of latency 4 need: each K step waits on the last): the r rows and the mr - 1 - r tiles
// above them run as mr - r tiles of mr - 1 rows, as LIBXSMM's kernels do (301 = 46 × 6 + 5 × 5).
// The tile of r rows stays for a last block with fewer whole tiles. 0: none. M fixed, A read
// in place (packed A comes in panels of mr rows), not the dot form or phases.
int balanced_edge_rows(const Workload& w, const GemmConfig& c);
TileSpec edge_tile_spec(const Workload& w, const GemmConfig& c, int rows);
// The columns of the N-edge tile, the tiles of the last N mod nr columns: N mod nr rounded up
// to whole vectors, where that is narrower than nr and saves a 64th of the columns computed
// (0: none; the main tile runs the edge, computing nr columns). 65 columns on tiles of 48
// computed 96, with it 80: 65³ ran 1.14x, 257³ 1.05x faster (ratios to OpenBLAS in the same
// runs, Zen 5). Not in the dot form, whose tiles are a few columns wide.
int n_edge_columns(const Workload& w, const GemmConfig& c);
TileSpec n_edge_tile_spec(const Workload& w, const GemmConfig& c);
// The dot edge's tile (dot_edge_columns): one row, all of K in one block, B's columns as runs
// of K floats (B transposed: its rows where they lie; else the copy in the workspace).
TileSpec dot_edge_spec(const Workload& w, const GemmConfig& c);
ColumnRunsSpec column_runs_spec(const Workload& w, const GemmConfig& c);
// The tile masks its loads of B (TileSpec::masked_loads): B read in place, narrower than a tile.
bool tile_masks_b(const Workload& w, const GemmConfig& c);
// The tile runs rows of tiles across N (TileSpec::sweep_n).
bool tile_sweeps_n(const Workload& w, const GemmConfig& c);
PackASpec pack_a_spec(const Workload& w, const GemmConfig& c);
PackBSpec pack_b_spec(const Workload& w, const GemmConfig& c);
EpilogueSpec epilogue_spec(const Workload& w);
TransposeOutSpec transpose_out_spec(const Workload& w);

}  // namespace livetune
