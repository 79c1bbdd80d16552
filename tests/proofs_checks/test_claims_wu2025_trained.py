"""The trained-model claims of wu2025: each verdict their rules allow, reached from constructed
results; the shipped results and their provenance; the default check's speed; and (slow) a
re-training compared with the shipped numbers."""

from __future__ import annotations

import fnmatch
import json
import os
import time

import pytest

from posbias.proofs_checks import registry
from posbias.proofs_checks.claims import wu2025 as tc

PAIRS = ("first-middle", "first-last", "middle-last")
IDS = ("wu2025:trained-causal-primacy", "wu2025:trained-decay-recency",
       "wu2025:trained-rope-tradeoff", "wu2025:trained-full-control")


def S(seed, ic, fm=0.0, fl=0.0, ml=0.0, se=0.004, it=15000):
    """A constructed per-seed summary."""
    return {"seed": seed, "iteration": it, "ic_accuracy": ic,
            "difference": dict(zip(PAIRS, (fm, fl, ml))), "se": dict.fromkeys(PAIRS, se)}


def test_threshold_is_three_standard_errors_with_a_floor():
    assert tc.threshold([S(0, 0.9, se=0.005)]) == pytest.approx(0.015)
    assert tc.threshold([S(0, 0.9, se=0.001)]) == tc.MIN_THRESHOLD
    assert tc.threshold([S(0, 0.9, se=0.001)], [S(0, 0.9, se=0.01)]) == pytest.approx(0.03)


@pytest.mark.parametrize("summaries, verdict, words", [
    ([S(0, 0.9, 0.08, 0.10), S(1, 0.85, 0.06, 0.09)], "verified", "every seed"),
    ([S(0, 0.9, 0.0, -0.05), S(1, 0.9, 0.005, 0.01)], "refuted", "no first-position"),
    ([S(0, 0.9, 0.08, 0.10), S(1, 0.9, 0.0, 0.0)], "inconclusive", "disagree"),
    ([S(0, 0.9, 0.08, 0.0), S(1, 0.9, 0.08, 0.1)], "inconclusive", "disagree"),
    # the spurious early preference (about +0.05 at 1,000 iterations) is stopped by the gate
    ([S(0, 0.36, 0.05, 0.05, it=1000), S(1, 0.38, 0.05, 0.06, it=1000)], "inconclusive",
     "gate not passed"),
    ([S(0, 0.9, 0.08, 0.10), S(1, 0.7, 0.08, 0.10)], "inconclusive", "0.7000 (seed 1)"),
])
def test_primacy_rule(summaries, verdict, words):
    v, text = tc.primacy_verdict(summaries)
    assert v == verdict and words in text


@pytest.mark.parametrize("summaries, verdict, words", [
    ([S(0, 0.9, 0, -0.1, -0.08), S(1, 0.9, 0, -0.12, -0.05)], "verified", "last-position"),
    ([S(0, 0.9, 0, 0.05, 0.0), S(1, 0.9, 0, 0.0, 0.02)], "refuted", "no last-position"),
    ([S(0, 0.9, 0, -0.1, -0.1), S(1, 0.9, 0, 0.0, 0.0)], "inconclusive", "disagree"),
    # recency in label copying before matching is learned: not evidence
    ([S(0, 0.52, 0, -0.1, -0.1), S(1, 0.51, 0, -0.1, -0.1)], "inconclusive", "gate not passed"),
])
def test_decay_rule(summaries, verdict, words):
    v, text = tc.decay_verdict(summaries)
    assert v == verdict and words in text


@pytest.mark.parametrize("rope, nope, verdict, words", [
    ([S(0, 0.9, fl=-0.05), S(1, 0.9, fl=0.0)], [S(0, 0.9, fl=0.1), S(1, 0.9, fl=0.08)],
     "verified", "toward the end"),
    ([S(0, 0.9, fl=0.1), S(1, 0.9, fl=0.09)], [S(0, 0.9, fl=0.1), S(1, 0.9, fl=0.08)],
     "refuted", "keeps the first-position"),
    ([S(0, 0.9, fl=-0.05), S(1, 0.9, fl=0.08)], [S(0, 0.9, fl=0.1), S(1, 0.9, fl=0.08)],
     "inconclusive", "disagree"),
    ([S(0, 0.9, fl=-0.05), S(1, 0.9, fl=0.0)], [S(0, 0.6, fl=0.1), S(1, 0.9, fl=0.08)],
     "inconclusive", "no PE, seed 0"),
    ([S(0, 0.9, fl=-0.05)], [S(1, 0.9, fl=0.1)], "inconclusive", "same seeds"),
])
def test_rope_rule(rope, nope, verdict, words):
    v, text = tc.rope_verdict(rope, nope)
    assert v == verdict and words in text


