#pragma once
// Turning a matmul call's arguments into a Workload, or a livetune::Error naming the first
// bad argument.
#include "jit/workload.hpp"
#include "livetune/runtime.hpp"

namespace livetune {

Workload matmul_workload(const TensorView& a, const TensorView& b, const TensorView& c, const MatmulOptions& opts);

}  // namespace livetune
