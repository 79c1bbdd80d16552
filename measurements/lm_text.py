r"""A small ``transformers`` causal LM trained on natural text (the Python documentation, as
plain prose: :mod:`posbias.measurements.corpus`), with the final position's influence profile
followed from Step 0 to Step N.

**Tokenizer**: byte-level BPE trained with the ``tokenizers`` library on the training documents
only (:func:`train_tokenizer`: ``vocab`` tokens, default 4,096, minimum pair frequency 2, one
special token ``<|endoftext|>`` that separates documents).  The same documents give the same
tokenizer (its JSON is compared in the tests); it is saved beside the run as
``tokenizer.json`` and the results record its size and SHA-256.

**Data**: every document is tokenized on its own and the documents are packed in corpus order
into one stream, each preceded by ``<|endoftext|>`` and the last one followed by it (so a
window may cross a document boundary, always at a separator).  Training batches are windows of
``L + 1`` tokens at offsets drawn uniformly from the training stream (``L`` inputs, the next
``L`` tokens as targets).  Validation windows are cut without overlap from the start of the
held-out stream; ``test_size`` of them, evenly spaced, are kept (all when there are fewer).

**Baselines**, from the training tokens, on the same validation targets (all positions, and
the final position alone): the *unigram* model with add-one smoothing, ``(c(w) + 1) / (N +
V)``, and the *bigram* model interpolated with it (Dirichlet smoothing), ``(c(u, w) + a
p_1(w)) / (c(u) + a)``, with ``a`` the value of :data:`BIGRAM_PRIORS` that gives the lowest
validation loss (recorded): the strongest bigram of that family, so that beating it is a
conservative test.  **Gate** (:data:`GATE_NATS`): the model's validation loss over all
positions at least 0.1 nats below the bigram baseline; a run below the gate has not learned
more than which token follows which, and its influence profiles are not evidence about a
trained LM.

**The model**: :func:`posbias.measurements.measure.build_model` (random weights from a
configuration, no download), LLaMA by default (RoPE) or GPT-2 (learned positions), 8 layers,
hidden size 128, 4 heads, context ``L = 256``, in evaluation mode throughout (dropout off), and
the training loop, checkpoints, ``resume`` and influence recording of
:mod:`posbias.measurements.lm_training`: next-token cross-entropy at every position, AdamW; the
influence profile of the final position (the exact Jacobian route of ``posbias measure``,
normalized per window) averaged over the first ``influence_samples`` validation windows, at
Step 0 and at every evaluation, and each window's own profile beside it (the positions of
the document separators in those windows are in the results' ``influence_windows``).

**Random streams**, from the run's ``seed``: training offsets from ``16 seed + 3``, the initial
weights from ``torch.manual_seed(16 seed + 4)``; the corpus, the tokenizer and the validation
windows do not depend on the seed.  A resumed run continues exactly as an uninterrupted one;
a checkpoint directory records the corpus and tokenizer hashes, and resuming on another corpus
or tokenizer is refused.

torch, transformers and tokenizers come with the ``models`` extra, imported inside functions.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.measurements import measure
from posbias.measurements.corpus import CORPUS_SOURCE, SECTIONS, build_corpus
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
    start_run,
    training_state,
)
from posbias.numbers import rounded
from posbias.resources import Plan
from posbias.validation import check_integer, read_json_bounded, read_text_bounded

if TYPE_CHECKING:
    from torch import Tensor

__all__ = [
    "BIGRAM_PRIORS",
    "EOT",
    "GATE_NATS",
    "LM_TEXT_RESULTS_FORMAT",
    "TOKENIZER_FILE",
    "LMTextConfig",
    "TextData",
    "boundary_windows",
    "influence_windows",
    "lm_text_checkpoint_path",
    "lm_text_history_csv",
    "lm_text_results_document",
    "lm_text_run",
    "lm_text_seeds",
    "ngram_baselines",
    "pack_documents",
    "plan_lm_text",
    "prepare_text",
    "save_tokenizer",
    "train_tokenizer",
]

LM_TEXT_RESULTS_FORMAT = "posbias-trained-lm-text/1"
#: the document separator and end-of-text token
EOT = "<|endoftext|>"
#: the gate: validation loss at least this many nats below the bigram baseline
GATE_NATS = 0.1
#: the Dirichlet prior strengths tried for the bigram baseline (the best is kept)
BIGRAM_PRIORS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0)
_EVAL_CHUNK = 32
_SIDECAR = "corpus.json"
#: the largest tokenizer.json a resumed run reads
_MAX_TOKENIZER_BYTES = 256 * 2**20
#: the tokenizer's file name beside a run
TOKENIZER_FILE = "tokenizer.json"


@dataclass(frozen=True)
class LMTextConfig(FlatConfig):
    """One configuration of the natural-text training (everything but the seed): the model
    shape, the corpus recipe (``source``, ``max_documents``: 0 for all), the tokenizer size
    ``vocab``, the optimizer and the evaluation (``test_size`` validation windows)."""

    arch: str = "llama"
    layers: int = 8
    hidden: int = 128
    heads: int = 4
    length: int = 256
    vocab: int = 4096
    iterations: int = 2000
    lr: float = 1e-3
    weight_decay: float = 0.01
    batch: int = 16
    eval_every: int = 100
    test_size: int = 200
    influence_samples: int = 0
    boundary_samples: int = 0
    source: str = CORPUS_SOURCE
    max_documents: int = 0
    min_chars: int = 500
    held_out_every: int = 10

    def __post_init__(self) -> None:
        self._check_shared(min_test=1)
        check_integer("vocab", self.vocab, 300, 2**17)
        if not isinstance(self.source, str) or not self.source:
            raise InvalidArgument("source", self.source, "a directory path")
        check_integer("boundary_samples", self.boundary_samples, 0)
        check_integer("max_documents", self.max_documents, 0)
        check_integer("min_chars", self.min_chars, 0)
        check_integer("held_out_every", self.held_out_every, 2)

    @property
    def name(self) -> str:
        """A file-name-safe name, e.g. ``text_llama_H8_d128_L256_V4096_lr0.001``."""
        return (f"text_{self.arch}_H{self.layers}_d{self.hidden}_L{self.length}_V{self.vocab}"
                f"_lr{self.lr:g}")



def train_tokenizer(documents: Iterable[str], vocab: int = 4096) -> Any:
    """A byte-level BPE ``tokenizers.Tokenizer`` of (at most) ``vocab`` tokens trained on
    ``documents``, with :data:`EOT` as its only special token (id 0)."""
    vocab = check_integer("vocab", vocab, 300, 2**17)
    try:
        # the models extra
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    except ImportError:  # pragma: no cover - tokenizers comes with transformers

        raise NeedsExtra("models", "tokenizers") from None
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab, min_frequency=2, special_tokens=[EOT],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(list(documents), trainer=trainer)
    return tok


def pack_documents(tokenizer: Any, documents: list[str]) -> np.ndarray:
    """One int64 stream: each document's tokens preceded by the :data:`EOT` id, and a final
    :data:`EOT`."""
    eot = tokenizer.token_to_id(EOT)
    parts = [np.array([eot], dtype=np.int64)]
    for enc in tokenizer.encode_batch(documents):
        parts += [np.asarray(enc.ids, dtype=np.int64), np.array([eot], dtype=np.int64)]
    return np.concatenate(parts)


def _nll(p: np.ndarray) -> float:
    return float(-np.log(p).mean())


def ngram_baselines(train: np.ndarray, inputs: np.ndarray, targets: np.ndarray,
                    vocab: int) -> dict[str, Any]:
    """The unigram (add-one) and bigram (Dirichlet-smoothed towards the unigram, the best prior
    of :data:`BIGRAM_PRIORS`) losses in nats of ``targets`` given ``inputs`` (``N x L``: the
    previous token of ``targets[:, t]`` is ``inputs[:, t]``), counted on the ``train``
    stream: mean over all positions and over the final position."""
    counts = np.bincount(train, minlength=vocab).astype(np.float64)
    p1 = (counts + 1) / (counts.sum() + vocab)
    pairs = np.unique(train[:-1] * vocab + train[1:], return_counts=True)
    prev = np.bincount(train[:-1], minlength=vocab).astype(np.float64)
    code = inputs.astype(np.int64) * vocab + targets
    k = np.searchsorted(pairs[0], code)
    k = np.minimum(k, len(pairs[0]) - 1)
    cuw = np.where(pairs[0][k] == code, pairs[1][k], 0).astype(np.float64)
    cu, pw = prev[inputs], p1[targets]
    best = None
    for a in BIGRAM_PRIORS:
        p = (cuw + a * pw) / (cu + a)
        loss = _nll(p)
        if best is None or loss < best[0]:
            best = (loss, a, p)
    assert best is not None
    return {"unigram_loss": rounded(_nll(pw), 6),
            "unigram_final_loss": rounded(_nll(pw[:, -1]), 6),
            "bigram_loss": rounded(best[0], 6),
            "bigram_final_loss": rounded(_nll(best[2][:, -1]), 6),
            "bigram_prior": best[1],
            "smoothing": "unigram: add-one, (c(w) + 1) / (N + V); bigram: (c(u, w) + a p_1(w)) "
                         "/ (c(u) + a), a the best of "
                         + ", ".join(f"{a:g}" for a in BIGRAM_PRIORS) + " on the validation "
                         "targets"}


@dataclass
class TextData:
    """What a run trains and evaluates on: the tokenizer, the training stream, the validation
    windows (``N x (L + 1)``), the n-gram baselines and the corpus recipe and tokenizer
    record for the results."""

    tokenizer: Any
    train: np.ndarray
    windows: np.ndarray
    baselines: dict[str, Any]
    recipe: dict[str, Any]
    tokenizer_record: dict[str, Any]
    #: held-out windows of ``L`` inputs with a document separator inside
    #: (:func:`boundary_windows`) and the in-window position of that separator
    boundary_ids: np.ndarray | None = None
    boundary_positions: list[int] | None = None


def boundary_windows(held: np.ndarray, eot: int, length: int, count: int
                     ) -> tuple[np.ndarray, list[int]]:
    """``count`` (at most) windows of ``length`` tokens from the held-out stream ``held``, each
    with a document separator inside: the separators that begin a held-out document (the
    stream's first and last are left out), ``count`` of them evenly spaced in stream order, the
    ``i``-th placed at in-window position ``q_i = L/4 + (37 i mod L/2)``, so that the chosen
    separators lie in the middle half of their windows at spread positions.  Returns the ids
    (``n x L``) and the positions ``q_i``; a window may hold further separators (short
    documents).

    >>> ids, q = boundary_windows(np.array([0, 5, 6, 7, 0, 8, 9, 3, 4, 0]), 0, 4, 1)
    >>> ids.tolist(), q
    ([[7, 0, 8, 9]], [1])
    """
    inner = np.flatnonzero(held == eot)[1:-1]
    quarter = max(length // 4, 1)
    half = max(length // 2, 1)
    picks = []
    for i, k in enumerate(np.unique(np.linspace(0, len(inner) - 1, min(count, len(inner)))
                                    .round().astype(np.int64)) if len(inner) else []):
        q = quarter + (37 * i) % half
        start = int(inner[k]) - q
        if start >= 0 and start + length <= held.size:
            picks.append((start, q))
    if not picks:
        return np.zeros((0, length), dtype=np.int64), []
    return (np.stack([held[a: a + length] for a, _ in picks]), [q for _, q in picks])


def _write_atomic(text: str, path: str) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".posbias-partial-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def prepare_text(config: LMTextConfig, tokenizer_path: str | None = None) -> TextData:
    """Build the corpus of ``config``, train its tokenizer (or load the one saved at
    ``tokenizer_path`` when that file exists: a resumed run keeps its tokenizer), pack the
    streams and compute the baselines.  Nothing is written (:func:`save_tokenizer`)."""
    corpus = build_corpus(config.source, sections=SECTIONS, min_chars=config.min_chars,
                          held_out_every=config.held_out_every,
                          max_documents=config.max_documents)
    if tokenizer_path and os.path.isfile(tokenizer_path):
        from tokenizers import Tokenizer  # the models extra

        # bounded: a vocabulary of 2^17 tokens and its merges take a few MiB
        text = read_text_bounded(tokenizer_path, _MAX_TOKENIZER_BYTES, "resume")
        try:
            tok = Tokenizer.from_str(text)
        except Exception as exc:  # tokenizers raises its own exception type
            raise InvalidArgument("resume", tokenizer_path,
                                  f"a readable tokenizer.json ({exc})") from None
        if tok.token_to_id(EOT) is None:
            raise InvalidArgument("resume", tokenizer_path, f"a tokenizer with {EOT}")
    else:
        tok = train_tokenizer(corpus.train, config.vocab)
    text = tok.to_str()
    train = pack_documents(tok, corpus.train)
    held = pack_documents(tok, corpus.held_out)
    L = config.length
    if train.size < L + 2:
        raise InvalidArgument("length", L, f"less than the {train.size} training tokens")
    n = (held.size - 1) // L
    if n < 1:
        raise InvalidArgument("length", L, f"at most {held.size - 1}, the held-out tokens "
                              "less one")
    keep = np.unique(np.linspace(0, n - 1, min(n, config.test_size)).round().astype(np.int64))
    windows = np.stack([held[k * L: k * L + L + 1] for k in keep])
    vocab = tok.get_vocab_size()
    baselines = ngram_baselines(train, windows[:, :-1], windows[:, 1:], vocab)
    eot_id = tok.token_to_id(EOT)
    if eot_id is None:  # pragma: no cover - a loaded tokenizer is checked, a trained one has it
        raise InvalidArgument("tokenizer", "", f"a tokenizer with {EOT}")
    b_ids, b_pos = (boundary_windows(held, eot_id, L, config.boundary_samples)
                    if config.boundary_samples else (None, None))
    if b_ids is not None and not len(b_ids):
        raise InvalidArgument("boundary_samples", config.boundary_samples,
                              f"0: no held-out document boundary fits a window of {L} tokens "
                              "with the separator in its middle half")
    import tokenizers  # the models extra

    record = {"kind": "byte-level BPE (tokenizers)", "requested_vocab": config.vocab,
              "vocab": vocab, "special_tokens": [EOT], "min_frequency": 2,
              "file": TOKENIZER_FILE,
              "sha256": hashlib.sha256(text.encode()).hexdigest(),
              "tokenizers": tokenizers.__version__, "train_tokens": int(train.size),
              "held_out_tokens": int(held.size), "validation_windows": len(keep),
              "validation_windows_available": int(n)}
    return TextData(tok, train, windows, baselines, corpus.recipe, record, b_ids, b_pos)


def save_tokenizer(data: TextData, path: str) -> None:
    """Write the tokenizer of ``data`` to ``path`` (atomically)."""
    _write_atomic(data.tokenizer.to_str(), path)


def lm_text_checkpoint_path(directory: str, config: LMTextConfig, seed: int) -> str:
    return os.path.join(directory, f"{config.name}_seed{seed}.pt")


def _check_sidecar(checkpoint_dir: str, data: TextData, resume: bool) -> None:
    """Record the corpus and tokenizer hashes beside the checkpoints; refuse to resume on
    others."""
    path = os.path.join(checkpoint_dir, _SIDECAR)
    mine = {"corpus_sha256": data.recipe["sha256"], "tokenizer_sha256": data.tokenizer_record["sha256"]}
    if resume and os.path.isfile(path):
        old = read_json_bounded(path, 2**20, "resume")
        if old != mine:
            raise InvalidArgument("resume", path, "checkpoints of the same corpus and tokenizer "
                                  f"(corpus {mine['corpus_sha256'][:12]}, tokenizer "
                                  f"{mine['tokenizer_sha256'][:12]})")
        return
    _write_atomic(json.dumps(mine), path)


def _evaluate(torch: Any, model: Any, windows: Tensor, baselines: dict[str, Any],
              influence_ids: Tensor | None, chunk: int | None,
              boundary_ids: Tensor | None = None) -> dict[str, Any]:
    losses = []
    with torch.no_grad():
        for s in range(0, windows.shape[0], _EVAL_CHUNK):
            w = windows[s:s + _EVAL_CHUNK]
            logits = model(input_ids=w[:, :-1], use_cache=False).logits
            lp = torch.log_softmax(logits.cpu().double(), dim=-1)
            losses.append(-lp.gather(2, w[:, 1:].cpu().unsqueeze(-1)).squeeze(-1))
    loss = torch.cat(losses)
    mean, final = float(loss.mean()), float(loss[:, -1].mean())
    entry: dict[str, Any] = {
        "val_loss": rounded(mean, 6), "final_loss": rounded(final, 6),
        "below_bigram": rounded(baselines["bigram_loss"] - mean, 6),
        "below_unigram": rounded(baselines["unigram_loss"] - mean, 6)}
    if influence_ids is not None:
        profiles = final_position_profiles(model, influence_ids, chunk)
        entry["influence"] = mean_profile(profiles)
        # per window too: a document boundary sits at a different position in every window
        entry["influence_windows"] = [[rounded(float(p), 6) for p in q] for q in profiles]
    if boundary_ids is not None and len(boundary_ids):
        entry["boundary_influence"] = [[rounded(float(p), 6) for p in q] for q in
                                       final_position_profiles(model, boundary_ids, chunk)]
    return entry


def lm_text_run(config: LMTextConfig, seed: int, *, data: TextData | None = None,
                checkpoint_dir: str | None = None, resume: bool = False,
                progress: bool | None = None,
                log: Callable[[dict[str, Any]], object] | None = None,
                stop_after: int | None = None, device: str = "cpu") -> dict:
    """Train one seed of ``config`` on ``data`` (default: :func:`prepare_text`); returns the
    run record (``seed``, ``iterations``, ``wall_seconds``, ``iterations_per_second``,
    ``tokens_per_second``, ``history``), one history entry per evaluation (iteration 0, every
    ``eval_every`` and the last): the mean training loss since the previous evaluation, the
    validation loss over all positions (``val_loss``) and at the final one (``final_loss``),
    its margins below the bigram and unigram baselines (``below_bigram``, ``below_unigram``),
    and with ``influence_samples > 0`` the final position's normalized influence profile.
    ``checkpoint_dir``, ``resume``, ``progress``, ``log``, ``stop_after`` and ``device`` as in
    :func:`posbias.measurements.lm_training.lm_train_run`."""
    torch, seed, device = start_run(seed, device, resume, checkpoint_dir)
    if data is None:
        data = prepare_text(config)
    if checkpoint_dir:
        os.makedirs(checkpoint_dir, exist_ok=True)
        _check_sidecar(checkpoint_dir, data, resume)
    train = torch.from_numpy(data.train)
    windows = torch.from_numpy(data.windows).to(device)
    model, settings = measure.build_model(
        config.arch, layers=config.layers, hidden=config.hidden, heads=config.heads,
        vocab=data.tokenizer_record["vocab"], length=config.length, seed=16 * seed + 4)
    model.to(device)
    influence_ids, chunk, boundary_ids = None, None, None
    if config.influence_samples or config.boundary_samples:
        chunk = probe_chunk(settings, config.length, config.hidden, 4)
    if config.influence_samples:
        influence_ids = windows[: config.influence_samples, :-1]
    if config.boundary_samples and data.boundary_ids is not None:
        boundary_ids = torch.from_numpy(data.boundary_ids).to(device)
    path = lm_text_checkpoint_path(checkpoint_dir, config, seed) if checkpoint_dir else None
    optimizer, gen, history, start_iter, elapsed = training_state(torch, config, seed, model,
                                                                  path, resume)
    model.eval()  # dropout off: training and measurement compute the same function
    span = torch.arange(config.length + 1)

    def next_batch() -> tuple[Tensor, Tensor]:
        offsets = torch.randint(0, train.numel() - config.length, (config.batch,), generator=gen)
        w = train[offsets.unsqueeze(1) + span]
        return w[:, :-1], w[:, 1:]

    def evaluate() -> dict[str, Any]:
        return _evaluate(torch, model, windows, data.baselines, influence_ids, chunk,
                         boundary_ids)

    t0 = time.perf_counter()
    run = next_token_loop(torch, config, seed, model, optimizer, gen, path, next_batch,
                          evaluate, history=history, start_iter=start_iter, elapsed=elapsed,
                          progress=progress, log=log, stop_after=stop_after, device=device,
                          postfix=("val", "val_loss"))
    done = run["iterations"] - start_iter
    # this segment's wall time, unrounded (the record's wall_seconds is rounded to 0.1 s,
    # which is 0 for a run of a few tiny steps on a fast machine)
    wall = time.perf_counter() - t0
    run["tokens_per_second"] = (round(done * config.batch * config.length / wall)
                                if done and wall > 0 else None)
    return run


def _worker(args: tuple) -> dict:
    """A seed in its own process: the corpus and tokenizer built again (the same documents give
    the same tokenizer; the checkpoint directory's record of their hashes is checked on
    resume)."""
    config_dict, seed, checkpoint_dir, resume = args
    torch = require_torch()
    torch.set_num_threads(1)
    config = LMTextConfig.from_dict(config_dict)
    return lm_text_run(config, seed, checkpoint_dir=checkpoint_dir, resume=resume,
                       progress=False)


#: calibration of :func:`plan_lm_text` on this project's machine (2 cores shared with other
#: jobs, torch 2.13 CPU, one thread): the default model (8 layers, hidden 128, L = 256, batch
#: 16, vocabulary 4,096) trained 200 iterations with 3 evaluations of 50 windows in 654 s
#: wall (1,252 training tokens/s), after about 4 min building the corpus and tokenizer
_TEXT_BASE_BYTES = 700 * 2**20
_ACT_BYTES_PER_HIDDEN = 250
_ATT_BYTES_PER_KEY = 16
_SECONDS_PER_FLOP_TRAIN = 5.5e-9
_SECONDS_PER_TOKEN_VOCAB = 2.0e-9     # per (batch token, vocabulary entry): the output layer


def plan_lm_text(config: LMTextConfig, seeds: int = 1, jobs: int = 1, *,
                 done: int = 0, device: str = "cpu") -> Plan:
    """The memory and time plan of :func:`lm_text_seeds`: model and AdamW state, one training
    batch with its graph and logits, per process; ``done`` and ``device`` as in
    :func:`posbias.measurements.training.plan_training` (the time of what is left; the model
    and the batch on the training device)."""
    seeds = check_integer("seeds", seeds, 1)
    jobs = check_integer("jobs", jobs, 1)
    c = config
    at_once = min(jobs, seeds)
    params = measure.parameter_count(c.arch, layers=c.layers, hidden=c.hidden, heads=c.heads,
                                     vocab=c.vocab, length=c.length)
    tokens = c.batch * c.length
    act = tokens * (c.layers * (c.hidden * _ACT_BYTES_PER_HIDDEN
                                + c.length * c.heads * _ATT_BYTES_PER_KEY) + c.vocab * 16)
    left, _, resumed = iterations_left(c.iterations, c.eval_every, done)
    per_seed = left * tokens * (c.layers * c.hidden ** 2 * _SECONDS_PER_FLOP_TRAIN
                                        + c.vocab * _SECONDS_PER_TOKEN_VOCAB)
    rounds = -(-seeds // at_once)
    parts = [("interpreter, torch, transformers and the corpus", _TEXT_BASE_BYTES * at_once, 0.0),
             (f"model and AdamW state ({params} parameters)", params * 16 * at_once, 0.0),
             (f"training batch of {c.batch} with its graph", act * at_once, rounds * per_seed)]
    parts, placement = moved_to_device(parts, parts[1:], device)
    return Plan(f"training {c.name} ({seeds} seed(s), {at_once} at once{resumed})", parts,
                "use a smaller --batch, --length, --hidden or --vocab, or fewer --jobs", placement)


def lm_text_seeds(config: LMTextConfig, seeds: Iterable[int], *, jobs: int = 1,
                  checkpoint_dir: str | None = None, resume: bool = False,
                  progress: bool | None = None,
                  log: Callable[[dict[str, Any]], object] | None = None,
                  max_memory: int | None = None, device: str = "cpu",
                  data: TextData | None = None, threads: int = 1) -> list[dict]:
    """Train every seed on ``data`` (default :func:`prepare_text`, shared by the seeds);
    ``jobs > 1`` trains that many seeds at once in separate single-thread processes (each
    builds the corpus again and checks it has the same tokenizer).  Returns the run records in
    the order of ``seeds``; a run whose plan does not fit is refused before it starts.
    ``threads`` as in :func:`posbias.measurements.training.train_seeds`."""
    seeds, jobs = check_seeds(seeds, jobs)
    check_jobs_device(jobs, device)
    threads = check_threads(threads, jobs, len(seeds))
    plan_seeds(plan_lm_text, lm_text_checkpoint_path, config, seeds, jobs=jobs,
               checkpoint_dir=checkpoint_dir, resume=resume, device=device).check(max_memory)
    if data is None:
        data = prepare_text(config)
    shared = data

    def run(cfg: LMTextConfig, seed: int, **kw: Any) -> dict:
        return lm_text_run(cfg, seed, data=shared, **kw)

    return run_seeds(run, _worker, config, seeds, jobs, checkpoint_dir=checkpoint_dir,
                     resume=resume, progress=progress, log=log, device=device, threads=threads)


def lm_text_results_document(config: LMTextConfig, runs: list[dict], data: TextData, *,
                             command: str | None = None, jobs: int = 1,
                             device: str = "cpu") -> dict:
    """The JSON document of a training: configuration, corpus recipe, tokenizer, baselines,
    gate, runs and provenance."""
    found = library_versions()
    import tokenizers  # the models extra
    import transformers  # the models extra

    found["transformers"] = transformers.__version__
    found["tokenizers"] = tokenizers.__version__
    margins = [r["history"][-1]["below_bigram"] for r in runs]
    return {
        "format": LM_TEXT_RESULTS_FORMAT,
        "task": "lm-text",
        "name": config.name,
        "config": config.as_dict(),
        "corpus": data.recipe,
        "tokenizer": data.tokenizer_record,
        "baselines": data.baselines,
        "gate": {"rule": f"validation loss at least {GATE_NATS} nats below the bigram baseline",
                 "nats": GATE_NATS, "margins": margins,
                 "reached": all(m >= GATE_NATS for m in margins)},
        "variant": {"task": "next-token prediction on the Python documentation as plain prose",
                    "loss": "next-token cross-entropy at every position, packed documents "
                            f"separated by {EOT}",
                    "dropout": "off (evaluation mode throughout)",
                    "influence": "exact Jacobian of posbias measure, final position, "
                                 "normalized per window, mean over the first "
                                 f"{config.influence_samples} validation windows"},
        "influence_windows": influence_windows(config, data),
        "boundary_windows": _boundary_record(data),
        "provenance": provenance(runs, found, command=command, jobs=jobs, device=device),
        "runs": runs,
    }


def _boundary_record(data: TextData) -> dict[str, Any] | None:
    if data.boundary_ids is None:
        return None
    eot = data.tokenizer.token_to_id(EOT)
    ids = data.boundary_ids
    return {"count": int(ids.shape[0]), "separator": EOT, "separator_id": int(eot),
            "rule": "the separators beginning held-out documents, evenly spaced in stream "
                    "order, the i-th at in-window position L/4 + (37 i mod L/2)",
            "positions": list(data.boundary_positions or []),
            "eot_positions": [[int(j) for j in np.flatnonzero(row == eot)] for row in ids],
            "sha256": hashlib.sha256(np.ascontiguousarray(ids, dtype=np.int64).tobytes())
            .hexdigest()}


def influence_windows(config: LMTextConfig, data: TextData) -> dict[str, Any]:
    """Where the documents meet inside the influence windows: per window (the first
    ``influence_samples`` validation windows, in the order of each history entry's
    ``influence_windows``), the 0-based input positions that hold the :data:`EOT` separator,
    and the windows' token ids' SHA-256."""
    eot = data.tokenizer.token_to_id(EOT)
    ids = data.windows[: config.influence_samples, :-1]
    return {"count": int(ids.shape[0]), "separator": EOT, "separator_id": int(eot),
            "eot_positions": [[int(j) for j in np.flatnonzero(row == eot)] for row in ids],
            "sha256": hashlib.sha256(np.ascontiguousarray(ids, dtype=np.int64).tobytes())
            .hexdigest()}


def lm_text_history_csv(document: dict) -> str:
    """The runs' evaluations as CSV, one row per (seed, iteration)."""
    head = ["seed", "iteration", "loss", "val_loss", "final_loss", "below_bigram",
            "below_unigram", "seconds"]
    return flat_history_csv(document, head)
