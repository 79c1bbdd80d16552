"""Store the profiles written by herasimchyk2026's public code as the reference data of the tests.

The public code (github ml-uhh/position-bias, ``python -m src.rollout.main CONFIG``) writes, for
each config, ``<save_dir>/last_row_distribution.csv``: ``token_position,probability`` with
0-indexed positions and the last row of its rollout divided by its sum, printed by
``numpy.savetxt`` as ``%.18e`` (19 significant digits, so every float64 is read back exactly).
This script reads those files from a checkout where the public code has run and writes
``tests/data/ml-uhh/reference/<name>.profile.csv`` (``position,p``, 0-indexed, each value as
Python's ``repr`` of the float64: the shortest text that reads back to the same float64), one per
config name, mirroring the config folders.

Usage::

    python tools/ml_uhh_reference_profiles.py CHECKOUT NAME [NAME ...]

``NAME`` is a config's path below ``config/rollout/alibi`` without ``.yaml``; the ``save_dir`` of
the config says where its output lies (``CHECKOUT/results/rollout/<NAME>/`` for every shipped
config).  Nothing of the public code is imported or copied: only its output files are read.
"""

from __future__ import annotations

import os
import re
import sys

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "ml-uhh", "reference")
_NUMBER = re.compile(r"[-+]?[0-9]\.[0-9]+e[-+][0-9]+")


def read_public_csv(path: str) -> list[float]:
    """The probabilities of one ``last_row_distribution.csv``, checked row by row (never eval)."""
    with open(path, encoding="utf-8") as fh:
        lines = [ln.strip() for ln in fh if ln.strip()]
    if lines[0] != "token_position,probability":
        raise SystemExit(f"{path}: unexpected header {lines[0]!r}")
    out = []
    for k, ln in enumerate(lines[1:]):
        pos, _, val = ln.partition(",")
        if not (_NUMBER.fullmatch(pos) and _NUMBER.fullmatch(val)) or float(pos) != k:
            raise SystemExit(f"{path}: row {k} is not 'position,probability': {ln!r}")
        out.append(float(val))
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.split("Usage::")[1].split("``NAME``")[0].strip(), file=sys.stderr)
        return 2
    checkout, names = argv[0], argv[1:]
    for name in names:
        src = os.path.join(checkout, "results", "rollout", *name.split("/"), "last_row_distribution.csv")
        values = read_public_csv(src)
        dst = os.path.join(OUT, *name.split("/")) + ".profile.csv"
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("position,p\n")
            fh.writelines(f"{k},{v!r}\n" for k, v in enumerate(values))
        print(f"{name}: {len(values)} positions -> {os.path.relpath(dst)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
