"""Where measurements and trainings compute (``--device``, ``device=``): the spellings, a device
that is not there refused in one line before any work, ``--device cpu`` identical to no option,
``auto`` resolving to the CPU on a machine without an accelerator, the device recorded, and
checkpoints that hold CPU tensors.  The tests marked ``gpu`` compare a CUDA run with the CPU's
within the tolerances of :data:`posbias.measurements.devices.DEVICE_TOLERANCES`; they are
skipped where torch sees no CUDA device."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from posbias.cli import main  # noqa: E402
from posbias.errors import InvalidArgument  # noqa: E402
from posbias.measurements import lm_training as lt  # noqa: E402
from posbias.measurements import training as tr  # noqa: E402
from posbias.measurements.devices import (  # noqa: E402
    DEVICE_TOLERANCES,
    check_device,
    resolve_device,
)
from posbias.measurements.measure import measure_influence  # noqa: E402

CUDA = torch.cuda.is_available()
ACCELERATOR = CUDA or bool(getattr(torch.backends, "mps", None)
                           and torch.backends.mps.is_available())
needs_cuda = pytest.mark.skipif(not CUDA, reason="torch sees no CUDA device on this machine")
no_accelerator = pytest.mark.skipif(ACCELERATOR, reason="an accelerator is present: auto "
                                    "resolves to it")

ARCH = ["measure", "--arch", "gpt2", "--layers", "2", "--hidden", "16", "--heads", "2",
        "--vocab", "40", "--length", "8", "--probes", "2", "-f", "json", "-q"]
LM = lt.LMTrainConfig(layers=1, hidden=16, heads=2, length=8, tokens=8, iterations=3,
                      eval_every=3, test_size=8, batch=4, influence_samples=1)
ICL = tr.TrainConfig(iterations=3, eval_every=3, test_size=20, influence_samples=1)


@pytest.fixture(autouse=True)
def _one_thread():
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def _run(capsys, argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _strip_seconds(doc):
    if isinstance(doc, dict):
        return {k: _strip_seconds(v) for k, v in doc.items()
                if k not in ("seconds", "wall_seconds", "iterations_per_second", "created")}
    if isinstance(doc, list):
        return [_strip_seconds(v) for v in doc]
    return doc


# ---------------------------------------------------------------------------------- spellings

@pytest.mark.parametrize("text, canonical", [("cpu", "cpu"), ("AUTO", "auto"), (" cuda ", "cuda"),
                                             ("cuda:0", "cuda:0"), ("cuda:12", "cuda:12"),
                                             ("mps", "mps")])
def test_spellings(text, canonical):
    assert check_device("device", text) == canonical


@pytest.mark.parametrize("bad", ["tpu", "", "cuda:", "cuda:-1", "cuda:01", "cuda:x", "gpu",
                                 "cpu:0", "cuda:99999", 0, None])
def test_bad_spellings_name_the_parameter(bad):
    with pytest.raises(InvalidArgument, match=r"^device = .* expected auto, cpu, cuda"):
        check_device("device", bad)


@no_accelerator
def test_auto_is_the_cpu_here_and_absent_devices_are_refused():
    assert resolve_device("auto") == ("cpu", "no CUDA or MPS device found")
    for absent in (("cuda", "cuda:0", "cuda:7") if not CUDA else ()) + ("mps",):
        with pytest.raises(InvalidArgument, match=f"^device = {absent} .*present"):
            resolve_device(absent)


@needs_cuda
def test_a_cuda_index_beyond_the_gpus_is_refused():
    n = torch.cuda.device_count()
    with pytest.raises(InvalidArgument, match=f"a CUDA index below {n}"):
        resolve_device(f"cuda:{n}")


# ------------------------------------------------------------------------- the command line

@pytest.mark.parametrize("value", ["tpu", "cuda:x", "gpu"] + ([] if CUDA else ["cuda", "cuda:7"])
                         + ([] if ACCELERATOR else ["mps"]))
def test_bad_device_is_one_line_exit_2_everywhere(value, capsys, tmp_path):
    """measure at initialization, measure of a checkpoint, train of both tasks: one line naming
    --device and the value, status 2, nothing written."""
    out = tmp_path / "never"
    commands = [
        [*ARCH, "--device", value, "-o", str(out)],
        ["measure", "--model", str(tmp_path), "--device", value, "-o", str(out)],
        ["train", "--iterations", "2", "--device", value, "-o", str(out)],
        ["train", "--task", "lm-synthetic", "--iterations", "2", "--device", value,
         "-o", str(out)],
    ]
    for argv in commands:
        rc, _, err = _run(capsys, argv)
        assert rc == 2, (argv, err)
        assert err.startswith(f"posbias: error: --device = {value} is invalid") \
            and err.count("\n") == 1, (argv, err)
        assert not out.exists()


def test_parallel_seeds_on_an_accelerator_are_refused(capsys, tmp_path):
    rc, _, err = _run(capsys, ["train", "--seeds", "0", "1", "--jobs", "2", "--device", "cuda",
                               "-o", str(tmp_path / "never")])
    assert rc == 2 and err.startswith("posbias: error: --jobs = 2 is invalid: expected 1 with "
                                      "device cuda") and err.count("\n") == 1


def test_device_cpu_is_no_option(capsys):
    rc, plain, err = _run(capsys, ARCH)
    assert rc == 0, err
    rc, cpu, err = _run(capsys, [*ARCH, "--device", "cpu"])
    assert rc == 0, err
    a, b = json.loads(plain), json.loads(cpu)
    assert a["measurement"]["device"] == b["measurement"]["device"] == "cpu"
    assert _strip_seconds(a) == _strip_seconds(b)  # every figure, to every digit


@no_accelerator
def test_auto_says_cpu_with_verbose(capsys):
    rc, out, err = _run(capsys, [a for a in ARCH if a != "-q"] + ["--device", "auto", "-v"])
    assert rc == 0, err
    assert "[measure] device auto: cpu (no CUDA or MPS device found)" in err
    assert json.loads(out)["measurement"]["device"] == "cpu"


def test_checkpoint_measure_records_the_device(capsys, tmp_path):
    import posbias_tests_tiny_checkpoints as tiny

    path = tiny.save_tiny("gpt2", tmp_path)
    argv = ["measure", "--model", path, "--length", "8", "-f", "json", "-q"]
    rc, plain, err = _run(capsys, argv)
    assert rc == 0, err
    rc, cpu, err = _run(capsys, [*argv, "--device", "cpu"])
    assert rc == 0, err
    a, b = json.loads(plain), json.loads(cpu)
    assert a["measurement"]["details"]["device"] == "cpu"
    assert _strip_seconds(a) == _strip_seconds(b)


def test_training_records_the_device_and_cpu_is_no_option(tmp_path):
    for config, run, document in ((ICL, tr.train_run, tr.results_document),
                                  (LM, lt.lm_train_run, lt.lm_results_document)):
        plain = run(config, 0, progress=False)
        cpu = run(config, 0, progress=False, device="cpu")
        assert _strip_seconds(plain) == _strip_seconds(cpu)
        assert document(config, [cpu], device="cpu")["provenance"]["device"] == "cpu"


def test_checkpoints_hold_cpu_tensors(tmp_path):
    run = tr.train_run(ICL, 0, checkpoint_dir=str(tmp_path), progress=False, device="auto")
    assert run["iterations"] == 3
    state = torch.load(tr.checkpoint_path(str(tmp_path), ICL, 0), weights_only=True)
    tensors = list(state["model"].values()) + [
        t for s in state["optimizer"]["state"].values() for t in s.values()
        if isinstance(t, torch.Tensor)]
    assert tensors and all(t.device.type == "cpu" for t in tensors)


def test_float64_readings_on_the_cpu_are_the_old_copies_and_keep_the_graph():
    """``as_float64`` of a CPU tensor is ``t.cpu().double()`` bit for bit (float32, bfloat16),
    stays on the CPU, and passes gradients back (the top-1 probability is differentiated
    through it)."""
    from posbias.measurements.measure import as_float64

    g = torch.Generator().manual_seed(0)
    for dtype in (torch.float32, torch.bfloat16):
        t = torch.randn(3, 5, generator=g).to(dtype)
        r = as_float64(t)
        assert r.dtype == torch.float64 and r.device.type == "cpu"
        assert torch.equal(r, t.cpu().double())
    x = torch.randn(4, generator=g, requires_grad=True)
    torch.softmax(as_float64(x), dim=-1).max().backward()
    assert x.grad is not None and x.grad.dtype == torch.float32 and x.grad.abs().sum() > 0


# ------------------------------------------------------------------- accelerator against CPU

def _close(a, b, quantity, dtype):
    rel, abs_ = DEVICE_TOLERANCES[(quantity, dtype)]
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rel, atol=abs_)


@pytest.mark.gpu
@needs_cuda
@pytest.mark.parametrize("arch", ["gpt2", "llama"])
def test_cuda_influence_profile_equals_the_cpu(arch):
    """float32, exact Jacobian of a tiny model: profile and lambdas to 5 significant digits."""
    kw = dict(length=16, layers=2, hidden=16, heads=2, vocab=40, exact=True, seed=3)
    cpu = measure_influence(arch, **kw)
    gpu = measure_influence(arch, device="cuda", **kw)
    assert gpu.device.startswith("cuda:") and cpu.device == "cpu"
    _close(gpu.profile, cpu.profile, "profile", "float32")
    _close(gpu.lambdas, cpu.lambdas, "lambda", "float32")


@pytest.mark.gpu
@needs_cuda
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_cuda_checkpoint_profile_equals_the_cpu(dtype, tmp_path):
    import posbias_tests_tiny_checkpoints as tiny

    from posbias.measurements.checkpoint import load_checkpoint
    from posbias.measurements.pretrained import measure_pretrained

    path = tiny.save_tiny("llama", tmp_path)
    cpu = measure_pretrained(load_checkpoint(path, dtype=dtype), None, length=16, samples=2)
    gpu = measure_pretrained(load_checkpoint(path, dtype=dtype, device="cuda"), None,
                             length=16, samples=2)
    assert gpu.details["device"].startswith("cuda:")
    _close(gpu.profile, cpu.profile, "profile", dtype)
    # lambda and the raw q.k means are float64 readings reduced on the GPU (as_float64)
    if dtype == "float32":
        _close(gpu.lambdas, cpu.lambdas, "lambda", dtype)
        # raw q.k means can sit near zero: held to 5 digits of the largest of their layer
        for on_gpu, on_cpu in ((gpu.qk_diagonal, cpu.qk_diagonal), (gpu.qk_lower, cpu.qk_lower)):
            ref = np.asarray(on_cpu)
            np.testing.assert_allclose(np.asarray(on_gpu), ref, rtol=1e-5,
                                       atol=1e-5 * float(np.abs(ref).max()))


@pytest.mark.gpu
@needs_cuda
def test_cuda_readings_stay_on_the_device():
    """A float64 reading of a CUDA tensor is made on the GPU (no activations cross to the
    host) and equals the CPU's reading of the same numbers."""
    from posbias.measurements.measure import as_float64

    t = torch.randn(64, 128, generator=torch.Generator().manual_seed(1))
    r = as_float64(t.to("cuda"))
    assert r.device.type == "cuda" and r.dtype == torch.float64
    assert torch.equal(r.cpu(), t.double())
    np.testing.assert_allclose(float(r.norm(dim=-1).mean()), float(t.double().norm(dim=-1).mean()),
                               rtol=1e-14)


