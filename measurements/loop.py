"""What every training task shares: seeded generators, checkpoints that resume a run exactly,
the evaluation record, progress bars (relayed from worker processes), seeds run one after
another or in parallel processes, provenance, the next-token loop of the causal-LM tasks and
the pieces of their plans.

The tasks themselves (:mod:`~posbias.measurements.training` for wu2025's in-context network,
:mod:`~posbias.measurements.lm_training` and :mod:`~posbias.measurements.lm_text` for the causal
LMs) build their data, model and evaluation and hand them to these parts.  A checkpoint holds the
configuration, the seed, the iteration, the weights, the optimizer state, the batch generator's
state, the history and the elapsed time; it is written atomically at every evaluation and read
back without executing anything in it (:func:`load_training_state`), so that a resumed run
continues exactly as an uninterrupted one.

torch (and tqdm for the progress bars) are the ``models`` extra, imported inside the functions.
"""

from __future__ import annotations

import dataclasses
import math
import os
import pickle
import platform
import queue as queue_module
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from tqdm import tqdm

from posbias import __version__
from posbias.errors import InvalidArgument
from posbias.measurements import measure
from posbias.measurements.devices import check_device, resolve_device
from posbias.measurements.hooks import require_torch
from posbias.numbers import rounded
from posbias.resources import (
    LineProgress,
    Plan,
    map_in_processes,
    memory_limit,
    spawn_queue,
    usable_cores,
)
from posbias.validation import check_choice, check_integer, check_readable, check_real

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used
    from torch import Generator, Tensor
    from torch.nn import Module

__all__ = [
    "LM_ARCHS",
    "FlatConfig",
    "append_evaluation",
    "check_jobs_device",
    "check_seeds",
    "check_threads",
    "checkpoint_bytes",
    "completed_iterations",
    "final_position_profiles",
    "flat_history_csv",
    "iterations_left",
    "library_versions",
    "load_training_state",
    "mean_profile",
    "moved_to_device",
    "next_token_loop",
    "plan_seeds",
    "progress_bar",
    "provenance",
    "restore_training_state",
    "run_result",
    "run_seeds",
    "seeded_generator",
    "start_run",
    "training_state",
    "worker_progress",
]


def seeded_generator(torch: ModuleType, seed: int, stream: int) -> Generator:
    """The CPU generator of random stream ``stream`` of the run with ``seed`` (seeded with
    ``16 seed + stream``: each task documents which stream draws what)."""
    return torch.Generator().manual_seed(16 * seed + stream)


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


def _on_cpu(obj: Any) -> Any:
    """``obj`` (a state dict, optimizer state, nested dicts and lists) with every tensor on
    the CPU: a checkpoint written on an accelerator is read anywhere.  On the CPU every tensor
    is returned as it is."""
    import torch  # the models extra

    if isinstance(obj, torch.Tensor):
        return obj.cpu()
    if isinstance(obj, dict):
        return {k: _on_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_on_cpu(v) for v in obj)
    return obj


def start_run(seed: int, device: str, resume: bool, checkpoint_dir: str | None
              ) -> tuple[ModuleType, int, str]:
    """``(torch, seed, device)`` of one seed's run: the seed checked (``0..2^40``), the device
    resolved (:func:`~posbias.measurements.devices.resolve_device`), and a resume without a
    checkpoint directory to resume from refused."""
    torch = require_torch()
    seed = check_integer("seed", seed, 0, 2 ** 40)
    device, _ = resolve_device(device)
    if resume and checkpoint_dir is None:
        raise InvalidArgument("resume", resume, "a checkpoint directory to resume from")
    return torch, seed, device


