#pragma once
// Every element of a workload's result, for validating candidates on all of C: the loops of
// jit/reference.hpp take seconds on a large GEMM, a blocked product (Eigen's, in double) a
// small part of that. The sums are in double, as the reference's are; only their order
// differs, far below a float kernel's tolerance.
#include "jit/floats.hpp"
#include "jit/workload.hpp"

namespace livetune {

// C = act(A·B + bias + beta·c_init), every row.
Floats full_reference(const Workload& w, const float* a, const float* b, const float* bias, const Floats& c_init);

}  // namespace livetune
