// Random valid configs of the CPU GEMM template, over shapes chosen to reach every edge of the
// generator (dimensions of 1, primes, remainders of every blocking, transposed and padded
// operands, every epilogue), against the reference element by element. Each kernel also runs
// split into tile ranges, each with its own workspace: that is how the runtime spreads one call
// over several threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <exception>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/gemm_pieces.hpp"
#include "jit/kernel.hpp"
#include "jit/target.hpp"
#include "test_util.hpp"
#include "workloads.hpp"

namespace livetune {
namespace {

using test::AlignedFloats;
using test::compare_c;
using test::describe;
using test::Problem;

// 31 shapes × 16 configs = 496 distinct random configs; 10–60 ms of compile each, two at a time.
constexpr size_t kConfigsPerShape = 16;
constexpr uint64_t kSeed = 20240601;

using test::epi;
using test::mm;
using test::padded;
using test::Shape;

constexpr auto kNone = ActivationKind::none;
constexpr auto kRelu = ActivationKind::relu;
constexpr auto kGelu = ActivationKind::gelu;

std::vector<Shape> shapes() {
  return {
      {"one", mm(1, 1, 1)},
      {"m1", mm(1, 100, 37)},
      {"m1_whole_k_blocks", epi(mm(1, 100, 256), true, kGelu, 0.5f)},  // k_spread may be 1
      {"n1", mm(50, 1, 33)},
      {"k1", mm(33, 47, 1)},
      {"tiny", mm(2, 17, 3)},
      {"primes", mm(127, 255, 129)},
      {"tall_skinny", mm(1000, 16, 64)},
      {"wide_short", mm(3, 2000, 50)},
      {"odd_small", mm(17, 31, 19)},
      {"square64", mm(64, 64, 64)},
      {"k_over_kc", mm(48, 96, 200)},
      {"k_over_max_kc", mm(7, 129, 513)},
      {"m_over_mc", mm(250, 40, 30)},
      {"n_over_nc", mm(9, 1100, 31)},
      {"long_k", mm(5, 5, 600)},
      {"trans_b", mm(100, 33, 70, true)},
      {"primes_trans_b", mm(127, 255, 129, true)},
      {"m1_trans_b", mm(1, 300, 77, true)},
      {"n1_trans_b", mm(13, 1, 200, true)},
      {"padded", padded(mm(45, 77, 90))},
      {"padded_trans_b", padded(mm(29, 50, 61, true))},
      {"padded_wide", padded(mm(4, 300, 16), 16, 16, 16)},
      {"bias", epi(mm(33, 70, 129), true, kNone)},
      {"bias_relu", epi(mm(40, 65, 100), true, kRelu)},
      {"relu", epi(mm(21, 37, 80), false, kRelu)},
      {"gelu", epi(mm(16, 48, 32), false, kGelu)},
      {"bias_gelu", epi(mm(70, 130, 90), true, kGelu)},
      {"beta_half", epi(mm(40, 50, 60), false, kNone, 0.5f)},
      {"beta_one", epi(mm(23, 81, 45), false, kNone, 1.0f)},
      {"beta_relu_padded", epi(padded(mm(30, 200, 20)), false, kRelu, 1.0f)},
      {"everything", epi(padded(mm(61, 99, 70, true)), true, kGelu, 0.5f)},
  };
}

// Compiles every config, two at a time (compile_gemm is thread-safe). A failure leaves a null
// kernel and the exception's text.
void compile_all(const Workload& w, const std::vector<Config>& configs, std::vector<KernelPtr>& kernels,
                 std::vector<std::string>& errors) {
  kernels.assign(configs.size(), nullptr);
  errors.assign(configs.size(), {});
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < configs.size();) {
      try {
        kernels[i] = compile_gemm(w, configs[i]);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    }
  };
  std::thread other(worker);
  worker();
  other.join();
}

class GemmCorrectness : public testing::TestWithParam<Shape> {};

TEST_P(GemmCorrectness, RandomConfigs) {
  const Workload& w = GetParam().w;
  const Problem p(w, w.hash());
  const double tol = matmul_tolerance(w, 1.0);

  const Space space = gemm_space(w, Target::host());
  std::mt19937_64 rng(kSeed + w.hash());
  const std::vector<Config> configs = space.sample_distinct(rng, kConfigsPerShape);
  ASSERT_EQ(configs.size(), kConfigsPerShape) << describe(w);

  std::vector<KernelPtr> kernels;
  std::vector<std::string> errors;
  compile_all(w, configs, kernels, errors);

  for (size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    SCOPED_TRACE(describe(w, &c));
    ASSERT_TRUE(space.valid(c));
    if (!kernels[i]) {
      ADD_FAILURE() << "compile_gemm failed: " << errors[i];
      continue;
    }
    const Kernel& k = *kernels[i];
    const GemmConfig g = GemmConfig::from(c);
    EXPECT_EQ(k.workload, w);
    EXPECT_EQ(k.config, c);
    // A whole call (WholeCalls) is one threading tile without scratch.
    EXPECT_EQ(k.tiles, k.whole_call ? 1 : gemm_tiles(w, g));
    EXPECT_EQ(k.workspace_floats, k.whole_call ? 0 : gemm_workspace_floats(w, g));
    // Tiles, the dot edge over all of a narrow B (NarrowBAllInTheDotEdge), or the whole call.
    ASSERT_TRUE(k.tile != nullptr || k.dot_edge_columns == w.n || k.whole_call != nullptr);
    ASSERT_GE(k.tiles, 1);

    // The whole kernel on this thread.
    std::vector<float> whole = p.c0;
    run_gemm_serial(k, p.a.data(), p.b.data(), p.bias_ptr(), whole.data());
    const std::string diff = compare_c(w, whole, p.want, tol);
    EXPECT_TRUE(diff.empty()) << "whole run:\n" << diff;

    // The same kernel in 2 or 3 tile ranges, last range first, each with a workspace of its own.
    const int64_t pieces = std::min<int64_t>(2 + int64_t(i % 2), k.tiles);
    std::vector<float> split = p.c0;
    for (int64_t part = pieces - 1; part >= 0; --part) {
      AlignedFloats ws(k.workspace_floats);
      const GemmArgs args{p.a.data(), p.b.data(), split.data(), p.bias_ptr(), ws.get(),
                          k.tiles * part / pieces, k.tiles * (part + 1) / pieces};
      k.run(args);
    }
    const std::string split_diff = compare_c(w, split, p.want, tol);
    EXPECT_TRUE(split_diff.empty()) << "run in " << pieces << " tile ranges of " << k.tiles << " tiles:\n"
                                    << split_diff;
    // B packed whole beforehand (a constant B, or once for all threads of a call), in shares
    // as threads pack it: the same tiles read it from there.
    if (k.takes_packed_b()) {
      AlignedFloats packed(packed_b_floats(w, g));
      for (int64_t part = pieces; part >= 0; --part) pack_whole_b(k, p.b.data(), packed.get(), part, pieces + 1);
      std::vector<float> prepacked = p.c0;
      for (int64_t part = pieces - 1; part >= 0; --part) {
        AlignedFloats ws(k.workspace_floats);
        const GemmArgs args{p.a.data(), p.b.data(), prepacked.data(), p.bias_ptr(), ws.get(),
                            k.tiles * part / pieces, k.tiles * (part + 1) / pieces, packed.get()};
        k.run(args);
      }
      const std::string packed_diff = compare_c(w, prepacked, p.want, tol);
      EXPECT_TRUE(packed_diff.empty()) << "run on B packed whole:\n" << packed_diff;
    }
    // Splitting changes which tiles a call computes, not how a tile is computed.
    if (diff.empty() && split_diff.empty()) {
      int64_t differ = 0;
      for (size_t at = 0; at < whole.size(); ++at) differ += whole[at] != split[at];
      EXPECT_EQ(differ, 0) << "elements differ between the whole run and the run in " << pieces << " tile ranges";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmCorrectness, testing::ValuesIn(shapes()),
                         [](const testing::TestParamInfo<Shape>& info) { return std::string(info.param.label); });

// B read in place: the tile at the N edge moves left over columns of the tile before it and
// must leave them alone, also when the two tiles run in different ranges (threads), C is
// accumulated into (beta = 1) and bias and activation follow. B narrower than a tile masks its
// loads instead.
TEST(GemmCorrectness, InPlaceBEdgeTile) {
  const int v = Target::host().vector_floats(), nv = test::widest_vectors(4);
  const std::string cfg = "mr=4 nr=" + std::to_string(nv * v) + " vec=" + std::to_string(v) +
                          " kc=32 mc=96 nc=1536 pack_a=0 pack_b=0 unroll=4 prefetch=0 prefetch_n=0 "
                          "prefetch_c=0 order=nkm split=n tiles=nm swap=0 c_buf=0 k_spread=0";
  for (const Workload& w : {epi(padded(mm(37, nv * v + 17, 50)), true, kGelu, 1.0f), mm(6, v + 1, 40),
                            epi(mm(9, 3 * v - 5, 70), false, kRelu, 0.5f)}) {
    const Config c = gemm_space(w, Target::host()).parse(cfg);
    SCOPED_TRACE(describe(w, &c));
    const Problem p(w, w.hash());
    const KernelPtr k = compile_gemm(w, c);
    for (int64_t pieces = 1; pieces <= std::min<int64_t>(3, k->tiles); ++pieces) {
      std::vector<float> got = p.c0;
      for (int64_t part = pieces - 1; part >= 0; --part) {
        AlignedFloats ws(k->workspace_floats);
        k->run(GemmArgs{p.a.data(), p.b.data(), got.data(), p.bias_ptr(), ws.get(), k->tiles * part / pieces,
                        k->tiles * (part + 1) / pieces});
      }
      const std::string diff = compare_c(w, got, p.want, matmul_tolerance(w, 1.0));
      EXPECT_TRUE(diff.empty()) << pieces << " tile ranges:\n" << diff;
    }
  }
}

// C after `k` ran on `p` in `pieces` ranges of its tiles, one call each, in order (B from `b`,
// else the problem's).
std::vector<float> run_in_ranges(const Kernel& k, const Problem& p, int64_t pieces, const float* b = nullptr) {
  std::vector<float> got = p.c0;
  for (int64_t part = 0; part < pieces; ++part) {
    AlignedFloats ws(k.workspace_floats);
    k.run(GemmArgs{p.a.data(), b ? b : p.b.data(), got.data(), p.bias_ptr(), ws.get(), k.tiles * part / pieces,
                   k.tiles * (part + 1) / pieces});
  }
  return got;
}

// `k` on `p` whole and in 2 and 3 ranges of its tiles (as many as it has), against the reference.
void expect_in_tile_ranges(const Workload& w, const Kernel& k, const Problem& p) {
  for (int64_t pieces = 1; pieces <= std::min<int64_t>(3, k.tiles); ++pieces) {
    const std::string diff = compare_c(w, run_in_ranges(k, p, pieces), p.want, matmul_tolerance(w, 1.0));
    EXPECT_TRUE(diff.empty()) << pieces << " tile ranges:\n" << diff;
  }
}

// As expect_in_tile_ranges, with the kernel reading a copy of B that starts `offset` floats
// past a line's start.
void expect_in_tile_ranges_with_b_at(const Workload& w, const Kernel& k, const Problem& p, int offset) {
  AlignedFloats b(int64_t(p.b.size()) + 16);
  std::copy(p.b.begin(), p.b.end(), b.get() + offset);
  for (int64_t pieces = 1; pieces <= std::min<int64_t>(3, k.tiles); ++pieces) {
    const std::vector<float> got = run_in_ranges(k, p, pieces, b.get() + offset);
    const std::string diff = compare_c(w, got, p.want, matmul_tolerance(w, 1.0));
    EXPECT_TRUE(diff.empty()) << "B at " << offset << " floats from a line, " << pieces << " tile ranges:\n" << diff;
  }
}

// `k` of a bucket of M called with each M from the least to the largest, against the reference.
void expect_each_bucket_call(const Workload& bucket, const Kernel& k, uint64_t seed) {
  const Problem p(bucket, seed);
  for (int64_t m = bucket.min_m; m <= bucket.m; ++m) {
    std::vector<float> got = p.c0;
    run_gemm_serial(k, p.a.data(), p.b.data(), p.bias_ptr(), got.data(), m);
    Workload called = bucket;
    called.m = m, called.min_m = 0;
    const std::vector<float> head(got.begin(), got.begin() + m * bucket.ldc),
        want(p.want.begin(), p.want.begin() + m * bucket.ldc);
    EXPECT_EQ(compare_c(called, head, want, matmul_tolerance(bucket, 1.0)), "") << "called with M = " << m;
  }
}

// A config of `w` with tiles of 4 rows as wide as the host's registers allow, and `rest`.
Config four_row_config(const Workload& w, const std::string& rest) {
  const int v = Target::host().vector_floats();
  return gemm_space(w, Target::host())
      .parse("mr=4 nr=" + std::to_string(test::widest_vectors(4) * v) + " vec=" + std::to_string(v) + " " + rest);
}

// The last N mod nr columns on the N-edge tile, N mod nr rounded up to whole vectors wide: on
// packed B (reading the first vectors of a padded panel) and on B read in place (moving left
// by less than a tile), in either tile order, whole and in ranges that split N, with bias,
// GELU and C accumulated into. B narrower than a tile runs every tile as N-edge tiles.
TEST(GemmCorrectness, NEdgeTile) {
  const int v = Target::host().vector_floats(), nv = test::widest_vectors(4);
  const Workload w = epi(mm(23, 2 * nv * v + v + 1, 45), true, kGelu, 1.0f);
  for (const std::string variant : {"pack_b=1 tiles=nm", "pack_b=0 tiles=nm", "pack_b=1 tiles=mn",
                                    "pack_b=0 tiles=mn"}) {
    const Config c = four_row_config(
        w, "kc=32 mc=96 nc=1536 pack_a=0 unroll=4 prefetch=0 prefetch_n=0 prefetch_c=0 order=nkm swap=0 c_buf=0 "
           "k_spread=0 split=n " + variant);
    SCOPED_TRACE(describe(w, &c));
    const KernelPtr k = compile_gemm(w, c);
    EXPECT_EQ(k->n_edge_columns, 2 * v);
    EXPECT_NE(k->n_edge_tile, k->tile);
    const Problem p(w, w.hash());
    for (int64_t pieces = 1; pieces <= 3; ++pieces) {
      const std::string diff = compare_c(w, run_in_ranges(*k, p, pieces), p.want, matmul_tolerance(w, 1.0));
      EXPECT_TRUE(diff.empty()) << pieces << " tile ranges:\n" << diff;
    }
  }
  const Workload narrow = mm(9, v + 3, 20);  // every tile an N-edge tile
  const Config c = four_row_config(narrow, "kc=32 mc=96 nc=1536 pack_a=0 pack_b=0 unroll=4 prefetch=0 prefetch_n=0 "
                                          "prefetch_c=0 order=nkm split=m tiles=nm swap=0 c_buf=0 k_spread=0");
  const KernelPtr k = compile_gemm(narrow, c);
  EXPECT_EQ(k->n_edge_columns, 2 * v);
  EXPECT_EQ(k->n_edge_tile, k->tile);
  const Problem p(narrow, 5);
  EXPECT_EQ(compare_c(narrow, run_in_ranges(*k, p, 1), p.want, matmul_tolerance(narrow, 1.0)), "");
}

// The N-edge tile where it saves a 64th of the columns computed: tiles of two vectors over
// N = 18 vectors and v - 3 columns compute 20 vectors without it, 19 with it (301³ on tiles of
// 32 ran 3–5% faster with it); over N = 140 vectors and one column it would save one in 142.
TEST(GemmCorrectness, NEdgeTileWhereItSavesA64th) {
  const int v = Target::host().vector_floats();
  const std::string rest = " vec=" + std::to_string(v) +
                           " kc=64 mc=96 nc=1536 pack_a=0 unroll=4 prefetch=0 prefetch_n=0 prefetch_c=1 order=nkm "
                           "split=m tiles=nm swap=0 c_buf=0 k_spread=0 pack_b=";
  for (const std::string pack_b : {"0", "1"}) {
    const Workload w = mm(37, 18 * v + v - 3, 41);
    const Config c = gemm_space(w, Target::host()).parse("mr=4 nr=" + std::to_string(2 * v) + rest + pack_b);
    SCOPED_TRACE(describe(w, &c));
    const KernelPtr k = compile_gemm(w, c);
    EXPECT_EQ(k->n_edge_columns, v);
    const Problem p(w, 11);
    EXPECT_EQ(compare_c(w, run_in_ranges(*k, p, 2), p.want, matmul_tolerance(w, 1.0)), "");

    const Workload wide = mm(5, 140 * v + 1, 9);
    const KernelPtr none =
        compile_gemm(wide, gemm_space(wide, Target::host()).parse("mr=4 nr=" + std::to_string(2 * v) + rest + pack_b));
    EXPECT_EQ(none->n_edge_columns, 0);
    EXPECT_EQ(none->n_edge_tile, nullptr);
  }
}

// A B of at most kDotNarrowColumns columns, narrower than the tile, with K at least
// kDotNarrowMinK long and rows enough to pay for B's copy (any rows from kDotContiguousMinK
// on, where B's rows lie one after another): the dot edge computes all of C, and neither the
// tiles nor the packing are compiled. Random configs (packing, orders, splits), B's rows
// padded, bias, GELU and C accumulated into, whole and in ranges of tiles. One column more, K
// one shorter, or too few rows for a shorter K or padded rows: tiles.
TEST(GemmCorrectness, NarrowBAllInTheDotEdge) {
  std::mt19937_64 rng(17);
  // Rows of B one after another (copied by permutes: every count of columns, each with a tail
  // of K past whole vectors but one), and padded rows (copied row by row).
  for (const Workload& w : {mm(37, 3, kDotNarrowMinK), mm(7, 7, 1000), epi(mm(3, 5, kDotContiguousMinK + 5), true, kGelu),
                            mm(2, 2, 111), mm(11, 4, 130), epi(mm(6, 6, 200), false, kRelu, 0.5f), mm(9, 8, 97),
                            epi(padded(mm(70, kDotNarrowColumns, 300)), true, kGelu, 1.0f),
                            epi(padded(mm(5, 1, 100)), false, ActivationKind::relu)}) {
    const Space space = gemm_space(w, Target::host());
    for (const Config& c : space.sample_distinct(rng, 12)) {
      SCOPED_TRACE(describe(w, &c));
      const KernelPtr k = compile_gemm(w, c);
      const GemmConfig g = GemmConfig::from(c);
      const bool narrower = w.n < g.nr && (4 * w.m * (g.vec - w.n) > 3 * w.n * g.vec ||
                                           (w.ldb == w.n && w.k >= kDotContiguousMinK));
      EXPECT_EQ(k->dot_edge_columns, narrower ? w.n : 0);
      if (narrower) {
        EXPECT_EQ(k->tile, nullptr);
        EXPECT_EQ(k->pack_a, nullptr);
        EXPECT_EQ(k->pack_b, nullptr);
      }
      const Problem p(w, w.hash());
      for (int64_t pieces = 1; pieces <= 2; ++pieces) {
        const std::string diff = compare_c(w, run_in_ranges(*k, p, pieces), p.want, matmul_tolerance(w, 1.0));
        EXPECT_TRUE(diff.empty()) << pieces << " tile ranges:\n" << diff;
      }
    }
  }
  const std::string rest = "kc=64 mc=96 nc=1536 pack_a=0 pack_b=0 unroll=4 prefetch=0 prefetch_n=0 prefetch_c=0 "
                           "order=nkm split=m tiles=nm swap=0 c_buf=0 k_spread=0";
  EXPECT_EQ(compile_gemm(mm(24, 4, 1024), four_row_config(mm(24, 4, 1024), rest))->dot_edge_columns, 4);
  const Workload contiguous = mm(7, 7, kDotContiguousMinK);
  EXPECT_EQ(compile_gemm(contiguous, four_row_config(contiguous, rest))->dot_edge_columns, 7);
  for (const Workload& w : {mm(37, kDotNarrowColumns + 1, 40), mm(37, 3, kDotNarrowMinK - 1),
                            mm(7, 7, kDotContiguousMinK - 1), padded(mm(7, 7, 1000))}) {
    const KernelPtr k = compile_gemm(w, four_row_config(w, rest));
    EXPECT_EQ(k->dot_edge_columns, 0) << w.text();
    EXPECT_TRUE(k->tile != nullptr || k->whole_call != nullptr) << w.text();
  }
}

// M's short remainder merged with the tiles above it (balanced_edge_rows): on tiles of 4 rows
// M = 37 ends in 3 tiles of 3 rows instead of one of 1. On packed B and B read in place
// (moving left at the N edge), in either tile order, with bias, GELU and C accumulated into,
// whole and in ranges of tiles; and where the last block keeps too few whole tiles to merge
// with (blocks of 16 rows: 5 left), the remainder's own tile. Not with A packed (panels of mr
// rows), a bucket of M, or a remainder that keeps the FMA units busy.
TEST(GemmCorrectness, BalancedEdgeRows) {
  const int v = Target::host().vector_floats(), nv = test::widest_vectors(4);
  const Workload w = epi(padded(mm(37, 2 * nv * v + v + 1, 45)), true, kGelu, 1.0f);
  const std::string rest = "kc=32 unroll=4 prefetch=0 prefetch_n=0 prefetch_c=0 order=nkm swap=0 c_buf=0 "
                           "k_spread=0 pack_a=0 ";
  for (const std::string blocks : {"mc=96 nc=1536", "mc=16 nc=1536"})
    for (const std::string variant : {"pack_b=1 split=m tiles=nm", "pack_b=0 split=m tiles=nm",
                                      "pack_b=1 split=n tiles=mn", "pack_b=0 split=m tiles=mn"}) {
      const Config c = four_row_config(w, rest + blocks + " " + variant);
      SCOPED_TRACE(describe(w, &c));
      const KernelPtr k = compile_gemm(w, c);
      EXPECT_EQ(k->balanced_rows, 3);
      EXPECT_NE(k->edge_tiles[3], nullptr);
      EXPECT_NE(k->edge_tiles[1], nullptr);
      const Problem p(w, w.hash());
      for (int64_t pieces = 1; pieces <= 3; ++pieces) {
        const std::string diff = compare_c(w, run_in_ranges(*k, p, pieces), p.want, matmul_tolerance(w, 1.0));
        EXPECT_TRUE(diff.empty()) << pieces << " tile ranges:\n" << diff;
      }
    }
  // The walk of a small kernel, planned once: the last rows run as 3 tiles of 3.
  const Workload small = mm(37, 2 * nv * v, 30);  // one K block
  const KernelPtr k = compile_gemm(small, four_row_config(small, rest + "mc=96 nc=1536 pack_b=0 split=m tiles=nm"));
  ASSERT_FALSE(k->plan.empty());
  int64_t balanced_tiles = 0, one_row_calls = 0;
  for (const PlannedCall& call : k->plan) {
    if (call.tile == k->edge_tiles[3]) balanced_tiles += call.count;
    if (call.tile == k->edge_tiles[1]) ++one_row_calls;
  }
  EXPECT_EQ(balanced_tiles, 3);
  EXPECT_EQ(one_row_calls, 0);
  const Problem p(small, 3);
  EXPECT_EQ(compare_c(small, run_in_ranges(*k, p, 1), p.want, matmul_tolerance(small, 1.0)), "");

  EXPECT_EQ(compile_gemm(w, four_row_config(w, "kc=32 unroll=4 prefetch=0 prefetch_n=0 prefetch_c=0 order=nkm swap=0 "
                                               "c_buf=0 k_spread=0 pack_a=1 mc=96 nc=1536 pack_b=1 split=m tiles=nm"))
                ->balanced_rows,
            0);
  const Config plain = four_row_config(w, rest + "mc=96 nc=1536 pack_b=1 split=m tiles=nm");
  const GemmConfig g = GemmConfig::from(plain);
  Workload bucket = mm(37, 64, 45);
  bucket.min_m = 20;
  EXPECT_EQ(balanced_edge_rows(bucket, g), 0);
  EXPECT_EQ(balanced_edge_rows(mm(39, 64, 45), g), 0) << "a remainder of mr - 1 rows is that tile already";
  EXPECT_EQ(balanced_edge_rows(mm(5, 64, 45), g), 0) << "one whole tile: too few to merge with";
}

// A small kernel's whole call replays the calls its driver's walk made once (Kernel::plan), or
// at most kWholeCallFlops is that plan generated as one function (Kernel::whole_call): tiles of
// every kind (edge rows, the N-edge tile, B narrower than a tile, the dot form on B
// transposed, the dot edge and its copy of B's columns), the epilogue on groups of tiles, C
// accumulated into; against the reference and element for element against the walk itself:
// the kernel in tile ranges, or a bucket of M, which has neither, at its largest M. A dot
// edge's copy goes to the workspace, which a whole call does not take: its plan is replayed.
// Kernels whose walk packs or runs many calls have no plan.
TEST(GemmCorrectness, PlannedCalls) {
  const int v = Target::host().vector_floats(), nv = test::widest_vectors(4);
  const std::string rest = "kc=64 mc=96 nc=1536 pack_a=0 unroll=4 prefetch=0 prefetch_n=0 prefetch_c=0 order=nkm "
                           "swap=0 c_buf=0 k_spread=0 ";
  const Workload edges = epi(padded(mm(37, 2 * nv * v + v + 1, 45)), true, kGelu, 1.0f);
  struct Case {
    Workload w;
    std::string variant;
  };
  for (const Case& t : {Case{edges, "pack_b=0 split=m tiles=nm"},
                        Case{epi(mm(10, 2 * nv * v + v + 1, 45), false, kNone, 1.0f), "pack_b=0 split=n tiles=mn"},
                        Case{mm(9, v + 3, 20), "pack_b=0 split=m tiles=nm"},
                        Case{mm(9, v + 3, 3), "pack_b=0 split=m tiles=nm"},
                        Case{epi(mm(13, 3 * v - 5, 70, true), true, kRelu, 0.0f), "pack_b=0 split=m tiles=nm"},
                        Case{epi(mm(20, 24, 9), false, kRelu, 0.5f), "pack_b=0 split=n tiles=nm"},
                        Case{epi(mm(7, 2 * v + 1, 1), true, kGelu, 1.0f), "pack_b=0 split=m tiles=nm"},
                        Case{epi(mm(23, 2 * nv * v + 3, 40), true, kGelu, 1.0f), "pack_b=0 split=m tiles=nm"},
                        Case{epi(mm(5, nv * v + 2, 20), true, kRelu, 0.5f), "pack_b=0 split=m tiles=nm"}}) {
    const Config c = four_row_config(t.w, rest + t.variant);
    SCOPED_TRACE(describe(t.w, &c));
    const KernelPtr k = compile_gemm(t.w, c);
    const bool whole = t.w.m * t.w.n * t.w.k <= kWholeCallFlops && k->dot_edge_columns == 0;
    EXPECT_EQ(k->whole_call != nullptr, whole);
    EXPECT_EQ(k->plan.empty(), whole);
    const Problem p(t.w, t.w.hash());
    const std::vector<float> replayed = run_in_ranges(*k, p, 1);
    EXPECT_EQ(compare_c(t.w, replayed, p.want, matmul_tolerance(t.w, 1.0)), "");
    Workload bucket = t.w;
    bucket.min_m = t.w.m - 1;
    const KernelPtr walker = whole ? compile_gemm(bucket, c) : k;
    EXPECT_EQ(walker->whole_call, nullptr);
    if (walker->tiles < 2) continue;
    const std::vector<float> walked = run_in_ranges(*walker, p, 2);
    int64_t differ = 0;
    for (size_t at = 0; at < walked.size(); ++at) differ += walked[at] != replayed[at];
    EXPECT_EQ(differ, 0) << "elements differ between the replayed plan and the walk";
  }
  auto plan_of = [&](const Workload& w, const std::string& variant) {
    return compile_gemm(w, four_row_config(w, rest + variant))->plan;
  };
  EXPECT_TRUE(plan_of(edges, "pack_b=1 split=m tiles=nm").empty()) << "packs B";
  const std::vector<PlannedCall> dot_edge = plan_of(mm(23, 2 * nv * v + 3, 40), "pack_b=0 split=m tiles=nm");
  EXPECT_EQ(std::count_if(dot_edge.begin(), dot_edge.end(), [](const PlannedCall& p) { return p.column_runs; }), 1);
  EXPECT_EQ(std::count_if(dot_edge.begin(), dot_edge.end(), [](const PlannedCall& p) { return p.b_in_workspace; }), 1);
  EXPECT_TRUE(plan_of(edges, "pack_b=0 split=n tiles=mn").empty()) << "a call and an epilogue per tile: too many";
  EXPECT_TRUE(plan_of(mm(520, 520, 16), "pack_b=0 split=m tiles=nm").empty()) << "C past the largest operand";
}

// Tiles walking along C's rows (tiles=mn): one call per row of tiles runs its whole panels,
// another its N edge, and the epilogue covers the row's panels; with C's lines fetched ahead
// along the rows (prefetch_c 2) or not, on packed B and B read in place, edge rows, in ranges
// that split M or N, with bias, GELU and C accumulated into.
TEST(GemmCorrectness, TilesAlongRows) {
  const int v = Target::host().vector_floats(), nv = test::widest_vectors(4);
  const Workload w = epi(padded(mm(23, 3 * nv * v + v + 1, 5)), true, kGelu, 1.0f);
  for (const std::string variant : {"pack_b=1 split=m prefetch_c=2", "pack_b=0 split=m prefetch_c=2",
                                    "pack_b=1 split=n prefetch_c=0", "pack_b=0 split=n prefetch_c=2"}) {
    const Config c = four_row_config(
        w, "kc=8 mc=96 nc=1536 pack_a=0 unroll=4 prefetch=0 prefetch_n=0 order=nkm swap=0 c_buf=0 "
           "k_spread=0 tiles=mn " + variant);
    SCOPED_TRACE(describe(w, &c));
    const KernelPtr k = compile_gemm(w, c);
    const Problem p(w, w.hash());
    for (int64_t pieces = 1; pieces <= 3; ++pieces) {
      const std::string diff = compare_c(w, run_in_ranges(*k, p, pieces), p.want, matmul_tolerance(w, 1.0));
      EXPECT_TRUE(diff.empty()) << pieces << " tile ranges:\n" << diff;
    }
  }
  EXPECT_THROW(four_row_config(w, "kc=8 mc=96 nc=1536 pack_a=0 pack_b=1 unroll=4 prefetch=0 prefetch_n=0 "
                                 "prefetch_c=2 order=nkm swap=0 c_buf=0 k_spread=0 split=m tiles=nm"),
               std::invalid_argument)
      << "fetching C ahead along the rows needs tiles that walk along them";
}

// The last N mod nr columns, up to half a vector, on the dot edge after the blocked walk:
// copied from B as runs along K (B transposed and packed: its rows read where they lie), in
// ranges that split M or N (only the range that ends at N has them), on B read in place with
// the aligned grid's shift, with bias, GELU and C accumulated into.
TEST(GemmCorrectness, DotEdge) {
  const int v = Target::host().vector_floats(), nv = test::widest_vectors(4), most = dot_edge_most_columns(v);
  // 3 columns and the most (on K long enough for them), on 23 rows: groups of up to 4 and a
  // last one of 3 (3 of 3 columns and 2, of 8); 6 rows in ranges: fewer than a group, or two.
  for (const auto& [m, trans_b, edge, k] : {std::tuple{23, false, 3, 45}, {23, true, 3, 45}, {6, false, 3, 45},
                                            {23, false, most, 77}, {23, true, most, 77}, {6, false, most, 77}}) {
    Workload w = epi(mm(m, 16 * nv * v + edge, k, trans_b), true, kGelu, 0.5f);
    if (!trans_b) w.ldb = w.n + 16 - w.n % 16;  // rows a whole number of lines apart: the grid shifts
    const Problem p(w, w.hash());
    for (const std::string variant : {"pack_b=1 split=m tiles=nm", "pack_b=0 split=n tiles=nm",
                                      "pack_b=1 split=n tiles=mn", "pack_b=0 split=m tiles=mn"}) {
      if (trans_b && variant.find("pack_b=0") != std::string::npos) continue;  // the dot form
      const Config c = four_row_config(
          w, "kc=32 mc=96 nc=384 pack_a=0 unroll=4 prefetch=0 prefetch_n=0 prefetch_c=0 order=nkm swap=0 c_buf=0 "
             "k_spread=0 " + variant);
      SCOPED_TRACE(describe(w, &c));
      const KernelPtr k = compile_gemm(w, c);
      EXPECT_EQ(k->dot_edge_columns, edge);
      EXPECT_EQ(k->n_edge_tile, nullptr);
      for (int64_t pieces = 1; pieces <= 3; ++pieces) {
        AlignedFloats b(int64_t(p.b.size()) + 16);
        std::copy(p.b.begin(), p.b.end(), b.get() + 5);  // B 5 floats past a line
        const std::string diff = compare_c(w, run_in_ranges(*k, p, pieces, b.get() + 5), p.want,
                                           matmul_tolerance(w, 1.0));
        EXPECT_TRUE(diff.empty()) << pieces << " tile ranges:\n" << diff;
      }
    }
  }
  // K too short, or a column more than the most: the N-edge tile runs those columns, a vector
  // wide. 5..8 columns need the longer K (on 8 lanes the most is 4).
  const std::string rest = "kc=32 mc=96 nc=384 pack_a=0 pack_b=0 unroll=4 prefetch=0 prefetch_n=0 prefetch_c=0 "
                           "order=nkm swap=0 c_buf=0 k_spread=0 split=m tiles=nm";
  for (const auto& [k, edge, dot] :
       {std::tuple{kDotEdgeMinK - 1, 3, false}, {kDotEdgeMinK, 3, true}, {kDotEdgeWideMinK, most + 1, false},
        {kDotEdgeWideMinK - 1, most, most <= 4}, {kDotEdgeWideMinK, most, true}}) {
    const Workload w = mm(23, 2 * nv * v + edge, k);
    const KernelPtr kernel = compile_gemm(w, four_row_config(w, rest));
    EXPECT_EQ(kernel->dot_edge_columns, dot ? edge : 0) << w.text();
    EXPECT_EQ(kernel->n_edge_columns, dot ? 0 : v) << w.text();
    const Problem p(w, w.hash());
    EXPECT_EQ(compare_c(w, run_in_ranges(*kernel, p, 2), p.want, matmul_tolerance(w, 1.0)), "") << w.text();
  }
}

// B read in place from a buffer at any offset from a cache line: on wide B the tiles start
// where the lines of B start, after one tile that writes only the columns before them; the
// last tile of every range moves left. Each offset, whole and split into ranges, tiles in
// either order, with and without the prefetch along B's rows, with bias, GELU and C
// accumulated into.
TEST(GemmCorrectness, InPlaceBAtAnyOffset) {
  const int v = Target::host().vector_floats();
  Workload w = epi(mm(5, 48 * v + 7, 33), true, kGelu, 1.0f);
  w.ldb = w.n + 16 - w.n % 16;  // rows a whole number of lines apart: one misalignment for all
  const Problem p(w, w.hash());
  for (const std::string variant : {"split=m tiles=nm prefetch_n=0", "split=n tiles=nm prefetch_n=64",
                                    "split=n tiles=mn prefetch_n=0", "split=m tiles=mn prefetch_n=128"}) {
    const Config c = gemm_space(w, Target::host())
                         .parse("mr=4 nr=" + std::to_string(v) + " vec=" + std::to_string(v) +
                                " kc=16 mc=96 nc=256 pack_a=0 pack_b=0 unroll=4 prefetch=0 prefetch_c=0 order=nkm "
                                "swap=0 c_buf=0 k_spread=0 " +
                                variant);
    SCOPED_TRACE(describe(w, &c));
    const KernelPtr k = compile_gemm(w, c);
    for (int offset = 0; offset < 16; ++offset) expect_in_tile_ranges_with_b_at(w, *k, p, offset);
  }
}

// The partial sums of one band of tiles kept in the workspace between K blocks (c_buf), added
// into C after the last: K a multiple of kc and not (a shorter last block), a padded C, beta
// (C's own values added once, not per block), bias and activation applied after the sums are
// in; both loop orders over the blocks; whole and in tile ranges of either split (each range
// its own buffer, from its first column).
TEST(GemmCorrectness, PartialSumsBuffer) {
  const int v = Target::host().vector_floats();
  Workload padded_c = epi(mm(8, 14 * v, 100), true, kGelu, 0.5f);
  padded_c.ldc = padded_c.n + 5;
  for (const Workload& w : {padded_c, mm(8, 8 * v, 256), epi(mm(3, 10 * v, 77), false, kRelu, 1.0f)}) {
    const Space space = gemm_space(w, Target::host());
    // Two vectors wide where the registers hold the tile (AVX-512), else one (AVX2, 8 rows).
    const int nr = (tile_fits_registers(int(w.m), 2, Target::host().vector_registers()) ? 2 : 1) * v;
    for (const std::string variant : {"kc=8 unroll=8 prefetch_n=128 order=knm split=n",
                                      "kc=32 unroll=4 prefetch_n=0 order=nkm split=n",
                                      "kc=16 unroll=2 prefetch_n=256 order=knm split=m"}) {
      const Config c = space.parse("mr=" + std::to_string(w.m) + " nr=" + std::to_string(nr) + " vec=" +
                                   std::to_string(v) + " mc=96 nc=64"
                                   " pack_a=0 pack_b=0 prefetch=0 prefetch_c=0 tiles=nm swap=0 c_buf=1 "
                                   "k_spread=0 " + variant);
      SCOPED_TRACE(describe(w, &c));
      const Problem p(w, w.hash());
      const KernelPtr k = compile_gemm(w, c);
      expect_in_tile_ranges(w, *k, p);
    }
  }
}

// The K steps of a block spread over K (k_spread): one row of A, block j taking row j of each
// of kc segments. Segments of 3 to 32 rows; N not whole tiles (the edge tile moves left), a
// padded B and C, B off a line's start (the aligned grid's first block), C accumulated into,
// bias and activation; the loop orders whose fetch along B's rows wraps into the next block
// and one that does not; the buffer of partial sums; whole and in tile ranges of either split.
TEST(GemmCorrectness, SpreadKBlocks) {
  const int v = Target::host().vector_floats();
  for (const Workload& w : {epi(padded(mm(1, 20 * v + 3, 96)), true, kGelu, 0.5f), mm(1, 32 * v, 256),
                            epi(mm(1, 17 * v, 48), false, kRelu, 1.0f)}) {
    const Space space = gemm_space(w, Target::host());
    const Problem p(w, w.hash());
    for (const std::string variant : {"kc=8 unroll=8 prefetch_n=128 order=knm split=n c_buf=0",
                                      "kc=16 unroll=4 prefetch_n=256 order=nkm split=m c_buf=0",
                                      "kc=8 unroll=2 prefetch_n=64 order=nmk split=n c_buf=0",
                                      "kc=16 unroll=8 prefetch_n=0 order=knm split=m c_buf=1"}) {
      if (variant.ends_with("c_buf=1") && w.n % (2 * v) != 0) continue;  // the buffer holds whole tiles
      const Config c = space.parse("mr=1 nr=" + std::to_string(2 * v) + " vec=" + std::to_string(v) +
                                   " mc=96 nc=128 pack_a=0 pack_b=0 prefetch=0 prefetch_c=0 tiles=nm swap=0"
                                   " k_spread=1 " + variant);
      SCOPED_TRACE(describe(w, &c));
      const GemmConfig g = GemmConfig::from(c);
      EXPECT_EQ(tile_spec(w, g).k_stride, w.k / g.kc);
      const KernelPtr k = compile_gemm(w, c);
      for (const int offset : {0, 5}) expect_in_tile_ranges_with_b_at(w, *k, p, offset);
    }
  }
}

// B transposed read in place: the dot tile. Heights with and without edge tiles in M, N not
// a multiple of its column groups (the last columns one by one) or of nr, K not a multiple of
// the vector (the masked step) and in several blocks (C added to), blocks up to the longest,
// a padded B, the K loop unrolled, the next rows fetched ahead, bias, activation and C
// accumulated into; whole and in tile ranges of either split.
TEST(GemmCorrectness, TransposedBInPlace) {
  const int v = Target::host().vector_floats();
  int tallest_dot = 8;  // 8 rows on AVX-512's 32 registers, 7 on AVX2's 16
  while (dot_columns(tallest_dot, Target::host().vector_registers()) < 1) --tallest_dot;
  for (const Workload& w : {epi(padded(mm(7, 45, 83, true)), true, kGelu, 1.0f), mm(1, 200, 300, true),
                            epi(mm(8, 3 * v + 5, 2 * v, true), false, kRelu, 0.5f), mm(13, 1, 17, true),
                            mm(3, 37, 4099, true)}) {
    const Space space = gemm_space(w, Target::host());
    const std::pair<int, std::string> variants[] = {{1, "unroll=1 kc=1024 prefetch_n=0 split=m tiles=nm"},
                                                    {3, "unroll=4 kc=32 prefetch_n=256 split=n tiles=mn"},
                                                    {4, "unroll=2 kc=64 prefetch_n=64 split=m tiles=mn"},
                                                    {tallest_dot, "unroll=1 kc=16 prefetch_n=0 split=n tiles=nm"},
                                                    {2, "unroll=2 kc=4096 prefetch_n=128 split=m tiles=nm"}};
    for (const auto& [mr, variant] : variants) {
      if (mr > w.m) continue;
      const Config c = space.parse("mr=" + std::to_string(mr) + " " + variant + " nr=" + std::to_string(2 * v) +
                                   " vec=" + std::to_string(v) +
                                   " mc=168 nc=128 pack_a=0 pack_b=0 prefetch=0 prefetch_c=0 order=knm swap=0 c_buf=0 "
                                   "k_spread=0");
      SCOPED_TRACE(describe(w, &c));
      const Problem p(w, w.hash());
      const KernelPtr k = compile_gemm(w, c);
      expect_in_tile_ranges(w, *k, p);
    }
  }
}

// The swapped form: C^T = B·A^T computed into the workspace an M block at a time and written
// into C transposed. M of one row, of an edge tile and of a dot edge in the computed product
// (66 = 64 + 2), at the largest; N of edge tiles and not a multiple of the vector (the
// transposing write's last lanes); K in several blocks; blocks of fewer rows than a thread's
// range; padded operands, bias, activations and C accumulated into; whole and in tile ranges.
TEST(GemmCorrectness, SwappedForm) {
  const int v = Target::host().vector_floats();
  for (const Workload& w : {epi(padded(mm(37, 45, 83, true)), true, kGelu, 1.0f), mm(1, 200, 300, true),
                            epi(mm(17, 3 * v + 5, 2 * v, true), false, kRelu, 0.5f), mm(66, 70, 33, true),
                            epi(mm(kSwapMaxRows, 129, 1100, true), true, kNone)}) {
    const Space space = gemm_space(w, Target::host());
    // B's rows (the product's A) fetched ahead or not.
    const std::pair<int, std::string> variants[] = {
        {4, "kc=32 mc=16 nc=128 unroll=4 order=nkm tiles=nm prefetch_n=0"},
        {3, "kc=1024 mc=96 nc=256 unroll=1 order=mnk tiles=mn prefetch_n=128"},
        {8, "kc=64 mc=48 nc=64 unroll=2 order=kmn tiles=nm prefetch_n=512"}};
    for (const auto& [mr, variant] : variants) {
      // Two vectors wide where the rows leave room (8 rows on AVX2's 16 registers: one).
      const int nr = std::min(2, test::widest_vectors(mr)) * v;
      const Config c = space.parse("mr=" + std::to_string(mr) + " nr=" + std::to_string(nr) + " vec=" +
                                   std::to_string(v) + " " + variant +
                                   " pack_a=0 pack_b=1 prefetch=0 prefetch_c=0 split=m swap=1 c_buf=0 k_spread=0");
      SCOPED_TRACE(describe(w, &c));
      const Problem p(w, w.hash());
      const KernelPtr k = compile_gemm(w, c);
      EXPECT_EQ(k->computed, swapped_workload(w));
      EXPECT_FALSE(k->takes_packed_b());  // its pack packs A
      expect_in_tile_ranges(w, *k, p);
    }
  }
}

// Only where it applies: B transposed, M (a bucket's largest) at most kSwapMaxRows, B read in
// place.
TEST(GemmCorrectness, SwappedFormWhereItApplies) {
  const int v = Target::host().vector_floats();
  const std::string rest = "mr=4 nr=" + std::to_string(2 * v) + " vec=" + std::to_string(v) +
                           " kc=32 mc=16 nc=128 unroll=4 order=nkm tiles=nm prefetch=0 prefetch_n=0 prefetch_c=0 "
                           "split=m swap=1 c_buf=0 k_spread=0";
  auto valid = [&](const Workload& w, const std::string& packs) {
    try {
      gemm_space(w, Target::host()).parse(rest + " " + packs);  // throws where not valid
      return true;
    } catch (const std::invalid_argument&) {
      return false;
    }
  };
  Workload bucket = mm(64, 100, 50, true);
  bucket.min_m = 33;
  EXPECT_TRUE(valid(mm(64, 100, 50, true), "pack_a=0 pack_b=1"));
  EXPECT_FALSE(valid(mm(64, 100, 50, true), "pack_a=0 pack_b=0"));
  EXPECT_FALSE(valid(mm(64, 100, 50, true), "pack_a=1 pack_b=1"));
  EXPECT_FALSE(valid(mm(64, 100, 50, false), "pack_a=0 pack_b=1"));
  EXPECT_FALSE(valid(mm(kSwapMaxRows + 1, 100, 50, true), "pack_a=0 pack_b=1"));
  EXPECT_TRUE(valid(bucket, "pack_a=0 pack_b=1"));
}

// The swapped form where C^T's rows are narrower than the tile: groups of `phases` lanes hold
// consecutive k of one column and are summed at the tile's end. Every power of two from 2 to
// 16, K in one block and in several (with a K loop tail of groups: K = 48 in blocks of 32 is
// 2 groups of 16 and 1, unrolled 4 times), with and without the prefetches (along K, and
// along B's rows, the product's A, at every step or once per line), padded operands, bias,
// activations, C accumulated into, whole and in tile ranges; and a bucket of M, whose calls
// pack zero columns past their M.
TEST(GemmCorrectness, SwappedFormWithPhases) {
  if (!Target::host().avx512) GTEST_SKIP() << "phases are for AVX-512";
  struct Case {
    Workload w;
    int nr, phases;
  };
  for (const Case& t : {Case{epi(padded(mm(8, 45, 96, true)), true, kGelu, 1.0f), 16, 2},
                        Case{mm(8, 70, 64, true), 32, 4}, Case{epi(mm(8, 33, 128, true), false, kRelu, 0.5f), 64, 8},
                        Case{mm(1, 37, 48, true), 16, 16}, Case{mm(2, 50, 96, true), 32, 16},
                        Case{epi(mm(16, 129, 40, true), true, kNone), 32, 2},
                        // Over the power of two above M: its last columns zeros.
                        Case{epi(padded(mm(7, 45, 96, true)), true, kGelu, 1.0f), 32, 4}, Case{mm(5, 70, 64, true), 32, 4},
                        Case{epi(mm(13, 50, 128, true), false, kRelu, 0.5f), 32, 2}, Case{mm(3, 37, 64, true), 32, 8}}) {
    const Workload& w = t.w;
    const Space space = gemm_space(w, Target::host());
    for (const std::string variant : {"kc=1024 unroll=2 order=nkm prefetch=0 prefetch_n=64 prefetch_c=0 tiles=nm",
                                      "kc=32 unroll=4 order=kmn prefetch=4 prefetch_n=0 prefetch_c=1 tiles=mn",
                                      "kc=64 unroll=1 order=mkn prefetch=0 prefetch_n=512 prefetch_c=1 tiles=nm"}) {
      const Config c = space.parse("mr=4 nr=" + std::to_string(t.nr) + " vec=16 mc=48 nc=128 " + variant +
                                   " pack_a=0 pack_b=1 split=m swap=1 c_buf=0 k_spread=0");
      SCOPED_TRACE(describe(w, &c));
      const KernelPtr k = compile_gemm(w, c);
      ASSERT_EQ(gemm_phases(k->computed, GemmConfig::from(c)), t.phases);
      EXPECT_EQ(k->columns_per_tile, int64_t(std::bit_ceil(uint64_t(w.m))));
      const Problem p(w, w.hash());
      expect_in_tile_ranges(w, *k, p);
    }
  }
  Workload bucket = mm(8, 60, 64, true);
  bucket.min_m = 5;
  const Config c = gemm_space(bucket, Target::host())
                       .parse("mr=6 nr=32 vec=16 kc=32 mc=48 nc=128 unroll=4 order=nkm pack_a=0 pack_b=1 prefetch=0 "
                              "prefetch_n=0 prefetch_c=0 tiles=nm split=m swap=1 c_buf=0 k_spread=0");
  const KernelPtr k = compile_gemm(bucket, c);
  ASSERT_EQ(gemm_phases(k->computed, GemmConfig::from(c)), 4);
  expect_each_bucket_call(bucket, *k, 11);
}

// Interleaved tiles (swapped): a tile's rows 8 apart, the next tile one row on, a group of 8
// tiles per threading tile; with and without phases, epilogues, beta and padded rows, in
// 1..3 ranges of groups. Only where the groups and one tile over K and C^T's columns fit.
TEST(GemmCorrectness, SwappedFormInterleaved) {
  if (!Target::host().avx512) GTEST_SKIP() << "the swapped form is for AVX-512";
  struct Case {
    Workload w;
    int mr, nr, mc;
  };
  for (const Case& t : {Case{epi(padded(mm(8, 192, 96, true)), true, kGelu, 1.0f), 8, 32, 192},
                        Case{mm(5, 128, 64, true), 4, 32, 96}, Case{epi(mm(3, 256, 96, true), false, kRelu, 0.5f), 4, 48, 96},
                        Case{epi(mm(16, 64, 40, true), true, kNone), 8, 32, 64}, Case{mm(12, 96, 64, true), 4, 16, 96}}) {
    const Workload& w = t.w;
    const Config c = gemm_space(w, Target::host())
                         .parse("mr=" + std::to_string(t.mr) + " nr=" + std::to_string(t.nr) + " vec=16 kc=128 mc=" +
                                std::to_string(t.mc) + " nc=" + std::to_string(4 * t.nr) +
                                " unroll=4 order=nkm pack_a=0 pack_b=1 prefetch=0 prefetch_n=64 prefetch_c=0 "
                                "tiles=interleaved split=m swap=1 c_buf=0 k_spread=0");
    SCOPED_TRACE(describe(w, &c));
    const KernelPtr k = compile_gemm(w, c);
    EXPECT_EQ(k->tiles, w.n / (t.mr * kInterleavedRows));
    const Problem p(w, w.hash());
    expect_in_tile_ranges(w, *k, p);
  }
  // A bucket of M: a call's rows bound the columns of C^T the tiles compute.
  Workload bucket = mm(8, 128, 64, true);
  bucket.min_m = 5;
  const Config bucketed = gemm_space(bucket, Target::host())
                              .parse("mr=8 nr=32 vec=16 kc=64 mc=64 nc=64 unroll=4 order=nkm pack_a=0 pack_b=1 "
                                     "prefetch=0 prefetch_n=0 prefetch_c=0 tiles=interleaved split=m swap=1 c_buf=0 "
                                     "k_spread=0");
  expect_each_bucket_call(bucket, *compile_gemm(bucket, bucketed), 12);
  const auto valid = [](const Workload& w, int kc, int mc, TileOrder tiles, bool swap) {
    GemmConfig g;
    g.mr = 8, g.nr = 32, g.vec = 16, g.kc = kc, g.mc = mc, g.nc = 64, g.pack_a = false, g.pack_b = true;
    g.unroll = 4, g.prefetch = g.prefetch_n = g.prefetch_c = 0, g.order = LoopOrder::nkm, g.split = Split::m;
    g.tiles = tiles, g.swap = swap;
    return gemm_space(w, Target::host()).valid(g.to_config(Target::host()));
  };
  const TileOrder interleaved = TileOrder::interleaved;
  EXPECT_TRUE(valid(mm(8, 128, 64, true), 64, 64, interleaved, true));
  EXPECT_FALSE(valid(mm(8, 96, 64, true), 64, 64, interleaved, true));    // 96 rows of B: not whole groups of 64
  EXPECT_FALSE(valid(mm(8, 128, 64, true), 64, 96, interleaved, true));   // blocks of 96
  EXPECT_FALSE(valid(mm(8, 128, 128, true), 64, 64, interleaved, true));  // two K blocks
  EXPECT_FALSE(valid(mm(40, 128, 64, true), 64, 64, interleaved, true));  // 40 columns over a tile of 32
  EXPECT_TRUE(valid(mm(128, 64, 64), 64, 64, TileOrder::nm, false));
  EXPECT_FALSE(valid(mm(128, 64, 64), 64, 64, interleaved, false));
}

// Phases only where they apply: a tile of exactly M columns of powers of two lanes each, else
// of the power of two above M; K and kc multiples of them; there K blocks may be as long as
// the dot form's.
TEST(GemmCorrectness, PhasesWhereTheyApply) {
  const auto phases = [](const Workload& w, const std::string& knobs) {
    const GemmConfig g = GemmConfig::from(gemm_space(w, Target::host()).parse(
        "mr=4 vec=16 mc=48 nc=192 unroll=1 order=nkm pack_a=0 pack_b=1 prefetch=0 prefetch_n=0 prefetch_c=0 "
        "tiles=nm split=m " + knobs));
    return gemm_phases(computed_workload(w, g), g);
  };
  if (!Target::host().avx512) GTEST_SKIP() << "phases are for AVX-512";
  EXPECT_EQ(phases(mm(8, 64, 64, true), "nr=32 kc=64 swap=1 c_buf=0 k_spread=0"), 4);
  EXPECT_EQ(phases(mm(8, 64, 64, true), "nr=32 kc=64 swap=0 c_buf=0 k_spread=0"), 1);
  EXPECT_EQ(phases(mm(8, 64, 64, true), "nr=48 kc=64 swap=1 c_buf=0 k_spread=0"), 1);  // 6 lanes a column
  EXPECT_EQ(phases(mm(8, 64, 66, true), "nr=32 kc=64 swap=1 c_buf=0 k_spread=0"), 1);  // K not a multiple of 4
  EXPECT_EQ(phases(mm(1, 64, 64, true), "nr=16 kc=8 swap=1 c_buf=0 k_spread=0"), 1);   // kc not a multiple of 16
  EXPECT_EQ(phases(mm(5, 64, 64, true), "nr=16 kc=64 swap=1 c_buf=0 k_spread=0"), 2);   // 8 columns, 3 of them zeros
  EXPECT_EQ(phases(mm(3, 64, 64, true), "nr=48 kc=64 swap=1 c_buf=0 "
                                        "k_spread=0"), 16);  // exactly M before the power of two
  EXPECT_EQ(phases(mm(20, 64, 64, true), "nr=32 kc=64 swap=1 c_buf=0 k_spread=0"), 1);  // 32 columns: no room
  EXPECT_EQ(phases(mm(8, 64, 4096, true), "nr=32 kc=4096 swap=1 c_buf=0 k_spread=0"), 4);
  EXPECT_THROW(phases(mm(8, 64, 4096, true), "nr=48 kc=4096 swap=1 c_buf=0 k_spread=0"), std::invalid_argument);
}

// Tiles of ymm vectors on an AVX-512 host (N narrow enough that zmm would compute many more
// columns): B read in place (masked loads past N) and packed (panels padded to the tile),
// with edge tiles in M, bias, activation and C accumulated into, whole and in tile ranges.
TEST(GemmCorrectness, HalfWidthVectors) {
  if (!Target::host().avx512) GTEST_SKIP() << "AVX2 has one vector width";
  for (const Workload& w : {epi(padded(mm(37, 17, 50)), true, kGelu, 1.0f), mm(6, 5, 40),
                            epi(mm(13, 40, 70), false, kRelu, 0.5f), epi(mm(20, 24, 9), true, kNone, 0.0f)}) {
    const Space space = gemm_space(w, Target::host());
    for (int nr : {8, 16, 24, 32})
      for (bool pack_b : {false, true}) {
        GemmConfig g;
        g.vec = 8, g.mr = 4, g.nr = nr, g.kc = 32, g.mc = 96, g.nc = 1536, g.pack_b = pack_b, g.split = Split::n;
        const Config c = g.to_config(Target::host());
        ASSERT_TRUE(space.valid(c)) << describe(w, &c);
        SCOPED_TRACE(describe(w, &c));
        const Problem p(w, w.hash());
        const KernelPtr k = compile_gemm(w, c);
        for (int64_t pieces = 1; pieces <= std::min<int64_t>(2, k->tiles); ++pieces) {
          const std::vector<float> got = run_in_ranges(*k, p, pieces);
          const std::string diff = compare_c(w, got, p.want, matmul_tolerance(w, 1.0));
          EXPECT_TRUE(diff.empty()) << pieces << " tile ranges:\n" << diff;
        }
      }
  }
}

// The shapes above must keep covering what this file promises.
TEST(GemmCorrectnessCoverage, ShapesCoverEveryEdge) {
  const auto all = shapes();
  EXPECT_GE(all.size(), 25u);
  EXPECT_GE(all.size() * kConfigsPerShape, 300u);
  auto any = [&](auto pred) {
    for (const Shape& s : all)
      if (pred(s.w)) return true;
    return false;
  };
  EXPECT_TRUE(any([](const Workload& w) { return w.m == 1; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.n == 1; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.k == 1; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.m == 127 && w.n == 255 && w.k == 129; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.m >= 1000 && w.n <= 16; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.m <= 3 && w.n >= 2000; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.trans_b; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.trans_b && w.ldb > w.k; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.lda > w.k && w.ldb > w.n && w.ldc > w.n; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.bias && w.act == ActivationKind::none; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.act == ActivationKind::relu; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.act == ActivationKind::gelu; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.beta == 0.5f; }));
  EXPECT_TRUE(any([](const Workload& w) { return w.beta == 1.0f; }));
}

}  // namespace
}  // namespace livetune
