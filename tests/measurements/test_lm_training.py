"""The synthetic next-token training of a small transformers causal LM: the generator and the
Bayes reference, a tiny run that logs and records influence with posbias measure's estimator,
determinism, resume, and bad configurations."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from posbias.errors import InvalidArgument
from posbias.measurements import lm_training as lt
from posbias.measurements import measure

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

TINY = lt.LMTrainConfig(layers=2, hidden=16, heads=2, length=16, tokens=8, iterations=6,
                        eval_every=3, test_size=40, batch=8, influence_samples=2)


@pytest.fixture(autouse=True)
def _one_thread():
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def _strip(run):
    return [{k: v for k, v in e.items() if k != "seconds"} for e in run["history"]]


def test_batch_shapes_and_next_tokens():
    x, y = lt.unigram_batch(TINY, 50, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (50, 16)
    assert (x[:, 0] == 0).all() and (x[:, 1:] == y[:, :-1]).all()
    assert y.min() >= 1 and y.max() <= TINY.tokens


def test_each_sequence_has_its_own_distribution():
    """Dirichlet(1/2) over V tokens: E[sum_v pi_v^2] = (alpha + 1) / (V alpha + 1); the
    probability that two tokens of one sequence agree estimates it (0.3 for V = 8), far from
    the 1/V = 0.125 of one shared uniform distribution."""
    cfg = lt.LMTrainConfig(length=64, tokens=8)
    _, y = lt.unigram_batch(cfg, 4000, torch.Generator().manual_seed(1))
    same = (y[:, ::2] == y[:, 1::2]).double().mean().item()
    expected = (0.5 + 1) / (8 * 0.5 + 1)
    assert same == pytest.approx(expected, abs=0.01)


def test_bayes_losses_by_hand():
    cfg = lt.LMTrainConfig(length=4, tokens=2)
    inputs = torch.tensor([[0, 1, 1, 2]])
    targets = torch.tensor([[1, 1, 2, 1]])
    got = lt.bayes_losses(cfg, inputs, targets)[0].tolist()
    # after t data tokens with counts c: P(v) = (c_v + 1/2) / (t + 1)
    want = [-math.log(0.5 / 1), -math.log(1.5 / 2), -math.log(0.5 / 3), -math.log(2.5 / 4)]
    assert got == pytest.approx(want, rel=1e-12)


def test_tiny_run_logs_and_records_the_measure_estimator():
    seen = []
    run = lt.lm_train_run(TINY, 0, progress=False, log=seen.append)
    assert [e["iteration"] for e in run["history"]] == [0, 3, 6] and seen == run["history"]
    for e in run["history"]:
        assert len(e["influence"]) == 16 and sum(e["influence"]) == pytest.approx(1, abs=1e-5)
        assert e["final_bayes_loss"] < math.log(TINY.tokens)
        u, b = math.log(TINY.tokens), e["final_bayes_loss"]
        assert e["final_learned"] == pytest.approx((u - e["final_loss"]) / (u - b), abs=1e-4)
    # the Step-0 profile is posbias measure's exact route on the same model and sequences
    model, _ = lt._build(TINY, 0)
    inputs, _ = lt.unigram_batch(TINY, TINY.test_size, torch.Generator().manual_seed(2))
    prof = [measure.influence_profile(model, ids, exact=True) for ids in inputs[:2]]
    prof = np.mean([p / p.sum() for p in prof], axis=0)
    assert run["history"][0]["influence"] == pytest.approx((prof / prof.sum()).tolist(),
                                                           rel=1e-4, abs=1e-7)


def test_training_lowers_the_loss():
    cfg = lt.LMTrainConfig(layers=1, hidden=16, heads=2, length=16, tokens=8, iterations=60,
                           eval_every=60, test_size=200, batch=16, lr=1e-2)
    run = lt.lm_train_run(cfg, 0, progress=False)
    first, last = run["history"][0], run["history"][-1]
    assert last["final_learned"] > first["final_learned"] + 0.2


def test_same_seed_same_numbers_other_seed_other_numbers():
    a = lt.lm_train_run(TINY, 3, progress=False)
    b = lt.lm_train_run(TINY, 3, progress=False)
    c = lt.lm_train_run(TINY, 4, progress=False)
    assert _strip(a) == _strip(b) and _strip(a) != _strip(c)


def test_resume_continues_exactly(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    whole = lt.lm_train_run(TINY, 1, checkpoint_dir=str(tmp_path / "a"), progress=False)
    part = lt.lm_train_run(TINY, 1, checkpoint_dir=str(tmp_path / "b"), progress=False,
                           stop_after=3)
    assert part["iterations"] == 3
    rest = lt.lm_train_run(TINY, 1, checkpoint_dir=str(tmp_path / "b"), resume=True,
                           progress=False)
    assert _strip(rest) == _strip(whole)
    other = lt.LMTrainConfig(**{**TINY.as_dict(), "batch": 4})  # same name, other run
    with pytest.raises(InvalidArgument, match=r"^resume = "):
        lt.lm_train_run(other, 1, checkpoint_dir=str(tmp_path / "b"), resume=True,
                        progress=False)


def test_results_document_and_csv():
    runs = lt.lm_train_seeds(TINY, [0, 1], progress=False)
    doc = json.loads(json.dumps(lt.lm_results_document(TINY, runs, command="posbias train")))
    assert doc["task"] == "lm-synthetic" and doc["provenance"]["seeds"] == [0, 1]
    assert {"torch", "transformers", "python", "posbias"} <= set(doc["provenance"]["versions"])
    assert lt.LMTrainConfig.from_dict(doc["config"]) == TINY
    rows = lt.lm_history_csv(doc).strip().split("\n")
    assert len(rows) == 1 + 2 * 3 and all(len(r.split(",")) == 11 for r in rows)


@pytest.mark.parametrize("kwargs, parameter", [
    ({"arch": "bert"}, "arch"), ({"hidden": 30, "heads": 4}, "hidden"),
    ({"hidden": 12, "heads": 4}, "hidden"),  # llama: hidden / heads must be even
    ({"length": 1}, "length"), ({"tokens": 1}, "tokens"), ({"lr": 0}, "lr"),
    ({"iterations": -1}, "iterations"), ({"influence_samples": 5, "test_size": 4},
                                         "influence_samples")])
def test_bad_configurations(kwargs, parameter):
    with pytest.raises(InvalidArgument, match=f"^{parameter} = "):
        lt.LMTrainConfig(**kwargs)
