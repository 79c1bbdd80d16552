r"""Where the measurements meet a ``transformers`` model: the ``models`` extra, the decoder
blocks and their attention modules, and the forward hooks that read the mixing coefficients and
the attention kernel.

**Blocks** (:func:`locate_blocks`).  Per family:

* gpt2: ``transformer.h[i].attn``; ``a`` is the attention output, ``x`` the block input.
* llama, qwen2, qwen3, mistral: ``model.layers[i].self_attn``; as for gpt2.
* bloom: ``transformer.h[i].self_attention`` adds the residual itself (its ``forward`` takes
  ``residual``): ``a`` is the output of its ``dense`` projection, ``x`` the ``residual``
  argument it receives.
* gpt_neox: ``gpt_neox.layers[i].attention``; parallel-residual with
  ``use_parallel_residual`` (Phi, GPT-J and Cohere blocks are parallel too).

Other model types are handled generically: the shallowest decoder ``ModuleList`` of
``num_hidden_layers`` blocks under the base model with an attention child named ``self_attn``,
``attn``, ``attention`` or ``self_attention``; a module whose ``forward`` takes a ``residual``
argument has the residual subtracted from its output.

**Mixing coefficient of layer t** (:class:`lambda_hooks`; :ref:`math-conventions`,
herasimchyk2026): :math:`\lambda_t = \operatorname{mean}_i \|a_{t,i}\| / (\|x_{t,i}\| +
\|a_{t,i}\|)` with :math:`x_t` the residual stream entering block ``t`` and :math:`a_t` the
attention output after its output projection; for a parallel-residual block the unmixed part
is ``x + m`` with ``m`` the block's MLP output.

**Attention kernel** (:class:`kernel_hooks`, :func:`kernel_tv`): the attention averaged over
heads and inputs compared with the Cesàro matrix (chowdhury2026 C1, herasimchyk2026).

torch and transformers are the optional ``models`` extra, imported only inside the functions
here (:func:`require_models_extra`, :func:`require_torch` name the extra when they are missing).
"""

from __future__ import annotations

import contextlib
import inspect
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from posbias.errors import InvalidArgument, NeedsExtra

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used
    from torch import Tensor
    from torch.nn import Module

__all__ = [
    "as_float64",
    "input_device",
    "kernel_hooks",
    "kernel_tv",
    "lambda_hooks",
    "locate_blocks",
    "parallel_residual",
    "probe_chunk",
    "quiet_transformers",
    "require_models_extra",
    "require_torch",
    "rope_identity_patch",
    "rotary_modules",
]


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
        import torch  # the models extra
    except ImportError:
        raise NeedsExtra("models", "torch") from None
    try:
        import transformers  # the models extra
    except ImportError:
        raise NeedsExtra("models", "transformers") from None
    return torch, transformers


def require_torch() -> types.ModuleType:
    """Import and return torch, or raise NeedsExtra naming the ``models`` extra (the training
    of wu2025's network needs torch but not transformers)."""
    try:
        import torch  # the models extra
    except ImportError:
        raise NeedsExtra("models", "torch") from None
    return torch


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


@contextlib.contextmanager
def quiet_transformers(transformers: types.ModuleType) -> Iterator[None]:
    """transformers' logging at the error level inside the ``with`` block (its warnings about
    configuration defaults are noise to a measurement), restored after it."""
    logging = transformers.utils.logging
    old = logging.get_verbosity()
    logging.set_verbosity_error()
    try:
        yield
    finally:
        logging.set_verbosity(old)


def rotary_modules(model: Module) -> list[Module]:
    """The rotary embedding modules of ``model`` (by their class name)."""
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
    mods = rotary_modules(model)
    for mod in mods:
        original = mod.forward

        def forward(self, *args, _original=original, **kwargs):
            cos, sin = _original(*args, **kwargs)
            return torch.ones_like(cos), torch.zeros_like(sin)

        mod.forward = types.MethodType(forward, mod)
    return len(mods)


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


def _decoder_lists(base: Any, n_layers: int | None) -> list[Any]:
    """ModuleLists under ``base``, shallowest first, of ``n_layers`` modules (any length when
    the configuration does not say) whose every module has an attention child."""
    import torch.nn as nn  # the models extra

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


