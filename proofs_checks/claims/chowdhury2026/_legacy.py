"""Claims of chowdhury2026 (*Lost in the Middle at Birth*; :ref:`math-chowdhury2026`, C1-C9).

The Cesàro model at initialization: the discrete rollout of ``N = (1-α)I + αM`` against the
continuum theory (Hardy kernel, density ρ_H, residual mixture, recency delta, dead zone, U shape), checked by
exact rationals, mpmath and the sympy derivations.  The claims about the paper's architectures at
initialization (the premise q·k ≈ 0, peak/valley, RoPE, the Step-0 fit) are decided on Step-0
measurements of Qwen2-0.5B and GPT-2 small at full width (:mod:`posbias.proofs_checks.measured`;
stored runs of ``posbias measure`` by default, live with ``--thorough``).

Every claim registers its ``rule``: how the computed numbers map to a verdict, written from the
paper's statement before computing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np
from numpy.typing import ArrayLike

from posbias.proofs_checks.pretrained import macroscopic_profile
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

if TYPE_CHECKING:
    from posbias.proofs_checks.measured import Step0Run

#: the Step-0 runs a measured claim reads (``measured.step0_data``: stem -> run)
Step0Data = dict[str, "Step0Run"]
#: an mpmath function of one real variable (mpmath is untyped: its numbers are Any)
MpFunction = Callable[[Any], Any]
#: a replacement of the RoPE rotation: ``transform(k, rng)`` rotates the keys ``k`` (n x dim)
RopeTransform = Callable[[np.ndarray, np.random.Generator], np.ndarray]

__all__ = [
]


PAPER = "chowdhury2026"



# ----------------------------------------------------------------------------- helpers
def _continuous_part(depth: int, alpha: Fraction) -> MpFunction:
    """The continuum density's continuous part ``c(x)`` for constant ``α`` as an mpmath
    callable, from the sympy derivation (binomial mixture of Gamma laws in ``t = ln 1/x``)."""
    import sympy

    from posbias.derivations import residual

    a = sympy.Rational(alpha.numerator, alpha.denominator)
    expr = residual.mixture_sum(depth, a, residual.t)
    f = sympy.lambdify(residual.t, expr, modules="mpmath")
    return lambda x: f(mpmath.log(1 / mpmath.mpf(x)))


def _mpf(q: Fraction) -> Any:
    return mpmath.mpmathify(q)


def _nstr(x: Any, n: int = 3) -> str:
    return mpmath.nstr(mpmath.mpf(x), n) if x else "0"


def _interior_error(profile, c, lo=Fraction(1, 10), hi=Fraction(9, 10)):
    """``max |L p(j) - c(j/L)|`` over ``lo <= j/L <= hi`` (mpmath at the working precision)."""
    L = len(profile)
    worst = mpmath.mpf(0)
    for j in range(1, L + 1):
        if lo * L <= j <= hi * L:
            worst = max(worst, abs(L * _mpf(profile[j - 1]) - c(mpmath.mpf(j) / L)))
    return worst


def _growth(lengths, errors):
    """Largest ratio ``c(2L)/c(L)`` of ``c(L) = L·err(L)`` over the last two doublings.

    ``err = O(1/L)`` means ``c`` stays bounded: a ratio above 1 at every doubling would show a
    slower rate, while a ratio below 1 (pre-asymptotically faster decay) is consistent with it.
    """
    c = [L * e for L, e in zip(lengths, errors)]
    return max(float(c[k + 1] / c[k]) for k in range(len(c) - 3, len(c) - 1))


def _rate(lengths, errors):
    """Least-squares slope of ``log err`` against ``log L`` over the three largest ``L``
    (-1 for an O(1/L) rate in the asymptotic regime)."""
    xs = [math.log(L) for L in lengths[-3:]]
    ys = [float(mpmath.log(e)) for e in errors[-3:]]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


# ----------------------------------------------------------------------------- C1
from posbias.proofs_checks.cards import (  # noqa: E402  (the measured claims' cards and rules)
    Card,
    Example,
    ProofStatus,
    Rule,
    Setting,
    Threshold,
)

#: the date of the commit that fixed the rules of the measured claims (C1, C7-C10, proxies)
MEASURED_RULES_FIXED = "2026-12-01"

def _source(data: Step0Data) -> dict:
    """Where the Step-0 runs came from: stored files (with provenance) or live measurement."""
    out = {}
    for stem, r in data.items():
        p = r.provenance
        out[stem] = {"source": p.get("source"), "command": p.get("command"),
                     "date": p.get("date"), "versions": p.get("versions"),
                     "wall_seconds": p.get("wall_seconds")}
    return out


# ----------------------------------------------------------------------------- X2/C3 limit

#: the date the rules of the analytic claims (C2-C7) were fixed, before the verdicts they decide
ANALYTIC_RULES_FIXED = "2026-12-01"
#: the paper's depth (its untrained Qwen2 has 24 layers) and its running context length
ANALYTIC_DEPTH = 24
ANALYTIC_LENGTH = 2048
#: constant α of the residual regime on the paper's architectures: the paper states none; these
#: are the best constant α of the Step-0 fits measured here (docs/mathematics.rst, "The scale of C4, C6 and C7":
#: fitted α ≈ 0.07-0.13; Qwen2-0.5B at L = 2048: 0.070)
RESIDUAL_ALPHAS = (Fraction(7, 100), Fraction(1, 10), Fraction(13, 100))
_MODEL = "Cesàro model (uniform causal attention at initialization)"
_NOT_READ = ("the paper's full text could not be read here: the source is its abstract and "
             "docs/mathematics.rst; section numbers are not confirmed")
_ALPHA_NOTE = ("the paper states no α: the values are the best constant α of the Step-0 fits "
               "measured here (docs/mathematics.rst, 'The scale of C4, C6 and C7')")


def _alpha_names(alphas: Iterable[Fraction]) -> tuple:
    return tuple(str(a) for a in alphas)


def _interior_errors(profile, c, lo=Fraction(1, 10), hi=Fraction(9, 10)):
    """``(max |L p(j) - c(j/L)|, max |L p(j)/c(j/L) - 1|)`` over ``lo <= j/L <= hi`` (mpmath at
    the working precision)."""
    L = len(profile)
    worst = rel = mpmath.mpf(0)
    for j in range(1, L + 1):
        if lo * L <= j <= hi * L:
            cj = c(mpmath.mpf(j) / L)
            v = profile[j - 1]
            v = mpmath.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else mpmath.mpmathify(v)
            gap = abs(L * v - cj)
            worst = max(worst, gap)
            rel = max(rel, gap / abs(cj))
    return worst, rel


from posbias.proofs_checks.claims.chowdhury2026._pretrained import (  # noqa: E402, I001
    BINS, U_FACTOR, peak_valley_ratio, u_shape_test, is_u as _is_u, u_figures as _u_figures)  # noqa: F401

# ----------------------------------------------------------------------------------------------
# after training a small causal LM (C10, C11 proxies): Step 0 -> Step N of one model
# A small-scale proxy of C10 (training keeps the U, peak/valley grows) and C11 (next-token
# training does not overcome the dead zone): a transformers causal LM (LLaMA architecture, 4
# layers, hidden 64, 4 heads, L = 64) trained by ``posbias train --task lm-synthetic`` on
# in-context unigram estimation (:mod:`posbias.measurements.lm_training`; the Bayes predictor
# weighs every earlier token equally), its final position's influence profile measured by the
# exact Jacobian route of ``posbias measure`` at Step 0 and at Step N.  The default check reads
# the stored runs (``posbias/proofs_checks/data/trained-lm/``, with their provenance and the
# rules fixed before they were trained, ``RULES.md``) and never imports torch; ``--thorough``
# trains the same configuration again.  A proxy at this scale is at most ``qualified``.

__all__ += [
    "DEAD_ZONE_DEPTH",
    "LM_GATE",
    "LM_GROWTH",
    "LM_STORED",
    "dead_zone_trained_verdict",
    "lm_stored_results",
    "lm_summaries",
    "pretrained_comparison_setting",
    "u_persists_trained_verdict",
    "valley_depth",
]

#: the final position's learned fraction every seed must reach before a profile counts
LM_GATE = 0.5
#: ``|log10(R_N / R_0)|`` beyond which the peak/valley ratio has grown (or fallen)
LM_GROWTH = 0.1
#: a dead zone: the smallest block mean below this fraction of the mean block (1 / U_FACTOR)
DEAD_ZONE_DEPTH = 1 / U_FACTOR
#: the stored configuration (file name under data/trained-lm/)
LM_STORED = "unigram_llama_H4_d64_L64_lr0.003"
_LM_THOROUGH: dict[str, Any] = {"arch": "llama", "layers": 4, "hidden": 64, "heads": 4, "length": 64,
                "iterations": 1500, "eval_every": 100, "test_size": 2000, "influence_samples": 8}
_LM_SEEDS = (0, 1)
_LM_SCALE = ("small-scale proxy: LLaMA architecture, 4 layers, hidden 64, 4 heads, L = 64, "
             "in-context unigram estimation (16 tokens: data whose Bayes predictor weighs every "
             "earlier token equally, so the middle is as useful as the ends), not the paper's "
             "pretrained models or natural text")
_LM_TRAINED: dict = {}


def valley_depth(profile: ArrayLike) -> float:
    """``D`` = smallest block mean / mean of the block means over :data:`BINS` blocks (1 for a
    flat profile; a dead zone when ``D < DEAD_ZONE_DEPTH``).

    >>> valley_depth([1] * 16 + [3] * 16)  # blocks 1 (x 8) and 3 (x 8): mean 2
    0.5
    """
    b = macroscopic_profile(profile, BINS)
    return float(b.min() / b.mean())


def lm_stored_results(data_dir: str | None = None) -> dict:
    """The stored results document of the trained LM (``data/trained-lm/<LM_STORED>.json``,
    or ``<data_dir>/trained-lm/`` when given)."""
    import json
    import os

    from posbias.proofs_checks.data import data_path

    if data_dir and os.path.isdir(os.path.join(data_dir, "trained-lm")):
        base = os.path.join(data_dir, "trained-lm")
    else:
        base = data_path("trained-lm")
    path = os.path.join(base, LM_STORED + ".json")
    if not os.path.isfile(path):
        raise FileNotFoundError(path)
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _lm_thorough_work(ctx: CheckContext) -> list:
    """What ``--thorough`` re-trains for the trained-LM proxies: the stored configuration, its
    seeds one after the other; the time is the stored runs' measured wall time."""
    try:
        doc = lm_stored_results(getattr(ctx, "data_dir", None))
        seconds = float(sum(r["wall_seconds"] for r in doc["runs"]))
    except (OSError, KeyError, ValueError, TypeError):
        seconds = float("nan")
    return [("lm-train", f"re-training the small causal LM of the proxies ({_LM_THOROUGH}, seeds "
             f"{', '.join(map(str, _LM_SEEDS))})", seconds)]


