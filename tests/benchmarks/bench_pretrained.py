"""Benchmark: the pretrained-model path (``posbias measure --model ... --text ...``) on a
checkpoint of a real model's shape with random weights: top-1 gradient influence under per-block
checkpointing, lambda and content scores, export.

Shapes (``--shape``):

- ``bloom-560m`` (default): 24 blocks, hidden 1024, 16 heads, vocabulary 250880, weights saved
  with ``save_pretrained`` and reloaded from disk; L = 512, 16 text windows. Targets: under 10
  minutes and 6 GB on 2 cores; 1.5x faster than the baseline below with batching; on one GPU
  under 15 s.
- ``llama-7b``: LLaMA-2-7B's shape (32 blocks, hidden 4096, 32 heads, MLP 11008, vocabulary
  32000), meant for an accelerator with ``--dtype bfloat16 --length 2048 --samples 64
  --random-init``. Target on one GPU: under 5 minutes.
- ``tiny-bloom``, ``tiny-llama``: 2 blocks, hidden 64, for a quick check that the benchmark runs
  (``tests/benchmarks/test_gpu_runbook.py`` runs them on the CPU).

``--random-init`` saves the configuration and the tokenizer only and measures the model at Step 0
(``load_checkpoint(random_init=True)``: initialized on the CPU by the seeded generator, then moved
to ``--device``), so that a 7B shape needs no 13 GB of weights on disk.

Run on demand (not collected by pytest)::

    python tests/benchmarks/bench_pretrained.py [--shape bloom-560m] [--length 512]
        [--samples 16] [--threads 2] [--dtype float32] [--batch-size N|auto]
        [--device cpu|cuda|auto] [--random-init] [--keep DIR] [--json FILE]

The named baseline is the first recorded run of the BLOOM-560m shape, 539 s (load and measure,
one window at a time, 2 threads, CPU, 2026-12-01); the ratio against it is printed.

Step 1 (a subprocess) builds and saves the checkpoint and a word-level tokenizer trained on a
generated text; step 2 (a fresh subprocess, so that its peak resident memory ``ru_maxrss``
counts only loading and measuring) runs the measurement and the export.  Prints the wall times,
the peak memory (host, and the GPU's peak allocation on CUDA), the load average at start (the
machine may be shared) and the measured figures; ``--json FILE`` writes them too.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

#: (model type, configuration, what the summary calls it); the sizes are the models' config.json
SHAPES = {
    "bloom-560m": ("bloom", dict(n_layer=24, hidden_size=1024, n_head=16, vocab_size=250880),
                   "BLOOM-560m shape (24 blocks, hidden 1024, 16 heads, vocab 250880)"),
    "llama-7b": ("llama", dict(num_hidden_layers=32, hidden_size=4096, num_attention_heads=32,
                               num_key_value_heads=32, intermediate_size=11008, vocab_size=32000,
                               max_position_embeddings=4096),
                 "LLaMA-2-7B shape (32 blocks, hidden 4096, 32 heads, MLP 11008, vocab 32000)"),
    "tiny-bloom": ("bloom", dict(n_layer=2, hidden_size=64, n_head=4, vocab_size=512),
                   "tiny BLOOM (2 blocks, hidden 64, 4 heads, vocab 512)"),
    "tiny-llama": ("llama", dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
                                 num_key_value_heads=4, intermediate_size=128, vocab_size=512,
                                 max_position_embeddings=4096),
                   "tiny LLaMA (2 blocks, hidden 64, 4 heads, vocab 512)"),
}
BLOOM_560M = SHAPES["bloom-560m"][1]
#: targets on one GPU (load + measure, seconds), per shape, at the issue's settings
GPU_TARGET_S = {"bloom-560m": 15.0, "llama-7b": 300.0}


def _corpus_words(length: int, samples: int) -> int:
    """Words of the generated corpus: 40,000 (the BLOOM-560m runs' corpus, L = 512 and 16
    windows), or enough for ``samples`` windows of ``length`` tokens with room to draw them."""
    return max(40000, 3 * length * samples)


def _build(folder: str, shape: str, random_init: bool, words: int) -> None:
    sys.path.insert(0, ROOT)
    import torch
    import transformers

    from tests.measurements.tiny_checkpoints import generated_text, train_tokenizer

    model_type, sizes, _ = SHAPES[shape]
    config = transformers.AutoConfig.for_model(model_type, **sizes)
    if random_init:  # the configuration alone: the measurement initializes the model
        config.save_pretrained(folder)
    else:
        torch.manual_seed(0)
        model = transformers.AutoModelForCausalLM.from_config(config)
        model.save_pretrained(folder)
    text = generated_text(words, seed=3)
    train_tokenizer(text, bos=False).save_pretrained(folder)
    with open(os.path.join(folder, "corpus.txt"), "w", encoding="utf-8") as fh:
        fh.write(text)


#: load + measure of the first recorded run (batch 1, 2 threads, CPU), seconds
BASELINE_S = 539.0
BASELINE_PER_WINDOW_S = BASELINE_S / 16


def _measure(folder: str, length: int, samples: int, threads: int, dtype: str,
             batch: int | str, device: str, checkpointing: bool, random_init: bool) -> None:
    import resource

    import torch

    from posbias.measurements.checkpoint import load_checkpoint
    from posbias.measurements.export import rollout_config_yaml
    from posbias.measurements.pretrained import measure_pretrained
    from posbias.measurements.text import text_windows

    torch.set_num_threads(threads)
    t0 = time.perf_counter()
    loaded = load_checkpoint(folder, dtype=dtype, device=device, random_init=random_init)
    cuda = next(loaded.model.parameters()).device.type == "cuda"
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    t1 = time.perf_counter()
    w = text_windows(loaded.tokenizer, os.path.join(folder, "corpus.txt"), length=length,
                     samples=samples, seed=0)
    notes: list[str] = []  # what the automatic batch chose, and any halving

    def progress(msg: str) -> None:
        if "batch" in msg:
            notes.append(msg)
        print(f"[bench] {msg}", file=sys.stderr, flush=True)

    m = measure_pretrained(loaded, w.ids, threads=threads, inputs=w.describe(), batch_size=batch,
                           checkpointing=checkpointing, progress=progress)
    config = rollout_config_yaml(m)
    if cuda:
        torch.cuda.synchronize()
    t2 = time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak = usage.ru_maxrss / 1024
    p = m.profile
    print(json.dumps({"load_s": t1 - t0, "measure_s": t2 - t1, "peak_mib": peak,
                      "gpu_peak_mib": torch.cuda.max_memory_allocated() / 2**20 if cuda else None,
                      "gpu_name": torch.cuda.get_device_name() if cuda else None,
                      "device": m.details.get("device"), "batch_notes": notes,
                      "cpu_s": usage.ru_utime + usage.ru_stime,
                      "per_window_s": m.seconds / samples, "lambda_first_last":
                      [float(m.lambdas[0]), float(m.lambdas[-1])],
                      "p1_over_min": float(p[0] / p.min()), "pL_over_min": float(p[-1] / p.min()),
                      "argmin": int(p.argmin()) + 1, "config_bytes": len(config)}))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="bloom-560m", choices=sorted(SHAPES))
    ap.add_argument("--length", type=int, default=512)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"))
    ap.add_argument("--batch-size", default="1", help="windows per pass: N or auto")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--no-checkpointing", action="store_true",
                    help="keep every block's activations instead of recomputing them")
    ap.add_argument("--random-init", action="store_true",
                    help="save no weights: measure the shape at Step 0 (initialized on the CPU)")
    ap.add_argument("--keep", metavar="DIR", help="build the checkpoint in DIR and keep it")
    ap.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    ap.add_argument("--step", choices=("build", "measure"), help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.step == "build":
        _build(args.folder, args.shape, args.random_init,
               _corpus_words(args.length, args.samples))
        return 0
    if args.step == "measure":
        batch = args.batch_size if args.batch_size == "auto" else int(args.batch_size)
        _measure(args.folder, args.length, args.samples, args.threads, args.dtype, batch,
                 args.device, not args.no_checkpointing, args.random_init)
        return 0

    import torch
    import transformers

    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or os.path.join(tmp, f"{args.shape}-random")
        os.makedirs(folder, exist_ok=True)
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
                   PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH"))
                                              if p))
        t = time.perf_counter()
        if not os.path.exists(os.path.join(folder, "config.json")):
            subprocess.run([sys.executable, __file__, "--step", "build", "--folder", folder,
                            "--shape", args.shape, "--length", str(args.length),
                            "--samples", str(args.samples)]
                           + (["--random-init"] if args.random_init else []), check=True, env=env)
        build = time.perf_counter() - t
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        out = subprocess.run([sys.executable, __file__, "--step", "measure", "--folder", folder,
                              "--length", str(args.length), "--samples", str(args.samples),
                              "--threads", str(args.threads), "--dtype", args.dtype,
                              "--batch-size", args.batch_size, "--device", args.device]
                             + (["--no-checkpointing"] if args.no_checkpointing else [])
                             + (["--random-init"] if args.random_init else []),
                             check=True, env=env, stdout=subprocess.PIPE, text=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
    total = r["load_s"] + r["measure_s"]
    on_gpu = r["gpu_name"] is not None
    weights = ("random weights at Step 0 (configuration and tokenizer saved, "
               f"{size / 2**20:.1f} MiB)" if args.random_init else
               f"random weights saved and reloaded ({size / 2**30:.2f} GiB on disk)")
    print(f"bench_pretrained: {SHAPES[args.shape][2]}, {weights}, {args.dtype}, "
          f"L = {args.length}, {args.samples} text windows, top1-grad, batch {args.batch_size}, "
          f"{'no ' if args.no_checkpointing else ''}per-block checkpointing, "
          f"{r['device']}{' (' + r['gpu_name'] + ')' if on_gpu else ''}, "
          f"{args.threads} thread(s), torch {torch.__version__}, "
          f"transformers {transformers.__version__}")
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
          f"{os.cpu_count()} cores")
    for note in r["batch_notes"]:
        print(f"batch: {note}")
    print(f"build and save (not timed against the target): {build:.1f} s")
    target = GPU_TARGET_S.get(args.shape) if on_gpu else (600.0 if args.shape == "bloom-560m"
                                                          else None)
    verdict = "" if target is None else (f" (target < {target:.0f} s: "
                                         f"{'met' if total < target else 'NOT met'})")
    print(f"load {r['load_s']:.1f} s + measure and export {r['measure_s']:.1f} s = {total:.1f} s"
          f"{verdict}; {r['per_window_s']:.2f} s per window")
    if args.shape == "bloom-560m" and args.samples == 16 and args.length == 512:
        print(f"baseline (first recorded run, batch 1, 2 threads, CPU): {BASELINE_S:.0f} s; "
              f"this run {BASELINE_S / total:.2f}x faster")
    elif args.shape == "bloom-560m":
        print(f"baseline per window: {BASELINE_PER_WINDOW_S:.1f} s (its {BASELINE_S:.0f} s over "
              f"16 windows at L = 512, load included); this run "
              f"{BASELINE_PER_WINDOW_S / r['per_window_s']:.2f}x per window"
              + ("" if args.length == 512 else " (a different L: only indicative)"))
    print(f"CPU time of load + measure: {r['cpu_s']:.1f} s (user + system, all threads)")
    host_target = " (target < 6144 MiB: " + ("met" if r["peak_mib"] < 6144 else "NOT met") + ")"
    print(f"peak resident memory of load + measure: {r['peak_mib']:.0f} MiB"
          + (host_target if args.shape == "bloom-560m" and not on_gpu else ""))
    if on_gpu:
        print(f"peak GPU memory allocated during the measurement: {r['gpu_peak_mib']:.0f} MiB")
    print(f"lambda first/last layer {r['lambda_first_last'][0]:.4g} / "
          f"{r['lambda_first_last'][1]:.4g}; p(1)/min {r['p1_over_min']:.4g}, "
          f"p(L)/min {r['pL_over_min']:.4g}, argmin {r['argmin']}")
    if args.json:
        record = dict(r, shape=args.shape, length=args.length, samples=args.samples,
                      dtype=args.dtype, batch_size=args.batch_size, threads=args.threads,
                      random_init=args.random_init, checkpointing=not args.no_checkpointing,
                      build_s=build, total_s=total, target_s=target,
                      met=None if target is None else total < target,
                      torch=torch.__version__, transformers=transformers.__version__,
                      load_average=load)
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
