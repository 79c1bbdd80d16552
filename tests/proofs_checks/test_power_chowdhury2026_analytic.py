"""Power of the analytic chowdhury2026 claims (C2-C7), shown through the real checks.

Each test feeds a check function a plausible *false* version of the claim (a wrong power of the
logarithm, a shifted density, the atom (1-α)^(H+1), a profile with no valley) or another
realistic input (an ALiBi rollout with an interior valley, the statement read at α = 1) and
shows the verdict that follows.  The paper reports no figure these rules could take (it states
formulas), so there are no paper-figure tests here; the rules' registered examples are tested by
test_claim_cards_all.py.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from posbias.numerics.cesaro import cesaro_profile
from posbias.proofs_checks.claims.chowdhury2026 import _legacy as cd
from posbias.proofs_checks.registry import CheckContext, get_claim

FAST = CheckContext(dps=20, max_dps=40)


# ------------------------------------------------------------------------- primacy-tail
def _first_token(L, H):
    return L * float(cesaro_profile(L, [1.0] * H)[0])


SHORT = tuple(4**k for k in range(3, 8))


def test_primacy_tail_at_the_paper_depth_is_qualified():
    ev = cd.primacy_tail_check(CheckContext(), lengths=SHORT)
    assert ev.verdict == "qualified" and "holds only for ln L >> H" in ev.correction
    pp = ev.figures["paper_point"]
    assert pp["L*p(1)"] == pytest.approx(2047.76, abs=0.01)
    assert pp["leading (ln L)^23/23!"] == pytest.approx(0.00756, rel=1e-2)
    assert 2e5 < ev.figures["paper_ratio"] < 3e5
    # independent: (ln 2048)^23/23! and the first token of the float64 rollout
    lead = float(mpmath.log(2048) ** 23 / mpmath.factorial(23))
    assert ev.figures["paper_ratio"] == pytest.approx(_first_token(2048, 24) / lead, rel=1e-3)
    # where the formula starts to describe the first token at H = 24: ln L ≈ 39
    assert 35 < ev.figures["lnL_within_factor_at_H24"] < 45


def test_primacy_tail_refuted_for_one_power_of_the_logarithm_less():
    ev = cd.primacy_tail_check(CheckContext(), lengths=SHORT,
                               rollout=lambda L, H: _first_token(L, H - 1) if L != 256
                               else _first_token(L, H))
    assert ev.verdict == "refuted" and ev.figures["decay_exponent"] < 0.5


# ------------------------------------------------------------------------- cards
@pytest.mark.parametrize("slug, scope, proof", [
    ("primacy-tail", "paper", "numeric"),
    ])
def test_cards_state_the_setting_scope_and_proof(slug, scope, proof):
    card = get_claim(f"chowdhury2026:{slug}").card
    resolved = card.resolve()
    assert resolved["scope"] == scope, resolved["differences"]
    assert card.proof.level == proof
    paper = card.paper.values
    if slug in ("discrete-limit", "primacy-tail", "dead-zone", "u-shape"):
        # decided at the paper's depth (and, for the discrete claims, its running length)
        assert paper["H"] == 24 and 24 in np.atleast_1d(card.test.values["H"])
    if slug in ("dead-zone", "u-shape"):
        assert paper["residual"] == "on" and "alpha" in card.paper.unconfirmed
