r"""Reading a pretrained model's attention: its queries and keys, the logit scale on ``q.k`` and
the ALiBi bias, for :func:`posbias.measurements.pretrained.measure_pretrained`.

Two routes (:data:`ROUTES`):

* the **family route** (:class:`AttentionProbe`), posbias' own code for the model types of
  :data:`PRETRAINED_FAMILIES`: the queries and keys are recomputed from each attention
  module's inputs and projections (fused QKV of BLOOM, Falcon and MPT split as the model
  splits it, rotary embeddings applied as the model applies them, key/value groups expanded to
  the query heads), the scale read from the module, ALiBi slopes from the bias tensor the model
  passes to the attention;
* the **generic route** (:class:`GenericAttentionProbe`), for any other causal LM without ALiBi:
  transformers' attention interface hands posbias the queries and keys the model computed.

Per head ``h`` of layer ``t`` both record the mean diagonal score
:math:`\operatorname{mean}_i q_i \cdot k_i` and the mean score below the diagonal
:math:`\operatorname{mean}_{j<i} q_i \cdot k_j` (as :math:`\sum_i q_i \cdot \sum_{j<i} k_j`, never
an ``L x L`` matrix).  torch and transformers are the ``models`` extra, imported inside the
functions.
"""

from __future__ import annotations

import inspect
import re
import sys
import types
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from posbias.errors import InvalidArgument
from posbias.measurements.hooks import as_float64, locate_blocks, require_models_extra

if TYPE_CHECKING:  # torch is the optional ``models`` extra, imported where it is used
    from torch import Tensor
    from torch.nn import Module

__all__ = [
    "PRETRAINED_FAMILIES",
    "ROUTES",
    "AttentionProbe",
    "GenericAttentionProbe",
    "has_alibi",
]


#: model types whose queries, keys, scale and ALiBi bias posbias reads by their own code
#: (tested on tiny models); every other causal LM goes through the generic route
PRETRAINED_FAMILIES = ("bloom", "falcon", "mpt", "gpt2", "llama", "qwen2", "mistral")


#: how the queries and keys are read: ``auto`` (the family route where there is one, else the
#: generic route), ``family``, ``generic``
ROUTES = ("auto", "family", "generic")


#: the transformers releases whose attention modules the family route was tested against
_TESTED_RANGE = ((5, 17), (5, 25))


_TESTED_TRANSFORMERS = "5.17 to 5.25"


def _model_type(model: Module) -> str:
    """``model.config.model_type`` of a transformers model (to torch's stubs a module's
    attribute is ``Tensor | Module``)."""
    model_type: str = model.config.model_type  # type: ignore[union-attr, assignment]
    return model_type


def _bind(module: Module, args: tuple, kwargs: dict[str, Any]) -> dict:
    sig = inspect.signature(module.forward)
    bound = sig.bind_partial(*args, **kwargs)
    out = dict(bound.arguments)
    out.update(out.pop("kwargs", {}) or {})
    return out


def _heads(x, batch, length, heads, d):
    """``batch x length x (heads*d)`` -> ``batch x heads x length x d``."""
    return x.reshape(batch, length, heads, d).transpose(1, 2)


