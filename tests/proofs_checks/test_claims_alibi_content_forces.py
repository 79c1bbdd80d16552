"""The ALiBi/content claims: verdicts as computed, and that each check can fail."""

import numpy as np
import pytest

from posbias.numerics.configs import load_config
from posbias.proofs_checks.data import builtin_config_path
from posbias.proofs_checks.claims import herasimchyk2026 as hk
from posbias.proofs_checks.claims import posbias as pb
from posbias.proofs_checks.claims import wu2025 as wu
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

IDS = [
    "herasimchyk2026:alibi-recency",
    "herasimchyk2026:content-diagonal",
    "posbias:content-as-residual",
    "posbias:alibi-linear-time",
    "wu2025:decay-mask",
    "herasimchyk2026:u-shape-measured-schedules",
    "herasimchyk2026:four-forces-configs",
    "herasimchyk2026:empirical-match",
]


@pytest.mark.parametrize("cid", IDS)
def test_verdict_equals_expected(cid):
    c = get_claim(cid)
    r = run_claim(c, CheckContext())
    ev = r.evidence
    assert "error" not in ev.details, ev.details
    if cid.endswith("empirical-match"):
        assert ev.verdict == "needs-data" and "format" in ev.details
    else:
        assert ev.verdict == c.expected, ev.as_dict()
    assert c.latex_text and "\\" in c.latex_text
    if not cid.startswith("posbias:"):  # the claims of herasimchyk2026 and wu2025 state their rule
        assert "rule" in ev.details and ev.details["rule"]


def test_decay_mask_is_verified_with_t_plus_one_layers():
    ev = run_claim(get_claim("wu2025:decay-mask"), CheckContext()).evidence
    assert ev.verdict == "verified" and "rule" in ev.details and ev.correction is None
    for row in ev.details["critical points"]:
        assert row["k* measured"] == row["floor(t/(e^m-1))"]
    for row in ev.details["cases"]:
        assert row["layers"] == row["t"] + 1
    assert ev.details["k* = floor(t/(e^m-1)) in every case"] is True


def test_u_shape_is_refuted_by_the_valley_position_of_bloom_with_content():
    """The U rule (valley in L/10 < j* <= 9L/10, ends >= 2x the valley) was fixed before
    computing; BLOOM-7b1 with content (reference convention) has its valley at 24/256."""
    ev = run_claim(get_claim("herasimchyk2026:u-shape-measured-schedules"), CheckContext()).evidence
    assert ev.verdict == "refuted" and "all_content/bloom-7b1" in ev.counterexample
    assert "valley at 24" in ev.counterexample and "L/10" in ev.details["rule"].replace("0.1L", "L/10")
    bad = [r for r in ev.details["configs"] if not r["U-shaped"]]
    assert [(r["config"], r["convention"]) for r in bad] == [("all_content/bloom-7b1", "reference")]
    # the paper's attention-only comparison (ALiBi, no content): p(1) = 0.991 (BLOOM), 0.996 (MPT)
    p1 = {r["config"].split("/")[1]: float(r["p(1)"])
          for r in ev.details["attention-only, no content (the paper's comparison)"]}
    assert round(p1["bloom-7b1"], 3) == 0.991 and round(p1["mpt-7b"], 3) == 0.996
    # the content variant is reported separately and does not decide the verdict
    obs = ev.details["observation: attention-only with content (not the paper's comparison)"]
    assert {r["convention"]: r["collapses"] for r in obs if r["config"] == "all_content/mpt-7b"} == {
        "reference": False, "corrected": True}


def test_u_shape_rule_on_synthetic_profiles():
    L = 100
    j = np.arange(1, L + 1)
    u = 1 + 3 * ((j - 50) / 50.0) ** 2
    r = hk.u_shape(u / u.sum())
    assert r["U-shaped"] and r["argmin"] == 50
    skewed = np.where(j < 5, 10.0, 1 + 3 * ((j - 5) / 95.0) ** 2)  # valley at 5 <= L/10
    assert not hk.u_shape(skewed)["U-shaped"] and hk.u_shape(skewed)["ends >= 2 x valley"]
    shallow = 1 + 0.5 * ((j - 50) / 50.0) ** 2  # ends only 1.5x the valley
    assert not hk.u_shape(shallow)["U-shaped"] and hk.u_shape(shallow)["valley in the middle"]


