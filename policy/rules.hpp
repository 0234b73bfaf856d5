#pragma once
// The stages of the default rule (default_rule.cpp), in the order it applies them: each looks
// at the workload and the target and refines the config the stages before it chose. A stage's
// comments give the measurements behind each of its choices.
#include <cstdint>

#include "jit/gemm_config.hpp"
#include "jit/space.hpp"
#include "jit/target.hpp"
#include "jit/workload.hpp"

namespace livetune {

// B's size, K × N floats.
inline int64_t b_size_bytes(const Workload& w) { return w.k * w.n * int64_t(sizeof(float)); }
// B transposed (a weight stored out × in) and past L2: streamed from L3 or memory.
inline bool transposed_b_past_l2(const Workload& w, const Target& t) {
  return w.trans_b && b_size_bytes(w) > t.l2_bytes;
}
// Up to this many rows of A the swapped form takes any B past L2 where zmm operations run in
// halves (Zen 4); past it, a B with 4 times as many rows (choose_swapped_form), else the
// one-vector panels (choose_one_vector_panels).
inline constexpr int64_t kSwapRowsAnyBInHalves = 128;

// The register tile (mr, nr, vec) from the register file and the shape; true where B is
// narrower than the tile first chosen (N under its width).
bool choose_register_tile(const Workload& w, const Target& t, const Space& space, GemmConfig& g);
// Cache blocks (kc, mc, nc), packing, unrolling and the loop order.
void choose_blocks(const Workload& w, const Target& t, const Space& space, bool narrow, GemmConfig& g);
// The rows of A up to which B read once from memory streams where it lies instead of packed.
int64_t rows_streaming_b(const Target& t);
// Few rows of A over a B from memory, not packed: B read once; true where it does.
bool stream_b_once(const Workload& w, const Target& t, const Space& space, bool narrow, GemmConfig& g);
// Whether full-width AVX-512 AMD runs a transposed B past L2 under one dot tile of all of M's
// rows rather than the swapped form.
bool one_tile_beats_swap(const Workload& w, const Target& t);
// B transposed, few rows of A (or one column of B): the dot tile, B's rows read where they
// lie; streams_b set where B comes from past L2.
void choose_dot_tile(const Workload& w, const Target& t, const Space& space, GemmConfig& g, bool& streams_b);
// B transposed past L2 on Zen 4, 33..128 rows of A: packed panels of 4 vectors under 4-row tiles.
void choose_four_row_panels(const Workload& w, const Target& t, const Space& space, GemmConfig& g,
                            bool& streams_b);
// B transposed past L2 and few rows of A: the swapped form, C^T = B·A^T.
void choose_swapped_form(const Workload& w, const Target& t, const Space& space, int threads, GemmConfig& g);
// B transposed past L2 on Zen 4, 129..1024 rows of A, one thread: panels of one vector.
void choose_one_vector_panels(const Workload& w, const Target& t, const Space& space, int threads, GemmConfig& g);
// B not transposed, in L2 or under few enough rows of A: read where it lies, not packed.
void read_b_in_place(const Workload& w, const Target& t, const Space& space, bool narrow, GemmConfig& g);
// A K of a few steps and a C past the caches: tiles walk along C's rows.
void walk_along_c(const Workload& w, const Target& t, const Space& space, bool narrow, GemmConfig& g);

}  // namespace livetune
