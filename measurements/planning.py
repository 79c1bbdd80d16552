"""The plan of a measurement, its memory per device and its time on the CPU, before any weight
is read or any model built: of a checkpoint (:func:`plan_measurement`, below) and of a model at
initialization (:func:`plan_step0`, ``measure --arch``).

``posbias measure --model`` (and :func:`plan_measurement` in the Python API) sizes a run from
the checkpoint's configuration alone: the model is built on the ``meta`` device (no memory, no
weights read) for its exact parameter count, and every part of the run is placed on the device
that will hold it:

- **host**: the interpreter, torch, transformers, the tokenizer and the text windows
  (:data:`HOST_BASE_BYTES`);
- **weights** at the chosen dtype: on the measuring device, or where the device map puts each
  block (:func:`~posbias.measurements.sharding.plan_device_map`; ``disk`` takes no memory);
- **activations** of the gradient pass on the model's execution device, per window times the
  batch (:func:`window_bytes`); with ``offload_activations`` the part the backward pass keeps
  goes to the host.

Each device's total is compared with what it may use: the host's limit
(:func:`posbias.resources.memory_limit`, or an int ``--max-memory``), a GPU's total memory
as torch reports it (the per-device budgets of the map form of ``--max-memory`` are
accelerate's and bound the weights it places on each device).  A device that would be
over is refused in one line naming it (:class:`~posbias.errors.ResourceLimit`, exit status 2),
before anything is loaded.

The plan also holds the measurement's **time** where it computes on the CPU
(:func:`window_flops`: the matrix products of a window's passes, at a rate calibrated on this
project's machine, :data:`CPU_FLOPS_PER_THREAD`); on an accelerator, or with weights offloaded
to disk, it says that the time is not planned (neither was calibrated).

The activation model (:func:`window_bytes`) was calibrated on this project's machine (torch
2.13 CPU, float32, eager attention, L = 512) against the peak resident memory of
``measure_pretrained`` on random BLOOM-style checkpoints of 6 and 18 blocks (hidden 1024, 16
heads) and 24 blocks (BLOOM-560m's shape), with and without per-block checkpointing and at
batches 1 and 4: the plan is 0.96-1.13x the measured peaks there, and 1.11-1.35x them
(conservative) for a small 4-block LLaMA-style model (hidden 512, L = 512 and 1024), whose
attention keeps no L x L maps.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from posbias.errors import InvalidArgument, ResourceLimit
from posbias.measurements.hooks import probe_chunk, require_models_extra
from posbias.measurements.sharding import plan_device_map
from posbias.numbers import byte_size, duration
from posbias.resources import accelerator_memory, memory_limit, usable_cores
from posbias.validation import check_integer, read_text_bounded

__all__ = ["CPU_FLOPS_PER_THREAD", "HOST_BASE_BYTES", "STEP0_HOST_BYTES", "MeasurementPlan",
           "cpu_flops", "model_sizes", "plan_checkpoint", "plan_measurement", "plan_step0",
           "step0_matmul_parameters", "window_bytes", "window_flops"]

#: host memory of a measurement before its weights: the interpreter, torch, transformers, the
#: tokenizer and the text windows (measured: 233 MB after the imports, 403-409 MB after
#: ``load_checkpoint`` returns with the weights still mapped, not read)
HOST_BASE_BYTES = 420 * 2**20

_ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2, "float64": 8}

#: host memory of a Step-0 measurement (``measure --arch``) besides its model: the
#: interpreter, torch and transformers (the figure its estimate was calibrated with)
STEP0_HOST_BYTES = 600_000_000


#: floating-point operations per second of one torch thread in a measurement's passes on this
#: project's machine (2 cores, torch 2.13 CPU, float32), counted as :func:`window_flops` counts
#: them, and the exponent of the gain from more threads: fitted to random BLOOM-, LLaMA-, GPT-2-
#: and Qwen2-style checkpoints of 4-6 blocks (hidden 512-1024, L = 256-1024) at one and two
#: threads (``tests/benchmarks/bench_measure_plan.py`` holds the plan against measured times)
CPU_FLOPS_PER_THREAD = 82e9
_THREAD_EXPONENT = 0.85
#: seconds each block adds to each pass (forward or backward) besides its arithmetic: the
#: launch of its operations, whatever the batch (what a 2-block model of hidden 64 takes,
#: where there is almost no arithmetic)
_SECONDS_PER_BLOCK_PASS = 1.2e-3


def cpu_flops(threads: int) -> float:
    """The planned rate of a measurement's passes with ``threads`` torch threads on the CPU:
    :data:`CPU_FLOPS_PER_THREAD` ``* t^0.85``, ``t`` the threads up to the cores this process
    may use (threads beyond them add nothing).  Calibrated on this project's machine: another
    machine computes at its own rate, so the planned time is a guide, not a bound."""
    threads = check_integer("threads", threads, 1)
    t = min(threads, usable_cores())
    return CPU_FLOPS_PER_THREAD * t ** _THREAD_EXPONENT


def _first_int(config: Any, names: tuple[str, ...]) -> int | None:
    for name in names:
        v = getattr(config, name, None)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return None


def model_sizes(config: Any) -> dict[str, int]:
    """``hidden``, ``layers``, ``heads`` and ``ffn`` (the MLP width) of a transformers
    configuration, under the names its family uses (``n_embd``, ``d_model``, ``n_inner``,
    ``ffn_hidden_size``, MPT's ``expansion_ratio``, ...); the MLP width defaults to 4 x hidden.
    A configuration without hidden size, depth or heads is refused naming ``model``."""
    hidden = _first_int(config, ("hidden_size", "n_embd", "d_model"))
    layers = _first_int(config, ("num_hidden_layers", "n_layer", "n_layers"))
    heads = _first_int(config, ("num_attention_heads", "n_head", "n_heads"))
    if hidden is None or layers is None or heads is None:
        raise InvalidArgument("model", getattr(config, "model_type", "?"),
                              "a configuration with hidden size, depth and heads")
    ffn = _first_int(config, ("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"))
    if ffn is None:
        ratio = getattr(config, "expansion_ratio", None)
        ffn = int(ratio * hidden) if isinstance(ratio, (int, float)) and ratio > 0 else 4 * hidden
    return {"hidden": hidden, "layers": layers, "heads": heads, "ffn": ffn}


def window_bytes(config: Any, length: int, dtype: str = "float32", *,
                 checkpointing: bool = True) -> dict[str, int]:
    """Activation bytes of the top-1 gradient pass: ``kept``, per window, what the backward
    pass keeps from the forward pass (under per-block checkpointing, each block's input and the
    attention and MLP outputs the recomputation leaves; without it, every block's internals),
    and ``working``, per batch, the internals of the block being computed with their gradients.

    With ``s = itemsize * L`` and one block's internals
    ``b = s (6 hidden + 2 ffn + 2 heads L)``: ``kept = s * layers * (hidden + ffn + heads L)``
    with checkpointing, ``layers * b`` without; ``working = 2 b``.  (Calibration in the module
    docstring.)"""
    length = check_integer("length", length, 1)
    if dtype not in _ITEMSIZE:
        raise InvalidArgument("dtype", dtype, "one of " + ", ".join(_ITEMSIZE))
    z = model_sizes(config)
    s = _ITEMSIZE[dtype] * length
    block = s * (6 * z["hidden"] + 2 * z["ffn"] + 2 * z["heads"] * length)
    if checkpointing:
        kept = s * z["layers"] * (z["hidden"] + z["ffn"] + z["heads"] * length)
    else:
        kept = z["layers"] * block
    return {"kept": int(kept), "working": int(2 * block)}


def _forward_flops(matmul_parameters: int, length: int, layers: int, width: int, vocab: int,
                   hidden: int) -> int:
    """One forward pass over ``length`` tokens: ``2 M L + 4 layers L^2 width + 2 vocab hidden``
    (see :func:`window_flops`)."""
    return (2 * int(matmul_parameters) * length + 4 * layers * length ** 2 * width
            + 2 * vocab * hidden)


def window_flops(config: Any, length: int, matmul_parameters: int, *,
                 metric: str = "top1-grad", probes: int = 8,
                 checkpointing: bool = True) -> int:
    """Floating-point operations of measuring one window of ``length`` tokens.

    One forward pass is ``f = 2 M L + 4 layers L^2 width + 2 vocab hidden``: the products with
    the blocks' ``M`` matrix parameters (``matmul_parameters``: every weight of two or more
    axes outside the embeddings and the output head), the attention scores and their
    weighted sum over all ``L x L`` pairs (``width`` = heads x head dim), and the output head at
    the last position.  The weights take no gradient, so a backward pass computes the inputs'
    gradients alone, about ``f``; per-block checkpointing recomputes the blocks once per
    backward pass (``f``): ``top1-grad`` is ``(2 + c) f``, the probe Jacobian with ``K``
    probes ``(1 + K (1 + c)) f``, ``c`` 1 with checkpointing, else 0.  (A mixture of experts
    is counted with all its experts: an upper bound.)"""
    length = check_integer("length", length, 1)
    z = model_sizes(config)
    vocab = _first_int(config, ("vocab_size", "padded_vocab_size")) or 0
    head_dim = _first_int(config, ("head_dim",)) or z["hidden"] // z["heads"]
    f = _forward_flops(matmul_parameters, length, z["layers"], z["heads"] * head_dim, vocab,
                       z["hidden"])
    return int(_passes(metric, probes, checkpointing) * f)


def _passes(metric: str, probes: int, checkpointing: bool) -> int:
    """A window's passes in units of one forward pass (see :func:`window_flops`); also the
    passes whose operations are launched (one window per pass)."""
    c = 1 if checkpointing else 0
    if metric == "jacobian":
        return 1 + check_integer("probes", probes, 1) * (1 + c)
    return 2 + c


def _step0_passes(metric: str, probes: int, copies: int) -> tuple[int, int]:
    """(forward-pass units of arithmetic, passes launched) of one Step-0 sequence: ``top1-grad``
    one forward and one backward pass; the Jacobian with ``probes`` probes in chunks of
    ``copies`` copies of the sequence a forward and a backward pass per chunk (``2 K`` units,
    ``2 ceil(K / copies)`` passes), or, with one copy per chunk, one forward pass and a
    backward pass per probe (``1 + K``)."""
    if metric == "top1-grad":
        return 2, 2
    if copies == 1 and probes > 1:
        return 1 + probes, 1 + probes
    return 2 * probes, 2 * -(-probes // max(1, copies))


@dataclass
class MeasurementPlan:
    """The parts of a measurement, each ``(device, what, bytes)``, each device's limit
    ``(bytes or None, where the figure comes from)``, and the planned wall ``seconds`` (None
    where the time is not planned) with ``timing``, how it was planned or why it was not."""

    what: str
    parts: list[tuple[str, str, int]] = field(default_factory=list)
    limits: dict[str, tuple[int | None, str]] = field(default_factory=dict)
    parameters: int = 0
    advice: str = "use a smaller --length or --batch-size, --dtype bfloat16, or --device-map"
    #: planned wall seconds of the measurement (not of loading), or None where not planned
    seconds: float | None = None
    #: how the time was planned, or why it was not
    timing: str = ""

    def per_device(self) -> dict[str, int]:
        """Total bytes per device, in the order the devices first appear."""
        out: dict[str, int] = {}
        for dev, _, b in self.parts:
            out[dev] = out.get(dev, 0) + int(b)
        return out

    @property
    def bytes(self) -> int:
        """All devices together (disk excluded)."""
        return sum(b for d, b in self.per_device().items() if d != "disk")

    def check(self) -> MeasurementPlan:
        """Refuse (:class:`~posbias.errors.ResourceLimit`, one line) the first device whose
        total exceeds its limit; returns the plan."""
        for dev, needed in self.per_device().items():
            limit, source = self.limits.get(dev, (None, ""))
            if limit is not None and needed > limit:
                raise ResourceLimit(needed, limit, source, f"{self.what}: {self.advice}",
                                    device=dev)
        return self

    def describe(self) -> str:
        """The plan in lines, per device with its limit (for ``-v``)."""
        lines = [f"plan of {self.what} ({self.parameters:,} parameters):"]
        for dev, total in self.per_device().items():
            limit, source = self.limits.get(dev, (None, ""))
            lim = f" of {byte_size(limit)} ({source})" if limit is not None else ""
            lines.append(f"  {dev}: about {byte_size(total)}{lim}")
            lines += [f"    {what}: {byte_size(b)}" for d, what, b in self.parts if d == dev]
        if self.timing:
            when = "" if self.seconds is None else f"about {duration(self.seconds)}: "
            lines.append(f"  time: {when}{self.timing}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {"what": self.what, "parameters": self.parameters,
                "per_device": self.per_device(),
                "limits": {d: {"bytes": b, "source": s} for d, (b, s) in self.limits.items()},
                "parts": [{"device": d, "name": n, "bytes": int(b)} for d, n, b in self.parts],
                "seconds": self.seconds, "timing": self.timing}


def _meta_parameters(config: Any, dtype: str) -> tuple[int, int]:
    """(all parameters, the matrix parameters of the blocks) of ``config``'s causal LM, built
    on the ``meta`` device: the second excludes every embedding table (tokens, positions) and
    the output head, and every vector (norms, biases)."""
    import torch  # the models extra
    import transformers  # the models extra

    try:
        with torch.device("meta"):
            empty = transformers.AutoModelForCausalLM.from_config(config,
                                                                  dtype=getattr(torch, dtype))
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        # a configuration field of the wrong type (rope_theta "x") meets the model's
        # construction: not sizable from the configuration (loading names the field)
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:160]
        raise InvalidArgument("model", getattr(config, "name_or_path", "") or "config",
                              f"a configuration transformers can build a model from "
                              f"({reason})") from None
    tables = {id(p) for m in empty.modules() if isinstance(m, torch.nn.Embedding)
              for p in m.parameters()}
    head = empty.get_output_embeddings()
    if head is not None:
        tables |= {id(p) for p in head.parameters()}
    matmul = sum(p.numel() for p in empty.parameters() if p.ndim >= 2 and id(p) not in tables)
    return sum(p.numel() for p in empty.parameters()), matmul


def _device_limit(dev: str, max_memory: Any, resident: int = 0) -> tuple[int | None, str]:
    """What ``dev`` may hold in all: the host's limit (an int ``max_memory`` is the process's
    limit, as for every command; ``resident`` host bytes of the plan already held, see
    :func:`posbias.resources.memory_limit`), a GPU's total memory.  The per-device budgets of
    the map form of ``--max-memory`` are accelerate's: they bound the weights it places there
    (checked by the placement itself), not the device's whole use."""
    if dev == "cpu":
        host = max_memory if isinstance(max_memory, int) and not isinstance(max_memory, bool) \
            else None
        limit, source = memory_limit(host, resident=resident)
        return limit, ("--max-memory allows" if host is not None else source)

    return accelerator_memory(dev)  # a GPU's total; disk and mps: None (torch reports none)


