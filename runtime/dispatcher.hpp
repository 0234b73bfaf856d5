#pragma once
// Workload → state, and the path of a call: a known workload is found without a lock or an
// allocation (a per-thread cache in front of a concurrent map); a new one is served by the
// built-in kernel while its JIT kernel is compiled and validated in the background, then
// the state switches atomically.
#include <tbb/concurrent_unordered_map.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jit/kernel.hpp"
#include "jit/workload.hpp"
#include "runtime/compile_queue.hpp"
#include "runtime/constant_operand.hpp"
#include "runtime/executor.hpp"

namespace livetune {

struct WorkloadSnapshot {
  Workload workload;
  std::string phase;  // builtin, compiling, jit, failed
  KernelPtr kernel;
};

class Dispatcher {
 public:
  Dispatcher(int threads, int compile_threads);
  ~Dispatcher();  // finishes background work
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // constant_b, when set, is b kept constant by the caller: packed once per kernel layout.
  void matmul(const Workload& w, const float* a, const float* b, const float* bias, float* c,
              const std::shared_ptr<ConstantOperand>& constant_b = nullptr);
  void wait_idle();
  std::vector<WorkloadSnapshot> snapshot() const;
  int threads() const { return executor_.threads(); }

 private:
  enum class Phase : int { builtin, compiling, jit, failed };
  struct State {
    explicit State(const Workload& w) : workload(w) {}
    const Workload workload;
    std::atomic<const Kernel*> kernel{nullptr};  // what calls run; null: the built-in kernel
    std::atomic<Phase> phase{Phase::builtin};
    mutable std::mutex mutex;  // guards `owned`; never taken on the call path
    KernelPtr owned;
  };

  State* find(const Workload& w);
  State* add(const Workload& w);
  void compile_in_background(State* s);

  const uint64_t id_;
  Executor executor_;
  tbb::concurrent_unordered_map<Workload, std::unique_ptr<State>, WorkloadHash> states_;
  CompileQueue compiles_;  // last: its destructor finishes jobs that use the members above
};

}  // namespace livetune
