// Dynamic M: the bucketing rules; kernels of a bucket of M against the reference at every M
// they may be called with (rows past the call's untouched); and the runtime serving a stream
// of distinct Ms with a few workloads, right at every call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/target.hpp"
#include "runtime/m_buckets.hpp"
#include "runtime_call.hpp"
#include "test_util.hpp"
#include "workloads.hpp"

namespace livetune {
namespace {

using test::describe;
using test::epi;
using test::mm;
using test::padded;
using test::Problem;

Workload bucket(Workload w, int64_t lo) {
  w.min_m = lo;
  return w;
}

std::string range_of(const Workload& key) {
  return std::to_string(key.least_m()) + ".." + std::to_string(key.m) + (key.min_m ? "" : " (exact)");
}

TEST(MBuckets, PowersOfTwo) {
  const MBuckets rule;  // the default
  const std::vector<std::pair<int64_t, std::string>> want = {
      {1, "1..1 (exact)"},   {2, "2..2 (exact)"},    {3, "3..4"},         {4, "3..4"},
      {5, "5..8"},           {8, "5..8"},            {9, "9..16"},        {64, "33..64"},
      {65, "65..128"},       {1000, "513..1024"},    {1024, "513..1024"}, {1025, "1025..2048"}};
  for (const auto& [m, range] : want) {
    const Workload w = epi(padded(mm(m, 70, 50, true)), true, ActivationKind::gelu, 0.5f);
    const Workload key = rule.key(w);
    EXPECT_EQ(range_of(key), range) << "M = " << m;
    // Everything but M is the call's.
    Workload same = key;
    same.m = w.m, same.min_m = 0;
    EXPECT_EQ(same, w);
  }
}

TEST(MBuckets, MultiplesAndExact) {
  MBuckets rule;
  rule.rule = MBuckets::Rule::multiples;
  rule.step = 64;
  EXPECT_EQ(range_of(rule.key(mm(1, 8, 8))), "1..64");
  EXPECT_EQ(range_of(rule.key(mm(64, 8, 8))), "1..64");
  EXPECT_EQ(range_of(rule.key(mm(65, 8, 8))), "65..128");
  rule.step = 1;
  EXPECT_EQ(range_of(rule.key(mm(77, 8, 8))), "77..77 (exact)");
  rule.rule = MBuckets::Rule::exact;
  EXPECT_EQ(range_of(rule.key(mm(1000, 8, 8))), "1000..1000 (exact)");
}

// Rows [0, m) as the reference has them, rows past m exactly as they were (NaN included).
std::string compare_rows(const Problem& p, const std::vector<float>& got, int64_t m) {
  const Workload& w = p.w;
  Workload called = w;
  called.m = m, called.min_m = 0;
  const std::vector<float> head(got.begin(), got.begin() + m * w.ldc), want(p.want.begin(), p.want.begin() + m * w.ldc);
  std::string diff = test::compare_c(called, head, want, matmul_tolerance(w, 1.0));
  if (!diff.empty()) return "rows below M:\n" + diff;
  if (std::memcmp(got.data() + m * w.ldc, p.c0.data() + m * w.ldc, size_t((w.m - m) * w.ldc) * sizeof(float)) != 0)
    return "a row past M was written";
  return {};
}

// The Ms a kernel of the bucket is run with: all of a small bucket; else its first 17 (every
// remainder of every mr), its last two and a seeded sample.
std::vector<int64_t> ms_to_try(const Workload& w, std::mt19937_64& rng) {
  std::vector<int64_t> ms;
  if (w.m - w.min_m < 40) {
    ms.resize(size_t(w.m - w.min_m + 1));
    std::iota(ms.begin(), ms.end(), w.min_m);
    return ms;
  }
  for (int64_t m = w.min_m; m < w.min_m + 17; ++m) ms.push_back(m);
  std::uniform_int_distribution<int64_t> pick(w.min_m, w.m);
  for (int i = 0; i < 12; ++i) ms.push_back(pick(rng));
  ms.push_back(w.m - 1), ms.push_back(w.m);
  return ms;
}

class BucketKernels : public testing::TestWithParam<test::Shape> {};

TEST_P(BucketKernels, RightAtEveryMOfTheBucket) {
  const Workload w = GetParam().w;
  const Problem p(w, w.hash());
  const Space space = gemm_space(w, Target::host());
  std::mt19937_64 rng(20261130 + w.hash());
  const std::vector<Config> configs = space.sample_distinct(rng, 8);
  ASSERT_EQ(configs.size(), 8u);
  for (const Config& c : configs) {
    SCOPED_TRACE(describe(w, &c));
    KernelPtr k;
    ASSERT_NO_THROW(k = compile_gemm(w, c));
    for (int64_t m : ms_to_try(w, rng)) {
      std::vector<float> got = p.c0;
      run_gemm_serial(*k, p.a.data(), p.b.data(), p.bias_ptr(), got.data(), m);
      ASSERT_EQ(compare_rows(p, got, m), "") << "called with M = " << m;
    }
    // Split into two ranges of the call's tiles, as two threads of the runtime run it.
    const int64_t m = w.min_m + (w.m - w.min_m) / 2, tiles = k->tiles_for(m);
    std::vector<float> got = p.c0;
    test::AlignedFloats ws(k->workspace_floats);
    for (int64_t part = 0; part < 2; ++part)
      k->run(GemmArgs{p.a.data(), p.b.data(), got.data(), p.bias_ptr(), ws.get(), tiles * part / 2,
                      tiles * (part + 1) / 2, nullptr, m});
    EXPECT_EQ(compare_rows(p, got, m), "") << "called with M = " << m << " in two tile ranges";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Buckets, BucketKernels,
    testing::Values(test::Shape{"m3_4", bucket(mm(4, 17, 9), 3)},
                    test::Shape{"m5_8_trans_b", bucket(mm(8, 100, 37, true), 5)},
                    test::Shape{"m9_16_bias_relu", bucket(epi(mm(16, 33, 70), true, ActivationKind::relu), 9)},
                    test::Shape{"m33_64", bucket(mm(64, 64, 64), 33)},
                    test::Shape{"m65_128_everything",
                                bucket(epi(padded(mm(128, 130, 90)), true, ActivationKind::gelu, 0.5f), 65)},
                    test::Shape{"m129_256_k_blocks", bucket(mm(256, 40, 300), 129)}),
    [](const testing::TestParamInfo<test::Shape>& info) { return std::string(info.param.label); });

// The swapped form on a bucket: a call's M is the computed product's N, so its tiles, its
// packing of A and its write of C cover the rows the call has, whatever the bucket's largest;
// blocks of C^T fewer than N's rows, K in blocks, at every M and in two tile ranges.
TEST(BucketKernels, SwappedRightAtEveryMOfTheBucket) {
  const int v = Target::host().vector_floats();
  for (const Workload& w : {bucket(epi(padded(mm(64, 100, 70, true)), true, ActivationKind::gelu, 0.5f), 33),
                            bucket(mm(16, 45, 300, true), 9)}) {
    const Problem p(w, w.hash());
    std::mt19937_64 rng(20261205 + w.hash());
    for (const std::string& tile :
         {"mr=4 nr=" + std::to_string(2 * v), "mr=6 nr=" + std::to_string(test::widest_vectors(6) * v)}) {
      const Config c = gemm_space(w, Target::host())
                           .parse(tile + " vec=" + std::to_string(v) +
                                  " kc=64 mc=24 nc=128 pack_a=0 pack_b=1 unroll=4 prefetch=0 prefetch_n=0 "
                                  "prefetch_c=0 order=nkm split=m tiles=nm swap=1 c_buf=0 k_spread=0");
      SCOPED_TRACE(describe(w, &c));
      const KernelPtr k = compile_gemm(w, c);
      for (int64_t m : ms_to_try(w, rng)) {
        // A of the call's rows only: a read past them is one past the allocation (ASan).
        const std::vector<float> a(p.a.begin(), p.a.begin() + m * w.lda);
        std::vector<float> got = p.c0;
        run_gemm_serial(*k, a.data(), p.b.data(), p.bias_ptr(), got.data(), m);
        ASSERT_EQ(compare_rows(p, got, m), "") << "called with M = " << m;
        const int64_t tiles = k->tiles_for(m);
        EXPECT_EQ(tiles, k->tiles);  // it splits N
        std::vector<float> split = p.c0;
        test::AlignedFloats ws(k->workspace_floats);
        for (int64_t part = 0; part < 2; ++part)
          k->run(GemmArgs{a.data(), p.b.data(), split.data(), p.bias_ptr(), ws.get(), tiles * part / 2,
                          tiles * (part + 1) / 2, nullptr, m});
        ASSERT_EQ(compare_rows(p, split, m), "") << "called with M = " << m << " in two tile ranges";
      }
    }
  }
}

TEST(RuntimeBuckets, AStreamOfDistinctMsIsServedByAFewWorkloadsRightAtEveryCall) {
  const Workload top = epi(mm(200, 70, 50), true, ActivationKind::gelu);
  const Problem p(top, 3);
  RuntimeOptions options;
  options.persistent = false;
  Runtime rt(options);
  std::vector<int64_t> ms(200);
  std::iota(ms.begin(), ms.end(), 1);
  std::shuffle(ms.begin(), ms.end(), std::mt19937_64(7));
  std::iter_swap(ms.begin(), std::find(ms.begin(), ms.end(), 37));  // the family's first M: 37
  // Before any JIT kernel, with them, and once more after tuning steps ran.
  for (int pass = 0; pass < 3; ++pass) {
    for (int64_t m : ms) {
      std::vector<float> c = p.c0;
      test::call(rt, p, c, m);
      ASSERT_EQ(compare_rows(p, c, m), "") << "pass " << pass << ", M = " << m;
    }
    rt.wait_idle();
  }
  std::set<std::string> names;
  for (const WorkloadInfo& info : rt.workloads()) {
    names.insert(info.workload.substr(0, info.workload.find(" n=")));
    EXPECT_EQ(info.state, "jit") << info.workload;
  }
  // The first M keeps a workload of its own; the others share 1, 2, 3..4, ..., 129..256.
  const std::set<std::string> want = {"matmul m=37",     "matmul m=1",      "matmul m=2",      "matmul m=3..4",
                                      "matmul m=5..8",   "matmul m=9..16",  "matmul m=17..32", "matmul m=33..64",
                                      "matmul m=65..128", "matmul m=129..256"};
  EXPECT_EQ(names, want);
}

TEST(RuntimeBuckets, TheExactRuleGivesEachMItsOwnWorkload) {
  const Problem p(mm(40, 24, 16), 5);
  RuntimeOptions options;
  options.persistent = false;
  options.tuning = false;
  options.m_buckets.rule = ShapeBuckets::Rule::exact;
  Runtime rt(options);
  for (int64_t m = 21; m <= 40; ++m) {
    std::vector<float> c = p.c0;
    test::call(rt, p, c, m);
    ASSERT_EQ(compare_rows(p, c, m), "") << "M = " << m;
  }
  EXPECT_EQ(rt.workloads().size(), 20u);
}

TEST(RuntimeBuckets, AStepBelowOneIsABadArgument) {
  RuntimeOptions options;
  options.m_buckets.rule = ShapeBuckets::Rule::multiples;
  options.m_buckets.step = 0;
  try {
    Runtime rt(options);
    FAIL() << "expected livetune::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("options.m_buckets.step"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace livetune
