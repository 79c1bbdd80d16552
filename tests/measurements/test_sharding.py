"""Sharding and offload on the CPU: a model whose weights exceed --max-memory is measured with
part of it on disk (accelerate), and gives the in-memory measurement to every digit; a map that
cannot fit, a device that is not there and every misplaced option are one line, exit 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("tokenizers")
pytest.importorskip("accelerate")

from posbias.cli import main  # noqa: E402
from posbias.errors import InvalidArgument  # noqa: E402
from posbias.measurements.checkpoint import load_checkpoint  # noqa: E402
from posbias.measurements.pretrained import measure_pretrained  # noqa: E402
from posbias.measurements.sharding import (  # noqa: E402
    describe_device_map,
    parse_device_memory,
    plan_device_map,
)


def _tiny():
    import posbias_tests_tiny_checkpoints

    return posbias_tests_tiny_checkpoints


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("sharding")
    t = _tiny()
    return {fam: t.save_tiny(fam, root) for fam in ("llama", "bloom", "gpt2")}, \
        t.write_text(root / "text")


def _weights(loaded):
    return sum(p.numel() * p.element_size() for p in loaded.model.parameters())


@pytest.mark.parametrize("family", ["llama", "bloom", "gpt2"])
def test_offloaded_model_gives_the_in_memory_measurement(tiny, tmp_path, family):
    dirs, _ = tiny
    whole = load_checkpoint(dirs[family])
    size = _weights(whole)
    budget = parse_device_memory(f"cpu={size * 3 // 4}")     # three quarters of the weights
    assert budget["cpu"] < size
    ids = np.random.default_rng(0).integers(3, 30, size=(2, 20))
    ref = measure_pretrained(whole, ids)
    ref_jac = measure_pretrained(whole, ids[:1], metric="jacobian", probes=2)
    # without a folder for the rest, the map cannot fit: refused before any weight is read
    with pytest.raises(InvalidArgument, match=r"^max_memory = .*room for the weights"):
        load_checkpoint(dirs[family], device_map="sequential", max_memory=budget)
    sharded = load_checkpoint(dirs[family], device_map="sequential", max_memory=budget,
                              offload_folder=str(tmp_path / "offload"))
    placed = set(sharded.device_map.values())
    assert placed == {"cpu", "disk"}, sharded.device_map
    on_meta = sum(p.numel() for p in sharded.model.parameters() if p.device.type == "meta")
    assert on_meta > 0                                        # weights really left memory
    got = measure_pretrained(sharded, ids)
    for key in ("profile", "lambdas", "qk_diagonal", "qk_lower", "score_scale"):
        assert np.array_equal(getattr(got, key), getattr(ref, key)), key
    assert got.details["device_map"] == describe_device_map(sharded.device_map,
                                                            sharded.device_bytes)
    buffers = sum(b.numel() * b.element_size() for b in whole.model.buffers())
    assert sum(sharded.device_bytes.values()) == size + buffers   # every tensor placed
    assert "disk" in got.details["device_map"] and got.details["device"] == "cpu"
    jac = measure_pretrained(sharded, ids[:1], metric="jacobian", probes=2)
    assert np.array_equal(jac.profile, ref_jac.profile)
    parked = measure_pretrained(whole, ids, offload_activations=True)
    assert np.array_equal(parked.profile, ref.profile)


def test_step0_model_is_dispatched_with_the_same_map(tiny, tmp_path):
    dirs, _ = tiny
    init = load_checkpoint(dirs["llama"], random_init=True, seed=3)
    budget = parse_device_memory(f"cpu={_weights(init) // 2}")
    sharded = load_checkpoint(dirs["llama"], random_init=True, seed=3, device_map="auto",
                              max_memory=budget, offload_folder=str(tmp_path / "off"))
    assert "disk" in sharded.device_map.values()
    ids = np.random.default_rng(1).integers(3, 30, size=(1, 16))
    assert np.array_equal(measure_pretrained(sharded, ids).profile,
                          measure_pretrained(init, ids).profile)


def test_plan_and_budget_parsing(tiny):
    import transformers

    dirs, _ = tiny
    cfg = transformers.AutoConfig.from_pretrained(dirs["llama"])
    placed, size, per_device = plan_device_map(cfg, dtype="float32", device_map="sequential",
                                   max_memory={"cpu": 2**30})
    assert set(placed.values()) == {"cpu"} and 10_000 < size < 2**20
    assert per_device == {"cpu": size}
    placed16, size16, _ = plan_device_map(cfg, dtype="bfloat16", device_map="balanced",
                                       max_memory={"cpu": 2**30})
    assert size16 * 2 == size and set(placed16.values()) == {"cpu"}
    assert dict(parse_device_memory("cuda:1=1G,0=512M,cpu=2G")) == {1: 2**30, 0: 2**29,
                                                                   "cpu": 2 * 2**30}
    for bad, why in (("cpu", "DEVICE=SIZE"), ("tpu=1G", "not 'tpu'"), ("cpu=1G,cpu=2G", "twice"),
                     ("cpu=lots", "sizes such as")):
        with pytest.raises(InvalidArgument, match=why):
            parse_device_memory(bad)
    with pytest.raises(InvalidArgument, match=r"^device_map = everywhere "):
        plan_device_map(cfg, dtype="float32", device_map="everywhere")


def _run(capsys, *argv):
    rc = main(["measure", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_measures_through_offload(capsys, tiny, tmp_path):
    dirs, text = tiny
    size = _weights(load_checkpoint(dirs["llama"]))
    common = ["--model", dirs["llama"], "--text", text, "--length", "24", "--samples", "2",
              "--format", "json"]
    rc, out, err = _run(capsys, *common)
    assert rc == 0, err
    ref = json.loads(out)["measurement"]
    rc, out, err = _run(capsys, *common, "--device-map", "sequential", "--max-memory",
                        f"cpu={size // 2}", "--offload-folder", str(tmp_path / "off"), "-v")
    assert rc == 0, err
    got = json.loads(out)["measurement"]
    assert "device map (sequential): cpu: " in err and "disk: " in err
    assert got["profile"] == ref["profile"] and got["lambdas"] == ref["lambdas"]
    assert "disk" in got["details"]["device_map"]


@pytest.mark.parametrize("argv, flag, why", [
    (["--device-map", "sequential", "--max-memory", "cpu=1K"], "--max-memory",
     "room for the weights"),
    (["--device-map", "everywhere"], "--device-map", "one of auto"),
    (["--device-map", "auto", "--device", "cuda"], "--device", "cpu or auto with --device-map"),
    (["--offload-folder", "x"], "--offload-folder", "no value without --device-map"),
    (["--max-memory", "cpu=1G"], "--max-memory", "goes with measure --model --device-map"),
    (["--device-map", "auto", "--max-memory", "7=1G"], "--max-memory", "GPU 7 is not"),
    (["--device-map", "auto", "--max-memory", "tpu=1G"], "--max-memory", "expected devices"),
])
def test_cli_bad_sharding_options(capsys, tiny, tmp_path, argv, flag, why):
    dirs, _ = tiny
    out_file = tmp_path / "never.txt"
    rc, out, err = _run(capsys, "--model", dirs["llama"], "--length", "16", "-o", str(out_file),
                        *argv)
    assert rc == 2 and out == "" and not out_file.exists(), err
    last = err.strip().splitlines()[-1]
    assert flag in last and why in last, err


def test_arch_route_refuses_a_device_map(capsys):
    rc, _, err = _run(capsys, "--arch", "tiny-gpt2", "--device-map", "auto")
    assert rc == 2 and "--device-map" in err and "without --model" in err
