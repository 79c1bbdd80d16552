r"""Measured position influence and mixing coefficients of real architectures at initialization.

Randomly initialized causal language models are built from ``transformers`` configuration
classes (never from downloaded weights), in evaluation mode with eager attention, and measured
on random token ids.  Two quantities are measured:

**Influence of input position j** on the final position (1-indexed ``j = 1..L``), normalized to
sum 1 over ``j``:

* ``metric="jacobian"``: the Frobenius norm :math:`\|J_j\|_F` of the Jacobian
  :math:`J_j = \partial h_L / \partial e_j` of the last hidden state of the final position
  (the base model's ``last_hidden_state``, after its final normalization) with respect to the
  input embedding :math:`e_j`.  Exact route (:func:`measure_influence` with ``exact=True``):
  one backward pass per output coordinate, :math:`\|J_j\|_F^2 = \sum_{c=1}^{d} \|e_c^\top J_j\|^2`.
  Probe route: :math:`K` random vectors :math:`v_k` with :math:`E[v v^\top] = I` (Rademacher or
  Gaussian), :math:`\widehat{\|J_j\|_F^2} = K^{-1} \sum_k \|v_k^\top J_j\|^2` is unbiased for
  :math:`\|J_j\|_F^2`; the influence is its square root.  One backward pass per probe gives the
  row :math:`v^\top J_j` for every ``j`` at once.
* ``metric="top1-grad"``: the L2 norm of the gradient of the top-1 next-token probability at the
  final position with respect to :math:`e_j` (herasimchyk2026, measured influence protocol).

**Mixing coefficient of layer t** (:ref:`math-conventions`, herasimchyk2026):
:math:`\lambda_t = \operatorname{mean}_i \|a_{t,i}\| / (\|x_{t,i}\| + \|a_{t,i}\|)` with
:math:`x_t` the residual stream entering block ``t`` and :math:`a_t = \mathrm{Attn}(\mathrm{Norm}(x_t))`
the attention output after its output projection, read by the forward hooks of
:mod:`posbias.measurements.hooks` (which says, per family, where ``x_t`` and ``a_t`` are read
and how a parallel-residual block is handled); a model whose blocks cannot be found is refused
naming what was not found.

RoPE off (chowdhury2026 C8): the rotary embedding modules are patched to return ``cos = 1``,
``sin = 0``, so that ``q' = q cos + rot(q) sin = q`` and the attention scores are plain
:math:`q \cdot k`.

torch and transformers are the optional ``models`` extra, imported only inside the functions
here; without them a :class:`~posbias.errors.NeedsExtra` names the extra.

Paper keys: chowdhury2026 (C1, C8, C9: Step-0 measurements), herasimchyk2026 (measured
lambda schedules and influence protocol).
"""

from __future__ import annotations

import functools
import time
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from posbias.errors import InvalidArgument
from posbias.measurements.devices import resolve_device
from posbias.measurements.hooks import (
    as_float64,
    input_device,
    kernel_hooks,
    lambda_hooks,
    probe_chunk,
    quiet_transformers,
    require_models_extra,
    rope_identity_patch,
    rotary_modules,
)
from posbias.measurements.planning import MeasurementPlan, plan_step0
from posbias.measurements.presets import PRESETS, ROTARY_MODEL_TYPES, Preset, resolve_settings
from posbias.numbers import rounded
from posbias.validation import check_choice, check_integer

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used
    from torch import Generator, Tensor
    from torch.nn import Module

__all__ = [
    "ATTENTIONS",
    "DEFAULT_LENGTH",
    "METRICS",
    "PROBE_DISTRIBUTIONS",
    "Measurement",
    "build_model",
    "influence_profile",
    "measure_influence",
    "measure_influence_cached",
    "parameter_count",
    "plan_influence",
    "top1_grad_profiles",
]

METRICS = ("jacobian", "top1-grad")
PROBE_DISTRIBUTIONS = ("rademacher", "gaussian")
#: attention implementations of the Step-0 models (eager records the attention weights)
ATTENTIONS = ("eager", "sdpa")
_DTYPES = ("float32", "float64")


