// Runtime::matmul through the public API: the first call of a workload (served by the built-in
// kernel) and the calls after its JIT kernel took over must both mean what the reference
// means, on one thread and on two; K = 0 gives act(bias + beta·C).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "jit/gemm_config.hpp"
#include "jit/target.hpp"
#include "livetune/livetune.hpp"
#include "policy/default_rule.hpp"
#include "runtime_call.hpp"
#include "test_util.hpp"
#include "workloads.hpp"

namespace livetune {
namespace {

using Case = test::Shape;
using test::call;
using test::to_api;
using test::epi;
using test::mm;
using test::padded;

// The runtime's view of `w`, or a default-constructed info.
WorkloadInfo info_of(const Runtime& rt, const Workload& w) {
  for (const WorkloadInfo& info : rt.workloads())
    if (info.workload == w.text()) return info;
  return {};
}

// What a failure must print: the workload and the config the runtime would compile for it.
std::string describe(const Workload& w, int threads) {
  const Config c = default_gemm_config(w, Target::host(), threads);
  return test::describe(w, &c);
}

std::vector<Case> cases() {
  using A = ActivationKind;
  return {
      {"square", mm(64, 64, 64)},
      {"primes_trans_b", mm(127, 255, 129, true)},
      {"m1", mm(1, 300, 77)},
      {"m5_trans_b", mm(5, 70, 40, true)},
      {"tall_skinny", mm(1000, 16, 64)},
      {"bias", epi(mm(33, 70, 129), true, A::none)},
      {"bias_relu", epi(mm(40, 65, 100), true, A::relu)},
      {"gelu", epi(mm(16, 48, 32), false, A::gelu)},
      {"bias_gelu", epi(mm(70, 130, 90), true, A::gelu)},
      {"beta_half", epi(mm(40, 50, 60), false, A::none, 0.5f)},
      {"beta_one_relu_padded", epi(padded(mm(30, 200, 20)), false, A::relu, 1.0f)},
      {"everything", epi(padded(mm(61, 99, 70, true)), true, A::gelu, 0.5f)},
      // A K×1 B is served as a 1×K B transposed (Workload::kernel_form); padded, it is not.
      {"n1", mm(300, 1, 77)},
      {"n1_bias_gelu_beta", epi(mm(70, 1, 130), true, A::gelu, 0.5f)},
      {"n1_padded_relu", epi(padded(mm(40, 1, 50)), true, A::relu)},
  };
}

void check_first_then_jit(const Workload& w, int threads) {
  const Workload served = w.kernel_form();  // what the runtime compiles and lists
  SCOPED_TRACE(describe(served, threads) + "\n  threads=" + std::to_string(threads));
  Runtime rt(RuntimeOptions{threads, 1});
  ASSERT_EQ(rt.threads(), threads);
  const test::Problem p(w, 11);
  const double tol = matmul_tolerance(w, 1.0);

  std::vector<float> c = p.c0;
  call(rt, p, c);
  std::string diff = test::compare_c(w, c, p.want, tol);
  EXPECT_TRUE(diff.empty()) << "first call (built-in kernel):\n" << diff;
  const WorkloadInfo first = info_of(rt, served);
  EXPECT_EQ(first.workload, served.text()) << "the runtime should list the workload after its first call";

  rt.wait_idle();
  const WorkloadInfo info = info_of(rt, served);
  ASSERT_EQ(info.state, "jit") << "after wait_idle the JIT kernel should be in use";
  ASSERT_FALSE(info.config.empty());
  EXPECT_NO_THROW(gemm_space(served, Target::host()).parse(info.config)) << info.config;
  EXPECT_GT(info.compile_ms, 0.0);

  // Twice on the JIT kernel, from the same initial C: no state carries over between calls.
  for (int round = 0; round < 2; ++round) {
    c = p.c0;
    call(rt, p, c);
    diff = test::compare_c(w, c, p.want, tol);
    EXPECT_TRUE(diff.empty()) << "JIT kernel '" << info.config << "', call " << round + 1 << ":\n" << diff;
  }
  EXPECT_EQ(rt.workloads().size(), 1u);
}

class RuntimeMatmul : public testing::TestWithParam<Case> {};

TEST_P(RuntimeMatmul, OneThread) { check_first_then_jit(GetParam().w, 1); }

TEST_P(RuntimeMatmul, TwoThreads) { check_first_then_jit(GetParam().w, 2); }

INSTANTIATE_TEST_SUITE_P(Cases, RuntimeMatmul, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& info) { return std::string(info.param.label); });

// Large enough that a two-thread runtime splits each call between its threads.
TEST(RuntimeThreads, LargeCallOnTwoThreads) {
  for (bool trans_b : {false, true}) {
    check_first_then_jit(epi(mm(200, 300, 100, trans_b), true, ActivationKind::relu, 0.5f), 2);
    check_first_then_jit(mm(9, 700, 400, trans_b), 2);  // few M tiles: split along N
    check_first_then_jit(mm(1, 600, 500, trans_b), 2);  // 0.6 MFLOP, bound by reading B
    // Split along M with a packed B larger than L2: the threads pack B once, together.
    check_first_then_jit(mm(120, 1100, 300, trans_b), 2);
  }
}

// K = 0: a is M×0 and b is 0×N (N×0 with trans_b), so C = act(bias + beta·C). The views carry
// an explicit row stride of 1 (see ApiEmpty.ZeroColumnsIsANoOp for the default one).
TEST(RuntimeKZero, BiasAndBetaOnly) {
  using A = ActivationKind;
  Runtime rt(RuntimeOptions{1, 1});
  for (const Workload& base : {mm(5, 9, 0), epi(mm(5, 9, 0), true, A::gelu), epi(mm(4, 7, 0, true), true, A::relu, 0.5f),
                               epi(mm(6, 3, 0), false, A::none, 1.0f)}) {
    Workload w = base;
    w.lda = 1, w.ldb = w.trans_b ? 1 : w.n;
    SCOPED_TRACE(w.text());
    const std::vector<float> bias = test::random_floats(size_t(w.n), 3);
    std::vector<float> c0 = w.beta != 0.0f ? test::random_floats(size_t(w.m * w.n), 4) : std::vector<float>(size_t(w.m * w.n), 99.0f);
    std::vector<float> want = c0;
    reference_matmul(w, nullptr, nullptr, bias.data(), want.data());

    const float dummy[1] = {0.0f};
    const TensorView bias_view = TensorView::vector(bias.data(), w.n);
    MatmulOptions opts;
    opts.trans_b = w.trans_b;
    opts.bias = w.bias ? &bias_view : nullptr;
    opts.activation = to_api(w.act);
    opts.beta = w.beta;
    for (int round = 0; round < 2; ++round) {
      std::vector<float> c = c0;
      rt.matmul(TensorView::matrix(dummy, w.m, 0, 1), TensorView::matrix(dummy, w.b_rows(), w.b_cols(), w.ldb),
                TensorView::matrix(c.data(), w.m, w.n), opts);
      const std::string diff = test::compare_c(w, c, want, matmul_tolerance(w, 1.0));
      EXPECT_TRUE(diff.empty()) << "round " << round << ":\n" << diff;
      rt.wait_idle();
    }
  }
}

TEST(RuntimeStats, TheTableAndTheJsonShowEveryWorkloadAndItsKernel) {
  RuntimeOptions o;
  o.threads = 1;
  o.tuning = false;
  Runtime rt(o);
  const test::Problem p1(mm(20, 30, 40), 1), p2(epi(mm(7, 16, 9), true, ActivationKind::gelu), 2);
  for (const test::Problem* p : {&p1, &p2}) {
    std::vector<float> c = p->c0;
    call(rt, *p, c);
  }
  rt.wait_idle();
  const RuntimeStats stats = rt.stats();
  ASSERT_EQ(stats.workloads.size(), 2u);
  const std::string table = stats.table(), json = stats.json();
  for (const WorkloadInfo& w : stats.workloads) {
    EXPECT_EQ(w.state, "jit");
    EXPECT_EQ(w.tuning, "frozen");
    EXPECT_FALSE(w.config.empty());
    EXPECT_NE(table.find(w.workload.substr(0, 40)), std::string::npos) << table;
    EXPECT_NE(table.find(w.config), std::string::npos) << table;
    EXPECT_NE(json.find("\"workload\": \"" + w.workload + "\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"config\": \"" + w.config + "\""), std::string::npos) << json;
  }
  // Frozen, each runs its first kernel: its own speed-up, whatever two samples of its time say.
  size_t same_kernel = 0;
  for (size_t at = table.find(" 1.00x "); at != std::string::npos; at = table.find(" 1.00x ", at + 1)) ++same_kernel;
  EXPECT_EQ(same_kernel, 2u) << table;
  size_t json_same = 0;
  for (size_t at = json.find("\"speedup\": 1,"); at != std::string::npos; at = json.find("\"speedup\": 1,", at + 1))
    ++json_same;
  EXPECT_EQ(json_same, 2u) << json;
  EXPECT_EQ(std::count(json.begin(), json.end(), '{'), std::count(json.begin(), json.end(), '}'));
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '}');
}

