"""Helpers shared by wu2025's trained-model claims (section 5) and posbias' control of their
test machinery: the stored runs, their figures, the rules' decisions and the evidence.

wu2025 trains a 2-layer self-attention network on in-context classification with *unbiased*
data and reads its position preference from the test sets ``IC_X_Y`` (the answer at ``X``, an
exact copy of the answer item at ``Y`` under another label): ``Acc(X_Y) - Acc(Y_X) > 0`` is a
preference for ``X``.  Two settings:

* **Figure 2** (the mask / PE comparison): attention-only networks, *no residual connections*
  (the public code's default: its ``--not_res`` flag is ``store_false`` with default True, so
  ``residual = not args.not_res`` is False unless the flag is given).  Causal no-PE prefers the
  first position (first-last about +0.08 at depth 2), RoPE trades it toward recency
  (first-last about -0.00), the decay mask prefers the end (first-middle about -0.055,
  first-last about -0.07).  Claims ``wu2025:trained-causal-primacy``, ``-rope-tradeoff``,
  ``-decay-recency``: decided only on stored runs with ``residual: false``
  (:func:`find_attention_only`); without one they return ``needs-data`` with the
  ``posbias train`` command that makes it (:func:`attention_only_command`).
* **Figure 5** (the same with residual connections): a stronger first-position preference, and
  RoPE *above* no PE (first-middle about +0.38 vs +0.25 at depth 2).  The stored runs with
  residual connections (:data:`STORED`) are decided against this figure: claims
  ``wu2025:trained-causal-primacy-residual``, ``-rope-residual``, ``-decay-residual``.

The figures of wu2025 quoted here come from a third-party reading of its plots
(docs/explanation/mathematics.rst W5): the cards list them as not confirmed.

**What a difference means without in-context matching.**  Every rule applies the *gate*: the
in-context accuracy on novel classes must reach :data:`GATE` = 0.75 in every seed read (random
copying of one of the two labels present scores 1/2 + 1/(2*32) = 0.516).  A network below the
gate does not retrieve by in-context matching.  Its ``Acc(X_Y) - Acc(Y_X)`` is then a
positional preference of its answers without that retrieval: the quantity Figure 2 plots, but
not a preference of in-context retrieval.  A direction rule says so with the verdict
``qualified`` (the stated sign beyond noise in every seed, gate not passed: the correction
names the in-context and training accuracy), never ``verified``; the other reading beyond noise
in every seed is ``refuted`` with or without the gate; anything else without the gate is
``inconclusive``.  A **comparison** of two configurations (RoPE against no PE) gates *both
arms*: a network at label-copying level cannot show a positional trade-off, so a shift with
either arm below the gate is ``inconclusive``, whatever its sign.  A rule about **recency**
reads middle-last too: the middle preferred over the last position beyond noise is not recency.

The noise threshold of one seed's difference is ``max(k SE, floor)`` (``k`` = 3, ``floor`` =
0.01; SE the standard error of that paired difference over the test set; a paper figure
without a reported SE gets the floor); a shift between two configurations (same seeds) uses
``sqrt(2)`` times the larger of their thresholds.  The default check reads stored results
(``data/trained/*.json``, with provenance: command, seeds, versions, machine, iterations, wall
time) and never imports torch; ``--thorough`` re-trains the stored configurations at the same
scale (lr 1e-3, 100,000 iterations, seeds 0 and 1: it does not train longer).  Every rule
decides at its reading point, the last evaluation every run it reads reached (100,000
iterations for the stored runs); its verdict at every other evaluation is reported beside it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from posbias.measurements import training
from posbias.measurements.hooks import require_torch
from posbias.proofs_checks import gates
from posbias.proofs_checks.cards import Rule, Setting, Threshold
from posbias.proofs_checks.data import data_path, read_results
from posbias.proofs_checks.registry import CheckContext, Evidence

__all__ = [
    "ARCHITECTURE",
    "ASSUMPTIONS",
    "ATTENTION_ONLY",
    "ATTENTION_ONLY_SOURCE",
    "DECAY_M",
    "DECAY_MASK",
    "DECAY_PAPER",
    "FIG_UNCONFIRMED",
    "GATE",
    "GATE_TEXT",
    "IMPLEMENTATION",
    "LABEL_COPYING",
    "MIN_THRESHOLD",
    "NEEDS",
    "NOISE_TEXT",
    "NO_SE",
    "PAIRS",
    "PAPER_SETUP",
    "READING_TEXT",
    "READOUT",
    "RECENCY_TEXT",
    "REIMPLEMENTATION",
    "RESIDUAL_SOURCE",
    "RETRAINED",
    "RULES_FIXED",
    "SHIFT_GATE_TEXT",
    "STORED",
    "TASK",
    "THOROUGH_CONFIGS",
    "THOROUGH_SCALE",
    "THOROUGH_SEEDS",
    "UNBIASED",
    "WU_SCALE",
    "MissingRun",
    "accuracy_level",
    "arms_reached",
    "attention_only_command",
    "common_iterations",
    "direction_check",
    "direction_decide",
    "direction_evidence",
    "direction_figures",
    "example_figures",
    "example_shift",
    "find_attention_only",
    "gate_passed",
    "gated_verdict",
    "load_runs",
    "memorisation",
    "needs_data",
    "noise_threshold",
    "not_matching",
    "off_scale",
    "paper_setting",
    "provenance",
    "reading_report",
    "retrain",
    "rope_shift_check",
    "run_setting",
    "seed_entry",
    "shift_decide",
    "shift_evidence",
    "shift_figures",
    "shipped_dir",
    "show_direction",
    "stored_results",
    "stored_runs",
    "summarize",
    "tested_setting",
    "trained_evidence",
    "trained_thresholds",
    "training_work",
    "user_data_dir",
    "verdict_history",
    "verdict_spans",
]

#: the date of the commit that fixed the third reading of the trained rules (both arms of a
#: comparison gated, middle-last read by the recency rules, the reading point stated), before
#: the results it decides
RULES_FIXED = "2026-12-04"
#: in-context accuracy every seed must reach before a difference counts as in-context retrieval
GATE = gates.ICL_GATE
#: floor of the noise threshold on a difference of accuracies
MIN_THRESHOLD = 0.01
#: random copying of one of the two labels present (1/2 + 1/(2 * 32 labels))
LABEL_COPYING = 0.516
#: wu2025's decay rate per token, m = -ln 0.8 (public code: --mask decay --gamma 0.8)
DECAY_M = -math.log(0.8)
#: the decay mask as posbias train names it
DECAY_MASK = f"decay:{DECAY_M:.6g}"
#: the differences Acc(X_Y) - Acc(Y_X) recorded per evaluation
PAIRS = ("first-middle", "first-last", "middle-last")

#: the stored configurations with residual connections (file names under data/trained/)
STORED = {
    "causal-nope": "causal_none_res_lr0.001",
    "causal-rope": "causal_rope_res_lr0.001",
    "decay-nope": f"{DECAY_MASK.replace(':', '')}_none_res_lr0.001",
}
#: the configurations of the attention-only runs (no residual connections): (mask, pe) of the
#: Figure-2 claims and of the full-mask control in their setting
ATTENTION_ONLY = {
    "causal-nope": ("causal", "none"),
    "causal-rope": ("causal", "rope"),
    "decay-nope": (DECAY_MASK, "none"),
    "full-nope": ("full", "none"),
}
#: what --thorough re-trains, per configuration, at THOROUGH_SCALE with seeds THOROUGH_SEEDS
THOROUGH_CONFIGS: dict[str, dict[str, Any]] = {
    "causal-nope": dict(mask="causal", pe="none"),
    "causal-rope": dict(mask="causal", pe="rope"),
    "decay-nope": dict(mask=DECAY_MASK, pe="none"),
    "full-nope": dict(mask="full", pe="none"),
}
THOROUGH_SCALE: dict[str, Any] = dict(lr=1e-3, iterations=100_000, eval_every=2000)
THOROUGH_SEEDS = (0, 1)
#: how posbias re-implements wu2025's training (the evidence's parameters, the cards' note)
IMPLEMENTATION = ("posbias train: the public model re-implemented (decay as a γ^(i-j) mask as "
                  "in the public code), seeded class labels, posbias' vectorized generator")


class MissingRun(Exception):
    """A results document the check needs is not stored (or torch is missing to re-train it):
    the claim is needs-data, naming what is missing."""


def shipped_dir() -> str:
    """The folder of the results shipped with posbias (``data/trained``)."""
    return data_path("trained")


def user_data_dir(ctx: CheckContext) -> str | None:
    """``<--data-dir>/trained`` when the user gives one that has it (their own runs of
    ``posbias train``, renamed to the names of :data:`STORED`), else the shipped results."""
    if ctx.data_dir and os.path.isdir(os.path.join(ctx.data_dir, "trained")):
        return os.path.join(ctx.data_dir, "trained")
    return None


def stored_results(key: str, data_dir: str | None = None) -> dict:
    """The stored results document of configuration ``key`` (a key of :data:`STORED`)."""
    base = data_dir or shipped_dir()
    path = os.path.join(base, STORED[key] + ".json")
    if not os.path.isfile(path):
        raise MissingRun(path)
    return read_results(path)


#: wu2025's scale as its reproducibility section states it (the settings a control at that
#: scale must have been trained with)
WU_SCALE: dict[str, Any] = dict(lr=1e-3, weight_decay=1e-6, batch=128, iterations=100_000)


def off_scale(doc: dict) -> list[str]:
    """What of the results document ``doc`` departs from wu2025's scale (:data:`WU_SCALE`):
    its configured lr, weight decay, batch and iterations, and every run that stopped short of
    them; empty when none does."""
    cfg = doc.get("config") or {}
    out = [f"{key} {cfg.get(key)!r:.20} (wu2025: {value:g})" for key, value in WU_SCALE.items()
           if cfg.get(key) != value]
    short = [r.get("seed") for r in doc.get("runs") or []
             if not isinstance(r, dict) or r.get("iterations") != WU_SCALE["iterations"]]
    if short:
        out.append("seed(s) " + ", ".join(f"{x!r:.12}" for x in short) + " not trained to "
                   f"{WU_SCALE['iterations']:,} iterations")
    return out


def attention_only_command(key: str) -> str:
    """The ``posbias train`` command that produces the attention-only (no residual) runs of
    configuration ``key`` at wu2025's scale, as the Figure-2 claims read them."""
    mask, pe = ATTENTION_ONLY[key]
    name = f"{mask.replace(':', '')}_{pe}_nores"
    return (f"posbias train --task wu2025-icl --mask {mask} --pe {pe} --residual off "
            f"--iterations 100000 --lr 0.001 --seeds 0 1 --jobs 2 --eval-every 2000 "
            f"--record-influence 32 -o {name} "
            f"(then copy {name}/results.json to <data-dir>/trained/{name}_lr0.001.json)")


