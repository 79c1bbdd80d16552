"""Pretrained measurements meet theory: the measured influence of a checkpoint against the
rollout of its own measured config, and the reading of a ``measured-influence`` folder.

:func:`compare_with_rollout` puts the measured profile next to the residual-aware rollout of the
exported config (measured lambda_t, ALiBi slopes and content scores; fast ALiBi path of
:mod:`posbias.numerics.configs`) and its attention-only counterpart (lambda = 1): Spearman and
normalised Wasserstein-1 of each, as herasimchyk2026 (H5) reports them.

:func:`read_measured_folder` reads ``<data_dir>/measured-influence/``: every ``<name>.csv``
(``position,influence``) with its ``<name>.yaml`` rollout config and, when present, its
``<name>.measurement.json`` record (written by ``posbias measure --model ... --save-influence``:
``stage`` pretrained or step-0 and the architecture).  The ``empirical-match`` claim can take its
rows from :func:`empirical_match_rows`, which adds the attention-only Spearman to what it prints.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from posbias.errors import InvalidArgument
from posbias.numbers import figure_text, rounded
from posbias.numerics.compare import spearman, wasserstein1
from posbias.numerics.configs import parse_config
from posbias.validation import read_text_bounded

__all__ = [
    "MeasuredRecord",
    "RolloutComparison",
    "compare_with_rollout",
    "empirical_match_rows",
    "read_influence_csv",
    "read_measured_folder",
]

#: the largest data file (csv, record, config) read from a data folder
_MAX_DATA_BYTES = 256 * 2**20


def _summary(p: np.ndarray) -> dict:
    k = int(np.argmin(p))
    mn = float(p[k])

    def ratio(x):
        return float(x / mn) if mn > 0 else float("inf")

    return {"argmin": k + 1, "first_over_min": ratio(p[0]), "last_over_min": ratio(p[-1])}


@dataclass
class RolloutComparison:
    """Measured profile vs the rollout of its config (``rollout``) and attention only."""

    measured: np.ndarray
    rollout: np.ndarray
    attention_only: np.ndarray

    def metrics(self, q: np.ndarray) -> dict:
        return {"spearman": float(spearman(q, self.measured)),
                "w1": float(wasserstein1(q, self.measured)), **_summary(q)}

    def rows(self) -> list[tuple[str, dict[str, str]]]:
        """``(label, printed row)`` for measured, rollout and attention only (4 digits)."""
        def f(x: object) -> str:
            return figure_text(x, 4)

        out = [("measured", {"spearman": "-", "w1": "-",
                             **{k: f(v) for k, v in _summary(self.measured).items()}})]
        for label, q in (("rollout (measured lambda)", self.rollout),
                         ("attention only (lambda = 1)", self.attention_only)):
            out.append((label, {k: f(v) for k, v in self.metrics(q).items()}))
        return out

    def as_dict(self) -> dict:
        def r(x: float) -> float:
            return rounded(x, 7)

        return {
            "rollout": {k: (r(v) if isinstance(v, float) else v)
                        for k, v in self.metrics(self.rollout).items()},
            "attention_only": {k: (r(v) if isinstance(v, float) else v)
                               for k, v in self.metrics(self.attention_only).items()},
            "profile_rollout": [r(x) for x in self.rollout],
            "profile_attention_only": [r(x) for x in self.attention_only],
        }


def compare_with_rollout(measured: ArrayLike, config_text: str, *,
                         source: str = "<measured config>") -> RolloutComparison:
    """Compare a measured profile (length ``L``) with the rollout of ``config_text`` (a rollout
    config in the reference schema, read with the reference convention, at length ``L``)."""
    p = np.asarray(measured, dtype=float)
    cfg = parse_config(config_text, source=source, length=int(p.size))
    return RolloutComparison(p, np.asarray(cfg.profile()), np.asarray(cfg.attention_only().profile()))


def read_influence_csv(path: str) -> np.ndarray:
    """A ``position,influence`` csv as a normalised profile (positions consecutive from 0 or 1,
    finite influences >= 0 with a positive sum)."""
    text = read_text_bounded(path, _MAX_DATA_BYTES, "measured influence")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines or lines[0].replace(" ", "").lower() != "position,influence":
        raise InvalidArgument("measured influence", path, "a csv with header 'position,influence'")
    pos, vals = [], []
    for k, ln in enumerate(lines[1:], 2):
        parts = ln.split(",")
        if len(parts) != 2 or not re.fullmatch(r"\s*-?\d+\s*", parts[0]):
            raise InvalidArgument("measured influence", f"{path}:{k}", "rows 'position,influence'")
        # the reference code of herasimchyk2026 writes numpy scalars as np.float64(x)
        value = re.fullmatch(r"\s*(?:np\.float64\()?\s*([-+0-9.eE]+|nan|inf)\s*\)?\s*", parts[1])
        try:
            vals.append(float(value.group(1) if value else "x"))
        except ValueError:
            raise InvalidArgument("measured influence", f"{path}:{k}", "a number as influence") from None
        pos.append(int(parts[0]))
    if not pos or pos[0] not in (0, 1) or pos != list(range(pos[0], pos[0] + len(pos))):
        raise InvalidArgument("measured influence", path, "consecutive positions from 0 or 1")
    v = np.array(vals)
    if len(v) < 2 or not np.isfinite(v).all() or (v < 0).any() or not v.sum() > 0:
        raise InvalidArgument("measured influence", path,
                              "at least 2 finite influences >= 0 with a positive sum")
    return v / v.sum()


@dataclass
class MeasuredRecord:
    """One measured model of a data folder: ``name``, normalised ``profile``, the path of its
    rollout config (or None), ``stage`` (``pretrained``, ``step-0`` or ``unknown`` without a
    record) and the ``architecture`` key (or None)."""

    name: str
    profile: np.ndarray
    config: str | None
    stage: str
    architecture: tuple | None
    record: dict | None


def read_measured_folder(data_dir: str | None) -> list[MeasuredRecord]:
    """The measured models in ``data_dir/measured-influence`` (sorted by name; empty when the
    folder is absent)."""
    if not data_dir:
        return []
    folder = os.path.join(data_dir, "measured-influence")
    if not os.path.isdir(folder):
        return []
    out = []
    for f in sorted(os.listdir(folder)):
        if not f.endswith(".csv"):
            continue
        name = f[:-4]
        profile = read_influence_csv(os.path.join(folder, f))
        cfg = os.path.join(folder, name + ".yaml")
        rec_path = os.path.join(folder, name + ".measurement.json")
        record, stage, arch = None, "unknown", None
        if os.path.exists(rec_path):
            try:
                record = json.loads(read_text_bounded(rec_path, _MAX_DATA_BYTES, "measurement record"))
            except ValueError as exc:
                raise InvalidArgument("measurement record", rec_path, f"readable JSON ({exc})") from None
            except RecursionError:
                raise InvalidArgument("measurement record", rec_path, "JSON nested less "
                                      "deeply") from None
            if not isinstance(record, dict) or record.get("stage") not in ("pretrained", "step-0"):
                raise InvalidArgument("measurement record", rec_path,
                                      "a JSON object with stage 'pretrained' or 'step-0'")
            stage = record["stage"]
            a = record.get("architecture") or {}
            if not isinstance(a, dict):
                raise InvalidArgument("measurement record", rec_path,
                                      "an 'architecture' object (model_type, num_layers, ...)")
            arch = tuple(a.get(k) for k in ("model_type", "num_layers", "num_heads", "hidden_size"))
        out.append(MeasuredRecord(name, profile, cfg if os.path.exists(cfg) else None, stage, arch,
                                  record))
    return out


def empirical_match_rows(data_dir: str) -> list[dict]:
    """Per measured model with a config beside it: Spearman and W1 of the rollout and of the
    attention-only rollout against the measured profile, side by side (floats)."""
    rows = []
    for r in read_measured_folder(data_dir):
        if r.config is None:
            continue
        c = compare_with_rollout(r.profile, read_text_bounded(r.config, _MAX_DATA_BYTES, "config"),
                                 source=r.config)
        a, b = c.metrics(c.rollout), c.metrics(c.attention_only)
        rows.append({"name": r.name, "L": int(r.profile.size), "spearman": a["spearman"],
                     "w1": a["w1"], "spearman_attention_only": b["spearman"],
                     "w1_attention_only": b["w1"]})
    return rows
