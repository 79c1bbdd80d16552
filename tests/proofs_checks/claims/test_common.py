"""The helpers shared by every paper's claims (claims/_common.py): the sweep over generated
cases."""

from __future__ import annotations

from fractions import Fraction

from posbias.proofs_checks.claims._common import CaseSweep

F = Fraction


def test_case_sweep_keeps_the_first_counterexample_and_the_worst_margins():
    s = CaseSweep()
    for x in (F(1, 2), F(-1, 3), F(-2, 3), F(1)):
        s.case()
        s.low("margin", x)
        s.high("constant", x)
        if x < 0:
            s.fail(lambda x=x: f"x = {x}")
    assert (s.cases, s.failures, s.counterexample) == (4, 2, "x = -1/3")
    assert s.worst["margin"] == F(-2, 3) and s.most["constant"] == 1
    ev = s.evidence(method="m", worst_margin="w", rule="r", parameters={"p": 1})
    assert ev.verdict == "refuted" and ev.discrepancy is None and ev.details["rule"] == "r"
    ok = CaseSweep()
    ok.case()
    assert ok.evidence(method="m", worst_margin="w").verdict == "verified"
    assert ok.evidence(method="m", worst_margin="w", ok=False).verdict == "refuted"
    assert ok.evidence(method="m", worst_margin="w").discrepancy == "0 (exact)"
