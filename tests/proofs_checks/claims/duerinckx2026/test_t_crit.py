"""duerinckx2026:t-crit: behaviour (t_crit against the public script's curve and figures; the
slope flips and the interior minimum follows it at lambda = 1) and power (wrong thresholds are
refuted, a surviving valley qualifies)."""

from __future__ import annotations

import math

import mpmath
import pytest

from posbias.numerics.kinetic import KineticHead, KineticModel, kinetic_t_crit_precise
from posbias.proofs_checks.claims.duerinckx2026 import t_crit as mod
from posbias.proofs_checks.claims.duerinckx2026._shared import public_figures
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture(scope="module")
def result():
    return run_claim(get_claim("duerinckx2026:t-crit"), CheckContext())


def test_verified_in_the_papers_setting(result):
    ev = result.evidence
    assert ev.verdict == "verified" == result.expected and result.scope == "paper"
    f = ev.figures
    assert f["script_error"] <= 1 and f["slope_digits"] >= 20
    assert f["sign_flips"] == f["cases"] == len(mod.BETAS) and f["valley_mismatches"] == 0
    assert f["figure_digits"] >= 10 and f["figure_argmin_mismatches"] == 0
    # the public figures' minima: t = 5 is past t_crit(beta = 1) = 2.457, its minimum on the
    # grid's right edge
    assert ev.details["figure_minima"]["5"] == {"ours": 0.98, "public": 0.98}
    # outside the paper's setting (reported): lambda = 2 keeps an interior minimum past c_crit
    assert ev.details["larger_slopes"]["lambda=2, c=1.05 c_crit"]["interior_minima"]


def test_printed_values_of_the_public_script():
    printed = [line for line in public_figures()["printed"] if line.startswith("beta=")]
    for line in printed:
        beta = line.split(",")[0].split("=")[1]
        value = float(line.split("t_crit=")[1])
        ours = kinetic_t_crit_precise(KineticModel([KineticHead(1, beta=beta)]), 30)
        assert abs(float(ours) - value) <= 5e-7


def _wrong_curve_error(factor):
    """script_error of a threshold that is ``factor`` times t_crit (units of 1e-12)."""
    worst = 0.0
    for beta, text in public_figures()["t_crit_curve"][:5]:
        ours = kinetic_t_crit_precise(KineticModel([KineticHead(1, beta=beta)]), 30)
        with mpmath.workdps(30):
            worst = max(worst, float(abs(ours * factor - mpmath.mpf(text)) / mpmath.mpf("1e-12")))
    return worst


@pytest.mark.parametrize("factor", [mpmath.mpf(1) / 2, 1 / (1 - mpmath.exp(-1))],
                         ids=["without the factor 2", "lambda for 1 - e^-lambda"])
def test_wrong_thresholds_are_refuted(result, factor):
    figures = dict(result.evidence.figures, script_error=_wrong_curve_error(factor))
    assert figures["script_error"] > 1e10
    assert mod.RULE.apply(figures).verdict == "refuted"


def test_a_surviving_valley_qualifies_and_a_sign_that_does_not_flip_refutes(result):
    f = result.evidence.figures
    assert mod.RULE.apply(dict(f, valley_mismatches=1)).verdict == "qualified"
    assert mod.RULE.apply(dict(f, sign_flips=f["cases"] - 1)).verdict == "refuted"


def test_rule_examples_reach_their_verdicts():
    for ex in mod.RULE.examples:
        assert mod.RULE.decide(ex.figures, mod.RULE.values()) == ex.verdict, ex.label
    assert any(ex.kind == "paper" for ex in mod.RULE.examples)
    assert math.isfinite(mod.RULE.values()["refute_units"])
