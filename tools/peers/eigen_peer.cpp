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
    return op_.threads > 0 ? "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
                                 std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) +
                                 " noalias product, OpenMP, " + std::to_string(op_.threads) + " thread(s)"
                           : "";
  }

  void prepare(const Workload& w, const float* a, const float* b, const float* bias, float* c,
               int threads) override {
    op_ = Operands{w, a, b, bias, c, threads};
    keep_freed_memory();
  }

  void run() override {
    Eigen::setNbThreads(op_.threads);  // process-wide, so set on every call
    const Workload& w = op_.w;
    ConstMap a(op_.a, w.m, w.k, Eigen::OuterStride<>(w.lda));
    ConstMap b(op_.b, w.b_rows(), w.b_cols(), Eigen::OuterStride<>(w.ldb));
    Map c(op_.c, w.m, w.n, Eigen::OuterStride<>(w.ldc));
    // Eigen's "=" zeroes C and then accumulates, so accumulating onto the folded bias costs the same.
    if (fold_into_c(op_) == 0.0f) {
      if (w.trans_b) c.noalias() = a * b.transpose();
      else c.noalias() = a * b;
    } else {
      if (w.trans_b) c.noalias() += a * b.transpose();
      else c.noalias() += a * b;
    }
    activate(op_);
  }

 private:
  Operands op_;
};

}  // namespace

std::unique_ptr<Peer> make_eigen() { return std::make_unique<EigenPeer>(); }

}  // namespace livetune::peers
