#!/usr/bin/env bash
# Issue 24: `radiant render --path … -o NAME.mp4` writes a fly-through video (ffmpeg), every path kind; without
# ffmpeg the frames stay as PNGs with the command that joins them. Exit 77 without ffmpeg, except in CI.
# `radiant train --video` ends with OUT/flythrough.mp4.
# Usage: flythrough.sh RADIANT RUN DATA WORK
set -euo pipefail
radiant="$1" run="$2" data="$3" work="$4"
if ! command -v ffmpeg >/dev/null || ! command -v ffprobe >/dev/null; then
  [ "${CI:-}" = true ] && { echo "FAIL: ffmpeg is not on PATH in CI (scripts/install-deps.sh installs it)"; exit 1; }
  echo "ffmpeg not on PATH: skipped"; exit 77
fi
rm -rf "$work" && mkdir -p "$work"
frames() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }
for path in train-cameras orbit spiral; do
  "$radiant" render -m "$run" --path "$path" --frames 12 --width 63 --height 47 --backend cpu -o "$work/$path.mp4" \
    >"$work/$path.log" 2>&1 || { cat "$work/$path.log"; echo "FAIL: --path $path"; exit 1; }
  n=$(frames "$work/$path.mp4")
  [ "$n" = 12 ] || { echo "FAIL: $path.mp4 has $n frames, not 12"; exit 1; }
  [ ! -e "$work/$path.mp4.frames" ] || { echo "FAIL: frames left beside $path.mp4"; exit 1; }
done
"$radiant" train -d "$data" -o "$work/run" --steps 5 --backend cpu --video >"$work/train.log" 2>&1 ||
  { cat "$work/train.log"; echo "FAIL: train --video"; exit 1; }
n=$(frames "$work/run/flythrough.mp4")
[ "$n" = 240 ] || { echo "FAIL: the run's flythrough.mp4 has $n frames, not 240"; exit 1; }
# No ffmpeg: the frames and the command.
PATH=/nonexistent "$radiant" render -m "$run" --path train-cameras --frames 5 --backend cpu -o "$work/none.mp4" \
  >"$work/none.log" 2>&1 || { cat "$work/none.log"; echo "FAIL: without ffmpeg"; exit 1; }
grep -q "join them with" "$work/none.log" || { cat "$work/none.log"; echo "FAIL: no command given"; exit 1; }
[ -f "$work/none.mp4.frames/004.png" ] && [ ! -e "$work/none.mp4" ] || { echo "FAIL: frames"; exit 1; }
echo "fly-through videos: ok"
