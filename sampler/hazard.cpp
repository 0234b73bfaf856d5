#include "sampler/hazard.hpp"

#include <atomic>

namespace livetune::hazard {
namespace {

// One per thread that ever announced, reused after the thread ends; never freed (a handful).
struct Record {
  std::atomic<const void*> ptr{nullptr};
  std::atomic<bool> taken{true};
  Record* next = nullptr;
};
std::atomic<Record*> records{nullptr};

Record* take_record() {
  for (Record* r = records.load(std::memory_order_acquire); r; r = r->next) {
    bool free = false;
    if (!r->taken.load(std::memory_order_relaxed) && r->taken.compare_exchange_strong(free, true)) return r;
  }
  auto* r = new Record;
  r->next = records.load(std::memory_order_relaxed);
  while (!records.compare_exchange_weak(r->next, r, std::memory_order_acq_rel)) {
  }
  return r;
}

struct Holder {
  Record* record = take_record();
  ~Holder() {
    record->ptr.store(nullptr, std::memory_order_release);
    record->taken.store(false, std::memory_order_release);
  }
};

Record& mine() {
  thread_local Holder holder;
  return *holder.record;
}

}  // namespace

void protect(const void* p) { mine().ptr.store(p, std::memory_order_seq_cst); }

void clear() { mine().ptr.store(nullptr, std::memory_order_release); }

bool announced(const void* p) {
  for (Record* r = records.load(std::memory_order_acquire); r; r = r->next)
    if (r->ptr.load(std::memory_order_seq_cst) == p) return true;
  return false;
}

}  // namespace livetune::hazard
