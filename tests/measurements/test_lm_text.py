"""The natural-text training: a deterministic tokenizer, packed documents, the n-gram baselines
by hand, a tiny run that records baselines, margins and influence, and resume continuing
exactly."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from posbias.errors import InvalidArgument
from posbias.measurements import lm_text as lx

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

WORDS = ["the", "a", "python", "function", "returns", "value", "list", "of", "module", "class",
         "object", "string", "file", "and", "is", "to", "in", "for", "with", "an", "each", "new",
         "name", "call"]


def fake_source(root, n=6, seed=0):
    rng = random.Random(seed)
    for k in range(n):
        section = "tutorial" if k < n // 2 else "library"
        (root / section).mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(" ".join(rng.choice(WORDS) for _ in range(50)) + "."
                           for _ in range(6))
        (root / section / f"doc{k}.rst.txt").write_text(
            f"Title {k}\n=======\n\n.. index:: x\n\n{body}\n\nExample::\n\n   code = 1\n")
    return str(root)


def tiny(source, **kw):
    base = {"layers": 1, "hidden": 16, "heads": 2, "length": 16, "vocab": 300, "iterations": 6,
            "eval_every": 3, "test_size": 6, "batch": 4, "influence_samples": 2,
            "source": source, "min_chars": 100, "held_out_every": 3}
    return lx.LMTextConfig(**{**base, **kw})


@pytest.fixture(autouse=True)
def _one_thread():
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    return fake_source(tmp_path_factory.mktemp("src"))


def _strip(run):
    return [{k: v for k, v in e.items() if k != "seconds"} for e in run["history"]]


def test_tokenizer_is_deterministic_and_has_the_separator():
    docs = [" ".join(WORDS[k:] + WORDS[:k]) * 5 for k in range(len(WORDS))]
    a, b = lx.train_tokenizer(docs, 320), lx.train_tokenizer(docs, 320)
    assert a.to_str() == b.to_str() and a.get_vocab() == b.get_vocab()
    assert a.token_to_id(lx.EOT) == 0 and a.get_vocab_size() <= 320
    assert a.decode(a.encode(docs[0]).ids) == docs[0]
    ids = lx.pack_documents(a, docs[:2])
    assert ids[0] == 0 and ids[-1] == 0 and (ids == 0).sum() == 3


def test_baselines_by_hand():
    train = np.array([0, 1, 2, 1, 2, 0])
    inputs, targets = np.array([[1, 2]]), np.array([[2, 0]])
    got = lx.ngram_baselines(train, inputs, targets, 3)
    p1 = (np.bincount(train, minlength=3) + 1) / (6 + 3)      # [3, 3, 3] / 9
    assert got["unigram_loss"] == pytest.approx(-np.log(p1[[2, 0]]).mean(), abs=1e-5)
    # c(1, 2) = 2 of c(1) = 2; c(2, 0) = 1 of c(2) = 2
    a = got["bigram_prior"]
    want = -np.mean([math.log((2 + a / 3) / (2 + a)), math.log((1 + a / 3) / (2 + a))])
    assert got["bigram_loss"] == pytest.approx(want, abs=1e-5)
    assert all(got["bigram_loss"] <= -np.mean([math.log((2 + b / 3) / (2 + b)),
                                               math.log((1 + b / 3) / (2 + b))]) + 1e-5
               for b in lx.BIGRAM_PRIORS)


def test_prepare_text_is_deterministic(source):
    cfg = tiny(source)
    a, b = lx.prepare_text(cfg), lx.prepare_text(cfg)
    assert a.recipe == b.recipe and a.tokenizer_record == b.tokenizer_record
    assert np.array_equal(a.train, b.train) and np.array_equal(a.windows, b.windows)
    assert a.windows.shape == (6, 17)
    assert a.baselines["bigram_loss"] < a.baselines["unigram_loss"]


def test_tiny_run_records_baselines_margins_and_influence(source):
    cfg = tiny(source)
    data = lx.prepare_text(cfg)
    run = lx.lm_text_run(cfg, 0, data=data)
    assert [e["iteration"] for e in run["history"]] == [0, 3, 6]
    e = run["history"][-1]
    assert e["below_bigram"] == pytest.approx(data.baselines["bigram_loss"] - e["val_loss"],
                                              abs=1e-4)
    assert len(e["influence"]) == 16 and sum(e["influence"]) == pytest.approx(1, abs=1e-4)
    assert run["tokens_per_second"] > 0
    doc = lx.lm_text_results_document(cfg, [run], data)
    assert doc["corpus"]["sha256"] == data.recipe["sha256"]
    assert doc["tokenizer"]["file"] == "tokenizer.json" and doc["gate"]["nats"] == lx.GATE_NATS
    assert doc["gate"]["reached"] is False  # six steps do not beat the bigram
    assert lx.lm_text_history_csv(doc).count("\n") == 4
    # every window's own profile, and where its document separators are
    w = e["influence_windows"]
    assert len(w) == 2 and all(len(q) == 16 for q in w)
    assert np.allclose(np.mean(w, axis=0) / np.mean(w, axis=0).sum(), e["influence"], atol=1e-5)
    eot = data.tokenizer.token_to_id(lx.EOT)
    wins = doc["influence_windows"]
    assert wins["count"] == 2 and wins["separator_id"] == eot
    assert wins["eot_positions"] == [[j for j in range(16) if data.windows[k, j] == eot]
                                     for k in range(2)]
    again = lx.lm_text_run(cfg, 0, data=data)
    assert _strip(again) == _strip(run)


def test_resume_continues_exactly(source, tmp_path):
    cfg = tiny(source, influence_samples=0)
    data = lx.prepare_text(cfg)
    whole = lx.lm_text_run(cfg, 1, data=data, checkpoint_dir=str(tmp_path / "a"))
    lx.lm_text_run(cfg, 1, data=data, checkpoint_dir=str(tmp_path / "b"), stop_after=3)
    rest = lx.lm_text_run(cfg, 1, data=data, checkpoint_dir=str(tmp_path / "b"), resume=True)
    assert _strip(rest) == _strip(whole)
    other = lx.prepare_text(tiny(source, vocab=310, influence_samples=0))
    with pytest.raises(InvalidArgument, match=r"^resume = "):
        lx.lm_text_run(cfg, 1, data=other, checkpoint_dir=str(tmp_path / "b"), resume=True)


@pytest.mark.parametrize("kw, parameter", [
    ({"vocab": 10}, "vocab"), ({"arch": "bert"}, "arch"), ({"hidden": 30}, "hidden"),
    ({"max_documents": -1}, "max_documents"), ({"influence_samples": 9}, "influence_samples"),
])
def test_bad_configs(kw, parameter):
    with pytest.raises(InvalidArgument, match=rf"^{parameter} = "):
        tiny("/nonexistent", **kw)


def test_context_longer_than_the_held_out_text(source):
    with pytest.raises(InvalidArgument, match=r"^length = "):
        lx.prepare_text(tiny(source, length=4000))


def test_boundary_windows_put_a_separator_in_the_middle_half(source, tmp_path):
    cfg = tiny(source, boundary_samples=3)
    data = lx.prepare_text(cfg)
    eot = data.tokenizer.token_to_id(lx.EOT)
    assert data.boundary_ids is not None and len(data.boundary_ids) >= 1
    for row, q in zip(data.boundary_ids, data.boundary_positions):
        assert row[q] == eot and 4 <= q < 12
    run = lx.lm_text_run(cfg, 0, data=data)
    e = run["history"][-1]
    assert len(e["boundary_influence"]) == len(data.boundary_ids)
    assert all(sum(q) == pytest.approx(1, abs=1e-4) for q in e["boundary_influence"])
    doc = lx.lm_text_results_document(cfg, [run], data)
    rec = doc["boundary_windows"]
    assert rec["positions"] == data.boundary_positions
    assert all(q in js for q, js in zip(rec["positions"], rec["eot_positions"]))
    pytest.importorskip("matplotlib")
    from posbias.render import training_plots as tp

    assert tp.plot_boundary_windows(doc, str(tmp_path / "b.png"), half=4)
    assert (tmp_path / "b.png").read_bytes()[:4] == b"\x89PNG"
    doc["boundary_windows"] = None
    assert not tp.plot_boundary_windows(doc, str(tmp_path / "none.png"))
    assert not (tmp_path / "none.png").exists()


def test_boundary_windows_by_hand():
    held = np.array([0, 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0])
    ids, q = lx.boundary_windows(held, 0, 4, 5)
    # the inner separators sit at 4 and 8; the first at window position 1, the second at 1 + 37 mod 2
    assert q == [1, 2] and ids.tolist() == [[3, 0, 4, 5], [5, 6, 0, 7]]
    none, nq = lx.boundary_windows(np.array([0, 1, 2, 0]), 0, 4, 2)
    assert none.shape == (0, 4) and nq == []
