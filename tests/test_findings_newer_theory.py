"""docs/explanation/findings-newer-theory.md agrees with the check: its table names every claim of
barbero2024, barbero2025, xiao2024 and wu2024 with the scope and verdict `posbias check` gives,
and the deciding figures it quotes are the computed ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from posbias.proofs_checks.registry import CheckContext, all_claims, run_claim

DOC = Path(__file__).resolve().parent.parent / "docs" / "explanation" / "findings-newer-theory.md"
PAPERS = ("barbero2024", "barbero2025", "xiao2024", "wu2024")
ROW = re.compile(r"^\|\s*`(?P<id>[a-z0-9]+:[a-z0-9-]+)`\s*\|\s*(?P<scope>[a-z]+)\s*\|\s*"
                 r"(?P<verdict>[a-z-]+)\s*\|")


def _rows() -> dict:
    out = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            out[m["id"]] = (m["scope"], m["verdict"])
    return out


def test_every_claim_of_the_four_papers_has_a_row_with_its_expected_verdict():
    rows = _rows()
    claims = [c for p in PAPERS for c in all_claims(p)]
    assert {c.id for c in claims} == set(rows)
    for c in claims:
        assert rows[c.id][1] == c.expected, c.id
    for paper in PAPERS:
        assert f"## {paper}" in DOC.read_text(encoding="utf-8")


@pytest.mark.slow
def test_rows_and_figures_match_the_check():
    rows = _rows()
    text = DOC.read_text(encoding="utf-8")
    results = {c.id: run_claim(c, CheckContext()) for p in PAPERS for c in all_claims(p)}
    for cid, (scope, verdict) in rows.items():
        r = results[cid]
        assert (scope, verdict) == (r.scope, r.evidence.verdict), cid
    f = {cid: r.evidence.figures for cid, r in results.items()}
    assert f["wu2024:local-mask-rate"]["depth_to_1e-3"] == {
        "causal": 14, "window 2": 41, "window 3": 24, "window 4": 19, "window 6": 16}
    assert "41, 24, 19, 16 layers" in text
    assert f"{f['barbero2025:sink-dead-zone']['ratio_max']:.3f}" == "0.856" and "0.856" in text
    assert results["barbero2024:path-sum-bound"].evidence.cases == 169 and "169 tokens" in text
    assert f["barbero2024:softmax-tv-limit"]["odd_gap_at_4097"] == pytest.approx(4.7e-8, rel=0.01)
