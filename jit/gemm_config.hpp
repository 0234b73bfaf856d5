#pragma once
// The CPU GEMM template's knobs, typed. `gemm_space` gives the Space for one workload on one
// target; `GemmConfig::from` reads a Config of that space.
#include <algorithm>
#include <cstdint>

#include "jit/space.hpp"
#include "jit/target.hpp"
#include "jit/workload.hpp"

namespace livetune {

// Order of the three cache-block loops, outermost first.
enum class LoopOrder : int { nkm, nmk, knm, kmn, mkn, mnk };
// Which dimension a multi-threaded call splits into tiles.
enum class Split : int { m, n };
// The register tiles of one block: column panel by column panel (nm: a B panel is reused by
// the tiles below each other) or row panel by row panel (mn: an A panel stays in L1 while
// the B panels stream from L2). interleaved, swapped only: a tile's rows kInterleavedRows
// apart and the next tile one row on, so that each row the tiles stream from memory runs on
// into the next tile's instead of ending where another tile's row begins.
enum class TileOrder : int { nm, mn, interleaved };
inline constexpr int kInterleavedRows = 8;

struct GemmConfig {
  int mr = 6;        // register tile rows
  int nr = 64;       // register tile columns (a multiple of vec)
  // Floats per vector: the target's widest, or on AVX-512 also 8 (ymm) where N is narrow
  // enough that zmm vectors would compute many more columns than C has (half_width_pays).
  int vec = Target::host().vector_floats();
  int kc = 256;      // K block
  int mc = 96;       // M block (a multiple of mr)
  int nc = 1536;     // N block (a multiple of nr)
  bool pack_a = false;
  bool pack_b = true;
  int unroll = 4;    // K-loop unroll of the micro-kernel
  int prefetch = 0;  // B prefetch distance in K steps (0: none)
  // B prefetch distance along its rows, in floats (0: none): for B read in place a few rows
  // per K block, as for M = 1..8, where each row is a stream of its own. Swapped, B's rows
  // are the product's A rows, read in place the same way.
  int prefetch_n = 0;
  // 1: each tile's C rows are prefetched into L2 before its K loop, so that the update of C
  // at its end does not wait for memory. 2: tiles walking along C's rows (tiles=mn) fetch
  // the lines some tiles ahead of them, for writing: on short K the stores of a C beyond the
  // caches are the work (0: not at all).
  int prefetch_c = 0;
  LoopOrder order = LoopOrder::nkm;
  Split split = Split::m;
  TileOrder tiles = TileOrder::nm;
  // 1: the pieces compute C^T = B·A^T (swapped_workload), and the driver writes it into C
  // transposed. For B transposed and few rows of A, where neither reading B in place nor
  // packing it keeps the FMAs fed: swapped, B's rows are an A read where it lies (each value
  // one broadcast, B read once, as a few long streams) and A, small, is packed once.
  bool swap = false;
  // 1: one band of tiles across N (TileSpec::sweep_n) over several K blocks keeps its partial
  // sums between them in the workspace, tile after tile, and adds them into C after the last
  // (gemm_c_buffer_valid). With few rows of A over a large B, C's rows (ldc a multiple of 4
  // KiB: all in the same few L1 sets) were read and written again for every K block of 8
  // rows, and the FMAs waited for them; the buffer's lines stay in L1/L2 while B streams past.
  bool c_buf = false;
  // 1: the kc K steps of a block are K / kc rows of B apart, not side by side: K is kc
  // segments read side by side, block j taking row j of each (gemm_k_spread_valid). One row of
  // A over a large B then reads it as kc streams each as long as its segment (a probe of that
  // order read 1.1–1.2x faster than kc rows side by side), where blocks of adjacent rows start
  // kc new streams of one row each every block.
  bool k_spread = false;

