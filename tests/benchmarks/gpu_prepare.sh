#!/usr/bin/env bash
# Run here, before the GPU checks: puts in .whl/ what the accelerator
# machine's image lacks for posbias -- this checkout as a wheel, and the wheels of gmpy2 and
# ruamel.yaml for its Python 3.12 -- so that tests/benchmarks/gpu_runbook.sh installs them there
# with no network. Carry .whl with the run.
set -euo pipefail
cd "$(dirname "$0")/../.."
# in a git checkout (a clone or a worktree, whose .git is a file) .whl/ is excluded from git;
# a source tree without git (an unpacked sdist or archive) needs nothing of the kind
if command -v git >/dev/null 2>&1 && exclude=$(git rev-parse --git-path info/exclude 2>/dev/null); then
    mkdir -p "$(dirname "$exclude")"
    grep -qx '/.whl/' "$exclude" 2>/dev/null || echo '/.whl/' >> "$exclude"
fi
rm -rf .whl build
mkdir .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    --platform manylinux1_x86_64 -d .whl "gmpy2>=2.1" "ruamel.yaml>=0.17"
python3 -m pip wheel -q --no-deps -w .whl .
rm -rf build
ls -l .whl
