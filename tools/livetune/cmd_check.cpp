// Compiles configs of one workload and checks each against the reference: every row, every
// column. Prints the text of each failing config so that a failure can be replayed.
#include <cstdio>
#include <random>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/reference.hpp"
#include "tools/livetune/args.hpp"
#include "tools/livetune/commands.hpp"
#include "tools/livetune/problem.hpp"

namespace livetune::cli {

int cmd_check(const std::vector<std::string>& argv) {
  auto valued = kWorkloadValued;
  valued.insert({"configs", "config", "seed"});
  Args args(argv, kWorkloadSwitches, valued);
  const Workload w = workload_from(args);
  const Space space = gemm_space(w, Target::host());
  std::mt19937_64 rng(uint64_t(args.get_int("seed", 1)));
  std::vector<Config> configs = args.has("config") ? std::vector<Config>{space.parse(args.get("config"))}
                                                   : space.sample_distinct(rng, size_t(args.get_int("configs", 20)));
  const Problem p(w, uint64_t(args.get_int("seed", 1)));
  std::vector<float> want = p.c;
  reference_matmul(w, p.a.data(), p.b.data(), p.bias.data(), want.data());
  const double tol = matmul_tolerance(w, 1.0);

  int failures = 0;
  for (const Config& c : configs) {
    std::string why;
    try {
      KernelPtr k = compile_gemm(w, c);
      std::vector<float> got = p.c;
      run_gemm_serial(*k, p.a.data(), p.b.data(), p.bias.data(), got.data());
      for (size_t i = 0; i < got.size() && why.empty(); ++i) {
        const bool in_row = int64_t(i) % w.ldc < w.n;
        const double err = std::abs(double(got[i]) - want[i]);
        if (in_row ? !(err <= tol) : got[i] != p.c[i])
          why = "C[" + std::to_string(int64_t(i) / w.ldc) + "][" + std::to_string(int64_t(i) % w.ldc) + "] = " +
                std::to_string(got[i]) + ", expected " + std::to_string(in_row ? want[i] : p.c[i]);
      }
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!why.empty()) {
      ++failures;
      std::printf("FAIL %s | %s | %s\n", w.text().c_str(), c.text().c_str(), why.c_str());
    }
  }
  std::printf("%zu configs checked on '%s': %zu passed, %d failed\n", configs.size(), w.text().c_str(),
              configs.size() - size_t(failures), failures);
  return failures ? 1 : 0;
}

}  // namespace livetune::cli