def find_attention_only(key: str, data_dir: str | None = None) -> dict:
    """The stored attention-only run of configuration ``key``: a results document in
    ``data_dir`` (else the shipped folder) whose config has ``residual: false`` and the mask and
    PE of ``key``, trained on unbiased data.  Raises :class:`MissingRun` naming the command that
    would produce it."""
    mask, pe = ATTENTION_ONLY[key]
    found = []
    for base in [d for d in (data_dir, shipped_dir()) if d]:
        if not os.path.isdir(base):
            continue
        for fname in sorted(os.listdir(base)):
            if not fname.endswith(".json"):
                continue
            doc = read_results(os.path.join(base, fname))  # an unreadable one is named, not skipped
            cfg = doc.get("config")
            if not isinstance(cfg, dict):
                continue
            if (doc.get("task") == "wu2025-icl" and cfg.get("residual") is False
                    and cfg.get("mask") == mask and cfg.get("pe") == pe
                    and cfg.get("train_bias", "none") == "none"):
                found.append(doc)
        if found:
            break
    if not found:
        raise MissingRun("no stored attention-only run (residual: false) of mask "
                       f"{mask}, PE {pe}; to produce it: {attention_only_command(key)}")
    return max(found, key=lambda d: (min(r["iterations"] for r in d["runs"]), len(d["runs"])))


#: the documents re-trained by --thorough in this process, by (configuration, residual)
RETRAINED: dict = {}


