"""Claims of wu2025 (temporary: the claims are being moved to one module each)."""

import importlib

MODULES = ("decay_mask", "causal_collapse", "sliding_window", "prefix")

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
importlib.import_module(f"{__name__}._legacy")
