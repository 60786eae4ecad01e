#!/bin/bash
# Packs what a device call needs into the git-ignored .carry/ (bench/RESULTS.md's calls were made this way):
#   bench/tools/device_pack.sh NAME [BUILD]   build/radiant and build/tests/radiant_gpu_tests of BUILD (default
#                                             build), stripped, as .carry/binNAME.tar.xz
# and, once, the shared libraries the binaries load that the device lacks (.carry/lib) and bonsai
# (.carry/bonsai.tar, from ../shared/datasets). Then name the files in the device tool's `carry` and run
# bench/tools/device_run.sh there. Build with -DCMAKE_CUDA_ARCHITECTURES=90 for the H100/H200.
set -euo pipefail
name=${1:?usage: device_pack.sh NAME [BUILD]}
build=${2:-build}
root=$(git rev-parse --show-toplevel)
cd "$root"
[[ -x $build/radiant && -x $build/tests/radiant_gpu_tests ]] ||
    { echo "device_pack: $build/radiant or $build/tests/radiant_gpu_tests is missing: build first" >&2; exit 1; }
mkdir -p .carry/lib
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build/tests"
cp "$build/radiant" "$stage/build/"
cp "$build/tests/radiant_gpu_tests" "$stage/build/tests/"
strip "$stage/build/radiant" "$stage/build/tests/radiant_gpu_tests"
tar cJf ".carry/bin$name.tar.xz.part" -C "$stage" build
mv ".carry/bin$name.tar.xz.part" ".carry/bin$name.tar.xz"
# civetweb is not on the device; libgomp is, but this one matches the build
for lib in libcivetweb.so.1 libgomp.so.1; do
    path=$(ldd "$build/radiant" | awk -v l="$lib" '$1 == l { print $3 }')
    [[ -n $path ]] && cp -L "$path" .carry/lib/
done
if [[ ! -f .carry/bonsai.tar && -d ../shared/datasets/bonsai ]]; then
    tar cf .carry/bonsai.tar.part -C ../shared/datasets bonsai
    mv .carry/bonsai.tar.part .carry/bonsai.tar
fi
ls -la .carry .carry/lib
