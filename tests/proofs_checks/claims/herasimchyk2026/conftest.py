"""The tests of herasimchyk2026's claims share helpers (running a check through the registry,
the assertions every exact check meets, generated monotone kernels): they live in helpers.py,
loaded here once under the fixed name ``posbias_tests_herasimchyk2026`` (the test files are
imported by path and cannot import each other)."""

import importlib.util
import pathlib
import sys

_NAME = "posbias_tests_herasimchyk2026"

if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, pathlib.Path(__file__).parent / "helpers.py")
    _module = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _module
    _spec.loader.exec_module(_module)
