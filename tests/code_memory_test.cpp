// Dropping a kernel gives its memory back: 1000 compile/run/drop cycles keep the resident set
// (VmRSS, from /proc/self/statm) within a small bound. A long-running process compiles a
// variant for every candidate the sampler tries, so a per-kernel leak would grow without end.
//
// Calibration (Release, Zen5, LLVM 19, the small kernel below): one compile/run/drop cycle
// takes about 5 ms; after a warm-up of 100 cycles (LLVM's one-time state, the JIT's first
// slabs, malloc arenas) RSS grows by 0–0.1 MiB over the next 900 cycles, while a kernel that
// is held costs about 10 KiB of RSS (its code and data pages plus the JIT's bookkeeping).
// Leaking one 4 KiB code page per kernel would add 900 × 4 KiB ≈ 3.5 MiB, leaking whole
// kernels ≈ 9 MiB, so the bound of 2 MiB sees either with room for noise. (Bigger modules cost
// more to compile, up to 100 ms each with GELU and 8-fold unrolling, without making a leak
// more visible than that.) The test also checks its own eyesight: 100 kernels that are held
// must show up in RSS, else the measurement could not see a leak either.
//
// Sanitizer builds skip it: ASan's quarantine keeps freed memory resident by design, and
// TSan's shadow memory swamps the measurement. The label "slow" lets them exclude it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/kernel.hpp"
#include "jit/target.hpp"
#include "test_util.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LIVETUNE_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define LIVETUNE_TEST_SANITIZED 1
#endif
#endif

namespace livetune {
namespace {

constexpr int kWarmup = 100;
constexpr int kCycles = 900;
constexpr int kHeld = 100;
constexpr int64_t kMaxGrowthBytes = 2 << 20;  // see the calibration above
constexpr int64_t kMinHeldBytes = 4 << 10;    // a held kernel maps at least one page of code

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * int64_t(sysconf(_SC_PAGESIZE));
}

TEST(CodeMemory, CompileRunDropCyclesDoNotGrow) {
#ifdef LIVETUNE_TEST_SANITIZED
  GTEST_SKIP() << "RSS is not meaningful under a sanitizer";
#endif
  // A small kernel: cheap to compile (about 5 ms), yet each one maps its own code and data
  // pages, which is what a leak would keep. Each cycle drops the only kernel using its pieces,
  // so the next one compiles them again.
  const Workload w = Workload::matmul(8, 32, 16);
  GemmConfig g;
  g.mr = 2, g.nr = Target::host().vector_floats(), g.mc = 96, g.nc = 1536, g.unroll = 1;
  const Config c = g.to_config(Target::host());
  ASSERT_TRUE(gemm_space(w, Target::host()).valid(c)) << c.text();
  const test::Problem p(w, 1);
  const double tol = matmul_tolerance(w, 1.0);

  std::vector<float> out;
  auto cycle = [&](int i) {
    KernelPtr k = compile_gemm(w, c);
    out = p.c0;
    run_gemm_serial(*k, p.a.data(), p.b.data(), p.bias_ptr(), out.data());
    // Check every 100th run: a kernel that runs is one whose code was really mapped.
    if (i % 100 == 0) {
      const std::string diff = test::compare_c(w, out, p.want, tol);
      ASSERT_TRUE(diff.empty()) << test::describe(w, &c) << "\n" << diff;
    }
  };

  for (int i = 0; i < kWarmup; ++i) ASSERT_NO_FATAL_FAILURE(cycle(i));
  const int64_t before = resident_bytes();
  for (int i = 0; i < kCycles; ++i) ASSERT_NO_FATAL_FAILURE(cycle(i));
  const int64_t growth = resident_bytes() - before;

  // What a kernel costs while it is held: the yardstick of the bound.
  const int64_t before_held = resident_bytes();
  std::vector<KernelPtr> held;
  // Kernels of one workload and config share their pieces (piece_cache.hpp): give each held
  // one a C row stride of its own, so that each maps code of its own.
  for (int i = 0; i < kHeld; ++i) {
    Workload wi = w;
    wi.ldc = w.ldc + 1 + i;
    held.push_back(compile_gemm(wi, c));
  }
  const int64_t per_held = (resident_bytes() - before_held) / kHeld;
  held.clear();

  RecordProperty("rss_growth_kib", int(growth >> 10));
  RecordProperty("held_kernel_kib", int(per_held >> 10));
  std::printf("RSS growth over %d cycles: %lld KiB; one held kernel: %lld KiB\n", kCycles, (long long)(growth >> 10),
              (long long)(per_held >> 10));
  EXPECT_LT(growth, kMaxGrowthBytes) << "RSS grew by " << (growth >> 10) << " KiB over " << kCycles
                                     << " compile/run/drop cycles of " << test::describe(w, &c)
                                     << "\n  (a held kernel costs " << (per_held >> 10) << " KiB)";
  EXPECT_GE(per_held, kMinHeldBytes) << "held kernels do not show in RSS: this test could not see a leak";
}

}  // namespace
}  // namespace livetune
