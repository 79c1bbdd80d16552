"""Pictures of influence profiles, with the primacy tail, the valley and the recency spike
marked (matplotlib, the ``plot`` extra, imported lazily; Agg backend, no display).  The one
place where posbias draws: ``profile --plot``, ``rollout --plot`` and ``measure --plot`` all
come here, and every picture is written by the one atomic writer (:mod:`posbias.files`).

The three features marked are those the theory talks about (:ref:`C4, C5, C7, H3 <math-c4>`): the
*primacy tail* (the mass on the first positions), the *valley* (the interior minimum, the
argmin of the profile) and the *recency spike* (the last position, the atom ``(1-alpha)^H`` of
chowdhury2026 C5 in the Cesaro model).  The profile is drawn on a linear axis when its range
(max/min) is at most :data:`LINEAR_RANGE`, so that its shape (the U) is visible, and on a log
axis otherwise.  An attention-only profile, which collapses onto the first token by many orders
of magnitude, gets its own log-scale panel.  A continuum density ``rho(x)`` on ``(0, 1]`` can be
overlaid in the units of the discrete profile (``rho(j/L)/L``, :ref:`X2 <math-x2>`).
"""

from __future__ import annotations

import io
import os

import numpy as np

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.files import check_target, write_output

__all__ = ["plot_profile", "plot_curves", "check_plot_path", "PLOT_SUFFIXES", "LINEAR_RANGE"]

PLOT_SUFFIXES = (".png", ".pdf")
#: largest max/min ratio drawn on a linear axis
LINEAR_RANGE = 1e3

_BLUE, _GREEN, _RED, _GREY, _ORANGE = "#1f4e9c", "#2a8c3c", "#c0392b", "#8a8a8a", "#d98c1f"


def _plot_format(path, parameter) -> str:
    p = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(p, str) or os.path.splitext(p)[1].lower() not in PLOT_SUFFIXES:
        raise InvalidArgument(parameter, p, "a file name ending in .png or .pdf")
    return os.path.splitext(p)[1].lower()[1:]


def check_plot_path(path, parameter: str = "--plot") -> str:
    """Validate a plot file name before any work: suffix ``.png`` or ``.pdf`` and a target the
    one atomic writer accepts (a regular file or a new one, in a writable directory).

    >>> check_plot_path("profile.svg")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: --plot = profile.svg is invalid: expected a file name ending in .png or .pdf
    """
    fmt = _plot_format(path, parameter)
    check_target(os.fspath(path), fmt, parameter)
    return os.fspath(path)


def _positive_floats(name, values):
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size < 1 or not np.isfinite(arr).all() or (arr < 0).any():
        raise InvalidArgument(name, f"an array of shape {arr.shape}", "a vector of finite numbers >= 0")
    return arr


def _figure(ncols: int, width: float):
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise NeedsExtra("plot", "matplotlib") from None
    fig = Figure(figsize=(width, 4.4), dpi=130)
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, axes


def _save(fig, path, parameter, fmt) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt)
    write_output(buf.getvalue(), os.fspath(path), parameter, fmt=fmt)
    return os.fspath(path)


def _overlap(a, b, pad=2.0) -> bool:
    return not (a.x1 + pad < b.x0 or b.x1 + pad < a.x0 or a.y1 + pad < b.y0 or b.y1 + pad < a.y0)


def _place_apart(fig, ax, label, others, candidates) -> None:
    """Move annotation ``label`` through the offsets ``candidates`` (points) to the first where
    its box overlaps none of ``others`` and stays inside the axes (else to the least bad one)."""
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    boxes = [o.get_window_extent(renderer) for o in others]
    best, best_cost = None, None
    for offset in candidates:
        label.set_position(offset)
        box = label.get_window_extent(renderer)
        outside = (max(0, frame.x0 - box.x0) + max(0, box.x1 - frame.x1)
                   + max(0, frame.y0 - box.y0) + max(0, box.y1 - frame.y1))
        overlap = sum(max(0, min(box.x1, o.x1) - max(box.x0, o.x0) + 2)
                      * max(0, min(box.y1, o.y1) - max(box.y0, o.y0) + 2) for o in boxes)
        cost = outside * 1000 + overlap
        if cost == 0:
            return
        if best_cost is None or cost < best_cost:
            best, best_cost = offset, cost
    label.set_position(best)


