"""Registry integrity, the check runner, and every built-in claim against its expected verdict."""

import pytest

from posbias.errors import InvalidArgument
from posbias.proofs_checks import registry
from posbias.proofs_checks.registry import CheckContext, Evidence, all_claims, claim, run_claim

KNOWN_PAPERS = {"chowdhury2026", "herasimchyk2026", "wu2025", "barbero2024", "barbero2025", "xiao2024",
                "wu2024", "duerinckx2026", "posbias"}


@pytest.fixture
def scratch_claim():
    ids = []

    def make(cid, verdict="verified", expected="verified", raises=False):
        @claim(cid, statement="a test claim", latex=r"1 = 1", expected=expected)
        def _check(ctx):
            if raises:
                raise RuntimeError("boom")
            return Evidence(verdict, method="test", discrepancy="0")

        ids.append(cid)
        return registry.get_claim(cid)

    yield make
    for cid in ids:
        registry.unregister(cid)


def test_ids_unique_and_well_formed():
    claims = all_claims()
    ids = [c.id for c in claims]
    assert len(ids) == len(set(ids))
    for c in claims:
        paper, slug = c.id.split(":", 1)
        assert paper == c.paper and paper in KNOWN_PAPERS, c.id
        assert slug and slug == slug.lower() and " " not in slug, c.id


def test_every_claim_has_latex_statement_expected_and_check():
    for c in all_claims():
        assert c.statement.strip(), c.id
        assert c.expected in registry.VERDICTS, c.id
        assert callable(c.check), c.id
        latex = c.latex_text
        assert isinstance(latex, str) and latex.strip(), c.id
        assert latex.count("{") == latex.count("}"), c.id


def test_duplicate_id_rejected(scratch_claim):
    scratch_claim("testlab:dup")
    with pytest.raises(InvalidArgument, match="id"):
        @claim("testlab:dup", statement="x", latex="x", expected="verified")
        def _other(ctx):
            return Evidence("verified")


@pytest.mark.parametrize("bad", ["nocolon", "paper:", ""])
def test_bad_ids_rejected(bad):
    with pytest.raises(InvalidArgument):
        claim(bad, statement="x", latex="x", expected="verified")(lambda ctx: None)


def test_bad_expected_and_verdict_rejected():
    with pytest.raises(InvalidArgument, match="expected"):
        claim("testlab:bad-expected", statement="x", latex="x", expected="true")(lambda c: None)
    with pytest.raises(InvalidArgument, match="verdict"):
        Evidence("probably")


def test_runner_turns_exceptions_into_inconclusive(scratch_claim):
    c = scratch_claim("testlab:raises", raises=True)
    r = run_claim(c)
    assert r.evidence.verdict == "inconclusive" and not r.ok
    assert "boom" in r.evidence.details["error"]


def test_runner_ok_semantics(scratch_claim):
    assert run_claim(scratch_claim("testlab:match")).ok
    assert not run_claim(scratch_claim("testlab:mismatch", verdict="refuted")).ok
    assert run_claim(scratch_claim("testlab:nodata", verdict="needs-data")).ok


def test_context_validates_dps():
    with pytest.raises(InvalidArgument, match="dps"):
        CheckContext(dps=3)


def test_slug_lookup_and_unknown_id():
    c = all_claims()[0]
    assert registry.get_claim(c.id) is c
    with pytest.raises(InvalidArgument, match="registered id"):
        registry.get_claim("nosuchpaper:nosuchclaim")


# Every built-in check, run once: the verdict coming out of the computation must equal the
# expected verdict (needs-data is accepted where an optional extra or data set is missing).
@pytest.mark.parametrize("claim_id", [c.id for c in all_claims()])
def test_builtin_claim_matches_expected(claim_id):
    c = registry.get_claim(claim_id)
    r = run_claim(c, CheckContext())
    if r.evidence.verdict == "needs-data" and c.expected != "needs-data":
        pytest.skip(f"{claim_id}: {r.evidence.summary() or r.evidence.method}")
    assert r.evidence.verdict == c.expected, r.evidence.as_dict()
    assert r.evidence.method, claim_id


def test_one_expected_verdict_for_default_and_thorough_runs(scratch_claim):
    """`expected_thorough` is gone: a thorough run is held to the same expected verdict."""
    with pytest.raises(TypeError):
        claim("testlab:scale", statement="x", latex="x", expected="verified",
              expected_thorough="qualified")
    c = scratch_claim("testlab:same")
    assert run_claim(c, CheckContext(thorough=True)).expected == "verified"
    assert not any(hasattr(c, "expected_thorough") for c in all_claims())


def test_strict_makes_needs_data_fail(scratch_claim):
    r = run_claim(scratch_claim("testlab:nodata-strict", verdict="needs-data"))
    assert r.passes() and not r.passes(strict=True)
    ok = run_claim(scratch_claim("testlab:fine"))
    assert registry.exit_status([ok, r]) == 0 and registry.exit_status([ok, r], strict=True) == 1
    # a claim with no expected verdict (expected needs-data) that still lacks its data fails
    # under --strict too: strict asks for every claim to be computed
    expects = run_claim(scratch_claim("testlab:expects-nodata", verdict="needs-data",
                                      expected="needs-data"))
    assert expects.passes() and not expects.passes(strict=True)


def test_rule_is_copied_into_the_evidence():
    @claim("testlab:ruled", statement="x", latex="x", expected="verified",
           rule="verified when the residual is 0")
    def _ruled(ctx):
        return Evidence("verified", method="test")

    @claim("testlab:own-rule", statement="x", latex="x", expected="verified", rule="registered")
    def _own(ctx):
        return Evidence("verified", method="test", rule="stated by the check")

    try:
        ev = run_claim(registry.get_claim("testlab:ruled")).evidence
        assert ev.rule == "verified when the residual is 0" and ev.as_dict()["rule"] == ev.rule
        assert run_claim(registry.get_claim("testlab:own-rule")).evidence.rule == "stated by the check"
    finally:
        registry.unregister("testlab:ruled")
        registry.unregister("testlab:own-rule")


def test_a_claim_never_computed_has_no_expected_verdict_to_regress_from(scratch_claim):
    """A claim registered with expected needs-data (its data could never be had where posbias
    was built) passes with whatever verdict its data give, reported as new; a claim with an
    expected verdict still fails when another comes out."""
    from posbias.render.reports import summary

    for verdict in ("verified", "refuted"):
        r = run_claim(scratch_claim(f"testlab:never-{verdict}", verdict=verdict,
                                    expected="needs-data"))
        assert r.never_computed and r.passes() and r.passes(strict=True)
        assert summary([r])["new"] == [r.claim.id] and summary([r])["ok"]
    r = run_claim(scratch_claim("testlab:known", verdict="refuted", expected="verified"))
    assert not r.never_computed and not r.passes() and summary([r])["new"] == []


def test_claims_never_computed_here_carry_no_expected_verdict():
    """No pretrained weights can be downloaded where posbias is built, so the claims about
    pretrained models were never computed: each expects needs-data, not a verdict."""
    for cid in ("chowdhury2026:u-persists-pretrained", "chowdhury2026:peak-valley-pretrained",
                "herasimchyk2026:empirical-match"):
        c = registry.get_claim(cid)
        assert run_claim(c, CheckContext()).evidence.verdict == "needs-data"
        assert c.expected == "needs-data", cid
