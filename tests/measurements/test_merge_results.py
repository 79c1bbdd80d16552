"""Tests of :func:`posbias.measurements.training.merge_results`: the seeds of one training run
in several documents become one document; anything but runs and provenance that differs, and
a seed held twice, is refused naming the part and the key."""

import copy

import pytest

from posbias.errors import InvalidArgument
from posbias.measurements.training import merge_results


def _doc(seeds, margins, *, threads=2, created="2026-12-01T00:00:00Z", **over):
    runs = [{"seed": s, "iterations": 4, "wall_seconds": 1.0,
             "history": [{"iteration": 0, "below_bigram": -1.0},
                         {"iteration": 4, "below_bigram": m}]} for s, m in zip(seeds, margins)]
    doc = {"format": "posbias-trained-lm-text/1", "task": "lm-text", "name": "text_x",
           "config": {"arch": "llama", "iterations": 4}, "corpus": {"sha256": "a" * 64},
           "gate": {"rule": "r", "nats": 0.1, "margins": list(margins),
                    "reached": all(m >= 0.1 for m in margins)},
           "provenance": {"command": f"posbias train --seeds {' '.join(map(str, seeds))}",
                          "seeds": list(seeds), "versions": {"torch": "2.13.0"},
                          "machine": "m", "device": "cpu", "torch_threads_per_process": threads,
                          "parallel_jobs": 1, "created": created},
           "runs": runs}
    doc.update(over)
    return doc


def test_merge_orders_the_runs_by_seed_and_recomputes_the_gate():
    a = _doc([2], [0.05], created="2026-12-02T00:00:00Z")
    b = _doc([0, 1], [0.5, 0.6])
    m = merge_results([a, b])
    assert [r["seed"] for r in m["runs"]] == [0, 1, 2]
    assert m["gate"]["margins"] == [0.5, 0.6, 0.05] and m["gate"]["reached"] is False
    assert m["provenance"]["seeds"] == [0, 1, 2]
    assert m["provenance"]["created"] == "2026-12-02T00:00:00Z"
    assert m["provenance"]["command"] == "posbias train --seeds 0 1; posbias train --seeds 2"
    assert m["provenance"]["torch_threads_per_process"] == 2
    assert [p["seeds"] for p in m["provenance"]["parts"]] == [[0, 1], [2]]
    assert list(m) == list(b)                      # the parts' key order
    assert merge_results([b, a]) == m              # the order of the parts does not matter
    # the inputs are left as they were
    assert a["runs"][0]["seed"] == 2 and b["gate"]["margins"] == [0.5, 0.6]


def test_provenance_that_differs_stays_in_the_parts_only():
    m = merge_results([_doc([0], [0.5], threads=1), _doc([1], [0.5], threads=2)])
    assert "torch_threads_per_process" not in m["provenance"]
    assert [p["torch_threads_per_process"] for p in m["provenance"]["parts"]] == [1, 2]
    assert m["provenance"]["versions"] == {"torch": "2.13.0"}


@pytest.mark.parametrize("key, value", [
    ("config", {"arch": "gpt2", "iterations": 4}), ("corpus", {"sha256": "b" * 64}),
    ("name", "text_y"), ("format", "posbias-trained/1"),
    ("gate", {"rule": "other", "nats": 0.2, "margins": [0.5], "reached": True}),
])
def test_a_part_that_differs_is_refused_naming_the_key(key, value):
    b = _doc([1], [0.5], **{key: value})
    with pytest.raises(InvalidArgument) as exc:
        merge_results([_doc([0], [0.5]), b])
    assert str(exc.value).startswith("documents = ")
    assert f"'{key}'" in str(exc.value) and "part 2" in str(exc.value)


def test_a_key_only_one_part_has_is_refused():
    b = _doc([1], [0.5])
    b["boundary_windows"] = {"positions": [3]}
    with pytest.raises(InvalidArgument, match="'boundary_windows'"):
        merge_results([_doc([0], [0.5]), b])
    with pytest.raises(InvalidArgument, match="'boundary_windows'"):
        merge_results([b, _doc([2], [0.5])])


def test_seeds_twice_and_too_few_or_foreign_documents_are_refused():
    with pytest.raises(InvalidArgument, match="seed 1 is invalid: expected each seed"):
        merge_results([_doc([0, 1], [0.5, 0.5]), _doc([1], [0.5])])
    with pytest.raises(InvalidArgument, match="at least two"):
        merge_results([_doc([0], [0.5])])
    with pytest.raises(InvalidArgument, match="a results document"):
        merge_results([_doc([0], [0.5]), {"runs": []}])
    with pytest.raises(InvalidArgument, match="a results document"):
        merge_results([_doc([0], [0.5]), ["not", "a", "document"]])


def test_merging_a_merged_document_with_a_further_seed():
    m = merge_results([_doc([0], [0.5]), _doc([1], [0.5])])
    again = merge_results([copy.deepcopy(m), _doc([2], [0.5])])
    assert again["provenance"]["seeds"] == [0, 1, 2]
    assert len(again["provenance"]["parts"]) == 2      # the merged part keeps its own parts
    assert len(again["provenance"]["parts"][0]["parts"]) == 2
