"""What the natural-text proxies of chowdhury2026 C10 and C11 share: the stored runs of small
causal LMs pretrained here on natural text, their summaries (Step 0 against Step N, with the
boundary statistic), the gate, the figures the four rules decide on, the evidence and the card.

C10 says that after pretraining on natural text the macroscopic U of the Step-0 influence
profile persists, that training adds local "content" spikes (at document boundaries of chunked
data, for instance) and that the peak-to-valley ratio grows (from about 10^2 to about 10^3);
C11 that standard next-token training does not fill the dead zone.  The paper measures
pretrained checkpoints (Qwen2, GPT-2 at L = 2048) that cannot be downloaded here.  The closest
setting posbias reaches on its own is a small ``transformers`` causal LM pretrained on real
English prose (``posbias train --task lm-text``: the Python documentation as plain text, a BPE
tokenizer trained on it, :mod:`posbias.measurements.lm_text`), with the final position's
influence profile measured by the exact Jacobian route at Step 0 and at every evaluation.

Four proxies, one question each, decided by rules fixed before the stored runs finished
(``data/trained-lm-text/RULES.md``): the U persists, R grows, the valley is not filled,
boundaries become local peaks.  Every rule first asks the gate of
:data:`posbias.measurements.lm_text.GATE_NATS`: the model's validation loss at least 0.1 nats
below the best smoothed bigram model, else the profiles are not evidence about a trained LM.
A proxy is at most ``qualified``; its card says how its scale differs from the paper's.

The default check reads the stored results and never imports torch; ``--thorough`` trains the
stored configurations again (hours on a CPU; the estimate is printed first).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from posbias.measurements import lm_text as lx
from posbias.numerics.shape import Shape, shape_with_and_without_final
from posbias.proofs_checks.cards import Card, Rule, Setting, Threshold
from posbias.proofs_checks.claims.chowdhury2026._lm import LM_GROWTH, shape_words
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
    "BOUNDARY_HALF_WIDTH",
    "BOUNDARY_PEAK",
    "FACTOR_THRESHOLD",
    "GATE_THRESHOLD",
    "TEXT_ASSUMPTIONS",
    "TEXT_GATE",
    "TEXT_NEEDS",
    "TEXT_RULE_COMMON",
    "TEXT_SCALE",
    "TEXT_STORED",
    "boundary_percentile",
    "gated",
    "text_card",
    "text_evidence",
    "text_examples",
    "text_stored_results",
    "text_summaries",
    "text_thorough_work",
]

#: the gate in nats below the bigram baseline (the value of ``lm_text.GATE_NATS``, restated
#: here so that the default check never imports torch)
TEXT_GATE = 0.1
#: the stored configurations (file names under ``data/trained-lm-text/``)
TEXT_STORED = ("text_llama_H8_d128_L256_V4096_lr0.001",
               "text_gpt2_H8_d128_L256_V4096_lr0.001")
#: the local background of a position: the median of the profile over this many positions on
#: each side, the position and its neighbours (``j - 1 .. j + 2``) left out
BOUNDARY_HALF_WIDTH = 16
#: a boundary is a local peak of its window when its ratio to the local background exceeds
#: this fraction of the same ratio at the window's ordinary positions
BOUNDARY_PEAK = 0.95

def _data_folder(data_dir: str | None) -> str:
    if data_dir and os.path.isdir(os.path.join(data_dir, "trained-lm-text")):
        return os.path.join(data_dir, "trained-lm-text")
    return data_path("trained-lm-text")


def text_stored_results(data_dir: str | None = None) -> list[dict]:
    """The stored results documents of :data:`TEXT_STORED` (``data/trained-lm-text/<name>.json``,
    or ``<data_dir>/trained-lm-text/`` when that folder exists); raises FileNotFoundError
    naming the files when one of the package's own is missing, or, in a ``data_dir`` of the
    user's, when none is there (a subset of the runs there is read as given; the evidence
    names the runs it read)."""
    base = _data_folder(data_dir)
    own = base == _data_folder(None)
    docs, missing = [], []
    for name in TEXT_STORED:
        path = os.path.join(base, name + ".json")
        if os.path.isfile(path):
            docs.append(read_results(path))
        else:
            missing.append(path)
    if not docs or (own and missing):
        raise FileNotFoundError(", ".join(missing))
    return docs


def _local_ratios(p: np.ndarray, positions: np.ndarray, half: int) -> np.ndarray:
    """For each ``j`` of ``positions``: ``max(p[j], p[j + 1])`` over the median of ``p`` on
    ``j - half .. j + half + 1`` without ``j - 1 .. j + 2``."""
    offsets = np.concatenate([np.arange(-half, -1), np.arange(3, half + 2)])
    around = p[positions[:, None] + offsets[None, :]]
    return np.maximum(p[positions], p[positions + 1]) / np.median(around, axis=1)


def boundary_percentile(profile: Sequence[float], position: int, separators: Sequence[int],
                        half: int = BOUNDARY_HALF_WIDTH) -> float:
    """Where the document boundary at ``position`` (the separator; the first token of the next
    document follows it) ranks among the ordinary positions of the same window: the fraction
    of positions ``i`` whose local ratio (:func:`_local_ratios`: ``max(p_i, p_{i+1})`` over the
    median of the ``2 half`` positions around) is below the boundary's.  Ordinary positions are
    those whose neighbourhood lies inside the window and is at least ``half + 4`` positions
    from every separator.  About 0.5 when boundaries are like any other position; near 1 when they are
    local peaks.

    >>> p = np.ones(64); p[30] = 5.0
    >>> boundary_percentile(p + np.linspace(0, 0.01, 64), 30, [30], half=8)
    1.0
    >>> boundary_percentile(np.linspace(1, 2, 64), 30, [30], half=8) < 0.6
    True
    """
    p = np.asarray(profile, dtype=np.float64)
    L = p.size
    if not half + 1 <= position <= L - half - 3:
        raise ValueError(f"boundary at {position} too close to the window's ends")
    b = _local_ratios(p, np.array([position]), half)[0]
    null = _ordinary_ratios(p, separators, half)
    if not null.size:
        raise ValueError("no ordinary position to compare the boundary with")
    return float(np.mean(null < b))


def _ordinary_ratios(profile: Sequence[float] | np.ndarray, separators: Sequence[int],
                     half: int = BOUNDARY_HALF_WIDTH) -> np.ndarray:
    """The local ratios (:func:`_local_ratios`) of a window's ordinary positions, as in
    :func:`boundary_percentile`: how spiky the profile is away from any boundary."""
    p = np.asarray(profile, dtype=np.float64)
    cand = np.arange(half + 1, p.size - half - 2)
    seps = np.asarray(separators, dtype=np.int64)
    if len(seps):
        cand = cand[np.min(np.abs(seps[None, :] - cand[:, None]), axis=1) > half + 3]
    return _local_ratios(p, cand, half) if cand.size else np.zeros(0)


def _diagnostics(run: Mapping, record: Mapping) -> dict:
    """Figures beside the rules (they decide nothing): the U test, R and D at every evaluation,
    the same without the final token (its own, diagonal influence), and the 95th percentile of the
    ordinary positions' local ratios in the boundary windows (local spikes anywhere)."""
    series = []
    for e in run["history"]:
        if "influence" not in e:
            continue
        both_ways = shape_with_and_without_final(e["influence"])
        sh, wo = both_ways["with"], both_ways["without"]
        u = u_of(sh)
        series.append({"iteration": e["iteration"], "u": sh.u,
                       "first_over_valley": u["first_over_valley"],
                       "last_over_valley": u["last_over_valley"],
                       "R": float(f"{sh.peak_valley:.4g}"),
                       "D": float(f"{sh.valley_depth:.4g}"),
                       "without_final": {"u": wo.u, **u_of(wo),
                                         "R": float(f"{wo.peak_valley:.4g}"),
                                         "D": float(f"{wo.valley_depth:.4g}")}})
        if e.get("boundary_influence") and record:
            pooled = np.concatenate([_ordinary_ratios(q, seps) for q, seps in
                                     zip(e["boundary_influence"], record["eot_positions"])])
            if pooled.size:
                series[-1]["ordinary_local_ratio_p95"] = float(
                    f"{np.percentile(pooled, 95):.4g}")
    return {"series": series}


