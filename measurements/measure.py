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
the attention output after its output projection, read by forward hooks.  Per family:

* gpt2: ``transformer.h[i].attn``; ``a`` is the attention output, ``x`` the block input.
* llama, qwen2, mistral: ``model.layers[i].self_attn``; as for gpt2.
* bloom: ``transformer.h[i].self_attention`` adds the residual itself (its ``forward`` takes
  ``residual``): ``a`` is the output of its ``dense`` projection, ``x`` the ``residual``
  argument it receives.
* gpt_neox: ``gpt_neox.layers[i].attention``; with ``use_parallel_residual`` (the default, the
  Pythia suite) the block is ``x + a + m`` with ``m = MLP(LN2 x)`` entering the stream together
  with ``a``, and :math:`\lambda_t = \operatorname{mean}_i \|a_{t,i}\| / (\|x_{t,i} + m_{t,i}\|
  + \|a_{t,i}\|)`: the unmixed part of the layer is ``x + m`` (Phi, GPT-J and Cohere blocks are
  parallel too and read the same way).

Other model types are handled generically (the shallowest decoder ``ModuleList`` of
``num_hidden_layers`` blocks under the base model and an attention child named ``self_attn``,
``attn``, ``attention`` or ``self_attention``; a module whose ``forward`` takes a ``residual``
argument has the residual subtracted from its output); a model where either is missing is
refused naming what was not found.

RoPE off (chowdhury2026 C8): the rotary embedding modules are patched to return ``cos = 1``,
``sin = 0``, so that ``q' = q cos + rot(q) sin = q`` and the attention scores are plain
:math:`q \cdot k`.

torch and transformers are the optional ``models`` extra, imported only inside the functions
here; without them a :class:`~posbias.errors.NeedsExtra` names the extra.

Paper keys: chowdhury2026 (C1, C8, C9: Step-0 measurements), herasimchyk2026 (measured
lambda schedules and influence protocol).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import time
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.measurements.presets import PRESETS, ROTARY_MODEL_TYPES, Preset, resolve_settings
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
    "as_float64",
    "build_model",
    "influence_profile",
    "input_device",
    "kernel_hooks",
    "kernel_tv",
    "lambda_hooks",
    "measure_influence",
    "measure_influence_cached",
    "parallel_residual",
    "parameter_count",
    "require_models_extra",
    "rope_identity_patch",
    "top1_grad_profiles",
]

METRICS = ("jacobian", "top1-grad")
PROBE_DISTRIBUTIONS = ("rademacher", "gaussian")
#: attention implementations of the Step-0 models (eager records the attention weights)
ATTENTIONS = ("eager", "sdpa")
_DTYPES = ("float32", "float64")

# per family: path of the decoder block list, attention child, and how a_t is read
_FAMILIES = {
    "gpt2": ("transformer.h", "attn", "output"),
    "llama": ("model.layers", "self_attn", "output"),
    "qwen2": ("model.layers", "self_attn", "output"),
    "qwen3": ("model.layers", "self_attn", "output"),
    "mistral": ("model.layers", "self_attn", "output"),
    "bloom": ("transformer.h", "self_attention", "dense"),
    "gpt_neox": ("gpt_neox.layers", "attention", "output"),
}


def require_models_extra() -> tuple[types.ModuleType, types.ModuleType]:
    """Import and return ``(torch, transformers)``, or raise NeedsExtra naming the ``models``
    extra.

    >>> import sys, unittest.mock
    >>> with unittest.mock.patch.dict(sys.modules, {"torch": None}):
    ...     try:
    ...         require_models_extra()
    ...     except NeedsExtra as exc:
    ...         print(exc)
    torch is not installed: install the 'models' extra (pip install 'posbias[models]')
    """
    try:
        import torch
    except ImportError:
        raise NeedsExtra("models", "torch") from None
    try:
        import transformers
    except ImportError:
        raise NeedsExtra("models", "transformers") from None
    return torch, transformers


# ----------------------------------------------------------------------------------------------
# validation

def _int(value: object, parameter: str, minimum: int) -> int:
    return check_integer(parameter, value, minimum)


def _choice(value: object, parameter: str, allowed: Iterable[str]) -> str:
    return check_choice(parameter, value, allowed)


def _known_model_types(transformers: types.ModuleType) -> list[str]:
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

