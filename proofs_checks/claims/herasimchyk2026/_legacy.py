"""Claims of herasimchyk2026 (*A Residual-Aware / Structural Theory of Position Bias*;
:ref:`math-herasimchyk2026`, H1-H5).

General causal kernels and schedules (row-stochasticity, primacy and recency drift, the diagonal
product, the infinite-depth dichotomy, constant-λ collapse), checked exactly on generated cases;
ALiBi and content forces; the measured BLOOM/MPT rollout configs (U shape, four forces) and the
match with measured influence of pretrained models.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.numerics.alibi import (
    alibi_kernel_dense,
    alibi_rollout,
)
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

if TYPE_CHECKING:
    from posbias.numerics.configs import RolloutConfig

#: an exact matrix (rows of Fractions): a causal kernel A(t), a layer R(t) or a product P(t)
Matrix = list[list[Fraction]]

__all__ = [
    "FORCE_DIRECTIONS",
    "U_THRESHOLD_TABLE",
    "check_empirical_match",
    "check_four_forces",
    "check_u_shape",
    "collapse_figures",
    "collapses",
    "config_figures",
    "depth_profiles",
    "force_margins",
    "output_side_margin",
    "u_figures",
    "u_shaped",
]


PAPER = "herasimchyk2026"


# --------------------------------------------------------------------------------------------
_H = "herasimchyk2026"


# --------------------------------------------------------------------------------------------
# helpers


def _np_margin(p, q):
    d = np.cumsum(q[:-1]) - np.cumsum(p[:-1])
    if d.size == 0:
        return 0.0, 1
    k = int(np.argmin(d))
    return float(d[k]), k + 1


# real configs: the 32 rollout configs of herasimchyk2026's public code


def _load(name, convention):
    from posbias.numerics.configs import load_config
    from posbias.proofs_checks.data import builtin_config_path

    return load_config(builtin_config_path(name), convention=convention)


def _needs_yaml():
    try:
        import ruamel.yaml  # noqa: F401
    except ImportError:
        return Evidence("needs-data", method="the real configs need the 'yaml' extra",
                        details={"missing": str(NeedsExtra("yaml", "ruamel.yaml"))})
    return None


def _setting_of(name: str) -> dict:
    """Model, content variant and data set of a shipped config name."""
    parts = name.split("/")
    model = parts[-1].removesuffix("-noresidual")
    return {"model": model, "content": parts[0].removesuffix("_content"),
            "dataset": parts[1] if len(parts) == 3 else None,
            "residual": not parts[-1].endswith("-noresidual")}


#: the configs computed live by the default check, in both conventions (the configs of posbias
#: 0.2); every other row is read from the stored run, and ``--thorough`` recomputes them all
_LIVE_DEFAULT = ("no_content/bloom-7b1", "no_content/bloom-7b1-noresidual", "no_content/mpt-7b",
                 "no_content/mpt-7b-noresidual", "all_content/fineweb-edu/bloom-7b1",
                 "all_content/fineweb-edu/mpt-7b", "mean_content/fineweb-edu/mpt-7b")


def _live_default(name: str) -> bool:
    return name in _LIVE_DEFAULT


#: the configs whose four-force margins the default check computes live (the causal-depth leg
#: costs O(T^2) layer applications: 2 s for BLOOM-176B); the others are read from the stored run
_FORCES_LIVE = ("no_content/bloom-7b1", "all_content/fineweb-edu/mpt-7b")


def u_figures(p: np.ndarray) -> dict:
    """The numbers the U rule reads from one profile: the valley ``j* = argmin p`` (1-indexed,
    first occurrence), ``j*/L`` and the end-to-valley ratios ``p(1)/p(j*)``, ``p(L)/p(j*)``
    (float64; ``inf`` when the valley underflowed to 0)."""
    p = np.asarray(p, dtype=float)
    L = p.size
    k = int(np.argmin(p))
    mn = float(p[k])

    def ratio(x):
        return float(x / mn) if mn > 0 else float("inf")

    return {"argmin": k + 1, "argmin/L": (k + 1) / L, "L": L, "min": mn,
            "p(1)/min": ratio(p[0]), "p(L)/min": ratio(p[-1])}


def u_shaped(row: dict, t: dict) -> bool:
    """The U rule on one profile's :func:`u_figures`: the valley lies inside the interior window,
    ``w < j*/L <= 1 - w`` (``w = t["interior"]``), and both ends are at least ``t["end_factor"]``
    times the valley."""
    w = t["interior"]
    inside = w < row["argmin/L"] <= 1 - w
    return bool(inside and row["p(1)/min"] >= t["end_factor"] and row["p(L)/min"] >= t["end_factor"])


def collapse_figures(cfg: RolloutConfig) -> dict:
    """The attention-only rollout of ``cfg`` (λ ≡ 1, its own layers): ``p(1)``, the tail mass
    ``Σ_{j>=2} p(j)`` at depth T and with the layers repeated to depth 4T (summed directly, so
    tails far below 1e-16 are resolved), and whether the profile is non-increasing."""
    pa = cfg.attention_only().profile()
    deeper = alibi_rollout(cfg.length, list(cfg.layers) * 4, 1.0)
    return {"p(1)": float(pa[0]), "tail": float(np.sum(pa[1:])), "tail at 4T": float(np.sum(deeper[1:])),
            "non-increasing": bool(np.all(np.diff(pa) <= 0))}


def collapses(row: dict, t: dict) -> bool:
    """The collapse rule: non-increasing, ``p(1) >= t["collapse_p1"]`` and a tail that shrinks
    from depth T to 4T."""
    return bool(row["non-increasing"] and row["p(1)"] >= t["collapse_p1"] and row["tail at 4T"] < row["tail"])


def depth_profiles(cfg: RolloutConfig) -> list:
    """Profiles ``p_t = e_L R(t) ⋯ R(1)`` of the model truncated to its first ``t`` layers,
    ``t = 1..T`` (measured λ and content as configured; fast path, ``O(T^2 H L)``)."""
    return [alibi_rollout(cfg.length, list(cfg.layers[:t]), cfg.lambdas[:t]) for t in range(1, cfg.num_layers + 1)]


def output_side_margin(profiles: Sequence[np.ndarray]) -> tuple:
    """``min_t min_k (F_{t+1}(k) - F_t(k))`` over consecutive depths, with the ``(t, k)`` where
    it is reached: ``>= 0`` when adding a layer on the output side moves mass to earlier positions
    at every depth (herasimchyk2026 H2a, which needs stochastically monotone kernels)."""
    worst = (np.inf, 0, 0)
    for t in range(len(profiles) - 1):
        mg, k = _np_margin(profiles[t], profiles[t + 1])  # p_t dominates p_{t+1}
        worst = min(worst, (mg, t + 1, k))
    return worst


def _monotonicity_defect(layer: Any, L: int) -> float:
    """``max_{i<i', k} (F_{i'}(k) - F_i(k))`` of one layer's dense kernel (float64): ``<= 0`` up
    to rounding when the kernel is stochastically monotone."""
    F = np.cumsum(alibi_kernel_dense(L, layer), axis=1)
    return float(np.max(F[1:] - F[:-1]))


#: the directions the four forces claim: ``later`` (the profile with the force dominates the one
#: without: more mass on later positions) or ``earlier``; for causal depth "on" is the deeper profile
FORCE_DIRECTIONS = {"residual": "later", "alibi": "later", "content d+": "later", "content d-": "earlier",
                    "causal depth": "earlier"}


def _both_margins(on: np.ndarray, off: np.ndarray) -> dict:
    """``later``: ``min_k (F_off(k) - F_on(k))`` (>= 0 when ``on`` dominates ``off``) and
    ``earlier``: ``min_k (F_on(k) - F_off(k))`` (>= 0 when ``off`` dominates ``on``), each with
    its 1-indexed ``k``, over ``k = 1..L-1``."""
    d = np.cumsum(np.asarray(off)[:-1]) - np.cumsum(np.asarray(on)[:-1])
    if d.size == 0:
        return {"later": (0.0, 1), "earlier": (0.0, 1)}
    kl, ke = int(np.argmin(d)), int(np.argmax(d))
    return {"later": (float(d[kl]), kl + 1), "earlier": (float(-d[ke]), ke + 1)}


def force_margins(cfg: RolloutConfig, *, content: bool,
                  depth_profiles_fn: Callable[[RolloutConfig], list] | None = None) -> dict:
    """CDF margins of each force on one config, both orientations (see :func:`_both_margins`):
    residual (p vs λ ≡ 1), ALiBi (p vs slopes 0), content d+ (d+ = max(d, 0) vs d = 0), content
    d- (d- = min(d, 0) vs d = 0) and causal depth (the model's first t+1 layers vs its first t,
    the new layer on the output side; the worst over t, with the depth ``t`` where it is reached).
    Returns ``{force: {"later": (margin, k[, t]), "earlier": (margin, k[, t])}}``."""
    import dataclasses

    p = cfg.profile()
    out = {"residual": _both_margins(p, cfg.attention_only().profile()),
           "alibi": _both_margins(p, cfg.without_alibi().profile())}
    if content:
        pos = dataclasses.replace(cfg, layers=tuple(
            dataclasses.replace(l, diagonal=np.maximum(l.diagonal, 0)) for l in cfg.layers))
        neg = dataclasses.replace(cfg, layers=tuple(
            dataclasses.replace(l, diagonal=np.minimum(l.diagonal, 0)) for l in cfg.layers))
        p0 = cfg.without_content().profile()
        out["content d+"] = _both_margins(pos.profile(), p0)
        out["content d-"] = _both_margins(neg.profile(), p0)
    profiles = (depth_profiles_fn or depth_profiles)(cfg)
    depth = {"later": (np.inf, 1, 1), "earlier": (np.inf, 1, 1)}
    for t in range(len(profiles) - 1):
        m = _both_margins(profiles[t + 1], profiles[t])
        for side in ("later", "earlier"):
            if m[side][0] < depth[side][0]:
                depth[side] = (m[side][0], m[side][1], t + 1)
    out["causal depth"] = depth
    return out


def _force_rows(margins: Mapping) -> dict:
    row = {}
    for force, sides in margins.items():
        for side, val in sides.items():
            row[f"{force} {side}"] = float(val[0])
            row[f"{force} {side} at k"] = int(val[1])
            if len(val) > 2:
                row[f"{force} {side} at t"] = int(val[2])
    return row


def config_figures(name: str, convention: str, *, forces: bool = True, collapse: bool = True) -> dict:
    """Everything the config claims read from one shipped config in one convention: the U
    figures of its profile (:func:`u_figures`), the attention-only collapse figures
    (:func:`collapse_figures`: of the config itself when it is attention-only, else, with
    ``collapse``, of its layers without content at λ ≡ 1) and, for a residual config with
    ``forces``, the four-force margins (:func:`force_margins`) and the layers' monotonicity defect
    at L = 64."""
    cfg = _load(name, convention)
    st = _setting_of(name)
    out = {"config": name, "convention": convention, **st, "layers": cfg.num_layers, "heads": cfg.num_heads,
           "u": u_figures(cfg.profile())}
    if not st["residual"]:
        out["attention-only"] = collapse_figures(cfg)  # the config itself is attention-only
    elif collapse:
        out["attention-only"] = collapse_figures(cfg.without_content())
    if forces and st["residual"]:
        out["forces"] = _force_rows(force_margins(cfg, content=st["content"] != "no"))
        out["forces"]["monotonicity defect (L = 64)"] = max(_monotonicity_defect(l, 64) for l in cfg.layers)
    return out


# ---- the stored run of every config (read by the default check, reproduced by --thorough)

_RUN_FILE = "herasimchyk2026-configs.json"


def _run_path() -> str:
    from posbias.proofs_checks.data import data_path

    return data_path("runs", _RUN_FILE)


def _stored_rows() -> dict:
    """The stored run as ``{(config, convention): row}`` (empty when there is none)."""
    import json

    path = _run_path()
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        rec = json.load(fh)
    return {(r["config"], r["convention"]): r for r in rec["rows"]}


#: figures that are float64 round-off by construction (zero in exact arithmetic): they agree when
#: both are at that level, whatever their relative difference (it depends on the machine's
#: summation order)
_ROUND_OFF_KEYS = ("monotonicity defect",)
_ROUND_OFF_ABS = 1e-12


def _close(a: float, b: float, rel: float = 1e-9) -> bool:
    """Stored and live figures agree (floats to 1e-9 relative, 1e-300 absolute; the round-off
    figures of :data:`_ROUND_OFF_KEYS` to 1e-12 absolute)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(
            _round_off_close(a[k], b[k], rel) if any(r in k for r in _ROUND_OFF_KEYS)
            else _close(a[k], b[k], rel) for k in a)
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, (str, type(None))):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-300
    return a == b


