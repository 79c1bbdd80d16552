"""herasimchyk2026:empirical-match reaches every verdict its rule allows on constructed data
folders; the folder reader of measured influence rejects bad files.  (The tests of
chowdhury2026's pretrained claims are in tests/proofs_checks/claims/chowdhury2026/.)"""

import json

import numpy as np
import pytest

from posbias.errors import InvalidArgument
from posbias.proofs_checks import registry
from posbias.proofs_checks.pretrained import (
    compare_with_rollout,
    empirical_match_rows,
    read_influence_csv,
    read_measured_folder,
)
from posbias.proofs_checks.registry import CheckContext

L = 64
ARCH = {"model_type": "bloom", "num_layers": 2, "num_heads": 4, "hidden_size": 32}


def write(folder, name, profile, stage="pretrained", arch=ARCH, config=None):
    d = folder / "measured-influence"
    d.mkdir(exist_ok=True)
    rows = ["position,influence"] + [f"{j},{float(v)!r}" for j, v in enumerate(profile, 1)]
    (d / f"{name}.csv").write_text("\n".join(rows) + "\n")
    if stage is not None:
        (d / f"{name}.measurement.json").write_text(json.dumps({"stage": stage, "architecture": arch}))
    if config is not None:
        (d / f"{name}.yaml").write_text(config)


def verdict(claim_id, folder):
    c = registry.get_claim(claim_id)
    result = registry.run_claim(c, CheckContext(data_dir=str(folder) if folder else None))
    return result.evidence


def _config(T=2, H=2, lam=0.5, slope=0.5):
    return (f"sequence_length: {L}\nnum_layers: {T}\n"
            f"attention_config: {{num_heads: {H}, alibi_slopes: [[{slope}, {slope / 4}]]}}\n"
            f"content_config: {{diagonal_scores: [[0.0]], base_scores: [[0.0]]}}\n"
            f"lambda_schedule_config: {{schedule_type: constant, lambda_const: {lam}}}\n")


def test_empirical_match_reaches_every_verdict(tmp_path):
    pytest.importorskip("ruamel.yaml")
    claim_id = "herasimchyk2026:empirical-match"
    assert verdict(claim_id, None).verdict == "needs-data"
    assert verdict(claim_id, tmp_path).verdict == "needs-data"     # no measured-influence/
    cfg = _config()
    theory = compare_with_rollout(np.ones(L) / L, cfg).rollout
    good = tmp_path / "g"
    good.mkdir()
    write(good, "m", theory * (1 + 0.01 * np.cos(np.arange(L))), config=cfg)
    ev = verdict(claim_id, good)
    assert ev.verdict == "verified", ev.details
    rows = empirical_match_rows(str(good))
    assert rows[0]["spearman"] > 0.88 and rows[0]["w1"] < rows[0]["w1_attention_only"]
    bad = tmp_path / "b"
    bad.mkdir()
    write(bad, "m", theory[::-1], config=cfg)                      # recency and primacy swapped
    ev = verdict(claim_id, bad)
    assert ev.verdict == "refuted" and ev.counterexample == "m"
    assert empirical_match_rows(str(bad))[0]["spearman"] < 0


def test_reader_rejects_bad_files(tmp_path):
    d = tmp_path / "measured-influence"
    d.mkdir()
    cases = {
        "position,value\n1,0.5\n": "header",
        "position,influence\n1,0.5\n3,0.5\n": "consecutive",
        "position,influence\n1,0.5\n2,-1\n": "finite influences >= 0",
        "position,influence\n1,0.5\n2,abc\n": "a number",
        "position,influence\n1,0.5\n2,nan\n": "finite influences",
    }
    for text, fragment in cases.items():
        (d / "x.csv").write_text(text)
        with pytest.raises(InvalidArgument, match=fragment):
            read_influence_csv(str(d / "x.csv"))
    (d / "x.csv").write_text("position,influence\n0,1\n1,3\n")
    assert read_influence_csv(str(d / "x.csv")).tolist() == [0.25, 0.75]
    (d / "x.measurement.json").write_text(json.dumps({"stage": "trained"}))
    with pytest.raises(InvalidArgument, match="stage 'pretrained' or 'step-0'"):
        read_measured_folder(str(tmp_path))
