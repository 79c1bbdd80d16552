"""`posbias profile --model kinetic:...` and `posbias sweep` with command kinetic: the kinetic
retrieval profile of duerinckx2026 on the precise and fast paths, L = 10^6 in seconds, and bad
input as one line with exit status 2 and nothing written."""

from __future__ import annotations

import csv
import json
import time

import mpmath
import pytest

from posbias.cli import main
from posbias.numerics.kinetic import kinetic_value_precise, parse_kinetic


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_fast_table_matches_the_precise_values(capsys):
    code, out, _ = _run(capsys, "profile", "--length", "8", "--model",
                        "kinetic:lambda=1,beta=1,t=1.5", "-f", "csv")
    assert code == 0
    rows = [line.split(",") for line in out.strip().splitlines()]
    assert rows[0] == ["position", "S"] and len(rows) == 9
    model = parse_kinetic("kinetic:lambda=1,beta=1,t=1.5")
    for j, value in rows[1:]:
        want = kinetic_value_precise(f"{j}/8", model, 30)
        assert abs(float(value) - float(want)) <= 1e-14 * float(want)


def test_precise_json(capsys):
    code, out, _ = _run(capsys, "profile", "--length", "4", "--model", "kinetic:lambda=0,c=1",
                        "--dps", "25", "-f", "json")
    doc = json.loads(out)
    assert code == 0 and doc["model"] == "kinetic:lambda=0,c=1" and doc["paper"] == "duerinckx2026"
    assert doc["path"] == "precise" and doc["dps"] == 25 and doc["profile"][-1] == "1.0"
    want = kinetic_value_precise("1/2", parse_kinetic("kinetic:lambda=0,c=1"), 25)
    assert doc["profile"][1] == mpmath.nstr(want, 25, min_fixed=-5, max_fixed=21)
    assert doc["summary"]["argmin"] == 4  # lambda = 0: decreasing, the minimum at the end


def test_a_million_positions_on_the_fast_path_in_seconds(capsys):
    start = time.perf_counter()
    code, out, _ = _run(capsys, "profile", "--length", "1000000", "--model",
                        "kinetic:lambda=1,beta=1,t=1.5", "--summary")
    assert code == 0 and time.perf_counter() - start < 20
    summary = dict(line.split("  ") for line in out.strip().splitlines()[2:])
    assert 0.41 < int(summary["argmin"]) / 1e6 < 0.43  # the public figure's minimum, s = 0.419


BAD = [
    (["--model", "kinetic:lambda=1"], "--model"),
    (["--model", "kinetic:lambda=1,c=1", "--exact"], "--exact"),
    (["--model", "kinetic:lambda=1,c=1", "--depth", "2"], "--depth"),
    (["--model", "kinetic:lambda=1,c=1", "--alpha", "1/2"], "--alpha"),
    (["--model", "kinetic:lambda=1,c=1", "--kernel", "cesaro"], "--kernel"),
    (["--model", "kinetic:lambda=1,c=1", "--fractions"], "--fractions"),
    (["--model", "kinetic:lambda=0,c=1e6"], "--model"),
    (["--model", "kinetic:lambda=1,c=1", "--dps", "3"], "--dps"),
    ([], "--alpha"),
]


@pytest.mark.parametrize("argv, parameter", BAD)
def test_bad_input_one_line_exit_2(argv, parameter, capsys, tmp_path):
    target = tmp_path / "out.txt"
    code, out, err = _run(capsys, "profile", "--length", "4", *argv, "-o", str(target))
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1 and parameter in lines[0]
    assert not target.exists()


SPEC = """\
command: kinetic
grid:
  lambda: [0, 1, 3]
  t: [1, 3]
fixed:
  length: 400
  beta: 1
heatmap: {x: lambda, y: t, values: [right_slope, valley_position]}
"""


def test_sweep_over_lambda_and_t(tmp_path, capsys):
    spec = tmp_path / "k.yaml"
    spec.write_text(SPEC)
    out = tmp_path / "k.csv"
    assert main(["sweep", str(spec), "-o", str(out), "--quiet"]) == 0
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 6 and "t_crit" in rows[0]
    by = {(r["lambda"], r["t"]): r for r in rows}
    # no ALiBi: no recency (slope < 0), no threshold, the minimum at the end
    assert float(by[("0.0", "1.0")]["right_slope"]) < 0 and by[("0.0", "1.0")]["t_crit"] == "nan"
    assert float(by[("0.0", "1.0")]["valley_position"]) == 1.0
    # lambda = 1: t_crit = 2.457 lies between t = 1 (recency, interior valley) and t = 3
    assert abs(float(by[("1.0", "1.0")]["t_crit"]) - 2.457489) < 1e-6
    assert float(by[("1.0", "1.0")]["right_slope"]) > 0 > float(by[("1.0", "3.0")]["right_slope"])
    assert float(by[("1.0", "1.0")]["valley_position"]) < 1.0


@pytest.mark.parametrize("grid, message", [
    ("  lambda: [1]\n  c: [1]\n  t: [1]\n", "c/beta/t"),
    ("  lambda: [-1]\n  c: [1]\n", "grid.lambda[0]"),
    ("  lambda: [1]\n  beta: [1]\n", "c/beta/t"),
])
def test_sweep_bad_kinetic_points(tmp_path, capsys, grid, message):
    spec = tmp_path / "bad.yaml"
    spec.write_text("command: kinetic\ngrid:\n" + grid + "fixed:\n  length: 10\n")
    code, _, err = _run(capsys, "sweep", str(spec), "--quiet")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
