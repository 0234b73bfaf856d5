#pragma once
// The starting config of a new workload until the pretrained policy arrives: a few rules
// from the register file and the shape (notes/jit-engines.md: 6×64 tiles nearly
// everywhere, 8×48 at M = 8, packed B once its rows are far apart).
#include "jit/space.hpp"
#include "jit/target.hpp"
#include "jit/workload.hpp"

namespace livetune {

Config default_gemm_config(const Workload& w, const Target& t, int threads);

}  // namespace livetune