def test_u_shape_verdicts_are_reachable(monkeypatch):
    # verified: the no-content configs pass the U rule and the collapse rule in both conventions
    monkeypatch.setattr(hk, "_MEASURED", ("no_content/bloom-7b1", "no_content/mpt-7b"))
    assert hk.check_u_shape(CheckContext()).verdict == "verified"
    # qualified: a world in which only the corrected convention loses its residual stream
    orig = hk._load
    monkeypatch.setattr(hk, "_load", lambda name, conv: orig(name, conv).attention_only()
                        if conv == "corrected" else orig(name, conv))
    ev = hk.check_u_shape(CheckContext())
    assert ev.verdict == "qualified" and "corrected" in ev.correction


def test_alibi_recency_detects_a_reversed_order(monkeypatch):
    orig = hk._build
    monkeypatch.setattr(hk, "_build", lambda layers, slope_factor=1.0, **kw: orig(layers, slope_factor=1 / slope_factor, **kw))
    ev = hk.check_alibi_recency(CheckContext())
    assert ev.verdict == "refuted" and ev.counterexample


def test_content_diagonal_detects_a_sign_flip(monkeypatch):
    orig = hk._build
    monkeypatch.setattr(hk, "_build", lambda layers, diag=None, **kw: orig(
        layers, diag=None if diag is None else (lambda d: -diag(d)), **kw))
    assert hk.check_content_diagonal(CheckContext()).verdict == "refuted"


def test_linear_time_detects_a_wrong_recurrence(monkeypatch):
    orig = pb.alibi_propagate_precise

    def wrong(v, layer, *, dps, count_ops=False):
        out = orig(v, layer, dps=dps, count_ops=count_ops)
        if count_ops:
            return out
        return [x * (1 + (k == 1) * 1e-12) for k, x in enumerate(out)]

    monkeypatch.setattr(pb, "alibi_propagate_precise", wrong)
    assert pb.check_alibi_linear_time(CheckContext()).verdict == "refuted"


def test_content_as_residual_detects_a_wrong_gamma(monkeypatch):
    orig = pb.alibi_kernel_dense_precise

    def shifted(L, layer, *, dps, base=0):
        A = orig(L, layer, dps=dps, base=base)
        if layer.diagonal[0] != 0:  # perturb A(d) only
            A[-1][-1] *= 1 + 1e-9
        return A

    monkeypatch.setattr(pb, "alibi_kernel_dense_precise", shifted)
    assert pb.check_content_as_residual(CheckContext()).verdict == "refuted"


def test_four_forces_causal_depth_is_the_output_side(monkeypatch):
    ev = run_claim(get_claim("herasimchyk2026:four-forces-configs"), CheckContext()).evidence
    assert ev.verdict == "verified" and "output side" in ev.details["rule"]
    for row in ev.details["margins"]:
        assert float(row["causal depth"]) > 0
        assert float(row["observation: max monotonicity defect of the layers (L = 64)"]) < 1e-12
    # refuted in a world with a non-monotone layer: token L reads token 2 while token 2 reads
    # itself, on top of a layer in which token L reads token 1 (adding the top layer moves mass later)
    monkeypatch.setattr(hk, "_MEASURED", ("no_content/mpt-7b",))
    monkeypatch.setattr(hk, "depth_profiles", lambda cfg: [np.eye(cfg.length)[0], np.eye(cfg.length)[1]])
    ev = hk.check_four_forces(CheckContext())
    assert ev.verdict == "refuted" and "causal depth (depth 1 -> 2)" in ev.counterexample


def test_output_side_margin_needs_monotone_kernels():
    from fractions import Fraction as F

    from posbias.numerics.kernels import rollout_last_row_exact

    nonmono = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(1), F(0), F(0)]]  # token 3 reads token 1
    read2 = [[F(1), F(0), F(0)], [F(0), F(1), F(0)], [F(0), F(1), F(0)]]  # token 3 reads token 2
    profiles = [np.array([float(x) for x in rollout_last_row_exact(ks, [F(1)] * len(ks))])
                for ks in ([nonmono], [nonmono, read2])]
    assert hk.output_side_margin(profiles)[0] < 0  # e_1 then e_2: mass moved later
    cfg = load_config(builtin_config_path("no_content/mpt-7b"))
    assert hk.output_side_margin(hk.depth_profiles(cfg))[0] > 0


def test_empirical_match_with_measurements(tmp_path):
    folder = tmp_path / "measured-influence"
    folder.mkdir()
    p = load_config(builtin_config_path("all_content/bloom-7b1")).profile()
    rng = np.random.default_rng(0)
    noisy = p * (1 + 0.01 * rng.random(p.size))
    (folder / "bloom-7b1.csv").write_text("position,influence\n" + "\n".join(f"{j},{float(x)!r}" for j, x in enumerate(noisy)))
    ev = hk.check_empirical_match(CheckContext(data_dir=str(tmp_path)))
    assert ev.verdict == "verified" and ev.details["models"][0]["match"]
    (folder / "bloom-7b1.csv").write_text("position,influence\n" + "\n".join(f"{j},np.float64({float(x)!r})" for j, x in enumerate(p[::-1])))
    assert hk.check_empirical_match(CheckContext(data_dir=str(tmp_path))).verdict == "refuted"


