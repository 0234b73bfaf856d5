#pragma once
// Per-thread scratch for packed blocks, 64-byte aligned. It grows the first time a thread
// runs a kernel that needs more, then is reused: the hot path does not allocate.
#include <cstdint>

namespace livetune {

float* thread_workspace(int64_t floats);

// A second per-thread buffer, for what the threads of one call share (B packed whole): the
// calling thread owns it until its call returns.
float* call_buffer(int64_t floats);

}  // namespace livetune