@contextlib.contextmanager
def _quiet_transformers(transformers):
    logging = transformers.utils.logging
    old = logging.get_verbosity()
    logging.set_verbosity_error()
    try:
        yield
    finally:
        logging.set_verbosity(old)


def _rotary_modules(model: Module) -> list[Module]:
    return [m for _, m in model.named_modules() if type(m).__name__.endswith("RotaryEmbedding")]


def rope_identity_patch(model: Module) -> int:
    """Patch every rotary embedding module of ``model`` to the identity rotation
    (``cos = 1, sin = 0``, shapes and dtypes unchanged), so that attention scores become plain
    ``q . k``.  Returns the number of patched modules (0 for models without RoPE).

    Method: the module's ``forward`` is wrapped; the original ``cos, sin`` are computed and
    replaced by ``ones_like(cos), zeros_like(sin)``.  Paper: chowdhury2026 (C8, RoPE at
    initialization).
    """
    torch, _ = require_models_extra()
    mods = _rotary_modules(model)
    for mod in mods:
        original = mod.forward

        def forward(self, *args, _original=original, **kwargs):
            cos, sin = _original(*args, **kwargs)
            return torch.ones_like(cos), torch.zeros_like(sin)

        mod.forward = types.MethodType(forward, mod)
    return len(mods)


def _model_config(transformers: types.ModuleType, arch: str, **shape: Any
                  ) -> tuple[Any, dict[str, Any], Preset]:
    """The transformers configuration of :func:`build_model`'s model, its resolved settings
    and preset; refuses a shape over :data:`_MAX_PARAMETERS` or one transformers rejects."""
    preset = _preset_for(arch)
    settings = resolve_settings(preset, **shape)
    if _approx_parameters(settings) > _MAX_PARAMETERS:
        raise InvalidArgument(
            "arch", arch,
            f"a shape below {_MAX_PARAMETERS // 10**9}e9 parameters (this one has about "
            f"{_approx_parameters(settings):.2g}); lower layers, hidden or vocab")
    kwargs = {k: v for k, v in settings.items() if k not in ("model_type", "head_dim")}
    vocab_size = settings["vocab_size"]
    kwargs.update(bos_token_id=0, eos_token_id=min(1, vocab_size - 1), pad_token_id=None)
    if settings["head_dim"] % 2 and preset.model_type in ROTARY_MODEL_TYPES:
        raise InvalidArgument("hidden", settings["hidden_size"],
                              "hidden / heads even for a rotary architecture")
    with _quiet_transformers(transformers):
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
    with _quiet_transformers(transformers), torch.device("meta"):
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
    with _quiet_transformers(transformers):
        config._attn_implementation = attention
        torch.manual_seed(seed)
        model = transformers.AutoModelForCausalLM.from_config(
            config, attn_implementation=attention, dtype=getattr(torch, dtype))
    model.eval()
    rotary = rotary or bool(_rotary_modules(model))
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
# lambda hooks

def _get_path(obj: object, path: str) -> Any:  # the attribute at a dotted path
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


#: names of the attention child of a decoder block, in the order they are looked for
_ATTENTION_NAMES = ("self_attn", "attn", "attention", "self_attention")
#: model types whose every block adds attention and MLP to the same input (besides GPT-NeoX
#: with ``use_parallel_residual``): ``x + Attn(N x) + MLP(N' x)``
_PARALLEL_TYPES = ("phi", "gptj", "cohere")


def parallel_residual(config: Any) -> bool:  # a transformers PretrainedConfig
    """Whether the blocks of a model with this configuration are parallel-residual,
    ``x_{t+1} = x_t + Attn(N_1 x_t) + MLP(N_2 x_t)`` (GPT-NeoX with ``use_parallel_residual``,
    Phi, GPT-J, Cohere), rather than sequential (``y = x + Attn(N_1 x)``,
    ``x_{t+1} = y + MLP(N_2 y)``)."""
    if config.model_type == "gpt_neox":
        return bool(getattr(config, "use_parallel_residual", False))
    return config.model_type in _PARALLEL_TYPES


def _decoder_lists(base, n_layers):
    """ModuleLists under ``base``, shallowest first, of ``n_layers`` modules (any length when
    the configuration does not say) whose every module has an attention child."""
    import torch.nn as nn

    found, queue = [], [base]
    while queue:
        module = queue.pop(0)
        for child in module.children():
            if isinstance(child, nn.ModuleList):
                if (n_layers is None or len(child) == n_layers) and len(child) > 0 and all(
                        any(hasattr(b, a) for a in _ATTENTION_NAMES) for b in child):
                    found.append(child)
            else:
                queue.append(child)
    return found


