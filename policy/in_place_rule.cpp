#include "policy/rules.hpp"

#include <algorithm>
#include <cstdint>

#include "policy/rule_knobs.hpp"

namespace livetune {

void read_b_in_place(const Workload& w, const Target& t, const Space& space, bool narrow, GemmConfig& g) {
  const int vec = t.vector_floats();
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
}

}  // namespace livetune
