"""Helpers shared by the claims of herasimchyk2026 (not a claim module: the leading underscore
keeps it out of the registration).

Three groups, one per kind of check:

- exact property sweeps over generated causal kernels and schedules (stochastic, primacy-drift,
  recency-drift, diagonal-positive, dichotomy): the seeded generator, the sweep sizes, the case
  printout, the card of a property claim and the verdict its rule gives on the sweep's figures;
- precise ALiBi cases (alibi-recency, content-diagonal): CDF margins of mpmath profiles, the
  layers of a generated case with one force changed, the card and the margin tolerance tied to
  the working precision;
- the 32 shipped rollout configs of herasimchyk2026's code (u-shape-measured-schedules,
  four-forces-configs): the figures of one config (U figures, attention-only collapse, the
  margins of the four forces), the stored run of every config and its agreement with live rows.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from posbias.errors import NeedsExtra
from posbias.numerics.alibi import alibi_kernel_dense, alibi_layer, alibi_rollout
from posbias.numerics.configs import RolloutConfig, load_config
from posbias.proofs_checks.cards import Card, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import case_rng, format_matrix
from posbias.proofs_checks.data import builtin_config_path, data_path
from posbias.proofs_checks.registry import CheckContext, Evidence

__all__ = [
    "CONFIG_DATASETS",
    "CONFIG_MODELS",
    "LIVE_DEFAULT",
    "PAPER",
    "RUN_FILE",
    "Matrix",
    "alibi_card",
    "all_zero_verdict",
    "as_arg",
    "both_margins",
    "build_layers",
    "case_generator",
    "cdf_margin",
    "collapse_figures",
    "config_figures",
    "config_setting",
    "decided",
    "depth_profiles",
    "figures_close",
    "force_margins",
    "format_case",
    "gather_rows",
    "load_shipped",
    "margin_tol_override",
    "monotonicity_defect",
    "needs_yaml",
    "precise_margin_tol",
    "precise_tolerance",
    "property_card",
    "reference_profile",
    "run_path",
    "stored_rows",
    "sweep_sizes",
    "thorough_setting",
    "u_figures",
]

PAPER = "herasimchyk2026"

#: an exact matrix (rows of Fractions): a causal kernel A(t), a layer R(t) or a product P(t)
Matrix = list[list[Fraction]]


# --------------------------------------------------------------------------------------------
# exact property sweeps over generated cases (H1, H2a, H2b, H4)


def case_generator(ctx: CheckContext, slug: str) -> random.Random:
    """The seeded generator of the cases of ``herasimchyk2026:<slug>``."""
    return case_rng(ctx, PAPER, slug)


def format_case(kernels: Iterable[Matrix], lams: Iterable[Fraction]) -> str:
    """One generated case, printed as a counterexample: its kernels A(1..T) and schedule λ."""
    ks = " | ".join(format_matrix(A) for A in kernels)
    return f"kernels A(1..T) = {ks}; λ = [{', '.join(str(x) for x in lams)}]"


def sweep_sizes(ctx: CheckContext) -> tuple[int, int, int]:
    """(number of cases, max L, max T) of a property sweep; larger with ``--thorough``."""
    return (1000, 8, 8) if ctx.thorough else (120, 6, 5)


def as_arg(ks: list, T: int) -> Any:
    """The kernels of a depth-``T`` case as the exact rollouts take them: the one kernel of a
    depth-0 case (its size), else the list of ``T`` kernels."""
    return ks[0] if T == 0 else ks


def property_card(source: str, kernel: str, *, unconfirmed: tuple[str, ...] = ("kernel",), note: str = "",
                  test_kernel: str | None = None, proof_note: str = "") -> Card:
    """The card of a property claim checked exactly over generated cases."""
    return Card(
        paper=Setting(source, kernel=kernel, residual="on: R(t) = (1-λ_t) I + λ_t A(t)", mask="causal",
                      L="any", layers="any", grid="λ_t ∈ [0, 1]", unconfirmed=unconfirmed,
                      note=note or "theorem/proposition numbers of the paper not confirmed here (the "
                      "statement follows docs/explanation/mathematics.rst (herasimchyk2026))"),
        test=Setting("exact Fraction rollouts of seeded generated cases",
                     kernel=test_kernel or kernel, residual="on: R(t) = (1-λ_t) I + λ_t A(t)",
                     mask="causal", L="1..6", layers="0..5", grid="λ_t ∈ {0, 1/4, 1/2, 3/4, 1}", cases=120),
        proof=ProofStatus("numeric", note=proof_note or "a property test over generated cases (exact "
                          "arithmetic); the paper proves it, posbias holds no symbolic proof"),
    )


def thorough_setting(ctx: CheckContext) -> dict:
    """The test setting of a ``--thorough`` sweep, where it differs from the card's."""
    n, maxL, maxT = sweep_sizes(ctx)
    return {} if not ctx.thorough else {"L": f"1..{maxL}", "layers": f"0..{maxT}", "cases": n}


