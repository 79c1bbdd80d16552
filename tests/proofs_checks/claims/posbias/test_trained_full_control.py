"""posbias:trained-full-control: the shipped full-mask runs verify the machinery control; it is
a claim of posbias (machinery scope), not of wu2025; a test set that leaks position is refuted,
and the user's --data-dir overrides the shipped results."""

from __future__ import annotations

import copy
import json

import pytest

from posbias.errors import InvalidArgument
from posbias.proofs_checks import registry
from posbias.proofs_checks.claims.wu2025 import _trained as trained
from posbias.proofs_checks.registry import CheckContext, get_claim, run_claim

CID = "posbias:trained-full-control"


def test_default_check_reads_the_shipped_results_as_expected():
    r = registry.run_claim(registry.get_claim(CID))
    assert r.evidence.verdict == r.expected, (r.claim.id, r.evidence.discrepancy)
    assert not r.evidence.details.get("error"), r.evidence.details
    assert r.evidence.details["provenance"][0]["command"].startswith("posbias train")
    assert r.evidence.details["provenance"][0]["residual"] is True
    assert r.evidence.figures and r.evidence.setting["residual"] == "on"


def test_full_control_is_machinery_of_posbias():
    c = registry.get_claim(CID)
    assert c.paper == "posbias" and c.card.kind == "machinery"
    assert registry.run_claim(c).scope == "machinery"
    with pytest.raises(InvalidArgument, match="claim id"):
        registry.get_claim("wu2025:trained-full-control")


def test_user_data_dir_overrides_the_shipped_results(tmp_path):
    (tmp_path / "trained").mkdir()
    doc = trained.stored_results("full-nope")
    for run in doc["runs"]:
        run["history"][-1]["difference"]["first-last"] = 0.5  # beyond any noise: refuted
    (tmp_path / "trained" / f"{trained.STORED['full-nope']}.json").write_text(json.dumps(doc))
    ctx = registry.CheckContext(data_dir=str(tmp_path))
    r = registry.run_claim(registry.get_claim(CID), ctx)
    assert r.evidence.verdict == "refuted"


# --- power: through the real check on a constructed run ------------------------------------

def test_full_control_refutes_a_leaking_test_set(tmp_path):
    doc = copy.deepcopy(trained.stored_results("full-nope"))
    for run in doc["runs"]:
        run["history"][-1]["difference"]["first-last"] = 0.05
    (tmp_path / "trained").mkdir()
    (tmp_path / "trained" / f"{trained.STORED['full-nope']}.json").write_text(json.dumps(doc))
    r = run_claim(get_claim(CID), CheckContext(data_dir=str(tmp_path)))
    assert not r.evidence.details.get("error"), r.evidence.details
    assert r.evidence.verdict == "refuted" and r.scope == "machinery"
