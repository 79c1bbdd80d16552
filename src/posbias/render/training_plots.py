"""Pictures of a training (``posbias train``): the accuracy differences and the in-context
accuracy against iterations, and the final position's influence profile against training step
as a heatmap (matplotlib, the ``plot`` extra, imported lazily; Agg backend)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from posbias.errors import NeedsExtra
from posbias.files import write_output

__all__ = ["plot_boundary_windows", "plot_differences", "plot_influence_heatmap"]

_PAIRS = ("first-middle", "first-last", "middle-last")
#: copying one of the two labels present at random (1/2 + 1/(2L), L = 32)
_COPY_CHANCE = 0.5 + 1 / 64


def _plt() -> Any:
    try:
        import matplotlib  # the plot extra

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # the plot extra
    except ImportError:
        raise NeedsExtra("plot", "matplotlib") from None
    return plt


def _save(fig: Any, plt: Any, path: str, parameter: str) -> None:
    buf = io.BytesIO()
    fmt = path.rsplit(".", 1)[-1].lower() if "." in path else "png"
    fig.savefig(buf, format=fmt if fmt in ("png", "pdf", "svg") else "png", dpi=110)
    plt.close(fig)
    write_output(buf.getvalue(), path, parameter)


def _title(doc: dict) -> str:
    c = doc["config"]
    if doc.get("task") in ("lm-synthetic", "lm-text"):
        what = ("in-context unigram task" if doc["task"] == "lm-synthetic"
                else "Python documentation text")
        return (f"{c['arch']}, {c['layers']} layers, hidden {c['hidden']}, {c['heads']} heads, "
                f"L = {c['length']}, {what}, lr {c['lr']:g}")
    return (f"mask {c['mask']}, PE {c['pe']}, residual {'on' if c['residual'] else 'off'}, "
            f"lr {c['lr']:g}, train bias {c['train_bias']}")


def plot_differences(doc: dict, path: str, parameter: str = "--output") -> None:
    """Acc(X_Y) - Acc(Y_X) for the three pairs (± one standard error, shaded) and the
    in-context accuracy, against iterations, one line style per seed."""
    plt = _plt()
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(7.5, 6), sharex=True,
                                 gridspec_kw={"height_ratios": [3, 2]})
    colors = {"first-middle": "tab:blue", "first-last": "tab:red", "middle-last": "tab:green"}
    styles = ["-", "--", ":", "-."]
    for n, run in enumerate(doc["runs"]):
        hist = run["history"]
        its = [e["iteration"] for e in hist]
        ls = styles[n % len(styles)]
        for pair in _PAIRS:
            d = [e["difference"][pair] for e in hist]
            se = [e["difference_se"][pair] for e in hist]
            ax.plot(its, d, ls, color=colors[pair],
                    label=f"{pair}" + (f" (seed {run['seed']})" if len(doc["runs"]) > 1 else ""))
            ax.fill_between(its, [a - b for a, b in zip(d, se)], [a + b for a, b in zip(d, se)],
                            color=colors[pair], alpha=0.12, lw=0)
        bx.plot(its, [e["ic_accuracy"] for e in hist], ls, color="k", label=f"seed {run['seed']}")
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_ylabel("Acc(X_Y) − Acc(Y_X)")
    ax.set_title(_title(doc), fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    bx.axhline(_COPY_CHANCE, color="0.5", lw=0.8, ls="--")
    bx.text(0, _COPY_CHANCE, " random label copying", fontsize=7, va="bottom", color="0.4")
    bx.set_ylabel("in-context accuracy")
    bx.set_xlabel("training iteration")
    bx.set_ylim(0, 1)
    bx.legend(fontsize=7)
    fig.tight_layout()
    _save(fig, plt, path, parameter)


def plot_influence_heatmap(doc: dict, path: str, parameter: str = "--output",
                           seed_index: int = 0) -> None:
    """The final position's normalized Jacobian influence on each token (columns) at each
    evaluated step (rows), log colour scale, for one seed's run (wu2025-icl: tokens labelled
    item / label / query; lm-synthetic: positions 1..L)."""
    plt = _plt()
    from matplotlib.colors import LogNorm  # the plot extra

    run = doc["runs"][seed_index]
    hist = [e for e in run["history"] if "influence" in e]
    if not hist:
        return
    prof = np.array([e["influence"] for e in hist])
    its = [e["iteration"] for e in hist]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    T = prof.shape[1]
    rows = np.arange(len(its) + 1) - 0.5
    im = ax.pcolormesh(np.arange(T + 1) + 0.5, rows, prof, cmap="viridis", shading="flat",
                       norm=LogNorm(vmin=max(prof.min(), 1e-4), vmax=prof.max()))
    step = max(1, len(its) // 8)
    ax.set_yticks(range(0, len(its), step))
    ax.set_yticklabels([str(its[i]) for i in range(0, len(its), step)])
    if doc.get("task") in ("lm-synthetic", "lm-text"):
        ticks = sorted({1, *range(8, T, max(1, T // 8)), T})
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(j) for j in ticks], fontsize=7)
        ax.set_xlabel("input position j (1 = BOS, L = the final position)"
                      if doc["task"] == "lm-synthetic"
                      else "input position j of the window (L = the final position)")
    else:
        ax.set_xticks(range(1, T + 1))
        ax.set_xticklabels([("q" if j == T else (f"x{(j - 1) // 2}" if j % 2
                                                 else f"y{(j - 2) // 2}"))
                            for j in range(1, T + 1)], fontsize=7)
        ax.set_xlabel("token (x_i item i, y_i its label, q the query)")
    ax.set_ylabel("training iteration")
    ax.set_title(f"influence on the final position, seed {run['seed']}: " + _title(doc), fontsize=8)
    label = ("‖∂h_L/∂e_j‖_F (normalized)" if doc.get("task") in ("lm-synthetic", "lm-text")
             else "‖∂h_T/∂x_j‖_F (normalized)")
    fig.colorbar(im, ax=ax, label=label)
    fig.tight_layout()
    _save(fig, plt, path, parameter)


def plot_boundary_windows(doc: dict, path: str, parameter: str = "--output",
                          seed_index: int = 0, half: int = 40) -> bool:
    """The final position's influence around the document separator of each boundary window
    (``posbias train --task lm-text --boundary-windows N``), at Step 0 (left) and at the last
    evaluation (right): offsets ``-half .. half`` from the separator (0, the separator; 1, the
    first token of the next document), each window divided by its median over those offsets
    (thin lines) and the median over windows (thick).  Returns False, drawing nothing, when
    the run recorded no boundary windows."""
    rec = doc.get("boundary_windows") or {}
    run = doc["runs"][seed_index]
    hist = [e for e in run["history"] if e.get("boundary_influence")]
    if not hist or not rec.get("positions"):
        return False
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4), sharey=True)
    offsets = np.arange(-half, half + 1)
    for ax, entry in zip(axes, (hist[0], hist[-1])):
        rows = []
        for prof, q in zip(entry["boundary_influence"], rec["positions"]):
            p = np.asarray(prof, dtype=float)
            idx = q + offsets
            ok = (idx >= 0) & (idx < p.size)
            row = np.full(offsets.size, np.nan)
            row[ok] = p[idx[ok]]
            row /= np.nanmedian(row)
            rows.append(row)
            ax.plot(offsets, row, color="0.7", lw=0.6)
        ax.plot(offsets, np.nanmedian(rows, axis=0), color="C0", lw=1.8,
                label=f"median of {len(rows)} windows")
        ax.axvline(0, color="C3", lw=0.8, ls=":")
        ax.set_yscale("log")
        ax.set_xlabel("position relative to the document separator")
        ax.set_title(f"iteration {entry['iteration']}", fontsize=9)
    axes[0].set_ylabel("influence / window median (log)")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle(f"influence on the final position around document boundaries, seed "
                 f"{run['seed']}\n" + _title(doc), fontsize=8)
    fig.tight_layout()
    _save(fig, plt, path, parameter)
    return True
