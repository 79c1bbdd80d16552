"""tools/compare_check_json.py: reports a changed verdict or figure, ignores timings only."""

from __future__ import annotations

import copy
import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("compare_check_json",
                                               ROOT / "tools" / "compare_check_json.py")
compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare)

REPORT = {
    "claims": [
        {"id": "p:a", "status": "verified", "seconds": 0.5, "figures": {"R": 132.0},
         "evidence": {"details": {"fast path seconds": {"1024": "0.01"}}}},
        {"id": "p:b", "status": "refuted", "seconds": 0.1, "figures": {"worst": [1, 2]}},
    ],
    "summary": {"total": 2, "seconds": 0.6, "posbias": "0.2.0", "python": "3.11"},
}


def test_identical_reports_agree_whatever_their_timings(tmp_path):
    after = copy.deepcopy(REPORT)
    after["claims"][0]["seconds"] = 9.0
    after["claims"][0]["evidence"]["details"]["fast path seconds"]["1024"] = "0.03"
    after["summary"]["seconds"] = 12.0
    assert compare.compare_reports(REPORT, after) == []


def test_a_changed_verdict_figure_or_claim_set_is_reported(tmp_path):
    after = copy.deepcopy(REPORT)
    after["claims"][0]["figures"]["R"] = 133.0
    after["claims"][1]["status"] = "qualified"
    diffs = compare.compare_reports(REPORT, after)
    assert diffs == ["p:a: figures.R: 132.0 -> 133.0", 'p:b: status: "refuted" -> "qualified"']
    fewer = copy.deepcopy(REPORT)
    fewer["claims"].pop()
    assert any("claim order or set differs" in d for d in compare.compare_reports(REPORT, fewer))


def test_the_command_exits_1_on_a_difference_and_2_on_bad_input(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(REPORT))
    changed = copy.deepcopy(REPORT)
    changed["claims"][1]["figures"]["worst"] = [1, 3]
    b.write_text(json.dumps(changed))
    assert compare.main([str(a), str(a)]) == 0
    assert compare.main([str(a), str(b)]) == 1
    assert "p:b: figures.worst[1]: 2 -> 3" in capsys.readouterr().out
    b.write_text("{not json")
    assert compare.main([str(a), str(b)]) == 2