def decided(ev: Evidence, rule: Rule, figures: dict, ctx: CheckContext,
            thresholds: dict | None = None) -> Evidence:
    """The evidence with its figures, the verdict its rule gives on them and the test setting of a
    thorough run."""
    ev.figures = figures
    ev.thresholds = dict(thresholds or {})
    ev.verdict = rule.decide(figures, rule.values(**ev.thresholds))
    if ev.verdict == "verified":
        ev.counterexample = None
    ev.setting = {**thorough_setting(ctx), **ev.setting}
    return ev


def all_zero_verdict(figures: Mapping, names: Iterable[str]) -> str:
    """The decision of an exact identity's rule: ``verified`` when every named figure (a count
    or an exact deviation) is 0, else ``refuted``."""
    return "verified" if all(figures[n] == 0 for n in names) else "refuted"


# --------------------------------------------------------------------------------------------
# precise ALiBi cases (H2c, H2d)


def cdf_margin(p, q):
    """``min_k (F_q(k) - F_p(k))``, ``k = 1..L-1``, and the 1-indexed ``k``: ``p`` dominates
    ``q`` (more mass late) iff the margin is ``>= 0``.  Works on mpf lists and float arrays."""
    L = len(p)
    if L == 1:
        return 0, 1
    fp = fq = 0
    worst, pos = None, 1
    for k in range(L - 1):
        fp += p[k]
        fq += q[k]
        m = fq - fp
        if worst is None or m < worst:
            worst, pos = m, k + 1
    return worst, pos


def build_layers(layers, *, slope_factor=1.0, diag=None, temperature=1.0):
    """The ALiBi layers of a generated case (``(slopes, diagonal, weights)`` per layer) with the
    slopes scaled by ``slope_factor`` and the diagonal logits mapped by ``diag``."""
    out = []
    for m, d, w in layers:
        dd = d if diag is None else diag(d)
        out.append(alibi_layer((m * slope_factor).tolist(), diagonal=list(dd), weights=w.tolist(),
                               temperature=temperature))
    return out


def alibi_card(source: str, test_source: str, L: str, layers: str, heads: str, grid: str, cases: int) -> Card:
    """The card of an ALiBi force claim checked on precise rollouts of generated cases."""
    return Card(
        paper=Setting(source, kernel="causal ALiBi (slopes m_h >= 0), any diagonal logits and head weights",
                      residual="on: λ_t ∈ [0, 1]", mask="causal", pe="ALiBi", L="any", layers="any", heads="any",
                      unconfirmed=("kernel",),
                      note="proposition number of the paper not confirmed here (statement after docs/explanation/mathematics.rst H2)"),
        test=Setting(test_source, kernel="causal ALiBi (slopes m_h >= 0), any diagonal logits and head weights",
                     residual="on: λ_t ∈ [0, 1]", mask="causal", pe="ALiBi", L=L, layers=layers, heads=heads,
                     grid=grid, cases=cases),
        proof=ProofStatus("numeric", note="a property test over generated cases at working precision "
                          "(mpmath); the paper proves it"),
    )


def precise_margin_tol() -> Threshold:
    """The rule threshold ``margin_tol`` of a CDF margin of precise rollouts: 10^-(dps-10) at the
    default 30 digits."""
    return Threshold(1e-20, "CDF margins of precise rollouts count as >= 0 down to this "
                     "(10^-(dps-10); overridden per run with --dps)", scale="log", sensitive=100.0)


def precise_tolerance(dps: int) -> mpmath.mpf:
    """``10^-(dps-10)``: a CDF margin of rollouts computed at ``dps`` digits counts as >= 0 down
    to minus this (ten digits of the working precision kept for the rounding of the rollout)."""
    return mpmath.mpf(10) ** (-(dps - 10))


def margin_tol_override(ctx: CheckContext) -> dict:
    """The rule's ``margin_tol`` for this run: none at the default 30 digits, else
    :func:`precise_tolerance` of ``--dps``."""
    return {} if ctx.dps == 30 else {"margin_tol": float(precise_tolerance(ctx.dps))}


