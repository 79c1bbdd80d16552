"""Built-in claims; each module registers its claims on import (one module per family)."""

import importlib
import pkgutil

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")



