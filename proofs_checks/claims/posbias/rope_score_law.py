"""posbias:rope-score-law: a RoPE map is orthogonal, so for an isotropic Gaussian key ``k``
independent of ``q`` the score ``q^T R k`` has the same law as ``q^T k`` (the model-free half
of chowdhury2026's result C8, a claim of its own: chowdhury2026:rope-init also states a
measurement and is decided on it).

posbias' derivation for chowdhury2026 C8 (docs/explanation/mathematics.rst, chowdhury2026 C8): RoPE block
rotations with any angles, ``d`` even, ``k ~ N(0, sigma^2 I)`` independent of ``q``.

The check runs chowdhury2026's route (:func:`~posbias.proofs_checks.claims.chowdhury2026.rope_init.rope_law_check`):
sympy identities (orthogonality and equal score variance for d = 2, 4, 6, equal characteristic
function for d = 2) and a seeded Monte Carlo test at d = 64 (two independent sample sets of
20,000 pairs: a two-sample KS test, and the means and variances in standard errors), and
decides on those figures.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims._common import derivation_by_name, latex_of_derivation
from posbias.proofs_checks.claims.chowdhury2026.rope_init import RopeTransform, rope_law_check
from posbias.proofs_checks.claims.posbias._shared import FIXED_DATE
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "check", "decide"]


def decide(f: Mapping, t: Mapping) -> str:
    """The Monte Carlo test fails (KS p-value below ks_level, or a mean or variance more than
    moment_z standard errors apart) -> refuted; an identity open -> inconclusive; else verified."""
    if (f["ks_p_value"] < t["ks_level"] or f["variance_z"] > t["moment_z"]
            or f["mean_z"] > t["moment_z"]):
        return "refuted"
    return "inconclusive" if f["symbolic_open"] > 0 else "verified"


RULE = Rule(
    text=("Symbolic: RoPE matrices orthogonal (d = 2, 4, 6), equal score variance given q "
          "(d = 2, 4, 6) and equal characteristic function (d = 2) (symbolic_open counts "
          "identities that do not close). Monte Carlo (seeded, 20,000 pairs, d = 64, two "
          "independent sample sets): two-sample KS p-value >= ks_level = 1e-3, and the means and "
          "variances of q^T k and q^T R k within moment_z = 5 standard errors. refuted: the "
          "Monte Carlo test fails; inconclusive: an identity does not close; verified "
          "otherwise."),
    decide=decide,
    thresholds={"ks_level": Threshold(1e-3, "level of the two-sample KS test", sensitive=10.0),
                "moment_z": Threshold(5.0, "standard errors allowed between the two samples' "
                                      "means and variances", scale="linear", step=0.25,
                                      sensitive=1.0, domain=(0.25, None))},
    outcomes=("verified", "refuted", "inconclusive"),
    examples=(
        Example("a rotation: same law", {"ks_p_value": 0.4, "variance_z": 0.7, "mean_z": 0.3,
                                         "symbolic_open": 0}, "verified"),
        Example("a non-orthogonal map 1.2 k (scales the score by 1.2)",
                {"ks_p_value": 1e-40, "variance_z": 40.0, "mean_z": 0.2, "symbolic_open": 0},
                "refuted", "false"),
        Example("identities open", {"ks_p_value": 0.4, "variance_z": 0.7, "mean_z": 0.3,
                                    "symbolic_open": 1}, "inconclusive"),
    ),
    fixed=FIXED_DATE,
    deciding=("ks_p_value", "variance_z", "mean_z", "symbolic_open"),
    no_paper_figures="a result posbias derives for chowdhury2026 C8: the paper states it in words",
)

CARD = Card(
    paper=Setting("posbias, the model-free half of chowdhury2026 C8 (docs/explanation/mathematics.rst (chowdhury2026), "
                  "C8): a rotation leaves the law of q^T k unchanged (any angles)",
                  pe="RoPE", width="any even d"),
    test=Setting("sympy identities (d = 2, 4, 6) and a seeded Monte Carlo KS test (d = 64, "
                 "random angles per pair)", pe="RoPE", width=(2, 4, 6, 64)),
    proof=ProofStatus("range", "d = 2, 4, 6 (symbolic; d = 2 for the characteristic "
                      "function)", note="the Monte Carlo test at d = 64 is evidence, not "
                      "proof"))


@claim(
    "posbias:rope-score-law",
    statement="A RoPE map is orthogonal, so for an isotropic Gaussian key k independent of q the "
    "score q^T R k has the same law as q^T k (the model-free half of chowdhury2026 C8).",
    latex=latex_of_derivation("rope-init"),
    expected="verified",
    assumptions=("k ~ N(0, sigma^2 I) independent of q", "RoPE block rotations, d even"),
    section="chowdhury2026 C8",
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, transform: RopeTransform | None = None) -> Evidence:
    """The score-law half of chowdhury2026 C8 (:func:`rope_law_check`; ``transform(k, rng)``
    replaces the rotation), decided by :data:`RULE` on its Monte Carlo and symbolic figures."""
    ev = rope_law_check(ctx, transform)
    mc = ev.details["monte_carlo"]
    num = {k: float(v) if isinstance(v, str) else v for k, v in mc.items()}
    n, dim = num["samples"], num["dim"]
    se_var = math.sqrt((2 * dim**2 + 6 * dim) / n)
    figures = {
        "ks_p_value": num["ks_p_value"], "ks": num["ks"],
        "variance_z": abs(num["var_plain"] - num["var_rotated"]) / (math.sqrt(2) * se_var),
        "mean_z": abs(num["mean_plain"] - num["mean_rotated"]) / math.sqrt(2 * dim / n),
        "symbolic_open": len(derivation_by_name("rope-init").unproven()),
    }
    ev.figures = figures
    ev.verdict = RULE.apply(figures).verdict
    ev.rule = RULE.text
    if ev.verdict == "verified":
        ev.counterexample = None
    return ev
