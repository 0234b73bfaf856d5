// sampler/validation: a kernel's output is checked against the reference (every row of a small
// workload, sampled rows of a large one) and, given the output of a kernel validated before,
// element by element against it — which catches a wrong row the sampling missed.
#include <gtest/gtest.h>

#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/reference.hpp"
#include "jit/target.hpp"
#include "policy/default_rule.hpp"
#include "sampler/validation.hpp"

namespace livetune {
namespace {

TEST(Validation, AWrongRowTheSampleMissesIsCaughtAgainstAValidatedKernel) {
  // Large enough (over 64 MFLOP) that the reference covers only sampled rows.
  const Workload w = Workload::matmul(2000, 64, 256);
  const ValidationData data(w, 5);
  const KernelPtr k = compile_gemm(w, default_gemm_config(w, Target::host(), 1));
  ASSERT_EQ(data.check(*k), "");
  const Floats trusted = data.output_of(*k);
  EXPECT_EQ(data.check(*k, &trusted), "") << "a kernel agrees with itself";

  // The full reference, to corrupt only rows the sampled check passes.
  Floats right = data.c_init();
  reference_matmul(w, data.a(), data.b(), data.bias(), right.data());
  int caught_only_by_trusted = 0;
  for (int64_t row = 0; row < w.m; row += 97) {
    Floats wrong = right;
    wrong[size_t(row * w.ldc + 7)] += 0.5f;
    if (!data.check_output(wrong).empty()) continue;  // a sampled row: the reference sees it
    EXPECT_NE(data.check_output(wrong, &trusted), "") << "row " << row;
    ++caught_only_by_trusted;
  }
  EXPECT_GT(caught_only_by_trusted, 5) << "most rows of a large workload are not sampled";
  EXPECT_EQ(data.check_output(right, &trusted), "") << "the reference itself agrees within the tolerance";
}

TEST(Validation, ABucketKernelIsCheckedAtTheMsThatReachEachEdgeTile) {
  Workload w = Workload::matmul(64, 48, 40);
  w.min_m = 33;  // M in 33..64
  const ValidationData data(w, 9);
  GemmConfig g;
  g.mr = 6, g.nr = 16, g.kc = 64, g.mc = 48, g.nc = 48;
  const KernelPtr k = compile_gemm(w, g.to_config(Target::host()));
  double run_s = -1;
  ASSERT_EQ(data.check(*k, nullptr, &run_s), "");
  EXPECT_GT(run_s, 0.0) << "the time of the run with all of M";
  // The least M, and the Ms whose remainders mod 6 reach each edge tile (4, 1 and 2 rows) and
  // the largest remainder (5 = 4 + 1).
  EXPECT_EQ(data.check_rows(*k), (std::vector<int64_t>{33, 34, 35, 37, 38}));

  // The tiles of 1 and 2 rows swapped: right with all 64 rows (64 = 10·6 + 4 runs the tile of
  // 4), wrong with some fewer.
  Kernel broken = *k;
  std::swap(broken.edge_tiles[1], broken.edge_tiles[2]);
  EXPECT_EQ(data.check_output(data.output_of(broken)), "");
  const std::string why = data.check(broken);
  EXPECT_NE(why.find("called with M = "), std::string::npos) << why;
}

}  // namespace
}  // namespace livetune
