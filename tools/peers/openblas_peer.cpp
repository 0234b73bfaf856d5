// OpenBLAS cblas_sgemm; bias folded into C before the call, activation in one pass after it.
#include <cblas.h>

#include "tools/peers/epilogue.hpp"
#include "tools/peers/factories.hpp"

namespace livetune::peers {
namespace {

class OpenBlasPeer final : public Peer {
 public:
  std::string name() const override { return "openblas"; }
  std::string detail() const override {
    // The core OpenBLAS picked at load (it falls back to older kernels on CPUs it does not know).
    return op_.threads > 0 ? "cblas_sgemm, core " + std::string(openblas_get_corename()) + ", " +
                                 std::to_string(op_.threads) + " thread(s)"
                           : "";
  }

  void prepare(const Workload& w, const float* a, const float* b, const float* bias, float* c,
               int threads) override {
    op_ = Operands{w, a, b, bias, c, threads};
    openblas_set_num_threads(threads);
  }

  void run() override {
    // The thread count is process-wide: another OpenBLAS user may have changed it since prepare().
    if (openblas_get_num_threads() != op_.threads) openblas_set_num_threads(op_.threads);
    float beta = fold_into_c(op_);
    const Workload& w = op_.w;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, w.trans_b ? CblasTrans : CblasNoTrans, blasint(w.m), blasint(w.n),
                blasint(w.k), 1.0f, op_.a, blasint(w.lda), op_.b, blasint(w.ldb), beta, op_.c, blasint(w.ldc));
    activate(op_);
  }

 private:
  Operands op_;
};

}  // namespace

std::unique_ptr<Peer> make_openblas() { return std::make_unique<OpenBlasPeer>(); }

}  // namespace livetune::peers
