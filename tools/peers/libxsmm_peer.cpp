// LIBXSMM 1.17 at its best on this machine. LIBXSMM is column-major, so the row-major C = A·B is
// computed as the column-major Cᵀ = Bᵀ·Aᵀ: the same memory, with A and B swapped. One thread: a
// JIT kernel for the exact shape where that wins (see jit_wins); otherwise libxsmm_sgemm, which
// runs its own kernels up to LIBXSMM_MAX_MNK and calls the linked BLAS (OpenBLAS) above it. More
// threads: libxsmm_sgemm_omp (libxsmmext, OpenMP).
#include <cblas.h>
#include <libxsmm.h>
#include <omp.h>

#include "tools/peers/epilogue.hpp"
#include "tools/peers/factories.hpp"

namespace livetune::peers {
namespace {

// A JIT kernel has no cache blocking: it streams B once per few rows of A. Measured against
// libxsmm_sgemm on this machine (1 thread), it wins while B stays in L2 (B ≤ 512 KiB: 256³, 384³,
// 1024x256x256) or when A has so few rows that B is read about once (M ≤ 8: 1x4096x4096 6.1
// against 3.9 GFLOP/s), and loses otherwise (512³ 134 against 169, 16x4096x4096 46 against 54).
// LIBXSMM's JIT has no transposed first operand, which trans_b would need.
bool jit_wins(const Workload& w) {
  bool b_in_l2 = double(w.k) * double(w.n) * sizeof(float) <= 512.0 * 1024.0;
  return !w.trans_b && (b_in_l2 || w.m <= 8);
}

class LibxsmmPeer final : public Peer {
 public:
  LibxsmmPeer() { libxsmm_init(); }

  std::string name() const override { return "libxsmm"; }
  std::string detail() const override { return detail_; }

  void prepare(const Workload& w, const float* a, const float* b, const float* bias, float* c,
               int threads) override {
    op_ = Operands{w, a, b, bias, c, threads};
    kernel_ = nullptr;
    if (threads == 1 && jit_wins(w)) {
      // The kernel's beta is fixed at generation; fold_into_c gives the same answer on every call.
      float beta = (w.bias || w.beta != 0.0f) ? 1.0f : 0.0f;
      float alpha = 1.0f;
      int flags = beta == 0.0f ? LIBXSMM_GEMM_FLAG_BETA_0 : LIBXSMM_GEMM_FLAG_NONE;
      int prefetch = LIBXSMM_PREFETCH_NONE;
      libxsmm_blasint ld_first = w.ldb, ld_second = w.lda, ldc = w.ldc;
      kernel_ = libxsmm_smmdispatch(w.n, w.m, w.k, &ld_first, &ld_second, &ldc, &alpha, &beta, &flags, &prefetch);
    }
    if (kernel_) {
      detail_ = "JIT kernel, 1 thread";
    } else if (threads == 1) {
      // Checked by intercepting sgemm_: libxsmm_sgemm keeps to its own kernels only up to
      // LIBXSMM_MAX_MNK and never for a transposed first operand.
      bool own = LIBXSMM_SMM(w.n, w.m, w.k, 2, sizeof(float)) && !w.trans_b;
      detail_ = own ? "libxsmm_sgemm, 1 thread" : "libxsmm_sgemm, falls back to OpenBLAS sgemm, 1 thread";
    } else {
      detail_ = "libxsmm_sgemm_omp, " + std::to_string(threads) + " OpenMP thread(s)";
    }
  }

  void run() override {
    float beta = fold_into_c(op_);
    if (kernel_) {
      kernel_(op_.b, op_.a, op_.c);
    } else {
      // Where libxsmm hands the call to BLAS, OpenBLAS's process-wide thread count applies.
      if (openblas_get_num_threads() != op_.threads) openblas_set_num_threads(op_.threads);
      const Workload& w = op_.w;
      const char trans_first = w.trans_b ? 'T' : 'N', trans_second = 'N';
      const libxsmm_blasint m = w.n, n = w.m, k = w.k, ld_first = w.ldb, ld_second = w.lda, ldc = w.ldc;
      const float alpha = 1.0f;
      if (op_.threads == 1) {
        libxsmm_sgemm(&trans_first, &trans_second, &m, &n, &k, &alpha, op_.b, &ld_first, op_.a, &ld_second, &beta,
                      op_.c, &ldc);
      } else {
        omp_set_num_threads(op_.threads);
        libxsmm_sgemm_omp(&trans_first, &trans_second, &m, &n, &k, &alpha, op_.b, &ld_first, op_.a, &ld_second, &beta,
                          op_.c, &ldc);
      }
    }
    activate(op_);
  }

 private:
  Operands op_;
  libxsmm_smmfunction kernel_ = nullptr;
  std::string detail_;
};

}  // namespace

std::unique_ptr<Peer> make_libxsmm() { return std::make_unique<LibxsmmPeer>(); }

}  // namespace livetune::peers
