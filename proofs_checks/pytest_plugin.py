"""pytest plugin: ``pytest --posbias`` collects every registered claim as a test item.

Installed through the ``pytest11`` entry point, so it is active wherever posbias is installed;
without ``--posbias`` it only adds its options.  Users register their own claims with
:func:`posbias.proofs_checks.claim` in their own modules; claims registered by modules that
their tests (or ``conftest.py``) import, or that are named with ``--posbias-import MODULE``,
are run too.  An item fails when the verdict differs from the claim's expected verdict and is
skipped when the claim needs data that is not present (needs-data).
"""

from __future__ import annotations

import importlib
import json
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle

    from posbias.proofs_checks.registry import CheckContext, Claim, Result

__all__ = ["ClaimItem", "ClaimMismatch"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("posbias", "posbias claim checks")
    group.addoption("--posbias", action="store_true", default=False,
                    help="collect every registered posbias claim as a test item")
    group.addoption("--posbias-thorough", action="store_true", default=False,
                    help="run the claim checks with larger grids")
    group.addoption("--posbias-dps", type=int, default=30,
                    help="working precision of the mpmath routes (default 30)")
    group.addoption("--posbias-paper", default=None, help="only the claims of this paper key")
    group.addoption("--posbias-import", action="append", default=[], metavar="MODULE",
                    help="import MODULE (registering its claims) before collecting; repeatable")


class ClaimMismatch(AssertionError):
    """A claim's verdict differs from its expected verdict."""


class ClaimItem(pytest.Item):
    def __init__(self, *, claim: Claim, ctx: CheckContext, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim = claim
        self.ctx = ctx
        self.result: Result | None = None

    def runtest(self) -> None:
        # the registry is loaded when a claim runs: this plugin is loaded by every pytest
        # session of every project where posbias is installed
        from posbias.proofs_checks.registry import run_claim

        self.result = run_claim(self.claim, self.ctx)
        ev = self.result.evidence
        expected = self.result.expected
        if ev.verdict == "needs-data" and expected != "needs-data":
            pytest.skip(f"{self.claim.id} needs data: {ev.summary() or ev.method}")
        if ev.verdict != expected:
            raise ClaimMismatch(
                f"{self.claim.id}: expected {expected}, got {ev.verdict}\n"
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
    def __init__(self, *, claims, ctx, **kwargs):
        super().__init__(**kwargs)
        self._claims = claims
        self._ctx = ctx

    def collect(self):
        for c in self._claims:
            yield ClaimItem.from_parent(self, name=c.id, claim=c, ctx=self._ctx)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    if not config.getoption("posbias"):
        return
    # loaded only with --posbias (see runtest)
    from posbias.proofs_checks.registry import CheckContext, all_claims

    for name in config.getoption("posbias_import"):
        importlib.import_module(name)
    ctx = CheckContext(dps=config.getoption("posbias_dps"),
                       thorough=config.getoption("posbias_thorough"))
    claims = all_claims(config.getoption("posbias_paper"))
    collector = _ClaimCollector.from_parent(session, name="posbias-claims", claims=claims, ctx=ctx)
    items.extend(collector.collect())
