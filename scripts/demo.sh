#!/usr/bin/env bash
# Installs what livetune needs, builds it (Release) and runs the main demo: a small inference
# server tuning live (stats table, latency plot), live traffic on one workload against an
# offline search, and JIT kernels beside the peer libraries in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
cli=build/release/tools/livetune
# OpenBLAS reads these when it loads; the notes say to measure it without them.
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE

# Tuning results go to a folder of the demo's own, so that each run of the demo starts fresh.
export LIVETUNE_CACHE_DIR=build/demo-cache
rm -rf "$LIVETUNE_CACHE_DIR"

"$cli" info
echo
./build/release/examples/quickstart
echo
./build/release/examples/ffn_server 2000 2 build/ffn_latency.svg
echo
"$cli" serve matmul --m 512 --n 512 --k 512 --calls 3000 --reference random:100 --plot build/serve_512.svg
for shape in "512 512 512" "127 255 129" "96 1536 384 --bias --act gelu"; do
  set -- $shape
  echo
  "$cli" bench matmul --m "$1" --n "$2" --k "$3" "${@:4}" --search random:40
done
