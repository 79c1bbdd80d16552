"""``posbias sweep SPEC``: a parameter grid of ``profile``, ``rollout`` or ``measure`` as one tidy
table (CSV; Parquet beside it when pyarrow is installed) and a heatmap.

::

    posbias sweep SPEC [-o TABLE.csv] [-f csv|json] [--plot MAP.png] [-n N|auto] [--scheduler ADDRESS]
    posbias sweep --example [NAME]       # print a shipped example spec (peak-valley-map)

SPEC is a YAML grid file (see :mod:`posbias.proofs_checks.sweeps`), or ``example:NAME`` for
one of the example specs shipped with the package (:data:`EXAMPLES`).  The points run in this
process, in ``-n`` worker processes, or on a Dask cluster (``--scheduler tcp://host:8786``;
``--scheduler local`` starts a LocalCluster of ``-n`` workers).  Every point is validated before
any is computed, and the table and the plot are written atomically once all points are done:
a bad spec stops with one line and exit status 2, leaving nothing half-written.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, cast

from posbias.errors import InvalidArgument
from posbias.files import check_writable, write_output

if TYPE_CHECKING:
    from posbias.proofs_checks.sweeps import Sweep
    from posbias.resources import Plan

__all__ = ["EXAMPLES", "add_parser", "example_spec", "run"]

#: the example sweep specs shipped with the package (``posbias/examples/NAME.yaml``)
EXAMPLES = ("peak-valley-map",)


def example_spec(name: str) -> str:
    """The text of the shipped example sweep spec ``name`` (one of :data:`EXAMPLES`).

    >>> "heatmap:" in example_spec("peak-valley-map")
    True
    """
    if name not in EXAMPLES:
        raise InvalidArgument("--example", name, "one of " + ", ".join(EXAMPLES))
    return resources.files("posbias").joinpath("examples").joinpath(f"{name}.yaml").read_text(
        encoding="utf-8")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "sweep",
        help="parameter grid of profile / rollout / measure into one table and a heatmap",
        description=(
            "Compute every point of a YAML parameter grid (command: profile | rollout | measure) "
            "and write one tidy table, one row per point (CSV; Parquet beside it when pyarrow is "
            "installed), and optionally a heatmap over two grid parameters. Points run in "
            "worker processes (-n) or on a Dask cluster (--scheduler; the 'scale' extra)."),
    )
    p.add_argument("spec", metavar="SPEC", nargs="?",
                   help="YAML sweep file, or example:NAME for a shipped example ("
                        + ", ".join(EXAMPLES) + ")")
    p.add_argument("--example", metavar="NAME", nargs="?", const=EXAMPLES[0], default=None,
                   help="print the shipped example spec NAME (default: %(const)s) and exit; "
                        "save it, edit it, run it")
    p.add_argument("-f", "--format", type=_format, default="csv", metavar="FORMAT",
                   help="the table as csv or json")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the table to FILE (.csv or .json by --format; FILE.parquet too for "
                        "csv when pyarrow is present); default: standard output")
    p.add_argument("--plot", metavar="FILE", help="draw the heatmap of the spec to FILE (.png or .pdf)")
    p.add_argument("-n", "--workers", metavar="N|auto", help="worker processes (default 1: in process)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler address (tcp://host:8786), or 'local' for a LocalCluster")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)
    return p


def _format(text: str) -> str:
    import argparse

    text = str(text).strip().lower()
    if text not in ("csv", "json"):
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected one of csv, json")
    return text


def _cell(v: object) -> str:
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
    return str(v)


def _csv(columns: Sequence[str], rows: Sequence[dict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_cell(r[c]) for c in columns])
    return buf.getvalue()


def _json_value(v: object) -> object:
    if isinstance(v, float) and not math.isfinite(v):
        return _cell(v)  # JSON has no NaN or infinity: the CSV spelling, as a string
    return v


def _json(command: str | None, columns: Sequence[str], rows: Sequence[dict]) -> str:
    table = [{c: _json_value(r[c]) for c in columns} for r in rows]
    return json.dumps({"command": command, "columns": list(columns), "rows": table}, indent=1,
                      ensure_ascii=False) + "\n"


def _spec_path(spec: str | None) -> str:
    """SPEC as a file path: ``example:NAME`` is the shipped example's file."""
    if spec is None:
        raise InvalidArgument("SPEC", "(missing)", "a YAML sweep file, or example:NAME "
                              "(posbias sweep --example prints one)")
    if isinstance(spec, str) and spec.startswith("example:"):
        name = spec[len("example:"):]
        if name not in EXAMPLES:
            raise InvalidArgument("SPEC", spec, "a YAML sweep file, or example:NAME with NAME one of "
                                  + ", ".join(EXAMPLES))
        example = resources.files("posbias").joinpath("examples").joinpath(f"{name}.yaml")
        # the files of an installed package are a pathlib.Path (Traversable is not PathLike)
        return os.fspath(cast("os.PathLike[str]", example))
    return spec