# ----------------------------------------------------------------------------------------------
# validation

def _int(value: object, parameter: str, minimum: int) -> int:
    return check_integer(parameter, value, minimum)


def _choice(value: object, parameter: str, allowed: Iterable[str]) -> str:
    return check_choice(parameter, value, allowed)


def _known_model_types(transformers: types.ModuleType) -> list[str]:
    # the models extra
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    return sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)


def _preset_for(arch: str) -> Preset:
    """The preset named ``arch``, or a preset built from the defaults of the transformers
    configuration class of model type ``arch``."""
    if not isinstance(arch, str) or not arch:
        raise InvalidArgument("arch", arch, "a preset name or a transformers model type")
    if arch in PRESETS:
        return PRESETS[arch]
    _torch, transformers = require_models_extra()
    known = _known_model_types(transformers)
    if arch not in known:
        raise InvalidArgument(
            "arch", arch,
            "a preset (" + ", ".join(sorted(PRESETS)) + ") or a causal-LM model type of "
            "transformers (e.g. gpt2, llama, qwen2, bloom, gpt_neox)")
    base = transformers.AutoConfig.for_model(arch)
    hidden = int(base.hidden_size)
    heads = int(base.num_attention_heads)
    kv = getattr(base, "num_key_value_heads", None)
    inter_key, inter = "intermediate_size", getattr(base, "intermediate_size", None)
    if inter is None and getattr(base, "n_inner", "absent") != "absent":
        inter_key, inter = "n_inner", getattr(base, "n_inner", None) or 4 * hidden
    max_pos = getattr(base, "max_position_embeddings", None)
    return Preset(
        name=arch, model_type=arch, layers=int(base.num_hidden_layers), hidden=hidden,
        heads=heads, vocab=int(base.vocab_size), kv_heads=int(kv) if kv else None,
        intermediate=int(inter) if isinstance(inter, int) else None, intermediate_key=inter_key,
        max_positions=int(max_pos) if isinstance(max_pos, int) else None,
        source=f"transformers {arch} configuration defaults")


def _approx_parameters(settings: dict) -> int:
    d = settings["hidden_size"]
    inter = settings.get("intermediate_size") or settings.get("n_inner") or 4 * d
    per_layer = 4 * d * d + 3 * d * inter
    return settings["num_hidden_layers"] * per_layer + 2 * settings["vocab_size"] * d


_MAX_PARAMETERS = 3 * 10**9


# ----------------------------------------------------------------------------------------------
# building models


def _shape_settings(arch: str, **shape: Any) -> tuple[dict[str, Any], Preset]:
    """The resolved settings of ``arch`` with the ``shape`` overrides and its preset; refuses
    a shape over :data:`_MAX_PARAMETERS` or an odd head size for a rotary architecture (before
    anything is planned or built)."""
    preset = _preset_for(arch)
    settings = resolve_settings(preset, **shape)
    if _approx_parameters(settings) > _MAX_PARAMETERS:
        raise InvalidArgument(
            "arch", arch,
            f"a shape below {_MAX_PARAMETERS // 10**9}e9 parameters (this one has about "
            f"{_approx_parameters(settings):.2g}); lower layers, hidden or vocab")
    if settings["head_dim"] % 2 and preset.model_type in ROTARY_MODEL_TYPES:
        raise InvalidArgument("hidden", settings["hidden_size"],
                              "hidden / heads even for a rotary architecture")
    return settings, preset


def _model_config(transformers: types.ModuleType, arch: str, **shape: Any
                  ) -> tuple[Any, dict[str, Any], Preset]:
    """The transformers configuration of :func:`build_model`'s model, its resolved settings
    and preset; refuses a shape :func:`_shape_settings` refuses or one transformers rejects."""
    settings, preset = _shape_settings(arch, **shape)
    kwargs = {k: v for k, v in settings.items() if k not in ("model_type", "head_dim")}
    vocab_size = settings["vocab_size"]
    kwargs.update(bos_token_id=0, eos_token_id=min(1, vocab_size - 1), pad_token_id=None)
    with quiet_transformers(transformers):
        try:
            config = transformers.AutoConfig.for_model(preset.model_type, **kwargs)
        except (ValueError, TypeError) as exc:
            raise InvalidArgument("arch", arch, f"settings transformers accepts ({exc})") from None
    return config, settings, preset


