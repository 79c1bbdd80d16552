"""wu2024:local-mask-rate: equal exact rates 1/2, windows only delay the collapse: qualified; the
rule refutes a faster window and verifies a slower rate."""

from fractions import Fraction

from posbias.proofs_checks.claims.wu2024 import local_mask_rate as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_qualified_with_equal_rates_and_a_delay():
    r = run_claim(get_claim("wu2024:local-mask-rate"), CheckContext())
    ev = r.evidence
    assert ev.verdict == "qualified" and r.scope == "variant"
    assert set(ev.figures["exact_rate"].values()) == {"1/2"}
    assert ev.figures["depth_to_1e-3"]["causal"] < min(
        v for k, v in ev.figures["depth_to_1e-3"].items() if k != "causal")
    assert "delays the collapse" in ev.correction


def test_mask_figures():
    w2 = mod.mask_figures("window 2")
    assert w2["rate"] == Fraction(1, 2) and w2["first_below_1"] == w2["radius"] == 11


def test_rule_power():
    base = {"windows": 4, "slower_rate_windows": 0, "faster_rate_windows": 0, "depth_ratio_min": 1.14}
    assert mod.RULE.apply(base).verdict == "qualified"
    assert mod.RULE.apply({**base, "slower_rate_windows": 4}).verdict == "verified"
    assert mod.RULE.apply({**base, "depth_ratio_min": 0.9}).verdict == "refuted"
    assert mod.RULE.apply({**base, "faster_rate_windows": 1}).verdict == "refuted"