def locate_blocks(model: Any) -> tuple[list[Any], list[Any], str]:  # a transformers model
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


def _first(args: tuple, kwargs: dict, name: str, index: int = 0) -> Any:
    if name in kwargs:
        return kwargs[name]
    return args[index]


def as_float64(t: Tensor) -> Tensor:
    """``t`` in float64 for a reading (a norm, a probability, a sum of ``q.k``): on its CUDA
    device where it lives there (float64 is IEEE double there as on the CPU; only the order of
    the sums differs, and no batch of activations crosses to the host), else on the CPU (the
    CPU's own tensors unchanged in value: ``t.cpu().double()``; MPS has no float64).  Keeps
    ``t``'s autograd graph: readings that are not differentiated detach first."""
    import torch  # the models extra

    device = t.device if t.device.type == "cuda" else torch.device("cpu")
    return t.to(device=device, dtype=torch.float64)


def _attention_tv(weights: Tensor) -> float:
    """Mean total-variation distance of causal attention rows from uniform (C1)."""
    w = as_float64(weights.detach()[0])  # heads x L x L
    n = w.shape[-1]
    import torch  # the models extra

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
    import torch  # the models extra

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
        _, attns, _ = locate_blocks(self.model)
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
        #: per layer, while recording: the sum of the per-pass lambdas, the passes recorded, and
        #: the attention-uniformity value of every pass that returned attention weights (the
        #: running state a resumable measurement stores and restores)
        self.sums: list[float] = []
        self.passes: list[int] = []
        self.tv: list[list[float]] = []
        self.lambdas: np.ndarray | None = None
        self.attention_tv: np.ndarray | None = None

    def _gated(self, hook):
        def gated(*args, **kwargs):
            if self.active:
                return hook(*args, **kwargs)
            return None

        return gated

    def __enter__(self) -> lambda_hooks:
        blocks, attns, mode = locate_blocks(self.model)
        n = len(blocks)
        self.sums = [0.0] * n
        self.tv = [[] for _ in range(n)]
        self.passes = [0] * n
        state: list[dict[str, Any]] = [{} for _ in range(n)]

        def record(t, a, x):
            for b in range(min(self.elements, int(a.shape[0]))):
                ab = as_float64(a.detach()[b])
                xb = as_float64(x.detach()[b])
                na = ab.norm(dim=-1)
                nx = xb.norm(dim=-1)
                self.sums[t] += float((na / (nx + na)).mean())
                self.passes[t] += 1

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
                        self.tv[t].append(_attention_tv(out[1]))

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
                        self.tv[t].append(_attention_tv(out[1]))

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
                self.tv[t].append(_attention_tv(out[1]))

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
        if self.passes and min(self.passes) > 0:
            self.lambdas = np.array([s / p for s, p in zip(self.sums, self.passes)])
            if all(self.tv):
                self.attention_tv = np.array([float(np.mean(v)) for v in self.tv])
        return False


def input_device(model: Module) -> Any:
    """The device the model reads its input ids on: the input embeddings' *execution* device
    when accelerate dispatched the model (a sharded or offloaded model keeps offloaded weights
    on the ``meta`` device and loads them where they run), else the embeddings' weight's."""
    emb = model.get_input_embeddings()  # type: ignore[operator]
    hook = getattr(emb, "_hf_hook", None)
    dev = getattr(hook, "execution_device", None)
    if dev is not None:
        import torch  # the models extra

        return torch.device(f"cuda:{dev}" if isinstance(dev, int) else dev)
    return emb.weight.device


def probe_chunk(settings: dict, length: int, n: int, itemsize: int) -> int:
    """How many of ``n`` probes to run as batch copies of the sequence in one pass of a model
    with these ``settings`` (about 1 GiB of activations at ``itemsize`` bytes per value)."""
    per_copy = settings["num_hidden_layers"] * itemsize * (
        4 * settings["num_attention_heads"] * length * length
        + 40 * length * settings["hidden_size"])
    return max(1, min(n, (1 << 30) // max(1, per_copy)))