def _locate_blocks(model):
    """(blocks, attention modules, how a_t is read) for ``model``: ``"output"`` (the attention
    module returns ``a_t``, the block receives ``x_t``), ``"subtract"`` (it returns
    ``x_t + a_t`` and receives ``x_t`` as ``residual``), ``"dense"`` (BLOOM: ``a_t`` is the
    output of its ``dense`` projection), ``"parallel"`` (a parallel-residual block: ``a_t``
    the attention output, ``m_t`` that of the block's ``mlp``, see :class:`lambda_hooks`).

    Known families by their paths; any other model through the module tree: the shallowest
    ``ModuleList`` of ``num_hidden_layers`` modules under ``model.base_model`` each holding an
    attention child (``self_attn``, ``attn``, ``attention`` or ``self_attention``).  A model
    where one of them is missing raises :class:`~posbias.errors.InvalidArgument` (parameter
    ``arch``) naming what was not found."""
    config = model.config
    model_type = config.model_type
    parallel = parallel_residual(config)
    if model_type in _FAMILIES:
        path, attn_name, mode = _FAMILIES[model_type]
        blocks = list(_get_path(model, path))
        attns = [getattr(b, attn_name) for b in blocks]
    else:
        n_layers = getattr(config, "num_hidden_layers", None)
        base = model.base_model
        candidates = _decoder_lists(base, n_layers if isinstance(n_layers, int) else None)
        if not candidates:
            raise InvalidArgument(
                "arch", model_type, "a model whose decoder blocks posbias can find (no "
                f"ModuleList of {n_layers} modules with an attention child named "
                f"{', '.join(_ATTENTION_NAMES)} under {type(base).__name__})")
        blocks = list(candidates[0])
        attns = [next(getattr(b, a) for a in _ATTENTION_NAMES if hasattr(b, a)) for b in blocks]
        takes_residual = "residual" in inspect.signature(attns[0].forward).parameters
        mode = "subtract" if takes_residual else "output"
    if parallel:
        if mode != "output":  # pragma: no cover - no such family in transformers
            raise InvalidArgument("arch", model_type, "a parallel-residual model whose attention "
                                  "returns its own output")
        missing = [type(b).__name__ for b in blocks if not hasattr(b, "mlp")]
        if missing:
            raise InvalidArgument("arch", model_type, "a parallel-residual model whose blocks "
                                  f"have an 'mlp' child ({missing[0]} has none)")
        mode = "parallel"
    return blocks, attns, mode


def _first(args, kwargs, name, index=0):
    if name in kwargs:
        return kwargs[name]
    return args[index]


def as_float64(t: Tensor) -> Tensor:
    """``t`` in float64 for a reading (a norm, a probability, a sum of ``q.k``): on its CUDA
    device where it lives there (float64 is IEEE double there as on the CPU; only the order of
    the sums differs, and no batch of activations crosses to the host), else on the CPU (the
    CPU's own tensors unchanged in value: ``t.cpu().double()``; MPS has no float64).  Keeps
    ``t``'s autograd graph: readings that are not differentiated detach first."""
    import torch

    device = t.device if t.device.type == "cuda" else torch.device("cpu")
    return t.to(device=device, dtype=torch.float64)


def _attention_tv(weights):
    """Mean total-variation distance of causal attention rows from uniform (C1)."""
    w = as_float64(weights.detach()[0])  # heads x L x L
    n = w.shape[-1]
    import torch

    counts = torch.arange(1, n + 1, dtype=w.dtype, device=w.device)
    uniform = torch.tril(torch.ones(n, n, dtype=w.dtype, device=w.device)) / counts[:, None]
    return float(0.5 * (w - uniform).abs().sum(-1).mean())


def _cesaro_rows(n: int, torch: types.ModuleType, dtype: Any) -> Tensor:
    counts = torch.arange(1, n + 1, dtype=dtype)
    return torch.tril(torch.ones(n, n, dtype=dtype)) / counts[:, None]