def retrain(key: str, residual: bool = True) -> dict:
    """Re-train configuration ``key`` at wu2025's scale, with residual connections (Figure 5)
    or without (``residual=False``, Figure 2); cached for the process."""
    if (key, residual) not in RETRAINED:
        try:
            require_torch()  # the 'models' extra
        except ImportError:
            raise MissingRun("the 'models' extra (torch)") from None
        config = training.TrainConfig(**THOROUGH_CONFIGS[key], **THOROUGH_SCALE, residual=residual)
        # one progress bar with ETA per seed when stderr is a terminal
        runs = training.train_seeds(config, THOROUGH_SEEDS, jobs=2, progress=None)
        RETRAINED[key, residual] = training.results_document(config, runs,
                                                      command="posbias check --thorough", jobs=2)
    return RETRAINED[key, residual]


def training_work(*keys: str, residual: bool = True) -> Callable[[CheckContext], list]:
    """What ``--thorough`` re-trains for a claim reading ``keys``: each configuration at
    wu2025's scale, two seeds in two processes, with residual connections or without; its wall
    time from the stored run's measured rate (its slowest seed, on this project's machine with
    the same two processes)."""

    def work(ctx: CheckContext) -> list:
        out = []
        for key in keys:
            try:
                doc = stored_runs(key, user_data_dir(ctx), residual)
                # the stored run's measured rate (slowest seed, two processes at once) times
                # the iterations --thorough trains
                rate = min(r["iterations"] / r["wall_seconds"] for r in doc["runs"])
                seconds = THOROUGH_SCALE["iterations"] / rate
            except (MissingRun, KeyError, ValueError, TypeError, ZeroDivisionError):
                seconds = float("nan")
            its = THOROUGH_SCALE["iterations"]
            setting = "with residual" if residual else "attention only"
            out.append((f"wu2025-train:{key}:{'res' if residual else 'nores'}",
                        f"re-training {THOROUGH_CONFIGS[key]['mask']} / PE {THOROUGH_CONFIGS[key]['pe']}, "
                        f"{setting} ({its} iterations, lr {THOROUGH_SCALE['lr']:g}, seeds "
                        f"{', '.join(map(str, THOROUGH_SEEDS))} in 2 processes)", seconds))
        return out

    return work


def stored_runs(key: str, data_dir: str | None, residual: bool) -> dict:
    """The stored runs of configuration ``key``: with residual connections (:data:`STORED`,
    Figure 5) or attention-only (:func:`find_attention_only`, Figure 2)."""
    return stored_results(key, data_dir) if residual else find_attention_only(key, data_dir)


def load_runs(ctx: CheckContext, key: str, residual: bool) -> dict:
    """The results document a check reads: re-trained with ``--thorough``, else stored (in the
    user's ``--data-dir`` when it has them, else shipped)."""
    if ctx.thorough:
        return retrain(key, residual=residual)
    return stored_runs(key, user_data_dir(ctx), residual)


def summarize(doc: dict, at: int | None = None) -> list[dict]:
    """Per seed: the evaluation at iteration ``at`` (default: each run's last), as
    ``{"seed", "iteration", "ic_accuracy", "train_accuracy", "difference", "se"}``."""
    out = []
    for run in doc["runs"]:
        hist = run["history"]
        entry = hist[-1] if at is None else next((e for e in hist if e["iteration"] == at), None)
        if entry is None:
            raise ValueError(f"seed {run['seed']} has no evaluation at iteration {at}")
        out.append({"seed": run["seed"], "iteration": entry["iteration"],
                    "ic_accuracy": entry["ic_accuracy"],
                    "train_accuracy": entry.get("train_accuracy"),
                    "difference": entry["difference"], "se": entry["difference_se"]})
    return out


def direction_figures(summaries: list[dict]) -> dict:
    """The figures a direction rule reads: per seed (in seed order) the three differences, their
    standard errors, the in-context and the training accuracy."""
    f: dict = {"seeds": [s["seed"] for s in summaries],
               "iteration": [s["iteration"] for s in summaries],
               "ic_accuracy": [s["ic_accuracy"] for s in summaries],
               "train_accuracy": [s.get("train_accuracy") for s in summaries]}
    for p in PAIRS:
        f[p] = [s["difference"][p] for s in summaries]
        f["se " + p] = [s["se"][p] for s in summaries]
    return f


def shift_figures(a: list[dict], b: list[dict], pair: str,
                  names: tuple[str, str] = ("RoPE", "no PE"), against: str | None = None) -> dict:
    """The figures of a shift rule: ``pair`` and its SE per seed for configurations ``a`` and
    ``b`` (same seeds, same iteration), both in-context accuracies, and the shift a - b; with
    ``against`` the same for that pair (keys ``"<name> <against>"``, ``"<name> se <against>"``,
    ``"shift <against>"``)."""
    by_seed = {s["seed"]: s for s in b}
    if set(by_seed) != {s["seed"] for s in a}:
        raise ValueError("the two configurations do not have the same seeds")
    b = [by_seed[s["seed"]] for s in a]
    na, nb = names
    out = {"seeds": [s["seed"] for s in a], "iteration": [s["iteration"] for s in a],
           f"{na} {pair}": [s["difference"][pair] for s in a],
           f"{nb} {pair}": [s["difference"][pair] for s in b],
           f"{na} se": [s["se"][pair] for s in a], f"{nb} se": [s["se"][pair] for s in b],
           f"{na} ic_accuracy": [s["ic_accuracy"] for s in a],
           f"{nb} ic_accuracy": [s["ic_accuracy"] for s in b],
           f"{na} train_accuracy": [s.get("train_accuracy") for s in a],
           f"{nb} train_accuracy": [s.get("train_accuracy") for s in b],
           "shift": [round(x["difference"][pair] - y["difference"][pair], 6)
                     for x, y in zip(a, b)]}
    if against:
        out.update({f"{na} {against}": [s["difference"][against] for s in a],
                    f"{nb} {against}": [s["difference"][against] for s in b],
                    f"{na} se {against}": [s["se"][against] for s in a],
                    f"{nb} se {against}": [s["se"][against] for s in b],
                    f"shift {against}": [round(x["difference"][against]
                                               - y["difference"][against], 6)
                                         for x, y in zip(a, b)]})
    return out


