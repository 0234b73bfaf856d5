// Eigen 3.4 through Maps with outer strides. This file is built with OpenMP (the only way
// Eigen's GEMM runs threaded) and -march=native (Eigen is header-only: without it the product
// would be SSE2 code, far below what Eigen reaches on this machine).
#include <malloc.h>

#include <mutex>

#include <Eigen/Core>

#include "tools/peers/epilogue.hpp"
#include "tools/peers/factories.hpp"

namespace livetune::peers {
namespace {

// Eigen allocates its packing buffers on every product. With glibc's default heap trimming
// those pages go back to the OS after each call and fault in again on the next (256³ measured
// 25 instead of 110-130 GFLOP/s), a cost of allocation history rather than of Eigen. So keep
// freed memory in the process: no trimming, no per-allocation mmap, below these sizes.
void keep_freed_memory() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
  });
}

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMajor, Eigen::Unaligned, Eigen::OuterStride<>>;

class EigenPeer final : public Peer {
 public:
  std::string name() const override { return "eigen"; }
  std::string detail() const override {
    return prepared_ ? "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                           "." + std::to_string(EIGEN_MINOR_VERSION) + " noalias product, OpenMP, " +
                           std::to_string(threads_) + " thread(s)"
                     : "";
  }

  void prepare(const Workload& w, const float* a, const float* b, const float* bias, float* c,
               int threads) override {
    w_ = w, a_ = a, b_ = b, bias_ = bias, c_ = c, threads_ = threads, prepared_ = true;
    keep_freed_memory();
  }

  void run() override {
    Eigen::setNbThreads(threads_);  // process-wide, so set on every call
    ConstMap a(a_, w_.m, w_.k, Eigen::OuterStride<>(w_.lda));
    ConstMap b(b_, w_.b_rows(), w_.b_cols(), Eigen::OuterStride<>(w_.ldb));
    Map c(c_, w_.m, w_.n, Eigen::OuterStride<>(w_.ldc));
    // Eigen's "=" zeroes C and then accumulates, so accumulating onto the folded bias costs the same.
    if (fold_into_c(w_, bias_, c_) == 0.0f) {
      if (w_.trans_b) c.noalias() = a * b.transpose();
      else c.noalias() = a * b;
    } else {
      if (w_.trans_b) c.noalias() += a * b.transpose();
      else c.noalias() += a * b;
    }
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

std::unique_ptr<Peer> make_eigen() { return std::make_unique<EigenPeer>(); }

}  // namespace livetune::peers