# --------------------------------------------------------------------------------------------
# the 32 rollout configs of herasimchyk2026's public code (H3, H5)


def load_shipped(name, convention):
    """The shipped rollout config ``name`` in ``convention`` (needs the 'yaml' extra)."""
    return load_config(builtin_config_path(name), convention=convention)


@functools.lru_cache(maxsize=64)
def reference_profile(name: str) -> np.ndarray:
    """The profile of the shipped config ``name`` in the reference convention (float64, read-only;
    computed once per process and shared by the config claims that read whole profiles)."""
    p = load_shipped(name, "reference").profile()
    p.setflags(write=False)
    return p


def needs_yaml():
    """The needs-data evidence of a config claim when the 'yaml' extra is missing, else None."""
    try:
        import ruamel.yaml  # noqa: F401
    except ImportError:
        return Evidence("needs-data", method="the real configs need the 'yaml' extra",
                        details={"missing": str(NeedsExtra("yaml", "ruamel.yaml"))})
    return None


def config_setting(name: str) -> dict:
    """Model, content variant and data set of a shipped config name."""
    parts = name.split("/")
    model = parts[-1].removesuffix("-noresidual")
    return {"model": model, "content": parts[0].removesuffix("_content"),
            "dataset": parts[1] if len(parts) == 3 else None,
            "residual": not parts[-1].endswith("-noresidual")}


#: the models and data sets of the measured configs (the paper's and the shipped ones)
CONFIG_MODELS = ("BLOOM-176B", "BLOOM-7b1", "Falcon-RW-7B", "MPT-7B", "MPT-30B")
CONFIG_DATASETS = ("FineWeb-Edu", "DCLM", "Wikipedia")

#: the configs computed live by the default check, in both conventions (the configs of posbias
#: 0.2); every other row is read from the stored run, and ``--thorough`` recomputes them all
LIVE_DEFAULT = ("no_content/bloom-7b1", "no_content/bloom-7b1-noresidual", "no_content/mpt-7b",
                "no_content/mpt-7b-noresidual", "all_content/fineweb-edu/bloom-7b1",
                "all_content/fineweb-edu/mpt-7b", "mean_content/fineweb-edu/mpt-7b")


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


def collapse_figures(cfg: RolloutConfig) -> dict:
    """The attention-only rollout of ``cfg`` (λ ≡ 1, its own layers): ``p(1)``, the tail mass
    ``Σ_{j>=2} p(j)`` at depth T and with the layers repeated to depth 4T (summed directly, so
    tails far below 1e-16 are resolved), and whether the profile is non-increasing."""
    pa = cfg.attention_only().profile()
    deeper = alibi_rollout(cfg.length, list(cfg.layers) * 4, 1.0)
    return {"p(1)": float(pa[0]), "tail": float(np.sum(pa[1:])), "tail at 4T": float(np.sum(deeper[1:])),
            "non-increasing": bool(np.all(np.diff(pa) <= 0))}


def depth_profiles(cfg: RolloutConfig) -> list:
    """Profiles ``p_t = e_L R(t) ⋯ R(1)`` of the model truncated to its first ``t`` layers,
    ``t = 1..T`` (measured λ and content as configured; fast path, ``O(T^2 H L)``)."""
    return [alibi_rollout(cfg.length, list(cfg.layers[:t]), cfg.lambdas[:t]) for t in range(1, cfg.num_layers + 1)]


def monotonicity_defect(layer: Any, L: int) -> float:
    """``max_{i<i', k} (F_{i'}(k) - F_i(k))`` of one layer's dense kernel (float64): ``<= 0`` up
    to rounding when the kernel is stochastically monotone."""
    F = np.cumsum(alibi_kernel_dense(L, layer), axis=1)
    return float(np.max(F[1:] - F[:-1]))


