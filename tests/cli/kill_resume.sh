#!/usr/bin/env bash
# Issue 9: SIGKILL a training run at random moments, resume it each time, and check that every file radiant
# left behind is whole and that the final result equals an uninterrupted run's.
# Usage: kill_resume.sh RADIANT DATA_DIR WORK_DIR [KILLS] [STEPS]
set -euo pipefail
radiant=$1 data=$2 work=$3 kills=${4:-20} steps=${5:-1000}
rm -rf "$work" && mkdir -p "$work"
args=(-d "$data" --eval --white-bg --backend cpu --steps "$steps" --checkpoint-every 10 --log-every 10)
"$radiant" train "${args[@]}" -o "$work/full" >"$work/full.log" 2>&1

# A result field from metrics.json (one key per line, as radiant writes it).
field() { grep -o "\"$2\": *[^,}]*" "$1/metrics.json" | head -1 | sed 's/.*: *//'; }

# Every file under OUT must be whole: the checkpoint loads (a resume validates it before training), each PLY
# parses, each JSON is complete. radiant writes to a temporary name and renames, so a kill leaves at most a
# stray temporary file, never a truncated real one.
check_whole() {
  local out=$1
  [ -f "$out/scene.ply" ] && "$radiant" info "$out/scene.ply" >/dev/null
  for j in "$out"/*.json; do
    [ -f "$j" ] || continue
    tail -c 3 "$j" | grep -q '}' || { echo "truncated JSON: $j"; exit 1; }
  done
  return 0
}

RANDOM=${KILL_SEED:-7}
done_kills=0
cmd=("$radiant" train "${args[@]}" -o "$work/part")
for ((k = 0; k < kills; ++k)); do
  "${cmd[@]}" >>"$work/part.log" 2>&1 &
  pid=$!
  # 0.10–0.49 s: inside start-up, steps, checkpoint writes and evaluation alike.
  sleep "0.$((10 + RANDOM % 40))"
  if kill -9 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || true
    done_kills=$((done_kills + 1))
  else
    wait "$pid" 2>/dev/null || true
    break  # finished before the kill
  fi
  check_whole "$work/part"
  # Resume when there is a checkpoint; a kill before the first one starts the run over.
  [ -f "$work/part/checkpoint.bin" ] && cmd=("$radiant" train --resume "$work/part")
done
"${cmd[@]}" >>"$work/part.log" 2>&1
check_whole "$work/part"

echo "kills: $done_kills of $kills"
[ "$done_kills" -eq "$kills" ] || { echo "the run finished before $kills kills: make it longer"; exit 1; }
for f in psnr ssim gaussians steps; do
  a=$(field "$work/full" $f) b=$(field "$work/part" $f)
  echo "$f: uninterrupted $a, killed and resumed $b"
  [ "$a" = "$b" ] || { echo "mismatch in $f"; exit 1; }
done
cmp "$work/full/scene.ply" "$work/part/scene.ply" || { echo "scene.ply differs"; exit 1; }
echo "kill/resume: OK"
