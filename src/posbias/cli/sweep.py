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
from typing import cast

from posbias.errors import InvalidArgument
from posbias.files import check_writable, write_output
from posbias.numbers import float_text
from posbias.proofs_checks import parallel
from posbias.render.heatmap import plot_heatmap
from posbias.render.plots import check_plot_path

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
        help="parameter grid of profile / rollout / measure / kinetic into one table and a heatmap",
        description=(
            "Compute every point of a YAML parameter grid (command: profile | rollout | measure | "
            "kinetic) "
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
    text = str(text).strip().lower()
    if text not in ("csv", "json"):
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected one of csv, json")
    return text


#: first characters by which a spreadsheet takes a cell for a formula
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(v: object) -> str:
    """A table cell: a float as the shortest text that reads back as it (nan, inf, -inf); a
    text (a config name, a schedule) that a spreadsheet would run as a formula gets a leading
    apostrophe, the spreadsheets' mark of a literal text."""
    if isinstance(v, float):
        return float_text(v)
    if isinstance(v, str) and v.startswith(_FORMULA_START):
        return "'" + v
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
        import pyarrow as pa  # optional: Parquet beside the CSV
        import pyarrow.parquet as pq  # optional: Parquet beside the CSV
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


def run(args: argparse.Namespace) -> int:
    # the sweeps' measure points load the theory comparison (scipy): imported when a sweep runs,
    # not at the start-up of every command
    from posbias.proofs_checks import sweeps

    if args.example is not None:
        write_output(example_spec(args.example), args.output)
        return 0
    sweep = sweeps.load_sweep(_spec_path(args.spec))
    try:
        workers = parallel.resolve_workers(args.workers)
    except InvalidArgument:
        raise InvalidArgument("-n", args.workers, "an integer >= 1 or 'auto'") from None
    if args.scheduler is not None:  # refused before any point runs
        parallel.scheduler_address(args.scheduler)
    if args.output and args.output != "-":
        if not args.output.lower().endswith("." + args.format):
            raise InvalidArgument("--output", args.output, f"a file name ending in .{args.format} "
                                  f"(--format {args.format})")
        check_writable(args.output)
    if args.plot:
        check_plot_path(args.plot, "--plot")
        if sweep.heatmap is None:
            raise InvalidArgument("--plot", args.plot, "a spec with a heatmap section (x, y, values)")
    if getattr(args, "verbose", False):
        plan = sweeps.plan_sweep(sweep, workers if args.scheduler is None else 1)
        print(plan.describe(), file=sys.stderr, flush=True)
    quiet = args.quiet
    start = time.perf_counter()

    def progress(done: int, points: int) -> None:
        if not quiet:
            print(f"[sweep] {done}/{points} points ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr, flush=True)

    rows = sweeps.run_sweep(sweep, workers=workers, scheduler=args.scheduler,
                            max_memory=getattr(args, "max_memory", None), progress=progress)
    columns = sweep.columns
    text = _csv(columns, rows) if args.format == "csv" else _json(sweep.command, columns, rows)
    if args.plot:
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
