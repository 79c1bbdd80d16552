"""Tests of ``posbias profile``: outputs on the three paths and bad input (exit 2, one line)."""

from __future__ import annotations

import importlib.util
import json
import os
from fractions import Fraction

import pytest

from posbias.cli import main
from posbias.numerics.cesaro import cesaro_profile_exact

F = Fraction


def _run(capsys, *argv):
    code = main(["profile", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_exact_json(capsys):
    code, out, err = _run(capsys, "--length", "4", "--schedule", "list:1,1/2", "--exact",
                          "--format", "json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["length"] == 4 and doc["depth"] == 2 and doc["path"] == "exact"
    assert doc["schedule"] == {"spec": "list:1,1/2", "values": ["1", "1/2"]}
    expected = cesaro_profile_exact(4, [1, F(1, 2)])
    assert [F(x) for x in doc["profile"]] == expected
    s = doc["summary"]
    assert s["first"] == str(expected[0]) and s["last"] == str(expected[-1])
    assert s["argmin"] == 4 and s["min"] == "5/32" and s["sum"] == "1"


def test_alpha_decimal_is_exact_rational(capsys):
    _, a, _ = _run(capsys, "--length", "5", "--depth", "3", "--alpha", "0.5", "--exact",
                   "--format", "json")
    _, b, _ = _run(capsys, "--length", "5", "--depth", "3", "--schedule", "const:1/2", "--exact",
                   "--format", "json")
    assert json.loads(a)["profile"] == json.loads(b)["profile"]
    assert json.loads(a)["schedule"]["spec"] == "const:0.5"


def test_exact_table_digits_correctly_rounded(capsys):
    # L = 3, T = 2, λ = 1: (11/18, 5/18, 1/9) (hand computation)
    code, out, _ = _run(capsys, "--length", "3", "--depth", "2", "--alpha", "1", "--exact",
                        "--digits", "5")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("#") and "5 significant digits" in lines[0]
    assert lines[2:] == ["1  0.61111", "2  0.27778", "3  0.11111"]
    code, out, _ = _run(capsys, "--length", "3", "--depth", "2", "--alpha", "1", "--exact",
                        "--fractions", "--format", "csv")
    # csv is data only: a header row, no comment line (csv.reader and pandas read it as is)
    assert out.splitlines() == ["position,p", "1,11/18", "2,5/18", "3,1/9"]


def test_summary_only_and_argmin_ties(capsys):
    # T = 0: profile e_L; all positions but the last tie at 0 -> argmin 1 (smallest index)
    code, out, _ = _run(capsys, "--length", "4", "--depth", "0", "--alpha", "1/2", "--exact",
                        "--summary", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and "profile" not in doc
    assert doc["summary"] == {"first": "0", "last": "1", "argmin": 1, "min": "0", "sum": "1"}
    code, out, _ = _run(capsys, "--length", "4", "--depth", "0", "--alpha", "1/2", "--summary")
    assert "argmin  1" in out


def test_precise_and_fast_paths(capsys):
    code, out, _ = _run(capsys, "--length", "6", "--depth", "3", "--alpha", "1/2", "--dps", "40",
                        "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["path"] == "precise" and doc["dps"] == 40
    exact = cesaro_profile_exact(6, [F(1, 2)] * 3)
    import mpmath

    with mpmath.workdps(45):
        for s, e in zip(doc["profile"], exact):
            assert abs(mpmath.mpf(s) - mpmath.mpf(e.numerator) / e.denominator) < mpmath.mpf(10) ** -39
    code, out, _ = _run(capsys, "--length", "6", "--depth", "3", "--alpha", "1/2", "--format", "json")
    doc = json.loads(out)
    assert doc["path"] == "fast" and all(isinstance(x, float) for x in doc["profile"])
    assert max(abs(x - float(e)) for x, e in zip(doc["profile"], exact)) < 1e-15
    assert len(doc["log_profile"]) == 6


def test_fast_deep_summary_keeps_log_min(capsys):
    code, out, _ = _run(capsys, "--length", "10000", "--depth", "100", "--alpha", "1",
                        "--summary", "--format", "json")
    assert code == 0
    s = json.loads(out)["summary"]
    assert s["argmin"] == 10000 and s["min"] == 0.0
    assert abs(s["log_min"] / 2.302585092994046 + 400) < 1e-9


def test_power_schedule_precise_and_exact_integer_beta(capsys):
    code, out, _ = _run(capsys, "--length", "4", "--depth", "3", "--schedule", "power:1/2,1/2",
                        "--dps", "20", "--format", "json")
    assert code == 0 and json.loads(out)["schedule"]["values"][0] == "0.5"
    code, out, _ = _run(capsys, "--length", "4", "--depth", "3", "--schedule", "power:1/2,1",
                        "--exact", "--format", "json")
    assert json.loads(out)["schedule"]["values"] == ["1/2", "1/4", "1/6"]


def test_schedule_file(tmp_path, capsys):
    f = tmp_path / "lam.txt"
    f.write_text("1\n1/2\n")
    code, out, _ = _run(capsys, "--length", "4", "--schedule", f"file:{f}", "--exact",
                        "--format", "json")
    assert code == 0 and json.loads(out)["profile"] == ["37/96", "25/96", "19/96", "5/32"]


BAD = [
    (["--length", "0", "--depth", "2", "--alpha", "1/2"], "--length"),
    (["--length", "-3", "--depth", "2", "--alpha", "1/2"], "--length"),
    (["--length", "2.5", "--depth", "2", "--alpha", "1/2"], "--length"),
    (["--length", "4", "--depth", "-1", "--alpha", "1/2"], "--depth"),
    (["--length", "4", "--alpha", "1/2"], "--depth"),
    (["--length", "4", "--depth", "2", "--alpha", "1.5"], "--alpha"),
    (["--length", "4", "--depth", "2", "--alpha", "-0.1"], "--alpha"),
    (["--length", "4", "--depth", "2", "--alpha", "exec('1')"], "--alpha"),
    (["--length", "4", "--depth", "2", "--schedule", "const:2"], "--schedule"),
    (["--length", "4", "--depth", "2", "--schedule", "bogus"], "--schedule"),
    (["--length", "4", "--schedule", "list:1,x"], "--schedule"),
    (["--length", "4", "--schedule", "file:/nonexistent/file"], "--schedule"),
    (["--length", "4", "--depth", "3", "--schedule", "list:1,1"], "--depth"),
    (["--length", "4", "--depth", "2", "--schedule", "power:1/2,1/2", "--exact"], "--schedule"),
    (["--length", "4", "--depth", "2", "--alpha", "1/2", "--dps", "0"], "--dps"),
    (["--length", "4", "--depth", "2", "--alpha", "1/2", "--digits", "0", "--exact"], "--digits"),
    (["--length", "4", "--depth", "2", "--alpha", "1/2", "--fractions"], "--fractions"),
    (["--length", "4", "--depth", "2", "--alpha", "1/2", "--schedule", "const:1"], "--schedule"),
    (["--length", "4", "--depth", "2"], "--alpha"),
    (["--length", "4", "--depth", "2", "--alpha", "1/2", "--format", "xml"], "--format"),
    (["--length", "200000", "--depth", "2", "--alpha", "1/2", "--exact"], "--length"),
    # int() would take these: digit separators and non-ASCII digits are not lengths
    (["--length", "1_0", "--depth", "2", "--alpha", "1/2"], "--length"),
    (["--length", "\u0664", "--depth", "2", "--alpha", "1/2"], "--length"),
    (["--length", "4", "--depth", "1_0", "--alpha", "1/2"], "--depth"),
    (["--length", "4", "--depth", "2", "--alpha", "1/2", "--dps", "3_0"], "--dps"),
]


@pytest.mark.parametrize("argv, parameter", BAD)
def test_bad_input_one_line_exit_2(argv, parameter, capsys):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and parameter in lines[0] and "Traceback" not in err


def test_plot_bad_target_writes_nothing(tmp_path, capsys):
    target = tmp_path / "missing-dir" / "p.png"
    code, out, err = _run(capsys, "--length", "8", "--depth", "2", "--alpha", "1/2",
                          "--plot", str(target))
    assert code == 2 and out == "" and "--plot" in err
    assert not target.parent.exists()


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None
    or importlib.util.find_spec("posbias.render.plots") is None,
    reason="plotting needs matplotlib and posbias.render.plots",
)
def test_plot_written(tmp_path, capsys):
    target = tmp_path / "p.png"
    code, out, _ = _run(capsys, "--length", "32", "--depth", "4", "--alpha", "1/2", "--exact",
                          "--summary", "--plot", str(target))
    assert code == 0 and os.path.getsize(target) > 1000 and "argmin" in out


@pytest.mark.parametrize("kernel,path", [("window:3", "--exact"), ("prefix:2", "--exact"),
                                         ("decay:0.5", "--dps=30"), ("alibi:0.25", None)])
def test_profile_takes_any_kernel(capsys, kernel, path):
    import json
    from fractions import Fraction

    from posbias.numerics import rollout

    argv = ["--length", "7", "--depth", "3", "--alpha", "1/2", "--kernel", kernel, "-f", "json"]
    code, out, _ = _run(capsys, *argv, *([path] if path else []))
    assert code == 0
    doc = json.loads(out)
    assert doc["kernel"] == kernel and len(doc["profile"]) == 7
    lams = [Fraction(1, 2)] * 3
    if path == "--exact":
        assert [Fraction(x) for x in doc["profile"]] == rollout.kernel_profile_exact(7, kernel, lams)
    elif path is None:
        expected = rollout.kernel_profile(7, kernel, [0.5] * 3)
        assert doc["profile"] == expected.tolist()


@pytest.mark.parametrize("argv,flag", [
    (["--kernel", "bogus"], "--kernel"),
    (["--kernel", "prefix:9"], "--kernel"),
    (["--kernel", "decay:0.5", "--exact"], "--kernel"),
    (["--kernel", "window:0"], "--kernel"),
])
def test_profile_bad_kernel_is_one_line(capsys, argv, flag):
    code, out, err = _run(capsys, "--length", "4", "--depth", "2", "--alpha", "1/2", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and flag in err


def test_an_exact_kernel_rollout_is_announced_at_its_cost(capsys, monkeypatch):
    """A kernel other than Cesàro's propagates reduced Fractions on the exact path: planned as
    such (prefix:16 at L = 2048, T = 24 took 280 s where Cesàro's scaled integers take 0.7 s),
    so the run is announced with minutes, not a second; a window reads fewer tokens per row and
    is planned cheaper.  The computation itself is replaced: only the plan is under test."""
    from posbias.cli import profile as cli_profile
    from posbias.numerics.costs import kernel_exact_seconds, profile_seconds

    def planned_only(*args, **kwargs):
        raise KeyboardInterrupt  # stop after the announcement (exit 130, nothing written)

    monkeypatch.setattr(cli_profile, "compute_profile", planned_only)
    argv = ["profile", "--length", "2048", "--depth", "24", "--alpha", "1/2", "--exact",
            "--summary"]
    announced = {}
    for kernel in ("prefix:16", "window:1024", "cesaro"):
        main([*argv, "--kernel", kernel])
        announced[kernel] = capsys.readouterr().err.splitlines()[0]
    assert "about 5 min" in announced["prefix:16"], announced
    assert "about 75 s" in announced["window:1024"], announced
    assert "about 1 s" in announced["cesaro"], announced
    assert kernel_exact_seconds(2048, 24, 2048, 2) > 100 * profile_seconds("exact", 2048, 24, 2, None)
