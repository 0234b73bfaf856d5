// A b kept constant by the caller (ConstantMatrix): every phase of a workload — built-in
// kernel, JIT kernel packing B per call, JIT kernel reading the copy packed in the
// background — means what the reference means; workloads share a packed copy only when its
// layout is theirs; the operand packs each layout once, and when its copies are all taken a
// new layout replaces the one least recently used, never one a caller is reading.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/target.hpp"
#include "livetune/livetune.hpp"
#include "runtime/constant_operand.hpp"
#include "runtime_call.hpp"
#include "test_util.hpp"
#include "workloads.hpp"

namespace livetune {
namespace {

using test::epi;
using test::mm;

void call_constant(Runtime& rt, const test::Problem& p, const ConstantMatrix& b, std::vector<float>& c) {
  const Workload& w = p.w;
  const TensorView bias = TensorView::vector(p.bias.data(), w.n);
  MatmulOptions opts;
  opts.trans_b = w.trans_b;
  opts.bias = w.bias ? &bias : nullptr;
  opts.activation = test::to_api(w.act);
  opts.beta = w.beta;
  rt.matmul(TensorView::matrix(p.a.data(), w.m, w.k, w.lda), b, TensorView::matrix(c.data(), w.m, w.n, w.ldc), opts);
}

void check(const test::Problem& p, const std::vector<float>& c, const std::string& phase) {
  const std::string diff = test::compare_c(p.w, c, p.want, matmul_tolerance(p.w, 1.0));
  EXPECT_TRUE(diff.empty()) << phase << ":\n" << diff;
}

class ConstantB : public testing::TestWithParam<int> {};

TEST_P(ConstantB, EveryPhaseMatchesTheReference) {
  const int threads = GetParam();
  // N ≥ 256 and trans_b both make the default config pack B; a K×1 B is served transposed.
  for (const Workload& base : {mm(70, 300, 130), mm(70, 300, 130, true), mm(70, 1, 130)}) {
    const Workload w = epi(base, true, ActivationKind::gelu);
    SCOPED_TRACE(test::describe(w) + "\n  threads=" + std::to_string(threads));
    const test::Problem p(w, 21);
    Runtime rt(RuntimeOptions{threads, 1});
    const ConstantMatrix b(TensorView::matrix(p.b.data(), w.b_rows(), w.b_cols(), w.ldb));

    std::vector<float> c = p.c0;
    call_constant(rt, p, b, c);
    check(p, c, "first call (built-in kernel)");
    rt.wait_idle();
    c = p.c0;
    call_constant(rt, p, b, c);  // the JIT kernel packs B itself and has the copy made
    check(p, c, "JIT kernel, B packed by the call");
    rt.wait_idle();
    for (int round = 0; round < 2; ++round) {
      c = p.c0;
      call_constant(rt, p, b, c);
      check(p, c, "JIT kernel, B packed once, call " + std::to_string(round + 1));
    }

    // Another M on the same weights, with a plain call in between.
    Workload w2 = w;
    w2.m = 9;
    test::Problem p2(w2, 22);
    p2.b = p.b;
    p2.want = p2.c0;
    reference_matmul(w2, p2.a.data(), p2.b.data(), p2.bias.data(), p2.want.data());
    for (int round = 0; round < 3; ++round) {
      c = p2.c0;
      call_constant(rt, p2, b, c);
      check(p2, c, "second workload, call " + std::to_string(round + 1));
      rt.wait_idle();
      c = p.c0;
      test::call(rt, p, c);
      check(p, c, "first workload, plain b");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ConstantB, testing::Values(1, 2));

TEST(ConstantB, BadViewIsAnErrorNamingB) {
  std::vector<float> a(12), c(12);
  Runtime rt(RuntimeOptions{1, 1});
  const ConstantMatrix b(TensorView::matrix(nullptr, 4, 4));
  try {
    rt.matmul(TensorView::matrix(a.data(), 3, 4), b, TensorView::matrix(c.data(), 3, 4));
    FAIL() << "a null b was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.argument(), "b");
  }
}

// The operand itself: one claim per layout, the packed copy only once ready, and exactly what
// packing the whole of B gives.
TEST(ConstantOperand, PacksEachLayoutOnce) {
  const Workload w = mm(20, 70, 50);
  const test::Problem p(w, 23);
  GemmConfig g;
  g.mr = 4, g.nr = 2 * Target::host().vector_floats(), g.kc = 16, g.mc = 16, g.nc = 64, g.pack_b = true;
  GemmConfig h = g;
  h.kc = 32;
  const KernelPtr k1 = compile_gemm(w, g.to_config(Target::host()));
  const KernelPtr k2 = compile_gemm(w, h.to_config(Target::host()));
  ASSERT_NE(k1->b_layout, k2->b_layout);

  ConstantOperand op(p.b.data());
  const auto first = op.find(*k1);
  EXPECT_EQ(first.data, nullptr);
  ASSERT_NE(first.to_pack, nullptr);
  const auto again = op.find(*k1);
  EXPECT_EQ(again.data, nullptr);
  EXPECT_EQ(again.to_pack, nullptr) << "a layout is claimed once";
  const auto other = op.find(*k2);
  ASSERT_NE(other.to_pack, nullptr);
  EXPECT_NE(other.to_pack, first.to_pack);

  op.pack(first.to_pack, *k1);
  const auto ready = op.find(*k1);
  ASSERT_NE(ready.data, nullptr);
  EXPECT_EQ(ready.to_pack, nullptr);
  test::AlignedFloats want(packed_b_floats(w, k1->gemm));
  pack_whole_b(*k1, p.b.data(), want.get());
  const int64_t n = packed_b_floats(w, k1->gemm);
  int64_t differ = 0;
  for (int64_t i = 0; i < n; ++i) differ += ready.data[i] != want.get()[i];
  EXPECT_EQ(differ, 0);
  EXPECT_EQ(op.find(*k2).data, nullptr) << "the other layout is not packed yet";
}

// One shape called with B as a ConstantMatrix and with B passed fresh: two workloads, each
// with its own kernel and tuning (a config that packs B is free on the first and a pass over B
// on the second), both right.
TEST(ConstantB, AConstantBIsAWorkloadOfItsOwn) {
  const Workload w = mm(40, 300, 130);
  const test::Problem p(w, 23);
  RuntimeOptions o;
  o.threads = 1;
  o.persistent = false;
  Runtime rt(o);
  const ConstantMatrix b(TensorView::matrix(p.b.data(), w.k, w.n));
  for (int round = 0; round < 3; ++round) {
    std::vector<float> c = p.c0;
    call_constant(rt, p, b, c);
    check(p, c, "constant b, call " + std::to_string(round + 1));
    c = p.c0;
    test::call(rt, p, c);
    check(p, c, "plain b, call " + std::to_string(round + 1));
    rt.wait_idle();
  }
  Workload constant = w;
  constant.constant_b = true;
  std::vector<std::string> seen;
  for (const WorkloadInfo& i : rt.workloads()) {
    seen.push_back(i.workload);
    EXPECT_EQ(i.state, "jit") << i.workload;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{w.text(), constant.text()}));
}

// The demo's situation: weights shared by the workloads of several buckets of M, each tuning
// (candidates of many layouts race, copies get replaced) while two threads call: every call
// right.
TEST(ConstantB, BucketsOfMTuneOnSharedWeightsFromTwoThreads) {
  const Workload top = epi(mm(64, 300, 130), true, ActivationKind::gelu);
  const test::Problem p(top, 27);
  RuntimeOptions o;
  o.threads = 1;
  o.persistent = false;
  o.exploration_budget = 1.0;
  Runtime rt(o);
  const ConstantMatrix b(TensorView::matrix(p.b.data(), top.k, top.n));
  std::vector<std::string> failures(2);
  auto serve = [&](size_t t, int round) {
    std::mt19937 rng(uint32_t(50 + 2 * round + int(t)));
    std::uniform_int_distribution<int64_t> rows(1, top.m);
    const TensorView bias = TensorView::vector(p.bias.data(), top.n);
    MatmulOptions opts;
    opts.bias = &bias;
    opts.activation = Activation::gelu;
    for (int i = 0; i < 100; ++i) {
      const int64_t m = rows(rng);
      std::vector<float> c(size_t(m * top.ldc));
      rt.matmul(TensorView::matrix(p.a.data(), m, top.k), b, TensorView::matrix(c.data(), m, top.n), opts);
      Workload called = top;
      called.m = m;
      const std::vector<float> want(p.want.begin(), p.want.begin() + m * top.ldc);
      if (std::string diff = test::compare_c(called, c, want, matmul_tolerance(top, 1.0)); !diff.empty())
        failures[t] += "M = " + std::to_string(m) + ": " + diff;
    }
  };
  // Rounds of calls until candidates have raced on several workloads.
  size_t raced = 0;
  for (int round = 0; round < 200 && raced < 12; ++round) {
    std::vector<std::thread> callers;
    for (size_t t = 0; t < failures.size(); ++t) callers.emplace_back(serve, t, round);
    for (auto& th : callers) th.join();
    rt.wait_idle();
    raced = 0;
    for (const WorkloadInfo& w : rt.workloads()) raced += w.measured;
  }
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  EXPECT_GE(raced, 12u);
  EXPECT_GE(rt.workloads().size(), 4u) << "calls of M from 1 to 64 meet several buckets";
}

// Kernels of `count` distinct packed-B layouts (nr × kc) of one workload.
std::vector<KernelPtr> kernels_of_layouts(const Workload& w, size_t count) {
  std::vector<KernelPtr> out;
  const int vec = Target::host().vector_floats();
  for (int kc : {8, 16, 24, 32, 40, 48})
    for (int nv : {1, 2})
      if (out.size() < count) {
        GemmConfig g;
        g.mr = 4, g.nr = nv * vec, g.kc = kc, g.mc = 16, g.nc = 4 * nv * vec, g.pack_b = true;
        out.push_back(compile_gemm(w, g.to_config(Target::host())));
      }
  return out;
}

// One call of `k` as the dispatcher makes it: the packed copy if there is one (packing it
// here, where the runtime would in the background, when this call claims the layout), else B
// packed by the call. Whether the copy was used.
bool call_with_operand(ConstantOperand& op, const Kernel& k, const test::Problem& p, std::vector<float>& c) {
  const ConstantOperand::Lookup found = op.find(k);
  if (found.to_pack) op.pack(found.to_pack, k);
  test::AlignedFloats ws(k.workspace_floats);
  c = p.c0;
  k.run(GemmArgs{p.a.data(), p.b.data(), c.data(), nullptr, ws.get(), 0, k.tiles, found.data});
  ConstantOperand::done_reading();
  return found.data != nullptr;
}

TEST(ConstantOperand, ANewLayoutReplacesTheCopyLeastRecentlyUsedOnceTheSlotsAreFull) {
  const Workload w = mm(12, 70, 50);
  const test::Problem p(w, 24);
  const std::vector<KernelPtr> kernels = kernels_of_layouts(w, 12);
  ASSERT_EQ(kernels.size(), 12u);
  ConstantOperand op(p.b.data());
  std::vector<float> c;
  // Each layout in turn, as tuning tries candidates: each gets a copy within a few calls.
  for (const KernelPtr& k : kernels) {
    int calls = 0;
    while (!call_with_operand(op, *k, p, c)) {
      check(p, c, "B packed by the call, layout " + k->b_layout);
      ASSERT_LT(++calls, 4) << "layout " << k->b_layout << " never got a copy";
    }
    check(p, c, "packed copy, layout " + k->b_layout);
    EXPECT_LE(op.copies(), ConstantOperand::kLayouts);
  }
  EXPECT_EQ(op.copies(), ConstantOperand::kLayouts);
  // The latest layouts are held; the first ones were replaced and must be claimed again.
  EXPECT_NE(op.find(*kernels.back()).data, nullptr);
  EXPECT_EQ(op.find(*kernels.front()).data, nullptr);
  ConstantOperand::done_reading();
}

TEST(ConstantOperand, ALayoutInUseIsNotReplaced) {
  const Workload w = mm(12, 70, 50);
  const test::Problem p(w, 25);
  const std::vector<KernelPtr> kernels = kernels_of_layouts(w, 12);
  ConstantOperand op(p.b.data());
  std::vector<float> c;
  // The first layout serves a call between every two calls of the others (as an incumbent
  // does between a candidate's): it keeps its copy throughout.
  for (const KernelPtr& k : kernels)
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(call_with_operand(op, *kernels.front(), p, c), k != kernels.front() || i > 0) << k->b_layout;
      check(p, c, "the layout in use");
      call_with_operand(op, *k, p, c);
      check(p, c, "layout " + k->b_layout);
    }
}

TEST(ConstantOperand, CallersOnSeveralThreadsWhileLayoutsAreReplaced) {
  const Workload w = mm(12, 70, 50);
  const test::Problem p(w, 26);
  const std::vector<KernelPtr> kernels = kernels_of_layouts(w, 12);
  ConstantOperand op(p.b.data());
  std::vector<std::string> failures(4);
  std::vector<std::thread> callers;
  for (size_t t = 0; t < failures.size(); ++t)
    callers.emplace_back([&, t] {
      std::vector<float> c;
      for (size_t i = 0; i < 200; ++i) {
        const Kernel& k = *kernels[(i * (t + 1) + t) % kernels.size()];
        call_with_operand(op, k, p, c);
        if (std::string diff = test::compare_c(w, c, p.want, matmul_tolerance(w, 1.0)); !diff.empty())
          failures[t] += k.b_layout + ": " + diff;
      }
    });
  for (auto& th : callers) th.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  EXPECT_LE(op.copies(), ConstantOperand::kLayouts);
}

}  // namespace
}  // namespace livetune
