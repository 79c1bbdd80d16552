"""The prepared GPU run (``tests/benchmarks/gpu_runbook.sh``) runs: every step at tiny sizes on
the CPU (``RUNBOOK_SMOKE=1``), each writing its log and its figures, one summary line per step,
and a step that does not exist refused with exit status 2. A machine with an accelerator is
lent to some sessions only, for minutes: the script must not first be tried there."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNBOOK = os.path.join(ROOT, "tests", "benchmarks", "gpu_runbook.sh")


def _run(out, *steps):
    env = dict(os.environ, RUNBOOK_SMOKE="1", OUT=str(out), PYTHON=sys.executable)
    return subprocess.run(["bash", RUNBOOK, *steps], check=False, env=env, capture_output=True, text=True,
                          timeout=600)


def test_every_step_runs_at_tiny_sizes_on_the_cpu(tmp_path):
    r = _run(tmp_path, "tests", "bloom", "training", "7b")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    lines = (tmp_path / "summary.txt").read_text().splitlines()
    environment = [line for line in lines if line.startswith("# ")]
    summary = [line for line in lines if not line.startswith("#")]
    assert any("torch" in line and "posbias" in line for line in environment), environment
    assert [line.split(":")[0] for line in summary] == ["tests", "bloom", "training", "7b"]
    assert len(list(tmp_path.iterdir())) <= 8  # what a device call brings back
    assert all(": exit 0 after " in line for line in summary), summary
    assert "skipped" in (tmp_path / "tests.log").read_text()  # no CUDA here: skipped, not failed
    for name in ("bloom", "7b"):
        fig = json.loads((tmp_path / f"{name}.json").read_text())
        assert fig["samples"] == 4 and fig["device"] == "cpu" and fig["total_s"] > 0
        assert fig["target_s"] is None and fig["met"] is None  # no GPU target on the CPU
        assert fig["p1_over_min"] >= 1 and 1 <= fig["argmin"] <= fig["length"]
    assert json.loads((tmp_path / "7b.json").read_text())["random_init"] is True
    runs = json.loads((tmp_path / "training.json").read_text())["runs"]
    assert [(r["mask"], r["pe"], r["residual"]) for r in runs] == [
        ("causal", "none", True), ("causal", "rope", True), ("decay:0.223144", "none", True)]
    for run in runs:  # the stored CPU runs of these configurations are the baseline
        assert run["baseline_cpu_s"] > 0 and run["projected_100k_s"] > 0
        assert run["met"] is None


def test_a_step_that_does_not_exist_is_refused(tmp_path):
    r = _run(tmp_path, "warp-drive")
    assert r.returncode == 2
    assert "no step warp-drive" in r.stderr


def test_a_failing_step_fails_the_run(tmp_path):
    env = dict(os.environ, RUNBOOK_SMOKE="1", OUT=str(tmp_path), PYTHON="false")
    r = subprocess.run(["bash", RUNBOOK, "training"], check=False, env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1
    steps = [line for line in (tmp_path / "summary.txt").read_text().splitlines()
             if not line.startswith("#")]
    assert steps == [steps[0]] and steps[0].startswith("training: exit 1 after ")


def _fake_wheel(path, change=None, drop=None):
    """A zip holding the checkout's package modules under their installed names, as a wheel
    does; ``change`` alters one member, ``drop`` leaves one out."""
    import zipfile

    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on; the GPU machine has 3.12
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        mapping = tomllib.load(fh)["tool"]["setuptools"]["package-dir"]
    with zipfile.ZipFile(path, "w") as zf:
        for package, folder in mapping.items():
            for name in sorted(os.listdir(os.path.join(ROOT, folder))):
                if not name.endswith(".py"):
                    continue
                member = "/".join([*package.split("."), name])
                if member == drop:
                    continue
                with open(os.path.join(ROOT, folder, name), "rb") as fh:
                    data = fh.read()
                zf.writestr(member, data + b"# changed\n" if member == change else data)
        zf.writestr("posbias-0.2.0.dist-info/RECORD", "")
    return str(path)


def test_the_runbook_refuses_a_wheel_that_is_not_this_checkouts_code(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "tests", "benchmarks"))
    try:
        import wheel_matches_checkout as w
    finally:
        sys.path.pop(0)
    assert w.check(_fake_wheel(tmp_path / "a.whl"), ROOT) is None
    stale = w.check(_fake_wheel(tmp_path / "b.whl", change="posbias/measurements/planning.py"),
                    ROOT)
    assert stale.startswith("posbias/measurements/planning.py: differs from")
    assert "measurements/planning.py" in stale
    missing = w.check(_fake_wheel(tmp_path / "c.whl", drop="posbias/resources.py"), ROOT)
    assert missing == "src/posbias/resources.py: a module of posbias missing from the wheel"
    assert w.source_of("posbias/proofs_checks/claims/wu2025.py",
                       {"posbias": "src/posbias", "posbias.proofs_checks.claims": "pc/claims"}
                       ) == os.path.join("pc/claims", "wu2025.py")
    assert w.main([str(tmp_path / "b.whl"), ROOT]) == 2
