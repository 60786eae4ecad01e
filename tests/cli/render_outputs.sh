#!/usr/bin/env bash
# Issue 19 item 6: `radiant render` on a training run — an orbit from its cameras, its own test views, JPEG
# and folder outputs named after the cameras, depth and alpha layers — and what it refuses.
# Usage: render_outputs.sh RADIANT RUN_DIR (trained with --eval) DATA_DIR WORK_DIR
set -euo pipefail
radiant=$1 run=$2 data=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
is_png() { [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e47" ] || fail "$1 is not a PNG"; }
is_jpeg() { [ "$(head -c 3 "$1" | od -An -tx1 | tr -d ' \n')" = "ffd8ff" ] || fail "$1 is not a JPEG"; }

# An orbit from the run's cameras.json into a folder, with depth and alpha.
"$radiant" render -m "$run" --orbit 3 -o "$work/orbit/" --depth --median-depth --alpha --backend cpu >"$work/orbit.log" 2>&1 ||
  { cat "$work/orbit.log"; fail "orbit"; }
grep -q "orbit from .*cameras.json's" "$work/orbit.log" || fail "the orbit did not use the run's cameras"
for i in 000 001 002; do
  is_png "$work/orbit/$i.png"; is_png "$work/orbit/${i}_alpha.png"; is_png "$work/orbit/${i}_depth.png"
  [ "$(head -c 6 "$work/orbit/${i}_depth.npy" | tail -c 5)" = "NUMPY" ] || fail "${i}_depth.npy is not .npy"
  is_png "$work/orbit/${i}_median_depth.png"
  [ "$(head -c 6 "$work/orbit/${i}_median_depth.npy" | tail -c 5)" = "NUMPY" ] || fail "${i}_median_depth.npy"
done
[ "$(ls "$work/orbit" | wc -l)" -eq 18 ] || fail "orbit folder holds $(ls "$work/orbit")"

# The run's test views as JPEG, each named after its camera (the dataset's image name).
"$radiant" render -m "$run/scene.ply" --views test -o "$work/test.jpg" --backend cpu >"$work/views.log" 2>&1 ||
  { cat "$work/views.log"; fail "--views test"; }
tests=$(grep -c '"split": "test"' "$run/cameras.json")
[ "$(ls "$work"/test_test_r_*.jpg | wc -l)" -eq "$tests" ] || fail "expected $tests test views: $(ls "$work")"
for f in "$work"/test_test_r_*.jpg; do is_jpeg "$f"; done

# The dataset's cameras with --data; one view to one file.
"$radiant" render -m "$run/scene.ply" --views train -d "$data" -o "$work/train/" --backend cpu >/dev/null 2>&1 ||
  fail "--views train --data"
[ -f "$work/train/train_r_000.png" ] || fail "train views: $(ls "$work/train")"
"$radiant" render -m "$run" --camera "$(dirname "$0")/fisheye_camera.json" --shading ray -o "$work/named/" \
  --backend cpu >/dev/null 2>&1 || fail "named camera"
[ -f "$work/named/fisheye.png" ] || fail "a camera's name names its file: $(ls "$work/named")"

# Refused, with nothing written: an image format radiant does not write, --views without cameras.
if "$radiant" render -m "$run" --orbit 2 -o "$work/x.tif" --backend cpu >"$work/tif.log" 2>&1; then fail ".tif accepted"; fi
grep -q "write .png, .jpg or .jpeg" "$work/tif.log" || { cat "$work/tif.log"; fail ".tif message"; }
ls "$work" | grep -q "^x.*\.tif$" && fail ".tif written"
mkdir -p "$work/lone" && cp "$run/scene.ply" "$work/lone/"
if "$radiant" render -m "$work/lone/scene.ply" --views test --backend cpu >"$work/lone.log" 2>&1; then fail "--views without cameras"; fi
grep -q "needs the capture's cameras" "$work/lone.log" || { cat "$work/lone.log"; fail "--views message"; }
echo "render outputs: ok"
