"""The memory plan of a measurement, per device, before any weight is read or any model built:
of a checkpoint (:func:`plan_measurement`, below) and of a model at initialization
(:func:`plan_step0`, ``measure --arch``).

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

The activation model (:func:`window_bytes`) was calibrated on this project's machine (torch
2.13 CPU, float32, eager attention, L = 512) against the peak resident memory of
``measure_pretrained`` on random BLOOM-style checkpoints of 6 and 18 blocks (hidden 1024, 16
heads) and 24 blocks (BLOOM-560m's shape), with and without per-block checkpointing and at
batches 1 and 4: the plan is 0.96-1.13x the measured peaks there, and 1.11-1.35x them
(conservative) for a small 4-block LLaMA-style model (hidden 512, L = 512 and 1024), whose
attention keeps no L x L maps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from posbias.errors import InvalidArgument, ResourceLimit
from posbias.validation import check_integer

__all__ = ["HOST_BASE_BYTES", "STEP0_HOST_BYTES", "MeasurementPlan", "model_sizes",
           "plan_measurement", "plan_step0", "window_bytes"]

#: host memory of a measurement before its weights: the interpreter, torch, transformers, the
#: tokenizer and the text windows (measured: 233 MB after the imports, 403-409 MB after
#: ``load_checkpoint`` returns with the weights still mapped, not read)
HOST_BASE_BYTES = 420 * 2**20

_ITEMSIZE = {"float32": 4, "bfloat16": 2, "float16": 2, "float64": 8}

#: host memory of a Step-0 measurement (``measure --arch``) besides its model: the
#: interpreter, torch and transformers (the figure its estimate was calibrated with)
STEP0_HOST_BYTES = 600_000_000


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


@dataclass
class MeasurementPlan:
    """The parts of a measurement, each ``(device, what, bytes)``, and each device's limit
    ``(bytes or None, where the figure comes from)``."""

    what: str
    parts: list[tuple[str, str, int]] = field(default_factory=list)
    limits: dict[str, tuple[int | None, str]] = field(default_factory=dict)
    parameters: int = 0
    advice: str = "use a smaller --length or --batch-size, --dtype bfloat16, or --device-map"

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
        from posbias.resources import human

        lines = [f"plan of {self.what} ({self.parameters:,} parameters):"]
        for dev, total in self.per_device().items():
            limit, source = self.limits.get(dev, (None, ""))
            lim = f" of {human(limit)} ({source})" if limit is not None else ""
            lines.append(f"  {dev}: about {human(total)}{lim}")
            lines += [f"    {what}: {human(b)}" for d, what, b in self.parts if d == dev]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {"what": self.what, "parameters": self.parameters,
                "per_device": self.per_device(),
                "limits": {d: {"bytes": b, "source": s} for d, (b, s) in self.limits.items()},
                "parts": [{"device": d, "name": n, "bytes": int(b)} for d, n, b in self.parts]}


def _meta_parameters(config: Any, dtype: str) -> int:
    import torch
    import transformers

    with torch.device("meta"):
        empty = transformers.AutoModelForCausalLM.from_config(config,
                                                              dtype=getattr(torch, dtype))
    return sum(p.numel() for p in empty.parameters())


def _device_limit(dev: str, max_memory: Any) -> tuple[int | None, str]:
    """What ``dev`` may hold in all: the host's limit (an int ``max_memory`` is the process's
    limit, as for every command), a GPU's total memory.  The per-device budgets of the map
    form of ``--max-memory`` are accelerate's: they bound the weights it places there (checked
    by the placement itself), not the device's whole use."""
    from posbias.resources import memory_limit

    if dev == "cpu":
        host = max_memory if isinstance(max_memory, int) and not isinstance(max_memory, bool) \
            else None
        limit, source = memory_limit(host)
        return limit, ("--max-memory allows" if host is not None else source)
    from posbias.resources import accelerator_memory

    return accelerator_memory(dev)  # a GPU's total; disk and mps: None (torch reports none)