def _round_off_close(a: Any, b: Any, rel: float) -> bool:
    """A round-off figure: both at most :data:`_ROUND_OFF_ABS`, or close as :func:`_close`."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return (abs(a) <= _ROUND_OFF_ABS and abs(b) <= _ROUND_OFF_ABS) or _close(a, b, rel)
    return _close(a, b, rel)


def _gather(ctx: CheckContext, names: Sequence[str], *,
            forces_live: Sequence[str] | None) -> tuple:
    """Rows of ``names`` in both conventions: live where the default check computes them (or all
    with ``--thorough``), else from the stored run; every live row that the stored run also holds
    must agree with it.  ``forces_live``: None when the four-force margins are not needed, else
    the configs whose margins the default check computes live.  Returns ``(rows, sources,
    mismatches)``."""
    stored = _stored_rows()
    rows, mismatches = {}, []
    live_n = stored_n = 0
    for name in names:
        for conv in ("reference", "corrected"):
            key = (name, conv)
            live = ctx.thorough or _live_default(name) or key not in stored
            if live:
                want_forces = forces_live is not None and (
                    ctx.thorough or name in forces_live or key not in stored or "forces" not in stored[key])
                row = config_figures(name, conv, forces=want_forces, collapse=ctx.thorough or key not in stored)
                live_n += 1
                if key in stored:
                    ref = stored[key]
                    cmp_keys = [k for k in row if k in ref]
                    if not all(_close(row[k], ref[k]) for k in cmp_keys):
                        mismatches.append(f"{name} ({conv})")
                    for k in ("forces", "attention-only"):  # the parts not recomputed by default
                        if k not in row and k in ref:
                            row[k] = ref[k]
            else:
                row = stored[key]
                stored_n += 1
            rows[key] = row
    return rows, {"computed live": live_n, "read from the stored run": stored_n}, mismatches


# ---- H3/H5: U shape with the measured schedules, collapse without residuals


def _u_decide(f, t):
    att = f["attention-only"]
    if not all(collapses(r, t) for r in att):
        return "refuted"
    rows = f["configs"]
    n_u = sum(u_shaped(r, t) for r in rows)
    frac = n_u / len(rows)
    if n_u == len(rows):
        return "verified"
    return "qualified" if frac >= t["often"] else "refuted"


def _u_example_row(name, argmin_over_L, first, last):
    return {"config": name, "argmin/L": argmin_over_L, "p(1)/min": first, "p(L)/min": last}


_COLLAPSED = [{"config": "no_content/mpt-7b-noresidual", "p(1)": 0.995842, "tail": 4.16e-3, "tail at 4T": 4.4e-27,
               "non-increasing": True}]

_RULE_U = Rule(
    text="Decided on the reference convention (the paper's code) over every residual config (25: five "
    "models; no, mean and per-head content; FineWeb-Edu, DCLM, Wikipedia). A profile is U-shaped when "
    "its valley j* = argmin p lies in the interior window interior < j*/L <= 1 - interior and both "
    "ends are at least end_factor times the valley. The attention-only comparison (the 7 -noresidual "
    "configs, λ ≡ 1) collapses when non-increasing, p(1) >= collapse_p1 and its tail Σ_{j>=2} p(j) "
    "shrinks from depth T to 4T. Refuted when an attention-only config does not collapse or when "
    "fewer than a fraction `often` of the residual configs are U-shaped (v2's 'often U-shaped' "
    "fails); qualified when at least that fraction but not all are U-shaped (v2's 'often U-shaped' "
    "holds, v1's 'U-shaped' does not); verified when every residual config is U-shaped (both "
    "wordings hold). The corrected (model-faithful) convention is reported beside it, not decided on",
    decide=_u_decide,
    thresholds={
        "end_factor": Threshold(2.0, "how deep a valley: both ends >= end_factor x the valley", scale="log",
                                sensitive=1.5, domain=(1.0, None)),
        "interior": Threshold(0.1, "how far from the ends: the valley must satisfy interior < j*/L <= "
                              "1 - interior", scale="linear", step=0.01, sensitive=0.02, domain=(0.0, 0.5)),
        "often": Threshold(0.5, "v2's 'often': the fraction of residual configs that must be U-shaped",
                           scale="linear", step=0.05, sensitive=0.1, domain=(0.0, 1.0)),
        "collapse_p1": Threshold(0.9, "attention-only collapse: p(1) at the model's depth at least this",
                                 scale="linear", step=0.01, sensitive=0.05, domain=(0.0, 1.0)),
    },
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("every config U-shaped (valleys at 0.24-0.37 L, ends 5-15x): both wordings hold",
                {"configs": [_u_example_row("no_content/bloom-7b1", 62 / 256, 7.43, 14.5),
                             _u_example_row("no_content/mpt-7b", 72 / 256, 9.16, 5.57),
                             _u_example_row("no_content/bloom", 62 / 256, 8.01, 9.96)],
                 "attention-only": _COLLAPSED}, "verified", "realistic"),
        Example("13 of 25 U-shaped (a valley at 24/256 = 0.094 L sits outside the window): v2 holds",
                {"configs": [_u_example_row(f"u{i}", 0.25, 7.0, 12.0) for i in range(13)]
                 + [_u_example_row(f"near-end{i}", 24 / 256, 2.9, 120.0) for i in range(12)],
                 "attention-only": _COLLAPSED}, "qualified", "realistic"),
        Example("no valley: monotone profiles with the minimum at the last or first token (the Cesàro "
                "model with residuals, or ALiBi recency)",
                {"configs": [_u_example_row(f"mono{i}", 255 / 256, 30.0, 1.3) for i in range(20)]
                 + [_u_example_row("u", 0.25, 7.0, 12.0)] * 5,
                 "attention-only": _COLLAPSED}, "refuted", "false"),
        Example("shallow valleys: ends only 1.5x the valley in most configs",
                {"configs": [_u_example_row(f"s{i}", 0.3, 1.5, 1.5) for i in range(20)]
                 + [_u_example_row("u", 0.25, 7.0, 12.0)] * 5,
                 "attention-only": _COLLAPSED}, "refuted", "false"),
        Example("attention-only rollouts that do not collapse (p(1) = 0.4, tail growing with depth)",
                {"configs": [_u_example_row("u", 0.25, 7.0, 12.0)] * 5,
                 "attention-only": [{"config": "x-noresidual", "p(1)": 0.4, "tail": 0.6, "tail at 4T": 0.7,
                                     "non-increasing": False}]}, "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=("U-shaped (reference)", "U-shaped fraction (reference)", "attention-only collapsed"),
    no_paper_figures="the paper shows the rollout profiles as plots (its Fig. 2/3 (b, c) per the public "
    "code's README) without valley positions or end-to-valley ratios",
)

U_THRESHOLD_TABLE = {"end_factor": (1.5, 2.0, 3.0, 5.0, 10.0), "interior": (0.05, 0.1, 0.2)}

_CARD_U = Card(
    paper=Setting(
        "v2 abstract ('broad, often U-shaped'), v1 abstract ('U-shaped'); Fig. 2/3 (a)-(c) of the paper "
        "per the public code's README (rollouts without residuals, with residuals, with residuals and "
        "content)",
        architecture="ALiBi causal transformer rollout", residual="on", mask="causal", pe="ALiBi",
        models=("BLOOM-176B", "BLOOM-7b1", "Falcon-RW-7B", "MPT-7B", "MPT-30B"),
        datasets=("FineWeb-Edu", "DCLM", "Wikipedia"), configs=32, L=256,
        data="measured λ_t and mean q·k content scores (none, mean, per head)",
        unconfirmed=("configs",),
        note="the configs are those of the public code (config/rollout/alibi, 25 residual, 7 "
        "attention-only); that the paper's figures use exactly these files is taken from its README"),
    test=Setting(
        "fast float64 ALiBi rollouts of the 32 shipped configs in the reference convention (the "
        "paper's code, reproduced to 1e-15); the corrected convention beside it",
        architecture="ALiBi causal transformer rollout", residual="on", mask="causal", pe="ALiBi",
        models=("BLOOM-176B", "BLOOM-7b1", "Falcon-RW-7B", "MPT-7B", "MPT-30B"),
        datasets=("FineWeb-Edu", "DCLM", "Wikipedia"), configs=32, L=256,
        data="measured λ_t and mean q·k content scores (none, mean, per head)"),
    proof=ProofStatus("none", note="an empirical statement about measured configs"),
)


@claim(
    f"{_H}:u-shape-measured-schedules",
    statement="With the measured λ schedules of BLOOM, MPT and Falcon-RW the ALiBi rollout profile is "
    "often U-shaped (v2's wording; v1: U-shaped): valley inside the context, both ends well above it; "
    "while the attention-only ALiBi rollout (λ ≡ 1) collapses onto the first token.",
    latex=r"w < \tfrac{j^{*}}{L} \le 1 - w,\quad p(1), p(L) \ge c\,p(j^{*})\ \text{in a fraction} \ge f "
    r"\text{ of the configs};\qquad \lambda \equiv 1:\ p(1) \ge 0.9,\ \textstyle\sum_{j\ge2} p(j) \to 0",
    expected="qualified",
    section="H3, H5",
    assumptions=("the 32 shipped configs of herasimchyk2026's code (25 with measured λ, 7 attention-only), "
                 "reference convention decides, corrected convention reported",
                 "U-shaped: valley at w L < j* <= (1-w) L (w = 0.1), both ends >= c x the valley (c = 2); "
                 "'often': a fraction >= f = 0.5 of the residual configs"),
    needs=("yaml",),
    rule=_RULE_U,
    card=_CARD_U,
)
def check_u_shape(ctx: CheckContext, *, names: Sequence[str] | None = None,
                  profile_transform: Callable[[str, dict], dict] | None = None,
                  **thresholds: float) -> Evidence:
    """``names``: the configs to decide on (default: all shipped); ``profile_transform``: a
    function applied to every residual profile's U figures before the rule (for power tests: a
    profile with no valley); ``thresholds``: overrides of the rule's thresholds."""
    miss = _needs_yaml()
    if miss:
        return miss
    from posbias.proofs_checks.data import builtin_configs

    names = list(names) if names is not None else builtin_configs()
    rows, sources, mismatches = _gather(ctx, names, forces_live=None)
    t = _RULE_U.values(**thresholds)
    res = [n for n in names if _setting_of(n)["residual"]]
    nores = [n for n in names if not _setting_of(n)["residual"]]

    def u_rows(conv):
        out = []
        for n in res:
            r = dict(rows[(n, conv)]["u"])
            if profile_transform is not None:
                r = profile_transform(n, r)
            out.append({"config": n, **{k: r[k] for k in ("argmin/L", "p(1)/min", "p(L)/min")},
                        "argmin": r.get("argmin")})
        return out

    ref_rows, cor_rows = u_rows("reference"), u_rows("corrected")
    att = [{"config": n, **rows[(n, "reference")]["attention-only"]} for n in nores]
    figures = {"configs": ref_rows, "attention-only": att}
    n_u = sum(u_shaped(r, t) for r in ref_rows)
    figures["U-shaped (reference)"] = f"{n_u} of {len(ref_rows)}"
    figures["U-shaped fraction (reference)"] = n_u / len(ref_rows) if ref_rows else float("nan")
    figures["attention-only collapsed"] = f"{sum(collapses(r, t) for r in att)} of {len(att)}"
    verdict = _RULE_U.decide(figures, t)

    def table(rs):
        out = {}
        for ef in U_THRESHOLD_TABLE["end_factor"]:
            for w in U_THRESHOLD_TABLE["interior"]:
                tt = {**t, "end_factor": ef, "interior": w}
                k = sum(u_shaped(r, tt) for r in rs)
                out[f"end_factor {ef:g}, interior {w:g}"] = (
                    f"{k}/{len(rs)} U-shaped -> {_RULE_U.decide({**figures, 'configs': rs}, tt)}")
        return out

    def describe(r, tt):
        inside = tt["interior"] < r["argmin/L"] <= 1 - tt["interior"]
        why = []
        if not inside:
            why.append(f"valley at {r['argmin']}/256 = {r['argmin/L']:.3f} L")
        if r["p(1)/min"] < tt["end_factor"]:
            why.append(f"p(1)/min {r['p(1)/min']:.4g}")
        if r["p(L)/min"] < tt["end_factor"]:
            why.append(f"p(L)/min {r['p(L)/min']:.4g}")
        return f"{r['config']} ({', '.join(why)})"

    not_u = [describe(r, t) for r in ref_rows if not u_shaped(r, t)]
    not_u_cor = [describe(r, t) for r in cor_rows if not u_shaped(r, t)]
    n_cor = len(cor_rows) - len(not_u_cor)
    by_group: dict[str, list[int]] = {}
    for r in ref_rows:
        st = _setting_of(r["config"])
        key = f"{st['content']} content" + (f", {st['dataset']}" if st["dataset"] else "")
        g = by_group.setdefault(key, [0, 0])
        g[0] += u_shaped(r, t)
        g[1] += 1
    by_model: dict[str, list[int]] = {}
    for r in ref_rows:
        g = by_model.setdefault(_setting_of(r["config"])["model"], [0, 0])
        g[0] += u_shaped(r, t)
        g[1] += 1
    details = {
        "rule": _RULE_U.text,
        "wording tested": "v2 'often U-shaped' (a fraction >= often of the residual configs) and v1 "
        "'U-shaped' (every residual config); qualified means v2 holds and v1 does not",
        "configs (reference convention)": [
            {**r, "U-shaped": u_shaped(r, t)} for r in ref_rows],
        "not U-shaped (reference)": not_u,
        "U-shaped by content and data set (reference)": {k: f"{a}/{b}" for k, (a, b) in by_group.items()},
        "U-shaped by model (reference)": {k: f"{a}/{b}" for k, (a, b) in by_model.items()},
        "threshold table (reference): verdict by end_factor and interior window": table(ref_rows),
        "corrected convention (model-faithful; not the paper's computation)": {
            "U-shaped": f"{n_cor} of {len(cor_rows)}", "not U-shaped": not_u_cor,
            "threshold table": table(cor_rows)},
        "attention-only comparison (the -noresidual configs)": att,
        "observation: λ ≡ 1 on every residual config, no content": [
            {"config": n, **rows[(n, "reference")]["attention-only"]} for n in res],
        "sources": sources,
    }
    method = ("fast ALiBi rollouts (float64; the reference convention reproduces the reference code's "
              "profiles to 1e-15) of the shipped configs with measured λ, and of the attention-only "
              "configs at depth T and 4T")
    common: dict[str, Any] = dict(method=method, precision="float64", cases=len(ref_rows) + len(att), figures=figures,
                  thresholds=thresholds, details=details,
                  setting={"configs": len(names)} if len(names) != 32 else {})
    if mismatches:
        details["stored run mismatches"] = mismatches
        return Evidence("inconclusive", **{**common, "figures": {}},
                        counterexample=None, correction=None,
                        tolerance="stored and live figures agree to 1e-9 relative")
    if verdict == "refuted":
        bad_att = [f"{r['config']}: p(1) = {r['p(1)']:.6g}" for r in att if not collapses(r, t)]
        return Evidence("refuted", **common, counterexample="; ".join(
            (["attention-only does not collapse: " + "; ".join(bad_att)] if bad_att else [])
            + [f"{len(not_u)} of {len(ref_rows)} residual configs not U-shaped (fraction "
               f"{figures['U-shaped fraction (reference)']:.3g} < often = {t['often']:g}): " + "; ".join(not_u)]))
    if verdict == "qualified":
        return Evidence("qualified", **common, correction=(
            f"often U-shaped, not always: {n_u} of {len(ref_rows)} residual configs are U-shaped "
            f"(fraction {n_u / len(ref_rows):.3g} >= often = {t['often']:g}; v1's 'U-shaped' fails); not "
            "U-shaped: " + "; ".join(not_u)))
    return Evidence("verified", **common)


