#pragma once
// Which workload serves a call whose M varies from call to call (M = batch × sequence): a
// stream of distinct Ms shares the kernels, the tuning session and the record of a bucket of
// M, whose kernels take the call's M at run time, instead of compiling and tuning one kernel
// per value.
#include <cstdint>

#include "jit/workload.hpp"

namespace livetune {

struct MBuckets {
  enum class Rule : uint8_t {
    exact,          // every M its own workload
    powers_of_two,  // M in (2^(j-1), 2^j]: 3..4, 5..8, ..., 513..1024
    multiples,      // M in (i·step, (i+1)·step]
  };
  Rule rule = Rule::powers_of_two;
  int64_t step = 64;

  // The workload of a call of `w`: w itself, or the bucket of its M (w.min_m is 0).
  Workload key(const Workload& w) const;
};

}  // namespace livetune
