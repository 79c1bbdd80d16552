"""The claim reports: one line per claim with its deciding figure first, nested deciding figures
shown per run, no empty "decided by" part, new verdicts marked in every format, and --strict
naming the claims that lack their data."""

import json
import xml.etree.ElementTree as ET

import pytest

from posbias.proofs_checks.cards import Rule, Threshold
from posbias.proofs_checks.registry import Claim, Evidence, run_claim
from posbias.render.reports import FORMATS, decided_line, headline, render, summary


def decide(f, t):
    """verified when every run's depth is below the threshold, refuted when every run's is
    above it, inconclusive otherwise."""
    depths = [r["late"]["depth"] for r in f["runs"]]
    if all(d < t["depth"] for d in depths):
        return "verified"
    if all(d >= t["depth"] for d in depths):
        return "refuted"
    return "inconclusive"


RULE = Rule(text="depth below 1/2 in every run", decide=decide,
            thresholds={"depth": Threshold(0.5, "the depth", sensitive=1.5)},
            outcomes=("verified", "refuted", "inconclusive"),
            deciding=("runs/*/late/depth", "level"))


def _claim(cid, verdict_of, expected="inconclusive", rule=RULE, needs=()):
    return Claim(id=cid, paper=cid.split(":")[0], statement="a test claim", latex="x",
                 expected=expected, check=verdict_of, rule=rule, needs=needs)


def _runs(*depths):
    return {"runs": [{"run": f"arch seed {n}", "early": {"depth": 0.1},
                      "late": {"depth": d, "windows": 8}} for n, d in enumerate(depths)],
            "level": 3}


def _proxy(ctx):
    figures = _runs(0.3, 0.7)
    return Evidence(decide(figures, {"depth": 0.5}), method="nested runs", figures=figures,
                    discrepancy="the runs disagree")


def test_nested_deciding_figure_is_shown_per_run_on_one_line():
    r = run_claim(_claim("testrep:proxy", _proxy))
    assert r.evidence.verdict == "inconclusive" and r.ok
    line = headline(r)
    assert line.startswith("late depth = arch seed 0: 0.3, arch seed 1: 0.7; level = 3")
    assert "flips to" in line
    text = render([r], "text")
    rows = [row for row in text.splitlines() if row.startswith("testrep:proxy")]
    assert len(rows) == 1 and rows[0].endswith(line)
    # nothing of the nested dump on the line: the early depths are not deciding
    assert "early" not in rows[0] and "windows" not in rows[0]


def test_no_empty_decided_by_in_any_format():
    """The rule's own decision record is not a part of the check: an inconclusive verdict never
    reads 'decision is inconclusive:' with nothing after it."""
    r = run_claim(_claim("testrep:proxy", _proxy))
    assert "decision is" not in decided_line(r)
    assert "the runs disagree" in decided_line(r)
    for fmt in FORMATS:
        for verbose in (False, True):
            out = render([r], fmt, verbose=verbose)
            assert "decision is" not in out, fmt


def _new_claim():
    """A claim registered with no expected verdict of its own that gets one from data."""
    def check(ctx):
        figures = _runs(0.2, 0.1)
        return Evidence(decide(figures, {"depth": 0.5}), method="from data", figures=figures)
    return run_claim(_claim("testrep:never-computed", check, expected="needs-data"))


def test_new_verdict_marked_in_every_format():
    r = _new_claim()
    assert r.evidence.verdict == "verified" and r.never_computed and r.ok
    text = render([r], "text")
    row = next(line for line in text.splitlines() if line.startswith("testrep:never-computed"))
    assert row.split()[3] == "new"
    assert "new (no expected verdict; computed from the data given): " \
        "testrep:never-computed verified" in text
    assert "(expected needs-data, new," in render([r], "text", verbose=True)
    assert "verified (new)" in render([r], "md")
    assert "new (no expected verdict): testrep:never-computed" in render([r], "md")
    assert json.loads(render([r], "json"))["summary"]["new"] == ["testrep:never-computed"]
    assert "verified (new)" in render([r], "latex")
    root = ET.fromstring(render([r], "junit").split("\n", 1)[1])
    case = root.find("testsuite/testcase")
    assert case.find("failure") is None and case.find("system-out").text.startswith("verified (new)")


def _lacking(ctx):
    return Evidence("needs-data", method="reads the lab's runs",
                    details={"format": "<data_dir>/runs/<name>.json"})


@pytest.mark.parametrize("strict", [False, True])
def test_strict_names_the_claims_lacking_data(strict):
    r = run_claim(_claim("testrep:lacking", _lacking, expected="verified",
                         needs=("data: the lab's runs",)))
    s = summary([r], strict)
    assert s["ok"] is (not strict) and s["failed"] == (["testrep:lacking"] if strict else [])
    text = render([r], "text", strict=strict)
    junit = ET.fromstring(render([r], "junit", strict=strict).split("\n", 1)[1])
    case = junit.find("testsuite/testcase")
    if not strict:
        assert "needs_data_failed" not in s and "--strict" not in text
        assert case.find("skipped").get("message") == "needs data: the lab's runs"
        return
    assert s["needs_data_failed"] == [{"id": "testrep:lacking", "needed": "data: the lab's runs"}]
    assert "--strict: 1 claim(s) lacking data fail the run:" in text
    assert ("FAILED testrep:lacking (needs-data): needs data: the lab's runs (give it as "
            "<data_dir>/runs/<name>.json)") in " ".join(text.split())
    assert case.find("failure").get("message").startswith("needs data (--strict): data: the lab's")
    assert "testrep:lacking needs data: the lab's runs (fails under --strict)" in render(
        [r], "md", strict=True)
    assert json.loads(render([r], "json", strict=True))["summary"]["strict"] is True


def test_headline_of_a_claim_without_rule_is_what_decided_it():
    def check(ctx):
        return Evidence("refuted", method="exact", counterexample="L = 3")
    r = run_claim(_claim("testrep:plain", check, expected="refuted", rule=""))
    assert headline(r) == "counterexample: L = 3"