def kernel_tv(mean_attention: Tensor) -> float:
    """Mean over rows ``i`` of the total-variation distance ``(1/2) sum_j |A[i,j] - 1/i|``
    between one layer's averaged attention ``A`` (an ``L x L`` torch tensor, rows summing to 1)
    and the Cesàro matrix (chowdhury2026 C1; herasimchyk2026's kernel is the attention averaged
    over the data)."""
    import torch

    a = mean_attention.double()
    return float(0.5 * (a - _cesaro_rows(a.shape[-1], torch, a.dtype)).abs().sum(-1).mean())


class kernel_hooks:
    """Context manager accumulating, for every block, the attention averaged over heads and
    over the forward passes recorded inside the ``with`` block (batch element 0 of each pass).

    After the block, :attr:`tv` holds per layer :func:`kernel_tv` of the average over all
    recorded passes, :attr:`instance_tv` the mean of the per-pass, per-head distance (the
    spread the average removes), and :attr:`tv_half` that of the average over the first half of them (the
    same figure at half the inputs: zero-mean noise shrinks it by about ``sqrt(2)`` from half
    to all, a systematic deviation from Cesàro does not); :attr:`inputs` the number of passes.
    Needs attention modules that return their weights (eager attention).
    """

    def __init__(self, model: Module, half: int | None = None) -> None:
        self.model = model
        self.half = half
        self.inputs = 0
        self._handles: list[Any] = []  # torch hook handles
        self._sum: list[Tensor | None] = []
        self._half: list[Tensor | None] = []
        self._seen: list[int] = []
        self._instance: list[list[float]] = []
        self.tv: np.ndarray | None = None
        self.tv_half: np.ndarray | None = None
        self.instance_tv: np.ndarray | None = None

    def __enter__(self) -> kernel_hooks:
        _, attns, _ = _locate_blocks(self.model)
        n = len(attns)
        self._sum = [None] * n
        self._half = [None] * n
        self._seen = [0] * n
        self._instance = [[] for _ in range(n)]

        for t, attn in enumerate(attns):
            def post(mod, args, kwargs, out, t=t):
                if not (isinstance(out, tuple) and len(out) > 1 and out[1] is not None):
                    return
                self._instance[t].append(_attention_tv(out[1]))
                w = as_float64(out[1].detach()[0]).mean(0).cpu()  # L x L, mean over heads
                previous = self._sum[t]
                total = w if previous is None else previous + w
                self._sum[t] = total
                self._seen[t] += 1
                if self.half is not None and self._seen[t] == self.half:
                    self._half[t] = total / self.half

            self._handles.append(attn.register_forward_hook(post, with_kwargs=True))
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        for h in self._handles:
            h.remove()
        self._handles = []
        sums = [s for s in self._sum if s is not None]
        if self._seen and min(self._seen) > 0 and len(sums) == len(self._sum):
            self.inputs = min(self._seen)
            self.tv = np.array([kernel_tv(s / k) for s, k in zip(sums, self._seen)])
            self.instance_tv = np.array([float(np.mean(v)) for v in self._instance])
            halves = [h for h in self._half if h is not None]
            if len(halves) == len(self._half):
                self.tv_half = np.array([kernel_tv(h) for h in halves])
        self._sum, self._half = [], []  # the sums are released
        return False


