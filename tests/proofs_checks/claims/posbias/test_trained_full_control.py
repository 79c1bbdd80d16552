"""posbias:trained-full-control: a claim of posbias (machinery scope), not of wu2025, read only
from attention-only full-mask runs (the setting it controls); a test set that leaks position is
refuted, a network that does not read its context gives no verdict, and the user's --data-dir
overrides the shipped results."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from posbias.errors import InvalidArgument
from posbias.proofs_checks import registry
from posbias.proofs_checks.claims.posbias import trained_full_control
from posbias.proofs_checks.claims.wu2025 import _trained as trained
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

CID = "posbias:trained-full-control"


def test_full_control_is_machinery_of_posbias():
    c = registry.get_claim(CID)
    assert c.paper == "posbias" and c.card.kind == "machinery"
    assert registry.run_claim(c).scope == "machinery"
    with pytest.raises(InvalidArgument, match="claim id"):
        registry.get_claim("wu2025:trained-full-control")


def test_the_card_is_the_setting_it_controls():
    """No residual connections, wu2025's scale: the setting of the Figure-2 claims."""
    card = registry.get_claim(CID).card
    for setting in (card.paper, card.test):
        v = setting.values
        assert (v["mask"], v["pe"], v["residual"]) == ("full", "none", "off")
        assert v["iterations"] == 100_000 and v["lr"] == 1e-3


def _full_run(folder, seeds, residual=False):
    """A constructed attention-only full-mask run in ``folder/trained``: the shipped causal
    attention-only document relabelled, its last evaluation of seed i given ``seeds[i]`` =
    (in-context accuracy, first-middle, first-last, middle-last)."""
    doc = copy.deepcopy(trained.find_attention_only("causal-nope"))
    doc["config"]["mask"] = "full"
    doc["config"]["residual"] = residual
    doc["name"] = "full_none_nores_lr0.001"
    for run, (ic, fm, fl, ml) in zip(doc["runs"], seeds):
        e = run["history"][-1]
        e["ic_accuracy"] = ic
        e["difference"] = {"first-middle": fm, "first-last": fl, "middle-last": ml}
    (folder / "trained").mkdir(exist_ok=True)
    (folder / "trained" / "full_none_nores_lr0.001.json").write_text(json.dumps(doc))
    return doc


def _verdict(folder):
    r = run_claim(get_claim(CID), CheckContext(data_dir=str(folder)))
    assert not r.evidence.details.get("error"), r.evidence.details
    return r


# --- power: through the real check on constructed runs -------------------------------------

@pytest.mark.parametrize("seeds, verdict", [
    # a network that copies context labels, every difference within noise
    ([(0.50, -0.002, 0.002, 0.005), (0.51, -0.004, -0.001, -0.007)], "verified"),
    # a test set that leaks position: first-last +0.05 beyond any noise threshold
    ([(0.50, 0.0, 0.05, 0.0), (0.51, 0.0, 0.05, 0.0)], "refuted"),
    # no difference, but the network does not read its context (in-context accuracy at chance)
    ([(0.031, 0.001, 0.0, -0.001), (0.029, 0.0, 0.002, 0.001)], "inconclusive"),
])
def test_full_control_on_constructed_runs(tmp_path, seeds, verdict):
    _full_run(tmp_path, seeds)
    r = _verdict(tmp_path)
    assert r.evidence.verdict == verdict and r.scope == "machinery"
    assert r.evidence.setting["residual"] == "off"


def test_full_control_never_reads_a_residual_run(tmp_path, monkeypatch):
    """A full-mask run with residual connections is not the control's setting: with only that
    (and no shipped attention-only full-mask run) the control is needs-data, naming the
    command that trains the run it reads."""
    empty = tmp_path / "shipped"
    empty.mkdir()
    _full_run(tmp_path, [(0.5, 0.0, 0.0, 0.0), (0.5, 0.0, 0.0, 0.0)], residual=True)
    monkeypatch.setattr(trained, "shipped_dir", lambda: str(empty))
    r = _verdict(tmp_path)
    assert r.evidence.verdict == "needs-data"
    assert "--mask full --pe none --residual off --iterations 100000" in r.evidence.method


