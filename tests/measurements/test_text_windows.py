"""Text windows are drawn uniformly from the whole corpus (reservoir sampling), not from its
first documents; a stand-in tokenizer (one id per word) keeps these tests free of
transformers."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from posbias.errors import InvalidArgument
from posbias.measurements.text import text_windows


class WordTokenizer:
    """Each whitespace-separated number is its own id (other words 0); no special tokens."""

    def __call__(self, text, add_special_tokens=True, verbose=True):
        return {"input_ids": [int(w) if w.isdigit() else 0 for w in text.split()]}


@pytest.fixture
def corpus(tmp_path):
    # 40 documents of 3 windows of 8 tokens each (and a 5-token remainder that is dropped):
    # window k (stream order) holds the ids 1000 k .. 1000 k + 7
    folder = tmp_path / "docs"
    folder.mkdir()
    for d in range(40):
        words = [str(1000 * (3 * d + w) + i) for w in range(3) for i in range(8)]
        words += ["7"] * 5
        (folder / f"{d:03d}.txt").write_text(" ".join(words), encoding="utf-8")
    return folder


def _indices(w):
    return [int(row[0]) // 1000 for row in w.ids]


def test_every_window_is_a_slice_in_stream_order(corpus):
    w = text_windows(WordTokenizer(), corpus, length=8, samples=10, seed=3)
    assert w.candidates == 120 and w.documents == 40 and w.files == 40
    assert _indices(w) == w.indices == sorted(w.indices)
    for row, k in zip(w.ids, w.indices):
        assert list(row) == [1000 * k + i for i in range(8)]
    assert "120 windows in all" in w.describe()
    again = text_windows(WordTokenizer(), corpus, length=8, samples=10, seed=3)
    assert np.array_equal(again.ids, w.ids)
    assert w.indices != text_windows(WordTokenizer(), corpus, length=8, samples=10, seed=4).indices


def test_windows_come_from_the_whole_corpus_uniformly(corpus):
    # a draw limited to the first documents (the old rule read 64 * samples candidates, here
    # with samples = 1 the first 64 of 120) never reaches the last documents; the reservoir
    # gives every window the same chance samples / candidates: a chi-square test over 600
    # seeds of the counts per tenth of the corpus
    counts = np.zeros(120, dtype=int)
    seeds = 600
    for seed in range(seeds):
        counts[text_windows(WordTokenizer(), corpus, length=8, samples=4, seed=seed).indices] += 1
    tenths = counts.reshape(10, 12).sum(axis=1)
    expected = seeds * 4 / 10
    assert counts[64:].sum() > 0
    assert stats.chisquare(tenths, [expected] * 10).pvalue > 1e-4
    # and the statistic does refute a draw from the first 64 windows only
    skewed = np.zeros(120, dtype=int)
    rng = np.random.default_rng(0)
    for _ in range(seeds):
        skewed[rng.choice(64, size=4, replace=False)] += 1
    assert stats.chisquare(skewed.reshape(10, 12).sum(axis=1), [expected] * 10).pvalue < 1e-10


def test_samples_equal_to_candidates_takes_them_all(corpus):
    w = text_windows(WordTokenizer(), corpus, length=8, samples=120, seed=0)
    assert w.indices == list(range(120))
    with pytest.raises(InvalidArgument, match=r"^samples = 121 .*at most 120"):
        text_windows(WordTokenizer(), corpus, length=8, samples=121)
