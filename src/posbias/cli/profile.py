"""``posbias profile``: the influence profile of the residual-aware Cesàro rollout.

::

    posbias profile --length L [--depth T] (--alpha A | --schedule SPEC) [--exact | --dps N]
                    [--format table|csv|json] [--fractions] [--summary] [--digits N] [--plot FILE]

Paths: ``--exact`` (Fractions), ``--dps N`` (mpmath at N digits), neither (float64, fast).
The summary holds ``first``, ``last``, ``argmin`` (1-indexed over all positions, smallest index on
ties), ``min`` and ``sum``.
"""

from __future__ import annotations

import json
import math
import re
import sys
from fractions import Fraction

import mpmath
import numpy as np

from posbias.errors import InvalidArgument
from posbias.numerics._arith import mpz, reduced_fraction, round_significant
from posbias.numerics.schedules import Schedule, parse_number, parse_schedule

__all__ = ["add_parser", "run", "compute_profile"]

_MAX_LENGTH = {"exact": 100_000, "precise": 1_000_000, "fast": 100_000_000}
_MAX_DPS = 100_000


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "profile",
        help="influence profile of the residual-aware Cesàro rollout",
        description=(
            "Last row of prod_t ((1 - lambda_t) I + lambda_t M), M the Cesaro matrix "
            "(uniform causal attention), on the exact, precise (--dps) or fast path. "
            "SPEC: const:V | list:V1,V2,... | power:LAMBDA0,BETA | file:PATH, numbers as "
            "integers, decimals or p/q."
        ),
    )
    p.add_argument("--length", required=True, metavar="L", help="number of positions, >= 1")
    p.add_argument("--depth", metavar="T", help="number of layers, >= 0 (list:/file: set it)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--alpha", metavar="A", help="constant lambda in [0, 1] (same as const:A)")
    g.add_argument("--schedule", metavar="SPEC", help="schedule of lambda_t (see above)")
    q = p.add_mutually_exclusive_group()
    q.add_argument("--exact", action="store_true", help="exact rational arithmetic")
    q.add_argument("--dps", metavar="N", help="mpmath with N significant digits")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table")
    p.add_argument("--fractions", action="store_true",
                   help="exact path: print full fractions p/q in table/csv")
    p.add_argument("--summary", action="store_true", help="print only the summary")
    p.add_argument("--digits", metavar="N",
                   help="significant digits shown in table/csv (exact default 20, precise: dps, "
                        "fast: at most 17)")
    p.add_argument("--plot", metavar="FILE", help="also draw the profile into FILE")
    p.set_defaults(func=run)


def _int_arg(text, parameter, low, high, allowed):
    if text is None:
        return None
    digits = str(text).strip()
    # plain ASCII digits only: int() would also take "1_000", "+5" and non-ASCII digits
    if not re.fullmatch(r"[0-9]{1,30}", digits):
        raise InvalidArgument(parameter, text, allowed)
    value = int(digits, 10)
    if not low <= value <= high:
        raise InvalidArgument(parameter, text, allowed)
    return value


def _schedule(args, depth) -> Schedule:
    if args.alpha is not None:
        value = parse_number(args.alpha, "--alpha")
        if not 0 <= value <= 1:
            raise InvalidArgument("--alpha", args.alpha, "a number in [0, 1]")
        if depth is None:
            raise InvalidArgument("--depth", "(missing)", "an integer >= 0 (required with --alpha)")
        s = parse_schedule(f"const:{value}", depth, parameter="--alpha", depth_parameter="--depth")
        s.spec = f"const:{args.alpha.strip()}"
        return s
    return parse_schedule(args.schedule, depth, parameter="--schedule", depth_parameter="--depth")


