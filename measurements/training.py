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
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from posbias.errors import InvalidArgument
from posbias.measurements import icl
from posbias.measurements.hooks import require_torch
from posbias.measurements.loop import (
    append_evaluation,
    check_jobs_device,
    check_seeds,
    check_threads,
    iterations_left,
    library_versions,
    moved_to_device,
    plan_seeds,
    progress_bar,
    provenance,
    run_result,
    run_seeds,
    seeded_generator,
    start_run,
    training_state,
    worker_progress,
)
from posbias.numbers import rounded
from posbias.resources import Plan
from posbias.validation import check_choice, check_integer, check_real

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used

    from torch import Tensor
    from torch.nn import Module

__all__ = [
    "RESULTS_FORMAT",
    "TASKS",
    "TrainConfig",
    "checkpoint_path",
    "history_csv",
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




#: the older name of :func:`posbias.measurements.hooks.require_torch`, which the wu2025 claim
#: module still calls
_torch = require_torch


def checkpoint_path(directory: str, config: TrainConfig, seed: int) -> str:
    return os.path.join(directory, f"{config.name}_seed{seed}.pt")


def _test_sets(torch: ModuleType, config: TrainConfig, world: icl.World, seed: int,
               ) -> dict[str, tuple[Tensor, Tensor]]:
    g = seeded_generator(torch, seed, 2)
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


def _to_device(sets: dict, device: str) -> dict:
    """Test sets ``{name: (inputs, targets)}`` drawn on the CPU, moved to ``device``."""
    return {name: tuple(t.to(device) for t in data) for name, data in sets.items()}




def _evaluate(torch: ModuleType, model: Module, sets: dict[str, tuple[Tensor, Tensor]],
              config: TrainConfig, influence_inputs: Tensor | None) -> dict[str, Any]:
    model.eval()
    correct = {name: _correct(torch, model, *data) for name, data in sets.items()}
    n = config.test_size
    acc = {name: rounded(float(c.mean()), 6) for name, c in correct.items() if name != "in_context"}
    diff, se = {}, {}
    for x, y in icl.TEST_PAIRS:
        d = correct[f"{x}_{y}"] - correct[f"{y}_{x}"]
        diff[f"{x}-{y}"] = rounded(float(d.mean()), 6)
        se[f"{x}-{y}"] = rounded(float(d.std(unbiased=True)) / math.sqrt(n), 3)
    entry = {"ic_accuracy": rounded(float(correct["in_context"].mean()), 6), "accuracy": acc,
             "difference": diff, "difference_se": se}
    if influence_inputs is not None:
        prof = icl.final_position_influence(model, influence_inputs)
        entry["influence"] = [rounded(float(p), 6) for p in prof]
    model.train()
    return entry


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
    torch, seed, device = start_run(seed, device, resume, checkpoint_dir)
    world = icl.make_world(config.task, seeded_generator(torch, seed, 1))
    sets = _to_device(_test_sets(torch, config, world, seed), device)
    influence_inputs = None
    if config.influence_samples:
        influence_inputs = sets["in_context"][0][: config.influence_samples]
    torch.manual_seed(16 * seed + 4)
    model = icl.build_network(config.task, config.mask, config.pe, config.residual).to(device)
    path = checkpoint_path(checkpoint_dir, config, seed) if checkpoint_dir else None
    optimizer, data, history, start_iter, elapsed = training_state(torch, config, seed, model,
                                                                   path, resume)
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
                 "loss": rounded(sum(losses) / len(losses), 5) if losses else None,
                 "train_accuracy": rounded(sum(hits) / len(hits), 5) if hits else None}
        entry.update(_evaluate(torch, model, sets, config, influence_inputs))
        append_evaluation(torch, entry, seconds, history, log, path, config, seed, model,
                          optimizer, data)

    t0 = time.perf_counter() - elapsed
    if start_iter == 0 and not history:
        record(0, [], [], 0.0)
    end = config.iterations if stop_after is None else min(config.iterations, stop_after)
    bar = progress_bar(progress, config, seed, start_iter, end)
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
    return run_result(seed, history, time.perf_counter() - t0)


def _worker(args: tuple[dict, int, str | None, bool]) -> dict:
    config_dict, seed, checkpoint_dir, resume = args
    torch = require_torch()
    torch.set_num_threads(1)
    progress, log = worker_progress(seed)
    return train_run(TrainConfig.from_dict(config_dict), seed, checkpoint_dir=checkpoint_dir,
                     resume=resume, progress=progress, log=log)


