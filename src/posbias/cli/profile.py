"""``posbias profile``: the influence profile of the residual-aware Cesàro rollout, or the
kinetic retrieval profile of duerinckx2026.

::

    posbias profile --length L [--depth T] (--alpha A | --schedule SPEC) [--exact | --dps N]
                    [-f text|csv|json] [-o FILE] [--fractions] [--summary] [--digits N]
                    [--plot FILE] [--max-memory SIZE]
    posbias profile --length L --model kinetic:... [--dps N] [-f ...] [--summary] ...

Paths: ``--exact`` (Fractions), ``--dps N`` (mpmath at N digits), neither (float64, fast).
The summary holds ``first``, ``last``, ``argmin`` (1-indexed over all positions, smallest index on
ties), ``min`` and ``sum``.  ``--model`` (:data:`posbias.numerics.kinetic.KINETIC_SPEC`) gives the
continuum profile ``S_t(j/L)``, ``j = 1..L`` (:mod:`posbias.numerics.kinetic`; no exact path:
its values are transcendental).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from fractions import Fraction
from math import lcm
from typing import TYPE_CHECKING, Any, cast

import mpmath
import numpy as np

from posbias.cli._common import add_output, check_memory, dps_type, progress
from posbias.errors import InvalidArgument
from posbias.files import check_target, write_output
from posbias.numbers import byte_size, duration, float_text, fraction_text, mp_text
from posbias.numerics import cesaro, kinetic, rollout
from posbias.numerics._arith import mpz, reduced_fraction, round_significant
from posbias.numerics.cesaro import reduce_scaled_profile
from posbias.numerics.costs import (
    kernel_exact_seconds,
    profile_bytes,
    profile_output_cost,
    profile_seconds,
)
from posbias.numerics.rollout import DecayKernel, PrefixKernel, WindowKernel, parse_kernel
from posbias.numerics.schedules import Schedule, parse_number, parse_schedule
from posbias.numerics.sinks import StreamingKernel
from posbias.render import plots
from posbias.validation import MAX_LENGTH

if TYPE_CHECKING:
    from posbias.numerics.rollout import Kernel

__all__ = ["add_parser", "compute_profile", "estimate_bytes", "run"]

#: kernels whose fast path is log-safe (block exponents or logarithms), like the Cesàro route
_LOG_SAFE = ("sink:", "streaming:")
#: the memory of a profile run (:func:`posbias.numerics.costs.profile_bytes`), by its older name
estimate_bytes = profile_bytes

#: the smallest positive normal float64: a nonzero lambda below it cannot be carried on the
#: fast path (it would round to a subnormal or to 0 and change the profile's support)
_TINY = 2.2250738585072014e-308


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "profile",
        help="influence profile of the residual-aware rollout (Cesàro or another kernel)",
        description=(
            "Last row of prod_t ((1 - lambda_t) I + lambda_t A), A the Cesàro matrix "
            "(uniform causal attention) or the --kernel given, on the exact, precise (--dps) or "
            "fast path. "
            "SPEC: const:V | list:V1,V2,... | power:LAMBDA0,BETA | file:PATH, numbers as "
            "integers, decimals or p/q."
        ),
    )
    p.add_argument("--kernel", default=None, metavar="SPEC",
                   help="attention kernel of every layer: cesaro (default; uniform causal), "
                        "window:W, prefix:K, decay:M or alibi:M (slope M >= 0; precise or fast "
                        "path only for M > 0), sink:ALPHA (a sink of weight ALPHA in [0, 1] on "
                        "token 1 over Cesàro) or streaming:S,W (S sink tokens plus a window of W)")
    p.add_argument("--model", metavar="SPEC",
                   help="instead of a rollout, the kinetic retrieval profile S_t(j/L) of "
                        "duerinckx2026: kinetic:lambda=L,c=C (one mode) or "
                        "kinetic:lambda=L,beta=B,t=T[,M=M][,modes=N] (the paper's mode sum); "
                        "precise (--dps) or fast path; no --depth, --alpha, --schedule, --kernel")
    p.add_argument("--length", required=True, metavar="L",
                   help="number of positions, >= 1 (the largest run is set by --max-memory)")
    p.add_argument("--depth", metavar="T", help="number of layers, >= 0 (list:/file: set it)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--alpha", metavar="A", help="constant lambda in [0, 1] (same as const:A)")
    g.add_argument("--schedule", metavar="SPEC", help="schedule of lambda_t (see above)")
    q = p.add_mutually_exclusive_group()
    q.add_argument("--exact", action="store_true", help="exact rational arithmetic")
    q.add_argument("--dps", metavar="N", type=dps_type, help="mpmath with N significant digits")
    add_output(p, ("text", "csv", "json"), "text", aliases={"table": "text"})
    p.add_argument("--fractions", action="store_true",
                   help="exact path: print full fractions p/q in table/csv")
    p.add_argument("--summary", action="store_true", help="print only the summary")
    p.add_argument("--digits", metavar="N",
                   help="significant digits shown in table/csv (exact default 20, precise: dps, "
                        "fast: at most 17)")
    p.add_argument("--plot", metavar="FILE", help="also draw the profile into FILE (.png or .pdf)")
    p.set_defaults(func=run)


def _int_arg(text: object, parameter: str, low: int, high: int, allowed: str) -> int | None:
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


def _schedule(args: argparse.Namespace, depth: int | None) -> Schedule:
    if args.alpha is not None:
        value = parse_number(args.alpha, "--alpha")
        if not 0 <= value <= 1:
            raise InvalidArgument("--alpha", args.alpha, "a number in [0, 1]")
        if depth is None:
            raise InvalidArgument("--depth", "(missing)", "an integer >= 0 (required with --alpha)")
        s = parse_schedule(f"const:{value}", depth, parameter="--alpha", depth_parameter="--depth")
        return s.with_spec(f"const:{args.alpha.strip()}")
    return parse_schedule(args.schedule, depth, parameter="--schedule", depth_parameter="--depth")


def _check_fast_inputs(schedule: Schedule, parameter: str, shown: object) -> None:
    """Refuse nonzero lambdas that float64 cannot carry (they would silently become 0)."""
    if schedule.is_rational:
        small = [v for v in schedule.exact() if v and v < _TINY]
    else:
        with mpmath.workdps(20):  # power decay is decreasing: its last value is the smallest
            lam0 = mpmath.mpmathify(schedule.lambda0)
            beta = mpmath.mpmathify(schedule.beta)
            last = lam0 * mpmath.power(schedule.depth, -beta)
            small = [last] if schedule.depth and 0 < last < _TINY else []
    if small:
        raise InvalidArgument(parameter, shown, "lambda values of 0 or at least 2.2e-308 on the fast "
                              "path (float64); use --exact or --dps N for smaller ones")


def compute_profile(length: int, schedule: Schedule, path: str, dps: int | None = None,
                    kernel: Kernel | None = None,
                    progress: Callable[[int], object] | None = None) -> dict:
    """Compute the profile on one path; returns the raw data used by the formatters.

    ``exact``: ``{"num": [...], "den": D}`` (common denominator, unreduced; with a kernel other
    than Cesàro also ``"fractions"``, the reduced values); ``precise``: ``{"values": [mpf]}``;
    ``fast``: ``{"values": ndarray, "log": ndarray}``.  The Cesàro kernel runs on its dedicated
    routes (exact divisions at the final denominator, block exponents); other kernels on the one driver per path of
    :mod:`posbias.numerics.rollout` (plain float64 on the fast path).  ``progress`` (called
    with a number of layers done) reaches the exact and precise Cesàro routes.
    """
    if kernel is not None and kernel.spec != "cesaro":
        return _kernel_profile(length, schedule, path, dps, kernel)

    if path == "exact":
        schedule.exact()  # fail early for irrational schedules
        N, D = cesaro.cesaro_profile_numerators(length, schedule, progress=progress)
        return {"num": N, "den": D}
    if path == "precise":
        # the route checks dps (check_dps): a missing one is refused there
        return {"values": cesaro.cesaro_profile_precise(length, schedule, cast(int, dps),
                                                        progress=progress)}
    a, k = cesaro.cesaro_profile_blocks(length, schedule)
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        log = np.log(a) + k * math.log(2.0)
        values = np.ldexp(a, k)
    if not (np.isfinite(values).all() and (np.isfinite(log) | (a == 0)).all()):
        raise ArithmeticError("the fast rollout produced a non-finite value")
    return {"values": values, "log": log, "blocks": (a, k)}


def _row_width(kernel: Kernel, length: int) -> int:
    """How many tokens a row of ``kernel`` reads at most (the counts its rows divide by): a
    window's ``W``, a streaming mask's ``S + W``, every other kernel up to ``L``."""
    if isinstance(kernel, WindowKernel):
        return min(kernel.w, length)
    if isinstance(kernel, StreamingKernel):
        return min(kernel.S + kernel.W, length)
    return length


def _kernel_profile(length: int, schedule: Schedule, path: str, dps: int | None,
                    kernel: Kernel) -> dict:
    if path == "exact":
        fractions = rollout.kernel_profile_exact(length, kernel, schedule)
        D = lcm(*(x.denominator for x in fractions))
        return {"num": [x.numerator * (D // x.denominator) for x in fractions], "den": D,
                "fractions": fractions}
    if path == "precise":
        # the route checks dps (check_dps): a missing one is refused there
        return {"values": rollout.kernel_profile_precise(length, kernel, schedule, cast(int, dps))}
    if kernel.spec.startswith(_LOG_SAFE):  # mantissas and binary exponents: no underflow
        a, k = rollout.kernel_profile_blocks(length, kernel, schedule)
        with np.errstate(divide="ignore"):
            log = np.log(a) + k * math.log(2.0)
        return {"values": np.ldexp(a, k), "log": log, "blocks": (a, k)}
    values = rollout.kernel_profile(length, kernel, schedule)
    if not np.isfinite(values).all():
        raise ArithmeticError("the fast rollout produced a non-finite value")
    with np.errstate(divide="ignore"):
        log = np.log(values)
    return {"values": values, "log": log}


def _summary(data: dict, path: str, length: int, dps: int | None) -> dict:
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
        assert dps is not None  # the precise path ran with it (compute_profile)
        with mpmath.workdps(dps + 10):
            total = mpmath.fsum(v)
        return {"first": v[0], "last": v[-1], "argmin": i + 1, "min": v[i], "sum": total}
    v, log = data["values"], data["log"]
    i = int(np.argmin(log))  # log space: no ties created by underflow
    ln_min = _finite_log(log[i])
    return {"first": float(v[0]), "last": float(v[-1]), "argmin": i + 1, "min": float(v[i]),
            "sum": math.fsum(v.tolist()), "log_min": ln_min,
            "log10_min": None if ln_min is None else ln_min / math.log(10)}


#: the smallest normal float64: below it a float64 value has lost significant digits
_TINY = float(np.finfo(np.float64).tiny)


def _block_text(data: dict, index: int, digits: int) -> str | None:
    """``p(index)`` in decimal from the fast path's mantissa and binary exponent, when its
    float64 value is subnormal or 0 (digits lost or all gone); None otherwise.  At most
    ``digits`` (<= 17, what the float64 mantissa holds) significant digits."""
    blocks = data.get("blocks")
    if blocks is None:
        return None
    a, k = blocks
    value = float(data["values"][index])
    if (value != 0 and abs(value) >= _TINY) or a[index] == 0:
        return None
    with mpmath.workprec(64):
        exact = mpmath.ldexp(mpmath.mpf(float(a[index])), int(k[index]))
        return mp_text(exact, digits, min_fixed=-5, max_fixed=21)


def _finite_log(x: float) -> float | None:
    """A natural log as a float, or None for log 0 (an exact zero; JSON has no -Infinity)."""
    x = float(x)
    return x if math.isfinite(x) else None


def _pair(value: Fraction | tuple[int, int]) -> tuple[int, int]:
    """(numerator, denominator) of an exact value: a Fraction or an unreduced pair."""
    if isinstance(value, Fraction):
        return value.numerator, value.denominator
    return value


def _fraction_text(value: Fraction | tuple[int, int]) -> str:
    """An exact value (a Fraction or an unreduced pair) as reduced ``p/q``."""
    return fraction_text(value if isinstance(value, Fraction) else reduced_fraction(*value))


def _formatter(path: str, args: argparse.Namespace, dps: int | None) -> Callable[[Any], str]:
    """A function mapping one value (exact pair, mpf or float) to its table/csv text."""
    if path == "exact":
        if args.fractions:
            return _fraction_text
        digits = args.digits_value or 20
        return lambda value: round_significant(*_pair(value), digits)
    if path == "precise":
        assert dps is not None  # the precise path runs with --dps
        digits = min(args.digits_value or dps, dps)
        return lambda x: mp_text(x, digits, min_fixed=-5, max_fixed=21)
    digits = min(args.digits_value or 17, 17)
    return lambda x: float_text(x, digits)


def _header(path: str, args: argparse.Namespace, length: int, depth: int, spec: str,
            dps: int | None) -> str:
    if path == "exact":
        if args.fractions:
            shown = "exact fractions p/q"
        else:
            shown = (f"exact values shown as decimals correctly rounded to "
                     f"{args.digits_value or 20} significant digits (all shown digits correct)")
    elif path == "precise":
        assert dps is not None  # the precise path runs with --dps
        d = min(args.digits_value or dps, dps)
        shown = f"mpmath at dps={dps}, shown to {d} significant digits"
    else:
        d = min(args.digits_value or 17, 17)
        shown = (f"float64 with block exponents (no underflow inside), shown to {d} significant "
                 f"digits; in the profile, values below 2^-1074 print as 0 (the summary shows them from "
                 f"the block exponents; ln_min = natural log, log10_min = base-10 log)")
    kernel = getattr(args, "kernel_spec", "cesaro")
    what = "Cesàro rollout" if kernel == "cesaro" else f"{kernel} kernel rollout"
    if path == "fast" and kernel != "cesaro" and not kernel.startswith(_LOG_SAFE):
        shown = shown.replace("with block exponents (no underflow inside)", "(plain; values "
                              "below about 1e-308 underflow to 0)")
    return (f"# posbias profile: {what}, L={length}, T={depth}, schedule {spec}, "
            f"path {path}: {shown}")


def _json_value(path: str, value: Any, dps: int | None) -> str | float:
    if path == "exact":
        return _fraction_text(value)
    if path == "precise":
        assert dps is not None  # the precise path runs with --dps
        return mp_text(value, dps, min_fixed=-5, max_fixed=21)
    return float(value)


def run(args: argparse.Namespace) -> int:
    path = "exact" if args.exact else ("precise" if args.dps is not None else "fast")
    length = _int_arg(args.length, "--length", 1, MAX_LENGTH,
                      f"an integer between 1 and {MAX_LENGTH}")
    if length is None:  # a required option: argparse refuses a command line without it
        raise InvalidArgument("--length", "(missing)", f"an integer between 1 and {MAX_LENGTH}")
    depth = _int_arg(args.depth, "--depth", 0, 10**7, "an integer between 0 and 10000000")
    dps = args.dps
    args.digits_value = _int_arg(args.digits, "--digits", 1, 100_000,
                                 "an integer between 1 and 100000")
    if args.model is not None:
        return _run_model(args, path, length, dps)
    if args.fractions and path != "exact":
        raise InvalidArgument("--fractions", "set", "only together with --exact")
    if args.alpha is None and args.schedule is None:
        raise InvalidArgument("--alpha", "(missing)", "--alpha A or --schedule SPEC (or --model "
                              "SPEC for the kinetic profile)")
    schedule = _schedule(args, depth)

    args.kernel = args.kernel or "cesaro"
    try:
        kernel = parse_kernel(args.kernel)
    except InvalidArgument as exc:
        raise InvalidArgument("--kernel", args.kernel, exc.allowed) from None
    if isinstance(kernel, PrefixKernel) and length < kernel.K:
        raise InvalidArgument("--kernel", args.kernel, f"prefix:K with K <= --length ({length})")
    if path == "exact" and isinstance(kernel, DecayKernel) and kernel.m != 0:
        raise InvalidArgument("--kernel", args.kernel, "a kernel with exact entries on the exact "
                              "path (decay/alibi with M > 0 are irrational: use --dps N or the "
                              "fast path)")
    if path == "exact":
        exact = schedule.exact()
        den_bits = max((v.denominator.bit_length() for v in exact), default=0)
    else:
        den_bits = 0
    if path == "fast":
        _check_fast_inputs(schedule, "--alpha" if args.alpha is not None else "--schedule",
                           args.alpha if args.alpha is not None else args.schedule)
    check_target(args.output, args.format)
    if args.plot:
        _check_plot_target(args.plot)
    needed = profile_bytes(path, length, schedule.depth, den_bits, dps, not args.summary)
    out_bytes, out_seconds = profile_output_cost(path, length, schedule.depth, den_bits, dps,
                                             args.format == "json" or bool(args.fractions),
                                             bool(args.summary))
    needed += out_bytes
    advice = "use --summary, a smaller --length or --depth" + (
        ", or the fast path (no --exact)" if path == "exact" else
        ", a smaller --dps or the fast path" if path == "precise" else "")
    check_memory(needed, args.max_memory, advice)
    seconds = profile_seconds(path, length, schedule.depth, den_bits, dps) + out_seconds
    if path == "exact" and kernel.spec != "cesaro":  # reduced Fractions, not scaled integers
        seconds += kernel_exact_seconds(length, schedule.depth, _row_width(kernel, length), den_bits)
    if (seconds > 5 or (path != "fast" and length >= 2048)) and not args.quiet:
        print(f"posbias: computing the {path} profile (L={length}, T={schedule.depth}): about "
              f"{duration(seconds)} and {byte_size(needed)} of memory ...", file=sys.stderr)

    # a bar with an ETA, one step per layer, for the slow Cesàro routes (silent off a terminal)
    slow = path != "fast" and kernel.spec == "cesaro" and seconds > 5
    with progress(schedule.depth, "layers", quiet=args.quiet or not slow) as bar:
        data = compute_profile(length, schedule, path, dps, kernel, progress=bar.update)
    summary = _summary(data, path, length, dps)
    if path == "exact":
        if not args.summary and (args.format == "json" or args.fractions) and "fractions" in data:
            values = data["fractions"]
        elif not args.summary and (args.format == "json" or args.fractions):
            values = reduce_scaled_profile(length, schedule, data["num"], data["den"])
        else:
            values = [(n, data["den"]) for n in data["num"]]
    else:
        values = list(data["values"])

    args.kernel_spec = kernel.spec
    meta = {"depth": schedule.depth,
            "schedule": {"spec": schedule.spec,
                         "values": schedule.value_strings(dps if path == "precise" else None)},
            "path": path, "kernel": kernel.spec}
    header = _header(path, args, length, schedule.depth, schedule.spec, dps)
    text = _render(args, path, length, dps, values, summary, data, header=header, meta=meta)
    if args.plot:
        _plot(args.plot, path, values,
              f"Cesàro rollout, L={length}, T={schedule.depth}, {schedule.spec}")
    write_output(text, args.output, fmt=args.format)
    return 0


def _run_model(args: argparse.Namespace, path: str, length: int, dps: int | None) -> int:
    """``--model kinetic:...``: the kinetic retrieval profile ``S_t(j/L)`` (duerinckx2026) on the
    precise or the fast path (:mod:`posbias.numerics.kinetic`)."""
    for flag, value in (("--depth", args.depth), ("--alpha", args.alpha),
                        ("--schedule", args.schedule), ("--kernel", args.kernel)):
        if value is not None:
            raise InvalidArgument(flag, value, "no value together with --model (the kinetic "
                                  "profile has no layers)")
    if args.fractions:
        raise InvalidArgument("--fractions", "set", "only together with --exact, not with --model")
    try:
        model = kinetic.parse_kinetic(args.model)
    except InvalidArgument as exc:
        raise InvalidArgument("--model", args.model, exc.allowed) from None
    if path == "exact":
        raise InvalidArgument("--exact", "set", "--dps N or the fast path with --model (the "
                              "kinetic profile's values are transcendental: e^lambda, I_1)")
    check_target(args.output, args.format)
    if args.plot:
        _check_plot_target(args.plot)
    modes = sum(1 if h.c is not None else h.modes for h in model.heads)
    out_bytes, out_seconds = profile_output_cost(path, length, 1, 0, dps, args.format == "json",
                                             bool(args.summary))
    check_memory(estimate_bytes(path, length, 1, 0, dps, not args.summary) + out_bytes,
                 args.max_memory, "use --summary, a smaller --length" + (
                     ", a smaller --dps or the fast path" if path == "precise" else ""))
    per_value = (60e-6 + (dps or 15) * 1e-7) * modes if path == "precise" else 2e-8 * modes
    seconds = length * per_value + out_seconds
    if seconds > 5 and not args.quiet:
        print(f"posbias: computing the {path} kinetic profile (L={length}): about "
              f"{duration(seconds)} ...", file=sys.stderr)
    if path == "precise":
        data: dict = {"values": kinetic.kinetic_profile_precise(length, model, cast(int, dps))}
    else:
        log = kinetic.kinetic_log_profile(length, model)
        if not np.isfinite(log).all() or log.max() > 709.0:
            raise InvalidArgument("--model", args.model, "parameters whose profile fits float64 "
                                  "(ln S_t <= 709 everywhere): use --dps N for larger values")
        data = {"values": np.exp(log), "log": log}
    summary = _summary(data, path, length, dps)
    values = list(data["values"])
    meta = {"model": model.spec, "paper": "duerinckx2026", "path": path}
    if path == "precise":
        shown = f"mpmath at dps={dps}, shown to {min(args.digits_value or cast(int, dps), cast(int, dps))} significant digits"
    else:
        shown = (f"float64 from the log profile (log-safe), shown to "
                 f"{min(args.digits_value or 17, 17)} significant digits")
    header = (f"# posbias profile: kinetic retrieval profile S_t(j/L) of {model.spec} "
              f"(duerinckx2026; a correlation, not normalized), L={length}, path {path}: {shown}")
    text = _render(args, path, length, dps, values, summary, data, header=header, meta=meta,
                   column="S")
    if args.plot:
        _plot(args.plot, path, values, f"kinetic profile {model.spec}, L={length}")
    write_output(text, args.output, fmt=args.format)
    return 0


def _render(args: argparse.Namespace, path: str, length: int, dps: int | None,
            values: Sequence[Any], summary: dict, data: dict, *, header: str, meta: dict,
            column: str = "p") -> str:
    if args.format == "json":
        doc = {"length": length, **meta}
        if path == "precise":
            doc["dps"] = dps
        if not args.summary:
            doc["profile"] = [_json_value(path, v, dps) for v in values]
            if path == "fast":  # natural logs; null where p(j) is exactly 0
                doc["log_profile"] = [_finite_log(x) for x in data["log"]]
        doc["summary"] = {
            key: (val if key in ("argmin", "log_min", "log10_min") else _json_value(path, val, dps))
            for key, val in summary.items()
        }
        return json.dumps(doc, indent=1, allow_nan=False) + "\n"
    fmt = _formatter(path, args, dps)
    sep = "," if args.format == "csv" else "  "
    # csv is data only (a header row, no comment line); the text table starts with its header
    lines = [] if args.format == "csv" else [header]
    if args.summary:
        lines.append(f"quantity{sep}value")
        for key, val in summary.items():
            index = {"first": 0, "last": length - 1, "min": summary["argmin"] - 1}.get(key)
            block = None if index is None else _block_text(data, index, min(args.digits_value or 17, 17))
            if key == "argmin":
                shown = str(val)
            elif key in ("log_min", "log10_min"):
                shown = "-inf (exact 0)" if val is None else repr(float(val))
            else:
                shown = block or fmt(val)
            name = "ln_min" if key == "log_min" else key  # a natural log, named so
            lines.append(f"{name}{sep}{shown}")
    else:
        lines.append(f"position{sep}{column}")
        lines.extend(f"{j}{sep}{fmt(v)}" for j, v in enumerate(values, start=1))
    return "\n".join(lines) + "\n"


def _check_plot_target(target: str) -> None:
    """Fail before any work when the plot cannot be written (suffix, directory, permissions)."""
    plots.check_plot_path(target, "--plot")


def _plot(target: str, path: str, values: Sequence[Any], title: str) -> None:
    if path == "exact":
        # int / int is correctly rounded in Python, for integers of any size
        arr = np.array([int(n) / int(d) for n, d in map(_pair, values)], dtype=np.float64)
    else:
        arr = np.array([float(v) for v in values], dtype=np.float64)
    plots.plot_profile(arr, target, parameter="--plot", title=title)
