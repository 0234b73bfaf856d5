#include "policy/default_rule.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "jit/gemm_config.hpp"
#include "policy/rules.hpp"

namespace livetune {

// The stages (rules.hpp) in order, each refining what the ones before it chose: a later stage
// covers a narrower case and overrides an earlier one there.
Config default_gemm_config(const Workload& w, const Target& t, int threads) {
  const Space space = gemm_space(w, t);
  GemmConfig g;
  g.vec = t.vector_floats();
  const bool narrow = choose_register_tile(w, t, space, g);
  choose_blocks(w, t, space, narrow, g);
  bool streams_b = stream_b_once(w, t, space, narrow, g);  // bandwidth-bound: B read once, from memory
  // Worth it once a tile runs long enough to hide a fetch of C from memory.
  g.prefetch_c = std::min<int64_t>(w.k, g.kc) >= 128 ? 1 : 0;
  choose_dot_tile(w, t, space, g, streams_b);
  choose_four_row_panels(w, t, space, g, streams_b);
  choose_swapped_form(w, t, space, threads, g);
  choose_one_vector_panels(w, t, space, threads, g);
  read_b_in_place(w, t, space, narrow, g);
  walk_along_c(w, t, space, narrow, g);
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