def _boundary_stats(entry: Mapping, record: Mapping) -> dict | None:
    profiles = entry.get("boundary_influence")
    if not profiles or not record:
        return None
    pct = [boundary_percentile(p, q, seps)
           for p, q, seps in zip(profiles, record["positions"], record["eot_positions"])]
    return {"windows": len(pct), "mean": float(np.mean(pct)),
            "peak_share": float(np.mean([x > BOUNDARY_PEAK for x in pct])),
            "percentiles": [float(f"{x:.3g}") for x in pct]}


def text_summaries(docs: Sequence[Mapping]) -> list[dict]:
    """Per stored run (configuration and seed): Step 0 (iteration 0) and Step N (the last
    evaluation) of the mean influence profile: U tests, peak/valley ratios ``R_0, R_N``,
    growth ``g = log10(R_N / R_0)``, valley depths ``D_0, D_N``, the margin below the bigram
    baseline at Step N, and the boundary percentiles at Step 0 and Step N."""
    out = []
    for doc in docs:
        cfg = doc.get("config", {})
        for run in doc["runs"]:
            hist = [e for e in run["history"] if "influence" in e]
            if len(hist) < 2 or hist[0]["iteration"] != 0:
                raise ValueError(f"{doc.get('name')} seed {run['seed']}: no influence profile "
                                 "at Step 0 and Step N")
            e0, en = hist[0], hist[-1]
            w0 = shape_with_and_without_final(e0["influence"])
            wn = shape_with_and_without_final(en["influence"])
            rec = doc.get("boundary_windows") or {}
            out.append({"run": f"{cfg.get('arch', '?')} seed {run['seed']}",
                        "iteration": en["iteration"], "margin": en["below_bigram"],
                        **_shape_pair(w0["with"], wn["with"]),
                        "without_final": _shape_pair(w0["without"], wn["without"]),
                        "B0": _boundary_stats(e0, rec), "BN": _boundary_stats(en, rec),
                        "diagnostics": _diagnostics(run, rec)})
    return out


