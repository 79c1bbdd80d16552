"""Pictures of influence profiles, with the primacy tail, the valley and the recency spike
marked where the data show them (matplotlib, the ``plot`` extra, imported lazily; Agg backend,
no display).  The one place where posbias draws: ``profile --plot``, ``rollout --plot`` and
``measure --plot`` all come here, and every picture is written by the one atomic writer
(:mod:`posbias.files`).

The three features are those the theory talks about (:ref:`C4, C5, C7, H3 <math-c4>`): the *primacy
tail* (the mass on the first positions), the *valley* (an interior minimum) and the *recency
spike* (the last position, the atom ``(1-alpha)^H`` of chowdhury2026 C5 in the Cesàro model).
A picture names a feature only when the profile it draws has it, by a stated threshold
(:func:`features`): a primacy tail when ``p(1)/min > PEAK_FACTOR``, a recency spike when
``p(L)/min > PEAK_FACTOR``, a valley when the argmin is interior and both ends exceed it by that
factor; otherwise the marker says only the measured figure (``p(1) = ...``, ``argmin j = ...``).
The optional attention-only panel is titled "collapses onto the first token" only when that
profile puts more than :data:`COLLAPSE_SHARE` of its mass on token 1, else it states the share.
The profile is drawn on a linear axis when its range (max/min) is at most :data:`LINEAR_RANGE`,
so that its shape is visible, and on a log axis otherwise.  A continuum density ``rho(x)`` on
``(0, 1]`` can be overlaid in the units of the discrete profile (``rho(j/L)/L``, :ref:`X2 <math-x2>`).
"""
from __future__ import annotations

import io
import os
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.files import check_target, write_output

__all__ = [
    "COLLAPSE_SHARE",
    "LINEAR_RANGE",
    "PEAK_FACTOR",
    "PLOT_SUFFIXES",
    "Features",
    "attention_only_title",
    "check_plot_path",
    "features",
    "plot_curves",
    "plot_profile",
]

PLOT_SUFFIXES = (".png", ".pdf")
#: largest max/min ratio drawn on a linear axis
LINEAR_RANGE = 1e3
#: a peak (primacy tail, recency spike, the sides of a valley) is named only when it exceeds the
#: profile's minimum by more than this factor
PEAK_FACTOR = 2.0
#: the attention-only panel says "collapses onto the first token" only when token 1 carries
#: more than this share of the attention-only profile's mass
COLLAPSE_SHARE = 0.5

_BLUE, _GREEN, _RED, _GREY, _ORANGE = "#1f4e9c", "#2a8c3c", "#c0392b", "#8a8a8a", "#d98c1f"


def _plot_format(path: str | os.PathLike[str], parameter: str) -> str:
    p = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(p, str) or os.path.splitext(p)[1].lower() not in PLOT_SUFFIXES:
        raise InvalidArgument(parameter, p, "a file name ending in .png or .pdf")
    return os.path.splitext(p)[1].lower()[1:]


def check_plot_path(path: str | os.PathLike[str], parameter: str = "--plot") -> str:
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


def _figure(ncols: int, width: float) -> tuple[Any, list[Any]]:
    try:
        import matplotlib  # the plot extra

        matplotlib.use("Agg", force=False)
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # the plot extra
        from matplotlib.figure import Figure  # the plot extra
    except ImportError:
        raise NeedsExtra("plot", "matplotlib") from None
    fig = Figure(figsize=(width, 4.4), dpi=130)
    FigureCanvasAgg(fig)
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, axes


def _save(fig: Any, path: str | os.PathLike[str], parameter: str, fmt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt)
    write_output(buf.getvalue(), os.fspath(path), parameter, fmt=fmt)
    return os.fspath(path)


def _overlap(a: Any, b: Any, pad: float = 2.0) -> bool:
    return not (a.x1 + pad < b.x0 or b.x1 + pad < a.x0 or a.y1 + pad < b.y0 or b.y1 + pad < a.y0)


def _place_apart(fig: Any, ax: Any, label: Any, others: Sequence[Any],
                 candidates: Sequence[Any]) -> None:
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


class Features(NamedTuple):
    """What :func:`features` measures on a profile (positions 1-based; ratios to the minimum
    over the positive entries, ``inf`` where that minimum is 0 in float64)."""

    argmin: int
    minimum: float
    first_over_min: float
    last_over_min: float
    primacy_tail: bool
    recency_spike: bool
    valley: bool


def features(profile: npt.ArrayLike, factor: float = PEAK_FACTOR) -> Features | None:
    """The features a picture may name, each decided from the profile by the stated ``factor``:
    a *primacy tail* when ``p(1)/min > factor``, a *recency spike* when the argmin is not ``L``
    and ``p(L)/min > factor``, a *valley* when the argmin ``k`` is interior (``1 < k < L``) and
    both ends exceed the minimum by more than ``factor``.  The minimum is taken over the
    positive entries (zeros are float64 underflow, left out of a log axis as well).  ``None``
    when no entry is positive.

    >>> f = features([0.5, 0.1, 0.05, 0.35])
    >>> f.argmin, f.primacy_tail, f.valley, f.recency_spike
    (3, True, True, True)
    >>> features([0.2510, 0.2500, 0.2490, 0.2500]).primacy_tail  # p(1)/min = 1.008
    False
    """
    prof = _positive_floats("profile", profile)
    pos = prof > 0
    if not pos.any():
        return None
    L = prof.size
    k = int(np.argmin(np.where(pos, prof, np.inf)))
    lo = float(prof[k])
    first, last = float(prof[0]) / lo, float(prof[-1]) / lo
    tail = first > factor
    spike = k != L - 1 and last > factor
    valley = 0 < k < L - 1 and first > factor and last > factor
    return Features(k + 1, lo, first, last, tail, spike, valley)