def _mark_features(fig, ax, x, prof, log_axis: bool) -> None:
    """Primacy tail (shaded), valley (triangle) and recency spike (circle), labels apart."""
    L = prof.size
    pos = prof > 0
    if not pos.any():
        return
    k = int(np.argmin(np.where(pos, prof, np.inf)))
    # primacy tail: the first positions, up to where the profile first drops below the
    # (geometric, on a log axis; arithmetic, on a linear one) mean of p(1) and the valley
    head_end = 1
    if prof[0] > prof[k] and k > 0:
        level = np.sqrt(prof[0] * prof[k]) if log_axis else (prof[0] + prof[k]) / 2
        below = np.nonzero(prof[: k + 1] <= level)[0]
        head_end = int(below[0]) + 1 if below.size else k + 1
    ax.axvspan(0.5, head_end + 0.5, color=_BLUE, alpha=0.08, lw=0)
    box = dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85)
    labels = []
    if head_end > 1 or k == 0 or prof[0] > prof[min(1, L - 1)]:
        labels.append(ax.annotate(f"primacy tail\np(1) = {prof[0]:.3g}", xy=(1, prof[0]),
                                  xytext=(8, -4), textcoords="offset points", ha="left", va="top",
                                  fontsize=9, color=_BLUE, bbox=box))
    spike = None
    if prof[-1] > 0 and k != L - 1:
        ax.plot([L], [prof[-1]], marker="o", color=_RED, ms=7, zorder=4)
        spike = ax.annotate(f"recency spike\np(L) = {prof[-1]:.3g}", xy=(L, prof[-1]), xytext=(-12, 6),
                            textcoords="offset points", ha="right", va="bottom", fontsize=9,
                            color=_RED, bbox=box)
        labels.append(spike)
    ax.plot([k + 1], [prof[k]], marker="v", color=_GREEN, ms=8, zorder=4)
    valley = ax.annotate(f"valley: argmin j = {k + 1}\np = {prof[k]:.3g}", xy=(k + 1, prof[k]),
                         xytext=(0, 16), textcoords="offset points", ha="center", va="bottom",
                         fontsize=9, color=_GREEN, bbox=box,
                         arrowprops=dict(arrowstyle="-", color=_GREEN, lw=0.8))
    fig.canvas.draw()
    # near the valley first, then further up and to the left or right (points)
    candidates = [(dx, dy) for dy in (16, 40, 70, 100, 140, 190) for dx in
                  (0, -50, 50, -100, 100, -150, 150, -200, -260)] + [(0, -40), (-100, -40)]
    _place_apart(fig, ax, valley, labels, candidates)


