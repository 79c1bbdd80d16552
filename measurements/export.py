"""Writing a pretrained measurement as a rollout config (the YAML schema of herasimchyk2026's
code) and as a measured-influence file.

**Rollout config** (:func:`rollout_config_yaml`): the keys and shapes of the shipped configs
(``sequence_length``, ``num_layers``, ``mask_config``, ``attention_config`` with ``num_heads``,
``alibi_slopes`` (``T`` rows of ``H``), ``head_weights: null``, ``softmax_temperature: 1.0``,
``content_config`` with ``diagonal_scores`` and ``base_scores`` (``T`` rows of ``H``),
``lambda_schedule_config`` with ``schedule_type: custom`` and ``lambdas_custom`` (``T`` numbers),
``save_dir``).  Convention: **every number is in the model's own logit units**, so that the
config is read unchanged (posbias ``reference`` convention, the default of ``posbias rollout``
and of ``empirical-match``, and the reference code itself) as the model computes:

* ``diagonal_scores[t][h] = score_scale_t * (mean_i q_i.k_i - mean_{j<i} q_i.k_j)`` and
  ``base_scores[t][h] = score_scale_t * mean_{j<i} q_i.k_j``, ``score_scale_t`` the factor the
  model puts on ``q.k`` (usually ``1/sqrt(d_head)``);
* ``alibi_slopes[t][h] = alibi_scale_t * slope_h`` with the slopes read from the model and
  ``alibi_scale_t`` the factor the model puts on its ALiBi bias (Falcon: ``1/sqrt(d_head)``,
  BLOOM and MPT: 1); all zero for a model without ALiBi (its RoPE or learned positions are not
  part of the rollout model).

The shipped configs store raw ``q.k`` means instead (their README): do not read an exported file
with ``--convention corrected``, which would divide by ``sqrt(d_head)`` a second time.  The raw
means, the scales and the slopes as read are kept in the header comments and in the JSON record
(:func:`measurement_json`).

**Measured influence** (:func:`influence_csv`): ``position,influence`` with 1-indexed positions
and the normalised profile, the format the ``herasimchyk2026:empirical-match`` claim reads from
``<data_dir>/measured-influence/<name>.csv`` next to ``<name>.yaml``.

Numbers are printed with 7 significant digits: no measured value carries more than float32
precision.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from posbias.numbers import float_text, rounded

if TYPE_CHECKING:
    from posbias.measurements.pretrained import PretrainedMeasurement

__all__ = [
    "influence_csv",
    "influence_files",
    "logit_tables",
    "measurement_json",
    "rollout_config_yaml",
]


def _g(x: float) -> str:
    """``x`` to the 7 significant digits a measurement carries, as the float's shortest text."""
    return float_text(rounded(x, 7))


def _row(values: Iterable[float]) -> str:
    return "[" + ", ".join(_g(v) for v in values) + "]"


def _rows(table: ArrayLike) -> str:
    return "[" + ", ".join(_row(r) for r in np.atleast_2d(table)) + "]"


def logit_tables(m: PretrainedMeasurement) -> dict:
    """The numbers of the exported config: ``alibi_slopes``, ``diagonal_scores`` and
    ``base_scores`` (``T x H``, logit units, see the module docstring) and ``lambdas``."""
    scale = np.asarray(m.score_scale, dtype=float)[:, None]
    if m.alibi_slopes is None:
        slopes = np.zeros((m.num_layers, m.num_heads))
    else:
        slopes = np.asarray(m.alibi_slopes, dtype=float) * np.asarray(m.alibi_scale)[:, None]
    return {
        "alibi_slopes": slopes,
        "diagonal_scores": scale * np.asarray(m.diagonal_scores, dtype=float),
        "base_scores": scale * np.asarray(m.base_scores, dtype=float),
        "lambdas": np.asarray(m.lambdas, dtype=float),
    }


