#include "policy/rules.hpp"

#include <algorithm>
#include <cstdint>

#include "policy/rule_knobs.hpp"

namespace livetune {

void choose_blocks(const Workload& w, const Target& t, const Space& space, bool narrow, GemmConfig& g) {
  const int vec = t.vector_floats();
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
  g.pack_b = w.trans_b || (w.ldb >= 256 && w.m > rows_streaming_b(t)) ||
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
}

}  // namespace livetune
