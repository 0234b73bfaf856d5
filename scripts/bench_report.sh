#!/usr/bin/env bash
# Runs `livetune bench --json` on the shapes the foundation issue measures itself by and
# prints one JSON object per line. Long: a minute or more per shape with
# --search random:300. Usage: scripts/bench_report.sh [SEARCH] [build dir] [--constant-b]
# (--constant-b: B is the caller's constant, packed once outside the timed calls, as the
# onednn_packed peer's is.)
set -euo pipefail
cd "$(dirname "$0")/.."
search=${1:-random:300}
cli=${2:-build/release}/tools/livetune
extra=("${@:3}")
unset OPENBLAS_L2_SIZE  # OpenBLAS reads it at load
# OpenBLAS 0.3.21 does not know every AVX-512 CPU: on Zen 5 (family 26) it picks Haswell in
# some processes and Cooperlake in others (seen in one session), half or all of its speed.
# Its SkylakeX, Cooperlake and SapphireRapids cores share one sgemm: measure that one.
if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; else unset OPENBLAS_CORETYPE; fi

one_thread=(
  "64 64 64" "256 256 256" "512 512 512" "1024 1024 1024" "2048 2048 2048"
  "128 768 768" "512 3072 768" "512 768 3072"        # transformer blocks
  "49 512 4608" "196 256 2304" "3136 64 576"          # ResNet layers as GEMMs
  "127 255 129" "1000 17 333"                         # odd shapes
  "1 4096 4096" "8 4096 4096"                         # bandwidth-bound
  # B transposed, as a weight stored out × in (torch's Linear): decoding one and a batch of
  # tokens, a block, a prefill
  "1 4096 4096 --trans-b" "8 4096 4096 --trans-b" "32 4096 4096 --trans-b" "128 768 768 --trans-b"
  "512 3072 768 --trans-b"
)
two_threads=("512 512 512" "1024 1024 1024" "2048 2048 2048")

run() {
  local threads=$1 m=$2 n=$3 k=$4
  shift 4
  "$cli" bench matmul --m "$m" --n "$n" --k "$k" --threads "$threads" --search "$search" --json "$@" "${extra[@]}"
}
for s in "${one_thread[@]}"; do run 1 $s; done
for s in "${two_threads[@]}"; do run 2 $s; done