def parameter_count(arch: str, *, layers: int | None = None, hidden: int | None = None,
                    heads: int | None = None, kv_heads: int | None = None,
                    vocab: int | None = None, length: int | None = None) -> int:
    """The exact number of parameters of :func:`build_model`'s model of this shape (tied
    weights counted once), read from the model built on the meta device: no memory is
    allocated and nothing is initialized."""
    torch, transformers = require_models_extra()
    config, _, _ = _model_config(transformers, arch, layers=layers, hidden=hidden, heads=heads,
                                 kv_heads=kv_heads, vocab=vocab, length=length)
    with quiet_transformers(transformers), torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config)
    return sum(p.numel() for p in model.parameters())


def build_model(
    arch: str,
    *,
    layers: int | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    kv_heads: int | None = None,
    vocab: int | None = None,
    length: int | None = None,
    seed: int = 0,
    dtype: str = "float32",
    rope: bool = True,
    attention: str = "eager",
) -> tuple[Module, dict[str, Any]]:
    """A randomly initialized causal LM of architecture ``arch`` (a preset name or a
    transformers model type), in eval mode with eager attention (``attention="sdpa"``: torch's
    fused scaled-dot-product attention, which keeps no L x L weights for the backward pass).

    Returns ``(model, settings)`` with ``settings`` the resolved configuration settings (see
    :func:`posbias.measurements.presets.resolve_settings`) plus ``rotary`` (whether the model
    applies RoPE) and ``rope`` (whether it is left on).  ``torch.manual_seed(seed)`` is set
    before construction, so a seed fixes the weights.  ``rope=False`` patches the rotary
    embedding to the identity (:func:`rope_identity_patch`) and is only valid for rotary
    architectures.  Never downloads anything: the model comes from
    ``AutoModelForCausalLM.from_config``.
    """
    torch, transformers = require_models_extra()
    seed = _int(seed, "seed", 0)
    _choice(dtype, "dtype", _DTYPES)
    _choice(attention, "attention", ATTENTIONS)
    config, settings, preset = _model_config(transformers, arch, layers=layers, hidden=hidden,
                                             heads=heads, kv_heads=kv_heads, vocab=vocab,
                                             length=length)
    rotary = preset.model_type in ROTARY_MODEL_TYPES
    with quiet_transformers(transformers):
        config._attn_implementation = attention
        torch.manual_seed(seed)
        model = transformers.AutoModelForCausalLM.from_config(
            config, attn_implementation=attention, dtype=getattr(torch, dtype))
    model.eval()
    rotary = rotary or bool(rotary_modules(model))
    if not rope:
        if not rotary:
            raise InvalidArgument("rope", "off",
                                  f"'on': {preset.model_type} has no rotary embedding")
        rope_identity_patch(model)
    settings = dict(settings, rotary=rotary, rope=bool(rope), arch=arch,
                    source=preset.source, dtype=dtype)
    if attention != "eager":
        settings["attention"] = attention
    return model, settings


# ----------------------------------------------------------------------------------------------
# influence


def _probes(torch: types.ModuleType, kind: str, n: int, d: int, generator: Generator | None,
            dtype: Any) -> Tensor:
    if kind == "rademacher":
        v = torch.randint(0, 2, (n, d), generator=generator).to(dtype) * 2 - 1
    else:
        v = torch.randn(n, d, generator=generator, dtype=torch.float64).to(dtype)
    return v


