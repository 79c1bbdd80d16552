"""Small exact-arithmetic helpers: big integers (gmpy2 when present), exact rationals, rounding.

Everything here is exact: no float enters.  ``mpz`` is :class:`gmpy2.mpz` when gmpy2 is installed
(it multiplies and divides integers of tens of thousands of digits much faster than Python's
``int``) and ``int`` otherwise; results handed to callers are plain ``int`` / ``Fraction``.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from fractions import Fraction
from typing import Any

from posbias.errors import InvalidArgument

try:  # gmpy2 is a core dependency, but keep a pure-Python fallback
    import gmpy2

    mpz = gmpy2.mpz
    HAVE_GMPY2 = True
except ImportError:  # pragma: no cover - exercised only without gmpy2
    gmpy2 = None
    mpz = int
    HAVE_GMPY2 = False

__all__ = [
    "HAVE_GMPY2",
    "as_rational",
    "binomial",
    "coprime_fraction",
    "lcm_upto",
    "mpz",
    "reduced_fraction",
    "round_significant",
    "row_times",
]


def as_rational(value: object, parameter: str) -> Fraction:
    """``value`` as an exact :class:`~fractions.Fraction`; floats are rejected.

    Accepted: ``int`` (also numpy integers), ``Fraction``, ``decimal.Decimal`` and gmpy2
    ``mpz``/``mpq``.  Rejected with :class:`~posbias.errors.InvalidArgument`: ``bool``, ``float``,
    numpy floats, mpmath ``mpf`` and anything else (a binary float is not the rational the user
    meant: write ``Fraction(1, 10)`` or the text ``"0.1"``).

    >>> as_rational(3, "lambda"), as_rational(Fraction(1, 3), "lambda")
    (Fraction(3, 1), Fraction(1, 3))
    >>> as_rational(0.5, "lambda")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: lambda = 0.5 is invalid: expected an exact rational (int, Fraction or Decimal; floats are not exact)
    """
    if isinstance(value, bool):
        raise InvalidArgument(parameter, value, "an exact rational, not a bool")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidArgument(parameter, value, "a finite number")
        return Fraction(value)
    if HAVE_GMPY2 and isinstance(value, type(gmpy2.mpq(0))):
        return Fraction(int(value.numerator), int(value.denominator))
    raise InvalidArgument(
        parameter, value, "an exact rational (int, Fraction or Decimal; floats are not exact)"
    )


def coprime_fraction(numerator: int, denominator: int) -> Fraction:
    """The Fraction ``numerator/denominator`` for a pair already known coprime, ``denominator > 0``
    (skips Python's quadratic-time gcd on huge integers).

    >>> coprime_fraction(3, 4)
    Fraction(3, 4)
    """
    n, d = int(numerator), int(denominator)
    try:
        # Python <= 3.11: a private keyword the stubs do not list
        return Fraction(n, d, _normalize=False)  # type: ignore[call-overload]
    except TypeError:  # pragma: no cover - Python >= 3.12
        # a private constructor the stubs do not list
        return Fraction._from_coprime_ints(n, d)  # type: ignore[attr-defined]


def reduced_fraction(numerator: int, denominator: int) -> Fraction:
    """``numerator/denominator`` reduced to lowest terms, with the gcd done by GMP when present.

    >>> reduced_fraction(6, 4)
    Fraction(3, 2)
    """
    if HAVE_GMPY2:
        q = gmpy2.mpq(mpz(numerator), mpz(denominator))
        return coprime_fraction(q.numerator, q.denominator)
    return Fraction(int(numerator), int(denominator))


def lcm_upto(n: int) -> int:
    """``lcm(1, 2, ..., n)`` as an ``mpz`` (1 for ``n <= 1``).

    >>> int(lcm_upto(10))
    2520
    """
    out = mpz(1)
    if HAVE_GMPY2:
        for i in range(2, n + 1):
            out = gmpy2.lcm(out, i)
    else:  # pragma: no cover
        for i in range(2, n + 1):
            out = out * i // math.gcd(out, i)
    return out


def binomial(n: int, k: int) -> int:
    """``C(n, k)`` as a Python int (0 outside ``0 <= k <= n``).

    >>> binomial(5, 2), binomial(3, 4)
    (10, 0)
    """
    n = _integer(n, "n")
    k = _integer(k, "k")
    if k < 0 or k > n:
        return 0
    if HAVE_GMPY2:
        return int(gmpy2.comb(n, k))
    return math.comb(n, k)  # pragma: no cover


def _integer(value: object, parameter: str) -> int:
    """``value`` as a Python int; only integers (int, numpy or gmpy2 integers) pass, never a
    bool, float, mpf or Decimal (a float reaching the exact path is an error, not a rounding)."""
    if isinstance(value, bool) or not (isinstance(value, numbers.Integral)
                                       or (HAVE_GMPY2 and isinstance(value, type(mpz(0))))):
        raise InvalidArgument(parameter, value, "an integer")
    return int(value)


def _floor_log10(num: int, den: int) -> int:
    """``floor(log10(num/den))`` for positive integers, exactly."""
    e = int(((num.bit_length() - den.bit_length()) * 30103) // 100000)
    # correct the estimate (it is within 1 or 2 of the truth)
    while True:
        lo_ok = num >= den * 10 ** e if e >= 0 else num * 10 ** (-e) >= den
        if not lo_ok:
            e -= 1
            continue
        hi_ok = num < den * 10 ** (e + 1) if e + 1 >= 0 else num * 10 ** (-(e + 1)) < den
        if not hi_ok:
            e += 1
            continue
        return e


_LOG10_2 = 0.30102999566398119521  # only to guess the exponent; the loop below corrects it


def _significand(num: int, den: int, digits: int) -> tuple[int, int]:
    """``(q, e)`` with ``10^(digits-1) <= q < 10^digits`` and ``q · 10^(e-digits+1)`` the
    correctly rounded (ties to even) value of ``num/den > 0``."""
    e = int((num.bit_length() - den.bit_length()) * _LOG10_2)
    lo, hi = 10 ** (digits - 1), 10 ** digits
    while True:
        shift = digits - 1 - e
        n, d = (num * 10 ** shift, den) if shift >= 0 else (num, den * 10 ** -shift)
        q, r = divmod(n, d)
        if q < lo:
            e -= 1
        elif q >= hi:
            e += 1
        else:
            break
    if 2 * r > d or (2 * r == d and q % 2):
        q += 1
        if q == hi:
            q, e = lo, e + 1
    return q, e


def round_significant(numerator: int, denominator: int, digits: int) -> str:
    """The rational ``numerator/denominator`` as a decimal with ``digits`` significant digits,
    correctly rounded (ties to even), in integers only (no float anywhere): one division of
    the numerator, scaled by a power of ten, by the denominator.  Linear in the size of the
    integers (the decimal module's ``Decimal(int)`` conversion is quadratic, which made a
    table of 2048 exact entries of 20,000 digits take a minute).

    Values with a decimal exponent in [-5, 21) print positionally, others as ``d.ddde±N``.

    >>> round_significant(1, 3, 5)
    '0.33333'
    >>> round_significant(2, 3, 3)
    '0.667'
    >>> round_significant(1, 7 * 10**40, 4)
    '1.429e-41'
    >>> round_significant(0, 1, 4)
    '0'
    """
    if isinstance(digits, bool) or not isinstance(digits, numbers.Integral) or digits < 1:
        raise InvalidArgument("digits", digits, "an integer >= 1")
    num, den = _integer(numerator, "numerator"), _integer(denominator, "denominator")
    if den <= 0:
        raise InvalidArgument("denominator", denominator, "a positive integer")
    if num == 0:
        return "0"
    sign = "-" if num < 0 else ""
    q, e = _significand(abs(num), den, int(digits))
    q = str(q)
    s = q
    if -5 <= e < 21:
        if e >= len(s) - 1:
            body = s + "0" * (e - len(s) + 1)
        elif e >= 0:
            body = s[: e + 1] + "." + s[e + 1 :]
        else:
            body = "0." + "0" * (-e - 1) + s
        return sign + body
    mant = s[0] + ("." + s[1:] if len(s) > 1 else "")
    return f"{sign}{mant}e{e:+d}"


def row_times(v: list, A: list, zero: Any) -> list:
    """The row vector ``v`` times the matrix ``A`` (a list of rows) in the arithmetic of
    their entries (Fractions, or mpf at the caller's working precision), skipping zeros;
    ``zero`` is that arithmetic's 0."""
    n = len(A)
    out = [zero] * n
    for i, vi in enumerate(v):
        if vi:
            row = A[i]
            for j in range(n):
                if row[j]:
                    out[j] += vi * row[j]
    return out