def _shape_pair(s0: Shape, sn: Shape) -> dict:
    """The figures of a run's Step-0 and Step-N shapes (one side: with or without the final
    token): U tests, peak/valley ratios and their parts, growth, valley depths, end atoms."""
    return {"u0": {**u_of(s0), "u": s0.u}, "uN": {**u_of(sn), "u": sn.u},
            "U0": u_of(s0), "UN": u_of(sn),
            "R0": s0.peak_valley, "RN": sn.peak_valley,
            "g": float(np.log10(sn.peak_valley / s0.peak_valley)),
            "D0": s0.valley_depth, "DN": sn.valley_depth,
            "atoms0": (s0.first_atom, s0.last_atom), "atomsN": (sn.first_atom, sn.last_atom)}


def _figures(summaries: Sequence[Mapping]) -> dict:
    """The figures the rules decide on, per run."""
    def b(x):
        return None if x is None else {k: float(f"{x[k]:.4g}") for k in
                                       ("windows", "mean", "peak_share")}

    return {"runs": [{"run": s["run"], "margin": float(f"{s['margin']:.4g}"),
                      **shape_figures(s), "B0": b(s["B0"]), "BN": b(s["BN"]),
                      "without_final": shape_figures(s["without_final"])}
                     for s in summaries]}


# --- the rules' common parts ----------------------------------------------------------------

def gated(runs: Sequence[Mapping], t: Mapping) -> bool:
    """A run below the gate (its validation loss not far enough below the bigram's)."""
    return any(r["margin"] < t["gate"] for r in runs)