def noise_threshold(se: float | None, t: Mapping) -> float:
    """The noise threshold of one difference: ``max(k SE, floor)``; the floor alone when no SE
    is reported (a paper figure)."""
    return t["floor"] if se is None else max(t["noise_multiple"] * se, t["floor"])


def gate_passed(ics: Any, t: Mapping) -> bool | None:
    """True when every reported in-context accuracy reaches the gate, None when none is
    reported (wu2025's figures), False otherwise."""
    known = [x for x in ics if x is not None]
    if not known:
        return None
    return len(known) == len(ics) and all(x >= t["gate"] for x in known)


def gated_verdict(stated: Sequence[bool], other: Sequence[bool], some_stated: bool,
                  gate_failed: bool) -> str:
    """The verdict of a direction rule from the seeds that show the stated preference beyond
    noise (``stated``, its supports holding), the seeds that show the other reading
    (``other``), whether any seed shows the stated sign of the deciding pair, and whether a
    gate was not passed.  Gate passed (or not reported): stated in every seed -> verified; the
    other reading in every seed, or no seed with the stated sign -> refuted; otherwise
    inconclusive.  Gate not passed: stated in every seed -> qualified; the other reading in
    every seed -> refuted; otherwise inconclusive."""
    if gate_failed:
        if all(stated):
            return "qualified"
        if all(other):
            return "refuted"
        return "inconclusive"
    if all(stated):
        return "verified"
    if not some_stated or all(other):
        return "refuted"
    return "inconclusive"


def _sides(values: Sequence, ses: Sequence, sign: int, t: Mapping,
           pair: bool = False) -> list[int]:
    """Per seed: +1 when ``sign * value`` lies beyond its noise threshold above 0, -1 when
    beyond it below 0, 0 within it or unknown (None).  ``ses`` are single standard errors, or
    (with ``pair``) pairs of them for a shift, whose threshold is ``sqrt(2)`` times the
    larger of the two."""
    out = []
    for x, se in zip(values, ses):
        if x is None:
            out.append(0)
            continue
        h = (math.sqrt(2) * max(noise_threshold(se[0], t), noise_threshold(se[1], t)) if pair
             else noise_threshold(se, t))
        out.append(1 if sign * x > h else -1 if sign * x < -h else 0)
    return out


def direction_decide(pair: str, sign: int, support: Sequence[str] = (),
                     against: Sequence[str] = ()) -> Callable[[Mapping, Mapping], str]:
    """A rule's ``decide``: ``sign * pair`` beyond its noise threshold in every seed is the
    stated preference, provided no pair of ``support`` lies beyond noise on the other side
    (``sign * x < -noise``).  The other reading of a seed: ``pair`` beyond noise on the other
    side, or a pair of ``against`` (a subset of ``support``) beyond noise on the other side (a
    recency rule's middle-last above noise: the middle preferred over the last position).

    Gate passed (or no in-context accuracy reported): stated in every seed -> verified; the
    other reading in every seed, or no seed with the stated sign of ``pair`` -> refuted;
    otherwise inconclusive.  Gate not passed: stated in every seed -> qualified (a preference
    of a network without in-context matching); the other reading in every seed -> refuted;
    otherwise inconclusive.
    """
    support = (support,) if isinstance(support, str) else tuple(support)
    if not set(against) <= set(support):
        raise ValueError("every pair of 'against' must be a pair of 'support'")

    def decide(f, t):
        n = len(f[pair])

        def side(p):
            return _sides(f[p], f.get("se " + p) or [None] * n, sign, t)

        main = side(pair)
        sup = {p: side(p) for p in support if f.get(p) is not None}
        stated = [m == 1 and all(sup[p][i] != -1 for p in sup) for i, m in enumerate(main)]
        other = [m == -1 or any(sup[p][i] == -1 for p in against if p in sup)
                 for i, m in enumerate(main)]
        gate = gate_passed(f.get("ic_accuracy") or [None] * n, t)
        return gated_verdict(stated, other, any(m == 1 for m in main), gate is False)

    return decide


def shift_decide(pair: str, sign: int, against: str | None = None, a: str = "RoPE",
                 b: str = "no PE") -> Callable[[Mapping, Mapping], str]:
    """A rule's ``decide`` on the shift ``S = pair(a) - pair(b)`` per seed, threshold
    ``sqrt(2) max(noise(a), noise(b))``: ``sign * S`` beyond it in every seed is the stated
    shift, provided the shift of ``against`` (when given and reported) does not lie beyond its
    threshold on the other side; the other reading of a seed: ``S`` beyond it on the other
    side, or the shift of ``against`` beyond it on the other side.

    **Both arms are gated**: a network at label-copying level cannot show a positional
    trade-off, so when either configuration misses the gate in some seed the verdict is
    inconclusive, whatever the shift.  Both gates passed (or no in-context accuracy reported):
    stated in every seed -> verified; the other reading in every seed, or no seed with the
    stated shift -> refuted; otherwise inconclusive."""

    def decide(f, t):
        n = len(f[f"{a} {pair}"])

        def side(p, se_a, se_b):
            xa, xb = f[f"{a} {p}"], f[f"{b} {p}"]
            sa = f.get(se_a) or [None] * n
            sb = f.get(se_b) or [None] * n
            diffs = [None if x is None or y is None else x - y for x, y in zip(xa, xb)]
            return _sides(diffs, list(zip(sa, sb)), sign, t, pair=True)

        main = side(pair, f"{a} se", f"{b} se")
        if against and f.get(f"{a} {against}") is not None and f.get(f"{b} {against}") is not None:
            con = side(against, f"{a} se {against}", f"{b} se {against}")
        else:
            con = [0] * n
        stated = [m == 1 and c != -1 for m, c in zip(main, con)]
        other = [m == -1 or c == -1 for m, c in zip(main, con)]
        ga = gate_passed(f.get(f"{a} ic_accuracy") or [None] * n, t)
        gb = gate_passed(f.get(f"{b} ic_accuracy") or [None] * n, t)
        if ga is False or gb is False:
            return "inconclusive"
        return gated_verdict(stated, other, any(m == 1 for m in main), False)

    return decide