def _lm_thorough() -> dict:
    if "doc" not in _LM_TRAINED:
        from posbias.measurements import lm_training as lt

        config = lt.LMTrainConfig(**_LM_THOROUGH)
        runs = lt.lm_train_seeds(config, _LM_SEEDS, progress=False)
        _LM_TRAINED["doc"] = lt.lm_results_document(config, runs,
                                                    command="posbias check --thorough")
    return _LM_TRAINED["doc"]


def lm_summaries(doc: dict) -> list[dict]:
    """Per seed: Step 0 (the first evaluation) and Step N (the last) of the influence profile:
    U tests, peak/valley ratios ``R_0, R_N``, growth ``g = log10(R_N / R_0)``, valley depths
    ``D_0, D_N``, and the learned fraction at Step N."""
    out = []
    for run in doc["runs"]:
        hist = [e for e in run["history"] if "influence" in e]
        if len(hist) < 2 or hist[0]["iteration"] != 0:
            raise ValueError(f"seed {run['seed']}: no influence profile at Step 0 and Step N")
        p0, pn = hist[0]["influence"], hist[-1]["influence"]
        r0, rn = peak_valley_ratio(p0)["ratio"], peak_valley_ratio(pn)["ratio"]
        out.append({"seed": run["seed"], "iteration": hist[-1]["iteration"],
                    "learned": hist[-1]["final_learned"],
                    "u0": u_shape_test(p0), "uN": u_shape_test(pn),
                    "R0": r0, "RN": rn, "g": float(np.log10(rn / r0)),
                    "D0": valley_depth(p0), "DN": valley_depth(pn)})
    return out