def both_margins(on: np.ndarray, off: np.ndarray) -> dict:
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
    """CDF margins of each force on one config, both orientations (see :func:`both_margins`):
    residual (p vs λ ≡ 1), ALiBi (p vs slopes 0), content d+ (d+ = max(d, 0) vs d = 0), content
    d- (d- = min(d, 0) vs d = 0) and causal depth (the model's first t+1 layers vs its first t,
    the new layer on the output side; the worst over t, with the depth ``t`` where it is reached;
    ``depth_profiles_fn``: how the truncated models' profiles are computed, default
    :func:`depth_profiles`).
    Returns ``{force: {"later": (margin, k[, t]), "earlier": (margin, k[, t])}}``."""
    p = cfg.profile()
    out = {"residual": both_margins(p, cfg.attention_only().profile()),
           "alibi": both_margins(p, cfg.without_alibi().profile())}
    if content:
        pos = dataclasses.replace(cfg, layers=tuple(
            dataclasses.replace(l, diagonal=np.maximum(l.diagonal, 0)) for l in cfg.layers))
        neg = dataclasses.replace(cfg, layers=tuple(
            dataclasses.replace(l, diagonal=np.minimum(l.diagonal, 0)) for l in cfg.layers))
        p0 = cfg.without_content().profile()
        out["content d+"] = both_margins(pos.profile(), p0)
        out["content d-"] = both_margins(neg.profile(), p0)
    profiles = (depth_profiles_fn or depth_profiles)(cfg)
    depth = {"later": (np.inf, 1, 1), "earlier": (np.inf, 1, 1)}
    for t in range(len(profiles) - 1):
        m = both_margins(profiles[t + 1], profiles[t])
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
    cfg = load_shipped(name, convention)
    st = config_setting(name)
    out = {"config": name, "convention": convention, **st, "layers": cfg.num_layers, "heads": cfg.num_heads,
           "u": u_figures(cfg.profile())}
    if not st["residual"]:
        out["attention-only"] = collapse_figures(cfg)  # the config itself is attention-only
    elif collapse:
        out["attention-only"] = collapse_figures(cfg.without_content())
    if forces and st["residual"]:
        out["forces"] = _force_rows(force_margins(cfg, content=st["content"] != "no"))
        out["forces"]["monotonicity defect (L = 64)"] = max(monotonicity_defect(l, 64) for l in cfg.layers)
    return out


# ---- the stored run of every config (read by the default check, reproduced by --thorough)

RUN_FILE = "herasimchyk2026-configs.json"


def run_path() -> str:
    """Where the stored run of every config lives (package data)."""
    return data_path("runs", RUN_FILE)


def stored_rows() -> dict:
    """The stored run as ``{(config, convention): row}`` (empty when there is none)."""
    path = run_path()
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


def figures_close(a: float, b: float, rel: float = 1e-9) -> bool:
    """Stored and live figures agree (floats to 1e-9 relative, 1e-300 absolute; the round-off
    figures of :data:`_ROUND_OFF_KEYS` to 1e-12 absolute)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(
            _round_off_close(a[k], b[k], rel) if any(r in k for r in _ROUND_OFF_KEYS)
            else figures_close(a[k], b[k], rel) for k in a)
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, (str, type(None))):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-300
    return a == b


def _round_off_close(a: Any, b: Any, rel: float) -> bool:
    """A round-off figure: both at most :data:`_ROUND_OFF_ABS`, or close as :func:`figures_close`."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return (abs(a) <= _ROUND_OFF_ABS and abs(b) <= _ROUND_OFF_ABS) or figures_close(a, b, rel)
    return figures_close(a, b, rel)


def gather_rows(ctx: CheckContext, names: Sequence[str], *,
                forces_live: Sequence[str] | None) -> tuple:
    """Rows of ``names`` in both conventions: live where the default check computes them (or all
    with ``--thorough``), else from the stored run; every live row that the stored run also holds
    must agree with it.  ``forces_live``: None when the four-force margins are not needed, else
    the configs whose margins the default check computes live.  Returns ``(rows, sources,
    mismatches)``."""
    stored = stored_rows()
    rows, mismatches = {}, []
    live_n = stored_n = 0
    for name in names:
        for conv in ("reference", "corrected"):
            key = (name, conv)
            live = ctx.thorough or name in LIVE_DEFAULT or key not in stored
            if live:
                want_forces = forces_live is not None and (
                    ctx.thorough or name in forces_live or key not in stored or "forces" not in stored[key])
                row = config_figures(name, conv, forces=want_forces, collapse=ctx.thorough or key not in stored)
                live_n += 1
                if key in stored:
                    ref = stored[key]
                    cmp_keys = [k for k in row if k in ref]
                    if not all(figures_close(row[k], ref[k]) for k in cmp_keys):
                        mismatches.append(f"{name} ({conv})")
                    for k in ("forces", "attention-only"):  # the parts not recomputed by default
                        if k not in row and k in ref:
                            row[k] = ref[k]
            else:
                row = stored[key]
                stored_n += 1
            rows[key] = row
    return rows, {"computed live": live_n, "read from the stored run": stored_n}, mismatches
