#!/bin/bash
# Runs on the device machine, from the repository root, the binaries device_pack.sh packed (carry
# .carry/binNAME.tar.xz, .carry/lib and, for bonsai, .carry/bonsai.tar). One line of results per run:
#   device_run.sh suite NAME [FILTER]         the GPU suite (default: all but the long pose recovery)
#   device_run.sh rows NAME... [-- ARGS]      issue 20's five bench rows, each binary in turn, twice
#   device_run.sh bonsai NAME RUNS [ARGS]     bonsai's default recipe (--eval --profile=1000) RUNS times
#   device_run.sh demo NAME [ARGS]            the demo scene
#   device_run.sh same A B [ARGS]             whether A's and B's `radiant render` of the built-in scene (one
#                                             orbit view; or ARGS) are the same bytes (the forward has no atomics)
# (--backend auto: CUDA on the device)
# Metrics of the bonsai runs are copied to $OUT when it is set.
set -uo pipefail
carry=$PWD/.carry
export LD_LIBRARY_PATH=$carry/lib:${LD_LIBRARY_PATH:-}

unpack() {  # NAME → /tmp/dev/NAME/build
    local dir=/tmp/dev/$1
    if [[ ! -x $dir/build/radiant ]]; then
        mkdir -p "$dir"
        tar xJf "$carry/bin$1.tar.xz" -C "$dir" || { echo "no .carry/bin$1.tar.xz" >&2; exit 1; }
    fi
    echo "$dir/build"
}

bonsai_dir() {
    if [[ ! -d /tmp/dev/ds/bonsai ]]; then
        mkdir -p /tmp/dev/ds
        tar xf "$carry/bonsai.tar" -C /tmp/dev/ds || { echo "no .carry/bonsai.tar" >&2; exit 1; }
    fi
    echo /tmp/dev/ds/bonsai
}

cmd=${1:?usage: device_run.sh suite|rows|bonsai|demo ...}
shift
case $cmd in
suite)
    b=$(unpack "$1") || exit 1
    filter=${2:--*PoseRecovery*}
    log=/tmp/dev/suite_$1.log
    start=$SECONDS
    (cd "$(dirname "$b")" && ./build/tests/radiant_gpu_tests --gtest_filter="$filter" > "$log" 2>&1)
    rc=$?
    echo "suite $1 ($filter): rc=$rc in $((SECONDS - start)) s: $(grep -E '^\[  (PASSED|FAILED)' "$log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$log" | head -20
    exit "$rc"  # the tests' status (the grep's would stop a `&&` chain after a suite with no failure)
    ;;
rows)
    names=()
    while [[ $# -gt 0 && $1 != -- ]]; do names+=("$1"); shift; done
    [[ ${1:-} == -- ]] && shift
    for row in "-n 900000 --width 799 --height 532 --tile-size 8" "-n 1000000 --width 1920 --height 1080 --tile-size 8" \
        "-n 3000000 --width 1920 --height 1080 --tile-size 8" "-n 3000000 --width 1280 --height 720 --tile-size 8" \
        "-n 3000000 --width 1920 --height 1080 --heavier --tile-size 16"; do
        echo "-- $row $*"
        for _ in 1 2; do
            for name in "${names[@]}"; do
                b=$(unpack "$name") || exit 1
                # shellcheck disable=SC2086
                if "$b/radiant" bench $row "$@" --json > /tmp/dev/bench.json 2> /tmp/dev/bench.err; then
                    python3 - "$name" <<'EOF'
import json, sys
j = json.load(open('/tmp/dev/bench.json')); m = j['ms']
print('%-8s step %.3f  project %.3f  bin %.3f  sort %.3f  fwd %.3f  loss %.3f  bwd %.3f  geometry %.3f  adam %.3f'
      '  pairs %d  peak %.3f GiB' % (sys.argv[1], m['step'], m.get('project', 0), m.get('bin', 0), m.get('sort', 0),
      m['forward'], m['loss'], m['backward'], m.get('geometry', 0), m['adam'], j['tile_pairs'],
      j['peak_memory_bytes'] / 2**30))
EOF
                else
                    echo "$name FAILED: $(tail -1 /tmp/dev/bench.err)"
                fi
            done
        done
    done
    ;;
bonsai)
    name=$1
    b=$(unpack "$name") || exit 1
    runs=${2:?bonsai NAME RUNS [ARGS]}
    shift 2
    data=$(bonsai_dir)
    for ((r = 1; r <= runs; ++r)); do
        out=/tmp/dev/bonsai_${name}_$r
        rm -rf "$out"
        "$b/radiant" train -d "$data" --eval --profile=1000 -o "$out" "$@" > "$out.log" 2>&1
        rc=$?
        if [[ $rc -ne 0 ]]; then echo "bonsai run $r: rc=$rc: $(tail -2 "$out.log")"; continue; fi
        python3 - "$out/metrics.json" "$r" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1])); p = m.get('profile', {}); s = p.get('stages_ms', {})
print('bonsai run %s: %.2f dB  SSIM %.4f  %d Gaussians  %.2f s  step %.3f ms (%s)' % (sys.argv[2], m['psnr'], m['ssim'],
      m['gaussians'], m['train_seconds'], p.get('step_ms', 0), ' '.join('%s %.3f' % kv for kv in sorted(s.items()))))
EOF
        if [[ -n ${OUT:-} ]]; then cp "$out/metrics.json" "$OUT/bonsai_${name}_$r.json"; fi
    done
    ;;
demo)
    name=$1
    b=$(unpack "$name") || exit 1
    shift
    out=/tmp/dev/demo_$name
    rm -rf "$out"
    "$b/radiant" demo -o "$out" "$@" > "$out.log" 2>&1
    echo "demo: rc=$? $(grep -E '^demo:' "$out.log")"
    ;;
same)
    a=$(unpack "$1") || exit 1
    b=$(unpack "$2") || exit 1
    shift 2
    [[ $# -gt 0 ]] || set -- --demo --orbit 1
    for v in a b; do
        bin=$a
        [[ $v == b ]] && bin=$b
        if ! "$bin/radiant" render "$@" -o /tmp/dev/same_$v.png > /tmp/dev/same_$v.log 2>&1; then
            echo "same: the render of $v failed: $(tail -n 1 /tmp/dev/same_$v.log)"
            exit 1
        fi
    done
    if cmp -s /tmp/dev/same_a.png /tmp/dev/same_b.png; then echo "same: the renders are the same bytes"; else echo "same: the renders DIFFER"; fi
    ;;
*)
    echo "device_run.sh: unknown command $cmd" >&2
    exit 2
    ;;
esac