def _lm_show(summaries: Sequence[Mapping]) -> str:
    parts = []
    for s in summaries:
        parts.append(
            f"seed {s['seed']} at {s['iteration']} it (learned {s['learned']:.3f}): U at Step 0 "
            f"{s['u0']['u']} (ends/valley {s['u0']['first_block/valley']}, "
            f"{s['u0']['last_block/valley']}), at Step N {s['uN']['u']} (valley block "
            f"{s['uN']['valley_block']}, ends/valley {s['uN']['first_block/valley']}, "
            f"{s['uN']['last_block/valley']}); R {s['R0']:.3g} -> {s['RN']:.3g} (g {s['g']:+.3f}); "
            f"valley depth D {s['D0']:.3f} -> {s['DN']:.3f}")
    spread = max(s["g"] for s in summaries) - min(s["g"] for s in summaries)
    return "; ".join(parts) + f"; seed spread of g {spread:.3f}"


def _lm_gate(summaries):
    low = [f"{s['learned']:.3f} (seed {s['seed']})" for s in summaries if s["learned"] < LM_GATE]
    if low:
        return ("inconclusive", (f"gate not passed: learned fraction {', '.join(low)} < "
                                 f"{LM_GATE}; the profiles are not evidence: {_lm_show(summaries)}"))
    return None


