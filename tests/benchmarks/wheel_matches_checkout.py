"""Refuse a stale posbias wheel: every file of ``posbias`` in the wheel must be byte for byte the
file of this checkout it was built from (the package-dir mapping of ``pyproject.toml``), and
every module of the checkout's packages must be in the wheel.  The GPU runbook installs the
wheel that ``gpu_prepare.sh`` built and runs the checkout's tests against it: a wheel built
before the last change would test other code.

    python tests/benchmarks/wheel_matches_checkout.py WHEEL [ROOT]

Exit status 0 and one line when they match; 2 and one line naming the first file that differs.
Needs Python 3.11 or later (``tomllib``), as the GPU machine's 3.12.
"""

from __future__ import annotations

import os
import sys
import zipfile

import tomllib


def source_of(member: str, mapping: dict[str, str]) -> str | None:
    """The checkout path of wheel member ``member`` (``posbias/measurements/x.py``): the
    longest package of ``mapping`` (dotted name -> folder) that holds it."""
    parts = member.split("/")
    for n in range(len(parts) - 1, 0, -1):
        package = ".".join(parts[:n])
        if package in mapping:
            return os.path.join(mapping[package], *parts[n:])
    return None


def check(wheel: str, root: str) -> str | None:
    """None when the wheel matches the checkout at ``root``, else what differs."""
    with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
        mapping = tomllib.load(fh)["tool"]["setuptools"]["package-dir"]
    with zipfile.ZipFile(wheel) as zf:
        members = [m for m in zf.namelist() if m.startswith("posbias/") and not m.endswith("/")]
        seen = set()
        for m in members:
            rel = source_of(m, mapping)
            if rel is None:
                return f"{m}: no package of pyproject.toml holds it"
            path = os.path.join(root, rel)
            seen.add(os.path.normpath(rel))
            if not os.path.isfile(path):
                return f"{m}: not in the checkout ({rel})"
            with open(path, "rb") as fh:
                if fh.read() != zf.read(m):
                    return f"{m}: differs from {rel} (rebuild it: bash tests/benchmarks/gpu_prepare.sh)"
    for package, folder in mapping.items():
        for name in sorted(os.listdir(os.path.join(root, folder))):
            rel = os.path.normpath(os.path.join(folder, name))
            if name.endswith(".py") and rel not in seen:
                return f"{rel}: a module of {package} missing from the wheel"
    return None


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: wheel_matches_checkout.py WHEEL [ROOT]", file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.getcwd()
    problem = check(argv[0], root)
    if problem:
        print(f"wheel_matches_checkout: stale wheel {os.path.basename(argv[0])}: {problem}",
              file=sys.stderr)
        return 2
    print(f"wheel_matches_checkout: {os.path.basename(argv[0])} matches the checkout")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
