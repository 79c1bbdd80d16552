"""What the trained-LM proxies of chowdhury2026 C10 and C11 share: the stored runs, their
summaries (Step 0 against Step N of one model), the gate, the figures their rules decide on, the
evidence and the card.

A small-scale proxy of C10 (training keeps the U, peak/valley grows) and C11 (next-token
training does not overcome the dead zone): a transformers causal LM (LLaMA architecture, 4
layers, hidden 64, 4 heads, L = 64) trained by ``posbias train --task lm-synthetic`` on
in-context unigram estimation (:mod:`posbias.measurements.lm_training`; the Bayes predictor
weighs every earlier token equally), its final position's influence profile measured by the
exact Jacobian route of ``posbias measure`` at Step 0 and at Step N.  The default check reads
the stored runs (``posbias/proofs_checks/data/trained-lm/``, with their provenance and the rules
fixed before they were trained, ``RULES.md``) and never imports torch; ``--thorough`` trains the
same configuration again.  A proxy at this scale is at most ``qualified``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from posbias.measurements import lm_training as lt
from posbias.numerics.shape import shape_with_and_without_final
from posbias.proofs_checks import gates
from posbias.proofs_checks.cards import Card, Rule, Setting, Threshold
from posbias.proofs_checks.claims.chowdhury2026._pretrained import (
    DEAD_ZONE_DEPTH,
    U_FACTOR,
    final_token_figures,
    proxy_card,
    proxy_final_token_words,
    shape_figures,
    u_of,
)
from posbias.proofs_checks.data import data_path, read_results
from posbias.proofs_checks.registry import CheckContext, Evidence

__all__ = [
    "LM_ASSUMPTIONS",
    "LM_GATE",
    "LM_GROWTH",
    "LM_NEEDS",
    "LM_PROXY_TEXT",
    "LM_SCALE",
    "LM_SEEDS",
    "LM_STORED",
    "LM_THOROUGH",
    "LM_THRESHOLDS",
    "lm_card",
    "lm_decision",
    "lm_evidence",
    "lm_examples",
    "lm_figures",
    "lm_final_token",
    "lm_gate",
    "lm_show",
    "lm_stored_results",
    "lm_summaries",
    "lm_thorough_work",
    "shape_words",
]

#: the final position's learned fraction every seed must reach before a profile counts
LM_GATE = gates.LM_GATE
#: ``|log10(R_N / R_0)|`` beyond which the peak/valley ratio has grown (or fallen)
LM_GROWTH = 0.1
#: the stored configuration (file name under data/trained-lm/)
LM_STORED = "unigram_llama_H4_d64_L64_lr0.003"
#: the configuration and seeds ``--thorough`` trains again (those of the stored runs)
LM_THOROUGH: dict[str, Any] = {"arch": "llama", "layers": 4, "hidden": 64, "heads": 4,
                               "length": 64, "iterations": 1500, "eval_every": 100,
                               "test_size": 2000, "influence_samples": 8}
LM_SEEDS = (0, 1)
LM_SCALE = ("small-scale proxy: LLaMA architecture, 4 layers, hidden 64, 4 heads, L = 64, "
            "in-context unigram estimation (16 tokens: data whose Bayes predictor weighs every "
            "earlier token equally, so the middle is as useful as the ends), not the paper's "
            "pretrained models or natural text")
LM_PROXY_TEXT = (
    "Proxy, not the paper's setting (docs/explanation/mathematics.rst, 'The setting of C10 and C11'): a small causal LM trained "
    "on in-context unigram estimation, a task whose optimum (the Bayes predictor) weighs every "
    "earlier token equally; it tests whether next-token training fills the Step-0 valley when "
    "the data need the middle, which C11 itself says targeted data would do. It neither "
    "verifies nor refutes the paper's claim about pretrained checkpoints on natural text.")
#: what the trained-LM proxies assume, and what they need
LM_ASSUMPTIONS = ("stored runs of posbias train --task lm-synthetic (data/trained-lm/), "
                  + LM_SCALE,)
LM_NEEDS = ("stored results", "models (for --thorough)")
#: the thresholds both proxies' rules share
LM_THRESHOLDS = {
    "gate": Threshold(LM_GATE, "the final position's learned fraction every seed must reach",
                      scale="linear", step=0.01, sensitive=0.1, domain=(0.0, 1.0)),
    "factor": Threshold(U_FACTOR, "end blocks at least this many times the valley block make a "
                        "macroscopic U", sensitive=1.25),
}
#: the re-trained results document of ``--thorough``, kept for the second proxy
_LM_TRAINED: dict = {}


def lm_stored_results(data_dir: str | None = None) -> dict:
    """The stored results document of the trained LM (``data/trained-lm/<LM_STORED>.json``,
    or ``<data_dir>/trained-lm/`` when given)."""
    if data_dir and os.path.isdir(os.path.join(data_dir, "trained-lm")):
        base = os.path.join(data_dir, "trained-lm")
    else:
        base = data_path("trained-lm")
    path = os.path.join(base, LM_STORED + ".json")
    if not os.path.isfile(path):
        raise FileNotFoundError(path)
    return read_results(path)


def lm_thorough_work(ctx: CheckContext) -> list:
    """What ``--thorough`` re-trains for the trained-LM proxies: the stored configuration, its
    seeds one after the other; the time is the stored runs' measured wall time."""
    try:
        doc = lm_stored_results(getattr(ctx, "data_dir", None))
        seconds = float(sum(r["wall_seconds"] for r in doc["runs"]))
    except (OSError, KeyError, ValueError, TypeError):
        seconds = float("nan")
    return [("lm-train", f"re-training the small causal LM of the proxies ({LM_THOROUGH}, seeds "
             f"{', '.join(map(str, LM_SEEDS))})", seconds)]


