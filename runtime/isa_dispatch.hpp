#pragma once
// Choosing among builds of one function for the ISA of the CPU it runs on. Each variant is a
// thin wrapper with a `target` attribute around an always-inline body. Not GCC's
// target_clones: its ifunc resolvers run before the sanitizer runtimes start and crash them.
// The ISA is the target's, so that LIVETUNE_ISA caps these builds as it caps the JIT's code.
#include "jit/target.hpp"

namespace livetune {

#define LIVETUNE_ISA_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,fma,avx2")))
#define LIVETUNE_ISA_AVX2 __attribute__((target("avx2,fma")))

template <class Fn>
Fn pick_for_cpu(Fn avx512, Fn avx2, Fn generic) {
  const Target& t = Target::host();
  return t.avx512 ? avx512 : t.avx2 ? avx2 : generic;
}

}  // namespace livetune
