"""The pretrained claims of chowdhury2026 (C10) and herasimchyk2026:empirical-match reach every
verdict their rules allow on constructed data folders; the folder reader rejects bad files."""

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


def u_profile(peak: float, valley: float = 1.0) -> np.ndarray:
    """A macroscopic U: raised ends (first and last eighth at 10 x valley), the two end tokens at
    ``peak``; peak/valley = peak / valley exactly."""
    p = np.full(L, valley)
    p[: L // 8] = p[-L // 8:] = 10 * valley
    p[0] = p[-1] = peak
    return p


def decreasing_profile(ratio: float) -> np.ndarray:
    """Monotone primacy tail, no valley: p(1)/min = ratio, minimum at L."""
    return np.geomspace(ratio, 1.0, L)


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


PV = "chowdhury2026:peak-valley-pretrained"


def test_peak_valley_claim_reaches_every_verdict(tmp_path):
    assert verdict(PV, None).verdict == "needs-data"
    folder = tmp_path / "d"
    folder.mkdir()
    write(folder, "m", u_profile(1000))
    ev = verdict(PV, folder)  # no Step-0 pair: growth cannot be tested
    assert ev.verdict == "needs-data" and "growth" in ev.method
    write(folder, "m-step0", u_profile(100), stage="step-0")
    ev = verdict(PV, folder)
    assert ev.verdict == "verified" and ev.figures["pairs"][0]["R_pretrained"] == 1000
    write(folder, "m-step0", u_profile(2000), stage="step-0")       # R shrinks
    ev = verdict(PV, folder)
    assert ev.verdict == "refuted" and "2000" in ev.counterexample
    write(folder, "m-step0", u_profile(500), stage="step-0")        # grows by 2 only
    assert verdict(PV, folder).verdict == "qualified"
    write(folder, "m-step0", u_profile(100), stage="step-0")
    for ratio, expected in ((10 ** 2.49, "refuted"), (10 ** 2.51, "verified"),
                            (10 ** 3.49, "verified"), (10 ** 3.51, "refuted"), (50, "refuted")):
        write(folder, "m", u_profile(ratio))
        assert verdict(PV, folder).verdict == expected, ratio


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
