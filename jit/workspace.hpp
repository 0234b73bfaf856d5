#pragma once
// Per-thread scratch for packed blocks, 64-byte aligned. It grows the first time a thread
// runs a kernel that needs more, then is reused: the hot path does not allocate. Grown, its
// pages are touched at once, so that the kernel's time does not include their first faults
// (2-3 us a page here: a candidate's first call with 3 MB of fresh workspace took 10x its
// kernel).
#include <cstdint>

namespace livetune {

namespace detail {
// Trivially destructible, so that reading it costs no guard on the call path; the memory is
// owned (and freed at thread exit) by the .cpp. Initial-exec, as it is read on every call: a
// plain %fs-relative load in the shared library too (16 bytes of its static TLS).
struct WorkspaceView {
  float* data = nullptr;
  int64_t floats = 0;
};
[[gnu::tls_model("initial-exec")]] inline thread_local WorkspaceView thread_workspace_view;
float* grow_thread_workspace(int64_t floats);
}  // namespace detail

inline float* thread_workspace(int64_t floats) {
  const detail::WorkspaceView& v = detail::thread_workspace_view;
  return floats <= v.floats ? v.data : detail::grow_thread_workspace(floats);
}

// A second per-thread buffer, for what the threads of one call share (B packed whole): the
// calling thread owns it until its call returns.
float* call_buffer(int64_t floats);

}  // namespace livetune
