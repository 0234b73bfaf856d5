#include "policy/rules.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "policy/rule_knobs.hpp"

namespace livetune {

namespace {

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

}  // namespace

// A B of up to 12 MiB (in L3) with K up to 1024 goes under one tile wherever it keeps 2 columns
// (M ≤ 9), over the swapped form too (swap_rule.cpp), whose tile computes M's columns in whole
// vectors (M = 9: 9 of 32 lanes). Zen 5, side by side with it, N × K 768×768 and 3072×768: M = 2
// 66.4 and 78.2 against 66.1 and 73.0 GFLOP/s, 3 117 and 103 against 105
// and 83, 4 124 and 160 against 104 and 124, 6 154 and 165 against 131 and 159, 8 163 and
// 164 against 135 and 170, 9 187 and 161 against 90 and 93 (oneDNN 99, 102); 1024×1024: 8
// 175 against 155, 9 174 against 92. At 2048×2048 (16 MiB) the swap wins or is even (M = 6
// 117 against 94, 9 85 against 77); with longer K, where A's rows leave L1, even or the swap
// (768×3072: M = 2..4 −4..+2%, 8 92 against 139; 6×1024×2048 112 against 166).
bool one_tile_beats_swap(const Workload& w, const Target& t) {
  constexpr int64_t kOneTileOverSwapLongestBytes = int64_t(12) << 20;
  constexpr int64_t kOneTileOverSwapLongestK = 1024;
  const bool full_width_amd = t.avx512 && !t.intel && !t.zmm_in_halves;
  const int columns_under_all_rows = w.m <= 32 ? dot_columns(int(w.m), t.vector_registers()) : 0;
  return full_width_amd && transposed_b_past_l2(w, t) && columns_under_all_rows >= 2 &&
         b_size_bytes(w) <= kOneTileOverSwapLongestBytes && w.k <= kOneTileOverSwapLongestK;
}

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
void choose_dot_tile(const Workload& w, const Target& t, const Space& space, GemmConfig& g, bool& streams_b) {
  const int vec = t.vector_floats();
  const int64_t b_bytes = b_size_bytes(w);
  const bool streamed_transposed_b = transposed_b_past_l2(w, t);
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
  constexpr int64_t kThreeColumnTileLongestBytes = int64_t(16) << 20;
  const bool full_width_amd = t.avx512 && !t.intel && !t.zmm_in_halves;
  const int columns_under_all_rows = w.m <= 32 ? dot_columns(int(w.m), t.vector_registers()) : 0;
  const bool one_streaming_tile =
      full_width_amd && streamed_transposed_b &&
      (columns_under_all_rows >= 4 || (columns_under_all_rows == 3 && b_bytes <= kThreeColumnTileLongestBytes) ||
       one_tile_beats_swap(w, t));
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
}

}  // namespace livetune