_LM_U_RULE = (
    f"per seed, Step 0 and Step N (final evaluation) influence profiles; U test over {BINS} "
    f"blocks (valley block interior, both end blocks >= {U_FACTOR:g} x it); R = max(p(1), p(L)) "
    f"/ min p, g = log10(R_N / R_0). Gate: learned fraction (ln V - loss)/(ln V - Bayes loss) "
    f"of the final position at Step N >= {LM_GATE} in every seed, else inconclusive. A seed "
    f"without a U at Step 0 -> inconclusive. Every seed without a U at Step N, or every seed "
    f"g < -{LM_GROWTH} -> refuted. Every seed with a U at Step N and g > +{LM_GROWTH} -> "
    f"qualified (a proxy at small scale is at most qualified). Otherwise inconclusive.")

_LM_D_RULE = (
    f"per seed, valley depth D = smallest of {BINS} block means / mean block, at Step 0 and "
    f"Step N; a dead zone when D < {DEAD_ZONE_DEPTH:g}. Gate: learned fraction of the final "
    f"position at Step N >= {LM_GATE} in every seed, else inconclusive. A seed with D_0 >= "
    f"{DEAD_ZONE_DEPTH:g} -> inconclusive (no dead zone at Step 0). Every seed D_N >= "
    f"{DEAD_ZONE_DEPTH:g} -> refuted (overcome). Every seed D_N < {DEAD_ZONE_DEPTH:g} -> "
    f"qualified (not overcome, at small scale). Otherwise inconclusive.")


_LM_PROXY_TEXT = (
    "Proxy, not the paper's setting (docs/mathematics.rst, 'The setting of C10 and C11'): a small causal LM trained "
    "on in-context unigram estimation, a task whose optimum (the Bayes predictor) weighs every "
    "earlier token equally; it tests whether next-token training fills the Step-0 valley when "
    "the data need the middle, which C11 itself says targeted data would do. It neither "
    "verifies nor refutes the paper's claim about pretrained checkpoints on natural text.")


def _lm_figures(summaries: list[dict]) -> dict:
    """The figures the proxies' rules decide on, per seed (from :func:`lm_summaries`)."""
    def u(x):
        return {"interior": 1 < x["valley_block"] < BINS,
                "first_over_valley": float(x["first_block/valley"]),
                "last_over_valley": float(x["last_block/valley"])}

    return {"seeds": [{"seed": s["seed"], "learned": float(f"{s['learned']:.4g}"),
                       "u0": u(s["u0"]), "uN": u(s["uN"]), "g": float(f"{s['g']:.4g}"),
                       "D0": float(f"{s['D0']:.4g}"), "DN": float(f"{s['DN']:.4g}")}
                      for s in summaries]}


