r"""Claims of wu2025 about *trained* networks: the in-context classification experiments.

wu2025 (section 5) trains a 2-layer self-attention network on in-context classification with
*unbiased* data and reads its position preference from the test sets ``IC_X_Y`` (the answer at
``X``, an exact copy of the answer item at ``Y`` under another label):
``Acc(X_Y) - Acc(Y_X) > 0`` is a preference for ``X``.  It claims that a causal mask alone
biases the trained network toward the beginning, that a decay mask or RoPE trade this against
recency, and that a full mask has no positional preference.

The default check reads results that ``posbias train`` produced and that ship with posbias
(``posbias/proofs_checks/data/trained/*.json``, with their provenance: command, seeds,
versions, machine, iterations, wall time); it never trains and never imports torch.  Under
``--thorough`` every configuration is re-trained at wu2025's scale (lr ``1e-3``, 100,000
iterations, seeds 0 and 1 in two single-thread processes at once; about 75 minutes for four
configurations on two cores).

**Verdict rules** (fixed before the stored runs were trained, ``data/trained/RULES.md``).  Per
seed, at the final evaluation (a comparison of two configurations uses the largest iteration
evaluated in both):

* the *gate*: the plain in-context accuracy on novel classes is at least :data:`GATE` = 0.75
  for every seed of every configuration read (copying one of the two labels present at random
  scores ``1/2 + 1/(2L) = 0.516``; 0.75 is about halfway to perfect matching).  A difference
  measured before the network has learned in-context matching is not evidence: short causal
  runs show a spurious first-position preference (about +0.05 at 1,000 iterations) that vanishes
  once matching is learned, and the decay mask shows a recency that is label copying, not
  retrieval.  Gate not passed: the verdict is ``inconclusive`` and the numbers are printed;
* the noise threshold ``t = max(3 SE, 0.01)``, ``SE`` the largest standard error of the paired
  differences read (from the per-sequence correctness over the test set).

The rule of each claim is in its function below (:func:`primacy_verdict`,
:func:`decay_verdict`, :func:`rope_verdict`, :func:`full_verdict`); the evidence states it.

Variant (stated in every evidence): residual connections on (wu2025's public code trains
without them unless ``--not_res`` is passed), the decay is a mask, class labels are seeded, the
generator is posbias' vectorized one (:mod:`posbias.measurements.icl`).
"""

from __future__ import annotations

import json
import math
import os
from importlib import resources

from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = [
    "GATE",
    "MIN_THRESHOLD",
    "DECAY_M",
    "STORED",
    "stored_results",
    "summarize",
    "threshold",
    "primacy_verdict",
    "decay_verdict",
    "rope_verdict",
    "full_verdict",
]

PAPER = "wu2025"
#: in-context accuracy every seed must reach before a difference counts
GATE = 0.75
#: floor of the noise threshold on a difference of accuracies
MIN_THRESHOLD = 0.01
#: wu2025's decay rate per token, m = -ln 0.8
DECAY_M = -math.log(0.8)
_DECAY_MASK = f"decay:{DECAY_M:.6g}"

#: the stored configurations (file names under data/trained/), all trained by posbias train
STORED = {
    "causal-nope": "causal_none_res_lr0.003",
    "causal-rope": "causal_rope_res_lr0.003",
    "decay-nope": f"{_DECAY_MASK.replace(':', '')}_none_res_lr0.003",
    "full-nope": "full_none_res_lr0.003",
}
_THOROUGH = {
    "causal-nope": dict(mask="causal", pe="none"),
    "causal-rope": dict(mask="causal", pe="rope"),
    "decay-nope": dict(mask=_DECAY_MASK, pe="none"),
    "full-nope": dict(mask="full", pe="none"),
}
_THOROUGH_SCALE = dict(lr=1e-3, iterations=100_000, eval_every=2000)
_THOROUGH_SEEDS = (0, 1)
_VARIANT = ("residual connections on (wu2025's public code: off unless --not_res), decay as a "
            "mask, seeded class labels, posbias' vectorized generator")


class _Missing(Exception):
    pass


def _data_dir(ctx: CheckContext) -> str | None:
    """``<--data-dir>/trained`` when the user gives one that has it (their own runs of
    ``posbias train``, renamed to the names of :data:`STORED`), else the shipped results."""
    if ctx.data_dir and os.path.isdir(os.path.join(ctx.data_dir, "trained")):
        return os.path.join(ctx.data_dir, "trained")
    return None


def stored_results(key: str, data_dir: str | None = None) -> dict:
    """The stored results document of configuration ``key`` (a key of :data:`STORED`)."""
    base = data_dir or os.fspath(resources.files("posbias.proofs_checks.data") / "trained")
    path = os.path.join(base, STORED[key] + ".json")
    if not os.path.isfile(path):
        raise _Missing(path)
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


