"""The pretrained claims of chowdhury2026 (C10) reach every verdict their rules allow on
constructed data folders; the folder reader rejects bad files."""

import json

import numpy as np
import pytest

from posbias.errors import InvalidArgument
from posbias.proofs_checks import registry
from posbias.proofs_checks.pretrained import (
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


U = "chowdhury2026:u-persists-pretrained"
PV = "chowdhury2026:peak-valley-pretrained"


def test_u_claim_reaches_every_verdict(tmp_path):
    assert verdict(U, None).verdict == "needs-data"
    only_step0 = tmp_path / "s"
    only_step0.mkdir()
    write(only_step0, "m-step0", u_profile(100), stage="step-0")
    write(only_step0, "unrecorded", u_profile(100), stage=None)
    ev = verdict(U, only_step0)
    assert ev.verdict == "needs-data" and ev.details["skipped"]

    good = tmp_path / "v"
    good.mkdir()
    write(good, "m", u_profile(1000))
    ev = verdict(U, good)  # no Step-0 pair: persistence cannot be tested
    assert ev.verdict == "needs-data" and ev.details["unpaired"] == ["m"]
    write(good, "m-step0", u_profile(100), stage="step-0")
    ev = verdict(U, good)
    assert ev.verdict == "verified" and len(ev.figures["pairs"]) == 1

    qual = tmp_path / "q"
    qual.mkdir()
    write(qual, "m", u_profile(1000))
    write(qual, "m-step0", decreasing_profile(100), stage="step-0")
    ev = verdict(U, qual)
    assert ev.verdict == "qualified" and "m-step0" in ev.correction
    write(qual, "m-step0", decreasing_profile(100), stage="step-0",
          arch=dict(ARCH, num_layers=3))                    # another architecture: not paired
    assert verdict(U, qual).verdict == "needs-data"

    bad = tmp_path / "r"
    bad.mkdir()
    write(bad, "b", decreasing_profile(1000))
    write(bad, "b-step0", u_profile(100), stage="step-0")
    ev = verdict(U, bad)
    assert ev.verdict == "refuted" and "b:" in ev.counterexample
    # the factor 2 of the rule: ends at 1.9 x the valley are not a U
    weak = tmp_path / "w"
    weak.mkdir()
    write(weak, "m-step0", u_profile(100), stage="step-0")
    p = np.full(L, 1.0)
    p[: L // 8] = p[-L // 8:] = 1.9
    write(weak, "m", p)
    assert verdict(U, weak).verdict == "refuted"
    p[: L // 8] = p[-L // 8:] = 2.1
    write(weak, "m", p)
    assert verdict(U, weak).verdict == "verified"


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
