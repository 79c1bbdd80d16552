"""Claim cards: computed scope, rules as data, flip points, and the registry's recomputation
of every verdict from its figures."""

from __future__ import annotations

import json

import pytest

from posbias.errors import InvalidArgument
from posbias.proofs_checks import cards
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.registry import Claim, Evidence, run_claim
from posbias.render import reports

PAPER = Setting("Fig. 1", architecture="qwen2", residual="on", L=2048, H=24)


def test_scope_paper_reduced_variant():
    same = Setting("stored runs", architecture="qwen2", residual="on", L=2048, H=24)
    assert cards.scope_of(PAPER, same) == ("paper", [])
    scope, diffs = cards.scope_of(PAPER, same.replace(L=256))
    assert scope == "reduced" and diffs == ["L: paper 2048, test 256"]
    scope, diffs = cards.scope_of(PAPER, same.replace(residual="off", L=256))
    assert scope == "variant" and len(diffs) == 2
    # several test values cover the paper's value
    assert cards.scope_of(PAPER, same.replace(H=(2, 4, 24)))[0] == "paper"
    # a field the paper states and the test leaves out is a setting difference
    assert cards.scope_of(PAPER, same.replace(architecture=None))[0] == "variant"


def test_declared_kinds_and_extra_differences():
    test = Setting("x", architecture="qwen2", residual="on", L=2048, H=24)
    assert Card(PAPER, test, kind="proxy").resolve()["scope"] == "proxy"
    assert Card(PAPER, test, kind="machinery").resolve()["scope"] == "machinery"
    c = Card(PAPER, test, differences=("8 probes instead of the exact Jacobian",))
    assert c.resolve()["scope"] == "reduced"
    c = Card(PAPER, test, differences=("another estimator",), scale_only=False)
    assert c.resolve()["scope"] == "variant"
    # a difference of implementation is listed, the scope unchanged
    c = Card(PAPER, test, implementation=("posbias re-implements the public code",))
    assert c.resolve()["scope"] == "paper"
    assert c.resolve()["differences"] == ["implementation: posbias re-implements the public code"]
    # the evidence refines the test setting at run time
    assert Card(PAPER, test).resolve({"L": 256})["scope"] == "reduced"
    with pytest.raises(InvalidArgument, match=r"setting\.paper\.source"):
        Card(Setting(""), test)


def test_proof_status_never_yes_for_a_range():
    assert ProofStatus("range", "H = 1..12").text() == "proven for H = 1..12 only"
    with pytest.raises(InvalidArgument):
        ProofStatus("range")
    from posbias.derivations import get_derivation

    d = get_derivation("residual-mixture")
    assert d.proven and d.proof_status == "proven for H = 1..12 only"


def _band_rule():
    def decide(f, t):
        if t["lo"] <= f["R"] <= t["hi"]:
            return "verified"
        return "refuted"

    return Rule("verified when lo <= R <= hi", decide,
                {"lo": Threshold(10 ** 1.5, "lower end of the band"),
                 "hi": Threshold(10 ** 2.5, "upper end of the band")},
                examples=(Example("paper: R = 100", {"R": 100}, "verified", "paper"),
                          Example("false: R = 15", {"R": 15}, "refuted", "false")))


def test_flip_point_located_by_bisection():
    rule = _band_rule()
    d = rule.apply({"R": 40.0})
    assert d.verdict == "verified"
    # the nearest flip: lower end moved up to 40 (a factor 1.26)
    assert d.flip["threshold"] == "lo" and d.flip["to"] == "refuted"
    assert abs(d.flip["flips_at"] - 40.0) < 1e-3
    assert d.sensitive  # within the default factor 2
    d = rule.apply({"R": 100.0})
    assert not d.sensitive and abs(d.flip["flips_at"] - 100) < 1e-3
    # a verdict no threshold can change has no flip point
    fixed = Rule("exact", lambda f, t: "verified" if f["gap"] == 0 else "refuted")
    assert fixed.apply({"gap": 0}).flip is None


def _claim(check, rule):
    return Claim(id="test:card", paper="test", statement="s", latex="x", expected="verified",
                 check=check, rule=rule,
                 card=Card(PAPER, Setting("computed", architecture="qwen2", residual="on",
                                          L=256, H=24)))


def test_registry_recomputes_the_verdict_and_reports_the_card():
    rule = _band_rule()
    r = run_claim(_claim(lambda ctx: Evidence("verified", method="m", figures={"R": 99.0}), rule))
    assert r.evidence.verdict == "verified" and r.scope == "reduced"
    d = r.as_dict()
    assert d["scope"] == "reduced" and d["setting"]["paper"]["source"] == "Fig. 1"
    assert d["setting"]["differences"] == ["L: paper 2048, test 256"]
    assert d["rule"]["thresholds"]["lo"]["value"] == pytest.approx(31.6227766)
    assert d["flip"]["threshold"] in ("lo", "hi")
    json.dumps(d, allow_nan=False)
    # a verdict that does not follow from its figures is an error, never hidden
    bad = run_claim(_claim(lambda ctx: Evidence("verified", method="m", figures={"R": 5.0}), rule))
    assert bad.evidence.verdict == "inconclusive"
    assert "its rule gives refuted" in bad.evidence.details["error"]


def test_text_report_one_line_per_claim_never_cut():
    """Without deciding figures named, what decided the verdict is the claim's line, in full
    (however long), with the flip point after it; the lines around the table are wrapped to
    the width; -v gives the same in full too."""
    rule = _band_rule()
    long = "x" * 30 + " " + " ".join(f"word{i}" for i in range(60)) + " END"
    r = run_claim(_claim(lambda ctx: Evidence("verified", method="m", figures={"R": 40.0},
                                              discrepancy=long), rule))
    text = reports._text([r], width=100)
    rows = [line for line in text.splitlines() if "END" in line]
    assert len(rows) == 1 and "THRESHOLD-SENSITIVE" in rows[0] and "verified*" in rows[0]
    assert all(len(line) <= 100 for line in text.splitlines() if line not in rows)
    assert "by scope: reduced 1 verified" in text
    assert "END" in reports._text([r], verbose=True)


def test_threshold_validation():
    with pytest.raises(InvalidArgument):
        Threshold(0, "a log threshold must be positive")
    with pytest.raises(InvalidArgument):
        Threshold(1, "linear needs a step", scale="linear")
    with pytest.raises(InvalidArgument):
        Example("x", {}, "verified", kind="other")
