#!/usr/bin/env bash
# Installs what livetune needs, builds it (Release) and runs the main demo: the target, then
# `livetune bench` on a few shapes, JIT kernels beside the peer libraries in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
cli=build/release/tools/livetune
# OpenBLAS reads these when it loads; the notes say to measure it without them.
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE

"$cli" info
echo
./build/release/examples/quickstart
for shape in "256 256 256" "512 512 512" "127 255 129" "96 1536 384 --bias --act gelu"; do
  set -- $shape
  echo
  "$cli" bench matmul --m "$1" --n "$2" --k "$3" "${@:4}" --search random:40
done
