"""`posbias list` / `posbias check`: formats parse, exit statuses, bad usage."""

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from posbias.cli import main
from posbias.proofs_checks import registry
from posbias.proofs_checks.registry import Evidence, claim


@pytest.fixture
def two_claims():
    @claim("testcli:holds", statement="λ ≥ 0 & 50% holds", latex=r"\lambda \geq 0",
           expected="verified")
    def _holds(ctx):
        return Evidence("verified", method="exact identity", discrepancy="0", precision="exact")

    @claim("testcli:nodata", statement="needs data", latex=r"x", expected="verified")
    def _nodata(ctx):
        return Evidence("needs-data", method="no measured profiles here")

    yield ["testcli:holds", "testcli:nodata"]
    registry.unregister("testcli:holds")
    registry.unregister("testcli:nodata")
    registry.unregister("testcli:breaks")


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_list_text_and_json(capsys):
    code, out, _ = run(["list"], capsys)
    assert code == 0 and "expected" in out.splitlines()[0]
    code, out, _ = run(["list", "--format", "json"], capsys)
    data = json.loads(out)
    assert {d["id"] for d in data} == {c.id for c in registry.all_claims()}


def test_check_json_shape(two_claims, capsys):
    code, out, err = run(["check", *two_claims, "--format", "json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert [c["id"] for c in data["claims"]] == two_claims
    for c in data["claims"]:
        assert set(c) >= {"id", "paper", "statement", "latex", "status", "expected", "method",
                          "evidence", "seconds"}
    assert data["summary"]["ok"] is True and data["summary"]["needs_data"] == 1
    assert "[1/2]" in err  # progress goes to stderr


def test_check_junit_is_valid_xml(two_claims, capsys):
    code, out, _ = run(["check", *two_claims, "--format", "junit", "--quiet"], capsys)
    assert code == 0
    root = ET.fromstring(out.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite.get("tests") == "2" and suite.get("skipped") == "1"
    assert suite.get("failures") == "0"


def test_check_md_and_text(two_claims, capsys):
    code, out, _ = run(["check", *two_claims, "--format", "md", "--quiet"], capsys)
    assert code == 0 and out.startswith("| id |")
    code, out, _ = run(["check", *two_claims, "--quiet"], capsys)
    assert "testcli:holds" in out and "1 need data" in out


def test_strict_fails_and_names_what_was_needed(two_claims, capsys):
    code, out, _ = run(["check", *two_claims, "--quiet"], capsys)
    assert code == 0 and "--strict" not in out
    code, out, _ = run(["check", *two_claims, "--quiet", "--strict"], capsys)
    assert code == 1
    assert "FAILED testcli:nodata (needs-data): needs no measured profiles here" in out
    code, out, _ = run(["check", *two_claims, "--quiet", "--strict", "-f", "json"], capsys)
    assert json.loads(out)["summary"]["needs_data_failed"] == [
        {"id": "testcli:nodata", "needed": "no measured profiles here"}]


def test_check_exit_1_when_verdict_differs(two_claims, capsys):
    @claim("testcli:breaks", statement="x", latex="x", expected="verified")
    def _breaks(ctx):
        return Evidence("refuted", method="exact", counterexample="L = 3")

    code, out, _ = run(["check", "testcli:breaks", "--quiet"], capsys)
    assert code == 1
    assert "FAILED testcli:breaks: expected verified, got refuted" in out


@pytest.mark.skipif(not shutil.which("pdflatex") and os.environ.get("POSBIAS_REQUIRE_PDFLATEX") != "1",
                    reason="pdflatex not installed")
def test_check_latex_compiles(two_claims, tmp_path, capsys):
    target = tmp_path / "report.tex"
    code, _, _ = run(["check", *two_claims, "--format", "latex", "--output", str(target),
                      "--quiet"], capsys)
    assert code == 0
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", target.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (tmp_path / "report.pdf").exists()


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["check", "nosuch:claim"], "claim id = nosuch:claim"),
        (["check", "--format", "pdf"], "--format"),
        (["check", "--dps", "5"], "--dps: '5' is invalid"),
        (["check", "--dps", "many"], "--dps: 'many' is invalid"),
        (["check", "--paper", "nobody2099"], "paper = nobody2099"),
        (["check", "--output", "/nonexistent-dir/report.json"], "--output"),
        (["check", "--import", "os; rm"], "--import"),
        (["list", "--paper", "nobody2099"], "paper = nobody2099"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_usage_exit_2_one_line(argv, needle, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_unwritable_output_leaves_nothing(two_claims, tmp_path, capsys):
    target = tmp_path / "sub"
    target.mkdir()
    os.chmod(target, 0o500)
    try:
        if os.access(target, os.W_OK):  # root ignores permissions
            pytest.skip("running as a user that can write anywhere")
        code, _, err = run(["check", *two_claims, "--output", str(target / "r.json")], capsys)
        assert code == 2 and "--output" in err
        assert list(target.iterdir()) == []
    finally:
        os.chmod(target, 0o700)


def test_output_written_atomically(two_claims, tmp_path, capsys):
    target = tmp_path / "r.json"
    target.write_text("old")
    code, out, _ = run(["check", *two_claims, "--format", "json", "--output", str(target),
                        "--quiet"], capsys)
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["summary"]["total"] == 2
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_output_directory_rejected(two_claims, tmp_path, capsys):
    code, _, err = run(["check", *two_claims, "--output", str(tmp_path)], capsys)
    assert code == 2 and "directory" in err


def _remeasured_or_retrained(c) -> bool:
    """Claims whose --thorough run measures full-width models again (13 Step-0 runs) or
    re-trains wu2025's networks at paper scale (about 75 minutes on two cores): their shipped
    data are reproduced by their own slow tests instead (tests/proofs_checks/test_measured.py,
    test_claims_wu2025_trained.py)."""
    return c.thorough_work is not None or any("Step-0" in n or "--thorough" in n for n in c.needs)


@pytest.mark.slow
def test_thorough_run_matches_expected_verdicts(capsys):
    """The registry with larger grids and more cases (a few minutes): the default and the
    thorough run may differ in case counts, never in verdict."""
    ids = [c.id for c in registry.all_claims() if not _remeasured_or_retrained(c)]
    assert len(ids) >= 30
    code, out, _ = run(["check", "--thorough", "--quiet", "--format", "json", *ids], capsys)
    data = json.loads(out)
    assert code == 0, data["summary"]["failed"]
    assert data["summary"]["total"] == len(ids)


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("pdflatex") and os.environ.get("POSBIAS_REQUIRE_PDFLATEX") != "1",
                    reason="pdflatex not installed")
def test_full_check_report_compiles(tmp_path, capsys):
    """The LaTeX report of every built-in claim compiles: the deciding figures (names with
    underscores, nested dicts) are typeset as text, never parsed as mathematics."""
    target = tmp_path / "all.tex"
    code, _, _ = run(["check", "--format", "latex", "--output", str(target), "--quiet"], capsys)
    assert code == 0
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", target.name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_list_shows_each_statement_with_its_source(capsys):
    """Every claim's statement is followed by where the paper states it (its card's paper
    source), in text and in JSON."""
    from posbias.cli.check import claim_source

    code, out, _ = run(["list"], capsys)
    lines = out.splitlines()[1:]
    claims = registry.all_claims()
    assert code == 0 and len(lines) == 2 * len(claims)
    for c, (first, second) in zip(claims, zip(lines[::2], lines[1::2])):
        assert first.startswith(c.id) and c.statement in first
        assert second.strip() == "source: " + claim_source(c)
        assert claim_source(c) == (c.card.paper.source if c.card else c.section)
    code, out, _ = run(["list", "--paper", "duerinckx2026", "-f", "json"], capsys)
    data = json.loads(out)
    assert data and all(d["source"].startswith("duerinckx2026 (arXiv 2605.09213)") for d in data)