# ---- H2 on the real configs: each force shows its direction when switched off

_FORCES = ("residual", "alibi", "content d+", "content d-", "causal depth")
_WORST = "worst margin by force (claimed direction)"


def _forces_decide(f, t):
    return "verified" if all(v >= -t["margin_tol"] for v in f[_WORST].values()) else "refuted"


_RULE_FORCES = Rule(
    text="For every residual config (25) in both conventions, each force's CDF margin in the direction "
    "the paper claims (residual, ALiBi and a positive diagonal logit move mass later: min_k (F_off(k) - "
    "F_on(k)); a negative diagonal logit and one more causal layer on the output side move it earlier: "
    "min_k (F_on(k) - F_off(k))) must be >= -margin_tol (float64 CDFs of length-256 profiles). Verified "
    "when every margin passes, refuted by those that do not (named with the config, position k and depth)",
    decide=_forces_decide,
    thresholds={"margin_tol": Threshold(1e-12, "float64 tolerance on a CDF margin (256 terms of <= 1)",
                                        scale="log", sensitive=100.0)},
    examples=(
        Example("the 25 measured configs: every force in its direction (worst margins; 0 where no head "
                "has a content logit of that sign)",
                {_WORST: {"residual": 7.451e-06, "alibi": 2.714e-05, "content d+": 0.0, "content d-": 0.0,
                          "causal depth": 1.441e-08}}, "verified", "realistic"),
        Example("the other sign: 'residual connections move mass earlier' (the reverse margin of the "
                "residual force)", {_WORST: {"residual": -0.5, "alibi": 0.05, "causal depth": 7.5e-6}},
                "refuted", "false"),
        Example("a non-monotone kernel on top: one more output-side layer moves mass later (margin -1)",
                {_WORST: {"residual": 0.2, "alibi": 0.05, "causal depth": -1.0}}, "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=(_WORST,),
    no_paper_figures="the paper states the forces as propositions and shows their effect in plots; it "
    "reports no CDF margins",
)

_CARD_FORCES = Card(
    paper=Setting(
        "the four architectural forces (causal masking, residual connections, ALiBi, content; "
        "docs/mathematics.rst H2a-d), shown on the measured configs in Fig. 2/3 (a)-(c) per the public code's README",
        architecture="ALiBi causal transformer rollout", residual="on", mask="causal", pe="ALiBi",
        models=("BLOOM-176B", "BLOOM-7b1", "Falcon-RW-7B", "MPT-7B", "MPT-30B"),
        datasets=("FineWeb-Edu", "DCLM", "Wikipedia"), configs=25, L=256,
        unconfirmed=("configs",),
        note="the paper proves each force under stochastically monotone kernels; switching each off on "
        "its measured configs tests those propositions in the paper's setting"),
    test=Setting(
        "fast float64 ALiBi rollouts of the 25 residual configs with one force switched off (both "
        "conventions); causal depth: the model truncated to t and t+1 layers",
        architecture="ALiBi causal transformer rollout", residual="on", mask="causal", pe="ALiBi",
        models=("BLOOM-176B", "BLOOM-7b1", "Falcon-RW-7B", "MPT-7B", "MPT-30B"),
        datasets=("FineWeb-Edu", "DCLM", "Wikipedia"), configs=25, L=256),
    proof=ProofStatus("none", note="proven in the paper for monotone kernels; here checked on measured "
                      "configs"),
)


@claim(
    f"{_H}:four-forces-configs",
    statement="On the real BLOOM/MPT/Falcon-RW configs each force shows its direction when switched off: "
    "causal depth moves mass earlier (adding a layer on the output side), the residual stream and "
    "ALiBi move it later, a positive diagonal content logit moves it later and a negative one earlier "
    "(first-order stochastic dominance).",
    latex=r"p_{\text{full}} \succeq p_{\lambda\equiv 1},\ p_{\text{full}} \succeq p_{m=0},\ "
    r"p_{d^{+}} \succeq p_{d=0} \succeq p_{d^{-}},\ e_L^{\top} P(t) \succeq e_L^{\top} R(t{+}1) P(t)",
    expected="verified",
    section="H2, H5",
    assumptions=("the 25 shipped configs with measured λ (five models, no/mean/per-head content, three "
                 "data sets, L = 256), reference and corrected conventions; d+ = max(d, 0), "
                 "d- = min(d, 0) per head",
                 "causal depth: the model's first t layers against its first t+1 layers (the new layer "
                 "on the output side), t = 1..T-1"),
    needs=("yaml",),
    rule=_RULE_FORCES,
    card=_CARD_FORCES,
)
def check_four_forces(ctx: CheckContext, *, names: Sequence[str] | None = None,
                      directions: dict[str, str] | None = None, **thresholds: float) -> Evidence:
    """``names``: configs to decide on (default: every residual config); ``directions``: the
    claimed direction of a force (``later`` or ``earlier``; default :data:`FORCE_DIRECTIONS`),
    for power tests with a claim of the other sign; ``thresholds``: rule overrides."""
    miss = _needs_yaml()
    if miss:
        return miss
    from posbias.proofs_checks.data import residual_configs

    names = list(names) if names is not None else residual_configs()
    dirs = {**FORCE_DIRECTIONS, **(directions or {})}
    for force, d in dirs.items():
        if force not in FORCE_DIRECTIONS or d not in ("later", "earlier"):
            raise InvalidArgument("directions", {force: d}, "forces of FORCE_DIRECTIONS mapped to later or earlier")
    rows, sources, mismatches = _gather(ctx, names, forces_live=_FORCES_LIVE)
    t = _RULE_FORCES.values(**thresholds)
    worst: dict[str, float] = {}
    where: dict[str, str] = {}
    table: list[dict] = []
    failures: list[str] = []
    for n in names:
        for conv in ("reference", "corrected"):
            fr = rows[(n, conv)]["forces"]
            row: dict[str, Any] = {"config": n, "convention": conv}
            for force in _FORCES:
                key = f"{force} {dirs[force]}"
                if key not in fr:
                    continue  # no content force on a no-content config
                m = fr[key]
                row[force] = float(f"{m:.6g}")
                at = f"k={fr[key + ' at k']}"
                if key + " at t" in fr:
                    at += f", depth {fr[key + ' at t']} -> {fr[key + ' at t'] + 1}"
                if force not in worst or m < worst[force]:
                    worst[force] = m
                    where[force] = f"{n} ({conv}), {at}"
                if m < -t["margin_tol"]:
                    failures.append(f"{n} ({conv}) {force} ({dirs[force]}): margin {m:.3g} at {at}")
            row["observation: max monotonicity defect of the layers (L = 64)"] = float(
                f"{fr['monotonicity defect (L = 64)']:.3g}")
            table.append(row)
    figures = {_WORST: {k: float(f"{v:.6g}") + 0.0 for k, v in worst.items()}, "where": where}
    verdict = _RULE_FORCES.decide(figures, t)
    details = {
        "rule": _RULE_FORCES.text,
        "margins": table, "claimed directions": dirs, "sources": sources,
        "note": "the output-side depth leg (the paper's statement) needs stochastically monotone layers: "
        "an ALiBi head with slope m >= 0 and any diagonal logit is monotone (F_{i+1}(k) / F_i(k) = "
        "e^{-m} Z_i / Z_{i+1} <= 1 for k < i); the monotonicity defect is checked on dense kernels at "
        "L = 64; a content margin of exactly 0 means that no head of the config has a diagonal logit "
        "of that sign (d+ or d- is then d = 0)"}
    common: dict[str, Any] = dict(method="fast ALiBi rollouts of the configs with one force switched off; CDF margins "
                  "in the claimed direction of each force", precision="float64",
                  tolerance=f"margins >= -{t['margin_tol']:g}", cases=len(table),
                  worst_margin=f"{min(worst.values()):.3g}", details=details,
                  setting={"configs": len(names)} if len(names) != 25 else {})
    if mismatches:
        details["stored run mismatches"] = mismatches
        return Evidence("inconclusive", **common)
    return Evidence(verdict, **common, figures=figures, thresholds=thresholds,
                    counterexample="; ".join(failures[:6]) or None)


# --------------------------------------------------------------------------------------------
# empirical match


_FORMAT = ("<data_dir>/measured-influence/<name>.csv with a header 'position,influence' and one row per "
           "position (0- or 1-indexed, consecutive; influence >= 0, any scale: normalised to sum 1), plus "
           "<name>.yaml (a rollout config of the same model, same L) beside it or a shipped config whose "
           "file stem is <name>, all_content/fineweb-edu/ preferred (e.g. bloom-7b1 -> all_content/fineweb-edu/bloom-7b1)")


def _read_measured(path):
    """The measured profile of ``path`` through the one bounded, validated csv reader."""
    from posbias.proofs_checks.pretrained import read_influence_csv

    return read_influence_csv(path)


_RULE_MATCH_TEXT = (
    "needs-data without measured influence in the data directory. Otherwise, per supplied model: the "
    "residual-aware rollout (measured λ, reference convention) must reach Spearman(rollout, measured) >= "
    "spearman_min (the low end of the paper's 0.88-0.98) and beat the attention-only rollout (λ ≡ 1, same "
    "layers) and the uniform profile in W1 by the margin W1(rollout) <= w1_ratio x W1(alternative). "
    "Verified when every model "
    "passes all three, refuted when one does not (named). The attention-only and uniform profiles' figures are "
    "reported as alternatives")
_RULE_MATCH = _RULE_MATCH_TEXT  # the text, as before (details["rule"])


def _match_ok(m, t):
    if m["spearman"] < t["spearman_min"]:
        return False
    if m.get("W1 rollout") is not None and m.get("W1 attention-only") is not None:
        # the theory must beat both named alternatives by the margin: the attention-only
        # rollout (which collapses onto token 1 and is beaten easily) and the uniform profile
        beats_uniform = m.get("W1 uniform") is None or m["W1 rollout"] <= t["w1_ratio"] * m["W1 uniform"]
        return m["W1 rollout"] <= t["w1_ratio"] * m["W1 attention-only"] and beats_uniform
    # the paper's own rows state the W1 comparison, not the distances
    return bool(m.get("W1 below attention-only (reported)"))


def _match_decide(f, t):
    return "verified" if all(_match_ok(m, t) for m in f["models"]) else "refuted"


_RULE_EMPIRICAL = Rule(
    text=_RULE_MATCH_TEXT,
    decide=_match_decide,
    thresholds={
        "spearman_min": Threshold(0.88, "Spearman(rollout, measured) at least this (the paper's low end)",
                                  scale="linear", step=0.01, sensitive=0.03, domain=(-1.0, 1.0)),
        "w1_ratio": Threshold(0.9, "W1(rollout) at most this fraction of W1(attention-only): the margin "
                              "by which the theory must beat the attention-only alternative", scale="log",
                              sensitive=1.25, domain=(1e-6, 10.0)),
    },
    examples=(
        Example("the paper's reported range: Spearman 0.88 and 0.98, W1 below attention-only",
                {"models": [{"name": "paper, low end", "spearman": 0.88, "W1 below attention-only (reported)": True},
                            {"name": "paper, high end", "spearman": 0.98, "W1 below attention-only (reported)": True}]},
                "verified", "paper"),
        Example("a rollout close to the measurement (1% noise): Spearman 0.99, W1 0.002 vs 0.31",
                {"models": [{"name": "bloom-7b1", "spearman": 0.99, "W1 rollout": 0.002, "W1 attention-only": 0.31}]},
                "verified", "realistic"),
        Example("the attention-only theory fits as well: W1 0.30 vs 0.31 (no margin over the alternative)",
                {"models": [{"name": "x", "spearman": 0.9, "W1 rollout": 0.30, "W1 attention-only": 0.31}]},
                "refuted", "false"),
        Example("a flat measurement the uniform profile explains better: W1 0.05 vs uniform 0.01",
                {"models": [{"name": "x", "spearman": 0.9, "W1 rollout": 0.05, "W1 attention-only": 0.31,
                             "W1 uniform": 0.01}]},
                "refuted", "false"),
        Example("the measured profile reversed (primacy where the rollout has recency): Spearman -0.6",
                {"models": [{"name": "x", "spearman": -0.6, "W1 rollout": 0.4, "W1 attention-only": 0.2}]},
                "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=("models",),
)

_CARD_MATCH = Card(
    paper=Setting(
        "Tables 2-5 (Spearman's correlation and Wasserstein distance between measured and theoretical "
        "rollouts) and Fig. 2/3 (d), per the public code's README; Spearman 0.88-0.98 (docs/mathematics.rst H5)",
        architecture="pretrained ALiBi causal LMs", residual="on", mask="causal", pe="ALiBi",
        models=("BLOOM-176B", "BLOOM-7b1", "Falcon-RW-7B", "MPT-7B", "MPT-30B"),
        datasets=("FineWeb-Edu", "DCLM", "Wikipedia"), L=256,
        measure="input-token influence of the last token (gradient attribution)",
        unconfirmed=("datasets", "measure"),
        note="the tables are indexed by model and data set in the public code (config/empirical at L = "
        "64..2048); which of them the 0.88-0.98 range covers is not confirmed here"),
    test=Setting(
        "Spearman and normalised W1 of the fast rollout (reference convention) against the measured "
        "influence supplied in the data directory; attention-only and uniform profiles as alternatives",
        architecture="pretrained ALiBi causal LMs", residual="on", mask="causal", pe="ALiBi",
        models="(supplied in the data directory)", L="(that of the supplied data)",
        measure="(as supplied)"),
    proof=ProofStatus("none", note="an empirical fit"),
)


@claim(
    f"{_H}:empirical-match",
    statement="Residual-aware rollouts with measured λ match the measured input-token influence of "
    "pretrained BLOOM/MPT/Falcon models (Spearman 0.88-0.98) better than attention-only rollouts (lower W1).",
    latex=r"\rho_s(p_{\text{rollout}}, p_{\text{measured}}) \ge 0.88,\quad "
    r"W_1(p_{\text{rollout}}, p_{\text{measured}}) \le 0.9\, W_1(p_{\lambda\equiv1}, p_{\text{measured}})",
    expected="verified",
    section="H5",
    assumptions=("measured influence of pretrained models supplied in the data directory: " + _FORMAT,),
    needs=("data: measured influence of pretrained models", "yaml"),
    rule=_RULE_EMPIRICAL,
    card=_CARD_MATCH,
)
def check_empirical_match(ctx: CheckContext, **thresholds: float) -> Evidence:
    folder = os.path.join(ctx.data_dir, "measured-influence") if ctx.data_dir else None
    if not folder or not os.path.isdir(folder):
        return Evidence("needs-data", method="Spearman and W1 of rollout vs measured influence",
                        details={"needed": "measured input-token influence of pretrained models (e.g. "
                                 "gradient-norm influence of BLOOM-7b1 / MPT-7B on fineweb-edu, as in "
                                 "herasimchyk2026) — posbias ships no model weights or measurements",
                                 "format": _FORMAT, "rule": _RULE_MATCH})
    miss = _needs_yaml()
    if miss:
        return miss
    from posbias.numerics.compare import spearman, wasserstein1
    from posbias.numerics.configs import load_config
    from posbias.proofs_checks.data import builtin_config_path, builtin_configs

    names = sorted(f[:-4] for f in os.listdir(folder) if f.endswith(".csv"))
    if not names:
        return Evidence("needs-data", method="no measured-influence/*.csv in the data directory",
                        details={"format": _FORMAT, "rule": _RULE_MATCH})
    t = _RULE_EMPIRICAL.values(**thresholds)
    shipped_names = builtin_configs()
    models, att_rows, uni_rows, used = [], [], [], []
    for name in names:
        measured = _read_measured(os.path.join(folder, name + ".csv"))
        cfg_path = os.path.join(folder, name + ".yaml")
        if not os.path.exists(cfg_path):
            # a shipped config of that stem, the FineWeb-Edu per-head content preferred
            prefer = [f"all_content/fineweb-edu/{name}", f"no_content/{name}"]
            prefer += [n for n in shipped_names if n.rsplit("/", 1)[1] == name]
            shipped = [n for n in prefer if n in shipped_names]
            if not shipped:
                raise InvalidArgument("measured influence", name, "a <name>.yaml config beside it or a shipped config name")
            cfg_path = builtin_config_path(shipped[0])
            used.append(shipped[0])
        else:
            used.append(cfg_path)
        cfg = load_config(cfg_path, length=measured.size)
        p = cfg.profile()
        pa = cfg.attention_only().profile()
        pu = np.full(measured.size, 1.0 / measured.size)
        m = {"name": name, "L": int(measured.size), "spearman": float(spearman(p, measured)),
             "W1 rollout": float(wasserstein1(p, measured)), "W1 attention-only": float(wasserstein1(pa, measured)),
             "W1 uniform": float(wasserstein1(pu, measured))}
        models.append(m)
        att_rows.append({"name": name, "spearman": float(spearman(pa, measured)), "W1": m["W1 attention-only"]})
        uni_rows.append({"name": name, "W1": float(wasserstein1(pu, measured))})
    figures = {"models": [{k: (float(f"{v:.4g}") if isinstance(v, float) else v) for k, v in m.items()}
                          for m in models]}
    verdict = _RULE_EMPIRICAL.decide(figures, t)
    bad = [str(m["name"]) for m in figures["models"] if not _match_ok(m, t)]
    return Evidence(
        verdict,
        method="Spearman and normalised W1 of the fast rollout (reference convention) vs the measured influence",
        precision="float64",
        cases=len(models),
        counterexample=None if verdict == "verified" else "; ".join(bad),
        figures=figures, thresholds=thresholds,
        alternatives={"attention-only rollout (λ ≡ 1)": att_rows, "uniform profile": uni_rows},
        setting={"models": tuple(m["name"] for m in models), "L": tuple(sorted({m["L"] for m in models})),
                 "measure": "supplied measured influence"},
        details={"models": [{**m, "match": m["name"] not in bad} for m in figures["models"]],
                 "configs used": used, "format": _FORMAT, "rule": _RULE_MATCH},
    )

