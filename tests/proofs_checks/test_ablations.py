"""The stored Step-0 ablations (:mod:`posbias.proofs_checks.ablations`): each record made by the
command the module names, paired with a stored Step-0 run, its ablation recorded; the stored
uniform-attention runs have exactly Cesàro attention; the tail statistics tell a falling tail
(the Cesàro rollout) from a flat one."""

import numpy as np
import pytest

from posbias.numerics.cesaro import cesaro_profile
from posbias.proofs_checks import ablations as ab
from posbias.proofs_checks.stored import load_record


def test_every_stored_ablation_has_its_command_and_its_pair():
    known = ab.runs()
    stored = {s: load_record(s, ab.ablation_dir()) for s in known}
    stored = {s: r for s, r in stored.items() if r is not None}
    assert stored, "no stored ablation"
    for stem, rec in stored.items():
        assert rec["argv"] == known[stem] and rec["command"] == "posbias " + " ".join(known[stem])
        parts = known[stem][known[stem].index("--ablate") + 1]
        assert rec["result"]["measurement"]["settings"]["ablate"] == parts.split(",")
        assert load_record(ab.BASELINES[stem]) is not None  # the unablated run is stored
        # the RoPE-on profile of a --rope both run is that of the --rope on run (same inputs
        # and probes; the stored input-floor run repeats its first two inputs exactly)
        base = ["on" if a == "both" else a for a in load_record(ab.BASELINES[stem])["argv"]]
        drop = {"--ablate", "--kernel-inputs"}  # the flag, and forward passes after the samples
        strip = [a for i, a in enumerate(base) if a not in drop and base[i - 1] not in drop]
        assert [a for i, a in enumerate(known[stem]) if a not in drop
                and known[stem][i - 1] not in drop] == strip


@pytest.fixture(scope="module")
def summary():
    return ab.summary()


def test_stored_uniform_attention_is_exactly_cesaro(summary):
    s = summary
    uniform = {k: v for k, v in s.items() if "uniform-attention" in v["ablate"]}
    assert uniform
    for stem, v in uniform.items():
        assert v["attention_tv_max"] < 1e-6, stem
    assert all(v["attention_tv_max"] > 1e-3 for v in s.values()
               if "uniform-attention" not in v["ablate"])


def test_tail_figures_tell_a_falling_tail_from_a_flat_one():
    """Power: the Cesàro rollout's tail falls to its last block; a profile with the same head
    and a flat last quarter reads near 1 throughout."""
    L = 256
    c = np.asarray(cesaro_profile(L, [0.13] * 12), dtype=float)
    f = ab.tail_figures(c)
    assert f["valley_block"] == f["bins"] and f["argmin"] == L - 1
    assert f["tail_over_valley"][0] > 1.1 and f["tail_over_valley"] == sorted(
        f["tail_over_valley"], reverse=True)
    flat = c.copy()
    flat[3 * L // 4:-1] = flat[3 * L // 4]
    g = ab.tail_figures(flat)
    assert max(g["tail_over_valley"]) == pytest.approx(1.0)


def test_summary_pairs_and_fits(summary):
    assert set(summary) == {s for s in ab.runs() if load_record(s, ab.ablation_dir())}
    for stem, v in summary.items():
        assert v["baseline"] == ab.BASELINES[stem]
        assert v["ablated"]["L"] == v["unablated"]["L"] == v["cesaro"]["L"]
        assert 0 < v["cesaro"]["alpha"] < 1


def test_unknown_stem_refused(capsys):
    assert ab.main(["gpt2-L256-seed0-no-such"]) == 2
    assert "unknown run" in capsys.readouterr().err
