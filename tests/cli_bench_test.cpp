// tools/livetune: `livetune bench --json` and `livetune check` run as a user runs them. The
// numbers depend on the machine; what is checked is what every run must hold: every key the
// report promises, and numbers that agree with each other (the best config is the fastest
// finalist, the ratio is ours over the best peer's, the fraction is ours over the roof).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cli_output.hpp"

namespace livetune::test {
namespace {

TEST(CliBench, TheJsonHasEveryKeyAndItsNumbersAgree) {
  const Output r = run(std::string(LIVETUNE_CLI) +
                       " bench matmul --m 20 --n 33 --k 17 --search random:3 --peers openblas,onednn --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string& j = r.out;
  EXPECT_EQ(text(j, "workload"), "matmul m=20 n=33 k=17 trans_b=0 bias=0 act=none");
  const std::string best = text(j, "best_config");
  EXPECT_EQ(best.rfind("mr=", 0), 0u) << best;
  const double gflops = number(j, "gflops");
  ASSERT_GT(gflops, 0.0) << j;

  // The default config and three random ones: each measured or dropped, the best the fastest.
  EXPECT_EQ(number(j, "configs_measured") + number(j, "configs_dropped"), 4);
  const size_t finalists = j.find("\"finalists\": ["), peers = j.find("\"peers\": {");
  ASSERT_LT(finalists, peers);
  double fastest = 0.0;
  std::string fastest_config;
  for (size_t at = j.find("\"config\": ", finalists); at < peers; at = j.find("\"config\": ", at + 1)) {
    const double g = number(j, "gflops", at);
    if (g > fastest) fastest = g, fastest_config = text(j, "config", at);
  }
  EXPECT_EQ(fastest, gflops);
  EXPECT_EQ(fastest_config, best);

  const double openblas = number(j, "openblas", peers), onednn = number(j, "onednn", peers);
  ASSERT_GT(openblas, 0.0);
  ASSERT_GT(onednn, 0.0);
  EXPECT_EQ(text(j, "best_peer"), openblas >= onednn ? "openblas" : "onednn");
  EXPECT_NEAR(number(j, "ratio_to_best_peer"), gflops / std::max(openblas, onednn), 1e-4 * gflops);
  const std::vector<double> ratio_ci = numbers(j, "ratio_to_best_peer_ci95");
  ASSERT_EQ(ratio_ci.size(), 2u);
  EXPECT_LE(ratio_ci[0], ratio_ci[1]);

  EXPECT_GT(number(j, "compile_ms_median"), 0.0);
  const double peak = number(j, "peak_gflops"), roof = number(j, "roofline_gflops");
  EXPECT_GT(peak, 0.0);
  EXPECT_GT(roof, 0.0);
  EXPECT_LE(roof, peak);
  EXPECT_NEAR(number(j, "fraction_of_roofline"), gflops / roof, 1e-4);
  const std::vector<double> roof_ci = numbers(j, "fraction_of_roofline_ci95");
  ASSERT_EQ(roof_ci.size(), 2u);
  EXPECT_LE(roof_ci[0], roof_ci[1]);
  EXPECT_TRUE(std::isfinite(number(j, "dispatch_ns"))) << j;
}

TEST(CliBench, AConfigOutsideTheSpaceIsRefusedByName) {
  const Output r = run(std::string(LIVETUNE_CLI) + " bench matmul --m 20 --n 33 --k 17 --config 'mr=99' --json 2>&1");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("knob 'mr'"), std::string::npos) << r.out;
}

TEST(CliCheck, RandomConfigsAgreeWithTheReference) {
  const Output r = run(std::string(LIVETUNE_CLI) + " check matmul --m 17 --n 9 --k 5 --trans-b --configs 5 --seed 3");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("5 configs checked on 'matmul m=17 n=9 k=5 trans_b=1 bias=0 act=none': 5 passed, 0 failed"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace livetune::test
