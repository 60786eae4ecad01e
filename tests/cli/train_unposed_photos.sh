#!/usr/bin/env bash
# Issue 24: `radiant train -d PHOTOS` on photos without poses poses them with COLMAP into OUT/data, says so,
# and trains; into a folder that holds such posed data already, it takes that instead of preparing again.
# Exit 77 (skipped) without colmap, except in CI, where that is a failure.
set -euo pipefail
radiant="$1" out="$2"
if ! command -v colmap >/dev/null; then
  [ "${CI:-}" = true ] && { echo "FAIL: colmap is not on PATH in CI (scripts/install-deps.sh installs it)"; exit 1; }
  echo "colmap not on PATH: skipped"; exit 77
fi
rm -rf "$out" && mkdir -p "$out/photos"
"$radiant" demo -o "$out/demo" --width 320 --height 240 --views 24 --steps 1 --backend cpu --surface-detail >/dev/null 2>&1
cp "$out"/demo/data/train/*.png "$out/photos/"
"$radiant" train -d "$out/photos" -o "$out/run" --steps 30 --backend cpu --downscale 2 >"$out/train.log" 2>&1 ||
  { cat "$out/train.log"; echo "FAIL: train on unposed photos"; exit 1; }
cat "$out/train.log"
grep -q "has photos but no poses: preparing them with COLMAP" "$out/train.log" || { echo "FAIL: not said"; exit 1; }
grep -q "24 of 24 photos registered" "$out/train.log" || { echo "FAIL: not all registered"; exit 1; }
[ -f "$out/run/data/sparse/0/cameras.bin" ] && [ -f "$out/run/scene.ply" ] || { echo "FAIL: outputs"; exit 1; }
mkdir -p "$out/again" && cp -r "$out/run/data" "$out/again/"
"$radiant" train -d "$out/photos" -o "$out/again" --steps 1 --backend cpu --downscale 2 >"$out/again.log" 2>&1 ||
  { cat "$out/again.log"; echo "FAIL: train again"; exit 1; }
grep -q "posed by an earlier prepare" "$out/again.log" || { cat "$out/again.log"; echo "FAIL: prepared twice"; exit 1; }
echo "unposed photos: prepared and trained"
