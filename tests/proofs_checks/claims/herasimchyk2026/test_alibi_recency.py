"""herasimchyk2026:alibi-recency: the verdict as computed, and that the check fails on a reversed
slope order and on the claim with the other sign."""

from __future__ import annotations

from posbias_tests_herasimchyk2026 import assert_verdict_equals_expected, through_registry

from posbias.proofs_checks.claims.herasimchyk2026 import alibi_recency
from posbias.proofs_checks.registry import CheckContext


def test_verdict_equals_expected():
    assert_verdict_equals_expected("alibi-recency")


def test_alibi_recency_detects_a_reversed_order(monkeypatch):
    orig = alibi_recency.build_layers
    monkeypatch.setattr(alibi_recency, "build_layers",
                        lambda layers, slope_factor=1.0, **kw: orig(layers, slope_factor=1 / slope_factor, **kw))
    ev = alibi_recency.check(CheckContext())
    assert ev.verdict == "refuted" and ev.counterexample


def test_alibi_recency_refutes_the_other_sign():
    # slopes scaled by c in (1/4, 1) claimed to add recency: the other sign of the force
    r = through_registry("alibi-recency", alibi_recency.check, factor_range=(0.25, 1.0))
    ev = r.evidence
    assert ev.verdict == "refuted" and "error" not in ev.details
    assert ev.figures["worst margin min_k (F_m(k) - F_cm(k))"] < -1e-3
    assert ev.precision == "dps=240"  # confirmed at --max-dps before refuting
