"""chowdhury2026:u-persists-pretrained (C10): on constructed folders of measured influence,
every verdict its rule allows; the paper's picture verified at the paper's architecture;
needs-data without a Step-0 pair."""

import numpy as np
from posbias_tests_chowdhury2026_fakes import (
    ARCH,
    QWEN2,
    L,
    decreasing_profile,
    u_profile,
    verdict,
    write,
)

from posbias.proofs_checks.claims.chowdhury2026._pretrained import one_side
from posbias.proofs_checks.claims.chowdhury2026.u_persists_pretrained import RULE, _up
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

U = "chowdhury2026:u-persists-pretrained"


def test_reaches_every_verdict(tmp_path):
    assert verdict(U, None).verdict == "needs-data"
    only_step0 = tmp_path / "s"
    only_step0.mkdir()
    write(only_step0, "m-step0", u_profile(100), stage="step-0")
    write(only_step0, "unrecorded", u_profile(100), stage=None)
    ev = verdict(U, only_step0)
    assert ev.verdict == "needs-data" and ev.details["skipped"]

    good = tmp_path / "v"
    good.mkdir()
    write(good, "m", u_profile(1000))
    ev = verdict(U, good)  # no Step-0 pair: persistence cannot be tested
    assert ev.verdict == "needs-data" and ev.details["unpaired"] == ["m"]
    write(good, "m-step0", u_profile(100), stage="step-0")
    ev = verdict(U, good)
    assert ev.verdict == "verified" and len(ev.figures["pairs"]) == 1

    qual = tmp_path / "q"
    qual.mkdir()
    write(qual, "m", u_profile(1000))
    write(qual, "m-step0", decreasing_profile(100), stage="step-0")
    ev = verdict(U, qual)
    assert ev.verdict == "qualified" and "m-step0" in ev.correction
    write(qual, "m-step0", decreasing_profile(100), stage="step-0",
          arch=dict(ARCH, num_layers=3))                    # another architecture: not paired
    assert verdict(U, qual).verdict == "needs-data"

    bad = tmp_path / "r"
    bad.mkdir()
    write(bad, "b", decreasing_profile(1000))
    write(bad, "b-step0", u_profile(100), stage="step-0")
    ev = verdict(U, bad)
    assert ev.verdict == "refuted" and "b:" in ev.counterexample
    # the factor 2 of the rule: ends at 1.9 x the valley are not a U
    weak = tmp_path / "w"
    weak.mkdir()
    write(weak, "m-step0", u_profile(100), stage="step-0")
    p = np.full(L, 1.0)
    p[: L // 8] = p[-L // 8:] = 1.9
    write(weak, "m", p)
    assert verdict(U, weak).verdict == "refuted"
    p[: L // 8] = p[-L // 8:] = 2.1
    write(weak, "m", p)
    assert verdict(U, weak).verdict == "verified"


# ------------------------------------------------------------------ at the paper's architecture
def test_the_papers_picture_is_verified_at_the_papers_architecture(tmp_path):
    write(tmp_path, "qwen2", u_profile(1000.0, L=256), "pretrained", arch=QWEN2)
    write(tmp_path, "qwen2-step0", u_profile(100.0, L=256), "step-0", arch=QWEN2)
    r = run_claim(get_claim(U), CheckContext(data_dir=str(tmp_path)))
    assert r.evidence.verdict == "verified" and "error" not in r.evidence.details
    assert r.card["test"].values["models"] == "Qwen2-0.5B (24 layers)"


def test_refuted_when_pretraining_fills_the_valley(tmp_path):
    # pretraining fills the valley: a monotone primacy profile after training
    write(tmp_path, "m", np.geomspace(1000.0, 1.0, 256), "pretrained", arch=QWEN2)
    write(tmp_path, "m-step0", u_profile(100.0, L=256), "step-0", arch=QWEN2)
    assert verdict(U, tmp_path).verdict == "refuted"


def test_persistence_untestable_without_a_step0_pair(tmp_path):
    write(tmp_path, "m", u_profile(1000.0, L=256), "pretrained", arch=QWEN2)
    assert verdict(U, tmp_path).verdict == "needs-data"


def test_a_pretrained_u_only_through_the_final_token_is_refuted():
    """The rule reads its figures with and without the final token: a property that exists only
    through the final token's self-influence is absent.  Read with the final token alone (the
    rule's first reading), the same figures are verified."""
    f = {"pairs": [_up((40.0, 60.0), (10.0, 30.0), (40.0, 1.0))]}
    assert RULE.decide(one_side(f, "with"), RULE.values()) == "verified"
    assert RULE.decide(f, RULE.values()) == "refuted"


def test_a_measured_pretrained_u_made_by_the_final_token_alone(tmp_path):
    """A measured pretrained profile that decreases to its last position but one, with a
    final token 100 x its neighbour (a recency atom): a U with the final token, none without
    it.  The check reads both, refutes, and says that the final token alone decides."""
    p = np.geomspace(1000.0, 1.0, 256)
    p[-1] = 100.0
    write(tmp_path, "m", p, "pretrained", arch=QWEN2)
    write(tmp_path, "m-step0", u_profile(100.0, L=256), "step-0", arch=QWEN2)
    ev = verdict(U, tmp_path)
    assert ev.verdict == "refuted"
    assert ev.details["final_token"]["decided_by_final_token"]
    assert ev.details["final_token"]["verdict_with_final"] == "verified"
    assert "a U after pretraining only through the final token in m" in ev.counterexample
