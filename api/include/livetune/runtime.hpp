#pragma once
// The entry point of livetune: one Runtime per process (or per independent component).
// Every op call is served at once; kernels specialised to the call's workload are compiled
// in the background and take over when they are ready and validated.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "livetune/error.hpp"
#include "livetune/tensor.hpp"

namespace livetune {

enum class Activation : uint8_t { none, relu, gelu };

struct MatmulOptions {
  bool trans_b = false;              // b is N×K (row-major) instead of K×N
  const TensorView* bias = nullptr;  // optional [N] f32, added before the activation
  Activation activation = Activation::none;
  float beta = 0.0f;                 // c = act(a·b + bias + beta·c)
};

struct RuntimeOptions {
  int threads = 0;          // threads one call may use; 0: every core
  int compile_threads = 1;  // background compile threads
};

// A matrix the caller keeps constant, typically a layer's weights. Passed as b to
// Runtime::matmul, it is packed once into the layout of the kernel in use, in the background,
// and the packed copy serves every later call (as oneDNN's weights reordered ahead of time
// do), instead of each call packing B again. The data stays the caller's: it must stay alive
// and unchanged while this object or a copy of it lives; copies share the packed data, which
// is freed with the last of them.
class ConstantMatrix {
 public:
  explicit ConstantMatrix(const TensorView& b);
  const TensorView& view() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;
};

// What the runtime knows of one workload (for tools, tests and stats).
struct WorkloadInfo {
  std::string workload;  // canonical text
  std::string config;    // the config of the JIT kernel in use; empty while on the built-in kernel
  std::string state;     // "builtin", "compiling", "jit" or "failed"
  double compile_ms = 0;
};

class Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // c[M×N] = act(a[M×K] · b + bias + beta·c). a, b, c are row-major f32 matrices on the CPU
  // (rows may be padded: strides[0] ≥ cols, strides[1] = 1); c must not overlap a, b or bias.
  // Throws livetune::Error for a bad argument, before anything is written.
  void matmul(const TensorView& a, const TensorView& b, const TensorView& c, const MatmulOptions& options = {});
  // The same with a b kept constant by the caller (see ConstantMatrix); same checks.
  void matmul(const TensorView& a, const ConstantMatrix& b, const TensorView& c, const MatmulOptions& options = {});

  // Blocks until background compiles have finished (tests, tools; never needed for correctness).
  void wait_idle();
  std::vector<WorkloadInfo> workloads() const;
  int threads() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace livetune
