"""Golden values: fresh exact profiles must equal the stored fractions exactly.

The stored file was produced by tests/data/golden/make_golden.py from two independent exact
routes; any change of a single digit in a profile is a regression of the exact path.
"""

import json
import os
from fractions import Fraction

import pytest

from posbias.numerics.cesaro import cesaro_profile_exact

HERE = os.path.dirname(__file__)
with open(os.path.join(HERE, "..", "data", "golden", "cesaro_profiles.json")) as fh:
    GOLDEN = json.load(fh)["cases"]


def test_golden_grid_is_complete():
    assert len(GOLDEN) == 80
    assert {c["schedule"] for c in GOLDEN} == {"const:1", "const:1/2", "power:1,2",
                                                "list:1/3,2/3,1/7,..."}


@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: f"{c['schedule']}-L{c['length']}-T{c['depth']}")
def test_profile_equals_golden(case):
    lams = [Fraction(x) for x in case["lambdas"]]
    fresh = cesaro_profile_exact(case["length"], lams)
    stored = [Fraction(x) for x in case["profile"]]
    assert fresh == stored
    assert sum(stored) == 1
