#pragma once
// Workload → state, and the path of a call: a known workload is found without a lock or an
// allocation (a per-thread cache in front of a concurrent map); a new one is served by the
// built-in kernel while its JIT kernel is compiled and validated in the background, then
// the state switches atomically.
#include <tbb/concurrent_unordered_map.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jit/kernel.hpp"
#include "jit/workload.hpp"
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
  ~Dispatcher();  // waits for background work
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  void matmul(const Workload& w, const float* a, const float* b, const float* bias, float* c);
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
  tbb::task_arena compile_arena_;
  std::mutex pending_mutex_;
  std::condition_variable idle_;
  int pending_ = 0;
};

}  // namespace livetune
