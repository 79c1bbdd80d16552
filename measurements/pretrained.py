r"""Measuring a pretrained causal LM on real text: influence, mixing coefficients, content
scores and ALiBi slopes, everything the rollout model of herasimchyk2026 needs.

For a loaded checkpoint (:mod:`posbias.measurements.checkpoint`) and ``N`` token windows of
length ``L`` (:mod:`posbias.measurements.text`, or uniformly random ids):

**Influence** (``metric="top1-grad"``, the herasimchyk2026 protocol): for each window, the L2 norm
over the embedding dimension of :math:`\partial p_{\mathrm{top1}} / \partial e_j`, ``p_top1`` the
model's own largest next-token probability at the last position, ``e_j`` the input embedding of
position ``j``; each window's vector is normalised to sum 1 and the profile is the mean over
windows.  ``metric="jacobian"``: the Jacobian Frobenius norm of the last hidden state (see
:func:`posbias.measurements.measure.influence_profile`).  The gradient pass runs under
per-block checkpointing.

The forward pass of the same gradient computation reads, with hooks on every block (switched
off before the backward pass, which recomputes the checkpointed blocks):

* :math:`\lambda_t = \operatorname{mean}_i \|a_{t,i}\| / (\|x_{t,i}\| + \|a_{t,i}\|)`, ``x_t`` the
  block input, ``a_t`` the attention sub-layer output before any residual add inside the module
  (:class:`posbias.measurements.hooks.lambda_hooks`; mean over positions, then over windows);
* per head ``h`` the raw scores :math:`s_{ij} = q_i \cdot k_j` (queries and keys after the
  model's rotary embedding where it has one, key/value groups expanded to the query heads,
  *without* the model's scale factor): ``qk_diagonal[t, h]`` the mean over ``i`` of
  :math:`s_{ii}`, ``qk_lower[t, h]`` the mean over ``j < i`` of :math:`s_{ij}` (computed as
  :math:`\sum_i q_i \cdot \sum_{j<i} k_j`, never as an ``L x L`` matrix); the content scores of
  the rollout model are ``diagonal = qk_diagonal - qk_lower`` and ``base = qk_lower``;
* the model's logit scale ``score_scale[t]`` (the factor on ``q.k`` before the softmax, read from
  the attention module: ``scaling``, ``inv_norm_factor`` or ``softmax_scale``) and, for ALiBi
  models, the slopes from the bias tensor the model itself passes to the attention (the
  difference of two neighbouring key positions) and ``alibi_scale[t]``, the factor the model puts
  on that bias (1 for BLOOM and MPT; Falcon's ``1/sqrt(d_head)``).

In logits, head ``h`` of layer ``t`` reads key ``j`` from query ``i`` with
``score_scale * s_ij - alibi_scale * slope_h * (i - j)`` up to a per-row constant.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from posbias import __version__
from posbias.errors import InvalidArgument
from posbias.measurements.attention import (
    PRETRAINED_FAMILIES,
    ROUTES,
    AttentionProbe,
    GenericAttentionProbe,
    has_alibi,
)
from posbias.measurements.checkpoint import block_checkpointing
from posbias.measurements.hooks import (
    input_device,
    lambda_hooks,
    locate_blocks,
    require_models_extra,
)
from posbias.measurements.journal import MeasurementJournal, windows_done
from posbias.measurements.measure import METRICS, influence_profile, top1_grad_profiles
from posbias.measurements.planning import MeasurementPlan, plan_measurement, window_bytes
from posbias.measurements.sharding import describe_device_map
from posbias.numbers import rounded
from posbias.resources import memory_limit
from posbias.validation import check_choice

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used
    from torch.nn import Module
    from transformers import PreTrainedModel

    from posbias.measurements.checkpoint import LoadedCheckpoint

__all__ = [
    "MAX_AUTO_BATCH",
    "PretrainedMeasurement",
    "measure_pretrained",
    "plan_pretrained",
]

#: the largest first batch of ``batch_size="auto"``
MAX_AUTO_BATCH = 64


@dataclass
class PretrainedMeasurement:
    """A pretrained model measured on ``samples`` windows of ``length`` tokens.

    Arrays: ``profile[j-1]`` (normalised influence of position ``j``), ``sample_profiles``
    (``N x L``), ``lambdas[t-1]``, ``qk_diagonal`` / ``qk_lower`` (``T x H``, raw ``q.k`` means
    without the model's scale), ``score_scale`` (``T``), ``alibi_slopes`` (``T x H`` or None),
    ``alibi_scale`` (``T`` or None).  ``digits = 7``: no value carries more than float32
    precision (the models compute in float32 or bfloat16).
    """

    model: str
    location: str
    model_type: str
    num_layers: int
    num_heads: int
    head_dim: int
    hidden_size: int
    length: int
    metric: str
    samples: int
    seed: int
    dtype: str
    attn_implementation: str
    inputs: str
    profile: np.ndarray
    sample_profiles: np.ndarray
    lambdas: np.ndarray
    qk_diagonal: np.ndarray
    qk_lower: np.ndarray
    score_scale: np.ndarray
    alibi_slopes: np.ndarray | None
    alibi_scale: np.ndarray | None
    positional: str
    seconds: float
    details: dict = field(default_factory=dict)

    digits = 7

    @property
    def diagonal_scores(self) -> np.ndarray:
        """Raw content score per (layer, head): mean diagonal minus mean strictly-lower q.k."""
        return self.qk_diagonal - self.qk_lower

    @property
    def base_scores(self) -> np.ndarray:
        """Raw mean strictly-lower q.k per (layer, head)."""
        return self.qk_lower

    @property
    def name(self) -> str:
        """A file-name stem for the model: the last path component, lower case."""
        stem = os.path.basename(self.model.rstrip("/\\")) or "model"
        return re.sub(r"[^a-z0-9._-]+", "-", stem.lower()).strip("-.") or "model"

    def as_dict(self) -> dict:
        def r(x: float) -> float:
            return rounded(x, self.digits)

        def table(a):
            return None if a is None else [[r(x) for x in row] for row in np.atleast_2d(a)]

        return {
            "model": self.model, "location": self.location, "model_type": self.model_type,
            "num_layers": self.num_layers, "num_heads": self.num_heads,
            "head_dim": self.head_dim, "hidden_size": self.hidden_size, "length": self.length,
            "metric": self.metric, "samples": self.samples, "seed": self.seed,
            "dtype": self.dtype, "attn_implementation": self.attn_implementation,
            "inputs": self.inputs, "positional": self.positional,
            "seconds": round(self.seconds, 3),
            "lambdas": [r(x) for x in self.lambdas],
            "qk_diagonal": table(self.qk_diagonal), "qk_lower": table(self.qk_lower),
            "score_scale": [r(x) for x in self.score_scale],
            "alibi_slopes": table(self.alibi_slopes),
            "alibi_scale": None if self.alibi_scale is None else [r(x) for x in self.alibi_scale],
            "profile": [r(x) for x in self.profile],
            "details": self.details,
        }


def _positional(model: Module, slopes: np.ndarray | None) -> str:
    if slopes is not None:
        return "alibi"
    if any(type(m).__name__.endswith("RotaryEmbedding") for m in model.modules()):
        return "rope"
    if model.config.model_type == "gpt2":  # type: ignore[union-attr]  # a transformers model
        return "learned absolute"
    return "none found"


def measure_pretrained(
    loaded: LoadedCheckpoint,
    windows: np.ndarray | None = None,
    *,
    length: int | None = None,
    samples: int = 1,
    seed: int = 0,
    metric: str = "top1-grad",
    probes: int = 8,
    threads: int = 1,
    checkpointing: bool = True,
    inputs: str | None = None,
    route: str = "auto",
    progress: Callable[[str], object] | None = None,
    journal: str | os.PathLike[str] | None = None,
    resume: bool = False,
    offload_activations: bool = False,
    batch_size: int | str = 1,
    max_memory: int | None = None,
) -> PretrainedMeasurement:
    """Measure a loaded checkpoint on token windows.

    Parameters
    ----------
    loaded: a :class:`~posbias.measurements.checkpoint.LoadedCheckpoint`.
    windows: an ``N x L`` integer array of token ids (:func:`~posbias.measurements.text.text_windows`),
        or None for ``samples`` sequences of ``length`` ids drawn uniformly from the vocabulary
        by a ``torch.Generator`` seeded with ``seed``.
    length, samples: used only without ``windows`` (integers >= 2 and >= 1).
    seed: integer >= 0 (random ids, and the Jacobian probes).
    metric: ``"top1-grad"`` (default) or ``"jacobian"`` (``probes`` Rademacher probes).
    threads: torch intra-op threads during the run (restored afterwards).
    checkpointing: per-block gradient checkpointing in the gradient pass (default True).
    inputs: a description of the inputs for the record (default: derived).
    route: how the queries and keys are read (:data:`ROUTES`): ``"auto"`` (default) the
        family route for :data:`PRETRAINED_FAMILIES` and the generic route
        (:class:`GenericAttentionProbe`) for every other model, ``"family"`` or ``"generic"``
        to choose.  The input embeddings come from ``model.get_input_embeddings()``, the
        blocks and their attention modules from the module tree, parallel-residual blocks
        with their own lambda (:class:`~posbias.measurements.hooks.lambda_hooks`); a model
        where one of them cannot be found is refused naming what is missing.
    progress: optional callable receiving one-line messages (one per window, with the time
        left at the rate so far).
    journal: a file that receives each finished window as it finishes
        (:class:`~posbias.measurements.journal.MeasurementJournal`); with ``resume=True`` a
        journal an interrupted run left is continued from its next window, and the result
        equals, bit for bit, that of an uninterrupted run.  A journal of a different
        measurement, or an incomplete one in the way of a fresh run, is refused
        (:class:`~posbias.errors.InvalidArgument` naming ``resume``).
    batch_size: windows per forward and backward pass (``top1-grad``; the probe Jacobian
        takes one window at a time and chunks its probes): an integer >= 1 (default 1), or
        ``"auto"``, which starts from an estimate of what fits and halves the batch and retries
        on out-of-memory, keeping every finished window.  A batch that does not fit, even of
        one window, is refused naming ``batch_size``.  Batched profiles equal the window-by-window
        ones within float rounding of the batched products (the same batch size gives the
        same bits).
    offload_activations: keep the tensors the backward pass saves (the block inputs, under
        checkpointing) in host memory, ``torch.autograd.graph.save_on_cpu``: for a model on
        an accelerator whose activations would not fit beside its weights.  A model sharded or
        offloaded with a device map (:func:`~posbias.measurements.checkpoint.load_checkpoint`)
        is measured as it is: accelerate's hooks load each block where it runs.
    max_memory: the bytes the host may hold (default: what this machine and process may use).
        The measurement is planned first (:func:`plan_pretrained`, for the windows left when
        it resumes) and refused in one line (:class:`~posbias.errors.ResourceLimit`) when it
        cannot fit, before the first window.
    """
    torch, _ = require_models_extra()
    generic, mode, vocab = _check_model(loaded, metric, samples, seed, threads, probes, route)
    ids, inputs = _input_ids(torch, windows, length, samples, seed, vocab, inputs)
    n, L = int(ids.shape[0]), int(ids.shape[1])
    _check_run(loaded.model.config, L, metric, batch_size, resume, journal)
    plan = plan_pretrained(
        loaded, length=L, windows=max(1, n - (windows_done(journal) if resume and journal
                                              else 0)),
        metric=metric, probes=probes, threads=threads, batch_size=batch_size,
        checkpointing=checkpointing, offload_activations=offload_activations,
        max_memory=max_memory)
    if plan is not None:
        plan.check()  # before the first window
    book = None
    if journal is not None:
        book = MeasurementJournal(journal, _fingerprint(loaded, torch, ids, inputs, metric,
                                                        probes, seed, threads, checkpointing,
                                                        generic), resume=resume)
    model = loaded.model
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    start = time.perf_counter()
    try:
        ctx = block_checkpointing(model) if checkpointing else contextlib.nullcontext()
        parked = (torch.autograd.graph.save_on_cpu(pin_memory=torch.cuda.is_available())
                  if offload_activations else contextlib.nullcontext())
        probe_class = GenericAttentionProbe if generic else AttentionProbe
        with ctx, parked, lambda_hooks(model) as rec, probe_class(model) as probe:
            windows_run = _WindowRun(torch, loaded, ids, metric, probes, batch_size,
                                     checkpointing, rec, probe,
                                     torch.Generator().manual_seed(seed + 1), book, progress,
                                     start)
            profiles, earlier = windows_run.run(journal)
    finally:
        torch.set_num_threads(previous)
    return _measurement(loaded, rec, probe, profiles, inputs, L, metric, probes, seed,
                        threads, checkpointing, offload_activations, generic, mode,
                        earlier + time.perf_counter() - start)


def plan_pretrained(loaded: LoadedCheckpoint, *, length: int, windows: int = 1,
                    metric: str = "top1-grad", probes: int = 8, threads: int = 1,
                    batch_size: int | str = 1, checkpointing: bool = True,
                    offload_activations: bool = False,
                    max_memory: int | None = None) -> MeasurementPlan | None:
    """The plan of :func:`measure_pretrained` on the loaded checkpoint: its memory per device
    and its time on the CPU (:func:`posbias.measurements.planning.plan_measurement`) for
    ``windows`` windows of ``length`` tokens, the weights where they are (on the model's
    device, or where its device map put them), the activations on the device the model reads
    its inputs on.  The weights the host already holds are given back to an address-space
    limit (``ulimit -v``), which counts them.  ``max_memory``: the host's bytes (default: what
    this machine and process may use).  None when the model's sizes are not readable from its
    configuration.  Returns the plan unchecked: :meth:`MeasurementPlan.check` refuses.  (Before
    loading, :func:`posbias.measurements.planning.plan_checkpoint` plans the same measurement
    from the checkpoint's configuration alone.)"""
    model = loaded.model
    mapped = loaded.device_map is not None
    resident = sum(p.numel() * p.element_size() for p in model.parameters()
                   if p.device.type == "cpu")
    try:
        return plan_measurement(
            model.config, length=length, dtype=loaded.dtype, batch_size=batch_size,
            checkpointing=checkpointing, device=_device_of(model), metric=metric,
            device_bytes=loaded.device_bytes if mapped else None,
            execution_device=_device_of(model), offload_activations=offload_activations,
            max_memory=max_memory, what=f"measuring {loaded.source} at L = {length}",
            windows=windows, threads=threads, probes=probes, resident=resident)
    except InvalidArgument as exc:
        if exc.parameter == "model":
            return None  # sizes not readable from the configuration
        raise


def _check_model(loaded: LoadedCheckpoint, metric: str, samples: int, seed: int, threads: int,
                 probes: int, route: str) -> tuple[bool, str, int]:
    """``(generic route, how lambda is read, vocabulary size)`` after checking the arguments
    and that the model has what a measurement reads (one line naming what is missing)."""
    if metric not in METRICS:
        raise InvalidArgument("metric", metric, "one of " + ", ".join(METRICS))
    for name, value, lo in (("samples", samples, 1), ("seed", seed, 0), ("threads", threads, 1),
                            ("probes", probes, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lo:
            raise InvalidArgument(name, value, f"an integer >= {lo}")
    model = loaded.model
    config = model.config
    route = check_choice("route", route, ROUTES)
    family = config.model_type in PRETRAINED_FAMILIES
    if route == "family" and not family:
        raise InvalidArgument("route", route, f"auto or generic for {config.model_type} (the "
                              "family route reads " + ", ".join(PRETRAINED_FAMILIES) + ")")
    generic = route == "generic" or not family
    if generic and has_alibi(config.model_type, config):
        raise InvalidArgument("route", route, f"family for {config.model_type} (its ALiBi bias "
                              "is read by the family route only)")
    try:
        embeddings = model.get_input_embeddings()
    except (NotImplementedError, AttributeError):
        embeddings = None
    if embeddings is None or not hasattr(embeddings, "weight"):
        raise InvalidArgument("model", loaded.source, "a causal LM whose input embeddings "
                              "posbias can find (get_input_embeddings() gave none)")
    if metric == "top1-grad" and model.get_output_embeddings() is None:
        raise InvalidArgument("model", loaded.source, "a causal LM with an output head "
                              "(get_output_embeddings() gave none; top1-grad needs it)")
    try:
        _, _, mode = locate_blocks(model)
    except InvalidArgument as exc:
        raise InvalidArgument("model", loaded.source, exc.allowed) from None
    # the embeddings' weight is Tensor | Module to torch's stubs
    return generic, mode, int(embeddings.weight.shape[0])  # type: ignore[index]


def _input_ids(torch: ModuleType, windows: np.ndarray | None, length: int | None,
               samples: int, seed: int, vocab: int, inputs: str | None) -> tuple[Any, str]:
    """The ``N x L`` token ids to measure (the given windows, checked against the vocabulary,
    or random ids of the seed) and their description."""
    if windows is None:
        if isinstance(length, bool) or not isinstance(length, int) or length < 2:
            raise InvalidArgument("length", length, "an integer >= 2")
        gen = torch.Generator().manual_seed(seed)
        ids = torch.randint(0, vocab, (samples, length), generator=gen)
        return ids, inputs or (f"{samples} sequence(s) of {length} uniformly random token ids "
                               f"(seed {seed})")
    ids = torch.as_tensor(np.asarray(windows), dtype=torch.long)
    if ids.ndim != 2 or ids.shape[1] < 2:
        raise InvalidArgument("windows", f"an array of shape {tuple(ids.shape)}",
                              "an N x L array of token ids, L >= 2")
    if int(ids.min()) < 0 or int(ids.max()) >= vocab:
        raise InvalidArgument("windows", f"ids in [{int(ids.min())}, {int(ids.max())}]",
                              f"token ids in [0, {vocab - 1}] (the model's vocabulary)")
    return ids, inputs or f"{ids.shape[0]} given window(s) of {ids.shape[1]} tokens"


def _check_run(config: Any, L: int, metric: str, batch_size: int | str, resume: bool,
               journal: str | os.PathLike[str] | None) -> None:
    """The window length against the model's positions, the batch size against the metric,
    and a journal to resume from."""
    maxpos = getattr(config, "max_position_embeddings", None) or getattr(config, "max_seq_len",
                                                                         None)
    if isinstance(maxpos, int) and maxpos < L:
        raise InvalidArgument("length", L, f"at most {maxpos} (the model's maximum positions)")
    if batch_size != "auto" and (isinstance(batch_size, bool) or not isinstance(batch_size, int)
                                 or batch_size < 1):
        raise InvalidArgument("batch_size", batch_size, "an integer >= 1 or auto")
    if metric == "jacobian" and batch_size not in (1, "auto"):
        raise InvalidArgument("batch_size", batch_size, "1 or auto with metric jacobian (its "
                              "probes are chunked within each window)")
    if resume and journal is None:
        raise InvalidArgument("resume", resume, "a journal to resume from (journal=PATH)")


def _fingerprint(loaded: LoadedCheckpoint, torch: ModuleType, ids: Any, inputs: str,
                 metric: str, probes: int, seed: int, threads: int, checkpointing: bool,
                 generic: bool) -> dict[str, Any]:
    """What a journal records of its measurement: a resumed run must match it."""
    n, L = int(ids.shape[0]), int(ids.shape[1])
    return {
        "model": loaded.source, "model_type": loaded.model.config.model_type,
        "dtype": loaded.dtype, "attn_implementation": loaded.attn_implementation,
        "metric": metric, "probes": probes if metric == "jacobian" else None, "seed": seed,
        "threads": threads, "checkpointing": bool(checkpointing),
        "route": "generic" if generic else "family", "device": _device_of(loaded.model),
        "windows": n, "length": L, "inputs": inputs,
        "ids_sha256": hashlib.sha256(ids.numpy().astype(np.int64).tobytes()).hexdigest(),
        "posbias": __version__, "torch": torch.__version__}


class _WindowRun:
    """The windows of one measurement, batch by batch inside the hooks: each window's profile,
    the journal line after each batch, a batch that runs out of memory rolled back and (with
    ``batch_size="auto"``) halved."""

    def __init__(self, torch: ModuleType, loaded: LoadedCheckpoint, ids: Any, metric: str,
                 probes: int, batch_size: int | str, checkpointing: bool, rec: lambda_hooks,
                 probe: AttentionProbe, gen: Any, book: MeasurementJournal | None,
                 progress: Callable[[str], object] | None, start: float) -> None:
        self.torch, self.loaded, self.ids, self.metric = torch, loaded, ids, metric
        self.probes, self.batch_size, self.checkpointing = probes, batch_size, checkpointing
        self.rec, self.probe, self.gen, self.book = rec, probe, gen, book
        self.progress, self.start = progress, start
        self.profiles: list[np.ndarray] = []
        self.earlier = 0.0  # seconds of the windows an interrupted run finished

    def _say(self, text: str) -> None:
        if self.progress:
            self.progress(text)

    def pause(self) -> None:  # recording stops before the backward pass recomputes the blocks
        self.rec.active = self.probe.active = False

    def run(self, journal: str | os.PathLike[str] | None) -> tuple[list[np.ndarray], float]:
        """Every window not in the journal; returns ``(profiles, seconds of earlier runs)``."""
        n, L = int(self.ids.shape[0]), int(self.ids.shape[1])
        done = self.book.start() if self.book is not None else []
        if done:
            _restore(self.torch, self.rec, self.probe, self.gen, done)
            self.profiles = [np.array(r["profile"], dtype=np.float64) for r in done]
            self.earlier = float(done[-1]["seconds"])
            self._say(f"resumed from {journal}: {len(done)}/{n} window(s) done")
        first = s = len(done)
        if self.metric == "jacobian":
            size = 1
        elif isinstance(self.batch_size, int):
            size = self.batch_size
        else:
            size = _auto_batch(self.loaded.model, L, n - first, self.checkpointing)
            self._say(f"batch size auto: {size} window(s) per pass to start")
        while s < n:
            b = min(size, n - s)
            if not self._batch(s, b, L):
                size = b // 2
                self._say(f"out of memory at a batch of {b}: batches of {size} now")
                continue
            s += b
            spent = time.perf_counter() - self.start
            left = spent / (s - first) * (n - s)
            self._say(f"window {s}/{n}: {self.metric} done ({self.earlier + spent:.1f} s"
                      + (f", about {left:.0f} s left)" if s < n else ")"))
        if self.book is not None:
            self.book.finish()
        return self.profiles, self.earlier

    def _batch(self, s: int, b: int, L: int) -> bool:
        """Windows ``s .. s+b-1`` measured and journaled; False when the batch ran out of
        memory and may be halved (everything it added rolled back)."""
        rec, probe, model = self.rec, self.probe, self.loaded.model
        rec.active = probe.active = True
        tv_before = [len(v) for v in rec.tv]
        saved = _accumulators(rec, probe)
        rec.elements = probe.elements = b
        try:
            if self.metric == "top1-grad":
                rows = top1_grad_profiles(model, self.ids[s:s + b], after_forward=self.pause)
            else:
                rows = influence_profile(model, self.ids[s], metric=self.metric,
                                         probes=self.probes, generator=self.gen, chunk=1,
                                         after_forward=self.pause)[None, :]
        except Exception as exc:
            if not _out_of_memory(self.torch, exc):
                raise
            _rollback(rec, probe, saved, tv_before)
            if self.batch_size != "auto" or b == 1:
                raise InvalidArgument("batch_size", self.batch_size, "a batch that fits (a "
                                      f"batch of {b} window(s) of {L} tokens ran out of memory"
                                      + ("" if b == 1 else "; try auto") + ")") from None
            return False
        finally:
            rec.elements = probe.elements = 1
        for infl in rows:
            total = float(infl.sum())
            if not math.isfinite(total) or total <= 0:
                raise InvalidArgument("model", self.loaded.source, "a model whose influence is "
                                      "finite and nonzero (got a degenerate gradient)")
            self.profiles.append(infl / total)
        if self.book is not None:
            seconds = self.earlier + time.perf_counter() - self.start
            for i in range(b - 1):
                self.book.append({"window": s + i, "profile": _floats(self.profiles[s + i]),
                                  "seconds": seconds, "resumable": False})
            self.book.append(_window_record(s + b - 1, self.profiles[-1], rec, probe, tv_before,
                                            self.gen if self.metric == "jacobian" else None,
                                            seconds))
        return True


def _measurement(loaded: LoadedCheckpoint, rec: lambda_hooks, probe: AttentionProbe,
                 profiles: list[np.ndarray], inputs: str, L: int, metric: str, probes: int,
                 seed: int, threads: int, checkpointing: bool, offload_activations: bool,
                 generic: bool, mode: str, seconds: float) -> PretrainedMeasurement:
    """The record of a finished measurement: the mean profile, lambda, the attention figures
    and how they were measured."""
    model = loaded.model
    att = probe.results()
    sample_profiles = np.array(profiles)
    profile = sample_profiles.mean(axis=0)
    profile = profile / profile.sum()
    return PretrainedMeasurement(
        model=loaded.source, location=loaded.location, model_type=model.config.model_type,
        num_layers=int(att["qk_diagonal"].shape[0]), num_heads=int(att["qk_diagonal"].shape[1]),
        head_dim=att["head_dim"], hidden_size=int(model.config.hidden_size), length=L,
        metric=metric, samples=len(profiles), seed=seed, dtype=loaded.dtype,
        attn_implementation=loaded.attn_implementation, inputs=inputs, profile=profile,
        sample_profiles=sample_profiles, lambdas=np.asarray(rec.lambdas, dtype=float),
        qk_diagonal=att["qk_diagonal"], qk_lower=att["qk_lower"],
        score_scale=att["score_scale"], alibi_slopes=att["alibi_slopes"],
        alibi_scale=att["alibi_scale"], positional=_positional(model, att["alibi_slopes"]),
        seconds=seconds,
        details={"checkpointing": bool(checkpointing), "threads": threads,
                 "device": _device_of(model),
                 "route": "generic" if generic else "family",
                 "device_map": _map_summary(loaded),
                 "offload_activations": bool(offload_activations),
                 "lambda": "parallel residual: ||a|| / (||x + m|| + ||a||)" if mode == "parallel"
                 else "||a|| / (||x|| + ||a||)",
                 "estimator": "exact gradient" if metric == "top1-grad"
                 else f"{probes} rademacher probes"})


def _map_summary(loaded: LoadedCheckpoint) -> str | None:
    """Where a sharded model's modules are (None without a device map)."""
    if getattr(loaded, "device_map", None) is None:
        return None

    return describe_device_map(loaded.device_map or {}, loaded.device_bytes)


def _auto_batch(model: Module, length: int, remaining: int, checkpointing: bool = True) -> int:
    """The first batch ``batch_size="auto"`` tries: half the free memory of the device the
    model runs on (the host's with :func:`posbias.resources.memory_limit` on the CPU) over the
    planner's bytes of one window (:func:`posbias.measurements.planning.window_bytes`: what
    the backward pass keeps plus one block's working set), at most :data:`MAX_AUTO_BATCH` and
    the windows left; halved on out-of-memory from there."""
    import torch  # the models extra

    dtype = str(next(model.parameters()).dtype).rsplit(".", 1)[-1]
    parts = window_bytes(model.config, length, dtype if dtype in ("float32", "bfloat16",
                                                                  "float16") else "float64",
                         checkpointing=checkpointing)
    window = parts["kept"] + parts["working"]
    dev = input_device(model)
    free = torch.cuda.mem_get_info(dev)[0] if dev.type == "cuda" else memory_limit()[0] or 2**32
    return max(1, min(MAX_AUTO_BATCH, remaining, int(free // 2 // max(window, 1))))


def _out_of_memory(torch: ModuleType, exc: BaseException) -> bool:
    """Whether ``exc`` is an allocation failure (CUDA's OutOfMemoryError, the CPU allocator's
    RuntimeError, MemoryError); the accelerator's cache is emptied for the retry."""
    oom = isinstance(exc, (MemoryError, getattr(torch, "OutOfMemoryError", ())))
    if not oom and isinstance(exc, RuntimeError):
        text = str(exc).lower()
        oom = "out of memory" in text or "can't allocate memory" in text
    if oom and torch.cuda.is_available():
        torch.cuda.empty_cache()
    return oom


def _floats(a: Any) -> Any:
    """A numpy array (or None) as nested lists of Python floats: exact in JSON."""
    return None if a is None else np.asarray(a, dtype=np.float64).tolist()


def _accumulators(rec: lambda_hooks, probe: AttentionProbe) -> dict[str, Any]:
    """Every running sum of a measurement (lambda, attention q.k) as plain Python values,
    exact in JSON: the one representation of the state that a journal line stores after each
    window and that a batch which runs out of memory is rolled back to
    (:func:`_set_accumulators`).  The attention-uniformity lists, which only grow, are kept
    apart (their lengths mark a batch's start)."""
    return {
        "lambda_sums": [float(x) for x in rec.sums], "lambda_passes": list(rec.passes),
        "calls": list(probe.calls), "diag": [_floats(d) for d in probe.diag],
        "lower": [_floats(d) for d in probe.lower], "scale": list(probe.scale),
        "alibi_scale": list(probe.alibi_scale), "slopes": [_floats(x) for x in probe.slopes],
        "head_dim": probe.head_dim,
    }


def _set_accumulators(rec: lambda_hooks, probe: AttentionProbe, state: dict[str, Any]) -> None:
    """Set every running sum to ``state`` (from :func:`_accumulators`, or a journal line): the
    stored values themselves, so that nothing is added again in another order."""
    def arr(x):
        return None if x is None else np.array(x, dtype=np.float64)

    rec.sums = [float(x) for x in state["lambda_sums"]]
    rec.passes = [int(x) for x in state["lambda_passes"]]
    probe.calls = [int(x) for x in state["calls"]]
    probe.diag = [arr(x) for x in state["diag"]]
    probe.lower = [arr(x) for x in state["lower"]]
    probe.scale = list(state["scale"])
    probe.alibi_scale = list(state["alibi_scale"])
    probe.slopes = [arr(x) for x in state["slopes"]]
    probe.head_dim = state["head_dim"]


def _rollback(rec: lambda_hooks, probe: AttentionProbe, saved: dict[str, Any],
              tv_before: list[int]) -> None:
    """Undo a batch: the sums as :func:`_accumulators` saved them before it, and the
    attention-uniformity values it appended."""
    _set_accumulators(rec, probe, saved)
    for v, k in zip(rec.tv, tv_before):
        del v[k:]


def _window_record(s: int, profile: np.ndarray, rec: lambda_hooks, probe: AttentionProbe,
                   tv_before: list[int], gen: Any, seconds: float) -> dict[str, Any]:
    """The journal line of window ``s``: its profile and every accumulator's state after it
    (see :mod:`posbias.measurements.journal`)."""
    return {
        "window": s, "profile": _floats(profile), "seconds": seconds,
        "tv": [[float(x) for x in v[k:]] for v, k in zip(rec.tv, tv_before)],
        **_accumulators(rec, probe),
        "rng": None if gen is None else bytes(gen.get_state().numpy()).hex(),
    }


def _restore(torch: ModuleType, rec: lambda_hooks, probe: AttentionProbe, gen: Any,
             done: list[dict]) -> None:
    """Set the accumulators (and the probe generator) to their state after the last finished
    window of a journal: the stored sums themselves, so nothing is added in another order."""
    last = done[-1]
    try:
        _set_accumulators(rec, probe, last)
        for r in done:
            for t, values in enumerate(r.get("tv") or []):
                rec.tv[t].extend(float(x) for x in values)
        if last["rng"] is not None:
            gen.set_state(torch.tensor(list(bytes.fromhex(last["rng"])), dtype=torch.uint8))
    except (KeyError, TypeError, ValueError, IndexError):  # the journal checked their form
        raise InvalidArgument("resume", f"window {len(done) - 1}", "a journal record whose "
                              "accumulators and generator state fit this model") from None
    if len(rec.sums) != len(rec.tv) or len(probe.calls) != len(rec.tv):
        raise InvalidArgument("resume", f"window {len(done) - 1}", "a journal record of a "
                              f"model with {len(rec.tv)} blocks")


def _device_of(model: PreTrainedModel) -> str:
    """The device the model's input embeddings run on (``cpu``, ``cuda:N``, ``mps``)."""
    dev = input_device(model)
    return dev.type if dev.type in ("cpu", "mps") else str(dev)

