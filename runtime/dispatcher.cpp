#include "runtime/dispatcher.hpp"

#include <array>

#include "jit/compile.hpp"
#include "jit/log.hpp"
#include "jit/target.hpp"
#include "policy/default_rule.hpp"
#include "runtime/builtin_gemm.hpp"
#include "sampler/compile_batch.hpp"

namespace livetune {
namespace {

std::atomic<uint64_t> next_dispatcher_id{1};

// The last few workloads this thread called, per dispatcher: a hit costs a few compares.
struct RecentEntry {
  uint64_t dispatcher = 0;
  Workload workload;
  void* state = nullptr;
};
struct Recent {
  std::array<RecentEntry, 4> entries;
  unsigned next = 0;
};
thread_local Recent recent;

const char* phase_name(int p) {
  static const char* names[] = {"builtin", "compiling", "jit", "failed"};
  return names[p];
}

}  // namespace

Dispatcher::Dispatcher(int threads, int compile_threads)
    : id_(next_dispatcher_id.fetch_add(1)),
      executor_(threads),
      compiles_(compile_threads) {
  // The first workload's kernel should not wait for LLVM's own start-up.
  compiles_.post([] {
    try {
      prepare_compile_thread();
    } catch (const std::exception& e) {
      log(LogLevel::error, std::string("the JIT is unavailable: ") + e.what());
    }
  });
}

// The compile queue, destroyed first, finishes its jobs. Entries of a destroyed dispatcher
// stay in other threads' caches but never match again: ids are not reused.
Dispatcher::~Dispatcher() = default;

void Dispatcher::matmul(const Workload& w, const float* a, const float* b, const float* bias, float* c,
                        const std::shared_ptr<ConstantOperand>& constant_b) {
  State* s = find(w);
  if (!s) s = add(w);
  const Kernel* k = s->kernel.load(std::memory_order_acquire);
  if (!k || w.k == 0) {
    builtin_matmul(w, a, b, bias, c);
    return;
  }
  const float* b_packed = nullptr;
  if (constant_b && k->pack_b) {
    const ConstantOperand::Lookup found = constant_b->find(*k);
    b_packed = found.data;
    // Kernels live as long as the dispatcher, and the queue finishes its jobs before it dies.
    if (found.to_pack) compiles_.post([op = constant_b, p = found.to_pack, k] { op->pack(p, *k); });
  }
  executor_.run(*k, a, b, bias, c, b_packed);
}

Dispatcher::State* Dispatcher::find(const Workload& w) {
  for (const auto& e : recent.entries)
    if (e.dispatcher == id_ && e.workload == w) return static_cast<State*>(e.state);
  auto it = states_.find(w);
  if (it == states_.end()) return nullptr;
  recent.entries[recent.next++ % recent.entries.size()] = RecentEntry{id_, w, it->second.get()};
  return it->second.get();
}

Dispatcher::State* Dispatcher::add(const Workload& w) {
  auto [it, inserted] = states_.emplace(w, std::make_unique<State>(w));
  State* s = it->second.get();
  if (inserted && w.k > 0) compile_in_background(s);
  return s;
}

void Dispatcher::compile_in_background(State* s) {
  s->phase = Phase::compiling;
  compiles_.post([this, s] {
    const Workload& w = s->workload;
    try {
      const Config config = default_gemm_config(w, Target::host(), executor_.threads());
      const ValidationData data(w, w.hash());
      Compiled result = std::move(compile_and_validate(data, {config}, 1).front());
      if (result.kernel) {
        std::lock_guard<std::mutex> lock(s->mutex);
        s->owned = result.kernel;
        s->kernel.store(result.kernel.get(), std::memory_order_release);
        s->phase = Phase::jit;
        log(LogLevel::info, "'" + w.text() + "': JIT kernel '" + config.text() + "' in use");
      } else {
        s->phase = Phase::failed;
        log(LogLevel::warn, "'" + w.text() + "': variant '" + config.text() + "' dropped: " + result.error);
      }
    } catch (const std::exception& e) {
      s->phase = Phase::failed;
      log(LogLevel::error, "'" + w.text() + "': no JIT kernel: " + e.what());
    }
  });
}

void Dispatcher::wait_idle() { compiles_.wait_idle(); }

std::vector<WorkloadSnapshot> Dispatcher::snapshot() const {
  std::vector<WorkloadSnapshot> out;
  for (const auto& [w, s] : states_) {
    std::lock_guard<std::mutex> lock(s->mutex);
    out.push_back(WorkloadSnapshot{w, phase_name(int(s->phase.load())), s->owned});
  }
  return out;
}

}  // namespace livetune
