"""Helpers shared by the tests of herasimchyk2026's claims (loaded by conftest.py as
``posbias_tests_herasimchyk2026``)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from hypothesis import strategies as st

from posbias.numerics.kernels import random_monotone_kernel_exact
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim
from posbias.strategies import unit_fractions

F = Fraction
CTX = CheckContext()

# layer-dependent, non-monotone kernels on 3 tokens
NONMONO = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(1), F(0), F(0)]]  # token 3 reads token 1
READ2 = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(0), F(1), F(0)]]  # token 3 reads token 2


def through_registry(slug, check, **kw):
    """Run ``check`` with keyword injections as the registry would (the verdict recomputed from
    the figures by the claim's rule must agree)."""
    c = get_claim(f"herasimchyk2026:{slug}")
    return run_claim(dataclasses.replace(c, check=lambda ctx: check(ctx, **kw)), CTX)


def assert_expected_verdict_with_evidence(slug):
    """An exact property check returns its expected verdict with filled evidence, fast."""
    c = get_claim(f"herasimchyk2026:{slug}")
    r = run_claim(c, CheckContext())
    ev = r.evidence
    assert ev.verdict == c.expected, ev.as_dict()
    assert ev.cases and ev.cases > 0
    assert ev.worst_margin
    assert ev.parameters and ev.method and ev.precision == "exact"
    assert c.latex_text.strip() and c.statement and c.section
    assert r.seconds < 15


def assert_states_its_rule(slug):
    """The evidence of an exact property check states its verdict rule."""
    ev = run_claim(get_claim(f"herasimchyk2026:{slug}"), CheckContext()).evidence
    assert "verified when" in ev.details["rule"] and "refuted" in ev.details["rule"]


def assert_verdict_equals_expected(slug):
    """A claim of the ALiBi forces and the configs returns its expected verdict, without error,
    with LaTeX and with its rule stated in the evidence."""
    c = get_claim(f"herasimchyk2026:{slug}")
    r = run_claim(c, CheckContext())
    ev = r.evidence
    assert "error" not in ev.details, ev.details
    assert ev.verdict == c.expected, ev.as_dict()
    assert c.latex_text and "\\" in c.latex_text
    assert ev.details.get("rule")


def assert_drift_has_strict_cases(slug):
    """A worst margin of 0 alone could come from trivial cases only (T = 0, L = 1, λ ≡ 1): the
    evidence must show that many generated cases drift strictly."""
    ev = run_claim(get_claim(f"herasimchyk2026:{slug}"), CheckContext()).evidence
    strict = ev.details["cases with a strict drift (margin > 0 at every k < L)"]
    assert ev.verdict == "verified" and ev.cases // 4 <= strict <= ev.cases


lams = unit_fractions(5)


@st.composite
def monotone_layers(draw, min_T=0):
    """Stochastically monotone exact kernels (L <= 5, depth min_T..4) and a schedule."""
    rng = draw(st.randoms(use_true_random=False))
    L = draw(st.integers(1, 5))
    T = draw(st.integers(min_T, 4))
    ks = [random_monotone_kernel_exact(L, rng, positive_diagonal=draw(st.booleans()))
          for _ in range(max(T, 1))]
    return ks, draw(st.lists(lams, min_size=T, max_size=T))
