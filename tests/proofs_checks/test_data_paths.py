"""`posbias check --strict` and the real paths of the claims that report needs-data, run on
data the package itself produces (no external files)."""

import json
import os

import pytest

from posbias.cli import main
from posbias.errors import NeedsExtra
from posbias.proofs_checks import measured, stored
from posbias.proofs_checks.registry import CheckContext, all_claims, get_claim, run_claim


def _no_models_no_store(monkeypatch):
    # the models extra is missing (scipy's array-API helpers read sys.modules["torch"], so it
    # is not hidden there, which would break them rather than posbias)
    def missing():
        raise NeedsExtra("models", "torch")

    monkeypatch.setattr(measured, "require_models_extra", missing)
    monkeypatch.setattr(stored, "load_record", lambda stem, folder=None: None)
    monkeypatch.setattr(measured, "_STEP0_CACHE", {})


def test_strict_fails_on_needs_data(monkeypatch, capsys):
    _no_models_no_store(monkeypatch)
    argv = ["check", "chowdhury2026:step0-fit", "--quiet", "--format", "json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["claims"][0]["status"] == "needs-data"
    assert main([*argv, "--strict"]) == 1


def test_strict_passes_with_the_stored_measurements(capsys):
    assert main(["check", "chowdhury2026:step0-fit", "--strict", "--quiet"]) == 0


def test_needs_data_claims_are_known():
    """The claims that can report needs-data; each has a real-path test on package data
    (the Step-0 claims in test_measured.py, empirical-match below)."""
    needing = {c.id for c in all_claims() if c.needs}
    assert {"chowdhury2026:step0-fit", "chowdhury2026:peak-valley", "chowdhury2026:rope-init",
            "chowdhury2026:cesaro-stochastic", "herasimchyk2026:empirical-match"} <= needing


def test_empirical_match_on_a_measurement_the_package_produces(tmp_path, monkeypatch, capsys):
    """herasimchyk2026's protocol (top-1 probability gradient) measured by `posbias measure` on
    a randomly initialized BLOOM-shaped model, written in the claim's CSV format, and decided
    against the shipped BLOOM-7b1 rollout config: the claim's real path, not needs-data."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("ruamel.yaml")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["measure", "--arch", "tiny-bloom", "--length", "32", "--metric", "top1-grad",
                 "--samples", "1", "--format", "json"]) == 0
    profile = json.loads(capsys.readouterr().out)["measurement"]["profile"]
    folder = tmp_path / "measured-influence"
    os.makedirs(folder)
    (folder / "bloom-7b1.csv").write_text(
        "position,influence\n" + "".join(f"{j},{v!r}\n" for j, v in enumerate(profile, 1)))
    ev = run_claim(get_claim("herasimchyk2026:empirical-match"),
                   CheckContext(data_dir=str(tmp_path))).evidence
    assert ev.verdict in ("verified", "refuted"), ev.as_dict()
    row = ev.details["models"][0]
    assert row["name"] == "bloom-7b1" and row["L"] == 32
