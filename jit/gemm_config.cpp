#include "jit/gemm_config.hpp"

#include <bit>
#include <stdexcept>

#include "jit/gemm_pieces.hpp"

namespace livetune {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

std::shared_ptr<const KnobList> make_knobs(int widest) {
  auto knobs = std::make_shared<KnobList>();
  auto add = [&](std::string name, std::vector<int> values, std::vector<std::string> labels = {}) {
    knobs->push_back(Knob{std::move(name), std::move(values), std::move(labels)});
  };
  add("mr", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16});
  // Up to four vectors of either width; the zmm widths first: Space::enumerate walks the
  // domains in order, and a first value valid with every other knob's first keeps it from
  // stepping through all later knobs' values before it meets a valid config.
  if (widest == 16) {
    add("nr", {16, 32, 48, 64, 8, 24});
    add("vec", {16, 8});
  } else {
    add("nr", {8, 16, 24, 32});
    add("vec", {8});
  }
  add("kc", {8, 16, 32, 64, 128, 192, 256, 320, 384, 512, 768, 1024, 2048, 4096});
  add("mc", {16, 24, 32, 48, 64, 72, 96, 120, 144, 168, 176, 192, 208, 240, 288, 384, 480, 576, 768, 960});
  add("nc", {64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096});
  add("pack_a", {0, 1});
  add("pack_b", {0, 1});
  add("unroll", {1, 2, 4, 8});
  add("prefetch", {0, 4, 8, 16, 32, 64});
  add("prefetch_n", {0, 64, 128, 256, 512});
  add("prefetch_c", {0, 1, 2});
  add("order", {0, 1, 2, 3, 4, 5}, {"nkm", "nmk", "knm", "kmn", "mkn", "mnk"});
  add("split", {0, 1}, {"m", "n"});
  add("tiles", {0, 1, 2}, {"nm", "mn", "interleaved"});
  add("swap", {0, 1});
  add("c_buf", {0, 1});
  add("k_spread", {0, 1});
  return knobs;
}

// The knob list is the same object for every workload on a target, so configs compare cheaply.
std::shared_ptr<const KnobList> knobs_for(const Target& t) {
  static const auto avx512 = make_knobs(16);
  static const auto avx2 = make_knobs(8);
  return t.avx512 ? avx512 : avx2;
}

}  // namespace

GemmConfig GemmConfig::from(const Config& c) {
  GemmConfig g;
  g.mr = c.get("mr");
  g.nr = c.get("nr");
  g.vec = c.get("vec");
  g.kc = c.get("kc");
  g.mc = c.get("mc");
  g.nc = c.get("nc");
  g.pack_a = c.get("pack_a") != 0;
  g.pack_b = c.get("pack_b") != 0;
  g.unroll = c.get("unroll");
  g.prefetch = c.get("prefetch");
  g.prefetch_n = c.get("prefetch_n");
  g.prefetch_c = c.get("prefetch_c");
  g.order = LoopOrder(c.get("order"));
  g.split = Split(c.get("split"));
  g.tiles = TileOrder(c.get("tiles"));
  g.swap = c.get("swap") != 0;
  g.c_buf = c.get("c_buf") != 0;
  g.k_spread = c.get("k_spread") != 0;
  return g;
}

Config GemmConfig::to_config(const Target& t) const {
  return Config(knobs_for(t), {mr, nr, vec, kc, mc, nc, int(pack_a), int(pack_b), unroll, prefetch, prefetch_n,
                               prefetch_c, int(order), int(split), int(tiles), int(swap), int(c_buf),
                               int(k_spread)});
}

namespace {

// A config of the (computed) workload w, swap aside.
bool valid_for(const Workload& w, const GemmConfig& g, int widest, int regs) {
  if (g.nr % g.vec != 0 || g.nr / g.vec > 4) return false;
  if (gemm_dot_form(w, g)) {
    // Vectors along K, A's rows read where they lie; nothing to prefetch along K or of C
    // (a tile writes rows × nr values of C).
    if (g.vec != widest || dot_columns(g.mr, regs) < 1 || g.pack_a || g.prefetch > 0 || g.prefetch_c > 0)
      return false;
  } else {
    // With phases the packed block is C^T's few columns by kc (A's rows, 8 × 4096: 128 KiB).
    if (g.kc > kLongestPackedKc && gemm_phases(w, g) == 1) return false;
    if (g.vec != widest && !half_width_pays(w.n, g.vec, widest)) return false;
    if (!tile_fits_registers(g.mr, g.nr / g.vec, regs)) return false;
  }
  // A tile taller than M would never run (its edge tiles would), and packing moves the last
  // A panel up to hold mr real rows: the fewest rows a call may have.
  if (g.mr > w.m || (g.pack_a && g.mr > w.least_m())) return false;
  if (g.mc % g.mr != 0 || g.nc % g.nr != 0) return false;
  // Ahead along B's rows is for B read in place (swapped: the product's A), a few rows per
  // block; one prefetch stream.
  if (g.prefetch_n > 0 && ((g.pack_b && !g.swap) || g.prefetch > 0)) return false;
  // Ahead along C's rows is for tiles that walk along them.
  if (g.prefetch_c == 2 && g.tiles != TileOrder::mn) return false;
  if (g.c_buf && !gemm_c_buffer_valid(w, g)) return false;
  if (g.k_spread && !gemm_k_spread_valid(w, g)) return false;
  return g.tiles != TileOrder::interleaved || g.swap;
}

}  // namespace

