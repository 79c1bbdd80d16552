"""Power of the measured claims of chowdhury2026 (C1, C7-C10 and the C10/C11 proxies), at the
claim level: each check function is fed the paper's own figures where it reports any and
plausible false versions of the claim, through its real computation, and gives the verdict its
rule allows; the discriminating figures (the averaged kernel for C1, the alternatives for C9)
decide where the old figures could not."""


import numpy as np

from posbias.proofs_checks.claims.chowdhury2026 import _legacy as cd
from posbias.proofs_checks.registry import get_claim, run_claim


def _u(ratio_first, ratio_last):
    """A profile with p(1)/min = ratio_first and p(L)/min = ratio_last at every length."""
    def prof(arch, L, seed, s):
        p = np.ones(L)
        p[0], p[-1] = ratio_first, ratio_last
        return p
    return prof


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


