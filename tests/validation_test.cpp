// sampler/validation: a kernel's output is checked against the reference, every element, on
// large workloads too (full_reference: a blocked product in double, itself checked here
// against the loops of jit/reference.hpp).
#include <gtest/gtest.h>

#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/reference.hpp"
#include "jit/target.hpp"
#include "policy/default_rule.hpp"
#include "sampler/full_reference.hpp"
#include "sampler/synthetic_inputs.hpp"
#include "sampler/validation.hpp"

namespace livetune {
namespace {

TEST(FullReference, MatchesTheReferenceLoopsOnEveryEpilogueAndLayout) {
  std::vector<Workload> ws;
  for (bool trans_b : {false, true})
    for (ActivationKind act : {ActivationKind::none, ActivationKind::relu, ActivationKind::gelu}) {
      Workload w = Workload::matmul(300, 37, 129, trans_b);  // more rows than one block of A
      w.act = act;
      w.bias = act != ActivationKind::relu;
      w.beta = act == ActivationKind::gelu ? 0.5f : 0.0f;
      w.lda += 3, w.ldb += 5, w.ldc += 2;  // padded rows, which stay untouched
      ws.push_back(w);
    }
  ws.push_back(Workload::matmul(5, 9, 0));  // K = 0: bias and activation of nothing
  ws.back().bias = true;
  for (const Workload& w : ws) {
    const SyntheticInputs in(w, 3);
    Floats want = in.c;
    reference_matmul(w, in.a.data(), in.b.data(), in.bias.data(), want.data());
    const Floats got = full_reference(w, in.a.data(), in.b.data(), in.bias.data(), in.c);
    ASSERT_EQ(got.size(), want.size());
    // Both sum in double: they differ by far less than a float kernel's tolerance.
    const double bound = matmul_tolerance(w, 1.0) * 1e-3;
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], bound) << w.text() << " element " << i;
  }
}

TEST(Validation, AWrongElementAnywhereInALargeWorkloadIsCaught) {
  const Workload w = Workload::matmul(2000, 64, 256);
  const ValidationData data(w, 5);
  const KernelPtr k = compile_gemm(w, default_gemm_config(w, Target::host(), 1));
  ASSERT_EQ(data.check(*k), "");
  Floats right = data.c_init();
  reference_matmul(w, data.a(), data.b(), data.bias(), right.data());
  EXPECT_EQ(data.check_output(right), "") << "the reference loops agree within the tolerance";
  for (int64_t row = 0; row < w.m; row += 97) {
    Floats wrong = right;
    wrong[size_t(row * w.ldc + 7)] += 0.5f;  // over the tolerance at K = 256 (0.03)
    EXPECT_NE(data.check_output(wrong), "") << "row " << row;
  }
}

TEST(Validation, ABucketKernelIsCheckedAtTheMsThatReachEachEdgeTile) {
  Workload w = Workload::matmul(64, 48, 40);
  w.min_m = 33;  // M in 33..64
  const ValidationData data(w, 9);
  GemmConfig g;
  g.mr = 6, g.nr = 16, g.kc = 64, g.mc = 48, g.nc = 48;
  const KernelPtr k = compile_gemm(w, g.to_config(Target::host()));
  double run_s = -1;
  ASSERT_EQ(data.check(*k, &run_s), "");
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
