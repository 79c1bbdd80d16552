"""Residual schedules ``λ_1, ..., λ_T``: constant, explicit list, power decay; parsed from text.

A layer of the residual-aware rollout is ``R(t) = (1 - λ_t) I + λ_t A(t)`` with ``λ_t ∈ [0, 1]``
(``λ = 1``: attention only; herasimchyk2026, section 3).  A :class:`Schedule` holds the
``λ_t`` in a form each numeric path can use:

- exact path: :meth:`Schedule.exact` gives ``Fraction`` values (rational schedules only; a power
  decay ``λ0/(t+1)^β`` is rational for every ``t`` only when ``β`` is a non-negative integer);
- precise path: :meth:`Schedule.precise` gives mpmath values at a caller-given ``dps``;
- fast path: :meth:`Schedule.floats` gives a float64 array.

Text specifications (the ``--schedule SPEC`` of the command line) follow a small grammar and are
never evaluated as code::

    const:VALUE          the same λ for every layer (needs a depth)
    list:V1,V2,...       one λ per layer (defines the depth)
    power:LAMBDA0,BETA   λ_t = LAMBDA0 / (t+1)^BETA, t = 0..T-1 (needs a depth)
    file:PATH            numbers in a text file (defines the depth; '#' starts a comment)

Numbers are integers, decimals (``0.25``, ``1e-3``: read as exact rationals) or ``p/q``,
separated by commas, whitespace or newlines.
"""

from __future__ import annotations

import os
import re
import stat
from fractions import Fraction
from typing import Iterable, Sequence

import mpmath
import numpy as np

from posbias.errors import InvalidArgument
from posbias.numerics._arith import as_rational

__all__ = [
    "Schedule",
    "parse_number",
    "parse_schedule",
    "constant_schedule",
    "list_schedule",
    "power_schedule",
    "as_schedule",
]

_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,4})?")
_RATIO = re.compile(r"[+-]?\d+/\d+")
_SEPARATORS = re.compile(r"[,\s]+")
_MAX_TOKEN = 2000  # characters in one number
_MAX_EXPONENT = 1000  # |decimal exponent| accepted in text
_MAX_FILE_BYTES = 16 * 2**20
_MAX_DEPTH = 10**7

_UNIT = "a number in [0, 1] (integer, decimal or p/q)"


def parse_number(text: str, parameter: str = "--schedule") -> Fraction:
    """Parse one number (integer, decimal, ``p/q``) into an exact Fraction; never evaluates text.

    >>> parse_number("1/3"), parse_number("0.25"), parse_number("2e-3")
    (Fraction(1, 3), Fraction(1, 4), Fraction(1, 500))
    >>> parse_number("1/0")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: --schedule = 1/0 is invalid: expected a number with a nonzero denominator
    """
    if not isinstance(text, str):
        raise InvalidArgument(parameter, text, "a number written as text")
    t = text.strip()
    if not t or len(t) > _MAX_TOKEN:
        raise InvalidArgument(parameter, text, "an integer, a decimal or p/q")
    if _RATIO.fullmatch(t):
        p, q = t.split("/")
        if int(q) == 0:
            raise InvalidArgument(parameter, text, "a number with a nonzero denominator")
        return Fraction(int(p), int(q))
    if _DECIMAL.fullmatch(t):
        m = re.search(r"[eE]([+-]?\d+)$", t)
        if m and abs(int(m.group(1))) > _MAX_EXPONENT:
            raise InvalidArgument(parameter, text, f"a decimal exponent of at most {_MAX_EXPONENT}")
        return Fraction(t)
    raise InvalidArgument(parameter, text, "an integer, a decimal or p/q")


def _check_unit(value: Fraction, parameter: str, shown: object) -> Fraction:
    if not (0 <= value <= 1):
        raise InvalidArgument(parameter, shown, _UNIT)
    return value


def _check_depth(depth: object, parameter: str) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise InvalidArgument(parameter, depth, "an integer >= 0")
    depth = int(depth)
    if depth < 0 or depth > _MAX_DEPTH:
        raise InvalidArgument(parameter, depth, f"an integer between 0 and {_MAX_DEPTH}")
    return depth