def top1_grad_profiles(model: Module, ids: Tensor, *,
                       after_forward: Callable[[], object] | None = None) -> np.ndarray:
    """The unnormalized ``top1-grad`` influence of a batch: ``ids`` a ``B x L`` LongTensor,
    returns the ``B x L`` float64 array of ``||d p_top1^(b) / d e_j^(b)||`` (the norm over the
    embedding dimension), ``p_top1^(b)`` window ``b``'s largest next-token probability at its
    last position.  One forward and one backward pass for the batch: the gradient of
    ``sum_b p_top1^(b)`` with respect to window ``b``'s embeddings is window ``b``'s own, as
    windows do not interact.  ``after_forward`` as in :func:`influence_profile`."""
    torch, _ = require_models_extra()
    emb_layer = model.get_input_embeddings()  # type: ignore[operator]
    base = model.base_model
    param = next(model.parameters())
    with torch.no_grad():  # ids drawn on the CPU go to the model's device
        e0 = emb_layer(ids.to(input_device(model))).to(param.dtype)
    e = e0.clone().requires_grad_(True)
    h = base(inputs_embeds=e, use_cache=False).last_hidden_state[:, -1, :]  # type: ignore[operator]
    if after_forward is not None:
        after_forward()
    logits = model.get_output_embeddings()(h)  # type: ignore[operator]
    prob = torch.softmax(as_float64(logits), dim=-1).max(dim=-1).values.sum()
    (g,) = torch.autograd.grad(prob, e)
    return as_float64(g).norm(dim=-1).cpu().numpy()


def influence_profile(
    model: Module,
    ids: Tensor,
    *,
    metric: str = "jacobian",
    exact: bool = False,
    probes: int = 8,
    probe_dist: str = "rademacher",
    generator: Generator | None = None,
    chunk: int | None = None,
    per_probe: bool = False,
    after_forward: Callable[[], object] | None = None,
) -> np.ndarray:
    """Unnormalized influence of each input position on the final position, for one sequence.

    ``ids`` is a 1-D LongTensor of token ids of length ``L``.  Returns a float64 numpy array
    of length ``L`` (position ``j = 1..L`` at index ``j - 1``): for ``metric="jacobian"`` the
    Frobenius norms ``||J_j||_F`` (exact: sum over the ``d`` coordinate probes; otherwise the
    square root of the unbiased probe estimate of ``||J_j||_F^2``), for ``"top1-grad"`` the
    gradient norms of the top-1 probability.  With ``per_probe=True`` (jacobian only) returns
    the ``K x L`` array of single-probe squared norms ``||v_k^T J_j||^2`` instead (rows of the
    standard basis when ``exact``), whose mean (probes) or sum (exact) over ``k`` is
    ``||J_j||_F^2``.  ``after_forward``, when given, is called with no argument after the first
    forward pass and before any backward pass (hooks that read the forward pass switch off there,
    so that a checkpointed recomputation is not recorded twice).
    """
    torch, _ = require_models_extra()
    _choice(metric, "metric", METRICS)
    _choice(probe_dist, "probe_dist", PROBE_DISTRIBUTIONS)
    if metric == "top1-grad":  # embeds the ids itself
        return top1_grad_profiles(model, ids.view(1, -1), after_forward=after_forward)[0]
    # a transformers model: its methods and base_model are Tensor | Module to torch's stubs
    emb_layer = model.get_input_embeddings()  # type: ignore[operator]
    base = model.base_model
    param = next(model.parameters())
    device = input_device(model)
    with torch.no_grad():  # ids drawn on the CPU go to the model's device
        e0 = emb_layer(ids.view(1, -1).to(device)).to(param.dtype)
    L, d = e0.shape[1], e0.shape[2]

    if exact:
        vs = torch.eye(d, dtype=param.dtype)
    else:
        _int(probes, "probes", 1)
        vs = _probes(torch, probe_dist, probes, d, generator, param.dtype)
    vs = vs.to(device)  # drawn on the CPU, as in a CPU run
    n = vs.shape[0]
    step = chunk or n
    rows = []
    if step == 1 and n > 1:
        # one copy at a time: a single forward pass, one backward pass per probe
        e = e0.clone().requires_grad_(True)
        h = base(inputs_embeds=e, use_cache=False).last_hidden_state[0, -1, :]  # type: ignore[operator]
        if after_forward is not None:
            after_forward()
        for k in range(n):
            (g,) = torch.autograd.grad(h @ vs[k].to(h.device), e, retain_graph=k < n - 1)
            rows.append(as_float64(g).pow(2).sum(-1).cpu())  # 1 x L
        n = 0
    for start in range(0, n, step):
        v = vs[start:start + step]
        b = v.shape[0]
        e = e0.expand(b, L, d).clone().requires_grad_(True)
        h = base(inputs_embeds=e, use_cache=False).last_hidden_state[:, -1, :]  # type: ignore[operator]
        if after_forward is not None:
            after_forward()
        (g,) = torch.autograd.grad((h * v.to(h.device)).sum(), e)
        rows.append(as_float64(g).pow(2).sum(-1).cpu())  # b x L: ||v_k^T J_j||^2
    sq = torch.cat(rows, 0)
    if per_probe:
        return sq.numpy()
    total = sq.sum(0) if exact else sq.mean(0)
    return total.sqrt().numpy()