def trained_thresholds(gate: bool = True) -> dict:
    """The thresholds of a trained-model rule: the noise multiple and floor, and the gate on the
    in-context accuracy (not for the machinery control, ``gate=False``)."""
    out = {
        "noise_multiple": Threshold(3, "a difference counts when beyond this many standard "
                                    "errors of its paired difference", scale="linear", step=0.25,
                                    sensitive=1.0, domain=(0.25, None)),
        "floor": Threshold(MIN_THRESHOLD, "smallest noise threshold on a difference of accuracies "
                           "(the whole threshold for a paper figure without SE)", scale="log",
                           sensitive=2.0),
    }
    if gate:
        out["gate"] = Threshold(GATE, "in-context accuracy every seed must reach for a difference "
                                "to count as in-context retrieval (label copying scores 0.516)",
                                scale="linear", step=0.01, sensitive=0.05,
                                domain=(LABEL_COPYING, 1.0))
    return out


NOISE_TEXT = (f"Noise: a seed's difference counts beyond max(noise_multiple SE, floor) = "
              f"max(3 SE, {MIN_THRESHOLD}) (the floor alone for a paper figure without SE).")
READING_TEXT = ("Reading point (fixed before the runs): the last evaluation every run read "
                "reached, 100,000 iterations for the stored runs (wu2025's 100,000); the verdict "
                "of the rule at every other evaluation is reported beside it, with the "
                "iterations at which the decided verdict holds.")
GATE_TEXT = (f"Gate: in-context accuracy >= gate = {GATE} in every seed (copying one of the two "
             f"context labels at random scores {LABEL_COPYING}); below it the network does not "
             "retrieve by in-context matching, and a difference is a positional preference of "
             "its answers without that retrieval (what Figure 2 plots), not of in-context "
             "retrieval: the stated sign then gives qualified, never verified. " + NOISE_TEXT
             + " wu2025 reports no in-context accuracy with its figures: they are decided on "
             "their differences alone, as if the gate were passed. " + READING_TEXT)
SHIFT_GATE_TEXT = (f"Both arms are gated: in-context accuracy >= gate = {GATE} in every seed of "
                   "each configuration compared (copying one of the two context labels at "
                   f"random scores {LABEL_COPYING}). A network at label-copying level cannot "
                   "show a positional trade-off: with either arm below the gate the comparison "
                   "is inconclusive, whatever the shift, and the evidence says what each arm "
                   "reached. " + NOISE_TEXT + " A shift counts beyond sqrt(2) times the larger "
                   "of the two arms' thresholds. wu2025 reports no in-context accuracy with its "
                   "figures: they are decided on their differences alone, as if both gates were "
                   "passed. " + READING_TEXT)
RECENCY_TEXT = ("Recency is a preference for the end, so middle-last is read too: it must not "
                "lie beyond noise above 0 (the middle preferred over the last position), and "
                "beyond noise above 0 in every seed contradicts recency (refuted, with or "
                "without the gate).")


def seed_entry(ic, fm=None, fl=None, ml=None, se=0.0055, train=None):
    """An example seed (one entry of each per-seed list)."""
    return {"ic": ic, "fm": fm, "fl": fl, "ml": ml, "se": se, "train": train}


def example_figures(*seeds: Any) -> dict:
    """The figures of a direction rule's example, from :func:`seed_entry` entries."""
    f = {"ic_accuracy": [s["ic"] for s in seeds], "train_accuracy": [s["train"] for s in seeds]}
    for key, p in (("fm", "first-middle"), ("fl", "first-last"), ("ml", "middle-last")):
        if all(s[key] is not None for s in seeds):
            f[p] = [s[key] for s in seeds]
            f["se " + p] = [s["se"] for s in seeds]
    return f


def example_shift(pair, rope, nope, se=0.0055, ic_rope=None, ic_nope=None, names=("RoPE", "no PE"),
                  against=None, rope_against=None, nope_against=None):
    """The figures of a shift rule's example: ``pair`` of both configurations per seed (and
    ``against`` when its values are given)."""
    a, b = names
    n = len(rope)
    out = {f"{a} {pair}": list(rope), f"{b} {pair}": list(nope),
           f"{a} se": [se] * n, f"{b} se": [se] * n,
           f"{a} ic_accuracy": list(ic_rope or [None] * n),
           f"{b} ic_accuracy": list(ic_nope or [None] * n),
           "shift": [round(x - y, 6) for x, y in zip(rope, nope)]}
    if against and rope_against is not None and nope_against is not None:
        out.update({f"{a} {against}": list(rope_against), f"{b} {against}": list(nope_against),
                    f"{a} se {against}": [se] * n, f"{b} se {against}": [se] * n,
                    f"shift {against}": [round(x - y, 6)
                                         for x, y in zip(rope_against, nope_against)]})
    return out


#: an example figure read from a paper plot, reported without a standard error
NO_SE = None



def provenance(doc: dict) -> dict:
    """Where a results document comes from: command, seeds, versions, machine, wall times."""
    prov = doc.get("provenance", {})
    return {"name": doc["name"], "command": prov.get("command"), "seeds": prov.get("seeds"),
            "residual": doc["config"].get("residual"),
            "iterations": [r["iterations"] for r in doc["runs"]],
            "wall_seconds": [r["wall_seconds"] for r in doc["runs"]],
            "lr": doc["config"]["lr"], "test_size": doc["config"]["test_size"],
            "versions": prov.get("versions"), "machine": prov.get("machine"),
            "created": prov.get("created")}


def run_setting(docs: Sequence[dict], ctx: CheckContext, source: str) -> dict:
    """The test-setting fields this run refines: iterations, lr, seeds, residual."""
    its = sorted({r["iterations"] for d in docs for r in d["runs"]})
    lrs = sorted({d["config"]["lr"] for d in docs})
    seeds = sorted({s for d in docs for s in d.get("provenance", {}).get("seeds", [])})
    res = {bool(d["config"].get("residual", True)) for d in docs}
    where = "re-trained (--thorough)" if ctx.thorough else "stored runs"
    return {"source": f"{source} ({where})",
            "iterations": its[0] if len(its) == 1 else tuple(its),
            "lr": lrs[0] if len(lrs) == 1 else tuple(lrs),
            "seeds": len(seeds), "residual": "on" if res == {True} else "off" if res == {False}
            else "mixed"}


