"""Progress of a long run where standard error is not a terminal (a log, a batch job): a line
with the count, the time so far and the ETA once a minute and one at the end; a run shorter than
a minute prints nothing; --quiet prints nothing; a training run's bar does the same."""

from __future__ import annotations

import pytest

from posbias import resources
from posbias.cli import _common


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(resources.time, "monotonic", c)
    return c


def test_a_long_run_without_a_terminal_prints_a_line_a_minute_with_its_eta(clock, capsys):
    with _common.progress(4, "posbias check") as bar:
        for _ in range(4):
            clock.now += 40.0                    # 40 s an item: 160 s in all
            bar.update(1)
    lines = capsys.readouterr().err.splitlines()
    # after 80 s (2 of 4 done, 40 s an item: 80 s left) and 160 s (3 of 4 at 120 s was < 60 s
    # after the last line), then the end
    assert lines == ["posbias check: 2/4 (50%), 80 s elapsed, about 80 s left",
                     "posbias check: 4/4 (100%), 3 min elapsed"]


def test_the_eta_and_the_postfix(clock, capsys):
    with _common.progress(10, "layers") as bar:
        bar.set_postfix_str("H = 3")
        clock.now += 61.0
        bar.update(1)
        bar.update(0)                            # not a minute since the last line: nothing
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "layers: 1/10 (10%), 61 s elapsed, about 9 min left [H = 3]"
    assert len(lines) == 1                       # interrupted before the end: no last line


def test_a_short_run_and_a_quiet_one_print_nothing(clock, capsys):
    with _common.progress(3, "claims") as bar:
        for _ in range(3):
            clock.now += 10.0
            bar.update(1)
    with _common.progress(3, "claims", quiet=True) as bar:
        clock.now += 1000.0
        bar.update(3)
    assert capsys.readouterr().err == ""


def test_a_training_run_without_a_terminal_gets_the_lines(clock, capsys):
    """The trainings' bar (measurements.loop.progress_bar) without a terminal: the same lines,
    resumed runs counting from where they start, the evaluation's figure as the postfix;
    progress=False shows nothing."""
    from types import SimpleNamespace

    loop = pytest.importorskip("posbias.measurements.loop")
    config = SimpleNamespace(iterations=1000, name="task")
    assert loop.progress_bar(False, config, 0, 0, 1000) is None
    bar = loop.progress_bar(None, config, 3, 500, 1000)        # resumed at 500
    assert isinstance(bar, resources.LineProgress) and bar.n == 500
    clock.now += 60.0
    bar.set_postfix({"loss": 0.25})
    bar.update(100)                                            # 100 in 60 s: 400 more in 4 min
    for _ in range(4):
        clock.now += 60.0
        bar.update(100)
    bar.close()
    assert capsys.readouterr().err.splitlines() == [
        "task seed 3: 600/1000 (60%), 60 s elapsed, about 4 min left [loss=0.25]",
        "task seed 3: 700/1000 (70%), 2 min elapsed, about 3 min left [loss=0.25]",
        "task seed 3: 800/1000 (80%), 3 min elapsed, about 2 min left [loss=0.25]",
        "task seed 3: 900/1000 (90%), 4 min elapsed, about 60 s left [loss=0.25]",
        "task seed 3: 1000/1000 (100%), 5 min elapsed [loss=0.25]"]


def test_parallel_seeds_without_a_terminal_get_a_line_per_seed(clock, capsys):
    """Seeds trained in parallel processes relay their progress to the parent; without a
    terminal the parent prints a line a minute per seed (and a last one), as one seed does."""
    import queue as queue_module
    import threading
    from types import SimpleNamespace

    loop = pytest.importorskip("posbias.measurements.loop")
    config = SimpleNamespace(iterations=100, name="task")
    stop = threading.Event()

    class MinuteQueue:
        """The workers' messages, a minute apart; empty (and the run stopped) at the end."""

        def __init__(self, items):
            self.items = list(items)

        def get(self, timeout=None):
            if not self.items:
                stop.set()
                raise queue_module.Empty
            clock.now += 61.0
            return self.items.pop(0)

    messages = [(seed, done, None) for done in (30, 60, 100) for seed in (0, 1)]
    loop._relay_progress(MinuteQueue(messages), config, [0, 1], stop, "lines", None)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("task seed 0: 30/100 (30%), 61 s elapsed, about")
    assert lines[1].startswith("task seed 1: 30/100 (30%)")
    assert lines[-2].startswith("task seed 0: 100/100 (100%)")
    assert lines[-1].startswith("task seed 1: 100/100 (100%)")
