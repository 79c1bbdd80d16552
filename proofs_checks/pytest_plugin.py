"""pytest plugin: ``pytest --posbias`` collects every registered claim as a test item.

Installed through the ``pytest11`` entry point, so it is active wherever posbias is installed;
without ``--posbias`` it only adds its options.  Users register their own claims with
:func:`posbias.proofs_checks.claim` in their own modules; claims registered by modules that
their tests (or ``conftest.py``) import, or that are named with ``--posbias-import MODULE``,
are run too.  As ``posbias check --import`` does, ``--posbias-import`` looks the module up in
the working directory first, so ``pytest --posbias --posbias-import mylab.claims`` run from the
folder holding ``mylab/claims.py`` finds it whether pytest is started as ``pytest`` or as
``python -m pytest``.

An item fails when the verdict differs from the claim's expected verdict and is skipped when
the claim needs data that is not present (needs-data); with ``--posbias-strict`` a needs-data
verdict fails, naming what the claim needed.  ``--posbias-data-dir DIR`` gives the data claims
their data (as ``posbias check --data-dir``).  A claim registered with no expected verdict of
its own (expected ``needs-data``: never computed where posbias was built) passes with whatever
verdict its data give, and the session's summary lists that verdict as new.

A bad option is a pytest usage error (exit status 4, pytest's usage message naming the option):
a ``--posbias-dps`` outside the package's precision range, a ``--posbias-import`` that is not a
dotted module name or names no module that can be found, a ``--posbias-data-dir`` that is not a
directory.  A module of ``--posbias-import`` that raises while it is imported ends the session
as a ``conftest.py`` that raises does (exit status 4, its error shown).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from typing import TYPE_CHECKING, Any

import pytest

from posbias.errors import InvalidArgument
from posbias.validation import MAX_DPS, MIN_DPS

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle

    from posbias.proofs_checks.registry import CheckContext, Claim, Result

__all__ = ["ClaimItem", "ClaimMismatch"]

#: the method the registry records for a check that raised (registry.run_claim)
_CRASHED = "check raised an exception"


def _dps(text: str) -> int:
    """``--posbias-dps``: an integer in the package's precision range."""
    digits = str(text).strip()
    if not digits.isdigit() or not MIN_DPS <= int(digits) <= MAX_DPS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is invalid: expected an integer between {MIN_DPS} and {MAX_DPS}")
    return int(digits)


