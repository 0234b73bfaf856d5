#pragma once
// Inputs of a workload made up from a seed, uniform in [-1, 1]: candidates are validated on
// them, and `livetune serve` calls with them.
#include <cstdint>

#include "jit/floats.hpp"
#include "jit/workload.hpp"

namespace livetune {

struct SyntheticInputs {
  SyntheticInputs(const Workload& w, uint64_t seed);
  Floats a, b, bias;
  Floats c;  // C before a call (read when beta != 0)
};

}  // namespace livetune
