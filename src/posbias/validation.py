"""One validation layer for every public function of posbias (in the manner of Hypothesis'
``internal/validation.py``).

Each ``check_*`` function takes the *Python parameter name* first, then the value, and returns the
value converted to its canonical type, or raises :class:`~posbias.errors.InvalidArgument` naming
the parameter, showing the value and saying what is allowed.  The command line maps parameter
names to its flags in one table (``posbias.cli``), so library messages never name a flag.

The ranges below are the package's only ranges; every route uses them.

>>> check_integer("length", 12, 1, MAX_LENGTH)
12
>>> check_dps("dps", 10)
Traceback (most recent call last):
...
posbias.errors.InvalidArgument: dps = 10 is invalid: expected an integer between 15 and 100000
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import stat
from collections.abc import Iterable
from typing import Any

from posbias.errors import InvalidArgument
from posbias.numbers import byte_size

__all__ = [
    "MAX_DENSE_LENGTH",
    "MAX_DEPTH",
    "MAX_DPS",
    "MAX_HEADS",
    "MAX_LENGTH",
    "MIN_DPS",
    "check_bool",
    "check_choice",
    "check_dps",
    "check_integer",
    "check_path",
    "check_probability",
    "check_profile",
    "check_readable",
    "check_real",
    "parse_size",
    "read_bounded",
    "read_json_bounded",
    "read_text_bounded",
]

#: working decimal precision of the mpmath routes: below 15 digits a precise route holds less
#: than float64 does; above 100000 one multiplication already takes seconds
MIN_DPS = 15
MAX_DPS = 100_000
#: largest context length any path accepts (a float64 profile of 10^9 positions is 8 GB)
MAX_LENGTH = 1_000_000_000
#: largest depth (number of layers) of a rollout
MAX_DEPTH = 10_000_000
#: largest L of a dense L x L kernel (10^10 entries exceed any machine's memory)
MAX_DENSE_LENGTH = 100_000
#: attention heads per layer (BLOOM-176B has 112; a million heads would be a typo)
MAX_HEADS = 65_536


_SIZE_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "kib": 2**10, "m": 2**20, "mb": 2**20,
               "mib": 2**20, "g": 2**30, "gb": 2**30, "gib": 2**30, "t": 2**40, "tb": 2**40,
               "tib": 2**40}


def parse_size(text: object) -> int | None:
    """Bytes of a size written with an optional binary unit (``512M``, ``8G``, ``1.5GiB``,
    ``60K``; k, M, G, T are powers of 1024), or None when ``text`` is not one.

    >>> parse_size("1.5G"), parse_size("60K"), parse_size("lots")
    (1610612736, 61440, None)
    """
    m = re.fullmatch(r"\s*([0-9]{1,12}(?:\.[0-9]{1,6})?)\s*([A-Za-z]{0,3})\s*", str(text))
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        return None
    return int(float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()])


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return True
    # gmpy2.mpz is not registered as numbers.Integral; an mpz means gmpy2 is loaded already
    return _is_instance_of(value, "gmpy2", "mpz")


def _is_instance_of(value: Any, module: str, name: str) -> bool:
    """Whether ``value``'s class is ``module.name`` (or a subclass of it): a test that needs no
    import of ``module`` (this layer stays light; such a value means the module is loaded)."""
    return any(c.__name__ == name and c.__module__.split(".")[0] == module
               for c in type(value).__mro__)


def _range_text(what: str, lo: float | None, hi: float | None, both: str, lo_op: str = ">=",
                hi_op: str = "<=") -> str:
    """What a range allows, in words: ``what`` followed by ``both`` (both bounds given), by one
    bound with its operator, or alone (no bound)."""
    if lo is not None and hi is not None:
        return f"{what} {both}"
    if lo is not None:
        return f"{what} {lo_op} {lo}"
    if hi is not None:
        return f"{what} {hi_op} {hi}"
    return what


def check_integer(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an ``int`` in ``lo..hi`` (either bound may be None); bools, floats and
    strings are rejected (a float is not an index, even when it is integral).

    >>> check_integer("depth", 3, 0)
    3
    >>> check_integer("depth", 3.0, 0)
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: depth = 3.0 is invalid: expected an integer >= 0
    """
    allowed = _range_text("an integer", lo, hi, f"between {lo} and {hi}")
    if not _is_integer(value):
        raise InvalidArgument(name, value, allowed)
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise InvalidArgument(name, value, allowed)
    return v


def check_dps(name: str, value: Any) -> int:
    """A working decimal precision in ``MIN_DPS..MAX_DPS`` (the one range of the package)."""
    return check_integer(name, value, MIN_DPS, MAX_DPS)


def check_real(name: str, value: Any, lo: float | None = None, hi: float | None = None, *,
               lo_open: bool = False, hi_open: bool = False) -> float:
    """``value`` as a finite float in the interval given by ``lo``/``hi`` (closed unless
    ``lo_open``/``hi_open``); bools, strings, NaN and infinities are rejected.

    >>> check_real("temperature", 2, 0, lo_open=True)
    2.0
    >>> check_real("temperature", float("nan"))
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: temperature = nan is invalid: expected a finite real number
    """
    left = "(" if lo_open else "["
    right = ")" if hi_open else "]"
    allowed = _range_text("a finite real number", lo, hi, f"in {left}{lo}, {hi}{right}",
                          ">" if lo_open else ">=", "<" if hi_open else "<=")
    real = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not real and not _is_instance_of(value, "mpmath", "mpf"):  # mpf is not numbers.Real
        raise InvalidArgument(name, value, allowed)
    try:
        x = float(value)
    except (OverflowError, ValueError):
        raise InvalidArgument(name, value, allowed) from None
    if not math.isfinite(x):
        raise InvalidArgument(name, value, allowed)
    if lo is not None and (x < lo or (lo_open and x == lo)):
        raise InvalidArgument(name, value, allowed)
    if hi is not None and (x > hi or (hi_open and x == hi)):
        raise InvalidArgument(name, value, allowed)
    return x


