"""Benchmark: the pretrained-model path (``posbias measure --model ... --text ...``) on a
BLOOM-560m-sized checkpoint (24 blocks, hidden 1024, 16 heads, vocabulary 250880; random
weights, saved with ``save_pretrained`` and reloaded from disk) at L = 512 with 16 text windows,
top-1 gradient influence under per-block checkpointing, lambda and content scores, export.
Target: under 10 minutes and 6 GB on 2 cores.

Run on demand (not collected by pytest)::

    python tests/benchmarks/bench_pretrained.py [--length 512] [--samples 16] [--threads 2]
                                                [--dtype float32] [--batch-size N|auto]
                                                [--device cpu|cuda|auto] [--keep DIR]

The named baseline is the first recorded run of this benchmark, 539 s (load and measure, one
window at a time, 2 threads, 2026-12-01); the ratio against it is printed.

Step 1 (a subprocess) builds and saves the checkpoint and a word-level tokenizer trained on a
generated text; step 2 (a fresh subprocess, so that its peak resident memory ``ru_maxrss``
counts only loading and measuring) runs the measurement and the export.  Prints the wall times,
the peak memory, the load average at start (the machine may be shared) and the measured
figures.
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

BLOOM_560M = dict(n_layer=24, hidden_size=1024, n_head=16, vocab_size=250880)  # its config.json


def _build(folder: str) -> None:
    sys.path.insert(0, ROOT)
    import torch
    import transformers

    from tests.measurements.tiny_checkpoints import generated_text, train_tokenizer

    config = transformers.AutoConfig.for_model("bloom", **BLOOM_560M)
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config)
    model.save_pretrained(folder)
    text = generated_text(40000, seed=3)
    train_tokenizer(text, bos=False).save_pretrained(folder)
    with open(os.path.join(folder, "corpus.txt"), "w", encoding="utf-8") as fh:
        fh.write(text)


#: load + measure of the first recorded run (batch 1, 2 threads, CPU), seconds
BASELINE_S = 539.0
BASELINE_PER_WINDOW_S = BASELINE_S / 16


def _measure(folder: str, length: int, samples: int, threads: int, dtype: str,
             batch: int | str, device: str, checkpointing: bool) -> None:
    import resource

    from posbias.measurements.checkpoint import load_checkpoint
    from posbias.measurements.export import rollout_config_yaml
    from posbias.measurements.pretrained import measure_pretrained
    from posbias.measurements.text import text_windows

    t0 = time.perf_counter()
    loaded = load_checkpoint(folder, dtype=dtype, device=device)
    t1 = time.perf_counter()
    w = text_windows(loaded.tokenizer, os.path.join(folder, "corpus.txt"), length=length,
                     samples=samples, seed=0)
    m = measure_pretrained(loaded, w.ids, threads=threads, inputs=w.describe(), batch_size=batch,
                           checkpointing=checkpointing,
                           progress=lambda msg: print(f"[bench] {msg}", file=sys.stderr, flush=True))
    config = rollout_config_yaml(m)
    t2 = time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak = usage.ru_maxrss / 1024
    p = m.profile
    print(json.dumps({"load_s": t1 - t0, "measure_s": t2 - t1, "peak_mib": peak,
                      "cpu_s": usage.ru_utime + usage.ru_stime,
                      "per_window_s": m.seconds / samples, "lambda_first_last":
                      [float(m.lambdas[0]), float(m.lambdas[-1])],
                      "p1_over_min": float(p[0] / p.min()), "pL_over_min": float(p[-1] / p.min()),
                      "argmin": int(p.argmin()) + 1, "config_bytes": len(config)}))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--length", type=int, default=512)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", default="float32", choices=("float32", "bfloat16"))
    ap.add_argument("--batch-size", default="1", help="windows per pass: N or auto")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--no-checkpointing", action="store_true",
                    help="keep every block's activations instead of recomputing them")
    ap.add_argument("--keep", metavar="DIR", help="build the checkpoint in DIR and keep it")
    ap.add_argument("--step", choices=("build", "measure"), help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.step == "build":
        _build(args.folder)
        return 0
    if args.step == "measure":
        batch = args.batch_size if args.batch_size == "auto" else int(args.batch_size)
        _measure(args.folder, args.length, args.samples, args.threads, args.dtype, batch,
                 args.device, not args.no_checkpointing)
        return 0

    import torch
    import transformers

    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or os.path.join(tmp, "bloom-560m-random")
        os.makedirs(folder, exist_ok=True)
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), PYTHONPATH=ROOT)
        t = time.perf_counter()
        if not os.path.exists(os.path.join(folder, "config.json")):
            subprocess.run([sys.executable, __file__, "--step", "build", "--folder", folder],
                           check=True, env=env)
        build = time.perf_counter() - t
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        out = subprocess.run([sys.executable, __file__, "--step", "measure", "--folder", folder,
                              "--length", str(args.length), "--samples", str(args.samples),
                              "--threads", str(args.threads), "--dtype", args.dtype,
                              "--batch-size", args.batch_size, "--device", args.device]
                             + (["--no-checkpointing"] if args.no_checkpointing else []),
                             check=True, env=env, stdout=subprocess.PIPE, text=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
    total = r["load_s"] + r["measure_s"]
    print(f"bench_pretrained: BLOOM-560m shape (24 blocks, hidden 1024, 16 heads, vocab 250880), "
          f"random weights saved and reloaded ({size / 2**30:.2f} GiB on disk), {args.dtype}, "
          f"L = {args.length}, {args.samples} text windows, top1-grad, batch {args.batch_size}, "
          f"{'no ' if args.no_checkpointing else ''}per-block checkpointing, "
          f"{args.device}, {args.threads} thread(s), "
          f"torch {torch.__version__}, transformers {transformers.__version__}")
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on "
          f"{os.cpu_count()} cores")
    print(f"build and save (not timed against the target): {build:.1f} s")
    print(f"load {r['load_s']:.1f} s + measure and export {r['measure_s']:.1f} s = {total:.1f} s "
          f"(target < 600 s: {'met' if total < 600 else 'NOT met'}); "
          f"{r['per_window_s']:.1f} s per window")
    if args.samples == 16 and args.length == 512:
        print(f"baseline (first recorded run, batch 1, 2 threads): {BASELINE_S:.0f} s; this run "
              f"{BASELINE_S / total:.2f}x faster")
    else:
        print(f"baseline per window: {BASELINE_PER_WINDOW_S:.1f} s (its {BASELINE_S:.0f} s over "
              f"16 windows at L = 512, load included); this run "
              f"{BASELINE_PER_WINDOW_S / r['per_window_s']:.2f}x per window"
              + ("" if args.length == 512 else " (a different L: only indicative)"))
    print(f"CPU time of load + measure: {r['cpu_s']:.1f} s (user + system, all threads)")
    print(f"peak resident memory of load + measure: {r['peak_mib']:.0f} MiB "
          f"(target < 6144 MiB: {'met' if r['peak_mib'] < 6144 else 'NOT met'})")
    print(f"lambda first/last layer {r['lambda_first_last'][0]:.4g} / "
          f"{r['lambda_first_last'][1]:.4g}; p(1)/min {r['p1_over_min']:.4g}, "
          f"p(L)/min {r['pL_over_min']:.4g}, argmin {r['argmin']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