def text_examples(margin: float = 0.5, u0: tuple = (9.0, 8.0), uN: tuple = (12.0, 20.0),
                  g: float = 0.5, D0: float = 0.3, DN: float = 0.2,
                  B0: tuple | None = (8, 0.5, 0.0), BN: tuple | None = (8, 0.97, 0.75),
                  n: int = 2, without_final: Mapping | None = None) -> dict:
    """Figures of ``n`` runs for the rules' examples; ``without_final`` gives the figures
    (``u0``, ``uN``, ``g``, ``D0``, ``DN``) that differ without the final token (the others are
    the same both ways)."""
    def u(x):
        return {"interior": True, "first_over_valley": x[0], "last_over_valley": x[1]}

    def b(x):
        return None if x is None else {"windows": x[0], "mean": x[1], "peak_share": x[2]}

    shape = {"u0": u0, "uN": uN, "g": g, "D0": D0, "DN": DN, **(without_final or {})}
    wo = {k: (u(v) if k in ("u0", "uN") else v) for k, v in shape.items()}
    return {"runs": [{"run": f"llama seed {k}", "margin": margin, "u0": u(u0), "uN": u(uN),
                      "g": g, "D0": D0, "DN": DN, "B0": b(B0), "BN": b(BN),
                      "without_final": dict(wo)} for k in range(n)]}


#: the thresholds the four rules share
GATE_THRESHOLD = Threshold(TEXT_GATE, "nats below the bigram baseline every run's validation "
                           "loss must reach", scale="linear", step=0.01, sensitive=0.05,
                           domain=(0.0, 10.0))
FACTOR_THRESHOLD = Threshold(U_FACTOR, "end blocks at least this many times the valley block "
                             "make a macroscopic U", sensitive=1.25)

#: the scale of the natural-text proxies, beside the paper's
TEXT_SCALE = ("natural-text proxy: small causal LMs (LLaMA architecture with RoPE, 2.63 M "
              "parameters, and GPT-2 architecture with learned positions, 2.24 M; 8 layers, "
              "hidden 128, 4 heads, L = 256) pretrained from scratch on 1.36 M tokens of the "
              "Python documentation as prose (2,000 iterations of 16 windows, 6 passes), not "
              "the paper's pretrained Qwen2 and GPT-2 at L = 2048 on billions of tokens")

#: the beginning of the four rules: the profiles, Step 0 and Step N, and the gate
TEXT_RULE_COMMON = (
    f"Per stored run (configuration, seed): the final position's influence profile (exact "
    f"Jacobian, normalized per window, mean over the first 8 validation windows) at Step 0 "
    f"(iteration 0) and Step N (the last evaluation). Gate: validation loss at Step N at least "
    f"{TEXT_GATE} nats below the best smoothed bigram baseline in every run, else "
    f"inconclusive. A proxy is at most qualified.")


# --- the evidence ------------------------------------------------------------------------------

def _show(s: Mapping) -> str:
    def b(x):
        return "no boundary windows" if x is None else (
            f"boundary peaks in {x['peak_share']:.2f} of {x['windows']} windows (mean "
            f"percentile {x['mean']:.2f})")

    series = s["diagnostics"]["series"]
    by_eval = ", ".join(f"{x['iteration']} {'yes' if x['u'] else 'no'} "
                        f"({x['first_over_valley']:.3g}; without the final token "
                        f"{'yes' if x['without_final']['u'] else 'no'})" for x in series)
    beside = f"; beside the rule: U by evaluation (first block / valley) {by_eval}"
    if "ordinary_local_ratio_p95" in series[-1] and "ordinary_local_ratio_p95" in series[0]:
        beside += (f"; 95th percentile of the local ratio at ordinary positions "
                   f"{series[0]['ordinary_local_ratio_p95']:.3g} -> "
                   f"{series[-1]['ordinary_local_ratio_p95']:.3g}")
    return (f"{s['run']} at {s['iteration']} it ({s['margin']:+.3f} nats below the bigram): "
            f"{shape_words(s)}; without the final token: {shape_words(s['without_final'])}; "
            f"{b(s['B0'])} at Step 0, {b(s['BN'])} at Step N" + beside)