def training_state(torch: ModuleType, config: Any, seed: int, model: Module,
                   path: str | None, resume: bool) -> tuple[Any, Generator, list, int, float]:
    """``(optimizer, batch generator, history, iteration, elapsed seconds)`` of a run about
    to train: AdamW with the configuration's ``lr`` and ``weight_decay``, the batch generator
    (stream 3 of the seed), and, when it resumes from the checkpoint at ``path``, that
    checkpoint's state restored into all of them (:func:`restore_training_state`)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr,
                                  weight_decay=config.weight_decay)
    data = seeded_generator(torch, seed, 3)
    history: list = []
    start_iter, elapsed = 0, 0.0
    if resume and path and os.path.exists(path):
        history, start_iter, elapsed = restore_training_state(torch, path, config, seed, model,
                                                              optimizer, data, type(config))
    return optimizer, data, history, start_iter, elapsed


def flat_history_csv(document: dict, head: list[str]) -> str:
    """A results document's evaluations as CSV, one row per (seed, iteration): ``head`` names
    the columns, ``seed`` first, then keys of each history entry (empty where None)."""
    rows = [",".join(head)]
    for run in document["runs"]:
        for e in run["history"]:
            vals = [run["seed"]] + [e[k] for k in head[1:]]
            rows.append(",".join("" if v is None else str(v) for v in vals))
    return "\n".join(rows) + "\n"


def restore_training_state(torch: ModuleType, path: str, config: Any, seed: int, model: Module,
                           optimizer: Any, data: Generator, config_class: type[Any]
                           ) -> tuple[list, int, float]:
    """Load the checkpoint at ``path`` (weights, optimizer state, batch-generator state) into
    ``model``, ``optimizer`` and ``data`` after checking it belongs to this run; returns its
    ``(history, iteration, elapsed)``."""
    state = load_training_state(torch, path, checkpoint_bytes(model, config))
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
        raise InvalidArgument("resume", path, "a checkpoint whose weights, optimizer and "
                              f"generator state fit this model ({type(exc).__name__})") from None
    return state["history"], state["iteration"], state["elapsed"]


#: the entries of a checkpoint and their types (validated after a weights-only load)
_STATE_TYPES: dict[str, type | tuple[type, ...]] = {
    "config": dict, "seed": int, "iteration": int, "model": dict, "optimizer": dict,
    "history": list, "elapsed": (int, float)}


#: the most bytes one evaluation entry of a history may take in a checkpoint (the stored runs'
#: take about 1 KiB: figures, standard errors and an influence profile of 32 positions)
_ENTRY_BYTES = 2**20
#: a checkpoint's bytes beside its tensors and history: the archive, the pickled structure, the
#: configuration and the generator state (a few KiB)
_ARCHIVE_BYTES = 16 * 2**20


def checkpoint_bytes(model: Module, config: Any) -> int:
    """The most bytes a checkpoint of a run of ``config`` training ``model`` can take: the
    weights and buffers three times (the weights and AdamW's two moments), an entry for each
    evaluation the run makes (``iterations // eval_every + 2``) and the archive's own bytes;
    a file beyond it is not this run's checkpoint and is refused before it is opened.  For
    wu2025's network at its scale (100,000 iterations, an evaluation every 2,000) about
    70 MiB, against checkpoints of 0.5 MiB."""
    tensors = sum(t.numel() * t.element_size() for t in model.state_dict().values())
    evaluations = config.iterations // config.eval_every + 2
    return 3 * tensors + evaluations * _ENTRY_BYTES + _ARCHIVE_BYTES


def load_training_state(torch: ModuleType, path: str, max_bytes: int | None = None) -> dict:
    """Read a checkpoint written by :func:`_save_state` without executing anything in it.

    Only a regular file no larger than ``max_bytes`` (a resumed run passes
    :func:`checkpoint_bytes`) and than the memory this machine may use is opened.
    ``torch.load(weights_only=True)`` unpickles only tensors, containers and plain values: a
    crafted file that would run code on loading is refused.  A truncated or foreign file, or one
    whose entries have the wrong types, is refused naming the file (exit status 2 at the
    command line), never an internal error.
    """
    # a regular file only (a FIFO would block, a device never end), of a size this machine
    # can hold; its tensors are mapped, not read, so that reading the iteration count of a
    # large checkpoint while planning costs no memory
    caps = [c for c in (memory_limit()[0], max_bytes) if c is not None]
    check_readable(path, "resume", min(caps) if caps else None)
    # O_NONBLOCK: a FIFO put in place since the check opens at once instead of blocking
    try:
        with open(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as fh:
            archive = fh.read(4) == b"PK\x03\x04"
    except OSError as exc:
        raise InvalidArgument("resume", path, f"a readable checkpoint ({exc.strerror})") from None
    if not archive:
        raise InvalidArgument("resume", path, "a posbias training checkpoint (a torch.save "
                              "archive; this file does not start as one)")
    try:
        state = torch.load(path, weights_only=True, map_location="cpu", mmap=True)
    except pickle.UnpicklingError:
        raise InvalidArgument("resume", path, "a posbias training checkpoint (it holds objects "
                              "beyond tensors, containers and plain values, which are never "
                              "loaded)") from None
    except (RuntimeError, EOFError, zipfile.BadZipFile, ValueError, AttributeError, ImportError,
            TypeError) as exc:
        raise InvalidArgument("resume", path, "a complete posbias training checkpoint (torch "
                              f"could not read the archive: {type(exc).__name__})") from None
    if not isinstance(state, dict):
        raise InvalidArgument("resume", path, "a posbias training checkpoint (a dict of entries)")
    for key, kind in _STATE_TYPES.items():
        if not isinstance(state.get(key), kind) or isinstance(state.get(key), bool):
            raise InvalidArgument("resume", path, f"a posbias training checkpoint with entry "
                                  f"{key!r} of type {kind if isinstance(kind, type) else kind[0]}")
    if not isinstance(state.get("data_generator"), torch.Tensor):
        raise InvalidArgument("resume", path, "a posbias training checkpoint with a generator state")
    # a tampered or corrupted checkpoint with NaN or infinite weights would train on to NaN
    # results: refused here, naming the first such tensor
    for name, tensor in state["model"].items():
        if (isinstance(tensor, torch.Tensor) and tensor.is_floating_point()
                and not bool(torch.isfinite(tensor).all())):
            raise InvalidArgument("resume", path, f"a posbias training checkpoint with finite "
                                  f"weights ({name!s:.80} holds NaN or infinity)")
    if not math.isfinite(state["elapsed"]):  # an int or a float (checked above)
        raise InvalidArgument("resume", path, "a posbias training checkpoint with a finite "
                              "elapsed time")
    return state


def append_evaluation(torch: ModuleType, entry: dict[str, Any], seconds: float,
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
    """The checkpoint :func:`restore_training_state` reads, written atomically."""
    _atomic_save(torch, {"config": config.as_dict(), "seed": seed, "iteration": iteration,
                         "model": _on_cpu(model.state_dict()),
                         "optimizer": _on_cpu(optimizer.state_dict()),
                         "data_generator": data.get_state(), "history": history,
                         "elapsed": seconds}, path)


def progress_bar(progress: Any, config: Any, seed: int, start: int, end: int) -> Any:
    """A tqdm bar over the iterations (``progress=None``: when stderr is a terminal, else a
    :class:`~posbias.resources.LineProgress` line a minute), or None (``progress=False``); a
    bar object given as ``progress`` (a worker's relay to its parent) is used as it is."""
    if hasattr(progress, "update"):
        progress.n = start
        return progress
    if end <= start or progress is False:
        return None
    if progress is None and not sys.stderr.isatty():  # a log or a pipe: a line a minute
        return LineProgress(config.iterations, f"{config.name} seed {seed}", initial=start)
    return tqdm(total=config.iterations, initial=start, unit="it", file=sys.stderr,
                desc=f"{config.name} seed {seed}", dynamic_ncols=True, leave=False)


def run_result(seed: int, history: list, wall: float) -> dict:
    """The per-seed result document of a finished run."""
    done = history[-1]["iteration"]
    return {"seed": seed, "iterations": done, "wall_seconds": round(wall, 1),
            "iterations_per_second": round(done / wall, 1) if wall > 0 else None,
            "history": history}


#: in a worker process of :func:`run_seeds` with ``relay``: the queue its progress goes to
#: (None: no progress)
_PROGRESS_QUEUE: Any = None


def _set_progress_queue(queue: Any) -> None:
    global _PROGRESS_QUEUE  # noqa: PLW0603 - set once per worker process by its initializer
    _PROGRESS_QUEUE = queue


class _QueueBar:
    """The part of a tqdm bar that a training loop uses, relayed to the parent process:
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


#: the key under which a worker relays an evaluation entry (not a bar's postfix)
_ENTRY = "evaluation"


def _relay_progress(queue: Any, config: Any, seeds: Iterable[int], stop: threading.Event,
                    show: bool | str, log: Callable[[dict[str, Any]], object] | None) -> None:
    """In the parent: one tqdm bar with ETA per seed (``show``; ``show="lines"``: a
    :class:`~posbias.resources.LineProgress` line a minute per seed, for a log or a pipe) and
    ``log(entry)`` for each evaluation (the entry with its ``seed``), fed from the workers'
    queue until ``stop`` is set and the queue is drained (a thread of :func:`run_seeds`)."""
    bars: dict[int, Any] = {}
    if show == "lines":
        bars = {s: LineProgress(config.iterations, f"{config.name} seed {s}") for s in seeds}
    elif show:
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


def check_threads(threads: int, jobs: int, seeds: int) -> int:
    """``threads`` torch threads for a training that runs in this process (``jobs == 1`` or a
    single seed); the parallel seeds of ``jobs > 1`` have one thread each, so any other value
    is refused with them, as are more threads than this process has CPUs.  One thread (the default) gives the same digits on every machine;
    more threads are faster and reproducible only with the same count."""
    threads = check_integer("threads", threads, 1, usable_cores())
    if threads > 1 and jobs > 1 and seeds > 1:
        raise InvalidArgument("threads", threads, "1 with --jobs > 1 (each parallel seed has one "
                              "thread)")
    return threads


def run_seeds(run: Callable[..., dict], worker: Callable[[tuple], dict], config: Any,
              seeds: list[int], jobs: int, *, checkpoint_dir: str | None, resume: bool,
              progress: bool | None, log: Callable[[dict[str, Any]], object] | None,
              device: str = "cpu", threads: int = 1, relay: bool = False) -> list[dict]:
    """``run(config, seed, ..., device=device)`` for every seed in this process (``threads``
    torch threads, default one), or, with ``jobs > 1`` and several seeds, ``worker((config
    dict, seed, checkpoint_dir, resume))`` in ``jobs`` separate CPU processes (the callers
    refuse ``jobs > 1`` with an accelerator).  With ``relay`` (a worker that reports through
    :func:`worker_progress`), each seed's bar (on a terminal; in a log or a pipe a progress
    line a minute) and evaluations are shown in this process.  The records come back in the
    order of ``seeds``."""
    if jobs == 1 or len(seeds) == 1:
        torch = require_torch()
        torch.set_num_threads(threads)
        return [run(config, s, checkpoint_dir=checkpoint_dir, resume=resume,
                    progress=progress, log=log, device=device) for s in seeds]
    tasks = [(config.as_dict(), s, checkpoint_dir, resume) for s in seeds]
    # progress None: bars on a terminal, a line a minute per seed in a log or a pipe
    show: bool | str = ("lines" if not sys.stderr.isatty() else True) if progress is None else progress
    if not relay or (not show and log is None):
        # Ctrl-C or SIGTERM ends the seeds' processes; their checkpoints stay for --resume
        return map_in_processes(worker, tasks, jobs)
    # one bar with ETA per seed in this process, and the log, fed by the workers via a queue
    queue, stop = spawn_queue(), threading.Event()
    relayer = threading.Thread(target=_relay_progress,
                               args=(queue, config, seeds, stop, show, log), daemon=True)
    relayer.start()
    try:
        return map_in_processes(worker, tasks, jobs, initializer=_set_progress_queue,
                                initargs=(queue,))
    finally:
        stop.set()
        relayer.join(timeout=5)


def worker_progress(seed: int) -> tuple[Any, Callable[[dict[str, Any]], object] | None]:
    """In a worker process of :func:`run_seeds` with ``relay``: ``(progress, log)`` for the
    seed's training run, a bar and a log that send to the parent process; ``(False, None)``
    when the parent shows neither."""
    queue = _PROGRESS_QUEUE
    if queue is None:
        return False, None

    def relay(entry: dict[str, Any]) -> None:  # each evaluation goes to the parent's log too
        queue.put((seed, None, {_ENTRY: entry}))

    # the relay bar stands in for a tqdm bar: progress_bar uses an object with update() as it is
    return _QueueBar(queue, seed, 0), relay


def library_versions() -> dict:
    """The versions of Python, torch, numpy and posbias that a results document records."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in ("torch", "numpy"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:  # pragma: no cover
            out[name] = None
    out["posbias"] = __version__
    return out


def provenance(runs: list[dict], versions: dict, *, command: str | None, jobs: int,
               device: str = "cpu") -> dict:
    """The ``provenance`` of a results document: command, seeds, versions, machine, device,
    threads and the time it was written."""
    torch = require_torch()
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


def completed_iterations(paths: Iterable[str]) -> int:
    """The fewest iterations that the checkpoints at ``paths`` (one per seed of a run) hold, 0
    when one of them is not there: what every seed of a resumed run has already trained.  Each
    is read as :func:`load_training_state` reads it (no code in it is executed)."""
    torch = require_torch()
    counts = [int(load_training_state(torch, p)["iteration"]) if os.path.exists(p) else 0
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


def plan_seeds(planner: Callable[..., Plan], where: Callable[[str, Any, int], str], config: Any,
               seeds: Iterable[int], *, jobs: int = 1, checkpoint_dir: str | None = None,
               resume: bool = False, device: str = "cpu") -> Plan:
    """The plan of training ``seeds`` of ``config`` as a task's ``*_seeds`` function trains
    them: the seeds and jobs checked, the device resolved, and a resumed run (``resume`` with
    the ``checkpoint_dir`` of its checkpoints, at ``where(checkpoint_dir, config, seed)``)
    planned for the iterations left (:func:`completed_iterations`).  ``planner(config, seeds,
    jobs, done=, device=)`` is the task's planner
    (:func:`~posbias.measurements.training.plan_training` and its siblings).  Returns the plan unchecked: :meth:`~posbias.resources.Plan.check`
    refuses."""
    seeds, jobs = check_seeds(seeds, jobs)
    check_jobs_device(jobs, device)
    done = (completed_iterations(where(checkpoint_dir, config, s) for s in seeds)
            if resume and checkpoint_dir is not None else 0)
    return planner(config, len(seeds), jobs, done=done, device=resolve_device(device)[0])


def moved_to_device(parts: list, moved: list, device: str) -> tuple[list, dict[str, str]]:
    """A training plan's parts with those that ``moved`` to an accelerator ``device`` added
    once more, placed there: they are built on the host (the seeded generators draw on the
    CPU) and then moved, so the host's share keeps them too (CUDA's own host memory is not
    counted).  On the CPU: the parts unchanged, no placement."""
    if device == "cpu":
        return parts, {}
    copies = [(f"{name}, moved to {device}", b, 0.0) for name, b, _ in moved]
    return parts + copies, {name: device for name, _, _ in copies}


#: architectures offered (transformers model types; GPT-2: learned positions, LLaMA: RoPE)
LM_ARCHS = ("gpt2", "llama")


_Config = TypeVar("_Config", bound="FlatConfig")


class FlatConfig:
    """What the causal-LM training configurations share: a frozen dataclass of plain fields,
    stored as its dict and compared up to the number of iterations."""

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)  # type: ignore[call-overload]  # subclasses are dataclasses

    @classmethod
    def from_dict(cls: type[_Config], d: dict) -> _Config:
        return cls(**d)

    def same_run(self: _Config, other: _Config) -> bool:
        """Equal up to the number of iterations (a run may be resumed to go further)."""
        return (dataclasses.replace(self, iterations=0)  # type: ignore[type-var]
                == dataclasses.replace(other, iterations=0))  # type: ignore[type-var]

    def _check_shared(self, min_test: int) -> None:
        """Check the fields every causal-LM configuration has: the model shape, the optimizer,
        the evaluation (at least ``min_test`` test items) and the influence sample."""
        c: Any = self
        check_choice("arch", c.arch, LM_ARCHS)
        check_integer("layers", c.layers, 1, 64)
        check_integer("hidden", c.hidden, 2, 4096)
        check_integer("heads", c.heads, 1, 256)
        if c.hidden % c.heads:
            raise InvalidArgument("hidden", c.hidden, f"a multiple of heads = {c.heads}")
        if c.arch == "llama" and (c.hidden // c.heads) % 2:
            raise InvalidArgument("hidden", c.hidden, "hidden / heads even for llama (RoPE)")
        check_integer("length", c.length, 2, 4096)
        check_integer("iterations", c.iterations, 0)
        check_real("lr", c.lr, 0, lo_open=True)
        check_real("weight_decay", c.weight_decay, 0)
        check_integer("batch", c.batch, 1)
        check_integer("eval_every", c.eval_every, 1)
        check_integer("test_size", c.test_size, min_test)
        check_integer("influence_samples", c.influence_samples, 0)
        if c.influence_samples > c.test_size:
            raise InvalidArgument("influence_samples", c.influence_samples,
                                  f"at most the test size {c.test_size}")


def final_position_profiles(model: Any, influence_ids: Tensor, chunk: int | None
                            ) -> list[np.ndarray]:
    """The final position's influence profile of every row of ``influence_ids``: posbias
    measure's exact Jacobian route, normalized to sum 1 per row."""
    profiles = []
    for ids in influence_ids:
        infl = measure.influence_profile(model, ids, exact=True, chunk=chunk)
        profiles.append(infl / infl.sum())
    return profiles


def mean_profile(profiles: list[np.ndarray]) -> list[float]:
    """The mean of normalized profiles, normalized again and rounded to 6 digits."""
    prof = np.mean(profiles, axis=0)
    return [rounded(float(p), 6) for p in prof / prof.sum()]


def next_token_loop(torch: ModuleType, config: Any, seed: int, model: Any, optimizer: Any,
                    data: Generator, path: str | None,
                    next_batch: Callable[[], tuple[Tensor, Tensor]],
                    evaluate: Callable[[], dict[str, Any]], *, history: list[dict],
                    start_iter: int, elapsed: float, progress: Any,
                    log: Callable[[dict[str, Any]], object] | None, stop_after: int | None,
                    device: str, postfix: tuple[str, str]) -> dict:
    """The next-token training loop shared by the causal-LM tasks: AdamW steps on
    ``next_batch()`` (CPU tensors moved to ``device``) from ``start_iter``, an entry of
    ``evaluate()`` at iteration 0 (unless resumed), every ``config.eval_every`` and the last,
    each followed by ``log`` and a checkpoint at ``path``; returns the run record."""

    def record(iteration: int, pending: list[Tensor], seconds: float) -> None:
        # the iterations' float32 losses, kept on the device until here (one transfer per
        # evaluation, not a synchronization per iteration), as exact Python floats
        losses = torch.stack(pending).cpu().tolist() if pending else []
        entry: dict[str, Any] = {"iteration": iteration,
                                 "loss": rounded(sum(losses) / len(losses), 5) if losses else None}
        entry.update(evaluate())
        append_evaluation(torch, entry, seconds, history, log, path, config, seed, model,
                          optimizer, data)

    t0 = time.perf_counter() - elapsed
    if start_iter == 0 and not history:
        record(0, [], 0.0)
    end = config.iterations if stop_after is None else min(config.iterations, stop_after)
    bar = progress_bar(progress, config, seed, start_iter, end)
    losses: list[Tensor] = []
    loss_fn = torch.nn.CrossEntropyLoss()
    for it in range(start_iter + 1, end + 1):
        x, y = next_batch()
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        logits = model(input_ids=x, use_cache=False).logits
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
        if bar is not None:
            bar.update(1)
        if it % config.eval_every == 0 or it == config.iterations:
            record(it, losses, time.perf_counter() - t0)
            losses = []
            if bar is not None:
                bar.set_postfix({postfix[0]: history[-1][postfix[1]]})
    if bar is not None:
        bar.close()
    return run_result(seed, history, time.perf_counter() - t0)