def rollout_config_yaml(m: PretrainedMeasurement) -> str:
    """The rollout config of a :class:`~posbias.measurements.pretrained.PretrainedMeasurement`
    as YAML text (see the module docstring for the convention)."""
    tab = logit_tables(m)
    scales = sorted({_g(s) for s in m.score_scale})
    if m.alibi_slopes is None:
        alibi_note = f"no ALiBi in this model (positions: {m.positional}); slopes 0"
    else:
        assert m.alibi_scale is not None  # measured with the slopes (AttentionProbe.results)
        ascales = sorted({_g(s) for s in m.alibi_scale})
        alibi_note = ("ALiBi slopes read from the model's bias tensor, times the factor the model "
                      f"puts on the bias ({', '.join(ascales)})")
    header = [
        "# rollout config measured by posbias (schema of herasimchyk2026's code, github "
        "ml-uhh/position-bias)",
        f"# model: {m.model} ({m.model_type}), {m.num_layers} layers, {m.num_heads} heads, "
        f"d_head {m.head_dim}, {m.dtype}, attention {m.attn_implementation}",
        f"# inputs: {m.inputs}",
        f"# influence metric: {m.metric}",
        "# CONVENTION: every number is in the model's logit units; read it with the reference "
        "convention",
        "#   (the default), never with --convention corrected (that would scale a second time).",
        "# diagonal_scores = score_scale * (mean_i q_i.k_i - mean_{j<i} q_i.k_j); base_scores = "
        "score_scale * mean_{j<i} q_i.k_j",
        f"#   score_scale (the model's factor on q.k): {', '.join(scales)}; raw q.k = score / "
        "score_scale",
        f"# alibi_slopes: {alibi_note}",
        "# lambdas_custom: lambda_t = mean ||a_t|| / (||x_t|| + ||a_t||), a_t the attention "
        "output, x_t the block input",
    ]
    body = [
        f"sequence_length: {m.length}",
        f"num_layers: {m.num_layers}",
        "",
        "mask_config:",
        '  mask_type: "causal"',
        "  window_size: null",
        "attention_config:",
        f"  num_heads: {m.num_heads}",
        f"  alibi_slopes: {_rows(tab['alibi_slopes'])}",
        "  head_weights: null",
        "  softmax_temperature: 1.0",
        "content_config:",
        f"  diagonal_scores: {_rows(tab['diagonal_scores'])}",
        f"  base_scores: {_rows(tab['base_scores'])}",
        "",
        "lambda_schedule_config:",
        '  schedule_type: "custom"',
        f"  lambdas_custom: {_row(tab['lambdas'])}",
        "",
        f'save_dir: "./results/rollout/measured/{m.name}/"',
    ]
    return "\n".join(header + body) + "\n"


def influence_csv(m: PretrainedMeasurement) -> str:
    """``position,influence`` rows (1-indexed positions, normalised profile, 7 digits)."""
    lines = ["position,influence"]
    lines += [f"{j},{float(v):.7g}" for j, v in enumerate(m.profile, 1)]
    return "\n".join(lines) + "\n"


def measurement_json(m: PretrainedMeasurement, *, stage: str = "pretrained") -> str:
    """The whole measurement as JSON (raw q.k means, scales, slopes, lambdas, profile, inputs),
    with ``stage`` (``pretrained`` or ``step-0``) and the architecture key that pairs a
    pretrained measurement with a Step-0 measurement of the same architecture."""
    d = m.as_dict()
    d["stage"] = stage
    d["architecture"] = {"model_type": m.model_type, "num_layers": m.num_layers,
                         "num_heads": m.num_heads, "hidden_size": m.hidden_size}
    return json.dumps(d, indent=1) + "\n"


def influence_files(m: PretrainedMeasurement, directory: str, *, name: str | None = None,
                    stage: str = "pretrained") -> dict:
    """``{path: text}`` of the files ``--save-influence DIRECTORY`` writes:
    ``DIRECTORY/measured-influence/<name>.csv``, ``<name>.yaml`` (the rollout config) and
    ``<name>.measurement.json``."""
    stem = name or m.name
    folder = os.path.join(directory, "measured-influence")
    return {
        os.path.join(folder, stem + ".csv"): influence_csv(m),
        os.path.join(folder, stem + ".yaml"): rollout_config_yaml(m),
        os.path.join(folder, stem + ".measurement.json"): measurement_json(m, stage=stage),
    }
