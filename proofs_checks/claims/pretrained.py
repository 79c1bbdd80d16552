"""Claims of chowdhury2026 about pretrained models (C10): the macroscopic U persists after
pretraining, and the peak-to-valley ratio grows from about 10^2 to about 10^3.

Data: measurements written by ``posbias measure --model CHECKPOINT --text TEXT
--save-influence DIR`` (stage ``pretrained``) and, optionally, ``posbias measure --model
CHECKPOINT --random-init --save-influence DIR`` (stage ``step-0``: the same architecture with
freshly initialized weights), read from ``DIR/measured-influence/<name>.csv`` with their
``<name>.measurement.json`` records (:func:`posbias.proofs_checks.pretrained.read_measured_folder`).
A pretrained and a Step-0 measurement are paired when their architectures (model type, layers,
heads, hidden size) agree.  Without a pretrained measurement the verdict is needs-data.
"""

from __future__ import annotations

import numpy as np

from posbias.proofs_checks.pretrained import macroscopic_profile, read_measured_folder
from posbias.proofs_checks.registry import Evidence, claim

PAPER = "chowdhury2026"

#: macroscopic profile: mean influence over this many equal blocks of positions
BINS = 16
#: a macroscopic end must exceed the valley block by this factor
U_FACTOR = 2.0
#: "about 10^3": within half a decade, as "about 10^2" is for the Step-0 claim (C7)
PV_BAND = (10 ** 2.5, 10 ** 3.5)

_FORMAT = ("<data_dir>/measured-influence/<name>.csv (position,influence) with "
           "<name>.measurement.json (stage 'pretrained' or 'step-0', architecture), as written by "
           "posbias measure --model M [--random-init] --save-influence <data_dir>")


def _records(ctx):
    recs = read_measured_folder(ctx.data_dir)
    usable = [r for r in recs if r.profile.size >= BINS]
    short = [r.name for r in recs if r.profile.size < BINS]
    pre = [r for r in usable if r.stage == "pretrained"]
    step0 = {r.architecture: r for r in usable if r.stage == "step-0"}
    unknown = [r.name for r in recs if r.stage == "unknown"]
    return pre, step0, {"too short (L < %d)" % BINS: short,
                        "without a .measurement.json record (stage unknown, not used)": unknown}


def _needs_data(rule, skipped):
    return Evidence("needs-data", method="pretrained measurements from --data-dir",
                    details={"rule": rule, "format": _FORMAT, "skipped": skipped})


def u_shape_test(profile) -> dict:
    """The macroscopic U test: block means ``b_1..b_BINS``; a U when the smallest block is
    interior (not the first or the last) and both end blocks are at least ``U_FACTOR`` times it.

    >>> u_shape_test([9] * 4 + [1] * 24 + [3] * 4)["u"]
    True
    >>> u_shape_test(list(range(32, 0, -1)))["u"]
    False
    """
    b = macroscopic_profile(profile, BINS)
    k = int(np.argmin(b))
    first, last = float(b[0] / b[k]), float(b[-1] / b[k])
    u = 0 < k < BINS - 1 and first >= U_FACTOR and last >= U_FACTOR
    return {"u": bool(u), "valley_block": k + 1, "first_block/valley": "%.4g" % first,
            "last_block/valley": "%.4g" % last}


_U_RULE = (f"profile -> means over {BINS} equal blocks of positions; a macroscopic U when the "
           f"smallest block is interior and the first and last blocks are each >= {U_FACTOR:g} x it. "
           "needs-data: no pretrained measurement; refuted: a pretrained measurement without a U; "
           "qualified: every pretrained measurement has a U but a Step-0 measurement of the same "
           "architecture has none (the U appears with training rather than persisting); verified: "
           "every pretrained measurement has a U and every paired Step-0 measurement too (or none "
           "is at hand, which the evidence says)")


@claim(
    f"{PAPER}:u-persists-pretrained",
    statement="After pretraining the macroscopic U-shaped influence profile persists: training "
    "adds local content spikes but does not remove the valley.",
    latex=r"\arg\min_k \bar p_k \in \{2,\dots,B-1\},\quad \bar p_1, \bar p_B \ge 2 \min_k \bar p_k",
    expected="verified",
    section="C10",
    assumptions=("measured influence of pretrained models supplied in the data directory: "
                 + _FORMAT,),
    needs=("data: measured influence of a pretrained model",),
)
def _u_persists(ctx) -> Evidence:
    rule = _U_RULE
    pre, step0, skipped = _records(ctx)
    if not pre:
        return _needs_data(rule, skipped)
    rows, failed, no_u_at_init = [], [], []
    for r in pre:
        row = {"name": r.name, "L": int(r.profile.size), **u_shape_test(r.profile)}
        s0 = step0.get(r.architecture)
        if s0 is not None:
            t0 = u_shape_test(s0.profile)
            row["step-0"] = s0.name
            row["step-0 U"] = t0["u"]
            row["step-0 valley block"] = t0["valley_block"]
            if not t0["u"]:
                no_u_at_init.append(f"{s0.name} (valley block {t0['valley_block']})")
        if not row["u"]:
            failed.append(f"{r.name}: valley block {row['valley_block']}, ends/valley "
                          f"{row['first_block/valley']}, {row['last_block/valley']}")
        rows.append(row)
    paired = sum("step-0" in row for row in rows)
    common = dict(method=f"macroscopic profile ({BINS} blocks) of the measured pretrained influence",
                  precision="float64", tolerance=f"ends >= {U_FACTOR:g} x valley block",
                  cases=len(rows), parameters={"bins": BINS, "factor": U_FACTOR},
                  details={"rule": rule, "models": rows, "paired step-0": paired,
                           "skipped": skipped})
    if failed:
        return Evidence("refuted", counterexample="; ".join(failed), **common)
    if no_u_at_init:
        return Evidence("qualified", correction="the pretrained profiles are U-shaped, but the "
                        "Step-0 model of the same architecture is not: " + ", ".join(no_u_at_init)
                        + "; the U appears with training rather than persisting", **common)
    if not paired:
        common["details"]["note"] = ("no Step-0 measurement of the same architecture at hand: "
                                     "persistence judged against the pretrained profile alone")
    return Evidence("verified", **common)


