"""Parameter sweeps: a small YAML grid over ``profile``, ``rollout`` or ``measure`` parameters,
computed point by point (in worker processes or on Dask, see :mod:`.parallel`) into one tidy
table: one row per grid point, the parameters then the computed quantities.

A sweep specification (read with ``ruamel.yaml`` in safe mode: nothing in it is evaluated)::

    command: profile              # profile | rollout | measure | kinetic
    grid:                         # every combination of these values
      alpha: {start: 0.05, stop: 1, num: 20}   # or a list: [0.1, 0.2, "1/2"]
      depth: [1, 2, 4, 8, 16, 32]
    fixed:                        # the same for every point (optional)
      length: 512
    heatmap: {x: alpha, y: depth, values: [first_over_min, last_over_min]}   # optional

``{start, stop, num}`` are ``num`` evenly spaced values (``log: true`` for a geometric grid;
``step`` instead of ``num`` for an integer range).  Numbers may be written ``p/q``.

Quantities per command (``log10_*`` are computed from the log profile, so they stay finite where
float64 ratios would overflow):

- ``profile`` (the rollout on the fast path; parameters ``length``, ``depth`` and ``alpha``
  or ``schedule``, and ``kernel``, a spec of :func:`~posbias.numerics.rollout.parse_kernel`,
  Cesàro by default; ``sink:A``, ``streaming:S,W`` and ``cesaro`` run log-safe):
  ``first``, ``last``, ``min``, ``argmin``, ``first_over_min``,
  ``last_over_min``, ``log10_min``, ``log10_first_over_min``, ``log10_last_over_min``;
- ``rollout`` (a real model's rollout config; ``config``, ``length``, ``convention``): the
  rollout summary (``first`` .. ``last_over_min``, ``sum_lambda``, ``sum_lambda_delta``) and
  ``w1_attention_only``;
- ``kinetic`` (the kinetic retrieval profile of duerinckx2026 on the fast path,
  :mod:`posbias.numerics.kinetic`; parameters ``length``, ``lambda`` and either ``c`` (one mode)
  or ``beta`` and ``t`` (the paper's mode sum, with ``M`` and ``modes``)): ``first``, ``last``,
  ``min``, ``argmin``, ``valley_position`` (``argmin/L``), ``first_over_min``,
  ``last_over_min``, ``right_slope`` (``dS_t/ds`` at ``s = 1``: positive = recency at the end)
  and ``t_crit`` (the time at which it changes sign; nan when it never does);
- ``measure`` (a randomly initialized architecture, the ``models`` extra; ``arch``, ``length``,
  ``seed``, ``layers``, ``hidden``, ``heads``, ``probes``, ``samples``, ``metric``, ``dtype``,
  ``rope``): the measured ``first_over_min``, ``last_over_min``, ``argmin``, the best constant
  ``best_alpha`` and the Spearman / W1 agreement with the Cesàro rollouts.

Every point is validated before any is computed: a bad value stops the sweep with one line
naming it (``grid.alpha[3] = 1.5 is invalid: ...``).
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.measurements import measure as ms
from posbias.measurements.hooks import require_models_extra
from posbias.measurements.measure import DEFAULT_LENGTH
from posbias.measurements.planning import plan_step0
from posbias.measurements.presets import PRESETS, resolve_settings
from posbias.numbers import stand_in
from posbias.numerics.configs import CONVENTIONS, load_config, rollout_summary
from posbias.numerics.costs import alibi_rollout_bytes, profile_bytes, profile_seconds
from posbias.numerics.kinetic import KineticHead, KineticModel, kinetic_log_profile, kinetic_t_crit
from posbias.numerics.kinetic import kinetic_right_slope_precise as slope
from posbias.numerics.rollout import PrefixKernel, kernel_profile_blocks, parse_kernel
from posbias.numerics.schedules import Schedule, parse_number, parse_schedule
from posbias.proofs_checks import measured as mc
from posbias.proofs_checks.data import builtin_config_path, is_builtin_config
from posbias.proofs_checks.parallel import map_tasks, resolve_workers
from posbias.resources import Plan
from posbias.validation import read_text_bounded

__all__ = ["COMMANDS", "METRICS", "Sweep", "load_sweep", "parse_sweep", "plan_sweep", "point_cost",
           "run_sweep", "sweep_batch", "sweep_point"]

#: parameters each command accepts (name -> kind)
COMMANDS = {
    "profile": {"length": "int", "depth": "int", "alpha": "unit", "schedule": "text",
                "kernel": "text"},
    "rollout": {"config": "text", "length": "int", "convention": "text"},
    "measure": {"arch": "text", "length": "int", "seed": "int", "layers": "int", "hidden": "int",
                "heads": "int", "probes": "int", "samples": "int", "metric": "text",
                "dtype": "text", "rope": "text"},
    "kinetic": {"length": "int", "lambda": "real", "c": "real", "beta": "real", "t": "real",
                "M": "real", "modes": "int"},
}
#: quantities each command computes (the table's value columns)
METRICS = {
    "profile": ("first", "last", "min", "argmin", "first_over_min", "last_over_min", "log10_min",
                "log10_first_over_min", "log10_last_over_min"),
    "rollout": ("first", "last", "argmin", "min", "first_over_min", "last_over_min", "sum_lambda",
                "sum_lambda_delta", "w1_attention_only"),
    "measure": ("first_over_min", "last_over_min", "argmin", "best_alpha", "spearman_measured_lambda",
                "w1_measured_lambda", "spearman_best_alpha", "w1_best_alpha"),
    "kinetic": ("first", "last", "min", "argmin", "valley_position", "first_over_min",
                "last_over_min", "right_slope", "t_crit"),
}
_REQUIRED = {"profile": ("length",), "rollout": ("config",), "measure": ("arch",),
             "kinetic": ("length", "lambda")}
#: most grid points one sweep may hold
MAX_POINTS = 1_000_000
_KEYS = ("command", "grid", "fixed", "heatmap")


class Sweep:
    """A validated sweep: ``command``, the grid ``axes`` (name -> list of values), the ``fixed``
    parameters, the heatmap settings (or None) and the ``points`` (dicts of parameters)."""

    def __init__(self, command: str, axes: dict[str, list], fixed: dict[str, Any],
                 heatmap: dict | None) -> None:
        self.command = command
        self.axes = axes
        self.fixed = fixed
        self.heatmap = heatmap
        names = list(axes)
        self.points = [dict(fixed, **dict(zip(names, combo)))
                       for combo in itertools.product(*(axes[n] for n in names))]

    @property
    def columns(self) -> list:
        params = list(self.axes) + [k for k in self.fixed if k not in self.axes]
        return params + list(METRICS[self.command])



def _value(command, name, x, where):
    """One parameter value, validated and converted (``where`` names it in errors)."""
    kind = COMMANDS[command][name]
    if kind == "int":
        if isinstance(x, bool) or not isinstance(x, numbers.Integral) or not 0 <= int(x) <= 10**8:
            raise InvalidArgument(where, stand_in(x), "an integer between 0 and 100000000")
        if name != "depth" and name != "seed" and x < 1:
            raise InvalidArgument(where, x, "an integer >= 1")
        return int(x)
    if kind == "unit":
        if isinstance(x, str):
            f = parse_number(x, where)
        elif isinstance(x, bool) or not isinstance(x, (numbers.Integral, float)):
            raise InvalidArgument(where, stand_in(x), "a number in [0, 1] (decimal or p/q)")
        else:
            if not math.isfinite(float(x)):
                raise InvalidArgument(where, x, "a number in [0, 1] (decimal or p/q)")
            f = Fraction(x)
        if not 0 <= f <= 1:
            raise InvalidArgument(where, stand_in(x), "a number in [0, 1]")
        if f != 0 and float(f) < sys.float_info.min:  # never silently 0 or a subnormal
            why = ("this one underflows to 0" if float(f) == 0 else "0 or at least 2.2e-308; "
                   "the table would hold inf")
            raise InvalidArgument(where, stand_in(x), "a number in [0, 1] that a float64 can carry "
                                  f"({why})")
        return float(f)
    if kind == "real":
        if isinstance(x, str):
            f = parse_number(x, where)
        elif isinstance(x, bool) or not isinstance(x, (numbers.Integral, float)) \
                or not math.isfinite(float(x)):
            raise InvalidArgument(where, stand_in(x), "a number >= 0 (decimal or p/q)")
        else:
            f = Fraction(repr(x)) if isinstance(x, float) else Fraction(x)
        if f < 0 or (f != 0 and f < sys.float_info.min) or f > sys.float_info.max:
            raise InvalidArgument(where, stand_in(x), "a number >= 0 that a float64 can carry")
        return float(f)
    if not isinstance(x, str) or not x or len(x) > 4096:
        raise InvalidArgument(where, stand_in(x), "a non-empty text")
    if any(ord(c) < 32 or ord(c) == 127 for c in x):  # a carriage return would split a row
        raise InvalidArgument(where, stand_in(x), "a text without control characters")
    return x


def _decimal(x: int | float | str | Fraction) -> Fraction:
    """The number the user wrote: a float by its shortest decimal repr, text as p/q or decimal."""
    if isinstance(x, str):
        return parse_number(x, "grid")
    if isinstance(x, float):
        return Fraction(repr(x))
    return Fraction(x)


def _axis(command, name, spec):
    """The list of values of one grid axis: a list, or ``{start, stop, num[, log]}`` /
    ``{start, stop, step}``."""
    where = f"grid.{name}"
    if isinstance(spec, list):
        if not spec:
            raise InvalidArgument(where, "[]", "a non-empty list or {start, stop, num}")
        return [_value(command, name, x, f"{where}[{i}]") for i, x in enumerate(spec)]
    if isinstance(spec, dict):
        allowed = ("start", "stop", "num", "step", "log")
        for k in spec:
            if k not in allowed:
                raise InvalidArgument(f"{where}.{k}", stand_in(spec[k]), "a known key (" + ", ".join(allowed) + ")")
        for k in ("start", "stop"):
            if k not in spec:
                raise InvalidArgument(f"{where}.{k}", "<missing>", "a number (the key is required)")
        if ("num" in spec) == ("step" in spec):
            raise InvalidArgument(where, stand_in(spec), "exactly one of num and step")
        kind = COMMANDS[command][name]
        if kind == "text":
            raise InvalidArgument(where, stand_in(spec), "a list (a range needs a numeric parameter)")
        if kind == "int":
            for k in ("start", "stop"):
                v = spec[k]
                if isinstance(v, bool) or not isinstance(v, (numbers.Integral, float)) or not math.isfinite(v):
                    raise InvalidArgument(f"{where}.{k}", stand_in(v), "a number")
            start, stop = spec["start"], spec["stop"]
        else:
            start = _value(command, name, spec["start"], f"{where}.start")
            stop = _value(command, name, spec["stop"], f"{where}.stop")
        if "step" in spec:
            step = spec["step"]
            for k, v in (("start", start), ("stop", stop), ("step", step)):
                if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                    raise InvalidArgument(f"{where}.{k}", stand_in(v), "an integer (a step range is over integers)")
            if step < 1 or stop < start or (stop - start) // step + 1 > MAX_POINTS:
                raise InvalidArgument(where, stand_in(spec), f"start <= stop, step >= 1, at most {MAX_POINTS} values")
            values: list = list(range(int(start), int(stop) + 1, int(step)))
        else:
            num = spec["num"]
            if isinstance(num, bool) or not isinstance(num, numbers.Integral) or not 1 <= int(num) <= MAX_POINTS:
                raise InvalidArgument(f"{where}.num", stand_in(num), f"an integer between 1 and {MAX_POINTS}")
            log = spec.get("log", False)
            if not isinstance(log, bool):
                raise InvalidArgument(f"{where}.log", stand_in(log), "true or false")
            lo, hi = float(start), float(stop)
            if log and not (lo > 0 and hi > 0):
                raise InvalidArgument(where, stand_in(spec), "start and stop > 0 for a geometric grid")
            if log:
                grid = [float(v) for v in np.geomspace(lo, hi, int(num))]
            else:  # in exact decimals, rounded once: 0.05 .. 1 in 20 steps gives 0.15, not 0.15000000000000002
                a, b = _decimal(spec["start"]), _decimal(spec["stop"])
                k = int(num) - 1
                grid = [float(a + (b - a) * i / k) if k else float(a) for i in range(int(num))]
            values = sorted({round(v) for v in grid}) if kind == "int" else grid
        return [_value(command, name, x, f"{where}[{i}]") for i, x in enumerate(values)]
    return [_value(command, name, spec, where)]  # a single value is a one-point axis


def parse_sweep(data: Any, source: str = "<spec>") -> Sweep:
    """Validate a sweep specification (a mapping, e.g. from YAML) into a :class:`Sweep`.

    >>> s = parse_sweep({"command": "profile", "grid": {"alpha": [0.5, 1], "depth": [1, 2]},
    ...                  "fixed": {"length": 8}})
    >>> len(s.points), s.points[0]
    (4, {'length': 8, 'alpha': 0.5, 'depth': 1})
    >>> parse_sweep({"command": "profile", "grid": {"alpha": [2]}, "fixed": {"length": 8}})
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: grid.alpha[0] = 2 is invalid: expected a number in [0, 1]
    """
    if not isinstance(data, dict):
        raise InvalidArgument("spec", source, "a YAML mapping with the keys command and grid")
    for k in data:
        if k not in _KEYS:
            raise InvalidArgument(str(stand_in(k))[:80], stand_in(data[k]), "a known key (" + ", ".join(_KEYS) + ")")
    command = data.get("command")
    if command not in COMMANDS:
        raise InvalidArgument("command", stand_in(command) if command is not None else "<missing>",
                              "one of " + ", ".join(COMMANDS))
    grid = data.get("grid")
    if not isinstance(grid, dict) or not grid:
        raise InvalidArgument("grid", stand_in(grid) if grid is not None else "<missing>",
                              "a mapping of parameter names to lists of values")
    fixed_in = data.get("fixed") or {}
    if not isinstance(fixed_in, dict):
        raise InvalidArgument("fixed", stand_in(fixed_in), "a mapping of parameter names to values")
    known = COMMANDS[command]
    for section, mapping in (("grid", grid), ("fixed", fixed_in)):
        for name in mapping:
            if name not in known:
                raise InvalidArgument(f"{section}.{name}", stand_in(mapping[name]),
                                      f"a parameter of {command} (" + ", ".join(known) + ")")
    both = set(grid) & set(fixed_in)
    if both:
        name = sorted(both)[0]
        raise InvalidArgument(f"fixed.{name}", stand_in(fixed_in[name]), "a parameter not also in grid")
    axes = {name: _axis(command, name, spec) for name, spec in grid.items()}
    fixed = {name: _value(command, name, v, f"fixed.{name}") for name, v in fixed_in.items()}
    total = 1
    for vals in axes.values():
        total *= len(vals)
    if total > MAX_POINTS:
        raise InvalidArgument("grid", f"{total} points", f"at most {MAX_POINTS} points")
    present = set(axes) | set(fixed)
    for name in _REQUIRED[command]:
        if name not in present:
            raise InvalidArgument(f"fixed.{name}", "<missing>", f"a value (required by {command})")
    if command == "profile":
        if ("alpha" in present) == ("schedule" in present):
            raise InvalidArgument("grid", "alpha/schedule", "exactly one of alpha and schedule")
        if "alpha" in present and "depth" not in present:
            raise InvalidArgument("fixed.depth", "<missing>", "a value (required with alpha)")
    if command == "kinetic" and not ({"c"} == present & {"c", "beta", "t"}
                                     or {"beta", "t"} == present & {"c", "beta", "t"}):
        raise InvalidArgument("grid", "c/beta/t", "either c (one mode) or beta and t (the mode "
                              "sum), not both")
    heatmap = data.get("heatmap")
    if heatmap is not None:
        heatmap = _heatmap(command, heatmap, axes)
    sweep = Sweep(command, axes, fixed, heatmap)
    for point in sweep.points:  # cheap checks of every point before anything is computed
        _check_point(command, point)
    return sweep


def _heatmap(command, spec, axes):
    if not isinstance(spec, dict):
        raise InvalidArgument("heatmap", stand_in(spec), "a mapping with x, y and values")
    for k in spec:
        if k not in ("x", "y", "values", "title"):
            raise InvalidArgument(f"heatmap.{k}", stand_in(spec[k]), "a known key (x, y, values, title)")
    title = spec.get("title")
    if title is not None and (not isinstance(title, str) or len(title) > 200):
        raise InvalidArgument("heatmap.title", stand_in(title), "a text of at most 200 characters")
    x, y = spec.get("x"), spec.get("y")
    for key, name in (("x", x), ("y", y)):
        if name not in axes:
            raise InvalidArgument(f"heatmap.{key}", stand_in(name) if name is not None else "<missing>",
                                  "a grid parameter (" + ", ".join(axes) + ")")
    if x == y:
        raise InvalidArgument("heatmap.y", y, "a grid parameter other than heatmap.x")
    others = [n for n, v in axes.items() if n not in (x, y) and len(v) > 1]
    if others:
        raise InvalidArgument(f"grid.{others[0]}", f"{len(axes[others[0]])} values",
                              "a single value when the heatmap is drawn over x and y only")
    values = spec.get("values", [METRICS[command][0]])
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, list) or not values or len(values) > 4:
        raise InvalidArgument("heatmap.values", stand_in(values), "1 to 4 quantity names")
    for v in values:
        if v not in METRICS[command]:
            raise InvalidArgument("heatmap.values", stand_in(v), "quantities of " + command + " ("
                                  + ", ".join(METRICS[command]) + ")")
    return {"x": x, "y": y, "values": list(values), "title": title}


def _check_point(command, point):
    if command == "kinetic":
        _kinetic_model(point)
    if command == "profile" and "schedule" in point:
        parse_schedule(point["schedule"], point.get("depth"), parameter="schedule")
    if command == "profile" and "kernel" in point:
        kernel = parse_kernel(point["kernel"])
        if isinstance(kernel, PrefixKernel) and point["length"] < kernel.K:
            raise InvalidArgument("kernel", point["kernel"], f"prefix:K with K <= length "
                                  f"({point['length']})")
    if command == "rollout" and point.get("convention", "reference") not in CONVENTIONS:
        raise InvalidArgument("convention", point["convention"], "one of " + ", ".join(CONVENTIONS))
    if command == "measure":
        choices = {"metric": ("jacobian", "top1-grad"), "dtype": ("float32", "float64"), "rope": ("on", "off")}
        for k, allowed in choices.items():
            if k in point and point[k] not in allowed:
                raise InvalidArgument(k, point[k], "one of " + ", ".join(allowed))


def _float_constructor(path):
    """A YAML float constructor that refuses a decimal whose float64 under- or overflows
    (``1e-400`` would silently become 0, ``1e400`` infinity); ``.inf`` and ``.nan`` written as
    such are kept (the parameter checks refuse them with the parameter's name)."""

    def construct(constructor, node):
        value = constructor.construct_yaml_float(node)
        text = str(node.value).strip().lower().replace("_", "")
        spelled_special = text.lstrip("+-") in (".inf", ".nan")
        if not spelled_special:
            digits = text.lstrip("+-").split("e")[0].replace(".", "").strip("0")
            if (value == 0 and digits) or value in (float("inf"), float("-inf")):
                mark = node.start_mark
                raise InvalidArgument("SPEC", path, f"numbers a float64 can carry: {node.value} "
                                      f"(line {mark.line + 1}) would become {value}; write it "
                                      "as text (quoted) for an exact value")
        return value

    return construct


def load_sweep(path: str) -> Sweep:
    """Read and validate a sweep file (YAML, safe mode; the ``yaml`` extra)."""
    if not isinstance(path, str) or not os.path.isfile(path):
        raise InvalidArgument("SPEC", path, "a readable YAML sweep file")
    try:
        from ruamel.yaml import YAML  # the yaml extra
        from ruamel.yaml.error import YAMLError  # the yaml extra
    except ImportError:  # pragma: no cover - depends on the environment
        raise NeedsExtra("yaml", "ruamel.yaml") from None
    text = read_text_bounded(path, 1 << 20, "SPEC")
    yaml = YAML(typ="safe", pure=True)
    yaml.constructor.add_constructor("tag:yaml.org,2002:float", _float_constructor(path))
    try:
        data = yaml.load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise InvalidArgument("SPEC", path, f"a YAML sweep file; {getattr(exc, 'problem', None) or type(exc).__name__}{line}") from None
    except InvalidArgument:  # a number the float constructor refused, named as it said
        raise
    except RecursionError:  # block-style nesting (indentation) deeper than the parser's stack
        raise InvalidArgument("SPEC", path, "a YAML sweep file nested less deeply") from None
    except ValueError:  # an integer beyond Python's digit limit for str -> int conversion
        raise InvalidArgument("SPEC", path, f"a YAML sweep file; an integer of more than "
                                            f"{sys.get_int_max_str_digits()} digits") from None
    return parse_sweep(data, path)


# ----------------------------------------------------------------------------- computing
def _profile_point(p):
    L = p["length"]
    if "schedule" in p:
        schedule: Schedule | list = parse_schedule(p["schedule"], p.get("depth"), parameter="schedule")
    else:
        schedule = [p["alpha"]] * p["depth"]
    # p(j) = a_j 2^e_j: no underflow for cesaro, sink:A and streaming:S,W
    a, e = kernel_profile_blocks(L, p.get("kernel", "cesaro"), schedule)
    with np.errstate(divide="ignore"):
        lp = np.log(a) + e * math.log(2.0)
    k = int(np.argmin(lp))

    def value(i):
        return math.ldexp(float(a[i]), int(e[i]))

    def ratio(i):
        return (float(a[i] / a[k]), int(e[i] - e[k]))

    def plain(i):
        if a[k] == 0:  # an exact zero in the profile (outside a mask's support)
            return math.inf
        m, x = ratio(i)
        try:
            return math.ldexp(m, x)
        except OverflowError:  # beyond float64: the log10_ column keeps it
            return math.inf

    def log10(i):
        if a[k] == 0:
            return math.inf
        m, x = ratio(i)
        return (math.log(m) + x * math.log(2.0)) / math.log(10.0)

    return {
        "first": value(0), "last": value(L - 1), "min": value(k), "argmin": k + 1,
        "first_over_min": plain(0), "last_over_min": plain(L - 1),
        "log10_min": float(lp[k] / math.log(10.0)),
        "log10_first_over_min": log10(0), "log10_last_over_min": log10(L - 1),
    }


def _rollout_point(p):
    config = p["config"]
    if not os.path.exists(config):
        if not is_builtin_config(config):
            raise InvalidArgument("config", config, "a YAML file or a shipped config name")
        config = builtin_config_path(config)
    cfg = load_config(config, convention=p.get("convention", "reference"), length=p.get("length"))
    prof = cfg.profile()
    att = cfg.attention_only().profile()
    out = rollout_summary(prof, cfg.lambdas, cfg.deltas())
    d = np.cumsum(prof[:-1]) - np.cumsum(att[:-1])
    out["w1_attention_only"] = float(np.sum(np.abs(d)) / (prof.size - 1)) if prof.size > 1 else 0.0
    return out


def _measure_point(p):
    kwargs = {k: v for k, v in p.items() if k not in ("arch", "rope")}
    require_models_extra()
    m = ms.measure_influence(p["arch"], rope=p.get("rope", "on") == "on", **kwargs)
    c = mc.compare_with_theory(m)
    return {
        "first_over_min": c.measured["first_over_min"], "last_over_min": c.measured["last_over_min"],
        "argmin": c.measured["argmin"], "best_alpha": c.best_alpha,
        "spearman_measured_lambda": c.spearman_measured_lambda, "w1_measured_lambda": c.w1_measured_lambda,
        "spearman_best_alpha": c.spearman_best_alpha, "w1_best_alpha": c.w1_best_alpha,
    }


def _kinetic_model(p):
    """The one-head kinetic model of a grid point (numbers as the decimals the user wrote)."""
    def q(name, default=None):
        return _decimal(p[name]) if name in p else default

    try:
        if "c" in p:
            return KineticModel([KineticHead(q("lambda"), c=q("c"))])
        head = KineticHead(q("lambda"), beta=q("beta"), M=q("M", 8), modes=p.get("modes", 20))
        return KineticModel([head], t=q("t"))
    except InvalidArgument as exc:
        raise InvalidArgument(exc.parameter, exc.value, exc.allowed + f" (grid point {p})") from None


def _kinetic_point(p):
    model = _kinetic_model(p)
    L = p["length"]
    lp = kinetic_log_profile(L, model)
    k = int(np.argmin(lp))
    t_crit = kinetic_t_crit(model)

    def ratio(i):
        d = float(lp[i] - lp[k])
        return math.exp(d) if d < 709 else math.inf

    return {
        "first": math.exp(lp[0]) if lp[0] < 709 else math.inf,
        "last": math.exp(lp[-1]) if lp[-1] < 709 else math.inf,
        "min": math.exp(lp[k]) if lp[k] < 709 else math.inf, "argmin": k + 1,
        "valley_position": (k + 1) / L, "first_over_min": ratio(0), "last_over_min": ratio(L - 1),
        "right_slope": float(slope(model, 20)), "t_crit": math.nan if t_crit is None else t_crit,
    }


_POINT = {"profile": _profile_point, "rollout": _rollout_point, "measure": _measure_point,
          "kinetic": _kinetic_point}


def sweep_point(command: str, params: dict) -> dict:
    """The quantities of one grid point (a dict keyed by :data:`METRICS` ``[command]``).

    >>> r = sweep_point("profile", {"length": 3, "depth": 2, "alpha": 1.0})
    >>> r["argmin"], round(r["first_over_min"], 12)   # p = (11, 5, 2)/18
    (3, 5.5)
    """
    return _POINT[command](params)


def sweep_batch(task: tuple) -> list:
    """``(command, [params, ...]) -> [row, ...]``: a batch of points for one worker task (a
    sweep of cheap points is cut into a few batches per worker, not one task per point)."""
    command, points = task
    return [sweep_point(command, p) for p in points]


def _batches(points: list, workers: int) -> list:
    """About four batches per worker (one when in process): cheap points share a task."""
    n = max(1, min(len(points), 4 * workers if workers > 1 else 1))
    size = -(-len(points) // n)
    return [points[i:i + size] for i in range(0, len(points), size)]


def point_cost(command: str, point: dict, cache: dict) -> tuple[float, float]:
    """``(bytes, seconds)`` of one grid point, from the estimates of the subcommand it runs."""
    if command == "profile":
        depth = point.get("depth") or 1
        return (profile_bytes("fast", point["length"], depth, 0, None, False),
                profile_seconds("fast", point["length"], depth, 0, None) + 1e-3)
    if command == "kinetic":  # one pass over the positions per mode (20 modes by default)
        modes = 1 if "c" in point else point.get("modes", 20)
        return (profile_bytes("fast", point["length"], 1, 0, None, False),
                point["length"] * modes * 2e-8 + 1e-3)
    if command == "rollout":
        name = point["config"]
        if name not in cache:
            path = name if os.path.exists(name) or not is_builtin_config(name) else builtin_config_path(name)
            cfg = load_config(path)  # validates the config before any point is computed
            cache[name] = (cfg.length, cfg.num_layers, cfg.num_heads)
        L0, layers, heads = cache[name]
        L = point.get("length") or L0
        return alibi_rollout_bytes(L, heads, 1), layers * heads * L * 2 * 2e-9 + 1e-3
    arch = point["arch"]
    if arch not in PRESETS:
        return 0.0, 0.0  # sized by the measurement itself once transformers is loaded
    settings = resolve_settings(PRESETS[arch], layers=point.get("layers"), hidden=point.get("hidden"),
                                heads=point.get("heads"), length=point.get("length"))
    # a point without a length runs at measure_influence's default length: planned at that one
    plan = plan_step0(settings, length=point.get("length") or DEFAULT_LENGTH,
                      dtype=point.get("dtype") or "float32",
                      metric=point.get("metric") or "jacobian", probes=point.get("probes") or 8,
                      samples=point.get("samples") or 1)
    return plan.bytes, plan.seconds or 0.0


def plan_sweep(sweep: Sweep, workers: int = 1) -> Plan:
    """The plan of a sweep: the largest point's memory in each of ``workers`` processes at once,
    the table (one row per point), and the points' time divided among the workers.  Each point
    is sized by the estimates of its command (:mod:`posbias.numerics.costs` for profile and
    rollout points, :func:`posbias.measurements.planning.plan_step0` for a preset's measure
    point; a measure point of another model type is sized by the measurement itself)."""
    cache: dict = {}
    costs = [point_cost(sweep.command, p, cache) for p in sweep.points]
    peak = max((b for b, _ in costs), default=0.0)
    seconds = sum(s for _, s in costs) / max(1, workers)
    rows = len(sweep.points) * (len(sweep.columns) * 24 + 200)
    return Plan(f"the sweep of {len(sweep.points)} {sweep.command} point(s)",
                [(f"largest point x {workers} worker(s)", peak * workers, seconds),
                 ("table", rows * 3, len(sweep.points) * 2e-5)],
                "use a smaller grid, smaller lengths or fewer workers")


def run_sweep(sweep: Sweep, *, workers: int | str | None = 1, scheduler: str | None = None,
              max_memory: int | None = None,
              progress: Callable[[int, int], object] | None = None) -> list[dict]:
    """The table of ``sweep``: one row per grid point, its parameters then its quantities, in
    the order of the points.  Planned first (:func:`plan_sweep`; a sweep whose plan does not fit
    in ``max_memory`` bytes, or the machine, is refused with one line before any point runs),
    then computed in ``workers`` processes (``"auto"``: one per usable core) or on the Dask
    ``scheduler`` (:func:`posbias.proofs_checks.parallel.map_tasks`), the points cut into a few
    batches per worker.  ``progress(points done, points)`` is called as each batch finishes."""
    n = resolve_workers(workers)
    plan_sweep(sweep, n if scheduler is None else 1).check(max_memory)
    batches = _batches(sweep.points, n if scheduler is None else max(n, 2))
    done = [0]

    def finished(i: int, rows: list) -> None:
        done[0] += len(rows)
        if progress is not None:
            progress(done[0], len(sweep.points))

    results = map_tasks(sweep_batch, [(sweep.command, b) for b in batches], workers=n,
                        scheduler=scheduler, progress=finished)
    return [dict(point, **values) for batch, out in zip(batches, results)
            for point, values in zip(batch, out)]
