"""round_significant (decimal division) against an independent integer route."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import example, given
from hypothesis import strategies as st

from posbias.numerics._arith import round_significant


def _by_integers(num: int, den: int, digits: int) -> tuple[int, int]:
    """(significand with `digits` digits, decimal exponent), ties to even, in integers only."""
    x = Fraction(abs(num), den)
    e = len(str(x.numerator // x.denominator)) - 1 if x >= 1 else -len(
        str(x.denominator // x.numerator if x.numerator else 1))
    while x * Fraction(10) ** -e >= 10:
        e += 1
    while x * Fraction(10) ** -e < 1:
        e -= 1
    scaled = x * Fraction(10) ** (digits - 1 - e)
    q, r = divmod(scaled.numerator, scaled.denominator)
    if 2 * r > scaled.denominator or (2 * r == scaled.denominator and q % 2):
        q += 1
    if q == 10**digits:
        q, e = q // 10, e + 1
    return q, e


@given(st.integers(-10**60, 10**60).filter(bool), st.integers(1, 10**60), st.integers(1, 40))
@example(1, 8, 1)      # a tie, rounded to even: 0.125 -> 0.1 at 1 digit
@example(5, 2, 1)      # 2.5 -> 2
@example(999, 1000, 2)  # rounding carries into a new digit
def test_round_significant_is_correctly_rounded(num, den, digits):
    text = round_significant(num, den, digits)
    q, e = _by_integers(num, den, digits)
    value = Fraction(text.replace("e", "E")) if "e" not in text else Fraction(
        text.split("e")[0]) * Fraction(10) ** int(text.split("e")[1])
    assert abs(value) == Fraction(q) * Fraction(10) ** (e - digits + 1)
    assert (value < 0) == (num < 0)
