"""chowdhury2026:peak-valley-pretrained (C10): on constructed folders of measured influence,
every verdict its rule allows, the band's edges included; the paper's picture verified at the
paper's architecture; refuted when R shrinks; needs-data without a Step-0 pair."""

import numpy as np
import pytest
from posbias_tests_chowdhury2026_fakes import QWEN2, u_profile, verdict, write

from posbias.proofs_checks.claims.chowdhury2026._pretrained import one_side
from posbias.proofs_checks.claims.chowdhury2026.peak_valley_pretrained import RULE, _pvp
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

PV = "chowdhury2026:peak-valley-pretrained"


def test_reaches_every_verdict(tmp_path):
    assert verdict(PV, None).verdict == "needs-data"
    folder = tmp_path / "d"
    folder.mkdir()
    write(folder, "m", u_profile(1000))
    ev = verdict(PV, folder)  # no Step-0 pair: growth cannot be tested
    assert ev.verdict == "needs-data" and "growth" in ev.method
    write(folder, "m-step0", u_profile(100), stage="step-0")
    ev = verdict(PV, folder)
    assert ev.verdict == "verified" and ev.figures["pairs"][0]["R_pretrained"] == 1000
    write(folder, "m-step0", u_profile(2000), stage="step-0")       # R shrinks
    ev = verdict(PV, folder)
    assert ev.verdict == "refuted" and "2000" in ev.counterexample
    write(folder, "m-step0", u_profile(500), stage="step-0")        # grows by 2 only
    assert verdict(PV, folder).verdict == "qualified"
    write(folder, "m-step0", u_profile(100), stage="step-0")
    for ratio, expected in ((10 ** 2.49, "refuted"), (10 ** 2.51, "verified"),
                            (10 ** 3.49, "verified"), (10 ** 3.51, "refuted"), (50, "refuted")):
        write(folder, "m", u_profile(ratio))
        assert verdict(PV, folder).verdict == expected, ratio


# ------------------------------------------------------------------ at the paper's architecture
def test_the_papers_picture_is_verified_at_the_papers_architecture(tmp_path):
    write(tmp_path, "qwen2", u_profile(1000.0, L=256), "pretrained", arch=QWEN2)
    write(tmp_path, "qwen2-step0", u_profile(100.0, L=256), "step-0", arch=QWEN2)
    r = run_claim(get_claim(PV), CheckContext(data_dir=str(tmp_path)))
    assert r.evidence.verdict == "verified" and "error" not in r.evidence.details
    assert r.card["test"].values["models"] == "Qwen2-0.5B (24 layers)"


def test_refuted_when_r_shrinks(tmp_path):
    # R shrinks with training (2000 at Step 0, 1000 after)
    write(tmp_path, "m", u_profile(1000.0, L=256), "pretrained", arch=QWEN2)
    write(tmp_path, "m-step0", u_profile(2000.0, L=256), "step-0", arch=QWEN2)
    ev = verdict(PV, tmp_path)
    assert ev.verdict == "refuted" and "R_N / R_0 = 0.5" in ev.counterexample


def test_growth_untestable_without_a_step0_pair(tmp_path):
    write(tmp_path, "m", u_profile(1000.0, L=256), "pretrained", arch=QWEN2)
    assert verdict(PV, tmp_path).verdict == "needs-data"


def test_growth_to_1e3_only_through_the_final_token_is_refuted():
    """The rule reads its figures with and without the final token: a property that exists only
    through the final token's self-influence is absent.  Read with the final token alone (the
    rule's first reading), the same figures are verified."""
    f = _pvp(1000.0, 100.0, 150.0)
    assert RULE.decide(one_side(f, "with"), RULE.values()) == "verified"
    assert RULE.decide(f, RULE.values()) == "refuted"


def test_r_grown_to_1e3_by_the_final_token_alone(tmp_path):
    """A measured pretrained profile whose R reaches 10^3 only through its final token (R about
    10^1.5 without it): the check reads R both ways, refutes, and says that the final token
    alone decides."""
    p = np.geomspace(30.0, 1.0, 256)
    p[-1] = 1000.0
    write(tmp_path, "m", p, "pretrained", arch=QWEN2)
    write(tmp_path, "m-step0", u_profile(100.0, L=256), "step-0", arch=QWEN2)
    ev = verdict(PV, tmp_path)
    pair = ev.figures["pairs"][0]
    assert pair["R_pretrained"] == pytest.approx(1000.0 / 30 ** (1 / 255), rel=1e-3)
    assert pair["without_final"]["R_pretrained"] == pytest.approx(30 ** (254 / 255), rel=1e-3)
    assert ev.verdict == "refuted" and ev.details["final_token"]["decided_by_final_token"]
    assert "the final token decides" in ev.counterexample
