#include "runtime/dispatcher.hpp"

#include <array>
#include <chrono>

#include <tbb/tbb_allocator.h>

#include "jit/compile.hpp"
#include "jit/gemm_config.hpp"
#include "jit/log.hpp"
#include "jit/target.hpp"
#include "jit/workspace.hpp"
#include "policy/default_rule.hpp"
#include "runtime/builtin_gemm.hpp"
#include "sampler/compile_batch.hpp"
#include "sampler/hazard.hpp"

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
// Read on every call, so initial-exec: a plain %fs-relative load also in the shared library,
// where the default model calls __tls_get_addr at each read. Static TLS is scarce for a
// library that may be dlopen'ed: the thread's cache is a pointer, the cache itself made by
// the cold path.
[[gnu::tls_model("initial-exec")]] thread_local Recent* recent = nullptr;

Recent& this_thread_recent() {
  struct Owner {
    Recent cache;
    Owner() { recent = &cache; }
    ~Owner() { recent = nullptr; }
  };
  thread_local Owner owner;
  return owner.cache;
}

// Settled calls of this thread, all workloads: every kDriftPeriod-th is timed.
[[gnu::tls_model("initial-exec")]] thread_local uint32_t settled_calls = 0;
constexpr uint32_t kDriftPeriod = 1024;

// Calls of a bucket of M are timed as if they had its largest M (time grows with M): a pair
// of calls with different Ms then compares the kernels rather than the Ms.
double at_full_m(const Workload& key, int64_t m) { return double(key.m) / double(m); }

const char* phase_name(int p) {
  static const char* names[] = {"builtin", "compiling", "jit", "failed"};
  return names[p];
}

}  // namespace

Dispatcher::Dispatcher(int threads, int compile_threads, const TuningOptions& tuning, const std::string& db_path,
                       const MBuckets& buckets)
    : id_(next_dispatcher_id.fetch_add(1)),
      tuning_(tuning),
      buckets_(buckets),
      db_(db_path.empty() ? nullptr : TuningDB::open(db_path, Target::host().fingerprint())),
      executor_(threads),
      compiles_(compile_threads) {
  // TBB's allocator (the workload map's) loads libtbbmalloc at its first use, a millisecond or
  // two: here rather than in the first call of the first workload.
  tbb::tbb_allocator<char> allocator;
  allocator.deallocate(allocator.allocate(1), 1);
  // The first workload's kernel should not wait for LLVM's own start-up.
  compiles_.post([] {
    try {
      prepare_compile_thread();
    } catch (const std::exception& e) {
      log(LogLevel::error, std::string("the JIT is unavailable: ") + e.what());
    }
  });
}

// The compile queue, destroyed first, drops its jobs but those that must run. Entries of a
// destroyed dispatcher stay in other threads' caches but never match again: ids are not reused.
Dispatcher::~Dispatcher() = default;

// The thread's last workload first, inline: a server thread mostly repeats one.
[[gnu::always_inline]] inline Dispatcher::State* Dispatcher::find(const Workload& w) {
  if (const Recent* r = recent) {
    const RecentEntry& last = r->entries[(r->next - 1) % r->entries.size()];
    if (last.dispatcher == id_ && last.workload == w) return static_cast<State*>(last.state);
  }
  return find_further(w);
}

