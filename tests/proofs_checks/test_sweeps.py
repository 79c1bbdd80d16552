"""Sweep specifications (proofs_checks.sweeps): grid expansion, validation naming the parameter,
and the quantities of a point against independent routes (exact Fractions, the rollout CLI's
own summary)."""

import math
from fractions import Fraction

import pytest

from posbias.errors import InvalidArgument
from posbias.numerics.cesaro import cesaro_profile_exact
from posbias.proofs_checks import sweeps


def _spec(**kw):
    base = {"command": "profile", "grid": {"alpha": [0.5], "depth": [2]}, "fixed": {"length": 8}}
    base.update(kw)
    return base


def test_grid_expansion_and_ranges():
    s = sweeps.parse_sweep(_spec(grid={"alpha": {"start": 0.05, "stop": 1, "num": 20},
                                       "depth": {"start": 1, "stop": 9, "step": 4}}))
    alphas = s.axes["alpha"]
    assert len(alphas) == 20 and alphas[2] == 0.15 and alphas[-1] == 1.0  # exact decimals
    assert s.axes["depth"] == [1, 5, 9]
    assert len(s.points) == 60 and s.points[0] == {"length": 8, "alpha": 0.05, "depth": 1}
    g = sweeps.parse_sweep(_spec(grid={"alpha": ["1/3", 1], "depth": {"start": 1, "stop": 100, "num": 3, "log": True}}))
    assert g.axes["alpha"] == [1 / 3, 1.0] and g.axes["depth"] == [1, 10, 100]
    assert g.columns[:3] == ["alpha", "depth", "length"] and "last_over_min" in g.columns


@pytest.mark.parametrize("spec, parameter", [
    ([1, 2], "spec"),
    ({"grid": {"alpha": [0.5]}}, "command"),
    (_spec(command="plot"), "command"),
    (_spec(colour="red"), "colour"),
    (_spec(grid={}), "grid"),
    (_spec(grid={"alpha": [0.5, 1.5], "depth": [1]}), "grid.alpha[1]"),
    (_spec(grid={"alpha": ["0.5; rm -rf /"], "depth": [1]}), "grid.alpha[0]"),
    (_spec(grid={"alpha": [0.5], "depth": [-1]}), "grid.depth[0]"),
    (_spec(grid={"alpha": [0.5], "depth": [True]}), "grid.depth[0]"),
    (_spec(grid={"alpha": [0.5], "depth": [2], "width": [3]}), "grid.width"),
    (_spec(grid={"alpha": [], "depth": [2]}), "grid.alpha"),
    (_spec(grid={"alpha": {"start": 0, "stop": 1}, "depth": [2]}), "grid.alpha"),
    (_spec(grid={"alpha": {"start": 0, "stop": 1, "num": 0}, "depth": [2]}), "grid.alpha.num"),
    (_spec(grid={"alpha": {"start": 0, "stop": 1, "num": 3, "by": 2}, "depth": [2]}), "grid.alpha.by"),
    (_spec(grid={"alpha": [0.5], "depth": {"start": 1, "stop": 10**7, "step": 1}}, fixed={"length": 8}), "grid.depth"),
    (_spec(grid={"alpha": [0.5]}, fixed={"length": 8}), "fixed.depth"),
    (_spec(fixed={}), "fixed.length"),
    (_spec(fixed={"length": 8, "depth": 3}), "fixed.depth"),
    (_spec(grid={"alpha": [0.5], "schedule": ["const:1/2"], "depth": [2]}), "grid"),
    (_spec(grid={"schedule": ["pow:1"], "depth": [2]}), "schedule"),
    (_spec(heatmap={"x": "alpha", "y": "width"}), "heatmap.y"),
    (_spec(heatmap={"x": "alpha", "y": "alpha"}), "heatmap.y"),
    (_spec(heatmap={"x": "alpha", "y": "depth", "values": ["peak"]}), "heatmap.values"),
    (_spec(grid={"alpha": [0.5, 1], "depth": [1, 2], "length": [4, 8]}, fixed={},
           heatmap={"x": "alpha", "y": "depth"}), "grid.length"),
    ({"command": "rollout", "grid": {"length": [8]}, "fixed": {"config": "x", "convention": "mine"}}, "convention"),
    ({"command": "measure", "grid": {"length": [8]}, "fixed": {"arch": "gpt2", "rope": "maybe"}}, "rope"),
])
def test_bad_specs_name_the_parameter(spec, parameter):
    with pytest.raises(InvalidArgument) as e:
        sweeps.parse_sweep(spec)
    assert e.value.parameter == parameter


