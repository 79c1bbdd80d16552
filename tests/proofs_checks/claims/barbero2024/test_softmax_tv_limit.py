"""barbero2024:softmax-tv-limit: 2(e-1)/(e+1) at every even length and in the odd limit; the
half (TV with the factor 1/2), 0 (decay) and 2(e-1)/e are refuted by the same computation."""

import math

import mpmath
import pytest

from posbias.proofs_checks.claims.barbero2024 import softmax_tv_limit as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified_at_the_paper_scope():
    r = run_claim(get_claim("barbero2024:softmax-tv-limit"), CheckContext())
    assert r.evidence.verdict == "verified" and r.scope == "paper"
    assert r.evidence.figures["even_deviation"] < 1e-25
    assert 1e-8 < r.evidence.figures["odd_gap_at_4097"] < 1e-7  # 2e(e-1)/((e+1)Z Z*)/c, m = 2048


@pytest.mark.parametrize("constant", [(math.e - 1) / (math.e + 1), 0, 2 * (math.e - 1) / math.e])
def test_false_constants_refuted(constant):
    ev = mod.check(CheckContext(), constant=mpmath.mpf(constant))
    assert ev.verdict == "refuted"
