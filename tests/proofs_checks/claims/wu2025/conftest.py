"""Helpers shared by the tests of wu2025's claims (fixtures: test files are imported by path and
cannot import each other)."""

from __future__ import annotations

import copy
import json
import os
import shutil

import pytest

from posbias.proofs_checks.claims.wu2025 import _trained as trained
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim


@pytest.fixture
def expected_verdict_with_evidence():
    """Run a rollout claim (W1-W3) at the defaults: its expected verdict, with filled evidence,
    the rule in the details, and under 15 s."""

    def assert_for(claim_id: str) -> None:
        c = get_claim(claim_id)
        r = run_claim(c, CheckContext())
        ev = r.evidence
        assert ev.verdict == c.expected, ev.as_dict()
        assert ev.cases and ev.cases > 0 and ev.worst_margin and ev.parameters
        assert "verified" in ev.details["rule"] and "refuted" in ev.details["rule"]
        assert c.latex_text.strip() and c.section
        assert r.seconds < 15

    return assert_for


# --- the trained-model claims (section 5) ---------------------------------------------------

@pytest.fixture
def write_run():
    """Write a results document made from the shipped run of ``key`` into ``folder/trained``:
    residual flag set, the last evaluation of seed i given the figures ``seeds[i]`` (ic, fm, fl,
    ml)."""

    def write(folder, key, residual, seeds, name=None):
        doc = copy.deepcopy(trained.stored_results(key))
        doc["config"]["residual"] = residual
        for run, (ic, fm, fl, ml) in zip(doc["runs"], seeds):
            e = run["history"][-1]
            e["ic_accuracy"] = ic
            e["difference"] = {"first-middle": fm, "first-last": fl, "middle-last": ml}
        (folder / "trained").mkdir(exist_ok=True)
        fname = name or (trained.STORED[key].replace("_res_", "_nores_") if not residual
                         else trained.STORED[key])
        (folder / "trained" / f"{fname}.json").write_text(json.dumps(doc))
        return doc

    return write


@pytest.fixture
def verdict_in():
    """Run claim ``cid`` on the user data folder ``folder`` (no internal error allowed)."""

    def run(cid, folder):
        r = run_claim(get_claim(cid), CheckContext(data_dir=str(folder)))
        assert not r.evidence.details.get("error"), r.evidence.details
        return r

    return run


@pytest.fixture
def shipped_results_as_expected():
    """A trained claim on the shipped results: its expected verdict, no internal error; a
    Figure-5 claim reads runs with residual connections made by posbias train."""

    def assert_for(cid, residual):
        r = run_claim(get_claim(cid))
        assert r.evidence.verdict == r.expected, (r.claim.id, r.evidence.discrepancy)
        assert not r.evidence.details.get("error"), r.evidence.details
        if residual:
            assert r.evidence.details["provenance"][0]["command"].startswith("posbias train")
            assert r.evidence.details["provenance"][0]["residual"] is True
            assert r.evidence.figures and r.evidence.setting["residual"] == "on"

    return assert_for


@pytest.fixture
def reads_attention_only_runs():
    """A Figure-2 claim reads attention-only runs (or names the command that makes them)."""

    def assert_for(cid):
        r = run_claim(get_claim(cid))
        assert r.ok and not r.evidence.details.get("error"), r.evidence.details
        card = r.card_dict()
        assert card["scope"] == "paper" and card["setting"]["paper"]["residual"] == "off"
        assert "Figure 2" in card["setting"]["paper"]["source"]
        assert r.evidence.verdict in ("verified", "qualified", "refuted", "inconclusive")
        assert r.evidence.setting["residual"] == "off"
        assert all(p["residual"] is False for p in r.evidence.details["provenance"])

    return assert_for


@pytest.fixture
def missing_attention_only_run(tmp_path, monkeypatch):
    """Without its attention-only run (the shipped folder minus that file) a Figure-2 claim is
    needs-data and names the command that trains the run at wu2025's scale."""

    def assert_for(key, cid):
        shipped = trained.shipped_dir()
        mask, pe = trained.ATTENTION_ONLY[key]
        for name in os.listdir(shipped):
            if name.endswith(".json") and not name.startswith(f"{mask.replace(':', '')}_{pe}_nores"):
                shutil.copyfile(os.path.join(shipped, name), tmp_path / name)
        monkeypatch.setattr(trained, "shipped_dir", lambda: str(tmp_path))
        with pytest.raises(trained.MissingRun):
            trained.find_attention_only(key)
        r = run_claim(get_claim(cid))
        assert r.evidence.verdict == "needs-data" and r.ok
        text = r.evidence.method
        assert "residual: false" in text and "posbias train --task wu2025-icl" in text
        assert f"--mask {mask} --pe {pe}" in text
        assert "--residual off" in text and "--iterations 100000" in text and "--seeds 0 1" in text

    return assert_for


