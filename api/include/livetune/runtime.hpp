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

// Calls whose M (the rows of a and c: batch × sequence) varies from call to call share the
// kernels, the tuning and the record of a bucket of M, whose kernels take the call's M at run
// time: a stream of distinct Ms does not compile and tune one kernel per value.
struct ShapeBuckets {
  enum class Rule : uint8_t {
    exact,          // each M a workload of its own (kernels specialised to it)
    powers_of_two,  // M in (2^(j-1), 2^j]: 1, 2, 3..4, 5..8, ..., 513..1024, ...
    multiples,      // M in (i·step, (i+1)·step]
  };
  Rule rule = Rule::powers_of_two;
  int64_t step = 64;  // for Rule::multiples
};

struct RuntimeOptions {
  int threads = 0;          // threads one call may use; 0: every core
  int compile_threads = 1;  // background threads: compiling and tuning
  // Online tuning: while calls are served, other variants of each workload are compiled,
  // validated and raced against the kernel in use on live calls, and a faster one takes
  // over. false: frozen, each workload keeps its first JIT kernel (deterministic).
  bool tuning = true;
  // The most time a workload's calls may spend in candidates beyond what the kernel in use
  // would have taken, as a share of all its call time.
  double exploration_budget = 0.02;
  // A workload settles (only the kernel in use, no more tuning) after this many rounds of
  // candidates in a row without a faster one.
  int settle_rounds = 5;
  // A settled workload tunes again when its sampled calls take this many times the time
  // recorded for its kernel (the machine or the traffic changed). More than 1.
  double drift_threshold = 1.2;
  uint64_t seed = 1;  // of the tuning sessions' random choices
  // Keep what tuning found in the tuning database, and start each workload from its record:
  // a settled workload is not tuned again in the next process. Frozen runtimes read records
  // but do not write them.
  bool persistent = true;
  // The database's folder; empty: $LIVETUNE_CACHE_DIR, else $XDG_CACHE_HOME/livetune, else
  // ~/.cache/livetune.
  std::string cache_dir{};
  ShapeBuckets m_buckets{};
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
  double compile_ms = 0;  // of the first JIT kernel
  // Online tuning, once there is a JIT kernel.
  std::string tuning;        // "tuning", "settled" or "frozen"
  std::string first_config;  // the first JIT kernel's
  uint64_t tuning_calls = 0;     // calls served while tuning
  uint64_t calls_to_settle = 0;  // 0 while not settled
  double seconds_to_settle = 0;  // from the workload's first call; 0 while not settled
  uint64_t proposed = 0, compiled = 0, validated = 0, measured = 0, rejected = 0, promoted = 0;
  double kernel_us = 0;        // median time of the kernel in use (its latest timed calls)
  double first_kernel_us = 0;  // the same for the first JIT kernel
  double exploration_overhead = 0;  // share of the workload's call time spent exploring
};

// Everything a runtime knows of its workloads: a table for people, JSON for programs.
struct RuntimeStats {
  std::vector<WorkloadInfo> workloads;
  std::string table() const;
  std::string json() const;
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

  // Blocks until background compiles and tuning steps have finished (tests, tools; never
  // needed for correctness).
  void wait_idle();
  std::vector<WorkloadInfo> workloads() const;  // sorted by workload text
  RuntimeStats stats() const { return {workloads()}; }
  int threads() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace livetune
