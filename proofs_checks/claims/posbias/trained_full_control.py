"""posbias:trained-full-control: posbias' test machinery for wu2025's trained claims has no
positional leak: a full-mask network without positional encoding (a set function of its
context, so every expected ``Acc(X_Y) - Acc(Y_X)`` is exactly 0) shows every difference within
the sampling noise.

posbias' own control (docs/explanation/mathematics.rst W5), a claim about the package's machinery: the
generator, the paired test sets ``IC_X_Y`` / ``IC_Y_X`` and the accuracies that wu2025's
section-5 claims (:mod:`posbias.proofs_checks.claims.wu2025`) read.

The control runs in the setting it controls: the Figure-2 claims' attention-only networks (no
residual connections) at wu2025's scale (lr 1e-3, weight decay 1e-6, batch 128, 100,000
iterations).  The check reads the stored attention-only full-mask runs of ``posbias train``
(``residual: false``; re-trained with ``--thorough``) at the reading point (their last
evaluation) and requires every difference of every seed within ``max(3 SE, 0.01)``; a network
whose in-context accuracy stays below 0.27 (halfway from chance to copying a context label)
does not read its context and cannot show a leak, so the control is then inconclusive.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.wu2025._trained import (
    ATTENTION_ONLY_SOURCE,
    IMPLEMENTATION,
    LABEL_COPYING,
    MIN_THRESHOLD,
    NEEDS,
    PAIRS,
    READING_TEXT,
    REIMPLEMENTATION,
    RULES_FIXED,
    MissingRun,
    attention_only_command,
    common_iterations,
    direction_figures,
    example_figures,
    load_runs,
    memorisation,
    needs_data,
    noise_threshold,
    off_scale,
    provenance,
    reading_report,
    run_setting,
    seed_entry,
    show_direction,
    summarize,
    trained_thresholds,
    training_work,
    verdict_history,
    verdict_spans,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "CHANCE", "RULE", "check", "decide"]


#: chance of a network that ignores its context: one of the 32 labels
CHANCE = 1 / 32


def decide(f: Mapping, t: Mapping) -> str:
    """Some difference of some seed beyond ``max(k SE, floor)`` -> refuted; else every seed's
    in-context accuracy at least ``reads_context`` -> verified; else inconclusive (a network
    that does not read its context cannot show a positional leak)."""
    for p in PAIRS:
        for x, se in zip(f[p], f.get("se " + p) or [None] * len(f[p])):
            if abs(x) > noise_threshold(se, t):
                return "refuted"
    ics = f.get("ic_accuracy") or []
    if not ics or any(x is None or x < t["reads_context"] for x in ics):
        return "inconclusive"
    return "verified"


RULE = Rule(
    text=("Machinery control, in the setting it controls (attention only, no residual "
          "connections, wu2025's scale: lr 1e-3, weight decay 1e-6, batch 128, 100,000 "
          "iterations, the Figure-2 claims' setting): a full-mask network without PE is a set "
          "function of its context, so every expected Acc(X_Y) - Acc(Y_X) is exactly 0. "
          "refuted: some pair of some seed beyond max(noise_multiple SE, floor) = max(3 SE, "
          "0.01) (a generator, a test set or an accuracy that leaks position); verified: every "
          "pair of every seed within it and every seed's in-context accuracy >= reads_context "
          f"= 0.27 (halfway from chance, 1/32 = {CHANCE:.3f}, to copying one of the two context "
          f"labels at random, {LABEL_COPYING}): only a network that reads its context labels "
          "can show a positional leak; inconclusive: within noise but below reads_context. No "
          "gate on in-context matching: the control checks the test machinery's noise level, "
          "not a claim of wu2025. " + READING_TEXT + " Read only from stored runs with "
          "residual: false; none stored -> needs-data."),
    decide=decide,
    thresholds={**trained_thresholds(gate=False),
                "reads_context": Threshold(
                    0.27, "in-context accuracy every seed must reach for the control to have "
                    f"power (chance {CHANCE:.3f}, label copying {LABEL_COPYING})",
                    scale="linear", step=0.01, sensitive=0.05, domain=(CHANCE, LABEL_COPYING))},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("a network that copies context labels (ic 0.50, 0.51) with every |d| within "
                "noise (SE 0.0065)",
                example_figures(seed_entry(0.50, -0.0016, 0.0017, 0.005, 0.0065),
                                seed_entry(0.51, -0.0039, -0.001, -0.0072, 0.0065)), "verified"),
        Example("a test set that leaks position (answer copies placed after the query): "
                "first-last +0.05",
                example_figures(seed_entry(0.50, 0.0, 0.05, 0.0), seed_entry(0.51, 0.0, 0.04, 0.0)),
                "refuted", "false"),
        Example("a leak shown by a network that does not read its context: first-last +0.05 at "
                "ic 0.03",
                example_figures(seed_entry(0.03, 0.0, 0.05, 0.0), seed_entry(0.03, 0.0, 0.04, 0.0)),
                "refuted", "false"),
        Example("no difference from a network at chance (ic 0.031, 0.029): no power, not a "
                "control passed",
                example_figures(seed_entry(0.031, 0.001, 0.0, -0.001, 0.0019),
                                seed_entry(0.029, 0.0, 0.002, 0.001, 0.0019)),
                "inconclusive", "false"),
    ),
    fixed=RULES_FIXED,
    deciding=("first-middle", "first-last", "middle-last", "ic_accuracy"),
    no_paper_figures="a check of posbias' own test machinery: no paper reports these figures",
)

CARD = Card(
    paper=Setting("posbias: a full mask without PE is a set function of its context "
                  "(docs/explanation/mathematics.rst W5); a control of the trained-model test machinery in "
                  "the setting of the Figure-2 claims it controls (wu2025's training settings "
                  "as its text states them)",
                  mask="full", pe="none", residual="off", training="AdamW, weight decay 1e-6",
                  iterations=100_000, lr=1e-3, batch=128),
    test=Setting(ATTENTION_ONLY_SOURCE, mask="full", pe="none", residual="off",
                 training="AdamW, weight decay 1e-6", iterations=100_000, lr=1e-3, batch=128,
                 seeds=2, note=IMPLEMENTATION),
    kind="machinery",
    proof=ProofStatus("numeric", note="E[difference] = 0 by the symmetry of a set function; the "
                      "check measures that the trained differences stay within noise"),
    implementation=REIMPLEMENTATION)


@claim(
    "posbias:trained-full-control",
    statement=("posbias' test machinery has no positional leak: a full-mask network without "
               "positional encoding (a set function of its context, so every expected "
               "Acc(X_Y) - Acc(Y_X) is exactly 0) shows every difference within the sampling "
               "noise."),
    latex=r"\left|\mathrm{Acc}(X_Y) - \mathrm{Acc}(Y_X)\right| \le \max(3\,\mathrm{SE}, 0.01)",
    # the control reads only runs in the setting it controls (no residual connections,
    # wu2025's scale): the stored attention-only full-mask run (2026-12-04, two seeds of
    # 100,000 iterations) keeps every difference within noise at the reading point, where
    # both seeds copy context labels (in-context accuracy 0.514, 0.513 >= 0.27)
    expected="verified",
    assumptions=("full mask, no PE: permutation-invariant in the context items",
                 "the stored attention-only full-mask runs (no residual connections, lr 1e-3, "
                 "100,000 iterations)"),
    section="docs/explanation/mathematics.rst W5 (control)",
    needs=NEEDS,
    thorough_work=training_work("full-nope", residual=False),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """The stored attention-only full-mask/no-PE runs (re-trained with ``--thorough``) at the
    reading point, decided by :data:`RULE`; needs-data naming the training command when none is
    stored."""
    try:
        doc = load_runs(ctx, "full-nope", residual=False)
    except MissingRun as exc:
        return needs_data(exc)
    departs = off_scale(doc)
    if departs:  # the rule reads only a run at wu2025's scale: another is not its control
        return needs_data(MissingRun(
            "the stored attention-only full-mask run is not at wu2025's scale ("
            + "; ".join(departs) + "); to produce one: "
            + attention_only_command("full-nope")))
    its = common_iterations(doc)
    if not its:
        return Evidence("inconclusive", method="no common evaluation",
                        discrepancy="the seeds of the run share no evaluated iteration")

    def at(it: int) -> dict:
        return direction_figures(summarize(doc, it))

    figs = at(its[-1])
    d = RULE.apply(figs)
    history = verdict_history(RULE, its, at)
    when = reading_report(history)
    shown = show_direction(figs)
    return Evidence(
        d.verdict, method="trained attention-only full-mask/no-PE network, paired test sets "
        "IC_X_Y vs IC_Y_X", discrepancy=f"{shown} | {when}",
        precision="float32 training; accuracies exact ratios over the test sets",
        tolerance=f"noise max(3 SE, {MIN_THRESHOLD}); in-context accuracy >= 0.27",
        counterexample=shown if d.verdict == "refuted" else None,
        parameters={"configurations": ["full-nope"], "implementation": IMPLEMENTATION},
        details={"rule": RULE.text, "accuracies": memorisation(figs, test_size=_size(doc)),
                 "provenance": [provenance(doc)], "verdict_by_iteration": history,
                 "holds_at": [[x["from"], x["to"]] for x in verdict_spans(history)
                              if x["verdict"] == d.verdict], "when": when},
        figures=figs, setting=run_setting([doc], ctx, ATTENTION_ONLY_SOURCE))


def _size(doc: dict) -> int | None:
    return doc.get("config", {}).get("test_size")
