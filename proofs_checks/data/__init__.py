"""Data shipped with posbias: the rollout configs of BLOOM-7b1 and MPT-7B measured by
herasimchyk2026 (github ml-uhh/position-bias, commit a514e09, MIT license; LICENSE and README
beside them in ``ml-uhh/``).  Found through :mod:`importlib.resources`, so the lookup is the same
in a source checkout and an installed package.
"""

from __future__ import annotations

import os
from importlib import resources

from posbias.errors import InvalidArgument

__all__ = ["builtin_configs", "builtin_config_path"]


def _data_dir() -> str:
    return os.fspath(resources.files(__name__) / "ml-uhh")


def builtin_configs() -> list[str]:
    """Names of the shipped configs (``group/stem``), from herasimchyk2026's code (MIT).

    >>> "all_content/mpt-7b" in builtin_configs()
    True
    """
    base = _data_dir()
    out = []
    for group in sorted(os.listdir(base)):
        gdir = os.path.join(base, group)
        if os.path.isdir(gdir):
            out += [f"{group}/{f[:-5]}" for f in sorted(os.listdir(gdir)) if f.endswith(".yaml")]
    return out


def builtin_config_path(name: str) -> str:
    """Path of a shipped config by name, e.g. ``"no_content/mpt-7b"`` (see :func:`builtin_configs`)."""
    names = builtin_configs()
    if name not in names:
        raise InvalidArgument("name", name, "one of " + ", ".join(names))
    return os.path.join(_data_dir(), name + ".yaml")
