"""posbias:trained-full-control: posbias' test machinery for wu2025's trained claims has no
positional leak: a full-mask network without positional encoding (a set function of its
context, so every expected ``Acc(X_Y) - Acc(Y_X)`` is exactly 0) shows every difference within
the sampling noise.

posbias' own control (docs/mathematics.rst W5), a claim about the package's machinery: the
generator, the paired test sets ``IC_X_Y`` / ``IC_Y_X`` and the accuracies that wu2025's
section-5 claims (:mod:`posbias.proofs_checks.claims.wu2025`) read.

The check reads the stored full-mask runs of ``posbias train``
(``data/trained/full_none_res_lr0.003.json``; re-trained with ``--thorough``) at their last
evaluation and requires every difference of every seed within ``max(3 SE, 0.01)``, with no gate
on the in-context accuracy.
"""

from __future__ import annotations

from collections.abc import Mapping

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting
from posbias.proofs_checks.claims.posbias._shared import FIXED_DATE
from posbias.proofs_checks.claims.wu2025._trained import (
    IMPLEMENTATION,
    MIN_THRESHOLD,
    NEEDS,
    PAIRS,
    MissingRun,
    direction_figures,
    example_figures,
    load_runs,
    needs_data,
    noise_threshold,
    provenance,
    run_setting,
    seed_entry,
    show_direction,
    summarize,
    trained_thresholds,
    training_work,
)
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """Every difference of every seed within ``max(k SE, floor)`` -> verified, else refuted."""
    for p in PAIRS:
        for x, se in zip(f[p], f.get("se " + p) or [None] * len(f[p])):
            if abs(x) > noise_threshold(se, t):
                return "refuted"
    return "verified"


RULE = Rule(
    text=("Machinery control: a full-mask network without PE is a set function of its context, "
          "so every expected Acc(X_Y) - Acc(Y_X) is exactly 0. verified: every pair of every seed "
          "within max(noise_multiple SE, floor) = max(3 SE, 0.01); refuted: some difference "
          "beyond it (a generator, a test set or an accuracy that leaks position). No gate: the "
          "control checks the test machinery's noise level, not a claim of wu2025."),
    decide=decide,
    thresholds=trained_thresholds(gate=False),
    examples=(
        Example("the stored full-mask runs: |d| <= 0.0072 with SE 0.0063-0.0067",
                example_figures(seed_entry(0.40, -0.0016, 0.0017, 0.005, 0.0063),
                                seed_entry(0.44, -0.0039, -0.001, -0.0072, 0.0066)), "verified"),
        Example("a test set that leaks position (answer copies placed after the query): "
                "first-last +0.05",
                example_figures(seed_entry(0.40, 0.0, 0.05, 0.0), seed_entry(0.44, 0.0, 0.04, 0.0)),
                "refuted", "false"),
    ),
    fixed=FIXED_DATE,
    deciding=("first-middle", "first-last", "middle-last"),
    no_paper_figures="a check of posbias' own test machinery: no paper reports these figures",
)

CARD = Card(
    paper=Setting("posbias: a full mask without PE is a set function of its context "
                  "(docs/mathematics.rst W5); a control of the trained-model test machinery",
                  mask="full", pe="none"),
    test=Setting("stored runs of posbias train (data/trained/full_none_res_lr0.003.json)",
                 mask="full", pe="none", residual="on", iterations=2000, lr=3e-3, seeds=2),
    kind="machinery",
    proof=ProofStatus("numeric", note="E[difference] = 0 by the symmetry of a set function; the "
                      "check measures that the trained differences stay within noise"))


@claim(
    "posbias:trained-full-control",
    statement=("posbias' test machinery has no positional leak: a full-mask network without "
               "positional encoding (a set function of its context, so every expected "
               "Acc(X_Y) - Acc(Y_X) is exactly 0) shows every difference within the sampling "
               "noise."),
    latex=r"\left|\mathrm{Acc}(X_Y) - \mathrm{Acc}(Y_X)\right| \le \max(3\,\mathrm{SE}, 0.01)",
    expected="verified",
    assumptions=("full mask, no PE: permutation-invariant in the context items",
                 "the stored full-mask runs (lr 3e-3, 2,000 iterations, residual on)"),
    section="docs/mathematics.rst W5 (control)",
    needs=NEEDS,
    thorough_work=training_work("full-nope",),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext) -> Evidence:
    """The stored full-mask/no-PE runs (re-trained with ``--thorough``) decided by :data:`RULE`;
    needs-data when they are missing."""
    try:
        doc = load_runs(ctx, "full-nope", residual=True)
    except MissingRun as exc:
        return needs_data(exc)
    figs = direction_figures(summarize(doc))
    d = RULE.apply(figs)
    shown = show_direction(figs)
    return Evidence(
        d.verdict, method="trained full-mask/no-PE network, paired test sets IC_X_Y vs IC_Y_X",
        discrepancy=shown, precision="float32 training; accuracies exact ratios over the test sets",
        tolerance=f"noise max(3 SE, {MIN_THRESHOLD})",
        counterexample=shown if d.verdict == "refuted" else None,
        parameters={"configurations": ["full-nope"], "implementation": IMPLEMENTATION},
        details={"rule": RULE.text, "provenance": [provenance(doc)]},
        figures=figs, setting=run_setting([doc], ctx, "stored runs of posbias train"))