  static GemmConfig from(const Config& c);
  Config to_config(const Target& t) const;
};

// Version of the generator; part of every persisted key (bump when emitted code changes).
inline constexpr int kGemmTemplateVersion = 30;

Space gemm_space(const Workload& w, const Target& t);

// Where c_buf may be 1: the tile sweeps N (one band of mr = M rows, B read in place), K runs
// in more than one block, and N is whole tiles (the buffer holds whole tiles, none moved left).
bool gemm_c_buffer_valid(const Workload& w, const GemmConfig& g);
// Where k_spread may be 1: one row of A (its kc values of a block lie K / kc apart, each its own
// line) read in place, sweeping N over B read in place, K whole blocks and at least two, no
// fetch down B's columns (its rows ahead would be other segments'). Not for more rows: their
// mr × kc lines of A fall in two L1 sets where A's rows are a multiple of 4 KiB apart (Zen 5,
// N = K = 4096 against the same config unspread: 2 rows 1.03–1.06x, 3 even, 4 0.75x, 8 0.36x).
bool gemm_k_spread_valid(const Workload& w, const GemmConfig& g);
// Floats of the workspace the partial sums take (c_buf), after everything else in it.
int64_t gemm_c_buffer_floats(const Workload& w, const GemmConfig& g);

// The swapped form (GemmConfig::swap) is for B transposed and M (a bucket's largest) at most
// kSwapMaxRows: C^T's rows of M floats are buffered and A is packed whole, both in the
// workspace (512 rows, K = 4096: 8 MiB). A call's M is the computed product's N: its tiles
// cover the columns there are. Past 128 rows it still pays where B has several times as many
// rows as A (Zen 4, 256×1024×4096: 111.9 GFLOP/s swapped, 108.3 packed, oneDNN 109.0).
inline constexpr int64_t kSwapMaxRows = 512;
bool swap_possible(const Workload& w);
// C^T[N×M] = B·A^T as the template computes it: B (N×K) read in place as its A, A (M×K) as its
// B transposed; C^T's rows (ldc: M rounded up to 16 floats) go to the workspace, and no bias,
// activation or beta, which the transposing write applies.
Workload swapped_workload(const Workload& w);
// The workload the pieces compute: w, or swapped_workload(w).
inline Workload computed_workload(const Workload& w, const GemmConfig& g) { return g.swap ? swapped_workload(w) : w; }
// The swapped form where C^T's rows (M floats) are narrower than the tile: its lanes, else
// mostly padding (M = 8 on 32 lanes computed 32 columns for 8), hold `phases` consecutive k of
// each column — lane m·phases + i accumulates A(m, k + i)·B(n, k + i), one broadcast of
// `phases` floats of B's row feeding them all — and the tile sums each group at its end. It
// takes phases a power of two up to the vector, a tile of exactly M columns (nr = M·phases)
// or, where none fits, of the power of two above M, the columns past M zeros in the packed
// block and never written to C (M = 7 on 32 lanes: 8 columns of 4); K and kc multiples of
// it, and AVX-512 (the tile writes its few columns through masks).
// 1: none. Zen 5, 8×4096×4096 with B transposed, configs alternated in one run: 98–113
// GFLOP/s against 78–90 on the dot tile the search picked before.
int gemm_phases(const Workload& computed, const GemmConfig& g);
// Columns of the computed product one tile covers: nr, or nr / phases.
inline int tile_columns(const Workload& computed, const GemmConfig& g) { return g.nr / gemm_phases(computed, g); }
// Rows of C^T one pass of the swapped form buffers before writing them into C: an M block,
// rounded up to whole vectors (the transposing write reads W rows at a time).
int64_t swap_rows(const GemmConfig& g);

// A register tile of mr rows × nv vectors keeps its accumulators in registers, and per K step
// one row of B and the broadcast A value (nv + 1 more) — or, where those do not fit and the
// tile has fewer rows than vectors, every row's broadcast and one vector of B at a time
// (mr + 1 more: the 3×32 tile on AVX2's 16 registers, LIBXSMM's for 64³).
// On 32 registers two stay free: a tile holding 31 (14 rows × 2 vectors) spilled accumulators
// in the K loop (with loop strength reduction off, orc_engine.cpp), and ran slower than 12 × 2 in every
// form measured (Zen 4, 1024³, against LIBXSMM/oneDNN: A in place 0.51–0.72 against
// 0.81–0.98, A packed 0.76–0.87 against 0.96–1.02; Intel, 2048³: 64 against ~88 GFLOP/s) and
// never faster (Zen 4, 1000×17×333 in place: even). AVX2's 16 may all be used: its 3×32 tile
// measured faster than 6×16.
inline bool tile_rows_first(int mr, int nv, int registers) { return mr * nv + nv + 1 > registers && mr < nv; }
inline bool tile_fits_registers(int mr, int nv, int registers) {
  const int spare = registers >= 32 ? 2 : 0;
  return mr * nv + (tile_rows_first(mr, nv, registers) ? mr : nv) + 1 + spare <= registers;
}

// B transposed and not packed: the dot tile (gemm_dot_tile.cpp) reads B's rows where they lie.
inline bool gemm_dot_form(const Workload& w, const GemmConfig& g) { return w.trans_b && !g.pack_b; }
// K blocks longer than this only in the dot form: there a K block is the length of each
// reduction and buffers nothing, and one block over the whole K reads each row of B as one
// stream (Zen 4, 8×4096×4096: kc 1024 69, 2048 74.5, 4096 89.5 GFLOP/s); elsewhere a packed
// block of A or B grows with kc, and blocks fit L1 or L2 well below it.
inline constexpr int kLongestPackedKc = 1024;

// Columns of C a dot tile of mr rows computes at once: mr × n accumulators beside mr vectors
// of A and one of B, two registers spare on 32 as in tile_fits_registers; at most 8 (8 rows of
// B streamed at once). 0: no dot tile of that height.
inline int dot_columns(int mr, int registers) {
  const int spare = registers >= 32 ? 2 : 0;
  return std::min(8, (registers - spare - 1 - mr) / mr);
}

// The columns a tile `width` floats wide computes across N: N rounded up to whole tiles.
inline int64_t columns_computed(int64_t n, int64_t width) { return (n + width - 1) / width * width; }

// Vectors of `vec` floats narrower than the target's widest (`widest`) may pay on N when the
// columns they compute, N rounded up to whole vectors, are at least a tenth fewer (N = 17:
// 24 instead of 32): where zmm operations run in halves (Target::zmm_in_halves) a ymm FMA
// costs half a zmm's, so the tile's time falls with the columns it computes; with full-width
// units it issues at a zmm's rate and does half the work, and the search decides.
bool half_width_pays(int64_t n, int vec, int widest);

// The last N mod nr columns where dot_edge_takes them (N = 65, 129, 513 on tiles of 64, 103 on
// 48): computed after the blocked walk by a dot tile of one row over all of K (the dot edge,
// gemm_driver.cpp), each value of C a reduction along K — a tile of vectors across N would
// compute a whole vector per column. 0: none. Not in the dot form, nor on N of one tile.
// Up to half a vector: c columns cost c FMAs per vector of K and their sums, the N-edge tile's
// vector one per value of K. On 8 lanes that is 4, the limit measured on 16 before 5..8 were.
inline constexpr int dot_edge_most_columns(int vec) { return vec / 2; }
// ...where K is at least a vector long: shorter, each column's dot product is one masked FMA
// and a sum across lanes per row, and the N-edge tile's vector costs less. Zen 5, 6 × 48 on
// 100×100×K with and without the dot edge (4 columns), alternated, against OpenBLAS in the
// same runs: K = 4 1.0x against 1.3x (all 2–4 vector widths), 8 1.08x against 1.12–1.24x, 16
// even (1.11–1.13x), 32 1.03–1.05x against 0.95–0.97x, 64 1.02–1.03x against 0.89–0.92x.
inline constexpr int kDotEdgeMinK = 16;
inline constexpr int kDotEdgeShortKColumns = 4;  // the most on K from kDotEdgeMinK
// 5..8 columns, twice the sums: K at least 4 vectors long. Zen 5, default configs with and
// without them on the dot edge (the N-edge tile), alternated, ratio to OpenBLAS in the same
// runs: K = 16 1.02–1.03x against 1.07–1.09x (33×200, 100×200), 32 0.97–1.0x against
// 0.98–1.0x, 64 even; longer, medians of three: 64×200×1024 1.22x against 1.18x, 200×135×256
// 1.31x against 1.22x, 1000×200×512 1.11x against 1.06x, 500×263×300 1.14x against 1.10x,
// 200³ 1.15x against 1.12x, 128×1030×512 1.10x against 1.09x, 97×103×89 and 64×71×64 +1%,
// 1000×518×128 even.
inline constexpr int kDotEdgeWideMinK = 64;
inline bool dot_edge_takes(int64_t columns, int64_t k, int vec) {
  const int64_t least_k = columns <= kDotEdgeShortKColumns ? kDotEdgeMinK : kDotEdgeWideMinK;
  return columns > 0 && columns <= dot_edge_most_columns(vec) && k >= least_k;
}
// All of a B narrower than the tile, where it has at most kDotNarrowColumns columns and K
// runs at least kDotNarrowMinK long (a classifier's few outputs, a projection to a handful of
// values): a tile of vectors across N would compute a whole vector for its N columns, the dot
// tile computes whole vectors along K. Zen 5, default configs against the best peer in the
// same run, before -> after: 1000×4×1000 0.77x -> 2.9x (LIBXSMM), 4096×8×4096 0.67x -> 0.84x
// (oneDNN), 200×7×300 0.79x -> 1.6x, 64×3×512 0.43x -> 1.5x (OpenBLAS). K under two
// vectors stays on the tiles (not measured there), and so do few rows of A where the copy of
// B's columns costs more than the lanes it saves (dot_edge_columns' model). Default configs
// on tiles against the dot edge copying row by row (now padded rows only), two runs each,
// Zen 5: 7×7×1000 68.4–68.7 against 51.9–52.5 GFLOP/s; 13×8×700 67.5–68.5 against 76.4–79.3,
// 10×6×1000 58–62 against 68.5, 5×3×2000 26.5 against 40; 12×4×512 even; one run: 16×4×1024
// 25 against 99, 8×2×4096 21 against 52.
inline constexpr int kDotNarrowColumns = 8;
inline constexpr int kDotNarrowMinK = 32;
// A B whose rows lie one after another (ldb = N) is copied by permutes (gemm_column_runs.cpp),
// 3–4x faster than row by row, and from this K on the dot edge paid at every M measured (Zen 5,
// default configs on tiles against the dot edge, alternated: 1×4×4096 9.4 against 23.4
// GFLOP/s, 4×4×1000 29.6 against 103, 2×3×1000 12 against 51, 1×8×4096 18.3 against 23.9,
// 8×8×128 85 against 102, 16×6×96 70 against 115; 1×8×128 even). Shorter K stays with the
// model: 1×8×64 24.7 against 20.1, 8×8×40 75.6 against 62.2, 4×4×32 27.7 against 20.9.
inline constexpr int kDotContiguousMinK = 96;
int dot_edge_columns(const Workload& w, const GemmConfig& c);
// Floats of the workspace the dot edge copies its columns of B into (a run along K each),
// after the packed blocks; 0 where B is transposed (its rows are those runs) or no dot edge.
int64_t gemm_dot_edge_floats(const Workload& w, const GemmConfig& c);

// Threading tiles: the dimension `split` cut into register tiles (mr rows or nr columns), of
// the computed workload (swapped: N in tiles of mr).
int64_t gemm_tiles(const Workload& w, const GemmConfig& c);
// Interleaved tiles (swapped) fit the computed product: its rows and every block of them whole
// groups of mr × kInterleavedRows, one tile all of K and all of C^T's columns, so that the
// driver runs each group's tiles by themselves, one call each.
bool interleaves(const Workload& computed, const GemmConfig& g);
// Rows of the computed product per threading tile: a tile's, or with interleaved tiles a
// group's (mr × kInterleavedRows), which only run whole.
inline int64_t tile_rows_step(const GemmConfig& g) {
  return g.tiles == TileOrder::interleaved ? int64_t(g.mr) * kInterleavedRows : g.mr;
}

// Floats of all of B packed (k blocks of kc rows, each in panels of nr columns over N rounded
// up to whole panels): B packed once for every call, or the swapped form's A.
int64_t packed_b_floats(const Workload& w, const GemmConfig& g);

// Floats of the packed A block at the start of the workspace (0 without packing).
int64_t gemm_packed_a_floats(const Workload& w, const GemmConfig& c);

// Floats of scratch one call of the kernel needs (packed A and B blocks, the dot edge's B; in
// the swapped form A packed whole, then the rows of C^T of one pass).
int64_t gemm_workspace_floats(const Workload& w, const GemmConfig& c);
// Where the swapped form's rows of C^T start in the workspace (after A packed whole).
int64_t swap_rows_offset(const Workload& w, const GemmConfig& c);

}  // namespace livetune
