"""What the claims of chowdhury2026 about trained models (C10, C11 and their proxies) share: the
figures of the macroscopic U test as the rules read them (the statistics themselves, block
means, U factor, valley depth, peak-to-valley ratio, have one definition each in
:mod:`posbias.numerics.shape`); the paper's setting of C10 and C11; and the data of the claims
on pretrained checkpoints.

Data of the pretrained claims: measurements written by ``posbias measure --model CHECKPOINT
--text TEXT --save-influence DIR`` (stage ``pretrained``) and, optionally, ``posbias measure
--model CHECKPOINT --random-init --save-influence DIR`` (stage ``step-0``: the same architecture
with freshly initialized weights), read from ``DIR/measured-influence/<name>.csv`` with their
``<name>.measurement.json`` records
(:func:`posbias.proofs_checks.pretrained.read_measured_folder`).  A pretrained and a Step-0
measurement are paired when their architectures (model type, layers, heads, hidden size) agree.
Without a pretrained measurement the verdict is needs-data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from posbias.numerics.shape import BINS, U_FACTOR, Shape
from posbias.proofs_checks.cards import Card, ProofStatus, Setting
from posbias.proofs_checks.pretrained import MeasuredRecord, read_measured_folder
from posbias.proofs_checks.registry import CheckContext, Evidence

__all__ = [
    "BINS",
    "DEAD_ZONE_DEPTH",
    "FINAL_TOKEN_RULE",
    "MEASURED_FORMAT",
    "PAIRED_ASSUMPTIONS",
    "PAIRED_NEEDS",
    "PRETRAINED_PAPER",
    "PRETRAINED_TEST",
    "U_FACTOR",
    "Pair",
    "both",
    "final_token_figures",
    "final_token_words",
    "is_u",
    "one_side",
    "paired_measurements",
    "pretrained_card",
    "pretrained_comparison_setting",
    "pretrained_setting",
    "proxy_card",
    "proxy_final_token_words",
    "shape_figures",
    "u_of",
    "without_pairs",
]

#: a dead zone: the smallest block mean below this fraction of the mean block (1 / U_FACTOR)
DEAD_ZONE_DEPTH = 1 / U_FACTOR


# ------------------------------------------------------------------ the macroscopic profile
# One definition of each statistic (block means, U factor, valley depth, peak/valley ratio, end
# atoms): numerics.shape.  These helpers only put its figures in the form the rules and the
# reports read.
def u_of(s: Shape) -> dict:
    """The figures a rule's U test reads (:func:`is_u`), from a profile's
    :class:`~posbias.numerics.shape.Shape`: the valley block (1-based), whether it is interior,
    and the end blocks over the valley block (4 significant digits).

    >>> from posbias.numerics.shape import profile_shape
    >>> u_of(profile_shape([9] * 4 + [1] * 24 + [3] * 4))
    {'valley_block': 3, 'interior': True, 'first_over_valley': 9.0, 'last_over_valley': 3.0}
    >>> is_u(u_of(profile_shape(list(range(32, 0, -1)))), U_FACTOR)
    False
    """
    return {"valley_block": s.valley_block, "interior": s.interior_valley,
            "first_over_valley": float(f"{s.first_block_over_valley:.4g}"),
            "last_over_valley": float(f"{s.last_block_over_valley:.4g}")}


def shape_figures(s: Mapping) -> dict:
    """The figures a proxy's rules read from one side (with or without the final token) of a
    run's Step-0 and Step-N summary: the U tests (valley block, interior, end blocks over the
    valley), the growth ``g`` of R and the valley depths, rounded to 4 significant digits; the
    peak/valley ratios and the end atoms beside them.

    >>> s = {"u0": {"valley_block": 8, "interior": True, "first_over_valley": 9.0,
    ...             "last_over_valley": 3.0, "u": True}, "uN": {"valley_block": 8,
    ...      "interior": True, "first_over_valley": 2.5, "last_over_valley": 4.0, "u": True},
    ...      "g": 0.123456, "D0": 0.3, "DN": 0.2, "R0": 10.0, "RN": 13.3,
    ...      "atoms0": (1.2, 30.0), "atomsN": (1.1, 3.0)}
    >>> f = shape_figures(s); f["g"], f["uN"]["last_over_valley"], f["atoms0"]
    (0.1235, 4.0, [1.2, 30.0])
    """
    def u(x):
        return {k: x[k] for k in ("valley_block", "interior", "first_over_valley",
                                  "last_over_valley")}

    def r(x):
        return float(f"{x:.4g}")

    return {"u0": u(s["u0"]), "uN": u(s["uN"]), "g": r(s["g"]), "D0": r(s["D0"]),
            "DN": r(s["DN"]), "R0": r(s["R0"]), "RN": r(s["RN"]),
            "atoms0": [r(a) for a in s["atoms0"]], "atomsN": [r(a) for a in s["atomsN"]]}


def is_u(x: Mapping, factor: float) -> bool:
    """A macroscopic U on :func:`u_of`: an interior valley and both ends ``factor`` times
    above it."""
    return x["interior"] and x["first_over_valley"] >= factor and x["last_over_valley"] >= factor


# ------------------------------------------------------------------ with and without the final token
#: the final-token clause every rule of the trained and pretrained claims shares
FINAL_TOKEN_RULE = (
    "With and without the final token: every profile statistic is computed on p(1..L) and on "
    "p(1..L-1), the profile without the final position's influence on itself (its residual "
    "path, the recency atom; numerics.shape: the statistics are ratios, so nothing is "
    "renormalised), the latter under 'without_final'. A property the rule asks for (a U, a dead "
    "zone, R grown or fallen, R in a band) holds only when it holds both ways: one that exists "
    "only through the final token counts as absent (a U whose right arm is the final token "
    "alone is no U). decided_by_final_token: the verdict of the rule on the figures with the "
    "final token alone differs from its verdict on the figures without it.")


def both(x: Mapping, key: str, holds: Callable[[Any], bool]) -> bool:
    """``holds`` of the figure ``key`` of ``x`` with the final token and without it (``x``
    carries its figures without the final token under ``without_final``): a property that
    exists only through the final token does not hold.

    >>> r = {"D0": 0.43, "without_final": {"D0": 0.73}}
    >>> both(r, "D0", lambda d: d < 0.5), both(r, "D0", lambda d: d >= 0.5)
    (False, False)
    """
    return bool(holds(x[key]) and holds(x["without_final"][key]))


def one_side(figures: Any, side: str) -> Any:
    """``figures`` as if computed on one side only: ``with`` (the figures without the final
    token replaced by those with it) or ``without`` (the other way round), at every level.

    >>> f = {"runs": [{"g": 0.4, "without_final": {"g": -0.1}}]}
    >>> one_side(f, "with")["runs"][0]["without_final"], one_side(f, "without")["runs"][0]["g"]
    ({'g': 0.4}, -0.1)
    """
    if isinstance(figures, list):
        return [one_side(x, side) for x in figures]
    if not isinstance(figures, Mapping):
        return figures
    out = {k: one_side(v, side) for k, v in figures.items() if k != "without_final"}
    if "without_final" in figures:
        wo = {k: one_side(v, side) for k, v in figures["without_final"].items()}
        if side == "without":
            out.update(wo)
        out["without_final"] = {k: out[k] for k in wo}
    return out


def final_token_figures(rule: Any, figures: Mapping, items: str, name: str) -> dict:
    """The figures that say what the final token decides: the verdicts of ``rule`` on the
    figures with the final token only and without it, ``decided_by_final_token`` (they differ),
    and the entries of ``figures[items]`` (runs, seeds or pairs, named by their ``name``) whose
    verdict alone changes without the final token."""
    t = rule.values()
    with_, without = one_side(figures, "with"), one_side(figures, "without")
    alone = [x[name] for x, w, o in zip(figures[items], with_[items], without[items])
             if rule.decide({**with_, items: [w]}, t) != rule.decide({**without, items: [o]}, t)]
    v_with, v_without = rule.decide(with_, t), rule.decide(without, t)
    return {"verdict_with_final": v_with, "verdict_without_final": v_without,
            "decided_by_final_token": v_with != v_without,
            f"{items}_decided_by_final_token": alone}


def final_token_words(entries: Sequence[Mapping], label: Callable[[Mapping], str], noun: str,
                      properties: Sequence[tuple[str, str, Callable[[Any], bool]]]) -> str:
    """In words, which ``properties`` (``(words, key, holds)``) of which ``entries`` (each
    named by ``label``; ``noun`` names them all) exist only through the final token, or only
    without it; '' when none.

    >>> runs = [{"run": "a", "D0": 0.4, "without_final": {"D0": 0.7}},
    ...         {"run": "b", "D0": 0.3, "without_final": {"D0": 0.4}}]
    >>> final_token_words(runs, lambda r: r["run"], "run",
    ...                   [("a dead zone at Step 0", "D0", lambda d: d < 0.5)])
    'a dead zone at Step 0 only through the final token in a'
    """
    parts = []
    for words, key, holds in properties:
        only = [label(e) for e in entries if holds(e[key]) and not holds(e["without_final"][key])]
        wo = [label(e) for e in entries if holds(e["without_final"][key]) and not holds(e[key])]
        if only:
            where = f"every {noun}" if len(only) == len(entries) > 1 else ", ".join(only)
            parts.append(f"{words} only through the final token in {where}")
        if wo:
            where = f"every {noun}" if len(wo) == len(entries) > 1 else ", ".join(wo)
            parts.append(f"{words} only without the final token in {where}")
    return "; ".join(parts)


def proxy_final_token_words(entries: Sequence[Mapping], label: Callable[[Mapping], str],
                            noun: str, growth: float) -> str:
    """:func:`final_token_words` for a proxy's runs or seeds (figures of
    :func:`shape_figures`): which U, dead zone (D below :data:`DEAD_ZONE_DEPTH`) and growth of R
    (|g| beyond ``growth``), at Step 0 and Step N, exist only through the final token or only
    without it.

    >>> run = {"run": "a", "u0": {"interior": True, "first_over_valley": 40.0,
    ...        "last_over_valley": 4.6}, "uN": {"interior": True, "first_over_valley": 2.0,
    ...        "last_over_valley": 27.0}, "D0": 0.17, "DN": 0.29, "g": 0.37,
    ...        "without_final": {"u0": {"interior": False, "first_over_valley": 42.0,
    ...        "last_over_valley": 1.0}, "uN": {"interior": True, "first_over_valley": 2.0,
    ...        "last_over_valley": 18.0}, "D0": 0.17, "DN": 0.35, "g": -0.14}}
    >>> proxy_final_token_words([run], lambda r: r["run"], "run", 0.1).split("; ")
    ['a U at Step 0 only through the final token in a', 'R grown only through the final token in a', 'R fallen only without the final token in a']
    """
    return final_token_words(entries, label, noun, [
        ("a U at Step 0", "u0", lambda x: is_u(x, U_FACTOR)),
        ("a U at Step N", "uN", lambda x: is_u(x, U_FACTOR)),
        ("a dead zone at Step 0", "D0", lambda d: d < DEAD_ZONE_DEPTH),
        ("a dead zone at Step N", "DN", lambda d: d < DEAD_ZONE_DEPTH),
        ("R grown", "g", lambda g: g > growth),
        ("R fallen", "g", lambda g: g < -growth)])


# ------------------------------------------------------------------ the paper's setting
def pretrained_comparison_setting(section: str) -> Setting:
    """The paper's setting of C10 and C11 (``section``): pretrained checkpoints of its
    architectures on natural text, compared with their Step 0; the section and figure numbers
    are not confirmed here (the abstract states the comparison)."""
    return Setting(f"the paper's comparison of initialized and pretrained networks ({section} "
                   "in docs/explanation/mathematics.rst, 'The setting of C10 and C11'; the abstract: "
                   "'standard training does not overcome the topological valley'; section and "
                   "figure of the paper not confirmed here): pretrained checkpoints of the "
                   "paper's architectures on natural text",
                   architecture="causal decoder with residuals (Qwen2, GPT-2)",
                   models=("Qwen2-0.5B (24 layers)", "GPT-2 small"), residual="on",
                   mask="causal", L=2048, data="natural text (billions of tokens)",
                   training="standard pretraining",
                   measure="input-output gradient influence of the final position",
                   unconfirmed=("models", "L"))


PRETRAINED_PAPER: dict[str, Any] = dict(
    architecture="causal decoder with residuals (Qwen2, GPT-2)",
    models=("Qwen2-0.5B (24 layers)", "GPT-2 small"), residual="on", mask="causal",
    L=2048, data="natural text", training="standard pretraining vs Step 0",
    measure="input-output gradient influence of the final position")
PRETRAINED_TEST: dict[str, Any] = dict(PRETRAINED_PAPER, models="the checkpoints supplied",
                                       L="the supplied length")


def pretrained_card(paper_source: str) -> Card:
    """The card of a claim on the user's pretrained measurements: the paper's setting as
    ``paper_source`` states it, tested on the checkpoints the user supplies."""
    return Card(
        paper=Setting(paper_source, **PRETRAINED_PAPER, unconfirmed=("models", "L", "measure")),
        test=Setting("user data: <data_dir>/measured-influence/ (posbias measure --model M "
                     "--text T --save-influence, and --random-init for the Step-0 pair)",
                     **PRETRAINED_TEST),
        proof=ProofStatus("none", note="an empirical statement about trained checkpoints"),
    )


def proxy_card(section: str, test: Setting, differences: tuple[str, ...]) -> Card:
    """The card of a proxy of the paper's ``section`` (C10 or C11): the paper's comparison of
    pretrained checkpoints, the proxy's own ``test`` setting and how it differs."""
    return Card(
        paper=pretrained_comparison_setting(section),
        test=test, kind="proxy",
        proof=ProofStatus("none", note="an empirical proxy experiment"),
        differences=differences)