def test_empirical_match_needs_data_and_rejects_bad_files(tmp_path):
    assert hk.check_empirical_match(CheckContext(data_dir=str(tmp_path))).verdict == "needs-data"
    folder = tmp_path / "measured-influence"
    folder.mkdir()
    (folder / "x.csv").write_text("pos,val\n0,1\n")
    r = run_claim(get_claim("herasimchyk2026:empirical-match"), CheckContext(data_dir=str(tmp_path)))
    assert r.evidence.verdict == "inconclusive" and "position,influence" in r.evidence.details["error"]


def test_config_claims_need_the_yaml_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ruamel.yaml", None)
    monkeypatch.setitem(sys.modules, "ruamel", None)
    for check in (hk.check_u_shape, hk.check_four_forces):
        ev = check(CheckContext())
        assert ev.verdict == "needs-data" and "yaml" in ev.details["missing"]


def test_decay_mask_bulk_value_by_an_independent_dense_rollout():
    """wu2025's P(t) = A(t)...A(0) has t + 1 layers: a dense mpmath rollout of one decay head
    (m = 1, t = 12, L = 40) gives (1-e^{-m})^{t+1} C(t+k,k) e^{-km} in the bulk, the maximiser
    floor(t/(e^m-1)) = 6, and k-free bounds [(1-e^{-m})^{t+1}, 1] at every k."""
    import mpmath

    with mpmath.workdps(30):
        m, t, L = mpmath.mpf(1), 12, 40
        q = mpmath.exp(-m)
        Z = [sum(q ** k for k in range(i + 1)) for i in range(L)]
        u = [mpmath.mpf(0)] * L
        u[-1] = mpmath.mpf(1)
        for _ in range(t + 1):
            new = [mpmath.mpf(0)] * L
            for i in range(L):
                for j in range(i + 1):
                    new[j] += u[i] * q ** (i - j) / Z[i]
            u = new
        lo = (1 - q) ** (t + 1)
        for k in range(L):
            ratio = u[L - 1 - k] / (mpmath.binomial(t + k, k) * q ** k)
            assert lo * (1 - mpmath.mpf(10) ** -25) <= ratio <= 1
            if k in (0, 5, 15):
                assert abs(ratio / lo - 1) < mpmath.mpf(10) ** -8  # e^{-m(L-k)} corrections
        assert max(range(20), key=lambda k: u[L - 1 - k]) == 6  # floor(12 / (e - 1)) = floor(6.98)
        # the same numbers from the package's X5 route
        p = wu.decay_mask_profile(L, 1.0, t, 30)
        assert max(abs(a - b) for a, b in zip(p, u)) < mpmath.mpf(10) ** -25


def test_decay_mask_is_refuted_with_t_layers(monkeypatch):
    """The off-by-one reading (t layers) has ratio t/(t+k) (1-e^{-m})^t: no k-free lower bound."""
    orig = wu.alibi_rollout_precise
    monkeypatch.setattr(wu, "alibi_rollout_precise", lambda L, layers, lam, *, dps: orig(L, layers[1:], lam, dps=dps))
    ev = wu.check_decay_mask(CheckContext())
    assert ev.verdict == "refuted" and "outside [(1-e^-m)^(t+1), 1]" in ev.counterexample


def test_decay_mask_is_refuted_with_a_wrong_critical_point(monkeypatch):
    orig = wu.alibi_rollout_precise

    def shifted(L, layers, lam, *, dps):
        p = orig(L, layers, lam, dps=dps)
        return p[3:] + p[-3:]  # moves every bulk entry by three positions

    monkeypatch.setattr(wu, "alibi_rollout_precise", shifted)
    assert wu.check_decay_mask(CheckContext()).verdict == "refuted"


def test_decay_mask_is_inconclusive_when_the_bulk_misses_its_constant(monkeypatch):
    import mpmath

    orig = wu.alibi_rollout_precise

    def perturbed(L, layers, lam, *, dps):
        p = orig(L, layers, lam, dps=dps)
        p[L - 3] *= 1 + mpmath.mpf(10) ** -15  # inside the Θ bounds, outside the bulk tolerance
        return p

    monkeypatch.setattr(wu, "alibi_rollout_precise", perturbed)
    ev = wu.check_decay_mask(CheckContext())
    assert ev.verdict == "inconclusive" and "raise --dps" in ev.details["reason"]
