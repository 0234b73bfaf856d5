#pragma once
// The workload flags shared by the subcommands (--m --n --k --trans-b --bias --act --beta
// --lda --ldb --ldc), and random inputs for it.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "jit/workload.hpp"
#include "tools/livetune/args.hpp"

namespace livetune::cli {

extern const std::set<std::string> kWorkloadSwitches;
extern const std::set<std::string> kWorkloadValued;

Workload workload_from(const Args& args);

// Buffers for one workload, uniform in [-1, 1] from `seed`.
struct Problem {
  Problem(const Workload& w, uint64_t seed);
  Workload w;
  std::vector<float> a, b, bias, c;
};

}  // namespace livetune::cli
