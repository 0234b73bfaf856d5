#include "runtime/constant_operand.hpp"

#include <cstdlib>

#include "sampler/hazard.hpp"

namespace livetune {

struct ConstantOperand::Packed {
  explicit Packed(std::string l) : layout(std::move(l)) {}
  ~Packed() { std::free(data); }
  const std::string layout;
  float* data = nullptr;  // written before `ready` is set, read after it is seen; null: no memory
  std::atomic<bool> ready{false};
  std::atomic<uint64_t> used{0};  // the clock when a call last read it
};

ConstantOperand::~ConstantOperand() {
  // Callers hold the operand while they read: none is left.
  for (auto& slot : slots_) delete slot.load();
  for (Packed* p : retired_) delete p;
}

ConstantOperand::Lookup ConstantOperand::find(const Kernel& k) {
  for (size_t i = 0; i < kLayouts; ++i) {
    if (hashes_[i].load(std::memory_order_acquire) != k.b_layout_hash) continue;
    std::atomic<Packed*>& slot = slots_[i];
    Packed* p = slot.load(std::memory_order_acquire);
    if (!p) continue;
    hazard::protect(p);
    if (slot.load(std::memory_order_seq_cst) != p) continue;  // replaced meanwhile: claim() looks again
    if (p->layout != k.b_layout) continue;
    if (!p->ready.load(std::memory_order_acquire)) return Lookup{};
    // Written only when it changes (once per replacement attempt), so that the calls of
    // several threads do not pass the cache line around.
    const uint64_t now = clock_.load(std::memory_order_relaxed);
    if (p->used.load(std::memory_order_relaxed) != now) p->used.store(now, std::memory_order_relaxed);
    return Lookup{p->data, nullptr};
  }
  hazard::clear();
  return claim(k);
}

void ConstantOperand::done_reading() { hazard::clear(); }

ConstantOperand::Lookup ConstantOperand::claim(const Kernel& k) {
  std::unique_lock<std::mutex> lock(replace_, std::try_to_lock);
  if (!lock) return Lookup{};  // another call claims or replaces: this one packs B itself
  // Only this thread replaces copies now: the slots can be read without announcing them.
  for (auto& slot : slots_)
    if (Packed* p = slot.load(std::memory_order_acquire); p && p->layout == k.b_layout) return Lookup{};
  const uint64_t now = clock_.load(std::memory_order_relaxed);
  std::atomic<Packed*>* target = nullptr;
  for (auto& slot : slots_) {
    Packed* p = slot.load(std::memory_order_acquire);
    if (!p) {
      target = &slot;
      break;
    }
    // The ready copy used least recently, if no call used it since the last attempt.
    if (p->ready.load(std::memory_order_acquire) && p->used.load(std::memory_order_relaxed) < now &&
        (!target || p->used.load(std::memory_order_relaxed) < target->load()->used.load(std::memory_order_relaxed)))
      target = &slot;
  }
  clock_.fetch_add(1, std::memory_order_relaxed);
  if (!target) return Lookup{};
  auto* fresh = new Packed(k.b_layout);
  fresh->used.store(now + 1, std::memory_order_relaxed);
  hashes_[size_t(target - slots_.data())].store(k.b_layout_hash, std::memory_order_release);
  if (Packed* old = target->exchange(fresh, std::memory_order_seq_cst)) retired_.push_back(old);
  free_retired();
  return Lookup{nullptr, fresh};
}

void ConstantOperand::free_retired() {
  std::erase_if(retired_, [](Packed* p) {
    if (hazard::announced(p)) return false;
    delete p;
    return true;
  });
}

void ConstantOperand::pack(Packed* p, const Kernel& k) {
  const size_t bytes = (size_t(packed_b_floats(k.workload, k.gemm)) * sizeof(float) + 63) / 64 * 64;
  p->data = static_cast<float*>(std::aligned_alloc(64, bytes));
  // Without memory for it, calls keep packing B themselves, and the slot can be replaced.
  if (p->data) pack_whole_b(k, b_, p->data);
  p->ready.store(true, std::memory_order_release);
}

size_t ConstantOperand::copies() const {
  size_t n = 0;
  for (const auto& slot : slots_) n += slot.load(std::memory_order_relaxed) != nullptr;
  return n;
}

}  // namespace livetune
