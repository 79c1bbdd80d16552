"""chowdhury2026:dead-zone-trained-proxy (C11 proxy): every verdict its rule allows, reached
from constructed profiles; the default run is a proxy in its own scope, says what it tests, and
gives the verdict expected; the paper's picture qualifies and the false version is refuted."""

import pytest
from posbias_tests_chowdhury2026_lm import U, doc, flat

from posbias.proofs_checks.claims.chowdhury2026._lm import lm_examples, lm_summaries
from posbias.proofs_checks.claims.chowdhury2026._pretrained import one_side
from posbias.proofs_checks.claims.chowdhury2026.dead_zone_trained_proxy import (
    RULE,
    dead_zone_trained_verdict,
)
from posbias.proofs_checks.registry import get_claim, run_claim


@pytest.mark.parametrize("seeds, learned, d_verdict, words", [
    ([(U(12), U(24)), (U(10), U(30))], 0.9, "qualified", "stays"),
    ([(U(12), flat()), (U(10), flat(1.2))], 0.9, "refuted", "lifts the valley"),
    ([(U(12), U(24)), (U(10), flat())], 0.9, "inconclusive", "disagree"),
    ([(flat(), U(24)), (U(10), U(30))], 0.9, "inconclusive", "no dead zone at Step 0"),
    ([(U(12), flat()), (U(10), flat())], 0.2, "inconclusive", "gate not passed"),
])
def test_dead_zone_rule_reaches_each_verdict(seeds, learned, d_verdict, words):
    v, text = dead_zone_trained_verdict(lm_summaries(doc(*seeds, learned=learned)))
    assert v == d_verdict and words in text


def test_a_proxy_in_its_own_scope_saying_what_it_tests():
    r = run_claim(get_claim("chowdhury2026:dead-zone-trained-proxy"))
    assert r.scope == "proxy" and r.evidence.verdict == r.expected
    assert "weighs every earlier token equally" in r.evidence.summary()
    # the paper's picture fed to the proxy's rule: the valley deeper
    s = lm_summaries(doc((U(12), U(24)), (U(10), U(30))))
    assert dead_zone_trained_verdict(s)[0] == "qualified"
    # the false version (training lifts the valley): refuted
    s = lm_summaries(doc((U(12), flat()), (U(10), flat(1.2))))
    assert dead_zone_trained_verdict(s)[0] == "refuted"


def test_a_step_n_dead_zone_only_through_the_final_token_is_refuted():
    """The rule reads its figures with and without the final token: a property that exists only
    through the final token's self-influence is absent.  Read with the final token alone (the
    rule's first reading), the same figures are qualified."""
    f = lm_examples(without_final={"DN": 0.8})
    assert RULE.decide(one_side(f, "with"), RULE.values()) == "qualified"
    assert RULE.decide(f, RULE.values()) == "refuted"