def _lm_u_decide(f: Mapping, t: Mapping) -> str:
    seeds = f["seeds"]
    if any(s["learned"] < t["gate"] for s in seeds):
        return "inconclusive"
    if not all(_is_u(s["u0"], t["factor"]) for s in seeds):
        return "inconclusive"
    if (all(not _is_u(s["uN"], t["factor"]) for s in seeds)
            or all(s["g"] < -t["growth"] for s in seeds)):
        return "refuted"
    if all(_is_u(s["uN"], t["factor"]) and s["g"] > t["growth"] for s in seeds):
        return "qualified"
    return "inconclusive"


def _lm_d_decide(f: Mapping, t: Mapping) -> str:
    seeds = f["seeds"]
    if any(s["learned"] < t["gate"] for s in seeds):
        return "inconclusive"
    if not all(s["D0"] < t["depth"] for s in seeds):
        return "inconclusive"
    if all(s["DN"] >= t["depth"] for s in seeds):
        return "refuted"
    if all(s["DN"] < t["depth"] for s in seeds):
        return "qualified"
    return "inconclusive"


def _lms(u0=(9.0, 8.0), uN=(12.0, 20.0), g=0.3, D0=0.3, DN=0.2, learned=0.9, n=2):
    def u(x):
        return {"interior": len(x) < 3 or x[2], "first_over_valley": x[0],
                "last_over_valley": x[1]}
    return {"seeds": [{"seed": k, "learned": learned, "u0": u(u0), "uN": u(uN), "g": g,
                       "D0": D0, "DN": DN} for k in range(n)]}


_LM_THRESHOLDS = {
    "gate": Threshold(LM_GATE, "the final position's learned fraction every seed must reach",
                      scale="linear", step=0.01, sensitive=0.1, domain=(0.0, 1.0)),
    "factor": Threshold(U_FACTOR, "end blocks at least this many times the valley block make a "
                        "macroscopic U", sensitive=1.25),
}

LM_U_RULE = Rule(
    text=_LM_U_RULE + " " + _LM_PROXY_TEXT,
    decide=_lm_u_decide,
    thresholds={**_LM_THRESHOLDS,
                "growth": Threshold(LM_GROWTH, "|log10(R_N / R_0)| beyond which the ratio has "
                                    "grown or fallen", sensitive=2.0)},
    outcomes=("qualified", "refuted", "inconclusive"),
    examples=(
        Example("the paper's picture: the U kept and R grown tenfold (g = 1)", _lms(g=1.0),
                "qualified", "paper"),
        Example("training removes the U in every seed (a flat profile at Step N)",
                _lms(uN=(1.3, 1.2), g=-0.4), "refuted", "false"),
        Example("the U kept but R falls in every seed", _lms(g=-0.5), "refuted", "false"),
        Example("the U kept without growth (g = 0)", _lms(g=0.0), "inconclusive", "false"),
        Example("the task not learned (learned fraction 0.3)", _lms(learned=0.3),
                "inconclusive", "realistic"),
    ),
    fixed=MEASURED_RULES_FIXED,
    deciding=("seeds",),
)

LM_D_RULE = Rule(
    text=_LM_D_RULE + " " + _LM_PROXY_TEXT,
    decide=_lm_d_decide,
    thresholds={**_LM_THRESHOLDS,
                "depth": Threshold(DEAD_ZONE_DEPTH, "valley depth D below which the middle is a "
                                   "dead zone", sensitive=1.25)},
    outcomes=("qualified", "refuted", "inconclusive"),
    examples=(
        Example("the paper's picture: the valley deepened by training (D 0.3 -> 0.2)", _lms(),
                "qualified", "paper"),
        Example("training lifts the valley to the mean (D_N 0.9) in every seed", _lms(DN=0.9),
                "refuted", "false"),
        Example("no dead zone at Step 0 (D_0 0.7)", _lms(D0=0.7), "inconclusive", "false"),
        Example("the task not learned (learned fraction 0.2)", _lms(learned=0.2),
                "inconclusive", "realistic"),
    ),
    fixed=MEASURED_RULES_FIXED,
    deciding=("seeds",),
)