def _lm_thorough() -> dict:
    if "doc" not in _LM_TRAINED:
        config = lt.LMTrainConfig(**LM_THOROUGH)
        runs = lt.lm_train_seeds(config, LM_SEEDS, progress=False)
        _LM_TRAINED["doc"] = lt.lm_results_document(config, runs,
                                                    command="posbias check --thorough")
    return _LM_TRAINED["doc"]


def lm_summaries(doc: dict) -> list[dict]:
    """Per seed: Step 0 (the first evaluation) and Step N (the last) of the influence profile
    (:func:`posbias.numerics.shape.profile_shape`): U tests, peak/valley ratios ``R_0, R_N``,
    growth ``g = log10(R_N / R_0)``, valley depths ``D_0, D_N``, and the learned fraction at
    Step N."""
    out = []
    for run in doc["runs"]:
        hist = [e for e in run["history"] if "influence" in e]
        if len(hist) < 2 or hist[0]["iteration"] != 0:
            raise ValueError(f"seed {run['seed']}: no influence profile at Step 0 and Step N")
        w0 = shape_with_and_without_final(hist[0]["influence"])
        wn = shape_with_and_without_final(hist[-1]["influence"])

        def pair(s0, sn):
            return {"u0": {**u_of(s0), "u": s0.u}, "uN": {**u_of(sn), "u": sn.u},
                    "R0": s0.peak_valley, "RN": sn.peak_valley,
                    "g": float(np.log10(sn.peak_valley / s0.peak_valley)),
                    "D0": s0.valley_depth, "DN": sn.valley_depth,
                    "atoms0": (s0.first_atom, s0.last_atom),
                    "atomsN": (sn.first_atom, sn.last_atom)}

        out.append({"seed": run["seed"], "iteration": hist[-1]["iteration"],
                    "learned": hist[-1]["final_learned"], **pair(w0["with"], wn["with"]),
                    "without_final": pair(w0["without"], wn["without"])})
    return out


