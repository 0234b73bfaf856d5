#pragma once
// Workload → state, and the path of a call: a known workload is found without a lock or an
// allocation (a per-thread cache in front of a concurrent map); a new one is served by the
// built-in kernel while its JIT kernel is compiled and validated in the background, then
// the state switches atomically.
#include <tbb/concurrent_unordered_map.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jit/kernel.hpp"
#include "jit/workload.hpp"
#include "runtime/compile_queue.hpp"
#include "runtime/constant_operand.hpp"
#include "runtime/executor.hpp"
#include "runtime/m_buckets.hpp"
#include "runtime/tuning_db.hpp"
#include "sampler/session.hpp"

namespace livetune {

struct WorkloadSnapshot {
  Workload workload;
  std::string phase;  // builtin, compiling, jit, failed
  KernelPtr first;    // the first JIT kernel
  TuningReport tuning;  // once there is a JIT kernel
};

class Dispatcher {
 public:
  // db_path: the tuning database to start from and record into; empty: none.
  Dispatcher(int threads, int compile_threads, const TuningOptions& tuning = {}, const std::string& db_path = "",
             const MBuckets& buckets = {});
  ~Dispatcher();  // finishes background work
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // w: the call's own workload (its bucket is found here). constant_b, when set, is b kept
  // constant by the caller: packed once per kernel layout.
  void matmul(const Workload& w, const float* a, const float* b, const float* bias, float* c,
              const std::shared_ptr<ConstantOperand>& constant_b = nullptr);
  void wait_idle();
  std::vector<WorkloadSnapshot> snapshot() const;
  int threads() const { return executor_.threads(); }

 private:
  enum class Phase : int { builtin, compiling, jit, failed };
  struct State {
    explicit State(const Workload& w) : workload(w) { live.first_call = std::chrono::steady_clock::now(); }
    const Workload workload;
    LiveTuning live;  // live.incumbent null: calls run the built-in kernel
    std::atomic<Phase> phase{Phase::builtin};
    std::atomic<int> step_requests{0};
    mutable std::mutex mutex;  // guards `first` and `session`; never taken on the call path
    KernelPtr first;
    std::unique_ptr<TuningSession> session;
  };

  // The state serving a call of `w`: its own workload's, or its bucket's (key_of); null when
  // that workload is new.
  State* find(const Workload& w);
  [[gnu::noinline]] State* find_further(const Workload& w);  // the other recent entries, then the map
  Workload key_of(const Workload& w);
  std::pair<State*, bool> add(const Workload& w);  // the state, and whether this call made it
  void compile_in_background(State* s);
  struct Recorded {
    Config config;
    TuningReport report;
  };
  std::optional<Recorded> recorded(const Workload& w) const;
  void record(const Workload& w, const TuningReport& r);
  // Inlined into the call path (a settled call is this and the lookup).
  [[gnu::always_inline]] inline void run(const Kernel& k, int64_t m, const float* a, const float* b,
                                         const float* bias, float* c,
                                         const std::shared_ptr<ConstantOperand>& constant_b);
  bool packed_b_ready(const Kernel& k, const std::shared_ptr<ConstantOperand>& constant_b);
  void pack_in_background(const Kernel& k, const std::shared_ptr<ConstantOperand>& constant_b,
                          ConstantOperand::Packed* p);
  // A call of m rows while the workload is tuning: counted, and run in a trial's slot if one
  // is free.
  void tuning_call(State& s, const Kernel& incumbent, int64_t m, const float* a, const float* b, const float* bias,
                   float* c, const std::shared_ptr<ConstantOperand>& constant_b);
  // Steps the workload's session on the background queue; requests made while a step runs
  // are served by one more step.
  void request_step(State& s);

  const uint64_t id_;
  const TuningOptions tuning_;
  const MBuckets buckets_;
  const std::unique_ptr<TuningDB> db_;
  Executor executor_;
  tbb::concurrent_unordered_map<Workload, std::unique_ptr<State>, WorkloadHash> states_;
  // The first M called of each family of workloads (all else equal): that M keeps a workload
  // of its own, the others go to buckets.
  tbb::concurrent_unordered_map<Workload, int64_t, WorkloadHash> first_m_;
  // Last: its destructor finishes the jobs that must run, which use the members above.
  CompileQueue compiles_;
};

}  // namespace livetune
