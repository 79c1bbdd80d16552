"""Benchmark: training throughput of ``posbias train --task lm-text`` (tokens per second) for
the default model (LLaMA architecture, 8 layers, hidden 128, 4 heads, L = 256, vocabulary
4,096, batch 16), with 1 and 2 torch threads on the CPU, and on an accelerator when one is
present (``--device cuda``).

Run on demand (not collected by pytest)::

    python tests/benchmarks/bench_lm_text.py [--iterations 20] [--repeats 3] [--device cpu]

Each timing runs ``--iterations`` AdamW steps of the training loop of
:mod:`posbias.measurements.lm_text` (next-token loss at every position on random windows of a
fixed token stream: the throughput does not depend on the text) after 2 warm-up steps; the
median over ``--repeats`` is printed with its ratio to the baseline, the figure the planner of
``posbias train --task lm-text`` was calibrated on: 1,252 training tokens/s (one thread, two
shared cores, 2026-12-01).  Also prints the exact-Jacobian influence time of one window (the
cost of ``--record-influence`` and ``--boundary-windows`` per window and evaluation) and the
load average at start (the machine may be shared).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

BASELINE_TOKENS_PER_SECOND = 1252


def _time_training(torch, model, device: str, batch: int, length: int, vocab: int,
                   iterations: int) -> float:
    gen = torch.Generator().manual_seed(0)
    stream = torch.randint(0, vocab, (200_000,), generator=gen)
    span = torch.arange(length + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step() -> None:
        offsets = torch.randint(0, stream.numel() - length - 1, (batch,), generator=gen)
        w = stream[offsets.unsqueeze(1) + span].to(device)
        opt.zero_grad(set_to_none=True)
        logits = model(input_ids=w[:, :-1], use_cache=False).logits
        loss = loss_fn(logits.reshape(-1, vocab), w[:, 1:].reshape(-1))
        loss.backward()
        opt.step()

    for _ in range(2):
        step()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iterations):
        step()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return iterations * batch * length / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    import torch

    from posbias.measurements import hooks, measure
    from posbias.measurements.devices import resolve_device

    device, why = resolve_device(args.device)
    print(f"load average at start: {os.getloadavg()[0]:.2f}; device {device} ({why})")
    cfg = dict(layers=8, hidden=128, heads=4, length=256, vocab=4096)
    batch = 16
    threads = (1, 2) if device == "cpu" else (torch.get_num_threads(),)
    for n in threads:
        torch.set_num_threads(n)
        rates = []
        for r in range(args.repeats):
            model, _ = measure.build_model("llama", seed=4 + r, **cfg)
            model.to(device)
            model.eval()
            rates.append(_time_training(torch, model, device, batch, cfg["length"],
                                        cfg["vocab"], args.iterations))
        med = statistics.median(rates)
        print(f"training, {n} thread(s): median {med:,.0f} tokens/s over {args.repeats} x "
              f"{args.iterations} iterations ({med / (batch * cfg['length']):.2f} it/s); "
              f"{med / BASELINE_TOKENS_PER_SECOND:.2f} x the baseline "
              f"{BASELINE_TOKENS_PER_SECOND:,} tokens/s")
    model, settings = measure.build_model("llama", seed=4, **cfg)
    model.to(device)
    model.eval()
    chunk = hooks.probe_chunk(settings, cfg["length"], cfg["hidden"], 4)
    ids = torch.randint(0, cfg["vocab"], (cfg["length"],)).to(device)
    times = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        measure.influence_profile(model, ids, exact=True, chunk=chunk)
        times.append(time.perf_counter() - t0)
    print(f"exact-Jacobian influence of one window ({torch.get_num_threads()} thread(s)): "
          f"median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
