r"""Training wu2025's in-context classification network and logging its position preference.

One *run* trains :func:`~posbias.measurements.icl.build_network` on batches of
:func:`~posbias.measurements.icl.train_batch` with AdamW and cross-entropy, and evaluates at
iteration 0, every ``eval_every`` iterations and at the end:

* the plain in-context accuracy on novel classes (:func:`~posbias.measurements.icl.in_context_set`;
  a network that copies one of the two labels present at random scores about 0.516): the gate
  that says whether the network has learned in-context matching at all;
* the accuracies of the six test sets ``IC_X_Y`` and the paired differences
  ``Acc(X_Y) - Acc(Y_X)`` for ``(X, Y)`` in (first, middle), (first, last), (middle, last), each
  with its standard error ``sd(c_XY - c_YX) / sqrt(size)`` from the per-sequence correctness;
* with ``influence_samples > 0``, the Jacobian influence profile of the final position
  (:func:`~posbias.measurements.icl.final_position_influence`) on that many in-context sequences.

Random streams, all from the run's ``seed``: the world (class means, labels) from
``16 seed + 1``, the test sets from ``16 seed + 2``, the training batches from ``16 seed + 3``,
the initial weights from torch's global generator seeded with ``16 seed + 4``.  With one thread
the same seed gives the same numbers on the same machine, and a run resumed from a checkpoint
(weights, optimizer state, batch-generator state, history) continues exactly as an
uninterrupted one.

torch (and tqdm for the progress bar) are the ``models`` extra, imported inside the functions.
"""

from __future__ import annotations

import dataclasses
import math
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.measurements import icl
from posbias.resources import Plan
from posbias.validation import check_choice, check_integer, check_real

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used
    import threading

    from torch import Generator, Tensor
    from torch.nn import Module

__all__ = [
    "RESULTS_FORMAT",
    "TASKS",
    "TrainConfig",
    "check_seeds",
    "check_threads",
    "checkpoint_path",
    "completed_iterations",
    "history_csv",
    "iterations_left",
    "merge_results",
    "plan_training",
    "results_document",
    "train_run",
    "train_seeds",
]

TASKS = ("wu2025-icl",)
RESULTS_FORMAT = "posbias-trained/1"
_EVAL_CHUNK = 2500


@dataclass(frozen=True)
class TrainConfig:
    """One training configuration (everything but the seed).

    Defaults are wu2025's: AdamW, ``lr = 1e-3``, weight decay ``1e-6``, batch 128, test sets
    of 10,000 sequences, residual connections on, unbiased training data.
    """

    mask: str = "causal"
    pe: str = "none"
    residual: bool = True
    iterations: int = 20000
    lr: float = 1e-3
    weight_decay: float = 1e-6
    batch: int = 128
    train_bias: str = "none"
    eval_every: int = 500
    test_size: int = 10000
    influence_samples: int = 0
    task: icl.ICLTask = field(default_factory=icl.ICLTask)

    def __post_init__(self) -> None:
        icl.parse_mask(self.mask)
        check_choice("pe", self.pe, icl.POSITIONAL_ENCODINGS)
        if not isinstance(self.residual, bool):
            raise InvalidArgument("residual", self.residual, "True or False")
        check_integer("iterations", self.iterations, 0)
        check_real("lr", self.lr, 0, lo_open=True)
        check_real("weight_decay", self.weight_decay, 0)
        check_integer("batch", self.batch, 1)
        check_choice("train_bias", self.train_bias, ("none", *icl.POSITIONS))
        check_integer("eval_every", self.eval_every, 1)
        check_integer("test_size", self.test_size, 2)
        check_integer("influence_samples", self.influence_samples, 0)

    @property
    def name(self) -> str:
        """A file-name-safe name, e.g. ``causal_none_res_lr0.003``."""
        mask = self.mask.replace(":", "")
        parts = [mask, self.pe, "res" if self.residual else "nores", f"lr{self.lr:g}"]
        if self.train_bias != "none":
            parts.append(f"bias-{self.train_bias}")
        return "_".join(parts)

    def as_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["task"] = self.task.as_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict) -> TrainConfig:
        d = dict(d)
        task = icl.ICLTask(**d.pop("task", {}))
        return cls(task=task, **d)

    def same_run(self, other: TrainConfig) -> bool:
        """Equal up to the number of iterations (a run may be resumed to go further)."""
        return dataclasses.replace(self, iterations=0) == dataclasses.replace(other, iterations=0)


def _torch():
    try:
        import torch
    except ImportError:
        raise NeedsExtra("models", "torch") from None
    return torch


def _generator(torch: ModuleType, seed: int, stream: int) -> Generator:
    return torch.Generator().manual_seed(16 * seed + stream)


