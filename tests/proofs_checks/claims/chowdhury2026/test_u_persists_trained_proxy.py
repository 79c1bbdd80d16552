"""chowdhury2026:u-persists-trained-proxy (C10 proxy): every verdict its rule allows, reached
from constructed profiles; the default run is a proxy in its own scope, says what it tests, and
gives the verdict expected; the paper's picture qualifies and the false version is refuted."""

import pytest
from posbias_tests_chowdhury2026_lm import U, doc, flat

from posbias.proofs_checks.claims.chowdhury2026._lm import lm_examples, lm_summaries
from posbias.proofs_checks.claims.chowdhury2026._pretrained import one_side
from posbias.proofs_checks.claims.chowdhury2026.u_persists_trained_proxy import (
    RULE,
    u_persists_trained_verdict,
)
from posbias.proofs_checks.registry import get_claim, run_claim


@pytest.mark.parametrize("seeds, learned, u_verdict, words", [
    # the U kept and sharper in both seeds: qualified (small scale)
    ([(U(12), U(24)), (U(10), U(30))], 0.9, "qualified", "small scale"),
    # the U flattened away in both seeds: refuted
    ([(U(12), flat()), (U(10), flat(1.2))], 0.9, "refuted", "removes the U"),
    # the U kept but peak/valley falls in both seeds: refuted
    ([(U(24), U(10)), (U(30), U(8))], 0.9, "refuted", "falls"),
    # seeds disagree
    ([(U(12), U(24)), (U(10), flat())], 0.9, "inconclusive", "disagree"),
    # no U at Step 0
    ([(flat(), U(24)), (U(10), U(30))], 0.9, "inconclusive", "Step 0"),
    # the task not learned: the gate
    ([(U(12), U(24)), (U(10), U(30))], 0.3, "inconclusive", "gate not passed"),
])
def test_u_persists_rule_reaches_each_verdict(seeds, learned, u_verdict, words):
    v, text = u_persists_trained_verdict(lm_summaries(doc(*seeds, learned=learned)))
    assert v == u_verdict and words in text


def test_a_proxy_in_its_own_scope_saying_what_it_tests():
    r = run_claim(get_claim("chowdhury2026:u-persists-trained-proxy"))
    assert r.scope == "proxy" and r.evidence.verdict == r.expected
    assert "weighs every earlier token equally" in r.evidence.summary()
    # the paper's picture fed to the proxy's rule: the U kept, R grown
    s = lm_summaries(doc((U(12), U(24)), (U(10), U(30))))
    assert u_persists_trained_verdict(s)[0] == "qualified"
    # the false version (training removes the U): refuted
    s = lm_summaries(doc((U(12), flat()), (U(10), flat(1.2))))
    assert u_persists_trained_verdict(s)[0] == "refuted"


def test_a_step_n_u_only_through_the_final_token_is_refuted():
    """The rule reads its figures with and without the final token: a property that exists only
    through the final token's self-influence is absent.  Read with the final token alone (the
    rule's first reading), the same figures are qualified."""
    f = lm_examples(g=1.0, without_final={"uN": (12.0, 1.0)})
    assert RULE.decide(one_side(f, "with"), RULE.values()) == "qualified"
    assert RULE.decide(f, RULE.values()) == "refuted"


def test_the_stored_step0_u_is_the_final_token_alone():
    """The stored seeds: a U at Step 0 with the final token (last block 8.3 and 8.1 x the
    valley), none without it (1.0 x); read with the final token alone the proxy would be
    refuted, without it there is nothing to persist: inconclusive, and the evidence says
    so."""
    r = run_claim(get_claim("chowdhury2026:u-persists-trained-proxy"))
    assert r.evidence.verdict == "inconclusive"
    assert r.evidence.details["final_token"] == {
        "verdict_with_final": "refuted", "verdict_without_final": "inconclusive",
        "decided_by_final_token": True, "seeds_decided_by_final_token": [0, 1]}
    for s in r.evidence.figures["seeds"]:
        assert s["u0"]["last_over_valley"] > 8
        assert s["without_final"]["u0"]["last_over_valley"] < 1.01
    assert "every Step-0 U is the final token alone" in r.evidence.summary()