_TRAINED: dict = {}


def _thorough(key: str) -> dict:
    """Re-train configuration ``key`` at wu2025's scale (cached for the process)."""
    if key not in _TRAINED:
        try:
            from posbias.measurements import training as tr

            tr._torch()
        except ImportError:
            raise _Missing("the 'models' extra (torch)") from None
        config = tr.TrainConfig(**_THOROUGH[key], **_THOROUGH_SCALE)
        runs = tr.train_seeds(config, _THOROUGH_SEEDS, jobs=2, progress=False)
        _TRAINED[key] = tr.results_document(config, runs, command="posbias check --thorough",
                                            jobs=2)
    return _TRAINED[key]


def _results(ctx: CheckContext, key: str) -> dict:
    return _thorough(key) if ctx.thorough else stored_results(key, _data_dir(ctx))


def summarize(doc: dict, at: int | None = None) -> list[dict]:
    """Per seed: the evaluation at iteration ``at`` (default: each run's last), as
    ``{"seed", "iteration", "ic_accuracy", "difference", "se"}``."""
    out = []
    for run in doc["runs"]:
        hist = run["history"]
        entry = hist[-1] if at is None else next((e for e in hist if e["iteration"] == at), None)
        if entry is None:
            raise ValueError(f"seed {run['seed']} has no evaluation at iteration {at}")
        out.append({"seed": run["seed"], "iteration": entry["iteration"],
                    "ic_accuracy": entry["ic_accuracy"], "difference": entry["difference"],
                    "se": entry["difference_se"]})
    return out


def threshold(*groups: list[dict]) -> float:
    """``max(3 SE, MIN_THRESHOLD)`` over every seed and pair of the summaries given."""
    se = max(s["se"][p] for g in groups for s in g for p in s["se"])
    return max(3 * se, MIN_THRESHOLD)


def _gate(*groups: list[dict]) -> bool:
    return all(s["ic_accuracy"] >= GATE for g in groups for s in g)


def _show(summaries: list[dict], pairs) -> str:
    parts = []
    for s in summaries:
        diffs = ", ".join(f"{p} {s['difference'][p]:+.4f}±{s['se'][p]:.4f}" for p in pairs)
        parts.append(f"seed {s['seed']} at {s['iteration']} it: in-context acc "
                     f"{s['ic_accuracy']:.4f}; {diffs}")
    return "; ".join(parts)


def _gate_failed(summaries, pairs, t) -> tuple[str, str]:
    low = [f"{s['ic_accuracy']:.4f} (seed {s['seed']})" for s in summaries if s["ic_accuracy"] < GATE]
    return "inconclusive", (
        f"in-context gate not passed: accuracy {', '.join(low)} < {GATE} (random label copying "
        f"0.516); the differences are not evidence at this scale: {_show(summaries, pairs)} "
        f"(threshold t = {t:.4f}); train longer (posbias check --thorough)")


def primacy_verdict(summaries: list[dict]) -> tuple[str, str]:
    """Causal mask, no PE: every seed first-middle > t and first-last > t -> verified;
    every seed both <= t -> refuted; gate not passed or seeds/pairs disagreeing ->
    inconclusive."""
    pairs = ("first-middle", "first-last")
    t = threshold(summaries)
    if not _gate(summaries):
        return _gate_failed(summaries, pairs, t)
    up = [all(s["difference"][p] > t for p in pairs) for s in summaries]
    flat = [all(s["difference"][p] <= t for p in pairs) for s in summaries]
    shown = f"{_show(summaries, pairs)} (threshold t = {t:.4f})"
    if all(up):
        return "verified", "first-position preference beyond noise in every seed: " + shown
    if all(flat):
        return "refuted", "no first-position preference beyond noise in any seed: " + shown
    return "inconclusive", "seeds or pairs disagree: " + shown


def decay_verdict(summaries: list[dict]) -> tuple[str, str]:
    """Decay mask, no PE: every seed first-last < -t and middle-last < -t -> verified; every
    seed both >= -t -> refuted; gate not passed or disagreement -> inconclusive."""
    pairs = ("first-last", "middle-last")
    t = threshold(summaries)
    if not _gate(summaries):
        return _gate_failed(summaries, pairs, t)
    down = [all(s["difference"][p] < -t for p in pairs) for s in summaries]
    none = [all(s["difference"][p] >= -t for p in pairs) for s in summaries]
    shown = f"{_show(summaries, pairs)} (threshold t = {t:.4f})"
    if all(down):
        return "verified", "last-position preference beyond noise in every seed: " + shown
    if all(none):
        return "refuted", "no last-position preference beyond noise in any seed: " + shown
    return "inconclusive", "seeds or pairs disagree: " + shown