class Schedule:
    """A residual schedule ``λ_1..λ_T`` (``T = depth``), each ``λ_t ∈ [0, 1]``.

    Build one with :func:`constant_schedule`, :func:`list_schedule`, :func:`power_schedule` or
    :func:`parse_schedule`.  ``spec`` is the text form (``const:1/2`` ...).

    >>> s = parse_schedule("power:1/2,1", depth=3)
    >>> s.depth, s.exact(), s.value_strings()
    (3, (Fraction(1, 2), Fraction(1, 4), Fraction(1, 6)), ['1/2', '1/4', '1/6'])
    """

    __slots__ = ("kind", "spec", "depth", "_exact", "lambda0", "beta", "parameter")

    def __init__(self, kind, spec, depth, exact_values=None, lambda0=None, beta=None,
                 parameter="schedule"):
        self.kind = kind
        self.spec = spec
        self.depth = depth
        self._exact = None if exact_values is None else tuple(exact_values)
        self.lambda0 = lambda0
        self.beta = beta
        self.parameter = parameter

    def __repr__(self):
        return f"Schedule({self.spec!r}, depth={self.depth})"

    def __len__(self):
        return self.depth

    @property
    def is_rational(self) -> bool:
        """True when every ``λ_t`` is rational (the exact path accepts the schedule)."""
        return self._exact is not None

    def exact(self) -> tuple:
        """The ``λ_t`` as Fractions; raises InvalidArgument for an irrational schedule."""
        if self._exact is None:
            raise InvalidArgument(
                self.parameter,
                self.spec,
                "a rational schedule on the exact path (power decay needs an integer beta >= 0; "
                "use the precise path, --dps N, for other beta)",
            )
        return self._exact

    def precise(self, dps: int) -> list:
        """The ``λ_t`` as mpmath numbers computed at ``dps`` digits (exact ones rounded once)."""
        with mpmath.workdps(dps):
            if self._exact is not None:
                return [mpmath.mpf(v.numerator) / v.denominator for v in self._exact]
            lam0 = mpmath.mpf(self.lambda0.numerator) / self.lambda0.denominator
            beta = mpmath.mpf(self.beta.numerator) / self.beta.denominator
            return [lam0 * mpmath.power(t + 1, -beta) for t in range(self.depth)]

    def floats(self) -> np.ndarray:
        """The ``λ_t`` as a float64 array (each correctly rounded from the exact value when
        rational; power decay with irrational values via 30-digit mpmath, then rounded)."""
        if self._exact is not None:
            return np.array([float(v) for v in self._exact], dtype=np.float64)
        return np.array([float(v) for v in self.precise(30)], dtype=np.float64)

    def value_strings(self, dps: int | None = None) -> list[str]:
        """The ``λ_t`` as text: exact ``p/q`` when rational, else decimals with ``dps``
        significant digits (default 17, what a float64 holds)."""
        if self._exact is not None:
            return [str(v) for v in self._exact]
        d = dps or 17
        with mpmath.workdps(d + 5):
            return [mpmath.nstr(v, d) for v in self.precise(d + 5)]


def constant_schedule(value, depth: int, *, parameter: str = "schedule") -> Schedule:
    """``λ_t = value`` for ``t = 1..depth``; ``value`` an exact rational in [0, 1].

    >>> constant_schedule(Fraction(1, 2), 2).exact()
    (Fraction(1, 2), Fraction(1, 2))
    """
    v = value if isinstance(value, Fraction) else as_rational(value, parameter)
    _check_unit(v, parameter, value)
    depth = _check_depth(depth, "depth")
    return Schedule("const", f"const:{v}", depth, [v] * depth, parameter=parameter)


def list_schedule(values: Iterable, *, parameter: str = "schedule") -> Schedule:
    """One exact rational ``λ_t ∈ [0, 1]`` per layer; the depth is the length of the list.

    >>> list_schedule([1, Fraction(1, 3)]).spec
    'list:1,1/3'
    """
    vals = []
    for v in values:
        f = v if isinstance(v, Fraction) else as_rational(v, parameter)
        vals.append(_check_unit(f, parameter, v))
    _check_depth(len(vals), "depth")
    return Schedule("list", "list:" + ",".join(str(v) for v in vals), len(vals), vals,
                    parameter=parameter)


def power_schedule(lambda0, beta, depth: int, *, parameter: str = "schedule") -> Schedule:
    """Power decay ``λ_t = lambda0 / (t+1)^beta`` for ``t = 0..depth-1``.

    ``lambda0 ∈ [0, 1]`` and ``beta >= 0`` exact rationals.  The values are rational (and the
    schedule usable on the exact path) exactly when ``beta`` is an integer.

    >>> power_schedule(1, 2, 3).exact()
    (Fraction(1, 1), Fraction(1, 4), Fraction(1, 9))
    >>> power_schedule(1, Fraction(1, 2), 3).is_rational
    False
    """
    l0 = lambda0 if isinstance(lambda0, Fraction) else as_rational(lambda0, parameter)
    b = beta if isinstance(beta, Fraction) else as_rational(beta, parameter)
    _check_unit(l0, parameter, lambda0)
    if b < 0:
        raise InvalidArgument(parameter, beta, "a decay exponent beta >= 0")
    if b > 1000:
        raise InvalidArgument(parameter, beta, "a decay exponent beta <= 1000")
    depth = _check_depth(depth, "depth")
    spec = f"power:{l0},{b}"
    exact = None
    if b.denominator == 1:
        e = int(b)
        exact = [l0 / Fraction((t + 1) ** e) for t in range(depth)]
    return Schedule("power", spec, depth, exact, lambda0=l0, beta=b, parameter=parameter)


