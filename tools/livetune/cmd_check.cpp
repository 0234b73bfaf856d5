// Compiles configs of one workload and checks each against the reference: every row, every
// column. Prints the text of each failing config so that a failure can be replayed.
#include <cstdio>
#include <random>
#include <stdexcept>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "tools/livetune/args.hpp"
#include "tools/livetune/commands.hpp"
#include "sampler/validation.hpp"
#include "tools/livetune/workload_flags.hpp"

namespace livetune::cli {

int cmd_check(const std::vector<std::string>& argv) {
  auto valued = kWorkloadValued;
  valued.insert({"configs", "config", "seed"});
  Args args(argv, kWorkloadSwitches, valued);
  const Workload w = workload_from(args).kernel_form();
  const Space space = gemm_space(w, Target::host());
  std::mt19937_64 rng(uint64_t(args.get_int("seed", 1)));
  std::vector<Config> configs = args.has("config") ? std::vector<Config>{space.parse(args.get("config"))}
                                                   : space.sample_distinct(rng, size_t(args.get_int("configs", 20)));
  const ValidationData data(w, uint64_t(args.get_int("seed", 1)));

  int failures = 0;
  for (const Config& c : configs) {
    std::string why;
    try {
      why = data.check(*compile_gemm(w, c));
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
