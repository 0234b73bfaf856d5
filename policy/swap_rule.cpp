#include "policy/rules.hpp"

#include <algorithm>
#include <cstdint>

#include "policy/rule_knobs.hpp"

namespace livetune {

// B transposed and larger than L2 with 2..128 rows of A (a batch of tokens on a weight stored out
// × in; up to 9 rows over a B of up to 12 MiB and K up to 1024, the one dot tile instead:
// one_tile_beats_swap), or in L2 with 33..128 (where B would be packed), on full-width AVX-512
// (Zen 5), B of at least 64 rows (the computed product's M, in tiles of 6 or 8): the swapped
// form, C^T = B·A^T — each row of B one stream of broadcasts, read once, A packed
// once per call. Up to 32 rows, tiles of 8 × 2 vectors, else 6 × 4; K in blocks of up to
// 1024, all of M in one N block (B read once). Zen 5, N = K = 4096, one run each, against the
// default before (the dot tile up to 32 rows, else packed B) and oneDNN in the same run:
// M = 10 89 GFLOP/s (71, oneDNN 76), 12 111 (97, 89), 16 149 (106, 97), 24 142 (115, 118),
// 32 202 (132, 138), 48 194 (140, 153), 64 215 (142, 165), 96 199 (167, 179), 128 191 (159,
// 174); 2 threads, M = 32 376 (oneDNN 240), 64 403 (311). In L2: 64×256×512 213 against 192
// packed, 128×256×512 210 against 205, 48×256×256 even; up to 32 rows the dot tile wins there
// (24×384×384 188 against 146).
// Where M's columns fill the tile's lanes in groups of a power of two (gemm_phases), 3
// vectors where 2 do not (M = 3, 6, 12, 24); under 9 rows only there, or over the power of
// two above M, its last columns zeros (M = 5, 7: 8 columns of 4 lanes), else the dot tile
// stays (M = 1, where it reads B as fast: 24.0 against 23.0). Zen 5, N = K = 4096, in one
// run each against the default before (the dot tile, or 2 vectors without phases) and
// oneDNN: M = 2 38.4 (35.9, 19.8), 4 65.1 (59.4, 41.1), 6 88.3 (69.1, 55.5), 8 112.7 (89.8,
// 67.5), 12 149.9 (110.2, 87.5), 24 193.1 (139.6, 125.7); M = 5 and 7 in one process,
// rounds of it, against the dot tile: 60.3–61.4 against 54.7–55.0, 82.1–83.6 against 64.0–64.1.
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
//   On full-width AVX-512 (Zen 5) the same up to 16 rows from K = 2048 on, 256 floats ahead
// into L1 (GemmEmitter::row_fetch_locality_); K in one block only with the fetch (M = 24, K
// in one block alone: 186–188 against 196). In one process against the default before, three
// rounds each: B in L3 8×1024×4096 149–160 against 134–148, 8×2048×2048 120–150 against
// 108–143, 12×768×3072 178–204 against 167–204 (2×1024×4096 1.10–1.15x, 4×1024×4096
// 1.04–1.11x, 12×2048×2048 1.09–1.13x, 16×1024×4096 1.00–1.05x); from memory (N = K = 4096) the host's
// phase decides: M = 8 100–129 against 97–112 in some rounds, even in others (M = 2..16
// 0.96–1.03x), 16 rows 180 against 164 once; shorter rows slower (16×3072×768 175–205
// against 186–218). M = 9..15 take 16 columns of 2 lanes so (gemm_phases): even with the 32
// columns without phases before (9 88–89 against 89–92, 13 129–130 against 131–134, 15 148
// against 146).
//   On full-width AVX-512, interleaved tiles wherever the rows of B come in whole groups of
// 8 tiles (TileOrder::interleaved) and are 512 floats long or more: each row of B a tile
// streams runs on into the next tile's. Zen 5, in one process against tiles of adjacent rows:
// N = K = 4096, M = 2 38.7 against 35.9, 3 60.2 against 57.5, 4 72.6 against 67.4, 5 68.6
// against 64.2, 7 99.0 against 89.0, 8 113–125 against 108–116, 12 166 against 159, 16 191
// against 172; 8×11008×4096 94.7 against 90.0, 8×4096×2048 153 against 134, 5×2048×2048 98.5
// against 87.6, 8×2048×3072 153 against 140, 8×2048×2048 166.5 against 153.5 and 8×1024×4096
// 154.5 against 148 (B in L3), 16×3072×768 208 against 195, 16×512×1024 188 against 183 (in
// L2); two threads 8×4096×4096 302 against 278, 16×4096×4096 362 against 339, 4×4096×4096
// 157 against 148, 2×4096×1024 128 against 113, 13×2048×3072 266 against 243. Shorter rows even or slower: 16×2048×256 193 against 190, 12×3072×384
// (two threads) 337 against 335, 64×768×384 208 against 209, 33×384×256 (two threads)
// 0.98–0.99x, 17×4096×127 0.96–0.97x.
void choose_swapped_form(const Workload& w, const Target& t, const Space& space, int threads, GemmConfig& g) {
  const int vec = t.vector_floats();
  const bool streamed_transposed_b = transposed_b_past_l2(w, t);
  constexpr int64_t kSwapFetchRowsMostRows = 12;
  constexpr int kSwapFetchRowsAhead = 512;
  constexpr int64_t kSwapFetchRowsMostRowsFullWidth = 16;
  constexpr int kSwapFetchRowsAheadFullWidth = 256;
  constexpr int64_t kSwapFetchRowsLeastKFullWidth = 2048;
  constexpr int64_t kInterleaveLeastK = 512;
  constexpr int64_t kSwapMinK = 256;
  constexpr int64_t kSwapRowsOnFullWidth = 128;
  constexpr int64_t kSwapBRowsPerARowInHalves = 4;
  constexpr int64_t kSwapBRowsPerThreadInHalves = 1024;
  const bool swap_pays = (streamed_transposed_b ? w.m > 1 : w.trans_b && w.m > 32) && w.n >= 64 &&
                         (w.m <= 32 || w.k >= kSwapMinK) && !one_tile_beats_swap(w, t) && w.m <= kSwapRowsOnFullWidth;
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
    // Phases over exactly M columns, else over the power of two above M (gemm_phases).
    const auto exact_phases = [&](const GemmConfig& x) { return gemm_phases(computed, x) > 1 && x.nr % w.m == 0; };
    if (w.m <= 32 && !exact_phases(s)) {
      s.nr = 3 * vec;
      if (!exact_phases(s)) s.nr = 2 * vec;
    }
    const bool lanes_filled = exact_phases(s) || w.m % s.nr == 0;
    if (t.zmm_in_halves && w.m <= 32 ? lanes_filled : w.m > 8 || gemm_phases(computed, s) > 1) {
      g = s;
      g.mc = nearest_multiple(knob(space, "mc"), 384, g.mr);
      g.nc = nearest_multiple(knob(space, "nc"), int(columns_computed(w.m, g.nr)), g.nr);
      g.pack_a = false, g.pack_b = true, g.unroll = 4, g.prefetch = 0, g.prefetch_n = 0, g.prefetch_c = 0;
      g.order = LoopOrder::nkm, g.tiles = TileOrder::nm;
      const int phases = gemm_phases(computed, g);
      const bool fetch_rows = t.zmm_in_halves ? w.m <= kSwapFetchRowsMostRows
                                              : w.m <= kSwapFetchRowsMostRowsFullWidth && w.k >= kSwapFetchRowsLeastKFullWidth;
      if (phases > 1 && (t.zmm_in_halves || fetch_rows)) {
        const int64_t packed_bytes = w.k * columns_computed(w.m, g.nr / phases) * int64_t(sizeof(float));
        if (packed_bytes <= t.l2_bytes / 2) g.kc = at_least(knob(space, "kc"), w.k);
        if (fetch_rows) g.prefetch_n = t.zmm_in_halves ? kSwapFetchRowsAhead : kSwapFetchRowsAheadFullWidth;
      }
      if (!t.zmm_in_halves && w.k >= kInterleaveLeastK && interleaves(computed, g)) g.tiles = TileOrder::interleaved;
    }
  }
}

}  // namespace livetune
