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

  // Blocks until background compiles have finished (tests, tools; never needed for correctness).
  void wait_idle();
  std::vector<WorkloadInfo> workloads() const;
  int threads() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace livetune
