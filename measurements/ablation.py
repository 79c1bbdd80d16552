r"""Ablations of a randomly initialized causal LM: parts of the network switched off in place, so
that a Step-0 measurement (:func:`posbias.measurements.measure.measure_influence` with
``ablate=...``) says which part of the architecture makes a feature of the influence profile.

Each ablation changes the weights (or one module) of the model built by
:func:`~posbias.measurements.measure.build_model`, after construction, and nothing else:

* ``uniform-attention``: the key projection (weight and bias) set to zero, so every score
  :math:`q_i \cdot k_j` is 0 and causal attention is exactly the Cesàro matrix
  :math:`M[i,j] = 1/i` (chowdhury2026 C1 without its approximation); no gradient flows through
  the scores either (the keys no longer depend on the input);
* ``no-mlp``: the MLP's output projection (weight and bias) set to zero, so each block's MLP adds
  nothing to the residual stream (the block is ``x + Attn(Norm x)``);
* ``identity-activation``: the MLP's activation replaced by the identity (GPT-2: the MLP becomes
  the linear map ``W_2 W_1``; gated MLPs such as Qwen2's become the bilinear
  ``W_2 (W_g x * W_u x)``);
* ``no-positions``: the learned absolute position embeddings set to zero (GPT-2's ``wpe``); a
  rotary model has none (its rotation is switched off by ``rope=False`` instead).

Supported families: ``gpt2`` (fused ``c_attn``: the key columns ``d..2d`` of its weight and
bias), ``llama``, ``qwen2``, ``qwen3``, ``mistral`` (``k_proj``, ``down_proj``, ``act_fn``).  An
ablation a model does not have is refused naming it.

Paper keys: chowdhury2026 (C1, C9: which structure makes the measured Step-0 profile).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from posbias.errors import InvalidArgument
from posbias.measurements.hooks import locate_blocks

if TYPE_CHECKING:  # torch is the optional ``models`` extra
    from torch.nn import Module

__all__ = ["ABLATIONS", "ablate", "check_ablations", "check_ablations_for"]

#: the ablations, in the order they are applied and reported
ABLATIONS = ("uniform-attention", "no-mlp", "identity-activation", "no-positions")

_LLAMA_LIKE = ("llama", "qwen2", "qwen3", "mistral")


def check_ablations(parts: Iterable[str] | str | None) -> tuple[str, ...]:
    """The ablations ``parts`` (a sequence of names, or one comma-separated string; None or
    empty: none) in :data:`ABLATIONS` order, each once; an unknown name is refused.

    >>> check_ablations("no-mlp,uniform-attention")
    ('uniform-attention', 'no-mlp')
    >>> check_ablations(None)
    ()
    """
    if parts is None:
        return ()
    names = [p.strip() for p in parts.split(",")] if isinstance(parts, str) else list(parts)
    names = [p for p in names if p]
    for p in names:
        if not isinstance(p, str) or p not in ABLATIONS:
            raise InvalidArgument("ablate", p, "one of " + ", ".join(ABLATIONS))
    return tuple(a for a in ABLATIONS if a in names)


def check_ablations_for(model_type: str, parts: Iterable[str] | str | None) -> tuple[str, ...]:
    """:func:`check_ablations`, and each ablation one that a ``model_type`` model has
    (``no-positions`` needs learned absolute positions: GPT-2 only).

    >>> check_ablations_for("qwen2", "no-positions")
    Traceback (most recent call last):
        ...
    posbias.errors.InvalidArgument: ablate = no-positions is invalid: expected ...
    """
    names = check_ablations(parts)
    if names and model_type != "gpt2" and model_type not in _LLAMA_LIKE:
        raise InvalidArgument("ablate", ",".join(names),
                              f"no ablation for {model_type}: supported for gpt2, "
                              + ", ".join(_LLAMA_LIKE))
    if "no-positions" in names and model_type != "gpt2":
        raise InvalidArgument("ablate", "no-positions",
                              f"a model with learned absolute positions ({model_type} has none: "
                              "switch a rotation off with rope off)")
    return names


def _zero(*tensors: Any) -> None:
    for t in tensors:
        if t is not None:
            t.zero_()


def ablate(model: Module, parts: Iterable[str] | str | None) -> tuple[str, ...]:
    """Apply the ablations ``parts`` to ``model`` in place (see the module docstring) and return
    them as applied (:func:`check_ablations`).  The model's weights change; nothing else does."""
    import torch  # the models extra

    config: Any = model.config  # a transformers PretrainedConfig
    model_type = str(config.model_type)
    names = check_ablations_for(model_type, parts)
    if not names:
        return ()
    blocks, attns, _ = locate_blocks(model)
    hidden = int(config.hidden_size)
    with torch.no_grad():
        for block, attn in zip(blocks, attns):
            mlp = block.mlp
            if "uniform-attention" in names:
                if model_type == "gpt2":  # c_attn: Conv1D, weight (d, 3d) = [q | k | v]
                    attn.c_attn.weight[:, hidden:2 * hidden].zero_()
                    attn.c_attn.bias[hidden:2 * hidden].zero_()
                else:
                    _zero(attn.k_proj.weight, attn.k_proj.bias)
            if "no-mlp" in names:
                out = mlp.c_proj if model_type == "gpt2" else mlp.down_proj
                _zero(out.weight, out.bias)
            if "identity-activation" in names:
                if model_type == "gpt2":
                    mlp.act = torch.nn.Identity()
                else:
                    mlp.act_fn = torch.nn.Identity()
        if "no-positions" in names:
            transformer: Any = model.transformer  # GPT-2's GPT2Model
            transformer.wpe.weight.zero_()
    return names
