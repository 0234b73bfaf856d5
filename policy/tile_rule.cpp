#include "policy/rules.hpp"

#include <algorithm>
#include <cstdint>

#include "policy/rule_knobs.hpp"

namespace livetune {

namespace {

// The work of tiles `width` floats wide across N (N > width), in columns: whole tiles, the
// last one whole too where the N-edge tile runs it (it computes fewer columns, but 12 × 32
// over 6 × 64 with the N-edge tile still ran 1.07x at 1531×211×769, as many columns; 96³ and
// 160³ even), or the dot edge's columns each as two (as many FMAs as a column of the tile,
// then its sums and B's copy). Paired on Zen 5, 6 × 64 with a dot edge of 4 columns over 6 ×
// 48 with an N-edge tile: 65×68×65 1.06–1.11x, 1000×68×300 1.16x, 100×260×100 1.10x,
// 200×132×512 1.09x, 65×132×65 1.02–1.05x; of 1 column: 65³ 1.16x, 129³ 1.09x. (On a K too
// short for dot_edge_takes, no dot edge.)
int64_t columns_worked(int64_t n, int64_t k, int width, int vec) {
  const int64_t rest = n % width;
  return dot_edge_takes(rest, k, vec) ? n + rest : columns_computed(n, width);
}

// A narrow B's columns past whole vectors that go to the dot edge: at most 4, as measured below
// (5..8 there unmeasured).
constexpr int kNarrowDotEdgeColumns = 4;

// Vectors of `vec` floats per tile row, from `fewest` to `most`, whose tiles cost the least
// by `cost`(n, width) across N; the wider on a tie.
template <class Cost>
int vectors_costing_least(int64_t n, int vec, int fewest, int most, Cost cost) {
  int best = most;
  for (int nv = most - 1; nv >= fewest; --nv)
    if (cost(n, nv * vec) < cost(n, best * vec)) best = nv;
  return best;
}

}  // namespace

bool choose_register_tile(const Workload& w, const Target& t, const Space& space, GemmConfig& g) {
  const int vec = t.vector_floats();
  if (t.avx512) {
    g.mr = 6, g.nr = 4 * vec;
    if (w.m <= 8) g.mr = int(w.m == 1 ? 1 : w.m < 8 ? w.m : 8), g.nr = 3 * vec;
    // N not a multiple of the tile: the width of 2–4 vectors that works the fewest columns
    // (columns_worked; the wider on a tie), where that is a sixteenth fewer (Zen 4 against
    // LIBXSMM, before the N-edge tile: 96³ on 6 × 64 0.70x, on 6 × 48 1.0x; 160³ on 4 × 64
    // 0.84x, on 12 × 32 0.98x; Zen 5, 6 × 48 over 6 × 64: 513³ 1.09x, 480³ 1.07x, 460³ 1.06x,
    // with it even on 460³ and 480³).
    if (w.m > 8 && w.n >= g.nr) {
      auto worked = [&w, vec](int64_t n, int width) { return columns_worked(n, w.k, width, vec); };
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
    if (t.avx512 && g.vec == vec && w.n > vec && past_vectors <= kNarrowDotEdgeColumns && past_vectors > 0 &&
        w.k >= kDotEdgeMinK)
      g.nr = int(w.n - past_vectors);
    // Where zmm operations run in halves, N a few ymm past 4 (37..40: 3 zmm would compute 48):
    // tiles of 4 ymm, the rest on the N-edge tile. Zen 4, side by side over 8 rows × 3 zmm (LIBXSMM in
    // brackets): 500×37×1000 95 against 87 GFLOP/s (89), 1000×40×333 104–105 against 94 (96),
    // 2000×38×256 99–100 against 91 (91), 300×39×2000 101 against 92 (95).
    if (half_width && w.n > 4 * (vec / 2) && w.n < 3 * vec && past_vectors > kNarrowDotEdgeColumns)
      g.vec = vec / 2, g.nr = 4 * g.vec;
    g.mr = tallest_rows(knob(space, "mr"), w.m, g.nr / g.vec, t.vector_registers());
  }
  return narrow;
}

}  // namespace livetune
