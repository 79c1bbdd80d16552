"""The trained-model machinery of wu2025's section-5 claims (wu2025/_trained.py): summaries of
a run, the shipped results and their provenance, the two settings (with and without residual
connections) kept apart, and (slow) a re-training compared with the shipped numbers."""

from __future__ import annotations

import fnmatch
import os

import pytest

from posbias.proofs_checks.claims.wu2025 import _trained as trained

PAIRS = ("first-middle", "first-last", "middle-last")


def test_summarize_final_and_at_an_iteration():
    e = lambda it, ic: {"iteration": it, "ic_accuracy": ic,  # noqa: E731
                        "difference": dict.fromkeys(PAIRS, 0.0),
                        "difference_se": dict.fromkeys(PAIRS, 0.01)}
    doc = _doc([(0, [e(0, 0.1), e(1000, 0.5)]), (1, [e(0, 0.2), e(1000, 0.6)])])
    assert [s["ic_accuracy"] for s in trained.summarize(doc)] == [0.5, 0.6]
    assert [s["ic_accuracy"] for s in trained.summarize(doc, 0)] == [0.1, 0.2]
    with pytest.raises(ValueError):
        trained.summarize(doc, 500)


def test_common_iterations_is_the_reading_point():
    """The reading point is the last evaluation every run of every document reached."""
    e = lambda it: {"iteration": it}  # noqa: E731
    a = _doc([(0, [e(0), e(1000), e(2000)]), (1, [e(0), e(1000)])])
    b = _doc([(0, [e(0), e(1000), e(2000)])])
    assert trained.common_iterations(a, b) == [0, 1000]
    assert trained.common_iterations(b) == [0, 1000, 2000]
    assert trained.common_iterations() == []


def test_direction_rule_reads_against_pairs_only_among_its_support():
    with pytest.raises(ValueError):
        trained.direction_decide("first-middle", -1, support=("first-last",),
                                 against=("middle-last",))


def test_a_contradicting_pair_refutes_with_the_gate_passed():
    """Recency rule: first-middle beyond noise below 0 in every seed, but middle-last beyond
    noise above 0 in every seed: the other reading in every seed, refuted (gate passed or
    not); within noise: verified (gate passed) or qualified (not)."""
    decide = trained.direction_decide("first-middle", -1, support=("first-last", "middle-last"),
                                      against=("middle-last",))
    t = {"noise_multiple": 3, "floor": 0.01, "gate": 0.75}
    figs = lambda ic, ml: {"first-middle": [-0.05, -0.06], "first-last": [-0.05, -0.06],  # noqa: E731
                           "middle-last": [ml, ml], "ic_accuracy": [ic, ic]}
    assert decide(figs(0.8, 0.05), t) == "refuted"
    assert decide(figs(0.52, 0.05), t) == "refuted"
    assert decide(figs(0.8, 0.0), t) == "verified"
    assert decide(figs(0.52, 0.0), t) == "qualified"
    # first-last is support without being "against": beyond noise on the other side it only
    # withholds the stated preference
    f = {**figs(0.8, 0.0), "first-last": [0.05, 0.05]}
    assert decide(f, t) == "inconclusive"


def test_a_shift_needs_both_arms_above_the_gate():
    decide = trained.shift_decide("first-last", -1)
    t = {"noise_multiple": 3, "floor": 0.01, "gate": 0.75}
    for ic_a, ic_b, verdict in ((0.85, 0.85, "verified"), (0.52, 0.85, "inconclusive"),
                                (0.85, 0.52, "inconclusive"), (0.52, 0.52, "inconclusive")):
        f = trained.example_shift("first-last", [0.0, 0.0], [0.08, 0.08], ic_rope=[ic_a] * 2,
                                  ic_nope=[ic_b] * 2)
        assert decide(f, t) == verdict, (ic_a, ic_b)
    # the opposite shift is not refuted below the gate either: nothing is shown there
    f = trained.example_shift("first-last", [0.16, 0.16], [0.08, 0.08], ic_rope=[0.52] * 2,
                              ic_nope=[0.52] * 2)
    assert decide(f, t) == "inconclusive"


def test_reading_report_names_where_the_decided_verdict_holds():
    h = [{"iteration": it, "verdict": v} for it, v in
         ((0, "inconclusive"), (2000, "qualified"), (4000, "qualified"), (6000, "inconclusive"),
          (8000, "qualified"))]
    assert trained.verdict_spans(h) == [
        {"verdict": "inconclusive", "from": 0, "to": 0, "evaluations": 1},
        {"verdict": "qualified", "from": 2000, "to": 4000, "evaluations": 2},
        {"verdict": "inconclusive", "from": 6000, "to": 6000, "evaluations": 1},
        {"verdict": "qualified", "from": 8000, "to": 8000, "evaluations": 1}]
    text = trained.reading_report(h)
    assert text.startswith("verdict at the reading point, iteration 8,000: qualified; it holds "
                           "at iterations 2,000-4,000, 8,000 (3 of 5 evaluations)")
    assert text.endswith("the verdict depends on when the run is read: inconclusive at 0, 6,000")
    same = trained.reading_report(h[1:3])
    assert "(2 of 2 evaluations)" in same and "depends" not in same


