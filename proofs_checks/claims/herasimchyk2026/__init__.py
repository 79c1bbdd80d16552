"""Claims of herasimchyk2026 (temporary: the claims are being moved to one module each)."""

import importlib

MODULES: tuple[str, ...] = ("stochastic", "primacy_drift", "recency_drift", "diagonal_positive", "dichotomy",
                             "constant_residual_collapse", "alibi_recency", "content_diagonal")

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
importlib.import_module(f"{__name__}._legacy")
