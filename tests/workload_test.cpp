// Workload: the canonical text (what logs, the TuningDB and `livetune check` use) reads back
// to the same workload, including leading dimensions, beta and a constant B; malformed texts
// are rejected with a message naming the field; equality and the hash agree; the kernel form
// of a K×1 B computes the same C from the same memory.
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "jit/reference.hpp"
#include "jit/workload.hpp"

namespace livetune {
namespace {

Workload make(int64_t m, int64_t n, int64_t k, bool trans_b, bool bias, ActivationKind act, float beta,
              int64_t pad_a = 0, int64_t pad_b = 0, int64_t pad_c = 0) {
  Workload w = Workload::matmul(m, n, k, trans_b);
  w.bias = bias;
  w.act = act;
  w.beta = beta;
  w.lda += pad_a;
  w.ldb += pad_b;
  w.ldc += pad_c;
  return w;
}

TEST(WorkloadText, CanonicalForm) {
  EXPECT_EQ(Workload::matmul(96, 1536, 384).text(), "matmul m=96 n=1536 k=384 trans_b=0 bias=0 act=none");
  const Workload w = make(96, 1536, 384, true, true, ActivationKind::gelu, 0.5f, 1, 2, 3);
  EXPECT_EQ(w.text(), "matmul m=96 n=1536 k=384 trans_b=1 bias=1 act=gelu lda=385 ldb=386 ldc=1539 beta=0.5");
  Workload weights = Workload::matmul(8, 4096, 4096);
  weights.constant_b = true;
  EXPECT_EQ(weights.text(), "matmul m=8 n=4096 k=4096 trans_b=0 bias=0 act=none constant_b=1");
}

TEST(WorkloadText, RoundTripsManyWorkloads) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int64_t> dim(1, 5000), pad(0, 40);
  std::uniform_int_distribution<int> coin(0, 1), act(0, 2);
  const std::vector<float> betas = {0.0f, 1.0f, 0.5f, -1.0f, 0.1f, 1e-7f, -3.25e5f, std::numeric_limits<float>::min(),
                                    std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max()};
  for (int i = 0; i < 2000; ++i) {
    Workload w = make(dim(rng), dim(rng), dim(rng), coin(rng), coin(rng), ActivationKind(act(rng)),
                      betas[size_t(i) % betas.size()], coin(rng) ? pad(rng) : 0, coin(rng) ? pad(rng) : 0,
                      coin(rng) ? pad(rng) : 0);
    w.constant_b = coin(rng);
    const std::string text = w.text();
    Workload back;
    ASSERT_NO_THROW(back = Workload::parse(text)) << text;
    EXPECT_EQ(back, w) << text;
    EXPECT_EQ(back.hash(), w.hash()) << text;
    EXPECT_EQ(back.text(), text);
  }
}

TEST(WorkloadText, AnyOrderAndDefaults) {
  const Workload w = Workload::parse("matmul act=relu k=7 beta=1 ldc=40 n=30 m=20 bias=1");
  Workload want = make(20, 30, 7, false, true, ActivationKind::relu, 1.0f, 0, 0, 10);
  EXPECT_EQ(w, want) << w.text();
  // Leading dimensions default to the dense ones, for trans_b too (B is N×K then).
  const Workload t = Workload::parse("matmul m=2 n=3 k=5 trans_b=1");
  EXPECT_EQ(t.lda, 5);
  EXPECT_EQ(t.ldb, 5);
  EXPECT_EQ(t.ldc, 3);
  EXPECT_EQ(t.b_rows(), 3);
  EXPECT_EQ(t.b_cols(), 5);
}

void expect_rejected(const std::string& text, const std::string& mentions) {
  try {
    Workload::parse(text);
    ADD_FAILURE() << "'" << text << "' was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos)
        << "'" << text << "': message '" << e.what() << "' should mention '" << mentions << "'";
  }
}

TEST(WorkloadParse, Errors) {
  expect_rejected("conv2d m=1 n=1 k=1", "matmul");
  expect_rejected("", "matmul");
  expect_rejected("matmul m=1 n=1", "required");
  expect_rejected("matmul m=1 n=1 k=1 q=2", "q");
  expect_rejected("matmul m=1 n=1 k=1 k2", "key=value");
  expect_rejected("matmul m=x n=1 k=1", "'m'");
  expect_rejected("matmul m=1 n=1.5 k=1", "'n'");
  expect_rejected("matmul m=0 n=1 k=1", "at least 1");
  expect_rejected("matmul m=1 n=-4 k=1", "at least 1");
  expect_rejected("matmul m=1 n=1 k=1 trans_b=2", "trans_b");
  expect_rejected("matmul m=1 n=1 k=1 bias=yes", "bias");
  expect_rejected("matmul m=1 n=1 k=1 constant_b=2", "constant_b");
  expect_rejected("matmul m=1 n=1 k=1 act=tanh", "act");
  expect_rejected("matmul m=1 n=1 k=1 beta=half", "beta");
  expect_rejected("matmul m=4 n=5 k=6 lda=5", "lda");
  expect_rejected("matmul m=4 n=5 k=6 ldb=4", "ldb");
  expect_rejected("matmul m=4 n=5 k=6 trans_b=1 ldb=5", "ldb");
  expect_rejected("matmul m=4 n=5 k=6 ldc=4", "ldc");
  expect_rejected("matmul m=8..5 n=5 k=6", "'m'");
  expect_rejected("matmul m=5..5 n=5 k=6", "'m'");
  expect_rejected("matmul m=0..5 n=5 k=6", "'m'");
  expect_rejected("matmul m=a..5 n=5 k=6", "'m'");
}

TEST(WorkloadText, ABucketOfMRoundTrips) {
  Workload w = make(128, 70, 50, true, true, ActivationKind::gelu, 0.5f, 1, 2, 3);
  w.min_m = 65;
  EXPECT_EQ(w.text(), "matmul m=65..128 n=70 k=50 trans_b=1 bias=1 act=gelu lda=51 ldb=52 ldc=73 beta=0.5");
  const Workload back = Workload::parse(w.text());
  EXPECT_EQ(back, w);
  EXPECT_EQ(back.least_m(), 65);
  EXPECT_EQ(Workload::parse("matmul m=128 n=70 k=50").least_m(), 128);
}

TEST(WorkloadKey, EveryFieldTakesPart) {
  const Workload base = make(10, 20, 30, false, false, ActivationKind::none, 0.0f);
  std::vector<Workload> variants;
  auto vary = [&](auto change) {
    Workload w = base;
    change(w);
    variants.push_back(w);
  };
  vary([](Workload& w) { w.m = 11; });
  vary([](Workload& w) { w.min_m = 6; });
  vary([](Workload& w) { w.n = 21; });
  vary([](Workload& w) { w.k = 31; });
  vary([](Workload& w) { w.trans_b = true; });
  vary([](Workload& w) { w.bias = true; });
  vary([](Workload& w) { w.act = ActivationKind::relu; });
  vary([](Workload& w) { w.act = ActivationKind::gelu; });
  vary([](Workload& w) { w.lda = 31; });
  vary([](Workload& w) { w.ldb = 21; });
  vary([](Workload& w) { w.ldc = 21; });
  vary([](Workload& w) { w.beta = 1.0f; });
  vary([](Workload& w) { w.constant_b = true; });
  const Workload same = base;
  EXPECT_EQ(same, base);
  EXPECT_EQ(same.hash(), base.hash());
  for (const Workload& w : variants) {
    EXPECT_FALSE(w == base) << w.text();
    // Not required of a hash in general, but these keys differ in one field only.
    EXPECT_NE(w.hash(), base.hash()) << w.text();
  }
  EXPECT_DOUBLE_EQ(base.flops(), 2.0 * 10 * 20 * 30);
}

}  // namespace
// A K×1 B with unit row stride is read as a 1×K B transposed: the reference computes the same C
// from the same floats. Every other workload is its own kernel form.
TEST(WorkloadKernelForm, AColumnBIsItsTransposedRow) {
  for (const Workload& w : {make(37, 1, 53, false, true, ActivationKind::gelu, 0.5f, 2, 0, 3),
                            make(1, 1, 9, false, false, ActivationKind::none, 0.0f)}) {
    SCOPED_TRACE(w.text());
    const Workload kf = w.kernel_form();
    EXPECT_TRUE(kf.trans_b);
    EXPECT_EQ(kf.ldb, w.k);
    EXPECT_EQ(kf.text(), Workload::parse(kf.text()).text());
    EXPECT_EQ(kf.kernel_form(), kf);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> a(size_t(w.m * w.lda)), b(size_t(w.k)), bias(1), c0(size_t(w.m * w.ldc));
    for (std::vector<float>* v : {&a, &b, &bias, &c0})
      for (float& x : *v) x = u(rng);
    std::vector<float> as_asked = c0, as_kernel = c0;
    reference_matmul(w, a.data(), b.data(), bias.data(), as_asked.data());
    reference_matmul(kf, a.data(), b.data(), bias.data(), as_kernel.data());
    EXPECT_EQ(as_asked, as_kernel);
  }
  for (const Workload& w : {make(37, 1, 53, false, false, ActivationKind::none, 0.0f, 0, 4, 0),
                            make(37, 1, 53, true, false, ActivationKind::none, 0.0f),
                            make(37, 2, 53, false, false, ActivationKind::none, 0.0f)})
    EXPECT_EQ(w.kernel_form(), w) << w.text();
}

}  // namespace livetune
