"""chowdhury2026:u-shape-step0 (C7 measured): untrained Qwen2 and GPT-2 show the U at Step 0
("lost in the middle at birth").

The abstract: "untrained Qwen2 and GPT-2 architectures exhibit this U-shape at Step 0".  Claim
``chowdhury2026:u-shape`` decides the same words on the Cesàro model; this claim decides them
on what they are about, the measured Step-0 influence profiles of the paper's architectures at
the paper's scale: Qwen2-0.5B with 24 layers at the running length L = 2048 and GPT-2 small at
its 1024 positions (``posbias measure`` at full width; stored runs, live with ``--thorough``).

The rule and card were fixed before the measured result they decide (FIXED); the check below
reads them.

The statistics are those of :mod:`posbias.numerics.shape`, each on the whole profile and on the
profile without the final token's self-influence: in a residual network the final token's
influence on itself is the residual path, an atom that can stand two orders of magnitude above
its neighbours, and a "U" whose right arm is that one token says nothing about the middle of the
context.  The rule says when the final token alone decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from numpy.typing import ArrayLike

from posbias.numerics.shape import BINS, U_FACTOR, final_token_decides, shape_with_and_without_final
from posbias.proofs_checks import ablations, measured
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.chowdhury2026._step0 import Step0Data, step0_source
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "FIXED", "RULE", "check", "decide", "is_u", "shape_figures", "u_step0_figures"]

#: the date the rule was fixed, before the result it decides
FIXED = "2026-12-04"


def is_u(s: Mapping, factor: float) -> bool:
    """The macroscopic U test of :mod:`posbias.numerics.shape` at ``factor``: the valley block
    interior and both end blocks at least ``factor`` times it."""
    return bool(s["interior_valley"]) and s["u_factor"] >= factor


def decide(f: Mapping, t: Mapping) -> str:
    """Every architecture a U with and without its final token verifies; one that is a U in
    neither reading refutes; otherwise (some U rests on the final token alone) qualified."""
    archs = f["architectures"].values()
    both = [is_u(a["with"], t["u_factor"]) and is_u(a["without"], t["u_factor"]) for a in archs]
    neither = [not is_u(a["with"], t["u_factor"]) and not is_u(a["without"], t["u_factor"])
               for a in archs]
    if all(both):
        return "verified"
    if any(neither):
        return "refuted"
    return "qualified"


def _reading(u_factor: float, interior: bool = True) -> dict:
    return {"u_factor": u_factor, "interior_valley": interior}


def _arch(with_u: float, without_u: float, with_interior: bool = True,
          without_interior: bool = True, L: int = 2048) -> dict:
    return {"L": L, "with": _reading(with_u, with_interior),
            "without": _reading(without_u, without_interior)}


def _two(a: dict, b: dict) -> dict:
    return {"architectures": {"qwen2-0.5b": a, "gpt2": dict(b, L=1024)}}


RULE = Rule(
    text=(
        f"The measured Step-0 influence profile of each of the paper's architectures (Qwen2-0.5B "
        f"with 24 layers at L = 2048, GPT-2 small at its 1024 positions; the primary length "
        f"L = 256 only where no paper-length run is stored), pooled over seeds x inputs, in "
        f"{BINS} consecutive blocks (posbias.numerics.shape): the valley block is the block "
        f"with the smallest mean, and the U factor the smaller of (first block / valley block) "
        f"and (last block / valley block). A profile is a U when its valley block is interior "
        f"(neither the first nor the last block) and its U factor is at least u_factor. Each "
        f"profile is read twice: whole ('with'), and without the final token's self-influence "
        f"p(L) ('without': p(1..L-1), the residual path of the final token left out). verified: "
        f"every architecture is a U in both readings; refuted: some architecture is a U in "
        f"neither reading (no U at Step 0, whether or not the final token counts); qualified: "
        f"otherwise: every architecture is a U in one reading, and the final token alone "
        f"decides it for some (the correction names them); needs-data: no stored or live "
        f"measurement. The other statistics of posbias.numerics.shape (peak/valley, valley "
        f"depth, end atoms, the position of the minimum) are reported in both readings beside, "
        f"not used."),
    decide=decide,
    thresholds={
        "u_factor": Threshold(U_FACTOR, "how far both end blocks must stand above the interior "
                              "valley block (posbias.numerics.shape.U_FACTOR)", sensitive=1.25),
    },
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("a macroscopic U in both architectures: end blocks 5 and 3 times the interior "
                "valley block with or without the final token",
                _two(_arch(5.0, 4.8), _arch(3.0, 2.9)), "verified", "realistic"),
        Example("false: a monotone primacy profile with a recency atom on the final token only "
                "(both architectures): with it the last block is 6.6 times the valley (the atom "
                "spread over the block), without it the valley is the last block",
                _two(_arch(6.6, 1.0, True, False), _arch(6.6, 1.0, True, False)), "qualified",
                "false"),
        Example("false: a monotone primacy profile with no recency atom: the valley is the last "
                "block in both readings",
                _two(_arch(1.0, 1.0, False, False), _arch(1.0, 1.0, False, False)), "refuted",
                "false"),
        Example("false: a flat profile (U factor 1, every block alike)",
                _two(_arch(1.0, 1.0), _arch(1.0, 1.0)), "refuted", "false"),
        Example("one architecture a U both ways, the other by its final token alone",
                _two(_arch(5.0, 4.8), _arch(6.6, 1.0, True, False)), "qualified", "realistic"),
        Example("one architecture with a U, the other with its final-token atom too small to "
                "lift its last block to the factor (1.8)",
                _two(_arch(1.8, 1.0), _arch(5.0, 4.8)), "refuted", "realistic"),
    ),
    fixed=FIXED,
    deciding=("architectures",),
    no_paper_figures="the abstract states the U in words; no end factor or block count of the "
    "paper could be read",
)


CARD = Card(
    paper=Setting(
        "abstract ('untrained Qwen2 and GPT-2 architectures exhibit this U-shape at Step 0'; "
        "'lost in the middle at birth'); section and figure not confirmed; the model sizes, the "
        "running length and the influence measure are from third-party summaries "
        "(docs/explanation/mathematics.rst C7-C9), not the paper",
        architecture="causal decoder with residuals (Qwen2, GPT-2)",
        models=("Qwen2-0.5B (24 layers)", "GPT-2 small"), residual="on", mask="causal",
        pe=("RoPE (Qwen2)", "learned absolute (GPT-2)"), L=2048, width="full",
        training="none (Step 0, random initialization)",
        measure="input-output Jacobian norm of the final position",
        unconfirmed=("models", "L", "width", "measure")),
    test=Setting(
        "stored `posbias measure` runs (data/step0): Qwen2-0.5B at L = 2048 and GPT-2 small at "
        "L = 1024, seeds 0 and 1, one random input each, 8 Rademacher probes; the U test of "
        "posbias.numerics.shape with and without the final token",
        architecture="causal decoder with residuals (Qwen2, GPT-2)",
        models=("Qwen2-0.5B (24 layers)", "GPT-2 small"), residual="on", mask="causal",
        pe=("RoPE (Qwen2)", "learned absolute (GPT-2)"), L=(2048, 1024), width="full",
        training="none (Step 0, random initialization)",
        measure="input-output Jacobian norm of the final position"),
    proof=ProofStatus("none", note="an empirical shape of random initializations"),
    differences=("L: GPT-2 small cannot go beyond L = 1024 (its 1024 learned positions), so it "
                 "is measured there; Qwen2-0.5B at L = 2048",
                 "protocol: the paper's could not be read; posbias's own (8 Rademacher probes, "
                 "one random input per seed, two seeds)"),
)


def shape_figures(profile: ArrayLike, factor: float = U_FACTOR) -> dict:
    """The shape statistics of one profile (:mod:`posbias.numerics.shape`, ``BINS`` blocks) in
    both readings, as plain dicts, and whether the final token alone decides the U test at
    ``factor``.

    >>> f = shape_figures([8, 4, 2] + [1] * 28 + [30])
    >>> f["with"]["u"], f["without"]["u"], f["final_token_decides"]
    (True, False, True)
    """
    s = shape_with_and_without_final(profile)
    decides = final_token_decides(lambda x: is_u(x.as_dict(), factor), profile)
    out: dict[str, Any] = {k: v.as_dict() for k, v in s.items()}
    for k in ("with", "without"):
        out[k]["u"] = is_u(out[k], factor)
    out["final_token_decides"] = bool(decides["decided_by_final_token"])
    return out


def u_step0_figures(data: Step0Data) -> dict:
    """Per architecture at the decision length (the paper's running length when stored): the
    shape statistics of the pooled profile (seeds x inputs) and of each seed's, with and
    without the final token."""
    t = RULE.values()
    out = {}
    for arch in measured.STEP0_PLAN.architectures:
        runs, at_paper = measured.decision_runs(data, arch)
        pooled = shape_figures(measured.pooled_profile(runs), t["u_factor"])
        out[arch] = {"L": runs[0].length, "paper_length": at_paper,
                     "layers": runs[0].settings.get("num_hidden_layers"),
                     "seeds": [r.seed for r in runs], "inputs": sum(r.samples for r in runs),
                     "pooled": pooled,
                     "per_seed": {str(r.seed): shape_figures(r.profile, t["u_factor"])
                                  for r in runs}}
    return out


def _reading_in_words(s: dict, factor: float) -> str:
    return (f"{'a U' if is_u(s, factor) else 'no U'}: valley block {s['valley_block']}/{s['bins']}"
            f", first/valley block {s['first_block_over_valley']:.3g}, last/valley block "
            f"{s['last_block_over_valley']:.3g}, minimum at position {s['argmin']} of {s['L']}, "
            f"last atom {s['last_atom']:.3g}")


def _in_words(figs: dict, factor: float) -> str:
    parts = []
    for a, f in figs.items():
        p = f["pooled"]
        seeds = "; ".join(
            f"seed {k}: U factor {v['with']['u_factor']:.3g} with, {v['without']['u_factor']:.3g} "
            f"without the final token (minimum at {v['without']['argmin']})"
            for k, v in f["per_seed"].items())
        parts.append(
            f"{a} ({f['layers']} layers) at L = {f['L']}, pooled over {f['inputs']} inputs of "
            f"seeds {', '.join(map(str, f['seeds']))}: with the final token "
            f"{_reading_in_words(p['with'], factor)}; without it "
            f"{_reading_in_words(p['without'], factor)} ({seeds})")
    return "; ".join(parts)


def _ablations(data: Step0Data) -> dict | None:
    """The stored ablations (:mod:`posbias.proofs_checks.ablations`) whose paired run is among
    ``data``: their tails beside the unablated run's and the fitted Cesàro rollout's, in words;
    None when there are none."""
    if not any(base in data for base in ablations.BASELINES.values()):
        return None
    figs = {k: v for k, v in ablations.summary().items() if v["baseline"] in data}
    if not figs:
        return None

    def tail(f: dict) -> str:
        return "/".join(f"{x:.3g}" for x in f["tail_over_valley"])

    text = ("What makes the flat tail, whose minimum lies inside the context (stored ablations, "
            "the same weights, inputs and probes with one part switched off; the last four of "
            f"{BINS} blocks over the valley block, without the final token): " + "; ".join(
                f"{stem} (attention TV from uniform {v['attention_tv_max']:.2g}): {tail(v['ablated'])}"
                f", unablated {tail(v['unablated'])}, the Cesàro rollout fitted to it "
                f"(α = {v['cesaro']['alpha']:.3g}) {tail(v['cesaro'])}"
                for stem, v in figs.items()))
    return {"figures": figs, "text": text + _ablation_reading(figs)}


def _ablation_reading(figs: dict) -> str:
    """What the ablations say, read off their figures: the fall of the tail (the fourth-last
    block over the valley, minus 1) of each ablation beside its fitted Cesàro rollout's; a tail
    is 'flat' when it falls less than half as much as the rollout fitted to it."""
    def fall(f: dict) -> float:
        return f["tail_over_valley"][0] - 1.0

    out = []
    for parts, what in ((["uniform-attention"], "with attention exactly the Cesàro matrix"),
                        (["no-mlp"], "without MLPs"),
                        (["uniform-attention", "no-mlp"],
                         "with attention exactly the Cesàro matrix and without MLPs"),
                        (["no-positions"], "without learned positions")):
        runs = [v for v in figs.values() if v["ablate"] == parts]
        if not runs:
            continue
        flat = [fall(v["ablated"]) < 0.5 * fall(v["cesaro"]) for v in runs]
        lo = min(fall(v["ablated"]) for v in runs)
        hi = max(fall(v["ablated"]) for v in runs)
        c_lo = min(fall(v["cesaro"]) for v in runs)
        c_hi = max(fall(v["cesaro"]) for v in runs)
        verdict = ("flat in every run" if all(flat) else "not flat in every run" if any(flat)
                   else "falling in every run")
        out.append(f"{what} the tail is {verdict} (it falls {lo:.2g}-{hi:.2g} over the last four "
                   f"blocks, the fitted Cesàro rollout {c_lo:.2g}-{c_hi:.2g})")
    if not out:
        return ""
    return ". Read: " + "; ".join(out)


@claim(
    "chowdhury2026:u-shape-step0",
    statement="Untrained Qwen2 and GPT-2 architectures exhibit the U-shaped influence profile at "
    "Step 0 (random initialization): lost in the middle at birth.",
    latex=r"\arg\min_b \bar p_b\in\{2,\dots,B-1\},\quad \min(\bar p_1,\bar p_B)\ge 2\,"
    r"\min_b \bar p_b",
    expected="refuted",
    section="C7",
    assumptions=("Step-0 profiles measured with `posbias measure` at full width at the paper's "
                 "running length (stored runs; live with --thorough), pooled over seeds x inputs",
                 "the U test of posbias.numerics.shape (16 blocks, factor 2), with and without "
                 "the final token's self-influence"),
    needs=("models or stored Step-0 measurement",),
    rule=RULE,
    card=CARD,
    thorough_work=measured.step0_thorough_work,
)
def check(ctx: CheckContext, data: Step0Data | None = None) -> Evidence:
    """C7 measured: RULE on the shape of each architecture's Step-0 profile in both readings."""
    data = data if data is not None else measured.step0_data(ctx)
    method = ("macroscopic U test (16 blocks) of the measured Step-0 Jacobian profiles "
              "(posbias measure, full width) at the paper's running length, with and without "
              "the final token's self-influence")
    if data is None:
        return Evidence("needs-data", method=f"{method}: {measured.STEP0_MISSING}", rule=RULE.text)
    t = RULE.values()
    figs = u_step0_figures(data)
    figures = {"architectures": {
        a: {"L": f["L"], **{k: {"u_factor": float(f"{f['pooled'][k]['u_factor']:.4g}"),
                                "interior_valley": f["pooled"][k]["interior_valley"]}
                            for k in ("with", "without")}}
        for a, f in figs.items()}}
    verdict = RULE.apply(figures).verdict
    text = _in_words(figs, t["u_factor"])
    Ls = tuple(dict.fromkeys(f["L"] for f in figs.values()))
    ev: dict[str, Any] = dict(
        method=method, rule=RULE.text,
        precision="float32 measurements (probe estimates); block means in float64",
        tolerance=f"U factor >= {t['u_factor']:g} with an interior valley block",
        cases=sum(1 + len(f["per_seed"]) for f in figs.values()),
        parameters=measured.STEP0_PLAN.protocol(), figures=figures,
        setting={"L": Ls if len(Ls) > 1 else Ls[0]},
        details={"architectures": figs, "source": step0_source(data)})
    abl = _ablations(data)
    if abl:
        ev["details"]["ablations"] = abl["figures"]
        text += ". " + abl["text"]
    if verdict == "verified":
        return Evidence(verdict, discrepancy=text, **ev)
    if verdict == "refuted":
        none = [a for a, f in figures["architectures"].items()
                if not is_u(f["with"], t["u_factor"]) and not is_u(f["without"], t["u_factor"])]
        return Evidence(verdict, counterexample=f"no U at Step 0 for {', '.join(none)}, with or "
                        f"without the final token: {text}", **ev)
    final = [a for a, f in figs.items() if f["pooled"]["final_token_decides"]]
    return Evidence(verdict, correction=f"the Step-0 U rests on the final token's self-influence "
                    f"alone for {', '.join(final)}: {text}", **ev)
