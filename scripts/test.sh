#!/usr/bin/env bash
# Installs what livetune needs, builds it and runs every test:
#   1. Release build, all tests; on an AVX-512 host once more with the code capped to AVX2
#      (LIVETUNE_ISA=avx2), the code and tests an AVX2 host runs;
#   2. ASan + UBSan build, all tests;
#   3. TSan build, the concurrency tests;
#   4. `cmake --install`, then an outside project that does find_package(livetune).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs=$(nproc)
step() { printf '\n=== %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }

step "release build"
bash scripts/build.sh release
step "release tests"
ctest --test-dir build/release --output-on-failure -j "$jobs"
if grep -qw avx512f /proc/cpuinfo; then
  step "release tests, code capped to AVX2"
  LIVETUNE_ISA=avx2 ctest --test-dir build/release --output-on-failure -j "$jobs"
fi

step "ASan+UBSan build"
bash scripts/build.sh asan
step "ASan+UBSan tests"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --output-on-failure -j "$jobs" -LE slow

step "TSan build (concurrency tests)"
bash scripts/build.sh tsan concurrency_test compile_queue_test piece_cache_test constant_matrix_test trial_test tuning_test tuning_db_test
step "TSan tests"
TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" \
  ctest --test-dir build/tsan --output-on-failure -L concurrency

step "install + find_package from an outside project"
rm -rf build/install build/consumer
cmake --install build/release --prefix build/install >/dev/null
cmake -S tests/package -B build/consumer -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/install" >/dev/null
cmake --build build/consumer >/dev/null
./build/consumer/consumer

step "all tests passed"
