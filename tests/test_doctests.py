"""Run the doctests of every posbias module (docstrings are checkable mathematics)."""

import doctest
import importlib
import pkgutil

import pytest

import posbias


def _modules():
    names = ["posbias", "posbias.errors"]
    for info in pkgutil.walk_packages(posbias.__path__, "posbias."):
        names.append(info.name)
    # subpackages are mapped from other folders; walk them explicitly
    for sub in ("numerics", "derivations", "measurements", "proofs_checks"):
        pkg = importlib.import_module(f"posbias.{sub}")
        names.append(pkg.__name__)
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            names.append(info.name)
    return sorted(set(names))


# modules whose import needs an optional extra are skipped when it is missing
@pytest.mark.parametrize("name", _modules())
def test_doctests(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional extra (torch, matplotlib, ruamel) is missing
        pytest.skip(f"{name}: {exc}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
