#pragma once
// The meaning of a workload, written as plainly as possible (double accumulation): the
// yardstick for tests and for validating candidates.
#include <cstdint>

#include "jit/workload.hpp"

namespace livetune {

double apply_activation(ActivationKind act, double x);

// c is read when beta != 0 and overwritten with the result; only rows [row_begin, row_end)
// (all rows by default) are computed.
void reference_matmul(const Workload& w, const float* a, const float* b, const float* bias, float* c,
                      int64_t row_begin = 0, int64_t row_end = -1);

// Largest |got - want| allowed for one element of this workload when every input element
// (A, B, bias, old C) is at most `max_abs_input` in magnitude: grows with K, the rounding
// error of a float sum of K products, and stays well below the size of one product.
double matmul_tolerance(const Workload& w, double max_abs_input);

}  // namespace livetune
