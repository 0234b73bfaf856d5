#include "policy/default_rule.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <tuple>

#include "jit/gemm_config.hpp"

namespace livetune {
namespace {

// The domain value of `knob` closest to `want` that is a multiple of `multiple_of`.
int nearest_multiple(const Knob& knob, int want, int multiple_of) {
  int best = -1;
  for (int v : knob.values) {
    if (v % multiple_of != 0) continue;
    if (best < 0 || std::abs(v - want) < std::abs(best - want)) best = v;
  }
  if (best < 0) throw std::logic_error("no value of knob '" + knob.name + "' fits");
  return best;
}

// The smallest domain value of `knob` that is at least `want` and a multiple of
// `multiple_of`, else the largest such multiple.
int at_least(const Knob& knob, int64_t want, int multiple_of = 1) {
  int best = -1, largest = -1;
  for (int v : knob.values) {
    if (v % multiple_of != 0) continue;
    if (v >= want && (best < 0 || v < best)) best = v;
    largest = std::max(largest, v);
  }
  if (largest < 0) throw std::logic_error("no value of knob '" + knob.name + "' fits");
  return best >= 0 ? best : largest;
}

// The tallest tile of `nv` vectors the registers hold, of at most `most` rows (at least 1).
int tallest_rows(const Knob& mr, int64_t most, int nv, int registers) {
  int tallest = 1;
  for (int rows : mr.values)
    if (rows <= most && tile_fits_registers(rows, nv, registers)) tallest = std::max(tallest, rows);
  return tallest;
}

// The work of tiles `width` floats wide across N (N > width), in columns: whole tiles, the
// last one whole too where the N-edge tile runs it (it computes fewer columns, but 12 × 32
// over 6 × 64 with the N-edge tile still ran 1.07x at 1531×211×769, as many columns; 96³ and
// 160³ even), or the dot edge's columns each as two (as many FMAs as a column of the tile,
// then its sums and B's copy). Paired on Zen 5, 6 × 64 with a dot edge of 4 columns over 6 ×
// 48 with an N-edge tile: 65×68×65 1.06–1.11x, 1000×68×300 1.16x, 100×260×100 1.10x,
// 200×132×512 1.09x, 65×132×65 1.02–1.05x; of 1 column: 65³ 1.16x, 129³ 1.09x. (K shorter
// than kDotEdgeMinK has no dot edge.)
int64_t columns_worked(int64_t n, int64_t k, int width) {
  const int64_t rest = n % width;
  return rest <= kDotEdgeColumns && k >= kDotEdgeMinK ? n + rest : columns_computed(n, width);
}

// Vectors of `vec` floats per tile row, from `fewest` to `most`, whose tiles cost the least
// by `cost`(n, width) across N; the wider on a tie.
template <class Cost>
int vectors_costing_least(int64_t n, int vec, int fewest, int most, Cost cost) {
  int best = most;
  for (int nv = most - 1; nv >= fewest; --nv)
    if (cost(n, nv * vec) < cost(n, best * vec)) best = nv;
  return best;
}

// The dot tile's rows for B transposed in L2 (dot_tile_rows) and how close to the FMA peak
// the model puts them.
struct DotRows {
  int rows = 0;
  double efficiency = 0;  // the FMAs' cycles over the modeled cycles
};

// The rows of a dot tile over an M × N × K whose B fits L2, by the cycles per K step (a vector
// of each row) the model gives: bands of rows and one of the rows left, each N in whole groups
// of dot_columns and the rest one by one. A block of rows × n accumulators takes the longest of
// its FMAs on two units, its loads at two a cycle, the FMA's latency of 4, and 2.5 cycles per
// vector read from L2: A's where all of A and a group's rows of B leave L1 (each group of
// columns reads all of A), the group's where a band's rows and it do. On a tie, the fewest
// bands, then no band of rows left (no edge tile to compile). Zen 5, GFLOP/s by rows, one run
// each (* the model's):
//   4×64×64      1: 87   2*: 114  3: 103  4: 91
//   8×256×256    2: 164  4: 171   5: 163  6: 147  8*: 181
//   12×300×300   3: 176  4: 181   6*: 175 8: 160  12: 98
//   13×21×700    4: 128  5: 159   7*: 176 8: 159
//   16×768×256   2: 142  4: 145   6: 143  8*: 155
//   8×128×2048   2: 104  4*: 145  5: 123  8: 109
//   32×512×512   2: 176  3*: 162  4: 168  6: 134  8: 107
//   24×64×2048   3: 139  8: 83    B packed*: 145 (every height modeled under half)
DotRows dot_tile_rows(const Workload& w, const Target& t, const Knob& mr) {
  const int registers = t.vector_registers();
  const int64_t row_bytes = w.k * int64_t(sizeof(float));
  auto block_cycles = [&](int rows, int cols) {
    const bool a_from_l2 = (w.m + cols) * row_bytes > t.l1d_bytes;
    const bool b_from_l2 = (rows + cols) * row_bytes > t.l1d_bytes;
    const double from_l2 = 2.5 * ((a_from_l2 ? rows : 0) + (b_from_l2 ? cols : 0));
    return std::max({rows * cols / 2.0, (rows + cols) / 2.0, 4.0, from_l2});
  };
  auto band = [&](int rows) {
    if (rows == 0) return 0.0;
    const int group = dot_columns(rows, registers);
    return double(w.n / group) * block_cycles(rows, group) + double(w.n % group) * block_cycles(rows, 1);
  };
  DotRows best;
  std::tuple<double, int64_t, bool> best_cost;  // cycles, bands, a band of rows left
  for (int rows : mr.values) {
    if (rows > w.m || dot_columns(rows, registers) < 1) continue;
    const std::tuple<double, int64_t, bool> cost{double(w.m / rows) * band(rows) + band(int(w.m % rows)),
                                                 (w.m + rows - 1) / rows, w.m % rows != 0};
    if (best.rows == 0 || cost < best_cost) best.rows = rows, best_cost = cost;
  }
  best.efficiency = double(w.m * w.n) / 2.0 / std::get<0>(best_cost);
  return best;
}

const Knob& knob(const Space& s, const char* name) {
  for (const Knob& k : s.knobs())
    if (k.name == name) return k;
  throw std::logic_error(std::string("no knob ") + name);
}

}  // namespace

Config default_gemm_config(const Workload& w, const Target& t, int threads) {
  const Space space = gemm_space(w, t);
  const int vec = t.vector_floats();
  GemmConfig g;
  g.vec = vec;
  if (t.avx512) {
    g.mr = 6, g.nr = 4 * vec;
    if (w.m <= 8) g.mr = int(w.m == 1 ? 1 : w.m < 8 ? w.m : 8), g.nr = 3 * vec;
    // N not a multiple of the tile: the width of 2–4 vectors that works the fewest columns
    // (columns_worked; the wider on a tie), where that is a sixteenth fewer (Zen 4 against
    // LIBXSMM, before the N-edge tile: 96³ on 6 × 64 0.70x, on 6 × 48 1.0x; 160³ on 4 × 64
    // 0.84x, on 12 × 32 0.98x; Zen 5, 6 × 48 over 6 × 64: 513³ 1.09x, 480³ 1.07x, 460³ 1.06x,
    // with it even on 460³ and 480³).
    if (w.m > 8 && w.n >= g.nr) {
      auto worked = [&w](int64_t n, int width) { return columns_worked(n, w.k, width); };
      const int best = vectors_costing_least(w.n, vec, 2, 4, worked);
      // 12 rows on 2 vectors, or all of M where it has fewer (no tile may be taller than M).
      if (worked(w.n, best * vec) * 16 <= worked(w.n, g.nr) * 15) {
        g.nr = best * vec, g.mr = 6;
        if (best == 2) g.mr = tallest_rows(knob(space, "mr"), std::min<int64_t>(w.m, 12), 2, t.vector_registers());
      }
    }
    // 9..32 rows: tiles 2 vectors wide, in the fewest bands of at most 13 rows (the most whose
    // sums leave registers for 2 vectors), as even as they go — not tiles of 6 or 12 over an
    // edge band of a few rows (13 = 6 + 6 + 1, 19 = 6 + 6 + 6 + 1, 25 = 12 + 12 + 1), whose
    // FMAs wait on their latency while each band reads B again. Zen 5, B in place, every tile
    // of 2..4 vectors: on 9, 11, 13..16 × 100, 160, 256 × 64, 300 two even bands reached
    // 0.94–1.0 of the best, the default before 0.79–0.95; one band over two, paired: 9×410×225
    // 208–213 against 155–176 GFLOP/s (LIBXSMM 181–186), 9×256×64 211 against 196 (199),
    // 13×100×300 204 against 197 (175), 10×1000×100 199 against 190; over the tiles before, on
    // N = 256, K = 300: 19 rows 213 against 187, 20 222 against 202, 26 226 against 207; N =
    // 160: 25 rows 214 against 198, 26 223 against 207; even at 17, 23, 25 × 256, and past 32
    // rows (37, 43, 47, 53, 64). Unmeasured on Intel.
    if (w.m > 8 && w.m <= 32 && w.n >= 4 * vec && !t.zmm_in_halves) {
      const int tallest = tallest_rows(knob(space, "mr"), w.m, 2, t.vector_registers());
      const int64_t bands = (w.m + tallest - 1) / tallest;
      g.nr = 2 * vec, g.mr = at_least(knob(space, "mr"), (w.m + bands - 1) / bands);
    }
  } else {
    g.mr = 6, g.nr = 2 * vec;
    if (w.m <= 4) g.mr = int(w.m), g.nr = 3 * vec;
    if (w.m == 5) g.mr = 5;
    // A GEMM small enough to stay in cache, on N a multiple of its width: three rows of four
    // vectors (LIBXSMM's tile), 7 loads per 12 FMAs instead of 8. Measured on Zen 3 against
    // 6x16, paired in one process: 64³ +2-8% (three runs), 256³ +2.5%; with longer K or B from
    // L3 (512³, 1024³) 2-3% slower.
    if (w.m >= 6 && w.n % (4 * vec) == 0 && w.k <= 256) g.mr = 3, g.nr = 4 * vec;
  }
  // Narrow B: a tile no wider than N, and as many rows as the registers then hold (a 64-wide
  // tile on N = 17 computed 3.8x the columns it kept: half the speed of 12 rows × 32). On AVX2
  // the width that computes the fewest columns, the wider on a tie (N = 17: 24, not 2 × 16).
  const bool narrow = w.n < g.nr || (!t.avx512 && w.n < 4 * vec && w.n % g.nr != 0);
  if (narrow && w.m > 8) {
    // Where zmm operations run in halves, ymm vectors if zmm would compute many more columns
    // than N and four of them cover it (N = 17: 24 columns, not 32; Zen 4, 1000×17×333,
    // paired over 14 rows × 2 zmm: 1.24x).
    const bool half_width = t.zmm_in_halves && half_width_pays(w.n, vec / 2, vec);
    if (half_width && w.n <= 4 * (vec / 2)) g.vec = vec / 2;
    g.nr = int(columns_computed(w.n, g.vec));
    if (!t.avx512) g.nr = vectors_costing_least(w.n, vec, 1, 4, columns_computed) * vec;
    // A few columns past whole vectors: tiles of those vectors, the rest on the dot edge
    // (dot_edge_columns), not a vector more per tile row that keeps one lane in sixteen. Zen
    // 5, against the default before, paired (two runs each; OpenBLAS in the same runs): 33³
    // 176–178 GFLOP/s against 144–146 (154), 32×33×32 178 against 149–154 (169–172),
    // 50×35×200 193 against 162–163 (180–182), 1000×17×333 155–156 against 120 (108;
    // LIBXSMM 120), 100×17×100 157–159 against 115–118 (127–129), 64×20×64 156–158 against
    // 137–138 (139–141).
    const int64_t past_vectors = w.n % vec;
    if (t.avx512 && g.vec == vec && w.n > vec && past_vectors <= kDotEdgeColumns && past_vectors > 0 &&
        w.k >= kDotEdgeMinK)
      g.nr = int(w.n - past_vectors);
    // Where zmm operations run in halves, N a few ymm past 4 (37..40: 3 zmm would compute 48):
    // tiles of 4 ymm, the rest on the N-edge tile. Zen 4, side by side over 8 rows × 3 zmm (LIBXSMM in
    // brackets): 500×37×1000 95 against 87 GFLOP/s (89), 1000×40×333 104–105 against 94 (96),
    // 2000×38×256 99–100 against 91 (91), 300×39×2000 101 against 92 (95).
    if (half_width && w.n > 4 * (vec / 2) && w.n < 3 * vec && past_vectors > kDotEdgeColumns)
      g.vec = vec / 2, g.nr = 4 * g.vec;
    g.mr = tallest_rows(knob(space, "mr"), w.m, g.nr / g.vec, t.vector_registers());
  }
  // K in one block when it is short (no second pass over C); else blocks that fit L1 with the
  // tile's rows of A.
  g.kc = w.k <= 640 ? at_least(knob(space, "kc"), w.k) : nearest_multiple(knob(space, "kc"), 256, 1);
  g.mc = nearest_multiple(knob(space, "mc"), std::max(16 * g.mr, 96), g.mr);
  g.nc = nearest_multiple(knob(space, "nc"), 1536, g.nr);
  g.pack_a = false;
  // Packing B pays once enough rows reuse it; a few rows read it where it lies. On AVX2 a B
  // whose N is not a multiple of the tile is packed too (padded to whole panels) once enough
  // rows reuse it: masked loads and the moved N-edge tile are slow there (Zen 3, paired:
  // 1000×17×333 1.38x, 600×70×500 1.24x, 1000×40×300 1.13x; 100³, a 5% packing cost, not).
  // So is a ymm tile's B on AVX-512 (Zen 4, 1000×17×333 paired: 1.06x).
  // On Intel AVX-512 up to 48 rows stream B from memory in short blocks (below) instead.
  const int64_t streaming_rows = t.avx512 && t.intel ? 48 : 16;
  g.pack_b = w.trans_b || (w.ldb >= 256 && w.m > streaming_rows) ||
             ((!t.avx512 || g.vec != vec) && w.m >= 128 && w.n % g.nr != 0);
  // Wide B on AVX2: A packed, N in one block of 2048. Rows of A read in place sat lda apart,
  // often a multiple of 4 KiB: all the tile's rows in one L1 set beside the B panel's lines,
  // 96 rows of 8 KiB apart more than L2's ways hold; packed once per K block, A is reused by
  // 128 panels. Zen 3, paired: 2048³ +5–7% (three runs), 1024×2048×2048 +4%, 1536×4096×1024
  // +3%; on N = 512..1024 packing A cost up to 7%.
  // With the next panel fetched ahead (template v13), longer K blocks beat 256: up to 1024,
  // K in one block (C written once, not read back) with 288 rows of A, over 512 × 192 paired:
  // 512×3072×768 +5%, 1536×4096×1024 +8%, 2048×2048×1024 +8%; longer K in blocks of 512 with
  // 192 rows (384 KiB packed, in L2), over 256 × 96: 2048³ +4%, 1024×2048×2048 +4%; there
  // the K loop unrolled 8 times, over 4: 2048³ +3–4.6% (four runs), on 2 threads +2%,
  // 1024×2048×2048 +0.6%, +4.5% (512×3072×768, K in one block: even).
  g.unroll = 4;
  if (!t.avx512 && g.pack_b && w.n >= 2048 && g.mr == 6 && w.least_m() >= g.mr) {
    g.pack_a = true, g.nc = nearest_multiple(knob(space, "nc"), 2048, g.nr);
    if (w.k > 1024)
      g.kc = 512, g.mc = 192, g.unroll = 8;
    else if (w.k > 640)
      g.kc = at_least(knob(space, "kc"), w.k), g.mc = 288;
  }
  // Long K on packed B (AVX-512): K blocks as long as the tile's rows of A fit half of L1,
  // split evenly, and B in blocks of 1024 columns. With the next panel fetched ahead (template
  // v13) B's fetch hides, and each block fewer is a pass over C fewer. Zen 5, over 256 × 1536,
  // paired against the best peer: 2048³ 0.94 -> 1.04 (three runs), 1024³ 1.0 -> 1.09,
  // 1024×4096×4096 1.0 -> 1.05, 49×512×4608 +5%, 512×3072×768 (K in one block) 0.97 -> 1.1,
  // 2 threads 2048³ 0.95 -> 1.05; 512×768×3072 even.
  if (t.avx512 && g.pack_b && !narrow && w.k > 640) {
    int longest = 0;
    for (int kc : knob(space, "kc").values)
      if (kc <= kLongestPackedKc && int64_t(g.mr) * kc * int64_t(sizeof(float)) <= t.l1d_bytes / 2)
        longest = std::max(longest, kc);
    if (longest > 0) {
      const int64_t blocks = (w.k + longest - 1) / longest;
      g.kc = at_least(knob(space, "kc"), (w.k + blocks - 1) / blocks);
      g.nc = nearest_multiple(knob(space, "nc"), 1024, g.nr);
      // B transposed on full-width AVX-512 (Zen 5): one panel per block, packed while its K
      // block's rows of B come in and used from L2 by every tile (a block of 1024 columns
      // packs 4 MiB, which the tiles read back from L3). Zen 5, paired over 1024 columns, one
      // run each (oneDNN in brackets): 384×2048×2048 198 against 187 GFLOP/s (188),
      // 1024×1024×1024 198 against 194 (189), 512×4096×1024 186 against 183 (176),
      // 150×4096×1024 183 against 180 (188; 190 against 184 in a second run), 256×1024×4096
      // 190 against 186 (191), 200×3000×1000 177 against 175 (175), 2048³ 187 against 188
      // (182); 2 threads 384×2048×2048 329 against 318 (344). Where B is not transposed, even
      // (2048³ 0.97x, 1024³ 1.01x, 512×3072×768 1.03x).
      if (w.trans_b && !t.intel && !t.zmm_in_halves) g.nc = nearest_multiple(knob(space, "nc"), g.nr, g.nr);
    }
  }
  g.order = LoopOrder::nkm;
  bool streams_b = false;  // bandwidth-bound: B read once, from memory
  if (!g.pack_b && w.m <= streaming_rows && w.k * w.n * int64_t(sizeof(float)) > t.l2_bytes) {
    // Bandwidth-bound: B read once, each tile fetching the lines of the tile to its right
    // ahead. One row of A: a few rows of B per block, each a stream read ahead along the
    // whole row (N in one block: 4–5% over blocks of 1536 at 1×4096×4096, as eight long
    // streams instead of many short runs). More rows, on Zen 5: long K blocks, down which a
    // tile walks while the next one's lines come into L2 — at 8×4096×4096 1.2x the lines some
    // rows down its own columns, and 1.1–1.6x short blocks for M = 4..16 (their C update per 8
    // rows of K costs as much as the FMAs). On Intel short blocks win (below).
    //   On Zen 3 (AVX2) short blocks win for all these Ms: at 8×4096×4096, tiles of 4×16 over
    // blocks of 8 rows of B, read 128 floats ahead along them, A packed, reached 1.3-1.4x the
    // long K blocks and 1.4x OpenBLAS (paired in one process); one row of A reads 64 ahead.
    // From 5 rows on, tiles four vectors wide: 3 rows, or 2 where M is even and not a multiple
    // of 3 (no edge tile). Zen 3, N = K = 4096, over 4×16 (paired; M = 8 three runs): M = 5
    // 1.30x, 6 1.37x, 7 1.22x, 8 1.09–1.16x, 12 1.18x, 16 1.17x; M = 4 keeps 4×16 (2×32: 0.93x).
    // With one call per band (template v15) 4×16 lost less: M = 5 1.08x, 6 1.05x, 8 1.0–1.06x,
    // 12 1.10x, 16 1.16x.
    g.order = LoopOrder::knm;
    if (w.m == 1) {
      g.kc = 8, g.nr = 4 * vec, g.nc = at_least(knob(space, "nc"), w.n, g.nr), g.prefetch_n = t.avx512 ? 128 : 64;
      // Where zmm operations run in halves (Zen 4) the fetch along B's rows only takes load
      // slots: down its columns, 8 rows ahead, where B is half of L3 or more (the hardware's
      // fetch falls behind there), else none. Zen 4 (L3 32 MiB), side by side against the
      // fetch along (128): 1×4096×4096 14.2–15.9 GFLOP/s against 10.5–12.3 (0.74 of the read
      // roof before), 1×4096×3072 13.9–15.1 against 10.7–11.7, 1×4096×2048 15.4 against 11.4,
      // 1×2048×2048 23.6–27.0 against 22.0–22.5, 1×4096×11008 13.4 against 10.4; none:
      // 1×1024×1024 33.1 against 30.8 (the fetch down 8 rows 28.1), 1×1536×1536 30.6 against
      // 28.3, 1×2048×1024 37.4 against 35.3. (2..4 rows stream B the same way where it is
      // large: below.) A B within a quarter of L3 with rows of less than 4 KiB
      // runs in blocks of 64 rows: C's row is read and written an eighth as often, and the
      // block (under 256 KiB) stays in L2. Side by side over blocks of 8, two runs each:
      // 1×1000×1000 1.11–1.13x, 1×512×2048 1.08x, 1×640×2560 1.06x, 1×768×768 0.99–1.07x;
      // rows of 4 KiB (1×1024×1024) 0.71x, wider rows even or slower (1×1536×1536
      // 0.95–1.0x), a larger B little or slower (1×768×3072, 9 MiB, 1.03–1.04x; 1×1000×4000,
      // 15 MiB, 0.89–0.92x).
      if (t.zmm_in_halves) {
        const int64_t stride = w.ldb * int64_t(sizeof(float));
        const int64_t bytes = w.k * stride;
        g.prefetch_n = 0, g.prefetch = bytes >= t.l3_bytes / 2 ? 8 : 0;
        if (bytes < t.l3_bytes / 4 && stride < 4096) g.kc = at_least(knob(space, "kc"), std::min<int64_t>(w.k, 64));
      }
    } else if (t.avx512 && !t.intel) {
      // Fetching the next tile's lines ahead pays only where B's rows sit a multiple of 4 KiB
      // apart (in few L1 sets; the hardware's fetch falls behind); elsewhere it only takes load
      // slots. 9..16 rows in two tiles as wide as the registers hold, B's lines read by both
      // while in L1 (three tiles of 6 read B three times; 6 × 64 over 6 × 48, paired:
      // 11×275×1736 1.01x, 12×300×3000 1.05x, 10×333×777 on 5 rows 1.06x). Zen 5, paired over
      // the rule before (prefetch_n 64, tiles of 6 rows past 8), one run each: 5×768×3072 173
      // against 130 GFLOP/s (oneDNN 188), 6×2000×700 150–170 against 118–146 (LIBXSMM
      // 167–181), 8×1000×1000 170 against 142, 8×3000×1000 189 against 173, 8×512×4096 209
      // against 197, 15×233×1939 193 against 131 (oneDNN 184), 11×275×1736 171 against 134,
      // 16×1000×1000 201 against 157, 14×512×4096 192 against 116; rows 4 KiB apart, with the
      // fetch: 8×2048×2048 168 against 151 without, 8×3072×3072 127 against 96, 16×4096×4096
      // 162 against 125 (tiles of 6), 13×4096×1024 125 against 97. (Unmeasured where zmm
      // operations run in halves, Zen 4: the fetch and the tiles of 6 stay there.)
      const int64_t stride = w.ldb * int64_t(sizeof(float));
      const int64_t power_of_two = stride & -stride;
      g.kc = 256, g.prefetch_n = t.zmm_in_halves || power_of_two >= 4096 ? 64 : 0;
      if (w.m > 8 && !narrow && !t.zmm_in_halves) {
        g.mr = at_least(knob(space, "mr"), (w.m + 1) / 2);
        g.nr = (tile_fits_registers(g.mr, 4, t.vector_registers()) ? 4 : 3) * vec;
        g.nc = nearest_multiple(knob(space, "nc"), 1536, g.nr);
      }
      // K blocks of up to 1024 where B's rows in L2 allow (as for B read in place below: a
      // stride of P bytes times an odd number keeps a panel's lines in L2 / P rows' worth of
      // sets, 3/4 of it for B): fewer passes over C while B comes from L3. Up to 13 rows on N
      // of at most 512, one tile of all of them, 2 vectors wide: per K step it takes 2 lines
      // of B from L3 for 2 × M FMAs, where the first of two tiles 4 wide takes 4 for 2 × M
      // (the second reads them from L2); wider B, the two tiles won. Zen 5, one
      // run each of every tile of 2..4 vectors, GFLOP/s of kc 1024 against 256 on the same
      // tile: 8×1000×1000 169 against 160, 11×3000×1000 175 against 149, 12×3000×1000 185
      // against 169, 2×2000×2000 62 against 57, 6×2000×700 157 against 145, 9×1200×2000 189
      // against 176; rows 2 KiB apart (bound 384) stay at 256: 8×512×4096 182 against 165.
      // One tile over two, both kc 1024 (oneDNN in brackets): 9×200×2000 186 against 149 (161),
      // 9×400×2000 188 against 180 (184), 10×300×2000 185 against 180 (173), 11×275×1736 179
      // against 173 (174), 12×200×2000 192 against 187 (183), 13×500×2000 198 against 192
      // (165), 13×100×3000 180 against 168 (154); 9×128×2000 201 against 204; wider it loses:
      // 12×600×2000 176 against 197, 11×800×1500 192 against 194, 11×3000×1000 148 against 175.
      constexpr int64_t kLongBlock = 1024;
      const int64_t long_blocks = (w.k + kLongBlock - 1) / kLongBlock;
      if (!t.zmm_in_halves && kLongBlock * power_of_two <= t.l2_bytes * 3 / 4) {
        g.kc = at_least(knob(space, "kc"), (w.k + long_blocks - 1) / long_blocks);
        if (w.m > 8 && !narrow && w.n <= 512 && tile_fits_registers(int(w.m), 2, t.vector_registers()))
          g.mr = int(w.m), g.nr = 2 * vec, g.nc = nearest_multiple(knob(space, "nc"), 1536, g.nr);
      }
      // Where zmm operations run in halves (Zen 4), 2 or 3 rows over a B within a quarter of L3
      // whose rows are under 4 KiB (as for one row above): K in blocks of up to 1024, tiles 4
      // vectors wide, no fetch along B's rows — each tile one run down a panel of 4 lines per
      // row, as LIBXSMM walks it. Zen 4, side by side over kc 256 × 3 vectors with the fetch
      // (LIBXSMM in brackets): 2×768×768 79–80 against 75 GFLOP/s (79–83), 2×1000×1000 72 against
      // 66 (74), 2×512×1536 78 against 74 (79), 2×768×2048 76 against 73 (75), 3×768×768 110
      // against 103 (111), 3×640×640 113 against 103 (111), 3×1000×1000 102–103 against 89–90
      // (100–104), 3×1000×2000 97 against 89 (96). Rows of 4 KiB and more lose (2×1024×1024
      // 53 against 57, 2×3072×768 49 against 57), so does a B from memory (2×4096×1024 20
      // against 36); 3×768×3072 (9 MiB) even; 4 rows and more even (4, 6 × 768×768, 1000×1000).
      if (t.zmm_in_halves && w.m <= 3 && !narrow && w.n >= 4 * vec && stride < 4096 &&
          w.k * stride < t.l3_bytes / 4) {
        g.kc = at_least(knob(space, "kc"), (w.k + long_blocks - 1) / long_blocks);
        g.nr = 4 * vec, g.nc = nearest_multiple(knob(space, "nc"), 1024, g.nr), g.prefetch_n = 0;
      }
      // Where zmm operations run in halves (Zen 4), 2 rows over a B of half of L3 or more, and 3
      // or 4 over one past L3, stream it as one row does: blocks of 8 rows of B, each read
      // along its whole row (a few long runs per 4 KiB page, not 256 short ones down a panel),
      // the next block's lines fetched 8 rows ahead. Zen 4 (L3 32 MiB), side by side over the
      // tile walking 256 rows down (and fetching along), two runs where two are given:
      // 2×4096×4096 1.34x / 1.35x, 2×4096×11008 1.33x, 2×11008×4096 1.10x / 1.12x, 2×2048×2048
      // 1.39x / 1.27x, 2×4096×1024 1.39x; 3×4096×4096 1.21x, 3×11008×4096 1.13x / 1.03x;
      // 4×4096×4096 1.20x / 1.28x, 4×4096×11008 1.22x, 4×3072×3072 1.15x, 4×16384×4096 1.17x,
      // 4×11008×4096 0.99x / 1.15x / 1.17x. Where B fits L3, 3 and 4 rows lose (3×2048×2048
      // 0.99x, 4×2048×2048 0.85x, 4×1024×4096 0.67x), so do 2 rows over a B of 2.25 MiB
      // (2×768×768 0.79x); 5 rows gain or lose (5×4096×4096 0.91–1.16x, 5×11008×4096 0.60x),
      // 6 and more lose (6×4096×4096 0.86x, 7: 0.87x). Rows down
      // to 1 KiB gain (2×512×16384 1.21x, 2×384×24000 1.22x, 2×256×32768 1.32x, 3×320×30000
      // 1.22x); shorter ones lose (2×100×40000 0.63x / 0.72x), so do short rows with an edge
      // tile (3×300×30000 0.87x / 0.94x; from 512 columns even or better: 2×600×30000 1.02x /
      // 1.03x, 3×1000×10000 1.11x). Two rows over a B of a quarter to half of L3 gain or lose
      // (default against default: 2×2048×1024 1.25x, 2×3072×768 1.19x; 2×1536×1536 0.85x,
      // 2×1024×3072 0.88x, 2×2048×1536 1.0x), with the fetch or without.
      const int64_t streamed_from = w.m == 2 ? t.l3_bytes / 2 : t.l3_bytes;
      const bool long_rows = w.n >= 512 || (w.n >= 256 && w.n % (4 * vec) == 0);
      if (t.zmm_in_halves && w.m >= 2 && w.m <= 4 && long_rows && w.k * stride >= streamed_from) {
        g.kc = 8, g.nr = 4 * vec, g.nc = at_least(knob(space, "nc"), w.n, g.nr);
        g.prefetch_n = 0, g.prefetch = 8;
      }
    } else if (t.avx512) {
      // On Intel (Sapphire Rapids class), walking far down B's columns is 2.3–4.2x slower than
      // blocks of 32 rows read along (paired, N = K = 4096, M = 2..16; kc 128 already halves
      // the speed, kc 8 is 6% slower than 16–32: its C update). Two vectors wide, all rows in
      // one tile up to 12 (M = 8: 8×32 1.08x 8×48, 1.16x 4×64; M = 12: 12×32 1.08x 6×64;
      // before 9-row tiles, M = 9: 5×32 1.05x 8×32 and its edge row), else the fewest tiles,
      // of even heights (32 = 11 + 11 + 10).
      // 8×4096×4096: 2.9–3.4x kc = 256, at 1.2x the read probe's roof; N × K 1024×4096,
      // 4096×1024, 11008×4096: 3.4–3.7x; 3000×777 1.3x. Up to 48 rows this beats packing B
      // (N = K = 4096: M = 24 1.6x, 32 1.3x, 48 1.3x; 64 1.04x, 96 1.14x, both under oneDNN).
      const int tallest = tallest_rows(knob(space, "mr"), std::min<int64_t>(w.m, 12), 2, t.vector_registers());
      const int64_t tiles = (w.m + tallest - 1) / tallest;
      g.mr = at_least(knob(space, "mr"), (w.m + tiles - 1) / tiles), g.nr = 2 * vec, g.kc = 32, g.prefetch_n = 128;
    } else {
      g.mr = int(std::min<int64_t>(4, w.m)), g.nr = 2 * vec;
      if (w.m >= 5) g.mr = w.m % 2 == 0 && w.m % 3 != 0 ? 2 : 3, g.nr = 4 * vec;
      g.kc = 8, g.nc = 768, g.prefetch_n = 128, g.unroll = 8, g.pack_a = g.mr <= w.least_m(), g.order = LoopOrder::mkn;
    }
    g.mc = nearest_multiple(knob(space, "mc"), std::max(16 * g.mr, 96), g.mr);
    streams_b = true;
  }
  // Worth it once a tile runs long enough to hide a fetch of C from memory.
  g.prefetch_c = std::min<int64_t>(w.k, g.kc) >= 128 ? 1 : 0;
  // B transposed (a weight stored out × in), streamed from memory by a few rows of A: the dot
  // tile reads B's rows where they lie, each group of them fetching the next group's rows
  // ahead, in tiles of up to 4 rows (8 rows as 4 × 6 groups beat 8 × 2: 1.2x), as wide as
  // whole groups fill (M = 8: 48 columns, 8 groups of 6, 1.2x 64 columns, whose last 4 ran one
  // by one), K in one block up to 4096 (each row of B one stream, no C read back; see
  // kLongestPackedKc). Zen 4, N = K = 4096, kc 1024: M = 1 10–14 GFLOP/s (Eigen 9–11), M = 8
  // 49–73 (oneDNN 37–43); kc 4096: M = 1 12.8–14.9, M = 4 40.8–47.1 (oneDNN 24–27), M = 8
  // 78–85, 0.88–0.96 of the read roofline (oneDNN 41–44), 2 threads 124 (oneDNN 79); 8 × 4096
  // × 11008 in blocks of 4096 58–63 against 53 in 1024 (oneDNN 34–41). Up to 32 rows it beats
  // packing B (tiles of 4 rows, over the packed default, one run each, against oneDNN): M = 9
  // 49.6 against 31.6 (42.6), 16 67.8 against 42.6 (54.9), 32×4096×1024 82.2 against 57.4
  // (69.7), 32×4096×4096 71.8 against 61.8 (75.2), 24×1024×4096 77.9 against 62.4 (75.8); M = 48
  // even (72.3, 72.0), M = 64 no (79.5 against 85.3). Unmeasured on AVX2 and Intel.
  //   A B in L2: packing it transposed costs as much as a few rows' FMAs, so up to 16 rows
  // always the dot tile, its rows by dot_tile_rows; up to 32 where the model puts it at least
  // where packing B reaches, about 0.8 of the peak on the columns packed tiles compute. Zen 5,
  // defaults before → after, against OpenBLAS in the same runs (paired, three runs each; before:
  // tiles of up to 4 rows, B fetched 256 floats ahead, packed past 16 rows): 4×64×64
  // 0.80–0.81x → 1.04–1.06x, 13×21×700 0.71–0.86x → 1.31–1.33x, 7×7×1000 0.97x → 1.47–1.52x,
  // 1×512×512 0.67–0.91x → 1.01–1.02x, 2×1000×200 4.1–5.2x → 6.0–6.2x, 8×128×2048 3.7–3.9x →
  // 4.1–4.3x; past 16 rows 24×21×700 0.44x → 1.08x, 17×300×300 1.47x → 2.19–2.23x,
  // 24×384×384 1.34–1.36x → 1.65–1.69x, 32×512×512 1.35–1.39x → 1.44–1.45x, 20×100×1000
  // 1.75–1.79x → 1.98–1.99x; 12×300×300 even (2.25–2.33x, 2.21–2.25x). 24×64×2048 stays packed
  // (the dot tile's best 139 GFLOP/s, packed 145).
  const int64_t b_bytes = w.k * w.n * int64_t(sizeof(float));
  const bool streamed_transposed_b = w.trans_b && b_bytes > t.l2_bytes;
  const DotRows in_l2 =
      w.trans_b && !streamed_transposed_b && w.m <= 32 ? dot_tile_rows(w, t, knob(space, "mr")) : DotRows{};
  const double packed_efficiency = 0.8 * double(w.n) / double(columns_computed(w.n, g.nr));
  // K under 4 vectors: each value of C's sum across lanes costs as much as a few steps of its
  // K loop, and packed tiles win unless N leaves most of their lanes empty (under 4 vectors,
  // not whole ones). Zen 5, the dot tile against packed tiles, paired: 8×128×32 68 against 163
  // GFLOP/s, 8×128×48 115 against 151, 4×64×32 99 against 112, 8×32×32 81 against 114,
  // 20×211×K (17..32 rows by the model) K = 22 49 against 90, 64 103 against 136, 96 123
  // against ~136; narrow: 7×7×40 66 against 12, 16×12×48 109 against 48, 16×40×40 100 against
  // 62, 12×33×56 and 13×8×32 even; K = 64 at 8×128 131 against 116.
  constexpr int64_t kDotTileMinK = 64;
  const bool lanes_left_empty = w.n < 4 * vec && w.n % vec != 0;
  const bool dot_in_l2 = in_l2.rows > 0 && (w.k >= kDotTileMinK || lanes_left_empty) &&
                         (w.m <= 16 || in_l2.efficiency >= packed_efficiency);
  // One column past 32 rows (a matrix times a vector: Workload::kernel_form makes a K×1 B one
  // row of B transposed): the dot tile, 8 rows (accumulators enough for the FMA's latency on
  // two units), each row of A one run; packed tiles compute one lane of each vector. Zen 5,
  // one run each, GFLOP/s of this default (the packed one before; the best peer, K×1 as
  // asked): 2048×1×2048 40.0 (6.9; oneDNN 10.5), 4096×1×4096 23.7 (oneDNN 9.6), 512×1×512
  // 45.7 (OpenBLAS 43.2). Tiles of 4 rows were up to 25% slower, 12 rows even. With 16
  // registers (AVX2), 7 rows: the most whose sums and operands they hold.
  const bool one_column = w.trans_b && w.n == 1 && w.m > 32;
  // On full-width AVX-512 AMD (Zen 5) a B streamed from L3 or memory goes under all of M's
  // rows in one tile where that tile keeps 4 columns of B (M ≤ 5), or 3 (M = 6, 7) over a B up
  // to 16 MiB; the second tile of two read B's rows again. Zen 5, one tile against tiles of
  // up to 4 rows, side by side: M = 5 768×768 173 against 110 GFLOP/s, 3072×768 163 against
  // 108, 2048×2048 98.7 against 80.5, 3072×3072 52.3 against 47.7, 4096×4096 42.0–64.3
  // against 37.7–52.3, 11008×4096 even; M = 7 768×768 193 against 158, 1024×1024 137
  // against 107, 3072×768 173 against 148, 2048×2048 even, 4096×2048 (32 MiB) 59.8 against
  // 72.5, 4096×4096 42.9–63.0 against 52.4–70.1.
  //   A B of up to 12 MiB (in L3) with K up to 1024 goes under one tile wherever it keeps 2
  // columns (M ≤ 9), over the swapped form below too, whose tile computes M's columns in
  // whole vectors (M = 9: 9 of 32 lanes). Zen 5, side by side with it, N × K 768×768 and
  // 3072×768: M = 2 66.4 and 78.2 against 66.1 and 73.0 GFLOP/s, 3 117 and 103 against 105
  // and 83, 4 124 and 160 against 104 and 124, 6 154 and 165 against 131 and 159, 8 163 and
  // 164 against 135 and 170, 9 187 and 161 against 90 and 93 (oneDNN 99, 102); 1024×1024: 8
  // 175 against 155, 9 174 against 92. At 2048×2048 (16 MiB) the swap wins or is even (M = 6
  // 117 against 94, 9 85 against 77); with longer K, where A's rows leave L1, even or the swap
  // (768×3072: M = 2..4 −4..+2%, 8 92 against 139; 6×1024×2048 112 against 166).
  constexpr int64_t kThreeColumnTileLongestBytes = int64_t(16) << 20;
  constexpr int64_t kOneTileOverSwapLongestBytes = int64_t(12) << 20;
  constexpr int64_t kOneTileOverSwapLongestK = 1024;
  const bool full_width_amd = t.avx512 && !t.intel && !t.zmm_in_halves;
  const int columns_under_all_rows = w.m <= 32 ? dot_columns(int(w.m), t.vector_registers()) : 0;
  const bool one_tile_over_swap = full_width_amd && streamed_transposed_b && columns_under_all_rows >= 2 &&
                                  b_bytes <= kOneTileOverSwapLongestBytes && w.k <= kOneTileOverSwapLongestK;
  const bool one_streaming_tile =
      full_width_amd && streamed_transposed_b &&
      (columns_under_all_rows >= 4 || (columns_under_all_rows == 3 && b_bytes <= kThreeColumnTileLongestBytes) ||
       one_tile_over_swap);
  if ((streamed_transposed_b && w.m <= 32) || dot_in_l2 || one_column) {
    const int64_t tiles = one_streaming_tile ? 1 : (w.m + 3) / 4;
    const int one_column_rows = dot_columns(8, t.vector_registers()) >= 1 ? 8 : 7;
    g.mr = one_column ? one_column_rows : streamed_transposed_b ? int((w.m + tiles - 1) / tiles) : in_l2.rows;
    g.vec = vec, g.nr = 4 * vec;
    const int group = dot_columns(g.mr, t.vector_registers());
    for (int nv = 4; nv >= 1; --nv)
      if (nv * vec % group == 0) {
        g.nr = nv * vec;
        break;
      }
    g.pack_a = false, g.pack_b = false, g.prefetch = 0, g.prefetch_c = 0, g.unroll = 1;
    // Fetching a B that is in L2 ahead only takes load slots (13×21×700 1.12x, 1×512×512 1.09x
    // without, one run each). On full-width AVX-512 AMD (Zen 5) the same holds for a B the
    // size of an L3 (the hardware's own fetch keeps up), and for tiles of several rows at any
    // size; one row of A over a B from memory still gains. Zen 5, fetch ahead 256 floats
    // against none, side by side, two runs each: M = 1, 768×768 32.9 against 40.8 GFLOP/s,
    // 1024×1024 29.4–43.9 against 39.0–45.5, 3072×768 22.5–44.7 against 39.9–45.7, 2048×2048
    // 39.5 against 41.9, 4096×2048 (32 MiB) 20.2–28.1 against 21.8–31.6, 5120×2560 (50 MiB)
    // 26.2 against 28.1–28.5; 3584×4096 (56 MiB) 23.0–24.6 against 20.8–23.4, 4096×4096
    // 14.4–24.1 against 13.4–22.3, 11008×4096 17.2–19.9 against 15.6–17.3; M = 5 (tiles of
    // 3 rows) 768×768 110 against 123, 4096×4096 38.7 against 39.5; M = 7 (4 rows) 768×768
    // 112 against 141, 3072×3072 68.9 against 74.9, 4096×4096 62.6 against 67.3.
    //   Where zmm operations run in halves (Zen 4, L3 32 MiB), one row of A gains from half of
    // L3 on; tiles of several rows keep the fetch (mixed: 8×3072×768 1.15x with it, 8×768×768
    // 0.95x). M = 1, side by side, fetch 256 against none: 768×768 32.2 against 39.7 GFLOP/s
    // (OpenBLAS 38.1), 1024×1024 30.1 against 35.6, 1536×1536 33.8 against 38.5, 3072×768
    // 34.8 against 42.1, 2048×1536 (12 MiB) 34.2 against 38.1; 2048×2048 25.4 against 23.1,
    // 4096×2048 19.2 against 15.7, 4096×4096 13.8 against 11.1.
    constexpr int64_t kDotFetchAheadFromBytes = int64_t(56) << 20;
    const int64_t one_row_fetches_from = full_width_amd ? kDotFetchAheadFromBytes
                                         : t.zmm_in_halves ? t.l3_bytes / 2
                                                           : 0;
    const bool fetch_ahead = streamed_transposed_b && (w.m == 1 ? b_bytes >= one_row_fetches_from : !full_width_amd);
    g.prefetch_n = fetch_ahead ? 256 : 0;
    g.kc = at_least(knob(space, "kc"), w.k);  // K, or the domain's longest block
    g.mc = nearest_multiple(knob(space, "mc"), std::max(16 * g.mr, 96), g.mr);
    g.nc = nearest_multiple(knob(space, "nc"), 1024, g.nr);
    g.order = LoopOrder::nkm, g.tiles = TileOrder::nm;
    streams_b = streamed_transposed_b;
  }
  // B transposed and larger than L2 with 33..128 rows of A (in whole vectors from K = 256 on,
  // on one thread or over a wide B, the swapped form below), on AMD's AVX-512 in halves (Zen
  // 4): one panel of 4 vectors per N block, packed in K blocks of up to 1024 and run under all
  // of M's rows in 4-row tiles, K unrolled 8 times and fetched 8 ahead (the search's best at
  // 48 and 64×4096×4096). Zen 4, one run each, over the packed default (oneDNN in
  // brackets): M = 40 86.1 against 73.1 (85.1), 64 95.1 against 83.7 (93.3), 96 99.5 against
  // 89.9 (99.7), 128 100.6 against 93.7 (103.0); 64×1024×4096 97.9 against 87.5, 64×4096×1024
  // 96.5 against 87.1, 96×768×3072 100.7 against 96.0; 128×768×768 even (111.1, 109.5). With
  // full-width zmm units (Zen 5) the packed 6 × 64 tile beats it, paired: 128×768×768 1.05x,
  // 64×4096×4096 1.04x, 96×768×3072 1.06x.
  if (t.avx512 && !t.intel && t.zmm_in_halves && streamed_transposed_b && w.m > 32 && w.m <= 128) {
    g.mr = 4, g.vec = vec, g.nr = 4 * vec;
    g.kc = at_least(knob(space, "kc"), std::min<int64_t>(w.k, kLongestPackedKc));
    g.mc = nearest_multiple(knob(space, "mc"), 288, g.mr);
    g.nc = nearest_multiple(knob(space, "nc"), g.nr, g.nr);
    g.pack_a = false, g.pack_b = true, g.unroll = 8, g.prefetch = 8, g.prefetch_n = 0, g.prefetch_c = 0;
    g.order = LoopOrder::nmk, g.tiles = TileOrder::nm;
    streams_b = true;
  }
  // B transposed and larger than L2 with 2..128 rows of A (a batch of tokens on a weight stored
  // out × in; up to 9 rows over a B of up to 12 MiB and K up to 1024, the one dot tile above
  // instead), or in L2 with 33..128 (where B would be packed), on full-width AVX-512 (Zen 5),
  // B of at least 64 rows (the computed product's M, in tiles of 6 or 8):
  // the swapped form, C^T = B·A^T — each row of B one stream of broadcasts, read once, A packed
  // once per call. Up to 32 rows, tiles of 8 × 2 vectors, else 6 × 4; K in blocks of up to
  // 1024, all of M in one N block (B read once). Zen 5, N = K = 4096, one run each, against the
  // default before (the dot tile up to 32 rows, else packed B) and oneDNN in the same run:
  // M = 10 89 GFLOP/s (71, oneDNN 76), 12 111 (97, 89), 16 149 (106, 97), 24 142 (115, 118),
  // 32 202 (132, 138), 48 194 (140, 153), 64 215 (142, 165), 96 199 (167, 179), 128 191 (159,
  // 174); 2 threads, M = 32 376 (oneDNN 240), 64 403 (311). In L2: 64×256×512 213 against 192
  // packed, 128×256×512 210 against 205, 48×256×256 even; up to 32 rows the dot tile wins there
  // (24×384×384 188 against 146).
  // Where M's columns fill the tile's lanes in groups of a power of two (gemm_phases), 3
  // vectors where 2 do not (M = 3, 6, 12, 24); under 9 rows only there, else the dot tile
  // stays (M = 5, 7; and M = 1, where it reads B as fast: 24.0 against 23.0). Zen 5, N = K =
  // 4096, in one run each against the default before (the dot tile, or 2 vectors without
  // phases) and oneDNN: M = 2 38.4 (35.9, 19.8), 4 65.1 (59.4, 41.1), 6 88.3 (69.1, 55.5), 8
  // 112.7 (89.8, 67.5), 12 149.9 (110.2, 87.5), 24 193.1 (139.6, 125.7).
  // Past 32 rows only from K = 256 on: shorter, writing C^T out transposed costs more than the
  // swap saves (Zen 5, paired over packed B: 65³ 0.64x, 100³ 0.76x, 64³ 0.84x, 128³ 0.94x,
  // 64×256×64 0.98x, 48×512×128 0.97x, 64×256×128 1.05x, 64×20000×64 0.94x; 64×256×256 1.07x,
  // 96×384×384 1.02x, 64×256×512 1.10x).
  //   Where zmm operations run in halves (Zen 4), past L2 only. 8..32 rows, any K, where M
  // fills the tile's lanes: in phases (8, 12, 16, 24 rows) or whole tiles (32); 9, 10 or 20
  // rows leave most lanes empty. Zen 4, alternated with the dot tile before, one run each:
  // N = K = 4096, M = 12 81.9 against 71.3 GFLOP/s, 16 80.8 against 71.0, 24 94.0 against
  // 71.3, 32 104.4 against 84.8; 12×768×3072 106.6 against 79.3, 24×768×768 108.5 against
  // 102.1, 16×3072×768 97.1 against 100.7; without phases 9×4096×4096 47.2 against 54.3,
  // 10×1024×1024 70.2 against 95.0, 20×2048×2048 67.9 against 86.2. 8×4096×4096 ran 60–64
  // against 70.5 and kept the dot tile until B's rows were fetched ahead (below).
  //   33..128 rows in whole vectors from K = 256 on, and up to 512 rows where B has at least 4
  // times as many (packing A, the smaller operand, then costs a quarter of packing B or less).
  // Zen 4, side by side over the default before (oneDNN in brackets): 48×768×3072 112.5
  // against 98.4 (99.3), 64×4096×4096 112.5 against 97.0 (97.1), 64×1024×1024 113.6 against
  // 104.6 (104.5), 96×768×3072 110.7 against 105.4 (104.0), 96×1536×384 111.3 against 107.9
  // (108.5), 128×768×768 113.6 against 109.6 (110.0), 128×3072×768 107.2 against 102.2
  // (101.7), 128×512×2048 112.5 against 108.5 (108.4), 256×3072×768 109.5 against 101.7
  // (106.5), 512×4096×1024 112.4 against 107.4 (108.1), 256×1024×4096 111.9 against 101.9
  // (109.0); fewer rows of B, even or slower: 200×768×3072 103.8 against 105.4 (107.1),
  // 256×768×768 109.7 against 109.4, 512×768×768 109.8 against 111.5; M not in whole vectors
  // (the tiles' last vector part empty), slower: 40×4096×4096 75.1 against 81.5, 40×1000×1000
  // 93.2 against 96.7, 100×768×3072 94.6 against 99.3, 100×3000×300 84.1 against 99.7
  // (80×3000×300 93.5 against 88.3).
  //   On several threads each packs all of A for its share of B's rows: only where that share
  // is at least 1024 rows. Two threads, alternated with the default before: 64×4096×4096 219
  // against 190, 256×3072×768 207–217 against 184–200 (oneDNN 205–213), 512×4096×1024 219
  // against 192–194 (211), 16×4096×4096 150 against 134, 32×3072×768 211 against 183;
  // narrower, slower: 96×768×3072 205 against 212–213, 128×768×768 217–224 against 220–221,
  // 12×768×768 186 against 205.
  //   Where zmm operations run in halves, with M in phases: all of K in one block where A,
  // packed, takes at most half of L2 — each row of B then one run from start to end, not a
  // run per K block that the hardware and the fetch ahead start cold — and up to 12 rows, the
  // rows of B fetched 512 floats ahead into L2 (GemmConfig::prefetch_n). Zen 4, N = K = 4096,
  // side by side, K blocks of 1024 → 4096 → 4096 and fetched ahead: M = 8 (8 × 2 vectors,
  // the dot tile before) 58.7 → 66.2 → 74.2 GFLOP/s (6 × 4 vectors 60.7 → 70.7, the dot tile
  // 57.8), 12 77.6 → 83.7 → 88.9, 16 82.9 → 86.9 → 85.4, 24 89.6 → 96.2 → 94.4; blocks of 4096
  // over blocks of 1024 once more at 16 (85.4 against 78.1). Past 12 rows the fetch ahead
  // gained nothing: each value of B feeds more FMAs and the misses hide behind them. Under 8
  // rows the dot tile stays: M = 4 36.0 against 34.7, M = 2 23.1 against 20.0.
  constexpr int64_t kSwapFetchRowsMostRows = 12;
  constexpr int kSwapFetchRowsAhead = 512;
  constexpr int64_t kSwapMinK = 256;
  constexpr int64_t kSwapRowsOnFullWidth = 128;
  constexpr int64_t kSwapRowsAnyBInHalves = 128;
  constexpr int64_t kSwapBRowsPerARowInHalves = 4;
  constexpr int64_t kSwapBRowsPerThreadInHalves = 1024;
  const bool swap_pays = (streamed_transposed_b ? w.m > 1 : w.trans_b && w.m > 32) && w.n >= 64 &&
                         (w.m <= 32 || w.k >= kSwapMinK) && !one_tile_over_swap && w.m <= kSwapRowsOnFullWidth;
  const bool swap_pays_in_halves =
      streamed_transposed_b && w.n >= 64 && (threads == 1 || w.n >= kSwapBRowsPerThreadInHalves * threads) &&
      ((w.m >= 8 && w.m <= 32) || (w.m > 32 && w.m % vec == 0 && w.k >= kSwapMinK &&
                                  (w.m <= kSwapRowsAnyBInHalves || w.n >= kSwapBRowsPerARowInHalves * w.m)));
  if (t.avx512 && !t.intel && (t.zmm_in_halves ? swap_pays_in_halves : swap_pays) && swap_possible(w)) {
    GemmConfig s = g;
    s.swap = true, s.vec = vec;
    s.mr = w.m <= 32 ? 8 : 6, s.nr = w.m <= 32 ? 2 * vec : 4 * vec;
    s.kc = at_least(knob(space, "kc"), std::min<int64_t>(w.k, kLongestPackedKc));
    const Workload computed = swapped_workload(w);
    if (w.m <= 32 && gemm_phases(computed, s) == 1) {
      s.nr = 3 * vec;
      if (gemm_phases(computed, s) == 1) s.nr = 2 * vec;
    }
    const bool lanes_filled = gemm_phases(computed, s) > 1 || w.m % s.nr == 0;
    if (t.zmm_in_halves && w.m <= 32 ? lanes_filled : w.m > 8 || gemm_phases(computed, s) > 1) {
      g = s;
      g.mc = nearest_multiple(knob(space, "mc"), 384, g.mr);
      g.nc = nearest_multiple(knob(space, "nc"), int(columns_computed(w.m, g.nr)), g.nr);
      g.pack_a = false, g.pack_b = true, g.unroll = 4, g.prefetch = 0, g.prefetch_n = 0, g.prefetch_c = 0;
      g.order = LoopOrder::nkm, g.tiles = TileOrder::nm;
      const int phases = gemm_phases(computed, g);
      if (t.zmm_in_halves && phases > 1) {
        const int64_t packed_bytes = w.k * columns_computed(w.m, g.nr / phases) * int64_t(sizeof(float));
        if (packed_bytes <= t.l2_bytes / 2) g.kc = at_least(knob(space, "kc"), w.k);
        if (w.m <= kSwapFetchRowsMostRows) g.prefetch_n = kSwapFetchRowsAhead;
      }
    }
  }
  // B transposed past L2 and packed, 129..1024 rows of A, one thread, where zmm operations run
  // in halves (Zen 4): panels of one vector under tiles of 6 rows, one panel per N block and K
  // in blocks of up to 1024, each tile fetching A 4 steps ahead — the config the search kept
  // finding. Zen 4, side by side over the 6 × 4-vector default (oneDNN in brackets):
  // 197×768×768 105.6 against 99.8 GFLOP/s (103.8), 200×768×3072 106.4 against 99.8 (107.4),
  // 256×768×768 107.5 against 105.5, 300×1000×1000 104.3 against 102.6, 384×768×3072 106.8
  // against 102.7, 512×768×768 111.6 against 106.1, 512×3072×768 108.3 against 105.7,
  // 1000×1000×1000 109.3 against 107.5, 1024×1024×1024 106.5 against 105.2; 2048×2048×2048
  // 94.4 against 107.9. A second run: 200×768×3072 1.054x, 197×768×768 1.014x, 1024³ 1.022x,
  // 384×768×3072 1.002x.
  constexpr int64_t kOneVectorPanelsMostRows = 1024;
  if (t.avx512 && !t.intel && t.zmm_in_halves && streamed_transposed_b && !g.swap && g.pack_b && threads == 1 &&
      w.m > kSwapRowsAnyBInHalves && w.m <= kOneVectorPanelsMostRows) {
    g.mr = 6, g.vec = vec, g.nr = vec;
    g.kc = at_least(knob(space, "kc"), std::min<int64_t>(w.k, kLongestPackedKc));
    g.mc = nearest_multiple(knob(space, "mc"), 576, g.mr);
    g.nc = nearest_multiple(knob(space, "nc"), 64, g.nr);
    g.pack_a = false, g.unroll = 1, g.prefetch = 4, g.prefetch_n = 0, g.prefetch_c = 1;
    g.order = LoopOrder::nkm, g.tiles = TileOrder::nm;
  }
  // A, B and C together in L2 on AVX-512: nothing to hide — B read where it lies, C not
  // fetched ahead (Zen 4, paired against LIBXSMM: 256³ 0.967 -> 1.005, 128³ 0.982 -> 1.007,
  // 64³ 0.983 -> 1.012). Rows of 4 where M is a multiple of 4 but not of 6, so that no edge
  // tile runs: +0.5–1% of that on Zen 4; with full-width zmm units (Zen 5) only where K is
  // short — 64³ +1%, but 128³ and 256³ 10% slower than rows of 6 (paired, three runs).
  const int64_t floats = w.m * w.k + w.k * w.n + w.m * w.n;
  if (t.avx512 && !w.trans_b && !narrow && w.m > 8 && floats * int64_t(sizeof(float)) <= t.l2_bytes) {
    g.pack_b = false, g.prefetch_c = 0;
    if (g.mr == 6 && g.nr == 4 * vec && w.m % 6 != 0 && w.m % 4 == 0 && (t.zmm_in_halves || w.k <= 64))
      g.mr = 4, g.mc = nearest_multiple(knob(space, "mc"), std::max(16 * g.mr, 96), g.mr);
  }
  // Fewer than 512 rows of A on AMD's AVX-512: B read where it lies, whose panel
  // stays in L2 while the tiles below walk down it, once packing costs more than so few rows
  // gain. The panel's rows sit ldb apart; a stride of P bytes times an odd number puts them in
  // L2 / P rows' worth of sets, so the K block must stay within that (3/4 of it: A and C share
  // L2). Zen 5, paired over packed B: 32×768×768 1.18x, 64×768×768 1.15x, 96×1536×384 1.16x,
  // 128×768×768 1.03–1.04x, 192×768×768 1.03x, 64/128/256/300×1000×1000 1.15/1.06/1.04/
  // 1.05–1.09x, 196×256×2304 1.05x, 256×768×768 0.99–1.04x, 384³ 1.01–1.04x, 448³ 1.02x,
  // 448×768×768 1.0–1.01x, 480³ 1.02x; past the bound packed B wins — 128×768×1000 0.91x,
  // 128×512×2048 0.87x, 128×3072×768 0.86x, 64×1024×1024 0.96x, 384×1024×1024 0.83x — and at
  // 512 rows (512×768×768 0.96x, 512×1000×1000 even). On 2 threads, over packed B:
  // 128×768×768 1.55x, 96×1536×384 1.75x, 256×1000×1000 1.27x (1.0–1.04x oneDNN), 384³ 1.05x,
  // 448×768×768 1.17x.
  //   Where zmm operations run in halves (Zen 4) the same, and up to 128 rows past the bound
  // too (each panel read from L3 by so few bands costs less than packing it). Zen 4, side by
  // side over packed B, two runs each: 32×768×768 1.20–1.22x, 64×768×768 1.14x, 96×1536×384
  // 1.10–1.16x, 128×768×1000 1.07x, 192×768×768 1.07–1.09x, 196×256×2304 1.06x, 448³
  // 1.02–1.04x, 480³ 1.02–1.05x, 300×640×640 1.08x; 300×1000×1000 0.92x, 256×1000×1000
  // 0.91–1.04x, 512×768×768 0.95–0.98x; past the bound 49×512×4608 1.12x, 64×1024×1024
  // 1.07–1.12x, 64×4096×1024 1.07x, 100×2048×512 1.08–1.11x, 128×512×2048 1.06x,
  // 128×3072×768 0.97–1.02x, 128×2048×2048 0.96–1.0x, 196×1024×1024 0.92–0.99x. Two threads:
  // 128×768×768 1.21x, 256×1000×1000 1.10x, 384³ 1.04–1.06x.
  //   There, with K in several blocks, each tile fetches the next one's lines of B ahead (64
  // floats): the next block's panel comes from L3 while the last bands run. Zen 4, side by side
  // over none: 32×768×3072 1.11x, 64×768×3072 1.15–1.19x, 96×768×3072 1.11x, 128×768×3072
  // 1.24x, 256×768×3072 1.10x, 384×768×1536 1.10x, 48×1024×4096 1.19x, 64×4096×1024 1.18x,
  // 128×512×4096 1.17x, 49×512×4608 1.14x, 64×1024×1024 1.05x; even on 64×512×2048 and
  // 196×256×2304, and on one block (128×768×768 1.01x, 384³ 0.99x, 100×2048×512 0.95x).
  // Both together on two threads, over packed B without the fetch (oneDNN in brackets):
  // 128×512×2048 205 against 105 GFLOP/s (193), 64×768×3072 209 against 160 (210),
  // 64×4096×1024 176 against 134 (138).
  constexpr int64_t kInPlacePastTheBoundRowsInHalves = 128;
  if (t.avx512 && !t.intel && g.pack_b && !w.trans_b && !narrow && g.vec == vec && w.m < 512) {
    const int64_t stride = w.ldb * int64_t(sizeof(float));
    const int64_t power_of_two = stride & -stride;
    if (std::min<int64_t>(g.kc, w.k) * power_of_two <= t.l2_bytes * 3 / 4 ||
        (t.zmm_in_halves && w.m <= kInPlacePastTheBoundRowsInHalves)) {
      g.pack_b = false;
      if (t.zmm_in_halves && w.k > g.kc) g.prefetch_n = 64;
    }
  }
  // A K of a few steps and a C beyond the caches (an outer product's; a first layer's on a few
  // channels): the stores of C are the work, each line fetched from memory before it is
  // written. Tiles walk along C's rows, all of N in one block, fetching the lines some tiles
  // ahead (TileOrder::mn, prefetch_c 2); up to 8 rows of B read where they lie (longer, their
  // rows fell in too few L1 sets at N = 2048, 4096). Zen 5, paired over the tiles walking down
  // 96 rows (LIBXSMM in brackets): 3000×3000×3 51 GFLOP/s against 19 (47), 4096×1024×8 171
  // against 100 (170), 2000×2000×7 151 against 145 (162), 1024×4096×16 174 against 128 (161),
  // 2048×2048×16 171 against 131 (161); a C that stays in L3 keeps the walk down: 1448×1448×8
  // (8.4 MB) 145 against 166, 1000×1000×16 182 against 192; from K = 27 even (2048×2048×27).
  constexpr int64_t kCBeyondCachesBytes = int64_t(12) << 20;
  const int64_t c_bytes = w.m * w.ldc * int64_t(sizeof(float));
  if (t.avx512 && !t.intel && !narrow && !g.swap && !gemm_dot_form(w, g) && w.k <= 16 && w.m > g.mr &&
      c_bytes >= std::min(t.l3_bytes, kCBeyondCachesBytes)) {
    g.tiles = TileOrder::mn, g.prefetch_c = 2, g.nc = at_least(knob(space, "nc"), w.n, g.nr);
    g.pack_b = w.trans_b || w.k > 8;
  }
  // Enough tiles along M for every thread, else split N. B streamed from memory: split N, so
  // that each thread reads its share of B, not all of it (Zen 3, 8×4096×4096 on 2 threads,
  // 2×32 tiles: 1.25x over splitting M).
  const int64_t m_tiles = (w.m + g.mr - 1) / g.mr;
  // Swapped, the computed product's rows are N: split there (the only split it takes).
  g.split = threads == 1 || g.swap || (m_tiles >= 2 * threads && !streams_b) ? Split::m : Split::n;
  Config c = g.to_config(t);
  if (!space.valid(c)) throw std::logic_error("default rule gave an invalid config: " + c.text());
  return c;
}

}  // namespace livetune
