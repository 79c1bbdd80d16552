"""Fixtures and helpers shared by the tests of chowdhury2026's claims.

The constructed data (measured profiles, pretrained measurements, trained-LM and natural-text
results documents) are plain functions the tests also use in their parametrizations, so they
live in helper modules beside this file, loaded once under fixed names (the test folders are not
packages: test files are imported by path).  The checks every claim's tests make in the same
way (the default verdict, the card) are fixtures here.
"""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

HERE = pathlib.Path(__file__).parent
for _name, _file in (("posbias_tests_chowdhury2026_fakes", "fakes.py"),
                     ("posbias_tests_chowdhury2026_lm", "lm_fakes.py"),
                     ("posbias_tests_chowdhury2026_text", "text_fakes.py")):
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(_name, HERE / _file)
        _module = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _module
        _spec.loader.exec_module(_module)


@pytest.fixture
def expect_verdict():
    """``expect_verdict(claim_id)``: the default run (the measured claims read the stored
    full-width measurements) gives the claim's expected verdict, with its rule, and a
    correction when qualified."""
    def check(cid):
        c = get_claim(cid)
        ev = run_claim(c, CheckContext()).evidence
        assert "error" not in ev.details, ev.details
        assert ev.verdict == c.expected, ev.as_dict()
        assert ev.rule, cid  # every chowdhury2026 check states its verdict rule
        if ev.verdict == "qualified":
            assert ev.correction
    return check


@pytest.fixture
def expect_verdict_with_latex():
    """``expect_verdict_with_latex(claim_id)``: the default run gives the expected verdict with
    a method, and the claim's LaTeX is a non-empty string."""
    def check(cid):
        c = get_claim(cid)
        result = run_claim(c, CheckContext())
        ev = result.evidence
        assert ev.verdict == c.expected, ev.details
        assert ev.method
        latex = c.latex_text
        assert isinstance(latex, str) and latex
        if ev.verdict == "qualified":
            assert ev.correction
    return check


@pytest.fixture
def card_states():
    """``card_states(slug, scope, proof)``: the card of an analytic claim states its setting
    (the paper's depth where it is decided there), its scope and its proof level."""
    def check(slug, scope, proof):
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
    return check


@pytest.fixture
def no_step0_data(monkeypatch):
    """Neither torch nor a stored Step-0 run: the measured claims have no data."""
    from posbias.proofs_checks import measured, stored

    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setattr(stored, "load_record", lambda stem, folder=None: None)
    monkeypatch.setattr(measured, "_STEP0_CACHE", {})