class lambda_hooks:
    """Context manager recording the measured mixing coefficients of every block.

    Inside the ``with`` block, each forward pass of the model adds, for every layer ``t``, the
    token mean of ``||a_t|| / (||x_t|| + ||a_t||)`` over batch element 0 (norms over features,
    in float64) and the mean total-variation distance of the attention rows from uniform when
    the attention weights are available.  After the block, :attr:`lambdas` holds the mean over
    recorded passes and :attr:`attention_tv` the attention uniformity (:ref:`math-conventions`,
    herasimchyk2026; C1 of chowdhury2026).  Setting :attr:`active` to False pauses the
    recording (e.g. while a checkpointed block is recomputed in a backward pass).
    """

    def __init__(self, model: Module) -> None:
        self.model = model
        self.active = True
        #: batch elements recorded per forward pass, each as a pass of its own (1: element 0
        #: only, as when the batch holds copies of one sequence for several probes)
        self.elements = 1
        self._handles: list[Any] = []  # torch hook handles
        self._sums: list[float] = []
        self._tv: list[list[float]] = []
        self._passes: list[int] = []
        self.lambdas: np.ndarray | None = None
        self.attention_tv: np.ndarray | None = None

    def _gated(self, hook):
        def gated(*args, **kwargs):
            if self.active:
                return hook(*args, **kwargs)
            return None

        return gated

    def __enter__(self) -> lambda_hooks:
        blocks, attns, mode = _locate_blocks(self.model)
        n = len(blocks)
        self._sums = [0.0] * n
        self._tv = [[] for _ in range(n)]
        self._passes = [0] * n
        state: list[dict[str, Any]] = [{} for _ in range(n)]

        def record(t, a, x):
            for b in range(min(self.elements, int(a.shape[0]))):
                ab = as_float64(a.detach()[b])
                xb = as_float64(x.detach()[b])
                na = ab.norm(dim=-1)
                nx = xb.norm(dim=-1)
                self._sums[t] += float((na / (nx + na)).mean())
                self._passes[t] += 1

        for t, (block, attn) in enumerate(zip(blocks, attns)):
            if mode == "parallel":
                self._parallel(t, block, attn, state, record)
            elif mode == "output":
                def pre(mod, args, kwargs, t=t):
                    state[t]["x"] = _first(args, kwargs, "hidden_states")

                self._handles.append(block.register_forward_pre_hook(self._gated(pre), with_kwargs=True))

                def post(mod, args, kwargs, out, t=t):
                    a = out[0] if isinstance(out, tuple) else out
                    record(t, a, state[t].pop("x"))
                    if isinstance(out, tuple) and len(out) > 1 and out[1] is not None:
                        self._tv[t].append(_attention_tv(out[1]))

                self._handles.append(attn.register_forward_hook(self._gated(post), with_kwargs=True))
            else:  # the attention module adds its `residual` argument itself
                def pre(mod, args, kwargs, t=t):
                    state[t]["x"] = _first(args, kwargs, "residual", 1)

                self._handles.append(attn.register_forward_pre_hook(self._gated(pre), with_kwargs=True))
                if mode == "dense":
                    def dense_post(mod, args, out, t=t):
                        state[t]["a"] = out

                    self._handles.append(attn.dense.register_forward_hook(self._gated(dense_post)))

                def post(mod, args, kwargs, out, t=t):
                    total = out[0] if isinstance(out, tuple) else out
                    x = state[t].pop("x")
                    a = state[t].pop("a") if mode == "dense" else total - x
                    record(t, a, x)
                    if isinstance(out, tuple) and len(out) > 1 and out[1] is not None:
                        self._tv[t].append(_attention_tv(out[1]))

                self._handles.append(attn.register_forward_hook(self._gated(post), with_kwargs=True))
        return self

    def _parallel(self, t: int, block: Module, attn: Module, state: list[dict[str, Any]],
                  record: Callable[[int, Tensor, Tensor], None]) -> None:
        """A parallel-residual block ``x + a + m``: ``a = Attn(N_1 x)`` mixes positions,
        ``m = MLP(N_2 x)`` acts on each position alone and enters the stream at the same time
        as ``a``, so the unmixed part of the block's output is ``x + m`` and
        ``lambda_t = mean_i ||a_i|| / (||x_i + m_i|| + ||a_i||)`` (the share of the mixed
        part in ``R(t) = (1 - lambda_t) I + lambda_t A(t)``).  For a sequential block ``m`` is
        added after the mixing and the definition is the one above with ``m = 0``."""
        def pre(mod, args, kwargs):
            state[t]["x"] = _first(args, kwargs, "hidden_states")

        def attn_post(mod, args, kwargs, out):
            state[t]["a"] = out[0] if isinstance(out, tuple) else out
            if isinstance(out, tuple) and len(out) > 1 and out[1] is not None:
                self._tv[t].append(_attention_tv(out[1]))

        def mlp_post(mod, args, out):
            state[t]["m"] = out[0] if isinstance(out, tuple) else out

        def post(mod, args, kwargs, out):
            x, a, m = state[t].pop("x"), state[t].pop("a"), state[t].pop("m")
            record(t, a, x + m)

        self._handles.append(block.register_forward_pre_hook(self._gated(pre), with_kwargs=True))
        self._handles.append(attn.register_forward_hook(self._gated(attn_post), with_kwargs=True))
        # block.mlp: a submodule, typed Tensor | Module by torch's stubs
        self._handles.append(block.mlp.register_forward_hook(self._gated(mlp_post)))  # type: ignore[union-attr]
        self._handles.append(block.register_forward_hook(self._gated(post), with_kwargs=True))

    def __exit__(self, *exc: object) -> Literal[False]:
        for h in self._handles:
            h.remove()
        self._handles = []
        if self._passes and min(self._passes) > 0:
            self.lambdas = np.array([s / p for s, p in zip(self._sums, self._passes)])
            if all(self._tv):
                self.attention_tv = np.array([float(np.mean(v)) for v in self._tv])
        return False