TEST(RuntimeLog, ACallbackGetsTheMessagesAtItsLevelAndAboveUntilRemoved) {
  struct Message {
    LogSeverity severity;
    std::string text;
  };
  std::mutex mutex;
  std::vector<Message> got;
  auto keep = [&](LogSeverity s, const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex);
    got.push_back({s, text});
  };
  auto run_one_workload = [](int64_t n) {
    RuntimeOptions o;
    o.threads = 1;
    o.tuning = false;
    o.persistent = false;
    Runtime rt(o);
    const test::Problem p(mm(8, n, 8), 3);
    std::vector<float> c = p.c0;
    call(rt, p, c);
    rt.wait_idle();
  };
  set_log_callback(keep, LogSeverity::info);
  run_one_workload(24);
  set_log_callback(keep, LogSeverity::warn);
  run_one_workload(25);
  set_log_callback(nullptr);
  run_one_workload(26);
  std::lock_guard<std::mutex> lock(mutex);
  const auto mentions = [&](int64_t n) {
    return std::count_if(got.begin(), got.end(), [&](const Message& m) {
      return m.text.find(mm(8, n, 8).text()) != std::string::npos && m.text.find("JIT kernel") != std::string::npos;
    });
  };
  EXPECT_EQ(mentions(24), 1) << "the kernel taking over is an info message";
  EXPECT_EQ(mentions(25), 0) << "below the callback's level";
  EXPECT_EQ(mentions(26), 0) << "the callback was removed";
  for (const Message& m : got) EXPECT_GE(int(m.severity), int(LogSeverity::info)) << m.text;
}

