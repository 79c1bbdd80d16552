"""Resumable measurements: a run interrupted after some windows and continued from its journal
gives, bit for bit, the measurement of an uninterrupted run (tiny checkpoints, CPU)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from posbias.errors import InvalidArgument  # noqa: E402
from posbias.measurements.checkpoint import load_checkpoint  # noqa: E402
from posbias.measurements.journal import JOURNAL_FORMAT, MeasurementJournal, windows_done  # noqa: E402
from posbias.measurements.pretrained import measure_pretrained  # noqa: E402
from posbias.measurements.text import text_windows  # noqa: E402


def _tiny():
    import posbias_tests_tiny_checkpoints

    return posbias_tests_tiny_checkpoints


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("journal")
    t = _tiny()
    return {fam: t.save_tiny(fam, root) for fam in ("bloom", "llama")}, t.write_text(root / "text")


class Interrupt(Exception):
    pass


def _stop_after(k):
    """A progress callback that interrupts the run once ``k`` windows are done (after their
    journal lines were written, as a kill between two windows would)."""
    def progress(msg):
        if msg.startswith(f"window {k}/"):
            raise Interrupt(msg)
    return progress


def _same(a, b):
    for key in ("profile", "sample_profiles", "lambdas", "qk_diagonal", "qk_lower",
                "score_scale"):
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    for key in ("alibi_slopes", "alibi_scale"):
        x, y = getattr(a, key), getattr(b, key)
        assert (x is None and y is None) or np.array_equal(x, y), key
    assert a.as_dict()["profile"] == b.as_dict()["profile"]


@pytest.mark.parametrize("family, metric", [("bloom", "top1-grad"), ("llama", "jacobian")])
def test_resumed_run_equals_an_uninterrupted_one(tiny, tmp_path, family, metric):
    dirs, text = tiny
    loaded = load_checkpoint(dirs[family])
    w = text_windows(loaded.tokenizer, text, length=24, samples=5, seed=2)
    kw = dict(metric=metric, probes=3, seed=4, inputs=w.describe())
    whole = measure_pretrained(loaded, w.ids, **kw)
    path = tmp_path / "m.windows.jsonl"
    with pytest.raises(Interrupt):
        measure_pretrained(loaded, w.ids, journal=path, progress=_stop_after(2), **kw)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["format"] == JOURNAL_FORMAT and len(lines) == 3
    # a kill in the middle of writing window 3's line leaves it cut short: dropped on resume
    with open(path, "a") as fh:
        fh.write('{"window": 2, "profile": [0.1')
    # a fresh run would lose the finished windows: refused
    with pytest.raises(InvalidArgument, match=r"^resume = .*continue it with --resume"):
        measure_pretrained(loaded, w.ids, journal=path, **kw)
    seen = []
    again = measure_pretrained(loaded, w.ids, journal=path, resume=True, progress=seen.append,
                               **kw)
    assert seen[0].startswith(f"resumed from {path}: 2/5") and seen[-1].startswith("window 5/5")
    _same(again, whole)
    records = [json.loads(x) for x in path.read_text().splitlines()[1:]]
    assert [r.get("window") for r in records] == [0, 1, 2, 3, 4, None]
    assert records[-1] == {"complete": True}
    # a complete journal resumes without a forward pass, to the same result
    _same(measure_pretrained(loaded, w.ids, journal=path, resume=True, **kw), whole)
    # and a fresh run may replace it
    _same(measure_pretrained(loaded, w.ids, journal=path, **kw), whole)


def test_a_journal_of_another_measurement_is_refused(tiny, tmp_path):
    dirs, text = tiny
    loaded = load_checkpoint(dirs["bloom"])
    w = text_windows(loaded.tokenizer, text, length=16, samples=2, seed=0)
    path = tmp_path / "j.jsonl"
    with pytest.raises(Interrupt):
        measure_pretrained(loaded, w.ids, journal=path, progress=_stop_after(1))
    with pytest.raises(InvalidArgument, match=r"^resume = .*differs in ids_sha256\)"):
        measure_pretrained(loaded, w.ids[::-1].copy(), journal=path, resume=True)
    with pytest.raises(InvalidArgument, match=r"^resume = .*differs in seed"):
        measure_pretrained(loaded, w.ids, journal=path, resume=True, seed=1)
    with pytest.raises(InvalidArgument, match=r"^resume = True .*a journal to resume from"):
        measure_pretrained(loaded, w.ids, resume=True)


def test_journal_file_errors(tmp_path):
    fp = {"model": "m", "seed": 0}
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(InvalidArgument, match=r"line 1 is not one"):
        MeasurementJournal(bad, fp, resume=True).start()
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"format": "something/1"}) + "\n")
    with pytest.raises(InvalidArgument, match=r"posbias-measure-journal/1 journal"):
        MeasurementJournal(other, fp, resume=True).start()
    gap = tmp_path / "gap.jsonl"
    gap.write_text(json.dumps({"format": JOURNAL_FORMAT, "fingerprint": fp}) + "\n"
                   + json.dumps({"window": 1}) + "\n")
    with pytest.raises(InvalidArgument, match=r"holds window 1, expected 0"):
        MeasurementJournal(gap, fp, resume=True).start()
    # a FIFO in the journal's place is refused, not opened (it would block until a writer came)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.jsonl"
        os.mkfifo(fifo)
        with pytest.raises(InvalidArgument, match=r"a regular file for the journal"):
            MeasurementJournal(fifo, fp, resume=True).start()
        assert windows_done(fifo) == 0
    # a record a run would resume from must carry every accumulator: one without is refused,
    # naming the line and what it lacks (it ended as an internal KeyError)
    bare = tmp_path / "bare.jsonl"
    bare.write_text(json.dumps({"format": JOURNAL_FORMAT, "fingerprint": fp}) + "\n"
                    + json.dumps({"window": 0, "profile": [1.0], "seconds": 0.0}) + "\n")
    with pytest.raises(InvalidArgument, match=r"line 2: it lacks lambda_sums, .*rng\)$"):
        MeasurementJournal(bare, fp, resume=True).start()
    # resume without a journal starts one
    fresh = tmp_path / "fresh.jsonl"
    assert MeasurementJournal(fresh, fp, resume=True).start() == []
    assert json.loads(fresh.read_text())["fingerprint"] == fp


# ----------------------------------------------------------------------------------------------
# batches of windows (top1-grad)

def _close(a, b, rtol=1e-5):
    """Batched products round differently from one-window products: float32 agreement."""
    for key in ("profile", "lambdas", "qk_diagonal", "qk_lower"):
        x, y = getattr(a, key), getattr(b, key)
        assert np.allclose(x, y, rtol=rtol, atol=rtol * np.abs(y).max()), key


@pytest.mark.parametrize("family", ["bloom", "llama"])
def test_batched_windows_equal_one_at_a_time(tiny, family):
    dirs, text = tiny
    loaded = load_checkpoint(dirs[family])
    w = text_windows(loaded.tokenizer, text, length=24, samples=5, seed=2)
    one = measure_pretrained(loaded, w.ids)
    three = measure_pretrained(loaded, w.ids, batch_size=3)
    # lambda and q.k to 1e-5 as well: every window of a batch is recorded, not only its first
    # (the means of windows 0 and 3 alone differ from those of all five by 5% and 30% here)
    _close(three, one)
    firsts = measure_pretrained(loaded, w.ids[[0, 3]])
    assert not np.allclose(firsts.qk_diagonal, one.qk_diagonal, rtol=1e-2)
    assert three.sample_profiles.shape == (5, 24)
    assert np.array_equal(three.score_scale, one.score_scale)
    assert np.array_equal(measure_pretrained(loaded, w.ids, batch_size=3).profile, three.profile)


class _OOMAbove:
    """A forward pre-hook on the last block that fails like an allocator for batches larger
    than ``limit`` (after the earlier blocks recorded their lambda and q.k for the batch)."""

    def __init__(self, limit):
        self.limit, self.sizes = limit, []

    def __call__(self, module, args, kwargs):
        x = args[0] if args else next(iter(kwargs.values()))
        self.sizes.append(int(x.shape[0]))
        if x.shape[0] > self.limit:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")


def _last_block(model):
    from posbias.measurements.hooks import locate_blocks

    return locate_blocks(model)[0][-1]


def test_auto_batch_halves_on_out_of_memory_and_keeps_finished_windows(tiny, tmp_path):
    dirs, text = tiny
    loaded = load_checkpoint(dirs["llama"])
    w = text_windows(loaded.tokenizer, text, length=24, samples=5, seed=2)
    two = measure_pretrained(loaded, w.ids, batch_size=2)
    oom = _OOMAbove(2)
    handle = _last_block(loaded.model).register_forward_pre_hook(oom, with_kwargs=True)
    try:
        seen = []
        auto = measure_pretrained(loaded, w.ids, batch_size="auto", progress=seen.append,
                                  journal=tmp_path / "a.jsonl")
        assert any(m.startswith("out of memory at a batch of 5: batches of 2") for m in seen)
        # the failed batch was undone: the same bits as batches of 2 from the start
        _same(auto, two)
        with pytest.raises(InvalidArgument, match=r"^batch_size = 4 .*batch of 4 .*try auto"):
            measure_pretrained(loaded, w.ids, batch_size=4)
    finally:
        handle.remove()
    handle = _last_block(loaded.model).register_forward_pre_hook(_OOMAbove(0), with_kwargs=True)
    try:
        with pytest.raises(InvalidArgument, match=r"^batch_size = auto .*batch of 1 window"):
            measure_pretrained(loaded, w.ids, batch_size="auto")
    finally:
        handle.remove()
    for bad in (0, -1, 2.5, True, "big"):
        with pytest.raises(InvalidArgument, match=r"^batch_size = .*integer >= 1 or auto"):
            measure_pretrained(loaded, w.ids, batch_size=bad)


def test_batched_run_resumes_at_a_batch_boundary(tiny, tmp_path):
    dirs, text = tiny
    loaded = load_checkpoint(dirs["bloom"])
    w = text_windows(loaded.tokenizer, text, length=24, samples=5, seed=2)
    whole = measure_pretrained(loaded, w.ids, batch_size=2)
    path = tmp_path / "b.jsonl"
    with pytest.raises(Interrupt):
        measure_pretrained(loaded, w.ids, batch_size=2, journal=path,
                           progress=_stop_after(4))
    lines = path.read_text().splitlines()
    records = [json.loads(x) for x in lines[1:]]
    assert [r.get("resumable", True) for r in records] == [False, True, False, True]
    # a kill while batch 2's lines were written: only its first (stateless) line is there
    path.write_text("\n".join(lines[:4]) + "\n")
    again = measure_pretrained(loaded, w.ids, batch_size=2, journal=path, resume=True)
    _same(again, whole)
    assert [json.loads(x).get("window") for x in path.read_text().splitlines()[1:]] == \
        [0, 1, 2, 3, 4, None]