def compute_profile(length: int, schedule: Schedule, path: str, dps: int | None = None) -> dict:
    """Compute the profile on one path; returns the raw data used by the formatters.

    ``exact``: ``{"num": [...], "den": D}`` (common denominator, unreduced);
    ``precise``: ``{"values": [mpf]}``; ``fast``: ``{"values": ndarray, "log": ndarray}``.
    """
    from posbias.numerics import cesaro

    if path == "exact":
        schedule.exact()  # fail early for irrational schedules
        N, D = cesaro.cesaro_profile_scaled(length, schedule)
        return {"num": N, "den": D}
    if path == "precise":
        return {"values": cesaro.cesaro_profile_precise(length, schedule, dps)}
    a, k = cesaro._fast_rollout(length, schedule)
    with np.errstate(divide="ignore"):
        log = np.log(a) + k * math.log(2.0)
    return {"values": np.ldexp(a, k), "log": log}


def _summary(data, path, length, dps):
    """first, last, argmin (1-indexed, first on ties), min, sum in the path's own format."""
    if path == "exact":
        N, D = data["num"], data["den"]
        i = min(range(length), key=lambda j: (N[j], j))
        total = sum(N, mpz(0))
        return {"first": (N[0], D), "last": (N[-1], D), "argmin": i + 1, "min": (N[i], D),
                "sum": (total, D)}
    if path == "precise":
        v = data["values"]
        i = min(range(length), key=lambda j: (v[j], j))
        with mpmath.workdps(dps + 10):
            total = mpmath.fsum(v)
        return {"first": v[0], "last": v[-1], "argmin": i + 1, "min": v[i], "sum": total}
    v, log = data["values"], data["log"]
    i = int(np.argmin(log))  # log space: no ties created by underflow
    return {"first": float(v[0]), "last": float(v[-1]), "argmin": i + 1, "min": float(v[i]),
            "sum": math.fsum(v.tolist()), "log_min": float(log[i])}


def _pair(value):
    """(numerator, denominator) of an exact value: a Fraction or an unreduced pair."""
    if isinstance(value, Fraction):
        return value.numerator, value.denominator
    return value


def _fraction_text(value) -> str:
    num, den = _pair(value)
    f = value if isinstance(value, Fraction) else reduced_fraction(num, den)
    n, d = mpz(f.numerator), mpz(f.denominator)  # mpz prints huge integers without limits
    return str(n) if d == 1 else f"{n}/{d}"


def _fmt_float(x: float, digits: int) -> str:
    return repr(float(x)) if digits >= 17 else "%.*g" % (digits, x)


def _formatter(path, args, dps):
    """A function mapping one value (exact pair, mpf or float) to its table/csv text."""
    if path == "exact":
        if args.fractions:
            return _fraction_text
        digits = args.digits_value or 20
        return lambda value: round_significant(*_pair(value), digits)
    if path == "precise":
        digits = min(args.digits_value or dps, dps)
        return lambda x: mpmath.nstr(x, digits, min_fixed=-5, max_fixed=21)
    digits = min(args.digits_value or 17, 17)
    return lambda x: _fmt_float(x, digits)


def _header(path, args, length, depth, spec, dps):
    if path == "exact":
        if args.fractions:
            shown = "exact fractions p/q"
        else:
            shown = (f"exact values shown as decimals correctly rounded to "
                     f"{args.digits_value or 20} significant digits (all shown digits correct)")
    elif path == "precise":
        d = min(args.digits_value or dps, dps)
        shown = f"mpmath at dps={dps}, shown to {d} significant digits"
    else:
        d = min(args.digits_value or 17, 17)
        shown = (f"float64 with block exponents (no underflow inside), shown to {d} significant "
                 f"digits; values below 2^-1074 print as 0 (see log_min / --format json)")
    return (f"# posbias profile: Cesaro rollout, L={length}, T={depth}, schedule {spec}, "
            f"path {path}: {shown}")


def _json_value(path, value, dps):
    if path == "exact":
        return _fraction_text(value)
    if path == "precise":
        return mpmath.nstr(value, dps, min_fixed=-5, max_fixed=21)
    return float(value)