def shape_words(s: Mapping) -> str:
    """One side (with or without the final token) of a run's Step-0 and Step-N figures in
    words: U tests, R, g, D and the end atoms."""
    return (f"U at Step 0 {s['u0']['u']} (ends/valley {s['u0']['first_over_valley']:.4g}, "
            f"{s['u0']['last_over_valley']:.4g}), at Step N {s['uN']['u']} (valley block "
            f"{s['uN']['valley_block']}, ends/valley {s['uN']['first_over_valley']:.4g}, "
            f"{s['uN']['last_over_valley']:.4g}); R {s['R0']:.3g} -> {s['RN']:.3g} (g "
            f"{s['g']:+.3f}); valley depth D {s['D0']:.3f} -> {s['DN']:.3f}; end atoms "
            f"p(1)/p(2), p(end)/p(end-1) {s['atoms0'][0]:.3g}, {s['atoms0'][1]:.3g} -> "
            f"{s['atomsN'][0]:.3g}, {s['atomsN'][1]:.3g}")


def lm_show(summaries: Sequence[Mapping]) -> str:
    """The summaries in words, one seed after the other, with and without the final token,
    with the seed spread of the growth (both ways)."""
    parts = [f"seed {s['seed']} at {s['iteration']} it (learned {s['learned']:.3f}): "
             f"{shape_words(s)}; without the final token: {shape_words(s['without_final'])}"
             for s in summaries]
    spread = max(s["g"] for s in summaries) - min(s["g"] for s in summaries)
    wo = [s["without_final"]["g"] for s in summaries]
    return "; ".join(parts) + (f"; seed spread of g {spread:.3f} ({max(wo) - min(wo):.3f} "
                               "without the final token)")


def lm_final_token(rule: Rule, summaries: list[dict]) -> tuple[dict, str]:
    """What the final token decides in the seeds' figures (:func:`final_token_figures`) and, in
    words, which properties exist only through it (or only without it) and whether the
    verdict with the final token alone differs."""
    figures = lm_figures(summaries)
    final = final_token_figures(rule, figures, "seeds", "seed")
    words = proxy_final_token_words(figures["seeds"], lambda s: f"seed {s['seed']}", "seed",
                                    LM_GROWTH)
    if final["decided_by_final_token"]:
        words += ("; " if words else "") + (
            f"the final token alone decides: {final['verdict_with_final']} with it, "
            f"{final['verdict_without_final']} without it")
    return final, words


def lm_gate(summaries):
    """``(inconclusive, why)`` when a seed's learned fraction is below the gate, else None."""
    low = [f"{s['learned']:.3f} (seed {s['seed']})" for s in summaries if s["learned"] < LM_GATE]
    if low:
        return ("inconclusive", (f"gate not passed: learned fraction {', '.join(low)} < "
                                 f"{LM_GATE}; the profiles are not evidence: {lm_show(summaries)}"))
    return None


def lm_decision(rule: Rule, summaries: list[dict]) -> tuple[str, str, bool]:
    """``(verdict, words, gated)``: the verdict of ``rule`` on the summaries' figures with the
    summaries in words; below the gate, inconclusive with the gate's words (``gated`` True)."""
    verdict = rule.apply(lm_figures(summaries)).verdict
    gated = lm_gate(summaries)
    if gated:
        return gated[0], gated[1], True
    return verdict, lm_show(summaries), False


def lm_figures(summaries: list[dict]) -> dict:
    """The figures the proxies' rules decide on, per seed (from :func:`lm_summaries`)."""
    return {"seeds": [{"seed": s["seed"], "learned": float(f"{s['learned']:.4g}"),
                       **shape_figures(s), "without_final": shape_figures(s["without_final"])}
                      for s in summaries]}


