"""Data shipped with posbias: the rollout configs of herasimchyk2026's public code (github
ml-uhh/position-bias, ``config/rollout/alibi/``, MIT license; LICENSE and README beside them in
``ml-uhh/``), in that repository's layout.

* The 32 configs of commit a514e09 (:func:`builtin_configs`, what the claims decide on):
  ``no_content/<model>``, ``mean_content/fineweb-edu/<model>`` and
  ``all_content/<dataset>/<model>`` for the five ALiBi models (BLOOM-176B ``bloom``,
  ``bloom-7b1``, ``falcon-rw-7b``, ``mpt-7b``, ``mpt-30b``) and the three data sets (``dclm``,
  ``fineweb-edu``, ``wikipedia``), all at L = 256; ``*-noresidual`` files are the attention-only
  comparison (λ ≡ 1).
* The configs added by the later commit 37cffcf (``builtin_configs(include_later=True)``):
  ``no_content_2048/<model>``, the five models at L = 2048, whose λ lists are **not measured at
  L = 2048**: they are copied unchanged from ``no_content/<model>`` (L = 256).  Their
  :func:`config_record` says so, and ``posbias rollout`` prints it.

Found through :mod:`importlib.resources`, so the lookup is the same in a source checkout and an
installed package.  The names of posbias 0.2 (``all_content/<model>``, ``mean_content/<model>``:
the fineweb-edu configs) are accepted as aliases.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources

from posbias.errors import InvalidArgument
from posbias.validation import read_json_bounded

__all__ = [
    "MAX_RESULTS_BYTES",
    "ConfigRecord",
    "builtin_config_aliases",
    "builtin_config_name",
    "builtin_config_path",
    "builtin_configs",
    "config_record",
    "data_path",
    "is_builtin_config",
    "noresidual_configs",
    "read_results",
    "residual_configs",
]

#: the repository the configs are copied from, and the commit of the 32 configs the claims use
ORIGIN_REPOSITORY = "github.com/ml-uhh/position-bias"
ORIGIN_COMMIT = "a514e09cb3e0688974a63816530e5849d5c2b8ba"

#: folders of ``ml-uhh/`` added by a later commit of the same repository: the commit, the
#: sequence length of their files, and the folder of the L = 256 configs whose λ lists they copy
LATER_FOLDERS = {
    "no_content_2048": ("37cffcfd490e40cd90d17111660b37f9372d5b66", 2048, "no_content"),
}

#: sequence length of every config of :data:`ORIGIN_COMMIT`
ORIGIN_LENGTH = 256


@dataclass(frozen=True)
class ConfigRecord:
    """Where a shipped config comes from and what its λ schedule is.

    ``lambda_copied_from`` names the shipped config (at ``lambda_length``) whose λ list the file
    holds unchanged when that list was not measured for the file's own ``sequence_length``;
    ``None`` when the list belongs to the file.  ``note`` is the line shown to users (empty when
    there is nothing to say).
    """

    name: str
    repository: str
    commit: str
    license: str
    sequence_length: int
    lambda_length: int
    lambda_copied_from: str | None
    note: str

    @property
    def lambda_measured_for_length(self) -> bool:
        """True when the λ list belongs to the file's own sequence length."""
        return self.lambda_copied_from is None


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


def _all_names() -> list[str]:
    base = _data_dir()
    out = []
    for root, dirs, files in os.walk(base):
        dirs.sort()
        rel = os.path.relpath(root, base)
        if rel == ".":
            continue
        out += [f"{rel.replace(os.sep, '/')}/{f[:-5]}" for f in files if f.endswith(".yaml")]
    return sorted(out)


def _later_folder(name: str) -> str | None:
    top = name.split("/", 1)[0]
    return top if top in LATER_FOLDERS else None