def run(args) -> int:
    path = "exact" if args.exact else ("precise" if args.dps is not None else "fast")
    length = _int_arg(args.length, "--length", 1, _MAX_LENGTH[path],
                      f"an integer between 1 and {_MAX_LENGTH[path]} on the {path} path")
    depth = _int_arg(args.depth, "--depth", 0, 10**7, "an integer between 0 and 10000000")
    dps = _int_arg(args.dps, "--dps", 1, _MAX_DPS, f"an integer between 1 and {_MAX_DPS}")
    args.digits_value = _int_arg(args.digits, "--digits", 1, 100_000,
                                 "an integer between 1 and 100000")
    if args.fractions and path != "exact":
        raise InvalidArgument("--fractions", "set", "only together with --exact")
    schedule = _schedule(args, depth)
    if path == "exact":
        schedule.exact()
    if args.plot:
        _check_plot_target(args.plot)
    if path == "exact" and length >= 2048:
        print(f"posbias: computing the exact profile (L={length}, T={schedule.depth}) ...",
              file=sys.stderr)

    data = compute_profile(length, schedule, path, dps)
    summary = _summary(data, path, length, dps)
    if path == "exact":
        if not args.summary and (args.format == "json" or args.fractions):
            from posbias.numerics.cesaro import reduce_scaled_profile

            values = reduce_scaled_profile(length, schedule, data["num"], data["den"])
        else:
            values = [(n, data["den"]) for n in data["num"]]
    else:
        values = list(data["values"])

    text = _render(args, path, length, schedule, dps, values, summary, data)
    if args.plot:
        _plot(args.plot, path, values, length, schedule)
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


def _render(args, path, length, schedule, dps, values, summary, data) -> str:
    depth = schedule.depth
    if args.format == "json":
        doc = {
            "length": length,
            "depth": depth,
            "schedule": {"spec": schedule.spec,
                         "values": schedule.value_strings(dps if path == "precise" else None)},
            "path": path,
        }
        if path == "precise":
            doc["dps"] = dps
        if not args.summary:
            doc["profile"] = [_json_value(path, v, dps) for v in values]
            if path == "fast":
                doc["log_profile"] = [float(x) for x in data["log"]]
        doc["summary"] = {
            key: (val if key == "argmin" else
                  (float(val) if key == "log_min" else _json_value(path, val, dps)))
            for key, val in summary.items()
        }
        return json.dumps(doc, indent=1) + "\n"
    fmt = _formatter(path, args, dps)
    sep = "," if args.format == "csv" else "  "
    lines = [_header(path, args, length, depth, schedule.spec, dps)]
    if args.summary:
        lines.append(f"quantity{sep}value")
        for key, val in summary.items():
            if key == "argmin":
                shown = str(val)
            elif key == "log_min":
                shown = repr(float(val))
            else:
                shown = fmt(val)
            lines.append(f"{key}{sep}{shown}")
    else:
        lines.append(f"position{sep}p")
        lines.extend(f"{j}{sep}{fmt(v)}" for j, v in enumerate(values, start=1))
    return "\n".join(lines) + "\n"


def _plots_module(target):
    try:
        from posbias.render import plots
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("posbias"):
            raise InvalidArgument("--plot", target, "a build of posbias with posbias.render.plots")
        raise
    return plots


def _check_plot_target(target):
    """Fail before any work when the plot cannot be written (suffix, directory, permissions)."""
    import os

    from posbias.files import check_writable

    plots = _plots_module(target)
    suffixes = getattr(plots, "PLOT_SUFFIXES", (".png", ".pdf"))
    if os.path.splitext(target)[1].lower() not in suffixes:
        raise InvalidArgument("--plot", target, "a file name ending in " + " or ".join(suffixes))
    check_writable(target, "--plot")


def _plot(target, path, values, length, schedule):
    plots = _plots_module(target)
    if path == "exact":
        # int / int is correctly rounded in Python, for integers of any size
        arr = np.array([int(n) / int(d) for n, d in map(_pair, values)], dtype=np.float64)
    else:
        arr = np.array([float(v) for v in values], dtype=np.float64)
    plots.plot_profile(arr, target, parameter="--plot",
                       title=f"Cesaro rollout, L={length}, T={schedule.depth}, {schedule.spec}")