def _numbers(body: str, parameter: str, shown: str) -> list[Fraction]:
    tokens = [t for t in _SEPARATORS.split(body.strip()) if t]
    if not tokens:
        raise InvalidArgument(parameter, shown, "at least one number")
    out = []
    for tok in tokens:
        try:
            out.append(parse_number(tok, parameter))
        except InvalidArgument:
            raise InvalidArgument(parameter, shown, f"numbers (integer, decimal or p/q); got {tok!r}")
    return out


def parse_schedule(spec: str, depth: int | None = None, *, parameter: str = "--schedule",
                   depth_parameter: str = "--depth") -> Schedule:
    """Parse a schedule SPEC (``const:``, ``list:``, ``power:``, ``file:``); see the module doc.

    ``depth`` is required for ``const:`` and ``power:``; for ``list:`` and ``file:`` it is
    optional and, when given, must equal the number of values.  Errors name ``parameter``.

    >>> parse_schedule("const:0.5", depth=2).exact()
    (Fraction(1, 2), Fraction(1, 2))
    >>> parse_schedule("list:1, 1/2 1/3").depth
    3
    >>> parse_schedule("const:3/2", depth=1)
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: --schedule = const:3/2 is invalid: expected a number in [0, 1] (integer, decimal or p/q)
    """
    if not isinstance(spec, str) or ":" not in spec:
        raise InvalidArgument(parameter, spec, "KIND:VALUES with KIND one of const, list, power, file")
    kind, body = spec.split(":", 1)
    kind = kind.strip().lower()
    if depth is not None:
        depth = _check_depth(depth, depth_parameter)
    if kind in ("const", "power"):
        if depth is None:
            raise InvalidArgument(depth_parameter, "(missing)", f"an integer >= 0 for a {kind}: schedule")
        nums = _numbers(body, parameter, spec)
        if kind == "const":
            if len(nums) != 1:
                raise InvalidArgument(parameter, spec, "exactly one value after const:")
            _check_unit(nums[0], parameter, spec)
            s = constant_schedule(nums[0], depth, parameter=parameter)
        else:
            if len(nums) != 2:
                raise InvalidArgument(parameter, spec, "power:LAMBDA0,BETA (two numbers)")
            _check_unit(nums[0], parameter, spec)
            if nums[1] < 0 or nums[1] > 1000:
                raise InvalidArgument(parameter, spec, "a decay exponent BETA in [0, 1000]")
            s = power_schedule(nums[0], nums[1], depth, parameter=parameter)
        return s
    if kind == "list":
        nums = _numbers(body, parameter, spec)
    elif kind == "file":
        path = body.strip()
        if not path:
            raise InvalidArgument(parameter, spec, "file:PATH with a path")
        try:
            # regular files only (a device such as /dev/zero never ends; a FIFO would block:
            # O_NONBLOCK opens it at once), and the cap is counted on the bytes read, not on
            # the size the file system reports
            with open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    raise InvalidArgument(parameter, spec, "a regular file (not a device, FIFO or directory)")
                raw = fh.read(_MAX_FILE_BYTES + 1)
            if len(raw) > _MAX_FILE_BYTES:
                raise InvalidArgument(parameter, spec, "a file of at most 16 MiB")
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or type(exc).__name__
            raise InvalidArgument(parameter, spec, f"a readable text file ({reason})")
        text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
        nums = _numbers(text, parameter, spec)
    else:
        raise InvalidArgument(parameter, spec, "KIND:VALUES with KIND one of const, list, power, file")
    for v in nums:
        _check_unit(v, parameter, spec)
    if depth is not None and depth != len(nums):
        raise InvalidArgument(depth_parameter, depth, f"the schedule's own length {len(nums)} (or omit it)")
    s = list_schedule(nums, parameter=parameter)
    if kind == "file":
        s.spec = spec
    return s


def as_schedule(schedule, parameter: str = "schedule") -> Schedule:
    """Coerce a :class:`Schedule`, a SPEC text or a sequence of exact rationals into a Schedule.

    >>> as_schedule([1, Fraction(1, 2)]).spec
    'list:1,1/2'
    """
    if isinstance(schedule, Schedule):
        return schedule
    if isinstance(schedule, str):
        return parse_schedule(schedule, parameter=parameter)
    if isinstance(schedule, (Sequence, np.ndarray)) or hasattr(schedule, "__iter__"):
        return list_schedule(list(schedule), parameter=parameter)
    raise InvalidArgument(parameter, schedule, "a Schedule or a sequence of values in [0, 1]")
