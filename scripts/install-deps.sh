#!/usr/bin/env bash
# Installs the Debian packages radiant builds against. Idempotent: installs only what is missing.
# Usage: scripts/install-deps.sh            (build + test dependencies; clang for the fuzzers)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libpng-dev libjpeg62-turbo-dev zlib1g-dev libzstd-dev
  clang-format
  clang libclang-rt-14-dev libomp-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
