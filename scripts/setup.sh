#!/usr/bin/env bash
# Installs every Debian package livetune needs to build, test and benchmark.
# Idempotent: when everything is present it installs nothing and says nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  llvm-19-dev libtbb-dev libeigen3-dev libsqlite3-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev libxsmm-dev libblis-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
