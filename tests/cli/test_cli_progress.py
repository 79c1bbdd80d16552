"""Progress of a long run where standard error is not a terminal (a log, a batch job): a line
with the count, the time so far and the ETA once a minute and one at the end; a run shorter than
a minute prints nothing; --quiet prints nothing."""

from __future__ import annotations

import pytest

from posbias.cli import _common


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(_common.time, "monotonic", c)
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
