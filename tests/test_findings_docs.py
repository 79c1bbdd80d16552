"""The findings documents agree with the computed verdicts: every row of their claim tables
(``| `id` | scope | verdict | ... |``) names the scope and the verdict that ``posbias check``
gives, and every built-in claim appears in one of the findings documents; every claim id that the
README or a page of the documentation names is a registered claim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXPLANATION = ROOT / "docs" / "explanation"
DOCS = [EXPLANATION / "findings.md", EXPLANATION / "findings-chowdhury2026.md",
        EXPLANATION / "findings-herasimchyk-wu.md",
        EXPLANATION / "findings-newer-theory.md",
        EXPLANATION / "findings-duerinckx2026.md"]
#: every page that may name a claim
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md",
         *sorted(p for ext in ("md", "rst") for p in (ROOT / "docs").rglob(f"*.{ext}")
                 if "_build" not in p.parts)]
ROW = re.compile(r"^\|\s*`(?P<id>[a-z0-9]+:[a-z0-9-]+)`\s*\|\s*(?P<scope>[a-z]+)\s*\|\s*"
                 r"(?:\*\*)?(?P<verdict>[a-z-]+)(?:\*\*)?\s*\|")


def _rows(path: Path) -> dict:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            out[m["id"]] = (m["scope"], m["verdict"])
    return out


@pytest.fixture(scope="module")
def report():
    from posbias.proofs_checks.registry import CheckContext, all_claims, run_claim

    return {c.id: run_claim(c, CheckContext()) for c in all_claims()}


@pytest.mark.slow
def test_findings_tables_match_the_check(report):
    documented = {}
    for path in DOCS:
        rows = _rows(path)
        assert rows, f"{path.name} has no claim table"
        for cid, (scope, verdict) in rows.items():
            assert cid in report, f"{path.name}: {cid} is not a registered claim"
            r = report[cid]
            assert (scope, verdict) == (r.scope, r.evidence.verdict), (
                f"{path.name}: {cid} says {scope}/{verdict}, the check gives "
                f"{r.scope}/{r.evidence.verdict}")
        documented.update(rows)
    missing = [cid for cid, r in report.items() if cid not in documented
               and not cid.startswith("posbias:")]
    assert not missing, f"claims missing from the findings documents: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_pages_name_registered_claims(page):
    """Every built-in claim id a page names in code (cheap: against the registry)."""
    from posbias.proofs_checks.registry import PAPERS, all_claims

    registered = {c.id for c in all_claims()}
    text = page.read_text(encoding="utf-8")
    for cid in re.findall(r"`+([a-z]+[0-9]*:[a-z0-9-]+)`", text):
        if cid.split(":")[0] in PAPERS:
            assert cid in registered, f"{page.name} names {cid}, which is not a registered claim"


def test_the_findings_tables_are_read():
    """The table rule finds the rows it must (a renamed column would silence the slow test)."""
    rows = {}
    for path in DOCS:
        rows.update(_rows(path))
    assert len(rows) >= 40
    assert rows["posbias:laguerre"] == ("paper", "verified")


@pytest.mark.slow
def test_every_verdict_came_out_of_its_rule(report):
    """Every verdict a rule gives was recomputed by the registry from the reported figures (a
    check that returned its verdict without figures would escape the rule)."""
    for cid, r in report.items():
        rule = r.claim.rule
        if r.evidence.verdict in getattr(rule, "outcomes", ()):
            assert "decision" in r.evidence.details, f"{cid}: no decision recomputed from figures"
            assert r.evidence.details["decision"]["verdict"] == r.evidence.verdict


def test_duerinckx2026_findings_name_every_claim_with_its_scope_and_expected_verdict():
    """The duerinckx2026 findings (cheap: against the registered expected verdicts and the scopes
    the cards compute; the slow test above holds them to the computed verdicts)."""
    from posbias.proofs_checks.registry import all_claims

    rows = _rows(EXPLANATION / "findings-duerinckx2026.md")
    claims = all_claims("duerinckx2026")
    assert set(rows) == {c.id for c in claims}
    for c in claims:
        assert rows[c.id] == (c.card.resolve()["scope"], c.expected), c.id
