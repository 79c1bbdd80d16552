"""The helpers shared by herasimchyk2026's config claims: stored and live figures agree to 1e-9
relative, round-off figures at their own level."""

from __future__ import annotations

from posbias.proofs_checks.claims.herasimchyk2026 import _shared


def test_stored_and_live_rows_agree_to_1e9_except_round_off_figures():
    """Live figures must match the stored run to 1e-9 relative; the layers' monotonicity defect
    is float64 round-off (zero exactly), so two values at that level agree whatever their
    ratio (it depends on the machine's summation order), and a real defect does not."""
    key = "monotonicity defect (L = 64)"
    assert _shared.figures_close({"a": 0.25, key: 6.7e-16}, {"a": 0.25, key: 7.8e-16})
    assert not _shared.figures_close({"a": 0.25, key: 6.7e-16}, {"a": 0.25 * (1 + 1e-8), key: 6.7e-16})
    assert not _shared.figures_close({"a": 0.25, key: 1e-9}, {"a": 0.25, key: 7.8e-16})
    assert not _shared.figures_close({"a": 6.7e-16}, {"a": 7.8e-16})   # other keys stay relative