def lm_examples(u0=(9.0, 8.0), uN=(12.0, 20.0), g=0.3, D0=0.3, DN=0.2, learned=0.9, n=2,
                without_final=None):
    """Figures of ``n`` seeds in the form of :func:`lm_figures`, for the rules' examples;
    ``without_final`` gives the figures (``u0``, ``uN``, ``g``, ``D0``, ``DN``) that differ
    without the final token (the others are the same both ways)."""
    def u(x):
        return {"interior": len(x) < 3 or x[2], "first_over_valley": x[0],
                "last_over_valley": x[1]}
    shape = {"u0": u0, "uN": uN, "g": g, "D0": D0, "DN": DN, **(without_final or {})}
    wo = {k: (u(v) if k in ("u0", "uN") else v) for k, v in shape.items()}
    return {"seeds": [{"seed": k, "learned": learned, "u0": u(u0), "uN": u(uN), "g": g,
                       "D0": D0, "DN": DN, "without_final": dict(wo)} for k in range(n)]}


def _rounded(x: Any) -> Any:
    """``x`` with every float at any level to 4 significant digits."""
    if isinstance(x, Mapping):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_rounded(v) for v in x]
    return float(f"{x:.4g}") if isinstance(x, float) else x


def _lm_provenance(doc: dict) -> dict:
    prov = doc.get("provenance", {})
    return {"name": doc.get("name"), "command": prov.get("command"), "seeds": prov.get("seeds"),
            "iterations": [r["iterations"] for r in doc["runs"]],
            "wall_seconds": [r["wall_seconds"] for r in doc["runs"]],
            "versions": prov.get("versions"), "machine": prov.get("machine"),
            "created": prov.get("created")}


def lm_evidence(ctx: CheckContext, verdict_fn: Callable[..., Any], the_rule: Rule,
                what: str) -> Evidence:
    """The evidence of a trained-LM proxy: the stored (or, with ``--thorough``, re-trained)
    runs summarized and decided by ``verdict_fn(summaries) -> (verdict, text)`` (the verdict
    of ``the_rule``), with what the final token decides."""
    rule = the_rule.text
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
    final, final_words = lm_final_token(the_rule, summaries)
    text = LM_PROXY_TEXT + " Result of the proxy: " + text
    if final_words:
        text += "; with and without the final token: " + final_words
    kw = {"correction": text} if verdict == "qualified" else (
        {"counterexample": text} if verdict == "refuted" else {"discrepancy": text})
    return Evidence(
        verdict, method=what, rule=rule, precision="float32 training; exact Jacobian influence",
        tolerance=f"gate learned >= {LM_GATE}; U factor {U_FACTOR:g}; growth |g| > "
                  f"{LM_GROWTH}; dead zone D < {DEAD_ZONE_DEPTH:g}",
        cases=len(summaries), figures=lm_figures(summaries),
        parameters={"scale": LM_SCALE, "source": ("re-trained (--thorough)" if ctx.thorough
                                                  else "stored results")},
        details={"rule": rule, "provenance": _lm_provenance(doc), "final_token": final,
                 "seeds": [_rounded(s) for s in summaries]},
        **kw)


_LM_PROXY_TEST = Setting(
    "stored runs of `posbias train --task lm-synthetic` (data/trained-lm/, rules in RULES.md): "
    "Step-0 and Step-N exact-Jacobian influence of the final position, seeds 0 and 1",
    architecture="LLaMA-style causal decoder with residuals", models="4 layers, hidden 64, "
    "4 heads", residual="on", mask="causal", pe="RoPE", L=64,
    data="in-context unigram estimation (16 tokens; the optimum weighs every earlier token "
    "equally)", training="next-token training, 1,500 iterations, lr 3e-3",
    measure="exact input-output Jacobian norm of the final position")


def lm_card(section: str) -> Card:
    """The card of a trained-LM proxy of the paper's ``section`` (C10 or C11)."""
    return proxy_card(section, _LM_PROXY_TEST, (
        "a proxy: a synthetic task whose optimum weighs every position equally stands in for "
        "natural-text pretraining; its verdict is about that task at this scale, not the "
        "paper's claim",))
