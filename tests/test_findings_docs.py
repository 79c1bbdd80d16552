"""The findings documents and the README agree with the computed verdicts: every row of their
claim tables (``| `id` | scope | verdict | ... |``) names the scope and the verdict that
``posbias check`` gives, and every built-in claim appears in one of the findings documents."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "docs" / "findings-chowdhury2026.md", ROOT / "docs" / "findings-herasimchyk-wu.md",
        ROOT / "docs" / "findings-duerinckx2026.md"]
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


def test_readme_tables_name_registered_claims_with_their_expected_verdicts():
    """The README's claim tables (cheap: against the registered expected verdicts)."""
    from posbias.proofs_checks.registry import all_claims

    expected = {c.id: c.expected for c in all_claims()}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for line in readme.splitlines():
        for cid in re.findall(r"`([a-z]+[0-9]*:[a-z0-9-]+)`", line):
            if cid.split(":")[0] in ("chowdhury2026", "herasimchyk2026", "wu2025", "duerinckx2026",
                                     "posbias"):
                assert cid in expected, f"README names {cid}, which is not a registered claim"


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

    rows = _rows(ROOT / "docs" / "findings-duerinckx2026.md")
    claims = all_claims("duerinckx2026")
    assert set(rows) == {c.id for c in claims}
    for c in claims:
        assert rows[c.id] == (c.card.resolve()["scope"], c.expected), c.id