def plan_measurement(config: Any, *, length: int, dtype: str = "float32",
                     batch_size: int | str = 1, checkpointing: bool = True,
                     device: str = "cpu", metric: str = "top1-grad",
                     device_bytes: Mapping[str, int] | None = None,
                     execution_device: str | None = None, offload_activations: bool = False,
                     max_memory: Any = None, what: str | None = None, windows: int = 1,
                     threads: int = 1, probes: int = 8, resident: int = 0) -> MeasurementPlan:
    """The per-device memory plan, and the time on the CPU, of measuring ``config``'s causal LM
    (a transformers configuration) at window length ``length``: host base, weights and
    activations (see the module docstring).

    ``device``: where the model runs without a map (``"cpu"``, ``"cuda:N"``, ``"mps"``).
    ``device_bytes``: the weights' bytes per device of a device map (the third value of
    :func:`~posbias.measurements.sharding.plan_device_map`) and ``execution_device`` the
    device the map's first block runs on.  ``batch_size="auto"`` plans the smallest batch (1):
    the automatic batch grows from there to what the device holds.  The probe Jacobian
    (``metric="jacobian"``) runs one probe per pass.  ``max_memory``: an int, the host's
    limit (a per-device mapping bounds only the weights of a map: see :func:`_device_limit`).
    ``windows``, ``threads`` and ``probes`` (the Jacobian's) plan the time where the passes run
    on the CPU: ``windows`` times :func:`window_flops` at :func:`cpu_flops` ``(threads)``, and
    1.2 ms per block and pass of each batch for launching the operations (what dominates a tiny
    model).  ``resident``: host bytes of the plan this process already holds (the weights of a
    loaded model), given back to an address-space limit that counts them.
    Returns the plan unchecked: :meth:`MeasurementPlan.check` refuses."""
    if dtype not in _ITEMSIZE:
        raise InvalidArgument("dtype", dtype, "one of " + ", ".join(_ITEMSIZE))
    if batch_size != "auto":
        batch_size = check_integer("batch_size", batch_size, 1)
    batch = 1 if batch_size == "auto" or metric == "jacobian" else int(batch_size)
    windows = check_integer("windows", windows, 1)
    threads = check_integer("threads", threads, 1)
    acts = window_bytes(config, length, dtype, checkpointing=checkpointing)
    params, matmul = _meta_parameters(config, dtype)
    weights = params * _ITEMSIZE[dtype]
    run_on = execution_device or device
    parts: list[tuple[str, str, int]] = [("cpu", "interpreter, torch, transformers, tokenizer "
                                          "and text", HOST_BASE_BYTES)]
    if device_bytes:
        for dev, b in device_bytes.items():
            parts.append((dev, "weights (device map)" + (", offloaded to disk" if dev == "disk"
                                                         else ""), int(b)))
    else:
        parts.append((device, f"weights ({dtype})", weights))
    kept = f"activations kept for the backward pass, {batch} window(s) at L = {length}" + (
        " (per-block checkpointing)" if checkpointing else " (no checkpointing)")
    parts.append(("cpu" if offload_activations else run_on, kept
                  + (", offloaded to the host" if offload_activations else ""),
                  batch * acts["kept"]))
    parts.append((run_on, "one block's internals and their gradients", acts["working"]))
    devices = {d for d, _, _ in parts}
    limits = {d: _device_limit(d, max_memory, resident if d == "cpu" else 0) for d in devices}
    label = what or f"measuring at L = {length}"
    if batch_size == "auto":
        label += " (batch auto: planned at 1)"
    flops = windows * window_flops(config, length, matmul, metric=metric, probes=probes,
                                   checkpointing=checkpointing)
    seconds: float | None = None
    if run_on != "cpu":
        timing = f"not planned on {run_on} (not calibrated on an accelerator)"
    elif device_bytes and "disk" in device_bytes:
        timing = "not planned with weights on disk (read from disk for every pass)"
    elif device_bytes and any(d != "cpu" for d in device_bytes):
        timing = "not planned for a map whose blocks run on an accelerator (not calibrated)"
    else:
        launched = -(-windows // batch) * _passes(metric, probes, checkpointing)  # per batch
        seconds = flops / cpu_flops(threads) \
            + launched * model_sizes(config)["layers"] * _SECONDS_PER_BLOCK_PASS
        timing = (f"{windows} window(s), {flops / 1e12:.3g} TFLOP at {threads} thread(s), "
                  "at the rate of this project's 2-core machine (a guide; loading not counted)")
    return MeasurementPlan(label, parts, limits, params, seconds=seconds, timing=timing)


#: seconds per parameter of building a model at initialization (the seeded initialization on
#: the CPU: 15-24 ns per parameter for GPT-2, TinyLlama and Qwen2 shapes on this machine)
_STEP0_BUILD_SECONDS_PER_PARAMETER = 20e-9
#: the rate of float64 passes relative to float32 on this machine (GPT-2 shape, L = 256)
_FLOAT64_RATE = 0.4
#: model types whose MLP has three matrices (gate, up, down)
_GATED_MLP = ("llama", "qwen2", "mistral")


def step0_matmul_parameters(settings: Mapping[str, Any]) -> int:
    """The blocks' matrix parameters of a model at initialization from its resolved
    ``settings``: per block the query and output projections (``hidden x heads head_dim``), the
    key and value projections of its key/value heads, and an MLP of two matrices of
    ``hidden x ffn`` (three for LLaMA, Qwen2, Mistral: gate, up and down)."""
    d, layers = int(settings["hidden_size"]), int(settings["num_hidden_layers"])
    heads = int(settings["num_attention_heads"])
    hd = int(settings.get("head_dim") or d // heads)
    kv = int(settings.get("num_key_value_heads") or heads)
    ffn = int(settings.get("intermediate_size") or settings.get("n_inner") or 4 * d)
    mlp = (3 if settings.get("model_type") in _GATED_MLP else 2) * d * ffn
    return layers * (2 * d * heads * hd + 2 * d * kv * hd + mlp)


def plan_step0(settings: Mapping[str, Any], *, length: int, dtype: str = "float32",
               device: str = "cpu", metric: str = "jacobian", probes: int = 8,
               exact: bool = False, max_memory: Any = None,
               what: str | None = None, samples: int = 1, threads: int = 1,
               runs: int = 1, kernel_inputs: int = 0) -> MeasurementPlan:
    """The per-device memory plan, and the time on the CPU, of measuring a model at
    initialization (``measure --arch``, :func:`posbias.measurements.measure.measure_influence`)
    from its resolved ``settings``
    (:func:`posbias.measurements.presets.resolve_settings`): nothing is built.

    With ``p`` the parameters (``layers (4 d^2 + 3 d ffn) + 2 vocab d``) and one pass's
    activations ``a = layers (4 heads L^2 + 40 L d)`` numbers:

    - **host**: the interpreter, torch and transformers (:data:`STEP0_HOST_BYTES`); the model is
      built there by the seeded generator, so with an accelerator the host also holds it while
      it is built and converted (``2 p`` numbers) before it moves;
    - **the measuring device**: the model and the working copies of its construction, ``3 p``
      numbers on the CPU (``p`` on an accelerator, whose share of the construction is the host's
      above), and the activations of the copies computed at once: one for ``top1-grad``, the
      probe chunk of the Jacobian (:func:`posbias.measurements.hooks.probe_chunk`: as many
      probe copies as fit in about 1 GiB, at least one).

    On the CPU the total is the figure this route was calibrated with (``itemsize (3 p + a) +
    600 MB``) plus the probe chunk's further copies.  Not calibrated on an accelerator (none was
    available to this work).

    The time, on the CPU only: each of ``runs`` measurements (``measure --rope both`` makes
    two, three with probe noise) builds the model (20 ns per parameter) and measures
    ``samples`` sequences, each a forward and a backward pass of every probe's copy of the
    sequence (``2 K f``, ``K`` the probes, ``hidden`` of them with ``exact``), or, where one copy
    is all the probe chunk holds, one forward pass and a backward pass per probe
    (``(1 + K) f``); ``2 f`` for ``top1-grad``; ``f`` as in :func:`window_flops`; plus the
    ``kernel_inputs`` forward passes, once (the first run's), at :func:`cpu_flops`
    ``(threads)`` (0.4 of it in float64).  Returns the plan unchecked:
    :meth:`MeasurementPlan.check` refuses (one line, exit status 2 at the command line)."""
    length = check_integer("length", length, 1)
    itemsize = _ITEMSIZE.get(dtype, 8)
    d, layers = int(settings["hidden_size"]), int(settings["num_hidden_layers"])
    heads = int(settings["num_attention_heads"])
    inter = settings.get("intermediate_size") or settings.get("n_inner") or 4 * d
    params = layers * (4 * d * d + 3 * d * int(inter)) + 2 * int(settings["vocab_size"]) * d
    per_copy = layers * (4 * heads * length * length + 40 * length * d)
    n_probe = d if exact else int(probes)
    copies = 1 if metric == "top1-grad" else probe_chunk(dict(settings), length, max(1, n_probe),
                                                           4 if dtype == "float32" else 8)
    on_cpu = device == "cpu"
    parts: list[tuple[str, str, int]] = [
        ("cpu", "interpreter, torch and transformers", STEP0_HOST_BYTES)]
    if not on_cpu:
        parts.append(("cpu", f"the model while it is built and converted ({dtype})",
                      2 * params * itemsize))
    parts.append((device, f"the model ({dtype})" + (" and the working copies of its "
                                                    "construction" if on_cpu else ""),
                  (3 if on_cpu else 1) * params * itemsize))
    parts.append((device, f"activations of {copies} cop{'y' if copies == 1 else 'ies'} of one "
                  f"pass at L = {length} ({metric})", copies * per_copy * itemsize))
    limits = {dev: _device_limit(dev, max_memory) for dev in {p[0] for p in parts}}
    samples = check_integer("samples", samples, 1)
    threads = check_integer("threads", threads, 1)
    runs = check_integer("runs", runs, 1)
    kernel_inputs = check_integer("kernel_inputs", kernel_inputs, 0)
    seconds: float | None = None
    if on_cpu:
        vocab = int(settings["vocab_size"])
        matmul = step0_matmul_parameters(settings)
        f = _forward_flops(matmul, length, layers,
                           heads * int(settings.get("head_dim") or d // heads), vocab, d)
        units, launched = _step0_passes(metric, max(1, n_probe), copies)
        # the kernel's forward passes are measured once (RoPE on), whatever the runs
        flops = (runs * samples * units + kernel_inputs) * f
        rate = cpu_flops(threads) * (_FLOAT64_RATE if itemsize == 8 else 1.0)
        launch = (runs * samples * launched + kernel_inputs) * layers * _SECONDS_PER_BLOCK_PASS
        built = matmul + vocab * d  # not the memory plan's bound p
        build = runs * _STEP0_BUILD_SECONDS_PER_PARAMETER * built
        seconds = build + flops / rate + launch
        timing = (f"{runs} run(s) of {samples} sequence(s), {flops / 1e12:.3g} TFLOP at "
                  f"{threads} thread(s) and {build:.2g} s of building, at the rate of this "
                  "project's 2-core machine (a guide)")
    else:
        timing = f"not planned on {device} (not calibrated on an accelerator)"
    return MeasurementPlan(what or f"measuring at initialization at L = {length}", parts, limits,
                           params, advice="use a smaller --length, --hidden or --layers (or "
                                          "raise --max-memory)", seconds=seconds, timing=timing)


#: the size fields of a config.json (the spellings of the families transformers knows) and
#: the largest value each may have: a checkpoint beyond them is refused before transformers
#: builds its configuration (a per-layer list of 10^9 entries is built, not sized)
_CONFIG_SIZES = {
    **dict.fromkeys(("num_hidden_layers", "n_layer", "num_layers", "n_layers"), 10_000),
    **dict.fromkeys(("hidden_size", "n_embd", "d_model"), 2**18),
    **dict.fromkeys(("intermediate_size", "n_inner", "ffn_dim", "d_ff"), 2**20),
    **dict.fromkeys(("num_attention_heads", "n_head", "num_heads", "num_key_value_heads",
                     "n_head_kv", "multi_query_group_num"), 2**14),
    "vocab_size": 2**24,
    **dict.fromkeys(("max_position_embeddings", "n_positions", "seq_length", "n_ctx"), 2**30),
}


def _check_config_sizes(cfg: dict, model: str, path: str) -> None:
    """Every size field of a config.json present with a usable value: an integer (not a
    truth value, not 1e9 written as a float) between 1 and its bound (``n_inner`` and
    ``num_key_value_heads`` may be null: the family's default)."""
    for key, bound in _CONFIG_SIZES.items():
        if key not in cfg or (cfg[key] is None and key in ("n_inner", "num_key_value_heads")):
            continue
        value = cfg[key]
        if type(value) is not int or not 1 <= value <= bound:
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            raise InvalidArgument("model", model, f"a config.json whose {key} is an integer in "
                                  f"1..{bound} ({path}: {shown})")


def plan_checkpoint(model: str, *, length: int, windows: int = 1, dtype: str = "float32",
                    device: str = "cpu", metric: str = "top1-grad", probes: int = 8,
                    threads: int = 1, batch_size: int | str = 1, checkpointing: bool = True,
                    offload_activations: bool = False, device_map: str | None = None,
                    max_memory: Any = None, offload_folder: str | None = None,
                    what: str | None = None) -> MeasurementPlan | None:
    """The plan of measuring the checkpoint ``model`` (a directory or a name in the local
    Hugging Face cache, as :func:`~posbias.measurements.checkpoint.load_checkpoint` takes it)
    on ``windows`` windows of ``length`` tokens, before any weight is read: the memory per
    device and the time on the CPU (:func:`plan_measurement`) from the checkpoint's
    configuration alone (a directory's ``config.json`` read bounded, or a name's from the
    cache).  With ``device_map`` the weights are placed as the map places them (computed on the
    meta device, :func:`~posbias.measurements.sharding.plan_device_map`) and the activations go
    to the map's first device.  ``max_memory``: the host's bytes (an int), or bytes per device
    (a mapping, the map's budgets).  None when there is no configuration to read (loading then
    says what is missing) or its sizes are not readable from it (the model is sized once
    loaded).  Returns the plan unchecked: :meth:`MeasurementPlan.check` refuses."""
    _, transformers = require_models_extra()
    where = os.path.expanduser(model)
    path = os.path.join(where, "config.json")
    if os.path.isdir(where):
        if not os.path.isfile(path):
            return None
        try:
            cfg = json.loads(read_text_bounded(path, 16 * 2**20, "model"))
        except (ValueError, RecursionError):  # not JSON, or nested deeper than the reader goes
            raise InvalidArgument("model", model, f"a checkpoint whose config.json is JSON "
                                  f"({path})") from None
        if not isinstance(cfg, dict):
            raise InvalidArgument("model", model, f"a config.json holding an object ({path})")
        _check_config_sizes(cfg, model, path)
    try:
        config = transformers.AutoConfig.from_pretrained(where, local_files_only=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # not found, or a family transformers does not know: loading says
    except Exception as exc:  # transformers' strict field validation (huggingface_hub)
        if type(exc).__name__.startswith("StrictDataclass") and os.path.isdir(where):
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:160]
            raise InvalidArgument("model", model, f"a config.json transformers accepts ({path}: "
                                  f"{reason})") from None
        raise
    device_bytes, run_on = None, device
    if device_map is not None:
        placed, _, device_bytes = plan_device_map(
            config, dtype=dtype, device_map=device_map,
            max_memory=max_memory if isinstance(max_memory, dict) else None,
            offload_folder=offload_folder)
        first = next((d for d in placed.values() if d != "disk"), "cpu")
        run_on = f"cuda:{first}" if isinstance(first, int) else str(first)
    try:
        return plan_measurement(
            config, length=length, dtype=dtype, batch_size=batch_size,
            checkpointing=checkpointing, device=device, metric=metric,
            device_bytes=device_bytes, execution_device=run_on,
            offload_activations=offload_activations,
            max_memory=max_memory if isinstance(max_memory, int) else None,
            what=what or f"measuring {model} at L = {length}", windows=windows,
            threads=threads, probes=probes)
    except InvalidArgument as exc:
        if exc.parameter == "model":
            return None  # sizes not readable from the configuration: sized once loaded
        raise
