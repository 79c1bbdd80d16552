#!/usr/bin/env bash
# The GPU checks of posbias as one prepared run on a lent accelerator machine (one H200): the
# tests marked gpu, then the GPU benchmarks of docs/howto/gpu-and-clusters.md. Each step
# runs under its own time limit, so that a call ends inside the 10 minutes one command may take;
# every log and figure goes to $OUT (8 files: the 8 that come back from a device call), one
# summary line per step to $OUT/summary.txt after the environment.
#
#   here:   bash tests/benchmarks/gpu_prepare.sh        (wheels the image lacks, into .whl/)
#   there:  bash tests/benchmarks/gpu_runbook.sh [STEP ...]   with .whl carried
#
# Steps, in the order given (default: all four; their limits, 490 s with 3 s each to stop, leave
# a minute of one command's 10 for the install and the environment report; a step over its limit
# is killed and its log says how far it came):
#   tests     pytest -m gpu tests/measurements/test_devices.py (CUDA against the CPU)
#   bloom     bench_pretrained.py, BLOOM-560m shape, L = 512, 16 windows, batch auto (target 15 s)
#   training  bench_training.py, wu2025's three Figure-5 configurations, 6,000 iterations each,
#             projected to 100,000 (target 5 min per configuration)
#   7b        bench_pretrained.py, LLaMA-2-7B shape at Step 0, bfloat16, L = 2048, 64 windows,
#             batch auto (target 5 min)
#
# RUNBOOK_SMOKE=1 runs every step on the CPU at tiny sizes (tests/benchmarks/test_gpu_runbook.py
# does, so that the script is known to run before a machine is lent).
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
PY="${PYTHON:-python3}"
SMOKE="${RUNBOOK_SMOKE:-0}"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests bloom training 7b)
for s in "${steps[@]}"; do  # every step named is known before any runs
    case "$s" in
        tests|bloom|training|7b) ;;
        *) echo "gpu_runbook: no step $s (tests, bloom, training, 7b)" >&2; exit 2 ;;
    esac
done

if [ -d .whl ] && [ "$SMOKE" != 1 ]; then
    # the wheel must be this checkout's code: the tests and benchmarks below run against it
    "$PY" tests/benchmarks/wheel_matches_checkout.py .whl/posbias-*.whl || exit 2
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || { echo "installing .whl failed" >&2; exit 2; }
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi

# the environment heads the summary, each line marked '#' (at most 8 files come back from $OUT)
{
    date -u +"%Y-%m-%dT%H:%M:%SZ"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version \
        --format=csv,noheader
    "$PY" -c "import sys, torch, transformers, posbias; print('python', sys.version.split()[0], \
'torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'transformers', \
transformers.__version__, 'posbias', posbias.__version__, 'cores', __import__('os').cpu_count())"
} 2>&1 | sed 's/^/# /' > "$OUT/summary.txt"
cat "$OUT/summary.txt"

if [ "$SMOKE" = 1 ]; then
    DEVICE=cpu THREADS=1
    BLOOM=(--shape tiny-bloom --length 32 --samples 4)
    SEVEN=(--shape tiny-llama --random-init --length 64 --samples 4)
    TRAIN=(--iterations 20 --eval-every 10 --test-size 64 --record-influence 2)
    LIMITS=(60 60 60 60)
else
    DEVICE=cuda THREADS=16
    BLOOM=(--shape bloom-560m --length 512 --samples 16)
    SEVEN=(--shape llama-7b --random-init --dtype bfloat16 --length 2048 --samples 64)
    TRAIN=(--iterations 6000)
    LIMITS=(80 80 110 220)
fi

step() {  # name, limit in seconds, command...
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS status
    echo "=== $name (limit ${limit} s): $*"
    timeout --kill-after=3 "$limit" "$@" > "$OUT/$name.log" 2>&1
    status=$?
    tail -n 25 "$OUT/$name.log"
    echo "$name: exit $status after $((SECONDS - t0)) s" | tee -a "$OUT/summary.txt"
}

for s in "${steps[@]}"; do
    case "$s" in
        tests) step tests "${LIMITS[0]}" "$PY" -m pytest -q -m gpu -p no:cacheprovider -rs \
                   tests/measurements/test_devices.py ;;
        bloom) step bloom "${LIMITS[1]}" "$PY" tests/benchmarks/bench_pretrained.py "${BLOOM[@]}" \
                   --device "$DEVICE" --batch-size auto --threads "$THREADS" \
                   --json "$OUT/bloom.json" ;;
        training) step training "${LIMITS[2]}" "$PY" tests/benchmarks/bench_training.py \
                      "${TRAIN[@]}" --device "$DEVICE" --json "$OUT/training.json" ;;
        7b) step 7b "${LIMITS[3]}" "$PY" tests/benchmarks/bench_pretrained.py "${SEVEN[@]}" \
                --device "$DEVICE" --batch-size auto --threads "$THREADS" --json "$OUT/7b.json" ;;
    esac
done
cat "$OUT/summary.txt"
! grep -v '^#' "$OUT/summary.txt" | grep -qv ': exit 0 '

