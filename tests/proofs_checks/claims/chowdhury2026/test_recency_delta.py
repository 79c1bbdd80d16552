"""chowdhury2026:recency-delta (C5): the verdict as computed; refuted when the rollout moves off
the closed form and for the atom with one power too many or too few; the card."""

from fractions import Fraction

from posbias.proofs_checks.claims.chowdhury2026 import recency_delta
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verdict_equals_expected(expect_verdict):
    expect_verdict("chowdhury2026:recency-delta")


def test_can_be_refuted(monkeypatch):
    import posbias.numerics.cesaro as ces

    orig = ces.cesaro_profile_exact
    monkeypatch.setattr(ces, "cesaro_profile_exact",
                        lambda L, s: [*orig(L, s)[:-1], orig(L, s)[-1] + Fraction(1, 10 ** 9)])
    assert run_claim(get_claim("chowdhury2026:recency-delta"), CheckContext()).evidence.verdict == "refuted"


def test_refuted_for_the_atom_with_one_power_too_many():
    ev = recency_delta.check(CheckContext(), atom=lambda a, h: (1 - a) ** (h + 1))
    assert ev.verdict == "refuted" and ev.figures["bernoulli_max"] > 1
    assert "does not approach the stated atom" in ev.counterexample


def test_refuted_for_the_atom_with_one_power_too_few():
    ev = recency_delta.check(CheckContext(), atom=lambda a, h: (1 - a) ** (h - 1))
    assert ev.verdict == "refuted" and ev.figures["below_atom"] > 0


def test_card_states_the_setting_scope_and_proof(card_states):
    card_states("recency-delta", "reduced", "range")