def attention_only_title(att: npt.ArrayLike) -> str:
    """The attention-only panel's title: "collapses onto the first token" only when token 1
    carries more than :data:`COLLAPSE_SHARE` of the profile's mass, else the measured share.

    >>> attention_only_title([0.9, 0.05, 0.05])
    'attention only collapses onto token 1 (p(1) = 0.9 of the mass)'
    >>> attention_only_title([0.0075] * 4 + [0.97])
    'attention only: p(1) = 0.0075 of the mass (no collapse onto token 1)'
    """
    a = _positive_floats("attention_only", att)
    total = float(a.sum())
    share = float(a[0]) / total if total > 0 else 0.0
    if share > COLLAPSE_SHARE:
        return f"attention only collapses onto token 1 (p(1) = {share:.3g} of the mass)"
    return f"attention only: p(1) = {share:.3g} of the mass (no collapse onto token 1)"


def _mark_features(fig: Any, ax: Any, x: np.ndarray, prof: np.ndarray, log_axis: bool) -> None:
    """Primacy tail (shaded), valley (triangle) and recency spike (circle), each named only
    when :func:`features` finds it; otherwise the marker gives the measured figure."""
    L = prof.size
    f = features(prof)
    if f is None:
        return
    k = f.argmin - 1
    box = dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85)
    labels = []
    if f.primacy_tail:
        # the shaded tail: the first positions, up to where the profile first drops below the
        # (geometric, on a log axis; arithmetic, on a linear one) mean of p(1) and the minimum
        level = np.sqrt(prof[0] * prof[k]) if log_axis else (prof[0] + prof[k]) / 2
        below = np.nonzero(prof[: k + 1] <= level)[0]
        head_end = int(below[0]) + 1 if below.size else k + 1
        ax.axvspan(0.5, head_end + 0.5, color=_BLUE, alpha=0.08, lw=0)
        text = f"primacy tail\np(1) = {prof[0]:.3g}, p(1)/min = {f.first_over_min:.4g}"
    else:
        text = f"p(1) = {prof[0]:.3g}\np(1)/min = {f.first_over_min:.4g}"
    if k != 0:
        labels.append(ax.annotate(text, xy=(1, prof[0]), xytext=(8, -4), textcoords="offset points",
                                  ha="left", va="top", fontsize=9, color=_BLUE, bbox=box))
    if prof[-1] > 0 and k != L - 1:
        name = "recency spike\n" if f.recency_spike else ""
        ax.plot([L], [prof[-1]], marker="o", color=_RED, ms=7, zorder=4)
        spike = ax.annotate(f"{name}p(L) = {prof[-1]:.3g}, p(L)/min = {f.last_over_min:.4g}",
                            xy=(L, prof[-1]), xytext=(-12, 6), textcoords="offset points",
                            ha="right", va="bottom", fontsize=9, color=_RED, bbox=box)
        labels.append(spike)
    ax.plot([k + 1], [prof[k]], marker="v", color=_GREEN, ms=8, zorder=4)
    name = "valley" if f.valley else "minimum"
    valley = ax.annotate(f"{name}: argmin j = {k + 1}\np = {prof[k]:.3g}", xy=(k + 1, prof[k]),
                         xytext=(0, 16), textcoords="offset points", ha="center", va="bottom",
                         fontsize=9, color=_GREEN, bbox=box,
                         arrowprops=dict(arrowstyle="-", color=_GREEN, lw=0.8))
    fig.canvas.draw()
    # near the valley first, then further up and to the left or right (points)
    candidates = [(dx, dy) for dy in (16, 40, 70, 100, 140, 190) for dx in
                  (0, -50, 50, -100, 100, -150, 150, -200, -260)] + [(0, -40), (-100, -40)]
    _place_apart(fig, ax, valley, labels, candidates)


def _attention_only_panel(ax: Any, x: np.ndarray, prof: np.ndarray, att: np.ndarray) -> None:
    """The second panel of :func:`plot_profile`: the attention-only profile beside the
    residual-aware one, on a log scale (zeros left out)."""
    apos, pos = att > 0, prof > 0
    ax.plot(x[apos], att[apos], color=_GREY, lw=1.4, ls="--", label="attention only (λ ≡ 1)")
    ax.plot(x[pos], prof[pos], color=_BLUE, lw=1.2, label="residual-aware p(j)")
    ax.set_yscale("log")
    ax.set_xlim(0.5, x.size + 0.5)
    ax.set_xlabel("position j")
    ax.set_ylabel("influence (log scale)")
    ax.grid(True, which="major", alpha=0.25)
    ax.set_title(attention_only_title(att), fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)


def plot_profile(profile: npt.ArrayLike, path: str | os.PathLike[str], *, title: str | None = None,
                 continuum: npt.ArrayLike | None = None, attention_only: npt.ArrayLike | None = None,
                 parameter: str = "path") -> str:
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
    if rho is not None:  # one curve needs no legend (the axis says what it is); two get one,
        # below the axis, where no label of the features can fall on it
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8,
                  frameon=False)
    _mark_features(fig, ax, x, prof, log_axis)

    if att is not None:
        _attention_only_panel(axes[1], x, prof, att)
        if title:
            fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return _save(fig, path, parameter, fmt)


def plot_curves(curves: Sequence[tuple[str, npt.ArrayLike, str]], path: str | os.PathLike[str], *,
                title: str | None = None, xlabel: str = "position j",
                ylabel: str = "influence on the final position", log: bool = True,
                parameter: str = "path") -> str:
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
