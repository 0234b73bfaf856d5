// tools/livetune: `livetune serve --json --plot` on a small workload, run as a user runs it.
// Its numbers depend on the machine; what is checked is what every run must hold: every key
// the report promises, one latency per call, counts that add up, a plot that marks the kernel
// changes, and the log level LIVETUNE_LOG sets.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_output.hpp"

namespace livetune::test {
namespace {

struct CliServe : testing::Test {
  std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) /
      ("cli_serve_" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
};

TEST_F(CliServe, TheJsonHasEveryKeyAndTheLatencyOfEveryCall) {
  const std::filesystem::path plot = dir / "serve.svg";
  const Output r = run(std::string(LIVETUNE_CLI) +
                    " serve matmul --m 48 --n 64 --k 40 --calls 400 --reference random:6 --json --plot '" +
                    plot.string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string& j = r.out;
  for (const char* key : {"first_call_ms", "builtin_ms", "calls", "calls_to_within_5pct", "exploration_overhead",
                          "final_gflops", "reference_gflops", "ratio_to_reference", "settled_dispatch_ns"})
    EXPECT_FALSE(std::isnan(number(j, key))) << key << " missing or not a number in " << j.substr(0, 2000);
  for (const char* key : {"\"final_config\": \"mr=", "\"first_config\": \"mr=", "\"reference_config\": \"mr=",
                          "\"candidates\": {", "\"kernel_changes\": [{"})
    EXPECT_NE(j.find(key), std::string::npos) << key;
  EXPECT_EQ(number(j, "calls"), 400);
  const std::vector<double> per_call = numbers(j, "per_call_us");
  ASSERT_EQ(per_call.size(), 400u);
  for (double us : per_call) EXPECT_GT(us, 0.0);
  // Both are printed to six significant digits, each rounded on its own: they agree to the sixth.
  EXPECT_NEAR(number(j, "first_call_ms"), per_call[0] / 1e3, per_call[0] / 1e3 * 1e-5);
  const double within = number(j, "calls_to_within_5pct");
  EXPECT_GE(within, 0);
  EXPECT_LT(within, 400);
  const double overhead = number(j, "exploration_overhead");
  EXPECT_GE(overhead, -1.0);
  EXPECT_LE(overhead, 1.0);
  EXPECT_GT(number(j, "ratio_to_reference"), 0.0);
  // The candidates' counts: each stage passes on at most what it was given.
  const size_t c = j.find("\"candidates\": {");
  const double proposed = number(j, "proposed", c), compiled = number(j, "compiled", c),
               validated = number(j, "validated", c), measured = number(j, "measured", c);
  EXPECT_GE(proposed, compiled);
  EXPECT_GE(compiled, validated);
  EXPECT_GE(validated, measured);

  const std::string svg = read_file(plot);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg.substr(0, 200);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("JIT: mr="), std::string::npos) << "the first JIT kernel is marked";
}

TEST_F(CliServe, ARangeOfMReportsItsWorkloadsAndMarksTheirKernels) {
  const std::filesystem::path plot = dir / "range.svg";
  const Output r = run(std::string(LIVETUNE_CLI) +
                       " serve matmul --m 20..64 --n 32 --k 24 --calls 300 --json --plot '" + plot.string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(numbers(r.out, "per_call_us").size(), 300u);
  const std::vector<double> ms = numbers(r.out, "call_m");
  ASSERT_EQ(ms.size(), 300u);
  for (double m : ms) {
    EXPECT_GE(m, 20);
    EXPECT_LE(m, 64);
  }
  EXPECT_NE(r.out.find("\"workloads\": [{"), std::string::npos);
  const std::string svg = read_file(plot);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("JIT"), std::string::npos) << "the first kernels are marked";
}

TEST_F(CliServe, LivetuneLogSetsTheLevelOfWhatReachesStderr) {
  // A range of M: its report skips the measurements that wait for a quiet machine.
  const std::string serve =
      std::string(LIVETUNE_CLI) + " serve matmul --m 9..16 --n 24 --k 8 --calls 50 2>&1 >/dev/null";
  const Output info = run("LIVETUNE_LOG=info " + serve);
  ASSERT_EQ(info.status, 0) << info.out;
  EXPECT_NE(info.out.find("livetune info: "), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("JIT kernel"), std::string::npos) << info.out;
  const Output warn = run("LIVETUNE_LOG=warn " + serve);
  ASSERT_EQ(warn.status, 0) << warn.out;
  EXPECT_EQ(warn.out.find("livetune info: "), std::string::npos) << warn.out;
}

}  // namespace
}  // namespace livetune::test
