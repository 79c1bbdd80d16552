"""Compare two ``posbias check -f json`` reports claim by claim.

Every field of every claim is compared (verdict, expected verdict, scope, card, rule, figures,
evidence, LaTeX), except the timings (``seconds`` and the wall times inside the evidence), which
no two runs share.  Prints one line per difference and a summary; exits 0 when the reports agree,
1 when they differ, 2 on unreadable input.

    posbias check -f json -o before.json        # on the old tree
    posbias check -f json -o after.json         # on the new one
    python tools/compare_check_json.py before.json after.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

#: words that mark a key whose value is a timing of the run that wrote the report, not a
#: result: wall times, and alibi-linear-time's empirical time exponent, which is printed beside
#: the exact operation count that decides that claim
TIMING_WORDS = ("seconds", "time exponent", "time_exponent", "elapsed")


def is_timing(key) -> bool:
    return any(w in str(key) for w in TIMING_WORDS)


def differences(a, b, path: str = "") -> Iterator[str]:
    """Paths (``claim.field.subfield``) where ``a`` and ``b`` differ, timings left out."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if is_timing(key):
                continue
            where = f"{path}.{key}" if path else str(key)
            if key not in a:
                yield f"{where}: only in the second report"
            elif key not in b:
                yield f"{where}: only in the first report"
            else:
                yield from differences(a[key], b[key], where)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield f"{path}: {len(a)} items against {len(b)}"
        for n, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, f"{path}[{n}]")
    elif a != b:
        yield f"{path}: {_short(a)} -> {_short(b)}"


def _short(value, width: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


def compare_reports(before: dict, after: dict) -> list[str]:
    """Every difference between two reports, claims matched by id (order is compared too)."""
    out = []
    ids_a = [c["id"] for c in before["claims"]]
    ids_b = [c["id"] for c in after["claims"]]
    if ids_a != ids_b:
        out.append(f"claim order or set differs: {len(ids_a)} against {len(ids_b)} claims; "
                   f"only before: {sorted(set(ids_a) - set(ids_b))}; "
                   f"only after: {sorted(set(ids_b) - set(ids_a))}")
    by_id = {c["id"]: c for c in after["claims"]}
    for c in before["claims"]:
        if c["id"] in by_id:
            out.extend(f"{c['id']}: {d}" for d in differences(c, by_id[c["id"]]))
    summary = {k: v for k, v in before["summary"].items() if k not in ("posbias", "python")}
    summary_b = {k: v for k, v in after["summary"].items() if k not in ("posbias", "python")}
    out.extend(f"summary: {d}" for d in differences(summary, summary_b))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    args = ap.parse_args(argv)
    try:
        with open(args.before, encoding="utf-8") as fa, open(args.after, encoding="utf-8") as fb:
            before, after = json.load(fa), json.load(fb)
        diffs = compare_reports(before, after)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"compare_check_json: cannot compare: {exc}", file=sys.stderr)
        return 2
    for d in diffs:
        print(d)
    n = len(before["claims"])
    print(f"{n} claims compared: " + ("identical (timings aside)" if not diffs
                                      else f"{len(diffs)} difference(s)"))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
