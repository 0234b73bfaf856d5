#pragma once
// What plain GEMM entry points (BLAS, LIBXSMM, Eigen) lack: bias, activation, and any beta,
// done in as few passes over C as those entry points allow.
#include "jit/workload.hpp"

namespace livetune::peers {

// What Peer::prepare() was given, kept for run() by the peers that call a plain entry point.
struct Operands {
  Workload w;
  const float *a = nullptr, *b = nullptr, *bias = nullptr;
  float* c = nullptr;
  int threads = 0;  // 0: not prepared yet
};

// Writes beta·C + bias into C where the workload has a bias or a beta other than 0 and 1, so the
// GEMM can accumulate onto C with beta = 1. GEMMs zero or scale C in a pass of their own anyway,
// so this costs no extra pass. Returns the beta (0 or 1) to give the GEMM.
float fold_into_c(const Operands& op);

// Applies w.act to C in place (nothing for ActivationKind::none); gelu is the tanh form.
void activate(const Operands& op);

}  // namespace livetune::peers