def rope_verdict(rope: list[dict], nope: list[dict]) -> tuple[str, str]:
    """Causal mask, RoPE against no PE (same seeds, same iteration): the shift
    ``S = (first-last)_rope - (first-last)_nope`` per seed, ``t_S = sqrt(2) t``.  Every seed
    ``S < -t_S`` -> verified (RoPE moves the preference toward the end); every seed
    ``S >= -t_S`` with ``(first-last)_rope > t`` -> refuted (primacy kept, no shift);
    gate not passed in either configuration, or anything else -> inconclusive."""
    pair = "first-last"
    t = threshold(rope, nope)
    ts = math.sqrt(2) * t
    shown = (f"RoPE: {_show(rope, (pair,))}; no PE: {_show(nope, (pair,))} "
             f"(t = {t:.4f}, t_S = {ts:.4f})")
    if not (_gate(rope) and _gate(nope)):
        low = [f"{s['ic_accuracy']:.4f} ({name}, seed {s['seed']})"
               for name, g in (("RoPE", rope), ("no PE", nope)) for s in g
               if s["ic_accuracy"] < GATE]
        return "inconclusive", (f"in-context gate not passed: accuracy {', '.join(low)} < "
                                f"{GATE}; not evidence at this scale: {shown}")
    by_seed = {s["seed"]: s for s in nope}
    if set(by_seed) != {s["seed"] for s in rope}:
        return "inconclusive", "the RoPE and no-PE runs do not have the same seeds: " + shown
    shifts = [s["difference"][pair] - by_seed[s["seed"]]["difference"][pair] for s in rope]
    shown += "; shift S per seed: " + ", ".join(f"{x:+.4f}" for x in shifts)
    if all(x < -ts for x in shifts):
        return "verified", "RoPE shifts the preference toward the end in every seed: " + shown
    if all(x >= -ts for x in shifts) and all(s["difference"][pair] > t for s in rope):
        return "refuted", ("RoPE keeps the first-position preference and does not shift it "
                           "toward the end in any seed: " + shown)
    return "inconclusive", "seeds disagree: " + shown


def full_verdict(summaries: list[dict]) -> tuple[str, str]:
    """Full mask, no PE (a set function of the context: every expected difference is exactly
    0): every seed every pair ``|d| <= t`` -> verified, else refuted.  No gate: this checks the
    test machinery's noise level, it is a control, not evidence for wu2025's claim."""
    pairs = ("first-middle", "first-last", "middle-last")
    t = threshold(summaries)
    shown = f"{_show(summaries, pairs)} (threshold t = {t:.4f})"
    if all(abs(s["difference"][p]) <= t for s in summaries for p in pairs):
        return "verified", "every difference within noise: " + shown
    return "refuted", "a difference beyond noise for a permutation-invariant network: " + shown


def _provenance(doc: dict) -> dict:
    prov = doc.get("provenance", {})
    return {"name": doc["name"], "command": prov.get("command"), "seeds": prov.get("seeds"),
            "iterations": [r["iterations"] for r in doc["runs"]],
            "wall_seconds": [r["wall_seconds"] for r in doc["runs"]],
            "lr": doc["config"]["lr"], "test_size": doc["config"]["test_size"],
            "versions": prov.get("versions"), "machine": prov.get("machine"),
            "created": prov.get("created")}


def _scale(docs, ctx) -> str:
    its = sorted({r["iterations"] for d in docs for r in d["runs"]})
    lrs = sorted({d["config"]["lr"] for d in docs})
    where = "re-trained (--thorough)" if ctx.thorough else "stored results"
    return (f"{where}: lr {', '.join(f'{x:g}' for x in lrs)}, {', '.join(map(str, its))} "
            f"iterations (wu2025: lr 1e-3, 100000 iterations)")


def _evidence(verdict_text, docs, ctx, rule: str, method: str, keys) -> Evidence:
    verdict, text = verdict_text
    return Evidence(
        verdict,
        method=method,
        discrepancy=text,
        precision="float32 training; accuracies exact ratios over the test sets",
        tolerance=f"gate in-context accuracy >= {GATE}; threshold max(3 SE, {MIN_THRESHOLD})",
        parameters={"configurations": list(keys), "scale": _scale(docs, ctx),
                    "variant": _VARIANT},
        details={"rule": rule, "provenance": [_provenance(d) for d in docs]},
    )


def _needs(exc) -> Evidence:
    return Evidence("needs-data", method=f"missing: {exc}")


_ASSUMPTIONS = ("wu2025's in-context classification task (K = 2048, L = 32, d = 64, n = 8, B = 4, "
                "gamma = 0.75), unbiased training data",
                "2-layer single-head self-attention network, residual connections, AdamW",
                "verdict at the scale of the stored runs; --thorough re-trains at 100k iterations")


