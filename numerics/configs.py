"""Rollout configurations of real models (the YAML format of herasimchyk2026's code), with the
ALiBi and content-score conventions made explicit.

A configuration file (github ml-uhh/position-bias, ``config/rollout``) holds::

    sequence_length: 256            # L >= 1
    num_layers: 30                  # T >= 1
    mask_config: {mask_type: causal, window_size: null}   # or sliding_window, window_size w >= 1
    attention_config:
      num_heads: 32                 # H >= 1
      alibi_slopes: [[...]]         # 1 or T rows, each of 1 or H numbers >= 0
      head_weights: null            # or 1 or T rows of 1 or H numbers >= 0 (positive sum)
      softmax_temperature: 1.0      # > 0
    content_config:
      diagonal_scores: [[...]]      # 1 or T rows of 1 or H numbers: mean diagonal q.k minus
      base_scores: [[...]]          #   mean strictly-lower q.k; base = mean strictly-lower q.k
    lambda_schedule_config:
      schedule_type: custom         # constant (lambda_const), power_decay (lambda_0, beta:
      lambdas_custom: [...]         #   lambda_t = lambda_0/(t+1)^beta, t = 0..T-1), custom (T values)
    save_dir: ...                   # ignored

Layer ``t`` (1-indexed) uses row ``t`` of a T-row list, or the single row of a 1-row list.  A
content table whose first row holds one number (the ``mean_content`` configs: one score per layer,
the mean over heads) is read as the reference code reads it: that score reaches **head 0 only**,
every other head gets content 0 (its loop assigns ``content[min(h, provided_heads - 1)]``, so with
one provided head it writes head 0 again and again).  That is what the ``reference`` convention
does (``content_head0_only=True``), so that it reproduces the reference code's profiles on every
config; the ``corrected`` convention gives the single score to every head, as the mean over heads
it is (``content_head0_only=False``).  A slope row of one number reaches every head in both
conventions, as in the reference code; so does a head-weight row of one number (uniform weights;
the reference code fails on it when H > 1).  The base scores are validated
but cancel in the softmax (:ref:`H2d <math-h2>`), so they never change a profile.  Every
``lambda`` must lie in [0, 1] (the reference clips silently; here it is an error).

**Conventions** (:class:`Conventions`), each defaulting to what the reference code does:

* ``slope_rule``: ``given`` (use the file's slopes; reference), ``power-of-two``
  (``2^{-8h/H}``) or ``bloom`` (BLOOM's rule for any ``H``, see :mod:`posbias.numerics.alibi`);
* ``alibi_scale``: ``none`` (reference; BLOOM, MPT) or ``sqrt-d-head`` (the ALiBi bias is
  multiplied by ``1/sqrt(d_head)`` as well, as Falcon-RW does);
* ``content_scale``: ``none`` (the scores are used as logits as they stand; reference) or
  ``sqrt-d-head`` (the stored scores are raw ``q.k`` means and are divided by ``sqrt(d_head)``,
  as the model does before its softmax);
* ``content_head0_only``: ``True`` (a single content score per layer reaches head 0 only;
  reference) or ``False`` (it reaches every head; corrected).

The reference convention was determined by reproducing the reference code's own profiles on all
its configs (tests/data/ml-uhh/reference: every position of the 32 configs at L = 256 and of
the 5 at L = 2048, to 1e-13 relative): given slopes, unscaled ALiBi, raw scores used as logits,
the softmax temperature dividing both, a single content score on head 0 only.  The ``corrected``
preset is model-faithful:

============  =============  ===========  =============  ======  ======================================
model         slope rule     ALiBi scale  content        d_head  source of d_head
============  =============  ===========  =============  ======  ======================================
bloom-7b1     bloom          none         /sqrt(d_head)     128  hidden 4096 / 32 heads (HF config)
bloom (176B)  bloom          none         /sqrt(d_head)     128  hidden 14336 / 112 heads (HF config)
mpt-7b        power-of-two   none         /sqrt(d_head)     128  d_model 4096 / 32 heads (HF config)
mpt-30b       power-of-two   none         /sqrt(d_head)     112  d_model 7168 / 64 heads (HF config)
falcon-rw-7b  bloom          sqrt-d-head  /sqrt(d_head)      64  hidden 4544 / 71 heads (HF config)
============  =============  ===========  =============  ======  ======================================

(BLOOM and MPT add the ALiBi bias after scaling ``q.k`` by ``1/sqrt(d_head)``; Falcon-RW adds it
before.  The measured ``q.k`` means in the configs are stored without the ``1/sqrt(d_head)``
factor: data README of herasimchyk2026's code.)  The model is recognised from the file name
(``bloom-7b1``, ``mpt-7b-noresidual``, ...) or given explicitly.

Loading uses ruamel.yaml in safe mode (YAML 1.2: tabs between flow-sequence items are valid;
no tag can construct a Python object, nothing is executed).  ruamel.yaml is the ``yaml`` extra,
imported lazily.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from posbias.errors import InvalidArgument, NeedsExtra
from posbias.numbers import stand_in
from posbias.numerics.alibi import (
    alibi_diagonal_defect,
    alibi_layer,
    alibi_rollout,
    alibi_slopes,
)
from posbias.validation import read_text_bounded

__all__ = [
    "CONVENTIONS",
    "KNOWN_MODELS",
    "Conventions",
    "ModelInfo",
    "RolloutConfig",
    "conventions_for",
    "load_config",
    "parse_config",
    "rollout_summary",
]

#: the largest rollout config read (herasimchyk2026's are at most a few hundred KiB)
MAX_CONFIG_BYTES = 64 * 2**20

CONVENTIONS = ("reference", "corrected")
_SLOPE_RULES = ("given", "power-of-two", "bloom")
_SCALES = ("none", "sqrt-d-head")


@dataclass(frozen=True)
class ModelInfo:
    """What the ``corrected`` preset needs to know about a model."""

    name: str
    d_head: int
    slope_rule: str
    alibi_scale: str
    source: str


#: Model-faithful conventions; d_head = hidden size / heads from the published model configs.
KNOWN_MODELS = {
    "bloom-7b1": ModelInfo("bloom-7b1", 128, "bloom", "none", "hidden_size 4096, n_head 32"),
    "bloom": ModelInfo("bloom", 128, "bloom", "none", "BLOOM-176B: hidden_size 14336, n_head 112"),
    "mpt-7b": ModelInfo("mpt-7b", 128, "power-of-two", "none", "d_model 4096, n_heads 32"),
    "mpt-30b": ModelInfo("mpt-30b", 112, "power-of-two", "none", "d_model 7168, n_heads 64"),
    "falcon-rw-7b": ModelInfo("falcon-rw-7b", 64, "bloom", "sqrt-d-head", "hidden_size 4544, n_head 71"),
}


@dataclass(frozen=True)
class Conventions:
    """How the numbers of a config become logits (see the module docstring)."""

    slope_rule: str = "given"
    alibi_scale: str = "none"
    content_scale: str = "none"
    d_head: int | None = None
    content_head0_only: bool = True
    name: str = "reference"

    def __post_init__(self) -> None:
        if self.slope_rule not in _SLOPE_RULES:
            raise InvalidArgument("slope_rule", self.slope_rule, "one of " + ", ".join(_SLOPE_RULES))
        for key in ("alibi_scale", "content_scale"):
            if getattr(self, key) not in _SCALES:
                raise InvalidArgument(key, getattr(self, key), "one of " + ", ".join(_SCALES))
        if not isinstance(self.content_head0_only, bool):
            raise InvalidArgument("content_head0_only", self.content_head0_only, "True or False")
        if self.d_head is not None and (
            isinstance(self.d_head, bool) or not isinstance(self.d_head, int) or self.d_head < 1
        ):
            raise InvalidArgument("d_head", self.d_head, "an integer >= 1")
        if "sqrt-d-head" in (self.alibi_scale, self.content_scale) and self.d_head is None:
            raise InvalidArgument("d_head", None, "an integer >= 1 when a scale is sqrt-d-head")


def _model_from_name(name: str | None) -> str | None:
    if not name:
        return None
    stem = os.path.basename(str(name).rstrip("/"))
    stem = re.sub(r"(\.profile)?\.(ya?ml|csv)$", "", stem.lower())
    stem = re.sub(r"-(noresidual|\d+)$", "", stem)
    return stem if stem in KNOWN_MODELS else None


def conventions_for(convention: str, model: str | None = None,
                    **overrides: str | int | bool | None) -> Conventions:
    """The preset ``convention`` (``reference`` or ``corrected``) for ``model``, with overrides.

    >>> conventions_for("reference").slope_rule
    'given'
    >>> c = conventions_for("corrected", "falcon-rw-7b")
    >>> c.slope_rule, c.alibi_scale, c.content_scale, c.d_head
    ('bloom', 'sqrt-d-head', 'sqrt-d-head', 64)
    """
    if convention not in CONVENTIONS:
        raise InvalidArgument("convention", convention, "one of " + ", ".join(CONVENTIONS))
    if convention == "reference":
        base: dict[str, Any] = dict(slope_rule="given", alibi_scale="none", content_scale="none", d_head=None,
                                    content_head0_only=True)
    else:
        key = _model_from_name(model) if model not in KNOWN_MODELS else model
        if key is None:
            if overrides.get("d_head") is None:
                raise InvalidArgument(
                    "model", model, "a known model (" + ", ".join(KNOWN_MODELS) + ") or an explicit d_head"
                )
            base = dict(slope_rule="bloom", alibi_scale="none", content_scale="sqrt-d-head", d_head=None,
                        content_head0_only=False)
        else:
            info = KNOWN_MODELS[key]
            base = dict(slope_rule=info.slope_rule, alibi_scale=info.alibi_scale,
                        content_scale="sqrt-d-head", d_head=info.d_head, content_head0_only=False)
    base["name"] = convention
    base.update({k: v for k, v in overrides.items() if v is not None})
    return Conventions(**base)


@dataclass(frozen=True)
class RolloutConfig:
    """A validated rollout configuration turned into ALiBi layers and a lambda schedule."""

    length: int
    num_layers: int
    num_heads: int
    layers: tuple
    lambdas: np.ndarray
    schedule: str
    window: int | None
    conventions: Conventions
    model: str | None = None
    source: str = ""
    raw: dict = field(default_factory=dict, repr=False, compare=False)

    def profile(self, *, chunk: int | None = None) -> np.ndarray:
        """The influence profile (fast path, ``O(T H L)``)."""
        return alibi_rollout(self.length, self.layers, self.lambdas, chunk=chunk)

    def deltas(self) -> np.ndarray:
        """``delta_t = max_i (1 - A(t)[i,i])`` of every layer (:ref:`H4 <math-h4>`), from the closed form."""
        return np.array([alibi_diagonal_defect(self.length, lay) for lay in self.layers])

    def with_length(self, length: int) -> RolloutConfig:
        if (isinstance(length, bool) or not isinstance(length, (int, np.integer))
                or not 1 <= length <= MAX_LENGTH):
            raise InvalidArgument("length", length, f"an integer between 1 and {MAX_LENGTH}")
        return dataclasses.replace(self, length=int(length))

    def attention_only(self) -> RolloutConfig:
        """The same layers with ``lambda_t = 1`` (no residual stream)."""
        return dataclasses.replace(self, lambdas=np.ones(self.num_layers), schedule="constant 1 (attention only)")

    def without_alibi(self) -> RolloutConfig:
        """Every slope set to 0 (no positional bias)."""
        layers = tuple(dataclasses.replace(l, slopes=np.zeros_like(l.slopes)) for l in self.layers)
        return dataclasses.replace(self, layers=layers)

    def without_content(self) -> RolloutConfig:
        """Every diagonal content logit set to 0."""
        layers = tuple(dataclasses.replace(l, diagonal=np.zeros_like(l.diagonal)) for l in self.layers)
        return dataclasses.replace(self, layers=layers)


# --------------------------------------------------------------------------------------------
# validation helpers


#: size limits of a config: positions, layers, heads, layer x head table entries, and YAML
#: values after alias expansion (a "billion laughs" document is rejected before any use)
MAX_LENGTH = 100_000_000
MAX_LAYERS = 1_000_000
MAX_HEADS = 100_000
MAX_TABLE = 10_000_000
MAX_YAML_VALUES = 10_000_000



def _expanded_size(data: object, limit: int) -> int:
    """Number of YAML values in ``data`` counting every alias use, stopping above ``limit``
    (memoised by object identity: linear in the document, not in its expansion)."""
    memo: dict[int, int] = {}

    def size(x):
        if not isinstance(x, (list, dict)):
            return 1
        key = id(x)
        if key in memo:
            return memo[key]
        memo[key] = limit + 1  # a self-referencing (recursive) document counts as too large
        total = 1
        items = x.values() if isinstance(x, dict) else x
        for v in items:
            total += size(v)
            if total > limit:
                break
        memo[key] = total
        return total

    return size(data)


def _number(key, x, *, lo=None, hi=None, lo_open=False, what="a finite number"):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise InvalidArgument(key, stand_in(x), what)
    try:
        xf = float(x)
    except OverflowError:
        raise InvalidArgument(key, stand_in(x), what) from None
    if not math.isfinite(xf):
        raise InvalidArgument(key, stand_in(x), what)
    if lo is not None and (xf < lo or (lo_open and xf == lo)):
        raise InvalidArgument(key, stand_in(x), what)
    if hi is not None and xf > hi:
        raise InvalidArgument(key, stand_in(x), what)
    return xf


def _integer(key, x, lo=1, hi=None):
    if isinstance(x, bool) or not isinstance(x, int) or x < lo or (hi is not None and x > hi):
        allowed = f"an integer >= {lo}" if hi is None else f"an integer between {lo} and {hi}"
        raise InvalidArgument(key, stand_in(x), allowed)
    return int(x)


def _mapping(key, x, allowed, required=()):
    if not isinstance(x, dict):
        raise InvalidArgument(key, stand_in(x), "a mapping")
    for k in x:
        if k not in allowed:
            raise InvalidArgument(f"{key}.{k}" if key else str(stand_in(k))[:80], stand_in(x[k]),
                                  "a known key (" + ", ".join(allowed) + ")")
    for k in required:
        if k not in x:
            raise InvalidArgument(f"{key}.{k}" if key else k, "<missing>", "a value (the key is required)")
    return x


def _table(key: str, x: object, T: int, H: int, *, lo: float | None = None,
           what: str = "finite numbers") -> np.ndarray:
    """A ``1 or T`` by ``1 or H`` list of lists broadcast to a ``T x H`` float array."""
    if isinstance(x, list) and x and all(not isinstance(r, list) for r in x):
        x = [x]  # a flat list is one row
    if not isinstance(x, list) or not x or not all(isinstance(r, list) for r in x):
        raise InvalidArgument(key, stand_in(x), f"a list of 1 or {T} rows, each a list of 1 or {H} numbers")
    if len(x) not in (1, T):
        raise InvalidArgument(key, f"{len(x)} rows", f"1 or {T} rows (num_layers)")
    out = np.empty((T, H))
    rows = []
    for r, row in enumerate(x):
        if len(row) not in (1, H):
            raise InvalidArgument(f"{key}[{r}]", f"{len(row)} numbers", f"1 or {H} numbers (num_heads)")
        vals = [
            _number(f"{key}[{r}][{c}]", v, lo=lo, what=what) for c, v in enumerate(row)
        ]
        rows.append(np.broadcast_to(np.array(vals), (H,)))
    for t in range(T):
        out[t] = rows[0] if len(rows) == 1 else rows[t]
    return out


def _load_yaml(text: str, source: str) -> Any:  # the YAML document: dicts, lists, scalars
    try:
        from ruamel.yaml import YAML  # the yaml extra
        from ruamel.yaml.error import YAMLError  # the yaml extra
    except ImportError:  # pragma: no cover - depends on the environment
        raise NeedsExtra("yaml", "ruamel.yaml") from None
    # nesting deeper than any config needs is refused before the parser recurses into it
    depth = 0
    deepest = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}" and depth:
            depth -= 1
    if deepest > _MAX_YAML_NESTING:
        raise InvalidArgument("config", source, f"a YAML document nested at most {_MAX_YAML_NESTING} levels deep")
    # a nonzero number that float64 cannot hold as a normal number would silently become 0
    # (or a subnormal) on the fast path: refuse it instead
    for m in re.finditer(r"(?<![\w.])[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][-+]?[0-9]+", text):
        value = abs(float(m.group(0)))
        if value < 2.2250738585072014e-308 and re.search(r"[1-9]", m.group(0).lower().split("e")[0]):
            raise InvalidArgument("config", source, f"numbers that float64 holds ({m.group(0)} is "
                                  "below 2.2e-308 and would become 0)")
    try:
        return YAML(typ="safe", pure=True).load(text)
    except YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 1})" if where is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise InvalidArgument("config", source, f"a YAML 1.2 rollout config; {problem}{line}") from None
    except RecursionError:  # block-style nesting (indentation) deeper than the parser's stack
        raise InvalidArgument("config", source, "a YAML document nested less deeply") from None
    except ValueError as exc:  # e.g. an integer longer than Python's int-string limit
        reason = " ".join(str(exc).split())[:120]
        raise InvalidArgument("config", source, f"a YAML rollout config with numbers of sensible size ({reason})") from None


#: deepest flow-style nesting ([ or {) accepted in a YAML config (configs nest 3 levels)
_MAX_YAML_NESTING = 64


#: parsed documents kept for reuse: the pure-Python YAML parser reads ~200 kB/s, and the measured
#: configs (up to 315 kB, BLOOM-176B with per-head content) are read once per convention and claim
_PARSED: dict = {}
_PARSED_MAX = 48


def _parsed_yaml(text: str, source: str) -> Any:
    """``_load_yaml`` with a small cache keyed by the text itself (a document that failed to
    parse is never cached; the cached value is shared, and nothing below mutates it)."""
    try:  # the extra is needed even when the document is cached
        import ruamel.yaml  # noqa: F401
    except ImportError:
        raise NeedsExtra("yaml", "ruamel.yaml") from None
    hit = _PARSED.get(text)
    if hit is not None:
        return hit
    data = _load_yaml(text, source)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.pop(next(iter(_PARSED)))
    _PARSED[text] = data
    return data


# --------------------------------------------------------------------------------------------
# the loader


def parse_config(
    text: str,
    *,
    source: str = "<string>",
    convention: str = "reference",
    model: str | None = None,
    length: int | None = None,
    **overrides: str | int | bool | None,
) -> RolloutConfig:
    """Validate a config given as YAML text and build its layers (see :func:`load_config`).

    >>> text = '''
    ... sequence_length: 8
    ... num_layers: 2
    ... attention_config: {num_heads: 2, alibi_slopes: [[0.5,\t0.25]], softmax_temperature: 1.0}
    ... content_config: {diagonal_scores: [[1.0]], base_scores: [[3.0]]}
    ... lambda_schedule_config: {schedule_type: power_decay, lambda_0: 0.5, beta: 1}
    ... '''
    >>> cfg = parse_config(text)
    >>> cfg.lambdas.tolist(), cfg.layers[0].diagonal.tolist()
    ([0.5, 0.25], [1.0, 0.0])
    >>> parse_config(text, content_head0_only=False).layers[0].diagonal.tolist()
    [1.0, 1.0]
    >>> parse_config(text.replace("0.5, beta", "1.5, beta"))
    Traceback (most recent call last):
    ...
    posbias.errors.InvalidArgument: lambda_schedule_config.lambda_0 = 1.5 is invalid: expected a number in (0, 1]
    """
    if not isinstance(text, str):
        raise InvalidArgument("config", source, "YAML text")
    data = _parsed_yaml(text, source)
    if not isinstance(data, dict):
        raise InvalidArgument("config", source, "a YAML mapping with the rollout config keys")
    if _expanded_size(data, MAX_YAML_VALUES) > MAX_YAML_VALUES:
        raise InvalidArgument("config", source, f"a YAML document of at most {MAX_YAML_VALUES} values "
                              "once its aliases are expanded")
    top = ("sequence_length", "num_layers", "mask_config", "attention_config", "content_config",
           "lambda_schedule_config", "save_dir")
    _mapping("", data, top, required=("sequence_length", "num_layers", "attention_config",
                                       "lambda_schedule_config"))
    L = _integer("sequence_length", data["sequence_length"], hi=MAX_LENGTH)
    T = _integer("num_layers", data["num_layers"], hi=MAX_LAYERS)
    if length is not None:
        L = _integer("length", length, hi=MAX_LENGTH)
    window = _window(data.get("mask_config") or {})
    H, slopes, weights, tau = _attention(data["attention_config"], T)
    diag_raw, diag = _content(data.get("content_config"), T, H)
    lam, schedule = _schedule(data["lambda_schedule_config"], T)
    model_key = _model_key(model, source, data)
    conv = conventions_for(convention, model_key or model, **overrides)
    slopes, diag = _with_conventions(conv, slopes, diag, diag_raw, T, H)
    layers = tuple(
        alibi_layer(slopes[t].tolist(), diagonal=diag[t].tolist(), weights=weights[t].tolist(), temperature=tau,
                    window=window)
        for t in range(T)
    )
    return RolloutConfig(L, T, H, layers, lam, schedule, window, conv, model_key, source, data)


def _window(mask: Any) -> int | None:
    """The sliding window of ``mask_config`` (None for a causal mask)."""
    _mapping("mask_config", mask, ("mask_type", "window_size"))
    mtype = mask.get("mask_type", "causal")
    if mtype == "sliding_window":
        return _integer("mask_config.window_size", mask.get("window_size"))
    if mtype == "causal":
        if mask.get("window_size") is not None:
            raise InvalidArgument("mask_config.window_size", stand_in(mask["window_size"]), "null for a causal mask")
        return None
    raise InvalidArgument("mask_config.mask_type", stand_in(mtype), "causal or sliding_window (causal masks only)")


def _attention(att: Any, T: int) -> tuple[int, np.ndarray, np.ndarray, float]:
    """``(heads, slopes, head weights, softmax temperature)`` of ``attention_config``."""
    att = _mapping("attention_config", att,
                   ("num_heads", "alibi_slopes", "head_weights", "softmax_temperature"),
                   required=("num_heads", "alibi_slopes"))
    H = _integer("attention_config.num_heads", att["num_heads"], hi=MAX_HEADS)
    if T * H > MAX_TABLE:
        raise InvalidArgument("attention_config.num_heads", H,
                              f"at most {MAX_TABLE} layer x head pairs (num_layers = {T})")
    slopes = _table("attention_config.alibi_slopes", att["alibi_slopes"], T, H, lo=0.0,
                    what="finite numbers >= 0")
    hw = att.get("head_weights")
    if hw is None:
        weights = np.ones((T, H))
    else:
        weights = _table("attention_config.head_weights", hw, T, H, lo=0.0, what="finite numbers >= 0")
        for t in range(T):
            if not weights[t].sum() > 0:
                raise InvalidArgument("attention_config.head_weights", stand_in(hw), "rows with a positive sum")
    tau = _number("attention_config.softmax_temperature", att.get("softmax_temperature", 1.0),
                  lo=0.0, lo_open=True, what="a finite number > 0")
    return H, slopes, weights, tau


def _content(cc: Any, T: int, H: int) -> tuple[Any, np.ndarray]:
    """``(diagonal scores as written, as a T x H table)`` of ``content_config`` (the base
    scores are validated: they cancel in the rollout)."""
    if cc is None:
        cc = {"diagonal_scores": [[0.0]], "base_scores": [[0.0]]}
    _mapping("content_config", cc, ("diagonal_scores", "base_scores"), required=("diagonal_scores",))
    diag_raw = cc["diagonal_scores"]
    diag = _table("content_config.diagonal_scores", diag_raw, T, H)
    if cc.get("base_scores") is not None:
        _table("content_config.base_scores", cc["base_scores"], T, H)  # validated; cancels
    return diag_raw, diag


def _model_key(model: str | None, source: str, data: dict) -> str | None:
    """The known model whose conventions apply: ``model`` when given, else the one the
    source's name or the config's ``save_dir`` names (None when none does)."""
    if model is not None:
        model_key = model if model in KNOWN_MODELS else _model_from_name(model)
        if model_key is None:
            raise InvalidArgument("model", model, "one of " + ", ".join(KNOWN_MODELS))
        return model_key
    model_key = _model_from_name(source)
    if model_key is None and data.get("save_dir"):
        save_dir = data["save_dir"]
        model_key = _model_from_name(save_dir) if isinstance(save_dir, str) else None
    return model_key


def _with_conventions(conv: Conventions, slopes: np.ndarray, diag: np.ndarray, diag_raw: Any,
                      T: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    """The slopes and diagonal content scores as the conventions read them (slope rule,
    ``1/sqrt(d_head)`` scales, a single score reaching head 0 only as in the reference code)."""
    if conv.slope_rule != "given":
        slopes = np.broadcast_to(alibi_slopes(H, conv.slope_rule), (T, H)).copy()
    if conv.alibi_scale == "sqrt-d-head":
        assert conv.d_head is not None  # Conventions requires it for a sqrt-d-head scale
        slopes = slopes / math.sqrt(conv.d_head)
    if conv.content_scale == "sqrt-d-head":
        assert conv.d_head is not None
        diag = diag / math.sqrt(conv.d_head)
    if conv.content_head0_only and H > 1 and _first_row_length(diag_raw) == 1:
        # the reference code sizes its head loop by the first row: one provided head means that
        # every layer's score (entry 0 of its row) reaches head 0 and no other head
        diag = diag.copy()
        diag[:, 1:] = 0.0
    return slopes, diag


def _first_row_length(table: list) -> int:
    """Number of entries in the first row of a validated ``1 or T`` by ``1 or H`` table (a flat
    list is one row)."""
    first = table[0]
    return len(first) if isinstance(first, list) else len(table)


def _schedule(cfg, T):
    key = "lambda_schedule_config"
    if not isinstance(cfg, dict):
        raise InvalidArgument(key, stand_in(cfg), "a mapping with schedule_type")
    kind = cfg.get("schedule_type")
    if kind == "constant":
        _mapping(key, cfg, ("schedule_type", "lambda_const"), required=("lambda_const",))
        c = _number(f"{key}.lambda_const", cfg["lambda_const"], lo=0.0, hi=1.0, what="a number in [0, 1]")
        return np.full(T, c), f"constant {c!r}"
    if kind == "power_decay":
        _mapping(key, cfg, ("schedule_type", "lambda_0", "beta"), required=("lambda_0", "beta"))
        l0 = _number(f"{key}.lambda_0", cfg["lambda_0"], lo=0.0, hi=1.0, lo_open=True, what="a number in (0, 1]")
        beta = _number(f"{key}.beta", cfg["beta"], lo=0.0, lo_open=True, what="a finite number > 0")
        t = np.arange(T, dtype=float)
        return l0 / (t + 1.0) ** beta, f"power_decay lambda_0={l0!r}, beta={beta!r}"
    if kind == "custom":
        _mapping(key, cfg, ("schedule_type", "lambdas_custom"), required=("lambdas_custom",))
        vals = cfg["lambdas_custom"]
        if not isinstance(vals, list) or len(vals) != T:
            shown = f"{len(vals)} values" if isinstance(vals, list) else vals
            raise InvalidArgument(f"{key}.lambdas_custom", shown, f"a list of {T} numbers (num_layers)")
        lam = [_number(f"{key}.lambdas_custom[{t}]", v, lo=0.0, hi=1.0, what="a number in [0, 1]")
               for t, v in enumerate(vals)]
        return np.array(lam), "custom (measured)"
    raise InvalidArgument(f"{key}.schedule_type", stand_in(kind), "one of constant, power_decay, custom")


def load_config(
    path: str | os.PathLike[str],
    *,
    convention: str = "reference",
    model: str | None = None,
    length: int | None = None,
    **overrides: str | int | bool | None,
) -> RolloutConfig:
    """Load, validate and convert a rollout config file.

    Parameters
    ----------
    path : str or path
        a readable YAML file (parameter name in errors: ``config``).
    convention : str
        ``reference`` (default; reproduces the reference code) or ``corrected``.
    model : str, optional
        a key of :data:`KNOWN_MODELS`; default: recognised from the file name or save_dir.
    length : int, optional
        replaces ``sequence_length`` (long contexts).
    **overrides
        ``slope_rule``, ``alibi_scale``, ``content_scale``, ``d_head``, ``content_head0_only``
        (see :class:`Conventions`).

    Examples
    --------

    >>> from posbias.proofs_checks.data import builtin_config_path
    >>> cfg = load_config(builtin_config_path("no_content/bloom-7b1"))
    >>> cfg.length, cfg.num_layers, cfg.num_heads, cfg.model, cfg.schedule
    (256, 30, 32, 'bloom-7b1', 'custom (measured)')

    Errors (missing keys, wrong shapes, lambda outside [0, 1], non-finite numbers, text that is
    not YAML) raise :class:`~posbias.errors.InvalidArgument` naming the key.  Paper:
    herasimchyk2026 (its rollout configs).
    """
    p = os.fspath(path)
    # regular files only (a FIFO would block, a device never end), at most MAX_CONFIG_BYTES
    text = read_text_bounded(p, MAX_CONFIG_BYTES, "config")
    return parse_config(text, source=p, convention=convention, model=model, length=length, **overrides)


def rollout_summary(profile: ArrayLike, lambdas: ArrayLike, deltas: ArrayLike) -> dict[str, Any]:
    """Summary of an influence profile: ``first``, ``last``, ``argmin`` (1-indexed, first
    occurrence), ``min``, ``sum_lambda`` (``sum_t lambda_t``), ``sum_lambda_delta``
    (``sum_t lambda_t delta_t``, :ref:`H4 <math-h4>`), ``first_over_min`` and ``last_over_min``
    (float64; ``inf`` when the minimum underflowed to 0, ``nan`` for 0/0).

    >>> s = rollout_summary([0.5, 0.2, 0.3], [0.5, 0.5], [0.4, 0.6])
    >>> s["argmin"], s["min"], s["sum_lambda"], s["sum_lambda_delta"], s["first_over_min"]
    (2, 0.2, 1.0, 0.5, 2.5)
    """
    p = np.asarray(profile, dtype=float)
    lam = np.asarray(lambdas, dtype=float)
    dl = np.asarray(deltas, dtype=float)
    k = int(np.argmin(p))
    mn = float(p[k])
    def ratio(x):
        return float(x / mn) if mn > 0 else (float("inf") if x > 0 else float("nan"))

    return {
        "first": float(p[0]),
        "last": float(p[-1]),
        "argmin": k + 1,
        "min": mn,
        "sum_lambda": float(np.sum(lam)),
        "sum_lambda_delta": float(np.sum(lam * dl)),
        "first_over_min": ratio(p[0]),
        "last_over_min": ratio(p[-1]),
    }
