"""Heatmaps of sweep tables: one panel per quantity over two grid parameters (matplotlib, the
``plot`` extra, Agg backend), on a log10 colour scale for ratios, with the contour where a ratio
equals 10^2 (the peak-to-valley ratio of chowdhury2026 C7) when the values cross it.
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.files import write_output
from posbias.numbers import figure_text

__all__ = ["plot_heatmap", "readable"]

#: decades of colour on a log scale; larger values saturate (the colour bar says so)
_DECADES = 8.0


def plot_heatmap(rows: Sequence[dict], x: str, y: str, values: Sequence[str],
                 path: str | os.PathLike[str], *, title: str | None = None,
                 log_values: bool | None = None, parameter: str = "--plot") -> str:
    """Draw ``values`` (quantity names) of a tidy table over the grid ``x`` by ``y``.

    ``rows``: dicts holding ``x``, ``y`` and each quantity (one row per grid point); the grid
    values become evenly spaced cells labelled with their values (so irregular grids such as
    depths 1, 2, 4, ... 64 read naturally).  Quantities named ``log10_*`` are drawn as they are;
    others are drawn as ``log10`` of the value when ``log_values`` is true (default: when every
    finite value is positive and they span more than a decade).  Returns ``path``.

    >>> import tempfile
    >>> rows = [{"a": a, "h": h, "r": 10.0 ** (a * h)} for a in (0.5, 1.0) for h in (1, 2, 4)]
    >>> out = plot_heatmap(rows, "a", "h", ["r"], os.path.join(tempfile.mkdtemp(), "m.png"))
    >>> os.path.getsize(out) > 1000
    True
    """
    p = os.fspath(path)
    suffix = os.path.splitext(p)[1].lower()
    if suffix not in (".png", ".pdf"):
        raise InvalidArgument(parameter, p, "a file name ending in .png or .pdf")
    try:
        import matplotlib  # the plot extra

        matplotlib.use("Agg", force=False)
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # the plot extra
        from matplotlib.figure import Figure  # the plot extra
    except ImportError:
        raise NeedsExtra("plot", "matplotlib") from None
    xs = sorted({r[x] for r in rows})
    ys = sorted({r[y] for r in rows})
    xi = {v: i for i, v in enumerate(xs)}
    yi = {v: i for i, v in enumerate(ys)}
    fig = Figure(figsize=(5.2 * len(values), 4.4), dpi=130)
    FigureCanvasAgg(fig)
    for n, name in enumerate(values):
        Z = np.full((len(ys), len(xs)), np.nan)
        for r in rows:
            Z[yi[r[y]], xi[r[x]]] = float(r[name])
        finite = Z[np.isfinite(Z)]
        as_log = name.startswith("log10_")
        use_log = log_values if log_values is not None else (
            not as_log and finite.size > 0 and (finite > 0).all() and finite.max() > 10 * finite.min())
        with np.errstate(divide="ignore", invalid="ignore"):
            shown = np.log10(np.where(Z > 0, Z, np.nan)) if use_log else Z
        ax = fig.add_subplot(1, len(values), n + 1)
        vmin = vmax = None
        extend = "neither"
        if (use_log or as_log) and np.isfinite(shown).any():
            # at most _DECADES decades of colour: the interesting range is near 10^2, and a
            # corner of 10^160 would otherwise flatten everything else into one colour
            vmin, vmax = float(np.nanmin(shown)), float(np.nanmax(shown))
            if vmax > vmin + _DECADES:
                vmax, extend = vmin + _DECADES, "max"
        mesh = ax.pcolormesh(np.arange(len(xs) + 1) - 0.5, np.arange(len(ys) + 1) - 0.5,
                             np.ma.masked_invalid(shown), cmap="viridis", shading="flat",
                             vmin=vmin, vmax=vmax)
        cb = fig.colorbar(mesh, ax=ax, extend=extend)
        cb.set_label(readable(("log10_" + name) if use_log else name))
        if (use_log or as_log) and np.isfinite(shown).any():
            lo, hi = np.nanmin(shown), np.nanmax(shown)
            numeric = all(isinstance(v, (int, float)) for v in xs + ys)  # no contour across names
            if lo < 2 < hi and len(xs) > 1 and len(ys) > 1 and numeric:
                cs = ax.contour(np.arange(len(xs)), np.arange(len(ys)), shown, levels=[2.0],
                                colors="white", linewidths=1.4)
                ax.clabel(cs, fmt={2.0: "10²"}, fontsize=8)
        _label_axes(ax, xs, ys, x, y, name)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    # through the one atomic writer: a unique temporary file per run (concurrent runs cannot
    # corrupt the picture), links followed, special files refused, umask permissions
    buf = io.BytesIO()
    fig.savefig(buf, format=suffix[1:])
    write_output(buf.getvalue(), p, parameter, fmt=suffix[1:])
    return p


def _label_axes(ax: Any, xs: list, ys: list, x: str, y: str, name: str) -> None:
    """Tick labels with the grid's values (at most about ten per axis), the axes' names and
    the quantity's title."""
    step_x = max(1, math.ceil(len(xs) / 10))
    step_y = max(1, math.ceil(len(ys) / 12))
    ax.set_xticks(range(0, len(xs), step_x))
    ax.set_xticklabels([figure_text(v, 3) for v in xs[::step_x]], rotation=45 if len(xs) > 6 else 0)
    ax.set_yticks(range(0, len(ys), step_y))
    ax.set_yticklabels([figure_text(v, 3) for v in ys[::step_y]])
    ax.set_xlabel(readable(x))
    ax.set_ylabel(readable(y))
    ax.set_title(readable(name), fontsize=10)


def readable(name: str) -> str:
    """A column name as a picture shows it: ``first_over_min`` as ``first / min``,
    ``log10_last_over_min`` as ``log10 last / min``, other underscores as spaces.

    >>> readable("log10_first_over_min")
    'log10 first / min'
    """
    return name.replace("_over_", " / ").replace("_", " ")
