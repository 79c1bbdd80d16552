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


def test_decay_mask_correction_is_stated():
    ev = run_claim(get_claim("wu2025:decay-mask"), CheckContext()).evidence
    assert ev.verdict == "qualified" and "C(t+k-1,k)" in ev.correction
    for row in ev.details["critical points"]:
        assert abs(row["k* measured"] - row["t/(e^m-1)"]) <= row["allowed shift"]


def test_u_shape_correction_names_the_reference_convention():
    ev = run_claim(get_claim("herasimchyk2026:u-shape-measured-schedules"), CheckContext()).evidence
    assert "reference" in ev.correction
    assert all(r["U-shaped"] for r in ev.details["configs"])


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


def test_four_forces_detects_a_reversed_force(monkeypatch):
    monkeypatch.setattr(hk, "alibi_propagate", lambda v, layer: v[::-1].copy())
    ev = hk.check_four_forces(CheckContext())
    assert ev.verdict == "refuted" and "causal depth" in ev.counterexample


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


def test_decay_mask_correction_names_the_t_dependent_factor():
    """The ratio to the stated form is (1-e^{-m})^t t/(t+k): checked in the evidence, and here
    against a dense mpmath rollout of one decay head (m = 1, t = 12, L = 40)."""
    import mpmath

    ev = run_claim(get_claim("wu2025:decay-mask"), CheckContext()).evidence
    assert "(1-e^{-m})^t" in ev.correction and "floor((t-e^m)/(e^m-1)) + 1" in ev.correction
    assert ev.details["k* = floor((t-e^m)/(e^m-1)) + 1 in every case"] is True
    assert mpmath.mpf(ev.details["max |(ratio to stated form) / ((1-e^-m)^t t/(t+k)) - 1|"]) < 1e-12
    with mpmath.workdps(30):
        m, t, L = mpmath.mpf(1), 12, 40
        q = mpmath.exp(-m)
        Z = [sum(q ** k for k in range(i + 1)) for i in range(L)]
        u = [mpmath.mpf(0)] * L
        u[-1] = mpmath.mpf(1)
        for _ in range(t):
            new = [mpmath.mpf(0)] * L
            for i in range(L):
                for j in range(i + 1):
                    new[j] += u[i] * q ** (i - j) / Z[i]
            u = new
        for k in (0, 5, 15):
            ratio = u[L - 1 - k] / (mpmath.binomial(t + k, k) * q ** k)
            assert abs(ratio / ((1 - q) ** t * t / (t + k)) - 1) < mpmath.mpf(10) ** -8  # e^{-m(L-k)}
        assert max(range(20), key=lambda k: u[L - 1 - k]) == 6  # floor(5.40) + 1


def test_decay_mask_is_not_qualified_with_a_wrong_critical_point(monkeypatch):
    orig = wu.alibi_rollout_precise

    def shifted(L, layers, lam, *, dps):
        p = orig(L, layers, lam, dps=dps)
        return p[1:] + [p[-1]]  # moves every bulk entry by one position

    monkeypatch.setattr(wu, "alibi_rollout_precise", shifted)
    assert wu.check_decay_mask(CheckContext()).verdict != "qualified"


def test_u_shape_correction_states_only_computed_conventions():
    ev = run_claim(get_claim("herasimchyk2026:u-shape-measured-schedules"), CheckContext()).evidence
    lowest = min(float(r["attention-only p(1)"]) for r in ev.details["configs"] if r["convention"] == "corrected")
    assert lowest > 0.9 and f"lowest {lowest:.3g}" in ev.correction
    # no rounded "1" for a p(1) that is not 1
    assert " 1 at 4T" not in ev.correction and "1 - p(1) =" in ev.correction
