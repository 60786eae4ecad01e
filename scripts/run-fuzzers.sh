#!/usr/bin/env bash
# Runs each libFuzzer target for a bounded time, JOBS targets at once (default: the cores):
#   [JOBS=N] scripts/run-fuzzers.sh BUILD_DIR SECONDS TARGET...
# Seeds come from fuzz/corpus/TARGET (read only); what a run discovers goes to BUILD_DIR/corpus/TARGET and
# crashing inputs to BUILD_DIR/findings/. Exits non-zero when any target finds something.
set -uo pipefail
build=$1 seconds=$2
shift 2
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs=${JOBS:-$(nproc)}
mkdir -p "$build/findings"

# One target, single-threaded; its exit status is kept in findings/TARGET.rc for the summary.
fuzz_one() {
  local t=$1 corpus="$build/corpus/$1" log="$build/findings/$1.log"
  mkdir -p "$corpus"
  # Sizes a reader takes from a header must be checked before they are allocated: 2 GiB caps it.
  "$build/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$build/findings/$t-" "$corpus" "$root/fuzz/corpus/$t" \
    >"$log" 2>&1
  echo $? >"$build/findings/$t.rc"
}

running=0
for t in "$@"; do
  echo "fuzz: $t for ${seconds}s"
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

status=0
summary=()
for t in "$@"; do
  log="$build/findings/$t.log"
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  if [ "$(cat "$build/findings/$t.rc")" != 0 ]; then
    status=1
    summary+=("$t: FINDING after ${runs} executions (see $log and $build/findings/$t-*)")
    echo "---- $t"
    tail -40 "$log"
  else
    summary+=("$t: ${runs} executions, no findings, corpus $(ls "$build/corpus/$t" | wc -l) files")
  fi
done
printf 'fuzz: %s\n' "${summary[@]}"
exit $status