def accuracy_level(ic: float, test_size: int | None = None) -> str:
    """Where an in-context accuracy lies, in figures only: at or above the gate; within three
    standard errors of random label copying (0.516; the standard error of an accuracy over
    ``test_size`` sequences, 10,000 when not known); below it; or between it and the gate."""
    n = test_size or 10_000
    band = 3 * math.sqrt(LABEL_COPYING * (1 - LABEL_COPYING) / n)
    if ic >= GATE:
        return f"at or above the gate {GATE}"
    if abs(ic - LABEL_COPYING) <= band:
        return (f"below the gate {GATE}, at the level of copying one of the two context labels "
                f"at random ({LABEL_COPYING} ± {band:.3f})")
    if ic < LABEL_COPYING:
        return f"below the gate {GATE} and below random label copying ({LABEL_COPYING})"
    return f"below the gate {GATE}, above random label copying ({LABEL_COPYING})"


def memorisation(figs: dict, prefix: str = "", test_size: int | None = None) -> str:
    """The evidence's reading of the accuracies, per seed: the in-context accuracy and where it
    lies (:func:`accuracy_level`), and the training accuracy beside it."""
    ic = figs.get(prefix + "ic_accuracy") or []
    tr = figs.get(prefix + "train_accuracy") or []
    parts = []
    for seed, a, b in zip(figs.get("seeds", range(len(ic))), ic, tr):
        if a is None:
            continue
        gap = "" if b is None else f"; training accuracy {b:.4f} ({b - a:+.4f} from in-context)"
        parts.append(f"seed {seed}: in-context accuracy {a:.4f}, "
                     f"{accuracy_level(a, test_size)}{gap}")
    return "; ".join(parts)


def _test_size(docs: Sequence[dict]) -> int | None:
    sizes = {d.get("config", {}).get("test_size") for d in docs}
    return sizes.pop() if len(sizes) == 1 else None


def verdict_history(rule: Rule, iterations: Sequence[int],
                    figures_at: Callable[[int], dict]) -> list[dict]:
    """``rule``'s verdict (thresholds at their values) at each of ``iterations``, as
    ``{"iteration", "verdict"}``; ``figures_at(it)`` gives the rule's figures there."""
    vals = rule.values()
    return [{"iteration": it, "verdict": rule.decide(figures_at(it), vals)} for it in iterations]


def verdict_spans(history: Sequence[dict]) -> list[dict]:
    """Runs of consecutive evaluations with one verdict: ``{"verdict", "from", "to",
    "evaluations"}`` in order."""
    spans: list[dict] = []
    for e in history:
        if spans and spans[-1]["verdict"] == e["verdict"]:
            spans[-1]["to"] = e["iteration"]
            spans[-1]["evaluations"] += 1
        else:
            spans.append({"verdict": e["verdict"], "from": e["iteration"], "to": e["iteration"],
                          "evaluations": 1})
    return spans


def _span_text(s: dict) -> str:
    return f"{s['from']:,}" if s["from"] == s["to"] else f"{s['from']:,}-{s['to']:,}"


def reading_report(history: Sequence[dict]) -> str:
    """When the verdict holds: the verdict at the reading point (the last of ``history``), the
    iterations at which it holds, and every other verdict with its iterations."""
    if not history:
        return "no evaluation common to every run read"
    spans = verdict_spans(history)
    decided = history[-1]["verdict"]
    n = len(history)
    by: dict[str, list[dict]] = {}
    for s in spans:
        by.setdefault(s["verdict"], []).append(s)
    held = sum(s["evaluations"] for s in by[decided])
    text = (f"verdict at the reading point, iteration {history[-1]['iteration']:,}: {decided}; "
            f"it holds at iterations {', '.join(_span_text(s) for s in by[decided])} ({held} "
            f"of {n} evaluations)")
    others = [f"{v} at {', '.join(_span_text(s) for s in ss)}" for v, ss in by.items()
              if v != decided]
    if others:
        text += "; the verdict depends on when the run is read: " + "; ".join(others)
    return text


def show_direction(figs: dict, pairs: Sequence[str] = PAIRS) -> str:
    """The differences of a direction rule per seed, with their SE and in-context accuracy."""
    out = []
    for i, seed in enumerate(figs["seeds"]):
        diffs = ", ".join(f"{p} {figs[p][i]:+.4f}±{figs['se ' + p][i]:.4f}" for p in pairs)
        out.append(f"seed {seed} at {figs['iteration'][i]} it: in-context acc "
                   f"{figs['ic_accuracy'][i]:.4f}; {diffs}")
    return "; ".join(out)


def not_matching(docs: Sequence[dict]) -> str:
    """What the stored history says about training longer: the in-context and the training
    accuracy at a fifth of the run and at its end, per seed, and what --thorough does."""
    parts = []
    for doc in docs:
        for run in doc["runs"]:
            hist = [e for e in run["history"] if e.get("train_accuracy") is not None]
            if not hist:
                continue
            first = next((e for e in hist if e["iteration"] >= run["iterations"] / 5), hist[0])
            last = hist[-1]
            parts.append(f"seed {run['seed']}: in-context accuracy {first['ic_accuracy']:.3f} -> "
                         f"{last['ic_accuracy']:.3f}, training accuracy "
                         f"{first['train_accuracy']:.3f} -> {last['train_accuracy']:.3f} from "
                         f"{first['iteration']} to {last['iteration']} iterations")
    its = THOROUGH_SCALE["iterations"]
    return ("what would change it is not known here (" + "; ".join(parts) + "); --thorough "
            f"re-trains the same {its:,} iterations: it does not train longer")


