// Every peer must compute exactly the Workload's meaning (the reference), for every field: a
// peer that silently drops the bias or misreads a leading dimension would make every comparison
// against it meaningless.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <random>
#include <stdexcept>
#include <vector>

#include "jit/reference.hpp"
#include "jit/workload.hpp"
#include "tools/peers/peer.hpp"
#include "workloads.hpp"

namespace livetune {
namespace {

struct Case {
  const char* label;
  Workload w;
  int threads = 1;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.w.text() << " threads=" << c.threads; }

using test::epi;
using test::mm;
using test::padded;

std::vector<Case> cases() {
  return {
      {"odd", mm(127, 255, 129)},
      {"m1", mm(1, 1000, 777)},
      {"m1_trans_b", mm(1, 300, 515, true)},
      {"trans_b", mm(64, 64, 64, true)},
      {"odd_trans_b", mm(127, 255, 129, true)},
      {"padded", padded(mm(127, 255, 129))},
      {"padded_trans_b", padded(mm(45, 77, 300, true))},
      {"bias", epi(mm(33, 70, 129), true, ActivationKind::none)},
      {"bias_relu", epi(mm(33, 70, 129), true, ActivationKind::relu)},
      {"bias_gelu", epi(mm(127, 255, 129), true, ActivationKind::gelu)},
      {"gelu_no_bias", epi(mm(16, 48, 32), false, ActivationKind::gelu)},
      {"beta_half", epi(mm(127, 255, 129), false, ActivationKind::none, 0.5f)},
      {"beta_one", epi(mm(40, 50, 60), false, ActivationKind::none, 1.0f)},
      {"beta_bias_gelu_padded_trans_b", epi(padded(mm(127, 255, 129, true)), true, ActivationKind::gelu, 0.5f)},
      {"threads2", epi(mm(256, 256, 256), true, ActivationKind::relu, 0.5f), 2},
      {"threads2_trans_b", mm(200, 300, 100, true), 2},
  };
}

std::vector<float> random_floats(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

using PeerCase = std::tuple<std::string, Case>;

class PeerMatchesReference : public testing::TestWithParam<PeerCase> {};

TEST_P(PeerMatchesReference, EveryElementWithinTolerance) {
  const auto& [name, cs] = GetParam();
  const Workload& w = cs.w;
  auto a = random_floats(size_t(w.m * w.lda), 1);
  auto b = random_floats(size_t(w.b_rows() * w.ldb), 2);
  auto bias = random_floats(size_t(w.n), 3);
  // With beta = 0 the old C must not be read: NaN there would show through.
  std::vector<float> c0 = w.beta == 0.0f ? std::vector<float>(size_t(w.m * w.ldc), std::numeric_limits<float>::quiet_NaN())
                                         : random_floats(size_t(w.m * w.ldc), 4);
  // Padding columns hold a sentinel that must survive.
  constexpr float kSentinel = 12345.0f;
  for (int64_t i = 0; i < w.m; ++i)
    for (int64_t j = w.n; j < w.ldc; ++j) c0[size_t(i * w.ldc + j)] = kSentinel;

  std::vector<float> want = c0;
  reference_matmul(w, a.data(), b.data(), bias.data(), want.data());
  const double tol = matmul_tolerance(w, 1.0);

  auto peer = peers::make_peer(name);
  std::vector<float> c = c0;
  peer->prepare(w, a.data(), b.data(), bias.data(), c.data(), cs.threads);
  EXPECT_FALSE(peer->detail().empty());
  // Twice, from the same C: a second call must not see state the first one left behind.
  for (int call = 0; call < 2; ++call) {
    std::copy(c0.begin(), c0.end(), c.begin());
    peer->run();
    int bad = 0;
    for (int64_t i = 0; i < w.m; ++i) {
      for (int64_t j = 0; j < w.ldc; ++j) {
        size_t at = size_t(i * w.ldc + j);
        if (j >= w.n) {
          if (c[at] != kSentinel && ++bad <= 5) ADD_FAILURE() << "padding overwritten at " << i << "," << j;
        } else if (!(std::abs(double(c[at]) - double(want[at])) <= tol) && ++bad <= 5) {
          ADD_FAILURE() << name << " " << w.text() << " call " << call << ": C[" << i << "," << j << "] = " << c[at]
                        << ", want " << want[at] << " (tolerance " << tol << ")";
        }
      }
    }
    EXPECT_EQ(bad, 0) << "mismatching elements";
  }
}

INSTANTIATE_TEST_SUITE_P(AllPeers, PeerMatchesReference,
                         testing::Combine(testing::ValuesIn(peers::peer_names()), testing::ValuesIn(cases())),
                         [](const testing::TestParamInfo<PeerCase>& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param).label;
                         });

TEST(PeerRegistry, NamesRoundTrip) {
  auto names = peers::peer_names();
  ASSERT_FALSE(names.empty());
  for (const auto& name : names) EXPECT_EQ(peers::make_peer(name)->name(), name);
}

TEST(PeerRegistry, UnknownNameThrows) { EXPECT_THROW(peers::make_peer("cublas"), std::invalid_argument); }

}  // namespace
}  // namespace livetune