def u_persists_trained_verdict(summaries: list[dict]) -> tuple[str, str]:
    """The verdict of ``chowdhury2026:u-persists-trained-proxy`` from :func:`lm_summaries`
    (rule: :data:`LM_U_RULE`, ``data/trained-lm/RULES.md``)."""
    verdict = LM_U_RULE.apply(_lm_figures(summaries)).verdict
    gated = _lm_gate(summaries)
    if gated:
        return gated
    shown = _lm_show(summaries)
    if verdict == "inconclusive" and not all(s["u0"]["u"] for s in summaries):
        return verdict, "no U at Step 0 in every seed, nothing to persist: " + shown
    if verdict == "refuted":
        lost = all(not s["uN"]["u"] for s in summaries)
        return verdict, ("training removes the U in every seed" if lost else
                         "peak/valley falls in every seed") + f" ({_LM_SCALE}): " + shown
    if verdict == "qualified":
        return verdict, (f"U kept and peak/valley grown in every seed, at small scale only "
                         f"({_LM_SCALE}): " + shown)
    return verdict, "seeds disagree, or the U is kept without growth: " + shown


def dead_zone_trained_verdict(summaries: list[dict]) -> tuple[str, str]:
    """The verdict of ``chowdhury2026:dead-zone-trained-proxy`` from :func:`lm_summaries`
    (rule: :data:`LM_D_RULE`, ``data/trained-lm/RULES.md``)."""
    verdict = LM_D_RULE.apply(_lm_figures(summaries)).verdict
    gated = _lm_gate(summaries)
    if gated:
        return gated
    shown = _lm_show(summaries)
    if verdict == "inconclusive" and not all(s["D0"] < DEAD_ZONE_DEPTH for s in summaries):
        return verdict, "no dead zone at Step 0 in every seed: " + shown
    if verdict == "refuted":
        return verdict, ("next-token training lifts the valley to at least "
                         f"{DEAD_ZONE_DEPTH:g} x the mean block in every seed ({_LM_SCALE}): "
                         + shown)
    if verdict == "qualified":
        return verdict, (f"the dead zone stays in every seed, at small scale only ({_LM_SCALE}): "
                         + shown)
    return verdict, "seeds disagree: " + shown


def _lm_provenance(doc: dict) -> dict:
    prov = doc.get("provenance", {})
    return {"name": doc.get("name"), "command": prov.get("command"), "seeds": prov.get("seeds"),
            "iterations": [r["iterations"] for r in doc["runs"]],
            "wall_seconds": [r["wall_seconds"] for r in doc["runs"]],
            "versions": prov.get("versions"), "machine": prov.get("machine"),
            "created": prov.get("created")}


def _lm_evidence(ctx: CheckContext, verdict_fn: Callable[..., Any], rule: str, what: str) -> Evidence:
    try:
        doc = _lm_thorough() if ctx.thorough else lm_stored_results(ctx.data_dir)
    except FileNotFoundError as exc:
        return Evidence("needs-data", method=f"missing stored results: {exc}", rule=rule,
                        details={"rule": rule})
    except ImportError as exc:
        return Evidence("needs-data", method=f"--thorough re-trains: {exc}", rule=rule,
                        details={"rule": rule})
    try:
        summaries = lm_summaries(doc)
    except ValueError as exc:
        return Evidence("inconclusive", method="trained-LM influence profiles",
                        discrepancy=str(exc), rule=rule, details={"rule": rule})
    verdict, text = verdict_fn(summaries)
    text = _LM_PROXY_TEXT + " Result of the proxy: " + text
    kw = {"correction": text} if verdict == "qualified" else (
        {"counterexample": text} if verdict == "refuted" else {"discrepancy": text})
    return Evidence(
        verdict, method=what, rule=rule, precision="float32 training; exact Jacobian influence",
        tolerance=f"gate learned >= {LM_GATE}; U factor {U_FACTOR:g}; growth |g| > "
                  f"{LM_GROWTH}; dead zone D < {DEAD_ZONE_DEPTH:g}",
        cases=len(summaries), figures=_lm_figures(summaries),
        parameters={"scale": _LM_SCALE, "source": ("re-trained (--thorough)" if ctx.thorough
                                                   else "stored results")},
        details={"rule": rule, "provenance": _lm_provenance(doc),
                 "seeds": [{k: (v if not isinstance(v, float) else float(f"{v:.4g}"))
                            for k, v in s.items()} for s in summaries]},
        **kw)