void Dispatcher::matmul(const Workload& w, const float* a, const float* b, const float* bias, float* c,
                        const std::shared_ptr<ConstantOperand>& constant_b) {
  State* s = find(w);
  if (!s) {
    auto [added, inserted] = add(key_of(w));
    // The workload's first call runs the built-in kernel before its compile starts, so that
    // the compile does not share the machine with it.
    builtin_matmul(w, a, b, bias, c);
    if (inserted && w.k > 0) compile_in_background(added);
    return;
  }
  const Kernel* k = s->live.incumbent.load(std::memory_order_acquire);
  if (!k || w.k == 0) {
    builtin_matmul(w, a, b, bias, c);
    return;
  }
  if (s->live.tuning.load(std::memory_order_acquire)) {
    tuning_call(*s, *k, w.m, a, b, bias, c, constant_b);
    return;
  }
  // Settled: one call in kDriftPeriod of this thread is timed, for the session's drift check.
  if (++settled_calls % kDriftPeriod != 0) {
    run(*k, w.m, a, b, bias, c, constant_b);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  run(*k, w.m, a, b, bias, c, constant_b);
  bool full = false;
  if (s->live.drift_sample(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() *
                               at_full_m(s->workload, w.m),
                           full) &&
      full)
    request_step(*s);
}

// A candidate that packs a constant B is raced only with its packed copy, as it would serve
// once promoted: packing B in every call made it look up to 4x slower than it is. The first
// such call claims the layout; the calls until the copy is ready are not timed.
bool Dispatcher::packed_b_ready(const Kernel& k, const std::shared_ptr<ConstantOperand>& constant_b) {
  if (!constant_b || !k.takes_packed_b()) return true;
  const ConstantOperand::Lookup found = constant_b->find(k);
  ConstantOperand::done_reading();
  if (found.to_pack) pack_in_background(k, constant_b, found.to_pack);
  return found.data != nullptr;
}

void Dispatcher::pack_in_background(const Kernel& k, const std::shared_ptr<ConstantOperand>& constant_b,
                                    ConstantOperand::Packed* p) {
  // The job holds the kernel: a dropped candidate may be freed before a queued job runs.
  compiles_.post([op = constant_b, p, kernel = k.shared_from_this()] { op->pack(p, *kernel); }, true);
}

void Dispatcher::run(const Kernel& k, int64_t m, const float* a, const float* b, const float* bias, float* c,
                     const std::shared_ptr<ConstantOperand>& constant_b) {
  if (!constant_b || !k.takes_packed_b()) {
    executor_.run(k, m, a, b, bias, c);
    return;
  }
  const ConstantOperand::Lookup found = constant_b->find(k);
  if (found.to_pack) pack_in_background(k, constant_b, found.to_pack);
  executor_.run(k, m, a, b, bias, c, found.data);
  ConstantOperand::done_reading();
}

void Dispatcher::tuning_call(State& s, const Kernel& incumbent, int64_t m, const float* a, const float* b,
                             const float* bias, float* c, const std::shared_ptr<ConstantOperand>& constant_b) {
  // Sequentially consistent, as the session's store of wake_at and load of calls (on x86 the
  // same instructions as relaxed ones).
  const uint64_t n = s.live.calls.fetch_add(1, std::memory_order_seq_cst) + 1;
  if (n == s.live.wake_at.load(std::memory_order_seq_cst)) request_step(s);
  // The session frees a closed stage once no caller announces it: announced, the stage is
  // entered only if it is still the open one.
  Trial* t = s.live.trial.load(std::memory_order_acquire);
  if (t) {
    hazard::protect(t);
    if (s.live.trial.load(std::memory_order_seq_cst) != t || !t->enter()) t = nullptr;
    hazard::clear();
  }
  if (t) {
    if (const Trial::Slot slot = t->take(); slot.kernel) {
      double seconds = Trial::kVoid;
      if (slot.kernel != &incumbent && !packed_b_ready(*slot.kernel, constant_b)) {
        run(incumbent, m, a, b, bias, c, constant_b);
      } else {
        // A candidate may need more scratch than this thread has had: grown here, untimed.
        thread_workspace(slot.kernel->workspace_floats);
        const auto start = std::chrono::steady_clock::now();
        run(*slot.kernel, m, a, b, bias, c, constant_b);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() *
                  at_full_m(s.workload, m);
      }
      const bool last = t->record(slot.index, seconds);
      t->leave();
      if (last) request_step(s);
      return;
    }
    t->leave();
  }
  run(incumbent, m, a, b, bias, c, constant_b);
}

void Dispatcher::request_step(State& s) {
  if (s.step_requests.fetch_add(1, std::memory_order_acq_rel) != 0) return;
  compiles_.post([&s] {
    int seen;
    do {
      seen = s.step_requests.load(std::memory_order_acquire);
      try {
        s.session->step();
      } catch (const std::exception& e) {
        log(LogLevel::error, "'" + s.workload.text() + "': tuning step failed: " + e.what());
      }
    } while (s.step_requests.fetch_sub(seen, std::memory_order_acq_rel) != seen);
  });
}

Dispatcher::State* Dispatcher::find_further(const Workload& w) {
  Recent& recent = this_thread_recent();
  for (const auto& e : recent.entries)
    if (e.dispatcher == id_ && e.workload == w) return static_cast<State*>(e.state);
  auto it = states_.find(key_of(w));
  if (it == states_.end()) return nullptr;
  recent.entries[recent.next++ % recent.entries.size()] = RecentEntry{id_, w, it->second.get()};
  return it->second.get();
}

Workload Dispatcher::key_of(const Workload& w) {
  // An application whose shapes never change gets kernels specialised to them: the first M
  // of a family is a workload of its own, later ones go to their buckets.
  const Workload key = buckets_.key(w);
  if (key == w) return key;
  Workload family = w;
  family.m = 0;
  auto first = first_m_.find(family);  // find before emplace: emplace allocates a node
  if (first == first_m_.end()) first = first_m_.emplace(family, w.m).first;
  return first->second == w.m ? w : key;
}

std::pair<Dispatcher::State*, bool> Dispatcher::add(const Workload& w) {
  auto [it, inserted] = states_.emplace(w, std::make_unique<State>(w));
  return {it->second.get(), inserted};
}

// The earlier process's record of `w`, if there is one whose config this template accepts.
std::optional<Dispatcher::Recorded> Dispatcher::recorded(const Workload& w) const {
  if (!db_) return std::nullopt;
  const std::optional<TuningRecord> r = db_->find(w.text());
  if (!r) return std::nullopt;
  try {
    const Space space = gemm_space(w, Target::host());
    Config c = space.parse(r->config);
    if (!space.valid(c)) throw std::invalid_argument("not valid for this workload and target");
    TuningReport t;
    t.state = r->settled ? "settled" : "tuning";
    t.incumbent_s = r->seconds;
    t.first_s = r->first_seconds;
    return Recorded{std::move(c), t};
  } catch (const std::exception& e) {
    log(LogLevel::warn, "'" + w.text() + "': recorded config '" + r->config + "' ignored: " + e.what());
    return std::nullopt;
  }
}

void Dispatcher::record(const Workload& w, const TuningReport& r) {
  TuningRecord rec;
  rec.workload = w.text();
  rec.config = r.incumbent_config;
  rec.seconds = r.incumbent_s;
  rec.first_seconds = r.first_s;
  rec.settled = r.state == "settled";
  rec.calls = r.calls;
  rec.template_version = kGemmTemplateVersion;
  rec.library_version = LIVETUNE_VERSION;
  rec.unix_time =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  db_->store(rec);
}

void Dispatcher::compile_in_background(State* s) {
  s->phase = Phase::compiling;
  compiles_.post([this, s] {
    const Workload& w = s->workload;
    try {
      // The recorded best if there is one, else the default rule's config; a recorded config
      // that no longer compiles or validates falls back to the default.
      std::optional<Recorded> rec = recorded(w);
      auto data = std::make_unique<ValidationData>(w, w.hash());
      Config config = rec ? rec->config : default_gemm_config(w, Target::host(), executor_.threads());
      Compiled result = std::move(compile_and_validate(*data, {config}, 1).front());
      if (!result.kernel && rec) {
        log(LogLevel::warn, "'" + w.text() + "': recorded config '" + config.text() + "' dropped: " + result.error);
        rec.reset();
        config = default_gemm_config(w, Target::host(), executor_.threads());
        result = std::move(compile_and_validate(*data, {config}, 1).front());
      }
      if (result.kernel) {
        TuningSession::Recorder recorder;
        if (db_ && tuning_.enabled) recorder = [this, &w](const TuningReport& r) { record(w, r); };
        auto session = std::make_unique<TuningSession>(s->live, result.kernel, std::move(data), tuning_,
                                                       rec ? &rec->report : nullptr, std::move(recorder));
        const bool tune = session->active();
        {
          std::lock_guard<std::mutex> lock(s->mutex);
          s->first = result.kernel;
          s->session = std::move(session);  // before the kernel: a call that sees one may use the other
          s->live.incumbent.store(result.kernel.get(), std::memory_order_release);
          s->phase = Phase::jit;
        }
        log(LogLevel::info, "'" + w.text() + "': JIT kernel '" + config.text() + "' in use" +
                                (rec ? " (recorded, " + rec->report.state + ")" : ""));
        if (tune) {
          s->live.tuning.store(true, std::memory_order_release);
          request_step(*s);
        }
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
    out.push_back(WorkloadSnapshot{w, phase_name(int(s->phase.load())), s->first,
                                   s->session ? s->session->report() : TuningReport{}});
  }
  return out;
}

}  // namespace livetune