def builtin_configs(*, include_later: bool = False) -> list[str]:
    """Names of the shipped configs (their path below ``ml-uhh/`` without ``.yaml``), from
    herasimchyk2026's code (MIT), sorted: the 32 of commit a514e09, and with ``include_later``
    also the 5 added later at L = 2048 (λ copied from L = 256, see :func:`config_record`).

    >>> len(builtin_configs()), "all_content/wikipedia/mpt-30b" in builtin_configs()
    (32, True)
    >>> len(builtin_configs(include_later=True)), "no_content_2048/mpt-7b" in builtin_configs()
    (37, False)
    """
    names = _all_names()
    return names if include_later else [n for n in names if _later_folder(n) is None]


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
    """True for a shipped config's name (any commit) or one of its aliases."""
    return name in _all_names() or name in builtin_config_aliases()


def residual_configs() -> list[str]:
    """The shipped configs with a measured λ schedule (25: every model, content and data set)."""
    return [n for n in builtin_configs() if not n.endswith("-noresidual")]


def noresidual_configs() -> list[str]:
    """The shipped attention-only configs (λ ≡ 1; 7)."""
    return [n for n in builtin_configs() if n.endswith("-noresidual")]


def builtin_config_path(name: str) -> str:
    """Path of a shipped config by name, e.g. ``"no_content/mpt-7b"``, ``"all_content/dclm/bloom"``
    or ``"no_content_2048/bloom"`` (see :func:`builtin_configs`; aliases accepted)."""
    names = _all_names()
    name = builtin_config_aliases().get(name, name)
    if name not in names:
        raise InvalidArgument("name", name, "one of " + ", ".join(names))
    return os.path.join(_data_dir(), *name.split("/")) + ".yaml"


def builtin_config_name(path: str | os.PathLike[str]) -> str | None:
    """The shipped config's name when ``path`` is the file of a shipped config, else None."""
    try:
        real = os.path.realpath(os.fspath(path))
        base = os.path.realpath(_data_dir())
    except (OSError, ValueError):
        return None
    rel = os.path.relpath(real, base)
    if rel.startswith("..") or not rel.endswith(".yaml"):
        return None
    name = rel[:-5].replace(os.sep, "/")
    return name if name in _all_names() else None


def config_record(name: str) -> ConfigRecord:
    """Origin and λ provenance of a shipped config (aliases accepted).

    >>> r = config_record("no_content_2048/mpt-7b")
    >>> r.sequence_length, r.lambda_length, r.lambda_copied_from, r.commit[:7]
    (2048, 256, 'no_content/mpt-7b', '37cffcf')
    >>> config_record("no_content/mpt-7b").lambda_measured_for_length
    True
    """
    path = builtin_config_path(name)  # validates the name
    name = builtin_config_name(path) or name
    folder = _later_folder(name)
    if folder is None:
        return ConfigRecord(name, ORIGIN_REPOSITORY, ORIGIN_COMMIT, "MIT", ORIGIN_LENGTH, ORIGIN_LENGTH, None, "")
    commit, length, source_folder = LATER_FOLDERS[folder]
    source = source_folder + name[len(folder):]
    note = (f"lambda_t not measured at L = {length}: the list is copied unchanged from {source} "
            f"(L = {ORIGIN_LENGTH}) by {ORIGIN_REPOSITORY} {commit[:7]}")
    return ConfigRecord(name, ORIGIN_REPOSITORY, commit, "MIT", length, ORIGIN_LENGTH, source, note)


#: the largest results document of ``posbias train`` read (the stored ones are about 90 KiB)
MAX_RESULTS_BYTES = 256 * 2**20


def read_results(path: str) -> dict:
    """The results document of ``posbias train`` at ``path`` (shipped, or in a user's
    ``--data-dir``), read bounded and strictly: a regular file of at most
    :data:`MAX_RESULTS_BYTES`, JSON without NaN and nested within the reader's stack, holding an
    object; anything else is refused naming the file (with ``--data-dir``, exit status 2)."""
    doc = read_json_bounded(path, MAX_RESULTS_BYTES, "trained run")
    if not isinstance(doc, dict):
        raise InvalidArgument("trained run", path, "a results document of posbias train (a "
                              "JSON object)")
    return doc
