"""chowdhury2026:u-persists-text-proxy (C10, natural-text proxy): on constructed results
documents written to a data directory, every verdict its rule allows (the paper's picture, the
gate, a flattened profile, a kept U, no U at Step 0); the stored run read as expected."""

from posbias_tests_chowdhury2026_text import IDS, U, document, flat, verdict

from posbias.proofs_checks import registry
from posbias.proofs_checks.claims.chowdhury2026._pretrained import one_side
from posbias.proofs_checks.claims.chowdhury2026._text import TEXT_GATE, text_examples
from posbias.proofs_checks.claims.chowdhury2026.u_persists_text_proxy import RULE


def test_the_paper_picture_is_qualified(tmp_path):
    assert verdict(tmp_path, document(), "u-persists") == "qualified"


def test_below_the_gate_nothing_is_decided(tmp_path):
    assert verdict(tmp_path, document(margin=0.05), "u-persists") == "inconclusive"


def test_flattened_by_training_is_refuted(tmp_path):
    assert verdict(tmp_path, document(stepN=flat(), spikeN=1.0), "u-persists") == "refuted"


def test_a_kept_u_without_growth_or_peaks(tmp_path):
    assert verdict(tmp_path, document(step0=U(30), stepN=U(30), spikeN=1.0),
                   "u-persists") == "qualified"


def test_no_u_at_step0(tmp_path):
    assert verdict(tmp_path, document(step0=flat()), "u-persists") == "inconclusive"


def test_default_check_reads_the_stored_run_as_expected():
    c = registry.get_claim(IDS["u-persists"])
    r = registry.run_claim(c)
    assert r.evidence.verdict == c.expected, (c.id, r.evidence.verdict)
    assert r.evidence.figures["runs"][0]["margin"] > TEXT_GATE


def test_a_step_n_u_only_through_the_final_token_is_refuted():
    """The rule reads its figures with and without the final token: a property that exists only
    through the final token's self-influence is absent.  Read with the final token alone (the
    rule's first reading), the same figures are qualified."""
    f = text_examples(without_final={"uN": (12.0, 1.0)})
    assert RULE.decide(one_side(f, "with"), RULE.values()) == "qualified"
    assert RULE.decide(f, RULE.values()) == "refuted"