def checkpoint_path(directory: str, config: TrainConfig, seed: int) -> str:
    return os.path.join(directory, f"{config.name}_seed{seed}.pt")


def _atomic_save(torch: ModuleType, obj: object, path: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    # torch's zip writer names the archive after the file: no leading dot
    fd, tmp = tempfile.mkstemp(prefix="posbias-partial-", suffix=".pt", dir=directory)
    os.close(fd)
    try:
        torch.save(obj, tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _test_sets(torch: ModuleType, config: TrainConfig, world: icl.World, seed: int,
               ) -> dict[str, tuple[Tensor, Tensor]]:
    g = _generator(torch, seed, 2)
    sets = {"in_context": icl.in_context_set(world, config.test_size, g)}
    for x, y in icl.TEST_PAIRS:
        xy, yx, _ = icl.paired_test_sets(world, x, y, config.test_size, g)
        sets[f"{x}_{y}"] = xy
        sets[f"{y}_{x}"] = yx
    return sets


def _correct(torch, model, inputs, targets):
    out = []
    with torch.no_grad():
        for start in range(0, inputs.shape[0], _EVAL_CHUNK):
            logits = model(inputs[start:start + _EVAL_CHUNK])
            out.append(logits.argmax(dim=-1) == targets[start:start + _EVAL_CHUNK])
    return torch.cat(out).cpu().double()


def _on_cpu(obj):
    """``obj`` (a state dict, optimizer state, nested dicts and lists) with every tensor on
    the CPU: a checkpoint written on an accelerator is read anywhere.  On the CPU every tensor
    is returned as it is."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.cpu()
    if isinstance(obj, dict):
        return {k: _on_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_on_cpu(v) for v in obj)
    return obj


def _to_device(sets: dict, device: str) -> dict:
    """Test sets ``{name: (inputs, targets)}`` drawn on the CPU, moved to ``device``."""
    return {name: tuple(t.to(device) for t in data) for name, data in sets.items()}


def _round(x: float, digits: int = 6) -> float:
    return float(f"{x:.{digits}g}")


def _evaluate(torch: ModuleType, model: Module, sets: dict[str, tuple[Tensor, Tensor]],
              config: TrainConfig, influence_inputs: Tensor | None) -> dict[str, Any]:
    model.eval()
    correct = {name: _correct(torch, model, *data) for name, data in sets.items()}
    n = config.test_size
    acc = {name: _round(float(c.mean())) for name, c in correct.items() if name != "in_context"}
    diff, se = {}, {}
    for x, y in icl.TEST_PAIRS:
        d = correct[f"{x}_{y}"] - correct[f"{y}_{x}"]
        diff[f"{x}-{y}"] = _round(float(d.mean()))
        se[f"{x}-{y}"] = _round(float(d.std(unbiased=True)) / math.sqrt(n), 3)
    entry = {"ic_accuracy": _round(float(correct["in_context"].mean())), "accuracy": acc,
             "difference": diff, "difference_se": se}
    if influence_inputs is not None:
        prof = icl.final_position_influence(model, influence_inputs)
        entry["influence"] = [_round(float(p), 6) for p in prof]
    model.train()
    return entry


def _restore(torch: ModuleType, path: str, config: Any, seed: int, model: Module, optimizer: Any,
             data: Generator, config_class: type[Any]) -> tuple[list, int, float]:
    """Load the checkpoint at ``path`` (weights, optimizer state, batch-generator state) into
    ``model``, ``optimizer`` and ``data`` after checking it belongs to this run; returns its
    ``(history, iteration, elapsed)``."""
    state = _load_state(torch, path)
    try:
        old = config_class.from_dict(state["config"])
    except (InvalidArgument, KeyError, TypeError, ValueError) as exc:
        raise InvalidArgument("resume", path, f"a checkpoint whose config is readable ({exc})") from None
    if not old.same_run(config) or state["seed"] != seed:
        raise InvalidArgument("resume", path, f"a checkpoint of {config.name}, seed {seed}")
    if state["iteration"] > config.iterations:
        raise InvalidArgument("iterations", config.iterations,
                              f"at least the checkpoint's {state['iteration']} iterations")
    try:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        data.set_state(state["data_generator"])
    except (RuntimeError, KeyError, TypeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InvalidArgument("resume", path, "a checkpoint whose weights, optimizer and "
                              f"generator state fit this model ({first})") from None
    return state["history"], state["iteration"], state["elapsed"]


#: the entries of a checkpoint and their types (validated after a weights-only load)
_STATE_TYPES: dict[str, type | tuple[type, ...]] = {
    "config": dict, "seed": int, "iteration": int, "model": dict, "optimizer": dict,
    "history": list, "elapsed": (int, float)}


def _load_state(torch: ModuleType, path: str) -> dict:
    """Read a checkpoint written by :func:`_save_state` without executing anything in it.

    ``torch.load(weights_only=True)`` unpickles only tensors, containers and plain values: a
    crafted file that would run code on loading is refused.  A truncated or foreign file, or one
    whose entries have the wrong types, is refused naming the file (exit status 2 at the
    command line), never an internal error.
    """
    import pickle
    import zipfile

    try:
        state = torch.load(path, weights_only=True, map_location="cpu")
    except (pickle.UnpicklingError, RuntimeError, EOFError, zipfile.BadZipFile, ValueError,
            AttributeError, ImportError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InvalidArgument("resume", path, "a posbias training checkpoint (weights-only "
                              f"loading refused it: {first[:200]})") from None
    if not isinstance(state, dict):
        raise InvalidArgument("resume", path, "a posbias training checkpoint (a dict of entries)")
    for key, kind in _STATE_TYPES.items():
        if not isinstance(state.get(key), kind) or isinstance(state.get(key), bool):
            raise InvalidArgument("resume", path, f"a posbias training checkpoint with entry "
                                  f"{key!r} of type {kind if isinstance(kind, type) else kind[0]}")
    if not isinstance(state.get("data_generator"), torch.Tensor):
        raise InvalidArgument("resume", path, "a posbias training checkpoint with a generator state")
    return state


def _append_evaluation(torch: ModuleType, entry: dict[str, Any], seconds: float,
                       history: list[dict], log: Callable[[dict[str, Any]], object] | None,
                       path: str | None, config: Any, seed: int, model: Any, optimizer: Any,
                       data: Any) -> None:
    """Close an evaluation entry of a training loop: its wall time, appended to ``history``,
    passed to ``log``, and the checkpoint at ``path`` rewritten (every task's loop).  The entry
    records the torch thread count of the iterations before it (``threads``): a run resumed
    with another count than it began with is reproducible only segment by segment, and its
    history says where the count changed."""
    entry["threads"] = torch.get_num_threads()
    entry["seconds"] = round(seconds, 2)
    history.append(entry)
    if log is not None:
        log(entry)
    if path:
        _save_state(torch, path, config, seed, entry["iteration"], model, optimizer, data,
                    history, seconds)


def _save_state(torch: ModuleType, path: str, config: Any, seed: int, iteration: int,
                model: Module, optimizer: Any, data: Generator, history: list,
                seconds: float) -> None:
    """The checkpoint :func:`_restore` reads, written atomically."""
    _atomic_save(torch, {"config": config.as_dict(), "seed": seed, "iteration": iteration,
                         "model": _on_cpu(model.state_dict()),
                         "optimizer": _on_cpu(optimizer.state_dict()),
                         "data_generator": data.get_state(), "history": history,
                         "elapsed": seconds}, path)


def _progress_bar(progress: Any, config: Any, seed: int, start: int, end: int) -> Any:
    """A tqdm bar over the iterations (``progress=None``: when stderr is a terminal), or None;
    a bar object given as ``progress`` (a worker's relay to its parent) is used as it is."""
    if hasattr(progress, "update"):
        progress.n = start
        return progress
    if progress is None:
        progress = sys.stderr.isatty()
    if not progress or end <= start:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with transformers
        return None
    return tqdm(total=config.iterations, initial=start, unit="it", file=sys.stderr,
                desc=f"{config.name} seed {seed}", dynamic_ncols=True, leave=False)


def _run_result(seed: int, history: list, wall: float) -> dict:
    """The per-seed result document of a finished run."""
    done = history[-1]["iteration"]
    return {"seed": seed, "iterations": done, "wall_seconds": round(wall, 1),
            "iterations_per_second": round(done / wall, 1) if wall > 0 else None,
            "history": history}


def train_run(config: TrainConfig, seed: int, *, checkpoint_dir: str | None = None,
              resume: bool = False, progress: bool | None = None,
              log: Callable[[dict[str, Any]], object] | None = None,
              stop_after: int | None = None, device: str = "cpu") -> dict:
    """Train one seed of ``config``; returns the run record (``seed``, ``iterations``,
    ``wall_seconds``, ``iterations_per_second``, ``history``).

    ``device``: where the network trains (``"cpu"`` by default, ``"cuda"``, ``"cuda:N"``,
    ``"mps"``, ``"auto"``; :func:`posbias.measurements.devices.resolve_device`).  The world,
    the test sets, the initial weights and every batch are drawn on the CPU as in a CPU run and
    moved there; checkpoints hold CPU tensors.

    ``checkpoint_dir``: a checkpoint is written there at every evaluation; with ``resume`` the
    run continues from the checkpoint of the same configuration and seed when there is one
    (a checkpoint of another configuration is an error).  ``progress``: a tqdm bar with ETA on
    stderr (default: only when stderr is a terminal).  ``log(entry)`` is called after each
    evaluation.  ``stop_after`` ends the run early after that many iterations (as an
    interruption would; used to test ``resume``).
    """
    torch = _torch()
    seed = check_integer("seed", seed, 0, 2 ** 40)
    from posbias.measurements.devices import resolve_device

    device, _ = resolve_device(device)
    if resume and checkpoint_dir is None:
        raise InvalidArgument("resume", resume, "a checkpoint directory to resume from")
    world = icl.make_world(config.task, _generator(torch, seed, 1))
    sets = _to_device(_test_sets(torch, config, world, seed), device)
    influence_inputs = None
    if config.influence_samples:
        influence_inputs = sets["in_context"][0][: config.influence_samples]
    torch.manual_seed(16 * seed + 4)
    model = icl.build_network(config.task, config.mask, config.pe, config.residual).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr,
                                  weight_decay=config.weight_decay)
    data = _generator(torch, seed, 3)
    history: list[dict] = []
    start_iter, elapsed = 0, 0.0
    path = checkpoint_path(checkpoint_dir, config, seed) if checkpoint_dir else None
    if resume and path and os.path.exists(path):
        history, start_iter, elapsed = _restore(torch, path, config, seed, model, optimizer, data,
                                                TrainConfig)
    model.train()
    loss_fn = torch.nn.CrossEntropyLoss()

    def record(iteration, pending_losses, pending_hits, seconds):
        # the iterations' losses and hits, kept on the device until here: one transfer per
        # evaluation, not a synchronization per iteration; each value as a per-iteration
        # float() of it gave (a float32 loss exactly; each batch's hit rate by the same mean)
        losses = torch.stack(pending_losses).cpu().tolist() if pending_losses else []
        hits = ([float(h.double().mean()) for h in torch.stack(pending_hits).cpu()]
                if pending_hits else [])
        entry = {"iteration": iteration,
                 "loss": _round(sum(losses) / len(losses), 5) if losses else None,
                 "train_accuracy": _round(sum(hits) / len(hits), 5) if hits else None}
        entry.update(_evaluate(torch, model, sets, config, influence_inputs))
        _append_evaluation(torch, entry, seconds, history, log, path, config, seed, model,
                           optimizer, data)

    t0 = time.perf_counter() - elapsed
    if start_iter == 0 and not history:
        record(0, [], [], 0.0)
    end = config.iterations if stop_after is None else min(config.iterations, stop_after)
    bar = _progress_bar(progress, config, seed, start_iter, end)
    losses, hits = [], []
    for it in range(start_iter + 1, end + 1):
        x, y, _, _ = icl.train_batch(world, config.batch, data, config.train_bias)
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        logits = model(x)
        loss = loss_fn(logits, y)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        hits.append(logits.detach().argmax(-1) == y)
        if bar is not None:
            bar.update(1)
        if it % config.eval_every == 0 or it == config.iterations:
            record(it, losses, hits, time.perf_counter() - t0)
            losses, hits = [], []
            if bar is not None:
                e = history[-1]
                bar.set_postfix(ic=e["ic_accuracy"], fm=e["difference"]["first-middle"],
                                fl=e["difference"]["first-last"])
    if bar is not None:
        bar.close()
    return _run_result(seed, history, time.perf_counter() - t0)


#: in a worker of :func:`train_seeds`: the queue its progress goes to (None: no progress)
_PROGRESS_QUEUE: Any = None


def _set_progress_queue(queue: Any) -> None:
    global _PROGRESS_QUEUE  # noqa: PLW0603 - set once per worker process by its initializer
    _PROGRESS_QUEUE = queue


class _QueueBar:
    """The part of a tqdm bar that :func:`train_run` uses, relayed to the parent process:
    ``(seed, iterations done, postfix or None)`` at most every ``every`` iterations and at
    every evaluation."""

    def __init__(self, queue: Any, seed: int, start: int, every: int = 50) -> None:
        self.queue, self.seed, self.n, self.every, self._sent = queue, seed, start, every, start

    def update(self, k: int = 1) -> None:
        self.n += k
        if self.n - self._sent >= self.every:
            self.queue.put((self.seed, self.n, None))
            self._sent = self.n

    def set_postfix(self, **postfix: object) -> None:
        self.queue.put((self.seed, self.n, postfix))
        self._sent = self.n

    def close(self) -> None:
        self.queue.put((self.seed, self.n, None))


def _worker(args: tuple[dict, int, str | None, bool]) -> dict:
    config_dict, seed, checkpoint_dir, resume = args
    torch = _torch()
    torch.set_num_threads(1)
    config = TrainConfig.from_dict(config_dict)
    bar: _QueueBar | None = None
    log: Callable[[dict[str, Any]], object] | None = None
    queue = _PROGRESS_QUEUE
    if queue is not None:
        bar = _QueueBar(queue, seed, 0)

        def relay(entry: dict[str, Any]) -> None:  # each evaluation goes to the parent's log too
            queue.put((seed, None, {_ENTRY: entry}))

        log = relay
    # the relay bar stands in for a tqdm bar: _progress_bar uses an object with update() as it is
    progress: Any = bar if bar is not None else False
    return train_run(config, seed, checkpoint_dir=checkpoint_dir, resume=resume,
                     progress=progress, log=log)


#: the key under which a worker relays an evaluation entry (not a bar's postfix)
_ENTRY = "evaluation"


def _relay_progress(queue: Any, config: Any, seeds: Iterable[int], stop: threading.Event,
                    show: bool, log: Callable[[dict[str, Any]], object] | None) -> None:
    """In the parent: one tqdm bar with ETA per seed (``show``) and ``log(entry)`` for each
    evaluation (the entry with its ``seed``), fed from the workers' queue until ``stop`` is
    set and the queue is drained (a thread of :func:`train_seeds`)."""
    import queue as queue_module

    bars: dict[int, Any] = {}
    if show:
        from tqdm import tqdm

        bars = {s: tqdm(total=config.iterations, unit="it", file=sys.stderr, position=k,
                        desc=f"{config.name} seed {s}", dynamic_ncols=True, leave=False)
                for k, s in enumerate(seeds)}
    try:
        while True:
            try:
                seed, done, postfix = queue.get(timeout=0.2)
            except queue_module.Empty:
                if stop.is_set():
                    break
                continue
            if postfix and _ENTRY in postfix:
                if log is not None:
                    log(dict(postfix[_ENTRY], seed=seed))
                continue
            bar = bars.get(seed)
            if bar is None:
                continue
            if done > bar.n:
                bar.update(done - bar.n)
            if postfix:
                bar.set_postfix(**postfix)
    finally:
        for bar in bars.values():
            bar.close()


def check_jobs_device(jobs: int, device: str) -> None:
    """Seeds in parallel processes train on the CPU only (``jobs > 1`` with an accelerator is
    refused: one process per accelerator, seeds one after the other)."""
    from posbias.measurements.devices import check_device

    if check_device("device", device) != "cpu" and jobs > 1:
        raise InvalidArgument("jobs", jobs, f"1 with device {device} (parallel seeds are "
                              "CPU processes; on an accelerator the seeds run one after another)")


def check_seeds(seeds: object, jobs: int = 1) -> tuple[list[int], int]:
    """Validated ``(seeds, jobs)``: distinct integer seeds in ``0..2^40``, ``1 <= jobs <= 64``."""
    if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__iter__"):
        raise InvalidArgument("seeds", seeds, "a list of one or more distinct seeds")
    seeds = [check_integer("seeds", s, 0, 2 ** 40) for s in seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise InvalidArgument("seeds", seeds, "one or more distinct seeds")
    return seeds, check_integer("jobs", jobs, 1, 64)


#: calibration of :func:`plan_training` on this project's machine (2 cores, torch 2.13 CPU, one
#: thread): peak RSS of `posbias train` with test sets of 2,000 and 40,000 sequences (494 and
#: 1,990 MiB) and with batch 4,096 (634 MiB); 53 iterations per second at batch 128 with
#: evaluations every 2,000 iterations of 10,000 test sequences (the stored 100,000-iteration runs)
_ICL_BASE_BYTES = 450 * 2**20          # interpreter, torch, the world's class means
_ICL_TEST_BYTES_PER_TOKEN_DIM = 40     # 7 test sets built and evaluated (40.3 KB per sequence of 17 x 64)
_ICL_BATCH_BYTES_PER_TOKEN_DIM = 52    # a training batch with its graph (54 KB per sequence)
_ICL_SECONDS_PER_ITERATION_128 = 1 / 70
_ICL_EVAL_SECONDS_PER_TOKEN_DIM = 0.6e-3 / (17 * 64)


def _resolved(device: str) -> str:
    from posbias.measurements.devices import resolve_device

    return resolve_device(device)[0]


def completed_iterations(paths: Iterable[str]) -> int:
    """The fewest iterations that the checkpoints at ``paths`` (one per seed of a run) hold, 0
    when one of them is not there: what every seed of a resumed run has already trained.  Each
    is read as :func:`_load_state` reads it (no code in it is executed)."""
    torch = _torch()
    counts = [int(_load_state(torch, p)["iteration"]) if os.path.exists(p) else 0
              for p in paths]
    return min(counts, default=0)


def iterations_left(iterations: int, eval_every: int, done: int = 0) -> tuple[int, int, str]:
    """What a run resumed after ``done`` iterations still does: ``(iterations, evaluations,
    a note for the plan's title)``; the evaluations are those at the multiples of
    ``eval_every`` after ``done``, the last iteration, and Step 0 when nothing is done (also
    for a run stopped right after its Step-0 evaluation, which its checkpoint already holds:
    one evaluation too many, on the safe side)."""
    done = check_integer("done", done, 0)
    left = max(0, iterations - done)
    evals = iterations // eval_every - min(done, iterations) // eval_every
    evals += (done == 0) + (iterations % eval_every != 0 and done < iterations)
    note = "" if done == 0 else f", resumed at iteration {done}: {left} left"
    return left, evals, note


def plan_training(config: TrainConfig, seeds: int = 1, jobs: int = 1, *, done: int = 0,
                  device: str = "cpu") -> Plan:
    """The memory and time plan of training ``seeds`` seeds of ``config`` in ``jobs``
    processes: peak bytes (per process, times the processes alive at once) and wall seconds on
    this project's machine (2 cores, one thread per process; a faster machine takes less).
    ``done``: the iterations every seed has already trained (a resumed run, from its
    checkpoints): the time is planned for the rest (:func:`iterations_left`).  ``device``:
    where the network trains (a resolved device, ``"cuda:0"``): the test sets and the training
    batch are planned there too, checked against its memory (:class:`posbias.resources.Plan`;
    the host keeps its share, as they are built there first).
    Calibrated against measured peaks (see the constants above); the tests hold a measured peak
    within a factor 1.5 of the plan."""
    seeds = check_integer("seeds", seeds, 1)
    jobs = check_integer("jobs", jobs, 1)
    task = config.task
    td = task.length * task.dim
    at_once = min(jobs, seeds)
    left, evals, resumed = iterations_left(config.iterations, config.eval_every, done)
    per_seed_s = (left * config.batch / 128 * _ICL_SECONDS_PER_ITERATION_128
                  + evals * config.test_size * td * _ICL_EVAL_SECONDS_PER_TOKEN_DIM)
    rounds = -(-seeds // at_once)
    world = 2 * task.classes * task.dim * 4 + task.labels * task.dim * 4
    parts = [
        ("interpreter and torch", _ICL_BASE_BYTES * at_once, 0.0),
        (f"world ({task.classes} class means)", world * at_once, 0.0),
        (f"test sets (7 x {config.test_size} sequences)",
         config.test_size * td * _ICL_TEST_BYTES_PER_TOKEN_DIM * at_once,
         0.0),
        (f"training batch of {config.batch}", config.batch * td * _ICL_BATCH_BYTES_PER_TOKEN_DIM
         * at_once, rounds * per_seed_s),
    ]
    parts, placement = _placed(parts, parts[2:], device)
    return Plan(f"training {config.name} ({seeds} seed(s), {at_once} at once{resumed})", parts,
                "use a smaller --test-size or --batch, or fewer --jobs", placement)


def _placed(parts: list, moved: list, device: str) -> tuple[list, dict[str, str]]:
    """A training plan's parts with those that ``moved`` to an accelerator ``device`` added
    once more, placed there: they are built on the host (the seeded generators draw on the
    CPU) and then moved, so the host's share keeps them too (CUDA's own host memory is not
    counted).  On the CPU: the parts unchanged, no placement."""
    if device == "cpu":
        return parts, {}
    copies = [(f"{name}, moved to {device}", b, 0.0) for name, b, _ in moved]
    return parts + copies, {name: device for name, _, _ in copies}


def train_seeds(config: TrainConfig, seeds: Iterable[int], *, jobs: int = 1,
                checkpoint_dir: str | None = None, resume: bool = False,
                progress: bool | None = None,
                log: Callable[[dict[str, Any]], object] | None = None,
                max_memory: int | None = None, device: str = "cpu",
                threads: int = 1) -> list[dict]:
    """Train every seed; ``jobs > 1`` trains that many seeds at once in separate processes
    (one torch thread each; with ``progress`` one bar per seed, and ``log`` for every
    evaluation with its ``seed``, relayed to this process; CPU only).  ``device`` as in
    :func:`train_run`: on an accelerator the seeds run one after another.  Returns the run
    records in the order of
    ``seeds``.  A run whose plan (:func:`plan_training`) does not fit in the memory the process
    may use (or ``max_memory`` bytes) is refused before it starts.  ``threads``: torch threads
    of this process when the seeds run here, one after another (see :func:`check_threads`)."""
    seeds, jobs = check_seeds(seeds, jobs)
    check_jobs_device(jobs, device)
    threads = check_threads(threads, jobs, len(seeds))
    plan_training(config, len(seeds), jobs, device=_resolved(device)).check(max_memory)
    return _run_seeds(train_run, _worker, config, seeds, jobs, checkpoint_dir=checkpoint_dir,
                      resume=resume, progress=progress, log=log, device=device, threads=threads)


def check_threads(threads: int, jobs: int, seeds: int) -> int:
    """``threads`` torch threads for a training that runs in this process (``jobs == 1`` or a
    single seed); the parallel seeds of ``jobs > 1`` have one thread each, so any other value
    is refused with them.  One thread (the default) gives the same digits on every machine;
    more threads are faster and reproducible only with the same count."""
    threads = check_integer("threads", threads, 1, 1024)
    if threads > 1 and jobs > 1 and seeds > 1:
        raise InvalidArgument("threads", threads, "1 with --jobs > 1 (each parallel seed has one "
                              "thread)")
    return threads


def _run_seeds(run: Callable[..., dict], worker: Callable[[tuple], dict], config: Any,
               seeds: list[int], jobs: int, *, checkpoint_dir: str | None, resume: bool,
               progress: bool | None, log: Callable[[dict[str, Any]], object] | None,
               device: str = "cpu", threads: int = 1) -> list[dict]:
    """``run(config, seed, ..., device=device)`` for every seed in this process (``threads``
    torch threads, default one), or, with ``jobs > 1`` and several seeds, ``worker((config dict, seed,
    checkpoint_dir, resume))`` in ``jobs`` separate CPU processes (the callers refuse ``jobs >
    1`` with an accelerator).  The records come back in the order of ``seeds``."""
    if jobs == 1 or len(seeds) == 1:
        torch = _torch()
        torch.set_num_threads(threads)
        return [run(config, s, checkpoint_dir=checkpoint_dir, resume=resume,
                    progress=progress, log=log, device=device) for s in seeds]
    import threading

    from posbias.resources import map_in_processes, spawn_queue

    tasks = [(config.as_dict(), s, checkpoint_dir, resume) for s in seeds]
    if progress is None:
        progress = sys.stderr.isatty()
    if worker is not _worker or (not progress and log is None):
        # Ctrl-C or SIGTERM ends the seeds' processes; their checkpoints stay for --resume
        return map_in_processes(worker, tasks, jobs)
    # one bar with ETA per seed in this process, and the log, fed by the workers via a queue
    queue, stop = spawn_queue(), threading.Event()
    relay = threading.Thread(target=_relay_progress,
                             args=(queue, config, seeds, stop, bool(progress), log), daemon=True)
    relay.start()
    try:
        return map_in_processes(worker, tasks, jobs, initializer=_set_progress_queue,
                                initargs=(queue,))
    finally:
        stop.set()
        relay.join(timeout=5)


def _versions() -> dict:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("torch", "numpy"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:  # pragma: no cover
            out[name] = None
    from posbias import __version__

    out["posbias"] = __version__
    return out


def results_document(config: TrainConfig, runs: list[dict], *, task: str = "wu2025-icl",
                     command: str | None = None, jobs: int = 1, device: str = "cpu") -> dict:
    """The JSON document of a training: configuration, runs and provenance (seeds, versions,
    command, machine, device, threads, iterations, wall time)."""
    return {
        "format": RESULTS_FORMAT,
        "task": task,
        "name": config.name,
        "config": config.as_dict(),
        "variant": {"residual": config.residual, "decay_is_mask": True,
                    "class_labels_seeded": True, "generator": "vectorized (posbias)"},
        "provenance": _provenance(runs, _versions(), command=command, jobs=jobs, device=device),
        "runs": runs,
    }


def _provenance(runs: list[dict], versions: dict, *, command: str | None, jobs: int,
                device: str = "cpu") -> dict:
    """The ``provenance`` of a results document: command, seeds, versions, machine, device,
    threads and the time it was written."""
    torch = _torch()
    return {
        "command": command,
        "seeds": [r["seed"] for r in runs],
        "versions": versions,
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs",
        "device": device,
        "torch_threads_per_process": 1 if jobs > 1 else torch.get_num_threads(),
        "parallel_jobs": jobs,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


#: the provenance fields a merged document keeps at its top level when every part agrees
_SHARED_PROVENANCE = ("versions", "machine", "device", "torch_threads_per_process",
                      "parallel_jobs")


def merge_results(documents: Iterable[dict]) -> dict:
    """One results document from several of the same training that hold different seeds (the
    seeds of one configuration trained on several machines, or one after another): the runs
    of all, in the order of their seeds.  Every key but ``runs``, ``provenance`` and the gate's
    per-run margins must be equal in all documents (configuration, corpus and tokenizer
    records, baselines, evaluation windows), and no seed may occur twice; otherwise
    :class:`~posbias.errors.InvalidArgument` names the document and the first key that
    differs.  The provenance keeps each document's own under ``parts``; ``command`` joins
    their commands with ``"; "``, ``seeds`` lists all, ``created`` is the latest, and the
    versions, machine, device and thread count stay at the top only where all parts agree.
    A ``gate`` with ``margins`` (the natural-text task) is recomputed from the merged runs'
    last evaluations.

    >>> a = {"format": "f", "name": "n", "config": {}, "runs": [{"seed": 1}],
    ...      "provenance": {"command": "c --seeds 1", "seeds": [1], "created": "2"}}
    >>> b = {"format": "f", "name": "n", "config": {}, "runs": [{"seed": 0}],
    ...      "provenance": {"command": "c --seeds 0", "seeds": [0], "created": "1"}}
    >>> m = merge_results([a, b])
    >>> [r["seed"] for r in m["runs"]], m["provenance"]["command"], m["provenance"]["seeds"]
    ([0, 1], 'c --seeds 0; c --seeds 1', [0, 1])
    """
    docs = list(documents)
    if len(docs) < 2:
        raise InvalidArgument("documents", len(docs), "at least two results documents")
    for i, doc in enumerate(docs):
        if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list) \
                or not doc["runs"] or "format" not in doc:
            raise InvalidArgument("documents", f"#{i + 1}", "a results document of posbias "
                                  "train (format, runs, provenance)")
    # the parts in the order of their first seed, so that merging is order-independent
    docs.sort(key=lambda d: min(r.get("seed", 0) for r in d["runs"]))
    first = docs[0]
    fixed = sorted(set(first) - {"runs", "provenance", "gate"})
    for i, doc in enumerate(docs[1:], 2):
        for key in sorted(set(fixed) | (set(doc) - {"runs", "provenance", "gate"})):
            if key not in doc or key not in first or doc[key] != first[key]:
                raise InvalidArgument("documents", f"{doc.get('name')} (part {i})",
                                      f"the same {key!r} as {first.get('name')} (part 1)")
        g0, g1 = first.get("gate") or {}, doc.get("gate") or {}
        if {k: v for k, v in g0.items() if k not in ("margins", "reached")} != \
                {k: v for k, v in g1.items() if k not in ("margins", "reached")}:
            raise InvalidArgument("documents", f"{doc.get('name')} (part {i})",
                                  f"the same 'gate' rule as {first.get('name')} (part 1)")
    runs = sorted((r for d in docs for r in d["runs"]), key=lambda r: r["seed"])
    seeds = [r["seed"] for r in runs]
    twice = sorted({s for s in seeds if seeds.count(s) > 1})
    if twice:
        raise InvalidArgument("documents", f"seed {twice[0]}",
                              "each seed in one document only")
    parts = [d.get("provenance") or {} for d in docs]
    prov: dict[str, Any] = {
        "command": "; ".join(str(p.get("command")) for p in parts),
        "seeds": seeds,
    }
    for key in _SHARED_PROVENANCE:
        values = [p.get(key) for p in parts]
        if all(v == values[0] for v in values) and values[0] is not None:
            prov[key] = values[0]
    created = [p["created"] for p in parts if p.get("created")]
    if created:
        prov["created"] = max(created)
    prov["parts"] = parts
    out = {k: first[k] for k in first if k not in ("runs", "provenance", "gate")}
    if "gate" in first:
        gate = dict(first["gate"])
        if "margins" in gate:
            gate["margins"] = [r["history"][-1]["below_bigram"] for r in runs]
            gate["reached"] = all(m >= gate["nats"] for m in gate["margins"])
        out["gate"] = gate
    out["provenance"] = prov
    out["runs"] = runs
    # the key order of the parts (gate before provenance and runs where it was)
    return {k: out[k] for k in [*first, *(k for k in out if k not in first)] if k in out}


def history_csv(document: dict) -> str:
    """The runs' evaluations as CSV, one row per (seed, iteration)."""
    pairs = [f"{x}-{y}" for x, y in icl.TEST_PAIRS]
    sets = [f"{x}_{y}" for x, y in icl.TEST_PAIRS] + [f"{y}_{x}" for x, y in icl.TEST_PAIRS]
    head = (["seed", "iteration", "loss", "train_accuracy", "ic_accuracy"] + pairs
            + [p + "_se" for p in pairs] + ["acc_" + s for s in sets] + ["seconds"])
    rows = [",".join(head)]
    for run in document["runs"]:
        for e in run["history"]:
            vals = ([run["seed"], e["iteration"], e["loss"], e["train_accuracy"], e["ic_accuracy"]]
                    + [e["difference"][p] for p in pairs] + [e["difference_se"][p] for p in pairs]
                    + [e["accuracy"][s] for s in sets] + [e["seconds"]])
            rows.append(",".join("" if v is None else str(v) for v in vals))
    return "\n".join(rows) + "\n"
