"""round_significant (one integer division) against two independent routes: Fractions with
exact powers of ten, and the decimal module's correctly rounded division."""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_EVEN, Context, Decimal
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


def _by_decimal(num: int, den: int, digits: int) -> tuple[int, int]:
    """The same by the decimal module's division, correctly rounded to ``digits`` (ties to even)."""
    ctx = Context(prec=digits, rounding=ROUND_HALF_EVEN, Emax=MAX_EMAX, Emin=MIN_EMIN)
    quotient = ctx.divide(Decimal(abs(num)), Decimal(den))
    _, ds, _exp = quotient.as_tuple()
    q = int("".join(map(str, ds)))
    q *= 10 ** (digits - len(ds))
    return q, quotient.adjusted()


@given(st.integers(1, 2**3000), st.integers(1, 2**3000), st.integers(1, 30))
@example(10**400 + 1, 3 * 10**400, 17)  # entries of the exact profiles have thousands of digits
def test_round_significant_agrees_with_the_decimal_module(num, den, digits):
    q, e = _by_decimal(num, den, digits)
    text = round_significant(num, den, digits)
    mant, _, exp = text.partition("e")
    value = Fraction(mant) * Fraction(10) ** int(exp or 0)
    assert value == Fraction(q) * Fraction(10) ** (e - digits + 1)
