#pragma once
// One compiled variant: the generated pieces it runs, with the workload and config it was
// built for. Their code stays mapped for as long as the Kernel object lives.
#include <cstdint>
#include <memory>
#include <vector>

#include "jit/gemm_config.hpp"
#include "jit/gemm_pieces.hpp"
#include "jit/space.hpp"
#include "jit/workload.hpp"

namespace livetune {

// The arguments of one call. The kernel computes tiles [begin, end) of the split dimension,
// so several threads may each take a range.
struct GemmArgs {
  const float* a;
  const float* b;
  float* c;
  const float* bias;
  float* workspace;  // gemm_workspace_floats() floats, 64-byte aligned
  int64_t begin;
  int64_t end;
};

struct Piece;  // piece_cache.hpp

struct Kernel {
  Workload workload;
  Config config;
  GemmConfig gemm;
  TileFn tile = nullptr;
  PackAFn pack_a = nullptr;      // with config pack_a only
  PackBFn pack_b = nullptr;      // with config pack_b only
  EpilogueFn epilogue = nullptr;  // with a bias or an activation only
  int64_t tiles = 0;
  int64_t workspace_floats = 0;
  double compile_ms = 0;    // IR generation to callable, pieces found in the cache included
  int pieces_compiled = 0;  // how many of its pieces this compile generated (the rest were shared)
  std::vector<std::shared_ptr<const Piece>> pieces;

  // The driver (gemm_driver.cpp): the cache-block loop nest around the pieces.
  void run(const GemmArgs& args) const;
};

using KernelPtr = std::shared_ptr<const Kernel>;

// Runs the whole kernel on this thread with a scratch buffer of its own: for validation and
// measurement, not for the hot path (it allocates).
void run_gemm_serial(const Kernel& k, const float* a, const float* b, const float* bias, float* c);

}  // namespace livetune