def _working_directory_on_path() -> None:
    """Put the working directory first on the import path, as ``python -m pytest`` and
    ``posbias check --import`` do (the ``pytest`` script puts its own folder there instead)."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def _module(text: str) -> str:
    """``--posbias-import``: a dotted module name that can be found (in the working directory
    first).  Only the module's location is looked up here (parent packages are imported to
    find it); it is imported when the session is configured."""
    name = str(text).strip()
    if not name or not all(part.isidentifier() for part in name.split(".")):
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected a dotted Python module "
                                         "name such as mylab.claims")
    _working_directory_on_path()
    try:
        found = importlib.util.find_spec(name) is not None
    except ModuleNotFoundError as exc:  # a parent package is missing
        found = not (exc.name and (name == exc.name or name.startswith(exc.name + ".")))
    except Exception:  # a parent package that raises: reported when it is imported
        found = True
    if not found:
        raise argparse.ArgumentTypeError(
            f"{text!r} is invalid: expected a module importable from the working directory "
            f"{os.getcwd()} or the installed packages (no module named {name!r})")
    return name


def _directory(text: str) -> str:
    """``--posbias-data-dir``: an existing directory (its files are checked when the session is
    configured)."""
    if not os.path.isdir(str(text)):
        raise argparse.ArgumentTypeError(f"{text!r} is invalid: expected an existing directory")
    return str(text)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("posbias", "posbias claim checks")
    group.addoption("--posbias", action="store_true", default=False,
                    help="collect every registered posbias claim as a test item")
    group.addoption("--posbias-thorough", action="store_true", default=False,
                    help="run the claim checks with larger grids")
    group.addoption("--posbias-dps", type=_dps, default=30, metavar="N",
                    help=f"working precision of the mpmath routes ({MIN_DPS}..{MAX_DPS}, "
                         "default 30)")
    group.addoption("--posbias-paper", default=None, metavar="KEY",
                    help="only the claims of this paper key")
    group.addoption("--posbias-import", action="append", default=[], metavar="MODULE",
                    type=_module,
                    help="import MODULE (registering its claims) before collecting, looked up "
                         "in the working directory first; repeatable")
    group.addoption("--posbias-data-dir", default=None, metavar="DIR", type=_directory,
                    help="directory with measured data for the data claims (as posbias check "
                         "--data-dir)")
    group.addoption("--posbias-strict", action="store_true", default=False,
                    help="a claim whose data or extra is missing (needs-data) fails instead of "
                         "being skipped")


def pytest_configure(config: pytest.Config) -> None:
    """With ``--posbias``: check the data directory's files and import the user's modules,
    before anything is collected (a failure is a usage error, exit status 4)."""
    if not config.getoption("posbias"):
        return
    # loaded only with --posbias (see runtest)
    from posbias.proofs_checks.registry import check_data_dir

    data_dir = config.getoption("posbias_data_dir")
    if data_dir is not None:
        try:
            check_data_dir(data_dir, "--posbias-data-dir")
        except InvalidArgument as exc:
            raise pytest.UsageError(str(exc)) from None
    names = config.getoption("posbias_import")
    if names:
        _working_directory_on_path()
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:  # the user's module raised: shown as pytest shows a conftest's
            raise pytest.UsageError(
                f"--posbias-import {name}: the module raised {type(exc).__name__} while it was "
                f"imported: {' '.join(str(exc).split())[:300]}") from exc


class ClaimMismatch(AssertionError):
    """A claim's verdict differs from its expected verdict (or, under ``--posbias-strict``,
    the claim lacked its data)."""


class ClaimItem(pytest.Item):
    def __init__(self, *, claim: Claim, ctx: CheckContext, strict: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim
        self.ctx = ctx
        self.strict = strict
        self.result: Result | None = None

    def runtest(self) -> None:
        # the registry is loaded when a claim runs: this plugin is loaded by every pytest
        # session of every project where posbias is installed
        from posbias.proofs_checks.registry import run_claim

        self.result = r = run_claim(self.claim, self.ctx)
        ev = r.evidence
        self.user_properties.append(("verdict", ev.verdict))
        if ev.method == _CRASHED:
            raise ClaimMismatch(f"{self.claim.id}: the check raised "
                                f"{ev.details.get('error', '')}")
        if ev.verdict == "needs-data":
            if self.strict:
                raise ClaimMismatch(f"{self.claim.id} needs data (--posbias-strict): "
                                    f"{r.needed_in_full}")
            pytest.skip(f"{self.claim.id} needs data: {r.needed}")
        if r.never_computed:
            self.user_properties.append(("new", True))
            return
        if ev.verdict != r.expected:
            raise ClaimMismatch(
                f"{self.claim.id}: expected {r.expected}, got {ev.verdict}\n"
                + json.dumps(ev.as_dict(), indent=2, ensure_ascii=False)
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: TracebackStyle | None = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, ClaimMismatch):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[str, int | None, str]:
        return "posbias", None, f"claim {self.claim.id}"


class _ClaimCollector(pytest.Collector):
    def __init__(self, *, claims, ctx, strict=False, **kwargs):
        super().__init__(**kwargs)
        self._claims = claims
        self._ctx = ctx
        self._strict = strict

    def collect(self):
        for c in self._claims:
            yield ClaimItem.from_parent(self, name=c.id, claim=c, ctx=self._ctx,
                                        strict=self._strict)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    if not config.getoption("posbias"):
        return
    # loaded only with --posbias (see runtest)
    from posbias.proofs_checks.registry import CheckContext, all_claims

    ctx = CheckContext(dps=config.getoption("posbias_dps"),
                       thorough=config.getoption("posbias_thorough"),
                       data_dir=config.getoption("posbias_data_dir"))
    try:
        claims = all_claims(config.getoption("posbias_paper"))
    except InvalidArgument as exc:
        raise pytest.UsageError(f"--posbias-paper: {exc}") from None
    collector = _ClaimCollector.from_parent(session, name="posbias-claims", claims=claims,
                                            ctx=ctx, strict=config.getoption("posbias_strict"))
    items.extend(collector.collect())


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    """The verdicts of claims that had no expected verdict of their own (new results)."""
    if not config.getoption("posbias"):
        return
    new = []
    for report in terminalreporter.stats.get("passed", []):
        props = dict(getattr(report, "user_properties", ()))
        if props.get("new"):
            new.append(f"{report.nodeid.rsplit('::', 1)[-1]}: {props.get('verdict')}")
    if new:
        terminalreporter.write_sep("-", "posbias: new verdicts (claims with no expected verdict)")
        for line in new:
            terminalreporter.write_line(line)