#: calibration of :func:`plan_training` on this project's machine (2 cores, torch 2.13 CPU, one
#: thread): peak RSS of `posbias train` with test sets of 2,000 and 40,000 sequences (494 and
#: 1,990 MiB) and with batch 4,096 (634 MiB); 53 iterations per second at batch 128 with
#: evaluations every 2,000 iterations of 10,000 test sequences (the stored 100,000-iteration runs)
_ICL_BASE_BYTES = 450 * 2**20          # interpreter, torch, the world's class means
_ICL_TEST_BYTES_PER_TOKEN_DIM = 40     # 7 test sets built and evaluated (40.3 KB per sequence of 17 x 64)
_ICL_BATCH_BYTES_PER_TOKEN_DIM = 52    # a training batch with its graph (54 KB per sequence)
_ICL_SECONDS_PER_ITERATION_128 = 1 / 70
_ICL_EVAL_SECONDS_PER_TOKEN_DIM = 0.6e-3 / (17 * 64)


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
    parts, placement = moved_to_device(parts, parts[2:], device)
    return Plan(f"training {config.name} ({seeds} seed(s), {at_once} at once{resumed})", parts,
                "use a smaller --test-size or --batch, or fewer --jobs", placement)


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
    records in the order of ``seeds``.  A run whose plan (:func:`plan_training`, for the
    iterations left when it resumes: :func:`~posbias.measurements.loop.plan_seeds`) does not fit
    in the memory the process may use (or ``max_memory`` bytes) is refused before it starts.
    ``threads``: torch threads of this process when the seeds run here, one after another (see
    :func:`~posbias.measurements.loop.check_threads`)."""
    seeds, jobs = check_seeds(seeds, jobs)
    check_jobs_device(jobs, device)
    threads = check_threads(threads, jobs, len(seeds))
    plan_seeds(plan_training, checkpoint_path, config, seeds, jobs=jobs,
               checkpoint_dir=checkpoint_dir, resume=resume, device=device).check(max_memory)
    return run_seeds(train_run, _worker, config, seeds, jobs, checkpoint_dir=checkpoint_dir,
                     resume=resume, progress=progress, log=log, device=device, threads=threads,
                     relay=True)


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
        "provenance": provenance(runs, library_versions(), command=command, jobs=jobs, device=device),
        "runs": runs,
    }


#: the provenance fields a merged document keeps at its top level when every part agrees
_SHARED_PROVENANCE = ("versions", "machine", "device", "torch_threads_per_process",
                      "parallel_jobs")


def _nonfinite(value: Any) -> bool:
    """Whether a JSON-like value holds a NaN or an infinity anywhere (iteratively: a deep
    document does not exhaust the stack)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return True
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def _check_merged_run(run: Any, where: str) -> None:
    """One run of a document to merge: a record with an integer seed >= 0, a non-empty
    history of evaluations and finite numbers only."""
    if not isinstance(run, dict):
        raise InvalidArgument("documents", where, "runs that are records (seed, history)")
    seed = run.get("seed")
    if type(seed) is not int or seed < 0:
        raise InvalidArgument("documents", f"{where}: seed {seed!r}", "an integer seed >= 0")
    history = run.get("history")
    if not isinstance(history, list) or not history \
            or not all(isinstance(e, dict) for e in history):
        raise InvalidArgument("documents", f"{where}: seed {seed}",
                              "a run with a non-empty history of evaluations")
    if _nonfinite(run):
        raise InvalidArgument("documents", f"{where}: seed {seed}",
                              "a run with finite numbers only (no NaN or infinity)")


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def _check_merged_parts(doc: dict, where: str) -> None:
    """The provenance and gate of a document to merge: records of the kinds the merge reads
    (a provenance with text ``created``; a gate with a number ``nats`` and, when it has
    ``margins``, runs whose last evaluation has a number ``below_bigram``)."""
    prov = doc.get("provenance")
    if prov is not None and (not isinstance(prov, dict) or not isinstance(
            prov.get("created", ""), (str, type(None)))):
        raise InvalidArgument("documents", where, "a provenance record (created as text)")
    if "gate" not in doc:
        return
    gate = doc["gate"]
    if not isinstance(gate, dict):
        raise InvalidArgument("documents", where, "a gate record")
    if "margins" in gate:
        if not _is_real(gate.get("nats")):
            raise InvalidArgument("documents", where, "a gate with a number 'nats'")
        for run in doc["runs"]:
            if not _is_real(run["history"][-1].get("below_bigram")):
                raise InvalidArgument("documents", f"{where}: seed {run['seed']}",
                                      "a last evaluation with a number 'below_bigram' (the "
                                      "gate's margin)")


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

    >>> h = [{"iteration": 0}]
    >>> a = {"format": "f", "name": "n", "config": {}, "runs": [{"seed": 1, "history": h}],
    ...      "provenance": {"command": "c --seeds 1", "seeds": [1], "created": "2"}}
    >>> b = {"format": "f", "name": "n", "config": {}, "runs": [{"seed": 0, "history": h}],
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
    for i, doc in enumerate(docs):
        where = f"{doc.get('name')} (part {i + 1})"
        for run in doc["runs"]:
            _check_merged_run(run, where)
        _check_merged_parts(doc, where)
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
