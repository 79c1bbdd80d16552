"""`posbias train` plans memory and time before any work: a run that cannot fit is refused in
one line (exit 2) before a directory is made; -v prints the plan; the plan's peak holds a
measured peak within a factor 1.5 (subprocess, peak RSS)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

from posbias.cli import main
from posbias.measurements import training as tr


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("extra", [["--test-size", "1000000000"], ["--batch", "1000000000"],
                                   ["--task", "lm-synthetic", "--test-size", "1000000000"],
                                   ["--test-size", "100000", "--max-memory", "1G"]])
def test_runs_that_cannot_fit_are_refused_before_work(extra, tmp_path, capsys):
    out = tmp_path / "never" / "made"
    code, _, err = _run(["train", "--iterations", "2", "--seeds", "0", "-o", str(out), "-q",
                         *extra], capsys)
    assert code == 2 and err.count("\n") == 1 and "needs about" in err
    assert not (tmp_path / "never").exists()  # nothing made, nothing half-written


def test_plan_is_printed_with_verbose_and_missing_parents_are_created(tmp_path, capsys):
    out = tmp_path / "runs" / "causal"
    code, _, err = _run(["train", "--iterations", "2", "--eval-every", "2", "--test-size", "50",
                         "--seeds", "0", "-o", str(out), "-v"], capsys)
    assert code == 0 and "plan of training" in err and "total: about" in err
    assert (out / "results.json").exists()


def test_python_entry_point_refuses_too(tmp_path):
    from posbias.errors import ResourceLimit

    cfg = tr.TrainConfig(iterations=2, eval_every=2, test_size=10**8)
    with pytest.raises(ResourceLimit, match="use a smaller --test-size"):
        tr.train_seeds(cfg, [0], max_memory=2**30)


def _peak_rss(args) -> int:
    """Peak RSS (bytes) of `posbias train ARGS`, measured by a fresh parent process whose only
    child it is (RUSAGE_CHILDREN keeps the maximum over all children of a process)."""
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
             "capture_output=True); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "posbias", "train",
                           *args], check=True, capture_output=True, text=True,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    return int(done.stdout.split()[-1]) * 1024


@pytest.mark.slow
def test_plan_holds_measured_peaks_within_a_factor(tmp_path):
    from posbias.measurements import lm_training as lt

    cases = [
        (["--task", "lm-synthetic", "--layers", "8", "--hidden", "256", "--length", "256",
          "--batch", "8", "--test-size", "200"],
         lt.plan_lm_training(lt.LMTrainConfig(layers=8, hidden=256, length=256, batch=8,
                                              test_size=200, iterations=2, eval_every=2))),
        (["--test-size", "30000"], tr.plan_training(tr.TrainConfig(test_size=30000, iterations=2,
                                                                     eval_every=2))),
    ]
    for args, plan in cases:
        peak = _peak_rss(["--iterations", "2", "--eval-every", "2", "--seeds", "0", "-q",
                          "-o", str(tmp_path / args[-1]), *args])
        assert plan.bytes / 1.5 <= peak <= plan.bytes * 1.5, (args, peak, plan.bytes)


def test_train_says_whether_its_gate_was_reached(tmp_path, capsys):
    """A short run's differences are never presented as a finding: the table ends with the gate
    of the trained claims and whether each seed reached it."""
    code, out, _ = _run(["train", "--iterations", "2", "--eval-every", "2", "--test-size", "40",
                         "--seeds", "0", "1", "-o", str(tmp_path / "t")], capsys)
    assert code == 0 and "Gate of the trained claims (in-context accuracy >= 0.75): NOT reached" in out
    assert "seed 0:" in out and "seed 1:" in out


def test_iterations_left_counts_what_a_resumed_run_still_does():
    # a fresh run: every iteration, the evaluations at Step 0, 500, 1000 and the last (1200)
    assert tr.iterations_left(1200, 500) == (1200, 4, "")
    assert tr.iterations_left(1000, 500) == (1000, 3, "")
    # resumed at 500: 700 iterations, evaluations at 1000 and 1200
    assert tr.iterations_left(1200, 500, 500) == (700, 2, ", resumed at iteration 500: 700 left")
    assert tr.iterations_left(1200, 500, 1200)[:2] == (0, 0)  # nothing left to do
    with pytest.raises(Exception, match="done"):
        tr.iterations_left(1200, 500, -1)


@pytest.mark.parametrize("plan", [tr.plan_training, "lm", "text"])
def test_a_resumed_run_is_planned_for_what_is_left(plan):
    """Half the iterations done: the training part's time is about half (the evaluations are
    shared out too), the memory is unchanged, and the title says where the run resumes."""
    from posbias.measurements import lm_text as lx
    from posbias.measurements import lm_training as lt

    if plan == "lm":
        plan, config = lt.plan_lm_training, lt.LMTrainConfig(iterations=2000, eval_every=100)
    elif plan == "text":
        plan, config = lx.plan_lm_text, lx.LMTextConfig(iterations=2000, eval_every=500)
    else:
        config = tr.TrainConfig(iterations=2000, eval_every=500)
    fresh, resumed = plan(config, 2), plan(config, 2, done=1000)
    assert resumed.bytes == fresh.bytes
    assert 0.4 * fresh.seconds < resumed.seconds < 0.6 * fresh.seconds
    assert "resumed at iteration 1000: 1000 left" in resumed.what
    assert plan(config, 2, done=2000).seconds == 0


def test_resume_plans_from_the_checkpoints(tmp_path, capsys):
    out = tmp_path / "run"
    base = ["train", "--eval-every", "4", "--test-size", "40", "--seeds", "0", "1", "-o",
            str(out)]
    code, _, _ = _run([*base, "--iterations", "4", "-q"], capsys)
    assert code == 0
    code, _, err = _run([*base, "--iterations", "12", "--resume", "-v"], capsys)
    assert code == 0
    assert "resumed at iteration 4: 8 left" in err


def test_a_plan_holds_each_device_against_its_own_memory(monkeypatch):
    """Parts placed on an accelerator leave the host's total, are listed under their device,
    and are refused (one line naming the device) when they exceed its memory."""
    from posbias import resources
    from posbias.errors import ResourceLimit

    plan = resources.Plan("example", [("host part", 3 * 2**20, 1.0), ("weights", 5 * 2**30, 0.0),
                                      ("batch", 2 * 2**30, 2.0)],
                          placement={"weights": "cuda:0", "batch": "cuda:0"})
    assert plan.per_device() == {"cpu": 3 * 2**20, "cuda:0": 7 * 2**30}
    assert plan.bytes == 3 * 2**20 and plan.seconds == 3.0
    assert plan.as_dict()["parts"][1]["device"] == "cuda:0"
    assert "weights on cuda:0" in plan.describe() and "on cuda:0: about 7 GiB" in plan.describe()
    # without CUDA here no accelerator limit is known: only the host is checked
    assert plan.check(max_memory=2**30) is plan
    monkeypatch.setattr(resources, "accelerator_memory",
                        lambda dev: (6 * 2**30, f"{dev} has") if dev == "cuda:0" else (None, ""))
    with pytest.raises(ResourceLimit) as info:
        plan.check()
    text = str(info.value)
    assert "\n" not in text and text.startswith("needs about 7 GiB on cuda:0; cuda:0 has 6 GiB")


@pytest.mark.parametrize("kind", ["icl", "lm", "text"])
def test_training_plans_put_what_moves_on_the_training_device(kind):
    from posbias.measurements import lm_text as lx
    from posbias.measurements import lm_training as lt

    planner, config, moved = {
        "icl": (tr.plan_training, tr.TrainConfig(), 2),
        "lm": (lt.plan_lm_training, lt.LMTrainConfig(), 3),
        "text": (lx.plan_lm_text, lx.LMTextConfig(), 2),
    }[kind]
    cpu, gpu = planner(config, 1), planner(config, 1, device="cuda:0")
    assert cpu.placement == {} and set(gpu.placement.values()) == {"cuda:0"}
    assert len(gpu.placement) == moved
    # what moves is built on the host first: the host's share is the CPU run's, and the device
    # holds the moved parts (the last `moved` parts of the CPU plan, once more)
    assert gpu.bytes == cpu.bytes and gpu.seconds == cpu.seconds
    assert gpu.per_device()["cuda:0"] == sum(b for _, b, _ in cpu.parts[-moved:])
    assert all(name.endswith(", moved to cuda:0") for name in gpu.placement)
