#include "policy/rules.hpp"

#include <algorithm>
#include <cstdint>

#include "policy/rule_knobs.hpp"

namespace livetune {

// B transposed and larger than L2 with 33..128 rows of A (in whole vectors from K = 256 on, on
// one thread or over a wide B, the swapped form: swap_rule.cpp), on AMD's AVX-512 in halves (Zen
// 4): one panel of 4 vectors per N block, packed in K blocks of up to 1024 and run under all of
// M's rows in 4-row tiles, K unrolled 8 times and fetched 8 ahead (the search's best at 48 and
// 64×4096×4096). Zen 4, one run each, over the packed default (oneDNN in
// brackets): M = 40 86.1 against 73.1 (85.1), 64 95.1 against 83.7 (93.3), 96 99.5 against
// 89.9 (99.7), 128 100.6 against 93.7 (103.0); 64×1024×4096 97.9 against 87.5, 64×4096×1024
// 96.5 against 87.1, 96×768×3072 100.7 against 96.0; 128×768×768 even (111.1, 109.5). With
// full-width zmm units (Zen 5) the packed 6 × 64 tile beats it, paired: 128×768×768 1.05x,
// 64×4096×4096 1.04x, 96×768×3072 1.06x.
void choose_four_row_panels(const Workload& w, const Target& t, const Space& space, GemmConfig& g, bool& streams_b) {
  const int vec = t.vector_floats();
  const bool streamed_transposed_b = transposed_b_past_l2(w, t);
  if (t.avx512 && !t.intel && t.zmm_in_halves && streamed_transposed_b && w.m > 32 && w.m <= 128) {
    g.mr = 4, g.vec = vec, g.nr = 4 * vec;
    g.kc = at_least(knob(space, "kc"), std::min<int64_t>(w.k, kLongestPackedKc));
    g.mc = nearest_multiple(knob(space, "mc"), 288, g.mr);
    g.nc = nearest_multiple(knob(space, "nc"), g.nr, g.nr);
    g.pack_a = false, g.pack_b = true, g.unroll = 8, g.prefetch = 8, g.prefetch_n = 0, g.prefetch_c = 0;
    g.order = LoopOrder::nmk, g.tiles = TileOrder::nm;
    streams_b = true;
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
void choose_one_vector_panels(const Workload& w, const Target& t, const Space& space, int threads, GemmConfig& g) {
  const int vec = t.vector_floats();
  const bool streamed_transposed_b = transposed_b_past_l2(w, t);
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
}

}  // namespace livetune
