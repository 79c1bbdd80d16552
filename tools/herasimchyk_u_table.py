"""The U-shape figures of herasimchyk2026's residual rollout configs, in both conventions.

For every shipped config with a measured λ schedule (the 25 residual configs of commit a514e09,
then the 5 added later at L = 2048, whose λ lists are copied from L = 256) this prints the valley
``j* = argmin p`` (1-indexed, first occurrence), ``p(1)/p(j*)``, ``p(L)/p(j*)`` and whether the
profile is U-shaped under the rule of ``herasimchyk2026:u-shape-measured-schedules`` (valley in
``interior < j*/L <= 1 - interior``, both ends at least ``end_factor`` times the valley; the
thresholds are read from the registered claim), for

* ``reference``: the reference convention (reproduces the public code; a single content score
  reaches head 0 only);
* ``broadcast``: the reference convention with the single content score on every head (the
  reference convention of posbias 0.2; it differs from ``reference`` on the mean_content configs
  only);
* ``corrected``: the model-faithful convention;
* ``public``: the public code's own profile, where the tests' data hold it
  (tests/data/ml-uhh/reference, a source checkout only).

The last lines count the U-shaped profiles of each column over the 25 configs of a514e09 and over
the later ones.  Usage::

    python tools/herasimchyk_u_table.py [--format text|csv]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from posbias.numerics.configs import load_config
from posbias.proofs_checks.data import builtin_config_path, builtin_configs, config_record
from posbias.proofs_checks.registry import get_claim

try:  # the claims of a paper in one module
    from posbias.proofs_checks.claims.herasimchyk2026 import u_figures, u_shaped
except ImportError:  # one module per claim, shared helpers apart
    from posbias.proofs_checks.claims.herasimchyk2026._shared import u_figures
    from posbias.proofs_checks.claims.herasimchyk2026.u_shape_measured_schedules import u_shaped

CLAIM = "herasimchyk2026:u-shape-measured-schedules"
PUBLIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "ml-uhh", "reference")
COLUMNS = ("reference", "broadcast", "corrected", "public")


def rule_thresholds() -> dict:
    """The U rule's thresholds (``interior``, ``end_factor``) as the registered claim holds them."""
    rule = get_claim(CLAIM).rule
    if isinstance(rule, str):
        raise SystemExit(f"{CLAIM} has no rule with thresholds")
    return {k: rule.thresholds[k].value for k in ("interior", "end_factor")}


def public_profile(name: str) -> np.ndarray | None:
    """The public code's profile of ``name`` from the tests' data (0-indexed ``position,p``)."""
    path = os.path.join(PUBLIC, *name.split("/")) + ".profile.csv"
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as fh:
        rows = [ln.strip().split(",") for ln in fh if ln.strip()][1:]
    return np.array([float(v) for _, v in rows])


def profiles(name: str) -> dict:
    """The profile of ``name`` in each column (None where it is not available)."""
    path = builtin_config_path(name)
    return {
        "reference": load_config(path).profile(),
        "broadcast": load_config(path, content_head0_only=False).profile(),
        "corrected": load_config(path, convention="corrected").profile(),
        "public": public_profile(name),
    }


def table_rows(names: list[str], t: dict) -> list[dict]:
    rows = []
    for name in names:
        row: dict = {"config": name, "L": config_record(name).sequence_length}
        for col, p in profiles(name).items():
            if p is None:
                row[col] = None
                continue
            f = u_figures(p)
            row[col] = {**f, "U": u_shaped(f, t)}
        rows.append(row)
    return rows


def _cell(f: dict | None) -> str:
    if f is None:
        return f"{'-':>5} {'-':>9} {'-':>9} {'-':>3}"
    return f"{f['argmin']:>5} {f['p(1)/min']:>9.4g} {f['p(L)/min']:>9.4g} {'U' if f['U'] else '.':>3}"


def render_text(groups: list, t: dict) -> str:
    lines = [f"U rule of {CLAIM}: {t['interior']} < argmin/L <= {1 - t['interior']} and "
             f"p(1), p(L) >= {t['end_factor']} x min; argmin 1-indexed"]
    sub = f"{'argmin':>5} {'p(1)/min':>9} {'p(L)/min':>9} {'U':>3}"
    head = f"{'config':<42}{'L':>5}  " + "  ".join(f"{c:^28}" for c in COLUMNS)
    for title, rows in groups:
        lines += ["", title, head, " " * 49 + "  ".join(sub for _ in COLUMNS)]
        for r in rows:
            lines.append(f"{r['config']:<42}{r['L']:>5}  " + "  ".join(_cell(r[c]) for c in COLUMNS))
        counts = []
        for c in COLUMNS:
            have = [r[c] for r in rows if r[c] is not None]
            counts.append(f"{c} {sum(f['U'] for f in have)}/{len(have)}")
        lines.append("U-shaped: " + ", ".join(counts))
    return "\n".join(lines)


def render_csv(groups: list) -> str:
    out = ["config,L,column,argmin,p1_over_min,pL_over_min,u_shaped"]
    for _, rows in groups:
        for r in rows:
            for c in COLUMNS:
                f = r[c]
                if f is not None:
                    out.append(f"{r['config']},{r['L']},{c},{f['argmin']},{f['p(1)/min']!r},"
                               f"{f['p(L)/min']!r},{f['U']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", choices=("text", "csv"), default="text")
    args = ap.parse_args(argv)
    t = rule_thresholds()
    residual = [n for n in builtin_configs() if not n.endswith("-noresidual")]
    later = [n for n in builtin_configs(include_later=True) if n not in builtin_configs()]
    groups = [("the 25 residual configs of a514e09 (L = 256)", table_rows(residual, t)),
              ("the configs added later (L = 2048; lambda copied from L = 256)", table_rows(later, t))]
    print(render_text(groups, t) if args.format == "text" else render_csv(groups))
    return 0


if __name__ == "__main__":
    sys.exit(main())
