r"""A small ``transformers`` causal LM trained on a synthetic next-token task, with the final
position's influence profile followed from Step 0 to Step N.

**The task: in-context unigram estimation.**  Token ids: ``0`` is BOS, ``1..V`` are data tokens.
Each sequence draws its own distribution :math:`\pi \sim \mathrm{Dirichlet}(1/2, \dots, 1/2)`
over the ``V`` tokens (as :math:`\pi_v = Z_v^2 / \sum_u Z_u^2`, :math:`Z_v` standard normal:
:math:`Z^2/2 \sim \mathrm{Gamma}(1/2)`), then ``L`` tokens :math:`x_1, \dots, x_L` i.i.d. from
:math:`\pi`.  The model reads ``BOS, x_1, ..., x_{L-1}`` (``L`` tokens) and is trained with the
standard next-token cross-entropy at every position.  The Bayes-optimal prediction after ``t``
tokens is the posterior predictive

.. math::  P(x_{t+1} = v \mid x_{1..t}) = \frac{c_v(t) + 1/2}{t + V/2},

with :math:`c_v(t)` the count of ``v`` among the first ``t`` tokens: it depends on every earlier
token *equally*, wherever it sits.  So position matters in the sense that counts here: a model
whose final position ignored the middle of its context (a dead zone) would lose next-token
likelihood, and the ideal influence profile on the data tokens is flat.  Two references bound
the final position's test loss: ``ln V`` (no use of the context) and the Bayes loss above
(computed exactly per test sequence); the *learned fraction*
``(ln V - loss) / (ln V - Bayes loss)`` is 0 for a model that ignores its context and 1 for the
optimum.

(Associative recall, where the final query must find its key anywhere in the context, was tried
first: at 4 layers, hidden 64, L = 64, 2,750 steps of batch 8 or 700 of batch 32 (the CPU budget
of a stored run) left the accuracy at the level of guessing among the values present, for GPT-2
and LLaMA alike; the induction mechanism it needs is not formed in that budget.)

**The model**: :func:`posbias.measurements.measure.build_model` (a transformers configuration,
random weights, no download), by default LLaMA (RoPE, RMSNorm, SwiGLU MLP of width 172) with 4
layers, hidden size 64, 4 heads, context L = 64: the smallest shape in the range where the
Step-0 profile is U-shaped at all (measured at this shape, seed 0: first block / valley block
8.9, last block / valley block 8.2 over 16 blocks), so that "the U persists" can be tested; GPT-2
at the same shape (learned positions) has no macroscopic U at Step 0 (first block / valley
1.8 < 2).  Small enough for a stored run of a few CPU minutes (one training step of batch 32
takes about 80 ms on one thread).  ``gpt2`` is the alternative.  The model
stays in evaluation mode while training (dropout off), so training and measurement compute the
same function.

**Influence profile** of the final position at Step 0 and at every evaluation: the exact
Jacobian route of ``posbias measure`` (:func:`posbias.measurements.measure.influence_profile`
with ``exact=True``: ``||dh_L/de_j||_F`` of the last hidden state after the final layer norm
with respect to each input embedding), normalized to sum 1 per sequence and averaged over the
first ``influence_samples`` test sequences (the same sequences at every step).

**Random streams**, all from the run's ``seed``: the test set from ``16 seed + 2``, training
batches from ``16 seed + 3``, the initial weights from ``torch.manual_seed(16 seed + 4)``.  With
one thread the same seed gives the same numbers on the same machine, and a run resumed from a
checkpoint continues exactly as an uninterrupted one (weights, optimizer state, batch-generator
state and history are saved at every evaluation).

torch, transformers and tqdm are the ``models`` extra, imported inside the functions.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from posbias.measurements import measure
from posbias.measurements.hooks import probe_chunk, require_torch
from posbias.measurements.loop import (
    FlatConfig,
    check_jobs_device,
    check_seeds,
    check_threads,
    final_position_profiles,
    flat_history_csv,
    iterations_left,
    library_versions,
    mean_profile,
    moved_to_device,
    next_token_loop,
    plan_seeds,
    provenance,
    run_seeds,
    seeded_generator,
    start_run,
    training_state,
)
from posbias.numbers import rounded
from posbias.resources import Plan
from posbias.validation import check_integer

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used
    from torch import Generator, Tensor

__all__ = [
    "CONCENTRATION",
    "LM_RESULTS_FORMAT",
    "LMTrainConfig",
    "bayes_losses",
    "lm_checkpoint_path",
    "lm_history_csv",
    "lm_results_document",
    "lm_train_run",
    "lm_train_seeds",
    "plan_lm_training",
    "unigram_batch",
]

LM_RESULTS_FORMAT = "posbias-trained-lm/1"
_EVAL_CHUNK = 500


@dataclass(frozen=True)
class LMTrainConfig(FlatConfig):
    """One configuration of the synthetic next-token training (everything but the seed).

    ``length`` ``L`` is the number of input tokens, ``tokens`` the number ``V`` of data tokens
    (vocabulary ``V + 1`` with BOS).
    """

    arch: str = "llama"
    layers: int = 4
    hidden: int = 64
    heads: int = 4
    length: int = 64
    tokens: int = 16
    iterations: int = 2000
    lr: float = 3e-3
    weight_decay: float = 0.01
    batch: int = 32
    eval_every: int = 100
    test_size: int = 2000
    influence_samples: int = 0

    def __post_init__(self) -> None:
        self._check_shared(min_test=2)
        check_integer("tokens", self.tokens, 2, 100000)

    @property
    def vocab(self) -> int:
        return 1 + self.tokens

    @property
    def name(self) -> str:
        """A file-name-safe name, e.g. ``unigram_gpt2_H4_d64_L64_lr0.003``."""
        return (f"unigram_{self.arch}_H{self.layers}_d{self.hidden}_L{self.length}"
                f"_lr{self.lr:g}")


#: the Dirichlet concentration of the per-sequence distributions
CONCENTRATION = 0.5


def unigram_batch(config: LMTrainConfig, size: int, generator: Generator) -> tuple[Tensor, Tensor]:
    """``(inputs, targets)``: ``size x L`` token ids ``BOS, x_1..x_{L-1}`` and the next tokens
    ``x_1..x_L``, each row from its own distribution ``Dirichlet(1/2)`` over the ``V`` data
    tokens (ids ``1..V``).  Whole batches as tensors, from ``generator`` only."""
    torch = require_torch()
    z = torch.randn(size, config.tokens, generator=generator, dtype=torch.float64)
    pi = z.pow(2)
    pi = pi / pi.sum(dim=1, keepdim=True)
    x = torch.multinomial(pi, config.length, replacement=True, generator=generator) + 1
    bos = torch.zeros(size, 1, dtype=torch.long)
    return torch.cat([bos, x[:, :-1]], dim=1), x


def bayes_losses(config: LMTrainConfig, inputs: Tensor, targets: Tensor) -> Tensor:
    """Per sequence and position, ``-ln`` of the Bayes posterior predictive
    ``(c_v(t) + 1/2) / (t + V/2)`` of the actual next token (float64, ``size x L``)."""
    torch = require_torch()
    onehot = torch.nn.functional.one_hot(inputs, config.vocab)[:, :, 1:].double()
    counts = onehot.cumsum(dim=1)                               # counts after position t
    t = torch.arange(config.length, dtype=torch.float64)       # data tokens read so far
    c = counts.gather(2, (targets - 1).unsqueeze(-1)).squeeze(-1)
    return -torch.log((c + CONCENTRATION) / (t + CONCENTRATION * config.tokens))


def lm_checkpoint_path(directory: str, config: LMTrainConfig, seed: int) -> str:
    return os.path.join(directory, f"{config.name}_seed{seed}.pt")


def _build(config: LMTrainConfig, seed: int) -> Any:  # a transformers causal LM
    model, settings = measure.build_model(
        config.arch, layers=config.layers, hidden=config.hidden, heads=config.heads,
        vocab=config.vocab, length=config.length, seed=16 * seed + 4)
    return model, settings


def _evaluate(torch: ModuleType, model: Any, test: tuple[Tensor, Tensor, Tensor],
              config: LMTrainConfig, influence_ids: Tensor | None, chunk: int | None
              ) -> dict[str, Any]:
    inputs, targets, bayes = test
    loss, hits = [], []
    with torch.no_grad():
        for s in range(0, inputs.shape[0], _EVAL_CHUNK):
            logits = model(input_ids=inputs[s:s + _EVAL_CHUNK], use_cache=False).logits
            lp = torch.log_softmax(logits[:, :, 1:].cpu().double(), dim=-1)
            t = targets[s:s + _EVAL_CHUNK].cpu() - 1
            loss.append(-lp.gather(2, t.unsqueeze(-1)).squeeze(-1))
            hits.append((lp.argmax(-1) == t).double())
    loss, hits = torch.cat(loss), torch.cat(hits)
    uniform = math.log(config.tokens)
    final, final_bayes = float(loss[:, -1].mean()), float(bayes[:, -1].mean())
    mean, mean_bayes = float(loss.mean()), float(bayes.mean())
    entry: dict[str, Any] = {"final_loss": rounded(final, 6),
             "final_bayes_loss": rounded(final_bayes, 6),
             "final_learned": rounded((uniform - final) / (uniform - final_bayes), 6),
             "mean_loss": rounded(mean, 6), "mean_bayes_loss": rounded(mean_bayes, 6),
             "learned": rounded((uniform - mean) / (uniform - mean_bayes), 6),
             "final_accuracy": rounded(float(hits[:, -1].mean()), 6)}
    if influence_ids is not None:
        entry["influence"] = _influence(model, influence_ids, chunk)
    return entry


def _influence(model: Any, influence_ids: Tensor, chunk: int | None) -> list[float]:
    """The final position's influence profile: posbias measure's exact Jacobian route per
    sequence, normalized to sum 1 per sequence, averaged over the rows of ``influence_ids``."""
    return mean_profile(final_position_profiles(model, influence_ids, chunk))


def lm_train_run(config: LMTrainConfig, seed: int, *, checkpoint_dir: str | None = None,
                 resume: bool = False, progress: bool | None = None,
                 log: Callable[[dict[str, Any]], object] | None = None,
                 stop_after: int | None = None, device: str = "cpu") -> dict:
    """Train one seed of ``config``; returns the run record (``seed``, ``iterations``,
    ``wall_seconds``, ``iterations_per_second``, ``history``), one history entry per
    evaluation (iteration 0, every ``eval_every`` and the last): mean training loss since the
    previous evaluation; on the test set the final position's loss, its Bayes loss and the
    learned fraction ``(ln V - loss) / (ln V - Bayes loss)`` (``final_*``), the same over all
    positions (``mean_loss``, ``mean_bayes_loss``, ``learned``), the final position's top-1
    agreement with the actual next token (``final_accuracy``), and with
    ``influence_samples > 0`` the final position's normalized influence profile.

    ``checkpoint_dir``, ``resume``, ``progress``, ``log``, ``stop_after`` and ``device`` as in
    :func:`posbias.measurements.training.train_run` (the test set, weights and batches are
    drawn on the CPU and moved to ``device``; the Bayes reference stays on the CPU).
    """
    torch, seed, device = start_run(seed, device, resume, checkpoint_dir)
    inputs, targets = unigram_batch(config, config.test_size, seeded_generator(torch, seed, 2))
    test = (inputs.to(device), targets.to(device), bayes_losses(config, inputs, targets))
    model, settings = _build(config, seed)
    model.to(device)
    influence_ids, chunk = None, None
    if config.influence_samples:
        influence_ids = test[0][: config.influence_samples]
        chunk = probe_chunk(settings, config.length, config.hidden, 4)
    path = lm_checkpoint_path(checkpoint_dir, config, seed) if checkpoint_dir else None
    optimizer, data, history, start_iter, elapsed = training_state(torch, config, seed, model,
                                                                   path, resume)
    model.eval()  # dropout off: training and measurement compute the same function

    def next_batch() -> tuple[Tensor, Tensor]:
        return unigram_batch(config, config.batch, data)

    def evaluate() -> dict[str, Any]:
        return _evaluate(torch, model, test, config, influence_ids, chunk)

    return next_token_loop(torch, config, seed, model, optimizer, data, path, next_batch,
                           evaluate, history=history, start_iter=start_iter, elapsed=elapsed,
                           progress=progress, log=log, stop_after=stop_after, device=device,
                           postfix=("learned", "final_learned"))


def _worker(args: tuple[dict, int, str | None, bool]) -> dict:
    config_dict, seed, checkpoint_dir, resume = args
    torch = require_torch()
    torch.set_num_threads(1)
    return lm_train_run(LMTrainConfig.from_dict(config_dict), seed,
                        checkpoint_dir=checkpoint_dir, resume=resume, progress=False)


#: calibration of :func:`plan_lm_training` on this project's machine (2 cores, torch 2.13 CPU,
#: one thread): peak RSS 490 MiB (test 200, batch 8), 779 MiB (test 8,000), 1,224 MiB (batch
#: 256) at 4 layers, hidden 64, L = 64; 2,040 MiB at 8 layers, hidden 256, L = 256, batch 8;
#: the stored 1,500-iteration runs (evaluations every 100 of 2,000 sequences) took 216-248 s
_LM_BASE_BYTES = 480 * 2**20
_LM_TEST_BYTES_PER_TOKEN = 600         # per test token, for a vocabulary of 17
_LM_ACT_BYTES_PER_HIDDEN = 250         # per (batch token, layer, hidden unit): activations + grads
_LM_ATT_BYTES_PER_KEY = 16             # per (batch token, layer, head, key): attention probabilities
_LM_SECONDS_PER_FLOP_TRAIN = 1.0e-9    # per (batch token, layer, hidden^2)
_LM_SECONDS_PER_FLOP_EVAL = 5.0e-9     # per (test token, layer, hidden^2), with the Bayes reference


def plan_lm_training(config: LMTrainConfig, seeds: int = 1, jobs: int = 1, *,
                     done: int = 0, device: str = "cpu") -> Plan:
    """The memory and time plan of :func:`lm_train_seeds` (see
    :func:`posbias.measurements.training.plan_training`, ``done`` and ``device`` too): model
    and AdamW
    state, one training batch with its graph, the test set, per process; wall seconds on this
    project's machine."""
    seeds = check_integer("seeds", seeds, 1)
    jobs = check_integer("jobs", jobs, 1)
    c = config
    at_once = min(jobs, seeds)
    vocab = c.tokens + 1
    params = measure.parameter_count(c.arch, layers=c.layers, hidden=c.hidden, heads=c.heads,
                                     vocab=vocab, length=c.length)
    tokens = c.batch * c.length
    act = tokens * c.layers * (c.hidden * _LM_ACT_BYTES_PER_HIDDEN
                               + c.length * c.heads * _LM_ATT_BYTES_PER_KEY)
    test = c.test_size * c.length * _LM_TEST_BYTES_PER_TOKEN * max(1.0, vocab / 17)
    left, evals, resumed = iterations_left(c.iterations, c.eval_every, done)
    per_seed = (left * tokens * c.layers * c.hidden ** 2 * _LM_SECONDS_PER_FLOP_TRAIN
                + evals * c.test_size * c.length * c.layers * c.hidden ** 2 * _LM_SECONDS_PER_FLOP_EVAL)
    rounds = -(-seeds // at_once)
    parts = [("interpreter, torch and transformers", _LM_BASE_BYTES * at_once, 0.0),
             (f"model and AdamW state ({params} parameters)", params * 16 * at_once, 0.0),
             (f"test set ({c.test_size} sequences of {c.length})", test * at_once, 0.0),
             (f"training batch of {c.batch} with its graph", act * at_once, rounds * per_seed)]
    parts, placement = moved_to_device(parts, parts[1:], device)
    return Plan(f"training {c.name} ({seeds} seed(s), {at_once} at once{resumed})", parts,
                "use a smaller --test-size, --batch, --length or --hidden, or fewer --jobs", placement)


def lm_train_seeds(config: LMTrainConfig, seeds: Iterable[int], *, jobs: int = 1,
                   checkpoint_dir: str | None = None, resume: bool = False,
                   progress: bool | None = None,
                   log: Callable[[dict[str, Any]], object] | None = None,
                   max_memory: int | None = None, device: str = "cpu",
                   threads: int = 1) -> list[dict]:
    """Train every seed (``threads`` torch threads, default one); ``jobs > 1`` trains that
    many seeds at once in separate single-thread processes.  Returns the run records in the
    order of ``seeds``.  A run whose plan (:func:`plan_lm_training`, for the iterations left when
    it resumes) does not fit is refused before it starts."""
    seeds, jobs = check_seeds(seeds, jobs)
    check_jobs_device(jobs, device)
    threads = check_threads(threads, jobs, len(seeds))
    plan_seeds(plan_lm_training, lm_checkpoint_path, config, seeds, jobs=jobs,
               checkpoint_dir=checkpoint_dir, resume=resume, device=device).check(max_memory)
    return run_seeds(lm_train_run, _worker, config, seeds, jobs, checkpoint_dir=checkpoint_dir,
                     resume=resume, progress=progress, log=log, device=device, threads=threads)


def lm_results_document(config: LMTrainConfig, runs: list[dict], *,
                        command: str | None = None, jobs: int = 1, device: str = "cpu") -> dict:
    """The JSON document of a training: configuration, runs and provenance (seeds, versions,
    command, machine, threads, iterations, wall time)."""
    found = library_versions()
    try:
        import transformers  # the models extra

        found["transformers"] = transformers.__version__
    except ImportError:  # pragma: no cover - build_model needs it
        found["transformers"] = None
    return {
        "format": LM_RESULTS_FORMAT,
        "task": "lm-synthetic",
        "name": config.name,
        "config": config.as_dict(),
        "variant": {"task": "in-context unigram estimation, Dirichlet(1/2) per sequence",
                    "vocab": config.vocab, "uniform_loss": math.log(config.tokens),
                    "loss": "next-token cross-entropy at every position",
                    "dropout": "off (evaluation mode throughout)",
                    "influence": "exact Jacobian of posbias measure, final position, "
                                 "normalized per sequence, mean over the first "
                                 f"{config.influence_samples} test sequences"},
        "provenance": provenance(runs, found, command=command, jobs=jobs, device=device),
        "runs": runs,
    }


def lm_history_csv(document: dict) -> str:
    """The runs' evaluations as CSV, one row per (seed, iteration)."""
    head = ["seed", "iteration", "loss", "final_loss", "final_bayes_loss", "final_learned",
            "mean_loss", "mean_bayes_loss", "learned", "final_accuracy", "seconds"]
    return flat_history_csv(document, head)