Space gemm_space(const Workload& w, const Target& t) {
  const int widest = t.vector_floats();
  const int regs = t.vector_registers();
  return Space(knobs_for(t), [w, widest, regs](const Config& c) {
    const GemmConfig g = GemmConfig::from(c);
    if (!g.swap) return valid_for(w, g, widest, regs);
    // Swapped, B is read in place as the product's A and A packed as its B (packing B, the
    // A there, would undo the point), one thread's share of C^T's rows at a time.
    const Workload computed = swapped_workload(w);
    return swap_possible(w) && g.pack_b && !g.pack_a && g.split == Split::m && valid_for(computed, g, widest, regs) &&
           (g.tiles != TileOrder::interleaved || interleaves(computed, g));
  });
}

bool swap_possible(const Workload& w) { return w.trans_b && w.m <= kSwapMaxRows && w.k > 0; }

Workload swapped_workload(const Workload& w) {
  Workload s = Workload::matmul(w.n, w.m, w.k, true);
  s.lda = w.ldb, s.ldb = w.lda, s.ldc = ceil_div(w.m, 16) * 16;
  return s;
}

int gemm_phases(const Workload& w, const GemmConfig& g) {
  if (!g.swap || g.vec != 16 || w.n < 1) return 1;
  auto phases_of = [&](int64_t columns) {
    if (columns >= g.nr || g.nr % columns != 0) return 1;
    const int phases = int(g.nr / columns);
    const bool power_of_two = (phases & (phases - 1)) == 0;
    return power_of_two && phases <= g.vec && w.k % phases == 0 && g.kc % phases == 0 ? phases : 1;
  };
  const int exact = phases_of(w.n);
  return exact > 1 ? exact : phases_of(int64_t(std::bit_ceil(uint64_t(w.n))));
}

int64_t swap_rows(const GemmConfig& g) { return ceil_div(g.mc, 16) * 16; }

bool half_width_pays(int64_t n, int vec, int widest) {
  return columns_computed(n, vec) * 10 <= columns_computed(n, widest) * 9;
}

int dot_edge_columns(const Workload& w, const GemmConfig& c) {
  if (gemm_dot_form(w, c)) return 0;
  if (w.n < c.nr) {
    // B's copy costs about 3/4 of an FMA's issue slot a float row by row (padded rows); then
    // each row of A takes one FMA per vec values of K and column instead of one per value of K
    // (a tile row's vector). Rows one after another are copied by permutes, a fraction of that.
    const bool copy_pays = 4 * w.least_m() * (c.vec - w.n) > 3 * w.n * c.vec ||
                           (w.ldb == w.n && w.k >= kDotContiguousMinK);
    return copy_pays && !c.swap && w.n <= kDotNarrowColumns && w.k >= kDotNarrowMinK ? int(w.n) : 0;
  }
  if (w.n == c.nr) return 0;
  const int rest = int(w.n % c.nr);
  return dot_edge_takes(rest, w.k, c.vec) ? rest : 0;
}

int64_t gemm_dot_edge_floats(const Workload& w, const GemmConfig& c) {
  return w.trans_b ? 0 : (dot_edge_columns(w, c) * w.k + 15) / 16 * 16;
}

bool interleaves(const Workload& computed, const GemmConfig& g) {
  const int64_t group = int64_t(g.mr) * kInterleavedRows;
  return computed.m % group == 0 && g.mc % group == 0 && g.kc >= computed.k && computed.n <= tile_columns(computed, g);
}

int64_t gemm_tiles(const Workload& caller, const GemmConfig& c) {
  const Workload w = computed_workload(caller, c);
  return c.split == Split::m ? ceil_div(w.m, tile_rows_step(c)) : ceil_div(w.n, c.nr);
}

int64_t gemm_packed_a_floats(const Workload& w, const GemmConfig& c) {
  const int64_t kb = std::min<int64_t>(c.kc, w.k);
  const int64_t mb = std::min<int64_t>(c.mc, ceil_div(w.m, c.mr) * c.mr);
  // Rounded to 16 floats so that the packed B block after it stays 64-byte aligned.
  return c.pack_a ? (mb * kb + 15) / 16 * 16 : 0;
}

int64_t packed_b_floats(const Workload& w, const GemmConfig& g) { return w.k * ceil_div(w.n, g.nr) * g.nr; }

int64_t swap_rows_offset(const Workload& w, const GemmConfig& c) {
  return (packed_b_floats(swapped_workload(w), c) + 15) / 16 * 16;
}

int64_t gemm_workspace_floats(const Workload& w, const GemmConfig& c) {
  if (c.swap) return swap_rows_offset(w, c) + swap_rows(c) * swapped_workload(w).ldc;
  const int64_t kb = std::min<int64_t>(c.kc, w.k);
  const int64_t nb = std::min<int64_t>(c.nc, ceil_div(w.n, c.nr) * c.nr);
  return gemm_packed_a_floats(w, c) + (c.pack_b ? (kb * nb + 15) / 16 * 16 : 0) + gemm_dot_edge_floats(w, c) +
         gemm_c_buffer_floats(w, c);
}

bool gemm_c_buffer_valid(const Workload& w, const GemmConfig& g) {
  return !g.swap && tile_sweeps_n(w, g) && w.k > g.kc && w.n % g.nr == 0;
}

bool gemm_k_spread_valid(const Workload& w, const GemmConfig& g) {
  return !g.swap && g.mr == 1 && !g.pack_a && g.prefetch == 0 && tile_sweeps_n(w, g) && gemm_phases(w, g) == 1 &&
         w.k % g.kc == 0 && w.k >= 2 * g.kc;
}

int64_t gemm_c_buffer_floats(const Workload& w, const GemmConfig& g) { return g.c_buf ? w.m * w.n : 0; }

}  // namespace livetune
