#pragma once
// Compiling and validating many variants of one workload at once, on a bounded number of
// threads: the offline search of `livetune bench`, and later each round of a tuning session.
#include <string>
#include <vector>

#include "jit/kernel.hpp"
#include "jit/space.hpp"
#include "sampler/validation.hpp"

namespace livetune {

struct Compiled {
  Config config;
  KernelPtr kernel;   // null when it failed
  std::string error;  // why it failed: compile error or validation mismatch
};

// Results in the order of `configs`. Never throws for a variant's own failure.
std::vector<Compiled> compile_and_validate(const ValidationData& data, const std::vector<Config>& configs,
                                           int threads);

}  // namespace livetune