def trained_evidence(rule: Rule, figs: dict, docs: Sequence[dict], ctx: CheckContext,
                     method: str, keys: Sequence[str], source: str, *, shown: str, reading: str,
                     tolerance: str, qualified: str, history: Sequence[dict] = ()) -> Evidence:
    """The evidence of a trained claim: ``rule``'s verdict on ``figs``, the differences
    ``shown`` (the counterexample when refuted), the ``reading`` of the accuracies, the
    verdict at every evaluation (``history``) with the iterations at which the decided verdict
    holds, and when qualified the correction ``qualified`` followed by what the stored history
    says."""
    verdict = rule.apply(figs).verdict
    when = reading_report(history) if history else ""
    correction = None
    if verdict == "qualified":
        correction = qualified + not_matching(docs) + (f"; {when}" if when else "")
    details: dict = {"rule": rule.text, "accuracies": reading,
                     "provenance": [provenance(x) for x in docs]}
    if history:
        details["verdict_by_iteration"] = list(history)
        details["holds_at"] = [[s["from"], s["to"]] for s in verdict_spans(history)
                               if s["verdict"] == verdict]
        details["when"] = when
    return Evidence(
        verdict, method=method, discrepancy=shown + (f" | {when}" if when else ""),
        precision="float32 training; accuracies exact ratios over the test sets",
        tolerance=tolerance, correction=correction,
        counterexample=shown if verdict == "refuted" else None,
        parameters={"configurations": list(keys), "implementation": IMPLEMENTATION},
        details=details, figures=figs, setting=run_setting(docs, ctx, source))


def direction_evidence(rule: Rule, figs: dict, docs: Sequence[dict], ctx: CheckContext, method: str,
                       keys: Sequence[str], source: str, pairs: Sequence[str] = PAIRS,
                       history: Sequence[dict] = ()) -> Evidence:
    """The evidence of a direction claim: every difference of every seed, the accuracies, the
    verdict at every evaluation."""
    reading = memorisation(figs, test_size=_test_size(docs))
    return trained_evidence(
        rule, figs, docs, ctx, method, keys, source, shown=show_direction(figs, pairs),
        reading=reading, history=history,
        tolerance=f"gate in-context accuracy >= {GATE}; noise max(3 SE, {MIN_THRESHOLD})",
        qualified=("the stated sign holds beyond noise in every seed, in a network below the "
                   "gate (" + reading + "): a positional preference of its answers without "
                   "in-context matching, not of in-context retrieval; "))


def arms_reached(figs: dict, names: Sequence[str] = ("RoPE", "no PE"),
                 test_size: int | None = None) -> str:
    """What each arm of a comparison reached: its in-context accuracy per seed, and whether
    every seed passed the gate."""
    parts = []
    for name in names:
        ics = figs.get(f"{name} ic_accuracy") or []
        known = [x for x in ics if x is not None]
        if not known:
            parts.append(f"{name} arm: no in-context accuracy reported")
            continue
        passed = len(known) == len(ics) and all(x >= GATE for x in known)
        levels = [accuracy_level(x, test_size) for x in known]
        values = ", ".join(f"{x:.4f}" for x in known)
        where = (levels[0] if len(set(levels)) == 1
                 else "; ".join(f"{x:.4f} {lv}" for x, lv in zip(known, levels)))
        parts.append(f"{name} arm: in-context accuracy {values} ({where}): "
                     + ("gate passed in every seed" if passed else "gate not passed"))
    return "; ".join(parts)


def shift_evidence(rule: Rule, figs: dict, docs: Sequence[dict], ctx: CheckContext, method: str,
                   keys: Sequence[str], source: str, pair: str, against: str | None = None,
                   history: Sequence[dict] = ()) -> Evidence:
    """The evidence of a RoPE shift claim: what each arm reached, ``pair`` (and ``against``)
    of both configurations and the shift per seed, the accuracies of both, the verdict at
    every evaluation."""
    def one(i: int, p: str, se_a: str, se_b: str, shift: str) -> str:
        return (f"RoPE {p} {figs['RoPE ' + p][i]:+.4f}±{figs[se_a][i]:.4f}, no PE "
                f"{figs['no PE ' + p][i]:+.4f}±{figs[se_b][i]:.4f}, shift {figs[shift][i]:+.4f}")

    size = _test_size(docs)
    rows = []
    for i, s in enumerate(figs["seeds"]):
        row = (f"seed {s}: {one(i, pair, 'RoPE se', 'no PE se', 'shift')} (in-context acc RoPE "
               f"{figs['RoPE ic_accuracy'][i]:.4f}, no PE {figs['no PE ic_accuracy'][i]:.4f})")
        if against and f"shift {against}" in figs:
            row += "; " + one(i, against, f"RoPE se {against}", f"no PE se {against}",
                              f"shift {against}")
        rows.append(row)
    shown = arms_reached(figs, test_size=size) + " | " + "; ".join(rows)
    reading = "; ".join(x for x in (
        "RoPE: " + memorisation(figs, "RoPE ", size),
        "no PE: " + memorisation({**figs, "ic_accuracy": figs["no PE ic_accuracy"],
                                  "train_accuracy": figs["no PE train_accuracy"]},
                                 test_size=size)) if x)
    return trained_evidence(
        rule, figs, docs, ctx, method, keys, source, shown=shown, reading=reading,
        history=history,
        tolerance=(f"gate in-context accuracy >= {GATE} in both arms; noise sqrt(2) max(3 SE, "
                   f"{MIN_THRESHOLD})"),
        qualified="")


def needs_data(exc: Exception) -> Evidence:
    """The evidence of a claim whose results are missing: needs-data, naming them."""
    return Evidence("needs-data", method=f"missing: {exc}", details={"needs": str(exc)})


def common_iterations(*docs: dict) -> list[int]:
    """The iterations evaluated in every run of every document, in order; the last of them is
    the rules' reading point."""
    sets = [{e["iteration"] for e in r["history"]} for d in docs for r in d["runs"]]
    return sorted(set.intersection(*sets)) if sets else []


# ---- cards -----------------------------------------------------------------------------------
TASK = ("in-context classification (Gaussian mixture, after Reddy 2024): K 2048 classes, 32 "
        "labels, d 64, N 8 items in bursts of 4, eps 0.75")
ARCHITECTURE = "self-attention network (SAN) after Reddy 2024"
READOUT = "single head; the last token through a 3-layer MLP and a linear read-out"
UNBIASED = "none (answer position uniform)"
#: where the cards read wu2025's stated settings: its experimental-setup text as quoted on a
#: reproducibility page (the arXiv HTML held here gives only the abstract and the introduction)
PAPER_SETUP = ("wu2025's experimental setup as its text states it (n 8, d 64, γ 0.75, K 2048, "
               "L 32, B 4; decay m = log 0.8; AdamW with lr 1e-3, weight decay 1e-6, batch 128, "
               "100,000 iterations; test sets of 10,000 sequences), read as quoted on the "
               "reproducibility page acmrep2026.k117.org/papers/"
               "on_the_emergence_of_position_bias_in_transformers__1553a28c (the arXiv HTML "
               "held here, arxiv.org/html/2502.01951v2, gives the abstract and the start of "
               "the introduction only)")