def plan_measurement(config: Any, *, length: int, dtype: str = "float32",
                     batch_size: int | str = 1, checkpointing: bool = True,
                     device: str = "cpu", metric: str = "top1-grad",
                     device_bytes: Mapping[str, int] | None = None,
                     execution_device: str | None = None, offload_activations: bool = False,
                     max_memory: Any = None, what: str | None = None) -> MeasurementPlan:
    """The per-device memory plan of measuring ``config``'s causal LM (a transformers
    configuration) at window length ``length``: host base, weights and activations (see the
    module docstring).

    ``device``: where the model runs without a map (``"cpu"``, ``"cuda:N"``, ``"mps"``).
    ``device_bytes``: the weights' bytes per device of a device map (the third value of
    :func:`~posbias.measurements.sharding.plan_device_map`) and ``execution_device`` the
    device the map's first block runs on.  ``batch_size="auto"`` plans the smallest batch (1):
    the automatic batch grows from there to what the device holds.  The probe Jacobian
    (``metric="jacobian"``) runs one probe per pass.  ``max_memory``: an int, the host's
    limit (a per-device mapping bounds only the weights of a map: see :func:`_device_limit`).
    Returns the plan unchecked: :meth:`MeasurementPlan.check` refuses."""
    if dtype not in _ITEMSIZE:
        raise InvalidArgument("dtype", dtype, "one of " + ", ".join(_ITEMSIZE))
    if batch_size != "auto":
        batch_size = check_integer("batch_size", batch_size, 1)
    batch = 1 if batch_size == "auto" or metric == "jacobian" else int(batch_size)
    acts = window_bytes(config, length, dtype, checkpointing=checkpointing)
    params = _meta_parameters(config, dtype)
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
    limits = {d: _device_limit(d, max_memory) for d in devices}
    label = what or f"measuring at L = {length}"
    if batch_size == "auto":
        label += " (batch auto: planned at 1)"
    return MeasurementPlan(label, parts, limits, params)


def plan_step0(settings: Mapping[str, Any], *, length: int, dtype: str = "float32",
               device: str = "cpu", metric: str = "jacobian", probes: int = 8,
               exact: bool = False, max_memory: Any = None,
               what: str | None = None) -> MeasurementPlan:
    """The per-device memory plan of measuring a model at initialization (``measure --arch``,
    :func:`posbias.measurements.measure.measure_influence`) from its resolved ``settings``
    (:func:`posbias.measurements.presets.resolve_settings`): nothing is built.

    With ``p`` the parameters (``layers (4 d^2 + 3 d ffn) + 2 vocab d``) and one pass's
    activations ``a = layers (4 heads L^2 + 40 L d)`` numbers:

    - **host**: the interpreter, torch and transformers (:data:`STEP0_HOST_BYTES`); the model is
      built there by the seeded generator, so with an accelerator the host also holds it while
      it is built and converted (``2 p`` numbers) before it moves;
    - **the measuring device**: the model and the working copies of its construction, ``3 p``
      numbers on the CPU (``p`` on an accelerator, whose share of the construction is the host's
      above), and the activations of the copies computed at once: one for ``top1-grad``, the
      probe chunk of the Jacobian (:func:`posbias.measurements.measure._probe_chunk`: as many
      probe copies as fit in about 1 GiB, at least one).

    On the CPU the total is the figure this route was calibrated with (``itemsize (3 p + a) +
    600 MB``) plus the probe chunk's further copies.  Not calibrated on an accelerator (none was
    available to this work).  Returns the plan unchecked: :meth:`MeasurementPlan.check`
    refuses (one line, exit status 2 at the command line)."""
    from posbias.measurements.measure import _probe_chunk

    length = check_integer("length", length, 1)
    itemsize = _ITEMSIZE.get(dtype, 8)
    d, layers = int(settings["hidden_size"]), int(settings["num_hidden_layers"])
    heads = int(settings["num_attention_heads"])
    inter = settings.get("intermediate_size") or settings.get("n_inner") or 4 * d
    params = layers * (4 * d * d + 3 * d * int(inter)) + 2 * int(settings["vocab_size"]) * d
    per_copy = layers * (4 * heads * length * length + 40 * length * d)
    n_probe = d if exact else int(probes)
    copies = 1 if metric == "top1-grad" else _probe_chunk(dict(settings), length, max(1, n_probe),
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
    return MeasurementPlan(what or f"measuring at initialization at L = {length}", parts, limits,
                           params, advice="use a smaller --length, --hidden or --layers (or "
                                          "raise --max-memory)")
