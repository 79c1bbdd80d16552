"""wu2024:masked-rank-collapse: the graph bound holds exactly on generated masked kernels and the
uniform kernels collapse at the rate 1/2; the causal rate claimed for windows is refuted."""

from posbias.proofs_checks.claims.wu2024 import masked_rank_collapse as mod
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def test_verified():
    r = run_claim(get_claim("wu2024:masked-rank-collapse"), CheckContext())
    f = r.evidence.figures
    assert r.evidence.verdict == "verified" and f["bound_failures"] == 0
    assert f["uniform_rate_max"] == 0.5 and f["uniform_tau_at_60"] < 1e-6


def test_radius_one_for_every_mask_refuted():
    ev = mod.check(CheckContext(), radius=lambda mask: 1)
    assert ev.verdict == "refuted" and ev.figures["bound_failures"] > 0