def _parquet(columns: Sequence[str], rows: Sequence[dict], path: str) -> bool:

    """Write the table as Parquet (atomically) when pyarrow is importable; False otherwise."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    table = pa.table({c: [r[c] for r in rows] for c in columns})
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, "." + os.path.basename(path) + ".tmp-posbias")
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return True


def _batches(points: list, workers: int) -> list:
    """About four batches per worker (one when in process): cheap points share a task."""
    n = max(1, min(len(points), 4 * workers if workers > 1 else 1))
    size = -(-len(points) // n)
    return [points[i:i + size] for i in range(0, len(points), size)]


def _point_cost(command: str, point: dict, cache: dict) -> tuple[float, float]:
    """``(bytes, seconds)`` of one grid point, from the estimates of the subcommand it runs."""
    if command == "profile":
        from posbias.cli.profile import estimate_bytes, estimate_seconds

        depth = point.get("depth") or 1
        return (estimate_bytes("fast", point["length"], depth, 0, None, False),
                estimate_seconds("fast", point["length"], depth, 0, None) + 1e-3)
    if command == "rollout":
        from posbias.cli.rollout import estimate_bytes as rollout_bytes
        from posbias.numerics.configs import load_config
        from posbias.proofs_checks.data import builtin_config_path, is_builtin_config

        name = point["config"]
        if name not in cache:
            path = name if os.path.exists(name) or not is_builtin_config(name) else builtin_config_path(name)
            cfg = load_config(path)  # validates the config before any point is computed
            cache[name] = (cfg.length, cfg.num_layers, cfg.num_heads)
        L0, layers, heads = cache[name]
        L = point.get("length") or L0
        return rollout_bytes(L, heads, 1), layers * heads * L * 2 * 2e-9 + 1e-3
    from posbias.measurements.measure import DEFAULT_LENGTH
    from posbias.measurements.planning import plan_step0
    from posbias.measurements.presets import PRESETS, resolve_settings

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


def plan_sweep(sweep: Sweep, workers: int) -> Plan:
    """The plan of a sweep: the largest point's memory in each of ``workers`` processes at once,
    the table (one row per point), and the points' time divided among the workers."""
    from posbias.resources import Plan

    cache: dict = {}
    costs = [_point_cost(sweep.command, p, cache) for p in sweep.points]
    peak = max((b for b, _ in costs), default=0.0)
    seconds = sum(s for _, s in costs) / max(1, workers)
    rows = len(sweep.points) * (len(sweep.columns) * 24 + 200)
    return Plan(f"the sweep of {len(sweep.points)} {sweep.command} point(s)",
                [(f"largest point x {workers} worker(s)", peak * workers, seconds),
                 ("table", rows * 3, len(sweep.points) * 2e-5)],
                "use a smaller grid, smaller lengths or fewer workers")


def run(args: argparse.Namespace) -> int:
    from posbias.proofs_checks import parallel, sweeps

    if args.example is not None:
        write_output(example_spec(args.example), args.output)
        return 0
    sweep = sweeps.load_sweep(_spec_path(args.spec))
    try:
        workers = parallel.resolve_workers(args.workers)
    except InvalidArgument:
        raise InvalidArgument("-n", args.workers, "an integer >= 1 or 'auto'") from None
    if args.output and args.output != "-":
        if not args.output.lower().endswith("." + args.format):
            raise InvalidArgument("--output", args.output, f"a file name ending in .{args.format} "
                                  f"(--format {args.format})")
        check_writable(args.output)
    if args.plot:
        from posbias.render.plots import check_plot_path

        check_plot_path(args.plot, "--plot")
        if sweep.heatmap is None:
            raise InvalidArgument("--plot", args.plot, "a spec with a heatmap section (x, y, values)")
    plan = plan_sweep(sweep, workers if args.scheduler is None else 1)
    if getattr(args, "verbose", False):
        print(plan.describe(), file=sys.stderr, flush=True)
    plan.check(getattr(args, "max_memory", None))
    batches = _batches(sweep.points, workers if args.scheduler is None else max(workers, 2))
    quiet = args.quiet
    start = time.perf_counter()
    done = [0]

    def progress(i: int, rows: list) -> None:
        done[0] += len(rows)
        if not quiet:
            print(f"[sweep] {done[0]}/{len(sweep.points)} points ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr, flush=True)

    try:
        results = parallel.map_tasks(sweeps.sweep_batch, [(sweep.command, b) for b in batches],
                                     workers=workers, scheduler=args.scheduler, progress=progress)
    except InvalidArgument as exc:
        if exc.parameter == "scheduler":
            raise InvalidArgument("--scheduler", exc.value, exc.allowed) from None
        raise
    rows = []
    for batch, out in zip(batches, results):
        for point, values in zip(batch, out):
            rows.append(dict(point, **values))
    columns = sweep.columns
    text = _csv(columns, rows) if args.format == "csv" else _json(sweep.command, columns, rows)
    if args.plot:
        from posbias.render.heatmap import plot_heatmap

        h = sweep.heatmap
        assert h is not None  # a spec without a heatmap section is refused with --plot above
        fixed = ", ".join(f"{k} = {v}" for k, v in sweep.fixed.items())
        title = h["title"] or f"posbias sweep: {sweep.command}" + (f", {fixed}" if fixed else "")
        plot_heatmap(rows, h["x"], h["y"], h["values"], args.plot, parameter="--plot", title=title)
    if args.output and args.output != "-":
        write_output(text, args.output)
        parquet = os.path.splitext(args.output)[0] + ".parquet"
        if args.format == "csv" and _parquet(columns, rows, parquet) and not quiet:
            print(f"[sweep] wrote {args.output} and {parquet}", file=sys.stderr)
    else:
        write_output(text, None)
    return 0
