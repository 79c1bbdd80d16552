"""Claims of herasimchyk2026 (temporary: the claims are being moved to one module each)."""

import importlib

MODULES: tuple[str, ...] = ()

importlib.import_module(f"{__name__}._legacy")
for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
