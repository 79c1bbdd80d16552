"""Test configuration: Hypothesis profiles ``dev`` (default, quick) and ``ci`` (derandomized,
more examples), chosen with the HYPOTHESIS_PROFILE environment variable (STYLE.md 8)."""

import os

pytest_plugins = ["pytester"]

from hypothesis import HealthCheck, settings

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