# ------------------------------------------------------------------ the pretrained data
MEASURED_FORMAT = ("<data_dir>/measured-influence/<name>.csv (position,influence) with "
                   "<name>.measurement.json (stage 'pretrained' or 'step-0', architecture), as "
                   "written by posbias measure --model M [--random-init] --save-influence "
                   "<data_dir>")

#: the data of the claims on pretrained models: each measured pretrained profile with its pair
PAIRED_ASSUMPTIONS = ("measured influence of pretrained models supplied in the data directory, "
                      "each paired with a Step-0 measurement of the same architecture: "
                      + MEASURED_FORMAT,)
PAIRED_NEEDS = ("data: measured influence of a pretrained model and of its Step-0 architecture",)

#: architecture keys (model type, layers, heads, width) of the paper's models
_PAPER_ARCHS = {("qwen2", 24, 14, 896): "Qwen2-0.5B (24 layers)",
                ("gpt2", 12, 12, 768): "GPT-2 small"}

#: a pretrained and a Step-0 measurement of the same architecture
Pair = tuple[MeasuredRecord, MeasuredRecord]


def _records(ctx: CheckContext) -> tuple[list, dict, dict]:
    recs = read_measured_folder(ctx.data_dir)
    usable = [r for r in recs if r.profile.size >= BINS]
    short = [r.name for r in recs if r.profile.size < BINS]
    pre = [r for r in usable if r.stage == "pretrained"]
    step0 = {r.architecture: r for r in usable if r.stage == "step-0"}
    unknown = [r.name for r in recs if r.stage == "unknown"]
    return pre, step0, {f"too short (L < {BINS})": short,
                        "without a .measurement.json record (stage unknown, not used)": unknown}