@dataclass
class Measurement:
    """A measured Step-0 influence profile and lambda schedule (see :func:`measure_influence`).

    ``profile[j-1]`` is the normalized influence of position ``j`` (sums to 1);
    ``sample_profiles`` the per-sample normalized profiles; ``lambdas[t-1]`` the measured
    mixing coefficient of layer ``t``; ``attention_tv[t-1]`` the mean total-variation distance
    of layer ``t``'s attention rows from uniform causal attention, per input and per head (None
    when the model does not return weights).  With ``kernel_inputs = n > 0``, ``kernel_tv[t-1]``
    is the same distance for the attention averaged over ``n`` further random inputs (forward
    passes only) and over heads, the kernel of herasimchyk2026, and ``kernel_tv_half`` that of
    the average over the first ``n // 2`` of them, ``kernel_instance_tv`` the per-input,
    per-head distance on those inputs (see :class:`kernel_hooks`).  Values are printed with
    ``digits = 7`` significant digits at most: even
    float64 models of most families compute their attention softmax (and LLaMA-style RMSNorm)
    in float32 inside transformers, so no measurement carries more than float32 precision.
    """

    arch: str
    settings: dict
    length: int
    metric: str
    estimator: str
    samples: int
    seed: int
    rope: bool
    dtype: str
    profile: np.ndarray
    sample_profiles: np.ndarray
    lambdas: np.ndarray
    attention_tv: np.ndarray | None
    seconds: float
    details: dict = field(default_factory=dict)
    kernel_inputs: int = 0
    kernel_tv: np.ndarray | None = None
    kernel_tv_half: np.ndarray | None = None
    kernel_instance_tv: np.ndarray | None = None
    device: str = "cpu"

    digits = 7

    def as_dict(self) -> dict:
        r = functools.partial(rounded, digits=self.digits)
        return {
            "arch": self.arch,
            "settings": dict(self.settings.items()),
            "length": self.length,
            "metric": self.metric,
            "estimator": self.estimator,
            "samples": self.samples,
            "seed": self.seed,
            "rope": "on" if self.rope else "off",
            "dtype": self.dtype,
            "device": self.device,
            "seconds": round(self.seconds, 3),
            "lambdas": [r(x) for x in self.lambdas],
            "attention_tv": None if self.attention_tv is None else [r(x) for x in self.attention_tv],
            "profile": [r(x) for x in self.profile],
            "sample_profiles": [[r(x) for x in row] for row in self.sample_profiles],
            **({} if not self.kernel_inputs else {
                "kernel_inputs": self.kernel_inputs,
                "kernel_tv": None if self.kernel_tv is None else [r(x) for x in self.kernel_tv],
                "kernel_tv_half": (None if self.kernel_tv_half is None
                                   else [r(x) for x in self.kernel_tv_half]),
                "kernel_instance_tv": (None if self.kernel_instance_tv is None
                                       else [r(x) for x in self.kernel_instance_tv])}),
        }


#: the sequence length of a measurement that names none (:func:`measure_influence`, ``posbias
#: measure --length``, a sweep's ``measure`` point without ``length``)
DEFAULT_LENGTH = 64