@claim(
    f"{PAPER}:trained-causal-primacy",
    statement=("Trained on unbiased in-context classification, a causal-mask network without "
               "positional encoding prefers the first position: Acc(first_middle) - "
               "Acc(middle_first) > 0 and Acc(first_last) - Acc(last_first) > 0."),
    latex=r"\mathrm{Acc}(\mathrm{first}_Y) - \mathrm{Acc}(Y_{\mathrm{first}}) > 0,\ Y \in \{\mathrm{middle}, \mathrm{last}\}",
    expected="verified",
    assumptions=_ASSUMPTIONS,
    section="5",
    needs=("stored results", "models (for --thorough)"),
)
def _check_primacy(ctx: CheckContext) -> Evidence:
    try:
        doc = _results(ctx, "causal-nope")
    except _Missing as exc:
        return _needs(exc)
    return _evidence(primacy_verdict(summarize(doc)), [doc], ctx, primacy_verdict.__doc__,
                     "trained causal/no-PE network, paired test sets IC_X_Y vs IC_Y_X",
                     ["causal-nope"])


@claim(
    f"{PAPER}:trained-decay-recency",
    statement=("Trained on unbiased in-context classification, a decay-mask network "
               "(m = -ln 0.8 per token) prefers the last position: Acc(first_last) - "
               "Acc(last_first) < 0 and Acc(middle_last) - Acc(last_middle) < 0."),
    latex=r"\mathrm{Acc}(X_{\mathrm{last}}) - \mathrm{Acc}(\mathrm{last}_X) < 0,\ X \in \{\mathrm{first}, \mathrm{middle}\}",
    expected="inconclusive",
    assumptions=_ASSUMPTIONS,
    section="5",
    needs=("stored results", "models (for --thorough)"),
)
def _check_decay(ctx: CheckContext) -> Evidence:
    try:
        doc = _results(ctx, "decay-nope")
    except _Missing as exc:
        return _needs(exc)
    return _evidence(decay_verdict(summarize(doc)), [doc], ctx, decay_verdict.__doc__,
                     "trained decay-mask/no-PE network, paired test sets IC_X_Y vs IC_Y_X",
                     ["decay-nope"])


@claim(
    f"{PAPER}:trained-rope-tradeoff",
    statement=("Trained on unbiased in-context classification, a causal network with RoPE "
               "trades the causal mask's first-position preference against recency: its "
               "Acc(first_last) - Acc(last_first) is lower than without positional encoding."),
    latex=r"\Delta_{\mathrm{RoPE}}(\mathrm{first}, \mathrm{last}) < \Delta_{\mathrm{NoPE}}(\mathrm{first}, \mathrm{last})",
    expected="inconclusive",
    assumptions=_ASSUMPTIONS,
    section="5",
    needs=("stored results", "models (for --thorough)"),
)
def _check_rope(ctx: CheckContext) -> Evidence:
    try:
        rope_doc = _results(ctx, "causal-rope")
        nope_doc = _results(ctx, "causal-nope")
    except _Missing as exc:
        return _needs(exc)
    common = min(max(e["iteration"] for e in r["history"]) for d in (rope_doc, nope_doc)
                 for r in d["runs"])
    try:
        rope, nope = summarize(rope_doc, common), summarize(nope_doc, common)
    except ValueError as exc:
        return Evidence("inconclusive", method="no common evaluation", discrepancy=str(exc))
    return _evidence(rope_verdict(rope, nope), [rope_doc, nope_doc], ctx, rope_verdict.__doc__,
                     f"trained causal networks with RoPE and without PE, compared at iteration "
                     f"{common}", ["causal-rope", "causal-nope"])


@claim(
    f"{PAPER}:trained-full-control",
    statement=("A full-mask network without positional encoding has no positional preference: "
               "every Acc(X_Y) - Acc(Y_X) is zero within the sampling noise (a control: the "
               "network is a set function of its context, so every expected difference is 0)."),
    latex=r"\left|\mathrm{Acc}(X_Y) - \mathrm{Acc}(Y_X)\right| \le t",
    expected="verified",
    assumptions=_ASSUMPTIONS,
    section="5",
    needs=("stored results", "models (for --thorough)"),
)
def _check_full(ctx: CheckContext) -> Evidence:
    try:
        doc = _results(ctx, "full-nope")
    except _Missing as exc:
        return _needs(exc)
    return _evidence(full_verdict(summarize(doc)), [doc], ctx, full_verdict.__doc__,
                     "trained full-mask/no-PE network, paired test sets IC_X_Y vs IC_Y_X",
                     ["full-nope"])
