#pragma once
// Per-thread scratch for packed blocks, 64-byte aligned. It grows the first time a thread
// runs a kernel that needs more, then is reused: the hot path does not allocate. Grown, its
// pages are touched at once, so that the kernel's time does not include their first faults
// (2-3 us a page here: a candidate's first call with 3 MB of fresh workspace took 10x its
// kernel).
#include <cstdint>

namespace livetune {

float* thread_workspace(int64_t floats);

// A second per-thread buffer, for what the threads of one call share (B packed whole): the
// calling thread owns it until its call returns.
float* call_buffer(int64_t floats);

}  // namespace livetune
