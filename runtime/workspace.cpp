#include "runtime/workspace.hpp"

#include <cstdlib>
#include <memory>
#include <new>

namespace livetune {

float* thread_workspace(int64_t floats) {
  struct Buffer {
    std::unique_ptr<float, decltype(&std::free)> data{nullptr, &std::free};
    int64_t floats = 0;
  };
  thread_local Buffer buf;
  if (floats > buf.floats) {
    const size_t bytes = (size_t(floats) * sizeof(float) + 63) / 64 * 64;
    float* p = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!p) throw std::bad_alloc();
    buf.data.reset(p);
    buf.floats = floats;
  }
  return buf.data.get();
}

}  // namespace livetune
