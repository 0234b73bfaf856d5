// Several threads at once: callers of one Runtime on a mix of known and new workloads while
// compiles run in the background, and threads compiling, running and dropping kernels at the
// same time. Every result is checked against a reference computed beforehand. Threads start
// together on a latch (no sleeps); failures are collected and reported on the main thread.
// CI runs this file under ThreadSanitizer (label "concurrency"): shapes are small.
#include <gtest/gtest.h>

#include <algorithm>
#include <latch>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/kernel.hpp"
#include "jit/target.hpp"
#include "livetune/livetune.hpp"
#include "runtime_call.hpp"
#include "test_util.hpp"
#include "workloads.hpp"

namespace livetune {
namespace {

constexpr int kThreads = 4;

using test::call;
using test::epi;
using test::mm;
using test::padded;

// Failures from worker threads, reported by the main thread.
struct Failures {
  std::mutex mutex;
  std::vector<std::string> list;
  void add(std::string s) {
    std::lock_guard<std::mutex> lock(mutex);
    list.push_back(std::move(s));
  }
  void report() {
    for (size_t i = 0; i < list.size() && i < 10; ++i) ADD_FAILURE() << list[i];
    EXPECT_TRUE(list.empty()) << list.size() << " failures";
    list.clear();
  }
};

TEST(RuntimeConcurrency, CallersOnKnownAndNewWorkloads) {
  using A = ActivationKind;
  // The first three are known (their JIT kernels in use) before the callers start.
  const std::vector<Workload> workloads = {
      mm(32, 48, 40),
      epi(mm(17, 33, 29, true), true, A::relu),
      epi(mm(8, 100, 16), false, A::gelu, 0.5f),
      mm(40, 40, 40),
      epi(mm(23, 64, 31), true, A::none, 1.0f),
      mm(1, 200, 50, true),
      epi(padded(mm(30, 50, 20)), true, A::gelu),
      epi(mm(160, 160, 160), true, A::relu),  // large enough to be split over both threads
  };
  constexpr size_t kKnown = 3;
  std::vector<std::unique_ptr<test::Problem>> problems;
  for (size_t i = 0; i < workloads.size(); ++i) problems.push_back(std::make_unique<test::Problem>(workloads[i], 40 + i));

  Runtime rt(RuntimeOptions{2, 1});
  for (size_t i = 0; i < kKnown; ++i) {
    std::vector<float> c = problems[i]->c0;
    call(rt, *problems[i], c);
  }
  rt.wait_idle();

  Failures failures;
  std::latch start(kThreads);
  auto caller = [&](int id) {
    start.arrive_and_wait();
    std::vector<float> c;
    for (int round = 0; round < 4; ++round) {
      for (size_t j = 0; j < problems.size(); ++j) {
        // Each thread walks the workloads from a different place, so new ones are met by
        // several threads at once and some while their compile is under way.
        const test::Problem& p = *problems[(j + size_t(id) * 2) % problems.size()];
        c = p.c0;
        call(rt, p, c);
        const std::string diff = test::compare_c(p.w, c, p.want, matmul_tolerance(p.w, 1.0));
        if (!diff.empty())
          failures.add("thread " + std::to_string(id) + " round " + std::to_string(round) + ": " +
                       test::describe(p.w) + "\n" + diff);
      }
    }
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id) threads.emplace_back(caller, id);
  for (auto& t : threads) t.join();
  failures.report();

  rt.wait_idle();
  const auto infos = rt.workloads();
  EXPECT_EQ(infos.size(), workloads.size()) << "each workload should have exactly one state";
  for (const WorkloadInfo& info : infos) EXPECT_EQ(info.state, "jit") << info.workload << " config '" << info.config << "'";
  // Once more, all on JIT kernels.
  for (const auto& p : problems) {
    std::vector<float> c = p->c0;
    call(rt, *p, c);
    const std::string diff = test::compare_c(p->w, c, p->want, matmul_tolerance(p->w, 1.0));
    EXPECT_TRUE(diff.empty()) << test::describe(p->w) << "\n" << diff;
  }
}

// Two runtimes used from several threads at once: their states never mix.
TEST(RuntimeConcurrency, TwoRuntimesSameWorkloads) {
  const std::vector<Workload> workloads = {mm(20, 30, 40), epi(mm(9, 33, 17, true), true, ActivationKind::gelu)};
  std::vector<std::unique_ptr<test::Problem>> problems;
  for (size_t i = 0; i < workloads.size(); ++i) problems.push_back(std::make_unique<test::Problem>(workloads[i], 70 + i));
  Runtime one(RuntimeOptions{1, 1}), two(RuntimeOptions{2, 1});
  Failures failures;
  std::latch start(kThreads);
  auto caller = [&](int id) {
    Runtime& rt = id % 2 ? one : two;
    start.arrive_and_wait();
    for (int round = 0; round < 6; ++round) {
      const test::Problem& p = *problems[size_t(round + id) % problems.size()];
      std::vector<float> c = p.c0;
      call(rt, p, c);
      const std::string diff = test::compare_c(p.w, c, p.want, matmul_tolerance(p.w, 1.0));
      if (!diff.empty()) failures.add("thread " + std::to_string(id) + ": " + test::describe(p.w) + "\n" + diff);
    }
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id) threads.emplace_back(caller, id);
  for (auto& t : threads) t.join();
  failures.report();
  one.wait_idle();
  two.wait_idle();
  EXPECT_EQ(one.workloads().size(), workloads.size());
  EXPECT_EQ(two.workloads().size(), workloads.size());
}

// Threads compiling at once, then running their kernels, the kernels of other threads, and
// dropping them (which unmaps code) while others still compile.
TEST(CompileConcurrency, CompileRunDropAtOnce) {
  constexpr int kPerThread = 3;
  const Target& host = Target::host();
  std::vector<Workload> workloads;
  std::vector<Config> configs;
  std::mt19937_64 rng(99);
  for (int i = 0; i < kThreads * kPerThread; ++i) {
    Workload w = epi(mm(5 + 7 * i, 9 + 11 * i, 3 + 5 * i, i % 3 == 0), i % 2 == 0, ActivationKind(i % 3), i % 4 ? 0.0f : 0.5f);
    workloads.push_back(w);
    configs.push_back(gemm_space(w, host).sample(rng));
  }
  std::vector<std::unique_ptr<test::Problem>> problems;
  for (size_t i = 0; i < workloads.size(); ++i) problems.push_back(std::make_unique<test::Problem>(workloads[i], 200 + i));

  std::vector<KernelPtr> kernels(workloads.size());
  Failures failures;
  auto check = [&](size_t i, const char* what) {
    const test::Problem& p = *problems[i];
    std::vector<float> c = p.c0;
    run_gemm_serial(*kernels[i], p.a.data(), p.b.data(), p.bias_ptr(), c.data());
    const std::string diff = test::compare_c(p.w, c, p.want, matmul_tolerance(p.w, 1.0));
    if (!diff.empty()) failures.add(std::string(what) + ": " + test::describe(p.w, &configs[i]) + "\n" + diff);
  };

  // Phase 1: every thread compiles its share at once and runs what it compiled.
  {
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int id = 0; id < kThreads; ++id) {
      threads.emplace_back([&, id] {
        start.arrive_and_wait();
        for (int j = 0; j < kPerThread; ++j) {
          const size_t i = size_t(id * kPerThread + j);
          try {
            kernels[i] = compile_gemm(workloads[i], configs[i]);
            check(i, "run by its compiling thread");
          } catch (const std::exception& e) {
            failures.add(std::string("compile_gemm failed: ") + test::describe(workloads[i], &configs[i]) + ": " + e.what());
          }
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  failures.report();
  for (const auto& k : kernels) ASSERT_NE(k, nullptr);

  // Phase 2: each thread runs another thread's kernels, then drops them, while the others
  // compile new variants of their own.
  std::vector<KernelPtr> fresh(workloads.size());
  {
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int id = 0; id < kThreads; ++id) {
      threads.emplace_back([&, id] {
        start.arrive_and_wait();
        const int other = (id + 1) % kThreads;
        for (int j = 0; j < kPerThread; ++j) {
          const size_t mine = size_t(id * kPerThread + j), theirs = size_t(other * kPerThread + j);
          check(theirs, "run by another thread");
          try {
            fresh[mine] = compile_gemm(workloads[mine], configs[mine]);
          } catch (const std::exception& e) {
            failures.add(std::string("compile_gemm failed: ") + e.what());
          }
        }
        // Drop the kernels this thread was given; their owner slots are only ours to clear.
        for (int j = 0; j < kPerThread; ++j) kernels[size_t(other * kPerThread + j)].reset();
      });
    }
    for (auto& t : threads) t.join();
  }
  failures.report();

  // Phase 3: one kernel, its tile ranges run by several threads at once into one C, each with a
  // workspace of its own: what the runtime's executor does.
  for (size_t i = 0; i < fresh.size(); ++i) {
    ASSERT_NE(fresh[i], nullptr);
    const Kernel& k = *fresh[i];
    const test::Problem& p = *problems[i];
    std::vector<float> c = p.c0;
    const int64_t parts = std::min<int64_t>(kThreads, k.tiles);
    std::latch start{static_cast<std::ptrdiff_t>(parts)};
    std::vector<std::thread> threads;
    for (int64_t part = 0; part < parts; ++part) {
      threads.emplace_back([&, part] {
        test::AlignedFloats ws(k.workspace_floats);
        const GemmArgs args{p.a.data(), p.b.data(), c.data(), p.bias_ptr(), ws.get(), k.tiles * part / parts,
                            k.tiles * (part + 1) / parts};
        start.arrive_and_wait();
        k.run(args);
      });
    }
    for (auto& t : threads) t.join();
    const std::string diff = test::compare_c(p.w, c, p.want, matmul_tolerance(p.w, 1.0));
    EXPECT_TRUE(diff.empty()) << parts << " threads on tile ranges of " << k.tiles << ": "
                              << test::describe(p.w, &configs[i]) << "\n" << diff;
  }
}

}  // namespace
}  // namespace livetune
