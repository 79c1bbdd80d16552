"""chowdhury2026:peak-valley (C7): the verdict as computed; needs-data without a measurement;
and, on constructed Step-0 measurements, the paper's figure verified, false versions refuted,
the verdict decided at the paper's running length."""

import numpy as np
import pytest
from posbias_tests_chowdhury2026_fakes import raised_ends
from posbias_tests_step0_fakes import PLAN_PRIMARY, fake_data, use_plan

from posbias.proofs_checks.claims.chowdhury2026 import peak_valley
from posbias.proofs_checks.registry import CheckContext


def test_verdict_equals_expected(expect_verdict):
    expect_verdict("chowdhury2026:peak-valley")


def test_needs_data_without_torch_or_stored_runs(no_step0_data):
    for thorough in (False, True):
        ev = peak_valley.check(CheckContext(thorough=thorough))
        assert ev.verdict == "needs-data", ev.as_dict()
        assert ev.rule


# ------------------------------------------------------------ power, on constructed measurements
def test_paper_figure_verified_and_false_versions_refuted(monkeypatch):
    use_plan(monkeypatch)
    ev = peak_valley.check(CheckContext(), data=fake_data(raised_ends(100.0, 20.0)))
    assert ev.verdict == "verified", ev.as_dict()
    f = ev.figures["architectures"]["arch-a"]
    assert f["L"] == 128 and f["R"] == pytest.approx(100) and f["spread"] == [100, 100]
    # no valley; the post-training 10^3
    for false in (raised_ends(3.0, 2.0), raised_ends(2000.0, 50.0)):
        ev = peak_valley.check(CheckContext(), data=fake_data(false))
        assert ev.verdict == "refuted", ev.as_dict()


def _grows(arch, L, seed, s):
    """last/min proportional to L: 20 at L = 64 (outside the band), 40 at L = 128 (inside)."""
    p = np.ones(L)
    p[-1] = 20.0 * L / 64
    return p


def test_decides_at_the_paper_length(monkeypatch):
    """The ratio grows with L: decided at the paper's running length (128 in the test plan) it
    is in the band; at the primary length 64 it is not: the length decides the verdict."""
    use_plan(monkeypatch)
    ev = peak_valley.check(CheckContext(), data=fake_data(_grows))
    assert ev.verdict == "verified" and ev.setting["L"] == 128
    assert ev.details["architectures"]["arch-b"]["slopes"]["R"] == pytest.approx(1.0)
    use_plan(monkeypatch, PLAN_PRIMARY)
    ev = peak_valley.check(CheckContext(), data=fake_data(_grows, plan=PLAN_PRIMARY))
    assert ev.verdict == "refuted" and ev.setting["L"] == 64


def test_one_architecture_above_the_band_is_qualified_with_its_flip(monkeypatch):
    """Like the stored runs (Qwen2 ~157 at L = 2048, GPT-2 434 at 1024): qualified, and the
    flip point is the band's upper edge at the GPT-2 figure."""
    use_plan(monkeypatch)

    def two(arch, L, seed, s):
        ends = raised_ends(157.0, 20.0) if arch == "arch-a" else raised_ends(20.0, 434.0)
        return ends(arch, L, seed, s)

    ev = peak_valley.check(CheckContext(), data=fake_data(two))
    assert ev.verdict == "qualified" and "arch-a" in ev.correction
    d = peak_valley.RULE.apply(ev.figures)
    assert d.flip["threshold"] == "band_hi" and d.flip["flips_at"] == pytest.approx(434, rel=1e-4)
    assert d.flip["to"] == "verified"


def test_a_sample_outside_the_band_is_not_verified(monkeypatch):
    use_plan(monkeypatch)

    def noisy(arch, L, seed, s):
        p = np.ones(L)
        p[0] = 450.0 if seed == 1 else 100.0
        return p

    ev = peak_valley.check(CheckContext(), data=fake_data(noisy))
    assert ev.verdict == "qualified"


def test_r_with_and_without_the_final_token():
    """The stored Step-0 profiles read again without the final token's self-influence: the
    peak of R = max(p(1), p(L)) / min was the last token (p(L)/p(L-1) far above 1); without it
    R is the first token's ratio and 4 to 12 times smaller; the same rule on those figures is
    reported beside the verdict, and whether the final token decides it."""
    ev = peak_valley.check(CheckContext())
    final = ev.details["final_token"]
    for f in ev.details["architectures"].values():
        w = f["without_final"]
        assert w["last_atom_with_final"] > 10 and f["last_over_min"] > f["first_over_min"]
        assert w["R"] == pytest.approx(w["first_over_min"]) and f["R"] / w["R"] > 4
        assert f"R = {w['R']:.3g} (first/min" in ev.correction
    wo = final["figures_without_final"]
    assert final["verdict_without_final"] == peak_valley.RULE.decide(wo, peak_valley.RULE.values())
    assert final["decided_by_final_token"] == (final["verdict_without_final"] != ev.verdict)
