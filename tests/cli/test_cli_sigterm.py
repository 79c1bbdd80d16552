"""SIGTERM to `posbias check -n 2` ends its worker processes (the executor's own exit would wait
for every running check to finish) and the command exits with 143."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

MODULE = '''
import os, time
from posbias.proofs_checks import claim, Evidence
for k in range(2):
    @claim(f"sigterm:sleep{k}", statement="s", latex="x", expected="verified")
    def _c(ctx, k=k):
        open(os.path.join(os.environ["POSBIAS_SIGTERM_DIR"], f"worker-{os.getpid()}"), "w").close()
        time.sleep(300)
        return Evidence("verified")
'''


@pytest.mark.skipif(sys.platform != "linux", reason="POSIX signals")
def test_sigterm_ends_the_workers(tmp_path):
    (tmp_path / "sigterm_claims_mod.py").write_text(MODULE)
    env = {**os.environ, "POSBIAS_SIGTERM_DIR": str(tmp_path), "PYTHONPATH": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "posbias", "check", "--import",
                             "sigterm_claims_mod", "sigterm:sleep0", "sigterm:sleep1", "-n", "2",
                             "-q"], env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("worker-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    workers = [int(p.name.split("-")[1]) for p in tmp_path.glob("worker-*")]
    assert len(workers) == 2, "the workers did not start"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and "terminated" in err
    time.sleep(1)
    alive = []
    for pid in workers:
        try:
            os.kill(pid, 0)
            alive.append(pid)
        except ProcessLookupError:
            pass
    for pid in alive:  # never leave them behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"workers still running after SIGTERM: {alive}"


class _Terminal:
    def isatty(self):
        return True


def test_thorough_prints_its_estimate_and_asks_for_yes_on_a_terminal(capsys, monkeypatch):
    """Before any re-training, --thorough lists each piece of work with its estimated wall time
    (the stored run's measured rate); beyond 10 minutes on a terminal it needs --yes."""
    from posbias.cli import main

    monkeypatch.setattr(sys, "stdin", _Terminal())
    code = main(["check", "--thorough", "wu2025:trained-causal-primacy-residual"])
    err = capsys.readouterr().err
    assert code == 2 and "--yes" in err
    assert "re-training causal / PE none, with residual (100000 iterations" in err and "total: about" in err
    # off a terminal (CI, a pipe) the estimate is printed and the run would start: shown here
    # on the claim whose re-run is cheap, with the work list empty for it
    with open(os.devnull) as devnull:
        monkeypatch.setattr(sys, "stdin", devnull)
        code = main(["check", "--thorough", "posbias:hausdorff", "-q"])
    assert code == 0