@pytest.mark.parametrize("summaries, verdict", [
    ([S(0, 0.5, 0.005, -0.01, 0.0), S(1, 0.5, 0.0, 0.0, 0.011)], "verified"),
    ([S(0, 0.5, 0.005, -0.01, 0.0), S(1, 0.5, 0.0, 0.0, 0.03)], "refuted"),
])
def test_full_control_rule(summaries, verdict):
    assert tc.full_verdict(summaries)[0] == verdict


def _doc(seed_histories):
    return {"runs": [{"seed": s, "history": h} for s, h in seed_histories]}


def test_summarize_final_and_at_an_iteration():
    e = lambda it, ic: {"iteration": it, "ic_accuracy": ic,  # noqa: E731
                        "difference": dict.fromkeys(PAIRS, 0.0),
                        "difference_se": dict.fromkeys(PAIRS, 0.01)}
    doc = _doc([(0, [e(0, 0.1), e(1000, 0.5)]), (1, [e(0, 0.2), e(1000, 0.6)])])
    assert [s["ic_accuracy"] for s in tc.summarize(doc)] == [0.5, 0.6]
    assert [s["ic_accuracy"] for s in tc.summarize(doc, 0)] == [0.1, 0.2]
    with pytest.raises(ValueError):
        tc.summarize(doc, 500)


# --- the shipped results --------------------------------------------------------------------

def _shipped(key):
    return tc.stored_results(key)


@pytest.mark.parametrize("key", sorted(tc.STORED))
def test_shipped_results_have_provenance(key):
    doc = _shipped(key)
    prov = doc["provenance"]
    assert doc["format"] == "posbias-trained/1" and doc["task"] == "wu2025-icl"
    assert prov["command"].startswith("posbias train --task wu2025-icl")
    assert prov["seeds"] == [r["seed"] for r in doc["runs"]] and len(prov["seeds"]) >= 2
    assert {"torch", "python", "posbias"} <= set(prov["versions"])
    for run in doc["runs"]:
        assert run["iterations"] == run["history"][-1]["iteration"] > 0
        assert run["wall_seconds"] > 0
    assert doc["name"] == tc.STORED[key]


def test_shipped_results_are_package_data():
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        pytest.skip("tomllib needs Python 3.11")
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
        patterns = tomllib.load(fh)["tool"]["setuptools"]["package-data"]["posbias.proofs_checks.data"]
    for name in tc.STORED.values():
        assert any(fnmatch.fnmatch(f"trained/{name}.json", p) for p in patterns)


def test_default_check_reads_the_shipped_results_fast_and_as_expected():
    start = time.perf_counter()
    results = [registry.run_claim(registry.get_claim(i)) for i in IDS]
    assert time.perf_counter() - start < 2.0
    for r in results:
        assert r.evidence.verdict == r.expected, (r.claim.id, r.evidence.discrepancy)
        assert r.evidence.details["provenance"][0]["command"].startswith("posbias train")
        assert "gate" in r.evidence.tolerance and r.evidence.details["rule"]


def test_missing_results_are_needs_data(tmp_path, monkeypatch):
    monkeypatch.setattr(tc, "STORED", {k: "absent" for k in tc.STORED})
    r = registry.run_claim(registry.get_claim(IDS[0]))
    assert r.evidence.verdict == "needs-data" and r.ok


def test_user_data_dir_overrides_the_shipped_results(tmp_path):
    (tmp_path / "trained").mkdir()
    doc = _shipped("full-nope")
    for run in doc["runs"]:
        run["history"][-1]["difference"]["first-last"] = 0.5  # beyond any noise: refuted
    (tmp_path / "trained" / f"{tc.STORED['full-nope']}.json").write_text(json.dumps(doc))
    ctx = registry.CheckContext(data_dir=str(tmp_path))
    r = registry.run_claim(registry.get_claim("wu2025:trained-full-control"), ctx)
    assert r.evidence.verdict == "refuted"


@pytest.mark.slow
def test_retraining_reproduces_the_shipped_numbers():
    """Re-train the first 2,000 iterations of the stored causal/no-PE run, seed 0, and compare
    with the stored evaluations (equal on the machine that made them; within the noise
    threshold elsewhere, where float rounding in other kernels may differ)."""
    torch = pytest.importorskip("torch")
    from posbias.measurements import training as tr

    torch.set_num_threads(1)
    doc = _shipped("causal-nope")
    config = tr.TrainConfig.from_dict({**doc["config"], "iterations": 2000})
    run = tr.train_run(config, doc["runs"][0]["seed"], progress=False)
    stored = {e["iteration"]: e for e in doc["runs"][0]["history"]}
    for e in run["history"]:
        s = stored[e["iteration"]]
        assert abs(e["ic_accuracy"] - s["ic_accuracy"]) <= 0.02
        for p in PAIRS:
            assert abs(e["difference"][p] - s["difference"][p]) <= max(3 * s["difference_se"][p],
                                                                       0.01)
