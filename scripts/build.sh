#!/usr/bin/env bash
# Configures and builds one flavour of livetune into build/<name>.
#   scripts/build.sh release            Release, everything
#   scripts/build.sh asan               ASan + UBSan, everything
#   scripts/build.sh tsan [targets...]  TSan, only the given targets
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
shift || true
case "$flavour" in
  release) flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLIVETUNE_SANITIZE=address) ;;
  tsan) flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLIVETUNE_SANITIZE=thread) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release, asan, tsan)" >&2; exit 2 ;;
esac
cmake -S . -B "build/$flavour" -G Ninja "${flags[@]}" >/dev/null
if [ $# -gt 0 ]; then
  cmake --build "build/$flavour" --target "$@"
else
  cmake --build "build/$flavour"
fi
