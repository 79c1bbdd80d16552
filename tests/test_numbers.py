"""posbias.numbers prints every number of the package: the rules (never more digits than a float
holds; exact values exactly; mpmath values at the stated digits), and agreement with the
formatters the claim modules still define, so that those can be replaced by these."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posbias import numbers as nb
from posbias.proofs_checks.claims import _common
from posbias.proofs_checks.measured import fmt3

floats = st.floats(allow_nan=True, allow_infinity=True)


@given(floats, st.integers(1, 40))
def test_significant_never_shows_more_digits_than_a_float_holds(x, digits):
    text = nb.significant(x, digits)
    mantissa = text.split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    assert len(mantissa) <= nb.FLOAT_DIGITS
    if math.isfinite(x):
        assert float(text) == pytest.approx(x, rel=10.0 ** (1 - min(digits, 17)), abs=0)


@given(st.floats(allow_nan=False))
def test_float_text_reads_back_as_the_same_float(x):
    assert float(nb.float_text(x)) == x
    assert nb.float_text(x, 17) == repr(x)


@given(st.fractions())
def test_fraction_text_is_exact(q):
    assert Fraction(nb.fraction_text(q)) == q


def test_fraction_text_prints_integers_of_any_length():
    """More digits than Python's int-to-text limit (4300 by default) are printed in full."""
    text = nb.fraction_text(Fraction(10**6000 + 1, 3))
    assert text == "1" + "0" * 5999 + "1/3"


@given(st.fractions(max_denominator=10**40) | st.integers(-10**40, 10**40).map(Fraction))
def test_exact_text_agrees_with_the_claims_show_value(q):
    assert nb.exact_text(q) == _common.show_value(q)


@given(st.floats(allow_nan=False, allow_infinity=False) | st.just(0.0), st.integers(1, 30))
def test_mp_text_agrees_with_the_claims_nstr_or_zero(x, n):
    with mpmath.workdps(30):
        v = mpmath.mpf(x)
        assert nb.mp_text(v, n, zero="0") == _common.nstr_or_zero(v, n)
        assert nb.exact_text(v) == _common.show_value(v)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_fmt3_is_three_significant_digits(x):
    assert fmt3(x) == nb.significant(x, 3) == f"{x:.3g}"


def test_named_options():
    assert nb.significant(float("nan"), 4, nonfinite="n/a") == "n/a"
    assert nb.significant(None, 4) == "-"
    assert nb.mp_text(mpmath.mpf(0), 3) == "0.0" and nb.mp_text(mpmath.mpf(0), 3, zero="0") == "0"
    assert nb.fraction_text(Fraction(1, 10**40), width=24) == "about 10^-40"
    assert nb.stand_in({"a": 1}) == "a dict of 1 items"
    assert nb.stand_in(10**5000) == "an integer of 5001 digits"
    assert nb.stand_in(2**100_001) == "an integer of very many digits"
    assert nb.byte_size(2**40) == "1 TiB" and nb.duration(5399) == "90 min"


def test_importing_numbers_loads_neither_mpmath_nor_numpy():
    code = ("import sys; import posbias.numbers, posbias.errors, posbias.validation; "
            "print(sorted(m for m in ('mpmath', 'numpy', 'gmpy2') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