#: the fields of a trained card not read from wu2025's text: which network a figure shows
FIG_UNCONFIRMED = ("readout", "layers", "residual", "mask", "pe", "train_bias")
#: posbias' re-implementation of wu2025's public model, listed among every trained card's
#: differences (an implementation, not a setting: the scope is unchanged)
REIMPLEMENTATION = (
    "posbias train re-implements wu2025's public model and task (xinyiwu98/position-bias-in-"
    "attention, read, not copied): the same network and data distribution, but every batch and "
    "test set drawn as tensors from seeded torch generators (the public code loops over samples "
    "and draws class labels from an unseeded generator), each test sequence with its own two "
    "novel classes (the public code draws them from a fresh set of K), the decay as a "
    "γ^(i-j) mask (the public --mask decay), residual connections switched by --residual (the "
    "public --not_res flag is inverted); posbias' runs are not compared here with runs of the "
    "public code",)


def paper_setting(fig: str, residual: str, mask: str, pe: str | tuple[str, ...],
                  extra: str = "") -> Setting:
    """The paper setting of a trained claim, ``fig`` of wu2025: its training and task settings
    as wu2025's text states them (confirmed), which network the figure shows (unconfirmed:
    from a third-party reading of the plot and the public code)."""
    return Setting(
        f"wu2025 section 5, {fig} (the section, the figure and its values as a third-party "
        f"reading of the plot gives them, not confirmed{extra}); the training and task "
        f"settings: {PAPER_SETUP}; which network the figure shows (depth, residual connections, "
        "mask, PE, unbiased data) from the third-party reading and the public code "
        "xinyiwu98/position-bias-in-attention (train.py: residual off unless --not_res is "
        "given)",
        architecture=ARCHITECTURE, readout=READOUT, layers=2, residual=residual, mask=mask,
        pe=pe, data=TASK, train_bias=UNBIASED, training="AdamW, weight decay 1e-6",
        iterations=100_000, lr=1e-3, batch=128, test_size=10_000,
        unconfirmed=FIG_UNCONFIRMED,
        note="confirmed from wu2025's text as quoted: architecture (a SAN after Reddy 2024), "
             "data, training, iterations, lr, batch, test_size; the public code's defaults "
             "agree (lr 1e-3, weight decay 1e-6, batch 128, 10,000 test sequences) except "
             "--iter 50000")


def tested_setting(residual: str, mask: str, pe: str | tuple[str, ...], source: str) -> Setting:
    """The test setting of a trained claim: posbias train's runs read from ``source``."""
    return Setting(source, architecture=ARCHITECTURE, readout=READOUT, layers=2,
                   residual=residual, mask=mask, pe=pe, data=TASK, train_bias=UNBIASED,
                   training="AdamW, weight decay 1e-6", iterations=100_000, lr=1e-3, batch=128,
                   test_size=10_000, seeds=2, note=IMPLEMENTATION)


DECAY_PAPER = "decay (gamma = 0.8, a γ^(i-j) mask)"
ATTENTION_ONLY_SOURCE = "stored attention-only runs (residual: false) of posbias train, when present"
RESIDUAL_SOURCE = "stored runs of posbias train with residual connections (data/trained/*_res_*.json)"

ASSUMPTIONS = ("wu2025's in-context classification task (K = 2048, L = 32, d = 64, n = 8, "
               "B = 4, eps = 0.75), unbiased training data",
               "2-layer single-head self-attention network, AdamW, lr 1e-3, weight decay 1e-6, "
               "batch 128, 100,000 iterations")
NEEDS = ("stored results", "models (for --thorough)")


def direction_check(ctx: CheckContext, key: str, rule: Rule, method: str, *,
                    residual: bool) -> Evidence:
    """The check of a direction claim: the runs of ``key`` (attention-only for Figure 2, with
    residual connections for Figure 5) summarized at the reading point (the last evaluation
    every run reached), decided by ``rule``; the rule's verdict at every common evaluation
    beside it."""
    try:
        doc = load_runs(ctx, key, residual)
    except MissingRun as exc:
        return needs_data(exc)
    its = common_iterations(doc)
    if not its:
        return Evidence("inconclusive", method="no common evaluation",
                        discrepancy="the seeds of the run share no evaluated iteration")

    def at(it: int) -> dict:
        return direction_figures(summarize(doc, it))

    return direction_evidence(rule, at(its[-1]), [doc], ctx, method, [key],
                              RESIDUAL_SOURCE if residual else ATTENTION_ONLY_SOURCE,
                              history=verdict_history(rule, its, at))


def rope_shift_check(ctx: CheckContext, rule: Rule, pair: str, method: str, *,
                     residual: bool, against: str | None = None) -> Evidence:
    """The check of a RoPE shift claim: the causal runs with RoPE and without PE, compared on
    ``pair`` (and ``against``) at the reading point (the last evaluation every run of both
    reached), decided by ``rule``; the rule's verdict at every common evaluation beside it."""
    try:
        rope_doc = load_runs(ctx, "causal-rope", residual)
        nope_doc = load_runs(ctx, "causal-nope", residual)
    except MissingRun as exc:
        return needs_data(exc)
    its = common_iterations(rope_doc, nope_doc)

    def at(it: int) -> dict:
        return shift_figures(summarize(rope_doc, it), summarize(nope_doc, it), pair,
                             against=against)

    try:
        if not its:
            raise ValueError("the runs of the two configurations share no evaluated iteration")
        figs = at(its[-1])
    except ValueError as exc:
        return Evidence("inconclusive", method="no common evaluation", discrepancy=str(exc))
    return shift_evidence(rule, figs, [rope_doc, nope_doc], ctx,
                          f"{method}, compared at iteration {its[-1]}",
                          ["causal-rope", "causal-nope"],
                          RESIDUAL_SOURCE if residual else ATTENTION_ONLY_SOURCE, pair,
                          against=against, history=verdict_history(rule, its, at))
