#include "policy/rules.hpp"

#include <algorithm>
#include <cstdint>

#include "policy/rule_knobs.hpp"

namespace livetune {

// A K of a few steps and a C beyond the caches (an outer product's; a first layer's on a few
// channels): the stores of C are the work, each line fetched from memory before it is
// written. Tiles walk along C's rows, all of N in one block, fetching the lines some tiles
// ahead (TileOrder::mn, prefetch_c 2); up to 8 rows of B read where they lie (longer, their
// rows fell in too few L1 sets at N = 2048, 4096). Zen 5, paired over the tiles walking down
// 96 rows (LIBXSMM in brackets): 3000×3000×3 51 GFLOP/s against 19 (47), 4096×1024×8 171
// against 100 (170), 2000×2000×7 151 against 145 (162), 1024×4096×16 174 against 128 (161),
// 2048×2048×16 171 against 131 (161); a C that stays in L3 keeps the walk down: 1448×1448×8
// (8.4 MB) 145 against 166, 1000×1000×16 182 against 192; from K = 27 even (2048×2048×27).
void walk_along_c(const Workload& w, const Target& t, const Space& space, bool narrow, GemmConfig& g) {
  constexpr int64_t kCBeyondCachesBytes = int64_t(12) << 20;
  const int64_t c_bytes = w.m * w.ldc * int64_t(sizeof(float));
  if (t.avx512 && !t.intel && !narrow && !g.swap && !gemm_dot_form(w, g) && w.k <= 16 && w.m > g.mr &&
      c_bytes >= std::min(t.l3_bytes, kCBeyondCachesBytes)) {
    g.tiles = TileOrder::mn, g.prefetch_c = 2, g.nc = at_least(knob(space, "nc"), w.n, g.nr);
    g.pack_b = w.trans_b || w.k > 8;
  }
}

}  // namespace livetune
