"""Pictures of influence profiles: log-scale, with the primacy tail, the valley and the recency
spike marked (matplotlib, the ``plot`` extra, imported lazily; Agg backend, no display).

The three features marked are those the theory talks about (THEORY C4, C5, C7, H3): the
*primacy tail* (the mass on the first positions), the *valley* (the interior minimum, the
argmin of the profile) and the *recency spike* (the last position, the atom ``(1-alpha)^H`` of
chowdhury2026 C5 in the Cesaro model).  A continuum density ``rho(x)`` on ``(0, 1]`` can be
overlaid in the units of the discrete profile (``rho(j/L)/L``, THEORY X2), and an
attention-only profile drawn for contrast.
"""

from __future__ import annotations

import os

import numpy as np

from posbias.errors import InvalidArgument, NeedsExtra

__all__ = ["plot_profile", "check_plot_path", "PLOT_SUFFIXES"]

PLOT_SUFFIXES = (".png", ".pdf")


def check_plot_path(path, parameter: str = "--plot") -> str:
    """Validate a plot file name before any work: suffix ``.png`` or ``.pdf``, writable place.

    >>> check_plot_path("profile.svg")
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: --plot = profile.svg is invalid: expected a file name ending in .png or .pdf
    """
    p = os.fspath(path)
    if os.path.splitext(p)[1].lower() not in PLOT_SUFFIXES:
        raise InvalidArgument(parameter, p, "a file name ending in .png or .pdf")
    directory = os.path.dirname(os.path.abspath(p))
    if os.path.isdir(p) or not os.path.isdir(directory) or not os.access(directory, os.W_OK):
        raise InvalidArgument(parameter, p, "a writable file path in an existing directory")
    return p


def _room_above(ax, y) -> bool:
    """Whether a log-scale axis has more room above ``y`` than below it."""
    lo, hi = ax.get_ylim()
    return np.log10(hi / y) > np.log10(y / lo)


def near_start_valley(k: int, L: int) -> bool:
    """Whether the valley (0-indexed argmin ``k``) sits in the first 15% of the positions."""
    return k + 1 < 0.15 * L


def _positive_floats(name, values):
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size < 1 or not np.isfinite(arr).all() or (arr < 0).any():
        raise InvalidArgument(name, f"an array of shape {arr.shape}", "a vector of finite numbers >= 0")
    return arr


