// jit/piece_cache: variants that differ only in what the precompiled driver does (blocks, loop
// order, split) share their generated pieces; a piece lives while some kernel holds it; and the
// shared pieces still compute the right thing for each variant.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/kernel.hpp"
#include "jit/target.hpp"
#include "test_util.hpp"

namespace livetune {
namespace {

GemmConfig base_config() {
  GemmConfig g;
  g.mr = 6, g.nr = 2 * Target::host().vector_floats(), g.kc = 64, g.mc = 48, g.nc = 256;
  g.pack_a = true, g.pack_b = true, g.unroll = 4, g.order = LoopOrder::nkm;
  return g;
}

void expect_correct(const Kernel& k, const test::Problem& p) {
  std::vector<float> c = p.c0;
  run_gemm_serial(k, p.a.data(), p.b.data(), p.bias_ptr(), c.data());
  const std::string diff = test::compare_c(k.workload, c, p.want, matmul_tolerance(k.workload, 1.0));
  EXPECT_TRUE(diff.empty()) << test::describe(k.workload, &k.config) << "\n" << diff;
}

TEST(PieceCache, VariantsThatDifferInBlockingShareEveryPiece) {
  // M = 100 is not a multiple of 6: the 4 rows left have an edge tile, shared too.
  const Workload w = [] {
    Workload x = Workload::matmul(100, 64 + dot_edge_most_columns(Target::host().vector_floats()) + 3, 128);
    x.bias = true, x.act = ActivationKind::relu;
    return x;
  }();
  const test::Problem p(w, 3);
  const GemmConfig g = base_config();
  GemmConfig h = g;
  h.kc = 32, h.mc = 96, h.nc = 128, h.order = LoopOrder::mkn, h.split = Split::n;

  KernelPtr first = compile_gemm(w, g.to_config(Target::host()));
  KernelPtr second = compile_gemm(w, h.to_config(Target::host()));
  // Tile, edge tile (M), N-edge tile (the last N mod nr columns: 3 more than the dot edge
  // takes), pack A, pack B, epilogue.
  EXPECT_EQ(first->pieces_compiled, 6);
  EXPECT_EQ(second->pieces_compiled, 0);
  EXPECT_EQ(first->tile, second->tile);
  ASSERT_NE(first->edge_tiles[4], nullptr);
  EXPECT_EQ(first->edge_tiles[4], second->edge_tiles[4]);
  ASSERT_NE(first->n_edge_tile, nullptr);
  EXPECT_EQ(first->n_edge_tile, second->n_edge_tile);
  EXPECT_EQ(first->pack_a, second->pack_a);
  EXPECT_EQ(first->pack_b, second->pack_b);
  EXPECT_EQ(first->epilogue, second->epilogue);
  expect_correct(*first, p);
  expect_correct(*second, p);
}

TEST(PieceCache, WhatTheCodeDependsOnGetsPiecesOfItsOwn) {
  // 64 rows are 10 tiles of 6 and an edge tile of 4, which is not unrolled: a change of the
  // unroll compiles the main tile only, the others both.
  const Workload w = Workload::matmul(64, 64, 64);
  const GemmConfig g = base_config();
  KernelPtr base = compile_gemm(w, g.to_config(Target::host()));

  GemmConfig unrolled = g;
  unrolled.unroll = 2;
  KernelPtr other_tile = compile_gemm(w, unrolled.to_config(Target::host()));
  EXPECT_EQ(other_tile->pieces_compiled, 1);
  EXPECT_NE(other_tile->tile, base->tile);
  EXPECT_EQ(other_tile->edge_tiles[4], base->edge_tiles[4]);
  EXPECT_EQ(other_tile->pack_b, base->pack_b);

  GemmConfig split_k = g;
  split_k.kc = 32;  // K in two blocks: the tile reads C before its update (one block only writes it)
  KernelPtr two_blocks = compile_gemm(w, split_k.to_config(Target::host()));
  EXPECT_EQ(two_blocks->pieces_compiled, 2);
  EXPECT_NE(two_blocks->tile, base->tile);
  EXPECT_NE(two_blocks->edge_tiles[4], base->edge_tiles[4]);
  EXPECT_EQ(two_blocks->pack_a, base->pack_a);
  expect_correct(*two_blocks, test::Problem(w, 7));

  Workload padded = w;
  padded.ldc = 80;  // the tile bakes in the row stride of C
  KernelPtr other_c = compile_gemm(padded, g.to_config(Target::host()));
  EXPECT_EQ(other_c->pieces_compiled, 2);
  EXPECT_NE(other_c->tile, base->tile);
  expect_correct(*other_c, test::Problem(padded, 4));
}

TEST(PieceCache, AMinorEdgeIgnoresThePrefetchKnobs) {
  // 200 rows leave an edge of 2 (of 200): variants that differ only in their prefetches share
  // it. 8 rows leave 2 of 8, a large share: there the edge tile prefetches as the tile does.
  GemmConfig g = base_config();
  g.pack_a = false;
  GemmConfig h = g;
  h.prefetch = 16, h.prefetch_c = 1;
  for (const int64_t m : {200, 8}) {
    const Workload w = Workload::matmul(m, 64, 96);
    KernelPtr plain = compile_gemm(w, g.to_config(Target::host()));
    KernelPtr prefetching = compile_gemm(w, h.to_config(Target::host()));
    ASSERT_NE(plain->edge_tiles[2], nullptr);
    EXPECT_NE(prefetching->tile, plain->tile);
    if (m == 200) {
      EXPECT_EQ(prefetching->pieces_compiled, 1);
      EXPECT_EQ(prefetching->edge_tiles[2], plain->edge_tiles[2]);
    } else {
      EXPECT_EQ(prefetching->pieces_compiled, 2);
      EXPECT_NE(prefetching->edge_tiles[2], plain->edge_tiles[2]);
    }
    expect_correct(*prefetching, test::Problem(w, 8));
  }
}

TEST(PieceCache, PiecesNoKernelHoldsAreCompiledAgain) {
  const Workload w = Workload::matmul(33, 47, 29);
  const Config c = base_config().to_config(Target::host());
  EXPECT_GT(compile_gemm(w, c)->pieces_compiled, 0);  // dropped at once
  KernelPtr again = compile_gemm(w, c);
  EXPECT_GT(again->pieces_compiled, 0);
  expect_correct(*again, test::Problem(w, 5));
}

TEST(PieceCache, ThreadsCompilingTheSameVariantAtOnceAllGetWorkingKernels) {
  const Workload w = Workload::matmul(50, 90, 70);
  const Config c = base_config().to_config(Target::host());
  std::vector<KernelPtr> kernels(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < kernels.size(); ++i) threads.emplace_back([&, i] { kernels[i] = compile_gemm(w, c); });
  for (auto& t : threads) t.join();
  const test::Problem p(w, 6);
  for (const KernelPtr& k : kernels) expect_correct(*k, p);
}

}  // namespace
}  // namespace livetune