def test_the_shipped_folder_is_read_when_no_data_dir_has_the_run(tmp_path, monkeypatch):
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    _full_run(tmp_path, [(0.5, 0.0, 0.05, 0.0), (0.5, 0.0, 0.05, 0.0)])
    shutil.copyfile(tmp_path / "trained" / "full_none_nores_lr0.001.json",
                    shipped / "full_none_nores_lr0.001.json")
    monkeypatch.setattr(trained, "shipped_dir", lambda: str(shipped))
    assert run_claim(get_claim(CID)).evidence.verdict == "refuted"


def test_the_rule_has_power_against_a_network_at_chance():
    rule = trained_full_control.RULE
    chance = [ex for ex in rule.examples if "chance" in ex.label]
    assert chance and all(rule.decide(ex.figures, rule.values()) == "inconclusive"
                          for ex in chance)
    assert rule.values()["reads_context"] > trained_full_control.CHANCE


@pytest.mark.parametrize("change, named", [
    ({"lr": 3e-3}, "lr 0.003"),
    ({"iterations": 2000}, "iterations 2000"),
    ({"batch": 32}, "batch 32"),
    ({"weight_decay": 0.01}, "weight_decay 0.01"),
])
def test_a_run_off_wu2025_scale_is_not_the_control(tmp_path, monkeypatch, change, named):
    """The rule reads only a run at wu2025's scale (lr 1e-3, weight decay 1e-6, batch 128,
    100,000 iterations): a shorter or otherwise trained run, which passes more easily (fewer
    test sequences, wider noise, a network that has not settled), is needs-data naming what
    departs and the command of the run it reads, never verified."""
    doc = _full_run(tmp_path, [(0.5, 0.0, 0.0, 0.0), (0.5, 0.0, 0.0, 0.0)])
    empty = tmp_path / "shipped"
    empty.mkdir()
    monkeypatch.setattr(trained, "shipped_dir", lambda: str(empty))
    doc["config"].update(change)
    (tmp_path / "trained" / "full_none_nores_lr0.001.json").write_text(json.dumps(doc))
    r = _verdict(tmp_path)
    assert r.evidence.verdict == "needs-data"
    assert "not at wu2025's scale" in r.evidence.method and named in r.evidence.method
    assert "--mask full --pe none --residual off --iterations 100000" in r.evidence.method


def test_a_seed_stopped_short_is_not_the_control(tmp_path, monkeypatch):
    doc = _full_run(tmp_path, [(0.5, 0.0, 0.0, 0.0), (0.5, 0.0, 0.0, 0.0)])
    empty = tmp_path / "shipped"
    empty.mkdir()
    monkeypatch.setattr(trained, "shipped_dir", lambda: str(empty))
    doc["runs"][1]["iterations"] = 76_000
    (tmp_path / "trained" / "full_none_nores_lr0.001.json").write_text(json.dumps(doc))
    r = _verdict(tmp_path)
    assert r.evidence.verdict == "needs-data" and "not trained to 100,000" in r.evidence.method


@pytest.mark.parametrize("text", ["not json", "[" * 100_000 + "]" * 100_000, "[1, 2]",
                                  '{"runs": [NaN]}'])
def test_an_unreadable_run_in_the_data_dir_is_named_exit_2(tmp_path, capsys, text):
    """A results file of the user's --data-dir that is not a strict JSON object is named (exit
    2), not skipped in favour of the shipped run (the control fell back to it silently) and not
    an internal error (a residual claim ended with exit 3)."""
    from posbias.cli import main

    (tmp_path / "trained").mkdir()
    (tmp_path / "trained" / "full_none_nores_lr0.001.json").write_text(text)
    code = main(["check", CID, "--data-dir", str(tmp_path), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "trained run = " in err and "full_none_nores_lr0.001.json is invalid" in err