def check_profile(name: str, values: Any, *, min_length: int = 1, nonnegative: bool = True,
                  max_length: int = MAX_LENGTH) -> list:
    """``values`` as a list of finite floats: a non-empty one-dimensional sequence of real
    numbers (bools, complex numbers, strings, NaN and infinities refused), each ``>= 0`` unless
    ``nonnegative=False``.  The refusal names the entry.

    >>> check_profile("profile", [0.5, 0.25, 0.25])
    [0.5, 0.25, 0.25]
    >>> check_profile("profile", [0.5, complex(0, 1)])
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: profile[1] = 1j is invalid: expected a finite real number >= 0
    """
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__"):
        try:
            values = list(values)
        except TypeError:
            raise InvalidArgument(name, values, "a sequence of real numbers") from None
    n = len(values)
    if not min_length <= n <= max_length:
        raise InvalidArgument(name, f"a sequence of length {n}",
                              f"a sequence of length between {min_length} and {max_length}")
    out = []
    for i, v in enumerate(values):
        if hasattr(v, "__len__") and not isinstance(v, str):
            raise InvalidArgument(name, f"an entry of length {len(v)} at {i}", "a one-dimensional sequence")
        out.append(check_real(f"{name}[{i}]", v, 0 if nonnegative else None))
    return out


def check_probability(name: str, value: Any) -> float:
    """A finite real number in ``[0, 1]`` (a mixing coefficient, a probability)."""
    return check_real(name, value, 0, 1)


def check_choice(name: str, value: Any, allowed: Iterable[str]) -> str:
    """``value`` when it is one of ``allowed`` (strings).

    >>> check_choice("convention", "reference", ("reference", "corrected"))
    'reference'
    """
    options = tuple(allowed)
    if not isinstance(value, str) or value not in options:
        raise InvalidArgument(name, value, "one of " + ", ".join(options))
    return value


def check_bool(name: str, value: Any) -> bool:
    """``value`` when it is a ``bool`` (not 0/1, not a string)."""
    if not isinstance(value, bool):
        raise InvalidArgument(name, value, "True or False")
    return value


def check_path(name: str, value: Any, *, must_exist: bool = True, kind: str = "file") -> str:
    """``value`` as a path string; with ``must_exist`` the path must be an existing regular
    file (``kind="file"``) or directory (``kind="dir"``).  Special files (devices, FIFOs) are
    refused: reading ``/dev/zero`` would never end."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value or "\x00" in value:
        raise InvalidArgument(name, value, "a non-empty path")
    if must_exist:
        if kind == "dir":
            if not os.path.isdir(value):
                raise InvalidArgument(name, value, "an existing directory")
        elif not os.path.isfile(value):
            raise InvalidArgument(name, value, "an existing regular file")
    return value


# ----------------------------------------------------------------------------- bounded reading

def check_readable(path: str | os.PathLike[str], parameter: str = "path",
                   max_bytes: int | None = None) -> str:
    """``path`` when it names an existing regular file (links followed) of at most
    ``max_bytes`` bytes as reported by the file system; devices, FIFOs and directories are
    refused (reading ``/dev/zero`` would never end)."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str) or not path or "\x00" in path:
        raise InvalidArgument(parameter, path, "a non-empty file path")
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InvalidArgument(parameter, path, f"a readable file ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise InvalidArgument(parameter, path, "a regular file (not a directory, device or FIFO)")
    if max_bytes is not None and st.st_size > max_bytes:
        raise InvalidArgument(parameter, path, f"a file of at most {byte_size(max_bytes)}")
    return path


def read_bounded(path: str | os.PathLike[str], max_bytes: int, parameter: str = "path") -> bytes:
    """The bytes of the regular file ``path``, refusing special files and files longer than
    ``max_bytes`` (counted while reading: a file that grows is still caught)."""
    check_readable(path, parameter, max_bytes)
    try:
        # O_NONBLOCK: a FIFO put in place since the check opens at once instead of blocking
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # replaced since the check
                raise InvalidArgument(parameter, path, "a regular file")
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise InvalidArgument(parameter, path, f"a readable file ({exc.strerror})") from None
    if len(data) > max_bytes:
        raise InvalidArgument(parameter, path, f"a file of at most {byte_size(max_bytes)}")
    return data



def read_text_bounded(path: str | os.PathLike[str], max_bytes: int,
                      parameter: str = "path") -> str:
    """The UTF-8 text of the regular file ``path`` (see :func:`read_bounded`); text that is not
    UTF-8 is refused naming the file."""
    data = read_bounded(path, max_bytes, parameter)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidArgument(parameter, os.fspath(path),
                              f"UTF-8 text (byte {exc.start} is not)") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_json_bounded(path: str | os.PathLike[str], max_bytes: int,
                      parameter: str = "path") -> Any:
    """The JSON document in the regular file ``path`` (see :func:`read_bounded`), strictly:
    ``NaN`` and ``Infinity`` (which Python's reader accepts) and nesting deeper than the
    reader's stack are refused naming the file, as is text that is not JSON."""
    text = read_text_bounded(path, max_bytes, parameter)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise InvalidArgument(parameter, os.fspath(path), "JSON nested less deeply") from None
    except ValueError as exc:  # json.JSONDecodeError is one
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise InvalidArgument(parameter, os.fspath(path), f"a strict JSON document ({why})") from None