@pytest.mark.gpu
@needs_cuda
def test_cuda_training_losses_equal_the_cpu():
    """A few AdamW steps of both tasks: the losses to 1e-4 relative."""
    for config, run in ((ICL, tr.train_run), (LM, lt.lm_train_run)):
        cpu = run(config, 0, progress=False)
        gpu = run(config, 0, progress=False, device="cuda")
        for key in ("loss", "final_loss", "mean_loss"):
            a = [e[key] for e in cpu["history"] if e.get(key) is not None]
            b = [e[key] for e in gpu["history"] if e.get(key) is not None]
            assert len(a) == len(b)
            _close(b, a, "loss", "float32")


@pytest.mark.gpu
@needs_cuda
def test_cuda_batches_and_a_map_over_gpu_and_cpu_equal_the_cpu(tmp_path):
    """Batches of windows on the GPU, and a device map that keeps half the weights on the GPU
    and the rest on the CPU (accelerate), against the CPU's window-by-window profile."""
    pytest.importorskip("accelerate")
    import posbias_tests_tiny_checkpoints as tiny

    from posbias.measurements.checkpoint import load_checkpoint
    from posbias.measurements.pretrained import measure_pretrained

    path = tiny.save_tiny("llama", tmp_path)
    ids = np.random.default_rng(0).integers(3, 30, size=(4, 16))
    cpu = measure_pretrained(load_checkpoint(path), ids)
    gpu = measure_pretrained(load_checkpoint(path, device="cuda"), ids, batch_size="auto")
    _close(gpu.profile, cpu.profile, "profile", "float32")
    _close(gpu.lambdas, cpu.lambdas, "lambda", "float32")
    loaded = load_checkpoint(path)
    weights = sum(p.numel() * p.element_size() for p in loaded.model.parameters())
    mapped = load_checkpoint(path, device_map="sequential",
                             max_memory={0: weights // 2, "cpu": 4 * weights})
    assert set(mapped.device_map.values()) == {0, "cpu"}, mapped.device_map
    m = measure_pretrained(mapped, ids, batch_size=2)
    assert m.details["device"].startswith("cuda:")
    _close(m.profile, cpu.profile, "profile", "float32")
