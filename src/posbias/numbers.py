"""Numbers as text: how posbias prints a number, in one place.

Every report, table, error message and JSON figure of the package prints its numbers through
these functions, so that one rule holds everywhere:

* a float never shows more digits than it holds: at most :data:`FLOAT_DIGITS` significant
  digits (:func:`significant`), or the shortest text that reads back as the same float
  (:func:`float_text`); :func:`rounded` gives the float a JSON document stores;
* an exact value is printed exactly, ``p/q`` (:func:`fraction_text`), or, where a short figure
  is wanted, as ``p/q`` when short and a few correct digits otherwise (:func:`exact_text`);
* an mpmath value is printed at a stated number of digits (:func:`mp_text`);
* a range, a byte count and a wall time as people read them (:func:`range_text`,
  :func:`byte_size`, :func:`duration`), and a short stand-in for a value too large to show in
  a message (:func:`stand_in`).

The module sits at the bottom of the package (the error types and the validation layer use it,
and every command loads them at start-up), so it imports nothing at import time: mpmath and
gmpy2 are imported by the two functions that need them, when they are called.

>>> significant(2 / 3, 4), float_text(0.1), rounded(2 / 3, 3), fraction_text(Fraction(-6, 4))
('0.6667', '0.1', 0.667, '-3/2')
>>> byte_size(3 * 2**30), duration(4000), range_text((0.51234, 2.0), 3)
('3 GiB', '67 min', '0.512 .. 2')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

__all__ = [
    "FLOAT_DIGITS",
    "byte_size",
    "duration",
    "exact_text",
    "figure_text",
    "float_text",
    "fraction_text",
    "mp_text",
    "range_text",
    "rounded",
    "significant",
    "stand_in",
]

#: significant decimal digits that identify every float64 (``repr`` never needs more)
FLOAT_DIGITS = 17


def significant(x: Any, digits: int, *, nonfinite: str | None = None) -> str:
    """``x`` (a float, or anything ``float()`` takes) with ``digits`` significant digits, at
    most :data:`FLOAT_DIGITS`; ``None`` prints as ``-``.  ``nonfinite``: the text of an infinite
    or NaN value (default ``inf``, ``-inf``, ``nan``).

    >>> significant(1 / 3, 3), significant(1 / 3, 40), significant(None, 3)
    ('0.333', '0.33333333333333331', '-')
    >>> significant(float("inf"), 4), significant(float("inf"), 4, nonfinite="n/a")
    ('inf', 'n/a')
    """
    if x is None:
        return "-"
    if nonfinite is not None and isinstance(x, float) and not math.isfinite(x):
        return nonfinite
    return f"{float(x):.{min(digits, FLOAT_DIGITS)}g}"


def float_text(x: Any, digits: int | None = None) -> str:
    """``x`` as a float: the shortest text that reads back as the same float (Python's
    ``repr``) when ``digits`` is None or at least :data:`FLOAT_DIGITS`, else ``digits``
    significant digits.

    >>> float_text(0.1), float_text(0.1, 17), float_text(2 / 3, 5), float_text(float("nan"))
    ('0.1', '0.1', '0.66667', 'nan')
    """
    if digits is None or digits >= FLOAT_DIGITS:
        return repr(float(x))
    return significant(x, digits)


def rounded(x: Any, digits: int) -> float:
    """``x`` rounded to ``digits`` significant digits, as a float (a figure stored in JSON).

    >>> rounded(2 / 3, 4), rounded(123456, 2)
    (0.6667, 120000.0)
    """
    return float(significant(x, digits))


def figure_text(v: object, digits: int) -> str:
    """A figure of a report: a float with ``digits`` significant digits, a list, tuple or dict
    element by element, anything else (an integer, a text) as ``str`` gives it.

    >>> figure_text({"w1": 0.012345, "argmin": 3, "rows": [0.5, "a"]}, 3)
    '{w1: 0.0123, argmin: 3, rows: [0.5, a]}'
    """
    if isinstance(v, float):
        return significant(v, digits)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(figure_text(x, digits) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {figure_text(x, digits)}" for k, x in v.items()) + "}"
    return str(v)


def range_text(r: Sequence[float] | None, digits: int) -> str:
    """A range ``(lo, hi)`` as ``lo .. hi`` with ``digits`` significant digits; None as ``-``.

    >>> range_text((0.25, 1 / 3), 2), range_text(None, 2)
    ('0.25 .. 0.33', '-')
    """
    if r is None:
        return "-"
    return f"{significant(r[0], digits)} .. {significant(r[1], digits)}"


def fraction_text(value: Fraction, width: int | None = None) -> str:
    """An exact rational as ``p/q`` (an integer as itself), every digit printed; with ``width``,
    a text longer than ``width`` characters is replaced by its decimal order of magnitude
    (``about 10^e``: a message about a huge or tiny value, not a figure).

    >>> fraction_text(Fraction(10**30, 3)), fraction_text(Fraction(4, 2))
    ('1000000000000000000000000000000/3', '2')
    >>> fraction_text(Fraction(1, 3 * 10**30), width=24)
    'about 10^-30'
    """
    f = Fraction(value)
    if width is not None:
        text = str(f)
        if len(text) <= width:
            return text
        return f"about 10^{len(str(f.numerator)) - len(str(f.denominator))}"
    # gmpy2 (a core dependency) prints integers of any length; Python's int refuses more than
    # sys.get_int_max_str_digits() digits; imported here to keep it off the start-up path
    from gmpy2 import mpz

    n, d = mpz(f.numerator), mpz(f.denominator)
    return str(n) if d == 1 else f"{n}/{d}"


def exact_text(x: object, digits: int = 6, width: int = 24) -> str:
    """A short figure of an exact value: a Fraction as ``p/q`` when that is at most ``width``
    characters, else its ``digits`` correct significant digits; an mpmath number with
    ``digits`` digits; anything else as ``str`` gives it.

    >>> exact_text(Fraction(1, 3)), exact_text(Fraction(10**30 + 1, 3 * 10**30))
    ('1/3', '0.333333')
    """
    if isinstance(x, Fraction):
        s = str(x)
        if len(s) <= width:
            return s
        # imported here: mpmath is loaded only where an exact value is printed in decimals
        import mpmath

        with mpmath.workdps(digits + 24):
            return mp_text(mpmath.mpmathify(x), digits)
    if type(x).__name__ == "mpf" and type(x).__module__.startswith("mpmath"):
        return mp_text(x, digits)
    return str(x)


def mp_text(x: Any, digits: int, *, min_fixed: int | None = None, max_fixed: int | None = None,
            zero: str | None = None) -> str:
    """An mpmath number (or anything ``mpmath.mpf`` takes) with ``digits`` significant digits
    (``mpmath.nstr``: fixed notation for decimal exponents from ``min_fixed`` to ``max_fixed``,
    mpmath's defaults when None).  ``zero``: the text of an exact zero (``nstr`` prints
    ``0.0``).

    >>> import mpmath
    >>> mp_text(mpmath.mpf(1) / 3, 5), mp_text(0, 3, zero="0"), mp_text(mpmath.mpf(10)**-7, 3, min_fixed=-9)
    ('0.33333', '0', '0.0000001')
    """
    # imported here: mpmath is loaded only where an mpmath value is printed
    import mpmath

    if zero is not None and x == 0:
        return zero
    options = {k: v for k, v in (("min_fixed", min_fixed), ("max_fixed", max_fixed))
               if v is not None}
    return str(mpmath.nstr(x if isinstance(x, mpmath.mpf) else mpmath.mpmathify(x), digits,
                           **options))


def byte_size(n: float) -> str:
    """A number of bytes with a binary unit, three significant digits.

    >>> byte_size(512), byte_size(1536), byte_size(5 * 2**40)
    ('512 bytes', '1.5 KiB', '5 TiB')
    """
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} bytes"


def duration(seconds: float) -> str:
    """A wall time as people read it: seconds, minutes or hours (at least ``1 s``).

    >>> duration(0.2), duration(100), duration(7200)
    ('1 s', '2 min', '2.0 h')
    """
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def stand_in(x: object) -> object:
    """A value as a message may show it: a list or dict by its length, an integer of more than
    200 bits by its number of digits (never the text of a huge or alias-expanded structure);
    anything else unchanged.

    >>> stand_in([1, 2, 3]), stand_in(10**100), stand_in(0.5)
    ('a list of 3 items', 'an integer of 101 digits', 0.5)
    """
    if isinstance(x, (list, dict)):
        return f"a {type(x).__name__} of {len(x)} items"
    if isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 200:
        return f"an integer of {_digits(x) if x.bit_length() < 10**5 else 'very many'} digits"
    return x


def _digits(n: int) -> int:
    """The number of decimal digits of ``n`` (without ``str``, which refuses long integers)."""
    n = abs(n)
    d = max(1, int((n.bit_length() - 1) * 0.30102999566398120))  # floor(log10 2^(bits - 1))
    while 10**d <= n:
        d += 1
    return d
