// The public API's argument checks: each bad argument is a livetune::Error that names it and
// says what was expected, and when it is thrown nothing the caller owns has been written.
// Public headers only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "livetune/livetune.hpp"

namespace livetune {
namespace {

constexpr int64_t M = 5, N = 7, K = 3;

// One valid call, which each case spoils in one way. All four buffers live in one arena so
// that a case can make c overlap another argument.
struct Call {
  std::vector<float> arena;
  TensorView a, b, c, bias;
  MatmulOptions opts;

  // Layout, with gaps of 40 floats: [a: M×K] [b: K×N] [bias: N] [c: M×N][spare: M×N]
  static constexpr int64_t gap = 40, a_at = 0, b_at = a_at + M * K + gap, bias_at = b_at + K * N + gap,
                           c_at = bias_at + N + gap, end = c_at + 2 * M * N;

  Call() : arena(size_t(end)) {
    for (size_t i = 0; i < arena.size(); ++i) arena[i] = float(i % 13) * 0.25f - 1.0f;
    a = TensorView::matrix(&arena[a_at], M, K);
    b = TensorView::matrix(&arena[b_at], K, N);
    bias = TensorView::vector(&arena[bias_at], N);
    c = TensorView::matrix(&arena[c_at], M, N);
    opts.bias = &bias;
  }
  float* at(int64_t i) { return &arena[size_t(i)]; }
};

struct BadCase {
  const char* name;
  std::function<void(Call&)> spoil;
  const char* argument;                // what Error::argument() must say
  std::vector<std::string> mentions;  // parts of the message
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

std::vector<BadCase> bad_cases() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  return {
      {"a_null", [](Call& x) { x.a.data = nullptr; }, "a", {"non-null"}},
      {"b_null", [](Call& x) { x.b.data = nullptr; }, "b", {"non-null"}},
      {"c_null", [](Call& x) { x.c.data = nullptr; }, "c", {"non-null"}},
      {"bias_null", [](Call& x) { x.bias.data = nullptr; }, "options.bias", {"non-null"}},
      {"a_f16", [](Call& x) { x.a.dtype = DType::f16; }, "a", {"f32"}},
      {"b_bf16", [](Call& x) { x.b.dtype = DType::bf16; }, "b", {"f32"}},
      {"c_f16", [](Call& x) { x.c.dtype = DType::f16; }, "c", {"f32"}},
      {"bias_f16", [](Call& x) { x.bias.dtype = DType::f16; }, "options.bias", {"f32"}},
      {"a_cuda", [](Call& x) { x.a.device = {DeviceKind::cuda, 0}; }, "a", {"CPU"}},
      {"b_cuda", [](Call& x) { x.b.device = {DeviceKind::cuda, 0}; }, "b", {"CPU"}},
      {"c_cuda", [](Call& x) { x.c.device = {DeviceKind::cuda, 1}; }, "c", {"CPU"}},
      {"bias_cuda", [](Call& x) { x.bias.device = {DeviceKind::cuda, 0}; }, "options.bias", {"CPU"}},
      {"a_rank1", [](Call& x) { x.a = TensorView::vector(x.at(Call::a_at), M * K); }, "a", {"rank 2", "rank 1"}},
      {"b_rank3",
       [](Call& x) {
         x.b.rank = 3;
         x.b.shape = {1, K, N, 0};
         x.b.strides = {K * N, N, 1, 0};
       },
       "b",
       {"rank 2", "rank 3"}},
      {"c_rank0", [](Call& x) { x.c.rank = 0; }, "c", {"rank 2", "rank 0"}},
      {"bias_rank2", [](Call& x) { x.bias = TensorView::matrix(x.at(Call::bias_at), 1, N); }, "options.bias", {"rank 1"}},
      {"a_negative", [](Call& x) { x.a.shape[0] = -1; }, "a", {"non-negative"}},
      {"b_rows", [](Call& x) { x.b = TensorView::matrix(x.at(Call::b_at), K + 1, N - 1); }, "b", {"a.shape[1] = 3", "[4, 6]"}},
      {"b_trans_b",
       [](Call& x) { x.opts.trans_b = true; },  // b is K×N = 3×7, but N×K is expected
       "b",
       {"trans_b", "[3, 7]"}},
      {"c_rows", [](Call& x) { x.c = TensorView::matrix(x.at(Call::c_at), M + 1, N); }, "c", {"[5, 7]", "[6, 7]"}},
      {"c_cols", [](Call& x) { x.c = TensorView::matrix(x.at(Call::c_at), M, N - 1); }, "c", {"[5, 7]", "[5, 6]"}},
      {"bias_size", [](Call& x) { x.bias = TensorView::vector(x.at(Call::bias_at), N - 1); }, "options.bias", {"[7]", "[6]"}},
      {"a_col_stride", [](Call& x) { x.a.strides[1] = 2; }, "a", {"stride", "1"}},
      {"c_col_stride", [](Call& x) { x.c.strides[1] = 0; }, "c", {"stride"}},
      {"bias_stride", [](Call& x) { x.bias.strides[0] = 2; }, "options.bias", {"stride"}},
      {"a_row_stride", [](Call& x) { x.a.strides[0] = K - 1; }, "a", {"row stride", "3", "2"}},
      {"b_row_stride", [](Call& x) { x.b.strides[0] = N - 1; }, "b", {"row stride", "7", "6"}},
      {"c_row_stride", [](Call& x) { x.c.strides[0] = 0; }, "c", {"row stride"}},
      {"c_overlaps_a", [](Call& x) { x.c.data = x.at(Call::a_at + 2); }, "c", {"overlap", "a"}},
      {"c_overlaps_b", [](Call& x) { x.c.data = x.at(Call::b_at + K * N - 1); }, "c", {"overlap", "b"}},
      {"c_overlaps_bias", [](Call& x) { x.c.data = x.at(Call::bias_at - M * N + 1); }, "c", {"overlap", "options.bias"}},
      {"beta_nan", [nan](Call& x) { x.opts.beta = nan; }, "options.beta", {"finite"}},
      {"beta_inf", [inf](Call& x) { x.opts.beta = -inf; }, "options.beta", {"finite"}},
      {"activation", [](Call& x) { x.opts.activation = Activation(9); }, "options.activation", {"relu"}},
  };
}

class ApiErrors : public testing::TestWithParam<BadCase> {};

TEST_P(ApiErrors, NamesTheArgumentAndWritesNothing) {
  const BadCase& bad = GetParam();
  Runtime rt(RuntimeOptions{1, 1});
  Call call;
  bad.spoil(call);
  const std::vector<float> before = call.arena;
  try {
    rt.matmul(call.a, call.b, call.c, call.opts);
    ADD_FAILURE() << bad.name << ": no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), bad.argument) << bad.name << ": " << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find("expected"), std::string::npos) << bad.name << ": " << message;
    EXPECT_NE(message.find("'" + std::string(bad.argument) + "'"), std::string::npos)
        << bad.name << ": the message should name the argument: " << message;
    for (const auto& part : bad.mentions)
      EXPECT_NE(message.find(part), std::string::npos) << bad.name << ": '" << message << "' should mention '" << part << "'";
  } catch (const std::exception& e) {
    ADD_FAILURE() << bad.name << ": expected livetune::Error, got " << e.what();
  }
  EXPECT_EQ(std::memcmp(before.data(), call.arena.data(), before.size() * sizeof(float)), 0)
      << bad.name << ": memory was written before the error";
  EXPECT_TRUE(rt.workloads().empty()) << bad.name << ": a rejected call registered a workload";
}

INSTANTIATE_TEST_SUITE_P(Cases, ApiErrors, testing::ValuesIn(bad_cases()),
                         [](const testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(ApiErrors, TheValidCallWorks) {
  // The baseline every case spoils is itself valid: each error above comes from its one change.
  Runtime rt(RuntimeOptions{1, 1});
  Call call;
  EXPECT_NO_THROW(rt.matmul(call.a, call.b, call.c, call.opts));
  call.c.data = call.at(Call::c_at + M * N);  // right after the first c: adjacent, not overlapping
  EXPECT_NO_THROW(rt.matmul(call.a, call.b, call.c, call.opts));
}

TEST(ApiErrors, NegativeThreads) {
  for (auto [threads, compile_threads, argument] :
       std::vector<std::tuple<int, int, std::string>>{{-1, 1, "options.threads"}, {1, -2, "options.compile_threads"}}) {
    try {
      Runtime rt(RuntimeOptions{threads, compile_threads});
      ADD_FAILURE() << argument << " < 0 was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), argument);
      EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(argument), std::string::npos) << e.what();
    }
  }
}

TEST(ApiErrors, TuningOptionsOutOfRange) {
  const std::vector<std::pair<std::string, void (*)(RuntimeOptions&)>> cases = {
      {"options.exploration_budget", [](RuntimeOptions& o) { o.exploration_budget = 1.5; }},
      {"options.exploration_budget", [](RuntimeOptions& o) { o.exploration_budget = -0.01; }},
      {"options.settle_rounds", [](RuntimeOptions& o) { o.settle_rounds = 0; }},
      {"options.drift_threshold", [](RuntimeOptions& o) { o.drift_threshold = 1.0; }},
      {"options.drift_threshold", [](RuntimeOptions& o) { o.drift_threshold = std::nan(""); }},
  };
  for (const auto& [argument, spoil] : cases) {
    RuntimeOptions o{1, 1};
    o.persistent = false;
    spoil(o);
    try {
      Runtime rt(o);
      ADD_FAILURE() << argument << ": a bad value was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.argument(), argument);
      EXPECT_NE(std::string(e.what()).find("expected"), std::string::npos) << e.what();
    }
  }
  RuntimeOptions fine{1, 1};
  fine.persistent = false;
  fine.settle_rounds = 1, fine.drift_threshold = 1.05, fine.exploration_budget = 0.0;
  EXPECT_NO_THROW(Runtime{fine});
}

struct ApiEmpty : testing::Test {
  Runtime rt{RuntimeOptions{1, 1}};
  std::vector<float> a = std::vector<float>(64, 1.0f), b = a, bias = a, c = std::vector<float>(64, -7.0f);
  const std::vector<float> c_before = c;
  MatmulOptions opts;
  ApiEmpty() {
    opts.beta = 1.0f;
    opts.activation = Activation::relu;
  }
  bool c_untouched() const { return std::memcmp(c.data(), c_before.data(), c.size() * sizeof(float)) == 0; }
};

TEST_F(ApiEmpty, ZeroRowsIsANoOp) {
  // M = 0: a is 0×K, c is 0×N.
  const TensorView bias5 = TensorView::vector(bias.data(), 5);
  opts.bias = &bias5;
  EXPECT_NO_THROW(rt.matmul(TensorView::matrix(a.data(), 0, 4), TensorView::matrix(b.data(), 4, 5),
                            TensorView::matrix(c.data(), 0, 5), opts));
  EXPECT_TRUE(c_untouched());
}

TEST_F(ApiEmpty, ZeroColumnsIsANoOp) {
  // N = 0: b is K×0 (N×K = 0×K with trans_b), c is M×0, bias has size 0. Views made the
  // documented way: TensorView::matrix(data, rows, 0) (its row stride is then 0).
  const TensorView bias0 = TensorView::vector(bias.data(), 0);
  opts.bias = &bias0;
  EXPECT_NO_THROW(rt.matmul(TensorView::matrix(a.data(), 3, 4), TensorView::matrix(b.data(), 4, 0),
                            TensorView::matrix(c.data(), 3, 0), opts));
  opts.trans_b = true;
  EXPECT_NO_THROW(rt.matmul(TensorView::matrix(a.data(), 3, 4), TensorView::matrix(b.data(), 0, 4),
                            TensorView::matrix(c.data(), 3, 0), opts));
  EXPECT_TRUE(c_untouched());
}

TEST_F(ApiEmpty, ZeroColumnsWithUnitRowStrideIsANoOp) {
  const TensorView bias0 = TensorView::vector(bias.data(), 0);
  opts.bias = &bias0;
  EXPECT_NO_THROW(rt.matmul(TensorView::matrix(a.data(), 3, 4), TensorView::matrix(b.data(), 4, 0, 1),
                            TensorView::matrix(c.data(), 3, 0, 1), opts));
  EXPECT_TRUE(c_untouched());
}

}  // namespace
}  // namespace livetune
