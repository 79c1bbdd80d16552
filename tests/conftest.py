"""Test configuration: Hypothesis profiles ``dev`` (default, quick) and ``ci`` (derandomized,
more examples), chosen with the HYPOTHESIS_PROFILE environment variable."""

import importlib.util
import os
import pathlib
import sys

from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]

settings.register_profile("dev", max_examples=40, deadline=None)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# Shared test helpers live beside their tests; the test folders are not packages (pytest imports
# test files with --import-mode=importlib, so two folders may hold files of the same name), so
# each helper used from more than one test file is loaded here, once, under a fixed module name.
def _load_helper(name: str, relative: str):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, pathlib.Path(__file__).parent / relative)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


#: tiny causal-LM checkpoints of each family, saved with a trained tokenizer (no downloads)
_load_helper("posbias_tests_tiny_checkpoints", "measurements/tiny_checkpoints.py")
#: constructed Step-0 measurements for the claims decided on measured data
_load_helper("posbias_tests_step0_fakes", "proofs_checks/step0_fakes.py")
