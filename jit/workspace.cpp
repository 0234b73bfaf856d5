#include "jit/workspace.hpp"

#include <cstdlib>
#include <memory>
#include <new>

namespace livetune {

namespace {

struct Buffer {
  float* get(int64_t floats) {
    if (floats > size) {
      const size_t bytes = (size_t(floats) * sizeof(float) + 63) / 64 * 64;
      float* p = static_cast<float*>(std::aligned_alloc(64, bytes));
      if (!p) throw std::bad_alloc();
      data.reset(p);
      size = floats;
      for (size_t at = 0; at < bytes / sizeof(float); at += 4096 / sizeof(float)) p[at] = 0.0f;
    }
    return data.get();
  }
  std::unique_ptr<float, decltype(&std::free)> data{nullptr, &std::free};
  int64_t size = 0;
};

}  // namespace

namespace detail {

float* grow_thread_workspace(int64_t floats) {
  // At thread exit the view must not outlive the memory.
  struct Owned : Buffer {
    ~Owned() { thread_workspace_view = {}; }
  };
  thread_local Owned buf;
  thread_workspace_view = {buf.get(floats), buf.size};
  return buf.data.get();
}

}  // namespace detail

float* call_buffer(int64_t floats) {
  thread_local Buffer buf;
  return buf.get(floats);
}

}  // namespace livetune
