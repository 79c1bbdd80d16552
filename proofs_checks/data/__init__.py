"""Data shipped with posbias: the 32 rollout configs of herasimchyk2026's public code (github
ml-uhh/position-bias, commit a514e09, ``config/rollout/alibi/``, MIT license; LICENSE and README
beside them in ``ml-uhh/``), in that repository's layout: ``no_content/<model>``,
``mean_content/fineweb-edu/<model>`` and ``all_content/<dataset>/<model>`` for the five ALiBi
models (BLOOM-176B ``bloom``, ``bloom-7b1``, ``falcon-rw-7b``, ``mpt-7b``, ``mpt-30b``) and the
three data sets (``dclm``, ``fineweb-edu``, ``wikipedia``); ``*-noresidual`` files are the
attention-only comparison (λ ≡ 1).  Found through :mod:`importlib.resources`, so the lookup is
the same in a source checkout and an installed package.

The names of posbias 0.2 (``all_content/<model>``, ``mean_content/<model>``: the fineweb-edu
configs) are accepted as aliases.
"""

from __future__ import annotations

import os
from importlib import resources

from posbias.errors import InvalidArgument

__all__ = [
    "builtin_config_aliases",
    "builtin_config_path",
    "builtin_configs",
    "data_path",
    "is_builtin_config",
    "noresidual_configs",
    "residual_configs",
]


def data_path(*parts: str) -> str:
    """Path of a file or folder shipped in this package (``parts`` below it), found through
    :mod:`importlib.resources`; the package's data lie in the file system (a zipped install
    has no path to give: TypeError)."""
    path = resources.files(__name__)
    for part in parts:
        path = path / part
    if not isinstance(path, os.PathLike):
        raise TypeError(f"posbias data {'/'.join(parts)} is not in the file system: {path!r}")
    return os.fspath(path)


def _data_dir() -> str:
    return data_path("ml-uhh")


def builtin_configs() -> list[str]:
    """Names of the shipped configs (their path below ``ml-uhh/`` without ``.yaml``), from
    herasimchyk2026's code (MIT), sorted.

    >>> len(builtin_configs()), "all_content/wikipedia/mpt-30b" in builtin_configs()
    (32, True)
    """
    base = _data_dir()
    out = []
    for root, dirs, files in os.walk(base):
        dirs.sort()
        rel = os.path.relpath(root, base)
        if rel == ".":
            continue
        out += [f"{rel.replace(os.sep, '/')}/{f[:-5]}" for f in files if f.endswith(".yaml")]
    return sorted(out)


def builtin_config_aliases() -> dict:
    """The names of posbias 0.2 and the configs they stand for (the fineweb-edu content).

    >>> builtin_config_aliases()["all_content/mpt-7b"]
    'all_content/fineweb-edu/mpt-7b'
    """
    out = {}
    for name in builtin_configs():
        parts = name.split("/")
        if len(parts) == 3 and parts[1] == "fineweb-edu":
            out[f"{parts[0]}/{parts[2]}"] = name
    return out


def is_builtin_config(name: str) -> bool:
    """True for a shipped config's name or one of its aliases."""
    return name in builtin_configs() or name in builtin_config_aliases()


def residual_configs() -> list[str]:
    """The shipped configs with a measured λ schedule (25: every model, content and data set)."""
    return [n for n in builtin_configs() if not n.endswith("-noresidual")]


def noresidual_configs() -> list[str]:
    """The shipped attention-only configs (λ ≡ 1; 7)."""
    return [n for n in builtin_configs() if n.endswith("-noresidual")]


def builtin_config_path(name: str) -> str:
    """Path of a shipped config by name, e.g. ``"no_content/mpt-7b"`` or
    ``"all_content/dclm/bloom"`` (see :func:`builtin_configs`; aliases accepted)."""
    names = builtin_configs()
    name = builtin_config_aliases().get(name, name)
    if name not in names:
        raise InvalidArgument("name", name, "one of " + ", ".join(names))
    return os.path.join(_data_dir(), *name.split("/")) + ".yaml"