_LM_PROXY_TEST = Setting(
    "stored runs of `posbias train --task lm-synthetic` (data/trained-lm/, rules in RULES.md): "
    "Step-0 and Step-N exact-Jacobian influence of the final position, seeds 0 and 1",
    architecture="LLaMA-style causal decoder with residuals", models="4 layers, hidden 64, "
    "4 heads", residual="on", mask="causal", pe="RoPE", L=64,
    data="in-context unigram estimation (16 tokens; the optimum weighs every earlier token "
    "equally)", training="next-token training, 1,500 iterations, lr 3e-3",
    measure="exact input-output Jacobian norm of the final position")


def pretrained_comparison_setting(section: str) -> Setting:
    """The paper's setting of C10 and C11 (``section``): pretrained checkpoints of its
    architectures on natural text, compared with their Step 0; the section and figure numbers
    are not confirmed here (the abstract states the comparison)."""
    return Setting(f"the paper's comparison of initialized and pretrained networks ({section} "
                   "in docs/mathematics.rst, 'The setting of C10 and C11'; the abstract: "
                   "'standard training does not overcome the topological valley'; section and "
                   "figure of the paper not confirmed here): pretrained checkpoints of the "
                   "paper's architectures on natural text",
                   architecture="causal decoder with residuals (Qwen2, GPT-2)",
                   models=("Qwen2-0.5B (24 layers)", "GPT-2 small"), residual="on",
                   mask="causal", L=2048, data="natural text (billions of tokens)",
                   training="standard pretraining",
                   measure="input-output gradient influence of the final position",
                   unconfirmed=("models", "L"))


def _lm_card(section: str) -> Card:
    return Card(
        paper=pretrained_comparison_setting(section),
        test=_LM_PROXY_TEST, kind="proxy",
        proof=ProofStatus("none", note="an empirical proxy experiment"),
        differences=("a proxy: a synthetic task whose optimum weighs every position equally "
                     "stands in for natural-text pretraining; its verdict is about that task "
                     "at this scale, not the paper's claim",))


@claim(
    f"{PAPER}:u-persists-trained-proxy",
    statement="Proxy of C10 at small scale: next-token training of a small causal LM keeps the "
    "macroscopic U of its Step-0 influence profile and the peak-to-valley ratio grows.",
    latex=r"U(p_0) \wedge U(p_N),\quad \frac{\max(p_{N,1}, p_{N,L})}{\min_j p_{N,j}} > "
    r"\frac{\max(p_{0,1}, p_{0,L})}{\min_j p_{0,j}}",
    expected="refuted",
    section="C10",
    assumptions=("stored runs of posbias train --task lm-synthetic (data/trained-lm/), "
                 + _LM_SCALE,),
    needs=("stored results", "models (for --thorough)"),
    rule=LM_U_RULE,
    card=_lm_card("C10"),
    thorough_work=_lm_thorough_work,
)
def _u_persists_trained(ctx: CheckContext) -> Evidence:
    return _lm_evidence(ctx, u_persists_trained_verdict, LM_U_RULE.text,
                        "U test and peak/valley of the final position's influence, Step 0 vs "
                        "Step N, trained small LM")


@claim(
    f"{PAPER}:dead-zone-trained-proxy",
    statement="Proxy of C11 at small scale: standard next-token training of a small causal LM "
    "does not overcome the dead zone of its Step-0 influence profile (the valley stays below "
    "half the mean).",
    latex=r"\frac{\min_k \bar p_{N,k}}{\operatorname{mean}_k \bar p_{N,k}} < \tfrac12",
    expected="refuted",
    section="C11",
    assumptions=("stored runs of posbias train --task lm-synthetic (data/trained-lm/), "
                 + _LM_SCALE,),
    needs=("stored results", "models (for --thorough)"),
    rule=LM_D_RULE,
    card=_lm_card("C11"),
    thorough_work=_lm_thorough_work,
)
def _dead_zone_trained(ctx: CheckContext) -> Evidence:
    return _lm_evidence(ctx, dead_zone_trained_verdict, LM_D_RULE.text,
                        "valley depth of the final position's influence, Step 0 vs Step N, "
                        "trained small LM")
