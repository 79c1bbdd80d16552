"""chowdhury2026:boundary-peaks-text-proxy (C10, natural-text proxy): the boundary statistic by
hand and under its null; on constructed results documents written to a data directory, every
verdict its rule allows (the paper's picture, the gate, boundaries like any other position,
peaks already at Step 0, too few windows) with the deciding figures printed; the stored run read
as expected."""

import json

import numpy as np
import pytest
from posbias_tests_chowdhury2026_text import IDS, L, U, document, flat, spiked, verdict

from posbias.proofs_checks import registry
from posbias.proofs_checks.claims.chowdhury2026._text import (
    BOUNDARY_PEAK,
    TEXT_GATE,
    TEXT_STORED,
    boundary_percentile,
)


def test_the_paper_picture_is_qualified(tmp_path):
    assert verdict(tmp_path, document(), "boundary-peaks") == "qualified"


def test_below_the_gate_nothing_is_decided(tmp_path):
    assert verdict(tmp_path, document(margin=0.05), "boundary-peaks") == "inconclusive"


def test_flattened_by_training_is_refuted(tmp_path):
    assert verdict(tmp_path, document(stepN=flat(), spikeN=1.0), "boundary-peaks") == "refuted"


def test_no_peaks_added_is_refuted(tmp_path):
    assert verdict(tmp_path, document(step0=U(30), stepN=U(30), spikeN=1.0),
                   "boundary-peaks") == "refuted"


def test_peaks_already_at_step0(tmp_path):
    assert verdict(tmp_path, document(spike0=6.0), "boundary-peaks") == "inconclusive"


def test_too_few_windows(tmp_path):
    assert verdict(tmp_path, document(windows=3), "boundary-peaks") == "inconclusive"


def test_default_check_reads_the_stored_run_as_expected():
    c = registry.get_claim(IDS["boundary-peaks"])
    r = registry.run_claim(c)
    assert r.evidence.verdict == c.expected, (c.id, r.evidence.verdict)
    assert r.evidence.figures["runs"][0]["margin"] > TEXT_GATE


def test_boundary_percentile_by_hand_and_under_its_null():
    base = U(10)
    assert boundary_percentile(spiked(base, [100], 3.0), 100, [100]) == 1.0
    # the first token after the separator counts as the boundary too
    assert boundary_percentile(spiked(base, [101], 3.0), 100, [100]) == 1.0
    # a dip is low
    assert boundary_percentile(spiked(base, [100], 0.3), 100, [100]) < 0.1
    # the null: noisy profiles with no boundary effect give percentiles about uniform
    rng = np.random.default_rng(1)
    pct = [boundary_percentile(base * np.exp(0.1 * rng.standard_normal(L)), 128, [128])
           for _ in range(400)]
    assert 0.45 < np.mean(pct) < 0.55
    assert np.mean(np.array(pct) > BOUNDARY_PEAK) < 0.09
    with pytest.raises(ValueError, match="too close"):
        boundary_percentile(base, 5, [5])


def test_evidence_prints_the_deciding_figures(tmp_path):
    folder = tmp_path / "trained-lm-text"
    folder.mkdir()
    (folder / f"{TEXT_STORED[0]}.json").write_text(json.dumps(document()))
    r = registry.run_claim(registry.get_claim(IDS["boundary-peaks"]),
                           registry.CheckContext(data_dir=str(tmp_path)))
    assert r.evidence.figures["runs"][0]["BN"]["peak_share"] == 1.0
    assert "boundary peaks in 1.00 of 8 windows" in r.evidence.correction
    assert "Proxy, not the paper's setting" in r.evidence.correction