// The kernel taking over is logged on the background compile thread: a callback throwing
// there ended the process (std::terminate). Now the call and the compile go on.
TEST(RuntimeLog, ACallbackThatThrowsLosesItsMessagesNotTheProcess) {
  std::atomic<int> thrown{0};
  set_log_callback(
      [&](LogSeverity, const std::string&) {
        ++thrown;
        throw std::runtime_error("a callback that throws");
      },
      LogSeverity::info);
  {
    Runtime rt(RuntimeOptions{1, 1});
    const test::Problem p(mm(8, 27, 8), 3);
    std::vector<float> c = p.c0;
    call(rt, p, c);
    rt.wait_idle();
    c = p.c0;
    call(rt, p, c);
    EXPECT_EQ(info_of(rt, p.w).state, "jit");
    EXPECT_TRUE(test::compare_c(p.w, c, p.want, matmul_tolerance(p.w, 1.0)).empty());
  }
  set_log_callback(nullptr);
  EXPECT_GE(thrown.load(), 1) << "the callback should have been called (and thrown)";
}

// A process-wide Runtime (a game engine's or a server's global) is destroyed after main
// returns, after statics the library made on its first compile; freeing its kernels then must
// not need them. It had the process hang on exit (a lock of the destroyed JIT). The death test
// runs in a fresh process, where the static Runtime is made before any of the library's.
TEST(RuntimeExit, StaticRuntimeLetsTheProcessExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        static Runtime rt(RuntimeOptions{1, 1});
        const Workload w = mm(64, 48, 40);
        const test::Problem p(w, 5);
        std::vector<float> c = p.c0;
        call(rt, p, c);
        rt.wait_idle();
        c = p.c0;
        call(rt, p, c);  // on the JIT kernel
        const bool right =
            info_of(rt, w).state == "jit" && test::compare_c(w, c, p.want, matmul_tolerance(w, 1.0)).empty();
        std::exit(right ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

// The same with compiles queued and running when main returns: they must neither run on
// after the statics LLVM made for them are gone (it crashed in instruction selection) nor
// keep the process from exiting. Twelve workloads, whose built-in calls take microseconds and
// whose compiles milliseconds each: the queue is still busy at exit (checked).
TEST(RuntimeExit, StaticRuntimeExitsWithCompilesInFlight) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        static Runtime rt(RuntimeOptions{1, 1});
        bool right = true;
        for (int64_t n = 17; n < 17 + 12; ++n) {
          const Workload w = mm(20, n, 30);
          const test::Problem p(w, uint64_t(n));
          std::vector<float> c = p.c0;
          call(rt, p, c);
          right = right && test::compare_c(w, c, p.want, matmul_tolerance(w, 1.0)).empty();
        }
        const std::vector<WorkloadInfo> infos = rt.workloads();
        const bool busy =
            std::any_of(infos.begin(), infos.end(), [](const WorkloadInfo& i) { return i.state == "compiling"; });
        std::exit(!right ? 1 : !busy ? 2 : 0);
      },
      testing::ExitedWithCode(0), "");
}

