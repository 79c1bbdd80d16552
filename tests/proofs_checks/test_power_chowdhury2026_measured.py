"""Power of the measured claims of chowdhury2026 (C1, C7-C10 and the C10/C11 proxies), at the
claim level: each check function is fed the paper's own figures where it reports any and
plausible false versions of the claim, through its real computation, and gives the verdict its
rule allows; the discriminating figures (the averaged kernel for C1, the alternatives for C9)
decide where the old figures could not."""

import json

import numpy as np

from posbias.proofs_checks.claims.chowdhury2026 import _legacy as cd
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


def _u(ratio_first, ratio_last):
    """A profile with p(1)/min = ratio_first and p(L)/min = ratio_last at every length."""
    def prof(arch, L, seed, s):
        p = np.ones(L)
        p[0], p[-1] = ratio_first, ratio_last
        return p
    return prof


# --------------------------------------------------------------------------- C10 pretrained
def _write(folder, name, profile, stage):
    d = folder / "measured-influence"
    d.mkdir(exist_ok=True)
    rows = ["position,influence"] + [f"{j},{float(v)!r}" for j, v in enumerate(profile, 1)]
    (d / f"{name}.csv").write_text("\n".join(rows) + "\n")
    arch = {"model_type": "qwen2", "num_layers": 24, "num_heads": 14, "hidden_size": 896}
    (d / f"{name}.measurement.json").write_text(json.dumps({"stage": stage, "architecture": arch}))


def _u_profile(peak, L=256):
    p = np.ones(L)
    p[: L // 8] = p[-L // 8:] = 10.0
    p[0] = p[-1] = peak
    return p


def _run(cid, folder):
    return run_claim(get_claim(cid), CheckContext(data_dir=str(folder))).evidence


def test_c10_the_papers_picture_is_verified_at_the_papers_architecture(tmp_path):
    _write(tmp_path, "qwen2", _u_profile(1000.0), "pretrained")
    _write(tmp_path, "qwen2-step0", _u_profile(100.0), "step-0")
    for cid in ("chowdhury2026:peak-valley-pretrained",):
        r = run_claim(get_claim(cid), CheckContext(data_dir=str(tmp_path)))
        assert r.evidence.verdict == "verified" and "error" not in r.evidence.details
        assert r.card["test"].values["models"] == "Qwen2-0.5B (24 layers)"


def test_c10_false_versions_refuted(tmp_path):
    shrink = tmp_path / "shrink"
    shrink.mkdir()
    # R shrinks with training (2000 at Step 0, 1000 after)
    _write(shrink, "m", _u_profile(1000.0), "pretrained")
    _write(shrink, "m-step0", _u_profile(2000.0), "step-0")
    ev = _run("chowdhury2026:peak-valley-pretrained", shrink)
    assert ev.verdict == "refuted" and "R_N / R_0 = 0.5" in ev.counterexample


def test_c10_persistence_and_growth_untestable_without_a_step0_pair(tmp_path):
    _write(tmp_path, "m", _u_profile(1000.0), "pretrained")
    for cid in ("chowdhury2026:peak-valley-pretrained",):
        assert _run(cid, tmp_path).verdict == "needs-data"


# ---------------------------------------------------------------------- C10/C11 proxies
def test_proxies_are_their_own_scope_and_say_what_they_test():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).with_name("test_claims_chowdhury2026_trained_lm.py")
    spec = importlib.util.spec_from_file_location("posbias_tests_trained_lm", path)
    lm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lm)
    IDS, U, doc, flat = lm.IDS, lm.U, lm.doc, lm.flat

    for cid in IDS:
        r = run_claim(get_claim(cid))
        assert r.scope == "proxy" and r.evidence.verdict == r.expected
        assert "weighs every earlier token equally" in r.evidence.summary()
    # the paper's picture fed to the proxies' rules: the U kept, R grown, the valley deeper
    s = cd.lm_summaries(doc((U(12), U(24)), (U(10), U(30))))
    assert cd.u_persists_trained_verdict(s)[0] == "qualified"
    assert cd.dead_zone_trained_verdict(s)[0] == "qualified"
    # the false version (training removes the U, lifts the valley): refuted
    s = cd.lm_summaries(doc((U(12), flat()), (U(10), flat(1.2))))
    assert cd.u_persists_trained_verdict(s)[0] == "refuted"
    assert cd.dead_zone_trained_verdict(s)[0] == "refuted"


