"""Claims of wu2025 (temporary: the claims are being moved to one module each)."""

import importlib

MODULES = (
    "decay_mask",
    "causal_collapse",
    "sliding_window",
    "prefix",
    "trained_causal_primacy",
    "trained_decay_recency",
    "trained_rope_tradeoff",
    "trained_causal_primacy_residual",
    "trained_decay_residual",
    "trained_rope_residual",
)

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
importlib.import_module(f"{__name__}._legacy")
