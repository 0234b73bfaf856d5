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
    return prepared_ ? "cblas_sgemm, core " + std::string(openblas_get_corename()) + ", " + std::to_string(threads_) +
                           " thread(s)"
                     : "";
  }

  void prepare(const Workload& w, const float* a, const float* b, const float* bias, float* c,
               int threads) override {
    w_ = w, a_ = a, b_ = b, bias_ = bias, c_ = c, threads_ = threads, prepared_ = true;
    openblas_set_num_threads(threads);
  }

  void run() override {
    // The thread count is process-wide: another OpenBLAS user may have changed it since prepare().
    if (openblas_get_num_threads() != threads_) openblas_set_num_threads(threads_);
    float beta = fold_into_c(w_, bias_, c_);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, w_.trans_b ? CblasTrans : CblasNoTrans, blasint(w_.m),
                blasint(w_.n), blasint(w_.k), 1.0f, a_, blasint(w_.lda), b_, blasint(w_.ldb), beta, c_,
                blasint(w_.ldc));
    activate(w_, c_);
  }

 private:
  Workload w_;
  const float *a_ = nullptr, *b_ = nullptr, *bias_ = nullptr;
  float* c_ = nullptr;
  int threads_ = 1;
  bool prepared_ = false;
};

}  // namespace

std::unique_ptr<Peer> make_openblas() { return std::make_unique<OpenBlasPeer>(); }

}  // namespace livetune::peers
