"""herasimchyk2026:content-diagonal: the verdict as computed, and that the check fails on a
flipped diagonal logit and on the claim with the other sign."""

from __future__ import annotations

from posbias_tests_herasimchyk2026 import assert_verdict_equals_expected, through_registry

from posbias.proofs_checks.claims.herasimchyk2026 import content_diagonal
from posbias.proofs_checks.registry import CheckContext


def test_verdict_equals_expected():
    assert_verdict_equals_expected("content-diagonal")


def test_content_diagonal_detects_a_sign_flip(monkeypatch):
    orig = content_diagonal.build_layers
    monkeypatch.setattr(content_diagonal, "build_layers", lambda layers, diag=None, **kw: orig(
        layers, diag=None if diag is None else (lambda d: -diag(d)), **kw))
    assert content_diagonal.check(CheckContext()).verdict == "refuted"


def test_content_diagonal_refutes_the_other_sign():
    r = through_registry("content-diagonal", content_diagonal.check, sign=-1)
    f = r.evidence.figures
    assert r.evidence.verdict == "refuted" and f["base score cancels"] is True
    assert f["worst margin +d vs 0"] < -0.1 and f["worst margin 0 vs -d"] < -0.1