def plan_influence(arch: str, *, length: int = DEFAULT_LENGTH, layers: int | None = None,
                   hidden: int | None = None, heads: int | None = None,
                   kv_heads: int | None = None, vocab: int | None = None, probes: int = 8,
                   exact: bool = False, metric: str = "jacobian", samples: int = 1,
                   dtype: str = "float32", threads: int = 1, kernel_inputs: int = 0,
                   device: str = "cpu", runs: int = 1, max_memory: int | None = None,
                   what: str | None = None) -> MeasurementPlan:
    """The plan of :func:`measure_influence` with these arguments: the memory per device and
    the time on the CPU (:func:`posbias.measurements.planning.plan_step0`) of ``runs``
    measurements (``posbias measure --rope both`` makes two, three with probe noise), from the
    architecture's settings alone: nothing is built.  A preset is sized without transformers,
    another model type from its transformers configuration defaults; ``device`` as in
    :func:`measure_influence`; ``max_memory``: the host's limit in bytes (default: what this
    machine and process may use).  Returns the plan unchecked: :meth:`MeasurementPlan.check`
    refuses in one line.

    >>> plan = plan_influence("tiny-llama", length=32)
    >>> plan.what, plan.per_device()["cpu"] > 0
    ('measuring tiny-llama at initialization (L = 32)', True)
    """
    settings, _ = _shape_settings(arch, layers=layers, hidden=hidden, heads=heads,
                                  kv_heads=kv_heads, vocab=vocab, length=length)
    return plan_step0(settings, length=length, dtype=dtype, device=resolve_device(device)[0],
                      metric=metric, probes=probes, exact=exact, max_memory=max_memory,
                      samples=samples, threads=threads, runs=runs, kernel_inputs=kernel_inputs,
                      what=what or f"measuring {arch} at initialization (L = {length})")