@pytest.fixture
def never_reads_residual_runs(tmp_path, monkeypatch, write_run, verdict_in):
    """A Figure-2 claim given only a run with residual connections (and no shipped Figure-2
    runs) is needs-data: it never reads residual runs."""

    def assert_for(cid):
        empty = tmp_path / "shipped"
        empty.mkdir()
        write_run(tmp_path, "causal-nope", True, FIG2_PRIMACY)
        monkeypatch.setattr(trained, "shipped_dir", lambda: str(empty))  # no shipped Figure-2 runs
        assert verdict_in(cid, tmp_path).evidence.verdict == "needs-data"

    return assert_for


@pytest.fixture
def shipped_is_read_over_its_history():
    """A trained claim on the shipped runs: the rule's verdict at every evaluation common to
    the runs it reads, one of them recomputed here from the stored histories; the decided
    verdict is the one at the reading point (the last common evaluation, 100,000), and the
    evidence names the iterations at which it holds.  A shift claim names its ``pair`` (and
    ``against``)."""

    def assert_for(cid, pair=None, against=None):
        r = run_claim(get_claim(cid))
        ev = r.evidence
        history = ev.details["verdict_by_iteration"]
        its = [e["iteration"] for e in history]
        assert its == sorted(its) and its[-1] == ev.figures["iteration"][0] == 100_000
        assert history[-1]["verdict"] == ev.verdict
        held = [e["iteration"] for e in history if e["verdict"] == ev.verdict]
        inside = [it for it in its if any(lo <= it <= hi for lo, hi in ev.details["holds_at"])]
        assert inside == held
        assert "it holds at iterations" in ev.discrepancy
        assert f"({len(held)} of {len(its)} evaluations)" in ev.discrepancy
        # one earlier evaluation recomputed from the stored runs, apart from the check
        rule = r.claim.rule
        mid = history[len(history) // 2]
        residual = ev.setting["residual"] == "on"
        docs = [trained.stored_runs(k, None, residual) for k in ev.parameters["configurations"]]
        summaries = [trained.summarize(d, mid["iteration"]) for d in docs]
        figs = (trained.direction_figures(summaries[0]) if pair is None
                else trained.shift_figures(*summaries, pair, against=against))
        assert rule.decide(figs, rule.values()) == mid["verdict"]

    return assert_for


@pytest.fixture
def compared_with_figure5():
    """A Figure-5 claim: its card names Figure 5, both settings have residual connections, and
    the in-context accuracy stands beside every difference."""

    def assert_for(cid):
        r = run_claim(get_claim(cid))
        card = r.card_dict()
        assert "Figure 5" in card["setting"]["paper"]["source"]
        assert card["setting"]["paper"]["residual"] == card["setting"]["test"]["residual"] == "on"
        # the decay mask in Figure 5 is not confirmed: Figure 2's statement in Figure 5's setting
        assert card["scope"] == ("variant" if "decay" in cid else "paper")
        # the in-context accuracy stands beside every difference
        assert r.evidence.discrepancy.count("in-context acc") == 2 * (1 + ("rope" in cid))
        assert "in-context accuracy" in r.evidence.details["accuracies"]

    return assert_for


@pytest.fixture
def paper_figures_pass():
    """wu2025's reported figures (the rule's paper examples) give ``verdict``."""

    def assert_for(rule, example_verdict):
        papers = [ex for ex in rule.examples if ex.kind == "paper"]
        assert papers
        for ex in papers:
            assert rule.decide(ex.figures, rule.values()) == example_verdict, ex.label

    return assert_for


#: two seeds with wu2025's Figure-2 primacy (first-last +0.08) and in-context matching
FIG2_PRIMACY = [(0.88, 0.05, 0.08, 0.0), (0.87, 0.04, 0.08, 0.0)]