def test_accuracy_level_says_no_more_than_the_figures():
    assert trained.accuracy_level(0.80).startswith("at or above the gate")
    assert "at the level of copying" in trained.accuracy_level(0.508)  # within 3 SE of 0.516
    assert "below random label copying" in trained.accuracy_level(0.40)
    assert "above random label copying" in trained.accuracy_level(0.60)
    # a smaller test set widens the band of label copying
    assert "at the level of copying" in trained.accuracy_level(0.49, test_size=1000)


def _doc(seed_histories):
    return {"runs": [{"seed": s, "history": h} for s, h in seed_histories]}


# --- the shipped results --------------------------------------------------------------------

@pytest.mark.parametrize("key", sorted(trained.STORED))
def test_shipped_results_have_provenance(key):
    doc = trained.stored_results(key)
    prov = doc["provenance"]
    assert doc["format"] == "posbias-trained/1" and doc["task"] == "wu2025-icl"
    assert prov["command"].startswith("posbias train --task wu2025-icl")
    assert prov["seeds"] == [r["seed"] for r in doc["runs"]] and len(prov["seeds"]) >= 2
    assert {"torch", "python", "posbias"} <= set(prov["versions"])
    for run in doc["runs"]:
        assert run["iterations"] == run["history"][-1]["iteration"] > 0
        assert run["wall_seconds"] > 0
    assert doc["name"] == trained.STORED[key]


def test_shipped_results_are_package_data():
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        pytest.skip("tomllib needs Python 3.11")
    root = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
    with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
        patterns = tomllib.load(fh)["tool"]["setuptools"]["package-data"]["posbias.proofs_checks.data"]
    for name in trained.STORED.values():
        assert any(fnmatch.fnmatch(f"trained/{name}.json", p) for p in patterns)


def test_the_stored_runs_keep_the_two_settings_apart():
    """The Figure-5 files have residual connections; the Figure-2 files found by
    ``find_attention_only`` have none and are of their own mask and PE."""
    for key in trained.STORED:
        assert trained.stored_results(key)["config"]["residual"] is True
    for key in ("causal-nope", "causal-rope", "decay-nope"):
        cfg = trained.find_attention_only(key)["config"]
        assert cfg["residual"] is False and (cfg["mask"], cfg["pe"]) == trained.ATTENTION_ONLY[key]
        assert cfg["iterations"] == 100_000 and cfg["lr"] == 0.001


@pytest.mark.slow
def test_retraining_reproduces_the_shipped_numbers():
    """Re-train the first 2,000 iterations of the stored causal/no-PE run, seed 0, and compare
    with the stored evaluations (equal on the machine that made them; within the noise
    threshold elsewhere, where float rounding in other kernels may differ)."""
    torch = pytest.importorskip("torch")
    from posbias.measurements import training as tr

    torch.set_num_threads(1)
    doc = trained.stored_results("causal-nope")
    config = tr.TrainConfig.from_dict({**doc["config"], "iterations": 2000})
    run = tr.train_run(config, doc["runs"][0]["seed"], progress=False)
    stored = {e["iteration"]: e for e in doc["runs"][0]["history"]}
    for e in run["history"]:
        s = stored[e["iteration"]]
        assert abs(e["ic_accuracy"] - s["ic_accuracy"]) <= 0.02
        for p in PAIRS:
            assert abs(e["difference"][p] - s["difference"][p]) <= max(3 * s["difference_se"][p],
                                                                       0.01)


# --- the cards ------------------------------------------------------------------------------

def test_every_trained_card_lists_the_reimplementation_and_what_is_confirmed():
    """wu2025's stated settings (lr 1e-3, weight decay 1e-6, batch 128, 100,000 iterations, its
    task and test sets) are confirmed on every trained card; which network a figure shows is
    not (a third-party reading and the public code); posbias' re-implementation is listed
    among the differences of every trained card, the control's included, without changing
    the scope."""
    from posbias.proofs_checks.registry import all_claims

    claims = [c for c in all_claims() if ":trained-" in c.id and c.paper in ("wu2025", "posbias")]
    assert len(claims) == 7
    for c in claims:
        card = c.card.resolve()
        assert f"implementation: {trained.REIMPLEMENTATION[0]}" in card["differences"], c.id
        if c.paper != "wu2025":
            continue
        paper = c.card.paper
        v = paper.values
        assert (v["lr"], v["batch"], v["iterations"], v["test_size"]) == (1e-3, 128, 100_000,
                                                                          10_000)
        assert v["training"] == "AdamW, weight decay 1e-6"
        confirmed = set(v) - set(paper.unconfirmed)
        assert {"architecture", "data", "training", "iterations", "lr", "batch",
                "test_size"} <= confirmed, c.id
        assert set(paper.unconfirmed) == {"readout", "layers", "residual", "mask", "pe",
                                          "train_bias"}, c.id
        assert "acmrep2026.k117.org" in paper.source and "third-party reading" in paper.source
        assert card["scope"] == ("variant" if c.id.endswith("decay-residual") else "paper")
