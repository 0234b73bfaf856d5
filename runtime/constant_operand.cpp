#include "runtime/constant_operand.hpp"

#include <cstdlib>

namespace livetune {

struct ConstantOperand::Packed {
  explicit Packed(std::string l) : layout(std::move(l)) {}
  ~Packed() { std::free(data); }
  const std::string layout;
  float* data = nullptr;  // written before `ready` is set, read after it is seen
  std::atomic<bool> ready{false};
};

ConstantOperand::~ConstantOperand() {
  for (auto& slot : slots_) delete slot.load();
}

ConstantOperand::Lookup ConstantOperand::find(const Kernel& k) {
  Packed* fresh = nullptr;
  for (auto& slot : slots_) {
    Packed* p = slot.load(std::memory_order_acquire);
    if (!p) {
      if (!fresh) fresh = new Packed(k.b_layout);  // once per layout, on its first call
      if (slot.compare_exchange_strong(p, fresh, std::memory_order_acq_rel)) return Lookup{nullptr, fresh};
      // Another caller took the slot: `p` now holds its entry, which may be this layout.
    }
    if (p->layout == k.b_layout) {
      delete fresh;
      return Lookup{p->ready.load(std::memory_order_acquire) ? p->data : nullptr, nullptr};
    }
  }
  delete fresh;
  return Lookup{};
}

void ConstantOperand::pack(Packed* p, const Kernel& k) {
  const size_t bytes = (size_t(packed_b_floats(k.workload, k.gemm)) * sizeof(float) + 63) / 64 * 64;
  p->data = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (!p->data) return;  // no memory for it: calls keep packing B themselves
  pack_whole_b(k, b_, p->data);
  p->ready.store(true, std::memory_order_release);
}

}  // namespace livetune