def peak_valley_ratio(profile) -> dict:
    """``max(p(1), p(L)) / min_j p(j)`` and its parts.

    >>> r = peak_valley_ratio([0.5, 0.1, 0.001, 0.2])
    >>> round(r["ratio"], 9), r["argmin"]
    (500.0, 3)
    """
    p = np.asarray(profile, dtype=float)
    mn = float(p.min())
    ratio = float(max(p[0], p[-1]) / mn) if mn > 0 else float("inf")
    return {"ratio": ratio, "first/min": float(p[0] / mn) if mn > 0 else float("inf"),
            "last/min": float(p[-1] / mn) if mn > 0 else float("inf"),
            "argmin": int(np.argmin(p)) + 1}


_PV_RULE = ("R = max(p(1), p(L)) / min_j p(j) of the measured profile; 'about 10^3' means R in "
            f"[10^2.5, 10^3.5]. needs-data: no pretrained measurement; refuted: a pretrained R "
            "outside the band; qualified: every pretrained R in the band but not above the R of "
            "the paired Step-0 measurement of the same architecture (no growth); verified: every "
            "pretrained R in the band and above its paired Step-0 R (or no Step-0 at hand, which "
            "the evidence says)")


@claim(
    f"{PAPER}:peak-valley-pretrained",
    statement="After pretraining the peak-to-valley influence ratio grows from about 10^2 "
    "(initialization) to about 10^3.",
    latex=r"\frac{\max(p_1, p_L)}{\min_j p_j} \approx 10^3 > "
    r"\left.\frac{\max(p_1, p_L)}{\min_j p_j}\right|_{\text{step }0}",
    expected="verified",
    section="C10",
    assumptions=("measured influence of pretrained models supplied in the data directory: "
                 + _FORMAT,),
    needs=("data: measured influence of a pretrained model",),
)
def _peak_valley_pretrained(ctx) -> Evidence:
    rule = _PV_RULE
    pre, step0, skipped = _records(ctx)
    if not pre:
        return _needs_data(rule, skipped)
    rows, outside, no_growth = [], [], []
    for r in pre:
        pv = peak_valley_ratio(r.profile)
        row = {"name": r.name, "L": int(r.profile.size),
               **{k: ("%.4g" % v if isinstance(v, float) else v) for k, v in pv.items()}}
        if not PV_BAND[0] <= pv["ratio"] <= PV_BAND[1]:
            outside.append(f"{r.name}: R = {pv['ratio']:.4g}")
        s0 = step0.get(r.architecture)
        if s0 is not None:
            r0 = peak_valley_ratio(s0.profile)["ratio"]
            row["step-0"] = s0.name
            row["step-0 ratio"] = "%.4g" % r0
            if not pv["ratio"] > r0:
                no_growth.append(f"{r.name}: R = {pv['ratio']:.4g} <= step-0 {r0:.4g}")
        rows.append(row)
    paired = sum("step-0" in row for row in rows)
    worst = max(rows, key=lambda row: abs(np.log10(float(row["ratio"])) - 3))
    common = dict(method="peak-to-valley ratio of the measured pretrained influence",
                  precision="float64", tolerance="R in [10^2.5, 10^3.5]", cases=len(rows),
                  worst_margin=f"{worst['name']}: R = {worst['ratio']}",
                  details={"rule": rule, "models": rows, "paired step-0": paired,
                           "skipped": skipped})
    if outside:
        return Evidence("refuted", counterexample="; ".join(outside), **common)
    if no_growth:
        return Evidence("qualified", correction="R is about 10^3 after pretraining but does not "
                        "exceed the Step-0 ratio of the same architecture: " + "; ".join(no_growth),
                        **common)
    if not paired:
        common["details"]["note"] = ("no Step-0 measurement of the same architecture at hand: "
                                     "growth not tested, only the pretrained band")
    return Evidence("verified", **common)