def paired_measurements(ctx: CheckContext) -> tuple[list[Pair] | None, list[str], dict]:
    """(pairs of a pretrained and a Step-0 record of the same architecture, unpaired pretrained
    names, skipped files); None for the pairs when no pretrained measurement is at hand."""
    pre, step0, skipped = _records(ctx)
    if not pre:
        return None, [], skipped
    pairs = [(r, step0[r.architecture]) for r in pre if r.architecture in step0]
    unpaired = [r.name for r in pre if r.architecture not in step0]
    return pairs, unpaired, skipped


def without_pairs(rule: str, pairs: list | None, unpaired: list, skipped: dict,
                  consequence: str) -> Evidence:
    """needs-data for a claim on pretrained models without a pretrained/Step-0 pair; when
    measurements were found, the ones without a Step-0 pair are named, then ``consequence``."""
    ev = Evidence("needs-data", method="pretrained measurements from --data-dir",
                  details={"rule": rule, "format": MEASURED_FORMAT, "skipped": skipped})
    if pairs is not None:
        ev.details["unpaired"] = unpaired
        ev.method += (": no Step-0 measurement of the same architecture as "
                      + ", ".join(unpaired) + consequence)
    return ev


def _arch_name(arch: tuple | None) -> str:
    if arch in _PAPER_ARCHS:
        return _PAPER_ARCHS[arch]
    if not arch or arch[0] is None:
        return "unknown architecture"
    return f"{arch[0]} ({arch[1]} layers, {arch[2]} heads, width {arch[3]})"


def pretrained_setting(pairs: Sequence[Pair]) -> dict:
    """The test setting of a pretrained claim: the models and lengths of the pairs, and the
    paper's architecture when every pair is one of the paper's models."""
    names = tuple(dict.fromkeys(_arch_name(r.architecture) for r, _ in pairs))
    Ls = tuple(dict.fromkeys(int(r.profile.size) for r, _ in pairs))
    paper_arch = all(r.architecture in _PAPER_ARCHS for r, _ in pairs)
    return {"source": "measured-influence folder of --data-dir: pretrained and Step-0 "
                      "measurements paired by architecture",
            "models": names if len(names) > 1 else names[0], "L": Ls if len(Ls) > 1 else Ls[0],
            "architecture": (PRETRAINED_PAPER["architecture"] if paper_arch else
                             "other architectures: " + ", ".join(names))}
