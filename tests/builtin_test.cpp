// The built-in kernel serves every workload until its JIT kernel is ready (and K = 0 always):
// it must mean exactly what the reference means, for every field of the workload.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "runtime/builtin_gemm.hpp"
#include "test_util.hpp"
#include "workloads.hpp"

namespace livetune {
namespace {

using test::epi;
using test::mm;
using test::padded;
using test::Shape;

std::vector<Shape> shapes() {
  using A = ActivationKind;
  return {
      {"one", mm(1, 1, 1)},
      {"m1", mm(1, 100, 37)},
      {"n1", mm(50, 1, 33)},
      {"k1", mm(33, 47, 1)},
      {"primes", mm(127, 255, 129)},
      {"tall_skinny", mm(1000, 16, 64)},
      {"wide_short", mm(3, 2000, 50)},
      {"k_long", mm(4, 9, 1000)},
      {"trans_b", mm(100, 33, 70, true)},
      {"trans_b_k17", mm(9, 40, 17, true)},
      {"m1_trans_b", mm(1, 300, 77, true)},
      {"padded", padded(mm(45, 77, 90))},
      {"padded_trans_b", padded(mm(29, 50, 61, true))},
      {"bias", epi(mm(33, 70, 129), true, A::none)},
      {"bias_relu", epi(mm(40, 65, 100), true, A::relu)},
      {"gelu", epi(mm(16, 48, 32), false, A::gelu)},
      {"bias_gelu", epi(mm(70, 130, 90), true, A::gelu)},
      {"beta_half", epi(mm(40, 50, 60), false, A::none, 0.5f)},
      {"beta_one", epi(mm(23, 81, 45), false, A::none, 1.0f)},
      {"beta_relu_padded", epi(padded(mm(30, 200, 20)), false, A::relu, 1.0f)},
      {"everything", epi(padded(mm(61, 99, 70, true)), true, A::gelu, 0.5f)},
      // K = 0: act(bias + beta·C), always the built-in kernel's job.
      {"k0", mm(5, 9, 0)},
      {"k0_bias_gelu", epi(mm(5, 9, 0), true, A::gelu)},
      {"k0_beta_relu", epi(mm(5, 9, 0, true), true, A::relu, 0.5f)},
  };
}

class Builtin : public testing::TestWithParam<Shape> {};

TEST_P(Builtin, MatchesReference) {
  const Workload& w = GetParam().w;
  const test::Problem p(w, 77);
  std::vector<float> got = p.c0;
  // Inputs of zero size still get valid pointers, as the API guarantees.
  const float dummy = 0.0f;
  builtin_matmul(w, p.a.empty() ? &dummy : p.a.data(), p.b.empty() ? &dummy : p.b.data(), p.bias_ptr(), got.data());
  const std::string diff = test::compare_c(w, got, p.want, matmul_tolerance(w, 1.0));
  EXPECT_TRUE(diff.empty()) << test::describe(w) << "\n" << diff;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Builtin, testing::ValuesIn(shapes()),
                         [](const testing::TestParamInfo<Shape>& info) { return std::string(info.param.label); });

// The kernel keeps a per-thread row buffer: a narrow call after a wide one must not see it.
TEST(BuiltinState, WideThenNarrowCalls) {
  for (const Workload& w : {mm(2, 3000, 5), mm(3, 7, 11), epi(mm(2, 3000, 5, true), true, ActivationKind::relu),
                            epi(mm(3, 7, 11), false, ActivationKind::none, 1.0f)}) {
    const test::Problem p(w, 5);
    std::vector<float> got = p.c0;
    builtin_matmul(w, p.a.data(), p.b.data(), p.bias_ptr(), got.data());
    const std::string diff = test::compare_c(w, got, p.want, matmul_tolerance(w, 1.0));
    EXPECT_TRUE(diff.empty()) << test::describe(w) << "\n" << diff;
  }
}

}  // namespace
}  // namespace livetune
