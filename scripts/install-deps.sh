#!/usr/bin/env bash
# Installs the Debian packages radiant builds against. Idempotent: installs only what is missing.
# Usage: scripts/install-deps.sh            (build + test dependencies; clang for the fuzzers; COLMAP and
#                                            ffmpeg, which `radiant prepare` runs; Open MPI, which starts
#                                            multi-machine runs and hands their ranks the NCCL id)
#        scripts/install-deps.sh --python   (also Python 3 with NumPy, pytest, venv/pip and PyTorch (CPU),
#                                            which the Python package's tests use: `make test`)
#        scripts/install-deps.sh --viewer   (also Chromium, Node and the pinned npm packages in viewer/ that
#                                            the `viewer` tests and `radiant view` use)
set -euo pipefail

viewer=0
python=0
for arg in "$@"; do
  case "$arg" in
    --viewer) viewer=1 ;;
    --python) python=1 ;;
    *) echo "install-deps: unknown option $arg (--viewer, --python)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libcivetweb-dev
  libpng-dev libjpeg62-turbo-dev zlib1g-dev libzstd-dev
  clang-format
  clang libclang-rt-14-dev libomp-14-dev
  colmap ffmpeg
  openmpi-bin
)
[ "$viewer" -eq 1 ] && packages+=(chromium nodejs npm)
[ "$python" -eq 1 ] && packages+=(python3 python3-numpy python3-pytest python3-torch python3-venv python3-pip)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node from elsewhere (nvm, nodesource) serves as well as Debian's.
if [ "$viewer" -eq 1 ] && command -v node >/dev/null && command -v npm >/dev/null; then
  kept=()
  for p in "${missing[@]}"; do [ "$p" = nodejs ] || [ "$p" = npm ] || kept+=("$p"); done
  missing=("${kept[@]+"${kept[@]}"}")
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$viewer" -eq 1 ]; then
  here="$(cd "$(dirname "$0")/.." && pwd)"
  # Exactly the versions in viewer/package-lock.json; nothing to do when they are already there.
  if [ -f "$here/viewer/node_modules/.package-lock.json" ] &&
     cmp -s <(grep -v '"lockfileVersion"' "$here/viewer/package-lock.json" | grep '"version"') \
            <(grep -v '"lockfileVersion"' "$here/viewer/node_modules/.package-lock.json" | grep '"version"'); then
    echo "install-deps: viewer packages present"
  else
    (cd "$here/viewer" && npm ci --no-audit --no-fund --ignore-scripts)
  fi
fi