// fork() (a server that forks its workers after start-up): the child has none of the parent's
// threads. Forked with compiles queued and running, the child gets every JIT kernel and
// compiles workloads of its own (it waited forever on the parent's compile threads), and the
// parent goes on as before. One thread per runtime: TBB's pool is not carried across a fork.
TEST(RuntimeFork, ChildAndParentBothCompileAndComputeRight) {
  Runtime rt(RuntimeOptions{1, 1});
  std::vector<test::Problem> problems;
  for (int64_t n = 17; n < 17 + 8; ++n) problems.emplace_back(mm(20, n, 30), uint64_t(n));
  // Right on every kernel of the runtime, and each workload on its JIT kernel; false otherwise.
  auto all_right_on_jit = [&](const std::vector<test::Problem>& ps) {
    rt.wait_idle();
    bool right = true;
    for (const test::Problem& p : ps) {
      std::vector<float> c = p.c0;
      call(rt, p, c);
      right = right && info_of(rt, p.w.kernel_form()).state == "jit" &&
              test::compare_c(p.w, c, p.want, matmul_tolerance(p.w, 1.0)).empty();
    }
    return right;
  };
  for (const test::Problem& p : problems) {
    std::vector<float> c = p.c0;
    call(rt, p, c);
  }
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<test::Problem> own;
    own.emplace_back(mm(9, 40, 50, true), 1);
    own.emplace_back(mm(33, 64, 20), 2);
    for (const test::Problem& p : own) {
      std::vector<float> c = p.c0;
      call(rt, p, c);
    }
    _exit(all_right_on_jit(problems) && all_right_on_jit(own) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child's status " << status;
  EXPECT_TRUE(all_right_on_jit(problems));
}

// A child forked from a thread other than the main one has that thread as its main thread:
// it too stops its compiles on exit (without, the child crashed in 4 of 6 runs).
TEST(RuntimeFork, AChildForkedFromAnotherThreadExitsWithCompilesInFlight) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // The child has the forking thread only: under AddressSanitizer, what the parent's main thread
  // holds on its stack (the test framework's state) reads as leaked when the child exits.
  // The death test's process is started anew and reads this; other builds ignore it.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const bool had_asan = asan != nullptr;
  const std::string asan_before = asan ? asan : "";
  setenv("ASAN_OPTIONS", (asan_before + ":detect_leaks=0").c_str(), 1);
  EXPECT_EXIT(
      {
        static Runtime rt(RuntimeOptions{1, 1});
        int status = -1;
        std::thread forker([&] {
          const pid_t pid = fork();
          if (pid == 0) {
            for (int64_t n = 17; n < 17 + 12; ++n) {
              const test::Problem p(mm(20, n, 30), uint64_t(n));
              std::vector<float> c = p.c0;
              call(rt, p, c);
            }
            std::exit(0);
          }
          if (pid > 0) waitpid(pid, &status, 0);
        });
        forker.join();
        std::exit(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
  if (had_asan)
    setenv("ASAN_OPTIONS", asan_before.c_str(), 1);
  else
    unsetenv("ASAN_OPTIONS");
}

}  // namespace
}  // namespace livetune
