"""herasimchyk2026:u-shape-measured-schedules (H3, H5): with the measured λ schedules of BLOOM, MPT
and Falcon-RW the ALiBi rollout profile is often U-shaped (v2's wording; v1: U-shaped): valley
inside the context, both ends well above it; while the attention-only ALiBi rollout (λ ≡ 1)
collapses onto the first token.

Setting: the paper's ALiBi rollout with measured λ_t and mean q·k content scores of five models
(BLOOM-176B, BLOOM-7b1, Falcon-RW-7B, MPT-7B, MPT-30B) on FineWeb-Edu, DCLM and Wikipedia, L = 256
(v2 and v1 abstracts; Fig. 2/3 (a)-(c) per the public code's README): the 32 rollout configs of
herasimchyk2026's public code, 25 with residuals and 7 attention-only.

The check: fast float64 ALiBi rollouts of every shipped config (the reference convention, which
reproduces the reference code's profiles at every position to 1.1e-13 relative, the worst of its
37 configs, tested to 1e-12, decides; the model-faithful corrected convention is reported beside
it).  The configs of posbias 0.2 are computed live and every other
row is read from the stored run (``--thorough`` recomputes all); live rows must agree with the
stored ones.  The U figures (valley position, end-to-valley ratios) of every residual profile
and the collapse of every attention-only one at depth T and 4T, with a table of the verdict
over the U thresholds.  Every residual profile's U figures and shape statistics
(:mod:`posbias.numerics.shape`) are reported without the final token's self-influence as well
(live, reference convention): the rule's ``p(L)/min`` is that token's influence alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from posbias.numerics.shape import U_FACTOR, Shape, shape_with_and_without_final
from posbias.proofs_checks.cards import Card, Example, ProofStatus, Rule, Setting, Threshold
from posbias.proofs_checks.claims.herasimchyk2026._shared import (
    CONFIG_DATASETS,
    CONFIG_MODELS,
    config_setting,
    gather_rows,
    needs_yaml,
    reference_profile,
    u_figures,
)
from posbias.proofs_checks.data import builtin_configs
from posbias.proofs_checks.registry import CheckContext, Evidence, claim

__all__ = ["CARD", "RULE", "U_THRESHOLD_TABLE", "check", "collapses", "decide", "u_shaped"]

#: the grid of U thresholds over which the evidence tabulates the verdict
U_THRESHOLD_TABLE = {"end_factor": (1.5, 2.0, 3.0, 5.0, 10.0), "interior": (0.05, 0.1, 0.2)}


def _u_example_row(name, argmin_over_L, first, last):
    """A row of a rule example: the U figures the rule reads from one config."""
    return {"config": name, "argmin/L": argmin_over_L, "p(1)/min": first, "p(L)/min": last}


_COLLAPSED = [{"config": "no_content/mpt-7b-noresidual", "p(1)": 0.995842, "tail": 4.16e-3, "tail at 4T": 4.4e-27,
               "non-increasing": True}]

def decide(f: Mapping, t: Mapping) -> str:
    """Refuted when an attention-only config does not collapse; else verified when every residual
    config is U-shaped, qualified when at least a fraction ``often`` is, refuted below it."""
    att = f["attention-only"]
    if not all(collapses(r, t) for r in att):
        return "refuted"
    rows = f["configs"]
    n_u = sum(u_shaped(r, t) for r in rows)
    frac = n_u / len(rows)
    if n_u == len(rows):
        return "verified"
    return "qualified" if frac >= t["often"] else "refuted"


RULE = Rule(
    text="Decided on the reference convention (the paper's code) over every residual config (25: five "
    "models; no, mean and per-head content; FineWeb-Edu, DCLM, Wikipedia). A profile is U-shaped when "
    "its valley j* = argmin p lies in the interior window interior < j*/L <= 1 - interior and both "
    "ends are at least end_factor times the valley. The attention-only comparison (the 7 -noresidual "
    "configs, λ ≡ 1) collapses when non-increasing, p(1) >= collapse_p1 and its tail Σ_{j>=2} p(j) "
    "shrinks from depth T to 4T. Refuted when an attention-only config does not collapse or when "
    "fewer than a fraction `often` of the residual configs are U-shaped (v2's 'often U-shaped' "
    "fails); qualified when at least that fraction but not all are U-shaped (v2's 'often U-shaped' "
    "holds, v1's 'U-shaped' does not); verified when every residual config is U-shaped (both "
    "wordings hold). The corrected (model-faithful) convention is reported beside it, not decided on",
    decide=decide,
    thresholds={
        "end_factor": Threshold(2.0, "how deep a valley: both ends >= end_factor x the valley", scale="log",
                                sensitive=1.5, domain=(1.0, None)),
        "interior": Threshold(0.1, "how far from the ends: the valley must satisfy interior < j*/L <= "
                              "1 - interior", scale="linear", step=0.01, sensitive=0.02, domain=(0.0, 0.5)),
        "often": Threshold(0.5, "v2's 'often': the fraction of residual configs that must be U-shaped",
                           scale="linear", step=0.05, sensitive=0.1, domain=(0.0, 1.0)),
        "collapse_p1": Threshold(0.9, "attention-only collapse: p(1) at the model's depth at least this",
                                 scale="linear", step=0.01, sensitive=0.05, domain=(0.0, 1.0)),
    },
    outcomes=("verified", "qualified", "refuted"),
    examples=(
        Example("every config U-shaped (valleys at 0.24-0.37 L, ends 5-15x): both wordings hold",
                {"configs": [_u_example_row("no_content/bloom-7b1", 62 / 256, 7.43, 14.5),
                             _u_example_row("no_content/mpt-7b", 72 / 256, 9.16, 5.57),
                             _u_example_row("no_content/bloom", 62 / 256, 8.01, 9.96)],
                 "attention-only": _COLLAPSED}, "verified", "realistic"),
        Example("13 of 25 U-shaped (a valley at 24/256 = 0.094 L sits outside the window): v2 holds",
                {"configs": [_u_example_row(f"u{i}", 0.25, 7.0, 12.0) for i in range(13)]
                 + [_u_example_row(f"near-end{i}", 24 / 256, 2.9, 120.0) for i in range(12)],
                 "attention-only": _COLLAPSED}, "qualified", "realistic"),
        Example("no valley: monotone profiles with the minimum at the last or first token (the Cesàro "
                "model with residuals, or ALiBi recency)",
                {"configs": [_u_example_row(f"mono{i}", 255 / 256, 30.0, 1.3) for i in range(20)]
                 + [_u_example_row("u", 0.25, 7.0, 12.0)] * 5,
                 "attention-only": _COLLAPSED}, "refuted", "false"),
        Example("shallow valleys: ends only 1.5x the valley in most configs",
                {"configs": [_u_example_row(f"s{i}", 0.3, 1.5, 1.5) for i in range(20)]
                 + [_u_example_row("u", 0.25, 7.0, 12.0)] * 5,
                 "attention-only": _COLLAPSED}, "refuted", "false"),
        Example("attention-only rollouts that do not collapse (p(1) = 0.4, tail growing with depth)",
                {"configs": [_u_example_row("u", 0.25, 7.0, 12.0)] * 5,
                 "attention-only": [{"config": "x-noresidual", "p(1)": 0.4, "tail": 0.6, "tail at 4T": 0.7,
                                     "non-increasing": False}]}, "refuted", "false"),
    ),
    fixed="2026-12-01",
    deciding=("U-shaped (reference)", "U-shaped fraction (reference)", "attention-only collapsed"),
    no_paper_figures="the paper shows the rollout profiles as plots (its Fig. 2/3 (b, c) per the public "
    "code's README) without valley positions or end-to-valley ratios",
)

CARD = Card(
    paper=Setting(
        "v2 abstract ('broad, often U-shaped'), v1 abstract ('U-shaped'); Fig. 2/3 (a)-(c) of the paper "
        "per the public code's README (rollouts without residuals, with residuals, with residuals and "
        "content)",
        architecture="ALiBi causal transformer rollout", residual="on", mask="causal", pe="ALiBi",
        models=CONFIG_MODELS,
        datasets=CONFIG_DATASETS, configs=32, L=256,
        data="measured λ_t and mean q·k content scores (none, mean, per head)",
        unconfirmed=("configs",),
        note="the configs are those of the public code (config/rollout/alibi, 25 residual, 7 "
        "attention-only); that the paper's figures use exactly these files is taken from its README"),
    test=Setting(
        "fast float64 ALiBi rollouts of the 32 shipped configs in the reference convention (the "
        "paper's code, reproduced to 1.1e-13 relative); the corrected convention beside it; U figures and "
        "shape statistics without the final token reported beside",
        architecture="ALiBi causal transformer rollout", residual="on", mask="causal", pe="ALiBi",
        models=CONFIG_MODELS,
        datasets=CONFIG_DATASETS, configs=32, L=256,
        data="measured λ_t and mean q·k content scores (none, mean, per head)"),
    proof=ProofStatus("none", note="an empirical statement about measured configs"),
)



def u_shaped(row: Mapping, t: Mapping) -> bool:
    """The U rule on one profile's :func:`~posbias.proofs_checks.claims.herasimchyk2026._shared.u_figures`:
    the valley lies inside the interior window, ``w < j*/L <= 1 - w`` (``w = t["interior"]``), and
    both ends are at least ``t["end_factor"]`` times the valley."""
    w = t["interior"]
    inside = w < row["argmin/L"] <= 1 - w
    return bool(inside and row["p(1)/min"] >= t["end_factor"] and row["p(L)/min"] >= t["end_factor"])


def collapses(row: Mapping, t: Mapping) -> bool:
    """The collapse rule: non-increasing, ``p(1) >= t["collapse_p1"]`` and a tail that shrinks
    from depth T to 4T."""
    return bool(row["non-increasing"] and row["p(1)"] >= t["collapse_p1"] and row["tail at 4T"] < row["tail"])


def _u_rows(rows: dict, names: Sequence[str], conv: str,
            profile_transform: Callable[[str, dict], dict] | None) -> list[dict]:
    """The U figures the rule reads from each residual config in one convention (after
    ``profile_transform``, when given)."""
    out = []
    for n in names:
        r = dict(rows[(n, conv)]["u"])
        if profile_transform is not None:
            r = profile_transform(n, r)
        out.append({"config": n, **{k: r[k] for k in ("argmin/L", "p(1)/min", "p(L)/min")},
                    "argmin": r.get("argmin")})
    return out


def _threshold_table(rs: list[dict], t: dict, figures: dict) -> dict:
    """The verdict on the rows ``rs`` for every end factor and interior window of
    :data:`U_THRESHOLD_TABLE` (the other thresholds as in ``t``)."""
    out = {}
    for ef in U_THRESHOLD_TABLE["end_factor"]:
        for w in U_THRESHOLD_TABLE["interior"]:
            tt = {**t, "end_factor": ef, "interior": w}
            k = sum(u_shaped(r, tt) for r in rs)
            out[f"end_factor {ef:g}, interior {w:g}"] = (
                f"{k}/{len(rs)} U-shaped -> {RULE.decide({**figures, 'configs': rs}, tt)}")
    return out


def _why_not_u(r: dict, tt: dict) -> str:
    """One config that is not U-shaped, with the figures that fail the rule."""
    inside = tt["interior"] < r["argmin/L"] <= 1 - tt["interior"]
    why = []
    if not inside:
        why.append(f"valley at {r['argmin']}/256 = {r['argmin/L']:.3f} L")
    if r["p(1)/min"] < tt["end_factor"]:
        why.append(f"p(1)/min {r['p(1)/min']:.4g}")
    if r["p(L)/min"] < tt["end_factor"]:
        why.append(f"p(L)/min {r['p(L)/min']:.4g}")
    return f"{r['config']} ({', '.join(why)})"


def _u_counts_by(ref_rows: list[dict], t: dict, key: Callable[[dict], str]) -> dict:
    """``{group: "U-shaped/configs"}`` of the rows grouped by ``key(config setting)``."""
    counts: dict[str, list[int]] = {}
    for r in ref_rows:
        g = counts.setdefault(key(config_setting(r["config"])), [0, 0])
        g[0] += u_shaped(r, t)
        g[1] += 1
    return {k: f"{a}/{b}" for k, (a, b) in counts.items()}


def _content_and_data(st: dict) -> str:
    return f"{st['content']} content" + (f", {st['dataset']}" if st["dataset"] else "")


def _details(rows: dict, res: list[str], ref_rows: list[dict], cor_rows: list[dict], att: list[dict],
             figures: dict, t: dict, sources: dict) -> dict:
    """What the evidence prints beside the figures: every config's U figures, those that are not
    U-shaped and why, the counts by content, data set and model, the threshold tables of both
    conventions and the attention-only comparisons."""
    not_u_cor = [_why_not_u(r, t) for r in cor_rows if not u_shaped(r, t)]
    n_cor = len(cor_rows) - len(not_u_cor)
    return {
        "rule": RULE.text,
        "wording tested": "v2 'often U-shaped' (a fraction >= often of the residual configs) and v1 "
        "'U-shaped' (every residual config); qualified means v2 holds and v1 does not",
        "configs (reference convention)": [
            {**r, "U-shaped": u_shaped(r, t)} for r in ref_rows],
        "not U-shaped (reference)": [_why_not_u(r, t) for r in ref_rows if not u_shaped(r, t)],
        "U-shaped by content and data set (reference)": _u_counts_by(ref_rows, t, _content_and_data),
        "U-shaped by model (reference)": _u_counts_by(ref_rows, t, lambda st: st["model"]),
        "threshold table (reference): verdict by end_factor and interior window": _threshold_table(ref_rows, t, figures),
        "corrected convention (model-faithful; not the paper's computation)": {
            "U-shaped": f"{n_cor} of {len(cor_rows)}", "not U-shaped": not_u_cor,
            "threshold table": _threshold_table(cor_rows, t, figures)},
        "attention-only comparison (the -noresidual configs)": att,
        "observation: λ ≡ 1 on every residual config, no content": [
            {"config": n, **rows[(n, "reference")]["attention-only"]} for n in res],
        "sources": sources,
    }


def _shape_stats(s: Shape) -> dict:
    """The :mod:`posbias.numerics.shape` statistics of one profile that the evidence prints."""
    return {f"block U (factor {U_FACTOR:g})": s.u, "U factor": s.u_factor, "valley block": s.valley_block,
            "valley depth D": s.valley_depth, "peak/valley R": s.peak_valley,
            "first atom p(1)/p(2)": s.first_atom, "last atom": s.last_atom}


def _final_token_report(res: Sequence[str], t: dict) -> tuple[list[dict], list[str], int]:
    """Every residual profile (reference convention, as shipped) with and without the final
    token's self-influence: the rule's U figures and verdict on ``p(1..L)`` and on ``p(1..L-1)``
    (where ``p(L)/min`` reads ``p(L-1)``) and the shape statistics of both.  Returns the rows, the
    configs whose U the final token alone decides, and the U count without it."""
    rows, decided_by_final, n_without = [], [], 0
    for n in res:
        p = reference_profile(n)
        fw, fo = u_figures(p), u_figures(p[:-1])
        uw, uo = u_shaped(fw, t), u_shaped(fo, t)
        n_without += uo
        if uw != uo:
            decided_by_final.append(n)
        sh = shape_with_and_without_final(p)
        rows.append({"config": n, "U-shaped": uw, "U-shaped without the final token": uo,
                     "without the final token": {"argmin": fo["argmin"], "argmin/(L-1)": fo["argmin/L"],
                                                 "p(1)/min": fo["p(1)/min"],
                                                 "p(L-1)/min": fo["p(L)/min"]},
                     "shape with the final token": _shape_stats(sh["with"]),
                     "shape without the final token": _shape_stats(sh["without"])})
    return rows, decided_by_final, n_without


def _final_token_sentence(decided_by_final: list[str], n_without: int, n: int, verdict_without: str) -> str:
    """Whether the final token's self-influence alone decides any config's U, in words."""
    if decided_by_final:
        return (f"the final token's self-influence alone decides the U of {len(decided_by_final)} "
                f"config(s) ({', '.join(decided_by_final)}): without it {n_without} of {n} are U-shaped "
                f"and the rule gives {verdict_without}")
    return (f"the final token's self-influence alone decides no config's U: without it the same "
            f"{n_without} of {n} are U-shaped (rule: {verdict_without})")


def _decided_evidence(verdict: str, common: dict, figures: dict, t: dict) -> Evidence:
    """The evidence of a verdict: the counterexample of a refutation (attention-only configs that
    do not collapse, residual configs that are not U-shaped), the correction of a qualification."""
    ref_rows, att = figures["configs"], figures["attention-only"]
    not_u = common["details"]["not U-shaped (reference)"]
    final = common["details"]["final token"]["in words"]
    if verdict == "refuted":
        bad_att = [f"{r['config']}: p(1) = {r['p(1)']:.6g}" for r in att if not collapses(r, t)]
        return Evidence("refuted", **common, counterexample="; ".join(
            (["attention-only does not collapse: " + "; ".join(bad_att)] if bad_att else [])
            + [f"{len(not_u)} of {len(ref_rows)} residual configs not U-shaped (fraction "
               f"{figures['U-shaped fraction (reference)']:.3g} < often = {t['often']:g}): " + "; ".join(not_u)]
            + [final]))
    if verdict == "qualified":
        n_u = len(ref_rows) - len(not_u)
        return Evidence("qualified", **common, correction=(
            f"often U-shaped, not always: {n_u} of {len(ref_rows)} residual configs are U-shaped "
            f"(fraction {n_u / len(ref_rows):.3g} >= often = {t['often']:g}; v1's 'U-shaped' fails); not "
            "U-shaped: " + "; ".join(not_u) + "; " + final))
    return Evidence("verified", **common)


@claim(
    "herasimchyk2026:u-shape-measured-schedules",
    statement="With the measured λ schedules of BLOOM, MPT and Falcon-RW the ALiBi rollout profile is "
    "often U-shaped (v2's wording; v1: U-shaped): valley inside the context, both ends well above it; "
    "while the attention-only ALiBi rollout (λ ≡ 1) collapses onto the first token.",
    latex=r"w < \tfrac{j^{*}}{L} \le 1 - w,\quad p(1), p(L) \ge c\,p(j^{*})\ \text{in a fraction} \ge f "
    r"\text{ of the configs};\qquad \lambda \equiv 1:\ p(1) \ge 0.9,\ \textstyle\sum_{j\ge2} p(j) \to 0",
    expected="qualified",
    section="H3, H5",
    assumptions=("the 32 shipped configs of herasimchyk2026's code (25 with measured λ, 7 attention-only), "
                 "reference convention decides, corrected convention reported",
                 "U-shaped: valley at w L < j* <= (1-w) L (w = 0.1), both ends >= c x the valley (c = 2); "
                 "'often': a fraction >= f = 0.5 of the residual configs"),
    needs=("yaml",),
    rule=RULE,
    card=CARD,
)
def check(ctx: CheckContext, *, names: Sequence[str] | None = None,
          profile_transform: Callable[[str, dict], dict] | None = None,
          **thresholds: float) -> Evidence:
    """``names``: the configs to decide on (default: all shipped); ``profile_transform``: a
    function applied to every residual profile's U figures before the rule (for power tests: a
    profile with no valley); ``thresholds``: overrides of the rule's thresholds."""
    miss = needs_yaml()
    if miss:
        return miss
    names = list(names) if names is not None else builtin_configs()
    rows, sources, mismatches = gather_rows(ctx, names, forces_live=None)
    t = RULE.values(**thresholds)
    res = [n for n in names if config_setting(n)["residual"]]
    nores = [n for n in names if not config_setting(n)["residual"]]
    ref_rows = _u_rows(rows, res, "reference", profile_transform)
    cor_rows = _u_rows(rows, res, "corrected", profile_transform)
    att = [{"config": n, **rows[(n, "reference")]["attention-only"]} for n in nores]
    figures: dict[str, Any] = {"configs": ref_rows, "attention-only": att}
    n_u = sum(u_shaped(r, t) for r in ref_rows)
    figures["U-shaped (reference)"] = f"{n_u} of {len(ref_rows)}"
    figures["U-shaped fraction (reference)"] = n_u / len(ref_rows) if ref_rows else float("nan")
    figures["attention-only collapsed"] = f"{sum(collapses(r, t) for r in att)} of {len(att)}"
    verdict = RULE.decide(figures, t)
    details = _details(rows, res, ref_rows, cor_rows, att, figures, t, sources)
    final_rows, by_final, n_without = _final_token_report(res, t)
    verdict_without = RULE.decide({**figures, "configs": [
        {"config": r["config"], "argmin/L": r["without the final token"]["argmin/(L-1)"],
         "p(1)/min": r["without the final token"]["p(1)/min"],
         "p(L)/min": r["without the final token"]["p(L-1)/min"]} for r in final_rows]}, t)
    figures["U-shaped without the final token (reference)"] = f"{n_without} of {len(res)}"
    figures["U decided by the final token alone"] = by_final
    details["final token"] = {
        "in words": _final_token_sentence(by_final, n_without, len(res), verdict_without),
        "note": "the rule's p(L)/min is the final token's influence on itself (the residual path's "
        "recency atom); without it p(L-1)/min takes its place. Computed live on the profiles as "
        "shipped (reference convention), before any profile_transform",
        "configs": final_rows}
    method = ("fast ALiBi rollouts (float64; the reference convention reproduces the reference code's "
              "profiles to 1.1e-13 relative, tested to 1e-12) of the shipped configs with measured λ, and "
              "of the attention-only configs at depth T and 4T")
    common: dict[str, Any] = dict(method=method, precision="float64", cases=len(ref_rows) + len(att), figures=figures,
                                  thresholds=thresholds, details=details,
                                  setting={"configs": len(names)} if len(names) != 32 else {})
    if mismatches:
        details["stored run mismatches"] = mismatches
        return Evidence("inconclusive", **{**common, "figures": {}},
                        counterexample=None, correction=None,
                        tolerance="stored and live figures agree to 1e-9 relative")
    return _decided_evidence(verdict, common, figures, t)