def measure_influence(
    arch: str,
    *,
    length: int = DEFAULT_LENGTH,
    layers: int | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    kv_heads: int | None = None,
    vocab: int | None = None,
    seed: int = 0,
    probes: int = 8,
    exact: bool = False,
    metric: str = "jacobian",
    rope: bool = True,
    samples: int = 1,
    dtype: str = "float32",
    probe_dist: str = "rademacher",
    probe_seed: int | None = None,
    threads: int = 1,
    kernel_inputs: int = 0,
    attention: str = "eager",
    device: str = "cpu",
    progress: Callable[[str], object] | None = None,
    max_memory: int | None = None,
) -> Measurement:
    r"""Measure the Step-0 influence profile and the lambda schedule of ``arch``.

    Builds the model with :func:`build_model` (weights fixed by ``seed``), draws ``samples``
    random sequences of ``length`` token ids uniformly from the vocabulary (a
    ``torch.Generator`` seeded with ``seed``; the probes come from a second generator seeded
    with ``probe_seed``, default ``seed + 1``), and returns the mean over samples of the normalized profiles
    :math:`p(j) = I_j / \sum_k I_k` together with the measured :math:`\lambda_t` (mean over
    samples).

    Parameters
    ----------
    arch: a preset name (``posbias.measurements.presets.PRESETS``) or a transformers model type.
    length: sequence length ``L``, integer >= 2.
    layers, hidden, heads, kv_heads, vocab: overrides (see ``resolve_settings``).
    seed: integer >= 0.
    probes: number ``K >= 1`` of random probes (ignored when ``exact`` or for ``top1-grad``).
    exact: compute the Jacobian exactly (``d`` backward passes).
    metric: ``"jacobian"`` or ``"top1-grad"``.
    rope: ``False`` patches RoPE to the identity (rotary architectures only).
    samples: number of random sequences, integer >= 1.
    dtype: ``"float32"`` or ``"float64"``.
    probe_dist: ``"rademacher"`` or ``"gaussian"``.
    probe_seed: integer >= 0 or None; a different probe seed gives independent probe noise for
        the same weights and inputs.
    threads: torch intra-op threads during the measurement (integer >= 1, default 1; the
        previous setting is restored).  One thread is the default because the matrices of
        these measurements are small and, on a shared machine, OpenMP threads waiting for a
        busy core slow the run down by an order of magnitude (measured: 7 s with one thread vs
        73 s with two for the default step0-fit run on a loaded 2-core machine).
    kernel_inputs: number ``n >= 0`` of further random inputs (drawn after the samples from the
        same generator, so the profile does not change) whose attention, averaged over them and
        over heads, is compared with the Cesàro matrix (forward passes only; default 0: none).
    attention: ``"eager"`` (default; the attention weights are recorded, ``attention_tv``) or
        ``"sdpa"`` (torch's fused attention for the Jacobian: no L x L weights kept for the
        backward pass, a fraction of the memory at long contexts; ``attention_tv`` is then None
        and the kernel inputs, always run with eager attention, give the per-instance TV).
    device: ``"cpu"`` (default), ``"cuda"``, ``"cuda:N"``, ``"mps"`` or ``"auto"``
        (:func:`posbias.measurements.devices.resolve_device`).  The weights, token ids and
        probes are drawn on the CPU as in a CPU run and moved there; the result agrees with the
        CPU's within :data:`~posbias.measurements.devices.DEVICE_TOLERANCES` and records the
        device it ran on.
    progress: optional callable receiving one-line progress messages.
    max_memory: the bytes the host may hold (default: what this machine and process may use).
        The measurement is planned first (:func:`plan_influence`) and refused in one line
        (:class:`~posbias.errors.ResourceLimit`) when it cannot fit, before any model is built.

    >>> m = measure_influence("tiny-llama", length=16, exact=True, seed=1)  # doctest: +SKIP
    >>> round(float(m.profile.sum()), 6)                                     # doctest: +SKIP
    1.0

    Paper keys: chowdhury2026 (C9, Step-0 Jacobian), herasimchyk2026 (top-1 gradient
    protocol, measured lambda).
    """
    torch, _ = require_models_extra()
    length = _int(length, "length", 2)
    samples = _int(samples, "samples", 1)
    probes = _int(probes, "probes", 1)
    _choice(metric, "metric", METRICS)
    _choice(probe_dist, "probe_dist", PROBE_DISTRIBUTIONS)
    if not isinstance(exact, bool):
        raise InvalidArgument("exact", exact, "True or False")
    threads = _int(threads, "threads", 1)
    kernel_inputs = _int(kernel_inputs, "kernel_inputs", 0)
    _choice(attention, "attention", ATTENTIONS)
    _choice(dtype, "dtype", _DTYPES)
    device, _ = resolve_device(device)
    if device == "mps" and dtype == "float64":
        raise InvalidArgument("device", "mps", "cpu or cuda with dtype float64 (MPS has no "
                              "float64)")
    plan_influence(arch, length=length, layers=layers, hidden=hidden, heads=heads,
                   kv_heads=kv_heads, vocab=vocab, probes=probes, exact=exact, metric=metric,
                   samples=samples, dtype=dtype, threads=threads, kernel_inputs=kernel_inputs,
                   device=device, max_memory=max_memory).check()
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _measure(torch, arch, length, layers, hidden, heads, kv_heads, vocab, seed, probes,
                        exact, metric, rope, samples, dtype, probe_dist, probe_seed, progress,
                        kernel_inputs, attention, device)
    finally:
        torch.set_num_threads(previous)