def plot_profile(profile, path, *, title=None, continuum=None, attention_only=None, parameter="path"):
    """Draw an influence profile and write it to ``path`` (PNG or PDF by suffix).

    Parameters
    ----------
    profile: the profile ``p(1..L)`` (numbers >= 0; float64 is enough for a picture).
    path: output file, ``.png`` or ``.pdf`` (anything else: :class:`InvalidArgument`).
    title: optional title.
    continuum: optional continuum density, a callable ``x -> rho(x)`` on ``(0, 1]`` or an array
        of ``L`` values of ``rho(j/L)``; drawn as ``rho(j/L)/L`` (:ref:`X2 <math-x2>`).
    attention_only: optional attention-only (``lambda = 1``) profile of the same length, drawn
        with the profile in a second, log-scale panel.

    The profile's axis is linear when ``max/min <= LINEAR_RANGE`` (its shape is visible), else
    logarithmic; zeros (float64 underflow) are left out of a log axis.  Returns ``path``.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> out = plot_profile([0.5, 0.1, 0.05, 0.35], os.path.join(d, "p.png"), title="demo")
    >>> os.path.getsize(out) > 1000
    True

    Method: matplotlib with the Agg backend.
    """
    fmt = _plot_format(path, parameter)
    prof = _positive_floats("profile", profile)
    L = prof.size
    att = None if attention_only is None else _positive_floats("attention_only", attention_only)
    if att is not None and att.size != L:
        raise InvalidArgument("attention_only", f"a profile of length {att.size}", f"length {L}")
    rho = None
    if continuum is not None:
        if callable(continuum):
            rho = np.array([float(continuum(j / L)) for j in range(1, L + 1)])
        else:
            rho = _positive_floats("continuum", continuum)
            if rho.size != L:
                raise InvalidArgument("continuum", f"an array of length {rho.size}", f"length {L}")

    fig, axes = _figure(2 if att is not None else 1, 11.0 if att is not None else 7.0)
    ax = axes[0]
    x = np.arange(1, L + 1)
    pos = prof > 0
    positive = prof[pos]
    log_axis = bool(positive.size) and (positive.size < L or positive.max() / positive.min() > LINEAR_RANGE)
    shown = pos if log_axis else np.ones(L, dtype=bool)
    ax.plot(x[shown], prof[shown], color=_BLUE, lw=1.6, label="influence profile p(j)", zorder=3)
    if rho is not None:
        dens = rho / L
        ok = np.isfinite(dens) & (dens > 0)
        if not log_axis:  # keep the profile's scale: a density blowing up at 0 is clipped
            ok &= dens <= 1.5 * prof.max()
        ax.plot(x[ok], dens[ok], color=_ORANGE, lw=1.2, ls=":", label="continuum ρ(j/L)/L", zorder=2)
    if log_axis:
        ax.set_yscale("log")
        lo, hi = float(positive.min()), float(positive.max())
        decades = max(1.0, np.log10(hi / lo))
        ax.set_ylim(lo / 10 ** (0.08 * decades), hi * 10 ** (0.12 * decades))
    else:
        top = float(prof.max())
        ax.set_ylim(0, top * 1.3 if top > 0 else 1.0)
    ax.set_xlim(0.5, L + 0.5)
    ax.set_xlabel("position j")
    ax.set_ylabel("influence p(j) on the last token" + (" (log scale)" if log_axis else ""))
    ax.grid(True, which="major", alpha=0.25)
    ax.set_title("residual-aware profile" if att is not None else (title or ""), fontsize=10)
    ax.legend(loc="upper center", fontsize=8, frameon=False)
    _mark_features(fig, ax, x, prof, log_axis)

    if att is not None:
        ax2 = axes[1]
        apos = att > 0
        ax2.plot(x[apos], att[apos], color=_GREY, lw=1.4, ls="--", label="attention only (λ ≡ 1)")
        ax2.plot(x[pos], prof[pos], color=_BLUE, lw=1.2, label="residual-aware p(j)")
        ax2.set_yscale("log")
        ax2.set_xlim(0.5, L + 0.5)
        ax2.set_xlabel("position j")
        ax2.set_ylabel("influence (log scale)")
        ax2.grid(True, which="major", alpha=0.25)
        ax2.set_title("attention only collapses onto the first token", fontsize=10)
        ax2.legend(loc="upper right", fontsize=8, frameon=False)
        if title:
            fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return _save(fig, path, parameter, fmt)


def plot_curves(curves, path, *, title=None, xlabel="position j",
                ylabel="influence on the final position", log=True, parameter="path"):
    """Draw several named curves over positions ``1..L`` (``curves``: a list of
    ``(label, values, style)`` with ``style`` a matplotlib line style) and write the picture to
    ``path`` (``.png`` or ``.pdf``).  Non-positive values are left out of a log axis."""
    fmt = _plot_format(path, parameter)
    fig, (ax,) = _figure(1, 7.0)
    for label, values, style in curves:
        y = _positive_floats(label, values)
        xs = np.arange(1, y.size + 1)
        keep = y > 0 if log else np.ones(y.size, dtype=bool)
        ax.plot(xs[keep], y[keep], style, label=label, lw=1.4)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=11)
    ax.grid(True, which="major", alpha=0.25)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, path, parameter, fmt)