def _expand(k, heads):
    """Repeat key heads to the query heads (each key head serves a consecutive group)."""
    if k.shape[1] == heads:
        return k
    return k.repeat_interleave(heads // k.shape[1], dim=1)


def _rotary(attn, q, k, cos, sin):
    apply = sys.modules[type(attn).__module__].apply_rotary_pos_emb
    return apply(q, k, cos, sin)


def _fused_qkv(fused: Tensor, heads: int, kv_heads: int) -> tuple[Tensor, Tensor, Tensor]:
    """Split a fused query-key-value projection ``batch x L x width`` into ``q, k, v`` as
    ``batch x heads x L x d`` (``k``, ``v`` with ``kv_heads`` heads).  The layout is that of the
    checkpoints, not of one ``transformers`` version:

    * ``kv_heads == heads`` (BLOOM, Falcon-RW): per head its query, key and value, interleaved,
      ``[heads, 3, d]``;
    * ``kv_heads == 1`` (Falcon-7B's multi-query attention): all queries, then the one key and
      the one value (the grouped layout below with a single group);
    * otherwise (Falcon's grouped "new decoder architecture"): per key head its group of
      ``heads / kv_heads`` queries, then its key and its value, ``[kv_heads, heads/kv_heads + 2, d]``;
      query heads come out in group order, so key head ``g`` serves the consecutive query heads
      of its group (:func:`_expand`).
    """
    B, L, width = fused.shape
    if kv_heads == heads:
        d = width // (3 * heads)
        q, k, v = fused.view(B, L, heads, 3, d).unbind(-2)
    else:
        d = width // (heads + 2 * kv_heads)
        g = fused.view(B, L, kv_heads, heads // kv_heads + 2, d)
        q, k, v = g[..., :-2, :].flatten(-3, -2), g[..., -2, :], g[..., -1, :]
    return q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)


def _falcon_kv_heads(attn: Any) -> int:
    """Key heads of a Falcon attention module, from its configuration (the attribute that holds it
    differs between ``transformers`` versions)."""
    cfg = attn.config
    if cfg.new_decoder_architecture:
        return int(cfg.num_kv_heads)
    return 1 if cfg.multi_query else int(attn.num_heads)


def _queries_keys(model_type: str, attn: Any, a: dict,
                  ) -> tuple[Tensor, Tensor, float, Tensor | None, float]:
    """(q, k, score_scale, alibi tensor or None, alibi_scale) of one attention call, q and k as
    ``batch x heads x L x d`` after any rotary embedding, key heads expanded."""
    h = a["hidden_states"]
    B, L, _ = h.shape
    if model_type == "gpt2":
        q, k, _ = attn.c_attn(h).split(attn.split_size, dim=2)
        H, d = attn.num_heads, attn.head_dim
        return _heads(q, B, L, H, d), _heads(k, B, L, H, d), float(attn.scaling), None, 1.0
    if model_type in ("llama", "qwen2", "mistral"):
        d = attn.head_dim
        q = attn.q_proj(h).view(B, L, -1, d).transpose(1, 2)
        k = attn.k_proj(h).view(B, L, -1, d).transpose(1, 2)
        cos, sin = a["position_embeddings"]
        q, k = _rotary(attn, q, k, cos, sin)
        return q, _expand(k, q.shape[1]), float(attn.scaling), None, 1.0
    if model_type == "bloom":
        q, k, _ = _fused_qkv(attn.query_key_value(h), attn.num_heads, attn.num_heads)
        return q, k, float(attn.inv_norm_factor), a["alibi"], 1.0
    if model_type == "falcon":
        q, k, _ = _fused_qkv(attn.query_key_value(h), attn.num_heads, _falcon_kv_heads(attn))
        scale = float(attn.inv_norm_factor)
        if not attn.config.alibi:
            cos, sin = a["position_embeddings"]
            q, k = _rotary(attn, q, k, cos, sin)
            return q, _expand(k, q.shape[1]), scale, None, scale
        # transformers < 5.25 passes the bias as ``alibi``; later versions fold ``alibi / sqrt(d)``
        # into the attention mask, built by the same function from an all-ones mask
        alibi = a.get("alibi")
        if alibi is None:
            torch, _ = require_models_extra()
            build = sys.modules[type(attn).__module__].build_alibi_tensor
            ones = torch.ones((B, L), dtype=torch.long, device=h.device)  # the model's own mask type
            alibi = build(ones, attn.num_heads, dtype=h.dtype)
        return q, _expand(k, q.shape[1]), scale, alibi, scale
    if model_type == "mpt":
        qkv = attn.Wqkv(h)
        if attn.clip_qkv:
            qkv = qkv.clamp(min=-attn.clip_qkv, max=attn.clip_qkv)
        q, k, _ = qkv.chunk(3, dim=2)
        H, d = attn.n_heads, attn.head_dim
        return (_heads(q, B, L, H, d), _heads(k, B, L, H, d), float(attn.softmax_scale),
                a["position_bias"], 1.0)
    raise InvalidArgument("model", model_type, "one of the families posbias reads queries and keys "
                          "of: " + ", ".join(PRETRAINED_FAMILIES))


def has_alibi(model_type: str, config: Any) -> bool:
    """Whether the model adds an ALiBi bias (BLOOM, MPT, Falcon with ``alibi``): read by the
    family route only."""
    return model_type in ("bloom", "mpt") or bool(getattr(config, "alibi", False))


def _transformers_version() -> str:
    import transformers  # the models extra

    return str(transformers.__version__)


def _unreadable(model_type: str, attn: Any, exc: BaseException, source: str) -> InvalidArgument:
    """The one-line refusal of a family-route read that found no attribute or call argument
    where the tested ``transformers`` releases keep it (a later release may have rewritten the
    attention module): names what is missing and where, the installed release (and whether it
    is among the tested ones), and the route that still reads the model where there is one."""
    version = _transformers_version()
    if isinstance(exc, KeyError):
        missing = (f"{type(attn).__name__} is called without {exc.args[0]!r}" if exc.args
                   else f"{type(attn).__name__} is called differently")
    else:
        name = getattr(exc, "name", None)
        obj = getattr(exc, "obj", None)
        owner = (obj.__name__ if isinstance(obj, types.ModuleType)
                 else type(obj).__name__ if obj is not None else type(attn).__name__)
        missing = f"{owner} has no {name!r}" if name else f"{exc}"
    m = re.match(r"(\d+)\.(\d+)", version)
    tested = (m is not None
              and _TESTED_RANGE[0] <= (int(m.group(1)), int(m.group(2))) <= _TESTED_RANGE[1])
    release = (f"transformers {version}" if tested else
               f"transformers {version}, not among the releases tested ({_TESTED_TRANSFORMERS})")
    alibi = has_alibi(model_type, getattr(attn, "config", None))
    other = ("its ALiBi bias is read by the family route only" +
             ("" if tested else ": install a tested release") if alibi
             else "--route generic reads it through transformers' attention interface")
    return InvalidArgument("model", source, f"a {model_type} model whose attention the family "
                           f"route can read ({missing} under {release}; {other})")


def _slopes(bias: Tensor, heads: int) -> np.ndarray:
    """ALiBi slopes from a bias tensor whose last axis runs over key positions (BLOOM/Falcon:
    ``slope * j``; MPT: ``slope * (j - L + 1)``): the difference of the entry nearest zero and its
    neighbour, which is exact in the bias tensor's own dtype."""
    b = bias.detach().cpu().double().reshape(-1, bias.shape[-1])[:heads]
    k = int(b[0].abs().argmin())
    nxt = k + 1 if k + 1 < b.shape[1] else k - 1
    step = (b[:, nxt] - b[:, k]) / (nxt - k)
    return step.numpy()


class AttentionProbe:
    """Context manager: forward pre-hooks on every attention module accumulating the raw q.k
    means, the logit scale and the ALiBi slopes (see the module docstring).  ``keep_last=True``
    keeps the last call's ``q, k`` per layer in ``last`` (for tests)."""

    def __init__(self, model: Module, *, keep_last: bool = False) -> None:
        self.model = model
        self.keep_last = keep_last
        self.active = True
        #: batch elements recorded per call, each as a call of its own (1: element 0 only)
        self.elements = 1
        self._handles: list[Any] = []  # torch hook handles
        self.last: dict[int, tuple[Tensor, Tensor]] = {}

    def __enter__(self) -> AttentionProbe:
        torch, _ = require_models_extra()
        _, attns, _ = locate_blocks(self.model)
        model_type = _model_type(self.model)
        n = len(attns)
        self.calls = [0] * n
        # per layer: None until the layer's first call, then its running sums (numpy arrays)
        self.diag: list[np.ndarray | None] = [None] * n
        self.lower: list[np.ndarray | None] = [None] * n
        self.scale: list[float | None] = [None] * n
        self.alibi_scale: list[float | None] = [None] * n
        self.slopes: list[np.ndarray | None] = [None] * n
        self.head_dim: int | None = None

        self._attach(torch, model_type, attns)
        return self

    def _attach(self, torch: ModuleType, model_type: str, attns: list[Module]) -> None:
        """The family route: a forward pre-hook per attention module recomputing its queries
        and keys from its input (:func:`_queries_keys`)."""
        source = str(getattr(self.model.config, "_name_or_path", "") or model_type)
        for t, attn in enumerate(attns):
            def pre(mod, args, kwargs, t=t):
                if not self.active:
                    return
                try:
                    with torch.no_grad():
                        q, k, scale, bias, bias_scale = _queries_keys(model_type, mod,
                                                                      _bind(mod, args, kwargs))
                except (AttributeError, KeyError) as exc:  # the traceback stays chained
                    raise _unreadable(model_type, mod, exc, source) from exc
                self._record(torch, t, q, k, scale, bias, bias_scale)

            self._handles.append(attn.register_forward_pre_hook(pre, with_kwargs=True))

    def _record(self, torch: ModuleType, t: int, q: Tensor, k: Tensor, scale: float,
                bias: Tensor | None, bias_scale: float | None) -> None:
        """Accumulate one attention call of layer ``t`` (``q, k``: batch x heads x L x d)."""
        with torch.no_grad():
            k_all = _expand(k, q.shape[1])  # key/value groups serve consecutive query heads
            q_all = q
        for b in range(min(self.elements, int(q_all.shape[0]))):
            with torch.no_grad():
                q = as_float64(q_all[b].detach())  # on a CUDA device, reduced there
                k = as_float64(k_all[b].detach())
                L = q.shape[1]
                diag = (q * k).sum(-1).mean(-1).cpu()
                prev = torch.cumsum(k, dim=1)[:, :-1]            # sum_{j<i} k_j, i = 2..L
                lower = ((q[:, 1:] * prev).sum((-1, -2)) / (L * (L - 1) / 2)).cpu()
                if self.keep_last:
                    self.last[t] = (q.cpu(), k.cpu())
            self.diag[t] = diag.numpy() + (0 if self.diag[t] is None else self.diag[t])
            self.lower[t] = lower.numpy() + (0 if self.lower[t] is None else self.lower[t])
            self.scale[t] = scale
            self.head_dim = int(q.shape[-1])
            self.alibi_scale[t] = bias_scale if bias is not None else None
            if bias is not None:
                self.slopes[t] = _slopes(bias, q.shape[0])
            self.calls[t] += 1

    def __exit__(self, *exc: object) -> Literal[False]:
        for h in self._handles:
            h.remove()
        self._handles = []
        return False

    def results(self) -> dict:
        if min(self.calls) < 1:
            raise RuntimeError("AttentionProbe saw no forward pass")
        diag = [d for d in self.diag if d is not None]  # all of them, once every layer was called
        lower = [d for d in self.lower if d is not None]
        out = {
            "qk_diagonal": np.array([d / c for d, c in zip(diag, self.calls)]),
            "qk_lower": np.array([d / c for d, c in zip(lower, self.calls)]),
            "score_scale": np.array(self.scale, dtype=float),
            "alibi_slopes": None,
            "alibi_scale": None,
            "head_dim": self.head_dim,
        }
        if all(s is not None for s in self.slopes):
            out["alibi_slopes"] = np.array(self.slopes)
            out["alibi_scale"] = np.array(self.alibi_scale, dtype=float)
        return out


#: the name of posbias' recording attention function in transformers' AttentionInterface
_PROBE_IMPLEMENTATION = "posbias_probe"


#: id(attention module) -> (probe, layer index, the attention function the probe wraps)
_ROUTED: dict = {}


def _probe_attention(module, query, key, value, attention_mask, *args, **kwargs):
    """The attention function of the generic route: records the ``query`` and ``key`` that
    transformers hands to its attention implementation (after any rotary embedding, before
    the key/value groups are expanded) and the ``scaling`` on ``q.k``, then computes the
    attention with the implementation the model had."""
    probe, t, original = _ROUTED[id(module)]
    if probe.active:
        import torch  # the models extra

        if kwargs.get("softcap") is not None:
            raise InvalidArgument("model", probe.model.config.model_type, "a model without "
                                  "attention-logit soft-capping (the generic route reads the "
                                  "logits as scale * q.k)")
        scaling = kwargs.get("scaling")
        scale = float(scaling) if scaling is not None else float(query.shape[-1]) ** -0.5
        probe._record(torch, t, query, key, scale, None, None)
    return original(module, query, key, value, attention_mask, *args, **kwargs)


class GenericAttentionProbe(AttentionProbe):
    """:class:`AttentionProbe` for any causal LM whose attention modules call transformers'
    attention interface (``ALL_ATTENTION_FUNCTIONS``; GPT-NeoX, OPT, Phi, Gemma, LLaMA, GPT-2
    and most models of transformers 5): within the context the model's attention
    implementation is a recording wrapper around the one it had (``eager`` or ``sdpa``), which
    reads the queries and keys the model itself computed (rotary embedding applied, partial
    rotary included) and the scale it passes.  A model that folds the scale into its queries
    (OPT) passes ``scaling = 1``: its scores are then the scaled ones and its
    ``score_scale`` 1, the same logits.  ALiBi and logit soft-capping are family knowledge:
    ALiBi models go through their family route, soft-capped logits are refused."""

    def _attach(self, torch: ModuleType, model_type: str, attns: list[Module]) -> None:
        import transformers  # the models extra
        from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS  # the models extra

        impl = getattr(self.model.config, "_attn_implementation", None) or "eager"
        originals = []
        for attn in attns:
            if impl == "eager":
                fn = getattr(sys.modules[type(attn).__module__], "eager_attention_forward", None)
            else:
                fn = ALL_ATTENTION_FUNCTIONS.get(impl)
            if fn is None:
                raise InvalidArgument("model", model_type, "a model whose attention calls "
                                      f"transformers' attention interface ({type(attn).__name__} "
                                      f"has no {impl} attention function posbias can wrap)")
            originals.append(fn)
        transformers.AttentionInterface.register(_PROBE_IMPLEMENTATION, _probe_attention)
        for t, (attn, fn) in enumerate(zip(attns, originals)):
            _ROUTED[id(attn)] = (self, t, fn)
        self._routed = [id(a) for a in attns]
        self._impl = impl
        self.model.set_attn_implementation(_PROBE_IMPLEMENTATION)  # type: ignore[operator]  # transformers' method

    def __exit__(self, *exc):
        self.model.set_attn_implementation(self._impl)  # type: ignore[operator]  # transformers' method
        for key in self._routed:
            _ROUTED.pop(key, None)
        return super().__exit__(*exc)

    def results(self) -> dict:
        if max(self.calls) > 0 and min(self.calls) < 1:
            t = self.calls.index(0)
            raise InvalidArgument("model", _model_type(self.model), "a model whose attention "
                                  f"calls transformers' attention interface (layer {t + 1} did "
                                  "not: its queries and keys cannot be read)")
        if max(self.calls) == 0:
            raise InvalidArgument("model", _model_type(self.model), "a model whose attention "
                                  "calls transformers' attention interface (no layer did: its "
                                  "queries and keys cannot be read)")
        return super().results()