def _measure(torch: types.ModuleType, arch: str, length: int, layers: int | None,
             hidden: int | None, heads: int | None, kv_heads: int | None, vocab: int | None,
             seed: int, probes: int, exact: bool, metric: str, rope: bool, samples: int,
             dtype: str, probe_dist: str, probe_seed: int | None,
             progress: Callable[[str], object] | None, kernel_inputs: int = 0,
             attention: str = "eager", device: str = "cpu") -> Measurement:
    start = time.perf_counter()
    model, settings = build_model(arch, layers=layers, hidden=hidden, heads=heads,
                                  kv_heads=kv_heads, vocab=vocab, length=length, seed=seed,
                                  dtype=dtype, rope=rope, attention=attention)
    # gradients are taken with respect to the inputs only: no weight gradient, and no
    # activation kept for one (the influence is the same)
    model.requires_grad_(False)
    model.to(device)  # built on the CPU (seeded weights), computed on the device
    probe_seed = seed + 1 if probe_seed is None else _int(probe_seed, "probe_seed", 0)
    gen = torch.Generator().manual_seed(seed)
    probe_gen = torch.Generator().manual_seed(probe_seed)
    itemsize = 4 if dtype == "float32" else 8
    n_probe = settings["hidden_size"] if exact else probes
    chunk = probe_chunk(settings, length, n_probe, itemsize)
    profiles = []
    with lambda_hooks(model) as rec:
        for s in range(samples):
            ids = torch.randint(0, settings["vocab_size"], (length,), generator=gen)
            infl = influence_profile(model, ids, metric=metric, exact=exact, probes=probes,
                                     probe_dist=probe_dist, generator=probe_gen, chunk=chunk)
            total = infl.sum()
            if not np.isfinite(total) or total <= 0:
                raise InvalidArgument("arch", arch, "a model whose influence is finite and "
                                      "nonzero (got a degenerate gradient)")
            profiles.append(infl / total)
            if progress:
                progress(f"{arch}, RoPE {'on' if rope else 'off'}: sample {s + 1}/{samples} "
                         f"done ({time.perf_counter() - start:.1f} s)")
    kernel = None
    if kernel_inputs:
        if attention != "eager":  # the kernel is read from the attention weights
            model.set_attn_implementation("eager")  # type: ignore[operator]  # transformers' method: torch's stubs see Tensor | Module
        with kernel_hooks(model, half=kernel_inputs // 2 or None) as kernel, torch.no_grad():
            for k in range(kernel_inputs):
                ids = torch.randint(0, settings["vocab_size"], (length,), generator=gen)
                model.base_model(input_ids=ids.view(1, -1).to(device), use_cache=False)  # type: ignore[operator]  # transformers' method: torch's stubs see Tensor | Module
                if progress:
                    progress(f"{arch}: kernel input {k + 1}/{kernel_inputs} done "
                             f"({time.perf_counter() - start:.1f} s)")
    if metric == "top1-grad":
        estimator = "exact gradient"
    else:
        estimator = "exact" if exact else f"{probes} {probe_dist} probes"
    # hooks record one pass per forward; the lambda mean covers every forward of every sample
    sample_profiles = np.array(profiles)
    profile = sample_profiles.mean(axis=0)
    profile = profile / profile.sum()
    if rec.lambdas is None:  # set on exit: every block sees each of the samples' forward passes
        raise RuntimeError("lambda_hooks recorded no forward pass of some block")
    return Measurement(
        arch=arch, settings=settings, length=length, metric=metric, estimator=estimator,
        samples=samples, seed=seed, rope=bool(rope), dtype=dtype, profile=profile,
        sample_profiles=sample_profiles, lambdas=rec.lambdas, attention_tv=rec.attention_tv,
        seconds=time.perf_counter() - start,
        details={"probe_chunk": chunk, "probe_seed": probe_seed},
        kernel_inputs=0 if kernel is None else kernel.inputs,
        kernel_tv=None if kernel is None else kernel.tv,
        kernel_tv_half=None if kernel is None else kernel.tv_half,
        kernel_instance_tv=None if kernel is None else kernel.instance_tv, device=device)


@functools.lru_cache(maxsize=32)
def _cached(key):
    kwargs = dict(key)
    m = measure_influence(**kwargs)
    for arr in (m.profile, m.sample_profiles, m.lambdas, m.attention_tv, m.kernel_tv,
                m.kernel_tv_half, m.kernel_instance_tv):
        if arr is not None:
            arr.setflags(write=False)
    return m


def measure_influence_cached(arch: str, **kwargs: Any) -> Measurement:
    """:func:`measure_influence` memoized on its arguments (read-only arrays), so that claims
    sharing a measurement compute it once per process."""
    kwargs.pop("progress", None)
    return _cached(tuple(sorted(dict(kwargs, arch=arch).items())))
