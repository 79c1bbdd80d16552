"""Claims of posbias (temporary: the claims are being moved to one module each)."""

import importlib

MODULES: tuple[str, ...] = ()

for _name in MODULES:
    importlib.import_module(f"{__name__}.{_name}")
importlib.import_module(f"{__name__}._legacy")
