"""Benchmark: the planned time of a measurement against the measured one.

``posbias measure --model`` prints, with ``-v``, the time its plan gives the measurement
(:func:`posbias.measurements.planning.plan_measurement`: the floating-point operations of each
window's passes, :func:`~posbias.measurements.planning.window_flops`, at the rate
:func:`~posbias.measurements.planning.cpu_flops` calibrated on this project's machine).  This
benchmark builds random-weight checkpoints of four families at a few lengths (saved with
``save_pretrained`` and reloaded), measures each on random token ids, and prints per case the
planned and the measured seconds per window (the median of ``--repeats`` runs, loading not
counted) and their ratio; the named baseline is the measured time.  A ratio near 1 on this
machine is what the calibration claims; another machine has its own rate.

The second part does the same for models at initialization (``posbias measure --arch``,
:func:`posbias.measurements.planning.plan_step0` against
:func:`posbias.measurements.measure.measure_influence`, building the model included, as the
command runs it): presets with fewer blocks where the full model would take minutes, both
metrics, a probe chunk of one copy (long sequences), float64 and the averaged kernel's inputs.

Run on demand (not collected by pytest)::

    python tests/benchmarks/bench_measure_plan.py [--part checkpoint|arch|both]
        [--threads 1 2] [--repeats 3] [--quick]

``--quick`` runs two small cases of each part (a check that the benchmark runs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

#: name -> (model type, configuration)
SHAPES = {
    "bloom-6": ("bloom", dict(n_layer=6, hidden_size=1024, n_head=16, vocab_size=32000)),
    "llama-4": ("llama", dict(num_hidden_layers=4, hidden_size=512, num_attention_heads=8,
                              num_key_value_heads=8, intermediate_size=1376, vocab_size=32000,
                              max_position_embeddings=4096)),
    "gpt2-4": ("gpt2", dict(n_layer=4, n_embd=768, n_head=12, vocab_size=32000,
                            n_positions=2048)),
    "qwen2-4": ("qwen2", dict(num_hidden_layers=4, hidden_size=896, num_attention_heads=14,
                              num_key_value_heads=2, intermediate_size=4864, vocab_size=32000,
                              max_position_embeddings=4096)),
    "tiny-llama": ("llama", dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                                 num_key_value_heads=4, intermediate_size=128, vocab_size=512,
                                 max_position_embeddings=4096)),
}
#: (shape, L, metric, checkpointing, probes)
CASES = [
    ("bloom-6", 512, "top1-grad", True, 8), ("bloom-6", 512, "top1-grad", False, 8),
    ("bloom-6", 512, "jacobian", True, 2), ("llama-4", 512, "jacobian", True, 8),
    ("llama-4", 512, "jacobian", False, 8), ("llama-4", 256, "top1-grad", True, 8),
    ("llama-4", 1024, "top1-grad", True, 8), ("gpt2-4", 512, "top1-grad", True, 8),
    ("qwen2-4", 512, "top1-grad", True, 8),
]
QUICK = [("tiny-llama", 64, "top1-grad", True, 8), ("tiny-llama", 64, "jacobian", True, 2)]
#: measure --arch cases: (preset, keyword arguments of measure_influence beyond threads)
STEP0_CASES = [
    ("gpt2", dict(length=256, metric="jacobian", probes=8)),
    ("gpt2", dict(length=256, metric="top1-grad", samples=2)),
    ("gpt2", dict(length=1024, layers=4, metric="jacobian", probes=8)),
    ("gpt2", dict(length=256, layers=4, metric="jacobian", probes=8, dtype="float64")),
    ("gpt2", dict(length=256, layers=4, metric="jacobian", probes=8, kernel_inputs=4)),
    ("qwen2-0.5b", dict(length=512, layers=4, metric="jacobian", probes=8)),
    ("bloom-560m", dict(length=512, layers=4, metric="top1-grad", samples=2)),
    ("tinyllama-1.1b", dict(length=512, layers=2, metric="jacobian", probes=4)),
]
STEP0_QUICK = [("tiny-llama", dict(length=64, metric="jacobian", probes=2)),
               ("tiny-gpt2", dict(length=64, metric="top1-grad", samples=2))]


def _build(root: str, shape: str) -> str:
    sys.path.insert(0, ROOT)
    import torch
    import transformers

    from tests.measurements.tiny_checkpoints import generated_text, train_tokenizer

    folder = os.path.join(root, shape)
    if not os.path.isdir(folder):
        model_type, sizes = SHAPES[shape]
        config = transformers.AutoConfig.for_model(model_type, **sizes)
        torch.manual_seed(0)
        transformers.AutoModelForCausalLM.from_config(config).save_pretrained(folder)
        train_tokenizer(generated_text(2000, seed=3), bos=False).save_pretrained(folder)
    return folder


def _step0(args, ratios: list) -> None:
    """The measure --arch part: plan_step0 against measure_influence, the build included."""
    from posbias.measurements.measure import measure_influence
    from posbias.measurements.planning import plan_step0
    from posbias.measurements.presets import PRESETS, resolve_settings

    for preset, kwargs in (STEP0_QUICK if args.quick else STEP0_CASES):
        settings = resolve_settings(PRESETS[preset], layers=kwargs.get("layers"),
                                    length=kwargs["length"])
        for threads in args.threads:
            plan = plan_step0(settings, length=kwargs["length"],
                              dtype=kwargs.get("dtype", "float32"), metric=kwargs["metric"],
                              probes=kwargs.get("probes", 8), samples=kwargs.get("samples", 1),
                              threads=threads, kernel_inputs=kwargs.get("kernel_inputs", 0))
            times = []
            for _ in range(args.repeats):
                t0 = time.perf_counter()
                measure_influence(preset, threads=threads, **kwargs)
                times.append(time.perf_counter() - t0)
            measured = statistics.median(times)
            ratios.append(plan.seconds / measured)
            label = f"--arch {preset} " + " ".join(
                f"{k}={v}" for k, v in kwargs.items() if k != "metric") + f" {kwargs['metric']}"
            print(f"{label:60s} {threads:7d} {plan.seconds:10.3f} {measured:11.3f} "
                  f"{ratios[-1]:6.2f}", flush=True)


def _summary(name: str, ratios: list) -> None:
    print(f"{name} planned / measured: median {statistics.median(ratios):.2f}, range "
          f"{min(ratios):.2f}-{max(ratios):.2f} over {len(ratios)} case(s)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=["checkpoint", "arch", "both"], default="both")
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    print(f"bench_measure_plan: torch {torch.__version__}, {os.cpu_count()} CPU(s), load "
          f"average {os.getloadavg()[0]:.2f} at start")
    print(f"{'case':60s} {'threads':>7s} {'planned s':>10s} {'measured s':>11s} {'ratio':>6s}")
    if args.part in ("checkpoint", "both"):
        _summary("measure --model", _checkpoint(args))
    if args.part in ("arch", "both"):
        ratios: list = []
        _step0(args, ratios)
        _summary("measure --arch", ratios)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


def _checkpoint(args) -> list:
    """The measure --model part: plan_measurement against measure_pretrained, loading not
    counted."""
    from posbias.measurements.checkpoint import load_checkpoint
    from posbias.measurements.planning import plan_measurement
    from posbias.measurements.pretrained import measure_pretrained

    ratios = []
    with tempfile.TemporaryDirectory() as root:
        for shape, length, metric, ckpt, probes in (QUICK if args.quick else CASES):
            loaded = load_checkpoint(_build(root, shape))
            for threads in args.threads:
                plan = plan_measurement(loaded.model.config, length=length, metric=metric,
                                        checkpointing=ckpt, threads=threads, probes=probes)
                times = []
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    measure_pretrained(loaded, None, length=length, metric=metric,
                                       probes=probes, threads=threads, checkpointing=ckpt)
                    times.append(time.perf_counter() - t0)
                measured = statistics.median(times)
                ratio = plan.seconds / measured
                ratios.append(ratio)
                label = (f"{shape} L={length} {metric}" + (f" K={probes}" if metric == "jacobian"
                                                           else "")
                         + ("" if ckpt else " no-ckpt"))
                print(f"{label:60s} {threads:7d} {plan.seconds:10.3f} {measured:11.3f} "
                      f"{ratio:6.2f}", flush=True)
    return ratios


if __name__ == "__main__":
    sys.exit(main())