@pytest.mark.parametrize("L, T, alpha", [(1, 3, Fraction(1, 2)), (6, 3, Fraction(1)), (9, 4, Fraction(1, 4)),
                                         (40, 7, Fraction(3, 4))])
def test_profile_point_against_the_exact_profile(L, T, alpha):
    r = sweeps.sweep_point("profile", {"length": L, "depth": T, "alpha": float(alpha)})
    p = cesaro_profile_exact(L, [alpha] * T)
    k = min(range(L), key=lambda j: (p[j], j))
    assert r["argmin"] == k + 1
    for key, exact in (("first_over_min", p[0] / p[k]), ("last_over_min", p[-1] / p[k]),
                       ("first", p[0]), ("min", p[k])):
        assert math.isclose(r[key], float(exact), rel_tol=(8 * T + 16) * 2.0**-52)
    assert math.isclose(r["log10_last_over_min"], math.log10(p[-1] / p[k]), rel_tol=1e-12, abs_tol=1e-13)


def test_profile_point_keeps_ratios_beyond_float64_in_log10():
    # alpha = 1, H = 64, L = 512: p(1)/p(L) is near 10^160 and p(L) = 512^-64 ~ 1e-173
    r = sweeps.sweep_point("profile", {"length": 512, "depth": 64, "alpha": 1.0})
    assert r["argmin"] == 512 and math.isclose(r["log10_min"], -64 * math.log10(512), rel_tol=1e-12)
    assert 150 < r["log10_first_over_min"] < 200 and r["last_over_min"] == 1.0


def test_schedule_points():
    r = sweeps.sweep_point("profile", {"length": 16, "schedule": "const:1/2", "depth": 3})
    q = sweeps.sweep_point("profile", {"length": 16, "alpha": 0.5, "depth": 3})
    assert r == q


def test_rollout_point_matches_the_rollout_summary():
    from posbias.cli.rollout import compute_rollout
    from posbias.numerics.configs import load_config
    from posbias.proofs_checks.data import builtin_config_path

    r = sweeps.sweep_point("rollout", {"config": "no_content/bloom-7b1", "length": 64})
    ref = compute_rollout(load_config(builtin_config_path("no_content/bloom-7b1"), length=64))
    for k, v in ref["summary"].items():
        assert r[k] == v
    assert r["w1_attention_only"] == ref["w1_attention_only"]
    with pytest.raises(InvalidArgument) as e:
        sweeps.sweep_point("rollout", {"config": "no_such/model"})
    assert e.value.parameter == "config"


@pytest.mark.slow  # builds and differentiates a tiny model twice (a few CPU seconds)
def test_measure_point_matches_the_measurement_it_names():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from posbias.measurements import measure as ms
    from posbias.proofs_checks import measured as mc

    r = sweeps.sweep_point("measure", {"arch": "tiny-qwen2", "length": 12, "probes": 2, "seed": 3, "rope": "off"})
    m = ms.measure_influence("tiny-qwen2", length=12, probes=2, seed=3, rope=False)
    c = mc.compare_with_theory(m)
    assert r["first_over_min"] == c.measured["first_over_min"] and r["argmin"] == c.measured["argmin"]
    assert r["best_alpha"] == c.best_alpha and r["w1_measured_lambda"] == c.w1_measured_lambda