def plot_profile(profile, path, *, title=None, continuum=None, attention_only=None, parameter="path"):
    """Draw an influence profile on a log scale and write it to ``path`` (PNG or PDF by suffix).

    Parameters
    ----------
    profile: the profile ``p(1..L)`` (numbers >= 0; float64 is enough for a picture).
    path: output file, ``.png`` or ``.pdf`` (anything else: :class:`InvalidArgument`).
    title: optional title.
    continuum: optional continuum density, a callable ``x -> rho(x)`` on ``(0, 1]`` or an array
        of ``L`` values of ``rho(j/L)``; drawn as ``rho(j/L)/L`` (THEORY X2).
    attention_only: optional attention-only (``lambda = 1``) profile of the same length.

    Zeros (float64 underflow) are left out of the log plot.  Returns ``path``.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> out = plot_profile([0.5, 0.1, 0.05, 0.35], os.path.join(d, "p.png"), title="demo")
    >>> os.path.getsize(out) > 1000
    True

    Method: matplotlib with the Agg backend.
    """
    p = os.fspath(path)
    if os.path.splitext(p)[1].lower() not in PLOT_SUFFIXES:
        raise InvalidArgument(parameter, p, "a file name ending in .png or .pdf")
    prof = _positive_floats("profile", profile)
    L = prof.size
    att = None if attention_only is None else _positive_floats("attention_only", attention_only)
    if att is not None and att.size != L:
        raise InvalidArgument("attention_only", f"a profile of length {att.size}", f"length {L}")
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError:
        raise NeedsExtra("plot", "matplotlib") from None

    x = np.arange(1, L + 1)
    fig = Figure(figsize=(7.0, 4.2), dpi=130)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    pos = prof > 0
    ax.plot(x[pos], prof[pos], color="#1f4e9c", lw=1.6, label="influence profile p(j)", zorder=3)
    if att is not None:
        apos = att > 0
        ax.plot(x[apos], att[apos], color="#b0b0b0", lw=1.2, ls="--",
                label="attention only (λ ≡ 1)", zorder=2)
    if continuum is not None:
        if callable(continuum):
            rho = np.array([float(continuum(j / L)) for j in range(1, L + 1)])
        else:
            rho = _positive_floats("continuum", continuum)
            if rho.size != L:
                raise InvalidArgument("continuum", f"an array of length {rho.size}", f"length {L}")
        dens = rho / L
        dpos = np.isfinite(dens) & (dens > 0)
        ax.plot(x[dpos], dens[dpos], color="#d98c1f", lw=1.2, ls=":", label="continuum ρ(j/L)/L", zorder=2)

    ax.set_yscale("log")
    drawn = [prof[pos]] + ([att[att > 0]] if att is not None and (att > 0).any() else [])
    if pos.any():
        lo = min(float(a.min()) for a in drawn)
        hi = max(float(a.max()) for a in drawn)
        decades = max(1.0, np.log10(hi / lo))
        ax.set_ylim(lo / 10 ** (0.05 * decades), min(5.0, hi * 10 ** (0.15 * decades)))  # label room
    k = int(np.argmin(np.where(pos, prof, np.inf))) if pos.any() else 0
    if pos.any():
        # primacy tail: the first positions, up to where the profile first drops below its
        # geometric mean with the valley
        head_end = 1
        if prof[0] > prof[k] and k > 0:
            level = np.sqrt(prof[0] * prof[k])
            below = np.nonzero(prof[: k + 1] <= level)[0]
            head_end = int(below[0]) + 1 if below.size else k + 1
        ax.axvspan(0.5, head_end + 0.5, color="#1f4e9c", alpha=0.08, lw=0)
        if head_end > 1 or k == 0 or prof[0] > prof[min(1, L - 1)]:
            ax.annotate("primacy tail", xy=(1, prof[0]), xytext=(8, -14 if near_start_valley(k, L) else 6),
                        textcoords="offset points", fontsize=9, color="#1f4e9c")
        ax.plot([k + 1], [prof[k]], marker="v", color="#2a8c3c", ms=8, zorder=4)
        near_start = k + 1 < 0.15 * L
        ax.annotate(f"valley: argmin j = {k + 1}\np = {prof[k]:.3g}", xy=(k + 1, prof[k]),
                    xytext=(14 if near_start else 0, 14 if _room_above(ax, prof[k]) else -34),
                    textcoords="offset points", ha="left" if near_start else "center", fontsize=9,
                    color="#2a8c3c", bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.8))
        if prof[-1] > 0:
            ax.plot([L], [prof[-1]], marker="o", color="#c0392b", ms=7, zorder=4)
            ax.annotate(f"recency spike\np(L) = {prof[-1]:.3g}", xy=(L, prof[-1]), xytext=(-12, -4),
                        textcoords="offset points", ha="right", va="top", fontsize=9, color="#c0392b",
                        bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.8))
    ax.set_xlim(0.5, L + 0.5)
    ax.set_xlabel("position j")
    ax.set_ylabel("influence p(j) on the last token")
    ax.grid(True, which="major", alpha=0.25)
    if title:
        ax.set_title(title, fontsize=11)
    ax.legend(loc="upper center", fontsize=8, frameon=False)
    fig.tight_layout()
    fmt = os.path.splitext(p)[1].lower()[1:]
    tmp = p + ".tmp-posbias"
    try:
        fig.savefig(tmp, format=fmt)
        os.replace(tmp, p)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise InvalidArgument(parameter, p, f"a writable path ({exc.strerror})") from None
    return p