def _provenance(docs: Sequence[Mapping]) -> list[dict]:
    out = []
    for doc in docs:
        prov = doc.get("provenance", {})
        out.append({"name": doc.get("name"), "command": prov.get("command"),
                    "seeds": prov.get("seeds"), "corpus_sha256": doc.get("corpus", {}).get("sha256"),
                    "iterations": [r["iterations"] for r in doc["runs"]],
                    "wall_seconds": [r["wall_seconds"] for r in doc["runs"]],
                    "versions": prov.get("versions"), "created": prov.get("created")})
    return out


_COMMAND = "; ".join(
    f"posbias train --task lm-text --arch {arch} --iterations 2000 --eval-every 500 "
    f"--record-influence 8 --boundary-windows 8 --seeds {seeds} --threads 2 -o text_{arch} "
    "-f json" for arch, seeds in (("llama", "0 1"), ("gpt2", "0 1")))
_TEXT_TRAINED: dict = {}


def text_thorough_work(ctx: CheckContext) -> list:
    """What ``--thorough`` re-trains for the natural-text proxies: the stored configurations
    and seeds, one after the other; the time is the stored runs' measured wall time."""
    try:
        docs = text_stored_results(getattr(ctx, "data_dir", None))
        seconds = float(sum(r["wall_seconds"] for d in docs for r in d["runs"]))
    except (OSError, KeyError, ValueError, TypeError):
        seconds = float("nan")
    return [("lm-text", "re-training the natural-text LMs of the proxies (the stored "
             "configurations and seeds, one after the other)", seconds)]


def _thorough(ctx: CheckContext) -> list[dict]:
    if "docs" not in _TEXT_TRAINED:
        out = []
        for doc in text_stored_results(getattr(ctx, "data_dir", None)):
            config = lx.LMTextConfig.from_dict(doc["config"])
            data = lx.prepare_text(config)
            seeds = [r["seed"] for r in doc["runs"]]
            threads = int(doc.get("provenance", {}).get("torch_threads_per_process") or 1)
            runs = lx.lm_text_seeds(config, seeds, progress=False, data=data, threads=threads)
            out.append(lx.lm_text_results_document(config, runs, data,
                                                   command="posbias check --thorough"))
        _TEXT_TRAINED["docs"] = out
    return _TEXT_TRAINED["docs"]


_TEXT_PROXY = (
    "Proxy, not the paper's setting: small causal LMs pretrained here on natural text (the "
    "Python documentation), the closest setting reachable without downloading the paper's "
    "checkpoints; its verdict is about these models at this scale.")