# ----------------------------------------------------------------------------------------------
# influence

def input_device(model: Module) -> Any:
    """The device the model reads its input ids on: the input embeddings' *execution* device
    when accelerate dispatched the model (a sharded or offloaded model keeps offloaded weights
    on the ``meta`` device and loads them where they run), else the embeddings' weight's."""
    emb = model.get_input_embeddings()  # type: ignore[operator]
    hook = getattr(emb, "_hf_hook", None)
    dev = getattr(hook, "execution_device", None)
    if dev is not None:
        import torch

        return torch.device(f"cuda:{dev}" if isinstance(dev, int) else dev)
    return emb.weight.device


def _probe_chunk(settings: dict, length: int, n: int, itemsize: int) -> int:
    """How many probes to run as batch copies of the sequence in one pass (memory ~1 GiB)."""
    per_copy = settings["num_hidden_layers"] * itemsize * (
        4 * settings["num_attention_heads"] * length * length
        + 40 * length * settings["hidden_size"])
    return max(1, min(n, (1 << 30) // max(1, per_copy)))


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
        r = functools.partial(_round, digits=self.digits)
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


def _round(x: float, digits: int) -> float:
    return float(f"{float(x):.{digits}g}")


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
    ablate: Iterable[str] | str | None = None,
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
    ablate: parts of the network switched off after construction (names of
        :data:`posbias.measurements.ablation.ABLATIONS`, a sequence or one comma-separated
        string; default none): ``uniform-attention`` (keys zeroed: attention exactly Cesàro),
        ``no-mlp``, ``identity-activation``, ``no-positions``.  The settings record them
        (``settings["ablate"]``).

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
    from posbias.measurements.ablation import check_ablations
    from posbias.measurements.devices import resolve_device

    parts = check_ablations(ablate)

    device, _ = resolve_device(device)
    if device == "mps" and dtype == "float64":
        raise InvalidArgument("device", "mps", "cpu or cuda with dtype float64 (MPS has no "
                              "float64)")
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _measure(torch, arch, length, layers, hidden, heads, kv_heads, vocab, seed, probes,
                        exact, metric, rope, samples, dtype, probe_dist, probe_seed, progress,
                        kernel_inputs, attention, device, parts)
    finally:
        torch.set_num_threads(previous)


def _measure(torch: types.ModuleType, arch: str, length: int, layers: int | None,
             hidden: int | None, heads: int | None, kv_heads: int | None, vocab: int | None,
             seed: int, probes: int, exact: bool, metric: str, rope: bool, samples: int,
             dtype: str, probe_dist: str, probe_seed: int | None,
             progress: Callable[[str], object] | None, kernel_inputs: int = 0,
             attention: str = "eager", device: str = "cpu",
             ablations: tuple[str, ...] = ()) -> Measurement:
    from posbias.measurements.ablation import ablate as ablate_model

    start = time.perf_counter()
    model, settings = build_model(arch, layers=layers, hidden=hidden, heads=heads,
                                  kv_heads=kv_heads, vocab=vocab, length=length, seed=seed,
                                  dtype=dtype, rope=rope, attention=attention)
    if ablations:
        settings = dict(settings, ablate=list(ablate_model(model, ablations)))
    # gradients are taken with respect to the inputs only: no weight gradient, and no
    # activation kept for one (the influence is the same)
    model.requires_grad_(False)
    model.to(device)  # built on the CPU (seeded weights), computed on the device
    probe_seed = seed + 1 if probe_seed is None else _int(probe_seed, "probe_seed", 0)
    gen = torch.Generator().manual_seed(seed)
    probe_gen = torch.Generator().manual_seed(probe_seed)
    itemsize = 4 if dtype == "float32" else 8
    n_probe = settings["hidden_size"] if exact else probes
    chunk = _probe_chunk(settings, length, n_probe, itemsize)
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
