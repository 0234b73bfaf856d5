#include "policy/rules.hpp"

#include <algorithm>
#include <cstdint>

#include "policy/rule_knobs.hpp"

namespace livetune {

namespace {

// A B this large streams from memory on full-width AMD AVX-512 (Zen 5): its L3 is 32 MiB a
// CCD, though the host reports the socket's.
constexpr int64_t kFromMemoryBytesFullWidth = int64_t(32) << 20;

// One row of A.
void stream_one_row(const Workload& w, const Target& t, const Space& space, GemmConfig& g) {
  const int vec = t.vector_floats();
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
  // On full-width AMD AVX-512 (Zen 5), a B from memory read as 8 segments of K side by side
  // (k_spread): 8 streams, each K / 8 rows long, where blocks of 8 adjacent rows start 8 new
  // streams of one row each every block; the block's K loop unrolled whole, its partial sums
  // in the workspace (c_buf) where N is whole tiles. Zen 5, in one process against the rule
  // before, three rounds each: 1×4096×4096 1.16–1.18x, 1×4096×11008 1.08–1.11x, 1×2048×8192
  // 1.11–1.20x, 1×3072×3072 1.06–1.08x; without the buffer 1×4096×4096 1.04–1.10x. Rows of 43
  // KiB (1×11008×4096) even. Where B fits L3, even or mixed: 1×2048×2048 0.94–1.02x,
  // 1×1024×4096 0.97–1.10x, 1×4096×1024 0.81–0.96x.
  const bool from_memory = w.k * w.ldb * int64_t(sizeof(float)) >= kFromMemoryBytesFullWidth;
  if (t.avx512 && !t.intel && !t.zmm_in_halves && from_memory) {
    GemmConfig spread = g;
    spread.k_spread = true, spread.unroll = 8;
    if (!gemm_k_spread_valid(w, spread)) return;
    g = spread;
    spread.c_buf = true;
    if (gemm_c_buffer_valid(w, spread)) g = spread;
  }
}

// More rows on AMD's AVX-512 (Zen 4, Zen 5).
void stream_rows_on_amd(const Workload& w, const Target& t, const Space& space, bool narrow, GemmConfig& g) {
  const int vec = t.vector_floats();
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
  // K blocks of up to 1024 where B's rows in L2 allow (as for B read in place,
  // in_place_rule.cpp: a stride of P bytes times an odd number keeps a panel's lines in L2 / P
  // rows' worth of sets, 3/4 of it for B): fewer passes over C while B comes from L3. Up to 13
  // rows on N of at most 512, one tile of all of them, 2 vectors wide: per K step it takes 2
  // lines of B from L3 for 2 × M FMAs, where the first of two tiles 4 wide takes 4 for 2 × M
  // (the second reads them from L2); wider B, the two tiles won. Zen 5, one run each of every
  // tile of 2..4 vectors, GFLOP/s of kc 1024 against 256 on the same tile: 8×1000×1000 169
  // against 160, 11×3000×1000 175 against 149, 12×3000×1000 185 against 169, 2×2000×2000 62
  // against 57, 6×2000×700 157 against 145, 9×1200×2000 189 against 176; rows 2 KiB apart
  // (bound 384) stay at 256: 8×512×4096 182 against 165. One tile over two, both kc 1024
  // (oneDNN in brackets): 9×200×2000 186 against 149 (161), 9×400×2000 188 against 180 (184),
  // 10×300×2000 185 against 180 (173), 11×275×1736 179 against 173 (174), 12×200×2000 192
  // against 187 (183), 13×500×2000 198 against 192 (165), 13×100×3000 180 against 168 (154);
  // 9×128×2000 201 against 204; wider it loses: 12×600×2000 176 against 197, 11×800×1500 192
  // against 194, 11×3000×1000 148 against 175.
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
  // On full-width AVX-512 (Zen 5) the same for 2..4 rows over a B of 32 MiB or more with rows
  // of 2048 floats or more: blocks of 16 rows of B (2 rows of A) or 32, each read along its
  // whole row, 4 vectors wide, the lines 128 floats ahead fetched along. Zen 5, in one process
  // against the tile walking 256 rows down, rounds of it: 2×4096×4096 31.0–32.0 against
  // 24.2–25.5 GFLOP/s, 2×2048×4096 28.3 against 22.6, 2×4096×11008 31.8 against 24.9;
  // 3×4096×4096 45.0–45.5 against 38.4–39.9, 3×2048×4096 44.6 against 36.4; 4×4096×4096
  // 59.0–59.2 against 54.7–55.5, 4×2048×4096 53.4 against 45.5. Even or less elsewhere:
  // 4×1024×4096 (16 MiB) 60.7 against 60.9, 4×11008×4096 59.4 against 59.1 (2×1024×4096
  // 1.17x, not taken).
  //   So do 5..8 rows, 4 vectors wide where the tile holds them (M = 5, 6), else 3 (N in
  // blocks of 3072). Zen 5, in one process against the tiles walking 256 rows down (rounds of
  // it): 8×4096×4096 1.04–1.14x (102.7–112.7 against 94.8–103.6 GFLOP/s over 7 rounds),
  // 8×11008×4096 97.5 against 61.6 (no fetch along those rows before), 8×4096×11008 110.0
  // against 103.8, 8×2048×4096 121.1 against 118.2, 6×4096×4096 81.1 against 70.4,
  // 6×2048×4096 91.8 against 83.5, 5×4096×4096 69.8 against 63.8, 5×11008×4096 56.7 against
  // 38.7; 7×4096×4096 0.98–1.05x; two threads 8×4096×4096 0.85–1.11x, 6×4096×4096 1.02x.
  // Where B fits L3 the walk down wins (8×1024×4096, 16 MiB: 139.6 against 155.0).
  constexpr int64_t kStreamRowsLeastNFullWidth = 2048;
  constexpr int64_t kStreamRowsMostRowsFullWidth = 8;
  if (!t.zmm_in_halves && w.m >= 2 && w.m <= kStreamRowsMostRowsFullWidth && !narrow &&
      w.n >= kStreamRowsLeastNFullWidth && w.k * stride >= kFromMemoryBytesFullWidth) {
    g.kc = w.m == 2 ? 16 : 32, g.nr = (tile_fits_registers(g.mr, 4, t.vector_registers()) ? 4 : 3) * vec;
    g.nc = at_least(knob(space, "nc"), w.n, g.nr), g.prefetch_n = 128;
    // Better still, blocks of 8 rows (each block's K loop unrolled whole) with the partial sums
    // in the workspace between them (c_buf), 4 vectors wide where the tile holds them, else 2
    // (N in whole tiles: 3 seldom divide it). Zen 5, in one process against the above (GFLOP/s):
    // 8×4096×4096 101–114 against 78–83, 8×11008×4096 95 against 88, 8×4096×11008 101 against
    // 96, 8×2048×4096 99 against 86, 7×4096×4096 98 against 91, 6×4096×4096 103 against 73,
    // 5×4096×4096 87 against 63, 4×4096×4096 61 against 43, 3×4096×4096 49 against 45,
    // 2×4096×4096 29.5 against 25.6.
    GemmConfig buffered = g;
    buffered.kc = 8, buffered.unroll = 8, buffered.c_buf = true;
    buffered.nr = (tile_fits_registers(g.mr, 4, t.vector_registers()) ? 4 : 2) * vec;
    buffered.nc = at_least(knob(space, "nc"), w.n, buffered.nr);
    if (g.mr == w.m && gemm_c_buffer_valid(w, buffered)) g = buffered;
  }
}

void stream_rows_on_intel(const Workload& w, const Target& t, const Space& space, GemmConfig& g) {
  const int vec = t.vector_floats();
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
}

// More rows on AVX2 (Zen 3).
void stream_rows_on_avx2(const Workload& w, const Target& t, GemmConfig& g) {
  const int vec = t.vector_floats();
  g.mr = int(std::min<int64_t>(4, w.m)), g.nr = 2 * vec;
  if (w.m >= 5) g.mr = w.m % 2 == 0 && w.m % 3 != 0 ? 2 : 3, g.nr = 4 * vec;
  g.kc = 8, g.nc = 768, g.prefetch_n = 128, g.unroll = 8, g.pack_a = g.mr <= w.least_m(), g.order = LoopOrder::mkn;
}

}  // namespace

// On Intel AVX-512 up to 48 rows stream B from memory in short blocks instead of packing it.
int64_t rows_streaming_b(const Target& t) { return t.avx512 && t.intel ? 48 : 16; }

bool stream_b_once(const Workload& w, const Target& t, const Space& space, bool narrow, GemmConfig& g) {
  if (g.pack_b || w.m > rows_streaming_b(t) || w.k * w.n * int64_t(sizeof(float)) <= t.l2_bytes) return false;
  // Bandwidth-bound: B read once, each tile fetching the lines of the tile to its right
  // ahead. One row of A: a few rows of B per block, each a stream read ahead along the
  // whole row (N in one block: 4–5% over blocks of 1536 at 1×4096×4096, as eight long
  // streams instead of many short runs). More rows, on Zen 5: long K blocks, down which a
  // tile walks while the next one's lines come into L2 — at 8×4096×4096 1.2x the lines some
  // rows down its own columns, and 1.1–1.6x short blocks for M = 4..16 (their C update per 8
  // rows of K costs as much as the FMAs). On Intel short blocks win (stream_rows_on_intel).
  //   On Zen 3 (AVX2) short blocks win for all these Ms: at 8×4096×4096, tiles of 4×16 over
  // blocks of 8 rows of B, read 128 floats ahead along them, A packed, reached 1.3-1.4x the
  // long K blocks and 1.4x OpenBLAS (paired in one process); one row of A reads 64 ahead.
  // From 5 rows on, tiles four vectors wide: 3 rows, or 2 where M is even and not a multiple
  // of 3 (no edge tile). Zen 3, N = K = 4096, over 4×16 (paired; M = 8 three runs): M = 5
  // 1.30x, 6 1.37x, 7 1.22x, 8 1.09–1.16x, 12 1.18x, 16 1.17x; M = 4 keeps 4×16 (2×32: 0.93x).
  // With one call per band (template v15) 4×16 lost less: M = 5 1.08x, 6 1.05x, 8 1.0–1.06x,
  // 12 1.10x, 16 1.16x.
  g.order = LoopOrder::knm;
  if (w.m == 1)
    stream_one_row(w, t, space, g);
  else if (t.avx512 && !t.intel)
    stream_rows_on_amd(w, t, space, narrow, g);
  else if (t.avx512)
    stream_rows_on_intel(w, t, space, g);
  else
    stream_rows_on_avx2(w, t, g);
  g.mc = nearest_multiple(knob(space, "mc"), std::max(16 * g.mr, 96), g.mr);
  return true;
}

}  // namespace livetune
