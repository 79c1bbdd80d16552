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

import re
import sys
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeAlias

import mpmath
import numpy as np

from posbias.errors import InvalidArgument
from posbias.numbers import fraction_text, mp_text
from posbias.numerics._arith import as_rational
from posbias.validation import MAX_DEPTH, MIN_DPS, check_dps, check_integer, read_text_bounded

#: float64's smallest normal number: nonzero λ below it do not reach the fast path
_FLOAT64_TINY = sys.float_info.min

__all__ = [
    "Schedule",
    "ScheduleLike",
    "as_schedule",
    "constant_schedule",
    "float_schedule",
    "list_schedule",
    "parse_number",
    "parse_schedule",
    "power_schedule",
]

_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,4})?")
_RATIO = re.compile(r"[+-]?\d+/\d+")
_SEPARATORS = re.compile(r"[,\s]+")
_MAX_TOKEN = 2000  # characters in one number
_MAX_EXPONENT = 1000  # |decimal exponent| accepted in text
_MAX_FILE_BYTES = 16 * 2**20

_UNIT = "a number in [0, 1] (integer, decimal or p/q)"


def parse_number(text: str, parameter: str = "value") -> Fraction:
    """Parse one number (integer, decimal, ``p/q``) into an exact Fraction; never evaluates text.

    >>> parse_number("1/3"), parse_number("0.25"), parse_number("2e-3")
    (Fraction(1, 3), Fraction(1, 4), Fraction(1, 500))
    >>> parse_number("1/0")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: value = 1/0 is invalid: expected a number with a nonzero denominator
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
    return check_integer(parameter, depth, 0, MAX_DEPTH)


class Schedule:
    """A residual schedule ``λ_1..λ_T`` (``T = depth``), each ``λ_t ∈ [0, 1]``; immutable.

    Build one with :func:`as_schedule` (any accepted form), :func:`constant_schedule`,
    :func:`list_schedule`, :func:`power_schedule`, :func:`float_schedule` or
    :func:`parse_schedule`.  ``spec`` is the text form (``const:1/2`` ...).  A schedule is
    *rational* (usable on the exact path) when every ``λ_t`` is an exact rational; a schedule of
    binary floats or mpmath numbers (measured λ) is usable on the precise path, where each value
    enters as the exact binary number it is, and on the fast path.

    >>> s = parse_schedule("power:1/2,1", depth=3)
    >>> s.depth, s.exact(), s.value_strings()
    (3, (Fraction(1, 2), Fraction(1, 4), Fraction(1, 6)), ['1/2', '1/4', '1/6'])
    >>> s.depth = 4
    Traceback (most recent call last):
    ...
    AttributeError: Schedule is immutable
    """

    __slots__ = ("_approx", "_exact", "beta", "depth", "kind", "lambda0", "parameter", "spec")
    kind: str
    spec: str
    depth: int
    _exact: tuple[Fraction, ...] | None
    _approx: tuple[Any, ...] | None  # binary floats or mpmath numbers
    lambda0: Any  # power decay: lambda_0 and beta as given (Fraction, float or mpf), else None
    beta: Any
    parameter: str

    def __init__(self, kind: str, spec: str, depth: int,
                 exact_values: Iterable[Fraction] | None = None, lambda0: Any = None,
                 beta: Any = None, parameter: str = "schedule",
                 approx_values: Iterable[Any] | None = None) -> None:
        init = object.__setattr__
        init(self, "kind", kind)
        init(self, "spec", spec)
        init(self, "depth", depth)
        init(self, "_exact", None if exact_values is None else tuple(exact_values))
        init(self, "_approx", None if approx_values is None else tuple(approx_values))
        init(self, "lambda0", lambda0)
        init(self, "beta", beta)
        init(self, "parameter", parameter)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Schedule is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Schedule is immutable")

    def __repr__(self) -> str:
        return f"Schedule({self.spec!r}, depth={self.depth})"

    def __len__(self) -> int:
        return self.depth

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Schedule):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple:
        # equal when the values are: a const: and a list: of the same values are one schedule
        if self._exact is not None:
            return (self.depth, self._exact)
        if self._approx is not None:
            return (self.depth, self._approx)
        return (self.depth, self.lambda0, self.beta)

    def with_spec(self, spec: str) -> Schedule:
        """The same values under another text form (e.g. ``file:PATH`` for values read from a
        file)."""
        return Schedule(self.kind, spec, self.depth, self._exact, self.lambda0, self.beta,
                        self.parameter, self._approx)

    @property
    def is_rational(self) -> bool:
        """True when every ``λ_t`` is rational (the exact path accepts the schedule)."""
        return self._exact is not None

    def exact(self) -> tuple[Fraction, ...]:
        """The ``λ_t`` as Fractions; raises InvalidArgument for an irrational schedule."""
        if self._exact is None:
            if self._approx is not None:
                raise InvalidArgument(
                    self.parameter, self.spec,
                    "exact rationals on the exact path (int, Fraction, Decimal or text such as "
                    "'1/3'; binary floats are not the rationals they print as)")
            raise InvalidArgument(
                self.parameter,
                self.spec,
                "a rational schedule on the exact path (power decay needs an integer beta >= 0; "
                "use the precise path for other beta)",
            )
        return self._exact

    def precise(self, dps: int) -> list[Any]:
        """The ``λ_t`` as mpmath numbers at ``dps`` digits (exact ones rounded once; binary
        floats enter as the exact binary numbers they are)."""
        dps = check_dps("dps", dps)
        with mpmath.workdps(dps):
            if self._exact is not None:
                return [mpmath.mpmathify(v) for v in self._exact]
            if self._approx is not None:
                return [+v for v in self._approx]
            lam0 = mpmath.mpmathify(self.lambda0)
            beta = mpmath.mpmathify(self.beta)
            return [lam0 * mpmath.power(t + 1, -beta) for t in range(self.depth)]

    def floats(self) -> np.ndarray:
        """The ``λ_t`` as a float64 array (each correctly rounded from the exact value when
        rational; power decay with irrational values via 30-digit mpmath, then rounded).

        A nonzero value that float64 carries only as 0 or as a subnormal number (below
        ``2.2e-308``, with fewer than 53 significant bits) is refused: the fast path would
        silently lose it, or divide by it into an infinity."""
        if self._exact is not None:
            shown: list[Any] = list(self._exact)
            out = np.array([float(v) for v in self._exact], dtype=np.float64)
        elif self._approx is not None:
            shown = list(self._approx)
            out = np.array([float(v) for v in self._approx], dtype=np.float64)
        else:
            shown = self.precise(30)
            out = np.array([float(v) for v in shown], dtype=np.float64)
        for v, f in zip(shown, out):
            if v != 0 and abs(f) < _FLOAT64_TINY:
                text = (fraction_text(v, width=24) if isinstance(v, Fraction)
                        else mp_text(mpmath.mpmathify(v), 6))
                why = ("underflows to 0" if f == 0 else f"is below {_FLOAT64_TINY:.2g}, "
                       "float64's smallest normal number")
                raise InvalidArgument(self.parameter, self.spec,
                                      f"values a float64 can carry on the fast path (λ = {text} "
                                      f"{why}; use the exact or the precise path)")
        return out

    def value_strings(self, dps: int | None = None) -> list[str]:
        """The ``λ_t`` as text: exact ``p/q`` when rational, else decimals with ``dps``
        significant digits (default 17, what a float64 holds)."""
        if self._exact is not None:
            return [str(v) for v in self._exact]
        d = dps or 17
        with mpmath.workdps(d + 5):
            return [mp_text(v, d) for v in self.precise(max(d + 5, MIN_DPS))]


def constant_schedule(value: int | Fraction | Decimal | str, depth: int, *,
                      parameter: str = "schedule") -> Schedule:
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
    for t, v in enumerate(values):
        f = v if isinstance(v, Fraction) else as_rational(v, f"{parameter}[{t + 1}]")
        vals.append(_check_unit(f, f"{parameter}[{t + 1}]", v))
    _check_depth(len(vals), "depth")
    return Schedule("list", "list:" + ",".join(str(v) for v in vals), len(vals), vals,
                    parameter=parameter)


def float_schedule(values: Iterable, *, parameter: str = "schedule") -> Schedule:
    """One real ``λ_t ∈ [0, 1]`` per layer given as binary floats (or mpmath numbers), e.g.
    measured mixing coefficients.  Usable on the precise path (each float is the exact binary
    number it holds) and the fast path; the exact path refuses it.

    >>> s = float_schedule([0.5, 0.25])
    >>> s.floats().tolist(), s.is_rational
    ([0.5, 0.25], False)
    """
    vals = []
    for t, v in enumerate(values):
        if isinstance(v, (bool, str, bytes)):
            raise InvalidArgument(f"{parameter}[{t + 1}]", v, "a real number in [0, 1]")
        try:
            x = v if isinstance(v, mpmath.mpf) else mpmath.mpf(float(v))
        except (TypeError, ValueError, OverflowError):
            raise InvalidArgument(f"{parameter}[{t + 1}]", v, "a real number in [0, 1]") from None
        if not (0 <= x <= 1):  # also rejects NaN
            raise InvalidArgument(f"{parameter}[{t + 1}]", v, "a real number in [0, 1]")
        vals.append(x)
    depth = _check_depth(len(vals), "depth")
    with mpmath.workdps(20):
        spec = "list:" + ",".join(mp_text(x, 17) for x in vals[:8]) + (
            ",..." if len(vals) > 8 else "")
    return Schedule("list", spec, depth, None, parameter=parameter, approx_values=vals)


def power_schedule(lambda0: float | Fraction | Decimal | str, beta: float | Fraction | Decimal | str,
                   depth: int, *, parameter: str = "schedule") -> Schedule:
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
            raise InvalidArgument(
                parameter, shown, f"numbers (integer, decimal or p/q); got {tok!r}") from None
    return out


def parse_schedule(spec: str, depth: int | None = None, *, parameter: str = "schedule",
                   depth_parameter: str = "depth") -> Schedule:
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
    posbias.errors.InvalidArgument: schedule = const:3/2 is invalid: expected a number in [0, 1] (integer, decimal or p/q)
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
        # regular files only (a device never ends, a FIFO would block), the cap counted on
        # the bytes read; the refusal names the parameter and the whole spec
        try:
            text = read_text_bounded(path, _MAX_FILE_BYTES, parameter)
        except InvalidArgument as exc:
            raise InvalidArgument(parameter, spec, exc.allowed) from None
        text = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
        nums = _numbers(text, parameter, spec)
    else:
        raise InvalidArgument(parameter, spec, "KIND:VALUES with KIND one of const, list, power, file")
    for v in nums:
        _check_unit(v, parameter, spec)
    if depth is not None and depth != len(nums):
        raise InvalidArgument(depth_parameter, depth, f"the schedule's own length {len(nums)} (or omit it)")
    s = list_schedule(nums, parameter=parameter)
    return s.with_spec(spec) if kind == "file" else s


def _exact_or_none(v):
    """``v`` as an exact Fraction (exact numbers, or a number written as text), else None."""
    try:
        return parse_number(v) if isinstance(v, str) else as_rational(v, "value")
    except InvalidArgument:
        return None


#: what every rollout accepts as a schedule (see :func:`as_schedule`): a :class:`Schedule`, a
#: SPEC text, a sequence or array of values in [0, 1], or (with a depth) a single number
ScheduleLike: TypeAlias = "Schedule | str | Iterable[Any] | float | Fraction | Decimal"


def as_schedule(schedule: ScheduleLike, parameter: str = "schedule", *,
                depth: int | None = None) -> Schedule:
    """The one entry point that turns any accepted form into a :class:`Schedule`; every rollout
    (Cesàro, dense kernels, ALiBi, configs) coerces its schedule here.

    Accepted: a :class:`Schedule`; a SPEC text (``const:``, ``list:``, ``power:``, ``file:``);
    a sequence of exact rationals (int, Fraction, Decimal, gmpy2, or numbers written as text
    such as ``"0.1"`` or ``"1/3"``) -> a rational schedule; a
    sequence holding binary floats or mpmath numbers -> :func:`float_schedule`; with ``depth``,
    a single number meaning the same ``λ`` for every layer.  A given ``depth`` must match.

    >>> as_schedule([1, Fraction(1, 2)]).spec
    'list:1,1/2'
    >>> as_schedule(0.5, depth=2).floats().tolist()
    [0.5, 0.5]
    >>> as_schedule("const:1/4", depth=2).exact()
    (Fraction(1, 4), Fraction(1, 4))
    """
    if depth is not None:
        depth = check_integer("depth", depth, 0, MAX_DEPTH)
    if isinstance(schedule, Schedule):
        out = schedule
    elif isinstance(schedule, str):
        out = parse_schedule(schedule, depth, parameter=parameter, depth_parameter="depth")
    elif isinstance(schedule, (bytes, bool)) or schedule is None:
        raise InvalidArgument(parameter, schedule, "a Schedule, a SPEC text or a sequence of "
                              "values in [0, 1]")
    elif not hasattr(schedule, "__iter__") or (isinstance(schedule, np.ndarray)
                                               and schedule.ndim == 0):
        if depth is None:
            raise InvalidArgument(parameter, schedule, "a Schedule, a SPEC text or a sequence "
                                  "of values in [0, 1] (a single number needs a depth)")
        value = schedule.item() if isinstance(schedule, np.ndarray) else schedule
        if _exact_or_none(value) is not None:
            out = constant_schedule(_exact_or_none(value), depth, parameter=parameter)
        else:
            out = float_schedule([value] * depth, parameter=parameter)
    else:
        values = list(np.asarray(schedule).reshape(-1)) if isinstance(schedule, np.ndarray) \
            else list(schedule)
        if isinstance(schedule, np.ndarray) and schedule.dtype.kind in "iu":
            values = [int(v) for v in values]
        exact = [_exact_or_none(v) for v in values]
        if all(x is not None for x in exact):
            out = list_schedule(exact, parameter=parameter)
        else:
            out = float_schedule(values, parameter=parameter)
    if depth is not None and out.depth != depth:
        raise InvalidArgument(parameter, f"{out.depth} values", f"one value per layer: {depth}")
    return out