def text_evidence(ctx: CheckContext, rule: Rule, what: str,
                  words: Mapping[str, str]) -> Evidence:
    """The evidence of a natural-text proxy: the stored (or, with ``--thorough``, re-trained)
    runs summarized and decided by ``rule``, in the ``words`` of each verdict."""
    try:
        docs = _thorough(ctx) if ctx.thorough else text_stored_results(ctx.data_dir)
    except FileNotFoundError as exc:
        return Evidence("needs-data", method=f"missing stored results: {exc}; train them with: "
                        f"{_COMMAND}", rule=rule.text, details={"rule": rule.text})
    except ImportError as exc:
        return Evidence("needs-data", method=f"--thorough re-trains: {exc}", rule=rule.text,
                        details={"rule": rule.text})
    try:
        summaries = text_summaries(docs)
        figures = _figures(summaries)
    except (ValueError, KeyError) as exc:
        return Evidence("inconclusive", method=what, discrepancy=str(exc), rule=rule.text,
                        details={"rule": rule.text})
    verdict = rule.apply(figures).verdict
    runs = figures["runs"]
    # the same rule on each run alone: says which runs an "every run" verdict waits for
    alone = {r["run"]: rule.decide({"runs": [r]}, rule.values()) for r in runs}
    if gated(runs, rule.values()):
        margins = ", ".join(f"{r['margin']:+.3f}" for r in runs)
        why = (f"gate not passed: {margins} nats below the bigram (>= {TEXT_GATE} needed); "
               "the profiles are not evidence")
    else:
        why = words.get(verdict, "runs disagree or the figures lie between the rule's bounds")
    if len(runs) > 1:
        why += " (each run alone: " + ", ".join(f"{k} {v}" for k, v in alone.items()) + ")"
    final = final_token_figures(rule, figures, "runs", "run")
    final_words = proxy_final_token_words(runs, lambda r: r["run"], "run", LM_GROWTH)
    if final["decided_by_final_token"]:
        final_words += ("; " if final_words else "") + (
            f"the final token alone decides: {final['verdict_with_final']} with it, "
            f"{final['verdict_without_final']} without it")
    if final_words:
        why += "; with and without the final token: " + final_words
    text = (f"{_TEXT_PROXY} Result of the proxy ({TEXT_SCALE}): {why}: "
            + "; ".join(_show(s) for s in summaries))
    kw: dict[str, Any] = {"correction": text} if verdict == "qualified" else (
        {"counterexample": text} if verdict == "refuted" else {"discrepancy": text})
    return Evidence(
        verdict, method=what, rule=rule.text,
        precision="float32 training; exact Jacobian influence",
        tolerance=f"gate {TEXT_GATE} nats below the bigram; U factor {U_FACTOR:g}; growth "
                  f"|g| > {LM_GROWTH}; dead zone D < {DEAD_ZONE_DEPTH:g}; boundary peak "
                  f"percentile > {BOUNDARY_PEAK}",
        cases=len(summaries), figures=figures,
        parameters={"scale": TEXT_SCALE, "source": ("re-trained (--thorough)" if ctx.thorough
                                                    else "stored results")},
        details={"rule": rule.text, "provenance": _provenance(docs), "each_run_alone": alone,
                 "final_token": final,
                 "beside_the_rule": {s["run"]: s["diagnostics"] for s in summaries},
                 "boundary_percentiles": {s["run"]: {"step0": (s["B0"] or {}).get("percentiles"),
                                                     "stepN": (s["BN"] or {}).get("percentiles")}
                                          for s in summaries}},
        **kw)


_TEST = Setting(
    "stored runs of `posbias train --task lm-text` (data/trained-lm-text/, rules in RULES.md): "
    "Step-0 and Step-N exact-Jacobian influence of the final position, LLaMA and GPT-2 "
    "architectures, seeds 0 and 1 of each (trained apart, merged by train --merge)",
    architecture="LLaMA-style and GPT-2-style causal decoders with residuals",
    models="8 layers, hidden 128, 4 heads; 2.63 M parameters (LLaMA), 2.24 M (GPT-2, output "
    "layer tied to the embedding)", residual="on", mask="causal",
    pe="RoPE (LLaMA), learned absolute positions (GPT-2)", L=256,
    data="natural text: the Python 3.11 documentation as prose (1.36 M training tokens, "
    "byte-level BPE of 4,096 tokens, documents packed with a separator)",
    training="next-token pretraining from scratch, 2,000 iterations of 16 windows, lr 1e-3",
    measure="exact input-output Jacobian norm of the final position")


def text_card(section: str) -> Card:
    """The card of a natural-text proxy of the paper's ``section`` (C10 or C11)."""
    return proxy_card(section, _TEST, (
        "a proxy: a small LM pretrained here on 1.36 M tokens of natural text stands in for "
        "the paper's pretrained checkpoints; two architectures (RoPE and learned positions, as "
        "the paper's Qwen2 and GPT-2), two seeds each (the machine's time)",
        "the rules ask for the direction at this scale (R grown by g > 0.1, the valley below "
        "half the mean), not the paper's magnitudes (R about 10^3, a tenfold growth)"))


#: what the natural-text proxies need, and what they assume
TEXT_NEEDS = ("stored results", "models (for --thorough)")
TEXT_ASSUMPTIONS = ("stored runs of posbias train --task lm-text (data/trained-lm-text/), "
                    + TEXT_SCALE,)
