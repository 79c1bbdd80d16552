"""herasimchyk2026:four-forces-configs: the verdict on every residual config as computed, the
output-side margin (which needs monotone kernels), and the check's power against a non-monotone
layer on top and against each force claimed with the other sign."""

from __future__ import annotations

import numpy as np
import pytest
from posbias_tests_herasimchyk2026 import assert_verdict_equals_expected, through_registry

from posbias.numerics.configs import load_config
from posbias.proofs_checks.claims.herasimchyk2026 import _shared, four_forces_configs
from posbias.proofs_checks.data import builtin_config_path
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

check = four_forces_configs.check


def test_verdict_equals_expected():
    assert_verdict_equals_expected("four-forces-configs")


def test_four_forces_on_every_residual_config(monkeypatch):
    r = run_claim(get_claim("herasimchyk2026:four-forces-configs"), CheckContext())
    ev = r.evidence
    assert ev.verdict == "verified" and "output side" in ev.details["rule"] and r.scope == "paper"
    rows = ev.details["margins"]
    assert len(rows) == 50  # 25 residual configs x 2 conventions
    for row in rows:
        assert row["causal depth"] > 0 and row["residual"] > 0
        assert row["observation: max monotonicity defect of the layers (L = 64)"] < 1e-12
    content = [row for row in rows if not row["config"].startswith("no_content/")]
    assert len(content) == 40 and all("content d+" in row and "content d-" in row for row in content)
    # refuted in a world with a non-monotone layer: token L reads token 2 while token 2 reads
    # itself, on top of a layer in which token L reads token 1 (adding the top layer moves mass later)
    monkeypatch.setattr(_shared, "stored_rows", dict)
    monkeypatch.setattr(_shared, "depth_profiles", lambda cfg: [np.eye(cfg.length)[0], np.eye(cfg.length)[1]])
    ev = check(CheckContext(), names=("no_content/mpt-7b",))
    assert ev.verdict == "refuted" and "causal depth (earlier): margin -1 at k=1, depth 1 -> 2" in ev.counterexample


def test_output_side_margin_needs_monotone_kernels():
    from fractions import Fraction as F

    from posbias.numerics.kernels import rollout_last_row_exact

    nonmono = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(1), F(0), F(0)]]  # token 3 reads token 1
    read2 = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(0), F(1), F(0)]]  # token 3 reads token 2
    profiles = [np.array([float(x) for x in rollout_last_row_exact(ks, [F(1)] * len(ks))])
                for ks in ([nonmono], [nonmono, read2])]
    assert four_forces_configs.output_side_margin(profiles)[0] < 0  # e_1 then e_2: mass moved later
    cfg = load_config(builtin_config_path("no_content/mpt-7b"))
    assert four_forces_configs.output_side_margin(_shared.depth_profiles(cfg))[0] > 0


def test_the_claim_needs_the_yaml_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ruamel.yaml", None)
    monkeypatch.setitem(sys.modules, "ruamel", None)
    ev = check(CheckContext())
    assert ev.verdict == "needs-data" and "yaml" in ev.details["missing"]


@pytest.mark.parametrize("force", ["residual", "alibi", "content d+", "content d-", "causal depth"])
def test_four_forces_refute_each_force_with_the_other_sign(force):
    other = {"later": "earlier", "earlier": "later"}[four_forces_configs.FORCE_DIRECTIONS[force]]
    # the residual force on every config (live and stored); the others on two configs of the
    # stored run (the same computation, read back), to keep the test short
    names = None if force == "residual" else ("all_content/dclm/mpt-7b", "all_content/wikipedia/bloom")
    r = through_registry("four-forces-configs", check, names=names, directions={force: other})
    ev = r.evidence
    assert ev.verdict == "refuted" and "error" not in ev.details
    assert ev.figures["worst margin by force (claimed direction)"][force] < 0
    assert f" {force} ({other})" in ev.counterexample
