"""Every run of the library plans itself before it starts, as the command line does: a Python
caller can read the plan without running anything, and a run that cannot fit is refused in one
line (ResourceLimit) before any model is built, any weight measured or any checkpoint written."""

from __future__ import annotations

import os

import pytest

from posbias.errors import ResourceLimit
from posbias.measurements import loop, planning
from posbias.measurements import training as tr
from posbias.measurements.presets import PRESETS, resolve_settings
from posbias.resources import memory_limit

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")

from posbias.measurements import measure as ms  # noqa: E402
from posbias.measurements import pretrained as pm  # noqa: E402
from posbias.measurements.checkpoint import load_checkpoint  # noqa: E402


def _tiny_checkpoints():
    """The shared helper tests/measurements/tiny_checkpoints.py (loaded by tests/conftest.py)."""
    import posbias_tests_tiny_checkpoints

    return posbias_tests_tiny_checkpoints


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    return _tiny_checkpoints().save_tiny("llama", tmp_path_factory.mktemp("plans"))


def _no_build(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a model was built although the plan refuses the run")

    monkeypatch.setattr(ms, "build_model", refuse)


def test_plan_influence_is_the_step0_plan_of_the_settings():
    plan = ms.plan_influence("tiny-llama", length=48, probes=4, samples=2)
    settings = resolve_settings(PRESETS["tiny-llama"], length=48)
    same = planning.plan_step0(settings, length=48, probes=4, samples=2,
                               what="measuring tiny-llama at initialization (L = 48)")
    assert plan.as_dict() == same.as_dict()
    assert plan.seconds and plan.seconds > 0


def test_measure_influence_refuses_before_building(monkeypatch):
    _no_build(monkeypatch)
    with pytest.raises(ResourceLimit, match=r"^needs about .*measuring tiny-llama at "
                                            r"initialization \(L = 64\)"):
        ms.measure_influence("tiny-llama", max_memory=2**20)


def test_a_shape_refusal_comes_before_the_memory_plan(monkeypatch):
    _no_build(monkeypatch)
    from posbias.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=r"^arch = llama"):
        ms.plan_influence("llama")  # transformers' defaults: 6.7e9 parameters


def test_plan_checkpoint_and_plan_pretrained_agree(llama):
    before = planning.plan_checkpoint(llama, length=32, windows=3)
    loaded = load_checkpoint(llama)
    after = pm.plan_pretrained(loaded, length=32, windows=3)
    assert before is not None and after is not None
    assert before.per_device() == after.per_device()
    assert before.seconds == after.seconds
    assert planning.plan_checkpoint(os.path.join(llama, "missing"), length=32) is None


def test_measure_pretrained_refuses_before_the_first_window(llama, monkeypatch):
    loaded = load_checkpoint(llama)

    def refuse(*args, **kwargs):
        raise AssertionError("a window was measured although the plan refuses the run")

    monkeypatch.setattr(pm, "top1_grad_profiles", refuse)
    with pytest.raises(ResourceLimit, match=r"^needs about .*measuring .* at L = 32"):
        pm.measure_pretrained(loaded, length=32, samples=2, max_memory=2**20)


def test_the_loaded_weights_are_given_back_to_an_address_space_limit(monkeypatch):
    import posbias.resources as rs

    monkeypatch.setattr(rs, "_physical_memory", lambda: None)
    monkeypatch.setattr(rs, "_cgroup_memory", lambda: None)
    monkeypatch.setattr(rs, "_address_space_limit", lambda resident=0: 10**9 + resident)
    assert memory_limit(resident=5 * 2**20)[0] == 10**9 + 5 * 2**20
    assert memory_limit()[0] == 10**9


SHORT = tr.TrainConfig(iterations=6, eval_every=3, test_size=40, batch=8)


def test_a_resumed_training_is_planned_for_what_is_left(tmp_path):
    fresh = loop.plan_seeds(tr.plan_training, tr.checkpoint_path, SHORT, [0])
    tr.train_seeds(tr.TrainConfig(**{**SHORT.as_dict(), "iterations": 3, "task": SHORT.task}),
                   [0], checkpoint_dir=str(tmp_path), progress=False)
    resumed = loop.plan_seeds(tr.plan_training, tr.checkpoint_path, SHORT, [0],
                              checkpoint_dir=str(tmp_path), resume=True)
    assert resumed.bytes == fresh.bytes
    assert resumed.seconds < fresh.seconds
    assert "resumed at iteration 3" in resumed.what


def test_train_seeds_refuses_before_any_checkpoint(tmp_path):
    with pytest.raises(ResourceLimit, match=r"^needs about .*training "):
        tr.train_seeds(SHORT, [0, 1], checkpoint_dir=str(tmp_path), max_memory=2**20)
    assert os.listdir(tmp_path) == []
