"""``tests/benchmarks/gpu_prepare.sh`` prepares the wheels for the accelerator machine from a
source tree without git (an unpacked archive), from a git worktree (whose ``.git`` is a file) and
from a clone, and excludes ``.whl/`` from git only where there is a git checkout.  ``python3`` is
a stand-in recording its arguments, so nothing is downloaded or built."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tests", "benchmarks", "gpu_prepare.sh")


def _tree(tmp_path):
    """A source tree holding the script, and a bin folder with the stand-in python3."""
    tree = tmp_path / "src"
    (tree / "tests" / "benchmarks").mkdir(parents=True)
    shutil.copy(SCRIPT, tree / "tests" / "benchmarks" / "gpu_prepare.sh")
    (tree / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "python3"
    fake.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/calls"\n')
    fake.chmod(0o755)
    return tree, bindir


def _run(tree, bindir, tmp_path):
    env = dict(os.environ, PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}",
               GIT_CEILING_DIRECTORIES=str(tmp_path))
    return subprocess.run(["bash", str(tree / "tests" / "benchmarks" / "gpu_prepare.sh")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
                          check=False)


def test_prepares_the_wheels_without_git(tmp_path):
    tree, bindir = _tree(tmp_path)
    r = _run(tree, bindir, tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tree / ".whl").is_dir() and not (tree / ".git").exists()
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls[0].startswith("-m pip download") and "gmpy2>=2.1" in calls[0]
    assert calls[1] == "-m pip wheel -q --no-deps -w .whl ."


@pytest.mark.skipif(not shutil.which("git"), reason="git not installed")
@pytest.mark.parametrize("worktree", [False, True])
def test_excludes_the_wheels_from_git_in_a_clone_and_in_a_worktree(tmp_path, worktree):
    tree, bindir = _tree(tmp_path)

    def git(*args, cwd):
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)

    git("init", "-q", cwd=tree)
    git("add", "-A", cwd=tree)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "t", cwd=tree)
    where = tree
    if worktree:
        where = tmp_path / "wt"
        git("worktree", "add", "-q", str(where), cwd=tree)
        assert (where / ".git").is_file()
    for _ in range(2):                                       # run twice: one exclusion line
        r = _run(where, bindir, tmp_path)
        assert r.returncode == 0, r.stderr
    exclude = subprocess.run(["git", "rev-parse", "--git-path", "info/exclude"], cwd=where,
                             capture_output=True, text=True, check=True).stdout.strip()
    lines = (where / exclude).read_text().splitlines()
    assert lines.count("/.whl/") == 1
    assert (where / ".whl").is_dir()
