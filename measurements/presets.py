"""Named architecture presets for measurements at initialization, and the rule that adjusts
their dependent settings when the depth, width or head count is overridden.

A preset is plain data (no torch, no transformers): a ``transformers`` model type and the
settings of its configuration class.  :func:`resolve_settings` turns a preset plus overrides
into a consistent set of settings:

* ``head_dim = hidden / heads`` must be an integer (otherwise the combination is rejected);
* the number of key/value heads keeps the preset's grouping ``heads / kv_heads`` when that
  divides the new head count, and otherwise becomes the largest divisor of ``heads`` not above
  ``heads / group`` (so that it always divides ``heads``);
* the MLP width scales with ``hidden`` by the preset's ratio ``intermediate / hidden``, rounded
  to the nearest integer (computed exactly with fractions).

Reference sizes come from the public ``config.json`` files of the named checkpoints (Qwen2-0.5B,
GPT-2 small, BLOOM-560m, Pythia-160m, TinyLlama-1.1B); nothing is downloaded, the numbers are
only used to build randomly initialized models of the same shape (chowdhury2026, section on the
Step-0 experiments; herasimchyk2026, measured schedules).

>>> s = resolve_settings(PRESETS["qwen2-0.5b"], hidden=112, vocab=4096)
>>> (s["num_hidden_layers"], s["hidden_size"], s["num_attention_heads"],
...  s["num_key_value_heads"], s["intermediate_size"], s["vocab_size"])
(24, 112, 14, 2, 608, 4096)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from posbias.errors import InvalidArgument
from posbias.validation import check_integer

__all__ = ["PRESETS", "ROTARY_MODEL_TYPES", "Preset", "preset_names", "resolve_settings"]

#: model types whose attention applies rotary position embeddings (RoPE) by default
ROTARY_MODEL_TYPES = frozenset(
    {"llama", "qwen2", "qwen3", "mistral", "gpt_neox", "gptj", "phi", "phi3", "gemma", "gemma2",
     "olmo", "olmo2", "stablelm", "starcoder2", "cohere", "granite"}
)


@dataclass(frozen=True)
class Preset:
    """Shape of a causal language model, as settings of its ``transformers`` configuration.

    ``kv_heads`` is ``None`` for architectures without grouped key/value heads;
    ``intermediate`` is ``None`` where the architecture fixes the MLP width itself (BLOOM:
    ``4 * hidden``) or derives it (GPT-2 with ``n_inner = None``: ``4 * hidden``);
    ``intermediate_key`` names the configuration field of the MLP width.
    """

    name: str
    model_type: str
    layers: int
    hidden: int
    heads: int
    vocab: int
    kv_heads: int | None = None
    intermediate: int | None = None
    intermediate_key: str = "intermediate_size"
    max_positions: int | None = None
    extra: dict = field(default_factory=dict)
    source: str = ""


def _p(*args: Any, **kw: Any) -> Preset:
    return Preset(*args, **kw)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _p("gpt2", "gpt2", 12, 768, 12, 50257, intermediate=3072, intermediate_key="n_inner",
           max_positions=1024, source="GPT-2 small (openai-community/gpt2 config.json)"),
        _p("qwen2-0.5b", "qwen2", 24, 896, 14, 151936, kv_heads=2, intermediate=4864,
           max_positions=32768,
           extra={"rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0},
                  "tie_word_embeddings": True, "rms_norm_eps": 1e-6},
           source="Qwen/Qwen2-0.5B config.json"),
        _p("bloom-560m", "bloom", 24, 1024, 16, 250880, source="bigscience/bloom-560m config.json"),
        _p("pythia-160m", "gpt_neox", 12, 768, 12, 50304, intermediate=3072, max_positions=2048,
           source="EleutherAI/pythia-160m config.json (rotary_pct 0.25)"),
        _p("tinyllama-1.1b", "llama", 22, 2048, 32, 32000, kv_heads=4, intermediate=5632,
           max_positions=2048, source="TinyLlama/TinyLlama-1.1B config.json"),
        # tiny shapes for tests and examples (2-4 layers, hidden 32-64)
        _p("tiny-gpt2", "gpt2", 3, 32, 4, 256, intermediate=128, intermediate_key="n_inner",
           max_positions=1024, source="test size"),
        _p("tiny-qwen2", "qwen2", 3, 32, 4, 256, kv_heads=2, intermediate=174, max_positions=4096,
           extra={"rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}},
           source="test size, Qwen2-0.5B ratios"),
        _p("tiny-llama", "llama", 3, 32, 4, 256, kv_heads=4, intermediate=86, max_positions=4096,
           source="test size, LLaMA-7B ratios"),
        _p("tiny-bloom", "bloom", 3, 32, 4, 256, source="test size"),
        _p("tiny-gpt-neox", "gpt_neox", 3, 32, 4, 256, intermediate=128, max_positions=4096,
           source="test size, Pythia ratios"),
    )
}


def preset_names() -> list[str]:
    """The preset names, sorted."""
    return sorted(PRESETS)


def _positive_int(value: object, parameter: str, minimum: int = 1) -> int:
    return check_integer(parameter, value, minimum)


def _kv_heads_for(heads: int, preset_heads: int, preset_kv_heads: int) -> int:
    group = max(1, preset_heads // preset_kv_heads)
    if heads % group == 0:
        return heads // group
    cap = max(1, heads // group)
    return max(k for k in range(1, cap + 1) if heads % k == 0)


def resolve_settings(
    preset: Preset,
    *,
    layers: int | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    kv_heads: int | None = None,
    vocab: int | None = None,
    length: int | None = None,
) -> dict:
    """Configuration settings of ``preset`` with the given overrides, made consistent.

    Returns a dict with ``model_type``, ``num_hidden_layers``, ``hidden_size``,
    ``num_attention_heads``, ``vocab_size``, ``head_dim`` and, where the preset has them,
    ``num_key_value_heads``, the MLP width under ``preset.intermediate_key`` and
    ``max_position_embeddings`` (raised to ``length`` when a longer input is asked for: the
    models are randomly initialized, so a longer learned position table is as valid as the
    original one), plus the preset's extra settings.

    Parameters: ``layers, hidden, heads, kv_heads`` integers >= 1; ``hidden`` divisible by
    ``heads``; ``kv_heads`` dividing ``heads`` (only for presets with grouped key/value
    heads); ``vocab`` integer >= 2; ``length`` integer >= 1.

    >>> s = resolve_settings(PRESETS["gpt2"], layers=4, hidden=64, heads=4)
    >>> (s["num_hidden_layers"], s["hidden_size"], s["head_dim"], s["n_inner"])
    (4, 64, 16, 256)
    >>> resolve_settings(PRESETS["gpt2"], hidden=100, heads=12)
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: hidden = 100 is invalid: expected a multiple of heads = 12 (head_dim = hidden / heads must be an integer)
    """
    layers = preset.layers if layers is None else _positive_int(layers, "layers")
    hidden = preset.hidden if hidden is None else _positive_int(hidden, "hidden")
    heads = preset.heads if heads is None else _positive_int(heads, "heads")
    vocab = preset.vocab if vocab is None else _positive_int(vocab, "vocab", 2)
    if hidden % heads:
        raise InvalidArgument(
            "hidden", hidden,
            f"a multiple of heads = {heads} (head_dim = hidden / heads must be an integer)")
    settings = {
        "model_type": preset.model_type,
        "num_hidden_layers": layers,
        "hidden_size": hidden,
        "num_attention_heads": heads,
        "vocab_size": vocab,
        "head_dim": hidden // heads,
    }
    if preset.kv_heads is not None:
        if kv_heads is None:
            kv = (preset.kv_heads if heads == preset.heads
                  else _kv_heads_for(heads, preset.heads, preset.kv_heads))
        else:
            kv = _positive_int(kv_heads, "kv_heads")
            if heads % kv:
                raise InvalidArgument("kv_heads", kv, f"a divisor of heads = {heads}")
        settings["num_key_value_heads"] = kv
    elif kv_heads is not None:
        raise InvalidArgument(
            "kv_heads", kv_heads,
            f"no value: {preset.model_type} has no grouped key/value heads")
    if preset.intermediate is not None:
        ratio = Fraction(preset.intermediate, preset.hidden)
        width = ratio * hidden
        settings[preset.intermediate_key] = max(1, int(width + Fraction(1, 2)))
    if preset.max_positions is not None:
        longest = preset.max_positions
        if length is not None:
            longest = max(longest, _positive_int(length, "length"))
        settings["max_position_embeddings"] = longest
    for key, value in preset.extra.items():
        settings[key] = dict(value) if isinstance(value, dict) else value
    return settings
